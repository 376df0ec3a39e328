// SPDX-License-Identifier: GPL-2.0-only
/*
 * The objects of a slab cache (docs/model.md, "Slab objects"): a call into
 * a slab allocator passes the cache in %rdi, which the register flow sees
 * read from a global (`mov task_struct_cachep(%rip), %rdi`).  The call
 * that created that cache stored its result in the same global, and the
 * DWARF GCC emits at -O2 -g describes that call (DW_TAG_call_site): the
 * values it passed, the cache's name (the address of a string) in %rdi and
 * its object size (a constant) in %rsi.  KMEM_CACHE(s, ...) names a cache
 * after its structure and passes sizeof(struct s); kmem_cache_create's
 * callers mostly do the same.  A structure of the unit that defines the
 * global, of that name and that size, is the objects' type; anything else
 * (a name that is no structure, another size, a cache chosen at run time
 * such as kmalloc's) stays untyped, with the reason.
 */
#include "datatype/dtype.h"

#include "datatype/dtype_int.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <dwarf.h>

#include "analysis/file_cfg.h"

#define SLAB_NAME_MAX 64 /* bytes of a cache's name read */
#define SLAB_DEPTH    16 /* DIE nesting searched for the creating call */
#define SLAB_STORE    8	 /* instructions after the call searched for the store of its result */

/* What is known of the cache whose pointer one global holds. */
struct dt_slab {
	Dwarf_Off type; /* the objects' structure, 0 untyped */
	const char *name, *why;
};

/* the functions that create a cache: (name, size, ...) in every kernel version */
static bool creator(const char *name)
{
	static const char *const names[] = {"kmem_cache_create", "kmem_cache_create_usercopy",
					    "__kmem_cache_create_args", "__kmem_cache_create"};
	size_t i;

	for (i = 0; name && i < sizeof(names) / sizeof(names[0]); i++)
		if (!strcmp(name, names[i]))
			return true;
	return false;
}

/* whether the instruction in f->insn writes %rax, or leaves the straight line */
static bool ends(struct dtype_file *f)
{
	cs_regs rd, wr;
	uint8_t nrd = 0, nwr = 0, i;

	if (cs_insn_group(f->cs, f->insn, X86_GRP_JUMP) ||
	    cs_insn_group(f->cs, f->insn, X86_GRP_CALL) ||
	    cs_insn_group(f->cs, f->insn, X86_GRP_RET) ||
	    cs_regs_access(f->cs, f->insn, rd, &nrd, wr, &nwr) != CS_ERR_OK)
		return true;
	for (i = 0; i < nwr; i++)
		if (dt_dwreg(wr[i]) == 0)
			return true;
	return false;
}

/*
 * Whether the call returning at ret stores its result (%rax) into the global at addr, in the
 * straight line after it (the next call's arguments may be set up first)
 */
static bool stores_to(struct dtype_file *f, __u64 ret, __u64 addr)
{
	const cs_x86_op *op;
	int i;

	for (i = 0; i < SLAB_STORE && dt_decode(f, ret); i++, ret += f->insn->size) {
		op = f->insn->detail->x86.operands;
		if (f->insn->id == X86_INS_MOV && f->insn->detail->x86.op_count == 2 &&
		    op[0].type == X86_OP_MEM && op[1].type == X86_OP_REG &&
		    op[1].reg == X86_REG_RAX && op[0].mem.base == X86_REG_RIP &&
		    op[0].mem.index == X86_REG_INVALID &&
		    ret + f->insn->size + (__u64)op[0].mem.disp == addr)
			return true;
		if (ends(f))
			return false;
	}
	return false;
}

