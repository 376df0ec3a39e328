// SPDX-License-Identifier: GPL-2.0-only
/* kp_model's run-time callbacks: counting, caches, TLBs, markers (kp_model.h) */
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "kp_model.h"

/*
 * udata is the instruction's struct kp_fetch, bit 0 set when the
 * instruction spans two lines.  The same one as the last fetch simulated,
 * within one line, is that line again: the most recent of its set, a hit
 * that changes nothing (no other fetch came between).
 */
static __attribute__((noinline)) unsigned int kp_fetch(void *udata)
{
	const struct kp_fetch *f = (void *)((uintptr_t)udata & ~(uintptr_t)1);
	unsigned int g0;

	g0 = kp_sim_fetch(&kp.sim, f->pc->miss, f->haddr - kp.ioff, f->size);
	g0 |= kp_sim_itlb(&kp.sim, f->pc->miss, f->vaddr, f->haddr - kp.ioff, f->size, kp.tlb_gen);
	kp.last_fetch = (uintptr_t)udata & 1 ? NULL : udata;
	return g0;
}

/* the checks that return at once apart: they need no registers saved */
void kp_fetch_cb(unsigned int vcpu, void *udata)
{
	if (unlikely(!kp.active) || udata == kp.last_fetch)
		return;
	kp_fetch(udata);
}

/* what the TLB may match: nothing until the calibration load is seen */
void kp_tlb_match(void)
{
	kp.tlb_match = kp.calib_pending ? KP_GEN_MAX + 1 : kp.tlb_gen;
}

/*
 * the plugin's TLB, the D1 sets' recent lines and the simulated TLBs'
 * most recent entries forget every page (a new generation), and so does
 * the fetch simulated last: it may have flushed the simulated TLBs
 */
static void kp_tlb_flush(void)
{
	int g;

	if (++kp.tlb_gen > KP_GEN_MAX) {
		memset(kp.tlb, 0, sizeof(kp.tlb));
		for (g = 0; g < kp.sim.ngeom; g++)
			memset(kp.vmru[g], 0,
			       (kp.sim.geom[g].d1.set_mask + 1) * sizeof(*kp.vmru[g]));
		kp_sim_tlb_forget_gen(&kp.sim);
		kp.tlb_gen = 1;
	}
	kp.last_fetch = NULL;
	kp.sim.last_ipage = KP_NO_TAG;
	kp_tlb_match();
}

/*
 * udata is the instruction's struct kp_insn: a write to a control register,
 * invlpg, invpcid... (kp_x86_flushes_tlb).  The simulated TLBs follow the
 * guest's writes between windows too (only their lookups stop).  INVLPG's
 * page is not known (a register's value): what it flushes shows as a
 * physical page that changed at the next lookup (kp_tlb_ref).
 */
void kp_tlb_cb(unsigned int vcpu, void *udata)
{
	const struct kp_insn *in = udata;

	kp_tlb_flush();
	if (kp.mode == KP_TIMING && in->tlbflush)
		kp_timing_tlb_flush(&kp.tm);
	switch (in->tlbop) {
	case KP_OP_CR3:
		kp_sim_cr3(&kp.sim, in->cr3_derived, in->cr3_mask, in->cr3_val, in->tlbflush);
		break;
	case KP_OP_FLUSH_ALL:
		kp_sim_tlb_flush(&kp.sim, KP_FLUSH_ALL);
		break;
	case KP_OP_FLUSH_NONGLOBAL:
		kp_sim_tlb_flush(&kp.sim, KP_FLUSH_NONGLOBAL);
		break;
	}
}

/*
 * the guest's calibration load: see the comment at the top.  Fetches'
 * physical pages change meaning: a new generation for the TLBs' shortcuts.
 */
void kp_calibrate(uint64_t pa)
{
	kp.ioff = kp.calib_haddr - pa;
	kp_sim_forget_fetch(&kp.sim);
	kp.calib_pending = false;
	kp.calibrated = true;
	kp_tlb_flush();
}

/* where an access's size and direction are remembered, QEMU asked once per kind */
static inline struct kp_memo *kp_memo(qemu_plugin_meminfo_t info)
{
	return &kp.memo[(info ^ (info >> 6) ^ (info >> 16)) % KP_MEMO_SIZE];
}

