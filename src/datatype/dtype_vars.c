// SPDX-License-Identifier: GPL-2.0-only
/*
 * Variables by address, read once per file: every DW_TAG_variable whose
 * location is DW_OP_addr (globals, statics, functions' statics and the
 * kernel's per-CPU variables, whose addresses are offsets in
 * .data..percpu) and the TLS ones (a constant and DW_OP_form_tls_address),
 * each kind sorted by address for a binary search.  A whole kernel's
 * units are walked once, their types left unread until an access asks.
 */
#include "datatype/dtype_int.h"

#include <errno.h>
#include <stdlib.h>
#include <dwarf.h>
#include <gelf.h>

#include "symbols/debuginfo.h"
#include "util/array.h"

static int add_var(struct dt_vars *vs, __u64 addr, Dwarf_Off type, Dwarf_Die *die)
{
	Dwarf_Die cu;

	if (array_reserve((void **)&vs->v, &vs->cap, vs->n + 1, sizeof(*vs->v)))
		return -ENOMEM;
	vs->v[vs->n++] = (struct dt_var){
		addr, 0, type, dwarf_diecu(die, &cu, NULL, NULL) ? dwarf_dieoffset(&cu) : 0};
	return 0;
}

static bool is_tls_op(unsigned int atom)
{
	return atom == DW_OP_form_tls_address || atom == DW_OP_GNU_push_tls_address;
}

/* The variable die, when its location is an address or a TLS offset. */
static int take_var(struct dtype_file *f, Dwarf_Die *die)
{
	Dwarf_Attribute attr;
	Dwarf_Die t;
	Dwarf_Op *ops;
	size_t n;

	if (!dwarf_attr(die, DW_AT_location, &attr) || dwarf_getlocation(&attr, &ops, &n) != 0 ||
	    !dwarf_formref_die(dwarf_attr_integrate(die, DW_AT_type, &attr), &t))
		return 0;
	if (n == 1 && ops[0].atom == DW_OP_addr)
		return add_var(&f->globals, ops[0].number, dwarf_dieoffset(&t), die);
	if (n == 2 && is_tls_op(ops[1].atom) &&
	    (ops[0].atom == DW_OP_const8u || ops[0].atom == DW_OP_const4u ||
	     ops[0].atom == DW_OP_constu || ops[0].atom == DW_OP_addr))
		return add_var(&f->tls, ops[0].number, dwarf_dieoffset(&t), die);
	return 0;
}

/* The variables among die's children, and in functions' and blocks' (their statics). */
static int walk(struct dtype_file *f, Dwarf_Die *parent, int depth)
{
	Dwarf_Die c;
	int tag, err = 0;

	if (depth > 32 || dwarf_child(parent, &c) != 0)
		return 0;
	do {
		tag = dwarf_tag(&c);
		if (tag == DW_TAG_variable)
			err = take_var(f, &c);
		else if (tag == DW_TAG_subprogram || tag == DW_TAG_lexical_block)
			err = walk(f, &c, depth + 1);
	} while (!err && dwarf_siblingof(&c, &c) == 0);
	return err;
}

static int by_addr(const void *a, const void *b)
{
	const struct dt_var *x = a, *y = b;

	return x->addr < y->addr ? -1 : x->addr > y->addr;
}

/* a structure or union of no bytes (struct lock_class_key without lockdep) */
static bool empty(struct dtype_file *f, Dwarf_Off type)
{
	Dwarf_Die d;

	return dt_peel(f->dw, type, &d) &&
	       (dwarf_tag(&d) == DW_TAG_structure_type || dwarf_tag(&d) == DW_TAG_union_type);
}

/*
 * Sized and sorted; a variable of an empty structure holds no byte and is left out: it shares
 * its address with the next variable (each spin_lock_init() has a static lockdep key, which
 * would hide the global after it from dt_var_at)
 */
static void finish(struct dtype_file *f, struct dt_vars *vs)
{
	size_t i, n = 0;

	for (i = 0; i < vs->n; i++) {
		vs->v[i].size = dt_type_size(f->dw, vs->v[i].type);
		if (!vs->v[i].size && empty(f, vs->v[i].type))
			continue;
		if (!vs->v[i].size)
			vs->v[i].size = 1; /* an array of unknown bound: its start at least */
		vs->v[n++] = vs->v[i];
	}
	vs->n = n;
	if (vs->n)
		qsort(vs->v, vs->n, sizeof(*vs->v), by_addr);
}

