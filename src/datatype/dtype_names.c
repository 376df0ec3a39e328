// SPDX-License-Identifier: GPL-2.0-only
/*
 * The resolver's strings, interned so that an access's type and member
 * names live as long as the dtype_file, and types named as C spells them
 * (spec: "struct task_struct", "char[16]", "unsigned long"; a typedef
 * looked through unless it names an anonymous struct or union).
 */
#include "datatype/dtype_int.h"

#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <dwarf.h>

void dt_untyped(struct dtype_file *f, struct dt_res *r, const char *why)
{
	memset(r, 0, sizeof(*r));
	r->a.how = DT_UNTYPED;
	r->a.member = "";
	r->a.why = why ? why : "out of memory";
}

static size_t str_hash(const char *s)
{
	size_t h = 5381;

	while (*s)
		h = h * 33 + (unsigned char)*s++;
	return h;
}

static int strs_grow(struct dt_strs *t)
{
	size_t cap = t->cap ? t->cap * 2 : 1024, i, j;
	char **s = calloc(cap, sizeof(*s));

	if (!s)
		return -ENOMEM;
	for (i = 0; i < t->cap; i++) {
		if (!t->s[i])
			continue;
		for (j = str_hash(t->s[i]) & (cap - 1); s[j]; j = (j + 1) & (cap - 1))
			;
		s[j] = t->s[i];
	}
	free(t->s);
	t->s = s;
	t->cap = cap;
	return 0;
}

/* s kept for the dtype_file's life; NULL without memory. */
const char *dt_intern(struct dtype_file *f, const char *s)
{
	struct dt_strs *t = &f->strs;
	size_t j;

	if ((t->n + 1) * 2 > t->cap && strs_grow(t))
		return NULL;
	for (j = str_hash(s) & (t->cap - 1); t->s[j]; j = (j + 1) & (t->cap - 1))
		if (!strcmp(t->s[j], s))
			return t->s[j];
	t->s[j] = strdup(s);
	if (!t->s[j])
		return NULL;
	t->n++;
	return t->s[j];
}

const char *dt_internf(struct dtype_file *f, const char *fmt, ...)
{
	char buf[512];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(buf, sizeof(buf), fmt, ap);
	va_end(ap);
	return dt_intern(f, buf);
}

void dt_strs_free(struct dt_strs *t)
{
	size_t i;

	for (i = 0; i < t->cap; i++)
		free(t->s[i]);
	free(t->s);
	*t = (struct dt_strs){0};
}

static bool type_of(Dwarf_Die *die, Dwarf_Die *out)
{
	Dwarf_Attribute attr;

	return dwarf_formref_die(dwarf_attr_integrate(die, DW_AT_type, &attr), out);
}

static bool is_qualifier(int tag)
{
	return tag == DW_TAG_typedef || tag == DW_TAG_const_type || tag == DW_TAG_volatile_type ||
	       tag == DW_TAG_restrict_type || tag == DW_TAG_atomic_type;
}

bool dt_peel(Dwarf *dw, Dwarf_Off type, Dwarf_Die *out)
{
	int depth;

	if (!type || !dwarf_offdie(dw, type, out))
		return false;
	for (depth = 0; is_qualifier(dwarf_tag(out)) && depth < 16; depth++)
		if (!type_of(out, out))
			return false; /* a typedef of void */
	return true;
}

Dwarf_Off dt_pointee(Dwarf *dw, Dwarf_Off type)
{
	Dwarf_Die d, t;

	if (!dt_peel(dw, type, &d) || dwarf_tag(&d) != DW_TAG_pointer_type || !type_of(&d, &t))
		return 0;
	if (!dt_peel(dw, dwarf_dieoffset(&t), &d) || dwarf_tag(&d) == DW_TAG_subroutine_type)
		return 0; /* void, or a function's code */
	return dwarf_dieoffset(&t);
}

__u64 dt_type_size(Dwarf *dw, Dwarf_Off type)
{
	Dwarf_Word size;
	Dwarf_Die d;

	if (!dt_peel(dw, type, &d) || dwarf_aggregate_size(&d, &size))
		return 0;
	return size;
}

