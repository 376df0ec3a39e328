// SPDX-License-Identifier: GPL-2.0-only
/*
 * kprotperf sweep: its options checked, then one of four things: the whole
 * sweep here (the plan checked, its jobs run -j at a time, the matrix), the
 * job list (--dry-run), one job (--job), or the matrix of a DIR the jobs
 * filled (--merge).
 */
#include "cmd/cmds.h"

#include <errno.h>
#include <getopt.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "cmd/options.h"
#include "sweep/sweep_job.h"
#include "sweep/sweep_matrix.h"
#include "sweep/sweep_ops.h"
#include "sweep/sweep_opts.h"
#include "sweep/sweep_out.h"
#include "sweep/sweep_plan.h"
#include "sweep/sweep_run.h"
#include "sweep/sweep_svg.h"
#include "util/esc.h"
#include "util/safeio.h"

enum {
	OPT_OPS = OPTIONS_LONG_ONLY,
	OPT_MODEL,
	OPT_CORE,
	OPT_DRY_RUN,
	OPT_JOB,
	OPT_MERGE,
	OPT_JSON,
	OPT_CSV,
	OPT_SVG,
};

static const struct options_entry entries[] = {
	{'o', "output", "DIR",
	 "the folder the jobs leave their recordings in, one\n"
	 "folder per variant (made when missing; a variant whose\n"
	 "recordings are there for the same setup is not run again)"},
	{'j', "jobs", "N", "run N jobs at once here (default 1)"},
	{'r', "repeat", "N", "runs of each operation on each variant (default 5, at\nmost 100)"},
	{OPT_OPS, "ops", "LIST",
	 "the core operations, comma-separated (default: all of\n"
	 "core-ops list)"},
	{OPT_MODEL, "model", "MODE",
	 "insns, cache or timing: record under the machine model,\n"
	 "one boot per operation; each cell also has the kernel's\n"
	 "instructions and (cache, timing) misses per run, and its\n"
	 "functions are those whose misses changed most (timing:\n"
	 "est_cycles, the timing model's cycles)"},
	{OPT_CORE, "core", "CORE",
	 "with --model timing, the core description each boot's\n"
	 "vm-run.sh --core gets: a FILE, a NAME of share/cores, or\n"
	 "native (default: vm-run.sh's, by the variant's --cpu)"},
	{OPT_DRY_RUN, "dry-run", NULL,
	 "check every variant's options (kernel-build.sh --check),\n"
	 "build nothing, and print the jobs, one command a line"},
	{OPT_JOB, "job", "NAME", "run variant NAME's job alone (a line of --dry-run)"},
	{OPT_MERGE, "merge", "DIR", "the matrix of the recordings the jobs left in DIR"},
	{'n', "top", "N", "kernel functions named per cell (default 3, at most 8)"},
	{OPT_JSON, "json", NULL, "the matrix as JSON instead of text"},
	{OPT_CSV, "csv", "FILE", "also write the matrix to FILE as CSV"},
	{OPT_SVG, "svg", "FILE", "also write the matrix to FILE as an SVG heat map"},
	{},
};

static const struct options_example examples[] = {
	{"kprotperf sweep -j 2 -o out --svg out.svg plan.txt",
	 "build, boot and record every variant of plan.txt, two at a time,\n"
	 "and print the matrix"},
	{"kprotperf sweep --dry-run -o out plan.txt | parallel --sshloginfile hosts",
	 "the same jobs on many machines (then kprotperf sweep --merge out)"},
	{"kprotperf sweep --merge out --csv m.csv", "the matrix of what the jobs left in out"},
	{},
};

