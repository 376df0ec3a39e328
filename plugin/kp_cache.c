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
bool kp_cache_new(struct kp_cache *c, const char *what, const char *s)
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

/* ENTRIES:ASSOC, powers of two, ASSOC no more than ENTRIES */
bool kp_tlb_new(struct kp_tlb *t, const char *what, const char *s)
{
	unsigned long long entries, assoc, i;
	int n = -1;

	if (sscanf(s, "%llu:%llu%n", &entries, &assoc, &n) != 2 || s[n] || !kp_pow2(entries) ||
	    !kp_pow2(assoc) || assoc > entries || entries > (1u << 20)) {
		fprintf(stderr,
			"kp_model: %s %s: want ENTRIES:ASSOC, each a power of two, ASSOC <= ENTRIES\n",
			what, s);
		return false;
	}
	t->e = malloc(entries * sizeof(*t->e));
	t->mru = calloc(entries / assoc, sizeof(*t->mru));
	if (!t->e || !t->mru) {
		free(t->mru);
		free(t->e);
		fprintf(stderr, "kp_model: %s %s: out of memory\n", what, s);
		return false;
	}
	for (i = 0; i < entries; i++)
		t->e[i] = (struct kp_tlbent){KP_NO_TAG, 0, KP_TLB_ANY, 0};
	t->entries = entries;
	t->assoc = assoc;
	t->assoc_bits = __builtin_ctzll(assoc);
	t->set_mask = entries / assoc - 1;
	return true;
}

bool kp_sim_add_geom(struct kp_sim *s, const char *spec)
{
	char part[5][64];
	struct kp_geom *g = &s->geom[s->ngeom];
	int n = -1, k;

	if (s->ngeom == KP_MAX_GEOMS) {
		fprintf(stderr, "kp_model: more than %d geometries\n", KP_MAX_GEOMS);
		return false;
	}
	k = sscanf(spec, "%63[^/]/%63[^/]/%63[^/]%n/%63[^/]/%63[^/]%n", part[0], part[1], part[2],
		   &n, part[3], part[4], &n);
	if ((k != 3 && k != 5) || n < 0 || spec[n]) {
		fprintf(stderr,
			"kp_model: geom=%s: want I1/D1/LL (each SIZE:ASSOC:LINE) or "
			"I1/D1/LL/ITLB/DTLB (the TLBs ENTRIES:ASSOC)\n",
			spec);
		return false;
	}
	if (k == 3) {
		strcpy(part[3], KP_ITLB_DEFAULT);
		strcpy(part[4], KP_DTLB_DEFAULT);
	}
	if (!kp_cache_new(&g->i1, "I1", part[0]) || !kp_cache_new(&g->d1, "D1", part[1]) ||
	    !kp_cache_new(&g->ll, "LL", part[2]) || !kp_tlb_new(&g->itlb, "ITLB", part[3]) ||
	    !kp_tlb_new(&g->dtlb, "DTLB", part[4]))
		return false;
	s->ngeom++;
	return true;
}

/* the entries how says, emptied; each set's others keep their order, the empty ways last */
static void kp_tlb_flush(struct kp_tlb *t, enum kp_tlb_flush how, uint64_t tag)
{
	uint64_t set;
	unsigned int w, k;

	for (set = 0; set <= t->set_mask; set++) {
		struct kp_tlbent *e = t->e + (set << t->assoc_bits);

		for (w = k = 0; w < t->assoc; w++) {
			bool global = e[w].tag & KP_TLB_GLOBAL;

			if (e[w].vpage == KP_NO_TAG || how == KP_FLUSH_ALL ||
			    (!global && (how == KP_FLUSH_NONGLOBAL || e[w].tag == tag)))
				continue;
			e[k++] = e[w];
		}
		for (; k < t->assoc; k++)
			e[k] = (struct kp_tlbent){KP_NO_TAG, 0, KP_TLB_ANY, 0};
		t->mru[set] = e[0].vpage == KP_NO_TAG ? 0 : kp_tlb_key(e[0].vpage, e[0].gen);
	}
}

void kp_sim_tlb_flush(struct kp_sim *s, enum kp_tlb_flush how)
{
	int g;

	for (g = 0; g < s->ngeom; g++) {
		kp_tlb_flush(&s->geom[g].itlb, how, s->tag);
		kp_tlb_flush(&s->geom[g].dtlb, how, s->tag);
	}
	s->last_ipage = KP_NO_TAG;
}

/*
 * With PCID in use, the known PCID bits change the tag's, a flush empties
 * the new tag's entries; without, the tag is the epoch's, a flush empties
 * every non-global entry.  A value not derived starts a new epoch.
 */
void kp_sim_cr3(struct kp_sim *s, bool derived, uint64_t mask, uint64_t val, bool flush)
{
	const uint64_t pcid = (1u << KP_TLB_PAGE) - 1;

	if (!derived) {
		s->epoch++;
		s->pcid_bits = 0;
	} else if (s->pcid) {
		s->pcid_bits = (s->pcid_bits & ~(mask & pcid)) | (val & mask & pcid);
	}
	s->tag = s->epoch << KP_TLB_PAGE | (s->pcid ? s->pcid_bits : 0);
	s->last_ipage = KP_NO_TAG;
	if (flush)
		kp_sim_tlb_flush(s, s->pcid ? KP_FLUSH_TAG : KP_FLUSH_NONGLOBAL);
}

void kp_sim_tlb_forget_gen(struct kp_sim *s)
{
	uint64_t i;
	int g;

	for (g = 0; g < s->ngeom; g++) {
		for (i = 0; i < s->geom[g].itlb.entries; i++)
			s->geom[g].itlb.e[i].gen = 0;
		for (i = 0; i < s->geom[g].dtlb.entries; i++)
			s->geom[g].dtlb.e[i].gen = 0;
		memset(s->geom[g].itlb.mru, 0, (s->geom[g].itlb.set_mask + 1) * sizeof(uint64_t));
		memset(s->geom[g].dtlb.mru, 0, (s->geom[g].dtlb.set_mask + 1) * sizeof(uint64_t));
	}
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
	s->last_iline = s->last_dline = s->last_ipage = KP_NO_TAG;
}

void kp_sim_forget_fetch(struct kp_sim *s)
{
	s->last_iline = s->last_ipage = KP_NO_TAG;
}
