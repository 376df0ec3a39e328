/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * Variables of the kernel's DWARF at an address, as record --blocks needs
 * them: read by a probe there (a DWARF location turned into a kp_fetch
 * program of the registers the probe saved), and named (which variable a
 * register holds, and which struct member a load from it reads), so that a
 * loop's bound reads "slab->objects" rather than "%r15 + 0x2a".
 */
#ifndef KP_DWARF_FETCH_H
#define KP_DWARF_FETCH_H

#include <stddef.h>
#include <linux/types.h>

#include "blocks_layout.h"

struct debuginfo;

/*
 * The variable or parameter in scope at pc (link-time; innermost scope
 * first: an inline instance's own parameters before its caller's) whose
 * type is a pointer to struct type_name and whose location at pc is a
 * register, or memory at a register plus an offset, into *out as a fetch
 * program of the registers at pc, its name into name.  -ENOENT when none
 * has such a location at pc (a frame-base or entry-value location is
 * none), -ENODATA when di has no scope at pc.
 */
int dwarf_fetch_pointer_to(struct debuginfo *di, __u64 pc, const char *type_name,
			   struct kp_fetch *out, char *name, size_t len);

/*
 * The name of the variable or parameter whose location at pc (link-time)
 * is the register reg (enum kp_fetch_reg), innermost scope first, into
 * name; its type's DWARF offset into *type_die (0 when it has none), for
 * dwarf_fetch_member().  -ENOENT when no variable is there.
 */
int dwarf_fetch_reg_name(struct debuginfo *di, __u64 pc, int reg, char *name, size_t len,
			 __u64 *type_die);

/*
 * The member of the struct that the pointer type at type_die points to
 * (typedefs and qualifiers looked through) covering bits [bit, bit + bits)
 * from the struct's start, into name ("objects"; a member of an anonymous
 * union or struct by its own name; a nested struct's as "oo.x"); bits 0:
 * the member that starts at bit and any size.  -ENOENT when no member fits
 * exactly.
 */
int dwarf_fetch_member(struct debuginfo *di, __u64 type_die, __u64 bit, __u64 bits, char *name,
		       size_t len);

#endif