static void kp_memo_fill(struct kp_memo *m, qemu_plugin_meminfo_t info)
{
	m->info = info;
	m->size = 1u << qemu_plugin_mem_size_shift(info);
	m->store = qemu_plugin_mem_is_store(info);
}

/* its D1 reads and writes, the same in every geometry: added to its PC's at the end */
static inline void kp_count_access(struct kp_mem *ms, const struct kp_memo *m)
{
	ms->rw[m->store]++;
}

/*
 * After a D1 lookup of size bytes at vaddr, pa: in every geometry its line
 * is the most recent of its set, and its page's D-TLB entry (which the
 * physical address tells 2 MiB or 4 KiB) the most recent of its own.  One
 * across two lines (rare) is not noted, and the sets it touched forget
 * theirs: across a page, the second line looked up is not the second
 * page's (see kp_mem_full).
 */
static void kp_vmru_note(uint64_t vaddr, uint64_t pa, unsigned int size)
{
	uint64_t dkey =
		kp_tlb_key(kp_tlb_vpage(vaddr, kp_tlb_large(kp.sim.large, vaddr, pa)), kp.tlb_gen);
	int g;

	if (!kp.vmru_on)
		return;
	for (g = 0; g < kp.sim.ngeom; g++) {
		const struct kp_cache *c = &kp.sim.geom[g].d1;
		uint64_t first = vaddr >> c->line_bits, end = (vaddr + size - 1) >> c->line_bits;

		if (first == end) {
			kp.vmru[g][first & c->set_mask] =
				(struct kp_vmru){first, kp.tlb_gen, pa >> c->line_bits, dkey};
		} else {
			kp.vmru[g][first & c->set_mask].gen = 0;
			kp.vmru[g][end & c->set_mask].gen = 0;
		}
	}
}

/* true when the access is within the most recent line of its set in geometry g */
static inline bool kp_vmru_hit(uint64_t vaddr, unsigned int size, int g)
{
	const struct kp_cache *c = &kp.sim.geom[g].d1;
	uint64_t vl = vaddr >> c->line_bits;
	const struct kp_vmru *e = &kp.vmru[g][vl & c->set_mask];

	return e->vline == vl && e->gen == kp.tlb_match && (vaddr + size - 1) >> c->line_bits == vl;
}

/*
 * An access's physical address from the plugin's TLB, when its page is
 * there and the access does not cross into the next
 */
static inline bool kp_tlb_pa(uint64_t vaddr, unsigned int size, uint64_t *pa)
{
	uint64_t vpage = vaddr >> KP_PAGE_BITS;
	const struct kp_tlbe *e = &kp.tlb[vpage % KP_TLB_SIZE];

	if (e->vpage != vpage || (e->ppage_gen & KP_PAGE_MASK) != kp.tlb_match ||
	    (vaddr + size - 1) >> KP_PAGE_BITS != vpage)
		return false;
	*pa = (e->ppage_gen & ~(uint64_t)KP_PAGE_MASK) | (vaddr & KP_PAGE_MASK);
	return true;
}

/*
 * An access not known to hit the most recent line of its sets and the
 * most recent entry of its D-TLB sets: its physical address from the
 * plugin's TLB, else QEMU's lookup (which fills the TLB, and sees the
 * calibration load), then the simulated D-TLBs and caches.
 */
static __attribute__((noinline)) unsigned int
kp_mem_full(qemu_plugin_meminfo_t info, uint64_t vaddr, struct kp_mem *ms, struct kp_memo *m)
{
	uint64_t vpage = vaddr >> KP_PAGE_BITS, pa;
	struct kp_tlbe *e = &kp.tlb[vpage % KP_TLB_SIZE];
	struct qemu_plugin_hwaddr *hw;
	unsigned int g0;

	if (unlikely(m->info != info))
		kp_memo_fill(m, info);
	if (!likely(kp_tlb_pa(vaddr, m->size, &pa))) {
		hw = qemu_plugin_get_hwaddr(info, vaddr);
		if (unlikely(!hw)) {
			kp.unresolved++;
			return 0;
		}
		/* device memory is not cached */
		if (unlikely(qemu_plugin_hwaddr_is_io(hw))) {
			kp.io_accesses++;
			return 0;
		}
		pa = qemu_plugin_hwaddr_phys_addr(hw);
		if (unlikely(kp.calib_pending) && vaddr == kp.calib_vaddr)
			kp_calibrate(pa);
		/* an access across two pages tells the first page's frame only */
		if ((vaddr + m->size - 1) >> KP_PAGE_BITS == vpage) {
			e->vpage = vpage;
			e->ppage_gen = (pa & ~(uint64_t)KP_PAGE_MASK) | kp.tlb_gen;
		}
	}
	kp.last_pa = pa;
	kp_count_access(ms, m);
	g0 = kp_sim_tlb(&kp.sim, ms->pc->miss, false, vaddr, pa, m->size, kp.tlb_gen);
	g0 |= kp_sim_data_miss(&kp.sim, ms->pc->miss, pa, m->size, m->store);
	kp_vmru_note(vaddr, pa, m->size);
	return g0;
}

