// SPDX-License-Identifier: GPL-2.0-only
/*
 * folded and report on synthetic recordings whose right output is known: one
 * with CPU samples and record --func data, one with the samples alone (and
 * it again with its compiler-inserted sites known, and with record unable to
 * read the kernel's text), and one where a syscall and a probed function
 * share a name.  Outputs are compared whole: inline, or with golden files
 * (tests/unit/golden/output-*).
 */
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>
#include <float.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "data/datafile.h"
#include "data/protect.h"
#include "data/query.h"
#include "report/report_folded.h"
#include "util/hist.h"
#include "report/report.h"
#include "cmd/cmds.h"
#include "testutil.h"
#include "util/fmt.h"

#define K(off)	 ((long long)(0xffffffff81000000ULL + (off)))
#define OK(expr) assert_int_equal((expr), 0)

static char path[] = "/tmp/kp-out-XXXXXX";
static char nofunc_path[] = "/tmp/kp-out-nofunc-XXXXXX";
static char clash_path[] = "/tmp/kp-out-clash-XXXXXX";
static char unknown_path[] = "/tmp/kp-out-unknown-XXXXXX";
static char huge_path[] = "/tmp/kp-out-huge-XXXXXX";
static char sites_path[] = "/tmp/kp-out-sites-XXXXXX";
static char nosites_path[] = "/tmp/kp-out-nosites-XXXXXX";

static void sample(struct datafile *df, int tid, const char *kstack, long long count)
{
	static const char sql[] = "INSERT INTO samples VALUES(10,?,'burn',?,0,?)";

	if (kstack)
		assert_int_equal(query_insert(df, sql, "iii", (long long)tid, atoll(kstack), count),
				 0);
	else
		assert_int_equal(query_insert(df,
					      "INSERT INTO samples VALUES(10,?,'burn',NULL,0,?)",
					      "ii", (long long)tid, count),
				 0);
}

static void fill_samples(struct datafile *df)
{
	static const char ksym[] = "INSERT INTO ksyms VALUES(?,?,'')";
	static const char kf[] = "INSERT INTO kstack_frames VALUES(5,?,?)";
	static const char uf[] = "INSERT INTO ustack_frames VALUES(0,?,0,?,?,0)";

	OK(query_insert(df, ksym, "it", K(0), "entry_SYSCALL_64"));
	OK(query_insert(df, ksym, "it", K(0x1000), "do_syscall_64"));
	OK(query_insert(df, ksym, "it", K(0x2000), "__x64_sys_getppid"));
	OK(query_insert(df, kf, "ii", 0LL, K(0x2010)));
	/* a return address right at the next symbol belongs to the caller before it */
	OK(query_insert(df, kf, "ii", 1LL, K(0x2000)));
	OK(query_insert(df, kf, "ii", 2LL, K(0x0001)));
	OK(query_insert(df, uf, "itt", 0LL, "/bin/burn", "kp_burn_hot_loop"));
	OK(query_insert(df, uf, "itt", 1LL, "/bin/burn", "main"));
	OK(query_insert(df, uf, "itt", 2LL, "/usr/lib/x86_64-linux-gnu/libc.so.6", NULL));
	sample(df, 10, NULL, 7);
	sample(df, 11, "5", 3);
	sample(df, 12, NULL, 2);
	sample(df, 10, "-17", 1);
	OK(query_insert(df, "INSERT INTO counters VALUES('samples', 13)", ""));
}

static void hist_row(struct datafile *df, const char *kind, long long id, const char *clock, int b,
		     long long count)
{
	OK(query_insert(df, "INSERT INTO latency_hist VALUES(?,?,?,?,?,?,?)", "titiiii", kind, id,
			clock, (long long)b, (long long)hist_lo(b), (long long)hist_hi(b), count));
}

static const char lat_sql[] = "INSERT INTO latency VALUES(?,?,?,?,?,?,?,?,?)";
static const char func_sql[] = "INSERT INTO funcs VALUES(?,?,?,?,?,?)";

