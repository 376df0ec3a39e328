// SPDX-License-Identifier: GPL-2.0-only
/*
 * The plugin's shadow stack of the calls into the string functions
 * (plugin/kp_shadow.c, no QEMU needed), on the call and ret sequences the
 * kernel runs: a call through memset's tail jump, an interrupt on its own
 * stack and a page fault on the same one inside a helper, a ret never
 * seen, two tasks switched inside helpers, an overflow, a rep whose top
 * entry called another function; and the bytes it decodes: calls, jumps,
 * rets and rep string instructions.  Prints each wrong answer, and a count.
 */
#include <stdio.h>
#include <string.h>

#include "kp_shadow.h"
#include "model_harness.h"

enum { MEMSET, MEMSET_ERMS, CLEAR_PAGE_ERMS, MEMCPY_ERMS, COPY_USER, CACHE_ALLOC, KMALLOC };

#define TASK1 0xffffc90000014000ull /* a task's stack: 16 KiB, aligned */
#define TASK2 0xffffc90000024000ull /* another task's, right above a guard page */
#define IRQ   0xffff88807fc04000ull /* the CPU's IRQ stack */

static unsigned int checks;

static void site(const char *what, const struct kp_shadow *s, int fn, uint64_t want)
{
	checks++;
	check(what, kp_shadow_site(s, fn), want);
}

/* memset's caller is memset_erms's site; its ret pops it */
static void tail_jump(void)
{
	struct kp_shadow s = {0};

	kp_shadow_jump(&s, MEMSET, MEMSET_ERMS);
	kp_shadow_call(&s, 0x1000, TASK1 + 0x3f00, MEMSET, -1);
	site("memset -> memset_erms", &s, MEMSET_ERMS, 0x1000);
	site("memset -> memcpy_erms: no jump seen", &s, MEMCPY_ERMS, 0);
	kp_shadow_ret(&s, TASK1 + 0x3f00);
	site("after the ret", &s, MEMSET_ERMS, 0);
}

/* an interrupt's calls on the IRQ stack, a fault's deeper on the same stack */
static void nested(void)
{
	struct kp_shadow s = {0};

	kp_shadow_call(&s, 0x2000, TASK1 + 0x3e00, CLEAR_PAGE_ERMS, -1);
	kp_shadow_call(&s, 0x3000, IRQ + 0x3f80, MEMCPY_ERMS, -1);
	site("in the interrupt", &s, MEMCPY_ERMS, 0x3000);
	kp_shadow_ret(&s, IRQ + 0x3f80);
	site("back from the interrupt", &s, CLEAR_PAGE_ERMS, 0x2000);
	kp_shadow_call(&s, 0x4000, TASK1 + 0x3a00, MEMSET_ERMS, -1);
	site("in the fault", &s, MEMSET_ERMS, 0x4000);
	kp_shadow_ret(&s, TASK1 + 0x3a00);
	site("back from the fault", &s, CLEAR_PAGE_ERMS, 0x2000);
	/* a ret above the helper's frame on its stack: its ret was never seen */
	kp_shadow_ret(&s, TASK1 + 0x3f00);
	site("unwound past", &s, CLEAR_PAGE_ERMS, 0);
	checks++;
	check("depth after unwinding", s.depth, 0);
}

/* a call where a stale entry's frame was: the stale one goes */
static void stale(void)
{
	struct kp_shadow s = {0};

	kp_shadow_call(&s, 0x5000, TASK1 + 0x3d00, COPY_USER, -1);
	kp_shadow_call(&s, 0x6000, TASK1 + 0x3d00, MEMCPY_ERMS, -1);
	checks++;
	check("a frame reused", s.depth, 1);
	site("the new call", &s, MEMCPY_ERMS, 0x6000);
}

/* task 1 sleeps inside copy_user, task 2 runs a helper, task 1 resumes */
static void switched(void)
{
	struct kp_shadow s = {0};

	kp_shadow_call(&s, 0x7000, TASK1 + 0x3c00, COPY_USER, -1);
	kp_shadow_call(&s, 0x8000, TASK2 + 0x3000, CLEAR_PAGE_ERMS, -1);
	kp_shadow_ret(&s, TASK2 + 0x3000);
	site("task 1 resumed", &s, COPY_USER, 0x7000);
	/* task 2 sleeps in copy_user too; task 1 returns from under it */
	kp_shadow_call(&s, 0x9000, TASK2 + 0x3000, COPY_USER, -1);
	kp_shadow_ret(&s, TASK1 + 0x3c00);
	site("task 2's entry stays", &s, COPY_USER, 0x9000);
	checks++;
	check("task 1's entry gone", s.depth, 1);
}

/* nine calls on nine stacks: the oldest is dropped */
static void overflow(void)
{
	struct kp_shadow s = {0};
	uint64_t i;

	for (i = 0; i < 9; i++)
		kp_shadow_call(&s, 0xa000 + i, TASK1 + (i << 16), MEMCPY_ERMS, -1);
	checks++;
	check("depth", s.depth, KP_SHADOW);
	checks++;
	check("the oldest kept", s.st[0].site, 0xa001);
	site("the newest on top", &s, MEMCPY_ERMS, 0xa008);
}

