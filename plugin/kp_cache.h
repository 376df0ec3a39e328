/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * The machine model's cache simulator, apart from QEMU so that it can be
 * tested on its own: one or more geometries (I1, D1, unified LL) fed by one
 * stream of instruction fetches and data accesses at physical addresses,
 * with cachegrind's conventions (cg_sim.c): LRU, write-allocate, the LL
 * looked up on L1 misses only, an access that straddles lines looked up in
 * each and counted as one access, a miss when any of its lines missed.
 */
#ifndef KP_CACHE_H
#define KP_CACHE_H

#include <stdbool.h>
#include <stdint.h>

#define KP_MAX_GEOMS 16
#define KP_NO_TAG    UINT64_MAX

/* One LRU cache: tags[set * assoc + way], most recently used way first. */
struct kp_cache {
	unsigned int line_bits, assoc, assoc_bits;
	uint64_t set_mask;
	uint64_t *tags;
	uint64_t size, line; /* as given, for the table's header */
};

struct kp_geom {
	struct kp_cache i1, d1, ll;
};

/* what one PC was charged in one geometry (the ones counted most first) */
struct kp_miss {
	uint64_t d1_read, d1_write, d1_read_miss, d1_write_miss, i1_miss, ll_miss;
};

/* the geometries, and the lines last looked up at the smallest line size */
struct kp_sim {
	int ngeom;
	unsigned int min_i1_bits, min_d1_bits;
	uint64_t last_iline, last_dline;
	struct kp_geom geom[KP_MAX_GEOMS];
};

/* geometry "I1/D1/LL", each SIZE:ASSOC:LINE; false (and a line on stderr) if bad */
bool kp_sim_add_geom(struct kp_sim *s, const char *spec);
void kp_sim_init(struct kp_sim *s);
/* after the fetch addresses changed meaning (a new offset): nothing is "last" */
void kp_sim_forget_fetch(struct kp_sim *s);

/*
 * The lookups, inline: they run on every fetch and access the guest makes
 * in a window, so the common cases (a hit on the line used last, a hit on a
 * set's most recent way) return early.
 */
#define kp_likely(x)   __builtin_expect(!!(x), 1)
#define kp_unlikely(x) __builtin_expect(!!(x), 0)

/* One line looked up in its set: true on a miss.  LRU, write-allocate. */
static inline bool kp_set_ref(struct kp_cache *c, uint64_t block)
{
	uint64_t *set = c->tags + ((block & c->set_mask) << c->assoc_bits);
	uint64_t prev = set[0];
	unsigned int w;

	if (kp_likely(prev == block))
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

	while (kp_unlikely(b != last))
		miss |= kp_set_ref(c, ++b);
	return miss;
}

/*
 * An instruction of size bytes fetched from pa; m: its PC's [ngeom],
 * written on a miss only.  The line fetched last is the most recent of its
 * set in every geometry (theirs are no smaller, and I1 sees fetches only):
 * a fetch within it hits and changes nothing.
 */
static inline void kp_sim_fetch(struct kp_sim *s, struct kp_miss *m, uint64_t pa, unsigned int size)
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

/*
 * A load or store's misses only (m is written on a miss, and only then):
 * likewise one within the line accessed last hits and changes nothing.
 */
static inline void kp_sim_data_miss(struct kp_sim *s, struct kp_miss *m, uint64_t pa,
				    unsigned int size, bool store)
{
	uint64_t line = pa >> s->min_d1_bits, end = (pa + size - 1) >> s->min_d1_bits;
	int g;

	if (line == s->last_dline && end == line)
		return;
	s->last_dline = end;
	for (g = 0; g < s->ngeom; g++) {
		if (!kp_ref(&s->geom[g].d1, pa, size))
			continue;
		if (store)
			m[g].d1_write_miss++;
		else
			m[g].d1_read_miss++;
		if (kp_ref(&s->geom[g].ll, pa, size))
			m[g].ll_miss++;
	}
}

/* a load or store, counted, and its misses */
static inline void kp_sim_data(struct kp_sim *s, struct kp_miss *m, uint64_t pa, unsigned int size,
			       bool store)
{
	int g;

	for (g = 0; g < s->ngeom; g++) {
		if (store)
			m[g].d1_write++;
		else
			m[g].d1_read++;
	}
	kp_sim_data_miss(s, m, pa, size, store);
}

#endif
