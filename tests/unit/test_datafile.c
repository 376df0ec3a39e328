// SPDX-License-Identifier: GPL-2.0-only
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>
#include <dirent.h>
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "data/count_tables.h"
#include "data/datafile.h"
#include "data/query.h"
#include "testutil.h"

struct fixture {
	char dir[64];
	char path[128];
};

static int setup(void **state)
{
	struct fixture *fx = calloc(1, sizeof(*fx));

	strcpy(fx->dir, "/tmp/kp-unit-XXXXXX");
	assert_non_null(mkdtemp(fx->dir));
	snprintf(fx->path, sizeof(fx->path), "%s/k.data", fx->dir);
	*state = fx;
	return 0;
}

static int teardown(void **state)
{
	struct fixture *fx = *state;

	assert_int_equal(tu_run("rm -rf %s", fx->dir), 0);
	free(fx);
	return 0;
}

static int entries(const char *dir)
{
	DIR *d = opendir(dir);
	struct dirent *e;
	int n = 0;

	while ((e = readdir(d)))
		n += e->d_name[0] != '.';
	closedir(d);
	return n;
}

static void write_file(const char *path, const char *meta_value)
{
	struct datafile *df;

	assert_int_equal(datafile_create(&df, path, (uid_t)-1, NULL, 0), 0);
	assert_int_equal(query_insert(df, "INSERT INTO meta VALUES(?,?)", "tt", "k", meta_value),
			 0);
	assert_int_equal(
		query_insert(df, "INSERT INTO counters VALUES(?,?)", "ti", "samples", 42LL), 0);
	assert_int_equal(datafile_commit(df, (uid_t)-1, (gid_t)-1, NULL, 0), 0);
}

static void test_round_trip(void **state)
{
	struct fixture *fx = *state;
	char why[256];
	struct stat st;
	struct datafile *df;

	write_file(fx->path, "v1");
	assert_int_equal(stat(fx->path, &st), 0);
	assert_int_equal(st.st_mode & 0777, 0600);
	assert_int_equal(entries(fx->dir), 1); /* no temp file left behind */
	assert_int_equal(datafile_open(&df, fx->path, why, sizeof(why)), 0);
	assert_string_equal(datafile_meta(df, "k"), "v1");
	assert_null(datafile_meta(df, "missing"));
	datafile_close(df);
}

static void test_commit_replaces_abort_keeps(void **state)
{
	struct fixture *fx = *state;
	char why[256];
	struct datafile *df;

	write_file(fx->path, "old");
	assert_int_equal(datafile_create(&df, fx->path, (uid_t)-1, NULL, 0), 0);
	assert_int_equal(entries(fx->dir), 2);
	datafile_abort(df);
	assert_int_equal(entries(fx->dir), 1);
	assert_int_equal(datafile_open(&df, fx->path, why, sizeof(why)), 0);
	assert_string_equal(datafile_meta(df, "k"), "old");
	datafile_close(df);
	write_file(fx->path, "new");
	assert_int_equal(datafile_open(&df, fx->path, why, sizeof(why)), 0);
	assert_string_equal(datafile_meta(df, "k"), "new");
	datafile_close(df);
}

static void test_create_in_missing_dir(void **state)
{
	struct datafile *df;

	assert_int_equal(datafile_create(&df, "/nonexistent-dir/k.data", (uid_t)-1, NULL, 0),
			 -ENOENT);
}

/* The file's bytes (malloc'd, *size of them), or NULL when there is no file. */
static void *bytes_of(const char *path, size_t *size)
{
	FILE *f = fopen(path, "rb");
	char *buf;
	long n;

	if (!f)
		return NULL;
	assert_int_equal(fseek(f, 0, SEEK_END), 0);
	n = ftell(f);
	assert_true(n >= 0);
	rewind(f);
	buf = malloc(n + 1);
	assert_non_null(buf);
	assert_int_equal(fread(buf, 1, n, f), (size_t)n);
	fclose(f);
	*size = n;
	return buf;
}

/* datafile_load of the file's bytes: as datafile_open, the same error and why. */
static void expect_load_same(const char *path, int err, const char *why_open)
{
	char why[256];
	struct datafile *df;
	size_t size;
	void *data = bytes_of(path, &size);

	if (!data)
		return;
	assert_int_equal(datafile_load(&df, path, data, size, why, sizeof(why)), err);
	free(data);
	assert_string_equal(why, why_open);
	if (!err)
		datafile_close(df);
}

static void expect_bad(const char *path, int err, const char *why_part)
{
	char why[256];
	struct datafile *df;

	assert_int_equal(datafile_open(&df, path, why, sizeof(why)), err);
	if (why_part)
		assert_non_null(strstr(why, why_part));
	else
		assert_string_equal(why, "");
	expect_load_same(path, err, why);
}

