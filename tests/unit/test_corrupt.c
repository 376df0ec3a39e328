// SPDX-License-Identifier: GPL-2.0-only
/*
 * Data files from anyone: each test crafts a bad file from a good recording
 * (a copy of a golden one, changed with the sqlite3 CLI) and expects the
 * one line that names the table and row, and exit status 1 (never a crash,
 * an overflow or a wrong number).
 */
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>

#include "cmd/cmds.h"
#include "testutil.h"

#define SL   "tests/golden/data/sl.data"
#define BASE "tests/golden/vm/data/inl-base.data"
#define HARD "tests/golden/vm/data/inl-hard.data"

/* No DWARF can match it: the recorded ranges are what report --inline reads. */
#define NO_DWARF "UPDATE meta SET value = '00' WHERE key = 'kernel.build_id';"

static char dir[PATH_MAX / 2];

static int setup(void **state)
{
	return tu_mkdtemp(dir, sizeof(dir), "kp-corrupt");
}

static int teardown(void **state)
{
	return tu_run("rm -rf '%s'", dir) ? -1 : 0;
}

/* dir/name: a copy of src changed by sql (NULL: an empty file). */
static const char *craft(char *path, size_t len, const char *name, const char *src, const char *sql)
{
	snprintf(path, len, "%s/%s", dir, name);
	if (!src)
		assert_int_equal(tu_run(": > '%s'", path), 0);
	else
		assert_int_equal(tu_run("cp %s '%s' && chmod u+w '%s' && sqlite3 '%s' \"%s\"", src,
					path, path, path, sql),
				 0);
	return path;
}

/* cmd on argv (NULL-ended after the command's name) fails with exactly the line fmt says. */
static void expect_line(int (*cmd)(int, char **), char **argv, const char *fmt, ...)
{
	char want[1024];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(want, sizeof(want), fmt, ap);
	va_end(ap);
	tu_expect(cmd, argv, 2, 1, want);
}

#define RANGE_ERR                                                                           \
	"kprotperf %s: %s: corrupt data file: table inlines, row 1: ranges: '%s' is not a " \
	"range 0xLO-0xHI with LO < HI: record it again\n"

/* 400 three-byte ranges overflowed an array sized for eight bytes a range. */
static void test_ranges_overflow(void **state)
{
	char p[PATH_MAX];
	const char *f = craft(p, sizeof(p), "ovf.data", BASE,
			      NO_DWARF "UPDATE inlines SET ranges = (WITH RECURSIVE c(i) AS"
				       " (SELECT 1 UNION ALL SELECT i + 1 FROM c WHERE i < 400)"
				       " SELECT group_concat('0-0', ' ') FROM c) WHERE func = 1");

	expect_line(cmd_report, (char *[]){"report", "--inline", (char *)f, NULL}, RANGE_ERR,
		    "report", f, "0-0");
	expect_line(cmd_diff, (char *[]){"diff", (char *)f, HARD, NULL}, RANGE_ERR, "diff", f,
		    "0-0");
	expect_line(cmd_diff, (char *[]){"diff", "--json", HARD, (char *)f, NULL}, RANGE_ERR,
		    "diff", f, "0-0");
}

static void test_range_malformed(void **state)
{
	static const char *const bad[][2] = {
		{"0x10-0x20 -5-0x30", "-5-0x30"},
		{"0x30-0x20", "0x30-0x20"},
		{"0x10-0x20x", "0x10-0x20x"},
		{"0x10-0x100000000000000000", "0x10-0x100000000000000000"},
	};
	char p[PATH_MAX], sql[256];
	const char *f;
	size_t i;

	for (i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		snprintf(sql, sizeof(sql),
			 NO_DWARF "UPDATE inlines SET ranges = '%s' WHERE func = 1", bad[i][0]);
		f = craft(p, sizeof(p), "range.data", BASE, sql);
		expect_line(cmd_report, (char *[]){"report", "--inline", (char *)f, NULL},
			    RANGE_ERR, "report", f, bad[i][1]);
	}
	/* what the line quotes of the file cannot drive the terminal */
	f = craft(p, sizeof(p), "esc.data", BASE,
		  NO_DWARF "UPDATE inlines SET ranges = '0x10-0x20 ' || char(27) || '[2J'"
			   " WHERE func = 1");
	expect_line(cmd_report, (char *[]){"report", "--inline", (char *)f, NULL}, RANGE_ERR,
		    "report", f, "?[2J");
}

#define CORRUPT "kprotperf %s: %s: corrupt data file: %s: record it again\n"

/* Was shown as 18446744073709551611 calls. */
static void test_negative_calls(void **state)
{
	char p[PATH_MAX];
	const char *f = craft(p, sizeof(p), "neg.data", SL,
			      "UPDATE latency SET calls = -5 WHERE rowid = 3");

	expect_line(cmd_report, (char *[]){"report", (char *)f, NULL}, CORRUPT, "report", f,
		    "table latency, row 3: calls is -5, not a count from 0 to 2^40");
}

static void test_negative_samples(void **state)
{
	char p[PATH_MAX];
	const char *f = craft(p, sizeof(p), "negs.data", SL,
			      "UPDATE samples SET count = -3 WHERE rowid = 2");

	expect_line(cmd_folded, (char *[]){"folded", (char *)f, NULL}, CORRUPT, "folded", f,
		    "table samples, row 2: count is -3, not a count from 0 to 2^40");
}

