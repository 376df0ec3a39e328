/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * cpu-burn: a known user-space hot spot for the CPU-clock sampler.  Nearly
 * every sample must land in kp_burn_hot_loop with kp_burn_outer and main
 * under it, so tests can check symbolization and stack unwinding by name.
 */
#include <errno.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

/*
 * Tests look the functions up by exact name, so GCC must neither inline them
 * nor emit specialised copies such as kp_burn_hot_loop.constprop.0.
 */
#ifdef __clang__
#define KP_KEEP __attribute__((noinline))
#else
#define KP_KEEP __attribute__((noinline, noclone))
#endif

/* clock reads are rare enough to keep samples out of the vDSO */
#define CHUNK (1u << 20)

/* stores the compiler cannot drop keep the arithmetic alive */
static volatile uint64_t sink;

static double now_s(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec + ts.tv_nsec / 1e9;
}

KP_KEEP uint64_t kp_burn_hot_loop(double deadline)
{
	uint64_t x = 88172645463325252ULL, iters = 0;
	unsigned int i;

	do {
		for (i = 0; i < CHUNK; i++) {
			/* xorshift64: a dependency chain with no closed form */
			x ^= x << 13;
			x ^= x >> 7;
			x ^= x << 17;
			sink = x;
		}
		iters += CHUNK;
	} while (now_s() < deadline);
	return iters;
}

KP_KEEP uint64_t kp_burn_outer(double seconds)
{
	uint64_t iters = kp_burn_hot_loop(now_s() + seconds);

	/* work after the call stops it becoming a tail call, which would drop this frame */
	sink = iters;
	return iters;
}

int main(int argc, char **argv)
{
	double seconds = 1.0;
	uint64_t iters;

	if (argc > 1 && (!strcmp(argv[1], "-h") || !strcmp(argv[1], "--help"))) {
		printf("usage: %s [SECONDS]\n  spin in kp_burn_hot_loop for SECONDS (default 1.0)\n",
		       argv[0]);
		return 0;
	}
	if (argc > 2) {
		fprintf(stderr, "usage: %s [SECONDS]\n", argv[0]);
		return 1;
	}
	if (argc == 2) {
		char *end;

		errno = 0;
		seconds = strtod(argv[1], &end);
		if (errno || end == argv[1] || *end || !(seconds >= 0)) {
			fprintf(stderr, "cpu-burn: bad duration '%s'\n", argv[1]);
			return 1;
		}
	}

	iters = kp_burn_outer(seconds);
	printf("cpu-burn: %llu iterations in %.2f s\n", (unsigned long long)iters, seconds);
	return 0;
}
