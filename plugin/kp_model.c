// SPDX-License-Identifier: GPL-2.0-only
/*
 * kp_model: kprotperf's machine model, a QEMU TCG plugin (plugin API 1,
 * QEMU 7.2).  A dumb, fast counter: per guest PC, the instructions executed,
 * its kind (kp_x86.h's events) and how often it flushed the simulated TLBs
 * and, in mode=cache, the I1, D1 and LL misses of simulated caches and the
 * I-TLB and D-TLB misses of simulated TLBs, fed by every instruction fetch
 * and every load and store (docs/model.md, "The TLBs and the events", says
 * how the TLBs are tagged and flushed without reading a register).  It
 * writes a raw table of PCs (format 2) at QEMU's normal exit; kprotperf
 * does symbols and reports.
 *
 * What is counted is bracketed by the guest with two marker instructions
 * (multi-byte nops no compiler emits):
 *	start  nopw 0x4b505201(%rax,%rax,1)  66 0f 1f 84 00 01 52 50 4b
 *	stop   nopw 0x4b505202(%rax,%rax,1)  66 0f 1f 84 00 02 52 50 4b
 * and a hint, executed before a start: nopw 0x4b5053NN(%rax,%rax,1), NN =
 * 0x80 | PTI on | PCID in use << 1 (the guest's; the last one counts).
 * Until the first window only the markers are instrumented, so the boot
 * runs at plain TCG speed.  The first start marker resets the plugin
 * (qemu_plugin_reset: QEMU flushes its translations) and everything
 * translated from then on is instrumented: counting begins with the first
 * translation block after the marker's own, so a marker followed by a call
 * or jump starts the window exactly at its target.  A stop marker closes
 * the window at once; the instrumentation stays (see kp_stop), and later
 * windows start right after their marker.  Windows add up; one still open
 * at exit is written as incomplete.  The caches keep their lines from one
 * window to the next: they start cold at the first.
 *
 * Instructions are counted by the run of a block, not one by one: a block
 * is cut into runs, each ending after an instruction that may leave the
 * block before its end (a load or store may fault; a helper may raise an
 * exception) or at a marker, and each run has one counter, bumped inline
 * when the run starts.  Every instruction of a run then executes exactly as
 * often as the run starts: TCG leaves a block early only from inside such
 * an instruction (interrupts are taken between blocks), and the counts are
 * those of a counter per instruction, a faulting attempt included.  Which
 * x86 instructions cannot leave early is decided from their bytes, in
 * kp_x86.c: register-only arithmetic, moves, lea, nops, and in the
 * kernel's half plain accesses to the stack, per-CPU and rip-relative data,
 * which Linux keeps mapped; anything else ends its run.  Given the booted
 * kernel's image (vmlinux=), any plain load or store of the kernel's text
 * stays in its run too, but at the sites of its exception table: Linux
 * lets no other access of its own text fault (user memory, *_nofault
 * reads: all are fixed up through the table; any other fault is an oops),
 * and TCG leaves a block from a plain access only by a fault (a
 * store into the code of its own block would too: the kernel writes none).
 * Not under icount, where an access to device memory also ends the block
 * (QEMU translates it again to end there): vmlinux= is for TCG without.
 * The instruction's bytes must be those of the image at its address, so
 * the kernel must run where it was linked (nokaslr), and what was patched
 * keeps the rule without the image; so does code outside that text
 * (modules, BPF programs, with exception tables of their own).  In
 * big-fork that bumps a counter per 2.8 instructions instead of 2.0 (the
 * blocks run there are short, 2.9 on average: that is the floor).  count=tb
 * counts whole blocks, inexactly.  A block translated again with the same
 * bytes at the same addresses reuses its counters.
 *
 * Instruction fetches have no physical address in API 1, only QEMU's host
 * address of the guest RAM, which is a constant offset from the physical
 * one (guest RAM is one block).  The guest tells the offset: after the start
 * marker, in a later block, it loads from the marker's own address; that
 * load's physical address and the marker's host address give the offset.
 * Until then fetches are simulated at host addresses.  Data accesses find
 * their physical page in a small TLB of the plugin's own, filled from
 * QEMU's lookups and emptied whenever the guest changes address space or
 * flushes its TLB (a write to a control register, invlpg, invpcid): the
 * guest must flush after changing a mapping, on real hardware too.
 *
 * window=boot counts a kernel's boot instead (scripts/vm-run.sh --boot): the
 * window is open from the plugin's install, so from reset, with everything
 * instrumented, and closes at the first user-mode instruction (a PC below
 * KP_USER_END) executed after the kernel's entry (the first instruction
 * executed at a PC from KP_KERNEL_START).  The two moments are caught
 * without a per-instruction test: only a block translated while its stage
 * is awaited, and whose start PC lies in the next stage, gets a one-shot
 * callback, which sums the counters (see kp_boot_cb).  In mode=cache the
 * offset of instruction fetches is taken from the first block translated
 * at a PC in RAM before the kernel's entry, where virtual addresses are
 * physical ones (paging off, or the decompressor's identity map).
 *
 * Arguments (comma-separated after -plugin FILE): mode=insns|cache,
 * out=PATH, geom=I1/D1/LL[/ITLB/DTLB] (caches SIZE:ASSOC:LINE, TLBs
 * ENTRIES:ASSOC, default 128:8 and 64:4; repeatable: one access stream
 * through several geometries), or i1=, d1=, ll=, itlb=, dtlb= for a single
 * geometry, count=insn|tb, window=markers|boot, qemu=VERSION (written to
 * the header), vmlinux=PATH (the booted kernel's ELF image, see above).
 */
#include <elf.h>
#include <errno.h>
#include <fcntl.h>
#include <glib.h>
#include <inttypes.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include <qemu-plugin.h>

#include "kp_cache.h"
#include "kp_timing.h"
#include "kp_x86.h"

QEMU_PLUGIN_EXPORT int qemu_plugin_version = QEMU_PLUGIN_VERSION;

#ifndef KP_QEMU_HEADER_VERSION
#define KP_QEMU_HEADER_VERSION "unknown"
#endif

