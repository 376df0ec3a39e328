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

/* kp_loop's loop: n read at block 0's head; its trips are n in every call. */
static void fill_bound(struct datafile *df)
{
	static const char sql[] = "INSERT INTO block_bound_values VALUES('kp_loop',0,?,?,?,?)";

	OK(query_exec(df, "INSERT INTO block_bounds VALUES('kp_loop',0,0,'n','i','i < n')"));
	OK(query_insert(df, sql, "tiii", "kmalloc-64", 15LL, 15LL, 90LL));
	OK(query_insert(df, sql, "tiii", "kmalloc-128", 31LL, 31LL, 10LL));
}

/*
 * kp_loop's 100 complete calls: from clone through two kernel stacks (one
 * ending in kprotperf's probe), without a stack, and from mmap.
 */
static void fill_contexts(struct datafile *df)
{
	static const char sql[] = "INSERT INTO block_contexts VALUES('kp_loop',?,?,?,?,?)";
	static const char frame[] = "INSERT INTO kstack_frames VALUES(?,?,?)";

	OK(query_insert(df, "INSERT INTO ksyms VALUES(?,'_stext','')", "i",
			(long long)(fx.stext + SLIDE)));
	OK(query_insert(df, "INSERT INTO ksyms VALUES(?,'kp_loop','')", "i",
			(long long)(fx.loop + SLIDE)));
	OK(query_insert(df, "INSERT INTO ksyms VALUES(?,'bpf_prog_0123456789abcdef_kp_block','')",
			"i", (long long)(fx.end + SLIDE)));
	OK(query_insert(df, frame, "iii", 1LL, 0LL, (long long)(fx.loop + SLIDE)));
	OK(query_insert(df, frame, "iii", 1LL, 1LL, (long long)(fx.stext + 5 + SLIDE)));
	OK(query_insert(df, frame, "iii", 2LL, 0LL, (long long)(fx.end + 4 + SLIDE)));
	OK(query_insert(df, frame, "iii", 2LL, 1LL, (long long)(fx.loop + 2 + SLIDE)));
	OK(query_insert(df, frame, "iii", 2LL, 2LL, (long long)(fx.stext + 5 + SLIDE)));
	OK(query_insert(df, sql, "iitii", 56LL, 1LL, "kmalloc-64", 50LL, 50 * 64LL));
	OK(query_insert(df, sql, "iitii", 56LL, 2LL, "kmalloc-64", 30LL, 30 * 64LL));
	OK(query_insert(df, sql, "iitii", 56LL, -1LL, "kmalloc-64", 10LL, 10 * 64LL));
	OK(query_insert(df, sql, "iitii", 9LL, 1LL, "kmalloc-128", 10LL, 10 * 128LL));
}

/* Two runs: 60 and 40 complete calls of kp_loop, its counts split so. */
static void fill_runs(struct datafile *df)
{
	static const long long block[2][3] = {{60, 996, 60}, {40, 664, 40}};
	static const long long edge[2][6] = {{60, 60, 0, 60, 936, 60}, {40, 40, 0, 40, 624, 40}};
	long long r, i;

	for (r = 0; r < 2; r++) {
		OK(query_insert(df, "INSERT INTO runs VALUES(?,1000,0,'exited')", "i", r));
		for (i = 0; i < 3; i++)
			OK(query_insert(df, "INSERT INTO block_runs VALUES('kp_loop',?,?,?)", "iii",
					r, i, block[r][i]));
		for (i = 0; i < 6; i++)
			OK(query_insert(df, "INSERT INTO block_run_edges VALUES('kp_loop',?,?,?)",
					"iii", r, i, edge[r][i]));
	}
	OK(query_exec(df, "INSERT INTO block_run_calls VALUES('kp_loop',0,62,60,2),"
			  " ('kp_loop',1,40,40,0)"));
}

/*
 * kp_partial's bound, in registers (no DWARF names): the trips follow it in
 * 4 calls of 5, across two of its values.
 */
