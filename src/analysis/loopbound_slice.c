/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * A value within one basic block as an expression of the registers at the
 * block's head, of constants and of loads: what a probe at the head can
 * compute before the block runs.  A register read at an instruction is
 * followed back to the last instruction of the block writing it, whose
 * operands are followed in turn, down to registers nothing in the block
 * wrote before.  mov, movzx, movsx, lea, add, sub, inc, dec, imul, and, the
 * shifts by a constant and xor of a register with itself are followed;
 * anything else writing a register on the way makes the value opaque.
 *
 * Each node is a 64-bit value.  A 32-bit write zero-extends, as x86 does;
 * an 8 or 16-bit write keeps the register's upper bits, so only a read no
 * wider than it is followed through it.  Loads are taken to read at the
 * head what they read where they are: stores in the block are assumed not
 * to alias them.
 */
#include "analysis/loopbound.h"

#include <stdbool.h>
#include <stddef.h>
#include <capstone/capstone.h>

/* Each register's 64, 32, 16 and 8-bit names; the high bytes (ah...) stand for the whole too. */
static const struct {
	__u8 reg;
	unsigned short x86[5];
} gprs[] = {
	{KP_FREG_AX, {X86_REG_RAX, X86_REG_EAX, X86_REG_AX, X86_REG_AL, X86_REG_AH}},
	{KP_FREG_BX, {X86_REG_RBX, X86_REG_EBX, X86_REG_BX, X86_REG_BL, X86_REG_BH}},
	{KP_FREG_CX, {X86_REG_RCX, X86_REG_ECX, X86_REG_CX, X86_REG_CL, X86_REG_CH}},
	{KP_FREG_DX, {X86_REG_RDX, X86_REG_EDX, X86_REG_DX, X86_REG_DL, X86_REG_DH}},
	{KP_FREG_SI, {X86_REG_RSI, X86_REG_ESI, X86_REG_SI, X86_REG_SIL}},
	{KP_FREG_DI, {X86_REG_RDI, X86_REG_EDI, X86_REG_DI, X86_REG_DIL}},
	{KP_FREG_BP, {X86_REG_RBP, X86_REG_EBP, X86_REG_BP, X86_REG_BPL}},
	{KP_FREG_SP, {X86_REG_RSP, X86_REG_ESP, X86_REG_SP, X86_REG_SPL}},
	{KP_FREG_R8, {X86_REG_R8, X86_REG_R8D, X86_REG_R8W, X86_REG_R8B}},
	{KP_FREG_R9, {X86_REG_R9, X86_REG_R9D, X86_REG_R9W, X86_REG_R9B}},
	{KP_FREG_R10, {X86_REG_R10, X86_REG_R10D, X86_REG_R10W, X86_REG_R10B}},
	{KP_FREG_R11, {X86_REG_R11, X86_REG_R11D, X86_REG_R11W, X86_REG_R11B}},
	{KP_FREG_R12, {X86_REG_R12, X86_REG_R12D, X86_REG_R12W, X86_REG_R12B}},
	{KP_FREG_R13, {X86_REG_R13, X86_REG_R13D, X86_REG_R13W, X86_REG_R13B}},
	{KP_FREG_R14, {X86_REG_R14, X86_REG_R14D, X86_REG_R14W, X86_REG_R14B}},
	{KP_FREG_R15, {X86_REG_R15, X86_REG_R15D, X86_REG_R15W, X86_REG_R15B}},
	{KP_FREG_IP, {X86_REG_RIP, X86_REG_EIP, X86_REG_IP}},
	{KP_FREG_FLAGS, {X86_REG_EFLAGS}},
};

/* The pt_regs slot of reg and how many bits of it reg names; -1 for no register of pt_regs. */
static int gpr_of(unsigned int reg, int *bits)
{
	size_t i, j;

	for (i = 0; i < sizeof(gprs) / sizeof(gprs[0]); i++) {
		for (j = 0; j < 5 && gprs[i].x86[j]; j++) {
			if (gprs[i].x86[j] == reg) {
				*bits = j < 4 ? 64 >> j : 8;
				return gprs[i].reg;
			}
		}
	}
	return -1;
}

