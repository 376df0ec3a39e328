/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * The subcommands main() dispatches to: each parses and checks its options,
 * calls the machinery, and returns kprotperf's exit status (0, 1: failed,
 * 2: bad usage).
 */
#ifndef KP_CMDS_H
#define KP_CMDS_H

#include <stddef.h>

struct command;
struct options_cmd;
struct record_opts;

int cmd_record(int argc, char **argv);
int cmd_report(int argc, char **argv);
int cmd_folded(int argc, char **argv);
int cmd_annotate(int argc, char **argv);
int cmd_symbolize(int argc, char **argv);
int cmd_diff(int argc, char **argv);
int cmd_scenario(int argc, char **argv);
int cmd_explore(int argc, char **argv);
int cmd_features(int argc, char **argv);
/* help is handed the table of commands it lists and describes (commands.h). */
int cmd_help(int argc, char **argv, const struct command *cmds, size_t n);
int cmd_inject(int argc, char **argv);
int cmd_boot(int argc, char **argv);
int cmd_sweep(int argc, char **argv);
int cmd_calibrate(int argc, char **argv);

/* Their option tables: --help, man pages and completion come from them. */
extern const struct options_cmd record_options, report_options, folded_options, annotate_options,
	symbolize_options, diff_options, scenario_options, explore_options, features_options,
	help_options, inject_options, boot_options, sweep_options, calibrate_options;

/* Parse record's options into *o: 0, 1 after --help, or -EINVAL after printing why. */
int record_parse(int argc, char **argv, struct record_opts *o);

#endif
