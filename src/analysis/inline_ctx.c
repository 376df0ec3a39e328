/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * What finding an instance's exits reads of the file once, however many
 * instances follow: where its text lies, a capstone disassembler, the
 * jump-label sites of __jump_table (a jump there may be a nop at run time,
 * and the other way round) and the thunk symbols, since a jump to
 * __x86_return_thunk is a return and one to __x86_indirect_thunk_* an
 * indirect jump, neither a tail call.
 */
#include "analysis/inline_ctx.h"

#include <errno.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdlib.h>
#include <string.h>
#include <gelf.h>
#include <capstone/capstone.h>
#include <elfutils/libdwfl.h>

#include "symbols/debuginfo.h"
#include "util/array.h"

#define RETURN_THUNK	"__x86_return_thunk"
#define INDIRECT_THUNK	"__x86_indirect_thunk_"
#define JUMP_ENTRY_SIZE 16 /* struct jump_entry: s32 code, s32 target, long key */

/* Sites and thunks both sort by their leading address. */
_Static_assert(offsetof(struct jump_site, code) == 0 && offsetof(struct thunk, addr) == 0,
	       "cmp_key() and first_at() read the address each element starts with");

static int cmp_key(const void *a, const void *b)
{
	__u64 x = *(const __u64 *)a, y = *(const __u64 *)b;

	return x < y ? -1 : x > y;
}

/* The index of the first of n elements of size bytes, sorted by cmp_key(), at or after addr. */
static size_t first_at(const void *v, size_t n, size_t size, __u64 addr)
{
	size_t l = 0, h = n, m;

	while (l < h) {
		m = l + (h - l) / 2;
		if (*(const __u64 *)((const char *)v + m * size) < addr)
			l = m + 1;
		else
			h = m;
	}
	return l;
}

size_t inlines_ctx_first_site(const struct inlines_ctx *c, __u64 addr)
{
	return first_at(c->sites, c->nsites, sizeof(*c->sites), addr);
}

const struct thunk *inlines_ctx_thunk(const struct inlines_ctx *c, __u64 addr)
{
	size_t i = first_at(c->thunks, c->nthunks, sizeof(*c->thunks), addr);

	return i < c->nthunks && c->thunks[i].addr == addr ? &c->thunks[i] : NULL;
}

int inlines_ctx_bytes(const struct inlines_ctx *c, __u64 addr, const uint8_t **out, size_t *len)
{
	__u64 a = addr + c->to_elf;
	Elf_Scn *scn = NULL;
	Elf_Data *data;
	GElf_Shdr sh;

	while ((scn = elf_nextscn(c->elf, scn))) {
		if (!gelf_getshdr(scn, &sh) || sh.sh_type != SHT_PROGBITS ||
		    !(sh.sh_flags & SHF_ALLOC) || a < sh.sh_addr || a - sh.sh_addr >= sh.sh_size)
			continue;
		data = elf_getdata(scn, NULL);
		if (!data || !data->d_buf || data->d_size != sh.sh_size)
			return -EIO;
		*out = (const uint8_t *)data->d_buf + (a - sh.sh_addr);
		*len = sh.sh_size - (a - sh.sh_addr);
		return 0;
	}
	return -ENOENT;
}

bool inlines_ctx_decode(const struct inlines_ctx *c, __u64 addr, cs_insn *insn)
{
	const uint8_t *code;
	uint64_t pc = addr;
	size_t len;

	return !inlines_ctx_bytes(c, addr, &code, &len) &&
	       cs_disasm_iter(c->cs, &code, &len, &pc, insn);
}

static int open_text(struct inlines_ctx *c, struct debuginfo *di)
{
	Dwarf_Addr dw_bias, elf_bias;

	debuginfo_dwarf(di, &dw_bias);
	c->elf = dwfl_module_getelf(debuginfo_module(di), &elf_bias);
	if (!c->elf)
		return -ENODATA;
	c->to_elf = dw_bias - elf_bias;
	if (cs_open(CS_ARCH_X86, CS_MODE_64, &c->cs) != CS_ERR_OK) {
		c->cs = 0;
		return -ENOTSUP;
	}
	/* before cs_malloc(), which sizes instructions for the detail they will hold */
	if (cs_option(c->cs, CS_OPT_DETAIL, CS_OPT_ON) != CS_ERR_OK)
		return -ENOMEM;
	c->insn = cs_malloc(c->cs);
	c->ahead = cs_malloc(c->cs);
	return c->insn && c->ahead ? 0 : -ENOMEM;
}

