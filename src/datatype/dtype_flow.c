// SPDX-License-Identifier: GPL-2.0-only
/*
 * What the registers point to before an instruction, followed forward
 * through its function's code: from the start of its basic block, or of
 * the chain of blocks that reach it each from its only predecessor, the
 * registers seeded from the variables located in them there.  A move
 * copies a register's type, a load of a pointer member (or a global's, a
 * per-CPU variable's) gives its target, lea and add/sub of a constant keep
 * the type at an offset, a call's result is the callee's return type, a
 * constant or rip-relative address of a variable points to it, adding
 * this_cpu_off keeps a per-CPU pointer; any other write forgets.  A
 * variable whose location starts at an instruction overrides.
 */
#include "datatype/dtype_int.h"

#include <string.h>

#include "analysis/cfg.h"

#define MAX_CHAIN 16  /* blocks followed back */
#define MAX_INSNS 512 /* instructions simulated for one PC */

static const struct dt_reg unknown = {.how = DT_FLOW};

/* The pointer a load of the operand m puts in a register. */
static struct dt_reg loaded(struct dtype_file *f, const struct dt_func *fn, __u64 pc,
			    const struct dt_regs *regs, const struct dt_mem *m)
{
	struct dt_reg out = unknown;
	struct dt_res r;

	if (m->seg == X86_REG_GS && m->base == -1 && m->index == -1 &&
	    (__u64)m->disp == f->this_cpu_off) {
		out.cpu_off = true;
		return out;
	}
	dt_operand(f, fn, pc, regs, m, &r);
	if (r.a.type && r.leaf)
		out.type = dt_pointee(f->dw, r.leaf);
	return out;
}

/* A pointer to the variable at addr (a constant or rip-relative address). */
static struct dt_reg address_of(struct dtype_file *f, __u64 addr)
{
	const struct dt_var *v = dt_var_at(&f->globals, addr);
	struct dt_reg out = unknown;

	if (v && (addr != v->addr || addr >= 0x1000 || !f->kernel)) {
		out.type = v->type;
		out.off = addr - v->addr;
	}
	return out;
}

static struct dt_reg lea(struct dtype_file *f, const struct dt_regs *regs, const struct dt_mem *m)
{
	struct dt_reg out = unknown;

	if (m->seg || m->index != -1)
		return out;
	if (m->base == -2)
		return address_of(f, m->next + m->disp);
	if (m->base < 0 || m->base >= DT_NREGS - 1 || !regs->r[m->base].type)
		return out;
	out = regs->r[m->base];
	out.off += m->disp;
	out.how = DT_FLOW;
	return out;
}

/* add or sub of dst, src (Intel order); *keep when dst stays as it was. */
static struct dt_reg add(struct dtype_file *f, const cs_insn *in, const struct dt_regs *regs,
			 int dst)
{
	const cs_x86_op *src = &in->detail->x86.operands[1];
	struct dt_reg out = regs->r[dst];
	int s;

	if (src->type == X86_OP_IMM && out.type) {
		out.off += in->id == X86_INS_ADD ? src->imm : -src->imm;
		return out;
	}
	if (in->id != X86_INS_ADD)
		return unknown;
	if (src->type == X86_OP_MEM && src->mem.segment == X86_REG_GS &&
	    src->mem.base == X86_REG_INVALID && (__u64)src->mem.disp == f->this_cpu_off)
		return out; /* this CPU's copy of the per-CPU variable dst points to */
	s = src->type == X86_OP_REG ? dt_dwreg(src->reg) : -1;
	if (s < 0 || s >= DT_NREGS - 1)
		return unknown;
	if (regs->r[s].cpu_off && out.type)
		return out;
	if (out.cpu_off && regs->r[s].type)
		return regs->r[s];
	return unknown;
}

/* A call's effect: the callee's result in %rax, the caller-saved registers lost. */
static void call(struct dtype_file *f, const cs_insn *in, struct dt_regs *regs)
{
	static const int clobbered[] = {0, 1, 2, 4, 5, 8, 9, 10, 11};
	const cs_x86_op *op = &in->detail->x86.operands[0];
	Dwarf_Off ret = 0;
	size_t i;

	if (op->type == X86_OP_IMM) {
		if ((__u64)op->imm == f->fentry)
			return; /* patched into a nop: calls nothing */
		ret = dt_callee_type(f, op->imm);
	}
	for (i = 0; i < sizeof(clobbered) / sizeof(clobbered[0]); i++)
		regs->r[clobbered[i]] = unknown;
	regs->r[0].type = dt_pointee(f->dw, ret);
}

