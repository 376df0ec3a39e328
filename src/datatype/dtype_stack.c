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

/* reg's value at pc as CFA + *off: the CFI's rule, else what the flow followed of it. */
static bool reg_cfa(struct dtype_file *f, __u64 pc, const struct dt_regs *regs, int reg, __s64 *off)
{
	__s64 k;

	if (cfa_rule(f, pc, &k) == reg) {
		*off = -k;
		return true;
	}
	if (regs && reg == 7 && regs->sp_known) {
		*off = regs->sp;
		return true;
	}
	if (regs && reg == 6 && regs->fp_known) {
		*off = regs->fp;
		return true;
	}
	return false;
}

bool dt_frame_off(struct dtype_file *f, __u64 pc, const struct dt_regs *regs, int base, __s64 disp,
		  __s64 *at)
{
	if (!reg_cfa(f, pc, regs, base, at))
		return false;
	*at += disp;
	return true;
}

struct dt_slot *dt_slot_at(struct dt_regs *regs, __s64 at)
{
	unsigned int i;

	for (i = 0; i < regs->nslots; i++)
		if (regs->slot[i].at == at)
			return &regs->slot[i];
	return NULL;
}

static void pseudo_stack_op(struct dt_res *r)
{
	memset(r, 0, sizeof(*r));
	r->a.how = DT_STACK_OP;
	r->a.type = "(stack operation)";
	r->a.member = "";
}

/* Whether CFA + c is where the CFI at pc says a callee-saved register is kept. */
static bool save_slot(struct dtype_file *f, __u64 pc, __s64 c)
{
	static const int saved[] = {3, 6, 12, 13, 14, 15};
	Dwarf_Frame *frame = NULL;
	Dwarf_Op ops_mem[3], *ops;
	size_t n, i;
	bool found = false;

	if (!f->cfi || dwarf_cfi_addrframe(f->cfi, pc + f->cfi_bias, &frame) != 0)
		return false;
	for (i = 0; i < sizeof(saved) / sizeof(saved[0]) && !found; i++) {
		if (dwarf_frame_register(frame, saved[i], ops_mem, &ops, &n) != 0 || !n ||
		    ops[0].atom != DW_OP_call_frame_cfa)
			continue;
		/* offset(N): the CFA, N and a plus; or the CFA plus_uconst N */
		if (n == 3 && ops[1].atom == DW_OP_consts && ops[2].atom == DW_OP_plus)
			found = (__s64)ops[1].number == c;
		else if (n == 2 && ops[1].atom == DW_OP_plus_uconst)
			found = (__s64)ops[1].number == c;
	}
	free(frame);
	return found;
}

/* A spill slot holding a pointer: the pointer itself is what is accessed. */
static bool spilled(struct dtype_file *f, const struct dt_regs *regs, __s64 at, struct dt_res *r)
{
	struct dt_slot *s = regs ? dt_slot_at((struct dt_regs *)regs, at) : NULL;
	const char *pointee;

	if (!s || (!s->v.type && !s->v.vtype))
		return false;
	memset(r, 0, sizeof(*r));
	r->a.how = DT_STACK;
	r->a.member = "";
	if (s->v.vtype) {
		r->a.type = dt_type_name(f, s->v.vtype);
		r->a.type_size = r->a.msize = dt_type_size(f->dw, s->v.vtype);
		r->leaf = s->v.vtype;
		return true;
	}
	pointee = dt_type_name(f, s->v.type);
	r->a.type = dt_internf(f, "%s%s*", pointee, pointee[strlen(pointee) - 1] == '*' ? "" : " ");
	r->a.type_size = r->a.msize = 8;
	return true;
}

/*
 * The local of fn at pc covering CFA + c, into *start (CFA-relative) and *type; or, rel >= 0,
 * covering register rel + c, among the locations relative to it (a realigned frame's %rsp,
 * which the CFA says nothing of).
 */
