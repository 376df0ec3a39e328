// SPDX-License-Identifier: GPL-2.0-only
/*
 * record --blocks, at the end of each run and of the recording: what the
 * probes counted into the data file's blocks tables.  The block counts of
 * probed blocks give those of unprobed ones and every edge's by flow
 * conservation; the per-call values (instructions, each loop's trips and
 * its bound's value) and the calls by context come from the hash maps the
 * probes fill at each call's end.
 */
#include "record/blocks_func.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <bpf/bpf.h>
#include <bpf/libbpf.h>

#include "blocks.skel.h"

#include "analysis/cfg.h"
#include "analysis/loopbound.h"
#include "data/blocks_tables.h"
#include "data/recording.h"
#include "record/collect.h"
#include "record/links.h"
#include "record/stackstore.h"
#include "util/array.h"

static const char *const edge_kinds[] = {
	[CFG_EDGE_ENTRY] = "entry",	    [CFG_EDGE_FALL] = "fall",
	[CFG_EDGE_JUMP] = "jump",	    [CFG_EDGE_TAKEN] = "taken",
	[CFG_EDGE_NOT_TAKEN] = "not_taken", [CFG_EDGE_RETURN] = "return",
	[CFG_EDGE_TAIL] = "tail",	    [CFG_EDGE_INDIRECT] = "indirect",
	[CFG_EDGE_NORETURN] = "noreturn",   [CFG_EDGE_TRAP] = "trap",
};

#define NSTATS (sizeof(struct kp_blk_stats) / sizeof(__u64))

int blocks_sum_percpu(int fd, __u32 key, __u64 *sum, size_t nwords, __u64 *buf, int ncpu)
{
	size_t w;
	int c;

	memset(sum, 0, nwords * sizeof(*sum));
	if (bpf_map_lookup_elem(fd, &key, buf))
		return -errno;
	for (c = 0; c < ncpu; c++)
		for (w = 0; w < nwords; w++)
			sum[w] += buf[c * nwords + w];
	return 0;
}

/* What one function's probes counted so far (or in one run), and what follows from it. */
struct tally {
	__u64 *counts; /* per block; unprobed ones derived where known */
	bool *known;
	__u64 *edges; /* CFG_UNKNOWN: not known */
	struct kp_blk_stats st;
};

static bool sum_known(const __u64 *ec, const int *ids, int n, __u64 *sum)
{
	int i;

	for (*sum = 0, i = 0; i < n; i++) {
		if (ec[ids[i]] == CFG_UNKNOWN)
			return false;
		*sum += ec[ids[i]];
	}
	return true;
}

/* Edges ids[0..n) add up to total: the one unknown among them is the rest. */
static bool solve_one(__u64 *ec, const int *ids, int n, __u64 total)
{
	int i, unknown = -1;
	__u64 sum = 0;

	for (i = 0; i < n; i++) {
		if (ec[ids[i]] != CFG_UNKNOWN)
			sum += ec[ids[i]];
		else if (unknown >= 0)
			return false;
		else
			unknown = ids[i];
	}
	if (unknown < 0 || sum > total)
		return false;
	ec[unknown] = total - sum;
	return true;
}

/*
 * The counts of blocks the kernel would not probe (a ud2 of BUG or WARN, a
 * jump-label site), from their neighbours' by flow conservation: a block's
 * count is the sum of its in-edges and of its out-edges.  A WARN's ud2, which
 * the graph takes for a BUG's, makes the counts contradict the graph when it
 * fires (cfg_edge_counts() then leaves every edge unknown).  known[] says which
 * counts are had; what stays unknown stays so.
 */
static void derive(const struct cfg *g, __u64 *counts, bool *known, __u64 calls)
{
	__u64 *ec = malloc(g->ne * sizeof(*ec)), sum;
	bool more = true;
	size_t e, k;

	if (!ec)
		return;
	for (e = 0; e < g->ne; e++)
		ec[e] = CFG_UNKNOWN;
	ec[0] = calls;
	/* a BUG's ud2 (kprobes refuse it) ran never: the recording would have ended in an oops */
	for (k = 0; k < g->nb; k++) {
		if (!known[k] && g->b[k].nsucc == 1 &&
		    g->e[g->b[k].edge[0]].kind == CFG_EDGE_TRAP) {
			counts[k] = 0;
			known[k] = true;
		}
	}
	while (more) {
		more = false;
		for (k = 0; k < g->nb; k++) {
			const struct cfg_block *b = &g->b[k];
			const int *in = &g->in[b->in_first];

			if (!known[k] && (sum_known(ec, in, b->npred, &sum) ||
					  sum_known(ec, b->edge, b->nsucc, &sum))) {
				counts[k] = sum;
				known[k] = more = true;
			}
			if (known[k]) {
				more |= solve_one(ec, in, b->npred, counts[k]);
				more |= solve_one(ec, b->edge, b->nsucc, counts[k]);
			}
		}
	}
	free(ec);
}