static int add_thunk(struct inlines_ctx *c, size_t *cap, __u64 addr, bool ret)
{
	int err = array_reserve((void **)&c->thunks, cap, c->nthunks + 1, sizeof(*c->thunks));

	if (err)
		return err;
	c->thunks[c->nthunks++] = (struct thunk){addr, ret};
	return 0;
}

/* One pass over the symbol table: the thunks, and where __jump_table lies (0 when not). */
static int scan_symbols(struct inlines_ctx *c, struct debuginfo *di, __u64 *start, __u64 *stop)
{
	Dwfl_Module *mod = debuginfo_module(di);
	int i, n = dwfl_module_getsymtab(mod), err = 0;
	Dwarf_Addr bias;
	size_t cap = 0;
	const char *s;
	GElf_Addr a;
	GElf_Sym sym;

	debuginfo_dwarf(di, &bias);
	*start = *stop = 0;
	for (i = 1; i < n && !err; i++) {
		s = dwfl_module_getsym_info(mod, i, &sym, &a, NULL, NULL, NULL);
		if (!s)
			continue;
		if (!*start && !strcmp(s, "__start___jump_table"))
			*start = a - bias;
		else if (!*stop && !strcmp(s, "__stop___jump_table"))
			*stop = a - bias;
		else if (!strcmp(s, RETURN_THUNK))
			err = add_thunk(c, &cap, a - bias, true);
		else if (!strncmp(s, INDIRECT_THUNK, strlen(INDIRECT_THUNK)))
			err = add_thunk(c, &cap, a - bias, false);
	}
	/* a file without thunks has none to sort, and qsort() must not be given NULL */
	if (c->nthunks)
		qsort(c->thunks, c->nthunks, sizeof(*c->thunks), cmp_key);
	return err;
}

/* The vmlinux's jump-label sites, from __jump_table, whose entries are relative to their own
 * fields. */
static int load_sites(struct inlines_ctx *c, __u64 start, __u64 stop)
{
	const uint8_t *p;
	size_t avail, n, i;
	__s32 rel[2];
	__u64 e;
	int err;

	if (stop <= start)
		return 0;
	err = inlines_ctx_bytes(c, start, &p, &avail);
	if (err || avail < stop - start)
		return err ?: -ERANGE;
	n = (stop - start) / JUMP_ENTRY_SIZE;
	c->sites = calloc(n ? n : 1, sizeof(*c->sites));
	if (!c->sites)
		return -ENOMEM;
	for (i = 0; i < n; i++, p += JUMP_ENTRY_SIZE) {
		e = start + i * JUMP_ENTRY_SIZE;
		memcpy(rel, p, sizeof(rel));
		c->sites[i] = (struct jump_site){e + rel[0], e + 4 + rel[1]};
	}
	c->nsites = n;
	qsort(c->sites, n, sizeof(*c->sites), cmp_key);
	return 0;
}

int inlines_ctx_open(struct inlines_ctx **out, struct debuginfo *di)
{
	struct inlines_ctx *c = calloc(1, sizeof(*c));
	__u64 start, stop;
	int err;

	*out = NULL;
	if (!c)
		return -ENOMEM;
	err = open_text(c, di) ?: scan_symbols(c, di, &start, &stop) ?: load_sites(c, start, stop);
	if (err) {
		inlines_ctx_close(c);
		return err;
	}
	*out = c;
	return 0;
}

void inlines_ctx_close(struct inlines_ctx *c)
{
	if (!c)
		return;
	free(c->sites);
	free(c->thunks);
	if (c->ahead)
		cs_free(c->ahead, 1);
	if (c->insn)
		cs_free(c->insn, 1);
	if (c->cs)
		cs_close(&c->cs);
	free(c);
}