static bool local_at(struct dtype_file *f, const struct dt_func *fn, __u64 pc,
		     const struct dt_regs *regs, int rel, __s64 c, __s64 *start, Dwarf_Off *type)
{
	const struct dt_loc *l;
	Dwarf_Die scope;
	Dwarf_Off t;
	__s64 at;
	__u64 size;
	size_t i;
	bool fb, br, val;

	for (i = 0; i < fn->nlocs; i++) {
		l = &fn->locs[i];
		val = l->kind == DT_LOC_FBVAL || l->kind == DT_LOC_BREGVAL; /* a pointer to there */
		fb = l->kind == DT_LOC_FBREG || l->kind == DT_LOC_FBVAL;
		br = l->kind == DT_LOC_BREG || l->kind == DT_LOC_BREGVAL;
		if (pc < l->lo || pc >= l->hi || (!fb && !br) ||
		    (rel >= 0 && (!br || l->reg != rel)))
			continue;
		if (rel >= 0 || (fb && fn->cfa_frame))
			at = l->off;
		else if (!br || !reg_cfa(f, pc, regs, l->reg, &at))
			continue;
		else
			at += l->off;
		t = val ? dt_pointee(f->dw, l->type) : l->type;
		size = dt_type_size(f->dw, t);
		if (!t || c < at || c >= at + (__s64)(size ? size : 1))
			continue;
		if (l->scope &&
		    (!dwarf_offdie(f->dw, l->scope, &scope) || dwarf_haspc(&scope, pc) <= 0))
			continue;
		*start = at;
		*type = t;
		return true;
	}
	return false;
}

/* An access at c: CFA + c, or register rel + c when rel >= 0 (base: for the reason). */
static void stack_at(struct dtype_file *f, const struct dt_func *fn, __u64 pc,
		     const struct dt_regs *regs, int rel, int base, __s64 c, struct dt_res *r)
{
	__s64 start;
	Dwarf_Off type;

	if (fn && fn->has_canary && fn->canary_rel == rel && c >= fn->canary &&
	    c < fn->canary + 8) {
		memset(r, 0, sizeof(*r));
		r->a.how = DT_CANARY;
		r->a.type = "(stack canary)";
		r->a.member = "";
		return;
	}
	if (!fn || !local_at(f, fn, pc, regs, rel, c, &start, &type)) {
		if (rel >= 0)
			dt_untyped(f, r,
				   dt_internf(f, "%s unknown in the frame", dt_reg_name(base)));
		else if (save_slot(f, pc, c))
			pseudo_stack_op(
				r); /* a callee-saved register kept or restored, as push/pop do */
		else if (!spilled(f, regs, c, r))
			dt_untyped(f, r,
				   c == -8 ? "the return address" : "stack slot with no variable");
		return;
	}
	dt_member(f, type, c - start, r);
	if (r->a.type)
		r->a.how = DT_STACK;
}

void dt_stack_cfa(struct dtype_file *f, const struct dt_func *fn, __u64 pc,
		  const struct dt_regs *regs, __s64 c, struct dt_res *r)
{
	stack_at(f, fn, pc, regs, -1, 7, c, r);
}

void dt_stack(struct dtype_file *f, const struct dt_func *fn, __u64 pc, int base, __s64 disp,
	      const struct dt_regs *regs, struct dt_res *r)
{
	__s64 c;

	if (dt_frame_off(f, pc, regs, base, disp, &c))
		stack_at(f, fn, pc, regs, -1, base, c, r);
	else /* a realigned frame: locations relative to base itself, if any */
		stack_at(f, fn, pc, regs, base, base, disp, r);
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
			fn->has_canary = true;
			fn->canary_rel = cfa_rule(f, f->insn->address, &k) == base ? -1 : base;
			fn->canary = fn->canary_rel < 0 ? disp - k : disp;
			return;
		} else if (reg >= 0 && ++since > 3) {
			reg = -1;
		}
	}
}
