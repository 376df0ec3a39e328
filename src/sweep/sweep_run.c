// SPDX-License-Identifier: GPL-2.0-only
/* A sweep's jobs checked, printed or run here (sweep_run.h). */
#include "sweep/sweep_run.h"

#include <errno.h>
#include <limits.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "boot/vmrun.h"
#include "sweep/sweep_opts.h"
#include "sweep/sweep_plan.h"
#include "sweep/sweep_setup.h"
#include "util/esc.h"
#include "util/scratch.h"

#define WHO "kprotperf sweep"

/* A job's command line: kprotperf sweep --job NAME -o DIR [...] PLAN, absolute paths. */
struct job_cmd {
	char self[PATH_MAX], plan[PATH_MAX], dir[PATH_MAX], core[PATH_MAX], repeat[16], ops[1024];
	const char *argv[24];
};

/* path made absolute against the working folder (it need not exist) */
static int absolute(const char *path, char *out, size_t len)
{
	char cwd[PATH_MAX];

	if (path[0] == '/')
		return snprintf(out, len, "%s", path) < (int)len ? 0 : -ENAMETOOLONG;
	if (!getcwd(cwd, sizeof(cwd)))
		return -errno;
	return snprintf(out, len, "%s/%s", cwd, path) < (int)len ? 0 : -ENAMETOOLONG;
}

/*
 * --core as a job on any node takes it: a file (a '/' in it, or .json, as
 * scripts/lib/core_args.py tells a file from a name) made absolute.
 */
static int core_arg(const char *core, char *out, size_t len)
{
	size_t n = strlen(core);

	if (strchr(core, '/') || (n >= 5 && !strcmp(core + n - 5, ".json")))
		return absolute(core, out, len);
	return snprintf(out, len, "%s", core) < (int)len ? 0 : -ENAMETOOLONG;
}

static int job_cmd(const struct sweep_opts *o, const char *name, struct job_cmd *c)
{
	ssize_t n = readlink("/proc/self/exe", c->self, sizeof(c->self) - 1);
	size_t k = 0, i, used = 0;
	int err;

	if (n < 0)
		return -errno;
	c->self[n] = '\0';
	err = absolute(o->plan, c->plan, sizeof(c->plan))
		      ?: absolute(o->dir, c->dir, sizeof(c->dir));
	if (err)
		return err;
	snprintf(c->repeat, sizeof(c->repeat), "%u", o->repeat);
	for (i = 0; i < o->nops && used < sizeof(c->ops); i++)
		used += snprintf(c->ops + used, sizeof(c->ops) - used, "%s%s", i ? "," : "",
				 o->ops[i]);
	c->argv[k++] = c->self;
	c->argv[k++] = "sweep";
	c->argv[k++] = "--job";
	c->argv[k++] = name;
	c->argv[k++] = "-o";
	c->argv[k++] = c->dir;
	c->argv[k++] = "-r";
	c->argv[k++] = c->repeat;
	c->argv[k++] = "--ops";
	c->argv[k++] = c->ops;
	if (o->model) {
		c->argv[k++] = "--model";
		c->argv[k++] = o->model;
	}
	if (o->core) {
		err = core_arg(o->core, c->core, sizeof(c->core));
		if (err)
			return err;
		c->argv[k++] = "--core";
		c->argv[k++] = c->core;
	}
	c->argv[k++] = c->plan;
	c->argv[k] = NULL;
	return 0;
}

int sweep_print_jobs(const struct sweep_opts *o, const struct sweep_plan *p, FILE *f)
{
	struct job_cmd c;
	size_t i, k;
	int err = 0;

	for (i = 0; i < p->n && !err; i++) {
		err = job_cmd(o, p->v[i].name, &c);
		for (k = 0; !err && c.argv[k]; k++) {
			if (k)
				fputc(' ', f);
			sweep_shell_word(c.argv[k], f);
		}
		if (!err)
			fputc('\n', f);
	}
	if (err)
		fprintf(stderr, WHO ": the jobs' paths: %s\n", strerror(-err));
	return err;
}

