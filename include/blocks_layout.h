/* SPDX-License-Identifier: (GPL-2.0-only OR BSD-2-Clause) */
/*
 * record --blocks: map keys and values shared by bpf/blocks.bpf.c and
 * src/record/blocks.c.  A probe sits at each basic block head of a function;
 * its cookie says which function and block (KP_BLK_COOKIE).
 */
#ifndef KP_BLOCKS_LAYOUT_H
#define KP_BLOCKS_LAYOUT_H

#include "kprotperf.h"

/* --blocks functions in one recording */
#define KP_BLK_FUNCS 8
/* blocks of one function (--blocks-limit is at most this) */
#define KP_BLK_MAX 1024
/* loops of one function whose trips are counted per call; the rest get block counts only */
#define KP_BLK_LOOPS 16
/* calls of --blocks functions nested in one thread deeper than this are lost */
#define KP_BLK_DEPTH 4
/* binfo's loop for a block heading no counted loop */
#define KP_BLK_NO_LOOP 0xff

#define KP_BLK_COOKIE(func, block) ((__u64)(func) << 16 | (block))

/*
 * A value read at a probe from the registers the probe saved and from
 * kernel memory: a postfix program, run by the probe's BPF program.  Built
 * by user space from the text (analysis/loopbound.h: a loop's bound, read at
 * the head of the block that compares against it) or from a DWARF location
 * (symbols/dwarf_fetch.h: an inline instance's struct kmem_cache *).
 */
#define KP_FETCH_OPS   12
#define KP_FETCH_STACK 4

enum kp_fetch_opcode {
	KP_FOP_END,   /* the value is the top of the stack */
	KP_FOP_REG,   /* push register arg (enum kp_fetch_reg) */
	KP_FOP_CONST, /* push imm */
	/*
	 * pop an address, push the arg bytes (1, 2, 4 or 8) there,
	 * zero-extended; an unreadable address ends the program without a value
	 */
	KP_FOP_LOAD,
	KP_FOP_ADD, /* pop b, pop a, push a + b; SUB and MUL alike */
	KP_FOP_SUB,
	KP_FOP_MUL,
	KP_FOP_AND,  /* top &= imm */
	KP_FOP_SHR,  /* top >>= arg, logical */
	KP_FOP_SAR,  /* top >>= arg, arithmetic */
	KP_FOP_SHL,  /* top <<= arg */
	KP_FOP_ZEXT, /* top cut to its low arg bytes (1, 2 or 4), zero-extended */
	KP_FOP_SEXT, /* top cut to its low arg bytes (1, 2 or 4), sign-extended */
	KP_FOP_COUNT,
};

/* x86_64 struct pt_regs, in its order: a register's index is its offset / 8. */
enum kp_fetch_reg {
	KP_FREG_R15,
	KP_FREG_R14,
	KP_FREG_R13,
	KP_FREG_R12,
	KP_FREG_BP,
	KP_FREG_BX,
	KP_FREG_R11,
	KP_FREG_R10,
	KP_FREG_R9,
	KP_FREG_R8,
	KP_FREG_AX,
	KP_FREG_CX,
	KP_FREG_DX,
	KP_FREG_SI,
	KP_FREG_DI,
	KP_FREG_ORIG_AX,
	KP_FREG_IP,
	KP_FREG_CS,
	KP_FREG_FLAGS,
	KP_FREG_SP,
	KP_FREG_SS,
	KP_FREG_COUNT,
};

struct kp_fetch_op {
	__u8 op;  /* enum kp_fetch_opcode */
	__u8 arg; /* register, size or shift */
	__u8 pad[6];
	__s64 imm;
};

/* Runs ops[0..n) in order, or until KP_FOP_END; n == 0: nothing to read. */
struct kp_fetch {
	__u8 n;
	__u8 pad[7];
	struct kp_fetch_op ops[KP_FETCH_OPS];
};

/*
 * The low 16 bits of a probe's cookie: a block index, or with this bit an
 * exit or side-entry probe of an inline instance, indexing bexits.
 */
#define KP_BLK_EXIT_PROBE 0x8000
/* exit and side-entry probes of one inline instance */
#define KP_BLK_EXITS 64

