// SPDX-License-Identifier: GPL-2.0-only
/* kprotperf boot (boot.h): the boots, each into a raw folder of a scratch folder, then the
 * recording. */
#include "boot/boot.h"

#include <errno.h>
#include <limits.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "boot/boot_collect.h"
#include "boot/vmrun.h"
#include "data/datafile.h"
#include "util/esc.h"
#include "util/scratch.h"

/* exit status of vm-run.sh when the VM could not run (and of kprotperf boot then) */
#define VM_FAILED 125
/* console lines shown when a boot failed */
#define CONSOLE_TAIL 10

struct boots {
	const struct boot_opts *o;
	char vmrun[PATH_MAX], scratch[PATH_MAX];
	char **dirs; /* the runs' raw folders */
	unsigned int n;
};

static double now_s(void)
{
	struct timespec t;

	clock_gettime(CLOCK_MONOTONIC, &t);
	return t.tv_sec + t.tv_nsec / 1e9;
}

/* A boot vm-run.sh could not make: what it and the guest's console said. */
static int failed(struct boots *b, unsigned int run, int status, const char *log)
{
	char console[PATH_MAX];

	if (status == VM_FAILED) {
		snprintf(console, sizeof(console), "%s/console.log", b->dirs[run]);
		fprintf(stderr, "kprotperf boot: boot %u/%u failed; the console's last lines:\n",
			run + 1, b->o->repeat);
		boot_print_tail(console, CONSOLE_TAIL, "  | ");
		boot_print_tail(log, 1, "kprotperf boot: vm-run.sh: ");
		return VM_FAILED;
	}
	fprintf(stderr, "kprotperf boot: boot %u/%u: vm-run.sh exited with status %d:\n", run + 1,
		b->o->repeat, status);
	boot_print_tail(log, CONSOLE_TAIL, "  | ");
	return 1;
}

/* Boot run into its raw folder: 0, or kprotperf's exit status after saying why. */
static int one_boot(struct boots *b, unsigned int run)
{
	char log[PATH_MAX + 32];
	double t0 = now_s();
	int status;

	if (asprintf(&b->dirs[run], "%s/run-%u", b->scratch, run) < 0) {
		b->dirs[run] = NULL;
		return 1;
	}
	b->n++;
	snprintf(log, sizeof(log), "%s/vm-run-%u.log", b->scratch, run);
	fprintf(stderr, "kprotperf boot: boot %u/%u...\n", run + 1, b->o->repeat);
	status = boot_vmrun(b->vmrun, b->o, b->dirs[run], log);
	if (status < 0)
		return 1;
	if (status)
		return failed(b, run, status, log);
	fprintf(stderr, "kprotperf boot: boot %u/%u done in %.1f s\n", run + 1, b->o->repeat,
		now_s() - t0);
	return 0;
}

/* Ctrl-C (or SIGTERM) reaches vm-run.sh, which ends; this process stops at the boot's end. */
static bool interrupted(void)
{
	sigset_t pending;

	sigpending(&pending);
	return sigismember(&pending, SIGINT) || sigismember(&pending, SIGTERM) ||
	       sigismember(&pending, SIGHUP);
}

static int boots_record(struct boots *b)
{
	char why[512];
	unsigned int run;
	int ret = 0, err;

	for (run = 0; !ret && run < b->o->repeat; run++) {
		ret = one_boot(b, run);
		if (interrupted()) {
			fprintf(stderr, "kprotperf boot: interrupted: nothing written\n");
			ret = 130;
		}
	}
	if (ret)
		return ret;
	err = boot_collect(b->o, (const char *const *)b->dirs, b->n, why, sizeof(why));
	if (err) {
		esc_printf(stderr, "kprotperf boot: %s\n", why[0] ? why : strerror(-err));
		return 1;
	}
	esc_printf(stderr, "kprotperf: wrote %s: %u boot%s\n", b->o->output, b->n,
		   b->n == 1 ? "" : "s");
	return 0;
}

int boot_run(const struct boot_opts *o)
{
	struct boots b = {.o = o};
	sigset_t block, old;
	char why[512] = "";
	unsigned int i;
	int ret, err;

	if (boot_vmrun_find(b.vmrun, sizeof(b.vmrun)))
		return 1;
	/* before any boot: a recording must not be lost at the end for want of a path */
	err = datafile_check_target(o->output, why, sizeof(why));
	if (err) {
		esc_printf(stderr, "kprotperf boot: cannot write '%s': %s\n", o->output,
			   why[0] ? why : strerror(-err));
		return 1;
	}
	b.dirs = calloc(o->repeat, sizeof(*b.dirs));
	err = b.dirs ? scratch_make(b.scratch, sizeof(b.scratch), NULL, "boot") : -ENOMEM;
	if (err) {
		fprintf(stderr, "kprotperf boot: cannot make a scratch folder: %s\n",
			strerror(-err));
		free(b.dirs);
		return 1;
	}
	sigemptyset(&block);
	sigaddset(&block, SIGINT);
	sigaddset(&block, SIGTERM);
	sigaddset(&block, SIGHUP);
	sigprocmask(SIG_BLOCK, &block, &old);
	ret = boots_record(&b);
	err = scratch_remove(b.scratch);
	if (err)
		esc_printf(stderr, "kprotperf boot: cannot remove the scratch folder %s: %s\n",
			   b.scratch, strerror(-err));
	for (i = 0; i < b.n; i++)
		free(b.dirs[i]);
	free(b.dirs);
	sigprocmask(SIG_SETMASK, &old, NULL);
	return ret ?: err ? 1 : 0;
}
