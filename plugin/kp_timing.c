// SPDX-License-Identifier: GPL-2.0-only
/* mode=timing: latencies from the caches, the predictor and the core (kp_timing.h). */
#include "kp_timing.h"

#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "kp_x86_deps.h"

#define KP_LINE_BITS 6		  /* the prefetchers' lines */
#define KP_TLINE     64		  /* a fast string's line, bytes */
#define KP_TPF_MAX   16		  /* lines one access may prefetch */
#define KP_TPT_BASE  (1ull << 56) /* where the page entries' lines are placed: above any RAM */

/* L1's prefetchers (next-line, IP-stride) and L2's (the streamer), as asked */
static int kp_tpf_init(struct kp_timing *t)
{
	const struct kp_tpf *a = &t->pf_arg;
	struct kp_pf_cfg l1 = {.line_bits = KP_LINE_BITS,
			       .next_line = a->next_line,
			       .ip_entries = a->stride_entries,
			       .ip_distance = a->stride_distance};
	struct kp_pf_cfg l2 = {.line_bits = KP_LINE_BITS,
			       .streams = a->streams,
			       .stream_distance = a->stream_distance,
			       .stream_degree = a->stream_degree,
			       .next_page = a->next_page};

	return kp_pf_init(&t->pf_l1, &l1) ?: kp_pf_init(&t->pf_l2, &l2);
}

bool kp_timing_init(struct kp_timing *t, struct kp_geom *g)
{
	const char *bad;

	t->g = g;
	t->core_cfg.l2 = t->lat.l2;
	t->core_cfg.ll = t->lat.ll;
	t->core_cfg.dram = t->lat.dram;
	t->core_cfg.dram_line = t->lat.dram_line;
	t->core_cfg.dram_wline = t->lat.dram_wline;
	t->core_cfg.page_cross = t->lat.page_cross;
	if (kp_core_init(&t->core, &t->core_cfg, &bad)) {
		fprintf(stderr, "kp_model: core.%s: missing or out of bounds\n", bad);
		return false;
	}
	if (!t->lat.l1 || !t->lat.l2 || !t->lat.ll || !t->lat.dram || !t->lat.string_uops) {
		fprintf(stderr, "kp_model: mode=timing needs lat.l1, lat.l2, lat.ll, lat.dram and"
				" lat.string_uops\n");
		return false;
	}
	if (!t->l2_spec || !t->stlb_spec) {
		fprintf(stderr,
			"kp_model: mode=timing needs l2=SIZE:ASSOC:LINE and stlb=ENTRIES:ASSOC\n");
		return false;
	}
	if (t->sample.period > 1 && t->sample.warm >= t->sample.len) {
		fprintf(stderr, "kp_model: sample.warm=%u: want less than sample.len=%u\n",
			t->sample.warm, t->sample.len);
		return false;
	}
	if (!kp_cache_new(&t->l2, "l2", t->l2_spec) || !kp_tlb_new(&t->stlb, "stlb", t->stlb_spec))
		return false;
	t->dirty = calloc(KP_TDIRTY_BYTES >> KP_LINE_BITS >> 6, sizeof(*t->dirty));
	if (!t->dirty) {
		fprintf(stderr, "kp_model: mode=timing: out of memory\n");
		return false;
	}
	kp_pwc_flush(&t->pwc);
	/* each says what it refused */
	return !kp_bpred_init(&t->bp, &t->bp_cfg) && !kp_tpf_init(t);
}

/* ---- translation ---- */

/* the events that wait for everything older to retire, and hold the front end until they do */
static bool kp_tserial(uint8_t ev)
{
	switch (ev) {
	case KP_EV_LFENCE:
	case KP_EV_MFENCE:
	case KP_EV_CPUID:
	case KP_EV_WRMSR:
	case KP_EV_IRET:
	case KP_EV_SYSRET:
	case KP_EV_SYSEXIT:
	case KP_EV_MOV_CR3:
	case KP_EV_MOV_CR:
	case KP_EV_MOV_DR:
	case KP_EV_INVPCID:
	case KP_EV_WBINVD:
	case KP_EV_LXDT:
	case KP_EV_SERIALIZE:
	case KP_EV_SYSCALL:
		return true;
	default:
		return false;
	}
}