static void fill_partial_bound(struct datafile *df)
{
	OK(query_exec(df, "INSERT INTO block_bounds VALUES('kp_partial',0,0,"
			  "'*(u32 *)(%rdi + 0x8)','%esi','%esi != 0');"
			  " INSERT INTO block_bound_values VALUES('kp_partial',0,'',4,3,3),"
			  " ('kp_partial',0,'',2,1,1), ('kp_partial',0,'',4,6,1)"));
}

/* kp_sum, inlined into kp_loop (kp/loop.c:14): the loop's block alone. */
static void fill_inline(struct datafile *df)
{
	char ranges[64];

	func = "kp_sum";
	snprintf(ranges, sizeof(ranges), "0x%llx-0x%llx", fx.head + SLIDE, fx.out + SLIDE);
	OK(query_insert(df, "INSERT INTO block_funcs VALUES(?,?,?,100,100,0,'')", "tii", func,
			(long long)(fx.head + SLIDE), (long long)(fx.out - fx.head)));
	OK(query_insert(df,
			"INSERT INTO block_inlines VALUES(?,'kp_sum','kp_loop','kp/loop.c',14,?,?)",
			"tit", func, (long long)(fx.head + SLIDE), ranges));
	block(df, 0, fx.head, fx.out, 4, 1660, 0);
	edge(df, 0, -1, 0, "entry", 100);
	edge(df, 1, 0, 0, "taken", 1560);
	edge(df, 2, 0, -2, "not_taken", 100);
	OK(query_exec(df, "INSERT INTO block_loops VALUES('kp_sum',0,0,NULL,1,0,100,1660)"));
	func = "kp_loop";
}

