// SPDX-License-Identifier: GPL-2.0-only
/*
 * diff --folded on two synthetic recordings whose merged stacks are known:
 * the same stacks under other stack ids, stacks only one side has, and
 * hardened counts normalized by a scale that is not an integer.
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
#include "data/query.h"
#include "diff/diff_folded.h"
#include "cmd/cmds.h"
#include "testutil.h"

#define K(off)	 ((long long)(0xffffffff81000000ULL + (off)))
#define OK(expr) assert_int_equal((expr), 0)

static char base_path[] = "/tmp/kp-dfold-base-XXXXXX";
static char hard_path[] = "/tmp/kp-dfold-hard-XXXXXX";

/* The frames both kernels have, at other addresses on the hardened one (KASLR). */
static void fill_common(struct datafile *df, long long slide)
{
	static const char ksym[] = "INSERT INTO ksyms VALUES(?,?,'')";
	static const char uf[] = "INSERT INTO ustack_frames VALUES(0,?,0,?,?,0)";

	OK(query_insert(df, ksym, "it", K(slide), "entry_SYSCALL_64"));
	OK(query_insert(df, ksym, "it", K(slide + 0x1000), "do_syscall_64"));
	OK(query_insert(df, ksym, "it", K(slide + 0x2000), "__x64_sys_getppid"));
	OK(query_insert(df, ksym, "it", K(slide + 0x3000), "__x86_return_thunk"));
	OK(query_insert(df, uf, "itt", 0LL, "/bin/burn", "kp_burn_hot_loop"));
	OK(query_insert(df, uf, "itt", 1LL, "/bin/burn", "main"));
	OK(query_insert(df, uf, "itt", 2LL, "/usr/lib/x86_64-linux-gnu/libc.so.6", NULL));
}

/* Kernel stack id, leaf first, the frames' offsets from the kernel's base. */
static void kstack(struct datafile *df, long long id, long long slide, const long long *off, int n)
{
	int i;

	for (i = 0; i < n; i++)
		OK(query_insert(df, "INSERT INTO kstack_frames VALUES(?,?,?)", "iii", id,
				(long long)i, K(slide + off[i])));
}

static void sample(struct datafile *df, const char *kstack, long long count)
{
	OK(query_insert(df, "INSERT INTO samples VALUES(10,10,'burn',?,0,?)", "ti", kstack, count));
}

static const long long getppid_frames[] = {0x2010, 0x1020, 0x0010};
static const long long thunk[] = {0x3000, 0x2020, 0x1020, 0x0010};

/* 11 samples: 7 in user mode, 3 in getppid, 1 with its kernel stack lost. */
static void fill_base(struct datafile *df)
{
	fill_common(df, 0);
	kstack(df, 5, 0, getppid_frames, 3);
	sample(df, NULL, 7);
	sample(df, "5", 3);
	sample(df, "-17", 1);
}

/*
 * 12 samples: 4 in user mode, 6 in getppid (stack 9, and stack 3 with the
 * same frames), 2 in its return thunk; none lost.
 */
static void fill_hard(struct datafile *df)
{
	fill_common(df, 0x100000);
	kstack(df, 9, 0x100000, getppid_frames, 3);
	kstack(df, 3, 0x100000, getppid_frames, 3);
	kstack(df, 4, 0x100000, thunk, 4);
	sample(df, NULL, 4);
	sample(df, "9", 5);
	sample(df, "3", 1);
	sample(df, "4", 2);
}

static int make_recordings(void **state)
{
	tu_recording(base_path, fill_base);
	tu_recording(hard_path, fill_hard);
	return 0;
}

static int drop_recordings(void **state)
{
	if (!getenv("KEEP")) {
		unlink(base_path);
		unlink(hard_path);
	}
	return 0;
}

/* diff_folded's output on fresh handles of both files. */
static char *diff(bool normalize)
{
	struct datafile *base, *hard;
	char why[256], *buf = NULL;
	size_t len = 0;
	FILE *out = open_memstream(&buf, &len);

	assert_non_null(out);
	OK(datafile_open(&base, base_path, why, sizeof(why)));
	OK(datafile_open(&hard, hard_path, why, sizeof(why)));
	OK(diff_folded(base, NULL, hard, NULL, normalize, out));
	fclose(out);
	datafile_close(base);
	datafile_close(hard);
	return buf;
}

#define STACK_USER   "burn;[libc.so.6];main;kp_burn_hot_loop"
#define STACK_LOST   STACK_USER ";[kernel stack lost]_[k]"
#define STACK_GETPPI STACK_USER ";entry_SYSCALL_64_[k];do_syscall_64_[k];__x64_sys_getppid_[k]"
#define STACK_THUNK  STACK_GETPPI ";__x86_return_thunk_[k]"

static void test_merged_by_stack(void **state)
{
	char *out = diff(false);

	assert_string_equal(out, STACK_USER " 7 4\n" STACK_LOST " 1 0\n" STACK_GETPPI
					    " 3 6\n" STACK_THUNK " 0 2\n");
	free(out);
}

/* 11 base samples, 12 hardened: each hardened count times 11/12. */
static void test_normalized(void **state)
{
	char *out = diff(true);

	assert_string_equal(out, STACK_USER " 7 3.67\n" STACK_LOST " 1 0\n" STACK_GETPPI
					    " 3 5.5\n" STACK_THUNK " 0 1.83\n");
	free(out);
}

/* Adds the "stack count" lines of one column of a diff --folded output to text. */
static void column(const char *diff_out, int col, char *text, size_t len)
{
	char *copy = strdup(diff_out), *save = NULL, *line, *b, *h;

	for (line = strtok_r(copy, "\n", &save); line; line = strtok_r(NULL, "\n", &save)) {
		h = strrchr(line, ' ');
		*h++ = 0;
		b = strrchr(line, ' ');
		*b++ = 0;
		if (strcmp(col ? h : b, "0"))
			snprintf(text + strlen(text), len - strlen(text), "%s %s\n", line,
				 col ? h : b);
	}
	free(copy);
}

/* Each column is exactly what kprotperf folded prints for that recording. */
static void test_same_as_folded(void **state)
{
	char *out = diff(false), *folded;
	char *argv[][3] = {{"folded", base_path, NULL}, {"folded", hard_path, NULL}};
	char want[4096];
	int side;

	for (side = 0; side < 2; side++) {
		want[0] = 0;
		column(out, side, want, sizeof(want));
		folded = tu_output(cmd_folded, argv[side]);
		assert_string_equal(folded, want);
		free(folded);
	}
	free(out);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_merged_by_stack),
		cmocka_unit_test(test_normalized),
		cmocka_unit_test(test_same_as_folded),
	};

	return cmocka_run_group_tests(tests, make_recordings, drop_recordings);
}
