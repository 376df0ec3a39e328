// SPDX-License-Identifier: GPL-2.0-only
/*
 * kprotperf explore's search (search.h): seeds first, then mutants of the
 * kept scenarios and the seeds, each run's feedback weighed against the
 * most any run made of each location.  Nothing here reads the clock or the
 * kernel: the driver hands in what a run did.
 */
#include "explore/search.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "util/array.h"

/* a time per call this much above the best is a new maximum, not noise */
#define TIME_MARGIN 1.10

struct search {
	const struct scn_templates *t;
	struct scn_rng rng;
	struct scenario *seeds;
	size_t nseeds, next_seed;
	struct scenario cur;
	struct search_entry *e;
	size_t ne, e_cap;
	bool *seen;  /* blocks reached by some run */
	__u64 *most; /* each block's most executions in one run */
	size_t nblocks, blocks_cap, most_cap;
	__u64 *trips; /* each loop's most trips in one call */
	size_t nloops, trips_cap;
	double best_ns;
	struct search_context *c;
	size_t nc, c_cap;
	unsigned int runs, reached, ends[SEARCH_CRASHED + 1];
};

int search_new(struct search **out, const struct scn_templates *t, __u64 seed)
{
	struct search *s = calloc(1, sizeof(*s));
	int err;

	if (!s)
		return -ENOMEM;
	s->t = t;
	s->best_ns = -1;
	scn_rng_seed(&s->rng, seed);
	err = scn_seeds(t, &s->seeds, &s->nseeds);
	if (err) {
		free(s);
		return err;
	}
	*out = s;
	return 0;
}

void search_free(struct search *s)
{
	if (!s)
		return;
	free(s->seeds);
	free(s->e);
	free(s->seen);
	free(s->most);
	free(s->trips);
	free(s->c);
	free(s);
}

/* A parent to mutate: any kept scenario that ran to its end, or a seed. */
static const struct scenario *pick(struct search *s)
{
	size_t n = 0, i, k;

	for (i = 0; i < s->ne; i++)
		n += !s->e[i].finding;
	k = scn_rng_next(&s->rng) % (n + s->nseeds);
	if (k >= n)
		return &s->seeds[k - n];
	for (i = 0; i < s->ne; i++) {
		if (!s->e[i].finding && !k--)
			return &s->e[i].s;
	}
	return &s->seeds[0];
}

const struct scenario *search_next(struct search *s)
{
	const struct scenario *parent, *other;

	if (s->next_seed < s->nseeds) {
		s->cur = s->seeds[s->next_seed++];
		return &s->cur;
	}
	parent = pick(s);
	other = pick(s);
	scn_mutate(s->t, parent, other, &s->rng, &s->cur);
	return &s->cur;
}

/* Append to the kept scenario's reasons. */
static void because(char *why, size_t len, const char *fmt, unsigned long long n)
{
	size_t at = strlen(why);

	if (at < len)
		snprintf(why + at, len - at, fmt, at ? ", " : "", n);
}

/* New blocks and new most executions of a block: counted into why. */
static int weigh_blocks(struct search *s, const struct search_feedback *fb, char *why, size_t len)
{
	unsigned long long fresh = 0, more = 0;
	size_t k;

	if (array_reserve((void **)&s->seen, &s->blocks_cap, fb->nblocks, sizeof(*s->seen)) ||
	    array_reserve((void **)&s->most, &s->most_cap, fb->nblocks, sizeof(*s->most)))
		return -ENOMEM;
	for (k = s->nblocks; k < fb->nblocks; k++) {
		s->seen[k] = false;
		s->most[k] = 0;
	}
	s->nblocks = fb->nblocks > s->nblocks ? fb->nblocks : s->nblocks;
	for (k = 0; k < fb->nblocks; k++) {
		if (!fb->blocks[k])
			continue;
		fresh += !s->seen[k];
		more += s->seen[k] && fb->blocks[k] > s->most[k];
		s->seen[k] = true;
		if (fb->blocks[k] > s->most[k])
			s->most[k] = fb->blocks[k];
	}
	if (fresh)
		because(why, len, "%snew blocks %llu", fresh);
	if (more)
		because(why, len, "%smore executions of %llu blocks", more);
	return 0;
}

/* A loop's new most trips in one call. */
static int weigh_trips(struct search *s, const struct search_feedback *fb, char *why, size_t len)
{
	unsigned long long most = 0;
	size_t l;

	if (array_reserve((void **)&s->trips, &s->trips_cap, fb->nloops, sizeof(*s->trips)))
		return -ENOMEM;
	for (l = s->nloops; l < fb->nloops; l++)
		s->trips[l] = 0;
	s->nloops = fb->nloops > s->nloops ? fb->nloops : s->nloops;
	for (l = 0; l < fb->nloops; l++) {
		if (fb->trips[l] <= s->trips[l])
			continue;
		s->trips[l] = fb->trips[l];
		most = most > fb->trips[l] ? most : fb->trips[l];
	}
	if (most)
		because(why, len, "%smore trips in a call (%llu)", most);
	return 0;
}

