// SPDX-License-Identifier: GPL-2.0-only
/*
 * The timing model's sampling (plugin/kp_timing.c, sample.*), apart from
 * QEMU: which blocks go to the core and which are charged, over whole
 * periods of blocks whose counts are worked out by hand; a block found
 * from its first instruction's record as its tag says; each PC's row
 * scaled from its measured executions to all of them, and a PC never
 * measured charged the measured instructions' mean, row by row, its
 * cycles the sum of its stack; the exact model's rows as they were; the
 * arguments' bounds.  Prints one line a check, FAIL lines on a miss.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "kp_timing.h"

static int failures;

static void expect(const char *what, unsigned long long got, unsigned long long want)
{
	printf("%-52s %llu (want %llu)\n", what, got, want);
	if (got != want) {
		printf("FAIL %s\n", what);
		failures++;
	}
}

static int arg(struct kp_timing *t, const char *kv)
{
	const char *eq = strchr(kv, '=');

	return kp_timing_arg(t, kv, eq - kv, eq + 1);
}

/*
 * Blocks of 10 markers (nothing for the core to step) run through
 * kp_timing_block: period 4 intervals of 1000 instructions, the first 100
 * of a sampled one warming up.  A period is 400 blocks: 100 go to the
 * core, 90 of them charged; 4 periods, then the window closes.
 */
static void test_phases(void)
{
	struct kp_timing t = {0};
	struct kp_tinsn ti[10] = {{0}};
	struct kp_tsite ts[10] = {{0}};
	struct kp_tblock b = {.n = 10, .ti = ti, .ts = ts};
	unsigned long i, handed = 0;

	kp_timing_defaults(&t);
	if (arg(&t, "sample.period=4") != 1 || arg(&t, "sample.len=1000") != 1 ||
	    arg(&t, "sample.warm=100") != 1) {
		printf("FAIL sample.* arguments refused\n");
		failures++;
		return;
	}
	for (i = 0; i < 4 * 400; i++) {
		kp_timing_block(&t, kp_tblock_tag(&b));
		handed += t.pending == &b;
	}
	kp_timing_block(&t, NULL);
	expect("blocks handed to the core, of 1600", handed, 400);
	expect("block executions charged", b.measured, 360);
	expect("instructions charged", t.measured, 3600);
	expect("instructions counted, sampled or not", t.clock, 16000);
}

/* the row written for cyc, runs executions, as numbers: cycles, then the stack */
static void row(const struct kp_timing *t, const struct kp_cyc *c, uint64_t runs,
		unsigned long long *v)
{
	char buf[256], *p = buf;
	FILE *f = fmemopen(buf, sizeof(buf), "w");
	int i;

	kp_timing_row(f, t, c, runs);
	fclose(f);
	for (i = 0; i <= KP_ST_N; i++)
		v[i] = strtoull(p, &p, 10);
}

static void test_rows(void)
{
	struct kp_timing t = {0};
	struct kp_cyc measured = {.cycles = 300, .stack = {100, 0, 0, 200}, .measured = 20};
	struct kp_cyc few = {.cycles = 150, .stack = {0, 0, 150}, .measured = 1};
	struct kp_cyc never = {.cycles = 0};
	unsigned long long v[KP_ST_N + 1];

	/* exact: as the core charged it, whatever the counts */
	row(&t, &measured, 1000, v);
	expect("exact: cycles as charged", v[0], 300);
	expect("exact: base as charged", v[1], 100);
	/* sampled: 20 of 80 executions measured, x4 */
	t.sample = (struct kp_tsample){.period = 10, .len = 1000000, .warm = 100000};
	row(&t, &measured, 80, v);
	expect("sampled: cycles scaled by runs/measured", v[0], 1200);
	expect("sampled: base scaled", v[1], 400);
	expect("sampled: dcache scaled", v[4], 800);
	/* never measured: the mean of 1000 measured instructions, 2 base + 0.5 tlb each */
	t.measured = 1000;
	t.measured_cyc[KP_ST_BASE] = 2000;
	t.measured_cyc[KP_ST_TLB] = 500;
	row(&t, &never, 6, v);
	expect("never measured: 6 runs at the mean 2.5", v[0], 15);
	expect("never measured: base at the mean 2", v[1], 12);
	expect("never measured: tlb at the mean 0.5", v[5], 3);
	/* measured once, its icache 150 kept, 999 more runs at the mean, not 150 each */
	row(&t, &few, 1000, v);
	expect("measured once: its 150, then 999 runs at 2.5", v[0], 150 + 2498);
	expect("measured once: its icache kept, no more", v[3], 150);
	expect("measured once: base at the mean 2", v[1], 1998);
}

static void test_bounds(void)
{
	struct kp_timing t = {0};

	kp_timing_defaults(&t);
	expect("default interval", t.sample.len, 1000000);
	expect("default warm-up", t.sample.warm, 100000);
	expect("sample.len=999 refused", arg(&t, "sample.len=999") == -1, 1);
	expect("sample.period=1000001 refused", arg(&t, "sample.period=1000001") == -1, 1);
}

/*
 * A block laid out by kp_tblock_init is found from its first instruction's
 * record (kp_tblock_tag_of: a block started by its first fetch callback)
 * with the tag kp_tblock_tag gives it, its count in the tag or not.
 */
static void test_tags(void)
{
	uint32_t n[2] = {10, 100};
	int i;

	for (i = 0; i < 2; i++) {
		void *mem = calloc(1, kp_tblock_size(n[i]));
		struct kp_tblock *b = mem ? kp_tblock_init(mem, n[i]) : NULL;

		expect(n[i] < KP_TBLOCK_TAG ? "a block's tag from its first instruction, 10"
					    : "a block's tag from its first instruction, 100",
		       b && kp_tblock_tag_of(b->ts, b->n) == kp_tblock_tag(b), 1);
		free(mem);
	}
}

int main(void)
{
	test_phases();
	test_tags();
	test_rows();
	test_bounds();
	if (failures)
		printf("%d failures\n", failures);
	return failures != 0;
}
