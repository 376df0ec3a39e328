// SPDX-License-Identifier: GPL-2.0-only
/* kprotperf annotate: its options, the recording and its kernel's DWARF opened, then the tables. */
#include <errno.h>
#include <stdbool.h>
#include <stdio.h>
#include <string.h>

#include "cmd/cli.h"
#include "cmd/cmds.h"
#include "cmd/options.h"
#include "data/datafile.h"
#include "report/annotate.h"
#include "symbols/kernel_dwarf.h"

struct annotate_opts {
	const char *input;
	const char *func;
	const char *vmlinux;
	const char *symfs; /* --symfs */
	bool json;
};

enum { O_VMLINUX = OPTIONS_LONG_ONLY, O_SYMFS, O_JSON };

static const struct options_entry entries[] = {
	{'f', "func", "NAME", "the function (as kallsyms names it; clones count as it)"},
	{O_VMLINUX, "vmlinux", "PATH", CLI_VMLINUX_HELP},
	{O_SYMFS, "symfs", "DIR", CLI_SYMFS_HELP},
	{'i', "input", "FILE", "the data file (same as the FILE argument)"},
	{O_JSON, "json", NULL, "as one JSON object"},
	{},
};

static const struct options_example examples[] = {
	{"kprotperf annotate --func allocate_slab k.data",
	 "allocate_slab's samples per source line and inline range"},
	{},
};

const struct options_cmd annotate_options = {
	.name = "annotate",
	.head = "Usage: kprotperf annotate --func NAME [OPTIONS] [FILE]\n"
		"Where the CPU samples of a recording (FILE, default kprotperf.data) fell inside\n"
		"kernel function NAME: per source line (SELF: the sampled pc is on the line;\n"
		"TOTAL: also in the functions called from it), with the functions inlined at\n"
		"that line, and per address range of each inline instance in NAME. Needs the\n"
		"recorded kernel's DWARF (Debian: linux-image-RELEASE-dbg).\n",
	.column = 21,
	.examples = examples,
	.opts = entries,
};

static int set_opt(void *ctx, int key, const char *arg)
{
	struct annotate_opts *o = ctx;

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
	}
	return 0;
}

/* 0: parsed, 1: help printed, <0: bad usage (already printed). */
static int parse(int argc, char **argv, struct annotate_opts *o)
{
	int err;

	*o = (struct annotate_opts){.input = "kprotperf.data"};
	err = options_parse(&annotate_options, argc, argv, set_opt, o);
	if (err)
		return err;
	if (!o->func) {
		fputs("kprotperf annotate: which function? give --func NAME (see kprotperf "
		      "annotate --help)\n",
		      stderr);
		return -EINVAL;
	}
	return cli_input(argc, argv, "annotate", &o->input);
}

int cmd_annotate(int argc, char **argv)
{
	struct annotate_opts o;
	struct kernel_dwarf *kd = NULL;
	struct datafile *df;
	int err;

	err = parse(argc, argv, &o);
	if (err)
		return err > 0 ? 0 : 2;
	if (cli_open("annotate", o.input, o.symfs, &df))
		return 1;
	/* nothing to annotate, whatever the DWARF: say that, not that the DWARF is missing */
	if (cli_no_samples("annotate", o.input, df)) {
		datafile_close(df);
		return 1;
	}
	err = cli_kernel_dwarf("annotate", df, o.vmlinux, "annotate needs the kernel's DWARF", &kd,
			       NULL, 0);
	/* without the DWARF, cli_kernel_dwarf has said so */
	if (!err && kd)
		err = annotate_show(df, kd, o.func, o.json);
	if (err == ANNOTATE_NO_SAMPLES)
		fprintf(stderr,
			"kprotperf annotate: no CPU sample has %s on its kernel stack in %s (see "
			"the KERNEL FUNCTION table of kprotperf report)\n",
			o.func, o.input);
	else if (err < 0 && kd)
		cli_read_error("annotate", o.input, df, err);
	kernel_dwarf_close(kd);
	datafile_close(df);
	return err || !kd ? 1 : 0;
}
