/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * What bounds a loop of a function's control-flow graph (analysis/cfg.h):
 * the compare whose outcome decides at a loop exit whether the loop goes
 * on, its two sides as expressions of the registers at the head of the
 * compare's block and of kernel memory, which side stays the same through
 * the loop (the bound) and which moves (the counter), and, with the
 * kernel's DWARF, both named in C ("slab->objects - 1", "idx").
 *
 * record --blocks puts the bound, as a fetch program (kp_fetch), into the
 * probe at that block's head, and so reads its value once per call; report
 * and diff --blocks set the loop's trips per call against it.
 */
#ifndef KP_LOOPBOUND_H
#define KP_LOOPBOUND_H

#include <stdbool.h>
#include <stddef.h>
#include <linux/types.h>

#include "blocks_layout.h"

struct cfg;
struct cfg_text;
struct debuginfo;

struct loopbound {
	int loop;  /* index into cfg.loops */
	int block; /* the block ending in the exit branch: its head's probe reads fetch */
	__u64 cmp; /* the instruction setting the flags the branch tests */
	__u64 jcc; /* the exit branch */
	struct kp_fetch fetch; /* the bound's value, from the registers at block's head */
	char bound[128];  /* in C from DWARF, "slab->objects"; else "*(u16 *)(%r15 + 0x2a) & 0x7fff"
			   */
	char counter[64]; /* the side that moves: "idx"; else "%r14"; "" when not one register */
	char cond[256];	  /* what keeps the loop going, in C: "idx < slab->objects" */
};

/*
 * The bound of each loop of g whose exit compares a counter against
 * something the loop does not change, into *out (sorted by loop; loops
 * without one are left out; free() it).  text (ntext parts) is what g was
 * built from, at running-kernel addresses; di (NULL: registers only) names
 * the sides from the DWARF at those addresses less slide (the KASLR
 * slide: running minus link-time).  0 or -ENOMEM; a loop the analysis
 * cannot follow is no error.  A bound whose program does not fit in a
 * struct kp_fetch keeps its names with fetch.n 0.
 */
int loopbound_find(const struct cfg *g, const struct cfg_text *text, size_t ntext,
		   struct debuginfo *di, __s64 slide, struct loopbound **out, size_t *n);

/*
 * Shared by loopbound*.c only: loopbound.c follows loops, exits,
 * compares and what the loop writes; loopbound_slice.c makes a value within
 * a block an expression of the registers at its head; loopbound_print.c
 * makes that expression a fetch program and C.
 */
struct cs_insn;

/* expression nodes of one block's compare: more make a side opaque */
#define LB_NODES 64

enum lb_op {
	LB_REG,	  /* a register at the block's head: arg (enum kp_fetch_reg) */
	LB_CONST, /* imm */
	LB_LOAD,  /* arg bytes at address a, zero-extended */
	LB_ADD,	  /* a + b; SUB and MUL alike */
	LB_SUB,
	LB_MUL,
	LB_AND, /* a & imm */
	LB_SHR, /* a >> arg, logical; SAR arithmetic */
	LB_SAR,
	LB_SHL,	 /* a << arg */
	LB_ZEXT, /* a cut to its low arg bytes, zero-extended; SEXT sign-extended */
	LB_SEXT,
};

/* A 64-bit value, as the registers hold them. */
struct lb_node {
	__u8 op;   /* enum lb_op */
	__u8 arg;  /* register, bytes, or shift */
	__u8 bits; /* the value fits in this many low bits: a cut to as many costs nothing */
	__s8 a, b; /* operand nodes, -1 none */
	__s64 imm;
};

/* The nodes of the expressions of one block, shared among them. */
struct lb_expr {
	struct lb_node n[LB_NODES];
	int count;
};

/* A block's instructions, decoded with detail. */
struct lb_block {
	const struct cs_insn *v;
	size_t n;
	const __u32 *writes; /* per instruction: 1 << enum kp_fetch_reg written, FLAGS included */
};

/* The pt_regs slot of capstone's x86 register reg (a part names the whole), -1 for none. */
int lb_reg(unsigned int reg);
/*
 * The value operand op of instruction k reads (at its size), or the value
 * k leaves in its destination register operand, as an expression of the
 * registers at the block's head: a node of e, -1 when not one (an
 * instruction the slice does not model, or e full).
 */
int lb_operand(const struct lb_block *b, struct lb_expr *e, size_t k, int op);
int lb_result(const struct lb_block *b, struct lb_expr *e, size_t k);
int lb_const(struct lb_expr *e, __s64 v);
int lb_and(struct lb_expr *e, int x, __s64 mask);
/* x cut to bits (8, 16, 32 or 64), zero- or sign-extended: what a compare that wide sees. */
int lb_extend(struct lb_expr *e, int x, int bits, bool sign);
/* The registers x reads, 1 << enum kp_fetch_reg. */
__u32 lb_regs(const struct lb_expr *e, int x);

/* x as a fetch program: 0, or -E2BIG when it needs more ops or stack than kp_fetch has. */
int lb_emit(const struct lb_expr *e, int x, struct kp_fetch *out);

/* Where lb_print() names things from: di NULL for none. */
struct lb_names {
	struct debuginfo *di;
	__u64 pc;    /* link-time: the variables in scope there name registers */
	__s64 slide; /* running minus link-time: its symbols name the addresses loaded */
};

/*
 * x in C: registers by their variables ("%r15" when none), a load through
 * a named struct pointer by the member read, a load of a global variable
 * by its name; an extension at the top is left to the compare's width.
 * operand: x is a side of a compare, in parentheses if it binds less.
 */
void lb_print(const struct lb_expr *e, int x, const struct lb_names *nm, bool operand, char *buf,
	      size_t len);
/* The variable in register reg at pc: 0; else "%" and asm_name, -ENOENT. */
int lb_reg_text(struct debuginfo *di, __u64 pc, int reg, const char *asm_name, char *buf,
		size_t len);

#endif
