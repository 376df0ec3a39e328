/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * The machine model's cache simulator, apart from QEMU so that it can be
 * tested on its own: one or more geometries (I1, D1, unified LL) fed by one
 * stream of instruction fetches and data accesses at physical addresses,
 * with cachegrind's conventions (cg_sim.c): LRU, write-allocate, the LL
 * looked up on L1 misses only, an access that straddles lines looked up in
 * each and counted as one access, a miss when any of its lines missed.
 * Beside them an I-TLB and a D-TLB per geometry, looked up by virtual page
 * (4 KiB, or 2 MiB where kp_tlb_large says so) and tag on every fetch and
 * access (see struct kp_tlb).
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

/*
 * A TLB entry: a virtual page, the tag it was filled under (KP_TLB_GLOBAL
 * set: a global page, any tag matches), its physical page (KP_TLB_ANY: not
 * known, any matches) and the caller's generation when it was last looked
 * up (see kp_tlb_fast).  An empty one has vpage KP_NO_TAG.
 */
struct kp_tlbent {
	uint64_t vpage, tag, ppage, gen;
};

#define KP_TLB_GLOBAL (1ull << 63)
#define KP_TLB_ANY    UINT64_MAX
#define KP_TLB_PAGE   12 /* a 4 KiB page's bits */
#define KP_TLB_LARGE  21 /* a 2 MiB page's */
/* a 2 MiB page's vpage: its number, marked; no 4 KiB page's (user < 2^35, kernel >= 2^51) */
#define KP_TLB_LARGE_KEY (1ull << 44)
/* the kernel's half of the address space, where large pages are inferred */
#define KP_TLB_KERNEL 0xffff800000000000ull

/*
 * One LRU TLB: e[set * assoc + way], most recently used way first, the
 * empty ways last.  A lookup hits an entry of its virtual page whose tag
 * is the current one or global, and whose physical page is the access's.
 * mru[set]: its first entry's kp_tlb_key, dense for kp_tlb_fast.
 */
struct kp_tlb {
	unsigned int assoc, assoc_bits;
	uint64_t set_mask, entries;
	struct kp_tlbent *e;
	uint64_t *mru;
};

/* a page and a generation (1..4095; 0: none) as one word */
static inline uint64_t kp_tlb_key(uint64_t vpage, uint64_t gen)
{
	return vpage << KP_TLB_PAGE | gen;
}

struct kp_geom {
	struct kp_cache i1, d1, ll;
	struct kp_tlb itlb, dtlb;
};

/* what geometry 0 missed in one lookup, for the timing model */
enum { KP_M_L1 = 1, KP_M_LL = 2, KP_M_TLB = 4 };

/* what one PC was charged in one geometry (the ones counted most first) */
struct kp_miss {
	uint64_t d1_read, d1_write, d1_read_miss, d1_write_miss, i1_miss, ll_miss;
	uint64_t itlb_miss, dtlb_miss;
};

/*
 * The geometries, the lines last looked up at the smallest line size, the
 * virtual page fetched last, and the TLBs' tag: epoch << 12 | PCID bits
 * (docs/model.md).  pti, pcid: what the guest said (its hint).  large:
 * the kernel's 2 MiB pages are inferred (kp_tlb_large; mode=timing).
 */
struct kp_sim {
	int ngeom;
	unsigned int min_i1_bits, min_d1_bits;
	uint64_t last_iline, last_dline, last_ipage;
	uint64_t tag, epoch, pcid_bits;
	bool pti, pcid, large;
	struct kp_geom geom[KP_MAX_GEOMS];
};

/*
 * geometry "I1/D1/LL" (each SIZE:ASSOC:LINE) or "I1/D1/LL/ITLB/DTLB" (the
 * TLBs ENTRIES:ASSOC, else KP_ITLB_DEFAULT, KP_DTLB_DEFAULT); false (and a
 * line on stderr) if bad
 */
