// SPDX-License-Identifier: GPL-2.0-only
/* A function's text from /proc/kcore or from the vmlinux file (ktext.h). */
#include "analysis/ktext.h"

#include <elf.h>
#include <errno.h>
#include <fcntl.h>
#include <gelf.h>
#include <libelf.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "util/safeio.h"

/* segments kcore has: a few per memory range; more means a corrupt file */
#define MAX_PHDRS 4096

static int read_at(int fd, void *buf, size_t len, off_t off)
{
	ssize_t n = pread(fd, buf, len, off);

	if (n < 0)
		return -errno;
	return (size_t)n == len ? 0 : -EIO;
}

/* The program header holding [addr, addr + len), into *ph. */
static int find_load(int fd, const Elf64_Ehdr *eh, __u64 addr, size_t len, Elf64_Phdr *ph)
{
	unsigned int i;
	int err;

	for (i = 0; i < eh->e_phnum; i++) {
		err = read_at(fd, ph, sizeof(*ph), eh->e_phoff + (off_t)i * eh->e_phentsize);
		if (err)
			return err;
		if (ph->p_type == PT_LOAD && addr >= ph->p_vaddr && len <= ph->p_filesz &&
		    addr - ph->p_vaddr <= ph->p_filesz - len)
			return 0;
	}
	return -ENOENT;
}

int ktext_kcore(const char *path, __u64 addr, void *buf, size_t len)
{
	Elf64_Ehdr eh;
	Elf64_Phdr ph;
	int fd = open(path, O_RDONLY | O_CLOEXEC), err;

	if (fd < 0)
		return -errno;
	err = read_at(fd, &eh, sizeof(eh), 0);
	if (err == -EIO ||
	    (!err && (memcmp(eh.e_ident, ELFMAG, SELFMAG) || eh.e_ident[EI_CLASS] != ELFCLASS64 ||
		      eh.e_type != ET_CORE || eh.e_phentsize != sizeof(Elf64_Phdr) ||
		      eh.e_phnum > MAX_PHDRS)))
		err = -ENOEXEC;
	err = err ?: find_load(fd, &eh, addr, len, &ph);
	err = err ?: read_at(fd, buf, len, ph.p_offset + (addr - ph.p_vaddr));
	close(fd);
	return err;
}

/* The link-time address of the symbol name, 0 when there is none. */
static __u64 elf_symbol(Elf *elf, const char *name)
{
	Elf_Scn *scn = NULL;
	GElf_Shdr sh;
	GElf_Sym sym;
	Elf_Data *d;
	size_t i;

	while ((scn = elf_nextscn(elf, scn))) {
		if (!gelf_getshdr(scn, &sh) || sh.sh_type != SHT_SYMTAB || !sh.sh_entsize)
			continue;
		d = elf_getdata(scn, NULL);
		for (i = 0; d && i < sh.sh_size / sh.sh_entsize; i++) {
			const char *n;

			if (!gelf_getsym(d, i, &sym))
				break;
			n = elf_strptr(elf, sh.sh_link, sym.st_name);
			if (n && !strcmp(n, name))
				return sym.st_value;
		}
	}
	return 0;
}

/* Copy [vaddr, vaddr + len) from the section holding it. */
static int elf_copy(Elf *elf, __u64 vaddr, void *buf, size_t len)
{
	Elf_Scn *scn = NULL;
	GElf_Shdr sh;
	Elf_Data *d;

	while ((scn = elf_nextscn(elf, scn))) {
		if (!gelf_getshdr(scn, &sh) || sh.sh_type != SHT_PROGBITS ||
		    !(sh.sh_flags & SHF_ALLOC) || vaddr < sh.sh_addr || len > sh.sh_size ||
		    vaddr - sh.sh_addr > sh.sh_size - len)
			continue;
		d = elf_getdata(scn, NULL);
		if (!d || !d->d_buf || d->d_size != sh.sh_size)
			return -EIO;
		memcpy(buf, (const char *)d->d_buf + (vaddr - sh.sh_addr), len);
		return 0;
	}
	return -ENOENT;
}

int ktext_vmlinux(const char *path, __u64 stext, __u64 addr, void *buf, size_t len)
{
	struct stat st;
	/* --vmlinux names anything: a FIFO must not block the open, a device be read */
	int fd = safeio_open_regular(path, &st, NULL, 0), err = -ENOEXEC;
	Elf *elf;
	__u64 link;

	if (fd < 0)
		return fd == -EINVAL ? -ENOEXEC : fd;
	elf_version(EV_CURRENT);
	elf = elf_begin(fd, ELF_C_READ_MMAP, NULL);
	link = elf && elf_kind(elf) == ELF_K_ELF ? elf_symbol(elf, "_stext") : 0;
	if (link)
		err = elf_copy(elf, addr - (stext - link), buf, len);
	elf_end(elf);
	close(fd);
	return err;
}