static void weigh_time(struct search *s, const struct search_feedback *fb, char *why, size_t len)
{
	if (!fb->calls || fb->ns_per_call < 0 || fb->ns_per_call <= s->best_ns * TIME_MARGIN)
		return;
	if (s->best_ns >= 0)
		because(why, len, "%smore time per call (%llu ns)",
			(unsigned long long)fb->ns_per_call);
	s->best_ns = fb->ns_per_call;
}

static struct search_context *context_of(struct search *s, const struct run_context *c)
{
	size_t i;

	for (i = 0; i < s->nc; i++) {
		if (s->c[i].nr == c->nr && !strcmp(s->c[i].ctx, c->ctx))
			return &s->c[i];
	}
	return NULL;
}

/*
 * New contexts, contexts whose calls cost more instructions than any run's
 * before, and contexts a run called the target in more often (whether a
 * cache needs a new slab in a run depends on what ran before it: the
 * scenario that makes the most of them shows the context again when run
 * again): each then names the entry this run is about to make, id.
 */
static int weigh_contexts(struct search *s, const struct search_feedback *fb, unsigned int id,
			  char *why, size_t len)
{
	unsigned long long fresh = 0, costlier = 0, more = 0;
	struct search_context *c;
	double insns;
	size_t i;

	for (i = 0; i < fb->nctx; i++) {
		const struct run_context *r = &fb->ctx[i];

		if (!r->calls)
			continue;
		insns = (double)r->insns / r->calls;
		c = context_of(s, r);
		if (!c) {
			if (array_reserve((void **)&s->c, &s->c_cap, s->nc + 1, sizeof(*s->c)))
				return -ENOMEM;
			c = &s->c[s->nc++];
			*c = (struct search_context){.nr = r->nr};
			snprintf(c->ctx, sizeof(c->ctx), "%s", r->ctx);
			fresh++;
		} else if (insns > c->insns) {
			costlier++;
		} else if (insns == c->insns && r->calls > c->calls) {
			more++;
		} else {
			c->runs++;
			continue;
		}
		c->runs++;
		c->id = id;
		c->calls = r->calls;
		c->insns = insns;
		c->ns_per_call = fb->ns_per_call;
		c->trips = r->trips;
	}
	if (fresh)
		because(why, len, "%snew contexts %llu", fresh);
	if (costlier)
		because(why, len, "%scostlier calls in %llu contexts", costlier);
	if (more)
		because(why, len, "%smore calls in %llu contexts", more);
	return 0;
}

static int keep(struct search *s, const struct scenario *ran, const struct search_feedback *fb,
		const char *why, const struct search_entry **kept)
{
	struct search_entry *e;

	if (array_reserve((void **)&s->e, &s->e_cap, s->ne + 1, sizeof(*s->e)))
		return -ENOMEM;
	e = &s->e[s->ne++];
	*e = (struct search_entry){.id = s->ne,
				   .run = s->runs - 1,
				   .s = *ran,
				   .finding = fb->end != SEARCH_EXITED,
				   .end = fb->end};
	snprintf(e->why, sizeof(e->why), "%s", why);
	*kept = e;
	return 0;
}

int search_feedback(struct search *s, const struct scenario *ran, const struct search_feedback *fb,
		    const struct search_entry **kept)
{
	char why[sizeof(s->e->why)] = "";
	int err;

	*kept = NULL;
	s->runs++;
	s->reached += fb->calls > 0;
	s->ends[fb->end]++;
	/* a hang or a crash is a finding of its own, never a parent */
	if (fb->end != SEARCH_EXITED)
		return keep(s, ran, fb,
			    fb->end == SEARCH_HUNG ? "hung: killed when its time was up"
						   : "crashed: killed by a signal",
			    kept);
	err = weigh_blocks(s, fb, why, sizeof(why)) ?: weigh_trips(s, fb, why, sizeof(why));
	err = err ?: weigh_contexts(s, fb, s->ne + 1, why, sizeof(why));
	if (err)
		return err;
	weigh_time(s, fb, why, sizeof(why));
	return *why ? keep(s, ran, fb, why, kept) : 0;
}

unsigned int search_runs(const struct search *s)
{
	return s->runs;
}

unsigned int search_reached(const struct search *s)
{
	return s->reached;
}

unsigned int search_count(const struct search *s, enum search_end end)
{
	return s->ends[end];
}

double search_best_ns(const struct search *s)
{
	return s->best_ns;
}

const struct search_entry *search_entries(const struct search *s, size_t *n)
{
	*n = s->ne;
	return s->e;
}

static int cmp_context(const void *a, const void *b)
{
	const struct search_context *x = a, *y = b;

	if (x->insns != y->insns)
		return x->insns < y->insns ? 1 : -1;
	return x->nr != y->nr ? (x->nr > y->nr) - (x->nr < y->nr) : strcmp(x->ctx, y->ctx);
}

const struct search_context *search_contexts(struct search *s, size_t *n)
{
	if (s->nc)
		qsort(s->c, s->nc, sizeof(*s->c), cmp_context);
	*n = s->nc;
	return s->c;
}
