// SPDX-License-Identifier: GPL-2.0-only
/*
 * An x86-64 instruction's register dependences, memory accesses, latency
 * and kind, for the timing model: see kp_x86_deps.h.  Each opcode has a
 * descriptor (struct kp_op): which of its operands it reads and writes,
 * the registers it reads and writes besides them, its latency and uops.
 * The one-byte arithmetic and shifts are regular enough to be built by
 * code; a ModRM's reg field picks among a group's descriptors; a few
 * opcodes mean other things with a mandatory prefix or a VEX prefix
 * (kp_exc).  Latencies are Skylake's, about (Agner Fog's tables, uops.info).
 */
#include <string.h>

#include "kp_x86.h"
#include "kp_x86_dec.h"
#include "kp_x86_deps.h"

const char *const kp_dk_names[KP_DK_KINDS] = {
	"-",   "jcc",	 "jmp",	     "call",	 "jmp_ind", "call_ind",
	"ret", "serial", "rep_movs", "rep_stos", "rep_str", "syscall",
};

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

static const struct kp_op kp_grps[G_NR][8] = {
	[G_3B] = {OP(M | ER | KD_EB, 0, FL, 1, 1), OP(M | ER | KD_EB, 0, FL, 1, 1),
		  OP(M | ER | EW | KD_EB, 0, 0, 1, 1), OP(M | ER | EW | KD_EB, 0, FL, 1, 1),
		  OP(M | ER | KD_EB, RAX, RAX | FL, 3, 1), OP(M | ER | KD_EB, RAX, RAX | FL, 3, 1),
		  OP(M | ER | KD_EB, RAX, RAX | FL, 23, 4),
		  OP(M | ER | KD_EB, RAX, RAX | FL, 23, 4)},
	[G_3] = {OP(M | ER, 0, FL, 1, 1), OP(M | ER, 0, FL, 1, 1), OP(M | ER | EW, 0, 0, 1, 1),
		 OP(M | ER | EW, 0, FL, 1, 1), OP(M | ER, RAX, RAX | RDX | FL, 3, 2),
		 OP(M | ER, RAX, RAX | RDX | FL, 3, 2),
		 OP(M | ER, RAX | RDX, RAX | RDX | FL, 26, 10),
		 OP(M | ER, RAX | RDX, RAX | RDX | FL, 26, 10)},
	[G_4] = {OP(M | ER | EW | KD_EB, 0, FL, 1, 1), OP(M | ER | EW | KD_EB, 0, FL, 1, 1)},
	[G_5] = {OP(M | ER | EW, 0, FL, 1, 1), OP(M | ER | EW, 0, FL, 1, 1),
		 STK(M | ER | KD_ST, 0, 0, 1, 2, KP_DK_CALL_IND),
		 STK(M | ER | KD_ST, 0, 0, 1, 2, KP_DK_CALL_IND),
		 OPK(M | ER, 0, 0, 1, 1, KP_DK_JMP_IND), OPK(M | ER, 0, 0, 1, 1, KP_DK_JMP_IND),
		 STK(M | ER | KD_ST, 0, 0, 1, 2, 0)},
	[G_1A] = {STK(M | EW | KD_LD, 0, 0, 1, 2, 0)},
	[G_11B] = {OP(M | EW | KD_EB, 0, 0, 1, 1)},
	[G_11] = {OP(M | EW, 0, 0, 1, 1)},
	/* sldt, str, lldt, ltr, verr, verw */
	[G_6] = {OP(M | EW, 0, 0, 1, 1), OP(M | EW, 0, 0, 1, 1), OP(M | ER, 0, 0, 1, 1),
		 OP(M | ER, 0, 0, 1, 1), OP(M | ER, 0, FL, 1, 1), OP(M | ER, 0, FL, 1, 1)},
	/* bt, bts, btr, btc with an immediate */
	[G_8] = {[4] = OP(M | ER, 0, FL, 1, 1),
		 OP(M | ER | EW, 0, FL, 1, 1),
		 OP(M | ER | EW, 0, FL, 1, 1),
		 OP(M | ER | EW, 0, FL, 1, 1)},
	/* cmpxchg8b/16b, xrstors, xsavec, xsaves; rdrand, rdseed (rdpid with f3) */
	[G_9] = {[1] = OP(M | ER | EW, RAX | RBX | RCX | RDX, RAX | RDX | FL, 10, 10),
		 [3] = OP(M | ER, RAX | RDX, STATE, 1, 1),
		 OP(M | EW, RAX | RDX | STATE, 0, 1, 1),
		 OP(M | EW, RAX | RDX | STATE, 0, 1, 1),
		 [6] = OP(M | EW, 0, FL, 20, 16),
		 OP(M | EW, 0, FL, 20, 16)},
	/* VEX 0f38 f3: blsr, blsmsk, blsi */
	[G_17] = {[1] = OP(M | VW | ER, 0, FL, 1, 1),
		  OP(M | VW | ER, 0, FL, 1, 1),
		  OP(M | VW | ER, 0, FL, 1, 1)},
	/* 0f 01 on memory: sgdt, sidt, lgdt, lidt, smsw, -, lmsw, invlpg */
	[G_7M] = {OP(M | EW, 0, 0, 1, 1),
		  OP(M | EW, 0, 0, 1, 1),
		  OP(M | ER, 0, 0, 1, 1),
		  OP(M | ER, 0, 0, 1, 1),
		  OP(M | EW, 0, 0, 1, 1),
		  {0},
		  OP(M | ER, 0, 0, 1, 1),
		  OP(M | KD_LEA, 0, 0, 1, 1)},
	/* 0f ae on memory: fxsave, fxrstor, ldmxcsr, stmxcsr, xsave, xrstor, xsaveopt, clflush */
	[G_15M] = {OP(M | EW, STATE, 0, 1, 1), OP(M | ER, 0, STATE, 1, 1),
		   OP(M | ER, 0, STATE, 6, 3), OP(M | EW, STATE, 0, 1, 2),
		   OP(M | EW, RAX | RDX | STATE, 0, 1, 1), OP(M | ER, RAX | RDX, STATE, 1, 1),
		   OP(M | EW, RAX | RDX | STATE, 0, 1, 1), OP(M | KD_LEA, 0, 0, 1, 1)},
};

