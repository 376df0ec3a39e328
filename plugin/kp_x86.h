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
 * any memory (see kp_model.c for where a kernel access cannot fault)
 */
bool kp_x86_kernel_plain(const uint8_t *b, size_t len);

/* it may change what a virtual address maps to, or tells the CPU it did */
bool kp_x86_flushes_tlb(const uint8_t *b, size_t len);

#endif
