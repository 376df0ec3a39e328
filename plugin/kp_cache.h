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
	unsigned int line_bits, assoc;
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
	struct kp_geom geom[KP_MAX_GEOMS];
	unsigned int min_i1_bits, min_d1_bits;
	uint64_t last_iline, last_dline;
};

/* geometry "I1/D1/LL", each SIZE:ASSOC:LINE; false (and a line on stderr) if bad */
bool kp_sim_add_geom(struct kp_sim *s, const char *spec);
void kp_sim_init(struct kp_sim *s);
/* after the fetch addresses changed meaning (a new offset): nothing is "last" */
void kp_sim_forget_fetch(struct kp_sim *s);
/* an instruction of size bytes fetched from pa; m: its PC's [ngeom] */
void kp_sim_fetch(struct kp_sim *s, struct kp_miss *m, uint64_t pa, unsigned int size);
void kp_sim_data(struct kp_sim *s, struct kp_miss *m, uint64_t pa, unsigned int size, bool store);

#endif