static void tally_free(struct tally *t)
{
	free(t->counts);
	free(t->known);
	free(t->edges);
}

/* f's raw counts and stats as they stand (every run so far). */
static int tally_read(const struct blocks *b, size_t i, struct tally *t, __u64 *buf, int ncpu)
{
	const struct bfunc *f = &b->f[i];
	size_t k;
	int err;

	t->counts = calloc(f->g->nb, sizeof(*t->counts));
	t->known = calloc(f->g->nb, sizeof(*t->known));
	t->edges = calloc(f->g->ne, sizeof(*t->edges));
	err = t->counts && t->known && t->edges ? 0 : -ENOMEM;
	for (k = 0; k < f->g->nb && !err; k++)
		err = blocks_sum_percpu(bpf_map__fd(b->obj->maps.bcount), i * KP_BLK_MAX + k,
					&t->counts[k], 1, buf, ncpu);
	return err
		       ?: blocks_sum_percpu(bpf_map__fd(b->obj->maps.bstats), i, (__u64 *)&t->st,
					    NSTATS, buf, ncpu);
}

/* The unprobed blocks' counts and the edges' from the probed blocks' counts. */
static void tally_solve(const struct bfunc *f, struct tally *t)
{
	const struct cfg *g = f->g;
	bool all = true;
	size_t k, e;

	for (k = 0; k < g->nb; k++)
		t->known[k] = f->probed[k];
	derive(g, t->counts, t->known, t->st.calls);
	for (k = 0; k < g->nb; k++)
		all &= t->known[k];
	for (e = 0; e < g->ne; e++)
		t->edges[e] = CFG_UNKNOWN;
	t->edges[0] = t->st.calls;
	/* contradicting counts (code entered by a way the graph lacks): none is sure */
	if (all && cfg_edge_counts(g, t->counts, t->edges) == -EDOM)
		for (e = 1; e < g->ne; e++)
			t->edges[e] = CFG_UNKNOWN;
}

static long long known_or(const struct tally *t, size_t k)
{
	return t->known[k] ? (long long)t->counts[k] : -1;
}

static long long edge_or(const struct tally *t, size_t e)
{
	return t->edges[e] == CFG_UNKNOWN ? -1 : (long long)t->edges[e];
}

static int put_blocks(const struct bfunc *f, struct datafile *df, const struct tally *t)
{
	const struct cfg *g = f->g;
	size_t k;
	int err = 0;

	for (k = 0; k < g->nb && !err; k++) {
		struct blocks_row r = {.block = k,
				       .start = g->b[k].start,
				       .end = g->b[k].end,
				       .insns = g->b[k].ninsn,
				       .count = known_or(t, k),
				       .probed = f->probed[k],
				       .loop = g->b[k].loop};

		err = blocks_tables_put_block(df, f->name, &r);
	}
	return err;
}

static int put_edges(const struct bfunc *f, struct datafile *df, const struct tally *t)
{
	const struct cfg *g = f->g;
	size_t e;
	int err = 0;

	for (e = 0; e < g->ne && !err; e++) {
		struct blocks_edge_row r = {.edge = e,
					    .src = g->e[e].from,
					    .dst = g->e[e].to,
					    .kind = edge_kinds[g->e[e].kind],
					    .count = edge_or(t, e)};

		err = blocks_tables_put_edge(df, f->name, &r);
	}
	return err;
}