#define KP_MARKER_LEN 9
#define KP_PAGE_BITS  12 /* x86's smallest page */
#define KP_PAGE_MASK  ((1u << KP_PAGE_BITS) - 1)
#define KP_MAX_INSN   15	 /* bytes in an x86 instruction, at most */
#define KP_CHUNK      4096	 /* PCs' records per allocation: never moved */
#define KP_TLB_SIZE   512	 /* pages the plugin's TLB holds */
#define KP_HOT_CHUNK  (2u << 20) /* a huge page of blocks' counters and sites */
#define KP_GEN_MAX    KP_PAGE_MASK
#define KP_MEMO_SIZE  64 /* memory access kinds remembered */
/* window=boot: the user's half of the address space (the kernel's: kp_x86.h) */
#define KP_USER_END 0x0000800000000000ull
/* window=boot, mode=cache: RAM where the boot runs identity-mapped (-m 2G) */
#define KP_CALIB_LOW  0x100000ull
#define KP_CALIB_HIGH 0xc0000000ull
#define likely(x)     __builtin_expect(!!(x), 1)
#define unlikely(x)   __builtin_expect(!!(x), 0)

static const uint8_t kp_marker[2][KP_MARKER_LEN] = {
	{0x66, 0x0f, 0x1f, 0x84, 0x00, 0x01, 0x52, 0x50, 0x4b},
	{0x66, 0x0f, 0x1f, 0x84, 0x00, 0x02, 0x52, 0x50, 0x4b},
};

/* mode=timing simulates the caches as mode=cache does, and times (kp_timing.h) */
enum kp_mode { KP_INSNS, KP_CACHE, KP_TIMING };
enum kp_count { KP_PER_INSN, KP_PER_TB };
/* window=boot: what the boot awaits next (off: nothing, or no boot window) */
enum kp_boot { KP_BOOT_OFF, KP_BOOT_ENTRY, KP_BOOT_USER };

/* One guest PC: its instructions over closed windows, its kind and flushes, its misses. */
struct kp_pc {
	uint64_t pc;
	uint64_t sum;
	uint64_t flushes;      /* executions that flushed the simulated TLBs */
	uint8_t ev;	       /* its kind (enum kp_ev) */
	struct kp_miss miss[]; /* mode=cache: one per geometry, none else */
};

/* what an instruction does to the simulated TLBs (see kp_tlb_cb) */
enum kp_tlbop { KP_OP_NONE, KP_OP_CR3, KP_OP_FLUSH_ALL, KP_OP_FLUSH_NONGLOBAL, KP_OP_INVLPG };

#define KP_NONE UINT16_MAX /* no fetch or memory site */

/* one instruction of a block, as translated */
struct kp_insn {
	struct kp_pc *pc; /* NULL for a marker */
	uint64_t haddr;	  /* where QEMU read it from; 0: not RAM */
	uint32_t size;
	uint16_t run;	     /* the run it is counted in */
	uint16_t fetch;	     /* mode=cache: its fetch site, or KP_NONE */
	uint16_t mem;	     /* mode=cache: its memory site, or KP_NONE */
	uint8_t run_start;   /* its run's counter is bumped here */
	uint8_t marker;	     /* a marker: not counted, no PC */
	uint8_t stays;	     /* it cannot leave its block early (kp_x86.h) */
	uint8_t regs;	     /* it touches registers only: no memory site */
	uint8_t flushes;     /* mode=cache: it may change the guest's mappings */
	uint8_t line;	     /* mode=cache: it starts an I1 line in its block */
	uint8_t spans;	     /* mode=cache: it spans two I1 lines (or may) */
	uint8_t ev;	     /* its kind (enum kp_ev) */
	uint8_t tlbop;	     /* what it does to the simulated TLBs (enum kp_tlbop) */
	uint8_t tlbflush;    /* it flushes them (the FLUSHES column): decided here */
	uint8_t cr3_derived; /* a MOV to CR3: what it writes (struct kp_x86_cr3) */
	uint64_t cr3_mask, cr3_val;
};

/* an instruction whose fetch is simulated: it starts a line in its block */
struct kp_fetch {
	uint64_t haddr;
	uint64_t vaddr; /* its PC, here for the I-TLB: its record is touched on a miss only */
	uint32_t size;
	struct kp_pc *pc; /* its misses */
};

/* an instruction that may load or store: its accesses, and where misses go */
struct kp_mem {
	uint64_t rw[2]; /* reads, writes */
	struct kp_pc *pc;
};

/*
 * A block: its instructions, and a counter per run of them (see the top).
 * cnt is bumped by inline code QEMU generates, so it is never reset: a
 * window's count is cnt at its end less base at its start.  In mode=cache,
 * what the callbacks of its instructions use, right after the counters: a
 * block's callbacks touch a host cache line or two, its PCs' records only
 * on a miss.
 */
struct kp_tb {
	uint64_t vaddr;
	uint32_t n, nruns, nbytes, nfetch, nmem;
	guint hash;
	uint64_t *cnt;	      /* nruns inline counters, side by side */
	struct kp_fetch *fs;  /* nfetch, after cnt */
	struct kp_mem *ms;    /* nmem, after fs */
	uint64_t *base, *sum; /* nruns each: at the window's start, closed windows */
	uint8_t *bytes;	      /* the instructions' bytes, to match a translation */
	struct kp_tblock tblk;	      /* mode=timing: its instructions as the core sees them */
	struct kp_insn insn[];
};

/* a marker instruction: what it does, and where (for the calibration) */
struct kp_mark {
	int kind;     /* KP_MARK_START, _STOP, _HINT */
	uint8_t hint; /* the hint's byte */
	uint64_t vaddr, haddr;
};

enum { KP_MARK_START, KP_MARK_STOP, KP_MARK_HINT };

/* a virtual page's physical one, valid while gen is the TLB's */
struct kp_tlbe {
	uint64_t vpage;
	uint64_t ppage_gen; /* the physical page's address | gen */
};

/* what a memory access's qemu_plugin_meminfo_t says, remembered */
struct kp_memo {
	qemu_plugin_meminfo_t info; /* 0: none (a real one has a read or write bit) */
	uint8_t size;
	bool store;
};

/*
 * Per D1 set, the virtual line of its most recent line, while the mappings
 * are the same (gen): an access within it hits and changes nothing.  A set
 * is told by virtual address when a way is no larger than a page (as in
 * x86 L1s): with larger ways none is noted.
 */
struct kp_vmru {
	uint64_t vline; /* virtual address >> the line's bits */
	uint64_t gen;	/* tlb_gen when noted; 0: none */
};