/* the one-byte opcodes but arithmetic, shifts, strings and x87 (kp_op_1) */
static const struct kp_op kp_1[256] = {
	[0x50 ... 0x57] = STK(KD_OP | ER | KD_ST, 0, 0, 1, 1, 0),
	[0x58 ... 0x5f] = STK(KD_OP | EW | KD_LD, 0, 0, 1, 1, 0),
	[0x63] = OP(M | GW | ER, 0, 0, 1, 1),
	[0x68] = STK(KD_ST, 0, 0, 1, 1, 0),
	[0x69] = OP(M | GW | ER, 0, FL, 3, 1),
	[0x6a] = STK(KD_ST, 0, 0, 1, 1, 0),
	[0x6b] = OP(M | GW | ER, 0, FL, 3, 1),
	[0x70 ... 0x7f] = OPK(0, FL, 0, 1, 1, KP_DK_JCC),
	[0x84] = OP(M | ER | GR | KD_EB | KD_GB, 0, FL, 1, 1),
	[0x85] = OP(M | ER | GR, 0, FL, 1, 1),
	[0x86] = OP(M | ER | EW | GR | GW | KD_EB | KD_GB, 0, 0, 2, 3),
	[0x87] = OP(M | ER | EW | GR | GW, 0, 0, 2, 3),
	[0x88] = OP(M | EW | GR | KD_EB | KD_GB, 0, 0, 1, 1),
	[0x89] = OP(M | EW | GR, 0, 0, 1, 1),
	[0x8a] = OP(M | GW | ER | KD_EB | KD_GB, 0, 0, 1, 1),
	[0x8b] = OP(M | GW | ER, 0, 0, 1, 1),
	[0x8c] = OP(M | EW, 0, 0, 1, 1),
	[0x8d] = OP(M | GW | KD_LEA, 0, 0, 1, 1),
	[0x8e] = OP(M | ER, 0, 0, 1, 1),
	[0x8f] = GRP(G_1A),
	[0x90 ... 0x97] = OP(KD_OP | ER | EW, RAX, RAX, 2, 3),
	[0x98] = OP(0, RAX, RAX, 1, 1),
	[0x99] = OP(0, RAX, RDX, 1, 1),
	[0x9b] = OP(0, STATE, 0, 1, 1),
	[0x9c] = STK(KD_ST, FL, 0, 1, 3, 0),
	[0x9d] = STK(KD_LD, 0, FL, 1, 9, 0),
	[0x9e] = OP(0, RAX, FL, 1, 1),
	[0x9f] = OP(0, FL, RAX, 1, 1),
	/* mov between al/eax and an absolute address */
	[0xa0 ... 0xa1] = {.f = KD_LD, .idst = RAX, .lat = 1, .uops = 1},
	[0xa2 ... 0xa3] = {.f = KD_ST, .isrc = RAX, .lat = 1, .uops = 1},
	[0xa8 ... 0xa9] = OP(0, RAX, FL, 1, 1),
	[0xb0 ... 0xb7] = OP(KD_OP | EW | KD_EB, 0, 0, 1, 1),
	[0xb8 ... 0xbf] = OP(KD_OP | EW, 0, 0, 1, 1),
	[0xc2 ... 0xc3] = STK(KD_LD, 0, 0, 1, 1, KP_DK_RET),
	[0xc6] = GRP(G_11B),
	[0xc7] = GRP(G_11),
	[0xc8] = STK(KD_ST, RBP, RBP, 8, 12, 0),
	/* leave: mov %rbp, %rsp; pop %rbp */
	[0xc9] = {.f = KD_LD, .isrc = RBP, .idst = RSP | RBP, .iaddr = RBP, .lat = 1, .uops = 2},
	/* xlat: al = (%rbx,%al) */
	[0xd7] = {.f = KD_LD,
		  .isrc = RAX | RBX,
		  .idst = RAX,
		  .iaddr = RAX | RBX,
		  .lat = 1,
		  .uops = 3},
	[0xca ... 0xcb] = STK(KD_LD, 0, 0, 1, 3, KP_DK_RET),
	[0xcc ... 0xcd] = OPK(0, 0, 0, 1, 1, KP_DK_SERIAL),
	[0xcf] = STK(KD_LD, 0, FL, 1, 1, KP_DK_SERIAL),
	[0xe0 ... 0xe1] = OPK(0, RCX | FL, RCX, 1, 1, KP_DK_JCC),
	[0xe2] = OPK(0, RCX, RCX, 1, 1, KP_DK_JCC),
	[0xe3] = OPK(0, RCX, 0, 1, 1, KP_DK_JCC),
	[0xe4 ... 0xe5] = OPK(0, 0, RAX, 1, 1, KP_DK_SERIAL),
	[0xe6 ... 0xe7] = OPK(0, RAX, 0, 1, 1, KP_DK_SERIAL),
	[0xe8] = STK(KD_ST, 0, 0, 1, 2, KP_DK_CALL),
	[0xe9] = OPK(0, 0, 0, 1, 1, KP_DK_JMP),
	[0xeb] = OPK(0, 0, 0, 1, 1, KP_DK_JMP),
	[0xec ... 0xed] = OPK(0, RDX, RAX, 1, 1, KP_DK_SERIAL),
	[0xee ... 0xef] = OPK(0, RAX | RDX, 0, 1, 1, KP_DK_SERIAL),
	[0xf1] = OPK(0, 0, 0, 1, 1, KP_DK_SERIAL),
	[0xf4] = OPK(0, 0, 0, 1, 1, KP_DK_SERIAL),
	[0xf5] = OP(0, FL, FL, 1, 1),
	[0xf6] = GRP(G_3B),
	[0xf7] = GRP(G_3),
	/* clc, stc; cli, sti, cld, std change no arithmetic flag */
	[0xf8 ... 0xf9] = OP(0, 0, FL, 1, 1),
	[0xfa ... 0xfd] = OP(0, 0, 0, 1, 1),
	[0xfe] = GRP(G_4),
	[0xff] = GRP(G_5),
};

