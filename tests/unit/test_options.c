// SPDX-License-Identifier: GPL-2.0-only
/*
 * Numeric options, strictly: one parser (options_num) for every command's
 * numbers, so that "abc", "-5", " 5", "0x10", "inf" or a value out of range
 * is one exact error line and exit status 2, never a silent 0 or default.
 */
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>
#include <errno.h>
#include <stdio.h>

#include "cmd/cmds.h"
#include "cmd/options.h"
#include "testutil.h"

#define EXPECT_USAGE(cmd, want, ...)              \
	do {                                      \
		char *a_[] = {__VA_ARGS__, NULL}; \
		tu_expect(cmd, a_, 2, 2, want);   \
	} while (0)

static const struct options_entry no_entries[] = {{}};
static const struct options_cmd test_cmd = {.name = "test", .head = "", .opts = no_entries};

static void test_top(void **state)
{
	EXPECT_USAGE(cmd_report,
		     "kprotperf report: invalid -n 'abc': expected a number of rows, "
		     "1..1000000\n",
		     "report", "-n", "abc", "x.data");
	EXPECT_USAGE(cmd_report,
		     "kprotperf report: invalid -n '-5': expected a number of rows, "
		     "1..1000000\n",
		     "report", "-n", "-5", "x.data");
	EXPECT_USAGE(cmd_report,
		     "kprotperf report: invalid -n '0': expected a number of rows, "
		     "1..1000000\n",
		     "report", "--top=0", "x.data");
	EXPECT_USAGE(cmd_diff,
		     "kprotperf diff: invalid -n '12x': expected a number of rows, "
		     "1..1000000\n",
		     "diff", "-n", "12x", "a.data", "b.data");
	EXPECT_USAGE(cmd_diff,
		     "kprotperf diff: invalid -n '-5': expected a number of rows, "
		     "1..1000000\n",
		     "diff", "-n", "-5", "a.data", "b.data");
}

static void test_record_numbers(void **state)
{
	EXPECT_USAGE(cmd_record, "kprotperf record: invalid frequency '0': expected 1..100000 Hz\n",
		     "record", "-F", "0", "--", "true");
	EXPECT_USAGE(cmd_record,
		     "kprotperf record: invalid frequency '99.5': expected 1..100000 "
		     "Hz\n",
		     "record", "-F", "99.5", "--", "true");
	EXPECT_USAGE(cmd_record,
		     "kprotperf record: invalid frequency ' 99': expected 1..100000 "
		     "Hz\n",
		     "record", "-F", " 99", "--", "true");
	EXPECT_USAGE(cmd_record,
		     "kprotperf record: invalid --max-stacks '16777216': expected "
		     "64..1048576\n",
		     "record", "--max-stacks", "16777216", "--", "true");
	EXPECT_USAGE(cmd_record,
		     "kprotperf record: invalid --max-tasks '0x100': expected "
		     "64..4194304\n",
		     "record", "--max-tasks", "0x100", "--", "true");
	EXPECT_USAGE(cmd_record, "kprotperf record: invalid duration 'inf': expected seconds > 0\n",
		     "record", "-d", "inf", "-a");
	EXPECT_USAGE(cmd_record, "kprotperf record: invalid duration 'nan': expected seconds > 0\n",
		     "record", "-d", "nan", "-a");
	EXPECT_USAGE(cmd_record, "kprotperf record: invalid pid '+12': expected a process id\n",
		     "record", "-p", "+12");
	EXPECT_USAGE(cmd_record,
		     "kprotperf record: invalid --repeat '1e2': expected a number of "
		     "runs, 1..100000\n",
		     "record", "-r", "1e2", "--", "true");
}

static void test_accepted(void **state)
{
	static const struct options_number whole = {"-n", 1, 100, true, "1..100"};
	static const struct options_number real = {"-d", 0.001, 1e7, false, "> 0"};
	double v;

	assert_int_equal(options_num(&test_cmd, &whole, "1", &v), 0);
	assert_true(v == 1);
	assert_int_equal(options_num(&test_cmd, &whole, "100", &v), 0);
	assert_true(v == 100);
	assert_int_equal(options_num(&test_cmd, &real, "2.5", &v), 0);
	assert_true(v == 2.5);
	assert_int_equal(options_num(&test_cmd, &real, ".5", &v), 0);
	assert_true(v == 0.5);
	assert_int_equal(options_num(&test_cmd, &real, "1e-2", &v), 0);
	assert_true(v == 0.01);
	assert_int_equal(options_num(&test_cmd, &whole, "101", &v), -EINVAL);
	assert_int_equal(options_num(&test_cmd, &whole, "", &v), -EINVAL);
	assert_int_equal(options_num(&test_cmd, &real, "0", &v), -EINVAL);
	assert_int_equal(options_num(&test_cmd, &real, "1e", &v), -EINVAL);
	assert_int_equal(options_num(&test_cmd, &real, "1e999", &v), -EINVAL);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_top),
		cmocka_unit_test(test_record_numbers),
		cmocka_unit_test(test_accepted),
	};

	/* test_accepted's rejects print their lines: keep them off the test log */
	freopen("/dev/null", "w", stderr);
	return cmocka_run_group_tests(tests, NULL, NULL);
}
