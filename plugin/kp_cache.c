// SPDX-License-Identifier: GPL-2.0-only
/*
 * The machine model's cache simulator: see kp_cache.h.  It runs on every
 * fetch and access the guest makes in a window, so the common cases (a hit
 * on the line used last, a hit on a set's most recent way) return early.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "kp_cache.h"

#define likely(x)   __builtin_expect(!!(x), 1)
#define unlikely(x) __builtin_expect(!!(x), 0)

/* One line looked up in its set: true on a miss.  LRU, write-allocate. */
static inline bool kp_set_ref(struct kp_cache *c, uint64_t block)
{
	uint64_t *set = c->tags + (block & c->set_mask) * c->assoc;
	uint64_t prev = set[0];
	unsigned int w;

	if (likely(prev == block))
		return false;
	/* each way moves down one, until the line's own (a hit) or the LRU one */
	set[0] = block;
	for (w = 1; w < c->assoc; w++) {
		uint64_t cur = set[w];

		set[w] = prev;
		if (cur == block)
			return false;
		prev = cur;
	}
	return true;
}

/* size bytes at addr: every line touched is looked up, one miss at most */
static inline bool kp_ref(struct kp_cache *c, uint64_t addr, unsigned int size)
{
	uint64_t b = addr >> c->line_bits, last = (addr + size - 1) >> c->line_bits;
	bool miss = kp_set_ref(c, b);

	while (unlikely(b != last))
		miss |= kp_set_ref(c, ++b);
	return miss;
}

static bool kp_pow2(uint64_t v)
{
	return v && !(v & (v - 1));
}

/* SIZE:ASSOC:LINE, powers of two, ASSOC lines no larger than the cache */
static bool kp_cache_parse(struct kp_cache *c, const char *what, const char *s)
{
	unsigned long long size, assoc, line, sets, i;
	int n = -1;

	if (sscanf(s, "%llu:%llu:%llu%n", &size, &assoc, &line, &n) != 3 || s[n] ||
	    !kp_pow2(size) || !kp_pow2(assoc) || !kp_pow2(line) || line > size ||
	    assoc > size / line || assoc > 1024) {
		fprintf(stderr,
			"kp_model: %s %s: want SIZE:ASSOC:LINE, each a power of two, ASSOC x LINE <= SIZE\n",
			what, s);
		return false;
	}
	sets = size / line / assoc;
	c->tags = malloc(sets * assoc * sizeof(*c->tags));
	if (!c->tags) {
		fprintf(stderr, "kp_model: %s %s: out of memory\n", what, s);
		return false;
	}
	for (i = 0; i < sets * assoc; i++)
		c->tags[i] = KP_NO_TAG;
	c->size = size;
	c->line = line;
	c->assoc = assoc;
	c->line_bits = __builtin_ctzll(line);
	c->set_mask = sets - 1;
	return true;
}

bool kp_sim_add_geom(struct kp_sim *s, const char *spec)
{
	char part[3][64];
	struct kp_geom *g = &s->geom[s->ngeom];
	int n = -1;

	if (s->ngeom == KP_MAX_GEOMS) {
		fprintf(stderr, "kp_model: more than %d geometries\n", KP_MAX_GEOMS);
		return false;
	}
	if (sscanf(spec, "%63[^/]/%63[^/]/%63[^/]%n", part[0], part[1], part[2], &n) != 3 ||
	    spec[n]) {
		fprintf(stderr, "kp_model: geom=%s: want I1/D1/LL, each SIZE:ASSOC:LINE\n", spec);
		return false;
	}
	if (!kp_cache_parse(&g->i1, "I1", part[0]) || !kp_cache_parse(&g->d1, "D1", part[1]) ||
	    !kp_cache_parse(&g->ll, "LL", part[2]))
		return false;
	s->ngeom++;
	return true;
}

void kp_sim_init(struct kp_sim *s)
{
	int g;

	s->min_i1_bits = s->min_d1_bits = 63;
	for (g = 0; g < s->ngeom; g++) {
		if (s->geom[g].i1.line_bits < s->min_i1_bits)
			s->min_i1_bits = s->geom[g].i1.line_bits;
		if (s->geom[g].d1.line_bits < s->min_d1_bits)
			s->min_d1_bits = s->geom[g].d1.line_bits;
	}
	s->last_iline = s->last_dline = KP_NO_TAG;
}

void kp_sim_forget_fetch(struct kp_sim *s)
{
	s->last_iline = KP_NO_TAG;
}

/*
 * The line fetched last is the most recent of its set in every geometry
 * (theirs are no smaller, and I1 sees fetches only): a fetch within it hits
 * and changes nothing.
 */
void kp_sim_fetch(struct kp_sim *s, struct kp_miss *m, uint64_t pa, unsigned int size)
{
	uint64_t line = pa >> s->min_i1_bits, end = (pa + size - 1) >> s->min_i1_bits;
	int g;

	if (line == s->last_iline && end == line)
		return;
	s->last_iline = end;
	for (g = 0; g < s->ngeom; g++) {
		if (kp_ref(&s->geom[g].i1, pa, size)) {
			m[g].i1_miss++;
			if (kp_ref(&s->geom[g].ll, pa, size))
				m[g].ll_miss++;
		}
	}
}

/* likewise an access within the line accessed last: only counted */
void kp_sim_data(struct kp_sim *s, struct kp_miss *m, uint64_t pa, unsigned int size, bool store)
{
	uint64_t line = pa >> s->min_d1_bits, end = (pa + size - 1) >> s->min_d1_bits;
	bool again = line == s->last_dline && end == line;
	int g;

	s->last_dline = end;
	for (g = 0; g < s->ngeom; g++) {
		bool miss = !again && kp_ref(&s->geom[g].d1, pa, size);

		if (store) {
			m[g].d1_write++;
			m[g].d1_write_miss += miss;
		} else {
			m[g].d1_read++;
			m[g].d1_read_miss += miss;
		}
		if (miss && kp_ref(&s->geom[g].ll, pa, size))
			m[g].ll_miss++;
	}
}
