/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * LEBench's big-fork address space: 6000 separate 4 KiB shared anonymous
 * mappings, each populated, so that every fork() duplicates 6000 VMAs.
 */
#ifndef KP_MANY_VMAS_H
#define KP_MANY_VMAS_H

#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <sys/mman.h>

#define NR_MAPPINGS 6000
#define MAP_SIZE    4096

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
 * anything else the program maps, so fork() duplicates our 6000 VMAs and
 * hardly any more.  prog names the program in errors; 0 or -1 after one.
 */
static int map_pages(const char *prog)
{
	size_t span = (size_t)NR_MAPPINGS * 2 * MAP_SIZE;
	long before, after;
	char *base;
	int i;

	before = count_vmas();
	base = mmap(NULL, span, PROT_NONE, MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
	if (base == MAP_FAILED) {
		fprintf(stderr, "%s: mmap reservation of %zu bytes: %s\n", prog, span,
			strerror(errno));
		return -1;
	}
	for (i = 0; i < NR_MAPPINGS; i++) {
		char *page = base + (size_t)i * 2 * MAP_SIZE;
		char *p = mmap(page, MAP_SIZE, PROT_READ | PROT_WRITE,
			       MAP_SHARED | MAP_ANONYMOUS | MAP_FIXED, -1, 0);

		if (p == MAP_FAILED) {
			fprintf(stderr, "%s: mmap of mapping %d: %s\n", prog, i, strerror(errno));
			return -1;
		}
		/* populated, as in LEBench: the child inherits a mapped page */
		*(volatile char *)p = (char)i;
		if (munmap(page + MAP_SIZE, MAP_SIZE)) {
			fprintf(stderr, "%s: munmap of hole %d: %s\n", prog, i, strerror(errno));
			return -1;
		}
	}
	after = count_vmas();
	/* fewer new VMAs than mappings means some merged: not LEBench's test */
	if (before >= 0 && after >= 0 && after - before < NR_MAPPINGS) {
		fprintf(stderr, "%s: only %ld new VMAs for %d mappings\n", prog, after - before,
			NR_MAPPINGS);
		return -1;
	}
	return 0;
}

#endif
