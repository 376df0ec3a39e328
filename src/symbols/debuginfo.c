/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * The kernel's DWARF, read with libdw through libdwfl's offline mode.
 *
 * libdwfl rather than a bare dwarf_begin: it applies the relocations of
 * ET_REL files, so kernel modules read the same way as vmlinux, and its
 * address queries (DIEs, source lines) are what symbolize.c and inlines.c
 * need.
 */
#include "symbols/debuginfo.h"

#include <ctype.h>
#include <errno.h>
#include <fcntl.h>
#include <gelf.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <unistd.h>
#include <sys/stat.h>
#include <dwarf.h>
#include <elfutils/libdw.h>
#include <elfutils/libdwfl.h>

#include "symbols/debug_plain.h"
#include "symbols/elfsym.h"
#include "util/safeio.h"

#define DEBUG_DIR "/usr/lib/debug"

struct debuginfo {
	Dwfl *dwfl;
	Dwfl_Module *mod;
	Dwarf *dw;
	Dwarf_Addr bias; /* DWARF addresses + bias = addresses as libdwfl laid the file out */
};

/* Whether the ELF file e carries DWARF: 0 or -ENODATA. */
static int elf_has_debug_info(Elf *e)
{
	Elf_Scn *scn = NULL;
	const char *name;
	size_t shstrndx;
	GElf_Shdr sh;

	if (elf_getshdrstrndx(e, &shstrndx))
		return -ENODATA;
	while ((scn = elf_nextscn(e, scn))) {
		if (!gelf_getshdr(scn, &sh))
			continue;
		name = elf_strptr(e, shstrndx, sh.sh_name);
		/* a stripped file keeps the section header but as NOBITS */
		if (name && sh.sh_type != SHT_NOBITS && sh.sh_size &&
		    (!strcmp(name, ".debug_info") || !strcmp(name, ".zdebug_info")))
			return 0;
	}
	return -ENODATA;
}

/* 0 when e has DWARF and, if bid is known, that build id. */
static int elf_fits(Elf *e, const char *bid)
{
	char hex[ELFSYM_BID_HEX];
	int err = elf_has_debug_info(e);

	if (err || !bid || !*bid)
		return err;
	elfsym_elf_build_id(e, hex, sizeof(hex));
	/* a file without a build id cannot be shown to be the recorded kernel */
	return strcasecmp(hex, bid) ? -ESTALE : 0;
}

/*
 * Open path and check that it has DWARF and, if bid is known, that build
 * id: 0, -ENODATA, -ESTALE, -ENOEXEC when not ELF, or -errno.  The one
 * open of the file: with fd, its descriptor is kept there for libdwfl.
 */
static int check_candidate(const char *path, const char *bid, int *fd)
{
	struct stat st;
	int f, err;
	Elf *e;

	if (elf_version(EV_CURRENT) == EV_NONE)
		return -ENOTSUP;
	/* --vmlinux names anything: a FIFO must not block the open, a device be read */
	f = safeio_open_regular(path, &st, NULL, 0);
	if (f < 0)
		return f == -EINVAL ? -EISDIR : f;
	e = elf_begin(f, ELF_C_READ_MMAP, NULL);
	err = e && elf_kind(e) == ELF_K_ELF ? elf_fits(e, bid) : -ENOEXEC;
	elf_end(e);
	if (!err && fd)
		*fd = f;
	else
		close(f);
	return err;
}

/* dir/xx/rest.debug for bid, lower case as the debug packages install it. */
static int build_id_path(const char *dir, const char *bid, char *out, size_t len)
{
	size_t i, n = strlen(bid), skip = strlen(dir);
	int ret;

	if (n < 3 || n > ELFSYM_BID_HEX - 1 || strchr(bid, '/'))
		return -EINVAL;
	ret = snprintf(out, len, "%s/%.2s/%s.debug", dir, bid, bid + 2);
	if (ret < 0 || (size_t)ret >= len)
		return -ENAMETOOLONG;
	for (i = skip; out[i]; i++)
		out[i] = tolower((unsigned char)out[i]);
	return 0;
}

/*
 * The build-id directories: the system's, then (without a sysroot) the one
 * scripts/kernel-build.sh files its kernels' vmlinux files in, so that a
 * kernel built for the VM needs no --vmlinux.
 */