/* 0f xx; kp_x86_event names the serializing ones, kp_op_0f01 and kp_op_0fae 0f 01, 0f ae */
static const struct kp_op kp_0f[256] = {
	[0x00] = GRP(G_6),
	[0x05] = OPK(0, FL, RCX | R11, 1, 1, KP_DK_SYSCALL),
	[0x06] = OPK(0, 0, 0, 1, 1, KP_DK_SERIAL),
	[0x07] = OPK(0, RCX | R11, FL, 1, 1, KP_DK_SYSCALL),
	[0x08 ... 0x09] = OPK(0, 0, 0, 1, 1, KP_DK_SERIAL),
	[0x0b] = OPK(0, 0, 0, 1, 1, KP_DK_SERIAL),
	[0x02 ... 0x03] = OP(M | GW | ER, 0, FL, 8, 8),
	[0x0d] = OP(M | KD_LEA, 0, 0, 1, 1),
	[0x10] = OP(VGE, 0, 0, 1, 1),
	[0x11] = OP(VEG, 0, 0, 1, 1),
	/* movlps, movhps and the like merge into G */
	[0x12] = OP(VOP, 0, 0, 1, 1),
	[0x13] = OP(VEG, 0, 0, 1, 1),
	[0x14 ... 0x15] = OP(VOP, 0, 0, 1, 1),
	[0x16] = OP(VOP, 0, 0, 1, 1),
	[0x17] = OP(VEG, 0, 0, 1, 1),
	[0x18] = OP(M | KD_LEA, 0, 0, 1, 1),
	[0x19 ... 0x1f] = OP(M | KD_NOP, 0, 0, 1, 1),
	[0x20 ... 0x21] = OP(M | EW, 0, 0, 1, 1),
	[0x22 ... 0x23] = OP(M | ER, 0, 0, 1, 1),
	[0x28] = OP(VGE, 0, 0, 1, 1),
	[0x29] = OP(VEG, 0, 0, 1, 1),
	/* cvtsi2ss/sd: from a general register, merging into G */
	[0x2a] = OP(M | GR | GW | ER | KD_GX, 0, 0, 5, 2),
	[0x2b] = OP(VEG, 0, 0, 1, 1),
	[0x2c ... 0x2d] = OP(M | GW | ER | KD_EX, 0, 0, 6, 2),
	[0x2e ... 0x2f] = OP(M | GR | ER | KD_GX | KD_EX, 0, FL, 3, 1),
	[0x30] = OP(0, RAX | RCX | RDX, 0, 1, 1),
	[0x31] = OP(0, 0, RAX | RDX, 25, 15),
	[0x32] = OP(0, RCX, RAX | RDX, 1, 1),
	[0x33] = OP(0, RCX, RAX | RDX, 25, 15),
	[0x34 ... 0x35] = OPK(0, 0, 0, 1, 1, KP_DK_SYSCALL),
	[0x40 ... 0x4f] = OP(M | GR | GW | ER, FL, 0, 1, 1),
	[0x50] = OP(M | GW | ER | KD_EX, 0, 0, 2, 1),
	[0x51] = OP(VGE, 0, 0, 13, 1),
	[0x52 ... 0x53] = OP(VGE, 0, 0, 4, 1),
	[0x54 ... 0x56] = OP(VOP, 0, 0, 1, 1),
	[0x57] = OP(VOP | KD_ZI, 0, 0, 1, 1),
	[0x58 ... 0x5a] = OP(VOP, 0, 0, 4, 1),
	[0x5b] = OP(VGE, 0, 0, 4, 1),
	[0x5c ... 0x5d] = OP(VOP, 0, 0, 4, 1),
	[0x5e] = OP(VOP, 0, 0, 13, 1),
	[0x5f] = OP(VOP, 0, 0, 4, 1),
	[0x60 ... 0x63] = OP(VOP | KD_MMX, 0, 0, 1, 1),
	[0x64 ... 0x66] = OP(VOP | KD_MMX | KD_ZI, 0, 0, 1, 1),
	[0x67 ... 0x6d] = OP(VOP | KD_MMX, 0, 0, 1, 1),
	[0x6e] = OP(M | GW | ER | KD_GX | KD_MMX, 0, 0, 2, 1),
	[0x6f] = OP(VGE | KD_MMX, 0, 0, 1, 1),
	[0x70] = OP(VGE | KD_MMX, 0, 0, 1, 1),
	/* shifts by an immediate: the register is E (VEX: from E into V) */
	[0x71 ... 0x73] = OP(M | ER | EW | KD_EX | KD_MMX, 0, 0, 1, 1),
	[0x74 ... 0x76] = OP(VOP | KD_MMX | KD_ZI, 0, 0, 1, 1),
	[0x7c ... 0x7d] = OP(VOP, 0, 0, 6, 3),
	[0x7e] = OP(M | EW | GR | KD_GX | KD_MMX, 0, 0, 2, 1),
	[0x7f] = OP(VEG | KD_MMX, 0, 0, 1, 1),
	[0x80 ... 0x8f] = OPK(0, FL, 0, 1, 1, KP_DK_JCC),
	[0x90 ... 0x9f] = OP(M | EW | KD_EB, FL, 0, 1, 1),
	[0xa0] = STK(KD_ST, 0, 0, 1, 2, 0),
	[0xa1] = STK(KD_LD, 0, 0, 1, 2, 0),
	[0xa2] = OP(0, RAX | RCX, RAX | RBX | RCX | RDX, 100, 100),
	[0xa3] = OP(M | ER | GR, 0, FL, 1, 1),
	[0xa4] = OP(M | ER | EW | GR, 0, FL, 3, 1),
	[0xa5] = OP(M | ER | EW | GR, RCX, FL, 3, 4),
	[0xa8] = STK(KD_ST, 0, 0, 1, 2, 0),
	[0xa9] = STK(KD_LD, 0, 0, 1, 2, 0),
	[0xab] = OP(M | ER | EW | GR, 0, FL, 1, 1),
	[0xac] = OP(M | ER | EW | GR, 0, FL, 3, 1),
	[0xad] = OP(M | ER | EW | GR, RCX, FL, 3, 4),
	[0xaf] = OP(M | GR | GW | ER, 0, FL, 3, 1),
	[0xb0] = OP(M | ER | EW | GR | KD_EB | KD_GB, RAX, RAX | FL, 5, 5),
	[0xb1] = OP(M | ER | EW | GR, RAX, RAX | FL, 5, 5),
	[0xb3] = OP(M | ER | EW | GR, 0, FL, 1, 1),
	[0xb6] = OP(M | GW | ER | KD_EB, 0, 0, 1, 1),
	[0xb7] = OP(M | GW | ER, 0, 0, 1, 1),
	[0xb8] = OP(M | GW | ER, 0, FL, 3, 1),
	[0xb9] = OPK(0, 0, 0, 1, 1, KP_DK_SERIAL),
	[0xba] = GRP(G_8),
	[0xbb] = OP(M | ER | EW | GR, 0, FL, 1, 1),
	[0xbc ... 0xbd] = OP(M | GW | ER, 0, FL, 3, 1),
	[0xbe] = OP(M | GW | ER | KD_EB, 0, 0, 1, 1),
	[0xbf] = OP(M | GW | ER, 0, 0, 1, 1),
	[0xc0] = OP(M | ER | EW | GR | GW | KD_EB | KD_GB, 0, FL, 2, 3),
	[0xc1] = OP(M | ER | EW | GR | GW, 0, FL, 2, 3),
	[0xc2] = OP(VOP, 0, 0, 4, 1),
	[0xc3] = OP(M | EW | GR, 0, 0, 1, 1),
	[0xc4] = OP(M | GR | GW | ER | KD_GX | KD_MMX, 0, 0, 2, 2),
	[0xc5] = OP(M | GW | ER | KD_EX | KD_MMX, 0, 0, 3, 2),
	[0xc6] = OP(VOP, 0, 0, 1, 1),
	[0xc7] = GRP(G_9),
	[0xc8 ... 0xcf] = OP(KD_OP | ER | EW, 0, 0, 1, 1),
	[0xd0 ... 0xd4] = OP(VOP | KD_MMX, 0, 0, 1, 1),
	[0xd5] = OP(VOP | KD_MMX, 0, 0, 5, 1),
	[0xd7] = OP(M | GW | ER | KD_EX | KD_MMX, 0, 0, 2, 1),
	[0xd8 ... 0xe3] = OP(VOP | KD_MMX, 0, 0, 1, 1),
	[0xe4 ... 0xe5] = OP(VOP | KD_MMX, 0, 0, 5, 1),
	[0xe6] = OP(VGE, 0, 0, 5, 2),
	[0xe7] = OP(VEG | KD_MMX, 0, 0, 1, 1),
	[0xe8 ... 0xee] = OP(VOP | KD_MMX, 0, 0, 1, 1),
	[0xef] = OP(VOP | KD_MMX | KD_ZI, 0, 0, 1, 1),
	[0xf0] = OP(VGE, 0, 0, 1, 1),
	[0xf1 ... 0xf3] = OP(VOP | KD_MMX, 0, 0, 1, 1),
	[0xf4 ... 0xf5] = OP(VOP | KD_MMX, 0, 0, 5, 1),
	[0xf6] = OP(VOP | KD_MMX, 0, 0, 3, 1),
	[0xf8 ... 0xfb] = OP(VOP | KD_MMX | KD_ZI, 0, 0, 1, 1),
	[0xfc ... 0xfe] = OP(VOP | KD_MMX, 0, 0, 1, 1),
	[0xff] = OPK(0, 0, 0, 1, 1, KP_DK_SERIAL),
};

