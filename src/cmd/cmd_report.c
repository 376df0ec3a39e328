// SPDX-License-Identifier: GPL-2.0-only
/* kprotperf report: its options, the recording and its kernel's DWARF opened, then the tables. */
#include "cmd/cmds.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cmd/boot_view.h"
#include "cmd/cli.h"
#include "cmd/options.h"
#include "data/boot_read.h"
#include "data/datafile.h"
#include "features/features.h"
#include "model/model_data.h"
#include "model/model_report.h"
#include "report/report.h"
#include "report/report_blocks.h"
#include "symbols/kernel_dwarf.h"
#include "util/esc.h"

enum {
	O_HIST = OPTIONS_LONG_ONLY,
	O_INLINE,
	O_NO_INLINE,
	O_VMLINUX,
	O_SYMFS,
	O_JSON,
	O_BLOCKS,
	O_FUNC,
	O_FEATURES,
	O_MODEL,
	O_GEOM,
	O_COSTS,
	O_DATA,
	O_STACK
};

/* report's options, and the --blocks ones that report/report.h's need not know of */
struct report_args {
	struct report_opts o;
	bool blocks;
	bool model;
	bool data;  /* --data: --model's loads and stores per data type */
	bool stack; /* --stack: --model's cycle stacks (a timing recording's) */
	unsigned int geom;
	const char *func;
	const char *costs; /* --costs: est_cycles' table of --model */
	const char *symfs; /* --symfs: for cli_open() */
};

static const struct options_entry entries[] = {
	{'i', "input", "FILE", "the data file (same as the FILE argument)"},
	{'s', "sort", "KEY",
	 "sort syscalls by total (default), calls, oncpu, offcpu,\n"
	 "avg, p50, p90, p99, max or name"},
	{O_HIST, "hist", "NAME",
	 "print the latency histograms of syscall NAME (total and\n"
	 "on-CPU) or, if no syscall has that name, of probed function NAME"},
	{'n', "top", "N",
	 "rows in the function, per-syscall and per-cache tables,\n"
	 "and in --blocks' lists of values and stacks (default 20)"},
	{O_INLINE, "inline", NULL,
	 "per inline instance: where it sits, its ranges, its samples\n"
	 "(self, total, share of the parent), the estimated time per\n"
	 "parent call, and its latency when record --func timed it"},
	{O_NO_INLINE, "no-inline", NULL, "no inlined functions in the function tables"},
	{O_BLOCKS, "blocks", NULL,
	 "what record --blocks counted: per function, its disassembly\n"
	 "by basic block (executions, share of the instructions, source\n"
	 "line, inline chain, branch ratios), its loops' trips per call\n"
	 "(per slab cache) and bounds, its instructions per source line,\n"
	 "and its calls by syscall and kernel stack"},
	{O_FUNC, "func", "NAME", "with --blocks: only function NAME (default: all)"},
	{O_VMLINUX, "vmlinux", "PATH",
	 "the recorded kernel's vmlinux with DWARF (default: found by\n"
	 "build-id in /usr/lib/debug or kernel-build.sh's cache, or\n"
	 "under /usr/lib/debug/boot, /boot, /lib/modules;\n"
	 "without it, inline instances come from record --func only)"},
	{O_SYMFS, "symfs", "DIR", CLI_SYMFS_HELP},
	{O_FEATURES, "features", "FILE",
	 "the feature mapping of the hardening features table\n"
	 "instead of the built-in one (format: docs/features.md)"},
	{O_MODEL, "model", NULL,
	 "the machine model's counts (record --model in the VM):\n"
	 "instructions and, with simulated caches, I1, D1 and LL misses\n"
	 "per kernel and user function, est_cycles (an estimate), and\n"
	 "with a table of format 2 the TLB misses, CR3 writes, TLB\n"
	 "flushes, serializing instructions, indirect branches,\n"
	 "returns, retpolines and return thunks; with several cache\n"
	 "geometries first a line each: the kernel's and the user's\n"
	 "misses and miss rates"},
	{O_DATA, "data", NULL,
	 "with --model: its loads and stores per data type and\n"
	 "member instead (reads, writes, D1 read and write misses,\n"
	 "LL misses, and with TLBs the D-TLB's), resolved from each\n"
	 "PC's DWARF (the kernel's, the user files'); the types by\n"
	 "D1 misses, their members in offset order with the cache\n"
	 "lines marked, the share typed, the untyped PCs and why"},
	{O_GEOM, "geom", "K", CLI_GEOM_HELP},
	{O_COSTS, "costs", "FILE", CLI_COSTS_HELP},
	{O_STACK, "stack", NULL, CLI_STACK_HELP},
	{O_JSON, "json", NULL, "everything as one JSON object"},
	{},
};