static uint8_t kp_tbranch(const struct kp_x86_deps *d)
{
	switch (d->kind) {
	case KP_DK_JCC:
		return KP_TB_COND;
	case KP_DK_CALL:
		return KP_TB_CALL;
	case KP_DK_CALL_IND:
		return KP_TB_CALL_IND;
	case KP_DK_JMP_IND:
		return KP_TB_JMP_IND;
	case KP_DK_RET:
		return KP_TB_RET;
	default:
		return KP_TB_NONE;
	}
}

/* mov between general registers (89, 8B; REX, 66 before): renamed, no latency */
static bool kp_tmove(const uint8_t *b, size_t len)
{
	size_t i = 0;

	while (i < len && (b[i] == 0x66 || (b[i] & 0xf0) == 0x40))
		i++;
	return i + 1 < len && (b[i] == 0x89 || b[i] == 0x8b) && b[i + 1] >= 0xc0;
}

/*
 * The cycles after its sources (and its load): a load that writes no flags
 * and takes one cycle is a move (mov, movzx, movsx), whose latency is the
 * load's alone, which lat.l1 already is; a register move is renamed away
 * (move elimination, on every core the shipped descriptions model).
 */
static uint32_t kp_tlat_after(const struct kp_x86_deps *d, const uint8_t *b, size_t len)
{
	if (d->load && d->lat == 1 && !(d->dst & KP_R_BIT(KP_R_FLAGS)))
		return 0;
	return kp_tmove(b, len) ? 0 : d->lat;
}

void kp_timing_decode(struct kp_timing *t, struct kp_tinsn *ti, const uint8_t *b, size_t len,
		      uint64_t va, uint8_t ev)
{
	struct kp_x86_deps d;

	kp_x86_deps(b, len, &d);
	ti->vaddr = va;
	ti->len = len;
	ti->src = d.src;
	ti->dst = d.dst;
	ti->addr = d.addr;
	ti->lat = kp_tlat_after(&d, b, len);
	ti->uops = d.uops;
	ti->fixed = t->lat.ev[ev];
	ti->flags = kp_tbranch(&d) |
		    (d.kind == KP_DK_REP_MOVS || d.kind == KP_DK_REP_STOS ? KP_TI_STRING : 0) |
		    (kp_tserial(ev) ? KP_TI_SERIALIZING : 0) | (d.known ? KP_TI_KNOWN : 0) |
		    (d.load ? KP_TI_LOADS : 0) | (d.store ? KP_TI_STORES : 0);
}

size_t kp_tblock_size(uint32_t n)
{
	return 2 * 64 + sizeof(struct kp_tblock) +
	       n * (sizeof(struct kp_tinsn) + sizeof(struct kp_tsite));
}

struct kp_tblock *kp_tblock_init(void *mem, uint32_t n)
{
	struct kp_tblock *b = (void *)(((uintptr_t)mem + 63) & ~(uintptr_t)63);

	b->n = n;
	b->ts = (struct kp_tsite *)(b + 1);
	b->ti = (struct kp_tinsn *)(((uintptr_t)(b->ts + n) + 63) & ~(uintptr_t)63);
	return b;
}

void kp_tblock_seal(struct kp_tblock *b)
{
	const struct kp_tinsn *last = b->n ? &b->ti[b->n - 1] : NULL;

	b->start = b->n ? b->ti[0].vaddr : 0;
	if (last && last->len) {
		b->last_va = last->vaddr;
		b->last_len = last->len;
		b->last_flags = last->flags;
	}
}

/* ---- execution ---- */