/* NULL or text where an integer is due was "Input/output error" or a silent 0. */
static void test_null_and_text_integers(void **state)
{
	char p[PATH_MAX];
	const char *f = craft(p, sizeof(p), "null.data", SL,
			      "UPDATE latency SET total_ns = NULL WHERE rowid = 2");

	expect_line(cmd_report, (char *[]){"report", (char *)f, NULL}, CORRUPT, "report", f,
		    "table latency, row 2: total_ns is NULL, not a time from 0 to 2^60 ns");
	f = craft(p, sizeof(p), "text.data", SL,
		  "UPDATE samples SET kstack = 'abc' WHERE rowid = 5");
	expect_line(cmd_folded, (char *[]){"folded", (char *)f, NULL}, CORRUPT, "folded", f,
		    "table samples, row 5: kstack is 'abc', not an integer or NULL");
	f = craft(p, sizeof(p), "comm.data", SL, "UPDATE samples SET comm = NULL WHERE rowid = 1");
	expect_line(
		cmd_folded, (char *[]){"folded", (char *)f, NULL}, CORRUPT, "folded", f,
		"table samples, row 1: comm is NULL, not text of at most 4096 bytes without NUL");
}

/* A name too long, or with a NUL inside, is refused; a table gone is named. */
static void test_strings_and_tables(void **state)
{
	char p[PATH_MAX];
	const char *f = craft(
		p, sizeof(p), "long.data", SL,
		"UPDATE samples SET comm = replace(hex(zeroblob(2500)), '0', 'x') WHERE rowid = 1");

	expect_line(cmd_report, (char *[]){"report", (char *)f, NULL}, CORRUPT, "report", f,
		    "table samples, row 1: comm is 'xxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxx..., not"
		    " text of at most 4096 bytes without NUL");
	f = craft(p, sizeof(p), "nul.data", SL,
		  "UPDATE samples SET comm = 'a' || char(0) || 'b' WHERE rowid = 2");
	expect_line(
		cmd_report, (char *[]){"report", (char *)f, NULL}, CORRUPT, "report", f,
		"table samples, row 2: comm is 'a', not text of at most 4096 bytes without NUL");
	f = craft(p, sizeof(p), "drop.data", SL, "DROP TABLE ksyms");
	expect_line(cmd_report, (char *[]){"report", (char *)f, NULL}, "kprotperf report: %s: %s\n",
		    f, "corrupt data file: table ksyms: no such table: ksyms: record it again");
}

/* Counts near 2^63 overflowed diff --folded's sums (UBSan: signed overflow). */
static void test_huge_count_diff_folded(void **state)
{
	char p[PATH_MAX];
	const char *f = craft(p, sizeof(p), "huge.data", BASE,
			      "UPDATE samples SET count = 4611686018427387904 WHERE rowid <= 3");

	expect_line(cmd_diff, (char *[]){"diff", "--folded", (char *)f, HARD, NULL}, CORRUPT,
		    "diff", f,
		    "table samples, row 1: count is 4611686018427387904, not a count from 0 to"
		    " 2^40");
}

/* A bucket out of range was dropped without a word. */
static void test_bucket_out_of_range(void **state)
{
	char p[PATH_MAX];
	const char *f = craft(p, sizeof(p), "bucket.data", SL,
			      "UPDATE latency_hist SET bucket = 9999 WHERE rowid = 2");

	expect_line(
		cmd_report, (char *[]){"report", "--hist", "getppid", (char *)f, NULL}, CORRUPT,
		"report", f,
		"table latency_hist, row 2: bucket is 9999, not a histogram bucket from 0 to 311");
}

/* A 1-byte file was a "foreign SQLite database". */
static void test_not_databases(void **state)
{
	char p[PATH_MAX];
	const char *f;

	snprintf(p, sizeof(p), "%s/one.data", dir);
	assert_int_equal(tu_run("printf x > '%s'", p), 0);
	expect_line(cmd_report, (char *[]){"report", p, NULL},
		    "kprotperf report: %s: not a kprotperf data file (not an SQLite database)\n",
		    p);
	f = craft(p, sizeof(p), "zero.data", NULL, NULL);
	expect_line(cmd_report, (char *[]){"report", (char *)f, NULL},
		    "kprotperf report: %s: empty file, not a kprotperf data file\n", f);
	snprintf(p, sizeof(p), "%s/stamped.data", dir);
	assert_int_equal(tu_run("sqlite3 '%s' 'PRAGMA application_id = 1263554630;"
				" PRAGMA user_version = 4'",
				p),
			 0);
	expect_line(cmd_folded, (char *[]){"folded", p, NULL},
		    "kprotperf folded: %s: corrupt data file: table meta: no such table: meta:"
		    " record it again\n",
		    p);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_ranges_overflow),
		cmocka_unit_test(test_range_malformed),
		cmocka_unit_test(test_negative_calls),
		cmocka_unit_test(test_negative_samples),
		cmocka_unit_test(test_null_and_text_integers),
		cmocka_unit_test(test_strings_and_tables),
		cmocka_unit_test(test_huge_count_diff_folded),
		cmocka_unit_test(test_bucket_out_of_range),
		cmocka_unit_test(test_not_databases),
	};

	return cmocka_run_group_tests(tests, setup, teardown);
}
