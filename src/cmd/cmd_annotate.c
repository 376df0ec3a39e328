// SPDX-License-Identifier: GPL-2.0-only
/* kprotperf annotate: its options, the recording and its kernel's DWARF opened, then the tables. */
#include "cmd/cmds.h"

#include <errno.h>
#include <stdbool.h>
#include <stdio.h>
#include <string.h>

#include "cmd/cli.h"
#include "cmd/options.h"
#include "data/datafile.h"
#include "data/samples.h"
#include "model/model_annotate.h"
#include "model/model_data.h"
#include "model/model_report.h"
#include "model/rows.h"
#include "report/report_annotate.h"
#include "symbols/kernel_dwarf.h"
#include "util/esc.h"

struct annotate_opts {
	const char *input;
	const char *func;
	const char *vmlinux;
	const char *symfs; /* --symfs */
	bool json;
	bool model;
	unsigned int geom;
	size_t top;
	const char *costs;     /* --costs: est_cycles' table */
	const char *data_type; /* --data-type: one type's layout with the model's counts */
	bool stack;	       /* --stack: the cycle stacks of a timing recording */
};

enum {
	O_VMLINUX = OPTIONS_LONG_ONLY,
	O_SYMFS,
	O_JSON,
	O_MODEL,
	O_GEOM,
	O_COSTS,
	O_DATA_TYPE,
	O_STACK
};

static const struct options_entry entries[] = {
	{'f', "func", "NAME", "kernel function (as kallsyms names it; clones too) or user"},
	{O_VMLINUX, "vmlinux", "PATH", CLI_VMLINUX_HELP},
	{O_SYMFS, "symfs", "DIR", CLI_SYMFS_HELP},
	{'i', "input", "FILE", "the data file (same as the FILE argument)"},
	{O_MODEL, "model", NULL,
	 "the machine model's counts (record --model in the VM) per\n"
	 "source line and, for a kernel function, per basic block\n"
	 "and loop; without --func, the hottest lines of all; with\n"
	 "est_cycles (an estimate) and, of a table of format 2, the\n"
	 "TLB misses and the events per line and block"},
	{O_DATA_TYPE, "data-type", "TYPE",
	 "with --model: data type TYPE instead (task_struct,\n"
	 "'struct task_struct', a typedef): its layout as pahole\n"
	 "shows it (members, offsets, sizes, holes, cache lines)\n"
	 "with the model's reads, writes and misses per member, the\n"
	 "accessed nested members below theirs, and the functions\n"
	 "that access each member"},
	{O_GEOM, "geom", "K", CLI_GEOM_HELP},
	{O_COSTS, "costs", "FILE", CLI_COSTS_HELP},
	{O_STACK, "stack", NULL, CLI_STACK_HELP},
	{'n', "top", "N", "with --model and no --func: lines shown (default 30)"},
	{O_JSON, "json", NULL, "as one JSON object"},
	{},
};

static const struct options_example examples[] = {
	{"kprotperf annotate --func allocate_slab k.data",
	 "allocate_slab's samples per source line and inline range"},
	{"kprotperf annotate --model --func allocate_slab m.data",
	 "the model's instructions and misses per line and block"},
	{"kprotperf annotate --model --data-type task_struct m.data",
	 "task_struct's layout with the model's accesses per member"},
	{},
};

const struct options_cmd annotate_options = {
	.name = "annotate",
	.head = "Usage: kprotperf annotate --func NAME [OPTIONS] [FILE]\n"
		"       kprotperf annotate --model [--func NAME] [OPTIONS] [FILE]\n"
		"       kprotperf annotate --model --data-type TYPE [OPTIONS] [FILE]\n"
		"Where the CPU samples of a recording (FILE, default kprotperf.data) fell inside\n"
		"function NAME: per source line (SELF: the sampled pc is on the line; TOTAL:\n"
		"also in the functions called from it), with the functions inlined at that\n"
		"line. A kernel function needs the recorded kernel's DWARF (Debian:\n"
		"linux-image-RELEASE-dbg) and also gets per address range of each inline\n"
		"instance in NAME; a user function (one only inlined too) needs its file's\n"
		"DWARF (built with -g, its -dbg package, or under --symfs). With --model: the\n"
		"machine model's instructions and simulated misses per source line, as\n"
		"cg_annotate shows them, and for a kernel function per basic block and loop;\n"
		"with --data-type, one data type's members with their loads, stores and misses.\n",
	.column = 21,
	.examples = examples,
	.opts = entries,
};

static int set_opt(void *ctx, int key, const char *arg)
{
	struct annotate_opts *o = ctx;
	double top = 0;
	int err;

	switch (key) {
	case 'f':
		o->func = arg;
		break;
	case 'i':
		o->input = arg;
		break;
	case O_VMLINUX:
		o->vmlinux = arg;
		break;
	case O_SYMFS:
		o->symfs = arg;
		return cli_symfs("annotate", arg);
	case O_JSON:
		o->json = true;
		break;
	case O_MODEL:
		o->model = true;
		break;
	case O_GEOM:
		return cli_geom("annotate", arg, &o->geom);
	case O_STACK:
		o->stack = true;
		break;
	case O_COSTS:
		o->costs = arg;
		break;
	case O_DATA_TYPE:
		o->data_type = arg;
		break;
	case 'n':
		err = options_num(&annotate_options, &options_top, arg, &top);
		o->top = top;
		return err;
	}
	return 0;
}

