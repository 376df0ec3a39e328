// SPDX-License-Identifier: GPL-2.0-only
/*
 * What the registers point to before an instruction, followed forward
 * through its function's graph once per function: from the entry, the
 * registers seeded from the parameters located in them, to each block's
 * entry, where a register keeps its type only when every predecessor
 * agrees (a single predecessor's chain is the simplest case), then within
 * the instruction's block up to it.  A move
 * copies a register's type, a load of a pointer member (or a global's, a
 * per-CPU variable's) gives its target, lea and add/sub of a constant keep
 * the type at an offset, a call's result is the callee's return type, a
 * constant or rip-relative address of a variable points to it, adding
 * this_cpu_off keeps a per-CPU pointer; any other write forgets.  A
 * variable whose location starts at an instruction overrides.
 */
#include "datatype/dtype_int.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <dwarf.h>

#include "analysis/cfg.h"

#define MAX_PASSES 32 /* over the blocks, to the fixed point (loops nested that deep) */

static const struct dt_reg unknown = {.how = DT_FLOW};

/* The address of the 8-byte global m reads as a whole (mov G(%rip), %reg), 0 when none. */
static __u64 global_read(struct dtype_file *f, const struct dt_mem *m)
{
	const struct dt_var *v;
	__u64 addr;

	if (m->seg || m->index != -1 || (m->base != -2 && m->base != -1))
		return 0;
	addr = (m->base == -2 ? m->next : 0) + (__u64)m->disp;
	v = dt_var_at(&f->globals, addr);
	return v && v->addr == addr && v->size == 8 ? addr : 0;
}

/* The pointer a load of the operand m puts in a register. */
static struct dt_reg loaded(struct dtype_file *f, const struct dt_func *fn, __u64 pc,
			    const struct dt_regs *regs, const struct dt_mem *m)
{
	struct dt_reg out = unknown;
	struct dt_slot *slot;
	struct dt_res r;
	__s64 at;

	if ((m->base == 6 || m->base == 7) && m->index == -1 && !m->seg &&
	    dt_frame_off(f, pc, regs, m->base, m->disp, &at) &&
	    (slot = dt_slot_at((struct dt_regs *)regs, at))) {
		out = slot->v; /* a register spilled there, reloaded */
		out.how = DT_FLOW;
		return out;
	}
	if (m->seg == X86_REG_GS && m->base == -1 && m->index == -1 &&
	    (__u64)m->disp == f->this_cpu_off) {
		out.cpu_off = true;
		return out;
	}
	dt_operand(f, fn, pc, regs, m, &r);
	if (r.a.type && r.leaf) {
		out.type = dt_pointee(f->dw, r.leaf);
		out.vtype = r.leaf;
		out.id = pc << 5 | 1;
		out.global = global_read(f, m);
	}
	return out;
}

/* A pointer to the variable at addr (a constant or rip-relative address). */
static struct dt_reg address_of(struct dtype_file *f, __u64 addr)
{
	const struct dt_var *v = dt_var_at(&f->globals, addr);
	struct dt_reg out = unknown;

	if (v && addr >= 0x1000) { /* no small constant is taken for an address */
		out.type = v->type;
		out.id = v->addr | 1ULL << 63;
		out.off = addr - v->addr;
	}
	return out;
}

/*
 * The element size of the array member st points into (&p->pivot[0] stepped by an index
 * keeps pointing into pivot[]); 0 when it points into none.
 */
static __u64 array_step(struct dtype_file *f, const struct dt_reg *st)
{
	__u64 moffset;

	return dt_array_at(f, st->type, st->off, &moffset);
}

/*
 * A pointer moved by delta: by whole elements of its type it points to the same member of
 * another element (p++ over an array), whose offsets are kept in the first; one into some
 * element of an array member stays in it.
 */
static void step_by(struct dtype_file *f, struct dt_reg *r, __s64 delta)
{
	__u64 size = r->type ? dt_type_size(f->dw, r->type) : 0, esize = 0, moffset;

	if (r->arr)
		esize = dt_array_at(f, r->type, r->off, &moffset);
	r->off += delta;
	if (esize) {
		dt_into_array(r, esize, moffset);
	} else if (size && !(delta % (__s64)size)) {
		r->off %= (__s64)size;
		r->off += r->off < 0 ? (__s64)size : 0;
	} else {
		r->vtype = 0;
	}
}

static struct dt_reg lea(struct dtype_file *f, __u64 pc, const struct dt_regs *regs,
			 const struct dt_mem *m);

