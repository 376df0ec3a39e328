/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * kprotperf report: the tables of one recording (report.c), and the options
 * that choose them, as cmd/cmd_report.c fills them in.
 */
#ifndef KP_REPORT_H
#define KP_REPORT_H

#include <stdbool.h>
#include <stddef.h>

struct datafile;

enum sort_key { S_TOTAL, S_CALLS, S_ONCPU, S_OFFCPU, S_AVG, S_P50, S_P90, S_P99, S_MAX, S_NAME };

struct report_opts {
	const char *input;
	const char *hist;
	const char *vmlinux;  /* --vmlinux */
	const char *features; /* --features FILE, NULL: built in */
	enum sort_key sort;
	int top;
	bool json;
	bool inlines;	   /* inline frames from the kernel's DWARF (--no-inline: off) */
	bool inline_table; /* --inline */
};

struct features;
struct kernel_dwarf;

/* The sort key named name ("total", "p99", ...), or -1. */
int report_sort_key(const char *name);
/*
 * Print the report of df as o says: the header (with note, what is missing
 * of the kernel's DWARF), then the tables, or --hist's or --inline's; kd may
 * be NULL.  -ENOENT: o->hist names no syscall or probed function.
 */
int report_show(struct datafile *df, struct kernel_dwarf *kd, const char *note,
		const struct features *feat, const struct report_opts *o);

#endif
