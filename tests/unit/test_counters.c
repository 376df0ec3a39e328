// SPDX-License-Identifier: GPL-2.0-only
/*
 * The views of record --count and record -e on synthetic recordings whose
 * right answers are known.  One recording counts task-clock,
 * context-switches, cycles and instructions over nanosleep, getppid, read
 * (whose calls were not counted) and a probed function, cycles
 * multiplexed in two rows (scaled by 2 and by 1.5), its stacks sampled on
 * page-faults every 4 events: report (text and JSON) and folded weighing
 * each stack by its events, a key's weight split between its two comms.
 * Two recordings of 2 runs each for diff: the base counts task-clock and
 * context-switches, the hardened context-switches, task-clock and
 * cache-misses (on that side only, multiplexed in one run); and the first
 * recording against the base, whose CPU time cannot be compared.  The
 * first recording and the base are of a kprotperf that read every event
 * from perf (no meta count.sources); the hardened side took its software
 * events from its hooks, which diff says.  Outputs are compared whole with
 * golden files (tests/unit/golden/counters-*); a count.sources that names an
 * unknown source, or too few or too many, is a corrupt file.
 */
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "cmd/cmds.h"
#include "data/datafile.h"
#include "data/query.h"
#include "testutil.h"

#define K(off)	 ((long long)(0xffffffff81000000ULL + (off)))
#define OK(expr) assert_int_equal((expr), 0)

static char rec[] = "/tmp/kp-cnt-XXXXXX";
static char base[] = "/tmp/kp-cnt-base-XXXXXX";
static char hard[] = "/tmp/kp-cnt-hard-XXXXXX";
static char twice[] = "/tmp/kp-cnt-twice-XXXXXX";
static char badsrc[3][32] = {"/tmp/kp-cnt-src0-XXXXXX", "/tmp/kp-cnt-src1-XXXXXX",
			     "/tmp/kp-cnt-src2-XXXXXX"};

static void meta(struct datafile *df, const char *key, const char *value)
{
	OK(query_insert(df, "INSERT INTO meta VALUES(?,?)", "tt", key, value));
}

static void latency(struct datafile *df, const char *kind, long long id, const char *name,
		    long long calls, long long total_ns, long long oncpu_ns)
{
	OK(query_insert(df, "INSERT INTO latency VALUES(?,?,?,?,?,?,?,?,?)", "titiiiiii", kind, id,
			name, calls, calls, total_ns, oncpu_ns, total_ns - oncpu_ns,
			calls ? total_ns / calls : 0));
}

static void event(struct datafile *df, long long i, const char *name, long long type,
		  long long config)
{
	OK(query_insert(df, "INSERT INTO count_events VALUES(?,?,?,?,0,0)", "itii", i, name, type,
			config));
}

/* An event_totals row (run < 0) or a run_event_totals row. */
static void total(struct datafile *df, long long run, const char *kind, long long id, long long ev,
		  long long calls, long long n, long long enabled, long long running)
{
	if (run < 0)
		OK(query_insert(df, "INSERT INTO event_totals VALUES(?,?,?,?,?,?,?)", "tiiiiii",
				kind, id, ev, calls, n, enabled, running));
	else
		OK(query_insert(df, "INSERT INTO run_event_totals VALUES(?,?,?,?,?,?,?,?)",
				"itiiiiii", run, kind, id, ev, calls, n, enabled, running));
}

/* Stack 5: getppid's; samples of (pid 10, tid 11) under two comms, one weight. */
static void samples(struct datafile *df)
{
	static const char ksym[] = "INSERT INTO ksyms VALUES(?,?,'')";
	static const char kf[] = "INSERT INTO kstack_frames VALUES(5,?,?)";
	static const char s[] = "INSERT INTO samples VALUES(10,?,?,?,NULL,?)";
	static const char w[] = "INSERT INTO sample_weights VALUES(10,?,?,NULL,?)";

	OK(query_insert(df, ksym, "it", K(0), "entry_SYSCALL_64"));
	OK(query_insert(df, ksym, "it", K(0x1000), "do_syscall_64"));
	OK(query_insert(df, ksym, "it", K(0x2000), "clear_page_erms"));
	OK(query_insert(df, kf, "ii", 0LL, K(0x2010)));
	OK(query_insert(df, kf, "ii", 1LL, K(0x1010)));
	OK(query_insert(df, kf, "ii", 2LL, K(0x0010)));
	OK(query_insert(df, s, "itii", 10LL, "sleeper", 5LL, 3LL));
	OK(query_insert(df, w, "iii", 10LL, 5LL, 12LL));
	/* one key, two comms (an exec): 16 events split 1:3 */
	OK(query_insert(df, s, "itii", 11LL, "sh", 5LL, 1LL));
	OK(query_insert(df, s, "itii", 11LL, "sleeper", 5LL, 3LL));
	OK(query_insert(df, w, "iii", 11LL, 5LL, 16LL));
	OK(query_insert(df, "INSERT INTO counters VALUES('samples', 7)", ""));
}

