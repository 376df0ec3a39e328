// SPDX-License-Identifier: GPL-2.0-only
/*
 * calibrate's pointer chases (calibrate/calibrate.h) followed from their
 * start: each order's chase is one cycle through all its slots; CALIB_PAGES
 * takes one line per 4 KiB page, each at an offset of its own; CALIB_LOCAL
 * takes every line, each 2 MiB stretch's lines one after the other (so that
 * load_to_use.dram's translation stays in the TLB), the stretches in an
 * order that is not their address order, nor any line's neighbour next.
 */
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>

#include "calibrate/calibrate.h"

#define MIB   (1UL << 20)
#define LINES (CALIB_LOCAL_BYTES / 64)

/* the chase's slot offsets in the order it visits them: n of them, back at the start after */
static size_t *follow(size_t size, enum calib_order order, size_t n)
{
	size_t *at = calloc(n, sizeof(*at)), i;
	void *start, *p;
	char *m = calib_chase_new(size, false, order, &start);

	assert_non_null(m);
	assert_non_null(at);
	p = start;
	for (i = 0; i < n; i++) {
		at[i] = (size_t)((char *)p - m);
		assert_true(at[i] < size && at[i] % 64 == 0);
		p = *(void **)p;
	}
	assert_ptr_equal(p, start);
	munmap(m, size);
	return at;
}

/* each slot once: a cycle through all of them */
static void assert_once(const size_t *at, size_t n, size_t size)
{
	unsigned char *seen = calloc(size / 64, 1);
	size_t i;

	assert_non_null(seen);
	for (i = 0; i < n; i++) {
		assert_false(seen[at[i] / 64]);
		seen[at[i] / 64] = 1;
	}
	free(seen);
}

static void test_lines(void **state)
{
	size_t n = 4 * MIB / 64, *at = follow(4 * MIB, CALIB_LINES, n), i, next = 0;

	(void)state;
	assert_once(at, n, 4 * MIB);
	for (i = 0; i + 1 < n; i++)
		next += at[i + 1] == at[i] + 64;
	assert_true(next < n / 100); /* random, not in address order */
	free(at);
}

static void test_pages(void **state)
{
	size_t n = 4 * MIB / 4096, *at = follow(4 * MIB, CALIB_PAGES, n), i, offsets[64] = {0};

	(void)state;
	assert_once(at, n, 4 * MIB);
	for (i = 0; i < n; i++)
		offsets[at[i] % 4096 / 64]++;
	for (i = 0; i < 64; i++) /* spread over L1's sets: every offset, about as often */
		assert_in_range(offsets[i], n / 64 - 1, n / 64 + 1);
	free(at);
}

static void test_local(void **state)
{
	size_t size = 16 * MIB, n = size / 64, *at = follow(size, CALIB_LOCAL, n), i, k;
	size_t in_order = 0, next = 0;

	(void)state;
	assert_once(at, n, size);
	for (k = 0; k < n / LINES; k++) {
		size_t stretch = at[k * LINES] / CALIB_LOCAL_BYTES;

		for (i = k * LINES; i < (k + 1) * LINES; i++)
			assert_int_equal(at[i] / CALIB_LOCAL_BYTES, stretch);
		in_order += stretch == k;
	}
	assert_true(in_order < n / LINES);
	for (i = 0; i + 1 < n; i++)
		next += at[i + 1] == at[i] + 64;
	assert_true(next < n / 100);
	free(at);
}

/* a region under two stretches: every line at random, as CALIB_LINES */
static void test_local_small(void **state)
{
	size_t size = CALIB_LOCAL_BYTES, n = size / 64, *at = follow(size, CALIB_LOCAL, n);

	(void)state;
	assert_once(at, n, size);
	free(at);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_lines),
		cmocka_unit_test(test_pages),
		cmocka_unit_test(test_local),
		cmocka_unit_test(test_local_small),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
