// SPDX-License-Identifier: GPL-2.0-only
/*
 * What one run added to the --func and --blocks measures (measures.h): the
 * maps count from the recording's start, so each take keeps what it read to
 * subtract it from the next.
 */
#include "record/measures.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <linux/types.h>

#include "blocks_layout.h"
#include "record/blocks.h"
#include "record/collect.h"
#include "record/funcs.h"
#include "util/array.h"

/*
 * A hash map's keys and counts as last read (rows of a key and a __u64
 * count, sorted by key): what each key gained since is the run's.
 */
struct snap {
	unsigned char *rows;
	size_t n, ksz;
};

struct measures {
	__u64 func_done, func_ns;
	struct snap calls, values; /* bctx and bvalues */
	struct run_context *ctx;
	size_t nctx, ctx_cap;
	__u64 *trips;
};

int measures_new(struct measures **out)
{
	*out = calloc(1, sizeof(**out));
	if (!*out)
		return -ENOMEM;
	(*out)->calls.ksz = sizeof(struct kp_blk_ctx_key);
	(*out)->values.ksz = sizeof(struct kp_blk_value);
	return 0;
}

void measures_free(struct measures *m)
{
	if (!m)
		return;
	free(m->calls.rows);
	free(m->values.rows);
	free(m->ctx);
	free(m->trips);
	free(m);
}

static int cmp_row(const void *a, const void *b, void *ksz)
{
	return memcmp(a, b, *(size_t *)ksz);
}

static __u64 row_count(const struct snap *p, const unsigned char *row)
{
	__u64 n;

	memcpy(&n, row + p->ksz, sizeof(n));
	return n;
}

/* The count key had when p was taken: 0 for a key p has not. */
static __u64 count_was(const struct snap *p, const unsigned char *key)
{
	size_t row = p->ksz + sizeof(__u64), lo = 0, hi = p->n, mid;
	int c;

	while (lo < hi) {
		mid = lo + (hi - lo) / 2;
		c = memcmp(key, p->rows + mid * row, p->ksz);
		if (!c)
			return row_count(p, p->rows + mid * row);
		if (c < 0)
			hi = mid;
		else
			lo = mid + 1;
	}
	return 0;
}

typedef int (*gained_fn)(struct measures *m, const void *key, __u64 n);

/* The map's keys and counts now: gained() for what each key gained since p was taken. */
static int snap_take(struct measures *m, struct snap *p, const void *keys, const __u64 *counts,
		     size_t n, gained_fn gained)
{
	size_t row = p->ksz + sizeof(__u64), i;
	unsigned char *cur = malloc(n * row + 1);
	__u64 now, before;
	int err = 0;

	if (!cur)
		return -ENOMEM;
	for (i = 0; i < n; i++) {
		memcpy(cur + i * row, (const unsigned char *)keys + i * p->ksz, p->ksz);
		memcpy(cur + i * row + p->ksz, &counts[i], sizeof(__u64));
	}
	qsort_r(cur, n, row, cmp_row, &p->ksz);
	for (i = 0; i < n && !err; i++) {
		/* keys are never deleted and counts only grow */
		now = row_count(p, cur + i * row);
		before = count_was(p, cur + i * row);
		if (now > before)
			err = gained(m, cur + i * row, now - before);
	}
	free(p->rows);
	p->rows = cur;
	p->n = n;
	return err;
}

/* Calls of a context, by its key (instructions per call included), into the run's contexts. */
static int gained_calls(struct measures *m, const void *key, __u64 n)
{
	const struct kp_blk_ctx_key *k = key;
	int nr = k->nr == KP_BLK_NO_SYSCALL ? -1 : (int)k->nr;
	struct run_context *c;
	size_t i;

	for (i = 0; i < m->nctx; i++) {
		c = &m->ctx[i];
		if (c->nr == nr && !strncmp(c->ctx, k->ctx, KP_CTX_LEN))
			break;
	}
	if (i == m->nctx) {
		if (array_reserve((void **)&m->ctx, &m->ctx_cap, m->nctx + 1, sizeof(*m->ctx)))
			return -ENOMEM;
		c = &m->ctx[m->nctx++];
		*c = (struct run_context){.nr = nr};
		memcpy(c->ctx, k->ctx, KP_CTX_LEN);
	}
	m->ctx[i].calls += n;
	m->ctx[i].insns += n * k->insns;
	return 0;
}

/* Calls with a loop's trips: the most in a call of the run, per slab cache (of any syscall). */
static int gained_trips(struct measures *m, const void *key, __u64 n)
{
	const struct kp_blk_value *k = key;
	size_t i;

	if (k->what != KP_BLK_TRIPS)
		return 0;
	for (i = 0; i < m->nctx; i++) {
		if (!strncmp(m->ctx[i].ctx, k->ctx, KP_CTX_LEN) && k->value > m->ctx[i].trips)
			m->ctx[i].trips = k->value;
	}
	return 0;
}

/* The run's contexts, from what bctx and bvalues gained since the last take. */
static int contexts(struct measures *m, struct blocks *b)
{
	void *k = NULL, *vk = NULL;
	__u64 *v = NULL, *vv = NULL;
	size_t n = 0, vn = 0;
	int err = blocks_calls(b, (struct kp_blk_ctx_key **)&k, &v, &n);

	m->nctx = 0;
	err = err ?: snap_take(m, &m->calls, k, v, n, gained_calls);
	err = err ?: blocks_values(b, (struct kp_blk_value **)&vk, &vv, &vn);
	err = err ?: snap_take(m, &m->values, vk, vv, vn, gained_trips);
	free(vk);
	free(vv);
	free(k);
	free(v);
	return err;
}

int measures_take(struct measures *m, const struct funcs *f, struct blocks *b,
		  struct run_measures *out)
{
	__u64 done = 0, ns = 0;
	int fd = funcs_lat_fd(f), err = 0;

	*out = (struct run_measures){0};
	if (fd >= 0)
		err = collect_lat_total(fd, funcs_count(f), &done, &ns);
	out->func_calls = done - m->func_done;
	out->func_ns = ns - m->func_ns;
	m->func_done = done;
	m->func_ns = ns;
	err = err ?: contexts(m, b);
	free(m->trips);
	m->trips = NULL;
	err = err ?: blocks_max_trips(b, &m->trips, &out->nloops);
	if (err)
		return err;
	out->blocks = blocks_last_run(b, &out->nblocks, &out->calls);
	out->ctx = m->ctx;
	out->nctx = m->nctx;
	out->trips = m->trips;
	return 0;
}