/*
 * &base[index] where base's object has no array there in the view the flow knows: as the
 * variable in base says (its hint, a pointer to a scalar: `pivots + i`), as before the flow
 * kept the object
 */
static struct dt_reg lea_hint(struct dtype_file *f, __u64 pc, const struct dt_regs *regs,
			      const struct dt_mem *m)
{
	struct dt_regs as = *regs;

	as.r[m->base] = (struct dt_reg){.type = regs->r[m->base].hint, .how = DT_FLOW};
	return lea(f, pc, &as, m);
}

static struct dt_reg lea(struct dtype_file *f, __u64 pc, const struct dt_regs *regs,
			 const struct dt_mem *m)
{
	struct dt_reg out = unknown;
	__u64 size, at;

	if (m->seg)
		return out;
	if (m->index != -1) { /* &base[index]: whole elements of base's pointee keep its type */
		if (m->base < 0 || m->base >= DT_NREGS - 1 || !regs->r[m->base].type)
			return out;
		size = dt_type_size(f->dw, regs->r[m->base].type);
		if (!size || m->scale % size)
			size = array_step(f, &regs->r[m->base]);
		out = regs->r[m->base];
		if (!size || m->scale % size) /* &p->member[i]: the array at base + disp */
			size = dt_array_at(f, out.type, out.off + m->disp, &at);
		if (!size || m->scale % size)
			return out.hint ? lea_hint(f, pc, regs, m) : unknown;
		step_by(f, &out, m->disp);
		size = dt_array_at(f, out.type, out.off, &at);
		if (size && !(m->scale % size))
			dt_into_array(&out, size, at); /* which element, the index says */
		out.vtype = 0;
		out.how = DT_FLOW;
		return out;
	}
	if (m->base == -2)
		return address_of(f, m->next + m->disp);
	if ((m->base == 6 || m->base == 7) &&
	    dt_frame_off(f, pc, regs, m->base, m->disp, &out.off)) {
		out.in_frame = true; /* the address of a local */
		return out;
	}
	if (m->base < 0 || m->base >= DT_NREGS - 1 ||
	    (!regs->r[m->base].type && !regs->r[m->base].in_frame))
		return out;
	out = regs->r[m->base];
	step_by(f, &out, m->disp); /* a pointer into the object: no type the DWARF names */
	out.how = DT_FLOW;
	return out;
}

/* Whether two registers point into one object: the frame, or a pointer of one origin. */
static bool one_object(const struct dt_reg *a, const struct dt_reg *b)
{
	return (a->in_frame && b->in_frame) ||
	       (a->type && a->id && a->id == b->id && !a->arr && !b->arr);
}

/* add or sub of dst, src (Intel order); *keep when dst stays as it was. */
static struct dt_reg add(struct dtype_file *f, const cs_insn *in, const struct dt_regs *regs,
			 int dst)
{
	const cs_x86_op *src = &in->detail->x86.operands[1];
	struct dt_reg out = regs->r[dst];
	int s;

	if (src->type == X86_OP_IMM && (out.type || out.in_frame)) {
		step_by(f, &out, in->id == X86_INS_ADD ? src->imm : -src->imm);
		return out;
	}
	if (in->id != X86_INS_ADD && src->type != X86_OP_REG)
		return unknown;
	if (src->type == X86_OP_MEM && src->mem.segment == X86_REG_GS &&
	    src->mem.base == X86_REG_INVALID && (__u64)src->mem.disp == f->this_cpu_off)
		return out; /* this CPU's copy of the per-CPU variable dst points to */
	s = src->type == X86_OP_REG ? dt_dwreg(src->reg) : -1;
	if (s < 0 || s >= DT_NREGS - 1)
		return unknown;
	if (regs->r[s].konst && (out.type || out.in_frame)) { /* a pointer moved by a number */
		step_by(f, &out, in->id == X86_INS_ADD ? regs->r[s].k : -regs->r[s].k);
		return out;
	}
	if (in->id == X86_INS_SUB && one_object(&out, &regs->r[s])) {
		__s64 k = out.off - regs->r[s].off;

		out = unknown;
		out.konst = true;
		out.k = k;
		return out;
	}
	if (in->id != X86_INS_ADD)
		return unknown;
	if (out.konst && (regs->r[s].type || regs->r[s].in_frame)) {
		__s64 k = out.k;

		out = regs->r[s];
		step_by(f, &out, k);
		return out;
	}
	if (regs->r[s].cpu_off && out.type)
		return out;
	if (out.cpu_off && regs->r[s].type)
		return regs->r[s];
	return unknown;
}

