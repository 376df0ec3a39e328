/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * The raw table plugin/kp_model.c writes at QEMU's exit (and vm-run.sh
 * stamps with the kernel that ran): '#' header lines, then per guest PC its
 * instructions and, per cache geometry, six counts.  Format 2 adds to each
 * row the instruction's kind and how many of its executions flushed TLBs
 * and, per geometry, its I-TLB and D-TLB misses.  Read as untrusted:
 * every line bounded and checked, PCs strictly increasing.  Mode timing
 * (one geometry, format 2) adds an out-of-order core model: its parameters
 * and totals in two '# timing' lines, and per row its cycles and their
 * stack.  With the kernel's image, '# callsite' lines split the string
 * helpers' accesses by the kernel call that reached them (docs/model.md).
 */
#ifndef KP_MODEL_TABLE_H
#define KP_MODEL_TABLE_H

#include <stdbool.h>
#include <stddef.h>
#include <linux/types.h>

#include "data/model.h"

/* the key=value words of a '# timing core=NAME' line, at most */
#define MODEL_TIMING_MAX 4096

struct model_table {
	unsigned int format;		  /* 1: no TLBs, no events; 2 */
	char guest_pti[8], guest_pcid[8]; /* 0, 1 or unknown (format 2), "" (format 1) */
	char mode[8];			  /* insns, cache or timing */
	char window[16];		  /* complete, incomplete or none */
	char qemu[128];			  /* the QEMU version the plugin ran in */
	char kernel[129]; /* the build id of the kernel that ran, "" when not said */
	char iaddr[16];	  /* cache: physical, or host when never calibrated */
	unsigned int opened, closed, restarts, stray_stops;
	/* the boot window's (window=boot): reset -> the kernel's entry, -> the first user insn */
	bool has_entry, has_first_user;
	__u64 entry_insns, first_user_insns;
	unsigned int ngeom;
	struct model_geom geom[MODEL_GEOMS_MAX];
	/* mode timing: the core model's name and its key=value words after it, as written */
	char core[64];
	char timing[MODEL_TIMING_MAX];
	/* the instructions the core saw, those it did not know, prefetches, all cycles */
	bool has_totals;
	__u64 core_insns, core_unknown, prefetches, cycles;
	/*
	 * with vmlinux=: the '# patched sites N dropped D' line, the kernel
	 * instructions that ran other bytes than the image's (each a
	 * '# running' line) and those beyond the plugin's bound
	 */
	bool has_patched;
	__u64 patched_sites, patched_dropped;
	/*
	 * with vmlinux= and caches: the '# callsites V lines N dropped D' line,
	 * the string helpers' accesses per call site (each a '# callsite' line)
	 * and the accesses of the pairs beyond the plugin's bound; version 2
	 * adds the slab allocator's call to each line
	 */
	bool has_sites;
	unsigned int sites_version;
	__u64 nsites, sites_seen, sites_dropped;
};

/* One '# running 0xPC HEX' line: the bytes the instruction at pc ran. */
struct model_table_running {
	__u64 pc;
	unsigned int len;
	__u8 b[MODEL_RUNNING_BYTES];
};
typedef int (*model_running_fn)(const struct model_table_running *r, void *ctx);

/*
 * One '# callsite 0xPC 0xSITE [0xALLOC] READS WRITES' line: a helper's
 * accesses for one call site (and, version 2, the call into the slab
 * allocator that made it).
 */
struct model_table_site {
	__u64 pc, site; /* site 0: not known */
	__u64 alloc;	/* 0: none, or a version 1 line */
	__u64 reads, writes;
};
typedef int (*model_site_fn)(const struct model_table_site *s, void *ctx);

/* One row. */
struct model_table_row {
	__u64 pc, insns;
	__u64 flushes;	  /* format 2: the executions that flushed TLBs */
	int kind;	  /* format 2: an enum model_kind; -1: none */
	const __u64 *v;	  /* ngeom x MODEL_STATS counts */
	const __u64 *tlb; /* format 2: ngeom x 2, the I-TLB's and the D-TLB's misses */
	const __u64 *cyc; /* timing: the cycles, then the MODEL_CYCS of their stack; else NULL */
};
typedef int (*model_table_fn)(const struct model_table_row *r, void *ctx);

/* Whether the table's geometries simulated TLBs (format 2, cache or timing). */
bool model_table_has_tlb(const struct model_table *t);
/* Whether the table is of mode timing: cycles per row. */
bool model_table_timing(const struct model_table *t);

/*
 * Read the table at path: its header into *t, then fn for each row (fn NULL:
 * the header alone).  -EBADMSG with why naming the line for a bad table;
 * -errno (why "" when the error says it all) when it cannot be read.
 */
int model_table_read(const char *path, struct model_table *t, model_table_fn fn, void *ctx,
		     char *why, size_t len);
/*
 * The same, with a function (NULL: none) for each '# running' and each
 * '# callsite' line too, before the rows.
 */
struct model_table_fns {
	model_table_fn row;
	model_running_fn running;
	model_site_fn site;
};
int model_table_read_fns(const char *path, struct model_table *t, const struct model_table_fns *fns,
			 void *ctx, char *why, size_t len);

#endif