/*
 * kp_vmru_hit for geometry 0, from the first host cache line of kp: its
 * entry when the D1 has nothing to change, else NULL (a tlb_match of
 * KP_GEN_MAX + 1, a calibration awaited, fails it: no entry has that
 * generation)
 */
static inline const struct kp_vmru *kp_vmru_line0(uint64_t vaddr, unsigned int size)
{
	uint64_t vl = vaddr >> kp.d1_bits;
	const struct kp_vmru *e = &kp.vmru0[vl & kp.d1_sets];

	return e->vline == vl && e->gen == kp.tlb_match && (vaddr + size - 1) >> kp.d1_bits == vl ?
		       e :
		       NULL;
}

/*
 * and its page the most recent of its D-TLB set, by the key noted with the
 * line (the generation is the line's): a hit that changes nothing
 */
static inline bool kp_dtlb_mru0(const struct kp_vmru *e)
{
	return kp.dmru0[(e->dkey >> KP_TLB_PAGE) & kp.dtlb_sets] == e->dkey;
}

/* or the second most recent: a hit that swaps the two */
static inline bool kp_dtlb_hit0(const struct kp_vmru *e)
{
	return kp_likely(kp_dtlb_mru0(e)) ||
	       kp_tlb_second(&kp.sim.geom[0].dtlb, e->dkey >> KP_TLB_PAGE, kp.tlb_match);
}

/* the physical address of an access within e's line */
static inline uint64_t kp_vmru_pa(const struct kp_vmru *e, uint64_t vaddr)
{
	return e->pline << kp.d1_bits | (vaddr & ((1ull << kp.d1_bits) - 1));
}

/*
 * An L1 prefetch made another line the most recent of some D1 sets: their
 * entries, and the line kp_sim_data_miss saw last, may no longer be theirs
 */
static __attribute__((noinline)) void kp_vmru_moved(void)
{
	uint64_t s;

	for (s = 0; s <= kp.d1_sets; s++)
		if (kp.tm.d1_moved >> (s & 63) & 1)
			kp.vmru0[s].gen = 0;
	kp.sim.last_dline = KP_NO_TAG;
	kp.tm.d1_moved = 0;
}

/*
 * An access kp_vmru_line0 passed (one geometry) whose D-TLB entry is
 * further down its set, or missing: the D-TLBs looked up in full, the
 * caches not at all (the line is the most recent of its set, a hit that
 * changes nothing): KP_M_TLB on a miss
 */
static __attribute__((noinline)) unsigned int kp_mem_dtlb(uint64_t vaddr, uint64_t pa,
							  struct kp_mem *ms, const struct kp_memo *m)
{
	kp_count_access(ms, m);
	return kp_sim_tlb(&kp.sim, ms->pc->miss, false, vaddr, pa, m->size, kp.tlb_gen);
}

/* kp_mem_cb with more than one geometry, the first hit */
static __attribute__((noinline)) void kp_mem_more(qemu_plugin_meminfo_t info, uint64_t vaddr,
						  struct kp_mem *ms, struct kp_memo *m)
{
	int g;

	for (g = 1; g < kp.sim.ngeom; g++) {
		if (!kp_vmru_hit(vaddr, m->size, g) ||
		    !kp_tlb_fast(&kp.sim.geom[g].dtlb, vaddr >> KP_TLB_PAGE, kp.tlb_match)) {
			kp_mem_full(info, vaddr, ms, m);
			return;
		}
	}
	kp_count_access(ms, m);
}