/* 0f 38 xx */
static const struct kp_op kp_0f38[256] = {
	[0x00] = OP(VOP | KD_MMX, 0, 0, 1, 1),
	[0x01 ... 0x0b] = OP(VOP | KD_MMX, 0, 0, 3, 2),
	[0x0c ... 0x0d] = OP(VOP, 0, 0, 1, 1),
	/* pblendvb, blendvps, blendvpd: xmm0 selects */
	[0x10] = OP(VOP, XMM0, 0, 1, 1),
	[0x14 ... 0x15] = OP(VOP, XMM0, 0, 1, 1),
	[0x16] = OP(VOP, 0, 0, 3, 1),
	[0x17] = OP(M | GR | ER | KD_GX | KD_EX, 0, FL, 3, 2),
	[0x18 ... 0x1a] = OP(VGE, 0, 0, 3, 1),
	[0x1c ... 0x1e] = OP(VGE | KD_MMX, 0, 0, 1, 1),
	[0x20 ... 0x25] = OP(VGE, 0, 0, 3, 1),
	[0x28] = OP(VOP, 0, 0, 5, 1),
	[0x29] = OP(VOP | KD_ZI, 0, 0, 1, 1),
	[0x2a] = OP(VGE, 0, 0, 1, 1),
	[0x2b] = OP(VOP, 0, 0, 1, 1),
	[0x30 ... 0x35] = OP(VGE, 0, 0, 3, 1),
	[0x36] = OP(VOP, 0, 0, 3, 1),
	[0x37] = OP(VOP | KD_ZI, 0, 0, 3, 1),
	[0x38 ... 0x3f] = OP(VOP, 0, 0, 1, 1),
	[0x40] = OP(VOP, 0, 0, 10, 2),
	[0x41] = OP(VGE, 0, 0, 4, 1),
	[0x45 ... 0x47] = OP(VOP, 0, 0, 1, 1),
	[0x58 ... 0x5a] = OP(VGE, 0, 0, 3, 1),
	[0x78 ... 0x79] = OP(VGE, 0, 0, 3, 2),
	/* fused multiply-add: G is an addend or a factor, and the result */
	[0x96 ... 0x9f] = OP(VOP | VR, 0, 0, 4, 1),
	[0xa6 ... 0xaf] = OP(VOP | VR, 0, 0, 4, 1),
	[0xb6 ... 0xbf] = OP(VOP | VR, 0, 0, 4, 1),
	/* sha1nexte, sha1msg1, sha1msg2, sha256rnds2 (xmm0: the round keys), sha256msg1, 2 */
	[0xc8 ... 0xca] = OP(VOP, 0, 0, 4, 2),
	[0xcb] = OP(VOP, XMM0, 0, 4, 2),
	[0xcc ... 0xcd] = OP(VOP, 0, 0, 4, 2),
	[0xdb] = OP(VGE, 0, 0, 8, 2),
	[0xdc ... 0xdf] = OP(VOP, 0, 0, 4, 1),
	/* movbe */
	[0xf0] = OP(M | GW | ER, 0, 0, 1, 2),
	[0xf1] = OP(M | EW | GR, 0, 0, 1, 2),
};

