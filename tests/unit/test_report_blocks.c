// SPDX-License-Identifier: GPL-2.0-only
/*
 * report --blocks offline: a fixture ELF assembled at test time stands in
 * for the recorded kernel's vmlinux (linked where the kernel is, with
 * _stext, a build-id and the assembler's line table), and a synthetic
 * recording holds record --blocks' tables for its function kp_loop, filled
 * by hand: three blocks, a loop whose trips per call differ by slab cache.
 * The block addresses come from nm's labels, not from kprotperf.  Outputs
 * are compared whole with golden files (tests/unit/golden/blocks-*); bad
 * values give one error line, and a file without the tables says so.
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

#include "cmd/cmds.h"
#include "data/datafile.h"
#include "data/query.h"
#include "symbols/elfsym.h"
#include "testutil.h"

#define OK(expr) assert_int_equal((expr), 0)
#define SLIDE	 0x2a000000ULL
#define SRC	 "kp/loop.s"

/*
 * kp_loop(int *a, int n): block 0 (entry, skips the loop when n <= 0),
 * block 1 kp_head (the loop: a sum over a[0..n)), block 2 kp_out (ret).
 */
static const char fixture_src[] = "\t.text\n"
				  "\t.globl _stext\n"
				  "\t.type _stext,@function\n"
				  "_stext:\n"
				  "\tcall kp_loop\n"
				  "\tud2\n"
				  "\t.size _stext, .-_stext\n"
				  "\t.globl kp_loop\n"
				  "\t.type kp_loop,@function\n"
				  "kp_loop:\n"
				  "\txor %eax, %eax\n"
				  "\ttest %esi, %esi\n"
				  "\tjle kp_out\n"
				  "kp_head:\n"
				  "\tadd (%rdi), %eax\n"
				  "\tadd $4, %rdi\n"
				  "\tsub $1, %esi\n"
				  "\tjne kp_head\n"
				  "kp_out:\n"
				  "\tret\n"
				  "kp_end:\n"
				  "\t.size kp_loop, .-kp_loop\n";

static struct {
	char dir[128];
	char vmlinux[192], data[192], schema5[192];
	char bad[3][192];
	bool built;
	unsigned long long stext, loop, head, out, end;
} fx;

static void nm_line(const char *line, void *arg)
{
	unsigned long long a;
	char name[64];

	if (sscanf(line, "%llx %*c %63s", &a, name) != 2)
		return;
	if (!strcmp(name, "_stext"))
		fx.stext = a;
	else if (!strcmp(name, "kp_loop"))
		fx.loop = a;
	else if (!strcmp(name, "kp_head"))
		fx.head = a;
	else if (!strcmp(name, "kp_out"))
		fx.out = a;
	else if (!strcmp(name, "kp_end"))
		fx.end = a;
}

static const char *const schema[] = {
	"CREATE TABLE IF NOT EXISTS blocks(func TEXT NOT NULL, block INTEGER NOT NULL, start INTEGER NOT NULL,"
	" end INTEGER NOT NULL, insns INTEGER NOT NULL, count INTEGER, probed INTEGER NOT NULL,"
	" loop INTEGER, PRIMARY KEY(func, block))",
	"CREATE TABLE IF NOT EXISTS block_edges(func TEXT NOT NULL, edge INTEGER NOT NULL, src INTEGER NOT NULL,"
	" dst INTEGER NOT NULL, kind TEXT NOT NULL, count INTEGER, PRIMARY KEY(func, edge))",
	"CREATE TABLE IF NOT EXISTS block_loops(func TEXT NOT NULL, loop INTEGER NOT NULL, head INTEGER NOT NULL,"
	" parent INTEGER, depth INTEGER NOT NULL, irreducible INTEGER NOT NULL, entries INTEGER,"
	" iterations INTEGER, PRIMARY KEY(func, loop))",
	"CREATE TABLE IF NOT EXISTS block_values(func TEXT NOT NULL, what TEXT NOT NULL, loop INTEGER NOT NULL,"
	" ctx TEXT NOT NULL, value INTEGER NOT NULL, count INTEGER NOT NULL,"
	" PRIMARY KEY(func, what, loop, ctx, value))",
	"CREATE TABLE IF NOT EXISTS block_funcs(func TEXT NOT NULL PRIMARY KEY, addr INTEGER NOT NULL,"
	" size INTEGER NOT NULL, calls INTEGER NOT NULL, complete INTEGER NOT NULL,"
	" lost INTEGER NOT NULL, unprobed TEXT NOT NULL)",
};

