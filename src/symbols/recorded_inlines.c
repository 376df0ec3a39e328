// SPDX-License-Identifier: GPL-2.0-only
/*
 * The inline instances of a recording (recorded_inlines.h).  An instance's
 * samples are those with an address inside its ranges: at the leaf (self) or
 * anywhere on the stack (total, which adds the functions it called).  For an
 * instance with a DIE the frames table says which stacks those are; for one
 * without (no DWARF, or none that matches what was recorded) that test is
 * made on the recorded ranges.
 */
#include "symbols/recorded_inlines.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "data/datafile.h"
#include "data/inline_tables.h"
#include "data/latency.h"
#include "symbols/inlines.h"
#include "symbols/kernel_dwarf.h"
#include "symbols/symbolize.h"
#include "util/array.h"
#include "util/hist.h"

static struct recorded_inline *new_inst(struct recorded_inlines *s)
{
	struct recorded_inline *v = reallocarray(s->v, s->n + 1, sizeof(*v));

	if (!v)
		return NULL;
	s->v = v;
	v = &s->v[s->n++];
	memset(v, 0, sizeof(*v));
	v->id = -1;
	v->est_ns = -1;
	return v;
}

static struct recorded_inline *by_die(struct recorded_inlines *s, __u64 die)
{
	size_t i;

	for (i = 0; i < s->n; i++)
		if (s->v[i].die == die)
			return &s->v[i];
	return NULL;
}

/*
 * A new instance as the DWARF describes it, its ranges moved to where the
 * kernel ran, and its DIE in inline_dies for its stacks to be found by.
 */
static int from_dwarf(struct recorded_inlines *s, __u64 die, __u64 func_die,
		      struct recorded_inline **out)
{
	struct inline_instance ii;
	struct recorded_inline *v;
	size_t i;
	int err;

	err = inlines_at(kernel_dwarf_debuginfo(s->kd), die, func_die, &ii);
	if (err)
		return err;
	v = new_inst(s);
	if (v)
		v->r = calloc(ii.nranges ? ii.nranges : 1, sizeof(*v->r));
	if (!v || !v->r) {
		inlines_free_one(&ii);
		return -ENOMEM;
	}
	snprintf(v->func, sizeof(v->func), "%s", ii.func);
	snprintf(v->parent, sizeof(v->parent), "%s", ii.parent);
	snprintf(v->site, sizeof(v->site), "%s:%d", ii.call_file ?: "?", ii.call_line);
	for (i = 0; i < ii.nranges; i++)
		v->r[i] = (struct inline_range){kernel_dwarf_runtime(s->kd, ii.ranges[i].lo),
						kernel_dwarf_runtime(s->kd, ii.ranges[i].hi)};
	v->nr = ii.nranges;
	v->bytes = ii.bytes;
	v->die = die;
	inlines_free_one(&ii);
	*out = v;
	return inline_tables_add_die(s->df, die, v - s->v);
}

static int sampled_die(__u64 die, __u64 func_die, void *ctx)
{
	struct recorded_inline *v;
	int err = from_dwarf(ctx, die, func_die, &v);

	/* a DIE the DWARF cannot take back is no instance to show */
	return err == -ENOMEM ? err : 0;
}

struct range_walk {
	struct recorded_inlines *s;
	struct recorded_inline *v;
	size_t cap;
};

/* A recorded range of v's, also into inline_ranges. */
static int add_range(__u64 lo, __u64 hi, void *ctx)
{
	struct range_walk *w = ctx;
	struct recorded_inline *v = w->v;

	if (array_reserve((void **)&v->r, &w->cap, v->nr + 1, sizeof(*v->r)))
		return -ENOMEM;
	v->r[v->nr++] = (struct inline_range){lo, hi};
	return inline_tables_add_range(w->s->df, v - w->s->v, lo, hi);
}

/* With DWARF, the instance at the recorded one's entry: by its DIE, NULL when none is. */
static int dwarf_match(struct recorded_inlines *s, const char *name, __u64 entry,
		       struct recorded_inline **out)
{
	const struct sym_result *r;
	const struct sym_frame *fn;
	unsigned int i;
	int err;

	*out = NULL;
	err = kernel_dwarf_symbolize(s->kd, entry, &r);
	if (err || !r->n)
		return err;
	fn = &r->frames[r->n - 1];
	for (i = 0; i < r->n; i++) {
		if (!r->frames[i].inlined || !r->frames[i].func || strcmp(r->frames[i].func, name))
			continue;
		*out = by_die(s, r->frames[i].die);
		if (*out)
			return 0;
		err = from_dwarf(s, r->frames[i].die, fn->inlined ? 0 : fn->die, out);
		/* what the DWARF cannot take back is shown as recorded */
		return err == -ENOMEM ? err : 0;
	}
	return 0;
}

/* The instance a recorded one is: from the DWARF when it can tell, else as recorded. */
static int match_probed(struct recorded_inlines *s, const struct inline_tables_probed *p,
			struct recorded_inline **out)
{
	struct recorded_inline *v;
	int err;

	err = s->kd ? dwarf_match(s, p->name, p->entry, out) : 0;
	if (err || (s->kd && *out))
		return err;
	v = new_inst(s);
	if (!v)
		return -ENOMEM;
	snprintf(v->func, sizeof(v->func), "%s", p->name);
	snprintf(v->parent, sizeof(v->parent), "%s", p->parent);
	snprintf(v->site, sizeof(v->site), "%s:%d", p->call_file ?: "?", p->call_line);
	v->bytes = p->bytes;
	*out = v;
	return inline_tables_ranges(s->df, p->func, p->ranges ?: "", add_range,
				    &(struct range_walk){s, v, 0});
}

static int probed(const struct inline_tables_probed *p, void *ctx)
{
	struct recorded_inlines *s = ctx;
	__u64 hist[KP_HIST_BUCKETS];
	struct recorded_inline *v;
	int err = match_probed(s, p, &v);

	if (err)
		return err;
	v->id = p->func;
	snprintf(v->method, sizeof(v->method), "%s", p->method);
	v->calls = p->done;
	v->avg = v->calls ? p->total_ns / v->calls : 0;
	err = latency_hist(s->df, "func", v->id, "total", hist);
	v->p99 = hist_quantile(hist, 0.99, p->max_ns);
	return err;
}

static int count(long long inst, long long self, long long total, void *ctx)
{
	struct recorded_inlines *s = ctx;

	s->v[inst].self = self;
	s->v[inst].total = total;
	return 0;
}

int recorded_inlines_load(struct recorded_inlines *s, struct datafile *df, struct kernel_dwarf *kd)
{
	int err;

	*s = (struct recorded_inlines){.df = df, .kd = kd};
	err = inline_tables_create(df);
	err = err ?: (kd ? inline_tables_sampled_dies(df, sampled_die, s) : 0);
	err = err ?: inline_tables_probed(df, probed, s);
	err = err ?: inline_tables_fill_stacks(df);
	return err ?: inline_tables_counts(df, count, s);
}

void recorded_inlines_free(struct recorded_inlines *s)
{
	size_t i;

	for (i = 0; i < s->n; i++)
		free(s->v[i].r);
	free(s->v);
	s->v = NULL;
	s->n = 0;
}