/* 0: parsed, 1: help printed, <0: bad usage (already printed). */
static int parse(int argc, char **argv, struct annotate_opts *o)
{
	int err;

	*o = (struct annotate_opts){.input = "kprotperf.data", .top = 30};
	err = options_parse(&annotate_options, argc, argv, set_opt, o);
	if (err)
		return err;
	if (!o->model && (o->geom || o->top != 30 || o->costs)) {
		fputs("kprotperf annotate: --geom, --top and --costs go with --model\n", stderr);
		return -EINVAL;
	}
	if (o->stack && (!o->model || o->data_type)) {
		fputs("kprotperf annotate: --stack goes with --model, without --data-type\n",
		      stderr);
		return -EINVAL;
	}
	if (o->data_type && (!o->model || o->func || o->costs)) {
		fputs("kprotperf annotate: --data-type goes with --model, without --func and "
		      "--costs\n",
		      stderr);
		return -EINVAL;
	}
	if (!o->func && !o->model) {
		fputs("kprotperf annotate: which function? give --func NAME (see kprotperf "
		      "annotate --help)\n",
		      stderr);
		return -EINVAL;
	}
	return cli_input(argc, argv, "annotate", &o->input);
}

static void no_kernel_samples(const struct annotate_opts *o)
{
	fprintf(stderr,
		"kprotperf annotate: no CPU sample has %s on its kernel stack in %s (see the "
		"KERNEL FUNCTION table of kprotperf report)\n",
		o->func, o->input);
}

/* func is among the recording's kernel symbols: annotated from the kernel's DWARF, needed */
static int annotate_kernel(const struct annotate_opts *o, struct datafile *df)
{
	struct kernel_dwarf *kd = NULL;
	int err;

	err = cli_kernel_dwarf("annotate", df, o->vmlinux, "annotate needs the kernel's DWARF", &kd,
			       NULL, 0);
	/* without the DWARF, cli_kernel_dwarf has said so */
	if (!err && kd)
		err = annotate_show(df, kd, o->func, o->json);
	if (err == ANNOTATE_NO_SAMPLES)
		no_kernel_samples(o);
	else if (err < 0 && kd)
		cli_read_error("annotate", o->input, df, err);
	kernel_dwarf_close(kd);
	return err || !kd ? 1 : 0;
}

/*
 * Any other name: a function of the workload's files, whose DWARF says
 * where its lines are.  Not one either: with --vmlinux a kernel function
 * was meant, which no stack has.
 */
static int annotate_user(const struct annotate_opts *o, struct datafile *df)
{
	int err = annotate_show(df, NULL, o->func, o->json);

	if (err == ANNOTATE_NO_SAMPLES && o->vmlinux)
		no_kernel_samples(o);
	else if (err == ANNOTATE_NO_SAMPLES)
		fprintf(stderr,
			"kprotperf annotate: %s is neither a kernel function of %s nor a user "
			"function with DWARF (build it with -g, install its -dbg package, or give "
			"--symfs DIR holding its files)\n",
			o->func, o->input);
	else if (err < 0)
		cli_read_error("annotate", o->input, df, err);
	return err ? 1 : 0;
}

/* annotate --model: with the kernel's DWARF when it is found, needed for a kernel function */
static int annotate_model(const struct annotate_opts *o, struct datafile *df)
{
	struct model_annotate_opts mo = {o->func, o->geom, o->top, o->json, o->costs, o->stack};
	struct kernel_dwarf *kd = NULL;
	char note[1024] = "", why[1024] = "";
	int err;

	if (cli_kernel_dwarf("annotate", df, o->vmlinux, NULL, &kd, note, sizeof(note)))
		return 1;
	if (o->data_type)
		err = model_data_annotate(df, kd, note, o->data_type,
					  &(struct model_view_opts){o->geom, o->top, o->json}, why,
					  sizeof(why));
	else
		err = model_annotate(df, kd, note, &mo, why, sizeof(why));
	kernel_dwarf_close(kd);
	if (err == MODEL_SAID)
		;
	else if (err == -ENOENT && o->data_type) /* the DWARF's, not the recording's */
		esc_printf(stderr, "kprotperf annotate: %s\n", why);
	else if (err && *why)
		esc_printf(stderr, "kprotperf annotate: %s: %s\n", o->input, why);
	else if (err)
		cli_read_error("annotate", o->input, df, err);
	return err ? 1 : 0;
}

int cmd_annotate(int argc, char **argv)
{
	struct annotate_opts o;
	struct datafile *df;
	int err;

	err = parse(argc, argv, &o);
	if (err)
		return err > 0 ? 0 : 2;
	if (cli_open("annotate", o.input, o.symfs, &df))
		return 1;
	if (o.model) {
		err = annotate_model(&o, df);
		datafile_close(df);
		return err;
	}
	/* nothing to annotate, whatever the DWARF: say that, not that the DWARF is missing */
	if (cli_no_samples("annotate", o.input, df))
		err = 1;
	else if (samples_kernel_func(df, o.func))
		err = annotate_kernel(&o, df);
	else
		err = annotate_user(&o, df);
	datafile_close(df);
	return err;
}