#define KP_ITLB_DEFAULT "128:8"
#define KP_DTLB_DEFAULT "64:4"
bool kp_sim_add_geom(struct kp_sim *s, const char *spec);
/* one cache of SIZE:ASSOC:LINE, one TLB of ENTRIES:ASSOC (what names it in the error line) */
bool kp_cache_new(struct kp_cache *c, const char *what, const char *spec);
bool kp_tlb_new(struct kp_tlb *t, const char *what, const char *spec);
void kp_sim_init(struct kp_sim *s);
/* after the fetch addresses changed meaning (a new offset): nothing is "last" */
void kp_sim_forget_fetch(struct kp_sim *s);

/* what a flush empties: every entry, the non-global ones, the non-global ones of the tag */
enum kp_tlb_flush { KP_FLUSH_ALL, KP_FLUSH_NONGLOBAL, KP_FLUSH_TAG };
void kp_sim_tlb_flush(struct kp_sim *s, enum kp_tlb_flush how);
/*
 * A MOV to CR3: derived, the old CR3 with the known bits (mask, val)
 * changed, else a new epoch; flush: without bit 63 known set
 */
void kp_sim_cr3(struct kp_sim *s, bool derived, uint64_t mask, uint64_t val, bool flush);
/* the entries' generations forgotten: none is known to be up to date */
void kp_sim_tlb_forget_gen(struct kp_sim *s);

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
 * written on a miss only; what geometry 0 missed (KP_M_*) is returned, so
 * that a caller wanting it need not read m.  The line fetched last is the most recent of its
 * set in every geometry (theirs are no smaller, and I1 sees fetches only):
 * a fetch within it hits and changes nothing.
 */
static inline unsigned int kp_sim_fetch(struct kp_sim *s, struct kp_miss *m, uint64_t pa,
					unsigned int size)
{
	uint64_t line = pa >> s->min_i1_bits, end = (pa + size - 1) >> s->min_i1_bits;
	unsigned int g0 = 0;
	int g;

	if (line == s->last_iline && end == line)
		return 0;
	s->last_iline = end;
	for (g = 0; g < s->ngeom; g++) {
		if (kp_ref(&s->geom[g].i1, pa, size)) {
			m[g].i1_miss++;
			g0 |= g ? 0 : KP_M_L1;
			if (kp_ref(&s->geom[g].ll, pa, size)) {
				m[g].ll_miss++;
				g0 |= g ? 0 : KP_M_LL;
			}
		}
	}
	return g0;
}

/*
 * A load or store's misses only (m is written on a miss, and only then):
 * likewise one within the line accessed last hits and changes nothing.
 * Geometry 0's misses are returned (KP_M_*).
 */
static inline unsigned int kp_sim_data_miss(struct kp_sim *s, struct kp_miss *m, uint64_t pa,
					    unsigned int size, bool store)
{
	uint64_t line = pa >> s->min_d1_bits, end = (pa + size - 1) >> s->min_d1_bits;
	unsigned int g0 = 0;
	int g;

	if (line == s->last_dline && end == line)
		return 0;
	s->last_dline = end;
	for (g = 0; g < s->ngeom; g++) {
		if (!kp_ref(&s->geom[g].d1, pa, size))
			continue;
		if (store)
			m[g].d1_write_miss++;
		else
			m[g].d1_read_miss++;
		g0 |= g ? 0 : KP_M_L1;
		if (kp_ref(&s->geom[g].ll, pa, size)) {
			m[g].ll_miss++;
			g0 |= g ? 0 : KP_M_LL;
		}
	}
	return g0;
}

/* the set of vpage, in t */
static inline struct kp_tlbent *kp_tlb_set(const struct kp_tlb *t, uint64_t vpage)
{
	return t->e + ((vpage & t->set_mask) << t->assoc_bits);
}

/* an entry for vpage, usable under tag (its physical page aside) */
static inline bool kp_tlbent_match(const struct kp_tlbent *e, uint64_t vpage, uint64_t tag)
{
	return e->vpage == vpage && (e->tag == tag || (e->tag & KP_TLB_GLOBAL));
}

/*
 * vpage looked up under tag, at ppage (KP_TLB_ANY: not known): true on a
 * miss.  A hit moves its entry first; a miss puts a new one first (global
 * when asked), dropping the stale entry of the page and tag if there is
 * one, else the least recently used.  gen is noted in the first entry
 * when its physical page was checked (not KP_TLB_ANY), else 0.
 */
