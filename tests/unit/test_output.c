// SPDX-License-Identifier: GPL-2.0-only
/*
 * folded and report on synthetic recordings whose right output is known: one
 * with CPU samples and record --func data, one with the samples alone, and
 * one where a syscall and a probed function share a name.
 */
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "data/datafile.h"
#include "report/folded.h"
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

static void sample(struct df *df, int tid, const char *kstack, long long count)
{
	static const char sql[] = "INSERT INTO samples VALUES(10,?,'burn',?,0,?)";

	if (kstack)
		assert_int_equal(df_insert(df, sql, "iii", (long long)tid, atoll(kstack), count),
				 0);
	else
		assert_int_equal(df_insert(df, "INSERT INTO samples VALUES(10,?,'burn',NULL,0,?)",
					   "ii", (long long)tid, count),
				 0);
}

static void fill_samples(struct df *df)
{
	static const char ksym[] = "INSERT INTO ksyms VALUES(?,?,'')";
	static const char kf[] = "INSERT INTO kstack_frames VALUES(5,?,?)";
	static const char uf[] = "INSERT INTO ustack_frames VALUES(0,?,0,?,?,0)";

	OK(df_insert(df, ksym, "it", K(0), "entry_SYSCALL_64"));
	OK(df_insert(df, ksym, "it", K(0x1000), "do_syscall_64"));
	OK(df_insert(df, ksym, "it", K(0x2000), "__x64_sys_getppid"));
	OK(df_insert(df, kf, "ii", 0LL, K(0x2010)));
	/* a return address right at the next symbol belongs to the caller before it */
	OK(df_insert(df, kf, "ii", 1LL, K(0x2000)));
	OK(df_insert(df, kf, "ii", 2LL, K(0x0001)));
	OK(df_insert(df, uf, "itt", 0LL, "/bin/burn", "kp_burn_hot_loop"));
	OK(df_insert(df, uf, "itt", 1LL, "/bin/burn", "main"));
	OK(df_insert(df, uf, "itt", 2LL, "/usr/lib/x86_64-linux-gnu/libc.so.6", NULL));
	sample(df, 10, NULL, 7);
	sample(df, 11, "5", 3);
	sample(df, 12, NULL, 2);
	sample(df, 10, "-17", 1);
	OK(df_insert(df, "INSERT INTO counters VALUES('samples', 13)", ""));
}

