/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * The protections a compiler inserts into kernel functions (x86_64), found
 * by instruction pattern in a function's text: pure, like cfg.h, the caller
 * hands in the bytes (the running kernel's, or the vmlinux file's) and,
 * through struct sites_env, the names of direct branch targets.  Every
 * pattern is documented at its kind below and in docs/features.md ("The
 * compiler-inserted protections"); what looks like a protection but matches no pattern is
 * counted as unclassified, never guessed.
 */
#ifndef KP_SITES_H
#define KP_SITES_H

#include <stdbool.h>
#include <stddef.h>
#include <linux/types.h>

enum sites_kind {
	/* endbr64 as the function's first instruction (X86_KERNEL_IBT) */
	SITES_IBT,
	/*
	 * a read of the stack canary: %gs:0x28, or %gs:__stack_chk_guard(%rip)
	 * since 6.15; the prologue's mov stores it, the epilogue's sub, cmp or
	 * xor checks it (STACKPROTECTOR)
	 */
	SITES_CANARY,
	/* a jmp or jcc to a return thunk, where a ret was (RETHUNK) */
	SITES_RETURN_THUNK,
	/* a call, jmp or jcc to an indirect-branch thunk, where call/jmp *%reg was (RETPOLINE) */
	SITES_RETPOLINE,
	/*
	 * xor r,r of call-used registers, one of them not %rax, right before a
	 * return (ret, or jmp to a return thunk): the site spans the xors and
	 * the return (ZERO_CALL_USED_REGS)
	 */
	SITES_ZERO_REGS,
	/* a call or jmp to the FORTIFY_SOURCE report or panic function */
	SITES_FORTIFY,
	/* a call or jmp to an __ubsan_handle_* function (UBSAN) */
	SITES_UBSAN,
	/*
	 * mov $hash,%r10d then add or cmp of a negative offset of a register
	 * into %r10d; the site spans both (CFI_CLANG)
	 */
	SITES_KCFI,
	/*
	 * a direct branch to an __x86_*thunk* symbol no kind above names, a call
	 * (not a jump) to a return thunk, or a read or write of the canary
	 * other than the loads and checks above
	 */
	SITES_UNCLASSIFIED,
	SITES_KINDS,
};

/*
 * What a direct call (call true) or jump to the symbol name protects:
 * SITES_RETURN_THUNK, SITES_RETPOLINE, ..., SITES_UNCLASSIFIED for a
 * kernel thunk no pattern knows (and a call to a return thunk), SITES_KINDS
 * for no protection.
 */
enum sites_kind sites_target_kind(const char *name, bool call);

/* The kind's name as tables and JSON say it: "return_thunk", ... */
const char *sites_kind_name(enum sites_kind k);

/* What the symbol table knows. */
struct sites_env {
	/*
	 * the i-th name (from 0) of the symbols starting at addr, a direct
	 * branch's target; NULL past the last (a thunk has aliases:
	 * __x86_indirect_thunk_rax, __x86_indirect_thunk_array,
	 * __indirect_thunk_start)
	 */
	const char *(*name)(void *arg, __u64 addr, unsigned int i);
	void *arg;
};

struct sites_found {
	unsigned int n[SITES_KINDS];
	unsigned int canary_checks; /* of n[SITES_CANARY]: the reads that compare */
	size_t zeroing;		    /* of the n[SITES_ZERO_REGS] sites: their xors' bytes */
	size_t insns;		    /* instructions decoded */
	size_t bad;		    /* bytes no instruction decodes from: skipped */
	/*
	 * the function's code: its bytes up to the end of its last instruction
	 * that is no fill (nop, int3), the alignment the assembler and linker
	 * put after it left out
	 */
	size_t code;
};

/*
 * One site: its address, its bytes (the instructions that are the
 * protection: one but for zero_call_used_regs and kcfi) and kind, told to
 * the caller's callback in address order.
 */
typedef void sites_cb(void *arg, __u64 addr, __u32 len, enum sites_kind kind);

struct sites_scanner;

/* A capstone handle for sites_scan: -ENOMEM, or -EINVAL when capstone cannot be opened. */
int sites_scanner_new(struct sites_scanner **out);
void sites_scanner_free(struct sites_scanner *sc);

/*
 * The sites in len bytes of one function's text at addr, added to *found
 * (zero it first), each told to cb unless NULL.
 */
void sites_scan(struct sites_scanner *sc, const struct sites_env *env, __u64 addr, const __u8 *code,
		size_t len, sites_cb *cb, void *arg, struct sites_found *found);

#endif
