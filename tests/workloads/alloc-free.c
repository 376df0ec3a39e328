/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * alloc-free: what init_on_alloc / init_on_free make the kernel do.  Each of
 * ITERATIONS rounds maps 32 MiB of private anonymous memory, writes one byte
 * per page (a page fault and a fresh page each), unmaps it (every page freed
 * at once), and forks a child that touches 4 MiB of its own and exits.
 *
 * Its syscalls: ITERATIONS munmap calls of 32 MiB each (the dynamic loader
 * may add small ones), exactly ITERATIONS clone calls and ITERATIONS + 1
 * exit_group calls.
 */
#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>
#include <sys/mman.h>
#include <sys/wait.h>

#include "count_arg.h"

#define AREA	      (32UL << 20)
#define CHILD_AREA    (4UL << 20)
#define DEFAULT_ITERS 8

static void usage(FILE *f, const char *prog)
{
	fprintf(f,
		"usage: %s [ITERATIONS]\n"
		"  ITERATIONS (default %d) times: map %lu MiB, touch every page, unmap it, and\n"
		"  fork a child that touches %lu MiB and exits\n",
		prog, DEFAULT_ITERS, AREA >> 20, CHILD_AREA >> 20);
}

/* Map, touch and unmap len bytes: 0, or 1 after saying why. */
static int churn(size_t len)
{
	long page = sysconf(_SC_PAGESIZE);
	char *p = mmap(NULL, len, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	size_t off;

	if (p == MAP_FAILED) {
		perror("alloc-free: mmap");
		return 1;
	}
	for (off = 0; off < len; off += page)
		p[off] = 1;
	if (munmap(p, len)) {
		perror("alloc-free: munmap");
		return 1;
	}
	return 0;
}

static int fork_child(void)
{
	int status;
	pid_t pid = fork();

	if (pid < 0) {
		perror("alloc-free: fork");
		return 1;
	}
	if (pid == 0) {
		/* no munmap in the child: its memory goes back at exit */
		char *p = mmap(NULL, CHILD_AREA, PROT_READ | PROT_WRITE,
			       MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
		size_t off;

		if (p == MAP_FAILED)
			_exit(1);
		for (off = 0; off < CHILD_AREA; off += 4096)
			p[off] = 1;
		_exit(0);
	}
	if (waitpid(pid, &status, 0) < 0 || !WIFEXITED(status) || WEXITSTATUS(status)) {
		fprintf(stderr, "alloc-free: child failed\n");
		return 1;
	}
	return 0;
}

int main(int argc, char **argv)
{
	long long n = count_arg(argc, argv, DEFAULT_ITERS, "ITERATIONS", usage), i;

	if (n <= 0)
		return n == 0 ? 0 : 1;
	for (i = 0; i < n; i++)
		if (churn(AREA) || fork_child())
			return 1;
	return 0;
}