static inline __attribute__((always_inline)) bool kp_tlb_ref(struct kp_tlb *t, uint64_t vpage,
							     uint64_t tag, uint64_t ppage,
							     bool global, uint64_t gen)
{
	struct kp_tlbent *set = kp_tlb_set(t, vpage), prev = set[0], cur;
	unsigned int w;
	bool hit;

	if (ppage == KP_TLB_ANY)
		gen = 0;
	/* whatever happens, vpage's entry ends up first, gen noted */
	t->mru[vpage & t->set_mask] = kp_tlb_key(vpage, gen);
	if (kp_likely(kp_tlbent_match(&prev, vpage, tag))) {
		hit = prev.ppage == ppage || ppage == KP_TLB_ANY || prev.ppage == KP_TLB_ANY;
		if (!hit)
			set[0].tag = global ? tag | KP_TLB_GLOBAL : tag;
		if (ppage != KP_TLB_ANY)
			set[0].ppage = ppage;
		set[0].gen = gen;
		return !hit;
	}
	set[0] = (struct kp_tlbent){vpage, global ? tag | KP_TLB_GLOBAL : tag, ppage, gen};
	for (w = 1; w < t->assoc; w++) {
		cur = set[w];
		set[w] = prev;
		if (kp_tlbent_match(&cur, vpage, tag)) {
			hit = cur.ppage == ppage || ppage == KP_TLB_ANY || cur.ppage == KP_TLB_ANY;
			if (hit)
				set[0] = (struct kp_tlbent){vpage, cur.tag,
							    ppage == KP_TLB_ANY ? cur.ppage : ppage,
							    gen};
			return !hit;
		}
		prev = cur;
	}
	return true;
}

/*
 * true when vpage's entry is the first or second of its set, with its
 * physical page known, and was looked up in generation gen: the caller's
 * promise that neither the tag nor the page's physical page changed since.
 * A lookup would then hit, and change nothing but (the second) swap the
 * two: done here.  (One of an unknown physical page would learn it.)
 */
static inline bool kp_tlb_second(struct kp_tlb *t, uint64_t vpage, uint64_t gen)
{
	struct kp_tlbent *e = kp_tlb_set(t, vpage), first;

	if (t->assoc < 2 || e[1].vpage != vpage || e[1].gen != gen || e[1].ppage == KP_TLB_ANY)
		return false;
	first = e[0];
	e[0] = e[1];
	e[1] = first;
	t->mru[vpage & t->set_mask] = kp_tlb_key(vpage, gen);
	return true;
}

/* the first entry's check first, from the dense mru[] (gen 0 never matches) */
static inline bool kp_tlb_fast(struct kp_tlb *t, uint64_t vpage, uint64_t gen)
{
	return kp_likely(t->mru[vpage & t->set_mask] == kp_tlb_key(vpage, gen)) ||
	       kp_tlb_second(t, vpage, gen);
}

/* whether the TLBs keep the entry of va's page over a CR3 write */
static inline bool kp_tlb_global(const struct kp_sim *s, uint64_t va)
{
	return !s->pti && va >= KP_TLB_KERNEL;
}

/*
 * Whether va (at pa) lies in a 2 MiB page.  The plugin cannot read the
 * guest's page tables (API 1), so it infers what Linux maps large on
 * x86-64: the direct map (page_offset_base, 1 GiB aligned, with 2 MiB or
 * 1 GiB pages), the kernel image (2 MiB pages, physical_start 2 MiB
 * aligned) and vmemmap (2 MiB blocks of struct pages): in each, va - pa is
 * a multiple of 2 MiB.  A 4 KiB page of the kernel's half has that by
 * chance one time in 512 (vmalloc, modules: wrongly taken as large), and
 * the direct map's parts split into 4 KiB pages (DirectMap4k in the
 * guest's /proc/meminfo: a few MiB) are taken as large too; the user's
 * half counts 4 KiB pages, as Linux maps it unless THP (docs/model.md).
 * One 2 MiB entry serves every page of its range: two taken as large at
 * different physical 2 MiB pages (a 4 KiB page's chance offset) replace
 * each other's entry, except in the plugin's shortcut for a line's page
 * (kp_run.c's kp_dtlb_mru0), which trusts the generation as kp_tlb_fast
 * does and does not compare them.
 */
