/* SPDX-License-Identifier: GPL-2.0-only */
/* The man pages in scdoc's source format (scdoc(5)), for the build to turn into roff. */
#ifndef KP_MANPAGE_H
#define KP_MANPAGE_H

#include <stddef.h>
#include <stdio.h>

struct command;

/* Command c's page, kprotperf-NAME(1), to f; c NULL: kprotperf(1); cmds: every command. */
void manpage_write(FILE *f, const struct command *c, const struct command *cmds, size_t n);

/* kprotperf(1)'s own prose, in scdoc: before the list of commands, and after it. */
extern const char manpage_main_head[], manpage_main_rest[];

#endif