static void hist_row(struct df *df, const char *kind, long long id, const char *clock, int b,
		     long long count)
{
	OK(df_insert(df, "INSERT INTO latency_hist VALUES(?,?,?,?,?,?,?)", "titiiii", kind, id,
		     clock, (long long)b, (long long)hist_lo(b), (long long)hist_hi(b),
		     count));
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
static void fill_funcs(struct df *df)
{
	static const char fsc[] = "INSERT INTO func_syscalls VALUES(?,?,?,?)";
	static const char ctx[] = "INSERT INTO func_contexts VALUES(1,?,?,?)";

	OK(df_insert(df, lat_sql, "titiiiiii", "syscall", 56LL, "clone", 4LL, 4LL, 8000000LL,
		     3200000LL, 4800000LL, 3000000LL));
	OK(df_insert(df, func_sql, "ittitt", 1LL, "allocate_slab", "allocate_slab", K(0x3000), NULL,
		     "fentry"));
	OK(df_insert(df, func_sql, "ittitt", 2LL, "mas_copy_node", "mas_copy_node.isra.0",
		     K(0x4000), NULL, "kprobe"));
	OK(df_insert(df, func_sql, "ittitt", 3LL, "never_called", "never_called", 0LL, "kp_mod",
		     "kprobe.multi"));
	OK(df_insert(df, lat_sql, "titiiiiii", "func", 1LL, "allocate_slab", 4LL, 4LL, 1600000LL,
		     0LL, 0LL, 700000LL));
	OK(df_insert(df, lat_sql, "titiiiiii", "func", 2LL, "mas_copy_node", 3LL, 3LL, 740000LL,
		     0LL, 0LL, 400000LL));
	hist_row(df, "func", 1, "total", 129, 3);
	hist_row(df, "func", 1, "total", 138, 1);
	hist_row(df, "func", 2, "total", 122, 2);
	hist_row(df, "func", 2, "total", 132, 1);
	OK(df_insert(df, fsc, "iiii", 1LL, 56LL, 3LL, 1200000LL));
	OK(df_insert(df, fsc, "iiii", 1LL, 65535LL, 1LL, 400000LL));
	OK(df_insert(df, fsc, "iiii", 2LL, 56LL, 2LL, 640000LL));
	OK(df_insert(df, fsc, "iiii", 2LL, 9LL, 1LL, 100000LL));
	OK(df_insert(df, ctx, "tii", "kmalloc-64", 3LL, 900000LL));
	OK(df_insert(df, ctx, "tii", "vm_area_struct", 1LL, 700000LL));
}

/*
 * Stacks 7 and 9: clone into each function; 8: a page fault into
 * allocate_slab.  One call of mas_copy_node lost its stack (-EFAULT); one of
 * allocate_slab from stack 5 never returned (0 ns).
 */
static void fill_func_stacks(struct df *df)
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

	OK(df_insert(df, ksym, "it", K(0x3000), "allocate_slab"));
	OK(df_insert(df, ksym, "it", K(0x4000), "mas_copy_node.isra.0"));
	OK(df_insert(df, ksym, "it", K(0x5000), "kernel_clone"));
	OK(df_insert(df, ksym, "it", K(0x6000), "asm_exc_page_fault"));
	for (i = 0; i < sizeof(frames) / sizeof(frames[0]); i++)
		OK(df_insert(df, kf, "iii", frames[i][0], frames[i][1], frames[i][2]));
	OK(df_insert(df, fs, "iiii", 1LL, 7LL, 3LL, 1200000LL));
	OK(df_insert(df, fs, "iiii", 1LL, 8LL, 1LL, 400000LL));
	OK(df_insert(df, fs, "iiii", 1LL, 5LL, 1LL, 0LL));
	OK(df_insert(df, fs, "iiii", 2LL, 9LL, 2LL, 640000LL));
	OK(df_insert(df, fs, "iiii", 2LL, -14LL, 1LL, 100000LL));
}

static void fill_all(struct df *df)
{
	fill_samples(df);
	fill_funcs(df);
	fill_func_stacks(df);
}

/* A syscall and a probed function both named read, with different histograms. */
static void fill_clash(struct df *df)
{
	OK(df_insert(df, lat_sql, "titiiiiii", "syscall", 0LL, "read", 2LL, 2LL, 2000LL, 2000LL,
		     0LL, 1000LL));
	OK(df_insert(df, func_sql, "ittitt", 1LL, "read", "read", K(0x7000), NULL, "fentry"));
	OK(df_insert(df, lat_sql, "titiiiiii", "func", 1LL, "read", 1LL, 1LL, 2000000LL, 0LL, 0LL,
		     2000000LL));
	hist_row(df, "syscall", 0, "total", 63, 2);
	hist_row(df, "syscall", 0, "oncpu", 63, 2);
	hist_row(df, "func", 1, "total", 151, 1);
}

static int make_recordings(void **state)
{
	tu_recording(path, fill_all);
	tu_recording(nofunc_path, fill_samples);
	tu_recording(clash_path, fill_clash);
	return 0;
}

