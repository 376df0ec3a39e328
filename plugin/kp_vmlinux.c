// SPDX-License-Identifier: GPL-2.0-only
/* vmlinux=: the kernel's text and its fault sites (kp_vmlinux.h). */
#include "kp_vmlinux.h"

#include <elf.h>
#include <errno.h>
#include <fcntl.h>
#include <glib.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

static int kp_u64_cmp(const void *a, const void *b)
{
	uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;

	return x < y ? -1 : x > y;
}

static const Elf64_Shdr *kp_elf_section(const uint8_t *img, size_t len, const char *name,
					uint32_t type)
{
	const Elf64_Ehdr *eh = (const void *)img;
	const Elf64_Shdr *sh, *names;
	size_t nlen = strlen(name) + 1;
	unsigned int i;

	if (len < sizeof(*eh) || memcmp(eh->e_ident, ELFMAG, SELFMAG) ||
	    eh->e_ident[EI_CLASS] != ELFCLASS64 || eh->e_machine != EM_X86_64 ||
	    eh->e_shoff > len || (len - eh->e_shoff) / sizeof(*sh) < eh->e_shnum ||
	    eh->e_shstrndx >= eh->e_shnum)
		return NULL;
	sh = (const void *)(img + eh->e_shoff);
	names = &sh[eh->e_shstrndx];
	if (names->sh_offset > len || len - names->sh_offset < names->sh_size)
		return NULL;
	for (i = 0; i < eh->e_shnum; i++) {
		if (sh[i].sh_name >= names->sh_size || names->sh_size - sh[i].sh_name < nlen ||
		    memcmp(img + names->sh_offset + sh[i].sh_name, name, nlen))
			continue;
		if (sh[i].sh_type != type || sh[i].sh_offset > len ||
		    len - sh[i].sh_offset < sh[i].sh_size)
			return NULL;
		return &sh[i];
	}
	return NULL;
}

/* true when addr is in one of the (checked) image's executable sections */
static bool kp_elf_exec(const uint8_t *img, uint64_t addr)
{
	const Elf64_Ehdr *eh = (const void *)img;
	const Elf64_Shdr *sh = (const void *)(img + eh->e_shoff);
	unsigned int i;

	for (i = 0; i < eh->e_shnum; i++)
		if ((sh[i].sh_flags & SHF_EXECINSTR) && addr - sh[i].sh_addr < sh[i].sh_size)
			return true;
	return false;
}

/*
 * The instructions __ex_table fixes faults of: its entries are three int32
 * (the instruction, the fixup, data, each relative to its own address) in
 * Linux 4.6 and later.  Every one must be code: else the table is not that.
 */
static bool kp_vmlinux_faults(struct kp_vmlinux *v, const uint8_t *img, const Elf64_Shdr *ex)
{
	size_t i;

	if (ex->sh_size % 12)
		return false;
	v->nfaults = ex->sh_size / 12;
	v->faults = g_new(uint64_t, v->nfaults);
	for (i = 0; i < v->nfaults; i++) {
		int32_t rel;

		memcpy(&rel, img + ex->sh_offset + i * 12, sizeof(rel));
		v->faults[i] = ex->sh_addr + i * 12 + (int64_t)rel;
		if (!kp_elf_exec(img, v->faults[i]))
			return false;
	}
	qsort(v->faults, v->nfaults, sizeof(*v->faults), kp_u64_cmp);
	return true;
}

/*
 * The functions that zero or copy with rep string instructions, by name
 * (x86-64 Linux 5.x and 6.x spell them so), and the return thunks that ret
 * for the kernel's functions when it returns through them.
 */
