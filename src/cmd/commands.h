/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * kprotperf's subcommands as one table: main() dispatches through it and
 * kprotperf --help lists it; kprotperf help (man pages, completion lists)
 * is handed it.
 */
#ifndef KP_COMMANDS_H
#define KP_COMMANDS_H

#include <stddef.h>
#include <stdio.h>

struct options_cmd;

struct command {
	const char *name;
	int (*fn)(int argc, char **argv);
	const char *args;    /* its synopsis in kprotperf --help, after the name */
	const char *summary; /* what it does, for kprotperf --help and its man page's NAME */
	const struct options_cmd *opts;
};

/* The command called name, or NULL. */
const struct command *commands_find(const char *name);
/* kprotperf --help. */
void commands_usage(FILE *f);

#endif