static void fill_meta(struct datafile *df)
{
	char stext[32], bid[ELFSYM_BID_HEX];

	OK(elfsym_build_id(fx.vmlinux, bid, sizeof(bid)));
	snprintf(stext, sizeof(stext), "0x%llx", fx.stext + SLIDE);
	OK(query_insert(df, "INSERT INTO meta VALUES(?,?)", "tt", "kernel.release", "6.1.0-kp"));
	OK(query_insert(df, "INSERT INTO meta VALUES(?,?)", "tt", "kernel.build_id", bid));
	OK(query_insert(df, "INSERT INTO meta VALUES(?,?)", "tt", "kernel.stext", stext));
}

/* Which value fill_blocks spoils: 0 none, 1 a negative count, 2 an edge to no block, 3 a loop head.
 */
static int spoil;

/* The function the rows below are for. */
static const char *func = "kp_loop";

static void block(struct datafile *df, long long b, unsigned long long lo, unsigned long long hi,
		  long long insns, long long count, long long loop)
{
	static const char sql[] = "INSERT INTO blocks VALUES(?,?,?,?,?,?,1,?)";

	OK(query_insert(df, sql, "tiiiiii", func, b, (long long)(lo + SLIDE),
			(long long)(hi + SLIDE), insns, count, loop));
}

static void edge(struct datafile *df, long long e, long long src, long long dst, const char *kind,
		 long long count)
{
	static const char sql[] = "INSERT INTO block_edges VALUES(?,?,?,?,?,?)";

	OK(query_insert(df, sql, "tiiiti", func, e, src, dst, kind, count));
}

static void value(struct datafile *df, const char *what, long long loop, const char *ctx,
		  long long v, long long n)
{
	static const char sql[] = "INSERT INTO block_values VALUES('kp_loop',?,?,?,?,?)";

	OK(query_insert(df, sql, "titii", what, loop, ctx, v, n));
}

/*
 * 102 calls, 100 complete: 90 for kmalloc-64 with n = 15, 10 for
 * kmalloc-128 with n = 31; instructions per call 3 + 4n + 1.
 */
static void fill_blocks(struct datafile *df)
{
	size_t i;

	fill_meta(df);
	for (i = 0; i < sizeof(schema) / sizeof(schema[0]); i++)
		OK(query_exec(df, schema[i]));
	OK(query_insert(df, "INSERT INTO block_funcs VALUES('kp_loop',?,?,102,100,2,'')", "ii",
			(long long)(fx.loop + SLIDE), (long long)(fx.end - fx.loop)));
	block(df, 0, fx.loop, fx.head, 3, spoil == 1 ? -5 : 100, -1);
	block(df, 1, fx.head, fx.out, 4, 90 * 15 + 10 * 31, 0);
	block(df, 2, fx.out, fx.end, 1, 100, -1);
	OK(query_exec(df, "UPDATE blocks SET loop = NULL WHERE loop = -1"));
	edge(df, 0, -1, 0, "entry", 100);
	edge(df, 1, 0, 1, "not_taken", 100);
	edge(df, 2, 0, spoil == 2 ? 7 : 2, "taken", 0);
	edge(df, 3, 1, 2, "not_taken", 100);
	edge(df, 4, 1, 1, "taken", 90 * 14 + 10 * 30);
	edge(df, 5, 2, -2, "return", 100);
	OK(query_insert(df, "INSERT INTO block_loops VALUES('kp_loop',0,?,NULL,1,0,100,1660)", "i",
			spoil == 3 ? 3LL : 1LL));
	value(df, "insns", -1, "kmalloc-64", 64, 90);
	value(df, "insns", -1, "kmalloc-128", 128, 10);
	value(df, "trips", 0, "kmalloc-64", 15, 90);
	value(df, "trips", 0, "kmalloc-128", 31, 10);
}

