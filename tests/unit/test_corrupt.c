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
#include <string.h>

#include "cmd/cmds.h"
#include "testutil.h"

/* the rows named below are its rows: a recording regen.sh does not replace */
#define SL   "tests/golden/data/old/v4-sl.data"
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

#define CORRUPT "kprotperf %s: %s: corrupt data file: %s: record it again\n"

#define RANGE_ERR                                                                           \
	"kprotperf %s: %s: corrupt data file: table inlines, row 1: ranges: '%s' is not a " \
	"range 0xLO-0xHI with LO < HI: record it again\n"

/* "0x1-0x2 0x3-0x4 ..." : n short ranges, valid, as record writes them. */
#define RANGES(n)                                                                        \
	"UPDATE inlines SET ranges = (WITH RECURSIVE c(i) AS (SELECT 0 UNION ALL SELECT" \
	" i + 1 FROM c WHERE i < " #n " - 1) SELECT group_concat(printf('0x%%x-0x%%x',"  \
	" 2 * i + 1, 2 * i + 2), ' ') FROM c) WHERE func = 1"

/* 400 short ranges overflowed an array sized for eight bytes a range: all are kept. */
static void test_ranges_overflow(void **state)
{
	char p[PATH_MAX], want[16384], sql[512];
	const char *f;
	char *out;
	size_t n;
	int i;

	snprintf(sql, sizeof(sql), NO_DWARF RANGES(450));
	f = craft(p, sizeof(p), "ovf.data", BASE, sql);
	n = snprintf(want, sizeof(want), "\n    ranges:");
	for (i = 0; i < 450; i++)
		n += snprintf(want + n, sizeof(want) - n, " 0x%x-0x%x", 2 * i + 1, 2 * i + 2);
	snprintf(want + n, sizeof(want) - n, "\n");
	out = tu_output(cmd_report, (char *[]){"report", "--inline", (char *)f, NULL});
	assert_non_null(strstr(out, want));
	free(out);
	/* more than 4096 is no function inlined in pieces */
	snprintf(sql, sizeof(sql), NO_DWARF RANGES(4097));
	f = craft(p, sizeof(p), "many.data", BASE, sql);
	expect_line(cmd_report, (char *[]){"report", (char *)f, NULL}, CORRUPT, "report", f,
		    "table inlines, row 1: more than 4096 ranges");
	expect_line(cmd_diff, (char *[]){"diff", "--json", HARD, (char *)f, NULL}, CORRUPT, "diff",
		    f, "table inlines, row 1: more than 4096 ranges");
}

/* A bad range was found only by report --inline, after --json had begun its output. */
static void test_ranges_checked_at_open(void **state)
{
	char p[PATH_MAX];
	const char *f = craft(p, sizeof(p), "open.data", BASE,
			      NO_DWARF "UPDATE inlines SET ranges = '0x10-0x20 0x30-0x2' WHERE"
				       " func = 1");
	char *argv[] = {"report", "--inline", "--json", (char *)f, NULL};

	tu_expect(cmd_report, argv, 1, 1, "");
	expect_line(cmd_report, argv, RANGE_ERR, "report", f, "0x30-0x2");
	expect_line(cmd_folded, (char *[]){"folded", (char *)f, NULL}, RANGE_ERR, "folded", f,
		    "0x30-0x2");
}

