// SPDX-License-Identifier: GPL-2.0-only
/*
 * Making scenarios: the seeded generator, the first corpus and mutants.
 * Everything here follows from the generator's seed and the inputs alone
 * (no time, pid or address), so that a search can be run again.
 */
#include "explore/scenario.h"

#include <errno.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

/* splitmix64 (Vigna), which xoroshiro's authors advise for seeding it. */
static __u64 splitmix64(__u64 *x)
{
	__u64 z = (*x += 0x9e3779b97f4a7c15ULL);

	z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
	z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
	return z ^ (z >> 31);
}

/* Never both words 0: splitmix64's last step is a bijection, so two outputs in a row differ. */
void scn_rng_seed(struct scn_rng *r, __u64 seed)
{
	r->s[0] = splitmix64(&seed);
	r->s[1] = splitmix64(&seed);
}

static __u64 rotl(__u64 x, int k)
{
	return (x << k) | (x >> (64 - k));
}

/* xoroshiro128+ 1.0 (Blackman and Vigna, 2018: a = 24, b = 16, c = 37). */
__u64 scn_rng_next(struct scn_rng *r)
{
	__u64 s0 = r->s[0], s1 = r->s[1], out = s0 + s1;

	s1 ^= s0;
	r->s[0] = rotl(s0, 24) ^ s1 ^ (s1 << 16);
	r->s[1] = rotl(s1, 37);
	return out;
}

/* A number below n (n >= 1), from the high bits: xoroshiro128+'s low bits are its weak ones. */
static __u64 below(struct scn_rng *r, __u64 n)
{
	return (unsigned __int128)scn_rng_next(r) * n >> 64;
}

static void default_step(const struct scn_templates *t, size_t tpl, struct scn_step *st)
{
	size_t k;

	memset(st, 0, sizeof(*st));
	st->tpl = tpl;
	for (k = 0; k < scn_template_nparams(t, tpl); k++)
		st->v[k] = scn_template_param(t, tpl, k)->def;
}

int scn_seeds(const struct scn_templates *t, struct scenario **out, size_t *n)
{
	size_t i, n_tpl = scn_templates_count(t);
	struct scenario *v = calloc(n_tpl, sizeof(*v));

	if (!v)
		return -ENOMEM;
	for (i = 0; i < n_tpl; i++) {
		v[i].n = 1;
		default_step(t, i, &v[i].step[0]);
	}
	*out = v;
	*n = n_tpl;
	return 0;
}

static long long clamp(long long v, const struct scn_param *p)
{
	return v < p->min ? p->min : v > p->max ? p->max : v;
}

/* The next value up or down: by one, or for a pow2 parameter to the next power of two. */
static long long neighbour(const struct scn_param *p, long long v, bool up)
{
	long long n = 1;

	if (!p->pow2)
		return clamp(up ? v + 1 : v - 1, p);
	while (up ? n <= v : n * 2 < v)
		n *= 2;
	return clamp(up || n < v ? n : 0, p);
}

static long long random_value(const struct scn_param *p, struct scn_rng *r)
{
	int lo = 0, hi = 0;

	if (p->pow2) {
		while ((1LL << lo) < p->min)
			lo++;
		while ((1LL << (hi + 1)) <= p->max)
			hi++;
		if (lo <= hi)
			return 1LL << (lo + below(r, hi - lo + 1));
	}
	return p->min + below(r, p->max - p->min + 1);
}

/* Another value than v within p's range (which holds more than one). */
static long long new_value(const struct scn_param *p, long long v, struct scn_rng *r)
{
	long long n;

	switch (below(r, 4)) {
	case 0:
		n = clamp(v * 2, p);
		break;
	case 1:
		n = clamp(v / 2, p);
		break;
	case 2:
		n = random_value(p, r);
		break;
	default:
		n = neighbour(p, v, below(r, 2));
	}
	/* at an end, or the random value was v: a step away from the end */
	return n != v ? n : neighbour(p, v, v < p->max);
}

static bool change_value(const struct scn_templates *t, const struct scenario *other,
			 struct scn_rng *r, struct scenario *s)
{
	const struct scn_param *p;
	size_t i, k, can = 0, pick;
	int tpl;

