/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * kprotperf calibrate's machinery: this machine's costs measured natively
 * in user mode by microbenchmarks (pinned to one CPU, warmed up, the
 * minimum of repeats, each loop's overhead measured by a twin loop without
 * the instruction and subtracted), the costs user mode cannot measure as
 * constants with their sources (docs/model.md, "Estimated cycles"), the
 * table written as model/costs.h reads it and shown.
 */
#ifndef KP_CALIBRATE_H
#define KP_CALIBRATE_H

#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>

#include "model/costs.h"

/* One loop: its body n times over (4 copies an iteration for the asm ones); ctx its data. */
typedef void calib_loop_fn(void *ctx, long n);

calib_loop_fn calib_imul_chain, calib_add_chain, calib_mix, calib_chase, calib_jit, calib_nofence,
	calib_lfence, calib_mfence, calib_sfence, calib_cpuid, calib_nocpuid, calib_verw,
	calib_empty, calib_iret, calib_noiret, calib_call_direct, calib_call_ind, calib_call_lea,
	calib_retpoline, calib_return_thunk, calib_jmp_ind, calib_jmp_direct, calib_branch,
	calib_branchless, calib_stream, calib_stream_sum, calib_gather, calib_gather_use,
	calib_rep_stosb, calib_rep_movsb, calib_rep_none, calib_loop_within, calib_loop_across;

/* calib_rename_N for each N here: N register adds after each of its two loads */
#define CALIB_RENAME_SIZES(X) \
	X(96) X(126) X(156) X(180) X(198) X(216) X(234) X(258) X(288) X(330) X(384) X(432)
#define CALIB_RENAME_DECL(nadds) calib_loop_fn calib_rename_##nadds;
CALIB_RENAME_SIZES(CALIB_RENAME_DECL)

/*
 * calib_branch's and calib_branchless's bytes (0 or 1 each, a conditional
 * branch on each), read round a ring of this many: more random outcomes than
 * a predictor learns (a Zen 4 learned most of 64 Ki of them, replayed, and
 * read a 3-cycle penalty), streamed from memory at a line each 64 branches.
 */
#define CALIB_BITS (1 << 24)

/*
 * calib_stream's and the fast strings' memory: a 64-byte load (calib_stream)
 * or a 4 KiB fast string (calib_rep_*) at off, from src to dst (calib_branch's
 * bytes: src), off then moved on (a line or a page) within mask (a power of
 * two less 1), kept between calls so that one goes on where the last stopped.
 */
struct calib_rep {
	char *dst, *src;
	unsigned long mask, off;
};

/*
 * calib_gather's: a load from src at each byte offset idx holds, in turn,
 * from off on within mask (a power of two less 1, entries of idx), kept
 * between calls; the loads' addresses come from idx, none from a load
 * before them.
 */
struct calib_gather {
	const uint32_t *idx;
	const char *src;
	unsigned long mask, off;
};

/* calib_rename_*'s two chases, kept between calls so that each goes on where it stopped. */
struct calib_pair {
	void *p, *q;
};

/*
 * Instructions of calib_mix's body; dependent operations an iteration of
 * calib_imul_chain and calib_add_chain, and their latencies in cycles;
 * bodies an iteration.
 */
#define CALIB_MIX_INSNS 10
#define CALIB_CHAIN_OPS 16
#define CALIB_IMUL_LAT	3
#define CALIB_ADD_LAT	1
#define CALIB_BODIES	4

/*
 * The slots of a chase (64 bytes each) and their order: every line of the
 * region at random; one line per 4 KiB page, at an offset of its own, at
 * random; every line, at random within each 2 MiB, the 2 MiB stretches
 * themselves in a random order (each line still comes from memory, but
 * the translation of the last thousands of them is in the TLB: under a
 * hypervisor, whose pages may be smaller than the guest's, the host's
 * side of it too).
 */
enum calib_order { CALIB_LINES, CALIB_PAGES, CALIB_LOCAL };
#define CALIB_LOCAL_BYTES (2UL << 20)