/*
 * nanosleep: 10 calls, 12 context switches, cycles 300,000 counted half the
 * time (600,000 scaled), 900,000 instructions: IPC 1.50.  getppid: 1000
 * calls, 3 switches (0.003 per call, not 0.00), cycles 400,000 over 2/3 of
 * the time (600,000), IPC 2.00.  read: calls, none counted.  write: cycles never ran while enabled
 * (not counted, no IPC).  allocate_slab: IPC 0.50.  cycles ran 1,195,000
 * of 1,333,000 ns: 89.6%.
 */
static void fill_rec(struct datafile *df)
{
	meta(df, "record.command", "./sleeper");
	meta(df, "sampling.event", "page-faults");
	meta(df, "sampling.period", "4");
	meta(df, "count.events", "task-clock,context-switches,cycles,instructions");
	latency(df, "syscall", 35, "nanosleep", 10, 11000000, 200000);
	latency(df, "syscall", 110, "getppid", 1000, 200000, 200000);
	latency(df, "syscall", 0, "read", 5, 50000, 50000);
	latency(df, "syscall", 1, "write", 2, 6000, 6000);
	OK(query_insert(df,
			"INSERT INTO funcs VALUES(1,'allocate_slab','allocate_slab',?,NULL,"
			"'fentry')",
			"i", K(0x3000)));
	latency(df, "func", 1, "allocate_slab", 4, 1600000, 0);
	event(df, 0, "task-clock", 1, 1);
	event(df, 1, "context-switches", 1, 3);
	event(df, 2, "cycles", 0, 0);
	event(df, 3, "instructions", 0, 1);
	total(df, -1, "syscall", 35, 0, 10, 150000, 150000, 150000);
	total(df, -1, "syscall", 35, 1, 10, 12, 150000, 150000);
	total(df, -1, "syscall", 35, 2, 10, 300000, 150000, 75000);
	total(df, -1, "syscall", 35, 3, 10, 900000, 150000, 150000);
	total(df, -1, "syscall", 110, 0, 1000, 180000, 180000, 180000);
	total(df, -1, "syscall", 110, 1, 1000, 3, 180000, 180000);
	total(df, -1, "syscall", 110, 2, 1000, 400000, 180000, 120000);
	total(df, -1, "syscall", 110, 3, 1000, 1200000, 180000, 180000);
	total(df, -1, "syscall", 1, 0, 2, 3000, 3000, 3000);
	total(df, -1, "syscall", 1, 1, 2, 0, 3000, 3000);
	total(df, -1, "syscall", 1, 2, 2, 0, 3000, 0);
	total(df, -1, "syscall", 1, 3, 2, 4000, 3000, 3000);
	total(df, -1, "func", 1, 0, 4, 1000000, 1000000, 1000000);
	total(df, -1, "func", 1, 1, 4, 2, 1000000, 1000000);
	total(df, -1, "func", 1, 2, 4, 2000000, 1000000, 1000000);
	total(df, -1, "func", 1, 3, 4, 1000000, 1000000, 1000000);
	samples(df);
}

/* run r's share of an event of nanosleep (kind syscall) or allocate_slab (func). */
static void runs_of(struct datafile *df, const char *kind, long long id, long long ev,
		    long long calls, const long long n[2], long long running0)
{
	long long r;

	for (r = 0; r < 2; r++)
		total(df, r, kind, id, ev, calls, n[r], 1000, r ? 1000 : running0);
	total(df, -1, kind, id, ev, 2 * calls, n[0] + n[1], 2000, running0 + 1000);
}

/*
 * nanosleep, 10 calls a run: task-clock 10,000 and 11,000 ns per call on
 * the base, 15,000 and 16,000 on the hardened side; context switches 1.0
 * per call against 2.0 and 2.2.  allocate_slab, 2 calls a run: task-clock
 * doubled.  cache-misses, hardened only: 5 in run 0 counted half the time
 * (10 scaled), 5 in run 1.
 */
