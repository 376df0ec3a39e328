// SPDX-License-Identifier: GPL-2.0-only
/* One variant's job: built, booted, recorded, left in DIR/VARIANT (sweep_job.h). */
#include "sweep/sweep_job.h"

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <signal.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "boot/vmrun.h"
#include "sweep/sweep_jobfile.h"
#include "sweep/sweep_opts.h"
#include "sweep/sweep_plan.h"
#include "sweep/sweep_setup.h"
#include "util/esc.h"
#include "util/safeio.h"
#include "util/scratch.h"

#define WHO "kprotperf sweep"
/* a boot's time limit: the boot, and each operation's warm-up and runs */
#define BOOT_BASE_S   300
#define BOOT_PER_OP_S 60

struct job {
	const struct sweep_opts *o;
	const struct sweep_variant *v;
	struct sweep_setup s;
	char tmp[PATH_MAX];
	char kb[PATH_MAX], vmrun[PATH_MAX];
	char kernel[SWEEP_FIELD_MAX];
	char final[PATH_MAX]; /* DIR/VARIANT */
	struct sweep_jobfile j;
};

static int write_plan(FILE *f, void *p)
{
	const struct sweep_plan *plan = p;

	return fwrite(plan->text, 1, plan->size, f) == plan->size ? 0 : -EIO;
}

/* 1 when DIR/sweep.plan holds p's text, 0 when there is none, -EEXIST when another plan. */
static int same_plan(int dirfd, const struct sweep_plan *p)
{
	int fd = openat(dirfd, "sweep.plan", O_RDONLY | O_NOFOLLOW | O_CLOEXEC);
	char *buf;
	ssize_t n;

	if (fd < 0)
		return errno == ENOENT ? 0 : -errno;
	buf = malloc(p->size + 1);
	n = buf ? read(fd, buf, p->size + 1) : -1;
	close(fd);
	n = n == (ssize_t)p->size && !memcmp(buf, p->text, p->size) ? 1 : -EEXIST;
	free(buf);
	return n;
}

int sweep_dir_prepare(const char *dir, const struct sweep_plan *p)
{
	char why[512];
	int fd, same, err = 0;

	if (mkdir(dir, 0755) && errno != EEXIST) {
		esc_printf(stderr, WHO ": cannot make %s: %s\n", dir, strerror(errno));
		return -errno;
	}
	fd = safeio_dir(dir, (uid_t)-1, why, sizeof(why));
	if (fd < 0 && !*why)
		snprintf(why, sizeof(why), "-o %s: %s", dir,
			 fd == -ENOTDIR ? "exists and is not a folder: give a folder"
					: strerror(-fd));
	if (fd < 0) {
		esc_printf(stderr, WHO ": %s\n", why);
		return fd;
	}
	same = same_plan(fd, p);
	if (same == -EEXIST)
		esc_printf(stderr,
			   WHO ": %s holds the results of another plan (its sweep.plan is not this"
			       " one): give another -o DIR\n",
			   dir);
	else if (same < 0)
		esc_printf(stderr, WHO ": cannot read %s/sweep.plan: %s\n", dir, strerror(-same));
	else if (!same)
		err = safeio_write(fd, "sweep.plan", 0644, write_plan, (void *)p);
	if (err)
		esc_printf(stderr, WHO ": cannot write %s/sweep.plan: %s\n", dir, strerror(-err));
	close(fd);
	return same < 0 ? same : err;
}

/* The last line of the log at path that starts with prefix ("": any), escaped, into buf. */
static void last_line(const char *path, const char *prefix, bool raw, char *buf, size_t len)
{
	char why[256], *line = NULL;
	FILE *f = safeio_fopen_text(path, why, sizeof(why));
	size_t cap = 0;
	FILE *m;

	snprintf(buf, len, "(no output)");
	while (f && getline(&line, &cap, f) > 0) {
		line[strcspn(line, "\r\n")] = '\0';
		if (!*line || strncmp(line, prefix, strlen(prefix)))
			continue;
		if (raw) {
			snprintf(buf, len, "%s", line);
			continue;
		}
		memset(buf, 0, len);
		/* one byte kept: a full memory stream writes no NUL */
		m = fmemopen(buf, len - 1, "w");
		if (m) {
			esc_fputs(m, line, ESC_TEXT);
			fclose(m);
		}
	}
	free(line);
	if (f)
		fclose(f);
}

/* s with the scratch folder's name, where the job's files are until they are placed, as DIR/VARIANT
 */
