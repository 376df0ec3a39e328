// SPDX-License-Identifier: GPL-2.0-only
/*
 * kprotperf diff: its options checked, the two recordings, their kernels'
 * DWARF and the feature mapping opened and checked, then the comparison.
 */
#include "cmd/cmds.h"

#include <errno.h>
#include <getopt.h> /* optind */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "cmd/boot_view.h"
#include "cmd/cli.h"
#include "cmd/options.h"
#include "data/boot_read.h"
#include "data/datafile.h"
#include "diff/diff.h"
#include "diff/diff_blocks.h"
#include "diff/diff_folded.h"
#include "diff/metrics.h"
#include "diff/prov.h"
#include "features/features.h"
#include "model/model_data.h"
#include "model/model_report.h"
#include "symbols/kernel_dwarf.h"
#include "util/esc.h"

enum {
	O_FEATURES = OPTIONS_LONG_ONLY,
	O_FOLDED,
	O_NORMALIZE,
	O_VMLINUX,
	O_VMLINUX_BASE,
	O_VMLINUX_HARDENED,
	O_SYMFS,
	O_JSON,
	O_BLOCKS,
	O_FUNC,
	O_MODEL,
	O_GEOM,
	O_COSTS,
	O_SORT,
	O_DATA,
};

static const struct options_entry entries[] = {
	{'n', "top", "N", "rows per table (default 20)"},
	{O_FEATURES, "features", "FILE",
	 "the function-to-feature mapping instead of the\n"
	 "built-in one (format: docs/features.md)"},
	{O_FOLDED, "folded", NULL,
	 "'stack base_count hardened_count' lines for\n"
	 "flamegraph.pl's differential flame graphs instead"},
	{O_NORMALIZE, "normalize", NULL, "with --folded: hardened counts scaled to the base total"},
	{O_BLOCKS, "blocks", NULL,
	 "what record --blocks counted instead, per function:\n"
	 "instructions per call per source line, loops' trips per\n"
	 "call and their bounds, branches whose direction flipped"},
	{O_FUNC, "func", "NAME", "with --blocks: only function NAME (default: all)"},
	{O_VMLINUX, "vmlinux", "PATH", "the vmlinux with DWARF of both recordings' kernel"},
	{O_VMLINUX_BASE, "vmlinux-base", "PATH", "the base kernel's vmlinux with DWARF"},
	{O_VMLINUX_HARDENED, "vmlinux-hardened", "PATH",
	 "the hardened kernel's (default for each: found by\n"
	 "build-id in /usr/lib/debug or kernel-build.sh's cache,\n"
	 "or under /usr/lib/debug/boot, /boot,\n"
	 "/lib/modules; without it, inline instances come\n"
	 "from record --func only)"},
	{O_SYMFS, "symfs", "DIR", CLI_SYMFS_HELP},
	{O_MODEL, "model", NULL,
	 "the machine model's counts (record --model in the VM) per\n"
	 "function, matched by name, by the change in misses (or in\n"
	 "instructions without simulated caches); with several cache\n"
	 "geometries first the kernel's change in I1, D1 and LL misses\n"
	 "in each, the two recordings' geometries matched by size,\n"
	 "ways and line (in JSON each with its functions)"},
	{O_DATA, "data", NULL,
	 "with --model: its loads and stores per data type and\n"
	 "member instead, matched by type name and member path (the\n"
	 "offsets may differ: RANDSTRUCT), each member's offset on\n"
	 "both sides, by the change in D1 misses; a type or member on\n"
	 "one side only said so"},
	{O_GEOM, "geom", "K",
	 "with --model: the function tables in the base's cache\n"
	 "geometry K (0 by default), against the hardened\n"
	 "recording's geometry of the same size, ways and line (by\n"
	 "instructions alone when it has none)"},
	{O_COSTS, "costs", "FILE", CLI_COSTS_HELP},
	{O_SORT, "sort", "KEY",
	 "with --model: the function tables by the change in est\n"
	 "(est_cycles) or misses (default: misses, or instructions\n"
	 "without simulated caches)"},
	{O_JSON, "json", NULL, "everything as one JSON object"},
	{},
};