/* After a probe has counted its block, the call it counted into ends: */
enum kp_blk_exit {
	KP_BLK_EXIT_NONE,
	KP_BLK_EXIT_ALWAYS, /* a ret or a jump out of an inline instance, at its address */
	KP_BLK_EXIT_CC,	    /* a jcc out of one: when its condition holds in the saved flags */
	KP_BLK_EXIT_PARENT, /* the instance's parent code control goes on in: in the same frame */
	KP_BLK_SIDE_ENTRY,  /* parent code entering the instance elsewhere than at its entry */
};

/* What a block's probe does: binfo[func * KP_BLK_MAX + block]. */
struct kp_blk_info {
	__u32 insns; /* instructions the block executes */
	__u8 loop;   /* it heads counted loop loop, else KP_BLK_NO_LOOP */
	__u8 entry;  /* the function's entry block: a call begins */
	__u8 used;   /* set for the blocks of probed functions */
	__u8 bound;  /* it compares against counted loop bound's bound, else KP_BLK_NO_LOOP */
	__u8 exit;   /* enum kp_blk_exit: the call ends after the block's instructions */
	__u8 cc;     /* KP_BLK_EXIT_CC: the jcc's condition (0 jo .. 15 jg) */
	__u8 pad[2];
};

/* An exit or side-entry probe: bexits[func * KP_BLK_EXITS + index]. */
struct kp_blk_exit_info {
	__u8 kind; /* enum kp_blk_exit, NONE: not used */
	__u8 cc;
	__u8 pad[6];
};

/* What a --blocks function's probes read and keep, bfuncs[func]. */
struct kp_blk_func {
	struct kp_fetch cache; /* its struct kmem_cache * at the entry, n 0: none */
	__u32 nloops;	       /* loops counted per call, at most KP_BLK_LOOPS */
	__u32 inl;	       /* an inline instance: its calls run in their parent's frame */
};

/* One call of a --blocks function not yet returned. */
struct kp_blk_call {
	__u32 func;
	__u16 bound_read; /* bit l: bound[l] read in this call */
	__u16 pad;
	__u64 sp;     /* the stack pointer at entry: the frame an inline instance runs in */
	__u64 insns;  /* executed so far */
	__u64 kstack; /* the kernel stack at entry (--func-stacks), 0 none */
	__u32 nr;     /* the syscall it runs in, KP_BLK_NO_SYSCALL none */
	__u32 pad2;
	__u32 trips[KP_BLK_LOOPS]; /* executions of each counted loop's head */
	__s64 bound[KP_BLK_LOOPS]; /* each loop's bound, read at its compare's block */
	char ctx[KP_CTX_LEN];	   /* the slab cache's name, "" when none */
};

#define KP_BLK_NO_SYSCALL 0xffffffff

/* Per-thread task storage of record --blocks. */
struct kp_blk_thread {
	__u32 depth; /* open calls, innermost last; past KP_BLK_DEPTH: not recorded */
	__u32 pad;
	struct kp_blk_call call[KP_BLK_DEPTH];
};

/* Per function, per CPU. */
struct kp_blk_stats {
	__u64 calls;	  /* entered and recorded */
	__u64 complete;	  /* returned */
	__u64 lost_depth; /* entered too deep to record */
	__u64 lost_map;	  /* returned, but a per-call value found bvalues or bctx full */
	__u64 unmatched;  /* returned without their entry seen, or above a lost return */
	__u64 side;	  /* an inline instance entered elsewhere than at its entry: not recorded */
	__u64 bound_lost; /* a loop bound's fetch program could not read its value */
};

enum kp_blk_what {
	KP_BLK_TRIPS = 1,
	KP_BLK_BOUND, /* value: the loop's trips in the call, bound: its bound's value then */
};

/* A per-call value's key in bvalues: how many calls had it. */
struct kp_blk_value {
	__u16 func;
	__u8 what; /* enum kp_blk_what */
	__u8 loop; /* the counted loop for KP_BLK_TRIPS and KP_BLK_BOUND, else 0 */
	__u32 pad;
	__u64 value;
	__s64 bound;
	char ctx[KP_CTX_LEN];
};

/*
 * Complete calls, bctx: by context (syscall, kernel stack at entry, slab
 * cache) and instructions executed, how many calls had each.  One map gives
 * both the calls by context and the instructions-per-call distribution: a
 * call's end updates one hash entry, not two.
 */
struct kp_blk_ctx_key {
	__u16 func;
	__u16 pad;
	__u32 nr;
	__u64 kstack;
	__u64 insns;
	char ctx[KP_CTX_LEN];
};

#endif