static void sh(const char *fmt, const char *a, const char *b)
{
	assert_int_equal(tu_run(fmt, a, b), 0);
}

static void test_bad_files(void **state)
{
	struct fixture *fx = *state;
	char p[160];

	expect_bad("/nonexistent-kp.data", -ENOENT, NULL);
	snprintf(p, sizeof(p), "%s/empty", fx->dir);
	sh("touch %s%s", p, "");
	expect_bad(p, -EBADMSG, "empty");
	snprintf(p, sizeof(p), "%s/text", fx->dir);
	sh("echo 'hello, not a database at all, just some text for the header' > %s%s", p, "");
	expect_bad(p, -EBADMSG, "not an SQLite database");
	snprintf(p, sizeof(p), "%s/foreign", fx->dir);
	sh("sqlite3 %s 'CREATE TABLE t(x)'%s", p, "");
	expect_bad(p, -EBADMSG, "foreign");
	/* a value the checks refuse, and SQL record never writes */
	write_file(fx->path, "v");
	snprintf(p, sizeof(p), "%s/negative", fx->dir);
	sh("cp %s %s", fx->path, p);
	sh("sqlite3 %s 'UPDATE counters SET value = -1'%s", p, "");
	expect_bad(p, -EBADMSG, "table counters, row 1: value is -1");
	snprintf(p, sizeof(p), "%s/view", fx->dir);
	sh("cp %s %s", fx->path, p);
	sh("sqlite3 %s 'CREATE VIEW v AS SELECT 1'%s", p, "");
	expect_bad(p, -EBADMSG, "holds a view v");
}

static void test_newer_and_truncated(void **state)
{
	struct fixture *fx = *state;
	char p[160];
	struct datafile *df;
	int i;

	write_file(fx->path, "x");
	snprintf(p, sizeof(p), "%s/newer", fx->dir);
	sh("cp %s %s", fx->path, p);
	sh("sqlite3 %s 'PRAGMA user_version = 99'%s", p, "");
	expect_bad(p, -EPROTONOSUPPORT, "newer");
	/* big enough to span many pages, then cut in half */
	assert_int_equal(datafile_create(&df, fx->path, (uid_t)-1, NULL, 0), 0);
	for (i = 0; i < 5000; i++)
		assert_int_equal(query_insert(df, "INSERT INTO kstack_frames VALUES(?,?,?)", "iii",
					      (long long)i, 0LL, (long long)i * 7),
				 0);
	assert_int_equal(datafile_commit(df, (uid_t)-1, (gid_t)-1, NULL, 0), 0);
	snprintf(p, sizeof(p), "%s/truncated", fx->dir);
	sh("head -c 20000 %s > %s", fx->path, p);
	expect_bad(p, -EBADMSG, "corrupt or truncated");
}

/*
 * fx's file written with meta k = v1 and loaded from memory; the bytes
 * are zeroed and freed before it returns: the database holds a copy.
 */
static struct datafile *load_v1(struct fixture *fx)
{
	struct datafile *df;
	char why[256];
	size_t size;
	void *data;

	write_file(fx->path, "v1");
	data = bytes_of(fx->path, &size);
	assert_non_null(data);
	assert_int_equal(datafile_load(&df, fx->path, data, size, why, sizeof(why)), 0);
	memset(data, 0, size);
	free(data);
	return df;
}

/* The same file from memory: the same meta, schema and counters. */
static void test_load(void **state)
{
	struct fixture *fx = *state;
	long long samples = 0;
	struct datafile *df = load_v1(fx);
	char why[256];
	size_t size;
	void *data;

	assert_string_equal(datafile_meta(df, "k"), "v1");
	assert_int_equal(datafile_schema(df), KP_SCHEMA_VERSION);
	assert_true(query_each(df, "SELECT value FROM counters WHERE name = 'samples'",
			       query_int_row, &samples, "") >= 0);
	assert_int_equal(samples, 42);
	datafile_close(df);
	assert_int_equal(datafile_load(&df, fx->path, "", 0, why, sizeof(why)), -EBADMSG);
	assert_string_equal(why, "empty file, not a kprotperf data file");
	/* marked as a WAL database: its own pages read, as datafile_open reads them */
	data = bytes_of(fx->path, &size);
	assert_non_null(data);
	((unsigned char *)data)[18] = ((unsigned char *)data)[19] = 2;
	assert_int_equal(datafile_load(&df, fx->path, data, size, why, sizeof(why)), 0);
	assert_string_equal(datafile_meta(df, "k"), "v1");
	datafile_close(df);
	free(data);
}

