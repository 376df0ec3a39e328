/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * What bounds each loop: at an exit of the loop that ends in a conditional
 * jump, the instruction setting the flags it tests, the two values those
 * flags compare (loopbound_slice.c follows each back to the registers at
 * the head of the exit's block), and which of them the loop leaves alone.
 *
 * A value is the loop's own when no instruction of the loop's blocks
 * writes a register it reads; what it loads from memory is assumed to stay
 * the same through the loop (the compiler reloading slab->objects each
 * time does not make it change).  A compare of one such value with one the
 * loop changes is the bound and the counter.
 *
 * The flags: cmp, and sub from a register or memory, compare their two
 * operands, and sub from a constant too where the condition reads the
 * carry; test, and, or and xor, and add, inc, dec and sub from a constant
 * otherwise, compare their result with 0 (a count down to 0).  The carry
 * of add, inc and dec and the parity and overflow conditions are no
 * compare: such exits are not followed.  A signed condition on the result
 * of add, sub, inc or dec reads as the result against 0, which it is
 * unless the arithmetic overflowed.
 *
 * A call is taken to change the registers the ABI lets it (the kernel's
 * -pg builds keep GCC from using what it knows of its callees' registers).
 */
#include "analysis/loopbound.h"

#include <errno.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <capstone/capstone.h>

#include "analysis/cfg.h"
#include "util/array.h"

#define FLAGS (1u << KP_FREG_FLAGS)
/* what a call may leave changed (the psABI's caller-saved registers) */
#define CALL_CLOBBERS                                                                         \
	((1u << KP_FREG_AX) | (1u << KP_FREG_CX) | (1u << KP_FREG_DX) | (1u << KP_FREG_SI) |  \
	 (1u << KP_FREG_DI) | (1u << KP_FREG_R8) | (1u << KP_FREG_R9) | (1u << KP_FREG_R10) | \
	 (1u << KP_FREG_R11) | FLAGS)

/* x86 condition codes as C: taken when side[0] op side[1]; s and ns only against 0; NULL: none */
static const struct {
	const char *op;
	bool sign;
	bool carry; /* reads CF */
} conds[16] = {
	[2] = {"<", false, true},   [3] = {">=", false, true},	[4] = {"==", false, false},
	[5] = {"!=", false, false}, [6] = {"<=", false, true},	[7] = {">", false, true},
	[8] = {"<", true, false},   [9] = {">=", true, false},	[12] = {"<", true, false},
	[13] = {">=", true, false}, [14] = {"<=", true, false}, [15] = {">", true, false},
};

/* The condition with its sides swapped: b <-> a, ae <-> be, l <-> g, ge <-> le. */
static const __s8 swapped[16] = {
	[2] = 7, [3] = 6,   [4] = 4,   [5] = 5,	  [6] = 3,
	[7] = 2, [12] = 15, [13] = 14, [14] = 13, [15] = 12,
};

/* One loopbound_find() call. */
struct ctx {
	const struct cfg *g;
	const struct cfg_text *text;
	size_t ntext;
	struct debuginfo *di;
	__s64 slide;
	csh cs;
	__u32 *writes; /* per block: the registers its instructions write */
};

/* A block's instructions. */
struct decoded {
	cs_insn *insn;
	__u32 *writes;
	struct lb_block b;
};

/* The flags a block's exit tests, as a compare of two values. */
struct compare {
	size_t k;	     /* the instruction setting them */
	__u64 at;	     /* its address */
	int side[2];	     /* taken when side[0] cc side[1] */
	int reg[2];	     /* the register each side is in there, -1 when none */
	unsigned int x86[2]; /* and capstone's for it, which names its width */
	__u64 reg_at;	     /* where the registers hold what the flags saw */
	int bits;	     /* the compare's width */
	int cc;
};

/* One exit followed: the bound side and the counter side of its compare. */
struct exit_bound {
	int block, bound, counter;
	struct compare c;
	struct lb_expr e;
};

static __u32 insn_writes(csh cs, const cs_insn *in)
{
	cs_regs rd, wr;
	uint8_t nrd, nwr, i;
	__u32 m = 0;
	int r;

	if (cs_regs_access(cs, in, rd, &nrd, wr, &nwr))
		return ~0u;
	for (i = 0; i < nwr; i++) {
		r = lb_reg(wr[i]);
		if (r >= 0)
			m |= 1u << r;
	}
	/* the call's push of its return address is popped by the callee's return */
	if (cs_insn_group(cs, in, CS_GRP_CALL))
		m = (m & ~(1u << KP_FREG_SP)) | CALL_CLOBBERS;
	return m;
}

static void decoded_free(struct decoded *d)
{
	if (d->insn)
		cs_free(d->insn, d->b.n);
	free(d->writes);
}

/* Block bi's instructions: 0, -ENOENT when the text does not decode as cfg_build() saw it. */
static int decode(const struct ctx *c, int bi, struct decoded *d)
{
	const struct cfg_block *blk = &c->g->b[bi];
	const struct cfg_text *t = NULL;
	size_t i;

	memset(d, 0, sizeof(*d));
	for (i = 0; !t && i < c->ntext; i++) {
		if (blk->start >= c->text[i].addr && blk->end <= c->text[i].addr + c->text[i].len)
			t = &c->text[i];
	}
	if (!t)
		return -ENOENT;
	d->b.n = cs_disasm(c->cs, t->code + (blk->start - t->addr), blk->end - blk->start,
			   blk->start, 0, &d->insn);
	if (d->b.n != blk->ninsn) {
		decoded_free(d);
		return -ENOENT;
	}
	d->writes = calloc(d->b.n, sizeof(*d->writes));
	if (!d->writes) {
		decoded_free(d);
		return -ENOMEM;
	}
	for (i = 0; i < d->b.n; i++)
		d->writes[i] = insn_writes(c->cs, &d->insn[i]);
	d->b.v = d->insn;
	d->b.writes = d->writes;
	return 0;
}

/* What each block of a loop writes; one that cannot be read is taken to write everything. */
static int block_writes(struct ctx *c)
{
	struct decoded d;
	size_t bi, i;
	int err;

	c->writes = calloc(c->g->nb ? c->g->nb : 1, sizeof(*c->writes));
	if (!c->writes)
		return -ENOMEM;
	for (bi = 0; bi < c->g->nb; bi++) {
		if (c->g->b[bi].loop < 0)
			continue;
		err = decode(c, (int)bi, &d);
		if (err == -ENOMEM)
			return err;
		c->writes[bi] = err ? ~0u : 0;
		for (i = 0; !err && i < d.b.n; i++)
			c->writes[bi] |= d.writes[i];
		if (!err)
			decoded_free(&d);
	}
	return 0;
}

static __u32 loop_writes(const struct ctx *c, const struct cfg_loop *l)
{
	__u32 m = 0;
	size_t i;

	for (i = 0; i < l->nbody; i++)
		m |= c->writes[l->body[i]];
	return m;
}

/* The instruction before the jcc that last sets the flags; -1 when the block does not. */
static int flag_setter(const struct lb_block *b)
{
	int k;

	for (k = (int)b->n - 2; k >= 0; k--) {
		if (b->writes[k] & FLAGS)
			return k;
	}
	return -1;
}

static void side_reg(const struct lb_block *b, struct compare *c, int side, int op)
{
	const cs_x86_op *o = &b->v[c->k].detail->x86.operands[op];

	c->reg[side] = o->type == X86_OP_REG ? lb_reg(o->reg) : -1;
	c->x86[side] = o->type == X86_OP_REG ? o->reg : 0;
}

/* Flags of operand 0 less operand 1, as cmp sets them. */
static void two_values(const struct lb_block *b, struct lb_expr *e, struct compare *c)
{
	c->side[0] = lb_operand(b, e, c->k, 0);
	c->side[1] = lb_operand(b, e, c->k, 1);
	side_reg(b, c, 0, 0);
	side_reg(b, c, 1, 1);
	c->reg_at = b->v[c->k].address;
}

/* Flags of a result against 0; test's without writing it. */
static void one_value(const struct lb_block *b, struct lb_expr *e, struct compare *c)
{
	const cs_insn *in = &b->v[c->k];
	const cs_x86 *d = &in->detail->x86;

	c->side[1] = lb_const(e, 0);
	c->reg[1] = -1;
	side_reg(b, c, 0, 0);
	c->reg_at = in->address + in->size;
	if (in->id != X86_INS_TEST) {
		c->side[0] = lb_result(b, e, c->k);
		return;
	}
	c->reg_at = in->address;
	c->side[0] = -1;
	if (d->operands[1].type == X86_OP_REG && d->operands[1].reg == d->operands[0].reg) {
		c->side[0] = lb_operand(b, e, c->k, 0);
	} else if (d->operands[1].type == X86_OP_IMM) {
		c->side[0] = lb_and(e, lb_operand(b, e, c->k, 0), d->operands[1].imm);
		/* the register is not what the flags saw, only some of its bits */
		c->reg[0] = -1;
	}
}

/* The compare whose outcome the block's jcc (cc) takes: 0, or -ENOENT when it is none. */
static int compare(const struct lb_block *b, struct lb_expr *e, int cc, struct compare *c)
{
	int k = flag_setter(b);
	unsigned int id;

	if (k < 0 || cc < 0 || !conds[cc].op || b->v[k].detail->x86.op_count < 1)
		return -ENOENT;
	c->k = (size_t)k;
	c->at = b->v[k].address;
	c->cc = cc;
	c->bits = b->v[k].detail->x86.operands[0].size * 8;
	id = b->v[k].id;
	if (id == X86_INS_CMP ||
	    (id == X86_INS_SUB &&
	     (b->v[k].detail->x86.operands[1].type != X86_OP_IMM || conds[cc].carry))) {
		/* the sign of a difference is no compare of its operands */
		if (cc == 8 || cc == 9)
			return -ENOENT;
		two_values(b, e, c);
	} else if (id == X86_INS_TEST || id == X86_INS_AND || id == X86_INS_OR ||
		   id == X86_INS_XOR ||
		   (!conds[cc].carry && (id == X86_INS_SUB || id == X86_INS_ADD ||
					 id == X86_INS_INC || id == X86_INS_DEC))) {
		one_value(b, e, c);
	} else {
		return -ENOENT;
	}
	return c->side[0] >= 0 && c->side[1] >= 0 ? 0 : -ENOENT;
}

static bool dominates(const struct cfg *g, int a, int b)
{
	for (; b >= 0; b = g->b[b].idom) {
		if (a == b)
			return true;
	}
	return false;
}

static bool dominates_latches(const struct cfg *g, const struct cfg_loop *l, int block)
{
	size_t i;

	for (i = 0; i < l->nlatches; i++) {
		if (!dominates(g, block, g->e[l->latches[i]].from))
			return false;
	}
	return true;
}

/*
 * The bound at exit edge ei of loop l: 0 with x filled when its compare has
 * one side the loop leaves alone and one it changes, -ENOENT when not.
 */
static int follow_exit(const struct ctx *c, const struct cfg_loop *l, int ei, struct exit_bound *x)
{
	const struct cfg_edge *edge = &c->g->e[ei];
	const struct cfg_block *blk = &c->g->b[edge->from];
	__u32 written = loop_writes(c, l);
	struct decoded d;
	bool still[2];
	int err, cc, i;

	if (!blk->cond || blk->site || (edge->to >= 0 && c->g->b[edge->to].doomed))
		return -ENOENT;
	err = decode(c, edge->from, &d);
	if (err)
		return err;
	x->e.count = 0;
	x->block = edge->from;
	err = compare(&d.b, &x->e, blk->cc, &x->c);
	decoded_free(&d);
	if (err)
		return err;
	for (i = 0; i < 2; i++)
		still[i] = !(lb_regs(&x->e, x->c.side[i]) & written);
	if (still[0] == still[1])
		return -ENOENT;
	/* what keeps the loop going, with the counter on the left */
	cc = edge->kind == CFG_EDGE_TAKEN ? x->c.cc ^ 1 : x->c.cc;
	x->counter = still[0] ? 1 : 0;
	x->bound = 1 - x->counter;
	if (x->counter && !swapped[cc])
		return -ENOENT;
	x->c.cc = x->counter ? swapped[cc] : cc;
	return 0;
}

/* The names and fetch program of the bound x found for loop l, into lb. */
static void describe(const struct ctx *c, int l, struct exit_bound *x, struct loopbound *lb)
{
	const struct cfg_block *blk = &c->g->b[x->block];
	struct lb_names nm = {c->di, blk->start - c->slide, c->slide};
	char counter[sizeof(lb->bound)], bound[sizeof(lb->bound)];
	int b;

	memset(lb, 0, sizeof(*lb));
	lb->loop = l;
	lb->block = x->block;
	lb->cmp = x->c.at;
	lb->jcc = blk->branch;
	/* a program too long for kp_fetch, or no node left for the cut, leaves fetch.n 0 */
	b = lb_extend(&x->e, x->c.side[x->bound], x->c.bits, conds[x->c.cc].sign);
	if (b >= 0)
		lb_emit(&x->e, b, &lb->fetch);
	else
		b = x->c.side[x->bound];
	lb_print(&x->e, b, &nm, false, lb->bound, sizeof(lb->bound));
	lb_print(&x->e, b, &nm, true, bound, sizeof(bound));
	/*
	 * The counter as the variable the compare reads, else as what the
	 * block computes it from, like the bound, at the block's head.
	 */
	if (x->c.reg[x->counter] >= 0 &&
	    !lb_reg_text(c->di, x->c.reg_at - c->slide, x->c.reg[x->counter],
			 cs_reg_name(c->cs, x->c.x86[x->counter]), lb->counter,
			 sizeof(lb->counter)))
		snprintf(counter, sizeof(counter), "%s", lb->counter);
	else
		lb_print(&x->e, x->c.side[x->counter], &nm, true, counter, sizeof(counter));
	/* each side clipped so that the whole compare fits */
	snprintf(lb->cond, sizeof(lb->cond), "%.120s %s %.120s", counter, conds[x->c.cc].op, bound);
}

/*
 * Loop l's bound into lb: of its exits with one, the one whose block
 * dominates the latches (tested on every trip), else the first.  0, or
 * -ENOENT when no exit has one.
 */
static int find_loop(const struct ctx *c, int l, struct loopbound *lb)
{
	const struct cfg_loop *loop = &c->g->loops[l];
	struct exit_bound x[2];
	int best = -1, rank, best_rank = 0, cur, err;
	size_t i;

	for (i = 0; i < loop->nexits; i++) {
		cur = best == 0 ? 1 : 0;
		err = follow_exit(c, loop, loop->exits[i], &x[cur]);
		if (err == -ENOMEM)
			return err;
		if (err)
			continue;
		rank = dominates_latches(c->g, loop, x[cur].block) ? 2 : 1;
		if (rank > best_rank) {
			best_rank = rank;
			best = cur;
		}
	}
	if (best < 0)
		return -ENOENT;
	describe(c, l, &x[best], lb);
	return 0;
}

int loopbound_find(const struct cfg *g, const struct cfg_text *text, size_t ntext,
		   struct debuginfo *di, __s64 slide, struct loopbound **out, size_t *n)
{
	struct ctx c = {.g = g, .text = text, .ntext = ntext, .di = di, .slide = slide};
	struct loopbound *v = NULL;
	size_t cnt = 0, cap = 0, l;
	int err;

	*out = NULL;
	*n = 0;
	/* cfg_build() disassembled the same text: only memory can be wanting */
	if (cs_open(CS_ARCH_X86, CS_MODE_64, &c.cs) != CS_ERR_OK)
		return -ENOMEM;
	cs_option(c.cs, CS_OPT_DETAIL, CS_OPT_ON);
	err = block_writes(&c);
	for (l = 0; !err && l < g->nloops; l++) {
		if (g->loops[l].irreducible)
			continue;
		err = array_reserve((void **)&v, &cap, cnt + 1, sizeof(*v));
		if (!err)
			err = find_loop(&c, (int)l, &v[cnt]);
		if (!err)
			cnt++;
		else if (err == -ENOENT)
			err = 0;
	}
	free(c.writes);
	cs_close(&c.cs);
	if (err) {
		free(v);
		return err;
	}
	*out = v;
	*n = cnt;
	return 0;
}