/* As record wrote before schema 6: no --blocks tables. */
/*
 * The same text as kp_partial, where what could not be counted is unknown:
 * the loop's executions, its back edge, its iterations; no per-call values.
 */
static void fill_partial(struct datafile *df)
{
	func = "kp_partial";
	OK(query_insert(df, "INSERT INTO block_funcs VALUES(?,?,?,5,5,0,?)", "tiit", func,
			(long long)(fx.loop + SLIDE), (long long)(fx.end - fx.loop),
			"block 1: an unsafe instruction at its head"));
	block(df, 0, fx.loop, fx.head, 3, 5, -1);
	block(df, 1, fx.head, fx.out, 4, -1, 0);
	block(df, 2, fx.out, fx.end, 1, 5, -1);
	OK(query_exec(df, "UPDATE blocks SET loop = NULL WHERE loop = -1;"
			  " UPDATE blocks SET count = NULL, probed = 0 WHERE count = -1"));
	edge(df, 0, -1, 0, "entry", 5);
	edge(df, 1, 0, 1, "not_taken", 5);
	edge(df, 2, 0, 2, "taken", 0);
	edge(df, 3, 1, 2, "not_taken", 5);
	edge(df, 4, 1, 1, "taken", -1);
	edge(df, 5, 2, -2, "return", 5);
	OK(query_exec(df, "UPDATE block_edges SET count = NULL WHERE count = -1"));
	OK(query_exec(df, "INSERT INTO block_loops VALUES('kp_partial',0,1,NULL,1,0,5,NULL)"));
	func = "kp_loop";
}

static void fill_two(struct datafile *df)
{
	fill_blocks(df);
	fill_partial(df);
}

static void fill_schema5(struct datafile *df)
{
	fill_meta(df);
	OK(query_exec(df, "DROP TABLE IF EXISTS blocks; DROP TABLE IF EXISTS block_edges;"
			  " DROP TABLE IF EXISTS block_loops; DROP TABLE IF EXISTS block_values;"
			  " DROP TABLE IF EXISTS block_funcs; PRAGMA user_version = 5"));
}

static void make(char *path, const char *name, void (*fill)(struct datafile *df))
{
	snprintf(path, 192, "%s/%s-XXXXXX", fx.dir, name);
	tu_recording(path, fill);
}

static int setup(void **state)
{
	char src[256];
	int i;

	if (tu_mkdtemp(fx.dir, sizeof(fx.dir), "kp-blocks"))
		return -1;
	snprintf(src, sizeof(src), "%s/kp", fx.dir);
	snprintf(fx.vmlinux, sizeof(fx.vmlinux), "%s/vmlinux", fx.dir);
	if (tu_run("mkdir -p '%s'", src))
		return 0;
	snprintf(src, sizeof(src), "%s/" SRC, fx.dir);
	if (tu_write_file(src, fixture_src) ||
	    tu_run("cd '%s' && cc -g -nostdlib -static -Wl,--build-id -Wl,-Ttext=0xffffffff81000000"
		   " -Wl,-e,_stext " SRC " -o vmlinux 2>/dev/null",
		   fx.dir) ||
	    tu_each_line(nm_line, NULL, "nm '%s'", fx.vmlinux))
		return 0;
	if (!fx.loop || fx.head <= fx.loop || fx.out <= fx.head || fx.end <= fx.out)
		return 0;
	make(fx.data, "blocks", fill_two);
	make(fx.schema5, "schema5", fill_schema5);
	for (i = 0; i < 3; i++) {
		spoil = i + 1;
		make(fx.bad[i], "bad", fill_blocks);
	}
	spoil = 0;
	fx.built = true;
	return 0;
}