int lb_reg(unsigned int reg)
{
	int bits;

	return gpr_of(reg, &bits);
}

static bool high_byte(unsigned int reg)
{
	return reg == X86_REG_AH || reg == X86_REG_BH || reg == X86_REG_CH || reg == X86_REG_DH;
}

static int bitlen(__u64 v)
{
	return v ? 64 - __builtin_clzll(v) : 0;
}

static __u64 low_mask(int bits)
{
	return bits >= 64 ? ~0ull : (1ull << bits) - 1;
}

static const struct lb_node *at(const struct lb_expr *e, int x)
{
	return &e->n[x];
}

static int add_node(struct lb_expr *e, enum lb_op op, int arg, int bits, int a, int b, __s64 imm)
{
	if (e->count >= LB_NODES)
		return -1;
	e->n[e->count] = (struct lb_node){
		.op = op, .arg = arg, .bits = bits > 64 ? 64 : bits, .a = a, .b = b, .imm = imm};
	return e->count++;
}

int lb_const(struct lb_expr *e, __s64 v)
{
	return add_node(e, LB_CONST, 0, v < 0 ? 64 : bitlen(v), -1, -1, v);
}

static bool is_const(const struct lb_expr *e, int x)
{
	return at(e, x)->op == LB_CONST;
}

static int mk_reg(struct lb_expr *e, int reg)
{
	return add_node(e, LB_REG, reg, 64, -1, -1, 0);
}

/* a op b, constants folded and x + c1 + c2 made x + (c1 + c2) */
static int mk_bin(struct lb_expr *e, enum lb_op op, int a, int b)
{
	int ba, bb;
	__u64 x, y;

	if (a < 0 || b < 0)
		return -1;
	x = at(e, a)->imm;
	y = at(e, b)->imm;
	if (is_const(e, a) && is_const(e, b))
		return lb_const(e, op == LB_ADD ? x + y : op == LB_SUB ? x - y : x * y);
	if (op == LB_SUB && is_const(e, b))
		return mk_bin(e, LB_ADD, a, lb_const(e, -y));
	/* the constant second, where the folds below and the printing look for it */
	if (op != LB_SUB && is_const(e, a))
		return mk_bin(e, op, b, a);
	if (op == LB_ADD && is_const(e, b) && !y)
		return a;
	if (op == LB_ADD && is_const(e, b) && at(e, a)->op == LB_ADD && is_const(e, at(e, a)->b))
		return mk_bin(e, LB_ADD, at(e, a)->a, lb_const(e, at(e, at(e, a)->b)->imm + y));
	ba = at(e, a)->bits;
	bb = at(e, b)->bits;
	if (op == LB_ADD)
		return add_node(e, op, 0, (ba > bb ? ba : bb) + 1, a, b, 0);
	return add_node(e, op, 0, op == LB_MUL ? ba + bb : 64, a, b, 0);
}

int lb_and(struct lb_expr *e, int x, __s64 mask)
{
	const struct lb_node *n;
	__u64 keep;
	int bits;

	if (x < 0)
		return -1;
	n = at(e, x);
	keep = low_mask(n->bits);
	if (n->op == LB_CONST)
		return lb_const(e, n->imm & mask);
	if (((__u64)mask & keep) == keep)
		return x;
	if (n->op == LB_AND)
		return lb_and(e, n->a, n->imm & mask);
	bits = bitlen(mask);
	return add_node(e, LB_AND, 0, bits < n->bits ? bits : n->bits, x, -1, mask);
}

static int mk_shift(struct lb_expr *e, enum lb_op op, int x, int by)
{
	const struct lb_node *n;
	int bits;

	if (x < 0)
		return -1;
	n = at(e, x);
	if (!by)
		return x;
	/* a value short of the sign bit shifts the same either way */
	if (op == LB_SAR && n->bits < 64)
		op = LB_SHR;
	if (n->op == LB_CONST)
		return lb_const(e, op == LB_SHL	  ? (__s64)((__u64)n->imm << by)
				   : op == LB_SHR ? (__s64)((__u64)n->imm >> by)
						  : n->imm >> by);
	if (op == LB_SHL)
		bits = n->bits + by;
	else if (op == LB_SHR)
		bits = n->bits > by ? n->bits - by : 0;
	else
		bits = 64;
	return add_node(e, op, by, bits, x, -1, 0);
}