/* 0f 3a xx, an immediate after the ModRM */
static const struct kp_op kp_0f3a[256] = {
	[0x00 ... 0x01] = OP(VGE, 0, 0, 3, 1),
	[0x02] = OP(VOP, 0, 0, 1, 1),
	[0x04 ... 0x05] = OP(VGE, 0, 0, 1, 1),
	[0x06] = OP(VOP, 0, 0, 3, 1),
	[0x08 ... 0x09] = OP(VGE, 0, 0, 8, 2),
	[0x0a ... 0x0b] = OP(VOP, 0, 0, 8, 2),
	[0x0c ... 0x0e] = OP(VOP, 0, 0, 1, 1),
	[0x0f] = OP(VOP | KD_MMX, 0, 0, 1, 1),
	/* pextrb, pextrw, pextrd/q, extractps: into a general register or memory */
	[0x14 ... 0x17] = OP(M | EW | GR | KD_GX, 0, 0, 3, 2),
	[0x18] = OP(VOP, 0, 0, 3, 1),
	[0x19] = OP(VEG, 0, 0, 3, 1),
	/* pinsrb, insertps, pinsrd/q: merging into G */
	[0x20] = OP(M | GR | GW | ER | KD_GX, 0, 0, 2, 2),
	[0x21] = OP(VOP, 0, 0, 1, 1),
	[0x22] = OP(M | GR | GW | ER | KD_GX, 0, 0, 2, 2),
	[0x38] = OP(VOP, 0, 0, 3, 1),
	[0x39] = OP(VEG, 0, 0, 3, 1),
	[0x40 ... 0x41] = OP(VOP, 0, 0, 13, 4),
	[0x42] = OP(VOP, 0, 0, 4, 2),
	[0x44] = OP(VOP, 0, 0, 6, 1),
	[0x46] = OP(VOP, 0, 0, 3, 1),
	/* vblendvps, vblendvpd, vpblendvb: the selector in the immediate's high half */
	[0x4a ... 0x4c] = OP(M | GW | VR | ER | KD_GX | KD_EX | KD_IS4, 0, 0, 2, 2),
	/* pcmpestrm, pcmpestri, pcmpistrm, pcmpistri */
	[0x60] = OP(M | GR | ER | KD_GX | KD_EX, RAX | RDX, XMM0 | FL, 10, 9),
	[0x61] = OP(M | GR | ER | KD_GX | KD_EX, RAX | RDX, RCX | FL, 10, 8),
	[0x62] = OP(M | GR | ER | KD_GX | KD_EX, 0, XMM0 | FL, 10, 3),
	[0x63] = OP(M | GR | ER | KD_GX | KD_EX, 0, RCX | FL, 10, 3),
	[0xcc] = OP(VOP, 0, 0, 4, 2), /* sha1rnds4 */
	[0xdf] = OP(VGE, 0, 0, 12, 13),
};

/*
 * Opcodes that mean another instruction with a mandatory prefix (pfx:
 * 0xff any) or only with (vex 1) or without (vex 0) a VEX prefix (2: both)
 */
struct kp_exc {
	uint8_t map, first, last, pfx, vex;
	struct kp_op o;
};

static const struct kp_exc kp_excs[] = {
	/* movsldup, movddup, movshdup; sqrtss, sqrtsd merge into G; movq */
	{1, 0x12, 0x12, 0xf3, 2, OP(VGE, 0, 0, 1, 1)},
	{1, 0x12, 0x12, 0xf2, 2, OP(VGE, 0, 0, 1, 1)},
	{1, 0x16, 0x16, 0xf3, 2, OP(VGE, 0, 0, 1, 1)},
	{1, 0x51, 0x51, 0xf3, 2, OP(VOP, 0, 0, 12, 1)},
	{1, 0x51, 0x51, 0xf2, 2, OP(VOP, 0, 0, 15, 1)},
	{1, 0x7e, 0x7e, 0xf3, 2, OP(VGE, 0, 0, 1, 1)},
	{1, 0xd6, 0xd6, 0x66, 2, OP(VEG, 0, 0, 1, 1)},
	/* cvtpi2ps, cvtpi2pd from MMX; cvt(t)ps2pi, cvt(t)pd2pi into MMX */
	{1, 0x2a, 0x2a, 0, 0, OP(M | GR | GW | ER | KD_GX | KD_EK, 0, 0, 4, 2)},
	{1, 0x2a, 0x2a, 0x66, 0, OP(M | GW | ER | KD_GX | KD_EK, 0, 0, 4, 2)},
	{1, 0x2c, 0x2d, 0, 0, OP(M | GW | ER | KD_GK | KD_EX, 0, 0, 4, 2)},
	{1, 0x2c, 0x2d, 0x66, 0, OP(M | GW | ER | KD_GK | KD_EX, 0, 0, 4, 2)},
	/* AVX-512's mask registers: kand..kxor, kunpck; kmov; kortest, ktest */
	{1, 0x41, 0x4b, 0xff, 1, OP(M | GW | VR | ER | KD_GK | KD_EK, 0, 0, 1, 1)},
	{1, 0x90, 0x90, 0xff, 1, OP(M | GW | ER | KD_GK | KD_EK, 0, 0, 1, 1)},
	{1, 0x91, 0x91, 0xff, 1, OP(M | EW | GR | KD_GK, 0, 0, 1, 1)},
	{1, 0x92, 0x92, 0xff, 1, OP(M | GW | ER | KD_GK, 0, 0, 1, 1)},
	{1, 0x93, 0x93, 0xff, 1, OP(M | GW | ER | KD_EK, 0, 0, 1, 1)},
	{1, 0x98, 0x99, 0xff, 1, OP(M | GR | ER | KD_GK | KD_EK, 0, FL, 1, 1)},
	/* crc32 */
	{2, 0xf0, 0xf0, 0xf2, 0, OP(M | GR | GW | ER | KD_EB, 0, 0, 3, 1)},
	{2, 0xf1, 0xf1, 0xf2, 0, OP(M | GR | GW | ER, 0, 0, 3, 1)},
	/* BMI: andn, blsr/blsmsk/blsi, bzhi, pext, pdep, mulx, bextr, shlx, sarx, shrx */
	{2, 0xf2, 0xf2, 0, 1, OP(M | GW | VR | ER, 0, FL, 1, 1)},
	{2, 0xf3, 0xf3, 0, 1, GRP(G_17)},
	{2, 0xf5, 0xf5, 0, 1, OP(M | GW | ER | VR, 0, FL, 1, 1)},
	{2, 0xf5, 0xf5, 0xf3, 1, OP(M | GW | VR | ER, 0, 0, 3, 1)},
	{2, 0xf5, 0xf5, 0xf2, 1, OP(M | GW | VR | ER, 0, 0, 3, 1)},
	{2, 0xf6, 0xf6, 0xf2, 1, OP(M | GW | VW | ER, RDX, 0, 4, 2)},
	{2, 0xf7, 0xf7, 0, 1, OP(M | GW | ER | VR, 0, FL, 2, 2)},
	{2, 0xf7, 0xf7, 0x66, 1, OP(M | GW | ER | VR, 0, 0, 1, 1)},
	{2, 0xf7, 0xf7, 0xf3, 1, OP(M | GW | ER | VR, 0, 0, 1, 1)},
	{2, 0xf7, 0xf7, 0xf2, 1, OP(M | GW | ER | VR, 0, 0, 1, 1)},
	/* adcx, adox */
	{2, 0xf6, 0xf6, 0x66, 0, OP(M | GR | GW | ER, FL, FL, 1, 1)},
	{2, 0xf6, 0xf6, 0xf3, 0, OP(M | GR | GW | ER, FL, FL, 1, 1)},
	/* invpcid: the type in G */
	{2, 0x82, 0x82, 0x66, 0, OP(M | GR | ER, 0, 0, 1, 1)},
	/* rorx */
	{3, 0xf0, 0xf0, 0xf2, 1, OP(M | GW | ER, 0, 0, 1, 1)},
};