static void placed(const struct job *jb, const char *s, char *out, size_t len)
{
	const char *at = strstr(s, jb->tmp);
	FILE *f;

	memset(out, 0, len);
	f = fmemopen(out, len - 1, "w");
	if (!f)
		return;
	if (at)
		fprintf(f, "%.*s%s%s", (int)(at - s), s, jb->final, at + strlen(jb->tmp));
	else
		fputs(s, f);
	fclose(f);
}

/* The signal that asked the job to stop (SIGTERM, SIGINT, SIGHUP), 0 while none did. */
static volatile sig_atomic_t stop_signal;

static void on_stop(int sig)
{
	stop_signal = sig;
	vmrun_forward(sig);
}

/* Stop signals caught: a job its engine stops leaves a job file saying so, and its script stops. */
static void catch_stop(void)
{
	static const int sigs[] = {SIGTERM, SIGINT, SIGHUP};
	struct sigaction sa = {.sa_handler = on_stop};
	size_t i;

	sigemptyset(&sa.sa_mask);
	for (i = 0; i < sizeof(sigs) / sizeof(sigs[0]); i++)
		sigaction(sigs[i], &sa, NULL);
}

/* 1 after the job's reason says that a stop signal came in step, 0 when none came. */
static int stopped(struct job *jb, const char *step)
{
	int sig = stop_signal;

	if (!sig)
		return 0;
	snprintf(jb->j.reason, sizeof(jb->j.reason),
		 "killed: %s in its %s (its engine stopped it: a time limit, a cancel, Ctrl-C):"
		 " run its job again",
		 sig == SIGTERM	 ? "SIGTERM"
		 : sig == SIGINT ? "SIGINT"
				 : "SIGHUP",
		 step);
	snprintf(jb->j.status, sizeof(jb->j.status), "failed");
	esc_printf(stderr, WHO ": %s: %s\n", jb->v->name, jb->j.reason);
	return 1;
}

static int fail(struct job *jb, const char *step, const char *log, const char *prefix)
{
	char line[SWEEP_FIELD_MAX - 64], where[SWEEP_FIELD_MAX - 64];

	/* a script stopped with the job: stopped() says why */
	if (stop_signal)
		return 1;
	last_line(log, prefix, false, line, sizeof(line));
	placed(jb, line, where, sizeof(where));
	snprintf(jb->j.reason, sizeof(jb->j.reason), "%s: %s", step, where);
	snprintf(jb->j.status, sizeof(jb->j.status), "failed");
	esc_printf(stderr, WHO ": %s: %s\n", jb->v->name, jb->j.reason);
	return 1;
}

static int run(struct job *jb, const char *const *argv, const char *log_name, char *log, size_t len)
{
	static const char *const env[] = {"KP_VM_ACCEL=icount", NULL};
	const char *accel = getenv("KP_VM_ACCEL");

	snprintf(log, len, "%s/%s", jb->tmp, log_name);
	/* icount unless the user chose: the guest's clock then counts instructions */
	return vmrun_spawn(WHO, argv, accel && *accel ? NULL : env, log);
}

/* kernel-build.sh: its result folder, the last line it printed, into jb->kernel. */
static int build(struct job *jb)
{
	const char *argv[SWEEP_SETUP_ARGS + 4] = {jb->kb, "-q"};
	char log[PATH_MAX + 80], cmdline[8192];
	time_t t0 = time(NULL);
	struct stat st;
	size_t n;
	int rc;

	n = sweep_setup_build_args(&jb->s, argv, 2);
	if (sweep_setup_cmdline(&jb->s, cmdline, sizeof(cmdline)) && *cmdline) {
		argv[n++] = "--cmdline";
		argv[n++] = cmdline;
		argv[n] = NULL;
	}
	esc_printf(stderr, WHO ": %s: building the kernel\n", jb->v->name);
	rc = run(jb, argv, "build.log", log, sizeof(log));
	if (rc < 0)
		return rc;
	if (rc)
		return fail(jb, "build", log, "");
	last_line(log, "/", true, jb->kernel, sizeof(jb->kernel));
	if (stat(jb->kernel, &st) || !S_ISDIR(st.st_mode))
		return fail(jb, "build: kernel-build.sh printed no result folder", log, "");
	jb->j.build_s = time(NULL) - t0;
	return 0;
}

