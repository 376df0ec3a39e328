// SPDX-License-Identifier: GPL-2.0-only
/*
 * kprotperf's own cost on a synthetic recording: a stack through one of its
 * programs folded into "[kprotperf probe]" in folded and report, another
 * tool's program left alone, the kernel's BPF statistics summed and shown,
 * and a record --no-syscalls recording said to be one.
 */
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "cmd/cmds.h"
#include "data/datafile.h"
#include "data/query.h"
#include "testutil.h"

#define K(off)	 ((long long)(0xffffffff81000000ULL + (off)))
#define BPF(off) ((long long)(0xffffffffc0000000ULL + (off)))
#define OK(expr) assert_int_equal((expr), 0)

static char path[] = "/tmp/kp-own-cost-XXXXXX";
static char old_path[] = "/tmp/kp-own-cost-old-XXXXXX";

static void stack(struct datafile *df, long long id, const long long *addrs, int n)
{
	int d;

	for (d = 0; d < n; d++)
		OK(query_insert(df, "INSERT INTO kstack_frames VALUES(?,?,?)", "iii", id,
				(long long)d, addrs[d]));
}

static void counter(struct datafile *df, const char *name, long long v)
{
	OK(query_insert(df, "INSERT INTO counters VALUES(?,?)", "ti", name, v));
}

/*
 * Stack 1: a helper called by kprotperf's sys_exit program, run by
 * bpf_trace_run2 from syscall_exit_work (6 samples); stack 2: getppid
 * itself (3); stack 3: another tool's program in the same place (1).
 */
static void fill_samples(struct datafile *df)
{
	static const char ksym[] = "INSERT INTO ksyms VALUES(?,?,?)";
	const long long probe[] = {K(0x5010), BPF(0x20), K(0x3020), K(0x2020), K(0x1020), K(0x20)};
	const long long work[] = {K(0x4010), K(0x1020), K(0x20)};
	const long long other[] = {BPF(0x1010), K(0x3020), K(0x2020), K(0x1020), K(0x20)};
	long long s;

	OK(query_insert(df, ksym, "itt", K(0), "entry_SYSCALL_64", ""));
	OK(query_insert(df, ksym, "itt", K(0x1000), "do_syscall_64", ""));
	OK(query_insert(df, ksym, "itt", K(0x2000), "syscall_exit_work", ""));
	OK(query_insert(df, ksym, "itt", K(0x3000), "bpf_trace_run2", ""));
	OK(query_insert(df, ksym, "itt", K(0x4000), "__x64_sys_getppid", ""));
	OK(query_insert(df, ksym, "itt", K(0x5000), "htab_map_lookup_elem", ""));
	OK(query_insert(df, ksym, "itt", BPF(0), "bpf_prog_a6c0ed09e1c16be2_kp_sys_exit", "bpf"));
	OK(query_insert(df, ksym, "itt", BPF(0x1000), "bpf_prog_6deef7357e7b4530_other", "bpf"));
	stack(df, 1, probe, 6);
	stack(df, 2, work, 3);
	stack(df, 3, other, 5);
	for (s = 1; s <= 3; s++)
		OK(query_insert(df, "INSERT INTO samples VALUES(10,10,'w',?,NULL,?)", "ii", s,
				s == 1	 ? 6LL
				: s == 2 ? 3LL
					 : 1LL));
	counter(df, "samples", 10);
}

static void fill_all(struct datafile *df)
{
	fill_samples(df);
	counter(df, "bpf_runs.kp_sys_enter", 4000);
	counter(df, "bpf_run_ns.kp_sys_enter", 400000);
	counter(df, "bpf_runs.kp_sys_exit", 4000);
	counter(df, "bpf_run_ns.kp_sys_exit", 600000);
	OK(query_insert(df, "INSERT INTO meta VALUES('record.syscalls', 'off')", ""));
}