/*
 * this execution's notes on ts, cleared at its first; NULL when it is not
 * of the block executing (the window opened inside this one)
 */
static struct kp_tnote *kp_tnote(struct kp_timing *t, const struct kp_tsite *ts)
{
	size_t i;
	struct kp_tnote *n;

	if (!t->pending)
		return NULL;
	i = ts - t->pending->ts;
	if (i >= t->pending->n || i >= KP_TNOTES)
		return NULL;
	n = &t->notes[i];
	if (t->noted[i / 64] & 1ull << (i % 64))
		return n;
	t->noted[i / 64] |= 1ull << (i % 64);
	*n = (struct kp_tnote){.pf_off = t->npf};
	return n;
}

/*
 * Whether the LL hit on the line at pa is one of the ll_lost in a million
 * served at DRAM's latency (kp_ll_lost): the hits timed so far number the
 * draw, so that the same run draws the same.
 */
static bool kp_tlost(struct kp_timing *t, uint64_t pa)
{
	return t->lat.ll_lost && kp_ll_lost(pa >> KP_LINE_BITS, ++t->ll_hits, t->lat.ll_lost);
}

/*
 * where a line missing L1 (I or D) comes from: L2, LL or DRAM; *l2_miss:
 * not L2; *ll_miss (in: LL lacked it) set when an LL hit was lost
 */
static uint32_t kp_tbeyond(struct kp_timing *t, uint64_t pa, unsigned int size, bool *ll_miss,
			   bool *l2_miss)
{
	*l2_miss = kp_ref(&t->l2, pa, size);
	if (!*l2_miss)
		return t->lat.l2;
	if (!*ll_miss && kp_tlost(t, pa))
		*ll_miss = true;
	return *ll_miss ? t->lat.dram : t->lat.ll;
}

/*
 * A translation that missed the first-level TLB: the STLB's, or a walk
 * too, whose last load, of the page's entry, goes through L2 and LL.  The
 * plugin cannot read the guest's page tables (API 1): the entries are
 * placed where a page table keeps them, 8 to a line in the order of their
 * pages, in an address range of their own above any RAM, so that a walk of
 * a page near the last one hits the line that walk brought (a 2 MiB page's
 * entry is a level up: its vpage, marked, keeps it apart).  The upper
 * levels are taken to hit the walker's own caches: lat.walk is their cost
 * and the walk's start, what a walk at random pays (calibrate's chase);
 * none where the walker keeps the page's 2 MiB range (kp_pwc: a stream's
 * next page, a column's walk near the last one).
 */
static uint32_t kp_ttlb(struct kp_timing *t, uint64_t va, uint64_t pa)
{
	uint64_t vp = kp_tlb_vpage(va, kp_tlb_large(t->large, va, pa));
	uint64_t pte = KP_TPT_BASE | vp << 3;
	bool l2_miss, ll_miss;

	if (!kp_tlb_ref(&t->stlb, vp, 0, KP_TLB_ANY, false, 0))
		return t->lat.stlb;
	ll_miss = kp_ref(&t->g->ll, pte, 8);
	return t->lat.stlb + (kp_pwc_walk(&t->pwc, va) ? 0 : t->lat.walk) +
	       kp_tbeyond(t, pte, 8, &ll_miss, &l2_miss);
}

/*
 * Memory sent the line at pa: it is clean until a store dirties it again (a
 * line a prefetcher brought as much as a demand miss, or a stream whose
 * every line is prefetched would go back to memory only once, ever)
 */
static void kp_tclean(struct kp_timing *t, uint64_t pa)
{
	uint64_t line = pa >> KP_LINE_BITS;

	if (pa < KP_TDIRTY_BYTES)
		t->dirty[line >> 6] &= ~(1ull << (line & 63));
}

/*
 * A line a prefetcher asks for, into L2 and LL and, for L1's, D1: timed
 * (kp_core.h) unless it was there already; *l2_miss when L2 lacked it.
 */