/*
 * clone: 4 calls, 3.2ms on CPU.  allocate_slab: 3 returns of ~300us (bucket
 * 129, [294912, 327680)) and one of 700us (bucket 138, [655360, 720896)), 3
 * of them in clone, one in a page fault.  mas_copy_node.isra.0: 2 returns of
 * 170us (bucket 122, [163840, 180224)) and one of 400us (bucket 132, [393216,
 * 425984)), 2 in clone and one in mmap (nr 9), which has no latency row.
 */
static void fill_funcs(struct datafile *df)
{
	static const char fsc[] = "INSERT INTO func_syscalls VALUES(?,?,?,?)";
	static const char ctx[] = "INSERT INTO func_contexts VALUES(1,?,?,?)";

	OK(query_insert(df, lat_sql, "titiiiiii", "syscall", 56LL, "clone", 4LL, 4LL, 8000000LL,
			3200000LL, 4800000LL, 3000000LL));
	OK(query_insert(df, func_sql, "ittitt", 1LL, "allocate_slab", "allocate_slab", K(0x3000),
			NULL, "fentry"));
	OK(query_insert(df, func_sql, "ittitt", 2LL, "mas_copy_node", "mas_copy_node.isra.0",
			K(0x4000), NULL, "kprobe"));
	OK(query_insert(df, func_sql, "ittitt", 3LL, "never_called", "never_called", 0LL, "kp_mod",
			"kprobe.multi"));
	OK(query_insert(df, lat_sql, "titiiiiii", "func", 1LL, "allocate_slab", 4LL, 4LL, 1600000LL,
			0LL, 0LL, 700000LL));
	OK(query_insert(df, lat_sql, "titiiiiii", "func", 2LL, "mas_copy_node", 3LL, 3LL, 740000LL,
			0LL, 0LL, 400000LL));
	hist_row(df, "func", 1, "total", 129, 3);
	hist_row(df, "func", 1, "total", 138, 1);
	hist_row(df, "func", 2, "total", 122, 2);
	hist_row(df, "func", 2, "total", 132, 1);
	OK(query_insert(df, fsc, "iiii", 1LL, 56LL, 3LL, 1200000LL));
	OK(query_insert(df, fsc, "iiii", 1LL, 65535LL, 1LL, 400000LL));
	OK(query_insert(df, fsc, "iiii", 2LL, 56LL, 2LL, 640000LL));
	OK(query_insert(df, fsc, "iiii", 2LL, 9LL, 1LL, 100000LL));
	OK(query_insert(df, ctx, "tii", "kmalloc-64", 3LL, 900000LL));
	OK(query_insert(df, ctx, "tii", "vm_area_struct", 1LL, 700000LL));
}

/*
 * Stacks 7 and 9: clone into each function; 8: a page fault into
 * allocate_slab.  One call of mas_copy_node lost its stack (-EFAULT); one of
 * allocate_slab from stack 5 never returned (0 ns).
 */
static void fill_func_stacks(struct datafile *df)
{
	static const char ksym[] = "INSERT INTO ksyms VALUES(?,?,'')";
	static const char kf[] = "INSERT INTO kstack_frames VALUES(?,?,?)";
	static const char fs[] = "INSERT INTO func_stacks VALUES(?,?,?,?)";
	static const long long frames[][3] = {
		{7, 0, K(0x3000)}, {7, 1, K(0x5020)}, {7, 2, K(0x1010)}, {7, 3, K(0x0010)},
		{8, 0, K(0x3000)}, {8, 1, K(0x6010)}, {9, 0, K(0x4000)}, {9, 1, K(0x5030)},
		{9, 2, K(0x1010)}, {9, 3, K(0x0010)},
	};
	size_t i;

	OK(query_insert(df, ksym, "it", K(0x3000), "allocate_slab"));
	OK(query_insert(df, ksym, "it", K(0x4000), "mas_copy_node.isra.0"));
	OK(query_insert(df, ksym, "it", K(0x5000), "kernel_clone"));
	OK(query_insert(df, ksym, "it", K(0x6000), "asm_exc_page_fault"));
	for (i = 0; i < sizeof(frames) / sizeof(frames[0]); i++)
		OK(query_insert(df, kf, "iii", frames[i][0], frames[i][1], frames[i][2]));
	OK(query_insert(df, fs, "iiii", 1LL, 7LL, 3LL, 1200000LL));
	OK(query_insert(df, fs, "iiii", 1LL, 8LL, 1LL, 400000LL));
	OK(query_insert(df, fs, "iiii", 1LL, 5LL, 1LL, 0LL));
	OK(query_insert(df, fs, "iiii", 2LL, 9LL, 2LL, 640000LL));
	OK(query_insert(df, fs, "iiii", 2LL, -14LL, 1LL, 100000LL));
}

