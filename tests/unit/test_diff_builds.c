// SPDX-License-Identifier: GPL-2.0-only
/*
 * kprotperf diff of two kernel builds of one source that differ in one
 * config option (CONFIG_SLAB_FREELIST_RANDOM) and so in build-id and in every
 * address: record --func allocate_slab --func shuffle_freelist found
 * shuffle_freelist absent on the base kernel and inlined into allocate_slab,
 * with calls, on the hardened one.  Functions must match by name across the
 * two address layouts, what one kernel lacks must be listed as such, and the
 * provenance must show the config option and nothing else.  report shows the
 * absent pattern, and a bad func_absent value is refused at open.
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
#include "data/recording.h"
#include "testutil.h"

#define OK(expr) assert_int_equal((expr), 0)

static char base[] = "/tmp/kp-builds-base-XXXXXX", hard[] = "/tmp/kp-builds-hard-XXXXXX";
static char feats[] = "/tmp/kp-builds-feat-XXXXXX";

static void meta(struct datafile *df, const char *key, const char *value)
{
	OK(query_insert(df, "INSERT INTO meta VALUES(?,?)", "tt", key, value));
}

/* The same source, cmdline and CPU: only the option, hence the build-id, differs. */
static void provenance(struct datafile *df, bool hardened)
{
	meta(df, "kernel.release", "6.1.158-kp");
	meta(df, "kernel.build_id", hardened ? "bbbb2222" : "aaaa1111");
	meta(df, "kernel.cmdline", "console=ttyS0 init_on_alloc=0 quiet");
	meta(df, "arch", "x86_64");
	meta(df, "record.command", "./big-fork 100");
	meta(df, "sampling.freq_hz", "100");
	OK(query_insert(df, "INSERT INTO config VALUES('CONFIG_SLAB_FREELIST_RANDOM', ?)", "t",
			hardened ? "y" : "n"));
	OK(query_insert(df, "INSERT INTO config VALUES('CONFIG_SLAB_FREELIST_HARDENED', 'y')", ""));
	OK(query_insert(df, "INSERT INTO vulnerabilities VALUES('mds', 'Not affected')", ""));
}

static void func_latency(struct datafile *df, long long id, const char *name, long long calls,
			 long long ns)
{
	OK(query_insert(df, "INSERT INTO latency VALUES('func',?,?,?,?,?,?,0,?)", "itiiiii", id,
			name, calls, calls, calls * ns, calls * ns, 2 * ns));
}

/* allocate_slab at another address in each build; 10 and 20 samples in it. */
static void fill(struct datafile *df, bool hardened)
{
	const long long at = (long long)(hardened ? 0xffffffff81009000ULL : 0xffffffff81006000ULL);
	const long long entry = (long long)0xffffffff81000000ULL;

	provenance(df, hardened);
	OK(query_insert(df, "INSERT INTO ksyms VALUES(?,'entry_SYSCALL_64','')", "i", entry));
	OK(query_insert(df, "INSERT INTO ksyms VALUES(?,'allocate_slab','')", "i", at));
	OK(query_insert(df, "INSERT INTO kstack_frames VALUES(1,0,?)", "i", at + 0x20));
	OK(query_insert(df, "INSERT INTO kstack_frames VALUES(1,1,?)", "i", entry + 0x10));
	OK(query_insert(df, "INSERT INTO samples VALUES(10,10,'big-fork',1,0,?)", "i",
			hardened ? 20LL : 10LL));
	OK(recording_put_func(df, 0, "allocate_slab", "allocate_slab", at, "", "kprobe"));
	func_latency(df, 0, "allocate_slab", 100, hardened ? 3000 : 2000);
	if (!hardened) {
		OK(recording_put_func_absent(df, "shuffle_freelist"));
		/* --func shuffle_freelist twice: one row */
		OK(recording_put_func_absent(df, "shuffle_freelist"));
		return;
	}
	OK(recording_put_func(df, 1, "shuffle_freelist", "allocate_slab", at + 0x100, "",
			      "inline-kprobe"));
	func_latency(df, 1, "shuffle_freelist", 40, 800);
	OK(query_insert(df,
			"INSERT INTO inlines VALUES(1,'shuffle_freelist','allocate_slab',"
			"'mm/slub.c',1978,?,?,256,'')",
			"it", at + 0x100, "0xffffffff81009100-0xffffffff81009200"));
}