const struct options_cmd sweep_options = {
	.name = "sweep",
	.head = "Usage: kprotperf sweep [OPTIONS] -o DIR PLAN\n"
		"       kprotperf sweep --dry-run [OPTIONS] -o DIR PLAN\n"
		"       kprotperf sweep --job NAME [OPTIONS] -o DIR PLAN\n"
		"       kprotperf sweep --merge DIR [--json] [--csv FILE] [--svg FILE]\n"
		"What each protection of a plan costs each core operation of the kernel, and\n"
		"where. PLAN is a text file of kernel variants, one a line, NAME: OPTIONS, the\n"
		"options those of scripts/kernel-build.sh (--version, --src, --set OPT=VALUE)\n"
		"and scripts/vm-run.sh (--kernel DIR|PACKAGE, --append CMDLINE, --timeout S,\n"
		"--cpu MODEL); the variant named base is what the others are compared with,\n"
		"and each is base's options with its own on top. Each variant is a job: its\n"
		"kernel built (cached), booted in QEMU under icount, and each operation of\n"
		"core-ops recorded (kprotperf record -r N) in the guest. The matrix has the\n"
		"variants as rows and the operations as columns, each cell the change of the\n"
		"operation's wall time per run against base, with kprotperf diff's 95%\n"
		"interval, a mark when significant over the whole matrix (Holm's procedure\n"
		"over every cell: the chance of any false mark stays under 5%), and the kernel\n"
		"functions whose time changed most.\n"
		"\n"
		"Every variant's options are checked before anything is built. The jobs run\n"
		"here, -j at a time, or elsewhere: --dry-run prints them, one command a line,\n"
		"for GNU parallel or a Slurm job array, and --merge makes the matrix of\n"
		"what they left in DIR (see docs/sweep.md).\n",
	.foot = "kernel-build.sh and vm-run.sh are $KP_KERNEL_BUILD and $KP_VM_RUN, else\n"
		"scripts/ beside the kprotperf binary. The boots run under KP_VM_ACCEL=icount\n"
		"unless KP_VM_ACCEL says otherwise.\n",
	.status = "0 when every cell of the matrix was compared (--dry-run: every variant's\n"
		  "options are good; --job: the job recorded its operations), 1 when the\n"
		  "matrix was made but a row or a cell says why it was not compared (--job:\n"
		  "the job failed and its job file says why), or anything else failed (one\n"
		  "line on stderr says why; for a plan, naming its line), 2 for a usage error.\n",
	.examples = examples,
	.column = 23,
	.opts = entries,
};

static const struct options_number num_repeat = {"--repeat", 1, 100, true,
						 "expected a number of runs, 1..100"};
static const struct options_number num_jobs = {"--jobs", 1, 64, true,
					       "expected a number of jobs, 1..64"};
static const struct options_number num_top = {"--top", 0, SWEEP_TOP_MAX, true,
					      "expected a number of functions, 0..8"};

static int usage(const char *what)
{
	fprintf(stderr, "kprotperf sweep: %s (see kprotperf sweep --help)\n", what);
	return -EINVAL;
}

static int number(const struct options_number *n, const char *arg, unsigned int *out)
{
	double v = 0;
	int err = options_num(&sweep_options, n, arg, &v);

	*out = v;
	return err;
}

/* The options as given: the sweep's, and which of those that run jobs were given. */
struct args {
	struct sweep_opts o;
	const char *out; /* -o */
	bool running;	 /* -j, -r, --ops, --model or --core */
	bool jobs;	 /* -j */
};

static int ops(struct sweep_opts *o, const char *arg)
{
	char why[512];
	int n = sweep_ops_parse(arg, o->ops, SWEEP_OPS_MAX, why, sizeof(why));

	if (n < 0) {
		esc_printf(stderr, "kprotperf sweep: --ops %s: %s\n", arg, why);
		return n;
	}
	o->nops = n;
	return 0;
}

static int set_opt(void *ctx, int key, const char *arg)
{
	struct args *a = ctx;
	struct sweep_opts *o = &a->o;

	a->running |=
		key == 'j' || key == 'r' || key == OPT_OPS || key == OPT_MODEL || key == OPT_CORE;
	a->jobs |= key == 'j';
	switch (key) {
	case 'o':
		a->out = arg;
		return 0;
	case 'j':
		return number(&num_jobs, arg, &o->jobs);
	case 'r':
		return number(&num_repeat, arg, &o->repeat);
	case 'n':
		return number(&num_top, arg, &o->top);
	case OPT_OPS:
		return ops(o, arg);
	case OPT_MODEL:
		o->model = arg;
		return strcmp(arg, "insns") && strcmp(arg, "cache") && strcmp(arg, "timing")
			       ? usage("--model: expected insns, cache or timing")
			       : 0;
	case OPT_CORE:
		o->core = arg;
		return 0;
	case OPT_DRY_RUN:
		o->dry_run = true;
		return 0;
	case OPT_JOB:
		o->job = arg;
		return 0;
	case OPT_MERGE:
		o->merge = true;
		o->dir = arg;
		return 0;
	case OPT_JSON:
		o->json = true;
		return 0;
	case OPT_CSV:
		o->csv = arg;
		return 0;
	case OPT_SVG:
		o->svg = arg;
		return 0;
	}
	return -EINVAL;
}

