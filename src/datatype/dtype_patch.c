// SPDX-License-Identifier: GPL-2.0-only
/*
 * The instructions the kernel rewrote at boot (dtype.h, dtype_set_running):
 * the bytes a recording saw run where they were not the file's, decoded
 * instead of the file's, and the file's own record of what it may rewrite,
 * .altinstructions, for the PCs whose running bytes the recording lacks.
 */
#include "datatype/dtype_int.h"

#include <errno.h>
#include <gelf.h>
#include <stdlib.h>
#include <string.h>

#include "symbols/debuginfo.h"

static int by_pc(const void *a, const void *b)
{
	const struct dtype_running *x = a, *y = b;

	return x->pc < y->pc ? -1 : x->pc > y->pc;
}

static int by_lo(const void *a, const void *b)
{
	const struct dt_span *x = a, *y = b;

	return x->lo < y->lo ? -1 : x->lo > y->lo;
}

/* The ELF section called name, its header in *sh; NULL when the file has none. */
static Elf_Scn *section(Elf *elf, const char *name, GElf_Shdr *sh)
{
	Elf_Scn *scn = NULL;
	const char *s;
	size_t shstrndx;

	if (elf_getshdrstrndx(elf, &shstrndx))
		return NULL;
	while ((scn = elf_nextscn(elf, scn))) {
		s = gelf_getshdr(scn, sh) ? elf_strptr(elf, shstrndx, sh->sh_name) : NULL;
		if (s && !strcmp(s, name))
			return scn;
	}
	return NULL;
}

/* Whether [addr, addr + len) lies in one executable section. */
static bool in_text(Elf *elf, __u64 addr, unsigned int len)
{
	Elf_Scn *scn = NULL;
	GElf_Shdr sh;

	while ((scn = elf_nextscn(elf, scn)))
		if (gelf_getshdr(scn, &sh) && (sh.sh_flags & SHF_EXECINSTR) &&
		    addr - sh.sh_addr < sh.sh_size && len <= sh.sh_size - (addr - sh.sh_addr))
			return true;
	return false;
}

/*
 * The entries of .altinstructions as struct alt_instr of size esz: s32
 * instr_offset, s32 repl_offset, then the feature (u16 in 5.11 to 6.2,
 * u32 ft_flags from 6.3; 5.10's 13 bytes add a u8 padlen), u8 instrlen and
 * u8 replacementlen.  The size is right when every entry is an original
 * in the text no shorter than its replacement, as the kernel's own build
 * ensures; into f->alt (NULL, false when not so).
 */
static bool alt_entries(struct dtype_file *f, Elf *elf, const GElf_Shdr *sh, const Elf_Data *d,
			size_t esz)
{
	size_t i, n = sh->sh_size / esz, at = esz == 14 ? 12 : 10;
	const __u8 *e;
	__s32 rel;

	if (!n || sh->sh_size % esz || d->d_size < sh->sh_size)
		return false;
	f->alt = calloc(n, sizeof(*f->alt));
	if (!f->alt)
		return false;
	for (i = 0; i < n; i++) {
		e = (const __u8 *)d->d_buf + i * esz;
		memcpy(&rel, e, sizeof(rel));
		f->alt[i].lo = sh->sh_addr + i * esz + (__s64)rel;
		f->alt[i].hi = f->alt[i].lo + e[at];
		if (!e[at] || e[at + 1] > e[at] || !in_text(elf, f->alt[i].lo, e[at])) {
			free(f->alt);
			f->alt = NULL;
			return false;
		}
	}
	f->nalt = n;
	return true;
}

/* The spans .altinstructions says may run other bytes, sorted; none when it is unreadable. */
static void alt_load(struct dtype_file *f)
{
	static const size_t sizes[] = {12, 14, 13};
	Dwarf_Addr bias;
	Elf *elf = dwfl_module_getelf(debuginfo_module(f->di), &bias);
	GElf_Shdr sh;
	Elf_Scn *scn = elf ? section(elf, ".altinstructions", &sh) : NULL;
	Elf_Data *d = scn ? elf_getdata(scn, NULL) : NULL;
	size_t i;

	if (!d || sh.sh_type != SHT_PROGBITS)
		return;
	for (i = 0; i < sizeof(sizes) / sizeof(sizes[0]); i++)
		if (alt_entries(f, elf, &sh, d, sizes[i]))
			break;
	if (f->nalt)
		qsort(f->alt, f->nalt, sizeof(*f->alt), by_lo);
}

int dtype_set_running(struct dtype_file *f, const struct dtype_running *sites, size_t n,
		      bool complete)
{
	free(f->run);
	f->run = NULL;
	f->nrun = 0;
	/* none: no copy, and no qsort, whose base must not be NULL */
	if (n) {
		f->run = malloc(n * sizeof(*f->run));
		if (!f->run)
			return -ENOMEM;
		memcpy(f->run, sites, n * sizeof(*f->run));
		qsort(f->run, n, sizeof(*f->run), by_pc);
		f->nrun = n;
	}
	f->run_complete = complete;
	if (!complete && !f->alt)
		alt_load(f);
	return 0;
}

void dt_patch_free(struct dtype_file *f)
{
	free(f->run);
	free(f->alt);
}

bool dt_running(const struct dtype_file *f, __u64 pc, const __u8 **code, size_t *len)
{
	struct dtype_running key = {.pc = pc};
	const struct dtype_running *r =
		f->nrun ? bsearch(&key, f->run, f->nrun, sizeof(*f->run), by_pc) : NULL;

	if (!r)
		return false;
	*code = r->b;
	*len = r->len;
	return true;
}

bool dt_patch_unknown(const struct dtype_file *f, __u64 pc)
{
	const __u8 *code;
	size_t len, lo = 0, hi = f->nalt, mid;

	if (f->run_complete || !f->nalt || dt_running(f, pc, &code, &len))
		return false;
	/* the spans may overlap (ALTERNATIVE_2): the last starting at or before pc, and back */
	while (lo < hi) {
		mid = (lo + hi) / 2;
		if (f->alt[mid].lo <= pc)
			lo = mid + 1;
		else
			hi = mid;
	}
	while (lo--)
		if (pc < f->alt[lo].hi)
			return true;
		else if (pc - f->alt[lo].lo > 255)
			return false; /* an original is at most 255 bytes */
	return false;
}
