/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * The user frames of report's user function table: what was inlined at
 * them, read from their files' DWARF only while it could be shown.
 */
#ifndef KP_REPORT_USER_H
#define KP_REPORT_USER_H

#include <stdio.h>

struct datafile;
struct json;
struct user_files;

/*
 * Name the user frames (symbols/user_frames.h) of each file whose inline
 * rows could be among the top rows of samples_functions(df, "u", top,
 * true), and no other: the table comes out as if every file had been read.
 */
int report_user_frames(struct datafile *df, struct user_files *uf, int top);
/*
 * The debug files uf skipped, each named with why: a header line each to f,
 * or with j the array "skipped" (none when there is none).
 */
void report_user_notes(const struct user_files *uf, FILE *f, struct json *j);

#endif
