/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * The data an instruction accesses: for a load or store PC of one ELF file
 * (vmlinux or a user binary), the type and member its memory operand
 * touches, resolved from the file's DWARF as perf's data-type profiling
 * does (docs/model.md, "Data types"): the variable in the base register at
 * that PC, followed through register moves and pointer arithmetic within
 * the function, per-CPU, stack and global variables by address.  What
 * cannot be typed is said so, with the reason, never guessed.
 */
#ifndef KP_DTYPE_H
#define KP_DTYPE_H

#include <stdbool.h>
#include <stddef.h>
#include <linux/types.h>

struct debuginfo;
struct dtype_file;

enum dtype_how {
	DT_UNTYPED,  /* why says why */
	DT_REGISTER, /* a variable or parameter in the base register at the PC */
	DT_FLOW,     /* the base register's type followed within the function */
	DT_GLOBAL,   /* a global or static variable, by address */
	DT_PERCPU,   /* a per-CPU (or TLS) variable, by address */
	DT_STACK,    /* a local variable in the frame */
	DT_STACK_OP, /* push, pop, call, ret...: type "(stack operation)" */
	DT_CANARY,   /* the stack protector's canary: type "(stack canary)" */
};

/* What one memory access of an instruction touches; strings owned by the dtype_file. */
struct dtype_access {
	enum dtype_how how;
	const char *type;   /* "struct task_struct", "(stack operation)"; NULL untyped */
	__u64 type_size;    /* bytes; 0 for the pseudo types */
	const char *member; /* "se.vruntime"; "" the whole object or no member */
	__u64 offset;	    /* of the access in the type (the member's start: moffset) */
	__u64 moffset;	    /* the member's offset in the type */
	__u64 msize;	    /* the member's size */
	const char *why;    /* untyped: one short phrase ("no variable in %rbx") */
};

#define DTYPE_MAX_ACCESS 2 /* an instruction's memory operands resolved (movs: 2) */

/*
 * The resolver of one file, over di (borrowed: it must outlive the
 * dtype_file); text is read from the same ELF.  -ENOMEM, -ENODATA without
 * DWARF.
 */
int dtype_open(struct dtype_file **out, struct debuginfo *di);
void dtype_close(struct dtype_file *f);
/* An instruction's bytes when it ran, where they were not the file's (patched at boot). */
struct dtype_running {
	__u64 pc; /* link-time address */
	unsigned int len;
	__u8 b[15];
};

/*
 * The kernel's instructions that ran other bytes than f's (a recording's
 * model_running, copied): decoded instead of the file's, by the access and
 * by the register flow before it.  complete: every other instruction ran
 * the file's bytes; else a PC in an original of the file's .altinstructions
 * without running bytes is untyped ("patched at boot; the running
 * instruction is unknown").  Before any dtype_resolve; 0 or -ENOMEM.
 */
int dtype_set_running(struct dtype_file *f, const struct dtype_running *sites, size_t n,
		      bool complete);
/*
 * The accesses of the instruction at link-time address pc into out[],
 * their number in *n (0: it accesses no memory, e.g. a nop or lea).  Results
 * are cached per PC and per function.  0, or -ENOMEM; a PC outside the text
 * or undecodable is one untyped access, not an error.
 */
int dtype_resolve(struct dtype_file *f, __u64 pc, struct dtype_access out[DTYPE_MAX_ACCESS],
		  unsigned int *n);
/*
 * What the pointer in DWARF register reg (5 %rdi, 4 %rsi: a call's first two
 * arguments) points to before the instruction at link-time address pc,
 * typed as an access through it would be, as the whole object; *func and
 * *func_off the function holding pc (its symbol's name, "" when none).
 * Not cached: the flow's per-function state is.  0, or -ENOMEM.
 */
int dtype_resolve_reg(struct dtype_file *f, __u64 pc, int reg, struct dtype_access *out,
		      const char **func, __u64 *func_off);
/*
 * The objects of the slab cache a call into a slab allocator at link-time
 * pc passes in %rdi (docs/model.md, "Slab objects"), typed as the whole
 * object when the cache's global says what they are (its name and size
 * those of a structure), else untyped with the reason; *cache the cache's
 * name ("" when not known); *func and *func_off as dtype_resolve_reg's.
 * 0, or -ENOMEM.
 */
int dtype_slab_object(struct dtype_file *f, __u64 pc, struct dtype_access *out, const char **cache,
		      const char **func, __u64 *func_off);
/*
 * The one pointer variable to a struct page or folio live at link-time pc,
 * as "struct page *pg" (owned by f); NULL when none, or more than one.
 */
const char *dtype_page_var(struct dtype_file *f, __u64 pc);
#endif