static const struct options_example examples[] = {
	{"kprotperf report k.data", "every table of k.data"},
	{"kprotperf report --hist clone k.data", "clone's latency histograms"},
	{"kprotperf report --inline --vmlinux vmlinux k.data",
	 "samples per inline instance, from the kernel's DWARF"},
	{"kprotperf report --json k.data | jq .syscalls", "the syscall table as JSON"},
	{"kprotperf report boot.data", "a boot recording's phases, initcalls and functions"},
	{"kprotperf report --model --data m.data",
	 "the model's loads, stores and misses per data type and member"},
	{},
};

const struct options_cmd report_options = {
	.name = "report",
	.head = "Usage: kprotperf report [OPTIONS] [FILE]\n"
		"Show a recording (FILE, default kprotperf.data): kernel and hardening\n"
		"provenance, per-syscall latency (calls, total, on-CPU, off-CPU, avg, p50,\n"
		"p90, p99, max), the latency of the functions probed with record --func and\n"
		"its split by syscall and slab cache, and the kernel and user functions that\n"
		"took the CPU samples (self: the sample's leaf; total: anywhere on its stack).\n"
		"With record --count, the events counted per syscall and probed function\n"
		"(total, per call, IPC with cycles and instructions), scaled as perf scales\n"
		"a multiplexed event; the header names them and the sampling event.\n"
		"\n"
		"A boot recording (kprotperf boot): its phases (reset -> the kernel's entry\n"
		"with the model, -> the end of the initcalls, -> the first user process; mean\n"
		"over the boots, 95% interval), its initcalls by mean time and, with the model,\n"
		"its kernel functions by instructions per boot (-n, --geom and --json apply).\n",
	.column = 21,
	.examples = examples,
	.opts = entries,
};

static int parse_sort(const char *arg, enum sort_key *k)
{
	int key = report_sort_key(arg);

	if (key >= 0) {
		*k = key;
		return 0;
	}
	fprintf(stderr, "kprotperf report: unknown sort key '%s' (see kprotperf report --help)\n",
		arg);
	return -EINVAL;
}

static int set_opt(void *ctx, int key, const char *arg)
{
	struct report_args *a = ctx;
	struct report_opts *o = &a->o;
	double top = 0;
	int err;

	switch (key) {
	case 'i':
		o->input = arg;
		break;
	case 's':
		return parse_sort(arg, &o->sort);
	case O_HIST:
		o->hist = arg;
		break;
	case 'n':
		err = options_num(&report_options, &options_top, arg, &top);
		o->top = top;
		return err;
	case O_JSON:
		o->json = true;
		break;
	case O_INLINE:
		o->inline_table = true;
		break;
	case O_NO_INLINE:
		o->inlines = false;
		break;
	case O_VMLINUX:
		o->vmlinux = arg;
		break;
	case O_BLOCKS:
		a->blocks = true;
		break;
	case O_FUNC:
		a->func = arg;
		break;
	case O_SYMFS:
		a->symfs = arg;
		return cli_symfs("report", arg);
	case O_FEATURES:
		o->features = arg;
		break;
	case O_MODEL:
		a->model = true;
		break;
	case O_GEOM:
		return cli_geom("report", arg, &a->geom);
	case O_COSTS:
		a->costs = arg;
		break;
	case O_DATA:
		a->data = true;
		break;
	case O_STACK:
		a->stack = true;
		break;
	}
	return 0;
}

/* 0: parsed, 1: help printed, <0: bad usage (already printed). */
static int parse(int argc, char **argv, struct report_args *a)
{
	int err;

	*a = (struct report_args){{.input = "kprotperf.data", .top = 20, .inlines = true}};
	err = options_parse(&report_options, argc, argv, set_opt, a);
	if (err)
		return err;
	if (a->model && a->blocks) {
		fprintf(stderr, "kprotperf report: --model and --blocks are two views: give one\n");
		return -EINVAL;
	}
	if (a->costs && !a->model) {
		fprintf(stderr, "kprotperf report: --costs goes with --model\n");
		return -EINVAL;
	}
	if (a->stack && (!a->model || a->data)) {
		fprintf(stderr,
			"kprotperf report: --stack goes with --model (and without --data)\n");
		return -EINVAL;
	}
	if (a->data && (!a->model || a->costs)) {
		fprintf(stderr, "kprotperf report: --data goes with --model (and without --costs: "
				"it counts accesses, not cycles)\n");
		return -EINVAL;
	}
	if (a->func && !a->blocks) {
		fprintf(stderr, "kprotperf report: --func goes with --blocks\n");
		return -EINVAL;
	}
	return cli_input(argc, argv, "report", &a->o.input);
}