static const char *tag_word(int tag)
{
	switch (tag) {
	case DW_TAG_structure_type:
		return "struct";
	case DW_TAG_union_type:
		return "union";
	case DW_TAG_enumeration_type:
		return "enum";
	case DW_TAG_class_type:
		return "class";
	}
	return NULL;
}

/* The name of die into buf; via: the typedef it was reached through, for an anonymous one. */
static void name_into(Dwarf *dw, Dwarf_Die *die, const char *via, char *buf, size_t len, int depth);

static void array_name(Dwarf *dw, Dwarf_Die *die, char *buf, size_t len, int depth)
{
	char dims[64] = "", elem[256] = "void";
	Dwarf_Die child, t;
	Dwarf_Word n;
	size_t used = 0;

	if (dwarf_child(die, &child) == 0) {
		do {
			Dwarf_Attribute attr;

			if (dwarf_tag(&child) != DW_TAG_subrange_type || used >= sizeof(dims) - 24)
				continue;
			if (dwarf_formudata(dwarf_attr(&child, DW_AT_count, &attr), &n) == 0 ||
			    (dwarf_formudata(dwarf_attr(&child, DW_AT_upper_bound, &attr), &n) ==
				     0 &&
			     ++n))
				used += snprintf(dims + used, sizeof(dims) - used, "[%llu]",
						 (unsigned long long)n);
			else
				used += snprintf(dims + used, sizeof(dims) - used, "[]");
		} while (dwarf_siblingof(&child, &child) == 0);
	}
	if (type_of(die, &t))
		name_into(dw, &t, NULL, elem, sizeof(elem), depth + 1);
	snprintf(buf, len, "%s%s", elem, dims);
}

static void name_into(Dwarf *dw, Dwarf_Die *die, const char *via, char *buf, size_t len, int depth)
{
	int tag = dwarf_tag(die);
	const char *name = dwarf_diename(die), *word = tag_word(tag);
	char inner[256] = "void";
	Dwarf_Die t;

	if (depth > 8) {
		snprintf(buf, len, "...");
	} else if (is_qualifier(tag)) {
		if (type_of(die, &t))
			name_into(dw, &t, tag == DW_TAG_typedef ? name : via, buf, len, depth + 1);
		else
			snprintf(buf, len, "%s", tag == DW_TAG_typedef && name ? name : "void");
	} else if (word) {
		if (name)
			snprintf(buf, len, "%s %s", word, name);
		else
			snprintf(buf, len, "%s",
				 via			    ? via
				 : tag == DW_TAG_union_type ? "union (anon)"
							    : "struct (anon)");
	} else if (tag == DW_TAG_pointer_type) {
		if (type_of(die, &t))
			name_into(dw, &t, NULL, inner, sizeof(inner), depth + 1);
		snprintf(buf, len, "%s *", inner);
	} else if (tag == DW_TAG_array_type) {
		array_name(dw, die, buf, len, depth);
	} else if (tag == DW_TAG_subroutine_type) {
		snprintf(buf, len, "(function)");
	} else {
		snprintf(buf, len, "%s", name ? name : "(unnamed type)");
	}
}

const char *dt_type_name(struct dtype_file *f, Dwarf_Off type)
{
	char buf[320];
	Dwarf_Die d;

	if (!type || !dwarf_offdie(f->dw, type, &d))
		return dt_intern(f, "void");
	name_into(f->dw, &d, NULL, buf, sizeof(buf), 0);
	return dt_intern(f, buf);
}

const char *dt_reg_name(int dwreg)
{
	static const char *const names[DT_NREGS] = {
		"%rax", "%rdx", "%rcx", "%rbx", "%rsi", "%rdi", "%rbp", "%rsp", "%r8",
		"%r9",	"%r10", "%r11", "%r12", "%r13", "%r14", "%r15", "%rip",
	};

	return dwreg >= 0 && dwreg < DT_NREGS ? names[dwreg] : "%?";
}