static void fill_all(struct datafile *df)
{
	fill_samples(df);
	fill_funcs(df);
	fill_func_stacks(df);
}

/* A syscall and a probed function both named read, with different histograms. */
static void fill_clash(struct datafile *df)
{
	OK(query_insert(df, lat_sql, "titiiiiii", "syscall", 0LL, "read", 2LL, 2LL, 2000LL, 2000LL,
			0LL, 1000LL));
	OK(query_insert(df, func_sql, "ittitt", 1LL, "read", "read", K(0x7000), NULL, "fentry"));
	OK(query_insert(df, lat_sql, "titiiiiii", "func", 1LL, "read", 1LL, 1LL, 2000000LL, 0LL,
			0LL, 2000000LL));
	hist_row(df, "syscall", 0, "total", 63, 2);
	hist_row(df, "syscall", 0, "oncpu", 63, 2);
	hist_row(df, "func", 1, "total", 151, 1);
}

/*
 * A user stack as record stores what it cannot resolve: a pc in the vdso
 * (module "[vdso]") and one in no mapping at all (module "[unknown]").
 */
static void fill_unknown(struct datafile *df)
{
	static const char uf[] = "INSERT INTO ustack_frames VALUES(0,?,0,?,?,0)";

	OK(query_insert(df, uf, "itt", 0LL, "[vdso]", NULL));
	OK(query_insert(df, uf, "itt", 1LL, "/bin/burn", "main"));
	OK(query_insert(df, uf, "itt", 2LL, "[unknown]", NULL));
	sample(df, 10, NULL, 4);
}

/*
 * 2^40 samples (the most a row may hold) in shuffle_freelist at 49 Hz: a
 * time of 2.24e19 ns, past 2^64.
 */
static void fill_huge(struct datafile *df)
{
	OK(query_insert(df, "INSERT INTO ksyms VALUES(?,'shuffle_freelist','')", "i", K(0)));
	OK(query_insert(df, "INSERT INTO kstack_frames VALUES(5,0,?)", "i", K(0x10)));
	OK(query_insert(df, "INSERT INTO meta VALUES('sampling.freq_hz','49')", ""));
	sample(df, 10, "5", 1LL << 40);
}

/*
 * fill_samples' recording with its kernel text scanned at record time:
 * __x64_sys_getppid holds two return-thunk sites, one at the pc of stack
 * 5's 3 samples.
 */
static void fill_sites(struct datafile *df)
{
	fill_samples(df);
	OK(query_insert(df, "INSERT INTO meta VALUES('protect.source','/proc/kcore')", ""));
	OK(protect_put_func(df, K(0x2000), "__x64_sys_getppid", 0x100));
	OK(protect_put_site(df, K(0x2010), 5, "return_thunk"));
	OK(protect_put_site(df, K(0x2080), 5, "return_thunk"));
}

/* The same made where record could not read the kernel's text: no site known. */
static void fill_no_sites(struct datafile *df)
{
	fill_samples(df);
	OK(query_insert(df,
			"INSERT INTO meta VALUES('protect.source', 'none: the running kernel''s"
			" text cannot be read (/proc/kallsyms, /proc/kcore): No such file or"
			" directory')",
			""));
}

static int make_recordings(void **state)
{
	tu_recording(path, fill_all);
	tu_recording(unknown_path, fill_unknown);
	tu_recording(nofunc_path, fill_samples);
	tu_recording(clash_path, fill_clash);
	tu_recording(huge_path, fill_huge);
	tu_recording(sites_path, fill_sites);
	tu_recording(nosites_path, fill_no_sites);
	return 0;
}