static void fill_base(struct datafile *df)
{
	fill(df, false);
}

static void fill_hard(struct datafile *df)
{
	fill(df, true);
}

static int setup(void **state)
{
	tu_recording(base, fill_base);
	tu_recording(hard, fill_hard);
	close(mkstemp(feats));
	return tu_write_file(feats, "[freelist_random]\nabout = slab freelist randomization\n"
				    "config = CONFIG_SLAB_FREELIST_RANDOM\n"
				    "functions = allocate_slab shuffle_freelist\n");
}

static int teardown(void **state)
{
	if (getenv("KEEP"))
		return 0;
	unlink(base);
	unlink(hard);
	unlink(feats);
	return 0;
}

/* A copy of src at the mkstemp() template dst, with sql run on it. */
static void variant(const char *src, char *dst, const char *sql)
{
	sqlite3 *db;

	close(mkstemp(dst));
	assert_int_equal(tu_run("cp '%s' '%s'", src, dst), 0);
	assert_int_equal(sqlite3_open(dst, &db), SQLITE_OK);
	assert_int_equal(sqlite3_exec(db, sql, NULL, NULL, NULL), SQLITE_OK);
	sqlite3_close(db);
}

static char *diff(const char *opt)
{
	char *argv[] = {"diff", (char *)(opt ?: base), opt ? base : hard, opt ? hard : NULL, NULL};

	return tu_output(cmd_diff, argv);
}

/* The header lines of the provenance block, up to the first note or table. */
static void provenance_block(const char *out, char *buf, size_t len)
{
	const char *from = strstr(out, "# differs (base -> hardened):\n"), *to;

	assert_non_null(from);
	to = strstr(from, "\n\n");
	assert_non_null(to);
	snprintf(buf, len, "%.*s", (int)(to - from + 1), from);
	/* the notes (no DWARF, one run) are no difference of the kernels */
	if (strstr(buf, "# note"))
		buf[strstr(buf, "# note") - buf] = '\0';
}

/* Only the config option, naming its feature: not the build-id, which follows from it. */
static void test_provenance_only_config(void **state)
{
	char *out = diff(NULL), *json = diff("--json"), block[2048];

	provenance_block(out, block, sizeof(block));
	assert_string_equal(block, "# differs (base -> hardened):\n"
				   "#   config SLAB_FREELIST_RANDOM: n -> y (freelist_random)\n");
	/* JSON keeps both build-ids, and names the feature */
	assert_non_null(
		strstr(json, "\"build_id\":{\"base\":\"aaaa1111\",\"hardened\":\"bbbb2222\"}"));
	assert_non_null(strstr(json,
			       "\"config\":[{\"name\":\"SLAB_FREELIST_RANDOM\",\"base\":\"n\","
			       "\"hardened\":\"y\",\"feature\":\"freelist_random\"}]"));
	assert_non_null(strstr(json, "\"cmdline\":[]"));
	free(out);
	free(json);
}

/* Two builds alike in release, config and cmdline: the build-id is all that tells them apart. */
static void test_provenance_build_id_alone(void **state)
{
	char same[] = "/tmp/kp-builds-same-XXXXXX", block[2048];
	char *argv[] = {"diff", base, same, NULL}, *out;

	variant(hard, same,
		"UPDATE config SET value = 'n' WHERE option = 'CONFIG_SLAB_FREELIST_RANDOM'");
	out = tu_output(cmd_diff, argv);
	provenance_block(out, block, sizeof(block));
	assert_string_equal(block, "# differs (base -> hardened):\n"
				   "#   kernel build-id: aaaa1111 -> bbbb2222\n");
	free(out);
	unlink(same);
}

/*
 * Across Linux 6.9's renames an option unchanged in value is no difference;
 * one whose value changed shows once, under its new name.
 */
