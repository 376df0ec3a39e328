// SPDX-License-Identifier: GPL-2.0-only
/*
 * An access through the stack or frame pointer: its place relative to the
 * canonical frame address, from the call frame information at the PC (CFA
 * = %rsp or %rbp + k), then the local whose location there (the frame base,
 * which gcc makes the CFA, or the same register plus an offset) covers it.
 */
#include "datatype/dtype_int.h"

#include <stdlib.h>
#include <string.h>
#include <dwarf.h>

/* The CFA at pc as register + *k, the register's DWARF number; -1 when unknown. */
static int cfa_rule(struct dtype_file *f, __u64 pc, __s64 *k)
{
	Dwarf_Frame *frame = NULL;
	Dwarf_Op *ops;
	size_t n;
	int reg = -1;

	if (!f->cfi || dwarf_cfi_addrframe(f->cfi, pc + f->cfi_bias, &frame) != 0)
		return -1;
	/* libdw gives a register + offset rule as DW_OP_bregx reg, offset */
	if (dwarf_frame_cfa(frame, &ops, &n) == 0 && n == 1 && ops[0].atom == DW_OP_bregx &&
	    ops[0].number < DT_NREGS) {
		reg = ops[0].number;
		*k = (__s64)ops[0].number2;
	} else if (n == 1 && ops[0].atom >= DW_OP_breg0 && ops[0].atom <= DW_OP_breg16) {
		reg = ops[0].atom - DW_OP_breg0;
		*k = (__s64)ops[0].number;
	}
	free(frame);
	return reg;
}

/* The local of fn at pc covering CFA + c, into *start (CFA-relative) and *type. */
static bool local_at(struct dtype_file *f, const struct dt_func *fn, __u64 pc, int cfa_reg, __s64 k,
		     __s64 c, __s64 *start, Dwarf_Off *type)
{
	const struct dt_loc *l;
	__s64 at;
	__u64 size;
	size_t i;

	for (i = 0; i < fn->nlocs; i++) {
		l = &fn->locs[i];
		if (l->kind == DT_LOC_FBREG && fn->cfa_frame)
			at = l->off;
		else if (l->kind == DT_LOC_BREG && l->reg == cfa_reg)
			at = l->off - k;
		else
			continue;
		if (pc < l->lo || pc >= l->hi)
			continue;
		size = dt_type_size(f->dw, l->type);
		if (c < at || c >= at + (__s64)(size ? size : 1))
			continue;
		if (l->scope) {
			Dwarf_Die scope;

			if (!dwarf_offdie(f->dw, l->scope, &scope) || dwarf_haspc(&scope, pc) <= 0)
				continue;
		}
		*start = at;
		*type = l->type;
		return true;
	}
	return false;
}

void dt_stack(struct dtype_file *f, const struct dt_func *fn, __u64 pc, int base, __s64 disp,
	      struct dt_res *r)
{
	__s64 k = 0, start;
	Dwarf_Off type;
	int reg = cfa_rule(f, pc, &k);

	if (reg < 0) {
		dt_untyped(f, r, "no frame information");
		return;
	}
	if (reg != base) {
		dt_untyped(f, r, dt_internf(f, "%s unknown in the frame", dt_reg_name(base)));
		return;
	}
	/* base + disp = CFA - k + disp */
	if (fn && fn->has_canary && disp - k >= fn->canary && disp - k < fn->canary + 8) {
		memset(r, 0, sizeof(*r));
		r->a.how = DT_CANARY;
		r->a.type = "(stack canary)";
		r->a.member = "";
		return;
	}
	if (!fn || !local_at(f, fn, pc, reg, k, disp - k, &start, &type)) {
		dt_untyped(f, r, "stack slot with no variable");
		return;
	}
	dt_member(f, type, disp - k - start, r);
	if (r->a.type)
		r->a.how = DT_STACK;
}

/* Whether in loads the canary (%fs:0x28 or %gs:0x28) into a register: its DWARF number, or -1. */
static int canary_load(const cs_insn *in)
{
	const cs_x86 *x = &in->detail->x86;

	if (in->id != X86_INS_MOV || x->op_count != 2 || x->operands[0].type != X86_OP_REG ||
	    x->operands[1].type != X86_OP_MEM || x->operands[1].mem.disp != 0x28 ||
	    x->operands[1].mem.base != X86_REG_INVALID ||
	    (x->operands[1].mem.segment != X86_REG_FS && x->operands[1].mem.segment != X86_REG_GS))
		return -1;
	return dt_dwreg(x->operands[0].reg);
}

/* Whether in stores register reg into the frame: its base into *base, its disp into *disp. */
static bool frame_store(const cs_insn *in, int reg, int *base, __s64 *disp)
{
	const cs_x86 *x = &in->detail->x86;

	if (in->id != X86_INS_MOV || x->op_count != 2 || x->operands[0].type != X86_OP_MEM ||
	    x->operands[1].type != X86_OP_REG || dt_dwreg(x->operands[1].reg) != reg ||
	    x->operands[0].mem.index != X86_REG_INVALID)
		return false;
	*base = dt_dwreg(x->operands[0].mem.base);
	*disp = x->operands[0].mem.disp;
	return *base == 6 || *base == 7;
}

void dt_stack_canary(struct dtype_file *f, struct dt_func *fn)
{
	__u64 at = fn->addr, end = fn->addr + fn->len;
	int reg = -1, since = 0, base;
	__s64 disp, k;

	while (at < end && dt_decode(f, at)) {
		at += f->insn->size;
		if (canary_load(f->insn) >= 0) {
			reg = canary_load(f->insn);
			since = 0;
		} else if (reg >= 0 && frame_store(f->insn, reg, &base, &disp)) {
			if (cfa_rule(f, f->insn->address, &k) == base) {
				fn->has_canary = true;
				fn->canary = disp - k;
			}
			return;
		} else if (reg >= 0 && ++since > 3) {
			reg = -1;
		}
	}
}