/* an instruction read: its prefixes, opcode map, opcode, ModRM */
struct kp_dd {
	struct kp_dec d;
	const uint8_t *m; /* the ModRM, or NULL when none is left */
	uint8_t map;	  /* 0 one-byte, 1 0f, 2 0f 38, 3 0f 3a */
	uint8_t op, pfx;  /* pfx: the mandatory prefix, 0x66, 0xf3, 0xf2 or 0 */
	uint8_t rex;	  /* REX, or VEX's W, R, X, B in REX's places */
	uint8_t vvvv;
	bool vex, vex_l;
};

/* a VEX prefix at p: false when cut short or of a map not known */
static bool kp_vex(struct kp_dd *x, const uint8_t **pp)
{
	static const uint8_t pfx[] = {0, 0x66, 0xf3, 0xf2};
	const uint8_t *p = *pp;
	uint8_t last;

	if (x->d.end - p < (p[0] == 0xc5 ? 3 : 4))
		return false;
	if (p[0] == 0xc5) {
		x->rex = 0x40 | ((uint8_t)~p[1] >> 5 & 4);
		x->map = 1;
		last = p[1];
		p += 2;
	} else {
		x->rex = 0x40 | ((uint8_t)~p[1] >> 5 & 7) | (p[2] >> 4 & 8);
		x->map = p[1] & 0x1f;
		last = p[2];
		p += 3;
	}
	x->vex = true;
	x->vvvv = (uint8_t)~last >> 3 & 15;
	x->vex_l = last & 4;
	x->pfx = pfx[last & 3];
	*pp = p;
	return x->map >= 1 && x->map <= 3;
}

static bool kp_dd_read(struct kp_dd *x, const uint8_t *b, size_t len)
{
	const uint8_t *p;

	memset(x, 0, sizeof(*x));
	if (!kp_dec_prefixes(&x->d, b, len))
		return false;
	p = x->d.p;
	x->rex = x->d.rex;
	/* f2 and f3 pick an instruction before 66 does (66 f3 0f b8: popcnt %ax) */
	x->pfx = x->d.pf3 ? 0xf3 : x->d.pf2 ? 0xf2 : x->d.p66 ? 0x66 : 0;
	if ((*p == 0xc4 || *p == 0xc5) && !x->rex) {
		if (!kp_vex(x, &p))
			return false;
	} else if (*p == 0x0f) {
		x->map = 1;
		if (++p < x->d.end && (*p == 0x38 || *p == 0x3a))
			x->map = *p++ == 0x38 ? 2 : 3;
	}
	if (p >= x->d.end)
		return false;
	x->op = *p++;
	x->m = p < x->d.end ? p : NULL;
	return true;
}

/* add, or, adc, sbb, and, sub, xor, cmp (n) on operands form (opcode & 7; 6, 7: 80, 81) */
static struct kp_op kp_alu(unsigned int n, unsigned int form)
{
	static const uint32_t rd[8] = {M | ER | GR | KD_EB | KD_GB,
				       M | ER | GR,
				       M | GR | ER | KD_EB | KD_GB,
				       M | GR | ER,
				       0,
				       0,
				       M | ER | KD_EB,
				       M | ER};
	static const uint32_t wr[8] = {EW, EW, GW, GW, 0, 0, EW, EW};
	struct kp_op o = OP(rd[form] | (n == 7 ? 0 : wr[form]), 0, FL, 1, 1);

	if (form == 4 || form == 5) { /* al, eax with an immediate */
		o.isrc = RAX;
		o.idst |= n == 7 ? 0 : RAX;
	}
	if (n == 2 || n == 3) /* adc, sbb */
		o.isrc |= FL;
	if (form < 4 && (n == 3 || n == 5 || n == 6)) /* sbb, sub, xor of two registers */
		o.f |= KD_ZI;
	return o;
}

/* rol, ror, rcl, rcr, shl, shr, sal, sar (reg) by an immediate, 1 or cl */
static struct kp_op kp_shift(uint8_t op, unsigned int reg)
{
	struct kp_op o = OP(M | ER | EW | (op & 1 ? 0 : KD_EB), 0, FL, 1, 1);

	if (op >= 0xd2) { /* by cl: flags unchanged when it is 0, 3 uops */
		o.isrc = RCX;
		o.lat = 2;
		o.uops = 3;
	}
	if (reg == 2 || reg == 3) { /* through the carry */
		o.isrc |= FL;
		o.lat = 6;
		o.uops = 8;
	}
	return o;
}

/* movs, cmps, stos, lods, scas, ins, outs: what each reads and writes, where */
static struct kp_op kp_string(const struct kp_dd *x)
{
	static const struct kp_op ops[] = {
		{KD_LD | KD_ST, RSI | RDI, RSI | RDI, RSI | RDI, 1, 4, KP_DK_REP_MOVS, 0},
		{KD_LD, RSI | RDI, RSI | RDI | FL, RSI | RDI, 1, 4, KP_DK_REP_STR, 0},
		{KD_ST, RAX | RDI, RDI, RDI, 1, 3, KP_DK_REP_STOS, 0},
		{KD_LD, RSI, RAX | RSI, RSI, 1, 2, KP_DK_REP_STR, 0},
		{KD_LD, RAX | RDI, RDI | FL, RDI, 1, 3, KP_DK_REP_STR, 0},
		{KD_ST, RDX | RDI, RDI, RDI, 1, 3, KP_DK_SERIAL, 0},
		{KD_LD, RDX | RSI, RSI, RSI, 1, 3, KP_DK_SERIAL, 0},
	};
	unsigned int i =
		x->op < 0xa0 ? 5 + ((x->op >> 1) & 1) : ((x->op - 0xa4) >> 1) - (x->op >= 0xaa);
	struct kp_op o = ops[i];

	if (x->pfx == 0xf3 || x->pfx == 0xf2) { /* rep: rcx times */
		o.isrc |= RCX;
		o.idst |= RCX;
	} else if (o.kind != KP_DK_SERIAL) {
		o.kind = KP_DK_NONE;
	}
	return o;
}

/* x87 (d8-df): the state bit, the flags of fcmov and fcomi, memory loaded or stored */
static struct kp_op kp_x87(const struct kp_dd *x)
{
	uint8_t m = x->m[0], reg = (m >> 3) & 7, op = x->op;
	struct kp_op o = OP(M, STATE, STATE, 3, 1);