/* the value expression the call site cs passes in DWARF register reg */
static bool passed(Dwarf_Die *cs, int reg, Dwarf_Op **ops, size_t *n)
{
	Dwarf_Attribute a;
	Dwarf_Op *loc;
	Dwarf_Die p;
	size_t nloc;

	if (dwarf_child(cs, &p) != 0)
		return false;
	do {
		if ((dwarf_tag(&p) != DW_TAG_call_site_parameter &&
		     dwarf_tag(&p) != DW_TAG_GNU_call_site_parameter) ||
		    !dwarf_attr(&p, DW_AT_location, &a) || dwarf_getlocation(&a, &loc, &nloc) ||
		    nloc != 1 || loc[0].atom != DW_OP_reg0 + (unsigned int)reg)
			continue;
		return (dwarf_attr(&p, DW_AT_call_value, &a) ||
			dwarf_attr(&p, DW_AT_GNU_call_site_value, &a)) &&
		       !dwarf_getlocation(&a, ops, n) && *n == 1;
	} while (dwarf_siblingof(&p, &p) == 0);
	return false;
}

/* a constant operand's number (DW_OP_lit*, DW_OP_const*u) */
static bool constant(const Dwarf_Op *op, __u64 *v)
{
	if (op->atom >= DW_OP_lit0 && op->atom <= DW_OP_lit31) {
		*v = op->atom - DW_OP_lit0;
		return true;
	}
	*v = op->number;
	return op->atom == DW_OP_const1u || op->atom == DW_OP_const2u ||
	       op->atom == DW_OP_const4u || op->atom == DW_OP_const8u || op->atom == DW_OP_constu;
}

/* the name the call site cs passes (a string's address), into buf */
static bool name_passed(struct dtype_file *f, Dwarf_Die *cs, char *buf, size_t len)
{
	const __u8 *s;
	Dwarf_Op *op;
	size_t n, avail;

	if (!passed(cs, 5, &op, &n) || op->atom != DW_OP_addr ||
	    file_cfg_bytes(f->fc, op->number, &s, &avail))
		return false;
	n = strnlen((const char *)s, avail < len ? avail : len);
	if (!n || n == len || n == avail)
		return false;
	memcpy(buf, s, n);
	buf[n] = '\0';
	return true;
}

/* the structure named name of size bytes (0: any) among the unit's top-level types */
static Dwarf_Off structure(struct dtype_file *f, Dwarf_Die *cu, const char *name, __u64 size)
{
	Dwarf_Attribute a;
	Dwarf_Die d;
	bool decl;

	if (dwarf_child(cu, &d) != 0)
		return 0;
	do {
		decl = dwarf_attr(&d, DW_AT_declaration, &a) != NULL;
		if (dwarf_tag(&d) == DW_TAG_structure_type && !decl && dwarf_diename(&d) &&
		    !strcmp(dwarf_diename(&d), name) &&
		    (!size || dt_type_size(f->dw, dwarf_dieoffset(&d)) == size))
			return dwarf_dieoffset(&d);
	} while (dwarf_siblingof(&d, &d) == 0);
	return 0;
}

/* the call origin's name of call site cs */
static const char *callee_name(Dwarf_Die *cs)
{
	Dwarf_Attribute a;
	Dwarf_Die o;

	if (!dwarf_formref_die(dwarf_attr(cs, DW_AT_call_origin, &a), &o) &&
	    !dwarf_formref_die(dwarf_attr(cs, DW_AT_abstract_origin, &a), &o))
		return NULL;
	return dwarf_diename(&o);
}

/* where the call site cs returns to (DWARF 5's attribute, GNU's low_pc) */
static bool return_pc(Dwarf_Die *cs, __u64 *pc)
{
	Dwarf_Attribute a;
	Dwarf_Addr v;

	if (dwarf_formaddr(dwarf_attr(cs, DW_AT_call_return_pc, &a), &v) &&
	    dwarf_formaddr(dwarf_attr(cs, DW_AT_low_pc, &a), &v))
		return false;
	*pc = v;
	return true;
}

/* The call under die (functions, blocks, inlined bodies) that created the cache stored at addr. */
static bool find_creation(struct dtype_file *f, Dwarf_Die *die, __u64 addr, int depth,
			  Dwarf_Die *out)
{
	Dwarf_Die c;
	__u64 ret;
	int tag;

	if (depth > SLAB_DEPTH || dwarf_child(die, &c) != 0)
		return false;
	do {
		tag = dwarf_tag(&c);
		if (tag == DW_TAG_call_site || tag == DW_TAG_GNU_call_site) {
			if (creator(callee_name(&c)) && return_pc(&c, &ret) &&
			    stores_to(f, ret, addr)) {
				*out = c;
				return true;
			}
		} else if ((tag == DW_TAG_subprogram || tag == DW_TAG_lexical_block ||
			    tag == DW_TAG_inlined_subroutine) &&
			   find_creation(f, &c, addr, depth + 1, out)) {
			return true;
		}
	} while (dwarf_siblingof(&c, &c) == 0);
	return false;
}

