// SPDX-License-Identifier: GPL-2.0-only
/* kprotperf: what a kernel hardening feature costs, and where. */
#include <stdio.h>
#include <string.h>

#include "cmd/cmds.h"

static const char usage[] =
	"Usage: kprotperf COMMAND [OPTIONS] ...\n"
	"Measure what kernel hardening costs: per syscall, per kernel function and\n"
	"per source line, on a real workload.\n"
	"\n"
	"Commands:\n"
	"  record [OPTIONS] -- CMD [ARGS...]  record CMD's process tree (also -p PID, -a)\n"
	"  report [OPTIONS] [FILE]            syscall latency table, top functions, histograms\n"
	"  folded [OPTIONS] [FILE]            folded stacks for flamegraph.pl / speedscope\n"
	"  annotate --func NAME [FILE]        samples per source line and inline range of NAME\n"
	"  symbolize --vmlinux PATH [-f] [-i] kernel addresses to functions, inlines, lines\n"
	"  diff [OPTIONS] BASE HARDENED       what hardening costs: BASE vs HARDENED recording\n"
	"\n"
	"FILE defaults to kprotperf.data. 'kprotperf COMMAND --help' shows each\n"
	"command's options. Needs root (or CAP_BPF and CAP_PERFMON) to record.\n";

static const struct {
	const char *name;
	int (*fn)(int argc, char **argv);
} commands[] = {
	{"record", cmd_record},	    {"report", cmd_report},	  {"folded", cmd_folded},
	{"annotate", cmd_annotate}, {"symbolize", cmd_symbolize}, {"diff", cmd_diff},
};

int main(int argc, char **argv)
{
	size_t i;

	if (argc < 2 || !strcmp(argv[1], "-h") || !strcmp(argv[1], "--help")) {
		fputs(usage, argc < 2 ? stderr : stdout);
		return argc < 2 ? 2 : 0;
	}
	if (!strcmp(argv[1], "--version") || !strcmp(argv[1], "version")) {
		printf("kprotperf %s\n", KPROTPERF_VERSION);
		return 0;
	}
	for (i = 0; i < sizeof(commands) / sizeof(commands[0]); i++)
		if (!strcmp(argv[1], commands[i].name))
			return commands[i].fn(argc - 1, argv + 1);
	fprintf(stderr, "kprotperf: unknown command '%s' (see kprotperf --help)\n", argv[1]);
	return 2;
}
