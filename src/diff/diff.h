/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * kprotperf diff BASE HARDENED: what a protection costs, where, and how sure
 * we are: the provenance of both recordings, then per-syscall, per-function,
 * per-inline-instance and per-feature changes with 95% intervals.
 */
#ifndef KP_DIFF_H
#define KP_DIFF_H

#include <stdbool.h>

struct diff_opts {
	const char *path[2];
	const char *vmlinux[2];
	const char *features; /* --features FILE, NULL: built in */
	int top;
	bool json, folded, normalize;
};

/* Compare the two recordings as o says; the exit status of kprotperf diff (errors printed). */
int diff_run(const struct diff_opts *o);

#endif
