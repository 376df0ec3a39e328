// SPDX-License-Identifier: GPL-2.0-only
/*
 * tests/vm/t_model_tlb.sh's program: 4 pages, 64 KiB apart, read in two
 * model windows with a fork between them (see the test).  The pages lie in
 * a D-TLB set (of 16, and of 8) that neither the stack's pages nor main's
 * code (the start marker's calibration load reads it) map to, so that only
 * the loads of kp_pass and kp_again touch it in a window.  kp_pass and
 * kp_again each have a page of their own.  A first, empty window takes
 * what the model's start costs (QEMU translates everything again, the
 * timer's interrupts pile up meanwhile); the functions then run once
 * outside the windows, which QEMU translates with the model's callbacks
 * there, so that the windows take microseconds.  Prints where the
 * functions are, and the interrupts taken around each measured window (0:
 * none inside; more: one may have been).
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/wait.h>
#include <unistd.h>

#include "model_marker.h"

#define PAGE   4096ul
#define NPAGES 4
#define STRIDE 16 /* pages: one set of 16, and of 8 */

/* one load from each of n pages, STRIDE pages apart, passes times */
__attribute__((noinline, aligned(4096))) unsigned long
kp_pass(const volatile unsigned char *p, unsigned long n, unsigned long passes)
{
	unsigned long s = 0, i;

	while (passes--)
		for (i = 0; i < n; i++)
			s += p[i * STRIDE * PAGE];
	return s;
}

__attribute__((noinline, aligned(4096))) unsigned long
kp_again(const volatile unsigned char *p, unsigned long n, unsigned long passes)
{
	unsigned long s = 0, i;

	while (passes--)
		for (i = 0; i < n; i++)
			s += p[i * STRIDE * PAGE];
	return s;
}

/* the page after kp_again's: nothing else shares it */
__attribute__((noinline, aligned(4096))) void kp_end(void)
{
	asm volatile("");
}

/* the interrupts this CPU took so far (one CPU: the first number of each line) */
static unsigned long irqs(void)
{
	char line[512];
	unsigned long n = 0, v;
	FILE *f = fopen("/proc/interrupts", "r");

	if (!f)
		return 0;
	while (fgets(line, sizeof(line), f)) {
		char *colon = strchr(line, ':');

		if (colon && sscanf(colon + 1, "%lu", &v) == 1)
			n += v;
	}
	fclose(f);
	return n;
}

/* the first page of buf (STRIDE * (NPAGES + 1) pages) in a set of 8 no page in bad uses */
static unsigned char *pick(unsigned char *buf, const uintptr_t *bad, int nbad)
{
	uintptr_t v = (uintptr_t)buf / PAGE;
	int i, k;

	for (i = 0; i < STRIDE; i++, v++) {
		for (k = 0; k < nbad; k++)
			if ((v & 7) == (bad[k] & 7))
				break;
		if (k == nbad)
			return (unsigned char *)(v * PAGE);
	}
	return NULL;
}

int main(void)
{
	size_t len = STRIDE * (NPAGES + 1) * PAGE;
	unsigned char *buf =
		mmap(NULL, len, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	uintptr_t sp, bad[4];
	unsigned long i1, i2;
	volatile unsigned long sink;
	unsigned char *p;
	pid_t pid;

	asm volatile("mov %%rsp, %0" : "=r"(sp));
	bad[0] = (sp - 512) / PAGE;
	bad[1] = (sp + 2048) / PAGE;
	bad[2] = (uintptr_t)main / PAGE;
	bad[3] = ((uintptr_t)main + 2048) / PAGE;
	if (buf == MAP_FAILED || !(p = pick(buf, bad, 4))) {
		perror("model-tlb: mmap");
		return 1;
	}
	/* real pages, in place before the windows: no fault in them, nor in the code */
	for (size_t i = 0; i < len; i += PAGE)
		buf[i] = 1;
	sink = kp_pass(p, NPAGES, 1) + kp_again(p, NPAGES, 1);
	printf("kp_pass %p\nkp_again %p\nset %lu\n", (void *)kp_pass, (void *)kp_again,
	       (unsigned long)((uintptr_t)p / PAGE & 15));
	fflush(stdout);

	model_marker_hint_guest();
	model_marker_start();
	model_marker_stop();
	/* translated, instrumented, outside the windows: the windows run at full speed */
	sink = kp_pass(p, NPAGES, 1) + kp_again(p, NPAGES, 1);

	i1 = irqs();
	model_marker_start();
	sink = kp_pass(p, NPAGES, 1);
	model_marker_stop();
	i1 = irqs() - i1;

	/* the switches to the child and back write CR3 */
	pid = fork();
	if (pid == 0)
		_exit(0);
	if (pid < 0 || waitpid(pid, NULL, 0) != pid) {
		perror("model-tlb: fork");
		return 1;
	}

	i2 = irqs();
	model_marker_start();
	sink = kp_pass(p, NPAGES, 1);
	sink = kp_again(p, NPAGES, 2);
	model_marker_stop();
	i2 = irqs() - i2;
	printf("irqs %lu %lu\n", i1, i2);
	(void)sink;
	kp_end();
	return 0;
}