/*
 * udata is the instruction's struct kp_mem.  An access within the most
 * recent line of its sets and entry of its D-TLB sets is counted here and
 * nothing else; one whose page's entry is further down looks up the D-TLBs
 * alone (one geometry); the rest is kp_mem_full's.
 */
void kp_mem_cb(unsigned int vcpu, qemu_plugin_meminfo_t info, uint64_t vaddr, void *udata)
{
	struct kp_mem *ms = udata;
	const struct kp_vmru *e;
	struct kp_memo *m;

	if (unlikely(!kp.active))
		return;
	m = kp_memo(info);
	e = kp_vmru_line0(vaddr, m->size);
	if (unlikely(m->info != info || !e)) {
		kp_mem_full(info, vaddr, ms, m);
	} else if (likely(kp_dtlb_hit0(e))) {
		if (unlikely(kp.sim.ngeom > 1))
			kp_mem_more(info, vaddr, ms, m);
		else
			kp_count_access(ms, m);
	} else if (kp.sim.ngeom > 1) {
		kp_mem_full(info, vaddr, ms, m);
	} else {
		kp_mem_dtlb(vaddr, kp_vmru_pa(e, vaddr), ms, m);
	}
}

/*
 * mode=timing: udata is the instruction's struct kp_mem, as mode=cache's.
 * Between samples only a miss matters (kp_timing_warm).  In one, the
 * prefetchers see every access, by physical address.  Either way, an
 * access on the most recent line of its D1 set (one geometry) takes its
 * physical address and its page's D-TLB key (2 MiB for most of the
 * kernel's accesses) from the line's entry, and looks up the D-TLBs only;
 * any other is looked up in full, which says what geometry 0 missed.
 */
static __attribute__((noinline)) void kp_mem_timing(qemu_plugin_meminfo_t info, uint64_t vaddr,
						     struct kp_mem *ms, struct kp_memo *m)
{
	const struct kp_vmru *e = kp_vmru_line0(vaddr, m->size);
	unsigned int g0 = 0;
	uint64_t pa;

	if (likely(m->info == info && kp.sim.ngeom == 1 && e)) {
		pa = kp_vmru_pa(e, vaddr);
		if (likely(kp_dtlb_hit0(e)))
			kp_count_access(ms, m);
		else
			g0 = kp_mem_dtlb(vaddr, pa, ms, m);
	} else {
		kp.last_pa = 0;
		g0 = kp_mem_full(info, vaddr, ms, m);
		pa = kp.last_pa;
	}
	if (kp_timing_noting(&kp.tm)) {
		kp_timing_access(&kp.tm, ms->ts, g0 & KP_M_L1, g0 & KP_M_LL, g0 & KP_M_TLB, pa,
				 m->size, m->store, vaddr);
		if (kp.tm.d1_moved)
			kp_vmru_moved();
	} else if (g0)
		kp_timing_warm(&kp.tm, g0 & KP_M_L1, g0 & KP_M_TLB, vaddr, pa, m->size);
}

/* between samples, a hit on the most recent line and page of their sets: no registers saved */
void kp_mem_timing_cb(unsigned int vcpu, qemu_plugin_meminfo_t info, uint64_t vaddr, void *udata)
{
	struct kp_mem *ms = udata;
	const struct kp_vmru *e;
	struct kp_memo *m;

	if (unlikely(!kp.active))
		return;
	m = kp_memo(info);
	e = kp_vmru_line0(vaddr, m->size);
	if (likely(m->info == info && kp.sim.ngeom == 1 && !kp_timing_noting(&kp.tm) && e &&
		   kp_dtlb_mru0(e))) {
		kp_count_access(ms, m);
		return;
	}
	kp_mem_timing(info, vaddr, ms, m);
}

/* mode=timing: the fetch of udata (kp_fetch_cb's); a miss goes to the timing model */
static inline void kp_fetch_timing(void *udata)
{
	const struct kp_fetch *f = (void *)((uintptr_t)udata & ~(uintptr_t)1);
	unsigned int g0;

	if (udata == kp.last_fetch)
		return;
	g0 = kp_fetch(udata);
	if (g0)
		kp_timing_fetch(&kp.tm, f->ts, g0 & KP_M_L1, g0 & KP_M_LL, g0 & KP_M_TLB,
				f->haddr - kp.ioff);
}

void kp_fetch_timing_cb(unsigned int vcpu, void *udata)
{
	if (likely(kp.active))
		kp_fetch_timing(udata);
}