/*
 * check_candidate(), a file there but refused (another build, no ELF, no
 * DWARF) told in skip when it is the first.
 */
static int try_candidate(const char *path, const char *bid, int *fd, struct debuginfo_skip *skip)
{
	int err = check_candidate(path, bid, fd);

	if (err && err != -ENOENT && skip && !skip->err) {
		snprintf(skip->path, sizeof(skip->path), "%s", path);
		skip->err = err;
	}
	return err;
}

/* The inflated copy of bid's debug file an earlier command kept (debug_plain.h), at fd. */
static int plain_candidate(const char *bid, char *out, size_t len, int *fd)
{
	char dir[PATH_MAX];

	if (debug_plain_dir(dir, sizeof(dir)) || build_id_path(dir, bid, out, len))
		return -ENOENT;
	return check_candidate(out, bid, fd);
}

/*
 * bid's debug file, found at out and open at *fd: when its sections are
 * compressed, an inflated copy kept for the commands after this one, and
 * this one's *fd and out that copy's.  Nothing changes when it cannot be
 * written (no cache, a full disk, a folder of someone else's).
 */
static void keep_plain(const char *bid, char *out, size_t len, int *fd)
{
	char rel[ELFSYM_BID_HEX + 16], plain[PATH_MAX];
	int pfd;

	if (build_id_path("", bid, rel, sizeof(rel)) || debug_plain_write(*fd, rel + 1) ||
	    plain_candidate(bid, plain, sizeof(plain), &pfd))
		return;
	if (snprintf(out, len, "%s", plain) >= (int)len) {
		close(pfd);
		return;
	}
	close(*fd);
	*fd = pfd;
}

static int find_by_build_id(const char *root, const char *bid, char *out, size_t len, int *fd,
			    struct debuginfo_skip *skip)
{
	const char *cache = getenv("XDG_CACHE_HOME"), *home = getenv("HOME");
	char dir[PATH_MAX];
	int ret;

	/* a file opened for its DWARF, without a sysroot: an inflated copy first */
	if (fd && !*root && !plain_candidate(bid, out, len, fd))
		return 0;
	ret = snprintf(dir, sizeof(dir), "%s" DEBUG_DIR "/.build-id", root);
	if (ret > 0 && (size_t)ret < sizeof(dir) && !build_id_path(dir, bid, out, len) &&
	    !try_candidate(out, bid, fd, skip)) {
		if (fd && !*root)
			keep_plain(bid, out, len, fd);
		return 0;
	}
	if (*root || (!(cache && *cache) && !(home && *home)))
		return -ENOENT;
	if (cache && *cache)
		ret = snprintf(dir, sizeof(dir), "%s/kprotperf/debug/.build-id", cache);
	else
		ret = snprintf(dir, sizeof(dir), "%s/.cache/kprotperf/debug/.build-id", home);
	if (ret > 0 && (size_t)ret < sizeof(dir) && !build_id_path(dir, bid, out, len) &&
	    !try_candidate(out, bid, fd, skip))
		return 0;
	return -ENOENT;
}

static int release_path(const char *root, const char *fmt, const char *release, char *out,
			size_t len)
{
	int ret;

	if (!release || !*release || strchr(release, '/'))
		return -EINVAL;
	ret = snprintf(out, len, "%s", root);
	if (ret >= 0 && (size_t)ret < len)
		ret += snprintf(out + ret, len - ret, fmt, release);
	return ret < 0 || (size_t)ret >= len ? -ENAMETOOLONG : 0;
}

/* debuginfo_find_sysroot(), the file found kept open in *fd unless fd is NULL. */
static int find(const char *root, const char *release, const char *bid, const char *explicit_path,
		char *out, size_t len, int *fd, struct debuginfo_skip *skip)
{
	static const char *const by_release[] = {
		DEBUG_DIR "/boot/vmlinux-%s",
		"/boot/vmlinux-%s",
		"/lib/modules/%s/build/vmlinux",
	};
	size_t i;
	int ret;

	if (!len)
		return -EINVAL;
	if (explicit_path) {
		ret = snprintf(out, len, "%s", explicit_path);
		if (ret < 0 || (size_t)ret >= len)
			return -ENAMETOOLONG;
		return check_candidate(out, bid, fd);
	}
	if (bid && !find_by_build_id(root, bid, out, len, fd, skip))
		return 0;
	for (i = 0; i < sizeof(by_release) / sizeof(by_release[0]); i++) {
		if (!release_path(root, by_release[i], release, out, len) &&
		    !check_candidate(out, bid, fd))
			return 0;
	}
	out[0] = '\0';
	return -ENOENT;
}