/* A kernel folder or package of --kernel, as vm-run.sh takes it; 1 after saying why not. */
static int check_kernel(const struct sweep_variant *v, const char *plan, const char *k)
{
	static const char *const files[] = {"bzImage", "vmlinux"};
	char path[PATH_MAX];
	struct stat st;
	size_t i;

	if (!strchr(k, '/') && stat(k, &st)) {
		if (!strncmp(k, "linux-image-", 12))
			return 0;
		esc_printf(stderr,
			   WHO ": %s:%u: %s: --kernel %s: neither a folder nor a linux-image-*"
			       " package\n",
			   plan, v->line, v->name, k);
		return 1;
	}
	for (i = 0; i < sizeof(files) / sizeof(files[0]); i++) {
		snprintf(path, sizeof(path), "%s/%s", k, files[i]);
		if (stat(path, &st) || !S_ISREG(st.st_mode)) {
			esc_printf(stderr,
				   WHO ": %s:%u: %s: --kernel %s has no %s: give a folder of"
				       " scripts/kernel-build.sh\n",
				   plan, v->line, v->name, k, files[i]);
			return 1;
		}
	}
	return 0;
}

/*
 * A check argv spawned, its output in log: 1 after saying the last line
 * of log that starts with prefix (or that it said nothing), as the plan's
 * line for v; what vmrun_spawn returned when it did not refuse.
 */
static int check_spawn(const char *const *argv, const char *log, const char *prefix,
		       const char *plan, const struct sweep_variant *v)
{
	char why[1024] = "", *line = NULL;
	size_t cap = 0, len = strlen(prefix);
	int rc = vmrun_spawn(WHO, argv, NULL, log);
	FILE *f;

	if (rc <= 0)
		return rc;
	f = fopen(log, "r");
	while (f && getline(&line, &cap, f) > 0)
		if (!strncmp(line, prefix, len))
			snprintf(why, sizeof(why), "%s", line);
	if (f)
		fclose(f);
	free(line);
	why[strcspn(why, "\n")] = '\0';
	if (*why)
		esc_printf(stderr, WHO ": %s:%u: %s: %s\n", plan, v->line, v->name, why);
	else
		esc_printf(stderr, WHO ": %s:%u: %s: %s --check failed, saying nothing\n", plan,
			   v->line, v->name,
			   strrchr(argv[0], '/') ? strrchr(argv[0], '/') + 1 : argv[0]);
	return 1;
}

/* kernel-build.sh --check of a build and its command line; 1 after saying why it refused. */
static int check_build(const char *kb, const char *tmp, const char *plan,
		       const struct sweep_variant *v, const struct sweep_setup *s)
{
	const char *argv[SWEEP_SETUP_ARGS + 8] = {kb, "-q", "--check"};
	char log[PATH_MAX + 64], cmdline[8192];
	size_t n = sweep_setup_build_args(s, argv, 3);

	if (sweep_setup_cmdline(s, cmdline, sizeof(cmdline)) && *cmdline) {
		argv[n++] = "--cmdline";
		argv[n++] = cmdline;
		argv[n] = NULL;
	}
	snprintf(log, sizeof(log), "%s/check-%s.log", tmp, v->name);
	return check_spawn(argv, log, "kernel-build: ", plan, v);
}

/* The build part of s (kernel-build.sh's arguments, the command line), for checking each once. */
static void build_key(const struct sweep_setup *s, char *buf, size_t len)
{
	struct sweep_setup b = *s;

	b.timeout = NULL;
	b.cpu = NULL;
	sweep_setup_line(&b, buf, len);
}

/* vm-run.sh --check --cpu: whether QEMU runs the model under TCG; 1 after saying why not. */
static int check_cpu(const char *vmrun, const char *tmp, const char *plan,
		     const struct sweep_variant *v, const char *cpu)
{
	const char *argv[] = {vmrun, "--check", "--cpu", cpu, NULL};
	char log[PATH_MAX + 64];

	snprintf(log, sizeof(log), "%s/cpu-%s.log", tmp, v->name);
	return check_spawn(argv, log, "vm-run: ", plan, v);
}

