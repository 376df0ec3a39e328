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
 *
 * Then the TLBs (kp_tlb_ref, kp_sim_tlb, kp_sim_itlb, kp_sim_cr3,
 * kp_sim_tlb_flush, the kp_tlb_fast shortcut) against a plain reference:
 * per set a list of entries, most recent first.  A pseudo-random stream of
 * fetches and accesses over user and kernel pages whose physical pages
 * sometimes change, accesses across two pages, CR3 writes derived or not,
 * with bit 63 or without, flushes of every kind, with and without PCID and
 * PTI, through three geometries; and with the kernel's 2 MiB pages
 * inferred (kp_tlb_large, kp_tlb_fast_large): the kernel's pages start
 * mapped at a multiple of 2 MiB from their physical pages, the reference's
 * 2 MiB entries, and are remapped to 4 KiB ones.  Every count must be equal.
 * Last the walker's cache of upper levels (kp_pwc_walk): walks in and out of
 * the 2 MiB ranges it keeps, worked out by hand.
 */
#include <inttypes.h>
#include <stdbool.h>
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

/* the reference TLB: per set, entries most recent first, n of them */
struct rtlb {
	unsigned int assoc;
	uint64_t sets;
	struct kp_tlbent *e; /* gen unused */
	unsigned int *n;
};

static void rtlb_init(struct rtlb *r, const struct kp_tlb *t)
{
	r->assoc = t->assoc;
	r->sets = t->entries / t->assoc;
	r->e = calloc(t->entries, sizeof(*r->e));
	r->n = calloc(r->sets, sizeof(*r->n));
}

/* vpage under tag at ppage (KP_TLB_ANY: not known): 1 on a miss */
static int rtlb_ref(struct rtlb *r, uint64_t vpage, uint64_t tag, uint64_t ppage, int global)
{
	struct kp_tlbent *set = r->e + (vpage % r->sets) * r->assoc, e;
	unsigned int *n = &r->n[vpage % r->sets], i;
	int miss = 1;

	e = (struct kp_tlbent){vpage, global ? tag | KP_TLB_GLOBAL : tag, ppage, 0};
	for (i = 0; i < *n; i++) {
		int usable = (set[i].tag & KP_TLB_GLOBAL) || set[i].tag == tag;

		if (set[i].vpage != vpage || !usable)
			continue;
		if (set[i].ppage == ppage || ppage == KP_TLB_ANY || set[i].ppage == KP_TLB_ANY) {
			miss = 0;
			e.tag = set[i].tag;
			if (ppage == KP_TLB_ANY)
				e.ppage = set[i].ppage;
		}
		memmove(set + i, set + i + 1, (*n - i - 1) * sizeof(*set));
		--*n;
		break;
	}
	if (*n == r->assoc)
		--*n;
	memmove(set + 1, set, *n * sizeof(*set));
	set[0] = e;
	++*n;
	return miss;
}

/* how: KP_FLUSH_ALL, _NONGLOBAL, _TAG (of tag) */
static void rtlb_flush(struct rtlb *r, enum kp_tlb_flush how, uint64_t tag)
{
	uint64_t s;
	unsigned int i, k;

	for (s = 0; s < r->sets; s++) {
		struct kp_tlbent *set = r->e + s * r->assoc;

		for (i = k = 0; i < r->n[s]; i++) {
			int global = !!(set[i].tag & KP_TLB_GLOBAL);

			if (how == KP_FLUSH_ALL ||
			    (!global && (how == KP_FLUSH_NONGLOBAL || set[i].tag == tag)))
				continue;
			set[k++] = set[i];
		}
		r->n[s] = k;
	}
}

#define NTGEOM 3
static const char *tgeoms[NTGEOM] = {
	"1024:2:32/2048:4:64/16384:8:64/16:4/8:1",
	"1024:2:32/2048:4:64/16384:8:64/64:64/32:2", /* a fully associative I-TLB */
	"1024:2:32/2048:4:64/16384:8:64/128:8/64:4",
};

/*
 * a page of the stream: mostly one of a small working set, now and then a
 * new one into it; user pages low, kernel ones from 0xffff8...
 */
static uint64_t tpage(void)
{
	static uint64_t ws[12];
	unsigned int i = next(12);
	uint64_t p;

	if (ws[i] && next(16))
		return ws[i];
	p = next(400);
	ws[i] = p < 300 ? 0x400 + p : (0xffff800000000000ull >> KP_TLB_PAGE) + p;
	return ws[i];
}

/* the next generation, 1..4095 as the plugin's (kp_model.c's KP_GEN_MAX) */
static uint64_t next_gen(struct kp_sim *s, uint64_t gen)
{
	if (gen < 4095)
		return gen + 1;
	kp_sim_tlb_forget_gen(s);
	return 1;
}

