/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * Function symbols of ELF files, read with libelf.
 *
 * Addresses of mapped code come as file offsets; the PT_LOAD segments turn
 * them into the link-time addresses the symbols use.  A debug file has the
 * symbols but not valid segments, so those always come from the file itself.
 */
#include "symbols/elfsym.h"

#include <errno.h>
#include <fcntl.h>
#include <gelf.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <sys/stat.h>

#include "system/provenance.h"
#include "util/safeio.h"

#define DEBUG_DIR "/usr/lib/debug/.build-id/"

struct fsym {
	__u64 addr, end;
	__u32 name; /* offset into elfsym.names */
	__u32 rank; /* among aliases at one address the lowest is kept */
};

struct seg {
	__u64 off, filesz, vaddr;
};

struct elfsym {
	struct seg *segs;
	size_t nsegs;
	struct fsym *syms;
	size_t nsyms;
	char *names; /* a copy of the string table the symbols came from */
	char bid[ELFSYM_BID_HEX];
};

struct elfh {
	int fd;
	Elf *e;
};

static void elf_close(struct elfh *h)
{
	if (!h->e)
		return;
	elf_end(h->e);
	close(h->fd);
	h->e = NULL;
	h->fd = -1;
}

static int elf_open(const char *path, struct elfh *h)
{
	struct stat st;
	int err = -ENOEXEC;

	h->e = NULL;
	/* libelf refuses every call until told which version its caller speaks */
	if (elf_version(EV_CURRENT) == EV_NONE)
		return -ENOTSUP;
	/* a path from a data file or the command line: a FIFO must not block the open */
	h->fd = safeio_open_regular(path, &st, NULL, 0);
	if (h->fd < 0) {
		err = h->fd == -EINVAL ? err : h->fd;
		h->fd = -1;
		return err;
	}
	h->e = elf_begin(h->fd, ELF_C_READ_MMAP, NULL);
	if (h->e && elf_kind(h->e) == ELF_K_ELF)
		return 0;
	elf_end(h->e);
	h->e = NULL;
	close(h->fd);
	h->fd = -1;
	return err;
}

static bool note_build_id(const Elf_Data *d, char *hex, size_t hexlen)
{
	return d && !provenance_parse_build_id(d->d_buf, d->d_size, hex, hexlen);
}

void elfsym_elf_build_id(Elf *e, char *hex, size_t hexlen)
{
	Elf_Scn *scn = NULL;
	GElf_Shdr sh;
	GElf_Phdr ph;
	Elf_Data *d;
	size_t i, n;

	hex[0] = '\0';
	while ((scn = elf_nextscn(e, scn))) {
		d = gelf_getshdr(scn, &sh) && sh.sh_type == SHT_NOTE ? elf_getdata(scn, NULL)
								     : NULL;
		if (note_build_id(d, hex, hexlen))
			return;
	}
	/* no section headers: the notes are still found through the program headers */
	if (elf_getphdrnum(e, &n))
		return;
	for (i = 0; i < n; i++) {
		if (!gelf_getphdr(e, i, &ph) || ph.p_type != PT_NOTE)
			continue;
		d = elf_getdata_rawchunk(e, ph.p_offset, ph.p_filesz,
					 ph.p_align == 8 ? ELF_T_NHDR8 : ELF_T_NHDR);
		if (note_build_id(d, hex, hexlen))
			return;
	}
}

int elfsym_build_id(const char *path, char *hex, size_t hexlen)
{
	struct elfh h;
	int err;

	hex[0] = '\0';
	err = elf_open(path, &h);
	if (err)
		return err;
	elfsym_elf_build_id(h.e, hex, hexlen);
	elf_close(&h);
	return 0;
}

static int load_segs(struct elfsym *f, Elf *e)
{
	GElf_Phdr ph;
	size_t i, n;

	if (elf_getphdrnum(e, &n) || !n)
		return 0;
	f->segs = calloc(n, sizeof(*f->segs));
	if (!f->segs)
		return -ENOMEM;
	for (i = 0; i < n; i++) {
		if (gelf_getphdr(e, i, &ph) && ph.p_type == PT_LOAD)
			f->segs[f->nsegs++] = (struct seg){ph.p_offset, ph.p_filesz, ph.p_vaddr};
	}
	return 0;
}

