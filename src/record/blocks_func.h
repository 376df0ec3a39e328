/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * record --blocks inside: one --blocks function (a function of its own, or
 * an inline instance of a function inlined into all its callers) as
 * blocks.c probes it, blocks_resolve.c finds it and blocks_save.c writes
 * what its probes counted.
 */
#ifndef KP_BLOCKS_FUNC_H
#define KP_BLOCKS_FUNC_H

#include <stdbool.h>
#include <stddef.h>
#include <linux/types.h>

#include "blocks_layout.h"
#include "record/links.h"

struct blocks_bpf;
struct blocks_opts;
struct cfg;
struct cfg_text;
struct debuginfo;
struct ksyms;
struct loopbound;

/* A probe that ends (or, parent code entering elsewhere, misses) an inline instance's call. */
struct bexit {
	__u64 addr;
	struct kp_blk_exit_info e;
	/*
	 * a parent exit on a jump-label site (which kprobes refuse): where the
	 * site leads as the text is patched now (past its nop, or its jmp's
	 * target), 0 when it is no nop or jmp
	 */
	__u64 alt;
};

struct bfunc {
	char name[160];	       /* the function, or NAME / NAME@PARENT for an inline instance */
	__u64 addr;	       /* the entry: its symbol, or the instance's entry pc */
	__u64 size;	       /* bytes of text */
	struct cfg_text *text; /* text[0] starts at the entry; code owned */
	size_t ntext, ntext_cap;
	struct cfg *g;
	bool *probed;
	struct kp_fetch cache; /* the struct kmem_cache * at the entry; n 0: none */
	struct loopbound *lb;  /* the loops' bounds */
	size_t nlb;
	char unprobed[512];
	/* an inline instance (inl): where it sits and what ends its calls */
	bool inl;
	char func[128], parent[128], call_file[256];
	int call_line;
	__u64 parent_addr, parent_size;
	struct bexit *exits; /* exits and side entries, by address */
	size_t nexits, exits_cap;
	/* at the end of the last run, to subtract: the counts, calls, complete, lost */
	__u64 *prev;
	__u64 prev_calls[3];
};

struct blocks {
	struct bfunc f[KP_BLK_FUNCS];
	size_t n;
	const struct ksyms *ks;
	struct debuginfo *di;  /* the kernel's DWARF, when found: inline instances, names */
	int dwarf_err;	       /* why not, as running_dwarf_open() says */
	char dwarf_path[4096]; /* the file tried, "" none */
	/* the text as linked when /proc/kcore is missing: --vmlinux, else the DWARF's file */
	char text_path[4096];
	__s64 slide;		   /* running addresses minus the DWARF's */
	bool stacks;		   /* --func-stacks */
	bool multi;		   /* the functions' entries and returns attached by kprobe.multi */
	unsigned long long missed; /* hits the kernel's kprobes skipped, read at detach */
	int missed_err;		   /* -EOPNOTSUPP: the kernel does not say */
	__u64 *last; /* the last run's executions of each block, function after function */
	size_t last_cap;
	__u64 last_complete; /* and its complete calls */
	struct blocks_bpf *obj;
	struct links links;
	char note[1024];
};

/* blocks_resolve.c: the --blocks functions of o, into b->f, each with its graph. */
int blocks_resolve(struct blocks *b, const struct blocks_opts *o, char *why, size_t len);
void blocks_resolve_free(struct bfunc *f);

/* blocks_save.c: the per-CPU values of key in the array fd summed (nwords __u64s of them). */
int blocks_sum_percpu(int fd, __u32 key, __u64 *sum, size_t nwords, __u64 *buf, int ncpu);

#endif
