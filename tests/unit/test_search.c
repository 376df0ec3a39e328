// SPDX-License-Identifier: GPL-2.0-only
/*
 * kprotperf explore's search without the kernel: the keep rule on
 * synthetic feedback (new blocks, more executions, new and costlier
 * contexts, more trips, more time past the margin, hangs and crashes as
 * findings), the contexts ranked, and the same seed and feedback making
 * the same search.
 */
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "explore/scenario.h"
#include "explore/search.h"
#include "testutil.h"

struct run {
	enum search_end end;
	__u64 blocks[3];
	__u64 trips[1];
	const char *ctx; /* NULL: no call */
	__u64 calls, insns;
	double ns;
	const char *why; /* what the run keeps, NULL: nothing */
};

/* Each run after the other, as the driver hands them in. */
static const struct run runs[] = {
	{SEARCH_EXITED, {0, 0, 0}, {0}, NULL, 0, 0, -1, NULL},
	{SEARCH_EXITED,
	 {1, 1, 0},
	 {3},
	 "kmalloc-64",
	 1,
	 40,
	 1000,
	 "new blocks 2, more trips in a call (3), new contexts 1"},
	{SEARCH_EXITED, {1, 1, 0}, {3}, "kmalloc-64", 1, 40, 1050, NULL},
	{SEARCH_EXITED, {1, 1, 0}, {3}, "kmalloc-64", 3, 120, 1000, "more calls in 1 contexts"},
	{SEARCH_EXITED,
	 {4, 1, 0},
	 {3},
	 "kmalloc-64",
	 4,
	 160,
	 1000,
	 "more executions of 1 blocks, more calls in 1 contexts"},
	{SEARCH_EXITED, {1, 1, 1}, {3}, "filp", 1, 40, 1000, "new blocks 1, new contexts 1"},
	{SEARCH_EXITED, {1, 1, 0}, {3}, "filp", 1, 80, 1000, "costlier calls in 1 contexts"},
	{SEARCH_EXITED, {1, 1, 0}, {7}, "filp", 1, 40, 1000, "more trips in a call (7)"},
	/* 5% more time is noise; 20% is a new maximum */
	{SEARCH_EXITED, {1, 1, 0}, {7}, "filp", 1, 40, 1050, NULL},
	{SEARCH_EXITED, {1, 1, 0}, {7}, "filp", 1, 40, 1200, "more time per call (1200 ns)"},
	{SEARCH_HUNG, {0, 0, 0}, {7}, NULL, 0, 0, -1, "hung: killed when its time was up"},
	{SEARCH_CRASHED, {0, 0, 0}, {7}, NULL, 0, 0, -1, "crashed: killed by a signal"},
};

static int feed(struct search *s, const struct scenario *ran, const struct run *r,
		const struct search_entry **kept)
{
	struct run_context c = {
		.nr = 0, .calls = r->calls, .insns = r->insns, .trips = r->trips[0]};
	struct search_feedback fb = {.end = r->end,
				     .calls = r->calls,
				     .ns_per_call = r->ns,
				     .ctx = &c,
				     .nctx = r->ctx ? 1 : 0,
				     .blocks = r->blocks,
				     .nblocks = 3,
				     .trips = r->trips,
				     .nloops = 1};

	if (r->ctx)
		snprintf(c.ctx, sizeof(c.ctx), "%s", r->ctx);
	return search_feedback(s, ran, &fb, kept);
}

static struct scn_templates *templates(void)
{
	struct scn_templates *t;
	char why[256];

	assert_int_equal(scn_templates_load(&t, NULL, why, sizeof(why)), 0);
	return t;
}

static void test_keep_rule(void **state)
{
	struct scn_templates *t = templates();
	const struct search_entry *kept, *e;
	const struct search_context *c;
	const struct scenario *ran;
	struct search *s;
	unsigned int id = 0;
	size_t i, n;

	assert_int_equal(search_new(&s, t, 7), 0);
	for (i = 0; i < sizeof(runs) / sizeof(runs[0]); i++) {
		ran = search_next(s);
		assert_int_equal(feed(s, ran, &runs[i], &kept), 0);
		if (!runs[i].why) {
			assert_null(kept);
			continue;
		}
		assert_non_null(kept);
		assert_string_equal(kept->why, runs[i].why);
		assert_int_equal(kept->id, ++id);
		assert_int_equal(kept->run, i);
		assert_int_equal(kept->finding, runs[i].end != SEARCH_EXITED);
	}
	assert_int_equal(search_runs(s), sizeof(runs) / sizeof(runs[0]));
	assert_int_equal(search_reached(s), 9);
	assert_int_equal(search_count(s, SEARCH_HUNG), 1);
	assert_int_equal(search_count(s, SEARCH_CRASHED), 1);
	assert_true(search_best_ns(s) == 1200);
	e = search_entries(s, &n);
	assert_int_equal(n, id);
	/* the costliest context first: filp's 80 instructions a call, from entry 5 */
	c = search_contexts(s, &n);
	assert_int_equal(n, 2);
	assert_string_equal(c[0].ctx, "filp");
	assert_true(c[0].insns == 80);
	assert_int_equal(c[0].id, 5);
	assert_int_equal(c[0].runs, 5);
	assert_int_equal(e[c[0].id - 1].run, 6);
	/* kmalloc-64 by the run of its most calls, 4 */
	assert_string_equal(c[1].ctx, "kmalloc-64");
	assert_true(c[1].insns == 40);
	assert_int_equal(c[1].calls, 4);
	assert_int_equal(c[1].id, 3);
	search_free(s);
	scn_templates_free(t);
}

/* 200 scenarios of a search given the same feedback, as one line each. */
static char *trail(const struct scn_templates *t, __u64 seed)
{
	const struct search_entry *kept;
	const struct scenario *ran;
	char line[512], *out = calloc(200, sizeof(line));
	struct search *s;
	size_t i;

	assert_non_null(out);
	assert_int_equal(search_new(&s, t, seed), 0);
	for (i = 0; i < 200; i++) {
		ran = search_next(s);
		scn_summary(t, ran, line, sizeof(line));
		strcat(strcat(out, line), "\n");
		assert_int_equal(feed(s, ran, &runs[i % 9], &kept), 0);
	}
	search_free(s);
	return out;
}

static void test_same_seed(void **state)
{
	struct scn_templates *t = templates();
	char *a = trail(t, 42), *b = trail(t, 42), *c = trail(t, 43);

	assert_string_equal(a, b);
	assert_string_not_equal(a, c);
	free(a);
	free(b);
	free(c);
	scn_templates_free(t);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_keep_rule),
		cmocka_unit_test(test_same_seed),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
