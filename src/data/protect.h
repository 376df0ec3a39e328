/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * The compiler-inserted protections of the code a recording ran (schema 8):
 * the kernel functions on its sampled stacks and its --blocks functions,
 * scanned at record time in the running text (features/sites.h), and their
 * sites.  What the roll-ups read to charge a sample or a block execution
 * to a compiler-inserted feature.
 */
#ifndef KP_DATA_PROTECT_H
#define KP_DATA_PROTECT_H

#include <linux/types.h>

struct datafile;

/* Longest site: the xors of zero_call_used_regs and the return (sites.h). */
#define PROTECT_SITE_MAX 64

/* The tables, for datafile.c: the schema's, or TEMP and empty for a file older than 8. */
#define PROTECT_TABLES                                                             \
	"CREATE TABLE protect_funcs(addr INTEGER PRIMARY KEY, name TEXT NOT NULL," \
	" size INTEGER NOT NULL);"                                                 \
	"CREATE TABLE protect_sites(addr INTEGER NOT NULL, len INTEGER NOT NULL,"  \
	" kind TEXT NOT NULL, PRIMARY KEY(addr, kind));"

/* Record side: a function scanned, and one of its sites. */
int protect_put_func(struct datafile *df, __u64 addr, const char *name, __u64 size);
int protect_put_site(struct datafile *df, __u64 addr, __u32 len, const char *kind);

/*
 * Each kernel code address the recording ran at: its sampled frames (a
 * return address less one, to land in the caller) and its --blocks
 * functions' entries.
 */
int protect_code_addrs(struct datafile *df, int (*fn)(__u64 addr, void *ctx), void *ctx);

/* The sites of one kind in the code that ran, and what --blocks counted of them. */
struct protect_kind {
	const char *kind;
	long long sites;      /* in the functions scanned */
	long long probed;     /* of those, in a --blocks function's counted blocks */
	long long reached;    /* of those, executed at least once */
	long long executions; /* their executions, summed */
};

/* By kind. */
int protect_kinds(struct datafile *df, int (*fn)(const struct protect_kind *k, void *ctx),
		  void *ctx);

/*
 * Each kernel stack whose sampled pc (its leaf) is on a site: the
 * innermost site holding it (the highest address), stack by stack.
 */
int protect_leaf_sites(struct datafile *df,
		       int (*fn)(long long stack, const char *kind, __u64 site, void *ctx),
		       void *ctx);

#endif
