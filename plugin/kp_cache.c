// SPDX-License-Identifier: GPL-2.0-only
/*
 * The machine model's cache simulator: see kp_cache.h, which has the
 * lookups themselves (inline: they run on every fetch and access the guest
 * makes in a window); here the geometries are parsed and set up.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "kp_cache.h"

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
	c->assoc_bits = __builtin_ctzll(assoc);
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