static int check_merge(const struct args *a, int operands)
{
	if (operands)
		return usage("--merge reads DIR alone: no PLAN");
	if (a->out || a->running || a->o.dry_run || a->o.job)
		return usage("--merge makes the matrix of what is in DIR: -o, -j, -r, --ops,"
			     " --model, --core, --dry-run and --job run jobs");
	return 0;
}

static int check(struct args *a, int argc, char **argv)
{
	struct sweep_opts *o = &a->o;

	if (o->merge)
		return check_merge(a, argc - optind);
	if (argc - optind != 1)
		return usage("give one PLAN, the file of the variants");
	o->plan = argv[optind];
	if (!a->out)
		return usage("give -o DIR, the folder the jobs leave their recordings in");
	o->dir = a->out;
	if (o->dry_run && o->job)
		return usage("--dry-run prints the jobs and --job runs one: choose one");
	if ((o->dry_run || o->job) && (o->json || o->csv || o->svg))
		return usage("--json, --csv and --svg show the matrix: --dry-run and --job make"
			     " none");
	if (o->job && a->jobs)
		return usage("-j runs jobs side by side: --job runs one");
	if (o->core && (!o->model || strcmp(o->model, "timing")))
		return usage("--core describes the timing model's core: it needs --model timing");
	if (!o->nops)
		o->nops = sweep_ops_all(o->ops);
	return 0;
}

static int fill_csv(FILE *f, void *m)
{
	sweep_out_csv(m, f);
	return ferror(f) ? -EIO : 0;
}

static int fill_svg(FILE *f, void *m)
{
	sweep_out_svg(m, f);
	return ferror(f) ? -EIO : 0;
}

/* The matrix to path, whole or not at all; -errno after saying why. */
static int write_file(const char *path, int (*fill)(FILE *f, void *m), struct sweep_matrix *m)
{
	char why[512];
	const char *name;
	int fd = safeio_dir_of(path, (uid_t)-1, &name, why, sizeof(why)), err;

	if (fd < 0) {
		esc_printf(stderr, "kprotperf sweep: %s\n", why);
		return fd;
	}
	err = safeio_write(fd, name, 0644, fill, m);
	close(fd);
	if (err)
		esc_printf(stderr, "kprotperf sweep: cannot write %s: %s\n", path, strerror(-err));
	return err;
}

/* The matrix of o->dir, shown and written: 0 when whole, 1 when not or when it failed. */
static int merge(const struct sweep_opts *o)
{
	struct sweep_matrix m;
	char why[1024];
	int err = sweep_matrix_load(o->dir, o->top, &m, why, sizeof(why));

	if (err) {
		esc_printf(stderr, "kprotperf sweep: %s\n", why);
		return 1;
	}
	if (o->json)
		sweep_out_json(&m, stdout);
	else
		sweep_out_text(&m, stdout);
	err = (o->csv ? write_file(o->csv, fill_csv, &m) : 0)
		      ?: (o->svg ? write_file(o->svg, fill_svg, &m) : 0);
	err = err ?: !sweep_matrix_whole(&m);
	sweep_matrix_free(&m);
	return err ? 1 : 0;
}

static int job(const struct sweep_opts *o, const struct sweep_plan *p)
{
	const struct sweep_variant *v = sweep_plan_find(p, o->job);

	if (!v) {
		esc_printf(stderr, "kprotperf sweep: %s has no variant named %s\n", o->plan,
			   o->job);
		return 1;
	}
	return sweep_job_run(o, p, v) ? 1 : 0;
}

/* The plan checked, then its jobs printed, run alone or all of them and the matrix made. */
static int plan(const struct sweep_opts *o)
{
	struct sweep_plan p;
	char why[1024];
	int err = sweep_plan_load(o->plan, &p, why, sizeof(why));

	if (err) {
		esc_printf(stderr, "kprotperf sweep: %s\n", why);
		return 1;
	}
	if (o->job)
		err = job(o, &p);
	else if (sweep_check(o, &p))
		err = 1;
	else if (o->dry_run)
		err = sweep_print_jobs(o, &p, stdout) ? 1 : 0;
	else
		err = sweep_dir_prepare(o->dir, &p) || sweep_local(o, &p) < 0 ? 1 : merge(o);
	sweep_plan_free(&p);
	return err;
}

int cmd_sweep(int argc, char **argv)
{
	struct args a = {.o = {.repeat = 5, .jobs = 1, .top = 3}};
	int err = options_parse(&sweep_options, argc, argv, set_opt, &a);

	if (err)
		return err > 0 ? 0 : 2;
	if (check(&a, argc, argv))
		return 2;
	return a.o.merge ? merge(&a.o) : plan(&a.o);
}