static void test_provenance_renamed(void **state)
{
	char b[] = "/tmp/kp-builds-old-XXXXXX", h[] = "/tmp/kp-builds-new-XXXXXX", block[2048];
	char *argv[] = {"diff", b, h, NULL}, *out;

	variant(base, b,
		"INSERT INTO config VALUES('CONFIG_RETPOLINE', 'y'),"
		" ('CONFIG_PAGE_TABLE_ISOLATION', 'y'), ('CONFIG_SLS', 'y')");
	variant(hard, h,
		"INSERT INTO config VALUES('CONFIG_MITIGATION_RETPOLINE', 'y'),"
		" ('CONFIG_MITIGATION_PAGE_TABLE_ISOLATION', 'n'), ('CONFIG_MITIGATION_SLS', 'y'),"
		" ('CONFIG_MITIGATION_RFDS', 'y')");
	out = tu_output(cmd_diff, argv);
	provenance_block(out, block, sizeof(block));
	assert_string_equal(block,
			    "# differs (base -> hardened):\n"
			    "#   config MITIGATION_PAGE_TABLE_ISOLATION: y -> n (mitigations)\n"
			    "#   config SLAB_FREELIST_RANDOM: n -> y (freelist_random)\n"
			    "#   config MITIGATION_RFDS: (not set) -> y (mitigations)\n"
			    "#   (3 config options renamed in Linux 6.9, e.g. RETPOLINE to"
			    " MITIGATION_RETPOLINE, compared under their new names)\n");
	free(out);
	unlink(b);
	unlink(h);
}

/* allocate_slab at 0x...6000 and at 0x...9000 is one function: one row, both sides. */
static void test_matched_by_name(void **state)
{
	char *json = diff("--json");
	const char *funcs = strstr(json, "\"functions\":[");
	const char *self = strstr(json, "\"kernel_functions_self\":[");

	assert_non_null(funcs);
	assert_non_null(strstr(funcs, "{\"name\":\"allocate_slab\",\"only\":null,\"status\":"
				      "\"both\",\"base\":2000,\"hardened\":3000,\"ratio\":1.5,"));
	assert_non_null(self);
	assert_non_null(strstr(self, "{\"name\":\"allocate_slab\",\"status\":\"both\","
				     "\"base\":100000000,\"hardened\":200000000,"));
	free(json);
}

/* shuffle_freelist: absent on the base kernel, inlined with calls on the hardened one. */
static void test_hardened_only(void **state)
{
	char *out = diff(NULL), *json = diff("--json");
	const char *row;

	/* in the probed functions table, absent rather than never called */
	row = strstr(out, "\nshuffle_freelist ");
	assert_non_null(row);
	assert_true(!strncmp(
		row + 1, "shuffle_freelist                     absent      800ns     new new",
		strlen("shuffle_freelist                     absent      800ns     new new")));
	assert_non_null(strstr(json, "{\"name\":\"shuffle_freelist\",\"only\":\"hardened\","));
	/* and listed as what only the hardened kernel has, with its calls */
	assert_non_null(strstr(out, "\nOn one kernel only (record --func: "));
	assert_non_null(strstr(out,
			       "\nNAME                              KIND             ON       "
			       "            BASE   HARDENED\n"
			       "shuffle_freelist                  function         hardened only "
			       "     absent         40\n"
			       "shuffle_freelist in allocate_slab inline instance  hardened only "
			       "     absent         40\n"));
	assert_non_null(strstr(json, "\"one_side_only\":[{\"name\":\"shuffle_freelist\",\"kind\":"
				     "\"function\",\"only\":\"hardened\",\"base_calls\":null,"
				     "\"hardened_calls\":40},{\"name\":\"shuffle_freelist in "
				     "allocate_slab\",\"kind\":\"inline instance\",\"only\":"
				     "\"hardened\",\"base_calls\":null,\"hardened_calls\":40}]"));
	free(out);
	free(json);
}

/* The same recording as both sides of a null pair: nothing on one side only. */
static void test_null_pair(void **state)
{
	char copy[] = "/tmp/kp-builds-copy-XXXXXX";
	char *argv[] = {"diff", "--json", hard, copy, NULL}, *text[] = {"diff", hard, copy, NULL};
	char *json, *out;

	/* another file of the same bytes would be refused as the same recording */
	variant(hard, copy, "INSERT INTO meta VALUES('hostname', 'other')");
	json = tu_output(cmd_diff, argv);
	out = tu_output(cmd_diff, text);
	assert_non_null(strstr(json, "\"one_side_only\":[]"));
	assert_null(strstr(out, "On one kernel only"));
	free(json);
	free(out);
	unlink(copy);
}