static inline bool kp_tlb_large(bool on, uint64_t va, uint64_t pa)
{
	return on && va >= KP_TLB_KERNEL && !((va - pa) & ((1ull << KP_TLB_LARGE) - 1));
}

/* va's vpage, 4 KiB or (large) 2 MiB */
static inline uint64_t kp_tlb_vpage(uint64_t va, bool large)
{
	return large ? KP_TLB_LARGE_KEY | va >> KP_TLB_LARGE : va >> KP_TLB_PAGE;
}

/*
 * An access of size bytes at va, pa through the tlb picked by itlb, in
 * every geometry: m[g]'s misses.  An access across two pages looks up
 * both, the second at a physical page not known.  gen: the caller's
 * generation, which must change whenever the tag does or a page's
 * physical page may have (see kp_tlb_fast).
 */
static inline unsigned int kp_sim_tlb(struct kp_sim *s, struct kp_miss *m, bool itlb, uint64_t va,
				      uint64_t pa, unsigned int size, uint64_t gen)
{
	bool large = kp_tlb_large(s->large, va, pa), global = kp_tlb_global(s, va);
	uint64_t vp = kp_tlb_vpage(va, large), end = kp_tlb_vpage(va + size - 1, large);
	unsigned int g0 = 0;
	int g;

	pa >>= large ? KP_TLB_LARGE : KP_TLB_PAGE;

	for (g = 0; g < s->ngeom; g++) {
		struct kp_tlb *t = itlb ? &s->geom[g].itlb : &s->geom[g].dtlb;
		bool miss;

		/* first in its set, checked in this generation: a hit that changes nothing */
		if (kp_likely(end == vp && t->mru[vp & t->set_mask] == kp_tlb_key(vp, gen)))
			continue;
		miss = kp_tlb_ref(t, vp, s->tag, pa, global, gen);
		if (kp_unlikely(end != vp))
			miss |= kp_tlb_ref(t, end, s->tag, KP_TLB_ANY, global, gen);
		if (!miss)
			continue;
		if (itlb)
			m[g].itlb_miss++;
		else
			m[g].dtlb_miss++;
		g0 |= g ? 0 : KP_M_TLB;
	}
	return g0;
}

/*
 * An instruction fetch through the I-TLBs: the page fetched last is the
 * most recent of its set in every geometry (they see fetches only), so a
 * fetch within it hits and changes nothing, until a flush or a change of
 * tag, which forget it (kp_sim_forget_fetch).
 */
static inline unsigned int kp_sim_itlb(struct kp_sim *s, struct kp_miss *m, uint64_t va,
				       uint64_t pa, unsigned int size, uint64_t gen)
{
	bool large = kp_tlb_large(s->large, va, pa);
	uint64_t vp = kp_tlb_vpage(va, large), end = kp_tlb_vpage(va + size - 1, large);

	if (vp == s->last_ipage && end == vp)
		return 0;
	s->last_ipage = end;
	return kp_sim_tlb(s, m, true, va, pa, size, gen);
}

/*
 * The page walker's cache of upper levels (timing mode): the 2 MiB ranges
 * of the last KP_PWC walks, whose page-table page the walker found through
 * the upper levels it keeps.  A walk in one of them reads the page's
 * entry only; one elsewhere reads the upper levels too, and is remembered
 * in place of the oldest.
 */
#define KP_PWC 4

struct kp_pwc {
	uint64_t range[KP_PWC]; /* va >> KP_TLB_LARGE; KP_NO_TAG: none */
	unsigned int next;	/* the entry the next walk elsewhere replaces (the oldest) */
};

static inline void kp_pwc_flush(struct kp_pwc *p)
{
	unsigned int i;

	for (i = 0; i < KP_PWC; i++)
		p->range[i] = KP_NO_TAG;
}

/* a walk for va: true when the walker kept its upper levels, else they are kept from now */
static inline bool kp_pwc_walk(struct kp_pwc *p, uint64_t va)
{
	uint64_t r = va >> KP_TLB_LARGE;
	unsigned int i;

	for (i = 0; i < KP_PWC; i++)
		if (p->range[i] == r)
			return true;
	p->range[p->next] = r;
	p->next = (p->next + 1) % KP_PWC;
	return false;
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