int debuginfo_find_sysroot(const char *sysroot, const char *release, const char *build_id_hex,
			   const char *explicit_path, char *out, size_t len)
{
	return find(sysroot ?: "", release, build_id_hex, explicit_path, out, len, NULL, NULL);
}

int debuginfo_find(const char *release, const char *build_id_hex, const char *explicit_path,
		   char *out, size_t len)
{
	return debuginfo_find_sysroot(NULL, release, build_id_hex, explicit_path, out, len);
}

/*
 * The file opened is the one with the DWARF: libdwfl must not go looking for
 * another, least of all download one through debuginfod on an error path.
 */
static int no_other_file(Dwfl_Module *mod, void **userdata, const char *modname, Dwarf_Addr base,
			 const char *file_name, const char *debuglink_file, GElf_Word debuglink_crc,
			 char **debuginfo_file_name)
{
	return -1;
}

static const Dwfl_Callbacks offline_callbacks = {
	.find_debuginfo = no_other_file,
	.section_address = dwfl_offline_section_address,
};

/* The label libdwfl gives the file in its messages and module lists. */
static const char *module_name(const char *path)
{
	const char *slash = strrchr(path, '/');

	return slash ? slash + 1 : path;
}

/* The DWARF of the checked file open at fd, which libdwfl takes (and closes, even on failure). */
static int open_fd(struct debuginfo **out, const char *path, int fd)
{
	struct debuginfo *di = calloc(1, sizeof(*di));
	int err = -EINVAL;

	if (!di) {
		close(fd);
		return -ENOMEM;
	}
	di->dwfl = dwfl_begin(&offline_callbacks);
	if (!di->dwfl) {
		close(fd);
		goto err_free;
	}
	/* consumed on success only (libdwfl.h): nothing is opened in between to reuse it */
	di->mod = dwfl_report_offline(di->dwfl, module_name(path), path, fd);
	if (!di->mod)
		close(fd);
	if (!di->mod || dwfl_report_end(di->dwfl, NULL, NULL))
		goto err_end;
	di->dw = dwfl_module_getdwarf(di->mod, &di->bias);
	if (!di->dw)
		goto err_end;
	*out = di;
	return 0;

err_end:
	dwfl_end(di->dwfl);
err_free:
	free(di);
	return err;
}

int debuginfo_open(struct debuginfo **out, const char *path)
{
	int fd, err;

	*out = NULL;
	/* libdwfl reports no reason for failing, so first tell "no DWARF" apart */
	err = check_candidate(path, NULL, &fd);
	return err ?: open_fd(out, path, fd);
}

/*
 * Whether the first unit header of dw reads: libdw opens garbled DWARF
 * without a word and then finds nothing at any address, which would pass
 * for a file without inline frames.  Deeper damage is not looked for.
 */
static bool first_unit_reads(Dwarf *dw)
{
	Dwarf_Off next;
	Dwarf_Half version;
	size_t hsize;
	Dwarf_Die cu;

	return !dwarf_next_unit(dw, 0, &next, &hsize, &version, NULL, NULL, NULL, NULL, NULL) &&
	       version >= 2 && version <= 5 && dwarf_offdie(dw, hsize, &cu);
}

int debuginfo_find_open(struct debuginfo **di, const char *sysroot, const char *release,
			const char *build_id_hex, const char *explicit_path, char *out, size_t len,
			struct debuginfo_skip *skip)
{
	int fd, err;

	*di = NULL;
	err = find(sysroot ?: "", release, build_id_hex, explicit_path, out, len, &fd, skip);
	if (err)
		return err;
	err = open_fd(di, out, fd);
	if (!err && skip && !first_unit_reads((*di)->dw)) {
		debuginfo_close(*di);
		*di = NULL;
		err = -EINVAL;
	}
	/* found and checked, yet libdw could not read its DWARF */
	if (err == -EINVAL && skip && !skip->err) {
		snprintf(skip->path, sizeof(skip->path), "%s", out);
		skip->err = -EBADMSG;
	}
	return err;
}