/* The TLS block's size rounded to its alignment: the thread pointer is at its end. */
static void tls_block(struct dtype_file *f)
{
	Dwarf_Addr bias;
	Elf *elf = dwfl_module_getelf(debuginfo_module(f->di), &bias);
	GElf_Phdr ph;
	size_t i, n;

	if (!elf || elf_getphdrnum(elf, &n))
		return;
	for (i = 0; i < n; i++) {
		if (!gelf_getphdr(elf, i, &ph) || ph.p_type != PT_TLS)
			continue;
		f->tls_size = ph.p_align > 1
				      ? (ph.p_memsz + ph.p_align - 1) / ph.p_align * ph.p_align
				      : ph.p_memsz;
	}
}

static int by_sym(const void *a, const void *b)
{
	const struct dt_sym *x = a, *y = b;

	return x->addr < y->addr ? -1 : x->addr > y->addr;
}

/* The function symbols sorted, once: libdwfl's lookup by address walks the table each time. */
static int load_syms(struct dtype_file *f)
{
	Dwfl_Module *mod = debuginfo_module(f->di);
	int i, n = dwfl_module_getsymtab(mod);
	Dwarf_Addr bias;
	size_t cap = 0;
	const char *name;
	GElf_Addr a;
	GElf_Sym sym;

	debuginfo_dwarf(f->di, &bias);
	for (i = 1; i < n; i++) {
		name = dwfl_module_getsym_info(mod, i, &sym, &a, NULL, NULL, NULL);
		if (!name || GELF_ST_TYPE(sym.st_info) != STT_FUNC)
			continue;
		if (array_reserve((void **)&f->syms, &cap, f->nsyms + 1, sizeof(*f->syms)))
			return -ENOMEM;
		f->syms[f->nsyms++] = (struct dt_sym){a - bias, sym.st_size, name};
	}
	if (f->nsyms)
		qsort(f->syms, f->nsyms, sizeof(*f->syms), by_sym);
	return 0;
}

const struct dt_sym *dt_sym_at(const struct dtype_file *f, __u64 addr)
{
	size_t lo = 0, hi = f->nsyms, mid, i;

	while (lo < hi) {
		mid = lo + (hi - lo) / 2;
		if (f->syms[mid].addr <= addr)
			lo = mid + 1;
		else
			hi = mid;
	}
	/* a sized symbol before one of no size (a thunk's, a label's) that holds only its first
	 * byte */
	for (i = lo; i > 0 && lo - i < 4; i--)
		if (addr - f->syms[i - 1].addr < f->syms[i - 1].size)
			return &f->syms[i - 1];
	return lo && addr == f->syms[lo - 1].addr ? &f->syms[lo - 1] : NULL;
}

int dt_vars_load(struct dtype_file *f)
{
	Dwarf_Off off = 0, next;
	size_t hsize;
	Dwarf_Die cu;
	int err = 0;

	while (!err && dwarf_nextcu(f->dw, off, &next, &hsize, NULL, NULL, NULL) == 0) {
		if (dwarf_offdie(f->dw, off + hsize, &cu))
			err = walk(f, &cu, 0);
		off = next;
	}
	if (!err)
		err = load_syms(f);
	if (err)
		return err;
	finish(f, &f->globals);
	finish(f, &f->tls);
	tls_block(f);
	if (debuginfo_symbol(f->di, "this_cpu_off", &f->this_cpu_off))
		f->this_cpu_off = ~0ULL;
	if (debuginfo_symbol(f->di, "__stack_chk_guard", &f->stack_guard))
		f->stack_guard = 0;
	if (debuginfo_symbol(f->di, "__fentry__", &f->fentry))
		f->fentry = 0;
	f->kernel = f->this_cpu_off != ~0ULL;
	return 0;
}

void dt_vars_free(struct dtype_file *f)
{
	free(f->globals.v);
	free(f->tls.v);
	free(f->syms);
}

const struct dt_var *dt_var_at(const struct dt_vars *vs, __u64 addr)
{
	size_t lo = 0, hi = vs->n, mid;

	while (lo < hi) {
		mid = lo + (hi - lo) / 2;
		if (vs->v[mid].addr <= addr)
			lo = mid + 1;
		else
			hi = mid;
	}
	/* the last starting at or before addr; an earlier one may hold it when it is nested */
	if (lo && addr - vs->v[lo - 1].addr < vs->v[lo - 1].size)
		return &vs->v[lo - 1];
	return NULL;
}
