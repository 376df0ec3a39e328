/* SPDX-License-Identifier: GPL-2.0-only */
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
#ifndef KP_MODEL_H
#define KP_MODEL_H

#include <glib.h>
#include <stdbool.h>
#include <stdint.h>

#include <qemu-plugin.h>

#include "kp_cache.h"
#include "kp_strsite.h"
#include "kp_timing.h"
#include "kp_vmlinux.h"
#include "kp_x86.h"

#ifndef KP_QEMU_HEADER_VERSION
#define KP_QEMU_HEADER_VERSION "unknown"
#endif

#define KP_MARKER_LEN 9
#define KP_PAGE_BITS  12 /* x86's smallest page */
#define KP_PAGE_MASK  ((1u << KP_PAGE_BITS) - 1)
#define KP_MAX_INSN   15	 /* bytes in an x86 instruction, at most */
#define KP_CHUNK      4096	 /* PCs' records per allocation: never moved */
#define KP_TLB_SIZE   512	 /* pages the plugin's TLB holds */
#define KP_HOT_CHUNK  (2u << 20) /* a huge page of blocks' counters and sites, or timing blocks */
#define KP_GEN_MAX    KP_PAGE_MASK
#define KP_MEMO_SIZE  64 /* memory access kinds remembered */
/* window=boot: the user's half of the address space (the kernel's: kp_x86.h) */
#define KP_USER_END 0x0000800000000000ull
/* window=boot, mode=cache: RAM where the boot runs identity-mapped (-m 2G) */
#define KP_CALIB_LOW  0x100000ull
#define KP_CALIB_HIGH 0xc0000000ull
#define likely(x)     __builtin_expect(!!(x), 1)
#define unlikely(x)   __builtin_expect(!!(x), 0)

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
	uint32_t tb_n;	     /* mode=timing, a block's first: its instructions (kp_tblock_tag_of) */
	struct kp_pc *pc;    /* its misses */
	struct kp_tsite *ts; /* mode=timing: its instruction's, read on a miss only */
};

/* an instruction that may load or store: its accesses, and where misses go */
struct kp_mem {
	uint64_t rw[2]; /* reads, writes */
	struct kp_pc *pc;
	struct kp_tsite *ts; /* mode=timing: its instruction's, read when its block is noted */
};

/*
 * A block: its instructions, and a counter per run of them (see the top).
 * cnt is bumped by inline code QEMU generates, so it is never reset: a
 * window's count is cnt at its end less base at its start.  In mode=cache,
 * what the callbacks of its instructions use, right after the counters: a
 * block's callbacks touch a host cache line or two, its PCs' records only
 * on a miss.
 */
/* memory handed out in order from huge pages (kp_hot_alloc): what is left of the last */
struct kp_arena {
	char *free;
	size_t left;
};

struct kp_tb {
	uint64_t vaddr;
	uint32_t n, nruns, nbytes, nfetch, nmem;
	guint hash;
	uint64_t *cnt;		/* nruns inline counters, side by side */
	struct kp_fetch *fs;	/* nfetch, after cnt */
	struct kp_mem *ms;	/* nmem, after fs */
	uint64_t *base, *sum;	/* nruns each: at the window's start, closed windows */
	uint8_t *bytes;		/* the instructions' bytes, to match a translation */
	struct kp_tblock *tblk; /* mode=timing: its instructions as the core sees them */
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
	uint64_t pline; /* its physical address >> the line's bits */
	uint64_t dkey;	/* its page's D-TLB key (kp_tlb_key: 4 KiB or 2 MiB) */
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
	struct kp_arena hot; /* blocks' counters and sites */
	struct kp_arena tblocks; /* mode=timing: blocks' instructions as the core sees them */
	GHashTable *by_mark; /* a marker's vaddr and haddr -> struct kp_mark */

	bool full; /* every block is instrumented, not just the markers */
	int hint;  /* the guest's last hint marker's byte, or -1 */
	int pages; /* pages=: 1 large (the kernel's 2 MiB pages inferred), 0 4k, -1 not given */
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

	struct kp_vmlinux vml;	 /* vmlinux= */
	struct kp_strsites strs; /* with vmlinux= and caches: the string helpers' call sites */
};

/* All of it: QEMU's callbacks take no context but udata (kp_model.c). */
extern struct kp_ctx kp;

/* kp_model.c: the PCs' records and the blocks' counters */
struct kp_pc *kp_pc_nth(guint c, size_t i);
size_t kp_chunk_len(guint c);
struct kp_cyc *kp_pc_cyc(struct kp_pc *p);
struct kp_pc *kp_pc_get(uint64_t pc);
void *kp_hot_alloc(struct kp_arena *a, size_t size);
void kp_each_counter(void (*fn)(uint64_t *cnt, uint64_t *base, uint64_t *sum));
void kp_snap_base(uint64_t *cnt, uint64_t *base, uint64_t *sum);
void kp_close_sum(uint64_t *cnt, uint64_t *base, uint64_t *sum);
uint64_t kp_run_count(const struct kp_tb *t, uint32_t r);
uint64_t kp_count_all(void);

/* kp_run.c: what runs as the guest does */
void kp_fetch_cb(unsigned int vcpu, void *udata);
void kp_tlb_match(void);
void kp_tlb_cb(unsigned int vcpu, void *udata);
void kp_calibrate(uint64_t pa);
void kp_mem_cb(unsigned int vcpu, qemu_plugin_meminfo_t info, uint64_t vaddr, void *udata);
void kp_mem_timing_cb(unsigned int vcpu, qemu_plugin_meminfo_t info, uint64_t vaddr, void *udata);
void kp_fetch_timing_cb(unsigned int vcpu, void *udata);
void kp_tb_timing_cb(unsigned int vcpu, void *udata);
void kp_tb_fetch_timing_cb(unsigned int vcpu, void *udata);
void kp_marker_cb(unsigned int vcpu, void *udata);
void kp_boot_cb(unsigned int vcpu, void *udata);

/* kp_trans.c: what a translation instruments */
guint kp_mark_hash(gconstpointer k);
gboolean kp_mark_equal(gconstpointer a, gconstpointer b);
void kp_trans_markers(qemu_plugin_id_t id, struct qemu_plugin_tb *tb);
guint kp_tb_hash(gconstpointer k);
gboolean kp_tb_equal(gconstpointer a, gconstpointer b);
void kp_trans_full(qemu_plugin_id_t id, struct qemu_plugin_tb *tb);

/* kp_table.c: the table written at exit */
void kp_atexit(qemu_plugin_id_t id, void *udata);

#endif