/*
 * What the guest runs for each operation $op, one line: a warm-up run, the
 * times with nothing attached (record --model: without the model's plugin
 * its markers do nothing), then, without the model, the functions from
 * sampled runs apart (a sample costs the guest as much as a hundred getppid
 * calls), and the status.  The job file keeps it: results recorded another
 * way are not compared.
 */
static void record_line(const struct job *jb, char *buf, size_t len)
{
	unsigned int r = jb->o->repeat;
	char sampled[160] = "";

	if (!jb->o->model)
		snprintf(sampled, sizeof(sampled),
			 " && kprotperf record -q --no-syscalls -F 999 -r %u -o $op.samples.data --"
			 " core-ops $op >/dev/null 2>>$op.err",
			 r);
	snprintf(buf, len,
		 "core-ops $op >/dev/null 2>&1; kprotperf record -q --model -r %u -o $op.data --"
		 " core-ops $op >$op.out 2>$op.err%s; echo $? >$op.rc",
		 r, sampled);
}

/* The parameters Linux's x86 code reads itself (6.1: cmdline_find_option()), as a case pattern. */
#define X86_OWN                                                                            \
	"pti|nopti|spectre_v2|nospectre_v2|spectre_v2_user|spec_store_bypass_disable|"     \
	"nospec_store_bypass_disable|clearcpuid|no387|nofxsr|noxsave|noxsaveopt|noxsaves|" \
	"split_lock_detect|tsx|nokaslr"

/* The guest's script: each operation's line (record_line). */
static void script(const struct job *jb, const char *const *ops, size_t n, char *buf, size_t len)
{
	FILE *f;
	size_t i;

	memset(buf, 0, len);
	f = fmemopen(buf, len - 1, "w");
	if (!f)
		return;
	/*
	 * A parameter the kernel does not know would measure nothing: stop at
	 * once.  x86 reads the words of X86_OWN with cmdline_find_option(),
	 * and the kernel lists them as unknown though it honours them
	 * (nokaslr: the decompressor's, which vm-run.sh's direct boot appends).
	 */
	fputs("u=$(dmesg | sed -n 's/.*Unknown kernel command line parameters \"\\([^\"]*\\)\".*/\\1/p')\n"
	      "bad=\nfor w in $u; do case ${w%%=*} in " X86_OWN
	      ") ;; *) bad=\"$bad $w\" ;; esac; done\n"
	      "[ -z \"$bad\" ] || { echo \"Unknown kernel command line parameters:$bad\"; exit 3; }\n"
	      "ip link set lo up 2>/dev/null\nfor op in",
	      f);
	for (i = 0; i < n; i++)
		fprintf(f, " %s", ops[i]);
	fprintf(f, "; do\n\t%s\ndone\n", jb->j.record);
	fclose(f);
}

/* One boot recording ops[0..n): 0, or 1 when it failed (the job's reason says why). */
static int boot(struct job *jb, const char *const *ops, size_t n, const char *model_out)
{
	const char *argv[24] = {jb->vmrun, "--kernel", jb->kernel, "--out", jb->tmp};
	char cmdline[8192], timeout[16], log[PATH_MAX + 80], name[64], sh[4096];
	size_t k = 5;
	int rc;

	if (sweep_setup_cmdline(&jb->s, cmdline, sizeof(cmdline)) && *cmdline) {
		argv[k++] = "--append";
		argv[k++] = cmdline;
	}
	snprintf(timeout, sizeof(timeout), "%u", BOOT_BASE_S + BOOT_PER_OP_S * (unsigned int)n);
	argv[k++] = "--timeout";
	argv[k++] = jb->s.timeout ?: timeout;
	if (jb->s.cpu) {
		argv[k++] = "--cpu";
		argv[k++] = jb->s.cpu;
	}
	if (jb->o->model) {
		argv[k++] = "--model";
		argv[k++] = jb->o->model;
		argv[k++] = "--model-out";
		argv[k++] = model_out;
	}
	if (jb->o->core) {
		argv[k++] = "--core";
		argv[k++] = jb->o->core;
	}
	script(jb, ops, n, sh, sizeof(sh));
	argv[k++] = "--";
	argv[k++] = "sh";
	argv[k++] = "-c";
	argv[k++] = sh;
	argv[k] = NULL;
	snprintf(name, sizeof(name), "vm%s%s.log", model_out ? "-" : "", model_out ? ops[0] : "");
	rc = run(jb, argv, name, log, sizeof(log));
	if (rc < 0)
		return rc;
	if (rc == 125)
		return fail(jb, "boot", log, "vm-run:");
	if (rc == 3)
		return fail(jb, "boot", log, "Unknown kernel command line");
	if (rc)
		return fail(jb, "the guest's script", log, "");
	return 0;
}

