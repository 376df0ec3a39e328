/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * A named type's layout from DWARF, as pahole shows it: its members with
 * their offsets and sizes, bitfields, the holes between members, the
 * padding at the end and the cache lines they fall on.  For features
 * --layout (one build, or two side by side: RANDSTRUCT moves members) and
 * for annotate --model --data-type, which lays counts onto the members.
 */
#ifndef KP_LAYOUT_H
#define KP_LAYOUT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>
#include <elfutils/libdw.h>
#include <linux/types.h>

struct debuginfo;
struct json;

#define LAYOUT_CACHELINE 64

/*
 * One member.  Members of an anonymous struct or union are listed in its
 * place under their own names, as the naming of accesses has them (no
 * name component for the anonymous one; RANDSTRUCT wraps task_struct's
 * fields in one): depth says how deep, union_depth how many of those are
 * unions, whose members overlap.
 */
struct layout_member {
	char *name;	    /* "se", "comm" */
	char *type;	    /* as C spells it: "struct sched_entity", "char[16]" */
	__u64 offset;	    /* bytes from the type's start; a bitfield's storage unit's */
	__u64 size;	    /* bytes; a bitfield's storage unit's */
	__u32 bit_offset;   /* a bitfield's first bit within its unit at offset */
	__u32 bit_size;	    /* a bitfield's bits; 0: no bitfield */
	__u32 bit_hole;	    /* unused bits after it up to a byte (pahole's "XXX N bits hole") */
	__u64 hole;	    /* then unused bytes before the next member starts */
	unsigned int depth; /* anonymous structs and unions it is inside */
	bool in_union;	    /* directly inside an anonymous union */
	bool unplaced;	    /* code_offsets: none known (a bitfield); listed last */
	Dwarf_Off type_off; /* its type's DIE (global offset), to look inside it */
};

struct layout {
	char *type;    /* "struct task_struct", "spinlock_t" (a typedef of an anonymous one) */
	char *file;    /* the ELF file it was read from */
	__u64 size;    /* bytes */
	bool is_union; /* its members overlap */
	/*
	 * Its unit was compiled with GCC's randstruct plugin, whose DWARF
	 * keeps a randomized struct's declared layout (6.1's rand build: all
	 * 699 units put task_struct's comm at 1512, the code at 1880): the
	 * offsets here may then not be those the code uses.
	 */
	bool randstruct_plugin;
	/*
	 * With it, the offsets the code uses where the file's folder has
	 * them (kernel-build.sh's randstruct.offsets, asked of the compiler):
	 * their path; the members sorted by them.  NULL: DWARF's.
	 */
	char *code_offsets;
	struct layout_member *members;
	size_t n;
	/* pahole's summary: */
	__u64 sum_members; /* bytes of the members' sizes, bitfields once per unit */
	unsigned int holes;
	__u64 hole_bytes;
	unsigned int bit_holes;
	__u64 hole_bits; /* of the bit holes */
	__u64 padding;	 /* bytes after the last member's end */
};

/*
 * The layout of the type named name in di's DWARF: "task_struct" (a struct,
 * union or typedef of that name), "struct task_struct", "union foo", or a
 * typedef ("spinlock_t": the layout of what it names).  The first complete
 * definition in the file's units is taken.  -ENOENT when there is none:
 * closest (when not NULL) gets the closest name of that kind by edit
 * distance ("" when none); -ENOMEM.  file names di's file in the layout.
 */
int layout_find(struct debuginfo *di, const char *file, const char *name, struct layout **out,
		char *closest, size_t len);
/*
 * The layout of the struct, union or typedef at die; of a unit built by
 * GCC's randstruct plugin, with the offsets its code uses when file (the
 * ELF file it was read from) has them beside it (code_offsets).
 */
int layout_of_die(Dwarf_Die *die, const char *file, struct layout **out);
void layout_free(struct layout *l);

/* The type at die as C spells it into buf: "struct task_struct", "char[16]", "u64 *". */
void layout_type_name(Dwarf_Die *die, char *buf, size_t len);

/* The member named name (a top-level name, as listed), or NULL. */
const struct layout_member *layout_member_named(const struct layout *l, const char *name);
/*
 * The member covering byte offset of the type (the first listed: of a
 * union's members, the first), or NULL: in a hole, the padding, or a
 * bitfield without a known offset.  With code_offsets, where the code
 * has it: a resolver naming an access by its offset on a RANDSTRUCT
 * build by GCC's plugin wants this, not the DWARF's member.
 */
const struct layout_member *layout_member_at(const struct layout *l, __u64 offset);
/*
 * The cache line that starts between member i - 1 and member i, if any:
 * its number into *line and the bytes member i starts past it into *past
 * (0 when it starts there; pahole's "was N bytes ago" when the line starts
 * inside member i - 1 or a hole).  Only the last line crossed is given.
 */
bool layout_boundary(const struct layout *l, size_t i, __u64 *line, __u64 *past);

/* pahole's view of l as text; the pair's side by side; either as JSON into j. */
void layout_print(FILE *out, const struct layout *l);
void layout_print_pair(FILE *out, const struct layout *l[2], const char *const names[2]);
void layout_json(struct json *j, const struct layout *l);
void layout_json_pair(struct json *j, const struct layout *l[2], const char *const names[2]);
#endif