static int put_loops(const struct bfunc *f, struct datafile *df, const struct tally *t)
{
	const struct cfg *g = f->g;
	__u64 entries, iterations;
	size_t l;
	int err = 0;

	for (l = 0; l < g->nloops && !err; l++) {
		const struct cfg_loop *lp = &g->loops[l];
		struct blocks_loop_row r = {.loop = l,
					    .head = lp->head,
					    .parent = lp->parent,
					    .depth = lp->depth,
					    .irreducible = lp->irreducible,
					    .entries = -1,
					    .iterations = -1};

		if (!cfg_loop_trips(g, l, t->counts, t->edges, &entries, &iterations)) {
			r.entries = entries;
			r.iterations = iterations;
		} else if (!lp->irreducible && t->known[lp->head]) {
			r.iterations = t->counts[lp->head];
		}
		err = blocks_tables_put_loop(df, f->name, &r);
	}
	return err;
}

/* Calls that ended neither in a return nor in an exit: still open at the end, or too deep. */
static __u64 lost_calls(const struct kp_blk_stats *st)
{
	return st->lost_depth + (st->calls > st->complete ? st->calls - st->complete : 0);
}

static int put_func(const struct bfunc *f, struct datafile *df, const struct tally *t)
{
	struct blocks_func_row r = {.addr = f->addr,
				    .size = f->size,
				    .calls = t->st.calls,
				    .complete = t->st.complete,
				    .lost = lost_calls(&t->st),
				    .unprobed = f->unprobed};

	return blocks_tables_put_func(df, f->name, &r);
}

/* An inline instance's place: its parent, call site, entry and ranges (running addresses). */
static int put_inline(const struct bfunc *f, struct datafile *df)
{
	char ranges[4096] = "";
	struct blocks_inline_row r = {.name = f->func,
				      .parent = f->parent,
				      .call_file = f->call_file,
				      .call_line = f->call_line,
				      .entry = f->addr,
				      .ranges = ranges};
	size_t i, n = 0;

	for (i = 0; i < f->ntext && n < sizeof(ranges); i++)
		n += snprintf(ranges + n, sizeof(ranges) - n, "%s0x%llx-0x%llx", i ? " " : "",
			      (unsigned long long)f->text[i].addr,
			      (unsigned long long)(f->text[i].addr + f->text[i].len));
	return blocks_tables_put_inline(df, f->name, &r);
}

static int put_bounds(const struct bfunc *f, struct datafile *df)
{
	size_t l;
	int err = 0;

	for (l = 0; l < f->nlb && !err; l++) {
		struct blocks_bound_row r = {.loop = f->lb[l].loop,
					     .block = f->lb[l].block,
					     .bound = f->lb[l].bound,
					     .counter = f->lb[l].counter,
					     .cond = f->lb[l].cond};

		err = blocks_tables_put_bound(df, f->name, &r);
	}
	return err;
}

static int collect_func(struct blocks *b, size_t i, struct datafile *df, __u64 *buf, int ncpu,
			struct kp_blk_stats *total)
{
	const struct bfunc *f = &b->f[i];
	struct tally t = {};
	int err = tally_read(b, i, &t, buf, ncpu);

	if (!err) {
		total->lost_map += t.st.lost_map;
		total->unmatched += t.st.unmatched;
		total->side += t.st.side;
		total->bound_lost += t.st.bound_lost;
		tally_solve(f, &t);
	}
	err = err ?: put_func(f, df, &t);
	err = err ?: put_blocks(f, df, &t);
	err = err ?: put_edges(f, df, &t);
	err = err ?: put_loops(f, df, &t);
	err = err ?: put_bounds(f, df);
	err = err ?: (f->inl ? put_inline(f, df) : 0);
	tally_free(&t);
	return err;
}

static int put_value(const struct blocks *b, struct datafile *df, const struct kp_blk_value *k,
		     __u64 calls)
{
	char ctx[KP_CTX_LEN + 1] = {};
	const char *func = b->f[k->func].name;

	memcpy(ctx, k->ctx, KP_CTX_LEN);
	if (k->what == KP_BLK_TRIPS)
		return blocks_tables_put_value(df, func, "trips", k->loop, ctx, k->value, calls);
	return blocks_tables_put_bound_value(df, func, k->loop, ctx, k->bound, k->value, calls);
}

static int put_values(const struct blocks *b, struct datafile *df)
{
	struct kp_blk_value *k;
	__u64 *v;
	size_t n, i;
	int err;

	err = collect_dump(bpf_map__fd(b->obj->maps.bvalues), sizeof(*k), sizeof(*v), (void **)&k,
			   (void **)&v, &n);
	for (i = 0; i < n && !err; i++)
		if (k[i].func < b->n && (k[i].what == KP_BLK_TRIPS || k[i].what == KP_BLK_BOUND))
			err = put_value(b, df, &k[i], v[i]);
	free(k);
	free(v);
	return err;
}