/* Every operation in one boot, or with the model one boot each (a boot counts one window set). */
static int boots(struct job *jb)
{
	char model_out[PATH_MAX + 32];
	time_t t0 = time(NULL);
	size_t i;
	int err = 0;

	esc_printf(stderr, WHO ": %s: booting %s, recording %zu operations\n", jb->v->name,
		   jb->kernel, jb->o->nops);
	if (!jb->o->model)
		err = boot(jb, jb->o->ops, jb->o->nops, NULL);
	for (i = 0; jb->o->model && i < jb->o->nops && !err; i++) {
		snprintf(model_out, sizeof(model_out), "%s/%s.model.txt", jb->tmp, jb->o->ops[i]);
		err = boot(jb, &jb->o->ops[i], 1, model_out);
	}
	jb->j.boot_s = time(NULL) - t0;
	return err;
}

/* What the job is, as its job file says it: the same setup is done already once there. */
static void describe(struct job *jb)
{
	struct sweep_jobfile *j = &jb->j;
	size_t i, used = 0;

	*j = (struct sweep_jobfile){.repeat = jb->o->repeat, .build_s = -1, .boot_s = -1};
	snprintf(j->variant, sizeof(j->variant), "%s", jb->v->name);
	sweep_setup_line(&jb->s, j->setup, sizeof(j->setup));
	for (i = 0; i < jb->o->nops && used < sizeof(j->ops); i++)
		used += snprintf(j->ops + used, sizeof(j->ops) - used, "%s%s", i ? " " : "",
				 jb->o->ops[i]);
	snprintf(j->model, sizeof(j->model), "%s", jb->o->model ?: "none");
	snprintf(j->core, sizeof(j->core), "%s", jb->o->core ?: "");
	record_line(jb, j->record, sizeof(j->record));
	snprintf(j->status, sizeof(j->status), "ok");
}

static bool done_already(const struct job *jb, const char *final)
{
	char path[PATH_MAX + 8], why[512];
	struct sweep_jobfile old;

	snprintf(path, sizeof(path), "%s/job", final);
	return !sweep_jobfile_read(path, &old, why, sizeof(why)) && !strcmp(old.status, "ok") &&
	       !strcmp(old.setup, jb->j.setup) && !strcmp(old.ops, jb->j.ops) &&
	       !strcmp(old.model, jb->j.model) && !strcmp(old.core, jb->j.core) &&
	       !strcmp(old.record, jb->j.record) && old.repeat == jb->j.repeat;
}

/* The job file, then the scratch folder renamed DIR/VARIANT (an earlier one goes). */
static int place(struct job *jb, const char *final)
{
	int fd = open(jb->tmp, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC), err;

	snprintf(jb->j.kernel, sizeof(jb->j.kernel), "%s", jb->kernel);
	err = fd < 0 ? -errno : sweep_jobfile_write(fd, &jb->j);
	if (fd >= 0)
		close(fd);
	if (!err && renameat2(AT_FDCWD, jb->tmp, AT_FDCWD, final, RENAME_EXCHANGE) &&
	    (errno != ENOENT || rename(jb->tmp, final)))
		err = -errno;
	if (err)
		esc_printf(stderr, WHO ": %s: cannot leave the results in %s: %s\n", jb->v->name,
			   final, strerror(-err));
	return err;
}

/* A script the job runs, found as vmrun_find() finds it: 0, or 1 after the reason says where not.
 */
static int node_script(struct job *jb, const char *env, const char *rel, char *path, size_t len)
{
	if (vmrun_path(env, rel, path, len))
		return 0;
	snprintf(jb->j.reason, sizeof(jb->j.reason), "node: no %s at %.512s: set %s to its path",
		 rel, path, env);
	snprintf(jb->j.status, sizeof(jb->j.status), "failed");
	esc_printf(stderr, WHO ": %s: %s\n", jb->v->name, jb->j.reason);
	return 1;
}

