/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * What an x86-64 instruction may do under QEMU's TCG, told from its bytes
 * alone, for the machine model (plugin/kp_model.c): whether it can leave its
 * translation block early (it touches registers only), whether it changes
 * address translation.  Apart from QEMU so that it can be tested on its own
 * (tests/unit/t_model_x86.sh).  Anything not recognised gets the answer
 * that costs speed, never exactness.
 */
#ifndef KP_X86_H
#define KP_X86_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* it touches registers only, and no helper of it can raise an exception */
bool kp_x86_regs_only(const uint8_t *b, size_t len);

/* it may change what a virtual address maps to, or tells the CPU it did */
bool kp_x86_flushes_tlb(const uint8_t *b, size_t len);

#endif
