/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * The opcode descriptors of plugin/kp_x86_deps.c's decoder: what each
 * operand of an opcode does, and the tables (plugin/kp_x86_optab.c).
 * Internal to the plugin's decoder.
 */
#ifndef KP_X86_OPTAB_H
#define KP_X86_OPTAB_H

#include <stddef.h>
#include <stdint.h>

#include "kp_x86_deps.h"

/* an operand's roles in a descriptor */
enum {
	KD_M = 1 << 0,	  /* a ModRM follows the opcode */
	KD_GR = 1 << 1,	  /* reads the register of the ModRM's reg field (G) */
	KD_GW = 1 << 2,	  /* writes it */
	KD_ER = 1 << 3,	  /* reads its r/m operand or the register in its opcode (E) */
	KD_EW = 1 << 4,	  /* writes it */
	KD_VR = 1 << 5,	  /* reads VEX.vvvv's register (V), of G's class */
	KD_VW = 1 << 6,	  /* writes it */
	KD_OP = 1 << 7,	  /* E is the register in the opcode's low bits: no ModRM */
	KD_GB = 1 << 8,	  /* G is a byte register: 4-7 are ah-bh without a REX */
	KD_EB = 1 << 9,	  /* E is */
	KD_GX = 1 << 10,  /* G is a vector register */
	KD_EX = 1 << 11,  /* E is */
	KD_GK = 1 << 12,  /* G is a register of the state bit (a mask, MMX) */
	KD_EK = 1 << 13,  /* E is */
	KD_MMX = 1 << 14, /* without a 66, f2, f3 or VEX, its vector registers are MMX's */
	KD_LEA = 1 << 15, /* the address is computed, memory not accessed (lea, prefetch) */
	KD_NOP = 1 << 16, /* the operand is neither read nor accessed (hint nops) */
	KD_LD = 1 << 17,  /* loads through the registers of iaddr (the stack, strings) */
	KD_ST = 1 << 18,  /* stores through them */
	KD_ZI = 1 << 19,  /* with one register as both sources, it does not read it */
	KD_IS4 = 1 << 20, /* reads the vector register its last byte's high half names */
};

struct kp_op {
	uint32_t f;	     /* KD_* */
	uint64_t isrc, idst; /* registers read and written besides the operands */
	uint16_t iaddr;	     /* the address registers of KD_LD, KD_ST */
	uint8_t lat, uops;   /* lat 0: not an instruction known */
	uint8_t kind, grp;   /* grp: the ModRM's reg field picks in kp_grps[grp] */
};

#define RAX   KP_R_BIT(0)
#define RCX   KP_R_BIT(1)
#define RDX   KP_R_BIT(2)
#define RBX   KP_R_BIT(3)
#define RSP   KP_R_BIT(4)
#define RBP   KP_R_BIT(5)
#define RSI   KP_R_BIT(6)
#define RDI   KP_R_BIT(7)
#define R11   KP_R_BIT(11)
#define FL    KP_R_BIT(KP_R_FLAGS)
#define STATE KP_R_BIT(KP_R_STATE)
#define XMM0  KP_R_BIT(KP_R_XMM0)

#define M  KD_M
#define GR KD_GR
#define GW KD_GW
#define ER KD_ER
#define EW KD_EW
#define VR KD_VR
#define VW KD_VW
/* G op= E on vector registers; G = E; E = G */
#define VOP (M | GR | GW | ER | KD_GX | KD_EX)
#define VGE (M | GW | ER | KD_GX | KD_EX)
#define VEG (M | EW | GR | KD_GX | KD_EX)

#define OP(f_, s_, d_, l_, u_)                                                   \
	{                                                                        \
		.f = (f_), .isrc = (s_), .idst = (d_), .lat = (l_), .uops = (u_) \
	}
#define OPK(f_, s_, d_, l_, u_, k_)                                                            \
	{                                                                                      \
		.f = (f_), .isrc = (s_), .idst = (d_), .lat = (l_), .uops = (u_), .kind = (k_) \
	}
/* through the stack: push, pop, call, ret */
#define STK(f_, s_, d_, l_, u_, k_)                                                           \
	{                                                                                     \
		.f = (f_), .isrc = RSP | (s_), .idst = RSP | (d_), .iaddr = RSP, .lat = (l_), \
		.uops = (u_), .kind = (k_)                                                    \
	}
#define GRP(g_)                       \
	{                             \
		.lat = 1, .grp = (g_) \
	}

enum { G_NONE, G_3B, G_3, G_4, G_5, G_1A, G_11B, G_11, G_6, G_8, G_9, G_17, G_7M, G_15M, G_NR };

/*
 * Opcodes that mean another instruction with a mandatory prefix (pfx:
 * 0xff any) or only with (vex 1) or without (vex 0) a VEX prefix (2: both)
 */
struct kp_exc {
	uint8_t map, first, last, pfx, vex;
	struct kp_op o;
};
extern const struct kp_op kp_grps[G_NR][8];
/* the one-byte map, 0f, 0f 38, 0f 3a */
extern const struct kp_op kp_1[256], kp_0f[256], kp_0f38[256], kp_0f3a[256];
extern const struct kp_exc kp_excs[];
extern const size_t kp_nexcs;

#endif