/*
 * kmem_cache_alloc zeroing the object it returns (init_on_alloc): memset's
 * call is made by the allocator whose call is on top, so the allocator's
 * call comes with it; the same memset called by anything else does not
 */
static void allocator(void)
{
	struct kp_shadow s = {.allocs = 1ull << CACHE_ALLOC};

	kp_shadow_jump(&s, MEMSET, MEMSET_ERMS);
	kp_shadow_call(&s, 0xb000, TASK1 + 0x3f00, CACHE_ALLOC, -1);
	kp_shadow_call(&s, 0xc000, TASK1 + 0x3ec0, MEMSET, CACHE_ALLOC);
	site("the allocator's memset", &s, MEMSET_ERMS, 0xc000);
	checks++;
	check("its allocator's call", kp_shadow_alloc(&s, MEMSET_ERMS), 0xb000);
	kp_shadow_ret(&s, TASK1 + 0x3ec0);
	checks++;
	check("the memset returned", kp_shadow_alloc(&s, MEMSET_ERMS), 0);
	/* an interrupt inside the allocator: its memset is not the allocator's */
	kp_shadow_call(&s, 0xd000, IRQ + 0x3f80, MEMSET, -1);
	checks++;
	check("an interrupt's memset", kp_shadow_alloc(&s, MEMSET_ERMS), 0);
	kp_shadow_ret(&s, IRQ + 0x3f80);
	/* a call the allocator makes from a function it calls that is not followed */
	kp_shadow_call(&s, 0xe000, TASK1 + 0x3e00, MEMSET, MEMCPY_ERMS);
	checks++;
	check("a memset from elsewhere", kp_shadow_alloc(&s, MEMSET_ERMS), 0);
}

/* kmalloc_trace calling __kmem_cache_alloc_node, which zeroes: the outer allocator's call */
static void nested_allocators(void)
{
	struct kp_shadow s = {.allocs = 1ull << CACHE_ALLOC | 1ull << KMALLOC};

	kp_shadow_call(&s, 0xb000, TASK1 + 0x3f00, KMALLOC, -1);
	kp_shadow_call(&s, 0xb100, TASK1 + 0x3ee0, CACHE_ALLOC, KMALLOC);
	kp_shadow_call(&s, 0xc000, TASK1 + 0x3ec0, MEMSET, CACHE_ALLOC);
	site("the inner allocator's memset", &s, MEMSET, 0xc000);
	checks++;
	check("the outer allocator's call", kp_shadow_alloc(&s, MEMSET), 0xb000);
}

struct bytes {
	const char *what;
	uint8_t b[8];
	size_t n;
	int kind; /* 0 none, 1 call, 2 jump, 3 ret, 4 rep string */
	uint64_t target;
};

static void decode(void)
{
	static const struct bytes t[] = {
		{"call rel32", {0xe8, 0xfb, 0xff, 0xff, 0xff}, 5, 1, 0x1000},
		{"jmp rel32", {0xe9, 0x0b, 0x00, 0x00, 0x00}, 5, 2, 0x1010},
		{"jmp rel8 back", {0xeb, 0xfe}, 2, 2, 0x1000},
		{"ret", {0xc3}, 1, 3, 0},
		{"ret imm16", {0xc2, 0x08, 0x00}, 3, 3, 0},
		{"rep ret", {0xf3, 0xc3}, 2, 3, 0},
		{"rep stosb", {0xf3, 0xaa}, 2, 4, 0},
		{"rep stosq", {0xf3, 0x48, 0xab}, 3, 4, 0},
		{"rep movsb", {0xf3, 0xa4}, 2, 4, 0},
		{"rep movsw", {0x66, 0xf3, 0xa5}, 3, 4, 0},
		{"stosb alone", {0xaa}, 1, 0, 0},
		{"popcnt (f3 0f b8)", {0xf3, 0x0f, 0xb8, 0xc0}, 4, 0, 0},
		{"call *%rax", {0xff, 0xd0}, 2, 0, 0},
	};
	size_t i;

	for (i = 0; i < sizeof(t) / sizeof(t[0]); i++) {
		bool call;
		uint64_t to = kp_shadow_branch(t[i].b, t[i].n, 0x1000, &call);
		int kind = to					     ? (call ? 1 : 2)
			   : kp_shadow_is_ret(t[i].b, t[i].n)	     ? 3
			   : kp_shadow_is_rep_string(t[i].b, t[i].n) ? 4
								     : 0;

		checks += 2;
		check(t[i].what, kind, t[i].kind);
		check(t[i].what, to, t[i].target);
	}
}

int main(void)
{
	tail_jump();
	nested();
	stale();
	switched();
	overflow();
	allocator();
	nested_allocators();
	decode();
	printf("%u checks, %s\n", checks, bad ? "some wrong" : "0 wrong");
	return bad;
}