/* Rows changed in the loaded copy: checked again as opening checks them, meta read anew. */
static void test_recheck(void **state)
{
	struct datafile *df = load_v1(*state);
	char why[256];

	assert_int_equal(query_exec(df, "UPDATE meta SET value = 'v2' WHERE key = 'k'"), 0);
	assert_int_equal(datafile_recheck(df, why, sizeof(why)), 0);
	assert_string_equal(datafile_meta(df, "k"), "v2");
	assert_int_equal(query_exec(df, "UPDATE counters SET value = -1"), 0);
	assert_int_equal(datafile_recheck(df, why, sizeof(why)), -EBADMSG);
	assert_string_equal(why, "corrupt data file: table counters, row 1: value is -1, not a"
				 " time from 0 to 2^60 ns: record it again");
	/* the bad value found before is forgotten once the values pass again */
	assert_int_equal(query_exec(df, "UPDATE counters SET value = 42"), 0);
	assert_int_equal(datafile_recheck(df, why, sizeof(why)), 0);
	assert_string_equal(why, "");
	assert_false(datafile_why(df, why, sizeof(why)));
	datafile_close(df);
}

/* A recording with --count and -e rows, as record writes them. */
static void write_counts(const char *path)
{
	const struct count_event_row ev[] = {{0, "context-switches", 1, 3, 0, 0},
					     {1, "cpu/event=0x3c,umask=0x0/", 4, 0x3c, 0, 0}};
	struct count_total_row t = {"syscall", 35, 0, 10, 11, 5000, 5000};
	struct datafile *df;
	__s32 k = 3;

	assert_int_equal(datafile_create(&df, path, (uid_t)-1, NULL, 0), 0);
	assert_int_equal(count_put_event(df, &ev[0]), 0);
	assert_int_equal(count_put_event(df, &ev[1]), 0);
	assert_int_equal(count_put_total(df, &t), 0);
	t.event = 1;
	t.running_ns = 2500;
	assert_int_equal(count_put_run_total(df, 0, &t), 0);
	assert_int_equal(query_insert(df, "INSERT INTO samples VALUES(7, 7, 'x', 3, 9, 4)", ""), 0);
	assert_int_equal(query_insert(df, "INSERT INTO samples VALUES(7, 7, 'y', 3, 9, 2)", ""), 0);
	assert_int_equal(count_put_weight(df, 7, 7, &k, 9, 6), 0);
	assert_int_equal(count_put_weight(df, 7, 8, NULL, 9, 1), 0);
	assert_int_equal(datafile_commit(df, (uid_t)-1, (gid_t)-1, NULL, 0), 0);
}

/* Schema 13's values checked: each broken rule one line naming it. */
static void test_counts_checked(void **state)
{
	static const struct {
		const char *sql, *why;
	} cases[] = {
		{"UPDATE count_events SET name = 'a b' WHERE event = 0",
		 "table count_events, row 0: name is 'a b', not 1 to 256 printable ASCII bytes"
		 " without spaces"},
		{"UPDATE count_events SET name = '' WHERE event = 0",
		 "table count_events, row 0: name is '', not 1 to 256 printable ASCII bytes"
		 " without spaces"},
		{"UPDATE count_events SET type = -1 WHERE event = 1",
		 "table count_events, row 1: type is -1, not an integer from 0 to 2^32-1"},
		{"UPDATE event_totals SET event = 8",
		 "table event_totals, row 1: event is 8, not an event index from 0 to 7"},
		{"UPDATE event_totals SET kind = 'block'",
		 "table event_totals, row 1: kind is 'block', not syscall or func"},
		{"UPDATE event_totals SET running_ns = 5001",
		 "table event_totals, row 1: running_ns is above enabled_ns"},
		{"UPDATE run_event_totals SET running_ns = 5001",
		 "table run_event_totals, row 1: running_ns is above enabled_ns"},
		{"DELETE FROM count_events WHERE event = 1",
		 "table run_event_totals, row 1: event is not one of count_events"},
		{"UPDATE sample_weights SET weight = 5 WHERE tid = 7",
		 "table sample_weights, row 1: weight is below its samples' count"},
		{"UPDATE meta SET value = '0' WHERE key = 'sampling.period'",
		 "table meta, row 1: sampling.period is '0', not a period from 1 to 2^40"},
	};
	struct fixture *fx = *state;
	struct datafile *df;
	char why[256], want[256];
	size_t i;

	write_counts(fx->path);
	assert_int_equal(datafile_open(&df, fx->path, why, sizeof(why)), 0);
	datafile_close(df);
	for (i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		size_t size;
		void *data = bytes_of(fx->path, &size);

		assert_int_equal(datafile_load(&df, fx->path, data, size, why, sizeof(why)), 0);
		assert_int_equal(query_exec(df, "INSERT INTO meta VALUES('sampling.period', '1')"),
				 0);
		assert_int_equal(datafile_recheck(df, why, sizeof(why)), 0);
		assert_int_equal(query_exec(df, cases[i].sql), 0);
		assert_int_equal(datafile_recheck(df, why, sizeof(why)), -EBADMSG);
		snprintf(want, sizeof(want), "corrupt data file: %s: record it again",
			 cases[i].why);
		assert_string_equal(why, want);
		datafile_close(df);
		free(data);
	}
}