	for (i = 0; i < s->n; i++)
		for (tpl = s->step[i].tpl, k = 0; k < scn_template_nparams(t, tpl); k++)
			can += scn_template_param(t, tpl, k)->min <
			       scn_template_param(t, tpl, k)->max;
	if (!can)
		return false;
	pick = below(r, can);
	for (i = 0; i < s->n; i++) {
		for (tpl = s->step[i].tpl, k = 0; k < scn_template_nparams(t, tpl); k++) {
			p = scn_template_param(t, tpl, k);
			if (p->min == p->max || pick--)
				continue;
			s->step[i].v[k] = new_value(p, s->step[i].v[k], r);
			return true;
		}
	}
	return false;
}

/* st put in before step at (s has room). */
static void put_step(struct scenario *s, size_t at, const struct scn_step *st)
{
	memmove(&s->step[at + 1], &s->step[at], (s->n - at) * sizeof(*st));
	s->step[at] = *st;
	s->n++;
}

static bool insert_step(const struct scn_templates *t, const struct scenario *other,
			struct scn_rng *r, struct scenario *s)
{
	struct scn_step st;

	if (s->n == SCN_STEPS)
		return false;
	default_step(t, below(r, scn_templates_count(t)), &st);
	put_step(s, below(r, s->n + 1), &st);
	return true;
}

static bool remove_step(const struct scn_templates *t, const struct scenario *other,
			struct scn_rng *r, struct scenario *s)
{
	size_t at;

	if (s->n < 2)
		return false;
	at = below(r, s->n);
	s->n--;
	memmove(&s->step[at], &s->step[at + 1], (s->n - at) * sizeof(s->step[0]));
	/* unused steps stay zero, so that equal scenarios compare equal byte for byte */
	memset(&s->step[s->n], 0, sizeof(s->step[0]));
	return true;
}

static bool duplicate_step(const struct scn_templates *t, const struct scenario *other,
			   struct scn_rng *r, struct scenario *s)
{
	struct scn_step st;
	size_t at;

	if (!s->n || s->n == SCN_STEPS)
		return false;
	at = below(r, s->n);
	st = s->step[at];
	put_step(s, at + 1, &st);
	return true;
}

static bool swap_steps(const struct scn_templates *t, const struct scenario *other,
		       struct scn_rng *r, struct scenario *s)
{
	struct scn_step st;
	size_t i, j;

	if (s->n < 2)
		return false;
	i = below(r, s->n);
	j = (i + 1 + below(r, s->n - 1)) % s->n;
	st = s->step[i];
	s->step[i] = s->step[j];
	s->step[j] = st;
	return true;
}

/* A step of other put in, or in place of one when s is full. */
static bool splice_step(const struct scn_templates *t, const struct scenario *other,
			struct scn_rng *r, struct scenario *s)
{
	struct scn_step st;

	if (!other || !other->n)
		return false;
	st = other->step[below(r, other->n)];
	if (s->n < SCN_STEPS)
		put_step(s, below(r, s->n + 1), &st);
	else
		s->step[below(r, s->n)] = st;
	return true;
}

typedef bool mutation_fn(const struct scn_templates *t, const struct scenario *other,
			 struct scn_rng *r, struct scenario *s);

/* Each mutation and how often it is picked, in sixteenths: a value half the time. */
static const struct {
	mutation_fn *fn;
	unsigned int weight;
} mutations[] = {
	{change_value, 8},   {insert_step, 2}, {remove_step, 2},
	{duplicate_step, 1}, {swap_steps, 2},  {splice_step, 1},
};

#define N_MUTATIONS (sizeof(mutations) / sizeof(mutations[0]))
#define WEIGHTS	    16

/* The one picked, or when it cannot apply to in (a full scenario, one step) the next one that can.
 */
void scn_mutate(const struct scn_templates *t, const struct scenario *in,
		const struct scenario *other, struct scn_rng *r, struct scenario *out)
{
	unsigned int pick = below(r, WEIGHTS);
	size_t m = 0, tries;

	*out = *in;
	while (pick >= mutations[m].weight)
		pick -= mutations[m++].weight;
	for (tries = 0; tries < N_MUTATIONS; tries++, m = (m + 1) % N_MUTATIONS)
		if (mutations[m].fn(t, other, r, out))
			return;
}
