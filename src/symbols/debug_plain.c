// SPDX-License-Identifier: GPL-2.0-only
/* Debug files kept inflated (debug_plain.h). */
#include "symbols/debug_plain.h"

#include <errno.h>
#include <fcntl.h>
#include <gelf.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <sys/stat.h>

#include "util/safeio.h"

/* a file larger than this is opened as it is (a kernel's debug vmlinux) */
#define PLAIN_SRC_MAX (64 << 20)

int debug_plain_dir(char *out, size_t len)
{
	const char *cache = getenv("XDG_CACHE_HOME"), *home = getenv("HOME");
	int n;

	if (cache && *cache)
		n = snprintf(out, len, "%s/kprotperf/debug/plain", cache);
	else if (home && *home)
		n = snprintf(out, len, "%s/.cache/kprotperf/debug/plain", home);
	else
		return -ENOENT;
	return n < 0 || (size_t)n >= len ? -ENAMETOOLONG : 0;
}

/* Whether a section of e is compressed (SHF_COMPRESSED: what gcc -gz and dwz leave). */
static bool compressed(Elf *e)
{
	Elf_Scn *scn = NULL;
	GElf_Shdr sh;

	while ((scn = elf_nextscn(e, scn)))
		if (gelf_getshdr(scn, &sh) && (sh.sh_flags & SHF_COMPRESSED))
			return true;
	return false;
}

/* src's section scn, inflated, as a new section of dst: 0 or -EIO. */
static int copy_section(Elf *dst, Elf_Scn *scn)
{
	Elf_Data *in = NULL, *out;
	Elf_Scn *to;
	GElf_Shdr sh;

	if (!gelf_getshdr(scn, &sh))
		return -EIO;
	if ((sh.sh_flags & SHF_COMPRESSED) &&
	    (elf_compress(scn, 0, 0) < 0 || !gelf_getshdr(scn, &sh)))
		return -EIO;
	to = elf_newscn(dst);
	if (!to)
		return -EIO;
	while ((in = elf_getdata(scn, in))) {
		out = elf_newdata(to);
		if (!out)
			return -EIO;
		out->d_buf = in->d_buf;
		out->d_size = in->d_size;
		out->d_type = in->d_type;
		out->d_align = in->d_align;
		out->d_version = in->d_version;
	}
	return gelf_update_shdr(to, &sh) ? 0 : -EIO;
}

/* src, its sections inflated, written to out (libelf lays the file out anew): 0 or -EIO. */
static int inflate_into(Elf *src, int out)
{
	Elf *dst = elf_begin(out, ELF_C_WRITE, NULL);
	Elf_Scn *scn = NULL;
	size_t nph, i;
	GElf_Ehdr eh;
	GElf_Phdr ph;
	int err = -EIO;

	if (!dst || !gelf_getehdr(src, &eh) || !gelf_newehdr(dst, gelf_getclass(src)) ||
	    elf_getphdrnum(src, &nph))
		goto out;
	if (nph && !gelf_newphdr(dst, nph))
		goto out;
	for (i = 0; i < nph; i++)
		if (!gelf_getphdr(src, i, &ph) || !gelf_update_phdr(dst, i, &ph))
			goto out;
	err = 0;
	while (!err && (scn = elf_nextscn(src, scn)))
		err = copy_section(dst, scn);
	if (!err && (!gelf_update_ehdr(dst, &eh) || elf_update(dst, ELF_C_WRITE) < 0))
		err = -EIO;
out:
	elf_end(dst);
	return err;
}

/*
 * The plain folder's subfolder sub (the build id's first two digits),
 * made when absent, none of it a link, and no one else's to write: fd or
 * -errno.
 */
static int plain_subdir(const char *sub)
{
	static const char *const parts[] = {"kprotperf", "debug", "plain"};
	char dir[4096], *end;
	int fd, next, i;
	struct stat st;

	if (debug_plain_dir(dir, sizeof(dir)))
		return -ENOENT;
	end = strstr(dir, "/kprotperf/debug/plain");
	*end = '\0';
	if (mkdir(dir, 0700) && errno != EEXIST)
		return -errno;
	fd = open(dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	if (fd < 0)
		return -errno;
	for (i = 0; i < 4 && fd >= 0; i++) {
		next = safeio_subdir(fd, i < 3 ? parts[i] : sub);
		close(fd);
		fd = next;
	}
	if (fd >= 0 && (fstat(fd, &st) || (st.st_uid && st.st_uid != geteuid()) ||
			(st.st_mode & (S_IWGRP | S_IWOTH)))) {
		close(fd);
		fd = -EPERM;
	}
	return fd;
}

/* safeio_write_fd's fill: the file open for writing at out, src inflated */
static int fill_inflated(int out, void *src)
{
	return inflate_into(src, out);
}

int debug_plain_write(int fd, const char *rel)
{
	const char *name = strchr(rel, '/');
	char sub[8];
	struct stat st;
	int dirfd, err;
	Elf *src;

	if (!name || name - rel >= (int)sizeof(sub) || strchr(name + 1, '/'))
		return -EINVAL;
	if (fstat(fd, &st) || !S_ISREG(st.st_mode) || st.st_size > PLAIN_SRC_MAX)
		return -EFBIG;
	/* private: inflating a section writes into the mapping, never into the file */
	src = elf_begin(fd, ELF_C_READ_MMAP_PRIVATE, NULL);
	if (!src || elf_kind(src) != ELF_K_ELF || !compressed(src)) {
		elf_end(src);
		return -ENODATA;
	}
	snprintf(sub, sizeof(sub), "%.*s", (int)(name - rel), rel);
	dirfd = plain_subdir(sub);
	err = dirfd < 0 ? dirfd : safeio_write_fd(dirfd, name + 1, 0644, fill_inflated, src);
	if (dirfd >= 0)
		close(dirfd);
	elf_end(src);
	return err;
}