const char *debuginfo_skip_why(int err)
{
	switch (err) {
	case -ESTALE:
		return "another build: its build id is not the recorded one";
	case -ENODATA:
		return "no DWARF in it, truncated?";
	case -ENOEXEC:
		return "not an ELF file";
	case -EBADMSG:
		return "its DWARF cannot be read, corrupt?";
	default:
		return strerror(-err);
	}
}

int debuginfo_open_elf(struct debuginfo **out, const char *path, int fd)
{
	struct stat st;
	int err;
	Elf *e;

	*out = NULL;
	if (elf_version(EV_CURRENT) == EV_NONE || fstat(fd, &st) || !S_ISREG(st.st_mode)) {
		close(fd);
		return -EINVAL;
	}
	e = elf_begin(fd, ELF_C_READ_MMAP, NULL);
	err = e && elf_kind(e) == ELF_K_ELF ? elf_has_debug_info(e) : -ENOEXEC;
	elf_end(e);
	if (err) {
		close(fd);
		return err;
	}
	return open_fd(out, path, fd);
}

void debuginfo_close(struct debuginfo *di)
{
	if (!di)
		return;
	dwfl_end(di->dwfl);
	free(di);
}

Dwarf *debuginfo_dwarf(struct debuginfo *di, Dwarf_Addr *bias)
{
	if (bias)
		*bias = di->bias;
	return di->dw;
}

Dwfl_Module *debuginfo_module(struct debuginfo *di)
{
	return di->mod;
}

int debuginfo_symbol(struct debuginfo *di, const char *name, __u64 *addr)
{
	int i, n = dwfl_module_getsymtab(di->mod);
	const char *s;
	GElf_Addr a;
	GElf_Sym sym;

	for (i = 1; i < n; i++) {
		s = dwfl_module_getsym_info(di->mod, i, &sym, &a, NULL, NULL, NULL);
		if (s && !strcmp(s, name)) {
			*addr = a - di->bias;
			return 0;
		}
	}
	return -ENOENT;
}

void debuginfo_explain(int err, const char *path, const char *release, char *why, size_t len)
{
	/* the -dbg package's name is shown even when the release is not known */
	release = release ?: "RELEASE";
	switch (err) {
	case -ESTALE:
		snprintf(why, len,
			 "%.200s is the vmlinux of another kernel build: its build-id "
			 "differs from the recorded kernel's (%s); give the one of the "
			 "recorded kernel with --vmlinux",
			 path, release);
		break;
	case -ENODATA:
		snprintf(why, len,
			 "%.200s has no DWARF debug info (install linux-image-%s-dbg, or "
			 "give its vmlinux with --vmlinux)",
			 path, release);
		break;
	case -ENOEXEC:
		snprintf(why, len, "%.200s is not an ELF file", path);
		break;
	case -EISDIR:
		snprintf(why, len, "%.200s is not a regular file: give a vmlinux file", path);
		break;
	default:
		snprintf(why, len, "%.200s: %s", path, strerror(-err));
	}
}

const char *debuginfo_die_name(Dwarf_Die *die)
{
	Dwarf_Attribute attr;

	/* instances and out-of-line copies have their names in the abstract DIE */
	return dwarf_formstring(dwarf_attr_integrate(die, DW_AT_name, &attr));
}

void debuginfo_call_site(Dwarf_Die *die, Dwarf_Files *files, size_t nfiles, const char **file,
			 int *line)
{
	Dwarf_Attribute attr;
	Dwarf_Die cu;
	Dwarf_Word w;

	if (!files &&
	    (!dwarf_diecu(die, &cu, NULL, NULL) || dwarf_getsrcfiles(&cu, &files, &nfiles)))
		files = NULL;
	if (files && !dwarf_formudata(dwarf_attr(die, DW_AT_call_file, &attr), &w) && w < nfiles)
		*file = dwarf_filesrc(files, w, NULL, NULL);
	if (!dwarf_formudata(dwarf_attr(die, DW_AT_call_line, &attr), &w))
		*line = (int)w;
}