/* report --blocks, its errors said in one line. */
static int blocks(struct datafile *df, const struct report_args *a)
{
	struct kernel_dwarf *kd = NULL;
	char note[1024] = "";
	int err;

	if (cli_kernel_dwarf("report", df, a->o.vmlinux, NULL, &kd, note, sizeof(note)))
		return 1;
	err = report_blocks(df, kd, note, a->func, a->o.json, a->o.top);
	if (err == -ENODATA)
		fprintf(stderr,
			"kprotperf report: %s has no --blocks data (record it with record "
			"--blocks FUNC)\n",
			a->o.input);
	else if (err == -ENOENT)
		fprintf(stderr, "kprotperf report: %s has no --blocks data for %s\n", a->o.input,
			a->func);
	else if (err)
		cli_read_error("report", a->o.input, df, err);
	kernel_dwarf_close(kd);
	return err ? 1 : 0;
}

/* report of a boot recording: its own view; the options of a workload's recording refused */
static int boot(struct datafile *df, const struct report_args *a)
{
	if (a->blocks || a->data || a->o.hist || a->o.inline_table) {
		fprintf(stderr,
			"kprotperf report: %s is a boot recording (kprotperf boot): --blocks, --hist,"
			" --inline and --data are views of a workload's recording\n",
			a->o.input);
		return 1;
	}
	if (a->stack) {
		fprintf(stderr,
			"kprotperf report: %s is a boot recording (kprotperf boot): --stack is a view"
			" of a workload's recording of --model timing\n",
			a->o.input);
		return 1;
	}
	return cli_boot_report(df, a->o.input,
			       &(struct model_view_opts){a->geom, a->o.top, a->o.json, a->costs});
}

/* report --model --data: the kernel's accesses untyped without its DWARF, said in the header */
static int data(struct datafile *df, const struct report_args *a)
{
	struct model_view_opts mo = {a->geom, a->o.top, a->o.json};
	struct kernel_dwarf *kd = NULL;
	char note[1024] = "", why[1024] = "";
	int err;

	if (cli_kernel_dwarf("report", df, a->o.vmlinux, NULL, &kd, note, sizeof(note)))
		return 1;
	err = model_data_report(df, kd, note, &mo, why, sizeof(why));
	kernel_dwarf_close(kd);
	if (err && *why)
		esc_printf(stderr, "kprotperf report: %s: %s\n", a->o.input, why);
	else if (err)
		cli_read_error("report", a->o.input, df, err);
	return err ? 1 : 0;
}

/* report --model: with the kernel's DWARF when it is found, for the inline table */
static int model(struct datafile *df, const struct report_args *a)
{
	struct kernel_dwarf *kd = NULL;
	int err;

	if (a->data)
		return data(df, a);
	if (cli_kernel_dwarf("report", df, a->o.vmlinux, NULL, &kd, NULL, 0))
		return 1;
	err = cli_model_view("report", df, kd, a->o.input, NULL, NULL,
			     &(struct model_view_opts){a->geom, a->o.top, a->o.json, a->costs,
						       .stack = a->stack});
	kernel_dwarf_close(kd);
	return err;
}

int cmd_report(int argc, char **argv)
{
	struct report_args a;
	struct report_opts *o = &a.o;
	struct kernel_dwarf *kd = NULL;
	struct features *feat = NULL;
	char note[1024] = "";
	struct datafile *df;
	int err;

	err = parse(argc, argv, &a);
	if (err)
		return err > 0 ? 0 : 2;
	if (!a.blocks && !o->hist && cli_features("report", o->features, &feat))
		return 1;
	err = cli_open("report", o->input, a.symfs, &df);
	if (err) {
		features_free(feat);
		return 1;
	}
	if (a.blocks || a.model || boot_present(df)) {
		err = boot_present(df) ? boot(df, &a) : a.blocks ? blocks(df, &a) : model(df, &a);
		datafile_close(df);
		features_free(feat);
		return err;
	}
	/* only inline frames need it: --hist shows none */
	if (!o->hist && (o->inlines || o->inline_table) &&
	    cli_kernel_dwarf("report", df, o->vmlinux, NULL, &kd, note, sizeof(note))) {
		datafile_close(df);
		features_free(feat);
		return 1;
	}
	err = report_show(df, kd, note, feat, o);
	if (err == -ENOENT && o->hist)
		fprintf(stderr,
			"kprotperf report: no syscall named '%s' in %s, nor a probed function "
			"(see the SYSCALL and FUNCTION columns of kprotperf report)\n",
			o->hist, o->input);
	else if (err)
		cli_read_error("report", o->input, df, err);
	kernel_dwarf_close(kd);
	datafile_close(df);
	features_free(feat);
	return err ? 1 : 0;
}
