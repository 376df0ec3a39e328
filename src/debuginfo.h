/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * The kernel's DWARF: finding a vmlinux with debug info that matches a
 * recorded kernel, and asking it about functions kallsyms cannot show, such
 * as those the compiler inlined into every caller.
 */
#ifndef KP_DEBUGINFO_H
#define KP_DEBUGINFO_H

#include <stdbool.h>
#include <stddef.h>
#include <elfutils/libdw.h>
#include <elfutils/libdwfl.h>
#include <linux/types.h>

/* Callers kept in an inline_summary; enough to name them in a message. */
#define DEBUGINFO_MAX_CALLERS 4

struct debuginfo;

/* One function an inline instance was expanded into, and where its first such call is. */
struct inline_caller {
	const char *name;      /* the out-of-line function holding the instance */
	const char *call_file; /* source of the call site, NULL when unknown */
	int call_line;	       /* 0 when unknown */
};

/*
 * How function name exists in the DWARF.  Strings point into the open
 * debuginfo and stay valid until debuginfo_close().
 */
struct inline_summary {
	bool out_of_line;	       /* a copy with its own code exists (it may be traced) */
	unsigned int inline_instances; /* DW_TAG_inlined_subroutine expansions of it */
	/*
	 * Out-of-line functions holding at least one instance; compiler clones
	 * (.isra, .constprop) of one function count separately, so it may
	 * exceed the distinct names in callers[].
	 */
	unsigned int nr_callers;
	unsigned int ncallers; /* entries filled in callers[]: distinct names */
	struct inline_caller callers[DEBUGINFO_MAX_CALLERS];
	const char *decl_file; /* where the function is defined, NULL when unknown */
	int decl_line;
};

/*
 * Locate a vmlinux with DWARF for the kernel of this release and build id
 * (hex; NULL or "" when unknown, release NULL when unknown).  explicit_path,
 * when given, is the only candidate; otherwise the build-id path under
 * /usr/lib/debug/.build-id, then /usr/lib/debug/boot/vmlinux-RELEASE,
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
 * Whether the function called name has a copy of its own, how many times it
 * was inlined and into which functions.  -ENOENT when no function of that
 * name is defined in the DWARF.
 */
int debuginfo_inlined(struct debuginfo *di, const char *name, struct inline_summary *out);

#endif
