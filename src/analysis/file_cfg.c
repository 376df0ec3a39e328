// SPDX-License-Identifier: GPL-2.0-only
/* A kernel function's graph from its vmlinux file (file_cfg.h). */
#include "analysis/file_cfg.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <gelf.h>
#include <elfutils/libdwfl.h>

#include "analysis/inline_ctx.h"
#include "symbols/debuginfo.h"

#define BUG_ENTRY_SIZE	12 /* struct bug_entry {s32 addr, file; u16 line, flags} */
#define BUGFLAG_WARNING 1

struct file_cfg {
	struct debuginfo *di;
	struct inlines_ctx *ctx; /* the text, thunks and jump-label sites */
	const __u8 *bugs;	 /* __bug_table, NULL when the file has none */
	__u64 bugs_at;
	size_t nbugs;
	enum cfg_callee (*by_name)(const char *name);
	__u64 *starts; /* every symbol's address, sorted, once a callee is asked */
	size_t nstarts;
	int starts_err; /* why starts could not be had; asked of libdwfl then */
};

static int by_addr(const void *a, const void *b)
{
	__u64 x = *(const __u64 *)a, y = *(const __u64 *)b;

	return x < y ? -1 : x > y;
}

/* The addresses symbols start at, sorted: libdwfl's lookup walks the whole table each time. */
static int load_starts(struct file_cfg *f)
{
	Dwfl_Module *mod = debuginfo_module(f->di);
	int i, n = dwfl_module_getsymtab(mod);
	Dwarf_Addr bias;
	GElf_Addr a;
	GElf_Sym sym;

	if (n <= 0)
		return -ENOENT;
	f->starts = calloc(n, sizeof(*f->starts));
	if (!f->starts)
		return -ENOMEM;
	debuginfo_dwarf(f->di, &bias);
	for (i = 1; i < n; i++)
		if (dwfl_module_getsym_info(mod, i, &sym, &a, NULL, NULL, NULL))
			f->starts[f->nstarts++] = a - bias;
	qsort(f->starts, f->nstarts, sizeof(*f->starts), by_addr);
	return 0;
}

/* Whether a symbol may start at addr: one libdwfl names with no offset must. */
static bool may_start(struct file_cfg *f, __u64 addr)
{
	if (!f->starts && !f->starts_err)
		f->starts_err = load_starts(f);
	return f->starts_err ||
	       bsearch(&addr, f->starts, f->nstarts, sizeof(*f->starts), by_addr) != NULL;
}

static enum cfg_callee callee(void *arg, __u64 addr)
{
	struct file_cfg *f = arg;
	const struct thunk *t = inlines_ctx_thunk(f->ctx, addr);
	Dwfl_Module *mod = debuginfo_module(f->di);
	GElf_Off off = 1;
	Dwarf_Addr bias;
	GElf_Sym sym;
	const char *name;

	if (t)
		return t->ret ? CFG_CALLEE_RETURN : CFG_CALLEE_INDIRECT;
	if (!may_start(f, addr))
		return CFG_CALLEE_FUNC;
	debuginfo_dwarf(f->di, &bias);
	name = dwfl_module_addrinfo(mod, addr + bias, &off, &sym, NULL, NULL, NULL);
	if (!name || off)
		return CFG_CALLEE_FUNC;
	if (f->by_name)
		return f->by_name(name);
	return cfg_noreturn_name(name) ? CFG_CALLEE_NORETURN : CFG_CALLEE_FUNC;
}

static bool site(void *arg, __u64 addr, __u64 *target)
{
	const struct file_cfg *f = arg;
	size_t i = inlines_ctx_first_site(f->ctx, addr);

	if (i == f->ctx->nsites || f->ctx->sites[i].code != addr)
		return false;
	*target = f->ctx->sites[i].target;
	return true;
}

static bool warn(void *arg, __u64 addr)
{
	const struct file_cfg *f = arg;
	__s32 rel;
	__u16 flags;
	size_t i;

	for (i = 0; i < f->nbugs; i++) {
		memcpy(&rel, f->bugs + i * BUG_ENTRY_SIZE, sizeof(rel));
		if (f->bugs_at + i * BUG_ENTRY_SIZE + rel != addr)
			continue;
		memcpy(&flags, f->bugs + i * BUG_ENTRY_SIZE + 10, sizeof(flags));
		return flags & BUGFLAG_WARNING;
	}
	return false;
}

/* The WARNs' table, when the file has one whose bytes it holds. */
static void load_bugs(struct file_cfg *f)
{
	__u64 start, stop;
	size_t avail;

	if (debuginfo_symbol(f->di, "__start___bug_table", &start) ||
	    debuginfo_symbol(f->di, "__stop___bug_table", &stop) || stop < start ||
	    (stop - start) % BUG_ENTRY_SIZE || inlines_ctx_bytes(f->ctx, start, &f->bugs, &avail) ||
	    avail < stop - start) {
		f->bugs = NULL;
		return;
	}
	f->bugs_at = start;
	f->nbugs = (stop - start) / BUG_ENTRY_SIZE;
}

int file_cfg_open(struct file_cfg **out, struct debuginfo *di,
		  enum cfg_callee (*by_name)(const char *name))
{
	struct file_cfg *f = calloc(1, sizeof(*f));
	int err;

	*out = NULL;
	if (!f)
		return -ENOMEM;
	f->di = di;
	f->by_name = by_name;
	err = inlines_ctx_open(&f->ctx, di);
	if (err) {
		free(f);
		return err;
	}
	load_bugs(f);
	*out = f;
	return 0;
}

void file_cfg_close(struct file_cfg *f)
{
	if (!f)
		return;
	free(f->starts);
	inlines_ctx_close(f->ctx);
	free(f);
}

int file_cfg_text(const struct file_cfg *f, const char *name, struct cfg_text *t)
{
	Dwfl_Module *mod = debuginfo_module(f->di);
	int i, n = dwfl_module_getsymtab(mod);
	Dwarf_Addr bias;
	const char *s;
	GElf_Addr a;
	GElf_Sym sym;
	size_t avail;

	debuginfo_dwarf(f->di, &bias);
	for (i = 1; i < n; i++) {
		s = dwfl_module_getsym_info(mod, i, &sym, &a, NULL, NULL, NULL);
		if (s && !strcmp(s, name) && GELF_ST_TYPE(sym.st_info) == STT_FUNC && sym.st_size)
			break;
	}
	if (i >= n)
		return -ENOENT;
	*t = (struct cfg_text){.addr = a - bias, .len = sym.st_size};
	if (inlines_ctx_bytes(f->ctx, t->addr, &t->code, &avail) || avail < t->len)
		return -ERANGE;
	return 0;
}

int file_cfg_bytes(const struct file_cfg *f, __u64 addr, const __u8 **out, size_t *len)
{
	return inlines_ctx_bytes(f->ctx, addr, out, len);
}

struct cfg_env file_cfg_env(struct file_cfg *f)
{
	return (struct cfg_env){callee, site, warn, f};
}