/* The variant's kernel: its build's inputs (kernel-build.sh --check), or its --kernel folder. */
static int node_kernel(struct job *jb)
{
	const char *argv[SWEEP_SETUP_ARGS + 4] = {jb->kb, "-q", "--check"};
	char log[PATH_MAX + 80], cmdline[8192];
	size_t n;
	int rc;

	if (!sweep_setup_builds(&jb->s)) {
		snprintf(log, sizeof(log), "%s/bzImage", jb->s.kernel);
		if (!strchr(jb->s.kernel, '/') || !access(log, R_OK))
			return 0;
		snprintf(jb->j.reason, sizeof(jb->j.reason), "node: --kernel %.512s: no bzImage",
			 jb->s.kernel);
		snprintf(jb->j.status, sizeof(jb->j.status), "failed");
		esc_printf(stderr, WHO ": %s: %s\n", jb->v->name, jb->j.reason);
		return 1;
	}
	n = sweep_setup_build_args(&jb->s, argv, 3);
	if (sweep_setup_cmdline(&jb->s, cmdline, sizeof(cmdline)) && *cmdline) {
		argv[n++] = "--cmdline";
		argv[n++] = cmdline;
		argv[n] = NULL;
	}
	rc = run(jb, argv, "node-build.log", log, sizeof(log));
	return rc > 0 ? fail(jb, "node", log, "kernel-build:") : rc;
}

/*
 * What the job needs on this node, before anything is built or booted:
 * vm-run.sh (and kernel-build.sh for a build) where vmrun_find() looks;
 * vm-run.sh --check-host: QEMU, busybox, the static binaries, with --model
 * the plugin; the kernel (node_kernel).  0; 1 when the node lacks one, the
 * job's reason saying which ("node: ..."); -errno.
 */
static int node_check(struct job *jb)
{
	const char *argv[] = {jb->vmrun, "--check-host", "--model", jb->o->model,
			      "--core",	 jb->o->core,	 NULL};
	char log[PATH_MAX + 80];
	int rc;

	rc = node_script(jb, "KP_VM_RUN", "scripts/vm-run.sh", jb->vmrun, sizeof(jb->vmrun));
	if (!rc && sweep_setup_builds(&jb->s))
		rc = node_script(jb, "KP_KERNEL_BUILD", "scripts/kernel-build.sh", jb->kb,
				 sizeof(jb->kb));
	if (rc)
		return rc;
	if (!jb->o->model)
		argv[2] = NULL;
	if (!jb->o->core)
		argv[4] = NULL;
	rc = run(jb, argv, "node.log", log, sizeof(log));
	if (rc > 0)
		return fail(jb, "node", log, "vm-run:");
	rc = rc ?: node_kernel(jb);
	if (!rc)
		esc_printf(
			stderr,
			WHO ": %s: this node has what the job needs (vm-run.sh --check-host%s)\n",
			jb->v->name, sweep_setup_builds(&jb->s) ? ", kernel-build.sh --check" : "");
	return rc;
}

static int work(struct job *jb, const char *final)
{
	int err;

	if (scratch_make(jb->tmp, sizeof(jb->tmp), jb->o->dir, jb->v->name)) {
		esc_printf(stderr, WHO ": cannot make a scratch folder in %s: %s\n", jb->o->dir,
			   strerror(errno));
		return -errno;
	}
	snprintf(jb->kernel, sizeof(jb->kernel), "%s", jb->s.kernel ?: "");
	err = node_check(jb);
	err = stopped(jb, "node check") ?: err;
	if (!err && sweep_setup_builds(&jb->s)) {
		err = build(jb);
		err = stopped(jb, "build") ?: err;
	}
	if (!err) {
		err = boots(jb);
		err = stopped(jb, "boot") ?: err;
	}
	err = err < 0 ? err : place(jb, final) ?: err;
	scratch_remove(jb->tmp);
	if (!err)
		esc_printf(stderr, WHO ": %s: %zu operations recorded in %s\n", jb->v->name,
			   jb->o->nops, final);
	return err;
}

int sweep_job_run(const struct sweep_opts *o, const struct sweep_plan *p,
		  const struct sweep_variant *v)
{
	struct job *jb = calloc(1, sizeof(*jb));
	int err;

	if (!jb)
		return -ENOMEM;
	*jb = (struct job){.o = o, .v = v};
	sweep_setup_of(p, v, &jb->s);
	describe(jb);
	snprintf(jb->final, sizeof(jb->final), "%s/%s", o->dir, v->name);
	catch_stop();
	err = sweep_dir_prepare(o->dir, p);
	if (!err && done_already(jb, jb->final))
		esc_printf(stderr, WHO ": %s: done already (%s/job)\n", v->name, jb->final);
	else if (!err)
		err = work(jb, jb->final);
	free(jb);
	return err;
}