static void fill_side(struct datafile *df, bool hardened)
{
	static const long long tc[2][2] = {{100000, 110000}, {150000, 160000}};
	static const long long cs[2][2] = {{10, 10}, {20, 22}};
	static const long long fn[2][2] = {{40000, 44000}, {80000, 88000}};
	static const long long cm[2] = {5, 5};
	int h = hardened, r;

	meta(df, "record.command", "./sleeper");
	meta(df, "kernel.release", hardened ? "6.1.0-hard" : "6.1.0-base");
	meta(df, "arch", "x86_64");
	meta(df, "sampling.freq_hz", "99");
	for (r = 0; r < 2; r++)
		OK(query_insert(df, "INSERT INTO runs VALUES(?,1000000000,0,'exited')", "i",
				(long long)r));
	latency(df, "syscall", 35, "nanosleep", 20, 22000000, 200000);
	for (r = 0; r < 2; r++)
		OK(query_insert(df, "INSERT INTO run_latency VALUES(?,'syscall',35,10,10,?,?,?)",
				"iiii", (long long)r, 11000000LL + 1000000LL * h * (r + 1),
				100000LL, 10900000LL + 1000000LL * h * (r + 1)));
	OK(query_insert(df,
			"INSERT INTO funcs VALUES(1,'allocate_slab','allocate_slab',?,NULL,"
			"'fentry')",
			"i", K(0x3000)));
	latency(df, "func", 1, "allocate_slab", 4, 1600000, 0);
	/* the same names in another order on each side */
	event(df, h, "task-clock", 1, 1);
	event(df, !h, "context-switches", 1, 3);
	if (hardened) {
		event(df, 2, "cache-misses", 0, 3);
		meta(df, "count.sources", "sched_switch,clock,perf");
	}
	runs_of(df, "syscall", 35, h, 10, tc[h], 1000);
	runs_of(df, "syscall", 35, !h, 10, cs[h], 1000);
	runs_of(df, "func", 1, h, 2, fn[h], 1000);
	if (hardened)
		runs_of(df, "syscall", 35, 2, 10, cm, 500);
}

static void fill_base(struct datafile *df)
{
	fill_side(df, false);
}

static void fill_hard(struct datafile *df)
{
	fill_side(df, true);
}

/* Two events of one name (check.c lets them by): JSON keys and diff's matching need one. */
static void fill_twice(struct datafile *df)
{
	event(df, 0, "task-clock", 1, 1);
	event(df, 1, "task-clock", 1, 1);
}

/* count.sources of two events: a name no kprotperf writes, with an escape; too few; too many */
static void fill_badsrc(struct datafile *df, const char *sources)
{
	event(df, 0, "task-clock", 1, 1);
	event(df, 1, "context-switches", 1, 3);
	meta(df, "count.sources", sources);
}

static void fill_badsrc0(struct datafile *df)
{
	fill_badsrc(df, "clock,\033[31mhook");
}

static void fill_badsrc1(struct datafile *df)
{
	fill_badsrc(df, "clock");
}

static void fill_badsrc2(struct datafile *df)
{
	fill_badsrc(df, "clock,sched_switch,perf");
}

static int make_recordings(void **state)
{
	tu_recording(rec, fill_rec);
	tu_recording(base, fill_base);
	tu_recording(hard, fill_hard);
	tu_recording(twice, fill_twice);
	tu_recording(badsrc[0], fill_badsrc0);
	tu_recording(badsrc[1], fill_badsrc1);
	tu_recording(badsrc[2], fill_badsrc2);
	return 0;
}

static int drop_recordings(void **state)
{
	if (!getenv("KEEP")) {
		unlink(rec);
		unlink(base);
		unlink(hard);
		unlink(twice);
		unlink(badsrc[0]);
		unlink(badsrc[1]);
		unlink(badsrc[2]);
	}
	return 0;
}

static void test_report_text(void **state)
{
	char *argv[] = {"report", rec, NULL};

	tu_golden_output("counters-report", cmd_report, argv);
}

static void test_report_json(void **state)
{
	char *argv[] = {"report", "--json", rec, NULL};

	tu_golden_output("counters-report-json", cmd_report, argv);
}