static const struct options_example examples[] = {
	{"kprotperf diff base.data hardened.data",
	 "what the hardened kernel costs, per feature, syscall and function"},
	{"kprotperf diff --folded --normalize base.data hard.data | flamegraph.pl > d.svg",
	 "a differential flame graph (red: grew on the hardened kernel)"},
	{"kprotperf diff --model --data base.data rand.data",
	 "the model's misses per data type and member, layouts compared"},
	{},
};

const struct options_cmd diff_options = {
	.name = "diff",
	.head = "Usage: kprotperf diff [OPTIONS] BASE HARDENED\n"
		"What a protection costs, where, and how sure we are: compares a baseline\n"
		"recording (BASE) with one of the hardened kernel (HARDENED). First what\n"
		"differs between them (kernel build, cmdline knobs, hardening config, CPU\n"
		"vulnerability mitigations), then the change per hardening feature, per\n"
		"syscall (latency, on-CPU and off-CPU), per probed function, per sampled\n"
		"kernel function and per inline instance: base, hardened, ratio, the 95%\n"
		"confidence interval of the relative change and whether it is significant,\n"
		"sorted by the change of time per run (the contribution to the total change).\n"
		"With record --count on either side, each event per call of each syscall and\n"
		"probed function, matched by event name (one counted on one side only is\n"
		"said so), with the interval of latency per call.\n"
		"\n"
		"Intervals: a bootstrap over runs (record --repeat N) with 2 runs or more per\n"
		"side; with one run on a side, the latency histograms (delta method) and\n"
		"the sample counts (Poisson). With --blocks, what record --blocks counted,\n"
		"its blocks matched by source line (each side's vmlinux).\n"
		"\n"
		"Two boot recordings (kprotperf boot): the phases, the initcalls that changed\n"
		"and, with the machine model, the kernel functions by the change of\n"
		"instructions (and misses) per boot, with Welch's 95% interval over the boots;\n"
		"then the initcalls and functions on one side only (-n, --geom, --json apply).\n",
	.column = 27,
	.examples = examples,
	.opts = entries,
};

static int usage_error(const char *what)
{
	fprintf(stderr, "kprotperf diff: %s (see kprotperf diff --help)\n", what);
	return -EINVAL;
}

static int check_args(int argc, char **argv, struct diff_opts *o)
{
	if (o->normalize && !o->folded)
		return usage_error("--normalize scales the counts of --folded: it needs --folded");
	if (o->json && o->folded)
		return usage_error("--folded and --json are two different outputs: choose one");
	if (o->features && o->folded)
		return usage_error("--features maps the tables' samples to features: --folded has"
				   " no tables");
	if (o->blocks && o->folded)
		return usage_error("--blocks and --folded are two different outputs: choose one");
	if (o->func && !o->blocks)
		return usage_error("--func goes with --blocks");
	if ((o->costs || o->by_est) && !o->model)
		return usage_error("--costs and --sort go with --model");
	if (o->data && (!o->model || o->costs || o->by_est))
		return usage_error("--data goes with --model, without --costs and --sort");
	if (o->model && (o->blocks || o->folded || o->features))
		return usage_error("--model is a view of its own: not with --blocks, --folded or"
				   " --features");
	if (argc - optind != 2)
		return usage_error("needs two recordings, BASE and HARDENED");
	o->path[0] = argv[optind];
	o->path[1] = argv[optind + 1];
	return 0;
}

static int set_opt(void *ctx, int key, const char *arg)
{
	struct diff_opts *o = ctx;
	double top = 0;
	int err;

	switch (key) {
	case 'n':
		err = options_num(&diff_options, &options_top, arg, &top);
		o->top = top;
		return err;
	case O_FEATURES:
		o->features = arg;
		break;
	case O_FOLDED:
		o->folded = true;
		break;
	case O_NORMALIZE:
		o->normalize = true;
		break;
	case O_VMLINUX:
		o->vmlinux[0] = o->vmlinux[1] = arg;
		break;
	case O_VMLINUX_BASE:
	case O_VMLINUX_HARDENED:
		o->vmlinux[key == O_VMLINUX_HARDENED] = arg;
		break;
	case O_SYMFS:
		o->symfs = arg;
		return cli_symfs("diff", arg);
	case O_JSON:
		o->json = true;
		break;
	case O_BLOCKS:
		o->blocks = true;
		break;
	case O_FUNC:
		o->func = arg;
		break;
	case O_MODEL:
		o->model = true;
		break;
	case O_DATA:
		o->data = true;
		break;
	case O_GEOM:
		return cli_geom("diff", arg, &o->geom);
	case O_COSTS:
		o->costs = arg;
		break;
	case O_SORT:
		if (strcmp(arg, "est") && strcmp(arg, "misses")) {
			esc_printf(stderr, "kprotperf diff: --sort '%s': want est or misses\n",
				   arg);
			return -EINVAL;
		}
		o->by_est = !strcmp(arg, "est");
		break;
	}
	return 0;
}