/* All the plugin's state: QEMU's callbacks take no context but udata. */
struct kp_ctx {
	/* read by every callback: one host cache line */
	bool active;		/* a window is open */
	bool calib_pending;	/* waiting for the calibration load (see the top) */
	bool vmru_on;		/* every D1's ways are no larger than a page */
	uint8_t d1_bits;	/* geometry 0's D1 line bits, and its set mask, */
	uint32_t dtlb_sets;	/* geometry 0's D-TLB set mask, */
	uint64_t d1_sets;	/* for kp_mem_cb */
	struct kp_vmru *vmru0;	/* vmru[0] */
	uint64_t *dmru0;	/* geometry 0's D-TLB's mru[] */
	uint64_t tlb_match;	/* tlb_gen, or KP_GEN_MAX + 1 when pending: nothing matches */
	uint64_t ioff;		/* host address - physical address of guest RAM */
	const void *last_fetch; /* the fetch site simulated last, if within one line */
	uint64_t tlb_gen;	/* 1..KP_GEN_MAX: what the TLB is filled with */

	struct kp_vmru *vmru[KP_MAX_GEOMS]; /* per geometry, per D1 set */
	struct kp_sim sim;
	uint64_t last_pa; /* the physical address kp_mem_full found last (0: none) */
	struct kp_tlbe tlb[KP_TLB_SIZE];
	struct kp_memo memo[KP_MEMO_SIZE];

	qemu_plugin_id_t id;
	enum kp_mode mode;
	enum kp_count count;
	char *out, *qemu_version;

	GHashTable *by_pc;   /* guest PC -> struct kp_pc */
	GPtrArray *chunks;   /* of KP_CHUNK struct kp_pc */
	size_t pc_size;	     /* a struct kp_pc with its misses */
	size_t used;	     /* in the last chunk */
	GHashTable *tbs;     /* every struct kp_tb, itself its key */
	char *hot_free;	     /* memory for blocks' counters and sites, not handed out yet */
	size_t hot_left;     /* how many bytes */
	GHashTable *by_mark; /* a marker's vaddr and haddr -> struct kp_mark */

	bool full; /* every block is instrumented, not just the markers */
	int hint;  /* the guest's last hint marker's byte, or -1 */
	unsigned int opened, closed, restarts, stray_stops;

	bool boot_window;	  /* window=boot */
	enum kp_boot boot;	  /* its stage */
	uint64_t boot_entry;	  /* instructions from reset to the kernel's entry */
	uint64_t boot_first_user; /* to the first user-mode instruction */

	bool calibrated;
	uint64_t calib_vaddr, calib_haddr;
	uint64_t io_accesses, unresolved; /* data accesses skipped */
	uint64_t fetch_no_haddr;	  /* fetch sites QEMU gave no host address */

	struct kp_timing tm; /* mode=timing */

	/* vmlinux=: the kernel's .text as linked, and its fault sites, sorted */
	uint64_t text, text_end;
	uint8_t *text_bytes;
	uint64_t *faults;
	size_t nfaults;
};

static struct kp_ctx kp __attribute__((aligned(64)));

static void kp_trans_markers(qemu_plugin_id_t id, struct qemu_plugin_tb *tb);
static void kp_trans_full(qemu_plugin_id_t id, struct qemu_plugin_tb *tb);
static void kp_atexit(qemu_plugin_id_t id, void *udata);

/* ---- counters ---- */

/* the i-th PC of chunk c, and how many chunk c has */
static struct kp_pc *kp_pc_nth(guint c, size_t i)
{
	return (struct kp_pc *)((char *)g_ptr_array_index(kp.chunks, c) + i * kp.pc_size);
}

static size_t kp_chunk_len(guint c)
{
	return c + 1 == kp.chunks->len ? kp.used : KP_CHUNK;
}

/* a PC's record, with its misses beside its count */
/* mode=timing: the PC's cycles, after its misses */
static struct kp_cyc *kp_pc_cyc(struct kp_pc *p)
{
	return (struct kp_cyc *)&p->miss[kp.sim.ngeom];
}

static struct kp_pc *kp_pc_get(uint64_t pc)
{
	struct kp_pc *p = g_hash_table_lookup(kp.by_pc, &pc);

	if (p)
		return p;
	if (!kp.chunks->len || kp.used == KP_CHUNK) {
		void *chunk = aligned_alloc(64, KP_CHUNK * kp.pc_size);

		if (!chunk)
			g_error("kp_model: out of memory");
		memset(chunk, 0, KP_CHUNK * kp.pc_size);
		g_ptr_array_add(kp.chunks, chunk);
		kp.used = 0;
	}
	p = kp_pc_nth(kp.chunks->len - 1, kp.used++);
	p->pc = pc;
	g_hash_table_insert(kp.by_pc, &p->pc, p);
	return p;
}

/*
 * A block's counters and sites: size zeroed bytes (a multiple of 8), after
 * the last block's, so that blocks translated together, which often run
 * together, share host cache lines.  Never freed: QEMU's code adds to them.
 */
static void *kp_hot_alloc(size_t size)
{
	void *c;

	if (kp.hot_left < size) {
		kp.hot_left = (size + KP_HOT_CHUNK - 1) & ~(size_t)(KP_HOT_CHUNK - 1);
		kp.hot_free = aligned_alloc(KP_HOT_CHUNK, kp.hot_left);
		if (!kp.hot_free)
			g_error("kp_model: out of memory");
		/* one host TLB entry for all: the callbacks touch them all the time */
		madvise(kp.hot_free, kp.hot_left, MADV_HUGEPAGE);
		memset(kp.hot_free, 0, kp.hot_left);
	}
	c = kp.hot_free;
	kp.hot_free += size;
	kp.hot_left -= size;
	return c;
}

/* fn(counter, base, sum) over every inline counter there is */
static void kp_each_counter(void (*fn)(uint64_t *cnt, uint64_t *base, uint64_t *sum))
{
	GHashTableIter it;
	gpointer key;
	uint32_t r;

	g_hash_table_iter_init(&it, kp.tbs);
	while (g_hash_table_iter_next(&it, &key, NULL)) {
		struct kp_tb *t = key;

		for (r = 0; r < t->nruns; r++)
			fn(&t->cnt[r], &t->base[r], &t->sum[r]);
	}
}

static void kp_snap_base(uint64_t *cnt, uint64_t *base, uint64_t *sum)
{
	*base = *cnt;
}

static void kp_close_sum(uint64_t *cnt, uint64_t *base, uint64_t *sum)
{
	*sum += *cnt - *base;
	*base = *cnt;
}

/* how often run r of block t ran in every window so far, the open one included */
static uint64_t kp_run_count(const struct kp_tb *t, uint32_t r)
{
	return t->sum[r] + (kp.active ? t->cnt[r] - t->base[r] : 0);
}