/*
 * The calls by context and instructions: the calls by syscall, kernel stack
 * at entry (as the store's stack ids) and slab cache, and the instructions
 * per call by slab cache, both summed from it.
 */
static int put_calls(const struct blocks *b, struct datafile *df, const struct kp_blk_ctx_key *k,
		     __u64 calls, const struct stackstore *st, __s32 *id)
{
	char ctx[KP_CTX_LEN + 1] = {};
	const char *func = b->f[k->func].name;

	*id = k->kstack && st ? stackstore_id(st, k->kstack) : -1;
	memcpy(ctx, k->ctx, KP_CTX_LEN);
	return blocks_tables_put_context(df, func, k->nr == KP_BLK_NO_SYSCALL ? -1 : (int)k->nr,
					 *id < 0 ? -1 : *id, ctx, calls, calls * k->insns)
		       ?: blocks_tables_put_value(df, func, "insns", -1, ctx, k->insns, calls);
}

static int put_contexts(const struct blocks *b, struct datafile *df, const struct stackstore *st,
			const struct ksyms *ks)
{
	struct kp_blk_ctx_key *k;
	size_t n, i, nids = 0;
	__s32 *ids, id;
	__u64 *v;
	int err;

	err = collect_dump(bpf_map__fd(b->obj->maps.bctx), sizeof(*k), sizeof(*v), (void **)&k,
			   (void **)&v, &n);
	ids = err ? NULL : malloc((n + 1) * sizeof(*ids));
	if (!err && !ids)
		err = -ENOMEM;
	for (i = 0; i < n && !err; i++) {
		if (k[i].func >= b->n)
			continue;
		err = put_calls(b, df, &k[i], v[i], st, &id);
		if (id >= 0)
			ids[nids++] = id;
	}
	err = err ?: (nids ? collect_kstacks(df, st, ids, nids, ks) : 0);
	free(ids);
	free(k);
	free(v);
	return err;
}

int blocks_collect(struct blocks *b, struct datafile *df, const struct stackstore *st,
		   const struct ksyms *ks)
{
	int ncpu = libbpf_num_possible_cpus(), err;
	struct kp_blk_stats total = {};
	__u64 *buf;
	size_t i;

	if (!b)
		return 0;
	if (ncpu < 0)
		return ncpu;
	buf = calloc(ncpu, sizeof(struct kp_blk_stats));
	if (!buf)
		return -ENOMEM;
	for (i = 0, err = 0; i < b->n && !err; i++)
		err = collect_func(b, i, df, buf, ncpu, &total);
	free(buf);
	err = err ?: put_values(b, df);
	err = err ?: put_contexts(b, df, st, ks);
	err = err ?: recording_put_counter(df, "lost_blocks_values", total.lost_map);
	err = err ?: recording_put_counter(df, "lost_blocks_unmatched", total.unmatched);
	err = err ?: recording_put_counter(df, "lost_blocks_side_entries", total.side);
	err = err ?: recording_put_counter(df, "lost_blocks_bounds", total.bound_lost);
	if (!b->missed_err)
		err = err ?: recording_put_counter(df, "lost_blocks_missed", b->missed);
	return err
		       ?: recording_put_counter(df, "lost_blocks_recursion",
						links_recursion_misses(b->obj->obj));
}

/* This run's share: now less what the last run's end had, which now becomes that. */
static int run_delta(struct bfunc *f, struct tally *t)
{
	__u64 *st = (__u64 *)&t->st, *raw = malloc(f->g->nb * sizeof(*raw));
	size_t k;

	if (!raw)
		return -ENOMEM;
	memcpy(raw, t->counts, f->g->nb * sizeof(*raw));
	for (k = 0; f->prev && k < f->g->nb; k++)
		t->counts[k] -= f->prev[k];
	free(f->prev);
	f->prev = raw;
	for (k = 0; k < 3; k++) {
		__u64 now = st[k];

		st[k] -= f->prev_calls[k];
		f->prev_calls[k] = now;
	}
	return 0;
}