/* The feature roll-up names the config state of the feature on each side. */
static void test_feature_config(void **state)
{
	char *argv[] = {"diff", "--features", feats, base, hard, NULL};
	char *jargv[] = {"diff", "--json", "--features", feats, base, hard, NULL};
	char *out = tu_output(cmd_diff, argv), *json = tu_output(cmd_diff, jargv);

	assert_non_null(strstr(out, "\n  freelist_random: slab freelist randomization; config"
				    " SLAB_FREELIST_RANDOM n -> y\n"));
	assert_non_null(strstr(json, "\"about\":\"slab freelist randomization\",\"config\":"
				     "[{\"option\":\"SLAB_FREELIST_RANDOM\",\"base\":\"n\","
				     "\"hardened\":\"y\"}]"));
	free(out);
	free(json);
}

/* diff --folded: the stacks of two builds meet whatever clones GCC made in each. */
static void test_folded_clones(void **state)
{
	char b[] = "/tmp/kp-builds-fb-XXXXXX", h[] = "/tmp/kp-builds-fh-XXXXXX";
	char *argv[] = {"diff", "--folded", b, h, NULL}, *out;

	variant(base, b,
		"UPDATE ksyms SET name = 'allocate_slab.isra.0' WHERE name ="
		" 'allocate_slab'");
	variant(hard, h,
		"UPDATE ksyms SET name = 'allocate_slab.constprop.0' WHERE name ="
		" 'allocate_slab'");
	out = tu_output(cmd_diff, argv);
	assert_string_equal(out, "big-fork;entry_SYSCALL_64_[k];allocate_slab_[k] 10 20\n");
	free(out);
	unlink(b);
	unlink(h);
}

static void test_report_absent(void **state)
{
	char *argv[] = {"report", base, NULL}, *jargv[] = {"report", "--json", base, NULL};
	char *hargv[] = {"report", hard, NULL};
	char *out = tu_output(cmd_report, argv), *json = tu_output(cmd_report, jargv);
	char *none = tu_output(cmd_report, hargv);
	const char *table = strstr(out, "\nProbed kernel functions (record --func)");

	assert_non_null(table);
	/* under the function table, before the next one */
	assert_non_null(strstr(table, "\nallocate_slab "));
	assert_non_null(strstr(table, "\n# absent on this kernel: shuffle_freelist\n"));
	assert_true(strstr(table, "# absent") < strstr(table, "KERNEL FUNCTION"));
	assert_non_null(strstr(json, "\"functions_absent\":[\"shuffle_freelist\"]"));
	assert_null(strstr(none, "absent on this kernel"));
	free(out);
	free(json);
	free(none);
}

/* func_absent values are checked at open like every other column. */
static void test_bad_absent_value(void **state)
{
	char bad[] = "/tmp/kp-builds-bad-XXXXXX";
	char *argv[] = {"report", bad, NULL}, *err;
	int ret;

	variant(base, bad, "INSERT INTO func_absent VALUES(x'41')");
	err = tu_run_fd(cmd_report, argv, 2, &ret);
	assert_int_equal(ret, 1);
	assert_non_null(strstr(err, "corrupt data file: table func_absent, row 2: pattern is X'41',"
				    " not text of at most 4096 bytes without NUL"));
	free(err);
	unlink(bad);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_provenance_only_config),
		cmocka_unit_test(test_provenance_build_id_alone),
		cmocka_unit_test(test_provenance_renamed),
		cmocka_unit_test(test_matched_by_name),
		cmocka_unit_test(test_hardened_only),
		cmocka_unit_test(test_null_pair),
		cmocka_unit_test(test_feature_config),
		cmocka_unit_test(test_folded_clones),
		cmocka_unit_test(test_report_absent),
		cmocka_unit_test(test_bad_absent_value),
	};

	return cmocka_run_group_tests(tests, setup, teardown);
}