	if ((op == 0xd8 || op == 0xdc || op == 0xde) && reg >= 6) /* fdiv, fdivr */
		o.lat = 15;
	if (m >> 6 != 3) {
		/* d9, db, dd, df /1-/3, /6, /7 store; the rest load */
		o.f |= op & 1 && reg != 0 && reg != 4 && reg != 5 ? EW : ER;
		return o;
	}
	if ((op == 0xda || op == 0xdb) && m < 0xe0) /* fcmovcc */
		o.isrc |= FL;
	if ((op == 0xdb || op == 0xdf) && m >= 0xe8 && m < 0xf8) /* fucomi, fcomi */
		o.idst |= FL;
	if (op == 0xdf && m == 0xe0) /* fnstsw %ax */
		o.idst |= RAX;
	return o;
}

/* 0f 01 on registers: the instructions its ModRM names */
static struct kp_op kp_op_0f01(uint8_t m)
{
	static const struct {
		uint8_t m;
		struct kp_op o;
	} ops[] = {
		{0xc8, OP(M, RAX | RCX | RDX, 0, 1, 1)},   /* monitor */
		{0xc9, OP(M, RAX | RCX, 0, 1, 1)},	   /* mwait */
		{0xca, OP(M, 0, 0, 1, 1)},		   /* clac */
		{0xcb, OP(M, 0, 0, 1, 1)},		   /* stac */
		{0xd0, OP(M, RCX, RAX | RDX, 1, 1)},	   /* xgetbv */
		{0xd1, OP(M, RAX | RCX | RDX, 0, 1, 1)},   /* xsetbv */
		{0xd5, OP(M, 0, 0, 1, 1)},		   /* xend */
		{0xd6, OP(M, 0, FL, 1, 1)},		   /* xtest */
		{0xe8, OP(M, 0, 0, 1, 1)},		   /* serialize */
		{0xee, OP(M, RCX, RAX | RDX, 1, 1)},	   /* rdpkru */
		{0xef, OP(M, RAX | RCX | RDX, 0, 1, 1)},   /* wrpkru */
		{0xf8, OP(M, 0, 0, 1, 1)},		   /* swapgs */
		{0xf9, OP(M, 0, RAX | RCX | RDX, 25, 20)}, /* rdtscp */
	};
	size_t i;

	for (i = 0; i < sizeof(ops) / sizeof(ops[0]); i++)
		if (ops[i].m == m)
			return ops[i].o;
	return (struct kp_op){0};
}

/* 0f ae on registers: the fences; rdfsbase, rdgsbase, wrfsbase, wrgsbase with f3 */
static struct kp_op kp_op_0fae(const struct kp_dd *x, unsigned int reg)
{
	if (!x->pfx && reg >= 5)
		return (struct kp_op)OP(M, 0, 0, 1, 1);
	if (x->pfx == 0xf3 && reg < 4)
		return (struct kp_op)OP(M | (reg < 2 ? EW : ER), 0, 0, 1, 1);
	return (struct kp_op){0};
}

/* the descriptor of a one-byte opcode */
static struct kp_op kp_op_1(const struct kp_dd *x)
{
	uint8_t op = x->op;
	unsigned int reg = x->m ? (x->m[0] >> 3) & 7 : 0;

	if (op < 0x40)
		return (op & 7) < 6 ? kp_alu(op >> 3, op & 7) : (struct kp_op){0};
	if (op == 0x90 && !(x->rex & 1)) /* nop, pause (with REX.B: xchg %r8, %rax) */
		return (struct kp_op)OP(0, 0, 0, 1, 1);
	if ((op >= 0xa4 && op <= 0xa7) || (op >= 0xaa && op <= 0xaf) || (op >= 0x6c && op <= 0x6f))
		return kp_string(x);
	if (!x->m)
		return kp_1[op];
	if (op == 0x80 || op == 0x81 || op == 0x83)
		return kp_alu(reg, op == 0x80 ? 6 : 7);
	if (op == 0xc0 || op == 0xc1 || (op >= 0xd0 && op <= 0xd3))
		return kp_shift(op, reg);
	if (op >= 0xd8 && op <= 0xdf)
		return kp_x87(x);
	return kp_1[op];
}

/* an exception to the map's table that applies, or NULL */
static const struct kp_op *kp_exc(const struct kp_dd *x)
{
	size_t i;

	for (i = 0; i < sizeof(kp_excs) / sizeof(kp_excs[0]); i++) {
		const struct kp_exc *e = &kp_excs[i];

		if (e->map == x->map && x->op >= e->first && x->op <= e->last &&
		    (e->pfx == 0xff || e->pfx == x->pfx) && (e->vex == 2 || e->vex == x->vex))
			return &e->o;
	}
	return NULL;
}

/* the descriptor of the instruction; lat 0 when it is not known */
static struct kp_op kp_lookup(const struct kp_dd *x)
{
	static const struct kp_op *const maps[] = {NULL, kp_0f, kp_0f38, kp_0f3a};
	const struct kp_op *e = kp_exc(x);
	unsigned int reg = x->m ? (x->m[0] >> 3) & 7 : 0;
	bool mem = x->m && x->m[0] >> 6 != 3;
	struct kp_op o;

	if (x->map == 0)
		o = kp_op_1(x);
	else if (e)
		o = *e;
	else if (x->map == 1 && x->op == 0x77) /* emms; vzeroupper, vzeroall */
		o = (struct kp_op)OP(0, 0, x->vex ? KP_R_XMMS : STATE, 1, x->vex_l ? 20 : 4);
	else if (x->map == 1 && x->op == 0x01 && x->m)
		o = mem ? kp_grps[G_7M][reg] : kp_op_0f01(x->m[0]);
	else if (x->map == 1 && x->op == 0xae && x->m)
		o = mem ? kp_grps[G_15M][reg] : kp_op_0fae(x, reg);
	else
		o = maps[x->map][x->op];
	if (o.grp)
		o = x->m ? kp_grps[o.grp][reg] : (struct kp_op){0};
	if (x->map == 1 && x->op == 0xae && mem && x->pfx == 0x66 && reg >= 6)
		o = (struct kp_op)OP(M | KD_LEA, 0, 0, 1, 1); /* clwb, clflushopt */
	return o;
}

/*
 * The registers the ModRM's memory operand's address reads, and whether it
 * has a base, an index and a displacement (a slow lea); false when its SIB
 * is cut off
 */
