// SPDX-License-Identifier: GPL-2.0-only
/* kprotperf diff: its options checked, then the comparison. */
#include <errno.h>
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>

#include "cmd/cli.h"
#include "cmd/cmds.h"
#include "diff/diff.h"

static const char usage[] =
	"Usage: kprotperf diff [OPTIONS] BASE HARDENED\n"
	"What a protection costs, where, and how sure we are: compares a baseline\n"
	"recording (BASE) with one of the hardened kernel (HARDENED). First what\n"
	"differs between them (kernel build, cmdline knobs, hardening config, CPU\n"
	"vulnerability mitigations), then the change per hardening feature, per\n"
	"syscall (latency, on-CPU and off-CPU), per probed function, per sampled\n"
	"kernel function and per inline instance: base, hardened, ratio, the 95%\n"
	"confidence interval of the relative change and whether it is significant,\n"
	"sorted by the change of time per run (the contribution to the total change).\n"
	"Intervals: a bootstrap over runs (record --repeat N) with 2 runs or more per\n"
	"side; with one run on a side, the latency histograms (delta method) and\n"
	"the sample counts (Poisson).\n"
	"  -n, --top N              rows per table (default 20)\n"
	"      --features FILE      the function-to-feature mapping instead of the\n"
	"                           built-in one (format: see README.md)\n"
	"      --folded             'stack base_count hardened_count' lines for\n"
	"                           flamegraph.pl's differential flame graphs instead\n"
	"      --normalize          with --folded: hardened counts scaled to the base total\n"
	"      --vmlinux PATH       the vmlinux with DWARF of both recordings' kernel\n"
	"      --vmlinux-base PATH  the base kernel's vmlinux with DWARF\n"
	"      --vmlinux-hardened PATH  the hardened kernel's (default for each: found by\n"
	"                           build-id, or under /usr/lib/debug/boot, /boot,\n"
	"                           /lib/modules; without it, inline instances come\n"
	"                           from record --func only)\n"
	"      --json               everything as one JSON object\n"
	"  -h, --help               this text\n";

static const struct option longopts[] = {
	{"top", required_argument, NULL, 'n'},
	{"features", required_argument, NULL, 'F'},
	{"folded", no_argument, NULL, 'f'},
	{"normalize", no_argument, NULL, 'N'},
	{"vmlinux", required_argument, NULL, 'v'},
	{"vmlinux-base", required_argument, NULL, 'b'},
	{"vmlinux-hardened", required_argument, NULL, 'H'},
	{"json", no_argument, NULL, 'j'},
	{"help", no_argument, NULL, 'h'},
	{},
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
	if (argc - optind != 2)
		return usage_error("needs two recordings, BASE and HARDENED");
	o->path[0] = argv[optind];
	o->path[1] = argv[optind + 1];
	return 0;
}

/* 0: parsed, 1: help printed, <0: bad usage (already printed). */
static int parse(int argc, char **argv, struct diff_opts *o)
{
	int c;

	*o = (struct diff_opts){.top = 20};
	optind = 1;
	opterr = 0;
	while ((c = getopt_long(argc, argv, ":n:h", longopts, NULL)) != -1) {
		switch (c) {
		case 'n':
			o->top = atoi(optarg);
			break;
		case 'F':
			o->features = optarg;
			break;
		case 'f':
			o->folded = true;
			break;
		case 'N':
			o->normalize = true;
			break;
		case 'v':
			o->vmlinux[0] = o->vmlinux[1] = optarg;
			break;
		case 'b':
		case 'H':
			o->vmlinux[c == 'H'] = optarg;
			break;
		case 'j':
			o->json = true;
			break;
		case 'h':
			fputs(usage, stdout);
			return 1;
		default:
			return cli_bad_option("diff", c, argv[optind - 1]);
		}
	}
	if (o->top <= 0)
		o->top = 20;
	return check_args(argc, argv, o);
}

int cmd_diff(int argc, char **argv)
{
	struct diff_opts o;
	int err = parse(argc, argv, &o);

	if (err)
		return err > 0 ? 0 : 2;
	return diff_run(&o);
}
