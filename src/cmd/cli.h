/* SPDX-License-Identifier: GPL-2.0-only */
/* What the reading commands share: their input file argument and opening it. */
#ifndef KP_CLI_H
#define KP_CLI_H

#include <stdbool.h>
#include <stddef.h>

struct df;
struct kernel_dwarf;

/* Report a getopt failure (c is '?' or ':'); returns -EINVAL. */
int cli_bad_option(const char *cmd, int c, const char *arg);
/* Take at most one positional FILE argument after getopt into *input. */
int cli_input(int argc, char **argv, const char *cmd, const char **input);
/* Open a recording; on failure print one line naming the problem and return -errno. */
int cli_open(const char *cmd, const char *path, struct df **out);

/*
 * The DWARF of the recording's kernel into *out: NULL when none is found,
 * which is said on stderr after "missing: " unless missing is NULL.  A file
 * that cannot be used (another build, no DWARF) is an error, printed:
 * returns -errno.  note, unless NULL, keeps what was said or would have
 * been ("" when the DWARF was found), for output that shows it elsewhere.
 */
int cli_kdebug(const char *cmd, struct df *df, const char *vmlinux, const char *missing,
	       struct kernel_dwarf **out, char *note, size_t len);

#endif