static int drop_recordings(void **state)
{
	if (!getenv("KEEP")) {
		unlink(path);
		unlink(nofunc_path);
		unlink(clash_path);
		unlink(unknown_path);
		unlink(huge_path);
		unlink(sites_path);
		unlink(nosites_path);
	}
	return 0;
}

static void test_folded_lines(void **state)
{
	char *argv[] = {"folded", path, NULL};
	char *out = tu_output(cmd_folded, argv);

	assert_string_equal(
		out,
		"burn;[libc.so.6];main;kp_burn_hot_loop 9\n"
		"burn;[libc.so.6];main;kp_burn_hot_loop;[kernel stack lost]_[k] 1\n"
		"burn;[libc.so.6];main;kp_burn_hot_loop;entry_SYSCALL_64_[k];do_syscall_64_[k];"
		"__x64_sys_getppid_[k] 3\n");
	free(out);
}

static void test_folded_kernel_and_user_only(void **state)
{
	char *kargv[] = {"folded", "-K", path, NULL},
	     *uargv[] = {"folded", "--user-only", path, NULL};
	char *out = tu_output(cmd_folded, kargv);

	assert_string_equal(
		out, "burn 9\nburn;[kernel stack lost]_[k] 1\n"
		     "burn;entry_SYSCALL_64_[k];do_syscall_64_[k];__x64_sys_getppid_[k] 3\n");
	free(out);
	out = tu_output(cmd_folded, uargv);
	assert_string_equal(out, "burn;[libc.so.6];main;kp_burn_hot_loop 13\n");
	free(out);
}

/* Named as perf names them, once bracketed: "[unknown]", "[vdso]". */
static void test_folded_unknown_frames(void **state)
{
	char *argv[] = {"folded", unknown_path, NULL};
	char *out = tu_output(cmd_folded, argv);

	assert_string_equal(out, "burn;[unknown];main;[vdso] 4\n");
	free(out);
}

/*
 * kernel self: only the leaf; user self: only samples taken in user mode;
 * 1.2ms of clone's 3.2ms on CPU; outside a syscall and in an unseen one: no
 * share.
 */
static void test_report_json(void **state)
{
	char *argv[] = {"report", "--json", path, NULL};

	tu_golden_output("output-report-json", cmd_report, argv);
}

static void test_folded_latency(void **state)
{
	char *argv[] = {"folded", "--weight", "latency", path, NULL};
	char *out = tu_output(cmd_folded, argv);

	/* weights add up to each function's total; the call that never returned is gone */
	assert_string_equal(out, "allocate_slab;asm_exc_page_fault_[k];allocate_slab_[k] 400000\n"
				 "allocate_slab;entry_SYSCALL_64_[k];do_syscall_64_[k];"
				 "kernel_clone_[k];allocate_slab_[k] 1200000\n"
				 "mas_copy_node;[kernel stack lost]_[k] 100000\n"
				 "mas_copy_node;entry_SYSCALL_64_[k];do_syscall_64_[k];"
				 "kernel_clone_[k];mas_copy_node.isra.0_[k] 640000\n");
	free(out);
}

static void test_folded_latency_one_func(void **state)
{
	static const char want[] = "mas_copy_node;[kernel stack lost]_[k] 100000\n"
				   "mas_copy_node;entry_SYSCALL_64_[k];do_syscall_64_[k];"
				   "kernel_clone_[k];mas_copy_node.isra.0_[k] 640000\n";
	char *by_name[] = {"folded", "--weight",      "latency", "-K",
			   "--func", "mas_copy_node", path,	 NULL};
	char *by_symbol[] = {"folded", "--weight=latency", "--func=mas_copy_node.isra.0", path,
			     NULL};
	char *implied[] = {"folded", "--func", "mas_copy_node", path, NULL};

	tu_expect(cmd_folded, by_name, 1, 0, want);
	tu_expect(cmd_folded, by_symbol, 1, 0, want);
	tu_expect(cmd_folded, implied, 1, 0, want);
}

