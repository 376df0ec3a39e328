/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * record --blocks FUNC: a kprobe at every basic block head of FUNC (its
 * control-flow graph from the running text, analysis/cfg.h), and per call
 * the instructions executed and each loop's trips; collected into the
 * blocks tables of the data file (data/blocks_tables.h).
 */
#ifndef KP_BLOCKS_H
#define KP_BLOCKS_H

#include <stdbool.h>
#include <stddef.h>
#include <linux/types.h>

#include "blocks_layout.h"

struct datafile;
struct ksyms;
struct stackstore;
struct record_bpf;
struct blocks;
struct bpf_object;

#define BLOCKS_LIMIT_DEFAULT 256

struct blocks_opts {
	const char *funcs[KP_BLK_FUNCS]; /* --blocks */
	int n;
	unsigned int limit; /* --blocks-limit: probes per function */
	const char
		*vmlinux; /* --vmlinux: the DWARF, and the text when /proc/kcore cannot be read */
	bool stacks;	  /* --func-stacks: the kernel stack at each call's entry */
};

/*
 * Resolve each function against ks (which must outlive the blocks), build
 * its graph and attach the probes for the traced tree.  On failure why is
 * one line: the function, the reason, the way out.
 */
int blocks_attach(struct blocks **out, const struct blocks_opts *o, const struct ksyms *ks,
		  struct record_bpf *rec, char *why, size_t len);
/* Stop the probes; what they counted stays readable. */
void blocks_detach(struct blocks *b);
/*
 * The blocks tables and the lost_blocks_* counters (NULL b: nothing); the
 * kernel stacks of calls (--func-stacks) as st's ids, their frames' symbols
 * from ks.
 */
int blocks_collect(struct blocks *b, struct datafile *df, const struct stackstore *st,
		   const struct ksyms *ks);
/*
 * What run run (record --repeat) added to the block counts and calls since the
 * last run's: the block_runs, block_run_edges and block_run_calls rows.
 */
int blocks_put_run(struct blocks *b, struct datafile *df, unsigned int run);
/*
 * The run blocks_put_run() was last given: its executions of each block,
 * function after function (*n, owned by b; unknown counts 0), its complete
 * calls into *complete.  NULL before any run.
 */
const __u64 *blocks_last_run(const struct blocks *b, size_t *n, __u64 *complete);
/* Each counted loop's most trips in one call so far, function after function: a new array. */
int blocks_max_trips(const struct blocks *b, __u64 **out, size_t *n);
/* Every per-call value so far (bvalues' keys and counts): new arrays. */
int blocks_values(const struct blocks *b, struct kp_blk_value **keys, __u64 **counts, size_t *n);
/* The complete calls so far by context and instructions (bctx's keys and counts): new arrays. */
int blocks_calls(const struct blocks *b, struct kp_blk_ctx_key **keys, __u64 **counts, size_t *n);
/*
 * How the functions' entry blocks and returns were attached: "kprobe.multi"
 * (one link each) or "kprobe" (a kprobe and a kretprobe per function).
 */
const char *blocks_attach_method(const struct blocks *b);
/* Its BPF object, for the kernel's run-time statistics of its programs (NULL b: none). */
struct bpf_object *blocks_object(const struct blocks *b);
/* "note: ..." about blocks left unprobed, NULL when none. */
const char *blocks_note(const struct blocks *b);
void blocks_free(struct blocks *b);

#endif
