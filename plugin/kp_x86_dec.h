/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * The prefixes of an x86-64 instruction, read once for the decoders of
 * plugin/kp_x86.c and plugin/kp_x86_deps.c: internal to the plugin.
 */
#ifndef KP_X86_DEC_H
#define KP_X86_DEC_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#define KP_X86_MAX_LEN 15 /* bytes in an instruction, at most */

/* an instruction's prefixes read: where its opcode starts, and which it had */
struct kp_dec {
	const uint8_t *p, *end;
	uint8_t rex;
	bool p66, pf2, pf3, lock;
};

/* false when nothing is left after the prefixes (or there are too many) */
bool kp_dec_prefixes(struct kp_dec *d, const uint8_t *b, size_t len);

#endif
