// SPDX-License-Identifier: GPL-2.0-only
/* kprotperf folded: its options checked, then folded stacks for flamegraph.pl. */
#include "cmd/cmds.h"

#include <errno.h>
#include <stdbool.h>
#include <stdio.h>
#include <string.h>

#include "cmd/boot_view.h"
#include "cmd/cli.h"
#include "cmd/options.h"
#include "data/boot_read.h"
#include "data/datafile.h"
#include "data/latency.h"
#include "model/model_folded.h"
#include "model/rows.h"
#include "report/report_folded.h"
#include "symbols/kernel_dwarf.h"
#include "util/esc.h"

enum weight { W_UNSET, W_SAMPLES, W_LATENCY };

struct folded_opts {
	const char *input;
	const char *func;    /* --func: only this probed function's stacks */
	const char *vmlinux; /* --vmlinux */
	const char *symfs;   /* --symfs */
	enum weight weight;
	struct folded_frames fr;
	int model; /* --model: an enum model_weight; -1: CPU samples or latency */
	unsigned int geom;
	const char *costs; /* --costs: est_cycles' table */
};

enum {
	O_WEIGHT = OPTIONS_LONG_ONLY,
	O_FUNC,
	O_NO_INLINE,
	O_SRCLINE,
	O_VMLINUX,
	O_SYMFS,
	O_MODEL,
	O_GEOM,
	O_COSTS
};

static const struct options_entry entries[] = {
	{'i', "input", "FILE", "the data file (same as the FILE argument)"},
	{'K', "kernel-only", NULL, "keep only kernel frames"},
	{'U', "user-only", NULL, "keep only user frames"},
	{O_WEIGHT, "weight", "W",
	 "samples (default: CPU samples, or the events of record -e)\n"
	 "or latency (probed functions)"},
	{O_FUNC, "func", "NAME", "only probed function NAME (implies --weight latency)"},
	{O_MODEL, "model", "W",
	 "the machine model's counts (record --model in the VM), one\n"
	 "line per function, weighted by W: insns, the misses of\n"
	 "i1, d1 or ll, est (est_cycles, an estimate), or the\n"
	 "misses of itlb or dtlb (a table of format 2)"},
	{O_GEOM, "geom", "K", CLI_GEOM_HELP},
	{O_COSTS, "costs", "FILE", CLI_COSTS_HELP},
	{O_NO_INLINE, "no-inline", NULL, "no inline frames"},
	{O_SRCLINE, "srcline", NULL, "kernel frames as function:file:line"},
	{O_VMLINUX, "vmlinux", "PATH", CLI_VMLINUX_HELP},
	{O_SYMFS, "symfs", "DIR", CLI_SYMFS_HELP},
	{},
};

static const struct options_example examples[] = {
	{"kprotperf folded -K k.data | flamegraph.pl > kernel.svg",
	 "a flame graph of the kernel frames only"},
	{"kprotperf folded --srcline k.data", "kernel frames with their source lines"},
	{},
};

const struct options_cmd folded_options = {
	.name = "folded",
	.head = "Usage: kprotperf folded [OPTIONS] [FILE]\n"
		"Print the CPU samples of a recording (FILE, default kprotperf.data) as folded\n"
		"stacks, one line per distinct stack: comm;user frames;kernel frames COUNT,\n"
		"root first, kernel frames marked _[k], functions the compiler inlined there\n"
		"marked _[i] (from the kernel's DWARF). Pipe into flamegraph.pl:\n"
		"  kprotperf folded k.data | flamegraph.pl --colors=java > k.svg\n"
		"A recording sampled on an event (record -e EVENT) weighs each stack by the\n"
		"events its samples stand for (their periods summed), not by its samples.\n"
		"With --weight latency, the kernel stacks the functions probed by record --func\n"
		"were entered from instead: function;kernel frames NS, weighted by the ns spent\n"
		"in the function:\n"
		"  kprotperf folded --weight latency k.data | flamegraph.pl --countname ns > f.svg\n"
		"Of a boot recording (kprotperf boot): the boot's phases and initcalls in ns,\n"
		"mean per boot (boot;initcalls;NAME NS), as wide as reset -> the first user\n"
		"process; with --model W its functions (boot;[kernel];NAME COUNT).\n",
	.column = 21,
	.examples = examples,
	.opts = entries,
};

static int parse_weight(const char *arg, enum weight *w)
{
	if (!strcmp(arg, "samples") || !strcmp(arg, "latency")) {
		*w = !strcmp(arg, "samples") ? W_SAMPLES : W_LATENCY;
		return 0;
	}
	fprintf(stderr,
		"kprotperf folded: unknown weight '%s': samples (CPU samples) or latency "
		"(time in the functions probed by record --func)\n",
		arg);
	return -EINVAL;
}

/* Which frames and weights: the options that exclude each other, or what --func implies. */
static int check_opts(struct folded_opts *o)
{
	const char *why = NULL;

	bool model_too = o->model >= 0 && (o->weight != W_UNSET || o->func || o->fr.srcline);

	if (o->weight == W_UNSET)
		o->weight = o->func ? W_LATENCY : W_SAMPLES;
	if (model_too)
		why = "--model weighs the model's counts: not with --weight, --func or --srcline";
	else if (o->costs && o->model != MW_EST)
		why = "--costs weighs est_cycles: it goes with --model est";
	else if (!o->fr.user && !o->fr.kernel)
		why = "-K and -U exclude each other";
	else if (o->func && o->weight == W_SAMPLES)
		why = "--func selects probed function stacks: it needs --weight latency";
	else if (!o->fr.kernel && o->weight == W_LATENCY)
		why = "-U keeps no frames of --weight latency (probed functions have only "
		      "kernel stacks)";
	if (why)
		fprintf(stderr, "kprotperf folded: %s\n", why);
	return why ? -EINVAL : 0;
}

