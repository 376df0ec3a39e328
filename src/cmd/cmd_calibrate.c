// SPDX-License-Identifier: GPL-2.0-only
/*
 * kprotperf calibrate: this machine's cost table measured (calibrate/),
 * written where model_costs_pick finds it as "native", and shown.
 */
#include "cmd/cmds.h"

#include <errno.h>
#include <fcntl.h>
#include <getopt.h>
#include <limits.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "calibrate/calibrate.h"
#include "cmd/cli.h"
#include "cmd/options.h"
#include "model/costs.h"
#include "util/esc.h"
#include "util/safeio.h"

struct calibrate_opts {
	const char *out;
	bool json, show;
};

enum { O_JSON = OPTIONS_LONG_ONLY, O_OUT, O_SHOW };

static const struct options_entry entries[] = {
	{O_OUT, "out", "FILE",
	 "write the table to FILE instead of\n"
	 "~/.cache/kprotperf/costs/native.json; with --show: show FILE"},
	{O_SHOW, "show", NULL, "show the table calibrated before, measure nothing"},
	{O_JSON, "json", NULL, "the table as JSON (the file's format) on stdout"},
	{},
};

static const struct options_example examples[] = {
	{"kprotperf calibrate", "measure this machine's costs, save and show them"},
	{"kprotperf calibrate --show", "the table measured before"},
	{"kprotperf calibrate --out epyc.json --json", "measure into a file of your own, as JSON"},
	{},
};

const struct options_cmd calibrate_options = {
	.name = "calibrate",
	.head = "Usage: kprotperf calibrate [--json] [--out FILE] [--show]\n"
		"Measure this machine's cost table for the machine model's estimated cycles\n"
		"(est_cycles, report --model): natively, in user mode, by microbenchmarks pinned\n"
		"to one CPU, each the fastest of repeats less a twin loop without the\n"
		"instruction measured: the clock (a dependent IMUL chain, checked against an\n"
		"ADD chain and the TSC), cycles per instruction of a plain mix, an L1 miss that\n"
		"hits L2 (data and instructions), an LL miss, a TLB miss (data and\n"
		"instructions), LFENCE, MFENCE, SFENCE, CPUID, VERW, IRETQ, predicted indirect\n"
		"calls and jumps, returns, a call through a retpoline thunk and a return through\n"
		"a return thunk. Costs user mode cannot\n"
		"measure (a CR3 write, WRMSR, SWAPGS, INVLPG...) are constants of the shipped\n"
		"table of this CPU's vendor, each with its source. Then the core's figures for\n"
		"a timing model (\"core\", each with its unit and method): the load-to-use\n"
		"latency in cycles with data in L1, L2, the last level and DRAM (random pointer\n"
		"chases in huge pages, sized by the caches sysfs gives; DRAM's a line at random\n"
		"within each 2 MiB in turn, so that its translation stays in the TLB, a host's\n"
		"too under a hypervisor); a D-TLB miss that hits the second-level TLB, a walk\n"
		"in cache and a TLB miss going to DRAM, each in cycles over its data's\n"
		"load-to-use; the branch mispredict penalty in cycles (the refill after a\n"
		"branch on random bytes resolves: its resolution, which a timing model times\n"
		"itself, taken off);\n"
		"a sequential read's bytes per cycle and cycles per 64-byte line, a sum's\n"
		"cycles per line through 4 KiB pages (what leaving a page costs a stream), the\n"
		"read's cycles per line through half of L2 (the rate L1 takes lines from L2), and\n"
		"independent loads' at random beyond L2 (the last level's latency with as many\n"
		"in flight as L1's miss buffers); of a million last-level hits, those this\n"
		"tenant finds gone to DRAM (16 chases at once, each round of them timed: the\n"
		"rounds slower than the median by half of DRAM's latency beyond LL's); the\n"
		"operations a scheduler holds waiting for their\n"
		"operands (the same loads, six LEAs of each value after it: by Little's law);\n"
		"REP STOSB\n"
		"and REP MOVSB of a 4 KiB page, cycles per line, in L1, L2 and from DRAM;\n"
		"the last level's capacity as this tenant finds it (chases from 1.5x L2 up:\n"
		"the largest set still well under DRAM's latency), KiB; the rename registers\n"
		"a miss leaves room for (two independent DRAM chases, N register adds after\n"
		"each load: where the second miss stops overlapping the first); a loop of five\n"
		"instructions across two 64-byte blocks over the same within one (2 where the\n"
		"front end fetches one block a cycle).\n"
		"The table is written to\n"
		"${XDG_CACHE_HOME:-~/.cache}/kprotperf/costs/native.json (through no link:\n"
		"a temporary file renamed into place), where --costs native finds it, and shown:\n"
		"each cost in extra cycles over cpi with its source. It takes ~30 s; a busy\n"
		"machine only makes the repeats slower, and the fastest is kept.\n",
	.foot = "Format and sources: docs/model.md, \"Estimated cycles\".\n",
	.column = 18,
	.examples = examples,
	.opts = entries,
};

static int set_opt(void *ctx, int key, const char *arg)
{
	struct calibrate_opts *o = ctx;

	switch (key) {
	case O_OUT:
		o->out = arg;
		break;
	case O_JSON:
		o->json = true;
		break;
	case O_SHOW:
		o->show = true;
		break;
	}
	return 0;
}

