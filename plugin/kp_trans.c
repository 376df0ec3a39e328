// SPDX-License-Identifier: GPL-2.0-only
/* kp_model's translation: which callbacks each instruction gets (kp_model.h) */
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "kp_model.h"

static const uint8_t kp_marker[2][KP_MARKER_LEN] = {
	{0x66, 0x0f, 0x1f, 0x84, 0x00, 0x01, 0x52, 0x50, 0x4b},
	{0x66, 0x0f, 0x1f, 0x84, 0x00, 0x02, 0x52, 0x50, 0x4b},
};

/* a marker's location, two 64-bit words, as a hash key */
guint kp_mark_hash(gconstpointer k)
{
	const uint64_t *w = k;

	return g_int64_hash(&w[0]) ^ g_int64_hash(&w[1]);
}

gboolean kp_mark_equal(gconstpointer a, gconstpointer b)
{
	return !memcmp(a, b, 2 * sizeof(uint64_t));
}

/*
 * KP_MARK_START, _STOP, _HINT (nopw 0x4b5053NN(%rax,%rax,1), NN 0x80-0x83:
 * bit 0 PTI on, bit 1 PCID in use), -1 no marker
 */
static int kp_marker_kind(struct qemu_plugin_insn *insn)
{
	static const uint8_t hint[] = {0x66, 0x0f, 0x1f, 0x84, 0x00};
	const uint8_t *b;

	if (qemu_plugin_insn_size(insn) != KP_MARKER_LEN)
		return -1;
	b = qemu_plugin_insn_data(insn);
	if (!memcmp(b, kp_marker[0], KP_MARKER_LEN))
		return KP_MARK_START;
	if (!memcmp(b, kp_marker[1], KP_MARKER_LEN))
		return KP_MARK_STOP;
	if (!memcmp(b, hint, sizeof(hint)) && (b[5] & 0xfc) == 0x80 && b[6] == 0x53 &&
	    b[7] == 0x50 && b[8] == 0x4b)
		return KP_MARK_HINT;
	return -1;
}

/* true when insn was a marker (it gets the marker's callback and nothing else) */
static bool kp_instrument_marker(struct qemu_plugin_insn *insn)
{
	int kind = kp_marker_kind(insn);
	uint64_t key[2];
	struct kp_mark *m;

	if (kind < 0)
		return false;
	key[0] = qemu_plugin_insn_vaddr(insn);
	key[1] = (uintptr_t)qemu_plugin_insn_haddr(insn);
	/* one record per marker location, however often it is translated */
	m = g_hash_table_lookup(kp.by_mark, key);
	if (!m) {
		uint64_t *k = g_memdup2(key, sizeof(key));

		m = g_new0(struct kp_mark, 1);
		m->kind = kind;
		m->hint = ((const uint8_t *)qemu_plugin_insn_data(insn))[5];
		m->vaddr = key[0];
		m->haddr = key[1];
		g_hash_table_insert(kp.by_mark, k, m);
	}
	qemu_plugin_register_vcpu_insn_exec_cb(insn, kp_marker_cb, QEMU_PLUGIN_CB_NO_REGS, m);
	return true;
}

void kp_trans_markers(qemu_plugin_id_t id, struct qemu_plugin_tb *tb)
{
	size_t i, n = qemu_plugin_tb_n_insns(tb);

	for (i = 0; i < n; i++)
		kp_instrument_marker(qemu_plugin_tb_get_insn(tb, i));
}

/* a block: its first address, instruction count and bytes */
guint kp_tb_hash(gconstpointer k)
{
	const struct kp_tb *t = k;

	return t->hash;
}

/* the same bytes at the same addresses, so the same runs of the same PCs */
gboolean kp_tb_equal(gconstpointer a, gconstpointer b)
{
	const struct kp_tb *x = a, *y = b;
	uint32_t i;

	if (x->vaddr != y->vaddr || x->n != y->n || x->nbytes != y->nbytes ||
	    memcmp(x->bytes, y->bytes, x->nbytes))
		return false;
	for (i = 0; i < x->n; i++)
		if (x->insn[i].size != y->insn[i].size || x->insn[i].haddr != y->insn[i].haddr)
			return false;
	return true;
}

/*
 * Instruction i of a block being read (see kp_tb_new): where its run
 * starts and ends.  A run ends after an instruction that may leave the
 * block early, unless it is the block's last, and at a marker, so that a
 * window opens or closes between two runs.
 */