static void fill_two(struct datafile *df)
{
	fill_blocks(df);
	fill_partial(df);
	fill_bound(df);
	fill_contexts(df);
	fill_runs(df);
	fill_partial_bound(df);
	fill_inline(df);
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

/* A copy of the good recording at dir/name, with sql run on it. */
static void variant(char *path, size_t len, const char *name, const char *sql)
{
	sqlite3 *db;

	snprintf(path, len, "%s/%s", fx.dir, name);
	OK(tu_run("cp '%s' '%s'", fx.data, path));
	assert_int_equal(sqlite3_open(path, &db), SQLITE_OK);
	assert_int_equal(sqlite3_exec(db, sql, NULL, NULL, NULL), SQLITE_OK);
	sqlite3_close(db);
}

/* The schema-7 tables' values, checked against each other and the schema-6 ones. */
static void test_corrupt_v7(void **state)
{
	static const struct {
		const char *sql, *why;
	} bad[] = {
		{"UPDATE block_bounds SET loop = 5 WHERE func = 'kp_loop'",
		 "table block_bounds, row 1 (function kp_loop): loop is 5, not a loop of the"
		 " function"},
		{"UPDATE block_bounds SET block = 9 WHERE func = 'kp_loop'",
		 "table block_bounds, row 1 (function kp_loop): block is 9, not a block of the"
		 " function"},
		{"DELETE FROM block_bounds WHERE func = 'kp_partial'",
		 "table block_bound_values, row 4 (function kp_partial): loop is 0, not a loop with"
		 " a bound (table block_bounds)"},
		{"UPDATE block_bound_values SET count = 95 WHERE ctx = 'kmalloc-128'",
		 "table block_bound_values: function kp_loop, loop 0: more calls than its 100"
		 " complete ones"},
		{"UPDATE block_contexts SET kstack = 99 WHERE kstack = 2",
		 "table block_contexts, row 2 (function kp_loop): kstack 99 is no stack of table"
		 " kstack_frames"},
		{"UPDATE block_contexts SET calls = 60 WHERE kstack = -1",
		 "table block_contexts: function kp_loop has 150 calls, more than its 100 complete"
		 " ones"},
		{"UPDATE block_contexts SET syscall = -2 WHERE rowid = 1",
		 "table block_contexts, row 1: syscall is -2, not an id from 0 to 2^31-1, or -1"},
		{"UPDATE block_runs SET run = 7 WHERE run = 1 AND block = 2",
		 "table block_runs, row 6 (function kp_loop): run is 7, not a run of the runs table"},
		{"UPDATE block_run_edges SET edge = 9 WHERE run = 0 AND edge = 5",
		 "table block_run_edges, row 6 (function kp_loop): edge is 9, not an edge of the"
		 " function"},
		{"UPDATE block_runs SET count = 650 WHERE run = 1 AND block = 1",
		 "table block_runs: function kp_loop, block 1: the runs' counts sum to 1646, not its"
		 " total, 1660"},
		{"UPDATE block_runs SET count = NULL WHERE run = 1 AND block = 1;"
		 " UPDATE block_runs SET count = 1700 WHERE run = 0 AND block = 1",
		 "table block_runs: function kp_loop, block 1: the runs' counts sum to 1700, more"
		 " than its total, 1660"},
		{"UPDATE block_run_edges SET count = 600 WHERE run = 1 AND edge = 4",
		 "table block_run_edges: function kp_loop, edge 4: the runs' counts sum to 1536, not"
		 " its total, 1560"},
		{"UPDATE block_run_calls SET complete = 70 WHERE run = 1",
		 "table block_run_calls, row 2 (function kp_loop): complete is 70, not at most"
		 " calls"},
		{"UPDATE block_run_calls SET lost = 1 WHERE run = 1",
		 "table block_run_calls: function kp_loop, lost: the runs' counts sum to 3, not its"
		 " total, 2"},
		{"UPDATE block_inlines SET ranges = '0x30-0x20'",
		 "table block_inlines, row 1: ranges: '0x30-0x20' is not a range 0xLO-0xHI with"
		 " LO < HI"},
		{"UPDATE block_inlines SET ranges = printf('0x%x-0x%x', entry, entry + 12)",
		 "table block_inlines, row 1 (function kp_sum): its ranges hold other than"
		 " block_funcs.size, 11 bytes"},
		{"UPDATE block_inlines SET ranges = printf('0x%x-0x%x', entry + 1, entry + 12)",
		 "table block_inlines, row 1 (function kp_sum): block 0 is outside its ranges"},
		{"UPDATE block_inlines SET entry = entry + 1",
		 "table block_inlines, row 1 (function kp_sum): entry is %lld, not block_funcs.addr"
		 " (the instance's entry)"},
	};
	char *argv[] = {"report", "--blocks", NULL, NULL};
	char path[256], why[512], want[1024];
	size_t i;

	need();
	for (i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		variant(path, sizeof(path), "v7", bad[i].sql);
		snprintf(why, sizeof(why), bad[i].why, (long long)(fx.head + SLIDE + 1));
		snprintf(want, sizeof(want),
			 "kprotperf report: %s: corrupt data file: %s: record it again\n", path,
			 why);
		argv[2] = path;
		tu_expect(cmd_report, argv, 2, 1, want);
	}
}

/*
 * DWARF may split an instance into touching ranges, in any order, with a
 * block across the seam (shuffle_freelist in a 6.1 build does): the same
 * report as the single range gives, bar the ranges it lists.
 */
static void test_split_ranges(void **state)
{
	char *argv[] = {"report", "--blocks", "--vmlinux", fx.vmlinux, NULL, NULL};
	char path[256], one[64], two[80], sql[256];
	const char *const mask[] = {two, one, NULL};
	unsigned long long lo = fx.head + SLIDE, hi = fx.out + SLIDE;
	char *out;

	need();
	snprintf(one, sizeof(one), "0x%llx-0x%llx", lo, hi);
	snprintf(two, sizeof(two), "0x%llx-0x%llx 0x%llx-0x%llx", lo + 5, hi, lo, lo + 5);
	snprintf(sql, sizeof(sql), "UPDATE block_inlines SET ranges = '%s'", two);
	variant(path, sizeof(path), "split", sql);
	argv[4] = path;
	out = tu_output(cmd_report, argv);
	tu_golden_mask("blocks-text", out, mask);
	free(out);
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
		cmocka_unit_test(test_corrupt_v7), cmocka_unit_test(test_split_ranges),
		cmocka_unit_test(test_none),
	};

	return cmocka_run_group_tests(tests, setup, teardown);
}
