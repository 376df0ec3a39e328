/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * The machine model's loads and stores per data type and member: every
 * counted PC resolved at report time through its file's DWARF (datatype/
 * dtype.h: kernel PCs through the recorded kernel's vmlinux, user PCs
 * through their binary's), its reads, writes and misses summed per type,
 * per member and per function (model_data.c); shown by report --model
 * --data (model_data_report.c), annotate --model --data-type
 * (model_data_annotate.c) and diff --model --data (model_data_diff.c).
 */
#ifndef KP_MODEL_DATA_H
#define KP_MODEL_DATA_H

#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>
#include <linux/types.h>

#include "model/rows.h"

struct datafile;
struct json;
struct kernel_dwarf;

/* What is counted per type, member and function; mdata_count_names[] are the JSON keys. */
enum mdata_count {
	MD_READS,
	MD_WRITES,
	MD_D1_READ_MISSES,
	MD_D1_WRITE_MISSES,
	MD_LL_MISSES,
	MD_DTLB_MISSES, /* only when the geometry simulated TLBs */
	MD_COUNTS
};
extern const char *const mdata_count_names[MD_COUNTS];

struct mdata_counts {
	__u64 v[MD_COUNTS];
};

/* A function's accesses to one member. */
struct mdata_fn {
	char *name;
	__u64 accesses;
};

struct mdata_member {
	char *member; /* "se.vruntime"; "" the whole object */
	__u64 offset, size;
	struct mdata_counts c;
	struct mdata_fn *fns; /* by accesses */
	size_t nfns;
};

struct mdata_type {
	char *type, *module; /* module: "[kernel]" or the binary's recorded path */
	__u64 size;	     /* 0: a pseudo type or (untyped) */
	struct mdata_counts c;
	struct mdata_member *members; /* by offset */
	size_t nmembers;
};

/* A PC whose accesses could not be typed. */
struct mdata_untyped {
	__u64 pc;
	char *func, *module, *reason;
	__u64 off; /* from the function's start */
	__u64 accesses;
};

/*
 * A string helper's accesses for one kernel call site (model_sites): typed
 * by the caller's %rdi (writes) or %rsi (reads) at the call.
 */
struct mdata_call {
	__u64 pc, site;	       /* the helper's rep instruction, the call (runtime addresses) */
	char *helper, *caller; /* their functions */
	__u64 caller_off;
	char *type;   /* as the data view names it; NULL: untyped, reason says why */
	char *reason; /* NULL when typed */
	bool write;   /* the destination (%rdi), else the source (%rsi) */
	__u64 accesses;
};

enum { MD_KERNEL, MD_USER };

struct mdata {
	struct model_counts mc;
	struct mdata_type *types; /* by misses, then accesses; without (untyped) */
	size_t ntypes;
	struct mdata_type untyped;  /* the accesses no type holds */
	struct mdata_untyped *upcs; /* by accesses */
	size_t nupcs;
	struct mdata_call *calls; /* by accesses */
	size_t ncalls;
	__u64 accesses[2], typed[2]; /* MD_KERNEL, MD_USER */
	unsigned int line;	     /* the D1's line size: the cache lines marked */
	char kernel_note[512];	     /* why kernel PCs are untyped ("" when they are resolved) */
};

/*
 * Read df's counts in geometry geom and resolve each counted PC's accesses
 * with kd (NULL: kernel PCs untyped, note says why) and the user files'
 * DWARF.  -ENODATA/-ERANGE with why as model_counts_read(); -ENOMEDIUM
 * with why when the recording simulated no caches (no reads and writes);
 * else -ENOMEM or as data/ readers fail.
 */
int mdata_collect(struct mdata *d, struct datafile *df, struct kernel_dwarf *kd, const char *note,
		  unsigned int geom, char *why, size_t len);
void mdata_free(struct mdata *d);

/* A count's misses: D1 read and write misses. */
__u64 mdata_misses(const struct mdata_counts *c);
__u64 mdata_accesses(const struct mdata_counts *c);
/* Whether count k was counted (the D-TLB's misses only with TLBs). */
bool mdata_known(const struct mdata *d, enum mdata_count k);
/* Fraction of side's (MD_KERNEL, MD_USER, or 2 for both) accesses typed; NAN: none. */
double mdata_share(const struct mdata *d, int side);

/* The shared parts of the views: the header line, the counts' heads and values, JSON. */
void mdata_header_text(FILE *f, const struct mdata *d);
void mdata_heads_text(FILE *f, const struct mdata *d);
void mdata_cols_text(FILE *f, const struct mdata *d, const struct mdata_counts *c);
void mdata_counts_json(struct json *j, const struct mdata *d, const struct mdata_counts *c);
void mdata_shares_json(struct json *j, const struct mdata *d);
/*
 * pahole's cache-line marks between members: before a member starting in a
 * line after *cur, and after one ending in a later line than it started
 * ("was N bytes ago"); *cur the line last marked.  indent: spaces first.
 */
void mdata_line_before(FILE *f, const struct mdata *d, int indent, __u64 offset, __u64 *cur);
void mdata_line_after(FILE *f, const struct mdata *d, int indent, __u64 offset, __u64 size,
		      __u64 *cur);
/* The type named name among d's types (as C spells it, or without struct/union/enum). */
const struct mdata_type *mdata_find(const struct mdata *d, const char *name);
/* The same, of module only (NULL: any). */
const struct mdata_type *mdata_find_in(const struct mdata *d, const char *name, const char *module);

struct model_view_opts;
/* report --model --data, annotate --model --data-type, diff --model --data. */
int model_data_report(struct datafile *df, struct kernel_dwarf *kd, const char *note,
		      const struct model_view_opts *o, char *why, size_t len);
int model_data_annotate(struct datafile *df, struct kernel_dwarf *kd, const char *note,
			const char *type, const struct model_view_opts *o, char *why, size_t len);
int model_data_diff(struct datafile *base, struct kernel_dwarf *kb, const char *nb,
		    struct datafile *hard, struct kernel_dwarf *kh, const char *nh,
		    const struct model_view_opts *o, char *why, size_t len);

#endif
