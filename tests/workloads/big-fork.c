/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * big-fork: LEBench's "big fork".  The parent owns 6000 separate 4 KiB shared
 * anonymous mappings, so every fork() has to duplicate 6000 VMAs; we time how
 * long fork() takes to return in the parent.
 *
 * Tracers count on this program's syscalls: it makes exactly N clone calls
 * (one per fork(), nothing else forks or spawns threads) and N + 1
 * exit_group calls (N children, then the parent).
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include <sys/mman.h>
#include <sys/wait.h>

#include "count_arg.h"
#include "kbest.h"
#include "many_vmas.h"

#define DEFAULT_ITERS 5000

static void usage(FILE *f, const char *prog)
{
	fprintf(f,
		"usage: %s [ITERATIONS]\n"
		"  map %d separate %d-byte shared anonymous pages, then time ITERATIONS\n"
		"  (default %d) fork()s whose children exit at once\n",
		prog, NR_MAPPINGS, MAP_SIZE, DEFAULT_ITERS);
}

int main(int argc, char **argv)
{
	long n = DEFAULT_ITERS, i;
	long long *lat, total = 0;
	double best, spread;

	n = count_arg(argc, argv, DEFAULT_ITERS, "iteration count", usage);
	if (n <= 0)
		return n < 0;

	lat = calloc(n, sizeof(*lat));
	if (!lat) {
		fprintf(stderr, "big-fork: no memory for %ld latencies\n", n);
		return 1;
	}
	if (map_pages("big-fork"))
		return 1;
	/* the children must not inherit and flush our buffered output */
	fflush(NULL);

	for (i = 0; i < n; i++) {
		long long t0 = now_ns();
		int status;
		pid_t pid = fork();

		if (pid == 0)
			_exit(0);
		lat[i] = now_ns() - t0;
		if (pid < 0) {
			fprintf(stderr, "big-fork: fork %ld: %s\n", i, strerror(errno));
			return 1;
		}
		if (waitpid(pid, &status, 0) != pid) {
			fprintf(stderr, "big-fork: waitpid %d: %s\n", pid, strerror(errno));
			return 1;
		}
		if (!WIFEXITED(status) || WEXITSTATUS(status)) {
			fprintf(stderr, "big-fork: child %d ended with status 0x%x\n", pid, status);
			return 1;
		}
		total += lat[i];
	}

	best = kbest(lat, n, &spread);
	printf("big-fork: %ld forks, %d mappings: mean %.1f us, kbest(%d, %d%%) %.1f us"
	       " (spread %.1f%%, %s)\n",
	       n, NR_MAPPINGS, total / 1e3 / n, KBEST_K, (int)(KBEST_TOL * 100), best / 1e3,
	       spread * 100, spread <= KBEST_TOL ? "within tolerance" : "NOT within tolerance");
	free(lat);
	return 0;
}
