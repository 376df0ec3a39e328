// SPDX-License-Identifier: GPL-2.0-only
/* folded and report on a synthetic recording whose right output is known. */
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "datafile.h"
#include "folded.h"
#include "report.h"

#define K(off) ((long long)(0xffffffff81000000ULL + (off)))

static char path[] = "/tmp/kp-out-XXXXXX";

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

static int make_recording(void **state)
{
	static const char ksym[] = "INSERT INTO ksyms VALUES(?,?,'')";
	static const char kf[] = "INSERT INTO kstack_frames VALUES(5,?,?)";
	static const char uf[] = "INSERT INTO ustack_frames VALUES(0,?,0,?,?,0)";
	struct df *df;
	int fd = mkstemp(path);

	close(fd);
	assert_int_equal(df_create(&df, path), 0);
	assert_int_equal(df_insert(df, ksym, "it", K(0), "entry_SYSCALL_64"), 0);
	assert_int_equal(df_insert(df, ksym, "it", K(0x1000), "do_syscall_64"), 0);
	assert_int_equal(df_insert(df, ksym, "it", K(0x2000), "__x64_sys_getppid"), 0);
	assert_int_equal(df_insert(df, kf, "ii", 0LL, K(0x2010)), 0);
	/* a return address right at the next symbol belongs to the caller before it */
	assert_int_equal(df_insert(df, kf, "ii", 1LL, K(0x2000)), 0);
	assert_int_equal(df_insert(df, kf, "ii", 2LL, K(0x0001)), 0);
	assert_int_equal(df_insert(df, uf, "itt", 0LL, "/bin/burn", "kp_burn_hot_loop"), 0);
	assert_int_equal(df_insert(df, uf, "itt", 1LL, "/bin/burn", "main"), 0);
	assert_int_equal(df_insert(df, uf, "itt", 2LL, "/usr/lib/x86_64-linux-gnu/libc.so.6", NULL),
			 0);
	sample(df, 10, NULL, 7);
	sample(df, 11, "5", 3);
	sample(df, 12, NULL, 2);
	sample(df, 10, "-17", 1);
	assert_int_equal(df_insert(df, "INSERT INTO counters VALUES('samples', 13)", ""), 0);
	assert_int_equal(df_commit(df, (uid_t)-1, (gid_t)-1), 0);
	return 0;
}

static int drop_recording(void **state)
{
	if (!getenv("KEEP"))
		unlink(path);
	return 0;
}

/* Runs a subcommand with stdout captured; returns its output (caller frees). */
static char *run(int (*cmd)(int, char **), int argc, char **argv, int *ret)
{
	char out[] = "/tmp/kp-stdout-XXXXXX", *buf = calloc(1, 65536);
	int fd = mkstemp(out), saved = dup(1);

	fflush(stdout);
	dup2(fd, 1);
	*ret = cmd(argc, argv);
	fflush(stdout);
	dup2(saved, 1);
	close(saved);
	assert_true(pread(fd, buf, 65535, 0) >= 0);
	close(fd);
	unlink(out);
	return buf;
}

static void test_folded_lines(void **state)
{
	char *argv[] = {"folded", path, NULL};
	int ret;
	char *out = run(cmd_folded, 2, argv, &ret);

	assert_int_equal(ret, 0);
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
	int ret;
	char *out = run(cmd_folded, 3, kargv, &ret);

	assert_int_equal(ret, 0);
	assert_string_equal(
		out, "burn 9\nburn;[kernel stack lost]_[k] 1\n"
		     "burn;entry_SYSCALL_64_[k];do_syscall_64_[k];__x64_sys_getppid_[k] 3\n");
	free(out);
	out = run(cmd_folded, 3, uargv, &ret);
	assert_int_equal(ret, 0);
	assert_string_equal(out, "burn;[libc.so.6];main;kp_burn_hot_loop 13\n");
	free(out);
}

static void test_report_functions_json(void **state)
{
	char *argv[] = {"report", "--json", path, NULL};
	int ret;
	char *out = run(cmd_report, 3, argv, &ret);

	assert_int_equal(ret, 0);
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
		cmocka_unit_test(test_fmt_ns),
	};

	return cmocka_run_group_tests(tests, make_recording, drop_recording);
}