static void kp_tb_run(struct kp_tb *t, uint32_t i, uint64_t va, uint32_t *run, bool *open)
{
	struct kp_insn *in = &t->insn[i];

	if (in->marker) {
		*run += *open;
		*open = false;
		return;
	}
	/*
	 * A later instruction that runs into the next page is dropped from the
	 * block by QEMU 7.2 (x86 blocks keep to one page) after the plugin was
	 * shown some of its bytes: a last instruction that may be one gets a
	 * run of its own, whose counter QEMU then never bumps if it was (it
	 * runs in the next block).
	 */
	if (i && i + 1 == t->n && (va & KP_PAGE_MASK) > KP_PAGE_MASK + 1 - KP_MAX_INSN) {
		*run += *open;
		*open = false;
	}
	in->run = *run;
	in->run_start = !*open;
	*open = true;
	if (kp.count == KP_PER_INSN && i + 1 < t->n && !in->stays) {
		(*run)++;
		*open = false;
	}
}

/*
 * mode=cache: which instructions get a fetch callback, which a memory one.
 * No fetch callback for an instruction within the line the previous one of
 * the block ended in, which is then the most recently used line of its set
 * (I1 sees fetches only), so the fetch hits and changes nothing, in every
 * geometry (their lines are no smaller).  Virtual lines, no larger than a
 * page: within one, physical ones agree.  No memory callback for one that
 * touches registers only.
 */
static void kp_tb_sites(struct kp_tb *t)
{
	unsigned int bits = kp.sim.min_i1_bits < KP_PAGE_BITS ? kp.sim.min_i1_bits : KP_PAGE_BITS;
	uint64_t va = t->vaddr, last = UINT64_MAX;
	uint32_t i;

	for (i = 0; i < t->n; va += t->insn[i].size, i++) {
		struct kp_insn *in = &t->insn[i];
		uint64_t first = va >> bits, end = (va + in->size - 1) >> bits;

		if (in->marker)
			continue;
		if (first != last || end != last) {
			last = end;
			in->line = 1;
			/* physical lines are virtual ones only when no larger than a page */
			in->spans = first != end || kp.sim.min_i1_bits > KP_PAGE_BITS;
			if (in->haddr)
				in->fetch = t->nfetch++;
		}
		if (!in->regs)
			in->mem = t->nmem++;
	}
}

/*
 * A kernel instruction cannot end its run early (see kp_model.h): when it
 * touches only what Linux keeps mapped, or, with vmlinux=, when it is a
 * plain access at no fault site of the kernel's own text, which runs
 * unpatched (the same bytes as linked, so not moved by KASLR either).
 */
static bool kp_kernel_stays(uint64_t va, const uint8_t *b, uint32_t size)
{
	if (kp_x86_kernel_stays(b, size))
		return true;
	return kp_x86_kernel_plain(b, size) && kp_vmlinux_no_fault(&kp.vml, va, b, size);
}

/*
 * Instruction in of a block being read: its kind and what it does to the
 * simulated TLBs, after the block's instructions before it (sym): a MOV to
 * CR3 flushes unless bit 63 is known set (kp_x86.h), one to CR4 flushes
 * all, INVLPG (its page, see kp_tlb_cb) and INVPCID (type in a register:
 * the non-global entries) too.
 */
static void kp_insn_ev(struct kp_insn *in, struct kp_x86_sym *sym, const uint8_t *b)
{
	struct kp_x86_cr3 c;

	in->ev = kp_x86_event(b, in->size);
	if (kp_x86_sym_step(sym, b, in->size, &c)) {
		in->tlbop = KP_OP_CR3;
		in->tlbflush = kp_x86_cr3_flushes(&c);
		in->cr3_derived = c.derived;
		in->cr3_mask = c.mask;
		in->cr3_val = c.val;
	} else if (in->ev == KP_EV_MOV_CR && kp_x86_mov_to_cr(b, in->size) == 4) {
		in->tlbop = KP_OP_FLUSH_ALL;
	} else if (in->ev == KP_EV_INVLPG) {
		in->tlbop = KP_OP_INVLPG;
	} else if (in->ev == KP_EV_INVPCID) {
		in->tlbop = KP_OP_FLUSH_NONGLOBAL;
	}
	if (in->tlbop != KP_OP_NONE && in->tlbop != KP_OP_CR3)
		in->tlbflush = 1;
}

/*
 * A block as QEMU translated it: its instructions, their bytes, runs and
 * sites; no PCs or counters yet (see kp_tb_get).
 */
static struct kp_tb *kp_tb_new(struct qemu_plugin_tb *tb)
{
	uint32_t i, n = qemu_plugin_tb_n_insns(tb), nbytes = 0, run = 0, hash = 2166136261u;
	uint64_t va;
	bool open = false;
	struct kp_x86_sym sym;
	struct kp_tb *t;