/* ns per sample: -F's rate, or -c's period on a clock; none on another event */
static void test_sample_period(void **state)
{
	static const struct {
		const char *event, *key, *value;
		double ns;
	} cases[] = {
		{"cpu-clock", "sampling.freq_hz", "1000", 1e6},
		{"cpu-clock", "sampling.period", "2000000", 2e6},
		{"task-clock", "sampling.period", "500000", 5e5},
		/* samples of an event that is no clock stand for no time */
		{"page-faults", "sampling.period", "1", NAN},
		{"cpu-clock", "record.pid", "1", 1e9 / 99},
	};
	struct fixture *fx = *state;
	struct datafile *df;
	char why[256];
	size_t i;

	for (i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		assert_int_equal(datafile_create(&df, fx->path, (uid_t)-1, NULL, 0), 0);
		assert_int_equal(query_insert(df, "INSERT INTO meta VALUES('sampling.event', ?)",
					      "t", cases[i].event),
				 0);
		assert_int_equal(query_insert(df, "INSERT INTO meta VALUES(?, ?)", "tt",
					      cases[i].key, cases[i].value),
				 0);
		assert_int_equal(datafile_commit(df, (uid_t)-1, (gid_t)-1, NULL, 0), 0);
		assert_int_equal(datafile_open(&df, fx->path, why, sizeof(why)), 0);
		if (isnan(cases[i].ns))
			assert_true(isnan(datafile_sample_period_ns(df)));
		else
			assert_true(datafile_sample_period_ns(df) > cases[i].ns * 0.999999 &&
				    datafile_sample_period_ns(df) < cases[i].ns * 1.000001);
		datafile_close(df);
	}
}

static int count_row(sqlite3_stmt *st, void *n)
{
	(void)st;
	++*(int *)n;
	return 0;
}

/* Each row of the statement runs it whole again, from inside its own walk. */
static int nested_row(sqlite3_stmt *st, void *ctx)
{
	void **c = ctx;

	(void)st;
	return query_each(c[0], "SELECT value FROM counters", count_row, c[1], "");
}

/*
 * query_each keeps its statements on a loaded file: the same SQL again, from
 * a buffer of the caller's, run inside its own walk, and after a TEMP table
 * changed the schema, with new parameters each time.
 */
static void test_each_kept(void **state)
{
	struct datafile *df = load_v1(*state);
	char sql[64];
	int n = 0;
	void *ctx[2];

	ctx[0] = df;
	ctx[1] = &n;
	assert_int_equal(query_each(df, "SELECT value FROM counters", nested_row, ctx, ""), 0);
	assert_int_equal(n, 1);
	assert_int_equal(query_exec(df, "CREATE TEMP TABLE t(a); INSERT INTO t VALUES(1), (2)"), 0);
	for (n = 0; n < 3; n++) {
		long long v = -1;

		snprintf(sql, sizeof(sql), "SELECT count(*) + ? FROM %s",
			 n == 1 ? "t" : "counters");
		assert_true(query_each(df, sql, query_int_row, &v, "i", (long long)n) >= 0);
		assert_int_equal(v, (n == 1 ? 2 : 1) + n);
	}
	datafile_close(df);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_setup_teardown(test_round_trip, setup, teardown),
		cmocka_unit_test_setup_teardown(test_load, setup, teardown),
		cmocka_unit_test_setup_teardown(test_recheck, setup, teardown),
		cmocka_unit_test_setup_teardown(test_each_kept, setup, teardown),
		cmocka_unit_test_setup_teardown(test_counts_checked, setup, teardown),
		cmocka_unit_test_setup_teardown(test_sample_period, setup, teardown),
		cmocka_unit_test_setup_teardown(test_commit_replaces_abort_keeps, setup, teardown),
		cmocka_unit_test_setup_teardown(test_create_in_missing_dir, setup, teardown),
		cmocka_unit_test_setup_teardown(test_bad_files, setup, teardown),
		cmocka_unit_test_setup_teardown(test_newer_and_truncated, setup, teardown),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