/* a run of the TLB stream: the simulator, the reference, the guest's state */
struct trun {
	struct kp_sim s;
	uint64_t frame[1024]; /* each page's physical page */
	struct kp_miss got[NTGEOM], want[NTGEOM];
	struct rtlb ri[NTGEOM], rd[NTGEOM];
	uint64_t epoch, pcid_bits, tag, gen, last_ip;
	int pti, pcid, large;
};

/* a CR3 write, derived or not, flushing or not */
static void tlb_cr3(struct trun *t)
{
	int derived = next(2), flush = next(2), g;
	uint64_t mask = next(1u << 12), val = next(1u << 12);

	kp_sim_cr3(&t->s, derived, mask, val, flush);
	if (!derived) {
		t->epoch++;
		t->pcid_bits = 0;
	} else if (t->pcid) {
		t->pcid_bits = (t->pcid_bits & ~mask) | (val & mask);
	}
	t->tag = t->epoch << 12 | (t->pcid ? t->pcid_bits : 0);
	for (g = 0; g < NTGEOM && flush; g++) {
		rtlb_flush(&t->ri[g], t->pcid ? KP_FLUSH_TAG : KP_FLUSH_NONGLOBAL, t->tag);
		rtlb_flush(&t->rd[g], t->pcid ? KP_FLUSH_TAG : KP_FLUSH_NONGLOBAL, t->tag);
	}
	t->gen = next_gen(&t->s, t->gen);
	t->last_ip = KP_NO_TAG;
}

/* a MOV to CR4 or an INVPCID */
static void tlb_flush(struct trun *t)
{
	enum kp_tlb_flush how = next(2) ? KP_FLUSH_ALL : KP_FLUSH_NONGLOBAL;
	int g;

	kp_sim_tlb_flush(&t->s, how);
	for (g = 0; g < NTGEOM; g++) {
		rtlb_flush(&t->ri[g], how, t->tag);
		rtlb_flush(&t->rd[g], how, t->tag);
	}
	t->gen = next_gen(&t->s, t->gen);
	t->last_ip = KP_NO_TAG;
}

/*
 * the reference's page of va at pa: a kernel page mapped at a multiple of
 * 2 MiB from its physical page is a 2 MiB one, when large pages are on
 */
static int rbig(const struct trun *t, uint64_t va, uint64_t pa)
{
	return t->large && va >= 0xffff800000000000ull && (va - pa) % (2u << 20) == 0;
}

/* the reference's number of a page (2 MiB ones apart from any 4 KiB one) */
static uint64_t rpage(uint64_t va, int big)
{
	return big ? (1ull << 44) + (va >> 21) : va >> KP_TLB_PAGE;
}

/* a fetch (I-TLB) or an access (D-TLB, through kp_tlb_fast as kp_run.c) */
static void tlb_access(struct trun *t, uint64_t page, bool fetch)
{
	unsigned int size = next(8) ? 4 : 4096; /* now and then across two pages */
	uint64_t va = page << KP_TLB_PAGE | (size == 4 ? next(4092) : 0x800);
	uint64_t pa = t->frame[page % 1024] << KP_TLB_PAGE | (va & 0xfff);
	int big = rbig(t, va, pa), global = !t->pti && va >= 0xffff800000000000ull, g;
	uint64_t vp = rpage(va, big), end = rpage(va + size - 1, big);
	int fast = size == 4;

	if (fetch) {
		kp_sim_itlb(&t->s, t->got, va, pa, size, t->gen);
	} else {
		/* the key the plugin notes with a line: its page's, 4 KiB or 2 MiB */
		uint64_t key = kp_tlb_vpage(va, kp_tlb_large(t->large, va, pa));

		for (g = 0; g < NTGEOM; g++)
			fast &= kp_tlb_fast(&t->s.geom[g].dtlb, key, t->gen);
		if (!fast)
			kp_sim_tlb(&t->s, t->got, false, va, pa, size, t->gen);
	}
	/* the page fetched last hits, unchanged (the simulator's shortcut) */
	if (fetch && vp == t->last_ip && end == vp)
		return;
	for (g = 0; g < NTGEOM; g++) {
		struct rtlb *r = fetch ? &t->ri[g] : &t->rd[g];
		int miss = rtlb_ref(r, vp, t->tag, pa >> (big ? 21 : KP_TLB_PAGE), global);

		if (end != vp)
			miss |= rtlb_ref(r, end, t->tag, KP_TLB_ANY, global);
		if (fetch)
			t->want[g].itlb_miss += miss;
		else
			t->want[g].dtlb_miss += miss;
	}
	if (fetch)
		t->last_ip = end;
}

