// SPDX-License-Identifier: GPL-2.0-only
/*
 * The machine model's cache simulator (plugin/kp_cache.c) against a
 * reference written the plain way: per set a list of lines, most recent
 * first, every access looked up line by line, no shortcuts.  Both see the
 * same pseudo-random stream of fetches (runs of instructions of 1 to 15
 * bytes, jumps) and loads and stores (1 to 16 bytes, runs and jumps, lines
 * straddled), through several geometries at once: direct-mapped, fully
 * associative, lines of 16 to 128 bytes.  Every count must be equal.  And
 * geometries that are not powers of two, or whose ways of lines exceed the
 * cache, are refused.
 */
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "kp_cache.h"

struct ref {
	unsigned int line_bits, assoc;
	uint64_t sets, *tags;
};

static uint64_t rng = 88172645463325252ull;

static uint64_t next(uint64_t n)
{
	rng ^= rng << 13;
	rng ^= rng >> 7;
	rng ^= rng << 17;
	return rng % n;
}

static void ref_init(struct ref *r, const struct kp_cache *c)
{
	r->line_bits = c->line_bits;
	r->assoc = c->assoc;
	r->sets = c->size / c->line / c->assoc;
	r->tags = malloc(r->sets * r->assoc * sizeof(*r->tags));
	memset(r->tags, 0xff, r->sets * r->assoc * sizeof(*r->tags));
}

static int ref_line(struct ref *r, uint64_t b)
{
	uint64_t *s = r->tags + (b % r->sets) * r->assoc;
	unsigned int i, hit = r->assoc - 1, miss = 1;

	for (i = 0; i < r->assoc; i++) {
		if (s[i] == b) {
			hit = i;
			miss = 0;
			break;
		}
	}
	memmove(s + 1, s, hit * sizeof(*s));
	s[0] = b;
	return miss;
}

static int ref_access(struct ref *r, uint64_t a, unsigned int size)
{
	uint64_t b, first = a >> r->line_bits, last = (a + size - 1) >> r->line_bits;
	int miss = 0;

	for (b = first; b <= last; b++)
		miss |= ref_line(r, b);
	return miss;
}

#define NGEOM 4
static const char *geoms[NGEOM] = {
	"1024:2:32/2048:4:64/16384:8:64",
	"4096:4:64/1024:1:16/8192:2:128",
	"512:8:64/512:8:64/4096:64:64", /* fully associative L1s */
	"32768:8:64/32768:8:64/262144:16:64",
};

static int refused(const char *spec)
{
	struct kp_sim s = {0};

	return !kp_sim_add_geom(&s, spec);
}

int main(void)
{
	static struct kp_sim s;
	struct kp_miss got[NGEOM] = {0}, want[NGEOM] = {0};
	struct ref ri[NGEOM], rd[NGEOM], rl[NGEOM];
	uint64_t pc = 0x10000, da = 0x100000;
	long k;
	int g, bad = 0;

	for (g = 0; g < NGEOM; g++) {
		if (!kp_sim_add_geom(&s, geoms[g]))
			return 1;
		ref_init(&ri[g], &s.geom[g].i1);
		ref_init(&rd[g], &s.geom[g].d1);
		ref_init(&rl[g], &s.geom[g].ll);
	}
	kp_sim_init(&s);
	for (k = 0; k < 3000000; k++) {
		if (next(3)) {
			unsigned int size = 1 + next(15);

			if (!next(8))
				pc = 0x10000 + next(1 << 17);
			kp_sim_fetch(&s, got, pc, size);
			for (g = 0; g < NGEOM; g++)
				if (ref_access(&ri[g], pc, size)) {
					want[g].i1_miss++;
					want[g].ll_miss += ref_access(&rl[g], pc, size);
				}
			pc += size;
		} else {
			unsigned int size = 1u << next(5);
			int store = next(2), miss;

			da = next(4) ? da + next(24) : 0x100000 + next(1 << 18);
			kp_sim_data(&s, got, da, size, store);
			for (g = 0; g < NGEOM; g++) {
				miss = ref_access(&rd[g], da, size);
				if (store) {
					want[g].d1_write++;
					want[g].d1_write_miss += miss;
				} else {
					want[g].d1_read++;
					want[g].d1_read_miss += miss;
				}
				if (miss)
					want[g].ll_miss += ref_access(&rl[g], da, size);
			}
		}
	}
	for (g = 0; g < NGEOM; g++) {
		printf("geom %s: i1_miss %" PRIu64 " d1_read %" PRIu64 " d1_read_miss %" PRIu64
		       " d1_write %" PRIu64 " d1_write_miss %" PRIu64 " ll_miss %" PRIu64 "\n",
		       geoms[g], got[g].i1_miss, got[g].d1_read, got[g].d1_read_miss,
		       got[g].d1_write, got[g].d1_write_miss, got[g].ll_miss);
		if (memcmp(&got[g], &want[g], sizeof(got[g]))) {
			printf("FAIL: the reference has i1_miss %" PRIu64 " d1_read_miss %" PRIu64
			       " d1_write_miss %" PRIu64 " ll_miss %" PRIu64 "\n",
			       want[g].i1_miss, want[g].d1_read_miss, want[g].d1_write_miss,
			       want[g].ll_miss);
			bad = 1;
		}
	}
	if (!refused("24576:8:64/32768:8:64/8388608:16:64") ||
	    !refused("32768:8:64/4096:1:8192/8388608:16:64") ||
	    !refused("32768:8:64/32768:16:4096/8388608:16:64") ||
	    !refused("32768:8:64/32768:8:64") || !refused("32768:8:64/32768:8:64/8388608:16:64x")) {
		printf("FAIL: a bad geometry was accepted\n");
		bad = 1;
	}
	return bad;
}
