// SPDX-License-Identifier: GPL-2.0-only
/*
 * The programs of tests/bench/model_est.sh: est_cycles against native time
 * for user code whose cost is mostly one thing,
 *   model-est chase N       N loads of a random pointer chase over 256 MiB
 *                           of 4 KiB pages (MADV_NOHUGEPAGE): each misses
 *                           L1, LL and the TLB
 *   model-est fence N       N rounds of a store, LFENCE, an add, MFENCE
 *   model-est retpoline N   N calls through a retpoline thunk built as
 *                           Linux's __x86_indirect_thunk_rax (named so)
 * Each prints nothing.  The loop (noinline functions of their own, which
 * report --model's rows name: kp_est_chase; kp_est_fence; kp_est_retpoline,
 * the thunk and kp_est_target) runs between the model's markers,
 * plain nops natively; N = 0 runs the setup alone, so that the loop's
 * native time is time(N) - time(0).  Built statically for the VM.
 */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>

#include "../../include/model_marker.h"
#include "../../include/retpoline_thunk.h"

#define CHASE_BYTES (256UL << 20)
#define LINES (CHASE_BYTES / 64)

/* Linux's retpoline thunk, and a function that only returns. */
asm(".text\n"
    ".globl __x86_indirect_thunk_rax\n"
    ".type __x86_indirect_thunk_rax, @function\n"
    ".p2align 5\n"
    "__x86_indirect_thunk_rax:\n" RETPOLINE_THUNK_RAX
    ".size __x86_indirect_thunk_rax, .-__x86_indirect_thunk_rax\n"
    ".p2align 4\n"
    ".type kp_est_target, @function\n"
    "kp_est_target: ret\n"
    ".size kp_est_target, .-kp_est_target\n");

__attribute__((noinline)) void *kp_est_chase(void *p, long n)
{
	for (; n >= 4; n -= 4)
		asm volatile("mov (%0), %0\n mov (%0), %0\n mov (%0), %0\n mov (%0), %0"
			     : "+r"(p)::"memory");
	return p;
}

__attribute__((noinline)) void kp_est_fence(long *buf, long n)
{
	asm volatile("1: mov %1, (%2)\n lfence\n add $1, %1\n mfence\n dec %0\n jnz 1b"
		     : "+r"(n)
		     : "r"(0L), "r"(buf)
		     : "memory", "cc");
}

__attribute__((noinline)) void kp_est_retpoline(long n)
{
	/* below the red zone: the calls push onto the stack */
	asm volatile("sub $128, %%rsp\n"
		     "1: lea kp_est_target(%%rip), %%rax\n call __x86_indirect_thunk_rax\n"
		     "dec %0\n jnz 1b\n"
		     "add $128, %%rsp"
		     : "+r"(n)
		     :
		     : "rax", "memory", "cc");
}

/*
 * Every line of 256 MiB in one cycle, in a full-period LCG's order (a = 1
 * mod 4, c odd, modulo the lines' power of two): no shuffle array to
 * build, so the setup is short under the model too.
 */
static void *chase_setup(void)
{
	const uint64_t a = 0x5deece66dULL % LINES / 4 * 4 + 1, c = 12345;
	char *m = mmap(NULL, CHASE_BYTES, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS,
		       -1, 0);
	uint64_t i, next;

	if (m == MAP_FAILED)
		return NULL;
	madvise(m, CHASE_BYTES, MADV_NOHUGEPAGE);
	for (i = 0; i < LINES; i++) {
		next = (a * i + c) % LINES;
		*(void **)(m + i * 64) = m + next * 64;
	}
	return m;
}

int main(int argc, char **argv)
{
	static long buf[8];
	long n = argc == 3 ? atol(argv[2]) : -1;
	void *p = NULL;

	if (n < 0 || (strcmp(argv[1], "chase") && strcmp(argv[1], "fence") &&
		      strcmp(argv[1], "retpoline")))
		return 2;
	if (!strcmp(argv[1], "chase") && !(p = chase_setup()))
		return 1;
	if (!n)
		return 0;
	model_marker_start();
	if (p)
		p = kp_est_chase(p, n);
	else if (!strcmp(argv[1], "fence"))
		kp_est_fence(buf, n);
	else
		kp_est_retpoline(n);
	model_marker_stop();
	return p == (void *)1;
}