static const char *const kp_str_names[] = {
	"memset",
	"__memset",
	"memset_erms",
	"memset_orig",
	"memcpy",
	"__memcpy",
	"memcpy_erms",
	"memcpy_orig",
	"memmove",
	"__memmove",
	"clear_page_erms",
	"clear_page_rep",
	"clear_page_orig",
	"copy_page",
	"copy_user_enhanced_fast_string",
	"copy_user_generic_string",
	"copy_user_generic_unrolled",
	"copy_mc_enhanced_fast_string",
	"copy_mc_to_kernel", /* C, but tail-jumps to copy_mc_enhanced_fast_string */
	"copy_mc_to_user",
	"rep_movs_alternative",
	"rep_stos_alternative",
	"clear_user_erms",
	"clear_user_rep_good",
	"clear_user_original",
	NULL,
};
/*
 * The slab allocators whose objects are zeroed by a call of memset
 * (init_on_alloc, __GFP_ZERO): those that take the cache as their first
 * argument and kmalloc's, which pick it by size and call the former; 6.1's
 * names, then 6.10's and later (_noprof).
 */
static const char *const kp_alloc_names[] = {
	"kmalloc_trace",
	"kmalloc_node_trace",
	"__kmalloc",
	"__kmalloc_node",
	"__kmalloc_node_track_caller",
	"kmalloc_trace_noprof",
	"kmalloc_node_trace_noprof",
	"__kmalloc_noprof",
	"__kmalloc_node_noprof",
	"__kmalloc_cache_noprof",
	"__kmalloc_cache_node_noprof",
	"__kmalloc_node_track_caller_noprof",
	"kmem_cache_alloc",
	"kmem_cache_alloc_lru",
	"kmem_cache_alloc_node",
	"kmem_cache_alloc_bulk",
	"__kmem_cache_alloc_node",
	"kmem_cache_alloc_trace",
	"kmem_cache_alloc_node_trace",
	"kmem_cache_alloc_noprof",
	"kmem_cache_alloc_lru_noprof",
	"kmem_cache_alloc_node_noprof",
	"kmem_cache_alloc_bulk_noprof",
	NULL,
};
static const char *const kp_thunk_names[] = {
	"__x86_return_thunk",
	"zen_untrain_ret",
	"retbleed_return_thunk",
	"srso_return_thunk",
	"srso_alias_return_thunk",
	"srso_safe_ret",
	"srso_alias_safe_ret",
	"call_depth_return_thunk",
	"__x86_return_skl",
	"entry_untrain_ret",
	NULL,
};

static bool kp_named(const char *const *names, const char *s)
{
	for (; *names; names++)
		if (!strcmp(*names, s))
			return true;
	return false;
}

static int kp_strfn_cmp(const void *a, const void *b)
{
	const struct kp_strfn *x = a, *y = b;

	return x->start < y->start ? -1 : x->start > y->start;
}

/* one function symbol: kept when named, once per address (memset and __memset are one) */
static void kp_str_add(struct kp_vmlinux *v, const Elf64_Sym *sym, const char *name)
{
	bool thunk = kp_named(kp_thunk_names, name), alloc = kp_named(kp_alloc_names, name);
	unsigned int i;

	if (ELF64_ST_TYPE(sym->st_info) != STT_FUNC || !sym->st_size ||
	    (!thunk && !alloc && !kp_named(kp_str_names, name)) || v->nstr == KP_STRFN_MAX)
		return;
	for (i = 0; i < v->nstr; i++)
		if (v->str[i].start == sym->st_value)
			return;
	v->str[v->nstr++] =
		(struct kp_strfn){sym->st_value, sym->st_value + sym->st_size, thunk, alloc};
}

/* the string functions and thunks of .symtab, sorted; none when it has no symbols */
static void kp_vmlinux_strfns(struct kp_vmlinux *v, const uint8_t *img, size_t len)
{
	const Elf64_Shdr *sym = kp_elf_section(img, len, ".symtab", SHT_SYMTAB);
	const Elf64_Shdr *str = kp_elf_section(img, len, ".strtab", SHT_STRTAB);
	const char *names;
	size_t i, n;

	if (!sym || !str || !str->sh_size || sym->sh_size % sizeof(Elf64_Sym))
		return;
	names = (const char *)img + str->sh_offset;
	if (names[str->sh_size - 1])
		return;
	n = sym->sh_size / sizeof(Elf64_Sym);
	for (i = 0; i < n; i++) {
		Elf64_Sym s;

		memcpy(&s, img + sym->sh_offset + i * sizeof(s), sizeof(s));
		if (s.st_name < str->sh_size)
			kp_str_add(v, &s, names + s.st_name);
	}
	qsort(v->str, v->nstr, sizeof(v->str[0]), kp_strfn_cmp);
}

