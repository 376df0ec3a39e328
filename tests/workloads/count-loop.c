/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * count-loop: what record --count and -e are checked on (tests/live/
 * t_counters.sh): S nanosleep(1 ms) calls, each switching the thread out
 * and back in once unless its timer fires before it sleeps (a loaded host,
 * a VM); G getppid calls, which never sleep; then P fresh pages
 * written once each in touch_pages(), one page fault each.
 *
 * Tests count these calls and faults exactly: this file makes no other
 * nanosleep or getppid call, and goes through syscall(2).
 */
#include <errno.h>
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

int main(int argc, char **argv)
{
	struct timespec ms = {0, 1000000};
	long long s, g, pages, i;
	char *mem = NULL;

	if (argc != 4) {
		fprintf(argc == 2 && !strcmp(argv[1], "--help") ? stdout : stderr,
			"usage: %s SLEEPS GETPPIDS PAGES\n  SLEEPS nanosleep(1 ms) calls,"
			" GETPPIDS getppid calls, then PAGES fresh pages written once each\n",
			argv[0]);
		return argc != 2 || strcmp(argv[1], "--help");
	}
	s = arg(argv[1], "SLEEPS");
	g = arg(argv[2], "GETPPIDS");
	pages = arg(argv[3], "PAGES");
	if (s < 0 || g < 0 || pages < 0)
		return 1;
	/* mapped before the loops: the faults come from touch_pages alone */
	if (pages) {
		mem = mmap(NULL, pages * PAGE, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS,
			   -1, 0);
		if (mem == MAP_FAILED) {
			perror("count-loop: mmap");
			return 1;
		}
	}
	for (i = 0; i < s; i++)
		syscall(SYS_nanosleep, &ms, NULL);
	for (i = 0; i < g; i++)
		syscall(SYS_getppid);
	touch_pages(mem, pages);
	printf("count-loop: %lld nanosleep, %lld getppid, %lld pages\n", s, g, pages);
	return 0;
}