	for (i = 0; i < n; i++)
		nbytes += qemu_plugin_insn_size(qemu_plugin_tb_get_insn(tb, i));
	t = g_malloc0(sizeof(*t) + n * sizeof(t->insn[0]) + nbytes);
	t->bytes = (uint8_t *)&t->insn[n];
	t->n = n;
	t->vaddr = va = n ? qemu_plugin_insn_vaddr(qemu_plugin_tb_get_insn(tb, 0)) : 0;
	kp_x86_sym_init(&sym);
	for (i = 0; i < n; va += t->insn[i].size, i++) {
		struct qemu_plugin_insn *insn = qemu_plugin_tb_get_insn(tb, i);
		struct kp_insn *in = &t->insn[i];
		const uint8_t *b = qemu_plugin_insn_data(insn);

		in->size = qemu_plugin_insn_size(insn);
		in->haddr = (uintptr_t)qemu_plugin_insn_haddr(insn);
		in->fetch = in->mem = KP_NONE;
		in->marker = kp_marker_kind(insn) >= 0;
		in->regs = kp_x86_regs_only(b, in->size);
		in->stays = va >= KP_KERNEL_START ? kp_kernel_stays(va, b, in->size) : in->regs;
		if (va >= KP_KERNEL_START)
			kp_vmlinux_note(&kp.vml, va, b, in->size);
		in->flushes = kp.mode != KP_INSNS && kp_x86_flushes_tlb(b, in->size);
		if (!in->marker)
			kp_insn_ev(in, &sym, b);
		memcpy(t->bytes + t->nbytes, b, in->size);
		t->nbytes += in->size;
		kp_tb_run(t, i, va, &run, &open);
	}
	t->nruns = run + open;
	if (kp.mode != KP_INSNS)
		kp_tb_sites(t);
	for (i = 0; i < t->nbytes; i++)
		hash = (hash ^ t->bytes[i]) * 16777619u;
	t->hash = hash ^ g_int64_hash(&t->vaddr) ^ n;
	return t;
}

/*
 * mode=timing: the block's instructions as the core sees them, decoded
 * once; a marker has no PC and is not handed over
 */
static void kp_tb_timing(struct kp_tb *t)
{
	const uint8_t *b = t->bytes;
	uint64_t va = t->vaddr;
	uint32_t i;

	/* apart from its counters, which between samples are all a block's execution touches */
	t->tblk = kp_tblock_init(kp_hot_alloc(&kp.tblocks, kp_tblock_size(t->n)), t->n);
	for (i = 0; i < t->n; b += t->insn[i].size, va += t->insn[i].size, i++) {
		struct kp_insn *in = &t->insn[i];
		struct kp_tsite *ts = &t->tblk->ts[i];

		ts->ti = &t->tblk->ti[i];
		if (in->marker)
			continue;
		kp_timing_decode(&kp.tm, ts->ti, b, in->size, va, in->ev);
		ts->cyc = kp_pc_cyc(in->pc);
		if (in->mem != KP_NONE)
			t->ms[in->mem].ts = ts;
		if (in->fetch != KP_NONE) {
			t->fs[in->fetch].ts = ts;
			/* the block's first starts it (kp_tb_fetch_timing_cb) */
			t->fs[in->fetch].tb_n = i ? 0 : t->n;
		}
	}
	kp_tblock_seal(t->tblk);
}

/* the block's record: an earlier translation's, or a new one with counters */
static struct kp_tb *kp_tb_get(struct qemu_plugin_tb *tb)
{
	struct kp_tb *t = kp_tb_new(tb), *old = g_hash_table_lookup(kp.tbs, t);
	uint32_t i;

	if (old) {
		g_free(t);
		return old;
	}
	t->cnt = kp_hot_alloc(&kp.hot, t->nruns * sizeof(*t->cnt) + t->nfetch * sizeof(*t->fs) +
			      t->nmem * sizeof(*t->ms));
	t->fs = (struct kp_fetch *)(t->cnt + t->nruns);
	t->ms = (struct kp_mem *)(t->fs + t->nfetch);
	t->base = g_new0(uint64_t, 2 * t->nruns);
	t->sum = t->base + t->nruns;
	for (i = 0; i < t->n; i++) {
		struct kp_insn *in = &t->insn[i];

		if (in->marker)
			continue;
		in->pc = kp_pc_get(qemu_plugin_insn_vaddr(qemu_plugin_tb_get_insn(tb, i)));
		in->pc->ev = in->ev;
		if (in->fetch != KP_NONE)
			t->fs[in->fetch] =
				(struct kp_fetch){in->haddr, in->pc->pc, in->size, 0, in->pc, NULL};
		if (in->mem != KP_NONE)
			t->ms[in->mem].pc = in->pc;
	}
	if (kp.mode == KP_TIMING)
		kp_tb_timing(t);
	g_hash_table_add(kp.tbs, t);
	return t;
}

