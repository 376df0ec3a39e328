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

#define NR_MAPPINGS   6000
#define MAP_SIZE      4096
#define DEFAULT_ITERS 5000
#define KBEST_K	      5
#define KBEST_TOL     0.05

static void usage(FILE *f, const char *prog)
{
	fprintf(f,
		"usage: %s [ITERATIONS]\n"
		"  map %d separate %d-byte shared anonymous pages, then time ITERATIONS\n"
		"  (default %d) fork()s whose children exit at once\n",
		prog, NR_MAPPINGS, MAP_SIZE, DEFAULT_ITERS);
}

static long long now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec * 1000000000LL + ts.tv_nsec;
}

/* Lines of /proc/self/maps, i.e. VMAs; -1 when it cannot be read. */
static long count_vmas(void)
{
	FILE *f = fopen("/proc/self/maps", "r");
	long n = 0;
	int c;

	if (!f)
		return -1;
	while ((c = getc(f)) != EOF)
		if (c == '\n')
			n++;
	fclose(f);
	return n;
}

/*
 * Each MAP_SHARED|MAP_ANONYMOUS mmap() gets its own shmem object, which
 * already keeps neighbours from merging.  We also keep a one-page hole
 * between any two of them, so the VMA count holds even if a kernel learns to
 * merge such mappings: place them on every other page of a reservation, then
 * unmap the reservation's pages in between.  The holes are too small for
 * anything else this program maps, so fork() duplicates our 6000 VMAs and
 * hardly any more.
 */
static int map_pages(void)
{
	size_t span = (size_t)NR_MAPPINGS * 2 * MAP_SIZE;
	long before, after;
	char *base;
	int i;

	before = count_vmas();
	base = mmap(NULL, span, PROT_NONE, MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
	if (base == MAP_FAILED) {
		fprintf(stderr, "big-fork: mmap reservation of %zu bytes: %s\n", span,
			strerror(errno));
		return -1;
	}
	for (i = 0; i < NR_MAPPINGS; i++) {
		char *page = base + (size_t)i * 2 * MAP_SIZE;
		char *p = mmap(page, MAP_SIZE, PROT_READ | PROT_WRITE,
			       MAP_SHARED | MAP_ANONYMOUS | MAP_FIXED, -1, 0);

		if (p == MAP_FAILED) {
			fprintf(stderr, "big-fork: mmap of mapping %d: %s\n", i, strerror(errno));
			return -1;
		}
		/* populated, as in LEBench: the child inherits a mapped page */
		*(volatile char *)p = (char)i;
		if (munmap(page + MAP_SIZE, MAP_SIZE)) {
			fprintf(stderr, "big-fork: munmap of hole %d: %s\n", i, strerror(errno));
			return -1;
		}
	}
	after = count_vmas();
	/* fewer new VMAs than mappings means some merged: not LEBench's test */
	if (before >= 0 && after >= 0 && after - before < NR_MAPPINGS) {
		fprintf(stderr, "big-fork: only %ld new VMAs for %d mappings\n", after - before,
			NR_MAPPINGS);
		return -1;
	}
	return 0;
}

static int cmp_ll(const void *a, const void *b)
{
	long long x = *(const long long *)a, y = *(const long long *)b;

	return (x > y) - (x < y);
}

/*
 * LEBench's K-best with K = 5 and 5% tolerance: sort the latencies
 * ascending, take the K smallest (all of them when there are fewer than K),
 * report their mean, and call the estimate stable when they lie within 5% of
 * each other, i.e. (largest - smallest) <= 5% of the smallest of the K.
 * The smallest samples are the ones least disturbed by interrupts, other
 * tasks and cache misses, so they estimate the cost of fork() itself.
 * Sorts lat in place; returns the mean in ns and sets *spread to
 * (largest - smallest) / smallest of the K.
 */
static double kbest(long long *lat, long n, double *spread)
{
	long k = n < KBEST_K ? n : KBEST_K;
	double sum = 0;
	long i;

	qsort(lat, n, sizeof(*lat), cmp_ll);
	for (i = 0; i < k; i++)
		sum += lat[i];
	*spread = lat[0] > 0 ? (double)(lat[k - 1] - lat[0]) / lat[0] : 0;
	return sum / k;
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
	if (map_pages())
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
