// SPDX-License-Identifier: GPL-2.0-only
/* The shadow stack of the calls into the string functions (kp_shadow.h). */
#include "kp_shadow.h"

#include <string.h>

/*
 * The kernel's stacks (THREAD_SIZE, the IRQ stacks) are 16 KiB, aligned to
 * their size: two addresses in one aligned block are on one stack, and a
 * frame on another stack is never unwound by this one's calls and rets.
 */
#define KP_STACK_BITS 14

/*
 * Drop the calls whose frames lie at or below sp on its stack: a ret
 * loading from sp, or a call storing there, ends them (the one returning
 * and any whose ret was never seen: a fault's fixup, a frame abandoned),
 * wherever they lie: the calls of tasks switched out inside a helper
 * interleave.  A call followed on another stack (an interrupt's, another
 * task's) stays.
 */
static void kp_shadow_unwind(struct kp_shadow *s, uint64_t sp)
{
	unsigned int i, n = 0;

	for (i = 0; i < s->depth; i++)
		if (s->st[i].sp > sp || ((sp ^ s->st[i].sp) >> KP_STACK_BITS))
			s->st[n++] = s->st[i];
	s->depth = n;
}

void kp_shadow_call(struct kp_shadow *s, uint64_t site, uint64_t sp, int fn, int from)
{
	const struct kp_shadow_e *top;
	uint64_t alloc = 0;

	kp_shadow_unwind(s, sp);
	/*
	 * made by the allocator whose call is on top: it runs that call (nothing between); of
	 * allocators nested (kmalloc_trace calling __kmem_cache_alloc_node), the outermost's
	 */
	top = s->depth ? &s->st[s->depth - 1] : NULL;
	if (top && from >= 0 && from < KP_SHADOW_FN && top->fn == from && (s->allocs >> from & 1))
		alloc = top->alloc ?: top->site;
	if (s->depth == KP_SHADOW) {
		memmove(s->st, s->st + 1, sizeof(s->st[0]) * (KP_SHADOW - 1));
		s->depth--;
	}
	s->st[s->depth++] = (struct kp_shadow_e){site, sp, alloc, fn};
}

void kp_shadow_ret(struct kp_shadow *s, uint64_t sp)
{
	if (s->depth)
		kp_shadow_unwind(s, sp);
}

void kp_shadow_jump(struct kp_shadow *s, int from, int to)
{
	if (from >= 0 && from < KP_SHADOW_FN && to >= 0 && to < KP_SHADOW_FN && from != to)
		s->jumps[from] |= 1ull << to;
}

/* the call on top when fn runs for it (it called fn, or jumped there), else NULL */
static const struct kp_shadow_e *kp_shadow_top(const struct kp_shadow *s, int fn)
{
	const struct kp_shadow_e *top = s->depth ? &s->st[s->depth - 1] : NULL;

	if (top && fn >= 0 && fn < KP_SHADOW_FN && (top->fn == fn || (s->jumps[top->fn] >> fn & 1)))
		return top;
	return NULL;
}

uint64_t kp_shadow_site(const struct kp_shadow *s, int fn)
{
	const struct kp_shadow_e *top = kp_shadow_top(s, fn);

	return top ? top->site : 0;
}

uint64_t kp_shadow_alloc(const struct kp_shadow *s, int fn)
{
	const struct kp_shadow_e *top = kp_shadow_top(s, fn);

	return top ? top->alloc : 0;
}

uint64_t kp_shadow_branch(const uint8_t *b, size_t n, uint64_t va, bool *call)
{
	int32_t rel;

	*call = n == 5 && b[0] == 0xe8;
	if (n == 5 && (b[0] == 0xe8 || b[0] == 0xe9)) {
		memcpy(&rel, b + 1, sizeof(rel));
		return va + 5 + (int64_t)rel;
	}
	if (n == 2 && b[0] == 0xeb)
		return va + 2 + (int8_t)b[1];
	return 0;
}

bool kp_shadow_is_ret(const uint8_t *b, size_t n)
{
	return (n == 1 && b[0] == 0xc3) || (n == 3 && b[0] == 0xc2) ||
	       (n == 2 && b[0] == 0xf3 && b[1] == 0xc3);
}

bool kp_shadow_is_rep_string(const uint8_t *b, size_t n)
{
	static const uint8_t prefixes[] = {0xf3, 0xf2, 0x66, 0x67, 0x2e,
					   0x3e, 0x26, 0x36, 0x64, 0x65};
	bool rep = false;
	size_t i;

	for (i = 0; i < n && memchr(prefixes, b[i], sizeof(prefixes)); i++)
		rep |= b[i] == 0xf3 || b[i] == 0xf2;
	if (i < n && (b[i] & 0xf0) == 0x40)
		i++;
	return rep && i + 1 == n &&
	       ((b[i] >= 0xa4 && b[i] <= 0xa7) || (b[i] >= 0xaa && b[i] <= 0xaf));
}