/* A constant cut to bytes, zero- or sign-extended. */
static __s64 cut_const(__s64 v, int bytes, bool sign)
{
	__u64 u = (__u64)v & low_mask(bytes * 8), top = 1ull << (bytes * 8 - 1);

	return sign && (u & top) ? (__s64)(u | ~low_mask(bytes * 8)) : (__s64)u;
}

int lb_extend(struct lb_expr *e, int x, int bits, bool sign)
{
	const struct lb_node *n;
	int bytes = bits / 8;

	if (x < 0 || bits >= 64)
		return x;
	n = at(e, x);
	/* a value that fits reads the same either way */
	if (n->bits < bits || (!sign && n->bits == bits))
		return x;
	if (n->op == LB_CONST)
		return lb_const(e, cut_const(n->imm, bytes, sign));
	/* the low bytes of an extension to as many or more are its operand's */
	if ((n->op == LB_ZEXT || n->op == LB_SEXT) && n->arg >= bytes)
		return lb_extend(e, n->a, bits, sign);
	return add_node(e, sign ? LB_SEXT : LB_ZEXT, bytes, sign ? 64 : bits, x, -1, 0);
}

__u32 lb_regs(const struct lb_expr *e, int x)
{
	const struct lb_node *n;

	if (x < 0)
		return 0;
	n = at(e, x);
	if (n->op == LB_REG)
		return 1u << n->arg;
	return lb_regs(e, n->a) | lb_regs(e, n->b);
}

static int reg_before(const struct lb_block *b, struct lb_expr *e, size_t k, unsigned int x86reg);

static const cs_x86 *detail(const struct lb_block *b, size_t k)
{
	return &b->v[k].detail->x86;
}

/* A base or index register; 32-bit addressing is not followed. */
static int address_reg(const struct lb_block *b, struct lb_expr *e, size_t k, unsigned int reg)
{
	int bits, r = gpr_of(reg, &bits);

	return r >= 0 && r != KP_FREG_IP && bits == 64 ? reg_before(b, e, k, reg) : -1;
}

/* The address a memory operand of instruction k names; RIP-relative is a constant. */
static int address(const struct lb_block *b, struct lb_expr *e, size_t k, const x86_op_mem *m)
{
	const cs_insn *in = &b->v[k];
	int x, i;

	if (m->segment != X86_REG_INVALID)
		return -1;
	if (m->base == X86_REG_RIP)
		x = lb_const(e, (__s64)(in->address + in->size));
	else if (m->base == X86_REG_INVALID)
		x = lb_const(e, 0);
	else
		x = address_reg(b, e, k, m->base);
	if (m->index != X86_REG_INVALID) {
		i = address_reg(b, e, k, m->index);
		x = mk_bin(e, LB_ADD, x,
			   m->scale == 1 ? i : mk_bin(e, LB_MUL, i, lb_const(e, m->scale)));
	}
	return mk_bin(e, LB_ADD, x, lb_const(e, m->disp));
}

int lb_operand(const struct lb_block *b, struct lb_expr *e, size_t k, int op)
{
	const cs_x86_op *o = &detail(b, k)->operands[op];
	int a;

	switch (o->type) {
	case X86_OP_REG:
		return reg_before(b, e, k, o->reg);
	case X86_OP_IMM:
		return lb_const(e, cut_const(o->imm, o->size ? o->size : 8, false));
	case X86_OP_MEM:
		a = address(b, e, k, &o->mem);
		if (a < 0 || (o->size != 1 && o->size != 2 && o->size != 4 && o->size != 8))
			return -1;
		return add_node(e, LB_LOAD, o->size, o->size * 8, a, -1, 0);
	default:
		return -1;
	}
}

/* The shift count of instruction k: a constant (one when not given), -1 for %cl. */
static int shift_count(const cs_x86 *d)
{
	if (d->op_count == 1)
		return 1;
	return d->operands[1].type == X86_OP_IMM ? (int)(d->operands[1].imm & 63) : -1;
}

