/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * count-loop: what record --count and -e are checked on (tests/live/
 * t_counters.sh): S nanosleep(1 ms) calls, each switching the thread out
 * and back in once unless its timer fires before it sleeps (a loaded host,
 * a VM); G getppid calls, which never sleep; then P fresh pages
 * written once each in touch_pages(), one page fault each; then, given R,
 * one read(2) of R pages of /dev/zero into R fresh pages, which the kernel
 * faults in one by one inside that call (R minor faults in one syscall);
 * then, given M, M sched_setaffinity calls that pin the thread to each of
 * two CPUs in turn, each moving it inside the call (one migration each).
 * The fresh pages are marked MADV_NOHUGEPAGE: a transparent huge page would
 * take one fault for 512 of them.
 *
 * Tests count these calls and faults exactly: this file makes no other
 * nanosleep or getppid call, and goes through syscall(2).
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

#define PAGE 4096

static long long arg(const char *s, const char *what)
{
	char *end;
	long long n;

	errno = 0;
	n = strtoll(s, &end, 10);
	if (errno || end == s || *end || n < 0) {
		fprintf(stderr, "count-loop: bad %s '%s'\n", what, s);
		return -1;
	}
	return n;
}

/* One write to each of the n pages at p: one fault each, in this function. */
__attribute__((noinline)) static void touch_pages(volatile char *p, long long n)
{
	long long i;

	for (i = 0; i < n; i++)
		p[i * PAGE] = 1;
}

/* n fresh pages, not yet faulted in, each to take a fault of its own (NULL: failed) */
static char *fresh_pages(long long n)
{
	char *p;

	if (!n)
		return NULL;
	p = mmap(NULL, n * PAGE, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	if (p == MAP_FAILED || madvise(p, n * PAGE, MADV_NOHUGEPAGE)) {
		perror("count-loop: mmap");
		exit(1);
	}
	return p;
}

/* One read(2) of n pages of /dev/zero into p: the kernel faults each page in. */
static int read_pages(char *p, long long n)
{
	int fd = open("/dev/zero", O_RDONLY | O_CLOEXEC);
	ssize_t got;

	if (fd < 0) {
		perror("count-loop: /dev/zero");
		return -1;
	}
	got = syscall(SYS_read, fd, p, n * PAGE);
	close(fd);
	if (got != n * PAGE) {
		fprintf(stderr, "count-loop: read %zd bytes of %lld\n", got, n * PAGE);
		return -1;
	}
	return 0;
}

/*
 * n sched_setaffinity calls, each pinning the thread to the other of the
 * first two CPUs it may run on: the call returns on that CPU, moved there.
 */
static int migrate(long long n)
{
	cpu_set_t allowed, one;
	int cpus[2], k = 0, c;
	long long i;

	if (!n)
		return 0;
	if (sched_getaffinity(0, sizeof(allowed), &allowed))
		return perror("count-loop: sched_getaffinity"), -1;
	for (c = 0; c < CPU_SETSIZE && k < 2; c++)
		if (CPU_ISSET(c, &allowed))
			cpus[k++] = c;
	if (k < 2) {
		fprintf(stderr, "count-loop: MIGRATIONS needs two CPUs to run on\n");
		return -1;
	}
	for (i = 0; i < n; i++) {
		CPU_ZERO(&one);
		CPU_SET(cpus[(sched_getcpu() == cpus[0])], &one);
		if (syscall(SYS_sched_setaffinity, 0, sizeof(one), &one))
			return perror("count-loop: sched_setaffinity"), -1;
	}
	return 0;
}

int main(int argc, char **argv)
{
	struct timespec ms = {0, 1000000};
	long long s, g, pages, reads = 0, moves = 0, i;
	char *mem, *rmem;

	if (argc < 4 || argc > 6) {
		fprintf(argc == 2 && !strcmp(argv[1], "--help") ? stdout : stderr,
			"usage: %s SLEEPS GETPPIDS PAGES [READ_PAGES [MIGRATIONS]]\n  SLEEPS"
			" nanosleep(1 ms) calls, GETPPIDS getppid calls, then PAGES fresh pages"
			" written once each, then one read(2) of READ_PAGES pages of /dev/zero"
			" into fresh pages, then MIGRATIONS sched_setaffinity calls, each moving"
			" the thread to another CPU\n",
			argv[0]);
		return argc != 2 || strcmp(argv[1], "--help");
	}
	s = arg(argv[1], "SLEEPS");
	g = arg(argv[2], "GETPPIDS");
	pages = arg(argv[3], "PAGES");
	if (argc >= 5)
		reads = arg(argv[4], "READ_PAGES");
	if (argc == 6)
		moves = arg(argv[5], "MIGRATIONS");
	if (s < 0 || g < 0 || pages < 0 || reads < 0 || moves < 0)
		return 1;
	/* mapped before the loops: the faults come from touch_pages and the read alone */
	mem = fresh_pages(pages);
	rmem = fresh_pages(reads);
	for (i = 0; i < s; i++)
		syscall(SYS_nanosleep, &ms, NULL);
	for (i = 0; i < g; i++)
		syscall(SYS_getppid);
	touch_pages(mem, pages);
	if ((reads && read_pages(rmem, reads)) || migrate(moves))
		return 1;
	printf("count-loop: %lld nanosleep, %lld getppid, %lld pages, %lld read, %lld moves\n", s,
	       g, pages, reads, moves);
	return 0;
}
