/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * What inlines_exits() (inline_exits.h) and file_cfg.c read of a file once,
 * however many instances or graphs follow: inline_ctx.c reads it so that
 * inline_exits.c, disassembling instance after instance, and file_cfg.c,
 * building a function's graph, never go back to the symbol table or the ELF
 * section headers for it.  Its state is theirs alone.
 */
#ifndef KP_INLINE_CTX_H
#define KP_INLINE_CTX_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <gelf.h>
#include <capstone/capstone.h>
#include <linux/types.h>

#include "symbols/inlines.h"

/*
 * A jump-label site: a nop or a jmp to target, patched into the other at run
 * time.  Sorted and looked up by its leading address, as is struct thunk.
 */
struct jump_site {
	__u64 code, target;
};

/* A symbol a jump to is no tail call: where a return goes, or an indirect jump. */
struct thunk {
	__u64 addr;
	bool ret; /* __x86_return_thunk, else an __x86_indirect_thunk_* */
};

/* What disassembling any instance needs, read once per file. */
struct inlines_ctx {
	Elf *elf;
	__u64 to_elf; /* DWARF address + to_elf = the ELF's address */
	csh cs;
	cs_insn *insn;		 /* the instruction of the range being scanned */
	cs_insn *ahead;		 /* one of the parent's, looked at to follow a way out */
	struct jump_site *sites; /* all of the file's, sorted by code */
	size_t nsites;
	struct thunk *thunks; /* sorted by addr */
	size_t nthunks;
};

struct debuginfo;

/*
 * What inlines_exits() reads of di once for all instances: its text, a
 * disassembler, its jump-label sites and thunk symbols.  di must stay open
 * until inlines_ctx_close().  -ENODATA when di has no text to read.
 */
int inlines_ctx_open(struct inlines_ctx **out, struct debuginfo *di);
void inlines_ctx_close(struct inlines_ctx *c);

/* The file's bytes from DWARF address addr to the end of the section holding them. */
int inlines_ctx_bytes(const struct inlines_ctx *c, __u64 addr, const uint8_t **out, size_t *len);
/* The instruction at addr into insn; false when it cannot be read or decoded. */
bool inlines_ctx_decode(const struct inlines_ctx *c, __u64 addr, cs_insn *insn);
/* The index of the first jump-label site at or after addr, nsites when none. */
size_t inlines_ctx_first_site(const struct inlines_ctx *c, __u64 addr);
/* The thunk starting at addr, NULL when none does. */
const struct thunk *inlines_ctx_thunk(const struct inlines_ctx *c, __u64 addr);

#endif
