// SPDX-License-Identifier: GPL-2.0-only
/*
 * report of a user frame whose debug file is found by build id under
 * --symfs but cannot be used: another build's, truncated, or with its DWARF
 * garbled.  Each is skipped with one header note naming it (text and JSON),
 * the rows shown without inline frames; the good debug file shows the
 * function inlined there and no note.  A small program built at test time
 * with cc -O2 -g stands in for the mapped file.  Outputs are compared whole
 * with goldens (tests/unit/golden/debugskip-*), the folder masked as DIR.
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
#include "data/datafile.h"
#include "data/query.h"
#include "testutil.h"

#define OK(expr) assert_int_equal((expr), 0)

/* kp_outer is kp_inner inlined, nothing more: any address of it is in kp_inner */
static const char prog_src[] = "static volatile int sink;\n"
			       "static inline __attribute__((always_inline)) int kp_inner(int x)\n"
			       "{\n"
			       "	sink += x;\n"
			       "	return sink * 3;\n"
			       "}\n"
			       "__attribute__((noinline, noclone)) int kp_outer(int x)\n"
			       "{\n"
			       "	return kp_inner(x);\n"
			       "}\n"
			       "int main(int argc, char **argv)\n"
			       "{\n"
			       "	return kp_outer(argc);\n"
			       "}\n";

#define MAP_START 0x555555554000ULL

struct fixture {
	struct tu_fixture tu;
	char rec[PATH_MAX];
	char bid[64];
	unsigned long long outer, main_fn; /* link-time addresses */
};

static struct fixture *fx;

/* The line, without its newline, into a 64-byte arg. */
static void first_word(const char *line, void *arg)
{
	snprintf(arg, 64, "%.*s", (int)strcspn(line, "\n"), line);
}

static void fill(struct datafile *df)
{
	static const char uf[] = "INSERT INTO ustack_frames VALUES(0,?,?,'/bin/kp-prog',?,0)";

	OK(query_insert(df, "INSERT INTO maps VALUES(10,?,?,0,'/bin/kp-prog',?)", "iit",
			(long long)MAP_START, (long long)(MAP_START + 0x4000), fx->bid));
	OK(query_insert(df, uf, "iit", 0LL, (long long)(MAP_START + fx->outer), "kp_outer"));
	/* a return address: looked up one byte back, in main's call */
	OK(query_insert(df, uf, "iit", 1LL, (long long)(MAP_START + fx->main_fn + 5), "main"));
	OK(query_insert(df, "INSERT INTO samples VALUES(10,10,'kp-prog',NULL,0,5)", ""));
	OK(query_insert(df, "INSERT INTO counters VALUES('samples', 5)", ""));
}

/* symfs DIR/NAME with the program stripped and DEBUG at its build id's path. */
static int symfs(const char *dir, const char *name, const char *debug)
{
	return tu_run("set -e; cd %s; d=%s/usr/lib/debug/.build-id/%.2s; mkdir -p %s/bin $d;"
		      " strip --strip-debug -o %s/bin/kp-prog prog; %s > $d/%s.debug",
		      dir, name, fx->bid, name, name, debug, fx->bid + 2);
}

static int build(void *arg)
{
	struct fixture *f = arg;
	char src[PATH_MAX], exe[PATH_MAX], word[64] = "";
	const char *d = f->tu.dir;

	fx = f;
	snprintf(src, sizeof(src), "%s/prog.c", d);
	snprintf(exe, sizeof(exe), "%s/prog", d);
	if (tu_write_file(src, prog_src) || tu_cc("-O2 -g", src, exe) ||
	    tu_run("cd %s && sed 's/sink += x/sink -= x/' prog.c > other.c &&"
		   " cc -O2 -g -o other other.c && head -c 3000 prog > prog.short &&"
		   " objcopy --dump-section .debug_info=info prog && tr '\\000-\\377' '\\377' <info >junk &&"
		   " objcopy --update-section .debug_info=junk prog prog.garbled",
		   d))
		return -1;
	tu_each_line(first_word, f->bid, "readelf -n %s | sed -n 's/.*Build ID: //p'", exe);
	tu_each_line(first_word, word, "nm %s | sed -n 's/ T kp_outer$//p'", exe);
	f->outer = strtoull(word, NULL, 16);
	tu_each_line(first_word, word, "nm %s | sed -n 's/ T main$//p'", exe);
	f->main_fn = strtoull(word, NULL, 16);
	if (strlen(f->bid) != 40 || !f->outer || !f->main_fn)
		return -1;
	snprintf(f->rec, sizeof(f->rec), "%s/rec-XXXXXX", d);
	tu_recording(f->rec, fill);
	return symfs(d, "good", "cat prog") || symfs(d, "stale", "cat other") ||
	       symfs(d, "short", "cat prog.short") || symfs(d, "garbled", "cat prog.garbled");
}

static int setup(void **state)
{
	return tu_fixture_setup(state, sizeof(struct fixture), "kp-debugskip", "cc, binutils",
				build);
}

/* report --symfs DIR/name of the recording (--json with json), golden debugskip-NAME. */
static void check(void **state, const char *name, bool json)
{
	struct fixture *f = tu_fixture(state);
	char dir[PATH_MAX], golden[64], bidpath[64];
	const char *const mask[] = {f->tu.dir, "DIR",	   bidpath, "BUILD-ID.debug",
				    f->bid,    "BUILD-ID", NULL};
	char *argv[] = {"report", "--symfs", dir, f->rec, NULL};
	char *jargv[] = {"report", "--json", "--symfs", dir, f->rec, NULL};
	char *out;

	snprintf(dir, sizeof(dir), "%s/%s", f->tu.dir, name);
	snprintf(golden, sizeof(golden), "debugskip-%s%s", name, json ? "-json" : "");
	snprintf(bidpath, sizeof(bidpath), "%.2s/%s.debug", f->bid, f->bid + 2);
	out = tu_output(cmd_report, json ? jargv : argv);
	tu_golden_mask(golden, out, mask);
	free(out);
}

static void test_good(void **state)
{
	check(state, "good", false);
}

static void test_stale(void **state)
{
	check(state, "stale", false);
	check(state, "stale", true);
}

static void test_short(void **state)
{
	check(state, "short", false);
}

static void test_garbled(void **state)
{
	check(state, "garbled", false);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_good),
		cmocka_unit_test(test_stale),
		cmocka_unit_test(test_short),
		cmocka_unit_test(test_garbled),
	};

	return cmocka_run_group_tests(tests, setup, tu_fixture_teardown);
}