static int drop_recordings(void **state)
{
	if (!getenv("KEEP")) {
		unlink(path);
		unlink(nofunc_path);
		unlink(clash_path);
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

static void test_report_functions_json(void **state)
{
	char *argv[] = {"report", "--json", path, NULL};
	char *out = tu_output(cmd_report, argv);

	/* kernel self: only the leaf; user self: only samples taken in user mode */
	assert_non_null(strstr(
		out, "{\"name\":\"__x64_sys_getppid\",\"self_samples\":3,\"total_samples\":3}"));
	assert_non_null(
		strstr(out, "{\"name\":\"do_syscall_64\",\"self_samples\":0,\"total_samples\":3}"));
	assert_non_null(strstr(
		out, "{\"name\":\"kp_burn_hot_loop\",\"self_samples\":9,\"total_samples\":13}"));
	assert_non_null(strstr(out, "{\"name\":\"main\",\"self_samples\":0,\"total_samples\":13}"));
	free(out);
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

/* The text of out from the line starting with from up to (not including) the one with to. */
static char *between(const char *out, const char *from, const char *to)
{
	const char *a = strstr(out, from), *b = a ? strstr(a, to) : NULL;

	assert_non_null(b);
	return strndup(a, b - a);
}

static void test_report_funcs_text(void **state)
{
	char *argv[] = {"report", path, NULL};
	char *out = tu_output(cmd_report, argv), *funcs;

	funcs = between(out, "Probed kernel functions", "\nSELF");
	/* allocate_slab's p50 and p90: the midpoints of buckets 129 and 138 */
	assert_string_equal(
		funcs,
		"Probed kernel functions (record --func), sorted by total (latency: entry to return)\n"
		"FUNCTION                     METHOD            CALLS      TOTAL        AVG        P50"
		"        P90        P99        MAX\n"
		"allocate_slab                fentry                4     1.60ms   400.00us   311.30us"
		"   688.13us   688.13us   700.00us\n"
		"mas_copy_node                kprobe                3   740.00us   246.67us   172.03us"
		"   400.00us   400.00us   400.00us\n"
		"never_called                 kprobe.multi          0          -          -          -"
		"          -          -          -\n"
		"\n"
		"Time inside probed functions, per syscall (total, and its share of the syscall's "
		"on-CPU time)\n"
		"SYSCALL              FUNCTION                          CALLS      TOTAL\n"
		"clone                allocate_slab                         3     1.20ms   37.5% of "
		"on-CPU\n"
		"clone                mas_copy_node                         2   640.00us   20.0% of "
		"on-CPU\n"
		"(no syscall)         allocate_slab                         1   400.00us\n"
		"syscall_9            mas_copy_node                         1   100.00us\n"
		"\n"
		"Probed functions per slab cache, sorted by total\n"
		"FUNCTION                     CACHE                         CALLS      TOTAL        AVG\n"
		"allocate_slab                kmalloc-64                        3   900.00us   300.00us\n"
		"allocate_slab                vm_area_struct                    1   700.00us   700.00us\n");
	free(funcs);
	free(out);
}

static void test_report_funcs_json(void **state)
{
	char *argv[] = {"report", "--json", path, NULL};
	char *out = tu_output(cmd_report, argv);

	assert_non_null(strstr(
		out,
		"\"functions\":["
		"{\"name\":\"allocate_slab\",\"symbol\":\"allocate_slab\",\"module\":null,"
		"\"method\":\"fentry\",\"calls\":4,\"returned\":4,\"total_ns\":1600000,"
		"\"avg_ns\":400000,\"p50_ns\":311296,\"p90_ns\":688128,\"p99_ns\":688128,"
		"\"max_ns\":700000},"
		"{\"name\":\"mas_copy_node\",\"symbol\":\"mas_copy_node.isra.0\",\"module\":null,"
		"\"method\":\"kprobe\",\"calls\":3,\"returned\":3,\"total_ns\":740000,"
		"\"avg_ns\":246666,\"p50_ns\":172032,\"p90_ns\":400000,\"p99_ns\":400000,"
		"\"max_ns\":400000},"
		"{\"name\":\"never_called\",\"symbol\":\"never_called\",\"module\":\"kp_mod\","
		"\"method\":\"kprobe.multi\",\"calls\":0,\"returned\":0,\"total_ns\":0,"
		"\"avg_ns\":0,\"p50_ns\":0,\"p90_ns\":0,\"p99_ns\":0,\"max_ns\":0}],"));
	/* 1.2ms of clone's 3.2ms on CPU; outside a syscall and in an unseen one: no share */
	assert_non_null(strstr(
		out,
		"\"function_syscalls\":["
		"{\"function\":\"allocate_slab\",\"syscall\":\"clone\",\"nr\":56,\"calls\":3,"
		"\"total_ns\":1200000,\"oncpu_pct\":37.5},"
		"{\"function\":\"mas_copy_node\",\"syscall\":\"clone\",\"nr\":56,\"calls\":2,"
		"\"total_ns\":640000,\"oncpu_pct\":20},"
		"{\"function\":\"allocate_slab\",\"syscall\":null,\"nr\":65535,\"calls\":1,"
		"\"total_ns\":400000},"
		"{\"function\":\"mas_copy_node\",\"syscall\":\"syscall_9\",\"nr\":9,\"calls\":1,"
		"\"total_ns\":100000}],"));
	assert_non_null(strstr(
		out, "\"function_contexts\":["
		     "{\"function\":\"allocate_slab\",\"context\":\"kmalloc-64\",\"calls\":3,"
		     "\"total_ns\":900000,\"avg_ns\":300000},"
		     "{\"function\":\"allocate_slab\",\"context\":\"vm_area_struct\",\"calls\":1,"
		     "\"total_ns\":700000,\"avg_ns\":700000}],"));
	free(out);
}

static void test_report_without_funcs(void **state)
{
	char *text[] = {"report", nofunc_path, NULL},
	     *json[] = {"report", "--json", nofunc_path, NULL};
	char *out = tu_output(cmd_report, text);

	assert_null(strstr(out, "Probed"));
	assert_non_null(strstr(out, "\nSELF     TOTAL     SAMPLES  KERNEL FUNCTION\n"));
	free(out);
	out = tu_output(cmd_report, json);
	assert_non_null(strstr(out, "\"syscalls\":[],\"functions\":[],\"function_syscalls\":[],"
				    "\"function_contexts\":[],\"kernel_functions\":"));
	free(out);
}

static void test_report_hist_func(void **state)
{
	char *text[] = {"report", "--hist", "allocate_slab", path, NULL};
	char *json[] = {"report", "--json", "--hist", "mas_copy_node.isra.0", path, NULL};
	char *out = tu_output(cmd_report, text);

	/* a function has no on-CPU histogram */
	assert_non_null(strstr(
		out,
		"\n\nfunction allocate_slab: entry to return (4 returned)\n"
		"                 latency      count  distribution\n"
		"[  294.91us,   327.68us)          3 |****************************************|\n"));
	assert_non_null(strstr(
		out,
		"[  655.36us,   720.90us)          1 |*************                           |\n"));
	assert_null(strstr(out, "on-CPU part"));
	free(out);
	out = tu_output(cmd_report, json);
	assert_non_null(strstr(out,
			       "\"histogram\":{\"function\":\"mas_copy_node.isra.0\",\"total\":["
			       "{\"lo_ns\":163840,\"hi_ns\":180224,\"count\":2},"
			       "{\"lo_ns\":393216,\"hi_ns\":425984,\"count\":1}]}}"));
	free(out);
}

static void test_report_hist_clash_and_unknown(void **state)
{
	char *text[] = {"report", "--hist", "read", clash_path, NULL};
	char *json[] = {"report", "--json", "--hist", "read", clash_path, NULL};
	char *unknown[] = {"report", "--hist", "nosuch", clash_path, NULL};
	char want[512];
	/* the syscall wins: 2 returns of ~1us, not the function's one of 2ms */
	char *out = tu_output(cmd_report, text);

	assert_non_null(strstr(out, "\nsyscall read: entry to return (2 returned)\n"));
	assert_non_null(strstr(out, "\nsyscall read: on-CPU part\n"));
	assert_null(strstr(out, "function"));
	free(out);
	out = tu_output(cmd_report, json);
	assert_non_null(strstr(out, "\"histogram\":{\"syscall\":\"read\",\"total\":["
				    "{\"lo_ns\":960,\"hi_ns\":1024,\"count\":2}],\"oncpu\":["
				    "{\"lo_ns\":960,\"hi_ns\":1024,\"count\":2}]}}"));
	free(out);
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
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_folded_lines),
		cmocka_unit_test(test_folded_kernel_and_user_only),
		cmocka_unit_test(test_report_functions_json),
		cmocka_unit_test(test_folded_latency),
		cmocka_unit_test(test_folded_latency_one_func),
		cmocka_unit_test(test_folded_latency_errors),
		cmocka_unit_test(test_report_funcs_text),
		cmocka_unit_test(test_report_funcs_json),
		cmocka_unit_test(test_report_without_funcs),
		cmocka_unit_test(test_report_hist_func),
		cmocka_unit_test(test_report_hist_clash_and_unknown),
		cmocka_unit_test(test_fmt_ns),
	};

	return cmocka_run_group_tests(tests, make_recordings, drop_recordings);
}