static void kp_tpf_line(struct kp_timing *t, struct kp_tnote *n, uint64_t line, bool to_d1,
			bool *l2_miss)
{
	uint64_t a = line << KP_LINE_BITS;
	bool dram = kp_ref(&t->g->ll, a, 1), d1_miss = to_d1 && kp_ref(&t->g->d1, a, 1);

	if (to_d1)
		t->d1_moved |= 1ull << ((a >> t->g->d1.line_bits) & 63);

	*l2_miss = kp_ref(&t->l2, a, 1);
	if (!*l2_miss && !d1_miss)
		return;
	if (*l2_miss && dram)
		kp_tclean(t, a);
	t->prefetches++;
	if (t->npf == KP_TPF_BLOCK)
		return;
	t->pf[t->npf++] = line | (!*l2_miss ? KP_CORE_PF_L2 : dram ? KP_CORE_PF_DRAM : 0);
	n->npf++;
}

/*
 * an access of L2 (a D1 miss, or L1's prefetcher asking, in the page of
 * the access at va): the streamer's lines; a stream that reached its
 * page's edge remembered, to go on where va's next page is
 */
static void kp_tstream(struct kp_timing *t, struct kp_tnote *note, uint64_t ip, uint64_t pa,
		       bool l2_miss, uint64_t va)
{
	uint64_t lines[KP_TPF_MAX];
	unsigned int i, n = kp_pf_access(&t->pf_l2, ip, pa, l2_miss, lines, KP_TPF_MAX);
	bool m;

	for (i = 0; i < n; i++)
		kp_tpf_line(t, note, lines[i], false, &m);
	kp_pf_arm(&t->pf_l2, va, kp_core_now(&t->core));
}

/*
 * A demand access at va, pa missing D1 where a stream was going
 * (kp_prefetch.h): the lines the stream fetches on entering the page, its
 * own among them, asked for at the time it reached the edge plus the walk
 * the prefetcher made (the access finds its translation in the STLB: the
 * cycles returned); its line waits for that fetch instead of missing.
 */
static uint32_t kp_tcross(struct kp_timing *t, struct kp_tnote *n, uint64_t va, uint64_t pa,
			  bool tlb_miss, bool ll_miss)
{
	uint64_t lines[KP_TPF_MAX], own = pa >> KP_LINE_BITS;
	double at;
	int dir = kp_pf_crossing(&t->pf_l2, va, &at);
	unsigned int i, k;
	uint32_t walk;
	bool l2_miss;

	if (!dir)
		return UINT32_MAX;
	walk = tlb_miss ? kp_ttlb(t, va, pa) : 0;
	k = kp_pf_enter(&t->pf_l2, pa, dir, lines, KP_TPF_MAX);
	n->pf_from = at + walk;
	n->pf_early = 1;
	kp_tbeyond(t, pa, 1, &ll_miss, &l2_miss);
	for (i = 0; i < k && t->npf < KP_TPF_BLOCK; i++) {
		uint32_t before = n->npf;

		if (lines[i] != own) {
			kp_tpf_line(t, n, lines[i], false, &l2_miss);
		} else {
			t->prefetches++;
			t->pf[t->npf++] = own | (!l2_miss ? KP_CORE_PF_L2 : ll_miss ? KP_CORE_PF_DRAM : 0);
			n->npf++;
		}
		if (n->npf != before)
			t->pf[t->npf - 1] |= KP_CORE_PF_EARLY;
	}
	return tlb_miss ? t->lat.stlb : 0;
}

/*
 * The prefetchers see the accesses of their level: L1's every data access,
 * the L2 streamer every access of L2, which are D1's misses and L1's
 * prefetches of lines D1 lacked (as on Intel's cores, whose streamer runs
 * ahead of the L1 prefetchers' requests).
 */