/* 0: parsed, 1: help printed, <0: bad usage (already printed). */
static int parse(int argc, char **argv, struct diff_opts *o)
{
	int err;

	*o = (struct diff_opts){.top = 20};
	err = options_parse(&diff_options, argc, argv, set_opt, o);
	if (err)
		return err;
	return check_args(argc, argv, o);
}

/* 1 when the two files hold the same bytes, 0 when not, -errno. */
static int same_bytes(const char *a, const char *b, off_t size)
{
	FILE *fa = fopen(a, "r"), *fb = fopen(b, "r");
	char ba[65536], bb[65536];
	size_t na, nb;
	int same = 1;

	if (!fa || !fb)
		same = -errno;
	while (same == 1 && size > 0) {
		na = fread(ba, 1, sizeof(ba), fa);
		nb = fread(bb, 1, sizeof(bb), fb);
		if (na != nb || !na || memcmp(ba, bb, na))
			same = 0;
		size -= na;
	}
	if (fa)
		fclose(fa);
	if (fb)
		fclose(fb);
	return same;
}

static int check_same(const struct diff_opts *o)
{
	struct stat a, b;
	int same;

	if (stat(o->path[0], &a) || stat(o->path[1], &b))
		return -errno;
	same = a.st_dev == b.st_dev && a.st_ino == b.st_ino;
	if (!same && a.st_size == b.st_size)
		same = same_bytes(o->path[0], o->path[1], a.st_size);
	if (same < 0)
		fprintf(stderr, "kprotperf diff: cannot read %s or %s: %s\n", o->path[0],
			o->path[1], strerror(-same));
	else if (same)
		fprintf(stderr,
			"kprotperf diff: BASE and HARDENED are the same recording (%s and %s):"
			" give a baseline recording and a hardened one\n",
			o->path[0], o->path[1]);
	return same ? -EINVAL : 0;
}

static int check_arch(struct datafile *const df[2])
{
	const char *a = datafile_meta(df[0], "arch"), *b = datafile_meta(df[1], "arch");

	if (!a || !b || !strcmp(a, b))
		return 0;
	/* the file's own text: esc_printf keeps its bytes off the terminal */
	esc_printf(stderr,
		   "kprotperf diff: BASE was recorded on %s and HARDENED on %s: recordings of"
		   " different architectures cannot be compared\n",
		   a, b);
	return -EINVAL;
}

/* Each side's DWARF; one missing is said in the output, one unusable is an error. */
static int open_debug(const struct diff_opts *o, struct diff_inputs *in)
{
	char cmd[32];
	int side, err;

	for (side = 0; side < 2; side++) {
		/* an unusable file is said as "kprotperf diff: SIDE: why" */
		snprintf(cmd, sizeof(cmd), "diff: %s", prov_side_name[side]);
		err = cli_kernel_dwarf(cmd, in->df[side], o->vmlinux[side], NULL, &in->kd[side],
				       in->nodebug[side], sizeof(in->nodebug[side]));
		if (err)
			return err;
	}
	return 0;
}

/* A bad --features file fails before the slow part, reading the DWARF. */
static int open_inputs(const struct diff_opts *o, struct diff_inputs *in)
{
	int err = o->folded || o->model ? 0 : cli_features("diff", o->features, &in->feat);

	err = err ?: cli_open("diff", o->path[0], o->symfs, &in->df[0])
		?: cli_open("diff", o->path[1], o->symfs, &in->df[1]) ?: check_same(o)
		?: check_arch(in->df);
	/* a boot recording has no kernel stacks to name */
	if (err || boot_present(in->df[0]) || boot_present(in->df[1]))
		return err;
	return open_debug(o, in);
}