static void test_folded(void **state)
{
	tu_expect(
		cmd_folded, (char *[]){"folded", path, NULL}, 1, 0,
		"w;entry_SYSCALL_64_[k];do_syscall_64_[k];__x64_sys_getppid_[k] 3\n"
		"w;entry_SYSCALL_64_[k];do_syscall_64_[k];syscall_exit_work_[k];"
		"[kprotperf probe]_[k] 6\n"
		"w;entry_SYSCALL_64_[k];do_syscall_64_[k];syscall_exit_work_[k];bpf_trace_run2_[k];"
		"bpf_prog_6deef7357e7b4530_other_[k] 1\n");
}

static void expect_in(const char *out, const char *want)
{
	if (!strstr(out, want))
		fail_msg("missing:\n%s\nin:\n%s", want, out);
}

static void test_report_text(void **state)
{
	char *out = tu_output(cmd_report, (char *[]){"report", path, NULL});

	expect_in(out,
		  "\n# kprotperf's own BPF programs: 60.0% of samples (6); 1.00ms in 8,000 runs "
		  "(125 ns per run) (kernel BPF stats)\n"
		  "#   kp_sys_exit: 600.00us in 4,000 runs (150 ns per run);\n"
		  "#   kp_sys_enter: 400.00us in 4,000 runs (100 ns per run)\n");
	expect_in(out, "\nSyscalls not traced (record --no-syscalls)\n");
	/* self: the probe's samples, not syscall_exit_work's nor the helper's */
	expect_in(out, "KERNEL FUNCTION\n 60.00%   60.00%        6  [kprotperf probe]\n"
		       " 30.00%   30.00%        3  __x64_sys_getppid\n"
		       " 10.00%   10.00%        1  bpf_prog_6deef7357e7b4530_other\n"
		       "  0.00%  100.00%        0  do_syscall_64\n");
	assert_null(strstr(out, "kp_sys_exit\n"));
	assert_null(strstr(out, "htab_map_lookup_elem"));
	free(out);
}

static void test_report_json(void **state)
{
	char *out = tu_output(cmd_report, (char *[]){"report", "--json", path, NULL});

	expect_in(out, "\"own_cost\":{\"samples\":6,\"samples_pct\":60,\"bpf_stats\":true,"
		       "\"runs\":8000,\"run_time_ns\":1000000,\"ns_per_run\":125,\"programs\":["
		       "{\"name\":\"kp_sys_enter\",\"runs\":4000,\"run_time_ns\":400000,"
		       "\"ns_per_run\":100},"
		       "{\"name\":\"kp_sys_exit\",\"runs\":4000,\"run_time_ns\":600000,"
		       "\"ns_per_run\":150}]}");
	expect_in(out, "\"syscalls\":null,");
	free(out);
}

/* Recorded without the statistics (or before them): the samples only. */
static void test_report_samples_only(void **state)
{
	char *out = tu_output(cmd_report, (char *[]){"report", old_path, NULL});

	expect_in(out, "\n# kprotperf's own BPF programs: 60.0% of samples (6); their runs and "
		       "time: record --bpf-stats\n# inline");
	assert_null(strstr(out, "not traced"));
	free(out);
	out = tu_output(cmd_report, (char *[]){"report", "--json", old_path, NULL});
	expect_in(out, "\"own_cost\":{\"samples\":6,\"samples_pct\":60,\"bpf_stats\":false,"
		       "\"runs\":null,\"run_time_ns\":null,\"ns_per_run\":null,\"programs\":[]}");
	assert_null(strstr(out, "\"syscalls\":null"));
	free(out);
}

static int make_recordings(void **state)
{
	tu_recording(path, fill_all);
	tu_recording(old_path, fill_samples);
	return 0;
}

static int drop_recordings(void **state)
{
	if (!getenv("KEEP")) {
		unlink(path);
		unlink(old_path);
	}
	return 0;
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_folded),
		cmocka_unit_test(test_report_text),
		cmocka_unit_test(test_report_json),
		cmocka_unit_test(test_report_samples_only),
	};

	return cmocka_run_group_tests(tests, make_recordings, drop_recordings);
}