/*
 * An encoded pointer's low bits cleared (and $-2^k, k 3 to 12; xor of a low byte) inside an
 * inlined helper that returns a pointer to a record: that pointer, to the record's start
 * (mte_to_node(): `(struct maple_node *)((unsigned long)entry & ~MAPLE_NODE_MASK)`)
 */
static struct dt_reg decoded(struct dtype_file *f, const struct dt_func *fn, __u64 pc, __s64 mask)
{
	Dwarf_Off t =
		mask < -4 && mask >= -4096 && (mask & -mask) == -mask ? dt_inline_ret(fn, pc) : 0;
	struct dt_reg out = unknown;

	if (t) {
		out.type = dt_pointee(f->dw, t);
		out.vtype = t;
		out.id = pc << 5 | 3;
	}
	return out;
}

/*
 * and $-2^k: a pointer rounded down to an alignment its object has (an inlined memset's or
 * memcpy's first word); the CFA is 16-aligned (x86-64 ABI); else an encoded pointer decoded.
 */
static struct dt_reg align(struct dtype_file *f, const struct dt_func *fn, const cs_insn *in,
			   const struct dt_regs *regs, int dst)
{
	const cs_x86_op *src = &in->detail->x86.operands[1];
	struct dt_reg out = regs->r[dst];
	__s64 mask = src->type == X86_OP_IMM ? src->imm : 0;

	if (mask >= 0 || mask < -16 || (mask & -mask) != -mask)
		return decoded(f, fn, in->address, mask); /* no -2, -4, -8, -16 */
	if (!(out.in_frame || (out.type && dt_type_align(f, out.type) >= (__u64)-mask)))
		return decoded(f, fn, in->address, mask);
	out.off &= mask;
	out.vtype = 0;
	return out;
}

/*
 * mov $imm into a 32- or 64-bit register: the address of a variable, else the number (a 32-bit
 * write zero-extends); a narrower write keeps the rest of the register, whatever it was.
 */
static struct dt_reg immediate(struct dtype_file *f, __s64 imm, unsigned int size)
{
	__u64 v = size == 4 ? (__u32)imm : (__u64)imm;
	struct dt_reg out = unknown;

	if (size < 4)
		return out;
	out = address_of(f, v);
	if (!out.type) {
		out.konst = true;
		out.k = (__s64)v;
	}
	return out;
}

/* cmov src into the 64-bit dst: dst keeps its value or takes src's. */
static struct dt_reg cmov(struct dtype_file *f, const struct dt_func *fn, const cs_insn *in,
			  const struct dt_regs *regs, int dst)
{
	const cs_x86_op *src = &in->detail->x86.operands[1];
	struct dt_reg v = unknown;
	struct dt_mem m;
	int s;

	if (src->type == X86_OP_REG) {
		s = dt_dwreg(src->reg);
		if (s < 0 || s >= DT_NREGS - 1)
			return unknown;
		v = regs->r[s];
	} else if (dt_mems(in, &m) == 1) {
		v = loaded(f, fn, in->address, regs, &m);
	}
	return dt_either(f, &regs->r[dst], &v);
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
	regs->r[0].id = in->address << 5 | 2;
	regs->r[0].vtype = ret;
}

