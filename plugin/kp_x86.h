/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * What an x86-64 instruction may do under QEMU's TCG, told from its bytes
 * alone, for the machine model (plugin/kp_model.c): whether it can leave its
 * translation block early, whether it touches memory, whether it changes
 * address translation.  Apart from QEMU so that it can be tested on its own
 * (tests/unit/t_model_x86.sh).  Anything not recognised gets the answer
 * that costs speed, never exactness.
 */
#ifndef KP_X86_H
#define KP_X86_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* the kernel's half of the address space under 4- and 5-level paging */
#define KP_KERNEL_START 0xffff800000000000ull

/* it touches registers only, and no helper of it can raise an exception */
bool kp_x86_regs_only(const uint8_t *b, size_t len);

/*
 * it cannot leave its block early when it runs in the Linux kernel (code at
 * KP_KERNEL_START or above): registers only, or a plain access to memory
 * Linux never lets fault (see kp_x86.c)
 */
bool kp_x86_kernel_stays(const uint8_t *b, size_t len);

/*
 * it can leave its block early in the Linux kernel only by a fault of its
 * memory operand, wherever that is: what kp_x86_kernel_stays accepts, on
 * any memory (see kp_model.h for where a kernel access cannot fault)
 */
bool kp_x86_kernel_plain(const uint8_t *b, size_t len);

/* it may change what a virtual address maps to, or tells the CPU it did */
bool kp_x86_flushes_tlb(const uint8_t *b, size_t len);

/*
 * An instruction's kind, for the model's events (the raw table's EV column,
 * docs/model.md): a static property of its bytes.  KP_EV_NONE is "-".
 */
enum kp_ev {
	KP_EV_NONE,
	KP_EV_LFENCE,
	KP_EV_MFENCE,
	KP_EV_SFENCE,
	KP_EV_CPUID,
	KP_EV_WRMSR,
	KP_EV_RDMSR,
	KP_EV_VERW,
	KP_EV_IRET,
	KP_EV_SYSRET,
	KP_EV_SYSEXIT,
	KP_EV_SWAPGS,
	KP_EV_MOV_CR3,
	KP_EV_MOV_CR,
	KP_EV_MOV_DR,
	KP_EV_INVLPG,
	KP_EV_INVPCID,
	KP_EV_WBINVD,
	KP_EV_LXDT,
	KP_EV_SERIALIZE,
	KP_EV_CALL_IND,
	KP_EV_JMP_IND,
	KP_EV_RET,
	KP_EV_SYSCALL,
	KP_EV_KINDS
};

/* the kinds' words in the table, [KP_EV_NONE] "-" */
extern const char *const kp_ev_names[KP_EV_KINDS];

enum kp_ev kp_x86_event(const uint8_t *b, size_t len);

/* a MOV to a control register: its number (CR8 and up with REX.R), else -1 */
int kp_x86_mov_to_cr(const uint8_t *b, size_t len);

/*
 * The tiny symbolic evaluation of a block's instructions before a MOV to
 * CR3 (the plugin reads no registers): per general register, whether its
 * value is the CR3 it was read from (mov %cr3,%reg) or unknown, with some
 * bits known on top: value = (base & ~mask) | val.  A register whose mask
 * is all ones holds a constant.  Instructions not understood make every
 * register unknown.
 */
struct kp_x86_sym {
	uint64_t mask[16], val[16];
	uint16_t cr3; /* bit r: register r's base is the old CR3 */
};

/* what a MOV to CR3 writes, relative to the CR3 before it */
struct kp_x86_cr3 {
	bool derived;	    /* the value is the old CR3 with known bits changed, or a constant */
	uint64_t mask, val; /* its known bits (see struct kp_x86_sym) */
};

/* bit 63 of a value written to CR3: keep the PCID's TLB entries */
#define KP_CR3_NOFLUSH (1ull << 63)

/* a block's start: nothing known */
void kp_x86_sym_init(struct kp_x86_sym *s);

/*
 * The next instruction of the block: its effect on the registers; true,
 * with *out, when it is a MOV to CR3
 */
bool kp_x86_sym_step(struct kp_x86_sym *s, const uint8_t *b, size_t len, struct kp_x86_cr3 *out);

/* whether such a write flushes: not when bit 63 is known set */
static inline bool kp_x86_cr3_flushes(const struct kp_x86_cr3 *c)
{
	return !(c->mask & c->val & KP_CR3_NOFLUSH);
}

#endif
