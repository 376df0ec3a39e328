// SPDX-License-Identifier: GPL-2.0-only
/* kprotperf annotate: its options, the recording and its kernel's DWARF opened, then the tables. */
#include <errno.h>
#include <getopt.h>
#include <stdbool.h>
#include <stdio.h>
#include <string.h>

#include "cmd/cli.h"
#include "cmd/cmds.h"
#include "data/datafile.h"
#include "report/annotate.h"
#include "symbols/kernel_dwarf.h"

struct annotate_opts {
	const char *input;
	const char *func;
	const char *vmlinux;
	bool json;
};

static const char usage[] =
	"Usage: kprotperf annotate --func NAME [OPTIONS] [FILE]\n"
	"Where the CPU samples of a recording (FILE, default kprotperf.data) fell inside\n"
	"kernel function NAME: per source line (SELF: the sampled pc is on the line;\n"
	"TOTAL: also in the functions called from it), with the functions inlined at\n"
	"that line, and per address range of each inline instance in NAME. Needs the\n"
	"recorded kernel's DWARF (Debian: linux-image-RELEASE-dbg).\n"
	"  -f, --func NAME    the function (as kallsyms names it; clones count as it)\n"
	"      --vmlinux PATH the recorded kernel's vmlinux with DWARF (default: found by\n"
	"                     build-id, or under /usr/lib/debug/boot, /boot, /lib/modules)\n"
	"  -i, --input FILE   the data file (same as the FILE argument)\n"
	"      --json         as one JSON object\n"
	"  -h, --help         this text\n";

static const struct option longopts[] = {
	{"func", required_argument, NULL, 'f'},	   {"input", required_argument, NULL, 'i'},
	{"vmlinux", required_argument, NULL, 'v'}, {"json", no_argument, NULL, 'j'},
	{"help", no_argument, NULL, 'h'},	   {},
};

static int parse(int argc, char **argv, struct annotate_opts *o)
{
	int c;

	*o = (struct annotate_opts){.input = "kprotperf.data"};
	optind = 1;
	opterr = 0;
	while ((c = getopt_long(argc, argv, ":f:i:h", longopts, NULL)) != -1) {
		switch (c) {
		case 'f':
			o->func = optarg;
			break;
		case 'i':
			o->input = optarg;
			break;
		case 'v':
			o->vmlinux = optarg;
			break;
		case 'j':
			o->json = true;
			break;
		case 'h':
			fputs(usage, stdout);
			return 1;
		default:
			return cli_bad_option("annotate", c, argv[optind - 1]);
		}
	}
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
	struct df *df;
	int err;

	err = parse(argc, argv, &o);
	if (err)
		return err > 0 ? 0 : 2;
	if (cli_open("annotate", o.input, &df))
		return 1;
	err = cli_kdebug("annotate", df, o.vmlinux, "annotate needs the kernel's DWARF", &kd,
			 NULL, 0)
		      ? 1
		      : 0;
	if (!err && !kd)
		err = 1;
	err = err ?: annotate_show(df, kd, o.func, o.json);
	if (err == -ENODATA)
		fprintf(stderr,
			"kprotperf annotate: no CPU sample has %s on its kernel stack in %s (see "
			"the KERNEL FUNCTION table of kprotperf report)\n",
			o.func, o.input);
	else if (err < 0)
		fprintf(stderr, "kprotperf annotate: reading %s: %s\n", o.input, strerror(-err));
	kernel_dwarf_close(kd);
	df_close(df);
	return err ? 1 : 0;
}
