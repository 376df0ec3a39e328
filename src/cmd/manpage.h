/* SPDX-License-Identifier: GPL-2.0-only */
/* The man pages in scdoc's source format (scdoc(5)), for the build to turn into roff. */
#ifndef KP_MANPAGE_H
#define KP_MANPAGE_H

#include <stdio.h>

struct command;

/* Command c's page, kprotperf-NAME(1), to f; c NULL: kprotperf(1). */
void manpage_write(FILE *f, const struct command *c);

/* kprotperf(1)'s own prose, in scdoc: before the list of commands, and after it. */
extern const char manpage_main_head[], manpage_main_rest[];

#endif
