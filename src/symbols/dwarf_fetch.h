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
#include <elfutils/libdw.h>
#include <linux/types.h>

#include "blocks_layout.h"

struct debuginfo;

/*
 * Where member m (of type, its DIE) lies in its struct, in bits: DWARF 5's
 * DW_AT_data_bit_offset, or DW_AT_data_member_location with, for a DWARF 4
 * bitfield, DW_AT_bit_offset counting from the most significant bit of its
 * storage unit of DW_AT_byte_size bytes (on x86 the lowest-addressed byte is
 * the least significant).  *unit: the bytes of its type (0: a flexible
 * array), *bits its bitfield width (0: none).  -ENOENT when its location is
 * no constant (a virtual base's expression).
 */
int dwarf_member_bits(Dwarf_Die *m, Dwarf_Die *type, __u64 *start, __u64 *unit, __u64 *bits);

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
