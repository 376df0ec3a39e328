// SPDX-License-Identifier: GPL-2.0-only
/*
 * Kernel addresses to the lines eu-addr2line -f -i prints for them (less
 * the columns): from the symbolizer, and the ELF symbols for what its
 * DWARF does not cover.
 */
#include "symbols/addr2line.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "symbols/debuginfo.h"
#include "symbols/elfsym.h"
#include "symbols/symbolize.h"

struct addr2line {
	struct addr2line_opts o;
	struct symbolizer *s;
	/* function symbols: dwfl_module_addrname() scans every symbol for each address */
	struct elfsym *syms;
	Dwfl_Module *mod;
	Dwarf_Addr bias;
};

int addr2line_hex(const char *s, __u64 *out)
{
	char *end;

	errno = 0;
	*out = strtoull(s, &end, 16);
	while (*end == ' ' || *end == '\t' || *end == '\n' || *end == '\r')
		end++;
	return errno || end == s || *end ? -EINVAL : 0;
}

static const char *shown(const struct addr2line *a, const char *file)
{
	const char *slash = a->o.basenames ? strrchr(file, '/') : NULL;

	return slash ? slash + 1 : file;
}

static void print_src(const struct addr2line *a, const char *file, int line)
{
	if (file)
		printf("%s:%d\n", shown(a, file), line);
	else
		fputs("??:0\n", stdout);
}

/*
 * eu-addr2line names an inlined instance by where it was inlined and the
 * symbol holding it, which tells compiler clones (.constprop.0) apart.
 */
static void print_func(const struct addr2line *a, __u64 addr, const struct sym_result *r)
{
	const struct sym_frame *call = &r->frames[1];
	const char *sym;
	__u64 off;

	fputs(r->frames[0].func ?: "??", stdout);
	if (r->frames[0].inlined && r->n > 1) {
		fputs(" inlined", stdout);
		if (call->file)
			printf(call->line ? " at %s:%d" : " from %s", shown(a, call->file),
			       call->line);
		sym = elfsym_find(a->syms, addr, &off);
		printf(" in %s", sym ?: r->frames[r->n - 1].func ?: "??");
	}
	putchar('\n');
}

/* An address in code the DWARF has no function for, such as assembly: ELF symbol and line. */
static void print_fallback(const struct addr2line *a, __u64 addr, const struct sym_result *r)
{
	const char *name;
	__u64 off;

	if (a->o.functions) {
		name = elfsym_find(a->syms, addr, &off);
		/* assembly's symbols are rarely typed as functions: ask about all, slowly */
		if (!name)
			name = dwfl_module_addrname(a->mod, addr + a->bias);
		puts(name ?: "??");
	}
	print_src(a, r->frames[0].file, r->frames[0].line);
}

static void print_result(const struct addr2line *a, __u64 addr, const struct sym_result *r)
{
	unsigned int k;

	if (!r->n) {
		print_fallback(a, addr, r);
		return;
	}
	if (a->o.functions)
		print_func(a, addr, r);
	print_src(a, r->frames[0].file, r->frames[0].line);
	for (k = 1; a->o.inlines && k < r->n; k++) {
		if (a->o.functions)
			puts(r->frames[k].func ?: "??");
		print_src(a, r->frames[k].file, r->frames[k].line);
	}
}

int addr2line_print(struct addr2line *a, const char *text)
{
	const struct sym_result *r;
	__u64 addr;
	int err;

	if (addr2line_hex(text, &addr)) {
		if (a->o.addresses)
			printf("%.*s\n", (int)strcspn(text, "\r\n"), text);
		if (a->o.functions)
			puts("??");
		puts("??:0");
		return 0;
	}
	if (a->o.addresses)
		printf("0x%016llx\n", (unsigned long long)addr);
	addr -= a->o.slide;
	err = symbolize(a->s, addr, &r);
	if (err)
		return err;
	print_result(a, addr, r);
	return 0;
}

int addr2line_new(struct addr2line **out, struct debuginfo *di, const char *path,
		  const struct addr2line_opts *o)
{
	struct addr2line *a = calloc(1, sizeof(*a));
	int err;

	if (!a)
		return -ENOMEM;
	a->o = *o;
	a->mod = debuginfo_module(di);
	debuginfo_dwarf(di, &a->bias);
	err = elfsym_open(path, NULL, NULL, &a->syms) ?: symbolizer_new(&a->s, di);
	if (err) {
		addr2line_free(a);
		return err;
	}
	*out = a;
	return 0;
}

void addr2line_free(struct addr2line *a)
{
	if (!a)
		return;
	symbolizer_free(a->s);
	elfsym_free(a->syms);
	free(a);
}