static int put_run(struct bfunc *f, struct datafile *df, unsigned int run, const struct tally *t)
{
	size_t k;
	int err = 0;

	for (k = 0; k < f->g->nb && !err; k++)
		err = blocks_tables_put_run_block(df, f->name, run, k, known_or(t, k));
	for (k = 0; k < f->g->ne && !err; k++)
		err = blocks_tables_put_run_edge(df, f->name, run, k, edge_or(t, k));
	return err
		       ?: blocks_tables_put_run_calls(df, f->name, run, t->st.calls, t->st.complete,
						      lost_calls(&t->st));
}

/* The run's counts of f, kept for blocks_last_run() from *at on. */
static int keep_last(struct blocks *b, const struct bfunc *f, const struct tally *t, size_t *at)
{
	size_t k;
	int err = array_reserve((void **)&b->last, &b->last_cap, *at + f->g->nb, sizeof(*b->last));

	for (k = 0; k < f->g->nb && !err; k++)
		b->last[(*at)++] = t->known[k] ? t->counts[k] : 0;
	b->last_complete += t->st.complete;
	return err;
}

int blocks_put_run(struct blocks *b, struct datafile *df, unsigned int run)
{
	int ncpu = libbpf_num_possible_cpus(), err = 0;
	size_t i, at = 0;
	struct tally t;
	__u64 *buf;

	if (!b)
		return 0;
	if (ncpu < 0)
		return ncpu;
	buf = calloc(ncpu, sizeof(struct kp_blk_stats));
	if (!buf)
		return -ENOMEM;
	b->last_complete = 0;
	for (i = 0; i < b->n && !err; i++) {
		t = (struct tally){};
		err = tally_read(b, i, &t, buf, ncpu) ?: run_delta(&b->f[i], &t);
		if (!err) {
			tally_solve(&b->f[i], &t);
			err = put_run(&b->f[i], df, run, &t) ?: keep_last(b, &b->f[i], &t, &at);
		}
		tally_free(&t);
	}
	free(buf);
	return err;
}

const __u64 *blocks_last_run(const struct blocks *b, size_t *n, __u64 *complete)
{
	size_t i;

	for (*n = 0, i = 0; b && b->last && i < b->n; i++)
		*n += b->f[i].g->nb;
	*complete = b ? b->last_complete : 0;
	return b ? b->last : NULL;
}

int blocks_max_trips(const struct blocks *b, __u64 **out, size_t *n)
{
	struct kp_blk_value *k;
	size_t i, nk, *first;
	__u64 *v;
	int err;

	*out = NULL;
	*n = 0;
	if (!b)
		return 0;
	first = calloc(b->n + 1, sizeof(*first));
	if (!first)
		return -ENOMEM;
	for (i = 0; i < b->n; i++)
		first[i + 1] = first[i] + (b->f[i].g->nloops < KP_BLK_LOOPS ? b->f[i].g->nloops
									    : KP_BLK_LOOPS);
	*n = first[b->n];
	*out = calloc(*n + 1, sizeof(**out));
	err = *out ? collect_dump(bpf_map__fd(b->obj->maps.bvalues), sizeof(*k), sizeof(*v),
				  (void **)&k, (void **)&v, &nk)
		   : -ENOMEM;
	for (i = 0; !err && i < nk; i++) {
		size_t at;

		if (k[i].func >= b->n || k[i].what != KP_BLK_TRIPS || !v[i])
			continue;
		at = first[k[i].func] + k[i].loop;
		if (at < first[k[i].func + 1] && k[i].value > (*out)[at])
			(*out)[at] = k[i].value;
	}
	if (!err) {
		free(k);
		free(v);
	}
	free(first);
	return err;
}

int blocks_calls(const struct blocks *b, struct kp_blk_ctx_key **keys, __u64 **counts, size_t *n)
{
	*keys = NULL;
	*counts = NULL;
	*n = 0;
	return b ? collect_dump(bpf_map__fd(b->obj->maps.bctx), sizeof(**keys), sizeof(**counts),
				(void **)keys, (void **)counts, n)
		 : 0;
}

int blocks_values(const struct blocks *b, struct kp_blk_value **keys, __u64 **counts, size_t *n)
{
	*keys = NULL;
	*counts = NULL;
	*n = 0;
	return b ? collect_dump(bpf_map__fd(b->obj->maps.bvalues), sizeof(**keys), sizeof(**counts),
				(void **)keys, (void **)counts, n)
		 : 0;
}
