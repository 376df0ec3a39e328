// SPDX-License-Identifier: GPL-2.0-only
/* The string helpers' accesses split by the calls that reached them (model_data_calls.h). */
#include "model/model_data_calls.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "data/model.h"
#include "util/array.h"

/* A helper's accesses for one call (model_sites), or for one allocator's call (alloc != 0). */
struct mcall {
	__u64 pc, site, alloc, rw[2]; /* rw: reads, writes */
};

/* One table's rows, by pc, site, alloc. */
struct mcall_list {
	struct mcall *v;
	size_t n, cap;
};

struct mcalls {
	struct mcall_list sites, allocs;
	char shown[192], why[320]; /* a slice's, until fn returns */
};

static int add(struct mcall_list *l, __u64 pc, __u64 site, __u64 alloc, __u64 reads, __u64 writes)
{
	if (array_reserve((void **)&l->v, &l->cap, l->n + 1, sizeof(*l->v)))
		return -ENOMEM;
	l->v[l->n++] = (struct mcall){pc, site, alloc, {reads, writes}};
	return 0;
}

static int site_load(__u64 pc, __u64 site, __u64 reads, __u64 writes, void *ctx)
{
	return add(ctx, pc, site, 0, reads, writes);
}

static int alloc_load(__u64 pc, __u64 site, __u64 alloc, __u64 reads, __u64 writes, void *ctx)
{
	return add(ctx, pc, site, alloc, reads, writes);
}

static int by_call(const void *x, const void *y)
{
	const struct mcall *a = x, *b = y;

	return (a->pc > b->pc) - (a->pc < b->pc) ?: (a->site > b->site) - (a->site < b->site)
		?: (a->alloc > b->alloc) - (a->alloc < b->alloc);
}

int mcalls_load(struct mcalls **out, struct datafile *df)
{
	struct mcalls *m = calloc(1, sizeof(*m));
	int err;

	*out = NULL;
	if (!m)
		return -ENOMEM;
	err = model_sites_each(df, site_load, &m->sites)
		      ?: model_alloc_sites_each(df, alloc_load, &m->allocs);
	if (err || !m->sites.n) {
		mcalls_free(m);
		return err;
	}
	/* SQL's order is the integers' as signed: kernel addresses sort after 0 otherwise */
	qsort(m->sites.v, m->sites.n, sizeof(*m->sites.v), by_call);
	if (m->allocs.n)
		qsort(m->allocs.v, m->allocs.n, sizeof(*m->allocs.v), by_call);
	*out = m;
	return 0;
}

void mcalls_free(struct mcalls *m)
{
	if (!m)
		return;
	free(m->sites.v);
	free(m->allocs.v);
	free(m);
}

/* The rows of l for pc (site 0: any site): their number, the first at *first. */
static size_t rows_of(const struct mcall_list *l, __u64 pc, __u64 site, size_t *first)
{
	size_t lo = 0, hi = l->n, n;

	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;

		if (l->v[mid].pc < pc || (site && l->v[mid].pc == pc && l->v[mid].site < site))
			lo = mid + 1;
		else
			hi = mid;
	}
	for (n = 0; lo + n < l->n && l->v[lo + n].pc == pc && (!site || l->v[lo + n].site == site);
	     n++)
		;
	*first = lo;
	return n;
}

/* What clear_page_* and copy_page write is one whole page: its contents, whatever they hold. */
static bool page_helper(const char *helper)
{
	return !strncmp(helper, "clear_page", 10) || !strcmp(helper, "copy_page");
}

/* s to fn: untyped, its reason in full (how: "called from", "allocated at") */
static int emit(struct mcalls *m, struct mcall_slice *s, const char *how, mcall_slice_fn fn,
		void *ctx)
{
	if (s->a.how == DT_UNTYPED || !s->a.type) {
		snprintf(m->why, sizeof(m->why), "%s %s+0x%llx: %s", how,
			 *s->caller ? s->caller : "?", (unsigned long long)s->caller_off,
			 s->a.why ?: "untyped");
		s->a = (struct dtype_access){.how = DT_UNTYPED, .why = m->why};
	} else {
		s->shown = m->shown;
	}
	return fn(s, ctx);
}

