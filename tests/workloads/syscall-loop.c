/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * syscall-loop: the cheapest real syscall, back to back, to measure what a
 * tracer adds to every syscall.  getppid takes no locks and touches almost no
 * state, so the time per call is mostly entry/exit plus tracing overhead.
 *
 * Tests assert that a tracer sees exactly N getppid calls: this file must
 * make no other getppid call, and we go through syscall(2) rather than
 * getppid(3) so no libc could ever answer from a cache.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include <sys/syscall.h>

#include "count_arg.h"

#define DEFAULT_CALLS 1000000ULL

static void usage(FILE *f, const char *prog)
{
	fprintf(f, "usage: %s [N]\n  make N (default %llu) getppid syscalls and print ns/call\n",
		prog, DEFAULT_CALLS);
}

static long long now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec * 1000000000LL + ts.tv_nsec;
}

int main(int argc, char **argv)
{
	long long n, i;
	long long t0, t1;

	n = count_arg(argc, argv, DEFAULT_CALLS, "call count", usage);
	if (n <= 0)
		return n < 0;

	/* only the loop is timed: startup and printing are not per-call costs */
	t0 = now_ns();
	for (i = 0; i < n; i++)
		syscall(SYS_getppid);
	t1 = now_ns();

	printf("syscall-loop: %lld getppid calls, %.1f ns/call\n", n, (double)(t1 - t0) / n);
	return 0;
}
