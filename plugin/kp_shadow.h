/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * The shadow stack of the calls into the string functions (kp_strsite.h,
 * docs/model.md "The buffers string instructions fill"), and what it needs
 * of an instruction's bytes: apart from QEMU so that it can be tested on
 * its own (tests/unit/t_model_shadow.sh).  A fixed array: nothing is
 * allocated as the guest runs.
 */
#ifndef KP_SHADOW_H
#define KP_SHADOW_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#define KP_SHADOW    8	/* calls into the string functions followed at once */
#define KP_SHADOW_FN 64 /* string functions (kp_vmlinux.h's KP_STRFN_MAX) */

/* one call followed: where it was made, the stack slot its return address went to */
struct kp_shadow_e {
	uint64_t site, sp;
	/*
	 * a call made by a slab allocator (memset zeroing an object for
	 * init_on_alloc): the call into that allocator, whose first argument
	 * is the cache; 0 else
	 */
	uint64_t alloc;
	int fn; /* the function it called */
};

struct kp_shadow {
	struct kp_shadow_e st[KP_SHADOW];
	unsigned int depth;
	uint64_t jumps[KP_SHADOW_FN]; /* per function, those its jumps reach (bits by index) */
	uint64_t allocs;	      /* the functions that are slab allocators (bits by index) */
};

/*
 * a call at site into function fn stored its return address at sp; from:
 * the function followed that holds site (-1 none)
 */
void kp_shadow_call(struct kp_shadow *s, uint64_t site, uint64_t sp, int fn, int from);
/* a ret loaded its return address from sp */
void kp_shadow_ret(struct kp_shadow *s, uint64_t sp);
/* function from jumps to function to's entry: to takes from's call */
void kp_shadow_jump(struct kp_shadow *s, int from, int to);
/* the call site a rep string instruction of function fn runs for: 0 when not known */
uint64_t kp_shadow_site(const struct kp_shadow *s, int fn);
/* the call into the slab allocator that made that call: 0 when none */
uint64_t kp_shadow_alloc(const struct kp_shadow *s, int fn);

/* the target of a direct call (e8: *call) or jump (e9, eb) of n bytes b at va; 0: none */
uint64_t kp_shadow_branch(const uint8_t *b, size_t n, uint64_t va, bool *call);
/* a near ret (c3, c2 iw, rep ret) */
bool kp_shadow_is_ret(const uint8_t *b, size_t n);
/* a rep (f3, f2) movs, stos, lods, cmps or scas, other prefixes and REX allowed */
bool kp_shadow_is_rep_string(const uint8_t *b, size_t n);

#endif