/* Each CPU model of the plan tried once (the first variant naming it says a refusal). */
static int check_cpus(const struct sweep_opts *o, const struct sweep_plan *p, const char *tmp)
{
	struct sweep_setup s, t;
	char vmrun[PATH_MAX];
	int bad = 0, found = 0, rc;
	size_t i, k;

	for (i = 0; i < p->n && bad >= 0; i++) {
		sweep_setup_of(p, &p->v[i], &s);
		for (k = 0; s.cpu && k < i; k++) {
			sweep_setup_of(p, &p->v[k], &t);
			if (t.cpu && !strcmp(t.cpu, s.cpu))
				break;
		}
		if (!s.cpu || k < i)
			continue;
		if (!found++ &&
		    vmrun_find(WHO, "KP_VM_RUN", "scripts/vm-run.sh", vmrun, sizeof(vmrun)))
			return -ENOENT;
		rc = check_cpu(vmrun, tmp, o->plan, &p->v[i], s.cpu);
		bad = rc < 0 ? rc : bad + rc;
	}
	return bad;
}

static int check_all(const struct sweep_opts *o, const struct sweep_plan *p, const char *tmp)
{
	char(*key)[2048] = calloc(p->n, sizeof(*key)), kb[PATH_MAX];
	int *res = calloc(p->n, sizeof(*res)), bad = 0, builds = 0, cpus;
	struct sweep_setup s;
	size_t i, k;

	if (!key || !res) {
		free(key);
		free(res);
		return -ENOMEM;
	}
	for (i = 0; i < p->n && bad >= 0; i++) {
		sweep_setup_of(p, &p->v[i], &s);
		build_key(&s, key[i], sizeof(key[i]));
		for (k = 0; k < i && strcmp(key[k], key[i]); k++)
			;
		if (k < i)
			res[i] = res[k];
		else if (!sweep_setup_builds(&s))
			res[i] = check_kernel(&p->v[i], o->plan, s.kernel);
		else if (!builds++ && vmrun_find(WHO, "KP_KERNEL_BUILD", "scripts/kernel-build.sh",
						 kb, sizeof(kb)))
			res[i] = -ENOENT;
		else
			res[i] = check_build(kb, tmp, o->plan, &p->v[i], &s);
		bad = res[i] < 0 ? res[i] : bad + res[i];
	}
	cpus = bad < 0 ? 0 : check_cpus(o, p, tmp);
	bad = cpus < 0 ? cpus : bad + cpus;
	if (bad >= 0)
		esc_printf(
			stderr,
			WHO
			": %s: %zu variants checked (kernel-build.sh --check run %d times): %s\n",
			o->plan, p->n, builds, bad ? "refused" : "ok");
	free(key);
	free(res);
	return bad;
}

int sweep_check(const struct sweep_opts *o, const struct sweep_plan *p)
{
	char tmp[PATH_MAX];
	int err = scratch_make(tmp, sizeof(tmp), NULL, "sweep-check");

	if (err) {
		fprintf(stderr, WHO ": a scratch folder for the checks: %s\n", strerror(-err));
		return err;
	}
	err = check_all(o, p, tmp);
	scratch_remove(tmp);
	return err;
}

static pid_t start(const struct sweep_opts *o, const char *name)
{
	struct job_cmd c;
	pid_t pid;
	int err = job_cmd(o, name, &c);

	if (err) {
		fprintf(stderr, WHO ": the jobs' paths: %s\n", strerror(-err));
		return err;
	}
	pid = fork();
	if (!pid) {
		execv(c.argv[0], (char *const *)c.argv);
		dprintf(2, WHO ": cannot run %s: %s\n", c.argv[0], strerror(errno));
		_exit(126);
	}
	if (pid < 0)
		fprintf(stderr, WHO ": cannot start a job: %s\n", strerror(errno));
	return pid < 0 ? -errno : pid;
}

/* One job's end: 1 when it failed, 0 when not; -errno when there was none to wait for. */
static int reap(void)
{
	int status;
	pid_t pid;

	while ((pid = wait(&status)) < 0 && errno == EINTR)
		;
	if (pid < 0)
		return -errno;
	return !WIFEXITED(status) || WEXITSTATUS(status);
}

int sweep_local(const struct sweep_opts *o, const struct sweep_plan *p)
{
	unsigned int running = 0;
	int failed = 0, err = 0, r;
	size_t i;
	pid_t pid;

	for (i = 0; i < p->n && !err; i++) {
		if (running == o->jobs) {
			r = reap();
			failed += r > 0;
			running--;
		}
		pid = start(o, p->v[i].name);
		err = pid < 0 ? pid : 0;
		running += pid > 0;
	}
	for (; running; running--) {
		r = reap();
		failed += r > 0;
	}
	return err ?: failed;
}