static void kp_tprefetch(struct kp_timing *t, struct kp_tnote *note, uint64_t ip, uint64_t pa,
			 bool d1_miss, bool l2_miss, uint64_t va)
{
	uint64_t lines[KP_TPF_MAX];
	unsigned int i, n = kp_pf_access(&t->pf_l1, ip, pa, d1_miss, lines, KP_TPF_MAX);
	bool m;

	for (i = 0; i < n; i++) {
		uint32_t before = note->npf;

		kp_tpf_line(t, note, lines[i], true, &m);
		if (note->npf != before)
			kp_tstream(t, note, ip, lines[i] << KP_LINE_BITS, m, va);
	}
	if (d1_miss)
		kp_tstream(t, note, ip, pa, l2_miss, va);
}

/*
 * A line memory sent is clean; a store dirties it, and it will go back
 * (charged now: kp_core.h).  Lines past KP_TDIRTY_BYTES are not tracked.
 */
static void kp_tdirty(struct kp_timing *t, struct kp_tnote *n, uint64_t pa, bool ll_miss,
		      bool store)
{
	uint64_t line = pa >> KP_LINE_BITS, bit = 1ull << (line & 63);
	uint64_t *w = &t->dirty[line >> 6];

	if ((!store && !ll_miss) || pa >= KP_TDIRTY_BYTES)
		return;
	if (ll_miss)
		kp_tclean(t, pa);
	if (store && !(*w & bit)) {
		*w |= bit;
		n->writebacks++;
	}
}

void kp_timing_warm(struct kp_timing *t, bool l1_miss, bool tlb_miss, uint64_t va, uint64_t pa,
		    unsigned int size)
{
	if (!t->skipped)
		return;
	if (l1_miss && pa)
		kp_ref(&t->l2, pa, size);
	if (tlb_miss)
		kp_ttlb(t, va, pa);
}

void kp_timing_access(struct kp_timing *t, const struct kp_tsite *ts, bool d1_miss, bool ll_miss,
		      bool tlb_miss, uint64_t pa, unsigned int size, bool store, uint64_t va)
{
	struct kp_tnote *n = kp_tnote(t, ts);
	uint32_t lat = t->lat.l1, tlb;
	bool l2_miss = false, string;

	if (!n) {
		kp_timing_warm(t, d1_miss, tlb_miss, va, pa, size);
		return;
	}
	/* the instruction's line is read only here: between samples the callbacks leave it */
	string = ts->ti->flags & KP_TI_STRING;
	if (pa)
		kp_tdirty(t, n, pa, ll_miss, store);
	if (d1_miss && pa && t->pf_arg.next_page && !string &&
	    (tlb = kp_tcross(t, n, va, pa, tlb_miss, ll_miss)) != UINT32_MAX)
		d1_miss = ll_miss = tlb_miss = false;
	else
		tlb = 0;
	if (d1_miss)
		lat = kp_tbeyond(t, pa, size, &ll_miss, &l2_miss);
	if (tlb_miss)
		tlb = kp_ttlb(t, va, pa);
	/*
	 * a fast string's stores write whole lines: nothing for a prefetcher to
	 * fetch (its IP-stride entry would see a byte's stride, and fetch the next
	 * line from memory, a read the string spares)
	 */
	if (pa && (!store || !string))
		kp_tprefetch(t, n, ts->ti->vaddr, pa, d1_miss, l2_miss, va);
	if (store) {
		n->bytes += size;
		n->store_line = pa >> KP_LINE_BITS;
		if (d1_miss && lat + tlb > n->store_lat) {
			n->store_lat = lat + tlb;
			n->store_dram = ll_miss;
			n->store_beyond = l2_miss;
		}
		return;
	}
	if (lat + tlb >= n->load_lat) {
		n->load_lat = lat + tlb;
		n->load_tlb = tlb;
		n->load_line = pa >> KP_LINE_BITS;
		n->load_dram = d1_miss && ll_miss;
		n->load_beyond = d1_miss && l2_miss;
	}
	n->load_miss |= d1_miss;
}

