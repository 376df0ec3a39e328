// SPDX-License-Identifier: GPL-2.0-only
/* kprotperf: what a kernel hardening feature costs, and where. */
#include <stdio.h>
#include <string.h>

#include "cmd/cmds.h"
#include "cmd/options.h"

static const struct {
	const char *name;
	int (*fn)(int argc, char **argv);
	const char *args;    /* its synopsis in kprotperf --help, after the name */
	const char *summary; /* what it does, for kprotperf --help */
} commands[] = {
	{"record", cmd_record, "[OPTIONS] -- CMD [ARGS...]",
	 "record CMD's process tree (also -p PID, -a)"},
	{"report", cmd_report, "[OPTIONS] [FILE]",
	 "syscall latency table, top functions, histograms"},
	{"folded", cmd_folded, "[OPTIONS] [FILE]", "folded stacks for flamegraph.pl / speedscope"},
	{"annotate", cmd_annotate, "--func NAME [FILE]",
	 "samples per source line and inline range of NAME"},
	{"symbolize", cmd_symbolize, "--vmlinux PATH [-f] [-i]",
	 "kernel addresses to functions, inlines, lines"},
	{"diff", cmd_diff, "[OPTIONS] BASE HARDENED",
	 "what hardening costs: BASE vs HARDENED recording"},
	{"scenario", cmd_scenario, "[OPTIONS] FILE", "run a scenario of syscalls in a sandbox"},
	{"explore", cmd_explore, "--target FUNC [OPTIONS]",
	 "search for the syscall workloads that drive FUNC's cost"},
	{"features", cmd_features, "[OPTIONS]", "the compiler-inserted protections in the kernel"},
};

#define N_COMMANDS (sizeof(commands) / sizeof(commands[0]))

/* Where the commands' summaries start in kprotperf --help. */
#define SUMMARY_COLUMN 37

static void usage(FILE *f)
{
	size_t i;

	fputs("Usage: kprotperf COMMAND [OPTIONS] ...\n"
	      "Measure what kernel hardening costs: per syscall, per kernel function and\n"
	      "per source line, on a real workload.\n"
	      "\n"
	      "Commands:\n",
	      f);
	for (i = 0; i < N_COMMANDS; i++)
		options_column(f, fprintf(f, "  %s %s", commands[i].name, commands[i].args),
			       SUMMARY_COLUMN, commands[i].summary);
	fputs("\n"
	      "FILE defaults to kprotperf.data. 'kprotperf COMMAND --help' shows each\n"
	      "command's options. Needs root (or CAP_BPF and CAP_PERFMON) to record.\n",
	      f);
}

int main(int argc, char **argv)
{
	size_t i;

	if (argc < 2 || !strcmp(argv[1], "-h") || !strcmp(argv[1], "--help")) {
		usage(argc < 2 ? stderr : stdout);
		return argc < 2 ? 2 : 0;
	}
	if (!strcmp(argv[1], "--version") || !strcmp(argv[1], "version")) {
		printf("kprotperf %s\n", KPROTPERF_VERSION);
		return 0;
	}
	for (i = 0; i < N_COMMANDS; i++)
		if (!strcmp(argv[1], commands[i].name))
			return commands[i].fn(argc - 1, argv + 1);
	fprintf(stderr, "kprotperf: unknown command '%s' (see kprotperf --help)\n", argv[1]);
	return 2;
}