/* Among aliases prefer a sized, global name with few leading underscores (as perf does). */
static __u32 sym_rank(const GElf_Sym *s, const char *name)
{
	int bind = GELF_ST_BIND(s->st_info);
	__u32 rank = bind == STB_GLOBAL ? 0 : bind == STB_WEAK ? 1 : 2;
	size_t us = strspn(name, "_");

	return (s->st_size ? 0 : 1u << 16) | rank << 8 | (us < 255 ? us : 255);
}

static bool is_func(const GElf_Sym *s)
{
	int type = GELF_ST_TYPE(s->st_info);

	return (type == STT_FUNC || type == STT_GNU_IFUNC) && s->st_shndx != SHN_UNDEF &&
	       s->st_shndx < SHN_LORESERVE;
}

/* f->syms has room for every symbol of the table; names_size: of f->names. */
static void sym_add(struct elfsym *f, Elf *e, const GElf_Sym *s, size_t names_size)
{
	const char *name;
	GElf_Shdr sec;
	__u64 end;

	if (s->st_name >= names_size)
		return;
	name = f->names + s->st_name;
	if (!name[0])
		return;
	/* a symbol without a size reaches at most to the end of its section */
	if (s->st_size)
		end = s->st_value + s->st_size;
	else if (gelf_getshdr(elf_getscn(e, s->st_shndx), &sec))
		end = sec.sh_addr + sec.sh_size;
	else
		return;
	f->syms[f->nsyms++] = (struct fsym){s->st_value, end, s->st_name, sym_rank(s, name)};
}

/* The string table copied whole: symbols name their strings by offset into it. */
static int copy_names(struct elfsym *f, const Elf_Data *str)
{
	f->names = malloc(str->d_size + 1);
	if (!f->names)
		return -ENOMEM;
	memcpy(f->names, str->d_buf, str->d_size);
	/* a corrupt table's last string still ends */
	f->names[str->d_size] = '\0';
	return 0;
}

/* The function symbols of the first section of type (SHT_SYMTAB or SHT_DYNSYM). */
static int load_syms(struct elfsym *f, Elf *e, __u32 type)
{
	Elf_Scn *scn = NULL;
	Elf_Data *d, *str;
	GElf_Shdr sh;
	GElf_Sym s;
	size_t i, n;

	while ((scn = elf_nextscn(e, scn)))
		if (gelf_getshdr(scn, &sh) && sh.sh_type == type)
			break;
	d = scn && sh.sh_entsize ? elf_getdata(scn, NULL) : NULL;
	str = d ? elf_getdata(elf_getscn(e, sh.sh_link), NULL) : NULL;
	n = d ? sh.sh_size / sh.sh_entsize : 0;
	if (!str || !str->d_buf || n < 2)
		return 0;
	f->syms = calloc(n, sizeof(*f->syms));
	if (!f->syms || copy_names(f, str))
		return -ENOMEM;
	for (i = 1; i < n; i++)
		if (gelf_getsym(d, i, &s) && is_func(&s))
			sym_add(f, e, &s, str->d_size);
	if (f->nsyms)
		return 0;
	/* none here: the next table is tried */
	free(f->syms);
	free(f->names);
	f->syms = NULL;
	f->names = NULL;
	return 0;
}

static int sym_cmp(const void *a, const void *b, void *names)
{
	const struct fsym *x = a, *y = b;

	if (x->addr != y->addr)
		return x->addr < y->addr ? -1 : 1;
	if (x->rank != y->rank)
		return x->rank < y->rank ? -1 : 1;
	return strcmp((const char *)names + x->name, (const char *)names + y->name);
}

/* Sorted by address, one symbol per address. */
static void sort_syms(struct elfsym *f)
{
	struct fsym *tmp;
	size_t i, n = 0;

	if (!f->nsyms)
		return;
	qsort_r(f->syms, f->nsyms, sizeof(*f->syms), sym_cmp, f->names);
	for (i = 1; i < f->nsyms; i++)
		if (f->syms[i].addr != f->syms[n].addr)
			f->syms[++n] = f->syms[i];
	f->nsyms = n + 1;
	/* the table was sized for every symbol, most of them not functions */
	tmp = reallocarray(f->syms, f->nsyms, sizeof(*f->syms));
	if (tmp)
		f->syms = tmp;
}