/* one run of the TLB stream with the guest's pti and pcid, large pages or not: 0 when equal */
static int tlb_run(int pti, int pcid, int large)
{
	static struct trun t;
	long k;
	int g, bad = 0;

	memset(&t, 0, sizeof(t));
	t.pti = t.s.pti = pti;
	t.pcid = t.s.pcid = pcid;
	t.large = t.s.large = large;
	t.gen = 1;
	t.last_ip = KP_NO_TAG;
	for (g = 0; g < NTGEOM; g++) {
		if (!kp_sim_add_geom(&t.s, tgeoms[g]))
			return 1;
		rtlb_init(&t.ri[g], &t.s.geom[g].itlb);
		rtlb_init(&t.rd[g], &t.s.geom[g].dtlb);
	}
	kp_sim_init(&t.s);
	for (k = 0; k < 1024; k++)
		t.frame[k] = 0x1000 + k;
	for (k = 0; k < 1000000; k++) {
		uint64_t vp = tpage();
		int op = next(100);

		if (op == 0) {
			tlb_cr3(&t);
		} else if (op == 1) {
			tlb_flush(&t);
		} else if (op == 2) { /* a page remapped, and the generation with it */
			t.frame[vp % 1024] = 0x100000 + next(1 << 20);
			/* a 4 KiB page (a chance 2 MiB offset would be a 2 MiB page's: below) */
			if (large && (vp - t.frame[vp % 1024]) % 512 == 0)
				t.frame[vp % 1024]++;
			t.gen = next_gen(&t.s, t.gen);
		} else if (op == 3 && large) { /* the kernel's 2 MiB page moved, whole */
			uint64_t to = 0x200000 + 512 * next(64), p;

			for (p = 300; p < 400; p++)
				t.frame[p] = to + p;
			t.gen = next_gen(&t.s, t.gen);
		} else {
			tlb_access(&t, vp, op < 50);
		}
	}
	for (g = 0; g < NTGEOM; g++) {
		printf("tlb pti %d pcid %d large %d %s: itlb_miss %" PRIu64 " dtlb_miss %" PRIu64
		       "\n",
		       pti, pcid, large, tgeoms[g], t.got[g].itlb_miss, t.got[g].dtlb_miss);
		if (t.got[g].itlb_miss != t.want[g].itlb_miss ||
		    t.got[g].dtlb_miss != t.want[g].dtlb_miss) {
			printf("FAIL: the reference has itlb_miss %" PRIu64 " dtlb_miss %" PRIu64
			       "\n",
			       t.want[g].itlb_miss, t.want[g].dtlb_miss);
			bad = 1;
		}
	}
	return bad;
}

static int refused(const char *spec)
{
	struct kp_sim s = {0};

	return !kp_sim_add_geom(&s, spec);
}

/*
 * The walker's cache of upper levels: walks in five 2 MiB ranges, then
 * again: the first range's second walk finds it (kept), a page apart
 * and the range's last byte too; the fifth range replaced the first (four
 * kept), so the first misses again; a flush forgets all.
 */
static int pwc_run(void)
{
	static const struct {
		uint64_t va;
		bool kept;
	} walks[] = {{0x200000, false}, {0x201000, true},  {0x3fffff, true},
		     {0x400000, false}, {0x600000, false}, {0x800000, false},
		     {0xa00000, false}, {0x200000, false}, {0xa01000, true}};
	struct kp_pwc p = {0};
	unsigned int i, bad = 0;

	kp_pwc_flush(&p);
	for (i = 0; i < sizeof(walks) / sizeof(walks[0]); i++)
		bad += kp_pwc_walk(&p, walks[i].va) != walks[i].kept;
	kp_pwc_flush(&p);
	bad += kp_pwc_walk(&p, 0xa01000);
	printf("walker's cache: %u walks as kept or not, %u wrong\n", i + 1, bad);
	return bad != 0;
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
	    !refused("32768:8:64/32768:8:64") || !refused("32768:8:64/32768:8:64/8388608:16:64x") ||
	    !refused("32768:8:64/32768:8:64/8388608:16:64/100:4/64:4") ||
	    !refused("32768:8:64/32768:8:64/8388608:16:64/128:8/4:8") ||
	    !refused("32768:8:64/32768:8:64/8388608:16:64/128:8") ||
	    !refused("32768:8:64/32768:8:64/8388608:16:64/128:8/64")) {
		printf("FAIL: a bad geometry was accepted\n");
		bad = 1;
	}
	bad |= tlb_run(0, 0, 0) | tlb_run(1, 0, 0) | tlb_run(0, 1, 0) | tlb_run(1, 1, 0);
	bad |= tlb_run(0, 0, 1) | tlb_run(1, 1, 1);
	return bad | pwc_run();
}