/* the instructions counted so far: each run's count times its instructions */
static uint64_t kp_count_all(void)
{
	GHashTableIter it;
	gpointer key;
	uint64_t n = 0;
	uint32_t i;

	g_hash_table_iter_init(&it, kp.tbs);
	while (g_hash_table_iter_next(&it, &key, NULL)) {
		const struct kp_tb *t = key;

		for (i = 0; i < t->n; i++)
			if (!t->insn[i].marker)
				n += kp_run_count(t, t->insn[i].run);
	}
	return n;
}

/* ---- run-time callbacks ---- */

/*
 * udata is the instruction's struct kp_fetch, bit 0 set when the
 * instruction spans two lines.  The same one as the last fetch simulated,
 * within one line, is that line again: the most recent of its set, a hit
 * that changes nothing (no other fetch came between).
 */
static __attribute__((noinline)) void kp_fetch(void *udata)
{
	const struct kp_fetch *f = (void *)((uintptr_t)udata & ~(uintptr_t)1);

	kp_sim_fetch(&kp.sim, f->pc->miss, f->haddr - kp.ioff, f->size);
	kp_sim_itlb(&kp.sim, f->pc->miss, f->vaddr, f->haddr - kp.ioff, f->size, kp.tlb_gen);
	kp.last_fetch = (uintptr_t)udata & 1 ? NULL : udata;
}

/* the checks that return at once apart: they need no registers saved */
static void kp_fetch_cb(unsigned int vcpu, void *udata)
{
	if (unlikely(!kp.active) || udata == kp.last_fetch)
		return;
	kp_fetch(udata);
}

/* what the TLB may match: nothing until the calibration load is seen */
static void kp_tlb_match(void)
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
static void kp_tlb_cb(unsigned int vcpu, void *udata)
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
static void kp_calibrate(uint64_t pa)
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
 * After a D1 lookup of size bytes at vaddr: in every geometry its line is
 * the most recent of its set.  One across two lines (rare) is not noted,
 * and the sets it touched forget theirs: across a page, the second line
 * looked up is not the second page's (see kp_mem_full).
 */