/* v, computed from another value: no longer a global's as read */
static struct dt_reg computed(struct dt_reg v)
{
	v.global = 0;
	return v;
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
	case X86_INS_CMOVA: /* capstone puts none of them in X86_GRP_CMOV */
	case X86_INS_CMOVAE:
	case X86_INS_CMOVB:
	case X86_INS_CMOVBE:
	case X86_INS_CMOVE:
	case X86_INS_CMOVG:
	case X86_INS_CMOVGE:
	case X86_INS_CMOVL:
	case X86_INS_CMOVLE:
	case X86_INS_CMOVNE:
	case X86_INS_CMOVNO:
	case X86_INS_CMOVNP:
	case X86_INS_CMOVNS:
	case X86_INS_CMOVO:
	case X86_INS_CMOVP:
	case X86_INS_CMOVS:
		return dt_is_reg64(dst_cs) ? cmov(f, fn, in, regs, dst) : unknown;
	case X86_INS_MOV:
	case X86_INS_MOVABS:
		if (src->type == X86_OP_IMM)
			return immediate(f, src->imm, x->operands[0].size);
		if (!dt_is_reg64(dst_cs))
			return unknown;
		if (src->type == X86_OP_REG) {
			s = dt_dwreg(src->reg);
			if (s < 0 || s >= DT_NREGS - 1)
				return unknown;
			if ((s == 6 || s == 7) && !regs->r[s].type) {
				struct dt_reg out = unknown;

				out.in_frame = dt_frame_off(f, in->address, regs, s, 0, &out.off);
				return out;
			}
			return regs->r[s];
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
		return computed(lea(f, in->address, regs, &m));
	case X86_INS_ADD:
	case X86_INS_SUB:
		return dt_is_reg64(dst_cs) ? computed(add(f, in, regs, dst)) : unknown;
	case X86_INS_AND:
		return dt_is_reg64(dst_cs) ? computed(align(f, fn, in, regs, dst)) : unknown;
	case X86_INS_XOR: /* xor %eax, %eax: 0 (a 32-bit write zero-extends) */
		if (src->type != X86_OP_REG || src->reg != (unsigned int)dst_cs)
			return unknown;
		if (x->operands[0].size >= 4)
			return immediate(f, 0, 8);
		/* xor %dil, %dil: the low byte cleared, the rest kept (not %ah's) */
		return x->operands[0].size == 1 && dst_cs != X86_REG_AH && dst_cs != X86_REG_BH &&
				       dst_cs != X86_REG_CH && dst_cs != X86_REG_DH
			       ? decoded(f, fn, in->address, -256)
			       : unknown;
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

	dt_frame_ptrs(in, regs);
	if (in->id == X86_INS_CALL) {
		call(f, in, regs);
		return;
	}
	dt_flow_store(f, in, regs);
	/* test, cmp, push read their first operand: only a written one is a destination */
	if (in->detail->x86.op_count && op0->type == X86_OP_REG && (op0->access & CS_AC_WRITE)) {
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

/*
 * A variable located in the register r from here, over what flow says of r.  A scalar variable
 * says less than a pointer flow followed into it, and so does a pointer to what flow's object
 * holds there (&node->mr64.pivot[0] as unsigned long *): flow names the object.  The same type
 * is taken from the variable, whose unit may describe it more (flow's may have a declaration),
 * as the same object as flow's.
 */
static void located(struct dtype_file *f, const struct dt_loc *l, struct dt_reg *r)
{
	Dwarf_Off t = dt_pointee(f->dw, l->type);
	bool same_type = l->kind == DT_LOC_REG && !r->off && dt_one_type(f, r->type, t);
	__u64 id = same_type ? r->id : l->lo << 5 | (__u64)l->reg | 1ULL << 62;
	struct dt_reg at = *r;

	/* a pointer to what flow's object holds there: the object, the variable's type a hint */
	if (!same_type && t && l->kind == DT_LOC_REG && dt_within(f, r, t)) {
		r->hint = t;
		return;
	}
	/* the same for a variable whose value is the register plus a number (p = &n->member) */
	at.off += l->kind == DT_LOC_REGVAL ? l->off : 0;
	if (!same_type && t && l->kind == DT_LOC_REGVAL && r->type && dt_within(f, &at, t)) {
		r->hint = t;
		return;
	}
	if (t || (l->kind == DT_LOC_REG && !r->type))
		*r = (struct dt_reg){.type = t,
				     .off = l->kind == DT_LOC_REGVAL ? -l->off : 0,
				     .how = DT_FLOW,
				     .name = l->name,
				     .vtype = l->kind == DT_LOC_REG ? l->type : 0,
				     .id = id,
				     .global = same_type ? r->global : 0};
}

/* The variables whose location in a register starts at pc, over what flow says. */
static void starting(struct dtype_file *f, const struct dt_func *fn, __u64 pc, struct dt_regs *regs)
{
	const struct dt_loc *l;
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
		if (l->kind == DT_LOC_REG || l->kind == DT_LOC_REGVAL)
			located(f, l, &regs->r[l->reg]);
	}
}

static void seed(struct dtype_file *f, const struct dt_func *fn, __u64 pc, struct dt_regs *regs)
{
	int r;

	for (r = 0; r < DT_NREGS; r++)
		regs->r[r] = unknown;
	regs->nslots = 0;
	regs->sp_known = dt_frame_off(f, pc, NULL, 7, 0, &regs->sp);
	regs->fp_known = dt_frame_off(f, pc, NULL, 6, 0, &regs->fp);
	for (r = 0; r < DT_NREGS - 1; r++)
		if (dt_loc_reg(f, fn, pc, r, &regs->r[r]) && (regs->r[r].type || regs->r[r].vtype))
			regs->r[r].how = DT_FLOW;
		else
			regs->r[r] = unknown;
}

/* Simulate [at, end) on regs; false when an instruction could not be read. */
static bool run(struct dtype_file *f, const struct dt_func *fn, __u64 at, __u64 end,
		struct dt_regs *regs)
{
	dt_loc_fill(f, fn, at, regs); /* what the joins lost, the locations there say */
	while (at < end) {
		/* at each instruction, not after a block's last: a jump's successor is elsewhere */
		starting(f, fn, at, regs);
		if (!dt_decode(f, at))
			return false;
		step(f, fn, f->insn, regs);
		at += f->insn->size;
	}
	return true;
}

/* What holds on entry to a block all of whose ways in bring in or *into: true when it changed. */
static bool meet(struct dtype_file *f, struct dt_regs *into, const struct dt_regs *in)
{
	bool changed = false;
	struct dt_slot *s;
	unsigned int i;
	int r;

	for (r = 0; r < DT_NREGS; r++) {
		struct dt_reg m = dt_either(f, &into->r[r], &in->r[r]);

		if (dt_same_reg(&m, &into->r[r]) && m.id == into->r[r].id)
			continue;
		into->r[r] = m;
		changed = true;
	}
	if (into->sp_known && (!in->sp_known || in->sp != into->sp))
		into->sp_known = !(changed = true);
	if (into->fp_known && (!in->fp_known || in->fp != into->fp))
		into->fp_known = !(changed = true);
	for (i = 0; i < into->nslots; i++) {
		s = dt_slot_at((struct dt_regs *)in, into->slot[i].at);
		if (s && dt_same_reg(&s->v, &into->slot[i].v))
			continue;
		into->slot[i--] = into->slot[--into->nslots];
		changed = true;
	}
	return changed;
}

/* One pass over the blocks in address order: true when some block's entry state changed. */
static bool pass(struct dtype_file *f, struct dt_func *fn)
{
	const struct cfg *g = fn->g;
	struct dt_regs st;
	bool changed = false;
	size_t b;
	int i, s;

	for (b = 0; b < g->nb; b++) {
		if (!fn->reached[b])
			continue;
		st = fn->in[b];
		if (!run(f, fn, g->b[b].start, g->b[b].end, &st))
			seed(f, fn, g->b[b].end, &st);
		for (i = 0; i < g->b[b].nsucc; i++) {
			s = g->b[b].succ[i];
			if (s < 0)
				continue;
			if (!fn->reached[s]) {
				fn->in[s] = st;
				fn->reached[s] = changed = true;
			} else if (meet(f, &fn->in[s], &st)) {
				changed = true;
			}
		}
	}
	return changed;
}

/*
 * The registers on entry to each block of fn's graph: the parameters' locations at the entry,
 * then forward to a fixed point, a register keeping its type into a block only when every way
 * in agrees on it (each meet only forgets, so this ends).
 */
int dt_flow_prepare(struct dtype_file *f, struct dt_func *fn)
{
	const struct cfg *g = fn->g;
	int n;

	if (!g || !g->nb)
		return 0;
	fn->in = calloc(g->nb, sizeof(*fn->in));
	fn->reached = calloc(g->nb, sizeof(*fn->reached));
	if (!fn->in || !fn->reached)
		return -ENOMEM;
	seed(f, fn, g->b[g->entry].start, &fn->in[g->entry]);
	fn->in[g->entry].sp_known = true; /* on entry, whatever the CFI: the return address */
	fn->in[g->entry].sp = -8;
	fn->reached[g->entry] = true;
	for (n = 0; n < MAX_PASSES && pass(f, fn); n++)
		;
	return 0;
}

void dt_flow(struct dtype_file *f, const struct dt_func *fn, __u64 pc, struct dt_regs *regs)
{
	const struct cfg *g = fn->g;
	int b = g && fn->in ? cfg_block_at(g, pc) : -1;

	if (b < 0 || !fn->reached[b]) {
		seed(f, fn, pc, regs);
		return;
	}
	*regs = fn->in[b];
	if (!run(f, fn, g->b[b].start, pc, regs))
		seed(f, fn, pc, regs); /* what the locations alone say */
}