void kp_timing_fetch(struct kp_timing *t, const struct kp_tsite *ts, bool i1_miss, bool ll_miss,
		     bool tlb_miss, uint64_t pa)
{
	struct kp_tnote *n = kp_tnote(t, ts);
	bool l2_miss;

	if (!n) {
		kp_timing_warm(t, i1_miss, tlb_miss, ts->ti->vaddr, pa, 1);
		return;
	}
	if (i1_miss)
		n->fetch_stall += kp_tbeyond(t, pa, 1, &ll_miss, &l2_miss);
	if (tlb_miss)
		n->fetch_stall += kp_ttlb(t, ts->ti->vaddr, pa);
}

void kp_timing_tlb_flush(struct kp_timing *t)
{
	uint64_t i;

	for (i = 0; i < t->stlb.entries; i++)
		t->stlb.e[i] = (struct kp_tlbent){KP_NO_TAG, 0, KP_TLB_ANY, 0};
	memset(t->stlb.mru, 0, (t->stlb.set_mask + 1) * sizeof(*t->stlb.mru));
	kp_pwc_flush(&t->pwc);
}

/* the predictor's verdict on the branch ending a block (at va, len bytes, KP_TI_* flags), which
 * went to next: mispredicted */
static bool kp_tpredict(struct kp_timing *t, uint64_t va, uint8_t len, uint8_t flags, uint64_t next)
{
	uint64_t after = va + len;

	switch (flags & KP_TI_BRANCH) {
	case KP_TB_COND:
		return kp_bpred_cond(&t->bp, va, next != after);
	case KP_TB_CALL:
		kp_bpred_call(&t->bp, after);
		return false;
	case KP_TB_CALL_IND:
		kp_bpred_call(&t->bp, after);
		return kp_bpred_indirect(&t->bp, va, next);
	case KP_TB_JMP_IND:
		return kp_bpred_indirect(&t->bp, va, next);
	case KP_TB_RET:
		return kp_bpred_ret(&t->bp, next);
	default:
		return false;
	}
}

/* its rows' cycles into its PC's, in double */
static void kp_tfold_one(struct kp_tinsn *ti, struct kp_cyc *c)
{
	int k;

	for (k = 0; k < KP_ST_N; k++) {
		c->cycles += ti->acc[k];
		c->stack[k] += ti->acc[k];
		ti->acc[k] = 0;
	}
}

static void kp_tcharge(struct kp_tinsn *ti, const struct kp_tsite *ts,
		       const struct kp_core_charge *ch)
{
	/*
	 * the two additions in registers, rounded as in place: the row why is
	 * mostly base itself, whose store a load from a computed index would
	 * wait for
	 */
	float base = (float)(ti->acc[KP_ST_BASE] + ch->base), why;

	if (ch->why == KP_ST_BASE) {
		why = base = (float)(base + (ch->cycles - ch->base));
	} else {
		why = (float)(ti->acc[ch->why] + (ch->cycles - ch->base));
		ti->acc[ch->why] = why;
	}
	ti->acc[KP_ST_BASE] = base;
	if (base >= KP_TACC_MAX || why >= KP_TACC_MAX)
		kp_tfold_one(ti, ts->cyc);
}

/*
 * A fast string's iteration after its first: the core gets lat.string_uops
 * uops for each 64-byte line the iterations store, carrying the slowest
 * load among them, as a fast-string engine moves whole lines, not
 * elements; an iteration that missed is handed over at once.  A store of
 * it reads no line from memory (a fast string writes whole lines, without
 * a read for ownership there; a line L2 or LL has is taken from it) but
 * waits for the channel to take the line it dirtied.
 */