/* 12 events for tid 10's 3 samples; tid 11's 16 split 4 (sh) and 12 (sleeper). */
static void test_folded_weighted(void **state)
{
	char *argv[] = {"folded", rec, NULL};

	tu_expect(cmd_folded, argv, 1, 0,
		  "sh;entry_SYSCALL_64_[k];do_syscall_64_[k];clear_page_erms_[k] 4\n"
		  "sleeper;entry_SYSCALL_64_[k];do_syscall_64_[k];clear_page_erms_[k] 24\n");
}

/* diff --folded weighs the event-sampled side as folded does; the base has no samples. */
static void test_diff_folded_weighted(void **state)
{
	char *argv[] = {"diff", "--folded", rec, base, NULL};

	tu_expect(cmd_diff, argv, 1, 0,
		  "sh;entry_SYSCALL_64_[k];do_syscall_64_[k];clear_page_erms_[k] 4 0\n"
		  "sleeper;entry_SYSCALL_64_[k];do_syscall_64_[k];clear_page_erms_[k] 24 0\n");
}

static void golden_diff(const char *name, const char *opt, char *a, char *b)
{
	char *argv[] = {"diff", a, b, NULL, NULL};
	char *out;
	const char *const pairs[] = {rec, "$REC", base, "$BASE", hard, "$HARD", NULL};

	if (opt) {
		argv[3] = b;
		argv[2] = a;
		argv[1] = (char *)opt;
	}
	out = tu_output(cmd_diff, argv);
	tu_golden_mask(name, out, pairs);
	free(out);
}

static void test_diff_text(void **state)
{
	golden_diff("counters-diff", NULL, base, hard);
}

static void test_diff_json(void **state)
{
	golden_diff("counters-diff-json", "--json", base, hard);
}

/*
 * A side sampled on page-faults: no CPU time compared (said once, its
 * tables null in JSON); cycles and instructions counted on the base only;
 * one run on a side: no interval.
 */
static void test_diff_untimed(void **state)
{
	golden_diff("counters-diff-untimed", NULL, rec, base);
	golden_diff("counters-diff-untimed-json", "--json", rec, base);
}

static void test_name_twice(void **state)
{
	char *argv[] = {"report", twice, NULL};
	char *want = NULL;

	assert_true(asprintf(&want,
			     "kprotperf report: %s: corrupt data file: table count_events: event 1:"
			     " 'task-clock' again: record it again\n",
			     twice) > 0);
	tu_expect(cmd_report, argv, 2, 1, want);
	free(want);
}

static void test_bad_sources(void **state)
{
	static const char *const why[] = {
		"meta count.sources: '?[31mhook' is no source kprotperf knows (event 1)",
		"meta count.sources: 1 sources for 2 events",
		"meta count.sources: more sources than the 2 events",
	};
	char *argv[] = {"report", NULL, NULL};
	char *want = NULL;
	size_t i;

	for (i = 0; i < 3; i++) {
		argv[1] = badsrc[i];
		assert_true(
			asprintf(&want,
				 "kprotperf report: %s: corrupt data file: %s: record it again\n",
				 badsrc[i], why[i]) > 0);
		tu_expect(cmd_report, argv, 2, 1, want);
		free(want);
	}
}

/* A file of schema 12 (the golden recordings'): no counters line, no table, no JSON key. */
static void test_no_counters(void **state)
{
	char *text[] = {"report", "tests/golden/data/sl.data", NULL};
	char *json[] = {"report", "--json", "tests/golden/data/sl.data", NULL};
	char *out = tu_output(cmd_report, text);

	assert_null(strstr(out, "# counters"));
	assert_null(strstr(out, "Counters per"));
	assert_non_null(strstr(out, "; 499 Hz cpu-clock sampling\n"));
	free(out);
	out = tu_output(cmd_report, json);
	assert_null(strstr(out, "\"event_counters\""));
	assert_null(strstr(out, "\"events\""));
	free(out);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_report_text),	cmocka_unit_test(test_report_json),
		cmocka_unit_test(test_folded_weighted), cmocka_unit_test(test_diff_folded_weighted),
		cmocka_unit_test(test_diff_text),	cmocka_unit_test(test_diff_json),
		cmocka_unit_test(test_diff_untimed),	cmocka_unit_test(test_name_twice),
		cmocka_unit_test(test_bad_sources),	cmocka_unit_test(test_no_counters),
	};

	return cmocka_run_group_tests(tests, make_recordings, drop_recordings);
}