/* mode=timing: a block's first instruction: the block starts, then the fetch */
void kp_tb_fetch_timing_cb(unsigned int vcpu, void *udata)
{
	const struct kp_fetch *f = (void *)((uintptr_t)udata & ~(uintptr_t)1);

	if (unlikely(!kp.active))
		return;
	kp_timing_block(&kp.tm, kp_tblock_tag_of(f->ts, f->tb_n));
	kp_fetch_timing(udata);
}

/*
 * mode=timing: udata is the block starting (its struct kp_tblock, tagged: kp_tblock_tag): the one
 * before goes to the core
 */
void kp_tb_timing_cb(unsigned int vcpu, void *udata)
{
	if (likely(kp.active))
		kp_timing_block(&kp.tm, udata);
}

/*
 * QEMU has flushed its translations (and dropped every callback): from here
 * on, instrument everything, never the markers only again (see kp_stop).
 */
static void kp_reset_done(qemu_plugin_id_t id)
{
	kp.full = true;
	qemu_plugin_register_vcpu_tb_trans_cb(id, kp_trans_full);
	qemu_plugin_register_atexit_cb(id, kp_atexit, NULL);
}

/*
 * The snapshot is exact here: a marker ends its block's run, so the counters
 * of what follows it move later (at the first start, none moves before
 * QEMU's reset: only the markers are instrumented).
 */
static void kp_start(const struct kp_mark *m)
{
	if (kp.active) {
		kp.restarts++;
		return;
	}
	kp_each_counter(kp_snap_base);
	kp.active = true;
	kp.opened++;
	kp.calib_pending = kp.mode != KP_INSNS;
	kp.calib_vaddr = m->vaddr;
	kp.calib_haddr = m->haddr;
	/* mappings may have changed unseen since the last window */
	kp_tlb_flush();
	if (!kp.full)
		qemu_plugin_reset(kp.id, kp_reset_done);
}

/*
 * The blocks stay instrumented after a window (their counters move, their
 * callbacks return at once).  In mode=insns that is cheaper than flushing:
 * QEMU would translate again what runs next, and at the next start.  In
 * mode=cache it is needed: QEMU 7.2 can leave its pointer to an
 * instruction's memory callbacks set when that instruction ends a block
 * in a helper (syscall, iret, ...), and a flush frees what it points to, so
 * the next interrupt's stack pushes would read freed memory (QEMU aborts in
 * qemu_plugin_vcpu_mem_cb).  The one flush before any memory callback
 * exists, at the first start, is safe.
 */
static void kp_stop(void)
{
	if (!kp.active) {
		kp.stray_stops++;
		return;
	}
	/* exact here: the rest of this block is a run of its own (kp_tb_new) */
	kp_each_counter(kp_close_sum);
	if (kp.mode == KP_TIMING)
		kp_timing_block(&kp.tm, NULL);
	kp.active = false;
	kp.closed++;
}

/* the guest's hint: whether it uses PTI (no global pages) and PCID (tags) */
static void kp_hint(uint8_t hint)
{
	kp.hint = hint;
	kp.sim.pti = hint & 1;
	kp.sim.pcid = hint & 2;
}

void kp_marker_cb(unsigned int vcpu, void *udata)
{
	const struct kp_mark *m = udata;

	if (m->kind == KP_MARK_HINT)
		kp_hint(m->hint);
	else if (m->kind == KP_MARK_STOP)
		kp_stop();
	else
		kp_start(m);
}

/*
 * window=boot: a block that may be the kernel's entry or the first user-mode
 * one (udata: the stage it ends) starts to run.  Callbacks come before the
 * inline counters of the same instruction (QEMU 7.2's plugin-gen), so the
 * sum is of the instructions before this block's first.  Blocks translated
 * before the stage moved on keep the callback: it returns at once.
 */
void kp_boot_cb(unsigned int vcpu, void *udata)
{
	enum kp_boot stage = (uintptr_t)udata;

	if (stage != kp.boot)
		return;
	if (stage == KP_BOOT_ENTRY) {
		kp.boot_entry = kp_count_all();
		kp.boot = KP_BOOT_USER;
		return;
	}
	kp.boot_first_user = kp_count_all();
	kp.boot = KP_BOOT_OFF;
	kp_stop();
}
