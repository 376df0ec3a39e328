/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * The kernel's DWARF: finding a vmlinux with debug info that matches a
 * recorded kernel, and opening it for symbolize.c and inlines.c.
 */
#ifndef KP_DEBUGINFO_H
#define KP_DEBUGINFO_H

#include <limits.h>
#include <stdbool.h>
#include <stddef.h>
#include <elfutils/libdw.h>
#include <elfutils/libdwfl.h>
#include <linux/types.h>

struct debuginfo;

/*
 * Locate a vmlinux with DWARF for the kernel of this release and build id
 * (hex; NULL or "" when unknown, release NULL when unknown).  explicit_path,
 * when given, is the only candidate; otherwise the build-id path under
 * /usr/lib/debug/.build-id, then (no sysroot) the one of kernel-build.sh,
 * ${XDG_CACHE_HOME:-~/.cache}/kprotperf/debug/.build-id, then
 * /usr/lib/debug/boot/vmlinux-RELEASE,
 * /boot/vmlinux-RELEASE and /lib/modules/RELEASE/build/vmlinux are tried.  A
 * candidate must have .debug_info and, when the build id is known, carry the
 * same one.  Returns 0 with the path in out; -ENOENT when no candidate fits;
 * for explicit_path: -ESTALE when its build id differs (out still holds the
 * path), -ENODATA when it has no DWARF, -ENOEXEC when it is no ELF file,
 * -errno when it cannot be read.
 */
int debuginfo_find(const char *release, const char *build_id_hex, const char *explicit_path,
		   char *out, size_t len);
/*
 * The same, with the searched paths under sysroot (NULL or "": /), as when
 * the debug package of a recording's kernel is unpacked elsewhere.
 * explicit_path is taken as given.
 */
int debuginfo_find_sysroot(const char *sysroot, const char *release, const char *build_id_hex,
			   const char *explicit_path, char *out, size_t len);
/*
 * The DWARF of the ELF file at path (vmlinux, or a relocatable object such as
 * a module, whose relocations are applied), kept open for the queries below.
 * -ENODATA when it has none, -ENOEXEC when no ELF file, else -errno.
 */
int debuginfo_open(struct debuginfo **out, const char *path);
/*
 * debuginfo_find_sysroot() and debuginfo_open() of the file it finds in
 * one: the file is opened once, checked and read on that descriptor.
 * *di NULL on failure, with debuginfo_find_sysroot()'s errors or
 * debuginfo_open()'s.
 */
struct debuginfo_skip;
int debuginfo_find_open(struct debuginfo **di, const char *sysroot, const char *release,
			const char *build_id_hex, const char *explicit_path, char *out, size_t len,
			struct debuginfo_skip *skip);
/*
 * A debug file found at its build id's path but not used (skip of
 * debuginfo_find_open(), NULL: not asked): the first one refused, or the
 * one found whose DWARF libdw could not read (-EBADMSG); err 0: none.
 */
struct debuginfo_skip {
	char path[PATH_MAX];
	int err;
};

/* Why a debug file was skipped, as a clause: "another build: ...". */
const char *debuginfo_skip_why(int err);
/*
 * debuginfo_open() of the file at path already open at fd, which is taken
 * (closed on failure, with the debuginfo otherwise), so that a caller that
 * read the file's segments need not open it again.
 */
int debuginfo_open_elf(struct debuginfo **out, const char *path, int fd);
void debuginfo_close(struct debuginfo *di);
/*
 * The open DWARF, for readers such as symbolize.c and inlines.c.  DWARF
 * addresses are the file's link-time addresses; *bias (0 for vmlinux) is
 * what libdwfl added to lay the module out.
 */
Dwarf *debuginfo_dwarf(struct debuginfo *di, Dwarf_Addr *bias);
Dwfl_Module *debuginfo_module(struct debuginfo *di);
/*
 * The link-time address of the ELF symbol name, e.g. _stext: a recorded
 * runtime _stext minus it is the KASLR slide.  -ENOENT when absent.
 */
int debuginfo_symbol(struct debuginfo *di, const char *name, __u64 *addr);
/*
 * What err from debuginfo_find() or debuginfo_open() means for the file at
 * path, as one clause into why; release (NULL when unknown) names the
 * debug package to install.
 */
void debuginfo_explain(int err, const char *path, const char *release, char *why, size_t len);
/* The name of a function or inlined instance DIE, from its abstract origin if need be. */
const char *debuginfo_die_name(Dwarf_Die *die);
/*
 * The call site of the inlined instance die into *file and *line, each left
 * as it is when unknown.  files (NULL: looked up) is the line table of die's
 * unit, which DW_AT_call_file indexes.
 */
void debuginfo_call_site(Dwarf_Die *die, Dwarf_Files *files, size_t nfiles, const char **file,
			 int *line);
#endif
