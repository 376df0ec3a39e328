// SPDX-License-Identifier: GPL-2.0-only
/* The subcommands' table and kprotperf --help. */
#include "cmd/commands.h"

#include <string.h>

#include "cmd/cmds.h"
#include "cmd/options.h"

static int help(int argc, char **argv);

static const struct command commands[] = {
	{"record", cmd_record, "[OPTIONS] -- CMD [ARGS...]",
	 "record CMD's process tree (also -p PID, -a)", &record_options},
	{"report", cmd_report, "[OPTIONS] [FILE]",
	 "syscall latency table, top functions, histograms", &report_options},
	{"folded", cmd_folded, "[OPTIONS] [FILE]", "folded stacks for flamegraph.pl / speedscope",
	 &folded_options},
	{"annotate", cmd_annotate, "--func NAME [FILE]",
	 "samples per source line and inline range of NAME", &annotate_options},
	{"symbolize", cmd_symbolize, "--vmlinux PATH [-f] [-i]",
	 "kernel addresses to functions, inlines, lines", &symbolize_options},
	{"diff", cmd_diff, "[OPTIONS] BASE HARDENED",
	 "what hardening costs: BASE vs HARDENED recording", &diff_options},
	{"scenario", cmd_scenario, "[OPTIONS] FILE", "run a scenario of syscalls in a sandbox",
	 &scenario_options},
	{"explore", cmd_explore, "--target FUNC [OPTIONS]",
	 "search for the syscall workloads that drive FUNC's cost", &explore_options},
	{"features", cmd_features, "[OPTIONS]", "the compiler-inserted protections in the kernel",
	 &features_options},
	{"inject", cmd_inject, "--model TABLE FILE...",
	 "the machine model's counts into a record --model file", &inject_options},
	{"boot", cmd_boot, "[OPTIONS] -o FILE", "record a kernel's boot in QEMU: phases, initcalls",
	 &boot_options},
	{"sweep", cmd_sweep, "[OPTIONS] -o DIR PLAN",
	 "each protection's cost on each core operation: a matrix", &sweep_options},
	{"calibrate", cmd_calibrate, "[OPTIONS]",
	 "this machine's cost table for est_cycles, measured", &calibrate_options},
	{"help", help, "[COMMAND]", "COMMAND's man page (kprotperf-COMMAND(1))", &help_options},
};

static const size_t n_commands = sizeof(commands) / sizeof(commands[0]);

/* help describes this table: it is handed it rather than reaching for it */
static int help(int argc, char **argv)
{
	return cmd_help(argc, argv, commands, n_commands);
}

/* Where the commands' summaries start in kprotperf --help. */
#define SUMMARY_COLUMN 37

const struct command *commands_find(const char *name)
{
	size_t i;

	for (i = 0; i < n_commands; i++)
		if (!strcmp(name, commands[i].name))
			return &commands[i];
	return NULL;
}

void commands_usage(FILE *f)
{
	size_t i;

	fputs("Usage: kprotperf COMMAND [OPTIONS] ...\n"
	      "Measure what kernel hardening costs: per syscall, per kernel function and\n"
	      "per source line, on a real workload.\n"
	      "\n"
	      "Commands:\n",
	      f);
	for (i = 0; i < n_commands; i++)
		options_column(f, fprintf(f, "  %s %s", commands[i].name, commands[i].args),
			       SUMMARY_COLUMN, commands[i].summary);
	fputs("\n"
	      "FILE defaults to kprotperf.data. 'kprotperf COMMAND --help' shows each\n"
	      "command's options, 'kprotperf help COMMAND' its man page. Recording needs\n"
	      "root, or CAP_BPF, CAP_PERFMON and CAP_SYSLOG (see kprotperf-record(1)).\n",
	      f);
}