static void kp_vmru_note(uint64_t vaddr, unsigned int size)
{
	int g;

	if (!kp.vmru_on)
		return;
	for (g = 0; g < kp.sim.ngeom; g++) {
		const struct kp_cache *c = &kp.sim.geom[g].d1;
		uint64_t first = vaddr >> c->line_bits, end = (vaddr + size - 1) >> c->line_bits;

		if (first == end) {
			kp.vmru[g][first & c->set_mask] = (struct kp_vmru){first, kp.tlb_gen};
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
 * An access not known to hit the most recent line of its sets and the
 * most recent entry of its D-TLB sets: its physical address from the
 * plugin's TLB, else QEMU's lookup (which fills the TLB, and sees the
 * calibration load), then the simulated D-TLBs and caches.
 */
static __attribute__((noinline)) void kp_mem_full(qemu_plugin_meminfo_t info, uint64_t vaddr,
						  struct kp_mem *ms, struct kp_memo *m)
{
	uint64_t vpage = vaddr >> KP_PAGE_BITS, pa;
	struct kp_tlbe *e = &kp.tlb[vpage % KP_TLB_SIZE];
	struct qemu_plugin_hwaddr *hw;

	if (unlikely(m->info != info))
		kp_memo_fill(m, info);
	if (likely(e->vpage == vpage && (e->ppage_gen & KP_PAGE_MASK) == kp.tlb_match &&
		   (vaddr + m->size - 1) >> KP_PAGE_BITS == vpage)) {
		pa = (e->ppage_gen & ~(uint64_t)KP_PAGE_MASK) | (vaddr & KP_PAGE_MASK);
	} else {
		hw = qemu_plugin_get_hwaddr(info, vaddr);
		if (unlikely(!hw)) {
			kp.unresolved++;
			return;
		}
		/* device memory is not cached */
		if (unlikely(qemu_plugin_hwaddr_is_io(hw))) {
			kp.io_accesses++;
			return;
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
	kp_sim_tlb(&kp.sim, ms->pc->miss, false, vaddr, pa, m->size, kp.tlb_gen);
	kp_sim_data_miss(&kp.sim, ms->pc->miss, pa, m->size, m->store);
	kp_vmru_note(vaddr, m->size);
}

/*
 * kp_vmru_hit for geometry 0, from the first host cache line of kp, and
 * the access's page one of the two most recent of its D-TLB set, looked up
 * since the last change of mappings or tag (a new generation): a hit that
 * changes nothing but their order (within one line, so within one page)
 */
static inline bool kp_vmru_hit0(uint64_t vaddr, unsigned int size)
{
	uint64_t vl = vaddr >> kp.d1_bits, vp = vaddr >> KP_TLB_PAGE;
	const struct kp_vmru *e = &kp.vmru0[vl & kp.d1_sets];

	/* the D1 check first: a tlb_match of KP_GEN_MAX + 1 fails it (no key has it) */
	return e->vline == vl && e->gen == kp.tlb_match && (vaddr + size - 1) >> kp.d1_bits == vl &&
	       (kp_likely(kp.dmru0[vp & kp.dtlb_sets] == kp_tlb_key(vp, kp.tlb_match)) ||
		kp_tlb_second(&kp.sim.geom[0].dtlb, vp, kp.tlb_match));
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
 * recent line of its sets is counted here and nothing else (then, with one
 * geometry, no registers need saving); the rest is kp_mem_full's.
 */
static void kp_mem_cb(unsigned int vcpu, qemu_plugin_meminfo_t info, uint64_t vaddr, void *udata)
{
	struct kp_mem *ms = udata;
	struct kp_memo *m;

	if (unlikely(!kp.active))
		return;
	m = kp_memo(info);
	if (unlikely(m->info != info || !kp_vmru_hit0(vaddr, m->size))) {
		kp_mem_full(info, vaddr, ms, m);
		return;
	}
	if (unlikely(kp.sim.ngeom > 1)) {
		kp_mem_more(info, vaddr, ms, m);
		return;
	}
	kp_count_access(ms, m);
}

/*
 * mode=timing: udata is the instruction's struct kp_tinsn, its site its
 * struct kp_mem.  No shortcut: the access is looked up in full, for its
 * physical address (the prefetchers see every access), and what geometry
 * 0 said is told from its PC's misses before and after.
 */
static void kp_mem_timing_cb(unsigned int vcpu, qemu_plugin_meminfo_t info, uint64_t vaddr,
			     void *udata)
{
	struct kp_tinsn *ti = udata;
	struct kp_mem *ms = ti->site;
	struct kp_miss *m0 = &ms->pc->miss[0], was = *m0;
	struct kp_memo *m;

	if (unlikely(!kp.active))
		return;
	m = kp_memo(info);
	kp.last_pa = 0;
	kp_mem_full(info, vaddr, ms, m);
	kp_timing_access(&kp.tm, ti,
			 m0->d1_read_miss + m0->d1_write_miss != was.d1_read_miss + was.d1_write_miss,
			 m0->ll_miss != was.ll_miss, m0->dtlb_miss != was.dtlb_miss, kp.last_pa,
			 m->size, m->store, vaddr);
}

/* mode=timing: udata is the instruction's struct kp_tinsn, its fetch site the kp_fetch_cb's */
static void kp_fetch_timing_cb(unsigned int vcpu, void *udata)
{
	struct kp_tinsn *ti = udata;
	const struct kp_fetch *f = (void *)((uintptr_t)ti->fetch_site & ~(uintptr_t)1);
	struct kp_miss *m0 = &f->pc->miss[0], was = *m0;

	if (unlikely(!kp.active) || ti->fetch_site == kp.last_fetch)
		return;
	kp_fetch(ti->fetch_site);
	if (m0->i1_miss != was.i1_miss || m0->itlb_miss != was.itlb_miss)
		kp_timing_fetch(&kp.tm, ti, m0->i1_miss != was.i1_miss, m0->ll_miss != was.ll_miss,
				m0->itlb_miss != was.itlb_miss, f->haddr - kp.ioff);
}

/* mode=timing: udata is the block starting: the one before it goes to the core */
static void kp_tb_timing_cb(unsigned int vcpu, void *udata)
{
	struct kp_tb *t = udata;

	if (likely(kp.active))
		kp_timing_block(&kp.tm, &t->tblk);
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

static void kp_marker_cb(unsigned int vcpu, void *udata)
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
static void kp_boot_cb(unsigned int vcpu, void *udata)
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

/* ---- translation ---- */

/* a marker's location, two 64-bit words, as a hash key */
static guint kp_mark_hash(gconstpointer k)
{
	const uint64_t *w = k;

	return g_int64_hash(&w[0]) ^ g_int64_hash(&w[1]);
}

static gboolean kp_mark_equal(gconstpointer a, gconstpointer b)
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

static void kp_trans_markers(qemu_plugin_id_t id, struct qemu_plugin_tb *tb)
{
	size_t i, n = qemu_plugin_tb_n_insns(tb);

	for (i = 0; i < n; i++)
		kp_instrument_marker(qemu_plugin_tb_get_insn(tb, i));
}

/* a block: its first address, instruction count and bytes */
static guint kp_tb_hash(gconstpointer k)
{
	const struct kp_tb *t = k;

	return t->hash;
}

/* the same bytes at the same addresses, so the same runs of the same PCs */
static gboolean kp_tb_equal(gconstpointer a, gconstpointer b)
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

static int kp_u64_cmp(const void *a, const void *b)
{
	uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;

	return x < y ? -1 : x > y;
}

/*
 * A kernel instruction cannot end its run early (see the top): when it
 * touches only what Linux keeps mapped, or, with vmlinux=, when it is a
 * plain access at no fault site of the kernel's own text, which runs
 * unpatched (the same bytes as linked, so not moved by KASLR either).
 */
static bool kp_kernel_stays(uint64_t va, const uint8_t *b, uint32_t size)
{
	if (kp_x86_kernel_stays(b, size))
		return true;
	if (va < kp.text || va + size > kp.text_end || !kp_x86_kernel_plain(b, size) ||
	    memcmp(b, kp.text_bytes + (va - kp.text), size))
		return false;
	return !bsearch(&va, kp.faults, kp.nfaults, sizeof(*kp.faults), kp_u64_cmp);
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

	t->tblk.n = t->n;
	t->tblk.ti = g_new0(struct kp_tinsn, t->n);
	for (i = 0; i < t->n; b += t->insn[i].size, va += t->insn[i].size, i++) {
		struct kp_insn *in = &t->insn[i];
		struct kp_tinsn *ti = &t->tblk.ti[i];

		if (in->marker)
			continue;
		kp_timing_decode(&kp.tm, ti, b, in->size, va, in->ev);
		ti->cyc = kp_pc_cyc(in->pc);
		if (in->mem != KP_NONE)
			ti->site = &t->ms[in->mem];
		if (in->fetch != KP_NONE)
			ti->fetch_site = (void *)((uintptr_t)&t->fs[in->fetch] | in->spans);
	}
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
	t->cnt = kp_hot_alloc(t->nruns * sizeof(*t->cnt) + t->nfetch * sizeof(*t->fs) +
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
				(struct kp_fetch){in->haddr, in->pc->pc, in->size, in->pc};
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

/* mode=timing: mode=cache's callbacks, with the latencies noted for the core */
static void kp_instrument_timing(struct qemu_plugin_insn *insn, struct kp_tb *t, uint32_t i)
{
	const struct kp_insn *in = &t->insn[i];
	struct kp_tinsn *ti = &t->tblk.ti[i];

	if (ti->fetch_site)
		qemu_plugin_register_vcpu_insn_exec_cb(insn, kp_fetch_timing_cb,
						       QEMU_PLUGIN_CB_NO_REGS, ti);
	else if (in->line)
		kp.fetch_no_haddr++;
	if (in->flushes || in->tlbop != KP_OP_NONE)
		qemu_plugin_register_vcpu_insn_exec_cb(insn, kp_tlb_cb, QEMU_PLUGIN_CB_NO_REGS,
						       (void *)in);
	if (ti->site)
		qemu_plugin_register_vcpu_mem_cb(insn, kp_mem_timing_cb, QEMU_PLUGIN_CB_NO_REGS,
						 QEMU_PLUGIN_MEM_RW, ti);
}

/*
 * window=boot: the block gets kp_boot_cb when it starts the stage awaited.
 * In mode=cache, the first block in RAM before the kernel's entry runs
 * where virtual addresses are physical (the firmware's flat mode, the
 * decompressor's identity map): it calibrates instruction fetches as the
 * start marker's load does (see the top).
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

static void kp_trans_full(qemu_plugin_id_t id, struct qemu_plugin_tb *tb)
{
	struct kp_tb *t = kp_tb_get(tb);
	uint32_t i;

	if (kp.boot != KP_BOOT_OFF)
		kp_boot_watch(tb, t);
	if (kp.mode == KP_TIMING)
		qemu_plugin_register_vcpu_tb_exec_cb(tb, kp_tb_timing_cb, QEMU_PLUGIN_CB_NO_REGS, t);

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
			kp_instrument_timing(insn, t, i);
	}
}

/* ---- output ---- */

static bool kp_pc_empty(const struct kp_pc *p)
{
	int g;

	if (p->sum || p->flushes)
		return false;
	for (g = 0; g < kp.sim.ngeom; g++) {
		const struct kp_miss *m = &p->miss[g];

		if (m->i1_miss || m->d1_read || m->d1_write || m->ll_miss || m->itlb_miss ||
		    m->dtlb_miss)
			return false;
	}
	return true;
}

static gint kp_by_pc(gconstpointer a, gconstpointer b)
{
	const struct kp_pc *x = *(struct kp_pc *const *)a, *y = *(struct kp_pc *const *)b;

	return x->pc < y->pc ? -1 : x->pc > y->pc;
}

/*
 * Each run's count, over all windows (the open one included), becomes that
 * of every instruction in it, and each memory site's accesses its PC's.
 * Once, at the end.
 */
static void kp_tb_fold(void)
{
	GHashTableIter it;
	gpointer key;
	uint32_t i;

	g_hash_table_iter_init(&it, kp.tbs);
	while (g_hash_table_iter_next(&it, &key, NULL)) {
		struct kp_tb *t = key;

		for (i = 0; i < t->n; i++) {
			const struct kp_insn *in = &t->insn[i];

			if (in->marker)
				continue;
			in->pc->sum += kp_run_count(t, in->run);
			if (in->tlbflush)
				in->pc->flushes += kp_run_count(t, in->run);
		}
		for (i = 0; i < t->nmem; i++) {
			struct kp_miss *m = t->ms[i].pc->miss;
			int g;

			for (g = 0; g < kp.sim.ngeom; g++) {
				m[g].d1_read += t->ms[i].rw[0];
				m[g].d1_write += t->ms[i].rw[1];
			}
		}
		if (kp.mode == KP_TIMING)
			kp_timing_fold(&t->tblk);
	}
}

static const char *kp_window(void)
{
	if (!kp.opened)
		return "none";
	return kp.active ? "incomplete" : "complete";
}

static void kp_write_header(FILE *f)
{
	int g;

	fprintf(f, "# kp_model 2\n# mode %s\n# count %s\n", kp.mode == KP_TIMING ? "timing" : kp.mode == KP_CACHE ? "cache" : "insns",
		kp.count == KP_PER_TB ? "tb" : "insn");
	fprintf(f, "# qemu %s\n# qemu_header %s\n# plugin_api %d\n",
		kp.qemu_version ? kp.qemu_version : "unknown", KP_QEMU_HEADER_VERSION,
		QEMU_PLUGIN_VERSION);
	fprintf(f, "# window %s\n# windows opened %u closed %u restarts %u stray_stops %u\n",
		kp_window(), kp.opened, kp.closed, kp.restarts, kp.stray_stops);
	/* the stages the boot reached, none at all when it never entered the kernel */
	if (kp.boot_window && kp.boot != KP_BOOT_ENTRY)
		fprintf(f, "# boot entry_insns %" PRIu64 "\n", kp.boot_entry);
	if (kp.boot_window && kp.boot == KP_BOOT_OFF)
		fprintf(f, "# boot first_user_insns %" PRIu64 "\n", kp.boot_first_user);
	for (g = 0; g < kp.sim.ngeom; g++) {
		const struct kp_geom *k = &kp.sim.geom[g];

		fprintf(f,
			"# geom %d i1=%" PRIu64 ":%u:%" PRIu64 " d1=%" PRIu64 ":%u:%" PRIu64
			" ll=%" PRIu64 ":%u:%" PRIu64 "\n",
			g, k->i1.size, k->i1.assoc, k->i1.line, k->d1.size, k->d1.assoc, k->d1.line,
			k->ll.size, k->ll.assoc, k->ll.line);
		fprintf(f, "# tlb %d itlb=%" PRIu64 ":%u dtlb=%" PRIu64 ":%u\n", g, k->itlb.entries,
			k->itlb.assoc, k->dtlb.entries, k->dtlb.assoc);
	}
	fprintf(f, "# guest pti %s pcid %s\n",
		kp.hint < 0   ? "unknown"
		: kp.hint & 1 ? "1"
			      : "0",
		kp.hint < 0   ? "unknown"
		: kp.hint & 2 ? "1"
			      : "0");
	if (kp.mode != KP_INSNS)
		fprintf(f,
			"# iaddr %s\n# io_accesses %" PRIu64 "\n# unresolved %" PRIu64
			"\n# fetch_sites_without_address %" PRIu64 "\n",
			kp.calibrated ? "physical" : "host", kp.io_accesses, kp.unresolved,
			kp.fetch_no_haddr);
	if (kp.mode == KP_TIMING)
		kp_timing_header(f, &kp.tm);
	fputs("# columns pc insns ev flushes", f);
	for (g = 0; g < kp.sim.ngeom; g++)
		fprintf(f,
			" i1_miss.%d d1_read.%d d1_read_miss.%d d1_write.%d d1_write_miss.%d ll_miss.%d"
			" itlb_miss.%d dtlb_miss.%d",
			g, g, g, g, g, g, g, g);
	if (kp.mode == KP_TIMING)
		fputs(" cycles cyc_base cyc_branch cyc_icache cyc_dcache cyc_tlb cyc_serialize", f);
	fputc('\n', f);
}

static void kp_write_row(FILE *f, const struct kp_pc *p)
{
	int g;

	fprintf(f, "0x%" PRIx64 " %" PRIu64 " %s %" PRIu64, p->pc, p->sum, kp_ev_names[p->ev],
		p->flushes);
	for (g = 0; g < kp.sim.ngeom; g++) {
		const struct kp_miss *m = &p->miss[g];

		fprintf(f,
			" %" PRIu64 " %" PRIu64 " %" PRIu64 " %" PRIu64 " %" PRIu64 " %" PRIu64
			" %" PRIu64 " %" PRIu64,
			m->i1_miss, m->d1_read, m->d1_read_miss, m->d1_write, m->d1_write_miss,
			m->ll_miss, m->itlb_miss, m->dtlb_miss);
	}
	if (kp.mode == KP_TIMING)
		kp_timing_row(f, kp_pc_cyc((struct kp_pc *)p));
	fputc('\n', f);
}

/* every PC with a count, by address */
static GPtrArray *kp_rows(void)
{
	GPtrArray *rows = g_ptr_array_new();
	guint c;
	size_t i;

	for (c = 0; c < kp.chunks->len; c++) {
		for (i = 0; i < kp_chunk_len(c); i++) {
			struct kp_pc *p = kp_pc_nth(c, i);

			if (!kp_pc_empty(p))
				g_ptr_array_add(rows, p);
		}
	}
	g_ptr_array_sort(rows, kp_by_pc);
	return rows;
}

/* written to PATH.tmp, then renamed: a reader never sees half a table */
static void kp_atexit(qemu_plugin_id_t id, void *udata)
{
	g_autofree char *tmp = g_strdup_printf("%s.tmp", kp.out);
	GPtrArray *rows;
	FILE *f = fopen(tmp, "w");
	guint i;

	if (!f) {
		fprintf(stderr, "kp_model: cannot write %s: %s\n", tmp, strerror(errno));
		return;
	}
	kp_tb_fold();
	rows = kp_rows();
	kp_write_header(f);
	for (i = 0; i < rows->len; i++)
		kp_write_row(f, g_ptr_array_index(rows, i));
	g_ptr_array_free(rows, true);
	if (fclose(f) || rename(tmp, kp.out))
		fprintf(stderr, "kp_model: cannot write %s: %s\n", kp.out, strerror(errno));
}

/* ---- arguments ---- */

/* an x86-64 ELF image's PROGBITS section called name, or NULL */
static const Elf64_Shdr *kp_elf_section(const uint8_t *img, size_t len, const char *name)
{
	const Elf64_Ehdr *eh = (const void *)img;
	const Elf64_Shdr *sh, *names;
	size_t nlen = strlen(name) + 1;
	unsigned int i;

	if (len < sizeof(*eh) || memcmp(eh->e_ident, ELFMAG, SELFMAG) ||
	    eh->e_ident[EI_CLASS] != ELFCLASS64 || eh->e_machine != EM_X86_64 ||
	    eh->e_shoff > len || (len - eh->e_shoff) / sizeof(*sh) < eh->e_shnum ||
	    eh->e_shstrndx >= eh->e_shnum)
		return NULL;
	sh = (const void *)(img + eh->e_shoff);
	names = &sh[eh->e_shstrndx];
	if (names->sh_offset > len || len - names->sh_offset < names->sh_size)
		return NULL;
	for (i = 0; i < eh->e_shnum; i++) {
		if (sh[i].sh_name >= names->sh_size || names->sh_size - sh[i].sh_name < nlen ||
		    memcmp(img + names->sh_offset + sh[i].sh_name, name, nlen))
			continue;
		if (sh[i].sh_type != SHT_PROGBITS || sh[i].sh_offset > len ||
		    len - sh[i].sh_offset < sh[i].sh_size)
			return NULL;
		return &sh[i];
	}
	return NULL;
}

/* true when addr is in one of the (checked) image's executable sections */
static bool kp_elf_exec(const uint8_t *img, uint64_t addr)
{
	const Elf64_Ehdr *eh = (const void *)img;
	const Elf64_Shdr *sh = (const void *)(img + eh->e_shoff);
	unsigned int i;

	for (i = 0; i < eh->e_shnum; i++)
		if ((sh[i].sh_flags & SHF_EXECINSTR) && addr - sh[i].sh_addr < sh[i].sh_size)
			return true;
	return false;
}

/*
 * The instructions __ex_table fixes faults of: its entries are three int32
 * (the instruction, the fixup, data, each relative to its own address) in
 * Linux 4.6 and later.  Every one must be code: else the table is not that.
 */
static bool kp_vmlinux_faults(const uint8_t *img, const Elf64_Shdr *ex)
{
	size_t i;

	if (ex->sh_size % 12)
		return false;
	kp.nfaults = ex->sh_size / 12;
	kp.faults = g_new(uint64_t, kp.nfaults);
	for (i = 0; i < kp.nfaults; i++) {
		int32_t rel;

		memcpy(&rel, img + ex->sh_offset + i * 12, sizeof(rel));
		kp.faults[i] = ex->sh_addr + i * 12 + (int64_t)rel;
		if (!kp_elf_exec(img, kp.faults[i]))
			return false;
	}
	qsort(kp.faults, kp.nfaults, sizeof(*kp.faults), kp_u64_cmp);
	return true;
}

/* vmlinux=PATH: the booted kernel's .text, kept, and its fault sites (see the top) */
static bool kp_vmlinux_load(const char *path)
{
	const Elf64_Shdr *text, *ex;
	struct stat st;
	uint8_t *img;
	bool ok;
	int fd = open(path, O_RDONLY);

	if (fd < 0 || fstat(fd, &st) ||
	    (img = mmap(NULL, st.st_size, PROT_READ, MAP_PRIVATE, fd, 0)) == MAP_FAILED) {
		fprintf(stderr, "kp_model: vmlinux=%s: %s\n", path, strerror(errno));
		if (fd >= 0)
			close(fd);
		return false;
	}
	close(fd);
	text = kp_elf_section(img, st.st_size, ".text");
	ex = kp_elf_section(img, st.st_size, "__ex_table");
	ok = text && ex && kp_vmlinux_faults(img, ex);
	if (ok) {
		kp.text = text->sh_addr;
		kp.text_end = text->sh_addr + text->sh_size;
		kp.text_bytes = g_memdup2(img + text->sh_offset, text->sh_size);
	} else {
		fprintf(stderr,
			"kp_model: vmlinux=%s: no x86-64 Linux image with .text and __ex_table\n",
			path);
	}
	munmap(img, st.st_size);
	return ok;
}

/* i1=, d1=, ll=, itlb=, dtlb=: one geometry, cachegrind's and Skylake's defaults for the rest */
static bool kp_single_geom(const char *const *one)
{
	g_autofree char *s = g_strdup_printf(
		"%s/%s/%s/%s/%s", one[0] ? one[0] : "32768:8:64", one[1] ? one[1] : "32768:8:64",
		one[2] ? one[2] : "8388608:16:64", one[3] ? one[3] : KP_ITLB_DEFAULT,
		one[4] ? one[4] : KP_DTLB_DEFAULT);

	return kp_sim_add_geom(&kp.sim, s);
}

static bool kp_parse_arg(const char *arg, const char **one)
{
	const char *v = strchr(arg, '=');
	size_t klen = v ? (size_t)(v - arg) : strlen(arg);

	if (!v) {
		fprintf(stderr, "kp_model: argument '%s': want KEY=VALUE\n", arg);
		return false;
	}
	v++;
	if (!strncmp(arg, "mode", klen) && klen == 4) {
		if (strcmp(v, "insns") && strcmp(v, "cache") && strcmp(v, "timing")) {
			fprintf(stderr, "kp_model: mode=%s: want insns, cache or timing\n", v);
			return false;
		}
		kp.mode = !strcmp(v, "cache") ? KP_CACHE : !strcmp(v, "timing") ? KP_TIMING : KP_INSNS;
	} else if (klen == 3 && !strncmp(arg, "out", 3)) {
		kp.out = g_strdup(v);
	} else if (klen == 4 && !strncmp(arg, "qemu", 4)) {
		kp.qemu_version = g_strdup(v);
	} else if (klen == 5 && !strncmp(arg, "count", 5)) {
		if (strcmp(v, "insn") && strcmp(v, "tb")) {
			fprintf(stderr, "kp_model: count=%s: want insn or tb\n", v);
			return false;
		}
		kp.count = strcmp(v, "tb") ? KP_PER_INSN : KP_PER_TB;
	} else if (klen == 6 && !strncmp(arg, "window", 6)) {
		if (strcmp(v, "markers") && strcmp(v, "boot")) {
			fprintf(stderr, "kp_model: window=%s: want markers or boot\n", v);
			return false;
		}
		kp.boot_window = !strcmp(v, "boot");
	} else if (klen == 7 && !strncmp(arg, "vmlinux", 7)) {
		return kp_vmlinux_load(v);
	} else if (klen == 4 && !strncmp(arg, "geom", 4)) {
		return kp_sim_add_geom(&kp.sim, v);
	} else if (klen == 2 &&
		   (!strncmp(arg, "i1", 2) || !strncmp(arg, "d1", 2) || !strncmp(arg, "ll", 2))) {
		one[arg[0] == 'i' ? 0 : arg[0] == 'd' ? 1 : 2] = v;
	} else if (klen == 4 && (!strncmp(arg, "itlb", 4) || !strncmp(arg, "dtlb", 4))) {
		one[arg[0] == 'i' ? 3 : 4] = v;
	} else {
		int r = kp_timing_arg(&kp.tm, arg, klen, v);

		if (!r)
			fprintf(stderr, "kp_model: unknown argument '%s'\n", arg);
		return r > 0;
	}
	return true;
}

static bool kp_parse_args(int argc, char **argv)
{
	const char *one[5] = {NULL, NULL, NULL, NULL, NULL};
	bool single;
	int i;

	for (i = 0; i < argc; i++)
		if (!kp_parse_arg(argv[i], one))
			return false;
	single = one[0] || one[1] || one[2] || one[3] || one[4];
	if (!kp.out) {
		fprintf(stderr, "kp_model: no out=PATH for the table\n");
		return false;
	}
	if (single && kp.sim.ngeom) {
		fprintf(stderr, "kp_model: give geom= or i1=/d1=/ll=/itlb=/dtlb=, not both\n");
		return false;
	}
	if (kp.mode != KP_INSNS && !kp.sim.ngeom && !kp_single_geom(one))
		return false;
	if (kp.mode == KP_INSNS && (kp.sim.ngeom || single)) {
		fprintf(stderr, "kp_model: cache and TLB geometries need mode=cache or timing\n");
		return false;
	}
	return kp.mode != KP_TIMING || kp_timing_init(&kp.tm, &kp.sim.geom[0]);
}

/* the D1 sets' recent lines, when sets can be told by virtual address */
static void kp_vmru_init(void)
{
	int g;

	kp.vmru_on = true;
	for (g = 0; g < kp.sim.ngeom; g++) {
		const struct kp_cache *c = &kp.sim.geom[g].d1;

		kp.vmru[g] = g_new0(struct kp_vmru, c->set_mask + 1);
		if (c->line_bits + __builtin_ctzll(c->set_mask + 1) > KP_PAGE_BITS)
			kp.vmru_on = false;
	}
	kp.vmru0 = kp.vmru[0];
	kp.dmru0 = kp.sim.geom[0].dtlb.mru;
	kp.dtlb_sets = kp.sim.geom[0].dtlb.set_mask;
	kp.d1_bits = kp.sim.geom[0].d1.line_bits;
	kp.d1_sets = kp.sim.geom[0].d1.set_mask;
}

QEMU_PLUGIN_EXPORT int qemu_plugin_install(qemu_plugin_id_t id, const qemu_info_t *info, int argc,
					   char **argv)
{
	kp.id = id;
	kp.hint = -1;
	if (!kp_parse_args(argc, argv))
		return -1;
	/* the inline counters are plain adds: one vCPU, or they race */
	if (info->system_emulation && (info->system.smp_vcpus > 1 || info->system.max_vcpus > 1)) {
		fprintf(stderr, "kp_model: %d vCPUs (at most %d): exact counts need one (-smp 1)\n",
			info->system.smp_vcpus, info->system.max_vcpus);
		return -1;
	}
	kp_sim_init(&kp.sim);
	kp.tlb_gen = 1;
	kp_tlb_match();
	kp_vmru_init();
	/* whole host cache lines, so that a PC's hot fields share one */
	kp.pc_size = (sizeof(struct kp_pc) + kp.sim.ngeom * sizeof(struct kp_miss) +
		      (kp.mode == KP_TIMING ? sizeof(struct kp_cyc) : 0) + 63) &
		     ~(size_t)63;
	kp.by_pc = g_hash_table_new(g_int64_hash, g_int64_equal);
	kp.by_mark = g_hash_table_new(kp_mark_hash, kp_mark_equal);
	kp.chunks = g_ptr_array_new();
	kp.tbs = g_hash_table_new(kp_tb_hash, kp_tb_equal);
	if (kp.boot_window) {
		/* the window is open from reset, every block instrumented */
		kp.boot = KP_BOOT_ENTRY;
		kp.active = kp.full = true;
		kp.opened = 1;
	}
	qemu_plugin_register_vcpu_tb_trans_cb(id, kp.full ? kp_trans_full : kp_trans_markers);
	qemu_plugin_register_atexit_cb(id, kp_atexit, NULL);
	return 0;
}