/* mode=cache: the callbacks of an instruction that is not a marker */
static void kp_instrument_cache(struct qemu_plugin_insn *insn, struct kp_tb *t,
				const struct kp_insn *in)
{
	/* the fetch first: the instruction is fetched before it flushes */
	if (in->fetch != KP_NONE)
		qemu_plugin_register_vcpu_insn_exec_cb(
			insn, kp_fetch_cb, QEMU_PLUGIN_CB_NO_REGS,
			(void *)((uintptr_t)&t->fs[in->fetch] | in->spans));
	else if (in->line)
		kp.fetch_no_haddr++;
	if (in->flushes || in->tlbop != KP_OP_NONE)
		qemu_plugin_register_vcpu_insn_exec_cb(insn, kp_tlb_cb, QEMU_PLUGIN_CB_NO_REGS,
						       (void *)in);
	if (in->mem != KP_NONE)
		qemu_plugin_register_vcpu_mem_cb(insn, kp_mem_cb, QEMU_PLUGIN_CB_NO_REGS,
						 QEMU_PLUGIN_MEM_RW, &t->ms[in->mem]);
}

/*
 * mode=timing: mode=cache's callbacks, with the latencies noted for the
 * core; a block's first instruction's fetch starts the block too
 * (kp_timing_block), one callback where two would be
 */
static void kp_instrument_timing(struct qemu_plugin_insn *insn, struct kp_tb *t,
				 const struct kp_insn *in)
{
	if (in->fetch != KP_NONE)
		qemu_plugin_register_vcpu_insn_exec_cb(
			insn, in == t->insn ? kp_tb_fetch_timing_cb : kp_fetch_timing_cb,
			QEMU_PLUGIN_CB_NO_REGS, (void *)((uintptr_t)&t->fs[in->fetch] | in->spans));
	else if (in->line)
		kp.fetch_no_haddr++;
	if (in->flushes || in->tlbop != KP_OP_NONE)
		qemu_plugin_register_vcpu_insn_exec_cb(insn, kp_tlb_cb, QEMU_PLUGIN_CB_NO_REGS,
						       (void *)in);
	if (in->mem != KP_NONE)
		qemu_plugin_register_vcpu_mem_cb(insn, kp_mem_timing_cb, QEMU_PLUGIN_CB_NO_REGS,
						 QEMU_PLUGIN_MEM_RW, &t->ms[in->mem]);
}

/*
 * window=boot: the block gets kp_boot_cb when it starts the stage awaited.
 * In mode=cache, the first block in RAM before the kernel's entry runs
 * where virtual addresses are physical (the firmware's flat mode, the
 * decompressor's identity map): it calibrates instruction fetches as the
 * start marker's load does (see kp_model.h).
 */
static void kp_boot_watch(struct qemu_plugin_tb *tb, const struct kp_tb *t)
{
	if (kp.boot == KP_BOOT_ENTRY && kp.mode != KP_INSNS && !kp.calibrated && t->n &&
	    t->insn[0].haddr && t->vaddr >= KP_CALIB_LOW && t->vaddr < KP_CALIB_HIGH) {
		kp.calib_haddr = t->insn[0].haddr;
		kp_calibrate(t->vaddr);
	}
	if ((kp.boot == KP_BOOT_ENTRY && t->vaddr >= KP_KERNEL_START) ||
	    (kp.boot == KP_BOOT_USER && t->vaddr < KP_USER_END))
		qemu_plugin_register_vcpu_tb_exec_cb(tb, kp_boot_cb, QEMU_PLUGIN_CB_NO_REGS,
						     (void *)(uintptr_t)kp.boot);
}

void kp_trans_full(qemu_plugin_id_t id, struct qemu_plugin_tb *tb)
{
	struct kp_tb *t = kp_tb_get(tb);
	uint32_t i;

	if (kp.boot != KP_BOOT_OFF)
		kp_boot_watch(tb, t);
	/* a block whose first instruction has no fetch callback starts on its own */
	if (kp.mode == KP_TIMING && (!t->n || t->insn[0].marker || t->insn[0].fetch == KP_NONE))
		qemu_plugin_register_vcpu_tb_exec_cb(tb, kp_tb_timing_cb, QEMU_PLUGIN_CB_NO_REGS,
						     kp_tblock_tag(t->tblk));

	for (i = 0; i < t->n; i++) {
		struct qemu_plugin_insn *insn = qemu_plugin_tb_get_insn(tb, i);
		const struct kp_insn *in = &t->insn[i];

		if (in->marker) {
			kp_instrument_marker(insn);
			continue;
		}
		if (in->run_start)
			qemu_plugin_register_vcpu_insn_exec_inline(insn, QEMU_PLUGIN_INLINE_ADD_U64,
								   &t->cnt[in->run], 1);
		if (kp.mode == KP_CACHE)
			kp_instrument_cache(insn, t, in);
		else if (kp.mode == KP_TIMING)
			kp_instrument_timing(insn, t, in);
		if (kp.mode != KP_INSNS)
			kp_strsite_instrument(insn);
	}
}