/* The new value of the register dst (DWARF number) an instruction writes, from regs before it. */
static struct dt_reg value(struct dtype_file *f, const struct dt_func *fn, const cs_insn *in,
			   const struct dt_regs *regs, int dst, int dst_cs)
{
	const cs_x86 *x = &in->detail->x86;
	const cs_x86_op *src = &x->operands[1];
	struct dt_mem m;
	int s;

	if (x->op_count != 2)
		return unknown;
	switch (in->id) {
	case X86_INS_MOV:
	case X86_INS_MOVABS:
		if (src->type == X86_OP_IMM)
			return address_of(f, (__u64)src->imm);
		if (!dt_is_reg64(dst_cs))
			return unknown;
		if (src->type == X86_OP_REG) {
			s = dt_dwreg(src->reg);
			return s >= 0 && s < DT_NREGS - 1 ? regs->r[s] : unknown;
		}
		if (dt_mems(in, &m) == 1)
			return loaded(f, fn, in->address, regs, &m);
		return unknown;
	case X86_INS_LEA:
		if (!dt_is_reg64(dst_cs) || src->type != X86_OP_MEM)
			return unknown;
		m = (struct dt_mem){src->mem.segment == X86_REG_INVALID ? 0 : src->mem.segment,
				    src->mem.base == X86_REG_RIP ? -2 : dt_dwreg(src->mem.base),
				    dt_dwreg(src->mem.index),
				    src->mem.scale,
				    src->mem.disp,
				    in->address + in->size};
		return lea(f, regs, &m);
	case X86_INS_ADD:
	case X86_INS_SUB:
		return dt_is_reg64(dst_cs) ? add(f, in, regs, dst) : unknown;
	}
	return unknown;
}

/* regs after the instruction in (f->insn). */
static void step(struct dtype_file *f, const struct dt_func *fn, const cs_insn *in,
		 struct dt_regs *regs)
{
	const cs_x86_op *op0 = &in->detail->x86.operands[0];
	struct dt_reg v = unknown;
	cs_regs rd, wr;
	uint8_t nrd = 0, nwr = 0, i;
	int dst = -1, r;

	if (in->id == X86_INS_CALL) {
		call(f, in, regs);
		return;
	}
	if (in->detail->x86.op_count && op0->type == X86_OP_REG) {
		dst = dt_dwreg(op0->reg);
		if (dst >= 0 && dst < DT_NREGS - 1)
			v = value(f, fn, in, regs, dst, op0->reg);
	}
	if (cs_regs_access(f->cs, in, rd, &nrd, wr, &nwr) == CS_ERR_OK) {
		for (i = 0; i < nwr; i++) {
			r = dt_dwreg(wr[i]);
			if (r >= 0 && r < DT_NREGS - 1)
				regs->r[r] = unknown;
		}
	}
	if (dst >= 0 && dst < DT_NREGS - 1)
		regs->r[dst] = v;
}

/* The variables whose location in a register starts at pc, over what flow says. */
static void starting(struct dtype_file *f, const struct dt_func *fn, __u64 pc, struct dt_regs *regs)
{
	const struct dt_loc *l;
	Dwarf_Off t;
	size_t lo = 0, hi = fn->nlocs, mid;

	while (lo < hi) { /* the first starting at pc: locs are sorted by lo */
		mid = lo + (hi - lo) / 2;
		if (fn->locs[mid].lo < pc)
			lo = mid + 1;
		else
			hi = mid;
	}
	for (; lo < fn->nlocs && fn->locs[lo].lo == pc; lo++) {
		l = &fn->locs[lo];
		if (l->kind != DT_LOC_REG && l->kind != DT_LOC_REGVAL)
			continue;
		t = dt_pointee(f->dw, l->type);
		if (t)
			regs->r[l->reg] = (struct dt_reg){t, l->kind == DT_LOC_REGVAL ? -l->off : 0,
							  false, DT_FLOW, l->name};
	}
}

/* The chain of blocks ending at b, each its successor's only predecessor: chain[0] = b. */
static int chain_of(const struct cfg *g, int b, int *chain)
{
	int n = 0, e, from, i;

	chain[n++] = b;
	while (n < MAX_CHAIN && g->b[b].npred == 1) {
		e = g->in[g->b[b].in_first];
		from = g->e[e].from;
		if (from < 0)
			break;
		for (i = 0; i < n; i++)
			if (chain[i] == from)
				return n; /* a loop of single predecessors */
		chain[n++] = from;
		b = from;
	}
	return n;
}

static void seed(struct dtype_file *f, const struct dt_func *fn, __u64 pc, struct dt_regs *regs)
{
	int r;

	for (r = 0; r < DT_NREGS; r++)
		regs->r[r] = unknown;
	for (r = 0; r < DT_NREGS - 1; r++)
		if (dt_loc_reg(f, fn, pc, r, &regs->r[r]) && regs->r[r].type)
			regs->r[r].how = DT_FLOW;
		else
			regs->r[r] = unknown;
}

/* Simulate [at, end) on regs; false when an instruction could not be read. */
static bool run(struct dtype_file *f, const struct dt_func *fn, __u64 at, __u64 end,
		struct dt_regs *regs, int *budget)
{
	while (at < end) {
		if (--*budget < 0 || !dt_decode(f, at))
			return false;
		step(f, fn, f->insn, regs);
		at += f->insn->size;
		starting(f, fn, at, regs);
	}
	return true;
}

void dt_flow(struct dtype_file *f, const struct dt_func *fn, __u64 pc, struct dt_regs *regs)
{
	const struct cfg *g = fn->g;
	int b = g ? cfg_block_at(g, pc) : -1, chain[MAX_CHAIN], n, i, budget = MAX_INSNS;
	__u64 end;

	if (b < 0) {
		seed(f, fn, pc, regs);
		return;
	}
	n = chain_of(g, b, chain);
	seed(f, fn, g->b[chain[n - 1]].start, regs);
	for (i = n - 1; i >= 0; i--) {
		end = i ? g->b[chain[i]].end : pc;
		if (!run(f, fn, g->b[chain[i]].start, end, regs, &budget)) {
			seed(f, fn, pc, regs); /* what the locations alone say */
			return;
		}
	}
}
