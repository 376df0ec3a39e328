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
 * functions are, per measured window whether the timer's tick may have
 * come inside it (each opens right after one), and the interrupts taken
 * between two reads around it, the timer's and the others (0: none
 * inside; more: one may have been).
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/wait.h>
#include <time.h>
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

/*
 * The interrupts this CPU took so far (one CPU: the first number of each
 * line of /proc/interrupts): the local APIC timer's (LOC: the tick, and
 * any hrtimer's, which does not move the coarse clock) and the others
 * (devices, IPIs).
 */
struct irqs {
	unsigned long loc, other;
};

static struct irqs irqs(void)
{
	struct irqs n = { 0, 0 };
	char line[512];
	unsigned long v;
	FILE *f = fopen("/proc/interrupts", "r");

	if (!f)
		return n;
	while (fgets(line, sizeof(line), f)) {
		char *colon = strchr(line, ':');

		if (!colon || sscanf(colon + 1, "%lu", &v) != 1)
			continue;
		if (!strncmp(line + strspn(line, " "), "LOC:", 4))
			n.loc += v;
		else
			n.other += v;
	}
	fclose(f);
	return n;
}

/* the interrupts taken since before */
static struct irqs irqs_since(struct irqs before)
{
	struct irqs now = irqs();

	return (struct irqs){ now.loc - before.loc, now.other - before.other };
}

static long ts_ns(const struct timespec *t)
{
	return t->tv_sec * 1000000000L + t->tv_nsec;
}

static long ns(clockid_t id)
{
	struct timespec t;

	clock_gettime(id, &t);
	return ts_ns(&t);
}

/* a tick of the timer: the fine clock before it came, the coarse clock it set */
struct tick {
	long before, coarse;
};

/*
 * The timer's tick, the interrupt that comes most: the coarse clock moves
 * at each (to the last tick's time, less a constant remainder: not when
 * the tick came).  Waits for one that comes between two polls of the fine
 * clock less than a quarter period apart (not late, not after a switch to
 * another task): a window opened right after has until a period past the
 * first poll before the next.  before -1: none did in a second.
 */
static struct tick tick_sync(long period)
{
	struct tick t = { -1, ns(CLOCK_MONOTONIC_COARSE) };
	long prev = ns(CLOCK_MONOTONIC), now, c, until = prev + 1000000000L;

	for (; prev < until; prev = now) {
		now = ns(CLOCK_MONOTONIC);
		c = ns(CLOCK_MONOTONIC_COARSE);
		if (c != t.coarse && now - prev < period / 4)
			return (struct tick){ prev, c };
		t.coarse = c;
	}
	return t;
}

/* 1 when a tick may have come since t */
static int ticked(struct tick t, long period)
{
	return t.before < 0 || ns(CLOCK_MONOTONIC_COARSE) != t.coarse ||
	       ns(CLOCK_MONOTONIC) - t.before >= period;
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

int main(void);

/*
 * The 4 pages, mapped and in place (no fault in a window), in a set no
 * page in bad uses: the stack's around sp, main's code
 */
static unsigned char *pages(uintptr_t sp)
{
	size_t len = STRIDE * (NPAGES + 1) * PAGE;
	unsigned char *buf =
		mmap(NULL, len, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	uintptr_t bad[4] = { (sp - 512) / PAGE, (sp + 2048) / PAGE, (uintptr_t)main / PAGE,
			     ((uintptr_t)main + 2048) / PAGE };
	unsigned char *p;

	if (buf == MAP_FAILED || !(p = pick(buf, bad, 4)))
		return NULL;
	for (size_t i = 0; i < len; i += PAGE)
		buf[i] = 1;
	return p;
}

int main(void)
{
	struct timespec res;
	struct irqs i1, i2;
	struct tick s1, s2;
	long period;
	int t1, t2;
	volatile unsigned long sink;
	unsigned char *p;
	uintptr_t sp;
	pid_t pid;

	asm volatile("mov %%rsp, %0" : "=r"(sp));
	if (!(p = pages(sp)) || clock_getres(CLOCK_MONOTONIC_COARSE, &res)) {
		perror("model-tlb: mmap or clock_getres");
		return 1;
	}
	period = ts_ns(&res);
	/* the code in place too */
	sink = kp_pass(p, NPAGES, 1) + kp_again(p, NPAGES, 1);
	printf("kp_pass %p\nkp_again %p\nset %lu\n", (void *)kp_pass, (void *)kp_again,
	       (unsigned long)((uintptr_t)p / PAGE & 15));
	fflush(stdout);

	model_marker_hint_guest();
	model_marker_start();
	model_marker_stop();
	/* translated, instrumented, outside the windows: the windows run at full speed */
	sink = kp_pass(p, NPAGES, 1) + kp_again(p, NPAGES, 1);

	/* the reads after the tick: only a timer interrupt inside counts in i.loc */
	s1 = tick_sync(period);
	i1 = irqs();
	model_marker_start();
	sink = kp_pass(p, NPAGES, 1);
	model_marker_stop();
	t1 = ticked(s1, period);
	i1 = irqs_since(i1);

	/* the switches to the child and back write CR3 */
	pid = fork();
	if (pid == 0)
		_exit(0);
	if (pid < 0 || waitpid(pid, NULL, 0) != pid) {
		perror("model-tlb: fork");
		return 1;
	}

	s2 = tick_sync(period);
	i2 = irqs();
	model_marker_start();
	sink = kp_pass(p, NPAGES, 1);
	sink = kp_again(p, NPAGES, 2);
	model_marker_stop();
	t2 = ticked(s2, period);
	i2 = irqs_since(i2);
	printf("ticks %d %d\nirqs %lu %lu\nlocs %lu %lu\n", t1, t2, i1.other, i2.other, i1.loc,
	       i2.loc);
	(void)sink;
	kp_end();
	return 0;
}