static int teardown(void **state)
{
	if (*fx.dir)
		tu_run("rm -rf '%s'", fx.dir);
	return 0;
}

static void need(void)
{
	tu_need_built(fx.built, "cc, as and nm");
}

static void test_text(void **state)
{
	char *argv[] = {"report", "--blocks", "--vmlinux", fx.vmlinux, fx.data, NULL};

	need();
	tu_golden_output("blocks-text", cmd_report, argv);
}

static void test_func_json(void **state)
{
	char *argv[] = {"report",    "--blocks", "--func", "kp_loop", "--json",
			"--vmlinux", fx.vmlinux, fx.data,  NULL};
	const char *const mask[] = {fx.dir, "DIR", NULL};
	char path[256], *out;

	need();
	out = tu_output(cmd_report, argv);
	tu_golden_mask("blocks-json", out, mask);
	snprintf(path, sizeof(path), "%s/out.json", fx.dir);
	OK(tu_write_file(path, out));
	/* strict JSON, as a script reads it */
	OK(tu_run("python3 -c 'import json, sys; d = json.load(open(sys.argv[1]));"
		  " assert [f[\"function\"] for f in d[\"functions\"]] == [\"kp_loop\"]' '%s'",
		  path));
	free(out);
}

/* No vmlinux found (the build-id is the fixture's): the blocks by address, and what is missing. */
static void test_no_vmlinux(void **state)
{
	char *argv[] = {"report", "--blocks", fx.data, NULL};
	char bid[ELFSYM_BID_HEX] = "";
	const char *const mask[] = {bid, "BUILD-ID", NULL};
	char *out;

	need();
	OK(elfsym_build_id(fx.vmlinux, bid, sizeof(bid)));
	setenv("XDG_CACHE_HOME", "/nonexistent", 1);
	out = tu_output(cmd_report, argv);
	unsetenv("XDG_CACHE_HOME");
	tu_golden_mask("blocks-novmlinux", out, mask);
	free(out);
}

static void expect_error(char **argv, const char *fmt, const char *path)
{
	char want[1024];

	snprintf(want, sizeof(want), fmt, path);
	tu_expect(cmd_report, argv, 2, 1, want);
}

static void test_corrupt(void **state)
{
	static const char *const why[] = {
		/* data/check.c's, when the file is opened */
		"kprotperf report: %s: corrupt data file: table blocks, row 1: count is -5, not"
		" NULL or a count from 0 to 2^40: record it again\n",
		"kprotperf report: %s: corrupt data file: table block_edges, row 3 (function"
		" kp_loop): dst is 7, not -2 (out) or a block of the function: record it again\n",
		"kprotperf report: %s: corrupt data file: table block_loops, row 1 (function"
		" kp_loop): head is 3, not a block of the function: record it again\n",
	};
	char *argv[] = {"report", "--blocks", NULL, NULL};
	int i;

	need();
	for (i = 0; i < 3; i++) {
		argv[2] = fx.bad[i];
		expect_error(argv, why[i], fx.bad[i]);
	}
}

static void test_none(void **state)
{
	char *argv[] = {"report", "--blocks", fx.schema5, NULL};
	char *func[] = {"report", "--blocks", "--func", "nope", fx.data, NULL};

	need();
	expect_error(argv,
		     "kprotperf report: %s has no --blocks data (record it with record --blocks "
		     "FUNC)\n",
		     fx.schema5);
	expect_error(func, "kprotperf report: %s has no --blocks data for nope\n", fx.data);
	func[1] = "--top=3";
	tu_expect(cmd_report, func, 2, 2, "kprotperf report: --func goes with --blocks\n");
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_text),	   cmocka_unit_test(test_func_json),
		cmocka_unit_test(test_no_vmlinux), cmocka_unit_test(test_corrupt),
		cmocka_unit_test(test_none),
	};

	return cmocka_run_group_tests(tests, setup, teardown);
}
