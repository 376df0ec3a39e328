// SPDX-License-Identifier: GPL-2.0-only
/*
 * One memory operand typed (spec, "What is typed"): a segment-relative
 * address with no base is a per-CPU (%gs) or TLS (%fs) variable or the
 * canary; a rip-relative or absolute one a global; %rsp (and %rbp as the
 * frame pointer) a local; any other base register the pointer its state
 * says it holds, from a location or the flow before.  Nothing else is
 * guessed: the reason is the result.
 */
#include "datatype/dtype_int.h"

#include <string.h>

#define CANARY_OFF 0x28 /* %gs:0x28 (kernel) and %fs:0x28 (user): the stack protector's */

static void pseudo(struct dt_res *r, enum dtype_how how, const char *type)
{
	memset(r, 0, sizeof(*r));
	r->a.how = how;
	r->a.type = type;
	r->a.member = "";
}

/* The variable of vs holding addr, as how; untyped with a reason naming addr when none. */
static void by_addr(struct dtype_file *f, const struct dt_vars *vs, __u64 addr, __u64 shown,
		    enum dtype_how how, struct dt_res *r)
{
	const struct dt_var *v = dt_var_at(vs, addr);

	if (!v) {
		dt_untyped(f, r,
			   dt_internf(f,
				      how == DT_PERCPU ? "no per-CPU variable at %#llx"
						       : "no variable at %#llx",
				      (unsigned long long)shown));
		return;
	}
	dt_member(f, v->type, addr - v->addr, r);
	if (r->a.type)
		r->a.how = how;
}

/* %fs: or %gs: with no base register: disp is the address (or the TLS offset from the end). */
static void segment(struct dtype_file *f, const struct dt_mem *m, __u64 addr, struct dt_res *r)
{
	if (m->base == -1 && m->index == -1 && addr == CANARY_OFF) {
		pseudo(r, DT_CANARY, "(stack canary)");
		return;
	}
	if (m->seg == X86_REG_GS || f->kernel) {
		by_addr(f, &f->globals, addr, addr, DT_PERCPU, r);
		return;
	}
	if (!f->tls_size) {
		dt_untyped(f, r, "%fs access with no TLS block");
		return;
	}
	by_addr(f, &f->tls, addr + f->tls_size, addr, DT_PERCPU, r);
}

static __s64 smod(__s64 a, __u64 b)
{
	__s64 x = b ? a % (__s64)b : a;

	return x < 0 ? x + (__s64)b : x;
}

/* Through a base register whose state is st. */
static void through(struct dtype_file *f, const struct dt_mem *m, const struct dt_reg *st,
		    struct dt_res *r)
{
	__s64 off = st->off + m->disp;

	if (!st->type && st->cpu_off && m->index == -1) {
		by_addr(f, &f->globals, m->disp, m->disp, DT_PERCPU, r);
		return;
	}
	/*
	 * A global array indexed through the base register (non-PIE code:
	 * `mov %rax, recs+88(%rdx)` with %rdx = i * 128): the displacement is
	 * the element's address in the array.  Only where text holds absolute
	 * addresses, and never the kernel's per-CPU variables, whose small
	 * addresses an offset into a structure could equal.
	 */
	if (!st->type && f->exec && (!f->kernel || m->disp < 0) &&
	    dt_var_at(&f->globals, m->disp)) {
		by_addr(f, &f->globals, m->disp, m->disp, DT_GLOBAL, r);
		return;
	}
	if (!st->type) {
		dt_untyped(f, r,
			   st->name ? dt_internf(f, "%s holds %s, no pointer", dt_reg_name(m->base),
						 st->name)
				    : dt_internf(f, "no type for %s", dt_reg_name(m->base)));
		return;
	}
	if (m->index != -1 && off < 0)
		off = smod(off, dt_type_size(f->dw, st->type));
	dt_member(f, st->type, off, r);
	if (r->a.type)
		r->a.how = st->how;
}

void dt_operand(struct dtype_file *f, const struct dt_func *fn, __u64 pc,
		const struct dt_regs *regs, const struct dt_mem *m, struct dt_res *r)
{
	__u64 addr = m->base == -2 ? m->next + m->disp : (__u64)m->disp;

	if (m->seg && m->base < 0) {
		segment(f, m, addr, r);
	} else if (m->base == -2 || (m->base == -1 && m->disp)) {
		if (f->stack_guard && addr == f->stack_guard)
			pseudo(r, DT_CANARY, "(stack canary)");
		else
			by_addr(f, &f->globals, addr, addr, DT_GLOBAL, r);
	} else if (m->base == -1) {
		dt_untyped(f, r, "address computed from an index alone");
	} else if (m->base == 7 || (m->base == 6 && !regs->r[6].type)) {
		dt_stack(f, fn, pc, m->base, m->disp, r);
	} else if (m->base >= DT_NREGS - 1) {
		dt_untyped(f, r, "unknown base register");
	} else {
		through(f, m, &regs->r[m->base], r);
	}
}