static int shift(const struct lb_block *b, struct lb_expr *e, size_t k, enum lb_op op, int bits)
{
	int by = shift_count(detail(b, k)), x = lb_operand(b, e, k, 0);

	if (by < 0)
		return -1;
	/* a narrower sar shifts in the sign of its own width */
	if (op == LB_SAR)
		x = lb_extend(e, x, bits, true);
	return mk_shift(e, op, x, by);
}

/* What instruction k computes into its destination, before the cut to its width. */
static int compute(const struct lb_block *b, struct lb_expr *e, size_t k, int bits)
{
	const cs_x86 *d = detail(b, k);

	switch (b->v[k].id) {
	case X86_INS_MOV:
	case X86_INS_MOVABS:
	case X86_INS_MOVZX:
		return lb_operand(b, e, k, 1);
	case X86_INS_MOVSX:
	case X86_INS_MOVSXD:
		return lb_extend(e, lb_operand(b, e, k, 1), d->operands[1].size * 8, true);
	case X86_INS_LEA:
		return address(b, e, k, &d->operands[1].mem);
	case X86_INS_ADD:
	case X86_INS_SUB:
		return mk_bin(e, b->v[k].id == X86_INS_ADD ? LB_ADD : LB_SUB,
			      lb_operand(b, e, k, 0), lb_operand(b, e, k, 1));
	case X86_INS_INC:
	case X86_INS_DEC:
		return mk_bin(e, b->v[k].id == X86_INS_INC ? LB_ADD : LB_SUB,
			      lb_operand(b, e, k, 0), lb_const(e, 1));
	case X86_INS_IMUL:
		if (d->op_count == 3)
			return mk_bin(e, LB_MUL, lb_operand(b, e, k, 1), lb_operand(b, e, k, 2));
		return d->op_count == 2
			       ? mk_bin(e, LB_MUL, lb_operand(b, e, k, 0), lb_operand(b, e, k, 1))
			       : -1;
	case X86_INS_AND:
		if (d->operands[1].type != X86_OP_IMM)
			return -1;
		return lb_and(e, lb_operand(b, e, k, 0), d->operands[1].imm & low_mask(bits));
	case X86_INS_SHR:
		return shift(b, e, k, LB_SHR, bits);
	case X86_INS_SAR:
		return shift(b, e, k, LB_SAR, bits);
	case X86_INS_SHL:
	case X86_INS_SAL:
		return shift(b, e, k, LB_SHL, bits);
	case X86_INS_XOR:
		if (d->operands[0].type == X86_OP_REG && d->operands[1].type == X86_OP_REG &&
		    d->operands[0].reg == d->operands[1].reg)
			return lb_const(e, 0);
		return -1;
	default:
		return -1;
	}
}

int lb_result(const struct lb_block *b, struct lb_expr *e, size_t k)
{
	const cs_x86 *d = detail(b, k);
	int bits;

	if (d->op_count < 1 || d->operands[0].type != X86_OP_REG || high_byte(d->operands[0].reg))
		return -1;
	bits = d->operands[0].size * 8;
	return lb_extend(e, compute(b, e, k, bits), bits, false);
}

/* The register x86reg as instruction k reads it, at its width. */
static int reg_before(const struct lb_block *b, struct lb_expr *e, size_t k, unsigned int x86reg)
{
	int bits, reg = gpr_of(x86reg, &bits), j;
	const cs_x86_op *dst;

	if (reg < 0 || reg == KP_FREG_IP || reg == KP_FREG_FLAGS || high_byte(x86reg))
		return -1;
	for (j = (int)k - 1; j >= 0 && !(b->writes[j] & (1u << reg)); j--)
		;
	if (j < 0)
		return lb_extend(e, mk_reg(e, reg), bits, false);
	dst = &detail(b, j)->operands[0];
	/* only a destination register operand is modelled; a partial write keeps what is above */
	if (!detail(b, j)->op_count || dst->type != X86_OP_REG || lb_reg(dst->reg) != reg ||
	    (dst->size < 4 && dst->size * 8 < bits))
		return -1;
	return lb_extend(e, lb_result(b, e, (size_t)j), bits, false);
}