static void test_folded_latency_errors(void **state)
{
	char *bad_weight[] = {"folded", "--weight", "ns", path, NULL};
	char *samples_func[] = {"folded", "--weight", "samples", "--func", "x", path, NULL};
	char *user_only[] = {"folded", "-U", "--weight", "latency", path, NULL};
	char *no_such[] = {"folded", "--func", "nosuch", path, NULL};
	char *no_funcs[] = {"folded", "--weight", "latency", nofunc_path, NULL};
	char want[512];

	tu_expect(
		cmd_folded, bad_weight, 2, 2,
		"kprotperf folded: unknown weight 'ns': samples (CPU samples) or latency (time in "
		"the functions probed by record --func)\n");
	tu_expect(cmd_folded, samples_func, 2, 2,
		  "kprotperf folded: --func selects probed function stacks: it needs --weight "
		  "latency\n");
	tu_expect(cmd_folded, user_only, 2, 2,
		  "kprotperf folded: -U keeps no frames of --weight latency (probed functions have "
		  "only kernel stacks)\n");
	snprintf(want, sizeof(want),
		 "kprotperf folded: no probed function named 'nosuch' in %s (see the FUNCTION "
		 "column of kprotperf report)\n",
		 path);
	tu_expect(cmd_folded, no_such, 2, 1, want);
	snprintf(want, sizeof(want),
		 "kprotperf folded: %s has no --func data (no probed functions): record with "
		 "kprotperf record --func NAME, or fold its samples (--weight samples)\n",
		 nofunc_path);
	tu_expect(cmd_folded, no_funcs, 2, 1, want);
	/* and nothing on stdout */
	tu_expect(cmd_folded, no_funcs, 1, 1, "");
}

/* allocate_slab's p50 and p90: the midpoints of buckets 129 and 138 */
static void test_report_text(void **state)
{
	char *argv[] = {"report", path, NULL};

	tu_golden_output("output-report", cmd_report, argv);
}

static void test_report_without_funcs(void **state)
{
	char *text[] = {"report", nofunc_path, NULL},
	     *json[] = {"report", "--json", nofunc_path, NULL};

	tu_golden_output("output-report-nofunc", cmd_report, text);
	tu_golden_output("output-report-nofunc-json", cmd_report, json);
}

/* With the sites known, the table and its for: line; without, one line instead (rows null). */
static void test_report_features(void **state)
{
	char *text[] = {"report", sites_path, NULL},
	     *json[] = {"report", "--json", sites_path, NULL},
	     *none_text[] = {"report", nosites_path, NULL},
	     *none_json[] = {"report", "--json", nosites_path, NULL};

	tu_golden_output("output-report-sites", cmd_report, text);
	tu_golden_output("output-report-sites-json", cmd_report, json);
	tu_golden_output("output-report-nosites", cmd_report, none_text);
	tu_golden_output("output-report-nosites-json", cmd_report, none_json);
}

static void test_report_hist_func(void **state)
{
	char *text[] = {"report", "--hist", "allocate_slab", path, NULL};
	char *json[] = {"report", "--json", "--hist", "mas_copy_node.isra.0", path, NULL};

	/* a function has no on-CPU histogram */
	tu_golden_output("output-report-hist-func", cmd_report, text);
	tu_golden_output("output-report-hist-func-json", cmd_report, json);
}

static void test_report_hist_clash_and_unknown(void **state)
{
	char *text[] = {"report", "--hist", "read", clash_path, NULL};
	char *json[] = {"report", "--json", "--hist", "read", clash_path, NULL};
	char *unknown[] = {"report", "--hist", "nosuch", clash_path, NULL};
	char want[512];

	/* the syscall wins: 2 returns of ~1us, not the function's one of 2ms */
	tu_golden_output("output-report-hist-clash", cmd_report, text);
	tu_golden_output("output-report-hist-clash-json", cmd_report, json);
	snprintf(
		want, sizeof(want),
		"kprotperf report: no syscall named 'nosuch' in %s, nor a probed function (see the "
		"SYSCALL and FUNCTION columns of kprotperf report)\n",
		clash_path);
	tu_expect(cmd_report, unknown, 2, 1, want);
}