static void close_inputs(struct diff_inputs *in)
{
	int i;

	if (in->feat)
		features_free(in->feat);
	for (i = 0; i < 2; i++) {
		kernel_dwarf_close(in->kd[i]);
		if (in->df[i])
			datafile_close(in->df[i]);
	}
}

/* A failure of the comparison said once: a bad value names its file; any other error both. */
static int say_error(const struct diff_opts *o, const struct diff_inputs *in, int err)
{
	if (err == -EBADMSG && (cli_bad_data("diff", o->path[0], in->df[0]) ||
				cli_bad_data("diff", o->path[1], in->df[1])))
		return err;
	if (err)
		fprintf(stderr, "kprotperf diff: %s %s and %s: %s\n",
			o->folded ? "folding" : "reading", o->path[0], o->path[1], strerror(-err));
	return err;
}

/* diff --blocks; a side without data, or a function on neither side, said as such. */
static int blocks(const struct diff_opts *o, const struct diff_inputs *in)
{
	int side = DM_BASE, err = diff_blocks(o, in, stdout, &side);

	if (err == -ENODATA)
		fprintf(stderr,
			"kprotperf diff: %s has no --blocks data (record it with record --blocks"
			" FUNC)\n",
			o->path[side]);
	else if (err == -ENOENT)
		esc_printf(stderr, "kprotperf diff: neither %s nor %s has --blocks data for %s\n",
			   o->path[DM_BASE], o->path[DM_HARD], o->func);
	else
		say_error(o, in, err);
	return err;
}

/* diff of boot recordings: its own view, by the model's counts when they are there */
static int boot(const struct diff_opts *o, const struct diff_inputs *in)
{
	if (o->blocks || o->folded || o->features)
		return usage_error(
			"BASE and HARDENED are boot recordings (kprotperf boot): --blocks,"
			" --folded and --features compare workloads' recordings");
	return cli_boot_diff(in->df, o->path,
			     &(struct model_view_opts){o->geom, o->top, o->json, o->costs})
		       ? -EINVAL
		       : 0;
}

/* diff --model --data: a side's failure named by the side, as diff --model names it */
static int data(const struct diff_opts *o, const struct diff_inputs *in)
{
	struct model_view_opts mo = {o->geom, o->top, o->json};
	char why[1024] = "";
	int err = model_data_diff(in->df[0], in->kd[0], in->nodebug[0], in->df[1], in->kd[1],
				  in->nodebug[1], &mo, why, sizeof(why));

	if (err && *why)
		esc_printf(stderr, "kprotperf diff: %s\n", why);
	else
		say_error(o, in, err);
	return err;
}

static int compare(const struct diff_opts *o, const struct diff_inputs *in)
{
	if (boot_present(in->df[0]) || boot_present(in->df[1]))
		return boot(o, in);
	if (o->blocks)
		return blocks(o, in);
	if (o->data)
		return data(o, in);
	if (o->model)
		return cli_model_view("diff", in->df[0], in->kd[0], o->path[0], in->df[1],
				      in->kd[1],
				      &(struct model_view_opts){o->geom, o->top, o->json, o->costs,
								o->by_est})
			       ? -EINVAL
			       : 0;
	return say_error(o, in,
			 o->folded ? diff_folded(in->df[0], in->kd[0], in->df[1], in->kd[1],
						 o->normalize, stdout)
				   : diff_tables(o, in, stdout));
}

int cmd_diff(int argc, char **argv)
{
	struct diff_inputs *in;
	struct diff_opts o;
	int err = parse(argc, argv, &o);

	if (err)
		return err > 0 ? 0 : 2;
	in = calloc(1, sizeof(*in));
	if (!in) {
		fprintf(stderr, "kprotperf diff: %s\n", strerror(ENOMEM));
		return 1;
	}
	err = open_inputs(&o, in) ?: compare(&o, in);
	close_inputs(in);
	free(in);
	return err ? 1 : 0;
}
