/* SPDX-License-Identifier: GPL-2.0-only */
/* What the reading commands share: their input file argument and opening it. */
#ifndef KP_CLI_H
#define KP_CLI_H

struct df;

/* Report a getopt failure (c is '?' or ':'); returns -EINVAL. */
int cli_bad_option(const char *cmd, int c, const char *arg);
/* Take at most one positional FILE argument after getopt into *input. */
int cli_input(int argc, char **argv, const char *cmd, const char **input);
/* Open a recording; on failure print one line naming the problem and return -errno. */
int cli_open(const char *cmd, const char *path, struct df **out);

#endif
