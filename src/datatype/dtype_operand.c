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
#include <dwarf.h>
#include <gelf.h>
#include <elfutils/libdwfl.h>

#include "symbols/debuginfo.h"

#define CANARY_OFF 0x28 /* %gs:0x28 (kernel) and %fs:0x28 (user): the stack protector's */

static void pseudo(struct dt_res *r, enum dtype_how how, const char *type)
{
	memset(r, 0, sizeof(*r));
	r->a.how = how;
	r->a.type = type;
	r->a.member = "";
}

/*
 * The ELF symbol holding addr, for a reason: an assembly object DWARF does not describe.  Asked
 * again at each pass of the register flow over a load: once per address (libdwfl's lookup is
 * a tenth of report --data's time otherwise).
 */
static const char *symbol_at(struct dtype_file *f, __u64 addr)
{
	static const char none[] = "";
	Dwfl_Module *mod = debuginfo_module(f->di);
	GElf_Off off = 0;
	Dwarf_Addr bias;
	GElf_Sym sym;
	const char *name;
	bool found;

	name = dt_cache_get(&f->objsyms, addr, &found);
	if (found)
		return name == none ? NULL : name;
	debuginfo_dwarf(f->di, &bias);
	name = dwfl_module_addrinfo(mod, addr + bias, &off, &sym, NULL, NULL, NULL);
	name = name && GELF_ST_TYPE(sym.st_info) == STT_OBJECT ? dt_intern(f, name) : NULL;
	dt_cache_put(&f->objsyms, addr, (void *)(name ?: none)); /* else asked again: no harm */
	return name;
}

/* The variable of vs holding addr, as how; untyped with a reason naming addr when none. */
static void by_addr(struct dtype_file *f, const struct dt_vars *vs, __u64 addr, __u64 shown,
		    enum dtype_how how, struct dt_res *r)
{
	const struct dt_var *v = dt_var_at(vs, addr);
	const char *sym;

	if (!v && how == DT_GLOBAL && (sym = symbol_at(f, addr))) {
		dt_untyped(f, r, dt_internf(f, "%s: a symbol with no DWARF variable", sym));
		return;
	}
	if (!v) {
		dt_untyped(f, r,
			   dt_internf(f,
				      how != DT_PERCPU ? "no variable at %#llx"
				      : f->kernel      ? "no per-CPU variable at %#llx"
						       : "no TLS variable at %%fs:%#llx",
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

/* Whether addr is in a global array: an untyped base register then is an index into it. */
static bool in_array(struct dtype_file *f, __u64 addr)
{
	const struct dt_var *v = dt_var_at(&f->globals, addr);
	Dwarf_Die d;

	return v && dt_peel(f->dw, v->type, &d) && dwarf_tag(&d) == DW_TAG_array_type;
}

/*
 * The offset an access at off through st is at, in the first element of the array it is in:
 * st points into some element of an array member, or is indexed from one by whole elements
 * (or bytes); else an indexed access is at an element of an array of st's type.
 */
static __s64 element_off(struct dtype_file *f, const struct dt_reg *st, const struct dt_mem *m,
			 __s64 off)
{
	__u64 esize = 0, moffset;

	if (st->arr || m->index != -1)
		esize = dt_array_at(f, st->type, st->off, &moffset);
	if (esize && (st->arr || !(m->scale % esize) || !(esize % m->scale)))
		return (__s64)moffset + smod(off - (__s64)moffset, esize);
	if (m->index != -1) /* an element of an array of them */
		return smod(off, dt_type_size(f->dw, st->type));
	return off;
}

/* Through a base register whose state is st. */
static void through(struct dtype_file *f, const struct dt_func *fn, __u64 pc,
		    const struct dt_regs *regs, const struct dt_mem *m, const struct dt_reg *st,
		    struct dt_res *r)
{
	__s64 off = st->off + m->disp;

	if (!st->type && st->cpu_off && m->index == -1) {
		by_addr(f, &f->globals, m->disp, m->disp, DT_PERCPU, r);
		return;
	}
	if (st->in_frame && m->index == -1) {
		dt_stack_cfa(f, fn, pc, regs, off, r);
		return;
	}
	if (!st->type && !st->in_frame && in_array(f, m->disp)) {
		by_addr(f, &f->globals, m->disp, m->disp, DT_GLOBAL, r); /* array[reg] */
		return;
	}
	if (!st->type) {
		dt_untyped(
			f, r,
			st->name ? dt_internf(f, "%s holds %s (%s)", dt_reg_name(m->base), st->name,
					      st->vtype ? dt_type_name(f, st->vtype) : "no pointer")
				 : dt_internf(f, "no type for %s", dt_reg_name(m->base)));
		return;
	}
	off = element_off(f, st, m, off);
	dt_member_hint(f, st->type, off, st->hint, r);
	if (r->a.type)
		r->a.how = st->how;
}

void dt_operand(struct dtype_file *f, const struct dt_func *fn, __u64 pc,
		const struct dt_regs *regs, const struct dt_mem *m, struct dt_res *r)
{
	__u64 addr = m->base == -2 ? m->next + m->disp : (__u64)m->disp;
	__s64 at;

	if (m->seg && m->base < 0) {
		segment(f, m, addr, r);
	} else if (m->base == -2 || (m->base == -1 && m->disp)) {
		if (f->stack_guard && addr == f->stack_guard)
			pseudo(r, DT_CANARY, "(stack canary)");
		else
			by_addr(f, &f->globals, addr, addr, DT_GLOBAL, r);
	} else if (m->base == -1) {
		dt_untyped(f, r, "address computed from an index alone");
	} else if (m->base == 7 || (m->base == 6 && dt_frame_off(f, pc, regs, 6, 0, &at))) {
		dt_stack(f, fn, pc, m->base, m->disp, regs, r);
	} else if (m->base >= DT_NREGS - 1) {
		dt_untyped(f, r, "unknown base register");
	} else if (m->scale == 1 && m->index >= 0 && m->index < DT_NREGS - 1 &&
		   !regs->r[m->base].type && regs->r[m->index].type) {
		struct dt_mem swapped = *m;

		/* (%rax,%rbx,1) with the pointer in %rbx: the index is the base */
		swapped.base = m->index;
		swapped.index = m->base;
		through(f, fn, pc, regs, &swapped, &regs->r[m->index], r);
	} else {
		through(f, fn, pc, regs, m, &regs->r[m->base], r);
	}
}