static void test_fmt_ns(void **state)
{
	char b[32];

	fmt_ns(b, sizeof(b), 812);
	assert_string_equal(b, "812ns");
	fmt_ns(b, sizeof(b), 3200);
	assert_string_equal(b, "3.20us");
	fmt_ns(b, sizeof(b), 1250000);
	assert_string_equal(b, "1.25ms");
	fmt_ns(b, sizeof(b), 2004000000);
	assert_string_equal(b, "2.004s");
	/* rounded to whole ns first, as the integers the tables hold */
	fmt_ns(b, sizeof(b), 999.6);
	assert_string_equal(b, "1.00us");
	fmt_ns(b, sizeof(b), 160464.6);
	assert_string_equal(b, "160.47us");
	fmt_ns(b, sizeof(b), -1250000);
	assert_string_equal(b, "-1.25ms");
	fmt_ns(b, sizeof(b), (double)(1ULL << 59));
	assert_string_equal(b, "576460752.303s");
	fmt_ns(b, sizeof(b), 1e18);
	assert_string_equal(b, "1.000e+09s");
	/* past 2^64 (and so past any integer type) */
	fmt_ns(b, sizeof(b), 0x1p40 * 1e9 / 49);
	assert_string_equal(b, "2.244e+10s");
	fmt_ns(b, sizeof(b), -DBL_MAX);
	assert_string_equal(b, "-1.798e+299s");
	fmt_ns(b, sizeof(b), INFINITY);
	assert_string_equal(b, "inf");
	fmt_ns(b, sizeof(b), -INFINITY);
	assert_string_equal(b, "-inf");
	fmt_ns(b, sizeof(b), NAN);
	assert_string_equal(b, "-");
}

/* out holds line as a whole line. */
static void expect_line(const char *out, const char *line)
{
	char *want = NULL;

	assert_true(asprintf(&want, "\n%s\n", line) > 0);
	if (!strstr(out, want))
		fail_msg("no line \"%s\" in:\n%s", line, out);
	free(want);
}

/*
 * 2^40 samples at 49 Hz, 2.24e19 ns, the same in report's and features'
 * text as in their JSON, and in diff's columns of either sign.
 */
static void test_huge_time(void **state)
{
	char *report[] = {"report", huge_path, NULL}, *features[] = {"features", huge_path, NULL};
	char *diff[] = {"diff", nofunc_path, huge_path, NULL};
	char *json[] = {"report", "--json", huge_path, NULL};
	char *out = tu_output(cmd_report, report);

	expect_line(out, "freelist_random          config   1099511627776   100.0% 2.244e+10s"
			 "        -        -");
	free(out);
	out = tu_output(cmd_features, features);
	expect_line(out, "freelist_random        config   layout   run   on         100.0%"
			 " 2.244e+10s  the default");
	free(out);
	out = tu_output(cmd_diff, diff);
	expect_line(out, "freelist_random                           - 2.244e+10s     new new"
			 " [+2.244e+10s, +2.244e+10s]  yes +2.244e+10s  100.0%");
	free(out);
	out = tu_output(cmd_report, json);
	assert_non_null(strstr(out, "\"time_ns\":2.2439012811755102e+19,"));
	free(out);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_folded_lines),
		cmocka_unit_test(test_folded_kernel_and_user_only),
		cmocka_unit_test(test_folded_unknown_frames),
		cmocka_unit_test(test_report_json),
		cmocka_unit_test(test_folded_latency),
		cmocka_unit_test(test_folded_latency_one_func),
		cmocka_unit_test(test_folded_latency_errors),
		cmocka_unit_test(test_report_text),
		cmocka_unit_test(test_report_without_funcs),
		cmocka_unit_test(test_report_features),
		cmocka_unit_test(test_report_hist_func),
		cmocka_unit_test(test_report_hist_clash_and_unknown),
		cmocka_unit_test(test_fmt_ns),
		cmocka_unit_test(test_huge_time),
	};

	return cmocka_run_group_tests(tests, make_recordings, drop_recordings);
}