static bool kp_addr(const struct kp_dd *x, uint64_t *a, bool *three)
{
	uint8_t mod = x->m[0] >> 6, rm = x->m[0] & 7, sib;
	unsigned int index;

	*a = 0;
	*three = false;
	if (rm != 4) {
		if (mod != 0 || rm != 5) /* else rip-relative */
			*a = KP_R_BIT(rm | (x->rex & 1) << 3);
		return true;
	}
	if (x->d.end - x->m < 2)
		return false;
	sib = x->m[1];
	index = (sib >> 3 & 7) | (x->rex & 2) << 2;
	if (index != 4) /* else none */
		*a |= KP_R_BIT(index);
	if (mod != 0 || (sib & 7) != 5) /* else no base */
		*a |= KP_R_BIT((sib & 7) | (x->rex & 1) << 3);
	*three = index != 4 && mod != 0;
	return true;
}

/* register n of an operand's class: general (byte ones), vector, or the state */
static uint64_t kp_reg(const struct kp_dd *x, uint32_t f, bool g, unsigned int n)
{
	if (f & (g ? KD_GK : KD_EK))
		return STATE;
	if (f & (g ? KD_GX : KD_EX))
		return f & KD_MMX && !x->pfx && !x->vex ? STATE : KP_R_BIT(KP_R_XMM0 + (n & 15));
	if (f & (g ? KD_GB : KD_EB) && !x->rex && n >= 4 && n < 8)
		return KP_R_BIT(n - 4); /* ah, ch, dh, bh */
	return KP_R_BIT(n);
}

/*
 * With VEX, the vector operations that read and write one operand read
 * another instead, VEX.vvvv's: G = V op E (most), V = E op imm (the shifts
 * by an immediate).  Descriptors naming V are as they are.
 */
static uint32_t kp_vex_form(const struct kp_dd *x, uint32_t f)
{
	if (!x->vex || f & (VR | VW) || !(f & (KD_GX | KD_EX)))
		return f;
	if ((f & (GR | GW)) == (GR | GW))
		return (f & ~GR) | VR;
	if ((f & (ER | EW)) == (ER | EW))
		return (f & ~EW) | VW;
	return f;
}

/* the operands' registers and the memory accesses; false when bytes are missing */
static bool kp_apply(const struct kp_dd *x, const struct kp_op *o, struct kp_x86_deps *d,
		     bool *three)
{
	uint32_t f = kp_vex_form(x, o->f);
	unsigned int gn = 0, en = 0;
	uint64_t g = 0, e = 0, v = 0, a = 0;
	bool mem = false;

	if (f & M) {
		if (!x->m)
			return false;
		gn = (x->m[0] >> 3 & 7) | (x->rex & 4) << 1;
		en = (x->m[0] & 7) | (x->rex & 1) << 3;
		mem = x->m[0] >> 6 != 3;
		if (mem && !kp_addr(x, &a, three))
			return false;
		if (x->map == 0 && x->op == 0x8d && !mem) /* lea of a register */
			return false;
	} else if (f & KD_OP) {
		en = (x->op & 7) | (x->rex & 1) << 3;
	}
	g = kp_reg(x, f, true, gn);
	e = mem ? 0 : kp_reg(x, f, false, en);
	/* V is of G's class, but in the shifts by an immediate, E's */
	v = kp_reg(x, f, f & (KD_GX | KD_GK) || !(f & KD_EX), x->vvvv);
	d->src = o->isrc | (f & GR ? g : 0) | (f & ER ? e : 0) | (f & VR ? v : 0);
	d->dst = o->idst | (f & GW ? g : 0) | (f & EW ? e : 0) | (f & VW ? v : 0);
	if (mem && !(f & KD_NOP)) {
		d->src |= a;
		d->addr = f & KD_LEA ? 0 : a;
		d->load = !(f & KD_LEA) && f & ER;
		d->store = !(f & KD_LEA) && f & EW;
	}
	if (f & (KD_LD | KD_ST)) {
		d->src |= o->iaddr;
		d->addr |= o->iaddr;
		d->load |= !!(f & KD_LD);
		d->store |= !!(f & KD_ST);
	}
	if (f & KD_IS4)
		d->src |= KP_R_BIT(KP_R_XMM0 + (x->d.end[-1] >> 4));
	/* xor %eax,%eax, vpxor %xmm1,%xmm2,%xmm2: no register source, or just the flags */
	if (f & KD_ZI && !mem && (x->vex ? x->vvvv : gn) == en) {
		d->src = o->isrc;
		d->zero_idiom = 1;
	}
	/* movss, movsd between registers merge into G (VEX: V and E) */
	if (x->map == 1 && x->op == 0x10 && (x->pfx & 0xf0) == 0xf0 && !mem)
		d->src |= x->vex ? v : g;
	return true;
}

/* latency and uops beyond the descriptor's; the kind of the serializing ones */
static void kp_finish(const struct kp_dd *x, const struct kp_op *o, struct kp_x86_deps *d,
		      enum kp_ev ev, bool three)
{
	d->lat = o->lat;
	d->uops = o->uops;
	d->kind = o->kind;
	if (d->load && d->store && !(o->f & (KD_LD | KD_ST))) /* read-modify-write */
		d->uops++;
	if (x->map == 0 && x->op == 0xf7 && x->m && (x->m[0] >> 3 & 7) >= 6 && x->rex & 8)
		d->lat = 40; /* 64-bit div, idiv */
	if (o->f & KD_LEA && three)
		d->lat = 3;
	/* lock, xchg with memory: a full barrier */
	if (x->d.lock || (x->map == 0 && (x->op == 0x86 || x->op == 0x87) && d->load)) {
		d->lat = 18;
		d->uops += 7;
	}
	if (ev == KP_EV_SYSCALL || ev == KP_EV_SYSRET || ev == KP_EV_SYSEXIT)
		d->kind = KP_DK_SYSCALL;
	else if (ev != KP_EV_NONE && ev != KP_EV_CALL_IND && ev != KP_EV_JMP_IND && ev != KP_EV_RET)
		d->kind = KP_DK_SERIAL;
}

bool kp_x86_deps(const uint8_t *b, size_t len, struct kp_x86_deps *d)
{
	struct kp_dd x;
	struct kp_op o;
	bool three = false;

	*d = (struct kp_x86_deps){.lat = 1, .uops = 1};
	if (!kp_dd_read(&x, b, len))
		return false;
	o = kp_lookup(&x);
	if (!o.lat || !kp_apply(&x, &o, d, &three)) {
		*d = (struct kp_x86_deps){.lat = 1, .uops = 1};
		return false;
	}
	kp_finish(&x, &o, d, kp_x86_event(b, len), three);
	d->known = 1;
	return true;
}