static int fill(FILE *f, void *ctx)
{
	const char *text = ctx;

	return fputs(text, f) < 0 ? -EIO : 0;
}

/* The native table's folder, made when absent: fd or -errno, said. */
static int native_dir(char *path, size_t len)
{
	char base[PATH_MAX + 32], *end;
	struct stat st;
	int fd, sub, err = 0;

	if (!model_costs_native_dir(path, len)) {
		fprintf(stderr, "kprotperf calibrate: no $HOME for ~/.cache: give --out FILE\n");
		return -ENOENT;
	}
	snprintf(base, sizeof(base), "%s", path);
	end = strstr(base, "/kprotperf/costs");
	*end = '\0';
	if (mkdir(base, 0700) && errno != EEXIST)
		err = -errno;
	fd = err ? err : open(base, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	if (fd < 0)
		err = fd == -1 ? -errno : fd;
	sub = err ? err : safeio_subdir(fd, "kprotperf");
	if (!err)
		close(fd);
	fd = sub < 0 ? sub : safeio_subdir(sub, "costs");
	if (sub >= 0)
		close(sub);
	if (fd >= 0 && (fstat(fd, &st) || (st.st_uid && st.st_uid != geteuid()) ||
			(st.st_mode & (S_IWGRP | S_IWOTH)))) {
		close(fd);
		fd = -EPERM;
	}
	if (fd < 0)
		esc_printf(stderr,
			   "kprotperf calibrate: cannot write into %s: %s (a link, another user's "
			   "or a folder others can write are refused): give --out FILE\n",
			   path, strerror(-fd));
	return fd;
}

/*
 * The folder the table goes into, --out FILE's or the native table's,
 * opened before anything is measured: fd (*name: the file's name in it,
 * path: the whole) or -errno, said.
 */
static int destination(const struct calibrate_opts *o, const char **name, char *path, size_t len)
{
	char why[512] = "";
	int dirfd;

	*name = MODEL_COSTS_NATIVE;
	if (!o->out) {
		dirfd = native_dir(path, len);
		if (dirfd >= 0)
			snprintf(path + strlen(path), len - strlen(path), "/%s", *name);
		return dirfd;
	}
	snprintf(path, len, "%s", o->out);
	dirfd = safeio_dir_of(o->out, -1, name, why, sizeof(why));
	if (dirfd < 0)
		esc_printf(stderr, "kprotperf calibrate: %s: %s\n", o->out,
			   *why ? why : strerror(-dirfd));
	return dirfd;
}

/* The table measured, as JSON in memory, read back as model_costs_load would: 0 or -errno. */
static int table_text(struct calib_result *r, char **text)
{
	struct model_costs back;
	char why[768];
	size_t n = 0;
	FILE *f = open_memstream(text, &n);
	int err;

	if (!f)
		return -ENOMEM;
	err = calib_write_json(f, &r->costs, &r->src);
	if (fclose(f) && !err)
		err = -EIO;
	if (!err)
		err = model_costs_parse(*text, n, "the table measured", &back, NULL, why,
					sizeof(why));
	if (err == -EINVAL)
		fprintf(stderr, "kprotperf calibrate: the table measured is not valid: %s\n", why);
	return err;
}

static int show(const struct calibrate_opts *o)
{
	struct model_cost_sources *src = malloc(sizeof(*src));
	struct model_costs c;
	int err = src ? 0 : -ENOMEM;

	if (!err)
		err = o->out ? model_costs_load_sources(o->out, &c, src)
			     : model_costs_pick_sources("native", NULL, &c, src);
	if (!err && o->json)
		err = calib_write_json(stdout, &c, src);
	else if (!err)
		calib_show(stdout, &c, src);
	free(src);
	return err ? 1 : 0;
}

int cmd_calibrate(int argc, char **argv)
{
	struct calibrate_opts o = {0};
	struct calib_result *r = NULL;
	char path[PATH_MAX + 32], *text = NULL;
	const char *name;
	int err, dirfd;

	err = options_parse(&calibrate_options, argc, argv, set_opt, &o);
	if (err)
		return err > 0 ? 0 : 2;
	if (cli_input(argc, argv, "calibrate", NULL))
		return 2;
	if (o.show)
		return show(&o);
	dirfd = destination(&o, &name, path, sizeof(path));
	if (dirfd < 0)
		return 1;
	r = malloc(sizeof(*r));
	err = r ? calib_measure(r, o.json ? NULL : stderr) : -ENOMEM;
	if (!err)
		err = table_text(r, &text);
	if (!err) {
		err = safeio_write(dirfd, name, 0644, fill, text);
		if (err)
			esc_printf(stderr, "kprotperf calibrate: cannot write %s: %s\n", path,
				   strerror(-err));
	}
	if (!err) {
		snprintf(r->costs.path, sizeof(r->costs.path), "%s", path);
		if (o.json)
			fputs(text, stdout);
		else
			calib_show(stdout, &r->costs, &r->src);
	}
	close(dirfd);
	free(text);
	free(r);
	return err ? 1 : 0;
}