static bool kp_tstring(struct kp_timing *t, const struct kp_tinsn *ti, const struct kp_tnote *n,
		       struct kp_core_insn *in)
{
	if (t->string_at != ti) {
		t->string_at = ti;
		t->string_bytes = 0;
		return true;
	}
	t->string_bytes += n ? n->bytes : 0;
	if (t->string_bytes < KP_TLINE && !in->load_miss && !in->store_lat)
		return false;
	t->string_bytes = t->string_bytes > KP_TLINE ? t->string_bytes - KP_TLINE : 0;
	in->src = in->dst = in->addr = 0;
	in->renames = false;
	in->uops = t->lat.string_uops;
	in->lat = 0;
	/* whole lines written: none read from memory for ownership (a line a cache has is
	 * taken from it), the line's writeback waited for */
	if (in->store_dram)
		in->store_lat = 0;
	in->store_dram = false;
	in->string_line = true;
	return true;
}

/* a general register but the stack pointer, or the flags */
#define KP_TALU_DST ((KP_R_GPRS & ~KP_R_BIT(KP_R_RSP)) | KP_R_BIT(KP_R_FLAGS))

/*
 * Whether ti's operation runs on an integer ALU pipe: a branch (the
 * branch units sit on them), or one with a latency of its own (a plain
 * load or a renamed move has none) writing a general register or the
 * flags and no vector register (a store, a push, a NOP write none)
 */
static bool kp_talu(const struct kp_tinsn *ti)
{
	return (ti->flags & KP_TI_BRANCH) ||
	       (ti->lat && ti->dst & KP_TALU_DST && !(ti->dst & KP_R_XMMS));
}

/* what the core is told of ti's execution (n: what it met, NULL: nothing noted) */
static void kp_tcore_insn(const struct kp_timing *t, const struct kp_tinsn *ti,
			  const struct kp_tnote *n, struct kp_core_insn *in)
{
	/* every field set, none cleared first: a block's hand-over does this an instruction */
	static const struct kp_tnote none;

	if (!n)
		n = &none;
	in->src = ti->src;
	in->addr = ti->addr;
	in->dst = ti->dst;
	in->end = ti->vaddr + ti->len - 1;
	in->lat = ti->lat;
	in->uops = ti->uops;
	in->fixed = ti->fixed;
	in->serializing = ti->flags & KP_TI_SERIALIZING;
	in->loads = ti->flags & KP_TI_LOADS;
	in->stores = ti->flags & KP_TI_STORES;
	in->renames = ti->dst & KP_R_GPRS;
	in->alu = kp_talu(ti);
	in->mispredicted = in->taken = in->string_line = false;
	in->load_lat = n->load_lat;
	in->load_l1 = t->lat.l1;
	in->load_tlb = n->load_tlb;
	/* kp_ttlb's figure beyond an STLB hit is a walk's: it has its entry's load, lat.l2 >= 1 */
	in->load_walked = n->load_tlb > t->lat.stlb;
	in->load_miss = n->load_miss;
	in->load_line = n->load_line;
	in->load_dram = n->load_dram;
	in->store_dram = n->store_dram;
	in->load_beyond = n->load_beyond;
	in->store_beyond = n->store_beyond;
	in->pf = t->pf + n->pf_off;
	in->npf = n->npf;
	in->pf_from = n->pf_from;
	in->pf_early = n->pf_early;
	in->store_lat = n->store_lat;
	in->store_line = n->store_line;
	in->writebacks = n->writebacks;
	in->fetch_stall = n->fetch_stall;
}

/* the note of instruction i of the block handed over, if this execution wrote one */
static const struct kp_tnote *kp_tnoted(const struct kp_timing *t, uint32_t i)
{
	return i < KP_TNOTES && t->noted[i / 64] & 1ull << (i % 64) ? &t->notes[i] : NULL;
}

/* the cycles of a charged execution, for the PCs sampling never measured */
static void kp_tmeasured(struct kp_timing *t, const struct kp_core_charge *ch)
{
	t->measured_cyc[KP_ST_BASE] += ch->base;
	t->measured_cyc[ch->why] += ch->cycles - ch->base;
}