/* What the global at addr, a cache's pointer, says of the cache's objects: into s. */
static void slab_of(struct dtype_file *f, __u64 addr, struct dt_slab *s)
{
	const struct dt_var *v = dt_var_at(&f->globals, addr);
	char name[SLAB_NAME_MAX + 1];
	Dwarf_Op *op;
	Dwarf_Die cu, cs;
	__u64 size = 0;
	size_t n;

	if (!v || !v->cu || !dwarf_offdie(f->dw, v->cu, &cu) ||
	    !find_creation(f, &cu, addr, 0, &cs)) {
		s->why = "no call creating the cache in its global's unit";
		return;
	}
	if (!name_passed(f, &cs, name, sizeof(name))) {
		s->why = "the cache's name is not a string the call passes";
		return;
	}
	s->name = dt_intern(f, name);
	/* a size computed at run time (task_struct's arch_task_struct_size): the name alone */
	if (passed(&cs, 4, &op, &n) && !constant(op, &size))
		size = 0;
	s->type = structure(f, &cu, name, size);
	if (!s->type)
		s->why = dt_internf(f, "cache %s: no structure of its name%s in its unit", name,
				    size ? " and size" : "");
}

/*
 * What the allocator's caller holds the object as: a pointer variable located in %rax where the
 * call at pc returns (`struct file *f = kmem_cache_zalloc(filp_cachep, ...)`, `char *buf =
 * kmalloc(PATH_MAX, ...)`), 0 when none or a void *
 */
static Dwarf_Off returned(struct dtype_file *f, const struct dt_func *fn, __u64 pc)
{
	struct dt_reg v;

	if (!dt_decode(f, pc) || f->insn->id != X86_INS_CALL ||
	    !dt_loc_reg(f, fn, pc + f->insn->size, 0, &v) || v.off)
		return 0;
	return v.type;
}

static const struct dt_slab *slab_at(struct dtype_file *f, __u64 addr)
{
	struct dt_slab *s;
	bool found;

	s = dt_cache_get(&f->slabs, addr, &found);
	if (found)
		return s;
	s = calloc(1, sizeof(*s));
	if (!s)
		return NULL;
	slab_of(f, addr, s);
	if (dt_cache_put(&f->slabs, addr, s)) {
		free(s);
		return NULL;
	}
	return s;
}

int dtype_slab_object(struct dtype_file *f, __u64 pc, struct dtype_access *out, const char **cache,
		      const char **func, __u64 *func_off)
{
	const struct dt_func *fn = dt_func_of(f, pc);
	const struct dt_sym *sym = dt_sym_at(f, pc);
	const struct dt_slab *s;
	struct dt_regs regs;
	struct dt_res r;
	Dwarf_Off type;

	*func = sym ? sym->name : "";
	*func_off = sym ? pc - sym->addr : 0;
	*cache = "";
	memset(&regs, 0, sizeof(regs));
	if (fn)
		dt_flow(f, fn, pc, &regs);
	s = regs.r[5].global ? slab_at(f, regs.r[5].global) : NULL;
	if (regs.r[5].global && !s)
		return -ENOMEM;
	*cache = s && s->name ? s->name : "";
	type = s ? s->type : 0;
	if (!type && fn)
		type = returned(f, fn, pc);
	if (!type) {
		dt_untyped(f, &r,
			   s ? s->why
			     : "no cache read from a global in %rdi (kmalloc's: chosen by size), no"
			       " pointer to the object where the call returns");
		*out = r.a;
		return 0;
	}
	*out = (struct dtype_access){.how = DT_FLOW,
				     .type = dt_type_name(f, type),
				     .type_size = dt_type_size(f->dw, type),
				     .member = ""};
	out->msize = out->type_size; /* the whole object, as a call's buffer is */
	return 0;
}