/*
 * A random cyclic pointer chase: the slots of a region of size bytes
 * (huge: MADV_HUGEPAGE, else MADV_NOHUGEPAGE) in the order asked; its
 * first line into *start.  The region (munmap size bytes) or NULL.
 */
void *calib_chase_new(size_t size, bool huge, enum calib_order order, void **start);
/*
 * Generated code: a random cycle of jumps through slots of 64 bytes in a
 * region of size bytes (in the order asked), closed by
 * dec %rcx; jnz; ret, for calib_jit.  NULL (errno) when no executable
 * memory can be had.  *slots: the jumps a round takes; *entry: where
 * calib_jit calls it.
 */
void *calib_jit_new(size_t size, enum calib_order order, long *slots, void **entry);

/* xorshift64 of seed *s (not 0): the same numbers every run, no state kept between calls. */
uint64_t calib_rand(uint64_t *s);
/* size bytes of anonymous memory, MADV_HUGEPAGE when huge (else MADV_NOHUGEPAGE), or NULL. */
void *calib_region(size_t size, bool huge);

/* CLOCK_MONOTONIC_RAW now, in ns. */
double calib_now_ns(void);

/* The minimum over repeats of fn(ctx, n)'s time per call of the body (n bodies), in ns. */
double calib_time(calib_loop_fn *fn, void *ctx, long n);

/* A loop to time among others: best, its calib_time. */
struct calib_job {
	calib_loop_fn *fn;
	void *ctx;
	long n;
	double best;
};
/*
 * Loops timed round robin, each repeat running every one twice, warming
 * up then timed: a load that comes and goes weighs on all alike, so that
 * their differences, the costs, stay true to one another.
 */
void calib_time_rr(struct calib_job *j, size_t n);

/* What calibrate found, costs and their sources (measured or cited). */
struct calib_result {
	struct model_costs costs;
	struct model_cost_sources src;
};

/* The measuring state: the clock's cycles per ns, where progress goes (or NULL), the result. */
struct calib {
	double ghz;
	FILE *err;
	struct calib_result *r;
};

/* Memory or code to chase through, size bytes, its slots in the order asked, huge pages or not. */
struct calib_region {
	size_t size;
	enum calib_order order;
	bool huge;
	long n;
};

/*
 * The regions as pointer chases (code: chains of jumps), timed round
 * robin: cycles per load (jump) into c; -ENOMEM when one cannot be mapped.
 */
#define CALIB_REGIONS_MAX 12
int calib_regions(struct calib *k, const struct calib_region *g, size_t n, bool code, double *c);

/*
 * Cycles per load of calib_core's data chases, for the costs derived from
 * them: L1, L2, the last level's set in 4 KiB pages, one line in each of
 * pages 4 KiB pages, every line of 256 MiB in 4 KiB pages.
 */
struct calib_loads {
	double l1, l2, lines_4k, walk, dram_4k;
	size_t pages;
};
/*
 * The core's figures (model_costs' core, its sources) measured into k->r,
 * and the chases' loads the costs need into *l: 0 or -ENOMEM.
 */
int calib_core(struct calib *k, struct calib_loads *l);

/*
 * Of the loads of random chases through size bytes (2 MiB pages, 16 at
 * once, each round of them timed), the share in rounds slower than the
 * median by more than gap_cycles at ghz, the median of a few runs, into
 * *share: 0, -ENOMEM, or -EOPNOTSUPP where no cycle counter is read.
 */
int calib_lost(size_t size, double ghz, double gap_cycles, double *share);

/* Measure this machine (progress on err, NULL: silent): 0 or -errno, said. */
int calib_measure(struct calib_result *r, FILE *err);
/* r's table as JSON (model/costs.h's format) to f. */
int calib_write_json(FILE *f, const struct model_costs *c, const struct model_cost_sources *src);
/* The table shown: one line per key, cycles and source. */
void calib_show(FILE *f, const struct model_costs *c, const struct model_cost_sources *src);

#endif
