// SPDX-License-Identifier: GPL-2.0-only
/* The actions on the address space: mmap (kept), munmap (mapped, then unmapped) and brk. */
#include "explore/scenario_int.h"

#include <errno.h>
#include <stdlib.h>
#include <sys/mman.h>
#include <unistd.h>

/* A byte written to every page of size bytes at p: each page faulted in. */
static void touch(char *p, long long size)
{
	long long page = sysconf(_SC_PAGESIZE), off;

	for (off = 0; off < size; off += page)
		p[off] = 1;
}

int scn_act_mmap(struct scn_run *r, const long long *a)
{
	long long count = a[0], size = a[1], i;
	int flags = (a[2] ? MAP_SHARED : MAP_PRIVATE) | MAP_ANONYMOUS;
	char *p;

	/* never unmapped: the regions stay until the scenario's process exits */
	for (i = 0; i < count; i++) {
		p = mmap(NULL, size, PROT_READ | PROT_WRITE, flags, -1, 0);
		if (p == MAP_FAILED)
			scn_err(r, "mmap", errno);
		else if (a[3])
			touch(p, size);
	}
	return 0;
}

int scn_act_munmap(struct scn_run *r, const long long *a)
{
	long long count = a[0], size = a[1], i;
	char **p = scn_alloc(r, count * sizeof(*p));

	if (!p)
		return 0;
	for (i = 0; i < count; i++) {
		p[i] = mmap(NULL, size, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
		if (p[i] == MAP_FAILED)
			scn_err(r, "mmap", errno);
		else if (a[2])
			touch(p[i], size);
	}
	for (i = 0; i < count; i++)
		if (p[i] != MAP_FAILED && munmap(p[i], size))
			scn_err(r, "munmap", errno);
	free(p);
	return 0;
}

/* malloc may use the heap too: nothing is allocated between a growth and its undoing. */
int scn_act_brk(struct scn_run *r, const long long *a)
{
	long long count = a[0], size = a[1], i;
	char *p;

	for (i = 0; i < count; i++) {
		p = sbrk(size);
		if (p == (void *)-1) {
			scn_err(r, "brk", errno);
			continue;
		}
		if (a[2])
			touch(p, size);
		if (sbrk(-size) == (void *)-1)
			scn_err(r, "brk", errno);
	}
	return 0;
}
