/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * What the timing model of an out-of-order core needs of an x86-64
 * instruction, told from its bytes alone at translation time (no register
 * values): the registers it reads and writes, those its memory operand's
 * address reads, whether it loads or stores, its latency and uops, and its
 * kind (branches, serializing, rep strings).  Apart from QEMU so that it
 * can be tested on its own (tests/unit/t_model_x86_deps.sh, and against
 * capstone: tests/unit/t_model_x86_agree.sh).
 */
#ifndef KP_X86_DEPS_H
#define KP_X86_DEPS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/*
 * Register bits: 0-15 the general registers by hardware number (rax 0, rcx
 * 1, rdx 2, rbx 3, rsp 4, rbp 5, rsi 6, rdi 7, r8-r15), whatever part of
 * them is named (al, ah, eax: rax); the arithmetic flags as one; the rest
 * of the vector and x87 state as one (x87, MMX, MXCSR, AVX-512 mask
 * registers, xmm16-31); xmm/ymm 0-15 each.
 */
#define KP_R_RSP    4 /* the stack pointer, which a stack engine keeps */
#define KP_R_FLAGS  16
#define KP_R_STATE  17
#define KP_R_XMM0   18
#define KP_R_BIT(r) (1ull << (r))
#define KP_R_GPRS   0xffffull
#define KP_R_XMMS   (0xffffull << KP_R_XMM0)

/* what the core does with an instruction besides executing it */
enum kp_dk {
	KP_DK_NONE,
	KP_DK_JCC, /* conditional branch: jcc, loop, jrcxz */
	KP_DK_JMP,
	KP_DK_CALL,
	KP_DK_JMP_IND,
	KP_DK_CALL_IND,
	KP_DK_RET,
	KP_DK_SERIAL,	/* waits for all before it: kp_x86_event's kinds, int, hlt, in, out */
	KP_DK_REP_MOVS, /* a rep-prefixed string operation: its length is rcx */
	KP_DK_REP_STOS,
	KP_DK_REP_STR, /* the other rep strings: cmps, scas, lods, ins, outs */
	KP_DK_SYSCALL, /* syscall, sysret, sysenter, sysexit */
	KP_DK_KINDS
};

/* the kinds' words, for tests and reports */
extern const char *const kp_dk_names[KP_DK_KINDS];

struct kp_x86_deps {
	uint64_t src;  /* registers read, the memory operand's address included */
	uint64_t dst;  /* registers written */
	uint64_t addr; /* the registers the memory access's address reads (within src) */
	uint8_t load,
		store; /* reads, writes memory (push, pop, call, ret: the stack, rsp in addr) */
	uint8_t lat;   /* cycles from its sources to its result, memory not counted */
	uint8_t uops;  /* fused-domain uops, about: for the dispatch width */
	uint8_t kind;  /* enum kp_dk */
	uint8_t known; /* 0: not recognised; src, dst, addr empty, lat 1 */
	uint8_t zero_idiom; /* xor r,r, pxor x,x, sbb r,r...: its register's old value is no source
			     */
};

/*
 * The instruction of exactly len bytes at b (VEX's fourth register operand
 * is in its last byte); false (d->known 0) when it is not recognised.
 * Operands are as the manual writes them: a write of al or ax is a write
 * of rax, not a merge that reads it too; a register that only names an
 * address (lea, prefetch) is read, one a nop names is not.
 */
bool kp_x86_deps(const uint8_t *b, size_t len, struct kp_x86_deps *d);

#endif
