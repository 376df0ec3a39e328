// SPDX-License-Identifier: GPL-2.0-only
/*
 * The frame as the register flow (dtype_flow.c) follows it: %rsp and %rbp
 * relative to the CFA, and the registers spilled into its slots, so that a
 * reload gives back the spilled value's type.
 */
#include "datatype/dtype_int.h"

#include <string.h>

/* A store into the frame: a register spilled (mov) is kept, any other write forgets the slot. */
static void frame_store(struct dtype_file *f, const cs_insn *in, struct dt_regs *regs)
{
	const cs_x86 *x = &in->detail->x86;
	const cs_x86_op *dst = &x->operands[0], *src = &x->operands[1];
	int base = dt_dwreg(dst->mem.base), s;
	struct dt_reg v;
	unsigned int i;
	__s64 at;

	if ((base != 6 && base != 7) || dst->mem.index != X86_REG_INVALID ||
	    !dt_frame_off(f, in->address, regs, base, dst->mem.disp, &at))
		return;
	for (i = 0; i < regs->nslots; i++) /* the slots it overwrites, in part or whole */
		if (regs->slot[i].at > at - 8 && regs->slot[i].at < at + dst->size)
			regs->slot[i--] = regs->slot[--regs->nslots];
	s = x->op_count == 2 && src->type == X86_OP_REG ? dt_dwreg(src->reg) : -1;
	if (in->id != X86_INS_MOV || s < 0 || s >= DT_NREGS - 1)
		return;
	v = regs->r[s];
	if (!dt_is_reg64(src->reg)) { /* a narrower variable's value, stored whole */
		v.type = 0;
		if (!v.vtype || dt_type_size(f->dw, v.vtype) != src->size)
			return;
	}
	if (!v.type && !v.vtype)
		return;
	if (regs->nslots == DT_NSLOTS)
		memmove(regs->slot, regs->slot + 1, --regs->nslots * sizeof(regs->slot[0]));
	regs->slot[regs->nslots++] = (struct dt_slot){at, v};
}

/* What mov or lea into %rsp or %rbp puts there, CFA-relative (a copy of the other, or it plus
 * disp). */
static void frame_copy(const cs_insn *in, bool *known, __s64 *v, bool from_known, __s64 from,
		       unsigned int from_reg)
{
	const cs_x86_op *b = &in->detail->x86.operands[1];

	*known = false;
	if (in->id == X86_INS_MOV && b->type == X86_OP_REG && b->reg == from_reg) {
		*known = from_known;
		*v = from;
	} else if (in->id == X86_INS_LEA && b->mem.base == from_reg &&
		   b->mem.index == X86_REG_INVALID) {
		*known = from_known;
		*v = from + b->mem.disp;
	}
}

void dt_frame_ptrs(const cs_insn *in, struct dt_regs *regs)
{
	const cs_x86 *x = &in->detail->x86;
	const cs_x86_op *a = &x->operands[0], *b = &x->operands[1];
	bool to_sp = x->op_count && a->type == X86_OP_REG && a->reg == X86_REG_RSP;
	bool to_fp = x->op_count && a->type == X86_OP_REG && a->reg == X86_REG_RBP;

	if (in->id == X86_INS_PUSH || in->id == X86_INS_PUSHFQ) {
		regs->sp -= 8;
	} else if (in->id == X86_INS_POP || in->id == X86_INS_POPFQ) {
		regs->sp += 8;
		regs->fp_known = regs->fp_known && !to_fp;
	} else if (in->id == X86_INS_LEAVE) {
		regs->sp = regs->fp + 8;
		regs->sp_known = regs->fp_known;
		regs->fp_known = false;
	} else if (to_sp && (in->id == X86_INS_SUB || in->id == X86_INS_ADD) &&
		   b->type == X86_OP_IMM) {
		regs->sp += in->id == X86_INS_ADD ? b->imm : -b->imm;
	} else if (to_sp && in->id == X86_INS_LEA && b->mem.base == X86_REG_RSP &&
		   b->mem.index == X86_REG_INVALID) {
		regs->sp += b->mem.disp;
	} else if (to_sp) {
		frame_copy(in, &regs->sp_known, &regs->sp, regs->fp_known, regs->fp, X86_REG_RBP);
	} else if (to_fp) {
		frame_copy(in, &regs->fp_known, &regs->fp, regs->sp_known, regs->sp, X86_REG_RSP);
	}
}

void dt_flow_store(struct dtype_file *f, const cs_insn *in, struct dt_regs *regs)
{
	const cs_x86_op *op0 = &in->detail->x86.operands[0];

	if (in->detail->x86.op_count && op0->type == X86_OP_MEM && (op0->access & CS_AC_WRITE))
		frame_store(f, in, regs);
}
