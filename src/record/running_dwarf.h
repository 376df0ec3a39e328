/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * The running kernel's DWARF, for record --func on inlined functions and
 * record --blocks: the vmlinux given (--vmlinux) or found by this kernel's
 * release and build id (symbols/debuginfo.h), and the KASLR slide that
 * moves its addresses to the running ones.
 */
#ifndef KP_RUNNING_DWARF_H
#define KP_RUNNING_DWARF_H

#include <stddef.h>
#include <linux/types.h>

struct debuginfo;
struct ksyms;

/*
 * Open it into *di, its path into path and the slide (running minus
 * link-time addresses, from _stext in ks; 0 without it) into *slide:
 * -errno as debuginfo_find() and debuginfo_open() give it.
 */
int running_dwarf_open(struct debuginfo **di, __s64 *slide, const char *vmlinux,
		       const struct ksyms *ks, char *path, size_t plen);

#endif