static int set_opt(void *ctx, int key, const char *arg)
{
	struct folded_opts *o = ctx;

	switch (key) {
	case 'i':
		o->input = arg;
		break;
	case 'K':
		o->fr.user = false;
		break;
	case 'U':
		o->fr.kernel = false;
		break;
	case O_WEIGHT:
		return parse_weight(arg, &o->weight);
	case O_FUNC:
		o->func = arg;
		break;
	case O_NO_INLINE:
		o->fr.inlines = false;
		break;
	case O_SRCLINE:
		o->fr.srcline = true;
		break;
	case O_VMLINUX:
		o->vmlinux = arg;
		break;
	case O_SYMFS:
		o->symfs = arg;
		return cli_symfs("folded", arg);
	case O_MODEL:
		o->model = model_folded_weight(arg);
		if (o->model >= 0)
			break;
		esc_printf(
			stderr,
			"kprotperf folded: --model '%s': want insns, i1, d1, ll, est, itlb or dtlb\n",
			arg);
		return -EINVAL;
	case O_GEOM:
		return cli_geom("folded", arg, &o->geom);
	case O_COSTS:
		o->costs = arg;
		break;
	}
	return 0;
}

/* 0: parsed, 1: help printed, <0: bad usage (already printed). */
static int parse(int argc, char **argv, struct folded_opts *o)
{
	*o = (struct folded_opts){.input = "kprotperf.data",
				  .fr = {.user = true, .kernel = true, .inlines = true},
				  .model = -1};
	return options_parse(&folded_options, argc, argv, set_opt, o) ?: check_opts(o)
		?: cli_input(argc, argv, "folded", &o->input);
}

/* Whether --weight latency has functions to fold; 1 after saying why not, or -errno. */
static int check_funcs(struct datafile *df, const struct folded_opts *o)
{
	long long all = latency_count_funcs(df, NULL);
	long long n = o->func ? latency_count_funcs(df, o->func) : all;

	if (all < 0 || n < 0)
		return all < 0 ? all : n;
	if (!all) {
		fprintf(stderr,
			"kprotperf folded: %s has no --func data (no probed functions): record "
			"with kprotperf record --func NAME, or fold its samples (--weight samples)\n",
			o->input);
		return 1;
	}
	if (!n) {
		fprintf(stderr,
			"kprotperf folded: no probed function named '%s' in %s (see the FUNCTION "
			"column of kprotperf report)\n",
			o->func, o->input);
		return 1;
	}
	return 0;
}

/* folded --model: the exit status, 0 or 1 after one line saying why. */
static int model(struct datafile *df, const struct folded_opts *o)
{
	char why[512] = "";
	int err = model_folded(df, o->model, o->geom, o->costs, o->fr.kernel, o->fr.user, stdout,
			       why, sizeof(why));

	if (err == MODEL_SAID)
		return 1;
	if (err && why[0])
		esc_printf(stderr, "kprotperf folded: %s: %s\n", o->input, why);
	else if (err)
		cli_read_error("folded", o->input, df, err);
	return err ? 1 : 0;
}

static int usage_boot(const char *path)
{
	fprintf(stderr,
		"kprotperf folded: %s is a boot recording (kprotperf boot): its initcalls, or its"
		" functions with --model W; -K, -U, --func and --weight fold a workload's"
		" recording\n",
		path);
	return 1;
}

int cmd_folded(int argc, char **argv)
{
	struct folded_opts o;
	struct kernel_dwarf *kd = NULL;
	struct datafile *df;
	bool latency, none = false;
	int err;

	err = parse(argc, argv, &o);
	if (err)
		return err > 0 ? 0 : 2;
	if (cli_open("folded", o.input, o.symfs, &df))
		return 1;
	if (boot_present(df)) {
		err = o.func || o.weight == W_LATENCY || !o.fr.kernel || !o.fr.user
			      ? usage_boot(o.input)
			      : cli_boot_folded(df, o.input, o.model, o.geom);
		datafile_close(df);
		return err;
	}
	if (o.model >= 0) {
		err = model(df, &o);
		datafile_close(df);
		return err;
	}
	latency = o.weight == W_LATENCY;
	if (latency)
		err = check_funcs(df, &o);
	else /* an empty fold, said: flamegraph.pl would only say "No stack counts found" */
		none = cli_no_samples("folded", o.input, df);
	if (!err && !none && (o.fr.inlines || o.fr.srcline) && o.fr.kernel)
		err = cli_kernel_dwarf("folded", df, o.vmlinux,
				       o.fr.srcline ? "note: no kernel source lines" : NULL, &kd,
				       NULL, 0)
			      ? 1
			      : 0;
	if (!err && !none)
		err = folded_print(df, kd, &o.fr, latency, o.func);
	if (err < 0)
		cli_read_error("folded", o.input, df, err);
	kernel_dwarf_close(kd);
	datafile_close(df);
	return err ? 1 : 0;
}