/*
 * n accesses of the helper for the call at site, through the caller's %rdi
 * (write: the destination) or %rsi (the source) at the call.  A page
 * helper's buffer the caller's flow does not type is a page's contents.
 */
static int helper_slice(struct mcalls *m, struct dtype_file *kdt, __u64 slide, const char *helper,
			__u64 site, bool write, __u64 n, mcall_slice_fn fn, void *ctx)
{
	struct mcall_slice s = {.site = site, .write = write, .n = n};
	const char *page;
	int err;

	if (!n)
		return 0;
	err = dtype_resolve_reg(kdt, site - slide, write ? 5 : 4, &s.a, &s.caller, &s.caller_off);
	if (err)
		return err;
	snprintf(m->shown, sizeof(m->shown), "%s", s.a.type ?: "");
	if ((s.a.how == DT_UNTYPED || !s.a.type) && page_helper(helper)) {
		s.a = (struct dtype_access){.how = DT_FLOW, .type = "(page data)", .member = ""};
		page = dtype_page_var(kdt, site - slide);
		snprintf(m->shown, sizeof(m->shown), "(page data)%s%s", page ? " of " : "",
			 page ?: "");
	}
	return emit(m, &s, "called from", fn, ctx);
}

/* The writes of a helper a slab allocator called for the allocator's call c->alloc: its objects. */
static int alloc_slice(struct mcalls *m, struct dtype_file *kdt, __u64 slide, const struct mcall *c,
		       mcall_slice_fn fn, void *ctx)
{
	struct mcall_slice s = {.site = c->alloc, .write = true, .n = c->rw[1]};
	const char *cache;
	int err;

	if (!s.n)
		return 0;
	err = dtype_slab_object(kdt, c->alloc - slide, &s.a, &cache, &s.caller, &s.caller_off);
	if (err)
		return err;
	snprintf(m->shown, sizeof(m->shown), "%s%s%s%s", s.a.type ?: "", *cache ? " (cache " : "",
		 cache, *cache ? ")" : "");
	return emit(m, &s, "allocated at", fn, ctx);
}

/* The slices of the call c: its allocators' writes, the rest of its writes, its reads. */
static int call_split(struct mcalls *m, struct dtype_file *kdt, __u64 slide, const char *helper,
		      const struct mcall *c, mcall_slice_fn fn, void *ctx)
{
	size_t i, first, n = rows_of(&m->allocs, c->pc, c->site, &first);
	__u64 allocated = 0;
	int err = 0;

	for (i = first; i < first + n; i++)
		allocated += m->allocs.v[i].rw[1];
	if (allocated > c->rw[1])
		n = allocated = 0; /* a file made so: the call's writes stay whole */
	for (i = first; i < first + n && !err; i++)
		err = alloc_slice(m, kdt, slide, &m->allocs.v[i], fn, ctx);
	return err ?: helper_slice(m, kdt, slide, helper, c->site, true, c->rw[1] - allocated, fn,
				   ctx)
		?: helper_slice(m, kdt, slide, helper, c->site, false, c->rw[0], fn, ctx);
}

int mcalls_split(struct mcalls *m, struct dtype_file *kdt, __u64 slide, const char *helper,
		 __u64 pc, const __u64 all[2], mcall_slice_fn fn, void *ctx, __u64 taken[2])
{
	size_t i, first, n = rows_of(&m->sites, pc, 0, &first);
	__u64 sum[2] = {0, 0};
	int err = 0;

	taken[0] = taken[1] = 0;
	for (i = first; i < first + n; i++) {
		sum[0] += m->sites.v[i].site ? m->sites.v[i].rw[0] : 0;
		sum[1] += m->sites.v[i].site ? m->sites.v[i].rw[1] : 0;
	}
	/* what no known call holds (site 0, the misses) stays in the PC's */
	if (!(sum[0] | sum[1]) || sum[0] > all[0] || sum[1] > all[1])
		return 0;
	for (i = first; i < first + n && !err; i++)
		if (m->sites.v[i].site)
			err = call_split(m, kdt, slide, helper, &m->sites.v[i], fn, ctx);
	taken[0] = sum[0];
	taken[1] = sum[1];
	return err;
}
