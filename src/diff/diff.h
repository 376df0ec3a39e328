/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * kprotperf diff BASE HARDENED: what a protection costs, where, and how sure
 * we are: the provenance of both recordings, then per-syscall, per-function,
 * per-inline-instance and per-feature changes with 95% intervals.
 */
#ifndef KP_DIFF_H
#define KP_DIFF_H

#include <stdbool.h>
#include <stdio.h>

struct datafile;
struct features;
struct kernel_dwarf;

struct diff_opts {
	const char *path[2];
	const char *vmlinux[2];
	const char *features; /* --features FILE, NULL: built in */
	const char *func;     /* --blocks --func NAME, NULL: every function */
	const char *symfs;    /* --symfs DIR, of both recordings; NULL: / */
	int top;
	bool json, folded, normalize, blocks;
	bool model;	   /* --model: the machine model's counts */
	bool data;	   /* --data: --model's loads and stores per data type */
	unsigned int geom; /* --geom: the cache geometry of --model */
	const char *costs; /* --costs: est_cycles' table of --model; NULL: picked */
	bool by_est;	   /* --sort est: --model's tables by the change in est_cycles */
};

/* What the front-end opened and checked, by DM_BASE and DM_HARD. */
struct diff_inputs {
	struct datafile *df[2];
	struct kernel_dwarf *kd[2]; /* NULL: no DWARF, nodebug says why */
	char nodebug[2][1024];	    /* "" when there is DWARF */
	struct features *feat;
};

/* The provenance, notes and tables of the two recordings to f, text or JSON as o says; -errno. */
int diff_tables(const struct diff_opts *o, const struct diff_inputs *in, FILE *f);

#endif
