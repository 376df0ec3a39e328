/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * The inline instances of a recording as the data file holds them: the
 * inlines table (what record --func probed), and the TEMP tables
 *   inline_stacks(inst INTEGER, stack INTEGER, self INTEGER)
 *   inline_dies(die INTEGER PRIMARY KEY, inst INTEGER)
 *   inline_ranges(inst INTEGER, lo INTEGER, hi INTEGER)
 *   parent_samples(name TEXT PRIMARY KEY, n INTEGER)
 * that find the kernel stacks through each instance, by DIE or by address.
 * inst is the caller's index of an instance.  All but the inlines table
 * need the frames and kstack_samples tables (data/samples.h).
 */
#ifndef KP_INLINE_TABLES_H
#define KP_INLINE_TABLES_H

#include <linux/types.h>

struct datafile;

/* Create inline_stacks, inline_dies and inline_ranges, empty. */
int inline_tables_create(struct datafile *df);

/* Gets an instance DIE samples fell into and its function's DIE (0: unknown). */
typedef int (*inline_tables_die_fn)(__u64 die, __u64 func_die, void *ctx);
/* Each instance DIE samples fell into, once, in DIE order. */
int inline_tables_sampled_dies(struct datafile *df, inline_tables_die_fn fn, void *ctx);
/* Instance inst is the one with DWARF offset die. */
int inline_tables_add_die(struct datafile *df, __u64 die, long long inst);
/* Instance inst covers [lo, hi) (recorded, running-kernel addresses). */
int inline_tables_add_range(struct datafile *df, long long inst, __u64 lo, __u64 hi);

/* Gets one range [lo, hi) of an inlines.ranges value; non-zero stops the walk. */
typedef int (*inline_tables_range_fn)(__u64 lo, __u64 hi, void *ctx);
/*
 * Each range of text, an inlines.ranges value "0xLO-0xHI ..." (row is its
 * rowid, func), to fn (if any): fn's non-zero, or -EBADMSG said by
 * query_bad when a range is malformed, empty or reversed, or there are
 * more than 4096.
 */
int inline_tables_ranges(struct datafile *df, long long row, const char *text,
			 inline_tables_range_fn fn, void *ctx);
/* The same for the ranges column of table (block_inlines has one too). */
int inline_tables_ranges_of(struct datafile *df, const char *table, long long row, const char *text,
			    inline_tables_range_fn fn, void *ctx);

/* One instance record --func probed, with its latency (0 when it has none). */
struct inline_tables_probed {
	long long func; /* funcs.id */
	const char *name, *parent;
	const char *call_file; /* NULL when unknown */
	int call_line;
	__u64 entry;
	const char *ranges; /* "0xlo-0xhi ...", NULL when none */
	__u64 bytes;
	const char *method;
	long long done, total_ns, max_ns;
};

/* Non-zero stops the walk and is returned. */
typedef int (*inline_tables_probed_fn)(const struct inline_tables_probed *p, void *ctx);
/* The instances record --func probed, by funcs.id. */
int inline_tables_probed(struct datafile *df, inline_tables_probed_fn fn, void *ctx);

/* Fill inline_stacks from the instances added by DIE and by range. */
int inline_tables_fill_stacks(struct datafile *df);

/* Gets an instance's samples: at the leaf (self) and anywhere on the stack (total). */
typedef int (*inline_tables_count_fn)(long long inst, long long self, long long total, void *ctx);
/* Each instance with samples, by inline_stacks and kstack_samples. */
int inline_tables_counts(struct datafile *df, inline_tables_count_fn fn, void *ctx);

/* Create parent_samples: samples per kernel function on the stack, clones counted as one. */
int inline_tables_parents_create(struct datafile *df);
/*
 * A parent function's samples (from parent_samples), and its calls when
 * record --func timed it as a function (0 when not).
 */
int inline_tables_parent(struct datafile *df, const char *parent, long long *samples,
			 long long *calls);

#endif