static void test_range_malformed(void **state)
{
	static const char *const bad[][2] = {
		{"0x10-0x20 -5-0x30", "-5-0x30"},
		{"0x30-0x20", "0x30-0x20"},
		{"0x10-0x20x", "0x10-0x20x"},
		{"0x10-0x100000000000000000", "0x10-0x100000000000000000"},
		{"0x0x10-0x20", "0x0x10-0x20"},
		{"10-0x20", "10-0x20"},
		{"0x-0x20", "0x-0x20"},
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

/* A view named samples passed the schema check: a recursive one never ended. */
static void test_views_and_triggers(void **state)
{
	char p[PATH_MAX];
	const char *f = craft(p, sizeof(p), "view.data", SL,
			      "ALTER TABLE samples RENAME TO s2; CREATE VIEW samples AS WITH"
			      " RECURSIVE c(x) AS (SELECT 1 UNION ALL SELECT x + 1 FROM c)"
			      " SELECT pid, tid, comm, kstack, ustack, count FROM s2, c");

	expect_line(cmd_report, (char *[]){"report", (char *)f, NULL}, CORRUPT, "report", f,
		    "it holds a view samples, which record never writes");
	expect_line(cmd_folded, (char *[]){"folded", (char *)f, NULL}, CORRUPT, "folded", f,
		    "it holds a view samples, which record never writes");
	f = craft(p, sizeof(p), "trig.data", SL,
		  "CREATE TRIGGER t AFTER INSERT ON meta BEGIN SELECT 1; END");
	expect_line(cmd_report, (char *[]){"report", (char *)f, NULL}, CORRUPT, "report", f,
		    "it holds a trigger t, which record never writes");
}

/* Meta numbers were read as they came: "# wall 18446744073.710s", an infinite period. */
static void test_meta_values(void **state)
{
	static const char *const bad[][3] = {
		{"record.wall_ns", "-1",
		 "13: record.wall_ns is '-1', not a time from 0 to 2^60 ns"},
		{"sampling.freq_hz", "1e-300",
		 "18: sampling.freq_hz is '1e-300', not a frequency from 1 to 100000"},
		{"sampling.freq_hz", "0",
		 "18: sampling.freq_hz is '0', not a frequency from 1 to 100000"},
		{"cpu.count", "99999",
		 "6: cpu.count is '99999', not a number of CPUs from 1 to 65536"},
		{"record.exit_code", "",
		 "22: record.exit_code is '', not an exit status from 0 to 255"},
		{"record.repeat", "0",
		 "16: record.repeat is '0', not a number of runs from 1 to 100000"},
		{"kernel.stext", "0x0xff",
		 "20: kernel.stext is '0x0xff', not an address 0x and 1 to 16 hex digits"},
	};
	char p[PATH_MAX], sql[256], want[256];
	const char *f;
	size_t i;

	for (i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		snprintf(sql, sizeof(sql), "UPDATE meta SET value = '%s' WHERE key = '%s'",
			 bad[i][1], bad[i][0]);
		f = craft(p, sizeof(p), "meta.data", SL, sql);
		snprintf(want, sizeof(want), "table meta, row %s", bad[i][2]);
		expect_line(cmd_report, (char *[]){"report", (char *)f, NULL}, CORRUPT, "report", f,
			    want);
	}
}

/*
 * A rowid may be negative: the first bad value's row was once told from
 * "none found" by its sign, and a NULL name at rowid -5 passed the checks
 * (the datafile fuzzer's find: a reader then handed NULL to strcmp).
 */
static void test_negative_rowids(void **state)
{
	char p[PATH_MAX];
	const char *f = craft(p, sizeof(p), "negative.data", SL,
			      "INSERT INTO ksyms VALUES(-5, NULL, NULL)");

	expect_line(
		cmd_report, (char *[]){"report", (char *)f, NULL}, CORRUPT, "report", f,
		"table ksyms, row -5: name is NULL, not text of at most 4096 bytes without NUL");
	f = craft(p, sizeof(p), "negative.data", SL,
		  "UPDATE meta SET rowid = -7, value = 'x' WHERE key = 'record.repeat'");
	expect_line(cmd_report, (char *[]){"report", (char *)f, NULL}, CORRUPT, "report", f,
		    "table meta, row -7: record.repeat is 'x', not a number of runs from 1 to"
		    " 100000");
	f = craft(p, sizeof(p), "negative.data", "tests/golden/data/sl.data",
		  "INSERT INTO blocks VALUES('f', 0, 9, 9, 1, 1, 0, NULL);"
		  " UPDATE blocks SET rowid = -3");
	expect_line(cmd_report, (char *[]){"report", (char *)f, NULL}, CORRUPT, "report", f,
		    "table blocks, row -3: start is not below end");
}

/* Nine lost counters of 2^60 each overflowed SUM(): the report said "lost: ... nothing". */
static void test_sum_overflow(void **state)
{
	char p[PATH_MAX];
	const char *f = craft(p, sizeof(p), "sum.data", SL,
			      "INSERT INTO counters SELECT 'lost_x' || value, 1152921504606846976"
			      " FROM json_each('[1,2,3,4,5,6,7,8,9]')");

	expect_line(cmd_report, (char *[]){"report", (char *)f, NULL}, CORRUPT, "report", f,
		    "table counters: value sums to more than 2^63-1");
}

/* diff printed a recording's arch as it was: escape sequences reached the terminal. */
static void test_arch_escaped(void **state)
{
	char p[PATH_MAX];
	const char *f = craft(p, sizeof(p), "arch.data", BASE,
			      "UPDATE meta SET value = 'x86' || char(27) || '[31mRED'"
			      " WHERE key = 'arch'");

	expect_line(cmd_diff, (char *[]){"diff", (char *)f, HARD, NULL},
		    "kprotperf diff: BASE was recorded on x86\\x1b[31mRED and HARDENED on"
		    " x86_64: recordings of different architectures cannot be compared\n");
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

/*
 * A table of a newer schema in an older file is read, as the file's other
 * tables are: so opening checks it and refuses the file for what it holds.
 * (The empty table the schema lacks is used only where the file has none.)
 */
static void test_newer_table_in_older_file(void **state)
{
	char p[PATH_MAX];
	const char *f = craft(p, sizeof(p), "newer.data", SL,
			      "CREATE TABLE blocks(func, block, start, end, insns, count, probed,"
			      " loop); INSERT INTO blocks VALUES(NULL, -1, 2, 1, -5, 'x', 7, 0.5)");

	expect_line(
		cmd_report, (char *[]){"report", (char *)f, NULL}, CORRUPT, "report", f,
		"table blocks, row 1: func is NULL, not text of at most 4096 bytes without NUL");
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_ranges_overflow),
		cmocka_unit_test(test_ranges_checked_at_open),
		cmocka_unit_test(test_range_malformed),
		cmocka_unit_test(test_views_and_triggers),
		cmocka_unit_test(test_meta_values),
		cmocka_unit_test(test_sum_overflow),
		cmocka_unit_test(test_negative_rowids),
		cmocka_unit_test(test_arch_escaped),
		cmocka_unit_test(test_negative_calls),
		cmocka_unit_test(test_negative_samples),
		cmocka_unit_test(test_null_and_text_integers),
		cmocka_unit_test(test_strings_and_tables),
		cmocka_unit_test(test_huge_count_diff_folded),
		cmocka_unit_test(test_bucket_out_of_range),
		cmocka_unit_test(test_not_databases),
		cmocka_unit_test(test_newer_table_in_older_file),
	};

	return cmocka_run_group_tests(tests, setup, teardown);
}