/* block b's execution to the core, next: where it went; charged unless a sample's warm-up */
static void kp_thand_over(struct kp_timing *t, struct kp_tblock *b, uint64_t next)
{
	struct kp_core_charge ch;
	struct kp_core_insn in;
	uint32_t i;

	for (i = 0; i < b->n; i++) {
		struct kp_tinsn *ti = &b->ti[i];
		const struct kp_tnote *n = kp_tnoted(t, i);

		if (!ti->len) /* a marker */
			continue;
		kp_tcore_insn(t, ti, n, &in);
		if (!(ti->flags & KP_TI_STRING))
			t->string_at = NULL;
		else if (!kp_tstring(t, ti, n, &in)) {
			kp_core_side(&t->core, &in);
			continue;
		}
		if (i + 1 == b->n && next) {
			in.taken = next != ti->vaddr + ti->len;
			if (ti->flags & KP_TI_BRANCH)
				in.mispredicted =
					kp_tpredict(t, ti->vaddr, ti->len, ti->flags, next);
		}
		kp_core_step(&t->core, &in, &ch);
		t->insns++;
		t->unknown += !(ti->flags & KP_TI_KNOWN);
		if (!t->charging)
			continue;
		kp_tcharge(ti, &b->ts[i], &ch);
		if (t->sample.period > 1)
			kp_tmeasured(t, &ch);
	}
	b->measured += t->charging;
	t->measured += t->charging ? b->n : 0;
	memset(t->noted, 0, sizeof(t->noted));
}

void kp_timing_fold(struct kp_tblock *b)
{
	uint32_t i;

	for (i = 0; i < b->n; i++)
		if (b->ti[i].len) {
			kp_tfold_one(&b->ti[i], b->ts[i].cyc);
			b->ts[i].cyc->measured += b->measured;
		}
	b->measured = 0;
}

/*
 * Whether the block starting at the clock goes to the core, and *charge
 * whether its cycles count: always, unless sampling (struct kp_tsample).
 */
static bool kp_tsampled(struct kp_timing *t, bool *charge)
{
	const struct kp_tsample *s = &t->sample;

	*charge = true;
	if (s->period <= 1)
		return true;
	/* no division a block: the interval moves on when the clock passes its end */
	while (t->clock >= t->until) {
		t->until += s->len;
		t->in_sample = t->intervals % s->period == 0;
		t->before_sample = (t->intervals + 1) % s->period == 0;
		t->intervals++;
	}
	*charge = kp_tsample_charged(t);
	return t->in_sample;
}

void *kp_tblock_tag(struct kp_tblock *b)
{
	return (void *)((uintptr_t)b | (b->n < KP_TBLOCK_TAG ? b->n : KP_TBLOCK_TAG));
}

void kp_timing_block_full(struct kp_timing *t, void *tag)
{
	struct kp_tblock *b = (void *)((uintptr_t)tag & ~(uintptr_t)KP_TBLOCK_TAG);
	const struct kp_tblock *s = t->skipped;
	uint32_t n = (uintptr_t)tag & KP_TBLOCK_TAG;
	uint64_t next = 0;
	bool charge = true;

	/* between samples a block's own line is read only when the predictor learns */
	if (b && (t->pending || (s && t->before_sample) || n == KP_TBLOCK_TAG)) {
		next = b->start;
		n = b->n;
	}
	if (t->pending)
		kp_thand_over(t, t->pending, next);
	if (s && next && s->last_flags & KP_TI_BRANCH && t->before_sample)
		kp_tpredict(t, s->last_va, s->last_len, s->last_flags, next);
	/* between samples the notes stay unwritten, the core idle: the caches' work, warming */
	t->pending = b && kp_tsampled(t, &charge) ? b : NULL;
	t->skipped = t->pending ? NULL : b;
	t->charging = charge;
	t->clock += n;
	t->npf = 0;
}