/* The debug file of build id bid under root ("": /), as the debug packages install it. */
static int debug_open(const char *root, const char *bid, struct elfh *h)
{
	char path[PATH_MAX];
	int ret;

	h->e = NULL;
	h->fd = -1;
	if (strlen(bid) < 3)
		return -ENOENT;
	ret = snprintf(path, sizeof(path), "%s" DEBUG_DIR "%.2s/%s.debug", root, bid, bid + 2);
	if (ret < 0 || (size_t)ret >= sizeof(path))
		return -ENAMETOOLONG;
	return elf_open(path, h);
}

/* Symbols from the first of: the debug file of the build id, .symtab, .dynsym. */
static int load(struct elfsym *f, Elf *e, const char *root)
{
	struct elfh dbg;
	int err;

	err = load_segs(f, e);
	if (!err && !debug_open(root, f->bid, &dbg)) {
		err = load_syms(f, dbg.e, SHT_SYMTAB);
		elf_close(&dbg);
	}
	if (!err && !f->nsyms)
		err = load_syms(f, e, SHT_SYMTAB);
	if (!err && !f->nsyms)
		err = load_syms(f, e, SHT_DYNSYM);
	if (!err)
		sort_syms(f);
	return err;
}

/* elfsym_open(), or only its segments when !root; *fd (unless NULL) keeps the file open. */
static int open_file(const char *path, const char *bid, const char *root, int *fd,
		     struct elfsym **out)
{
	struct elfsym *f;
	struct elfh file;
	int err;

	err = elf_open(path, &file);
	if (err)
		return err;
	f = calloc(1, sizeof(*f));
	err = -ENOMEM;
	if (!f)
		goto out;
	elfsym_elf_build_id(file.e, f->bid, sizeof(f->bid));
	if (bid && bid[0] && strcmp(bid, f->bid))
		err = -ESTALE;
	else
		err = root ? load(f, file.e, root) : load_segs(f, file.e);
	if (err) {
		elfsym_free(f);
		goto out;
	}
	*out = f;
	if (fd) {
		/* the descriptor outlives the Elf handle read on it */
		elf_end(file.e);
		*fd = file.fd;
		return 0;
	}
out:
	elf_close(&file);
	return err;
}

int elfsym_open(const char *path, const char *bid, const char *root, struct elfsym **out)
{
	return open_file(path, bid, root ?: "", NULL, out);
}

int elfsym_open_segs(const char *path, const char *bid, int *fd, struct elfsym **out)
{
	return open_file(path, bid, NULL, fd, out);
}

void elfsym_free(struct elfsym *f)
{
	if (!f)
		return;
	free(f->names);
	free(f->syms);
	free(f->segs);
	free(f);
}

const char *elfsym_bid(const struct elfsym *f)
{
	return f->bid;
}

bool elfsym_vaddr(const struct elfsym *f, __u64 off, __u64 *vaddr)
{
	size_t i;

	for (i = 0; i < f->nsegs; i++) {
		if (off >= f->segs[i].off && off < f->segs[i].off + f->segs[i].filesz) {
			*vaddr = off - f->segs[i].off + f->segs[i].vaddr;
			return true;
		}
	}
	return false;
}

const char *elfsym_find(const struct elfsym *f, __u64 vaddr, __u64 *off)
{
	size_t lo = 0, hi = f->nsyms, mid;
	const struct fsym *s;

	while (lo < hi) {
		mid = lo + (hi - lo) / 2;
		if (f->syms[mid].addr <= vaddr)
			lo = mid + 1;
		else
			hi = mid;
	}
	if (!lo || vaddr >= f->syms[lo - 1].end)
		return NULL;
	s = &f->syms[lo - 1];
	*off = vaddr - s->addr;
	return f->names + s->name;
}

bool elfsym_offset(const struct elfsym *f, __u64 vaddr, __u64 *off)
{
	size_t i;

	for (i = 0; i < f->nsegs; i++) {
		if (vaddr >= f->segs[i].vaddr && vaddr < f->segs[i].vaddr + f->segs[i].filesz) {
			*off = vaddr - f->segs[i].vaddr + f->segs[i].off;
			return true;
		}
	}
	return false;
}

int elfsym_each(const struct elfsym *f, elfsym_fn fn, void *ctx)
{
	size_t i;
	int err = 0;

	for (i = 0; i < f->nsyms && !err; i++)
		err = fn(f->names + f->syms[i].name, f->syms[i].addr,
			 f->syms[i].end - f->syms[i].addr, ctx);
	return err;
}