int kp_vmlinux_strfn(const struct kp_vmlinux *v, uint64_t va)
{
	unsigned int i;

	for (i = 0; i < v->nstr; i++)
		if (va - v->str[i].start < v->str[i].end - v->str[i].start)
			return i;
	return -1;
}

bool kp_vmlinux_load(struct kp_vmlinux *v, const char *path)
{
	const Elf64_Shdr *text, *ex;
	struct stat st;
	uint8_t *img;
	bool ok;
	int fd = open(path, O_RDONLY);

	if (fd < 0 || fstat(fd, &st) ||
	    (img = mmap(NULL, st.st_size, PROT_READ, MAP_PRIVATE, fd, 0)) == MAP_FAILED) {
		fprintf(stderr, "kp_model: vmlinux=%s: %s\n", path, strerror(errno));
		if (fd >= 0)
			close(fd);
		return false;
	}
	close(fd);
	text = kp_elf_section(img, st.st_size, ".text", SHT_PROGBITS);
	ex = kp_elf_section(img, st.st_size, "__ex_table", SHT_PROGBITS);
	ok = text && ex && kp_vmlinux_faults(v, img, ex);
	if (ok) {
		v->text = text->sh_addr;
		v->text_end = text->sh_addr + text->sh_size;
		v->text_bytes = g_memdup2(img + text->sh_offset, text->sh_size);
		v->patched = g_hash_table_new_full(g_int64_hash, g_int64_equal, NULL, g_free);
		kp_vmlinux_strfns(v, img, st.st_size);
	} else {
		fprintf(stderr,
			"kp_model: vmlinux=%s: no x86-64 Linux image with .text and __ex_table\n",
			path);
	}
	munmap(img, st.st_size);
	return ok;
}

/* i1=, d1=, ll=, itlb=, dtlb=: one geometry, cachegrind's and Skylake's defaults for the rest */

bool kp_vmlinux_no_fault(const struct kp_vmlinux *v, uint64_t va, const uint8_t *b, uint32_t size)
{
	if (va < v->text || va + size > v->text_end ||
	    memcmp(b, v->text_bytes + (va - v->text), size))
		return false;
	return !bsearch(&va, v->faults, v->nfaults, sizeof(*v->faults), kp_u64_cmp);
}

void kp_vmlinux_note(struct kp_vmlinux *v, uint64_t va, const uint8_t *b, uint32_t size)
{
	struct kp_patched *p;

	if (!v->text_bytes || va < v->text || va + size > v->text_end || size > sizeof(p->b) ||
	    !memcmp(b, v->text_bytes + (va - v->text), size))
		return;
	p = g_hash_table_lookup(v->patched, &va);
	if (!p && g_hash_table_size(v->patched) >= KP_PATCHED_MAX) {
		v->dropped++;
		return;
	}
	if (!p) {
		p = g_new0(struct kp_patched, 1);
		p->pc = va;
		g_hash_table_insert(v->patched, &p->pc, p);
	}
	/* a site rewritten again (a jump label flipped): its last bytes */
	p->len = size;
	memcpy(p->b, b, size);
}

static gint kp_patched_cmp(gconstpointer a, gconstpointer b)
{
	const struct kp_patched *x = *(struct kp_patched *const *)a;
	const struct kp_patched *y = *(struct kp_patched *const *)b;

	return x->pc < y->pc ? -1 : x->pc > y->pc;
}

GPtrArray *kp_vmlinux_patched(const struct kp_vmlinux *v)
{
	GPtrArray *all = g_ptr_array_new();
	GHashTableIter it;
	gpointer val;

	if (!v->patched)
		return all;
	g_hash_table_iter_init(&it, v->patched);
	while (g_hash_table_iter_next(&it, NULL, &val))
		g_ptr_array_add(all, val);
	g_ptr_array_sort(all, kp_patched_cmp);
	return all;
}
