// SPDX-License-Identifier: GPL-2.0-only
/*
 * diff --blocks offline, on two builds of one function: allocate_slab of a
 * base kernel and of a hardened one, each assembled at test time into a
 * vmlinux of its own (its own addresses, build-id and line table from
 * .loc directives, as a compiler writes them), with a synthetic recording
 * of record --blocks' tables over 5 runs each.  The hardened build has a
 * loop the base lacks (a shuffle, with its inline instance shuffle_freelist
 * recorded as a function of its own), the base a line the hardened build
 * lacks, both the setup loop at mm/slub.c:1906 whose bound slab->objects
 * reads 25 and 16 on the base and 12 and 8 on the hardened kernel (per slab
 * cache), and a branch at mm/slub.c:1896 taken 60% of the time on the base
 * and 40% on the hardened kernel.  Outputs are compared whole with golden
 * files (tests/unit/golden/diff-blocks-*); the errors are one line each.
 */
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cmd/cmds.h"
#include "data/datafile.h"
#include "data/query.h"
#include "symbols/elfsym.h"
#include "testutil.h"

#define OK(expr) assert_int_equal((expr), 0)
#define SLIDE	 0x1c000000ULL
#define RUNS	 5
#define MAXB	 8

/* The slab caches the calls are split by, and each one's calls in each run. */
static const char *const cache[2] = {"vm_area_struct", "maple_node"};
static const long long calls[2][2][RUNS] = {
	{{60, 58, 62, 61, 59}, {40, 42, 38, 41, 39}},
	{{59, 61, 60, 62, 58}, {41, 39, 40, 38, 42}},
};

/* A block: its label in the source, instructions, loop, and executions per call by cache. */
struct fx_block {
	const char *label;
	int insns, loop;
	int exec[2];
};

struct fx_edge {
	int src, dst;
	const char *kind;
	int exec[2];
};

/* A loop: its head, and its bound read at block with its value by cache. */
struct fx_loop {
	int head, block;
	const char *bound, *cond;
	int value[2];
};

struct fx_func {
	const char *name;
	const struct fx_block *b;
	size_t nb;
	const struct fx_edge *e;
	size_t ne;
	const struct fx_loop *l;
	size_t nl;
	const char *parent; /* an inline instance of it, NULL: a function of its own */
};

#define N(a) (sizeof(a) / sizeof((a)[0]))

/*
 * The base: an entry with the branch on the object count, the setup loop
 * (objects - 1 trips), a store at line 1915 the hardened build has not.
 */
static const char base_src[] = "\t.file 1 \"mm/slub.c\"\n"
			       "\t.text\n"
			       "\t.globl _stext\n"
			       "_stext:\n"
			       "\t.loc 1 10\n"
			       "\tcall allocate_slab\n"
			       "\tud2\n"
			       "\t.globl allocate_slab\n"
			       "\t.type allocate_slab,@function\n"
			       "allocate_slab:\n"
			       "b0:\t.loc 1 1890\n"
			       "\tpush %rbx\n"
			       "\tmov %rdi, %rbx\n"
			       "\t.loc 1 1896\n"
			       "\tcmpl $16, 8(%rsi)\n"
			       "\tjg b2\n"
			       "b1:\t.loc 1 1898\n"
			       "\tadd $1, %rax\n"
			       "b2:\t.loc 1 1904\n"
			       "\tmovzwl 0x2a(%rsi), %ecx\n"
			       "\tmov $1, %edx\n"
			       "b3:\t.loc 1 1906\n"
			       "\tadd $1, %edx\n"
			       "\t.loc 1 1907\n"
			       "\tadd %r8, %rax\n"
			       "\t.loc 1 1906\n"
			       "\tcmp %ecx, %edx\n"
			       "\tjb b3\n"
			       "b4:\t.loc 1 1915\n"
			       "\tmov %rax, (%rbx)\n"
			       "b5:\t.loc 1 1920\n"
			       "\tpop %rbx\n"
			       "\tret\n"
			       "end:\n"
			       "\t.size allocate_slab, .-allocate_slab\n";

static const struct fx_block base_blocks[] = {
	{"b0", 4, -1, {1, 1}},	{"b1", 1, -1, {0, 1}}, {"b2", 2, -1, {1, 1}},
	{"b3", 4, 0, {24, 15}}, {"b4", 1, -1, {1, 1}}, {"b5", 2, -1, {1, 1}},
};

static const struct fx_edge base_edges[] = {
	{-1, 0, "entry", {1, 1}},    {0, 2, "taken", {1, 0}}, {0, 1, "not_taken", {0, 1}},
	{1, 2, "fall", {0, 1}},	     {2, 3, "fall", {1, 1}},  {3, 3, "taken", {23, 14}},
	{3, 4, "not_taken", {1, 1}}, {4, 5, "fall", {1, 1}},  {5, -2, "return", {1, 1}},
};

static const struct fx_loop base_loops[] = {
	{3, 2, "slab->objects", "++idx < slab->objects", {25, 16}},
};

static const struct fx_func base_funcs[] = {
	{"allocate_slab", base_blocks, N(base_blocks), base_edges, N(base_edges), base_loops,
	 N(base_loops)},
};

/*
 * The hardened build: one more instruction at the entry, the branch turned
 * round (taken for the smaller objects per slab), the shuffle loop of
 * shuffle_freelist (inlined, page_limit - 1 trips), then the setup loop on
 * fewer objects, and no store at line 1915.
 */
static const char hard_src[] = "\t.file 1 \"mm/slub.c\"\n"
			       "\t.text\n"
			       "\t.globl _stext\n"
			       "_stext:\n"
			       "\t.loc 1 10\n"
			       "\tcall allocate_slab\n"
			       "\tud2\n"
			       "\t.globl allocate_slab\n"
			       "\t.type allocate_slab,@function\n"
			       "allocate_slab:\n"
			       "b0:\t.loc 1 1890\n"
			       "\tpush %rbx\n"
			       "\tmov %rdi, %rbx\n"
			       "\tmov %rsi, %r9\n"
			       "\t.loc 1 1896\n"
			       "\tcmpl $10, 8(%rsi)\n"
			       "\tjle b2\n"
			       "b1:\t.loc 1 1898\n"
			       "\tadd $1, %rax\n"
			       "b2:\t.loc 1 1878\n"
			       "\tmov $1, %edx\n"
			       "\tmovzwl 0x2c(%rsi), %ecx\n"
			       "b3:\t.loc 1 1880\n"
			       "\tadd $1, %edx\n"
			       "\t.loc 1 1881\n"
			       "\txor %r9, %rax\n"
			       "\t.loc 1 1880\n"
			       "\tcmp %ecx, %edx\n"
			       "\tjb b3\n"
			       "b4:\t.loc 1 1904\n"
			       "\tmovzwl 0x2a(%rsi), %ecx\n"
			       "\tmov $1, %edx\n"
			       "b5:\t.loc 1 1906\n"
			       "\tadd $1, %edx\n"
			       "\t.loc 1 1907\n"
			       "\tadd %r8, %rax\n"
			       "\t.loc 1 1906\n"
			       "\tcmp %ecx, %edx\n"
			       "\tjb b5\n"
			       "b6:\t.loc 1 1920\n"
			       "\tpop %rbx\n"
			       "\tret\n"
			       "end:\n"
			       "\t.size allocate_slab, .-allocate_slab\n";

static const struct fx_block hard_blocks[] = {
	{"b0", 5, -1, {1, 1}}, {"b1", 1, -1, {1, 0}}, {"b2", 2, -1, {1, 1}}, {"b3", 4, 0, {11, 7}},
	{"b4", 2, -1, {1, 1}}, {"b5", 4, 1, {11, 7}}, {"b6", 2, -1, {1, 1}},
};

static const struct fx_edge hard_edges[] = {
	{-1, 0, "entry", {1, 1}},    {0, 2, "taken", {0, 1}},	{0, 1, "not_taken", {1, 0}},
	{1, 2, "fall", {1, 0}},	     {2, 3, "fall", {1, 1}},	{3, 3, "taken", {10, 6}},
	{3, 4, "not_taken", {1, 1}}, {4, 5, "fall", {1, 1}},	{5, 5, "taken", {10, 6}},
	{5, 6, "not_taken", {1, 1}}, {6, -2, "return", {1, 1}},
};

static const struct fx_loop hard_loops[] = {
	{3, 2, "page_limit", "++idx < page_limit", {12, 8}},
	{5, 4, "slab->objects", "++idx < slab->objects", {12, 8}},
};

/* shuffle_freelist inlined into allocate_slab: the shuffle's blocks alone. */
static const struct fx_block shuffle_blocks[] = {
	{"b2", 2, -1, {1, 1}},
	{"b3", 4, 0, {11, 7}},
};

static const struct fx_edge shuffle_edges[] = {
	{-1, 0, "entry", {1, 1}},
	{0, 1, "fall", {1, 1}},
	{1, 1, "taken", {10, 6}},
	{1, -2, "not_taken", {1, 1}},
};

static const struct fx_loop shuffle_loops[] = {
	{1, 0, "page_limit", "++idx < page_limit", {12, 8}},
};

static const struct fx_func hard_funcs[] = {
	{"allocate_slab", hard_blocks, N(hard_blocks), hard_edges, N(hard_edges), hard_loops,
	 N(hard_loops)},
	{"shuffle_freelist", shuffle_blocks, N(shuffle_blocks), shuffle_edges, N(shuffle_edges),
	 shuffle_loops, N(shuffle_loops), "allocate_slab"},
};

/* One side's build and recordings. */
struct fx_side {
	const char *name, *src, *config;
	const struct fx_func *funcs;
	size_t nfuncs;
	char vmlinux[256], data[256], schema6[256], nodata[256];
	char bid[ELFSYM_BID_HEX];
	unsigned long long stext, end, label[MAXB]; /* label bI at label[I] */
	int side;
};

static struct {
	char dir[128];
	struct fx_side s[2];
	bool built;
} fx = {.s = {{"base", base_src, "n", base_funcs, N(base_funcs), .side = 0},
	      {"hard", hard_src, "y", hard_funcs, N(hard_funcs), .side = 1}}};

/* The side tu_recording's fill writes. */
static struct fx_side *filling;

static void nm_line(const char *line, void *arg)
{
	struct fx_side *s = arg;
	unsigned long long a;
	char name[64];
	int i;

	if (sscanf(line, "%llx %*c %63s", &a, name) != 2)
		return;
	if (!strcmp(name, "_stext"))
		s->stext = a;
	else if (!strcmp(name, "end"))
		s->end = a;
	else if (sscanf(name, "b%d", &i) == 1 && i >= 0 && i < MAXB)
		s->label[i] = a;
}

/* The running address of a label (KASLR slide included), and where the next block starts. */
static long long at(const struct fx_func *f, size_t i)
{
	return (long long)(filling->label[f->b[i].label[1] - '0'] + SLIDE);
}

static long long block_end(const struct fx_func *f, size_t i)
{
	int next = f->b[i].label[1] - '0' + 1;

	return (long long)((next < MAXB && filling->label[next] ? filling->label[next]
								: filling->end) +
			   SLIDE);
}

/* Count in run r (-1: all runs) of something executed exec[c] times per call of cache c. */
static long long count(const int exec[2], int r)
{
	long long n = 0;
	int c, k;

	for (k = r < 0 ? 0 : r; k < (r < 0 ? RUNS : r + 1); k++)
		for (c = 0; c < 2; c++)
			n += exec[c] * calls[filling->side][c][k];
	return n;
}

static void meta(struct datafile *df, const char *key, const char *value)
{
	OK(query_insert(df, "INSERT INTO meta VALUES(?,?)", "tt", key, value));
}

static void fill_meta(struct datafile *df)
{
	char stext[32];
	int r;

	snprintf(stext, sizeof(stext), "0x%llx", filling->stext + SLIDE);
	meta(df, "kernel.release", "6.1.158-kp");
	meta(df, "kernel.build_id", filling->bid);
	meta(df, "kernel.stext", stext);
	meta(df, "arch", "x86_64");
	meta(df, "record.command", "./big-fork 100");
	meta(df, "sampling.freq_hz", "100");
	OK(query_insert(df, "INSERT INTO config VALUES('CONFIG_SLAB_FREELIST_RANDOM', ?)", "t",
			filling->config));
	for (r = 0; r < RUNS; r++)
		OK(query_insert(df, "INSERT INTO runs VALUES(?,1000000000,0,'exited')", "i",
				(long long)r));
}

static void fill_blocks(struct datafile *df, const struct fx_func *f)
{
	static const char sql[] = "INSERT INTO blocks VALUES(?,?,?,?,?,?,1,"
				  " CASE WHEN ?7 < 0 THEN NULL ELSE ?7 END)";
	static const char run_sql[] = "INSERT INTO block_runs VALUES(?,?,?,?)";
	long long i, r;

	for (i = 0; i < (long long)f->nb; i++) {
		OK(query_insert(df, sql, "tiiiiii", f->name, i, at(f, i), block_end(f, i),
				(long long)f->b[i].insns, count(f->b[i].exec, -1),
				(long long)f->b[i].loop));
		for (r = 0; r < RUNS; r++)
			OK(query_insert(df, run_sql, "tiii", f->name, r, i,
					count(f->b[i].exec, r)));
	}
}

static void fill_edges(struct datafile *df, const struct fx_func *f)
{
	static const char sql[] = "INSERT INTO block_edges VALUES(?,?,?,?,?,?)";
	static const char run_sql[] = "INSERT INTO block_run_edges VALUES(?,?,?,?)";
	long long i, r;

	for (i = 0; i < (long long)f->ne; i++) {
		OK(query_insert(df, sql, "tiiiti", f->name, i, (long long)f->e[i].src,
				(long long)f->e[i].dst, f->e[i].kind, count(f->e[i].exec, -1)));
		for (r = 0; r < RUNS; r++)
			OK(query_insert(df, run_sql, "tiii", f->name, r, i,
					count(f->e[i].exec, r)));
	}
}

/* Each loop, its bound and the bound's values: trips are the head's executions per call. */
static void fill_loops(struct datafile *df, const struct fx_func *f)
{
	const struct fx_loop *l;
	const int one[2] = {1, 1};
	long long i, c, head;

	for (i = 0; i < (long long)f->nl; i++) {
		l = &f->l[i];
		head = count(f->b[l->head].exec, -1);
		OK(query_insert(df, "INSERT INTO block_loops VALUES(?,?,?,NULL,1,0,?,?)", "tiiii",
				f->name, i, (long long)l->head, count(one, -1), head));
		OK(query_insert(df, "INSERT INTO block_bounds VALUES(?,?,?,?,'idx',?)", "tiitt",
				f->name, i, (long long)l->block, l->bound, l->cond));
		for (c = 0; c < 2; c++) {
			const int only[2] = {c == 0, c == 1};

			OK(query_insert(df, "INSERT INTO block_values VALUES(?,'trips',?,?,?,?)",
					"tiiii", f->name, i, cache[c],
					(long long)f->b[l->head].exec[c], count(only, -1)));
			OK(query_insert(df, "INSERT INTO block_bound_values VALUES(?,?,?,?,?,?)",
					"titiii", f->name, i, cache[c], (long long)l->value[c],
					(long long)f->b[l->head].exec[c], count(only, -1)));
		}
	}
}

/* Instructions per call by cache, and the calls, in all and per run, all from clone. */
static void fill_calls(struct datafile *df, const struct fx_func *f)
{
	const int one[2] = {1, 1};
	long long i, c, r, insns;

	for (c = 0; c < 2; c++) {
		const int only[2] = {c == 0, c == 1};

		for (i = 0, insns = 0; i < (long long)f->nb; i++)
			insns += f->b[i].insns * f->b[i].exec[c];
		OK(query_insert(df, "INSERT INTO block_values VALUES(?,'insns',-1,?,?,?)", "ttii",
				f->name, cache[c], insns, count(only, -1)));
		OK(query_insert(df, "INSERT INTO block_contexts VALUES(?,56,-1,?,?,?)", "ttii",
				f->name, cache[c], count(only, -1), insns * count(only, -1)));
	}
	OK(query_insert(df, "INSERT INTO block_funcs VALUES(?,?,?,?,?,0,'')", "tiiii", f->name,
			at(f, 0), block_end(f, f->nb - 1) - at(f, 0), count(one, -1),
			count(one, -1)));
	for (r = 0; r < RUNS; r++)
		OK(query_insert(df, "INSERT INTO block_run_calls VALUES(?,?,?,?,0)", "tiii",
				f->name, r, count(one, r), count(one, r)));
}

static void fill_inline(struct datafile *df, const struct fx_func *f)
{
	char ranges[64];

	snprintf(ranges, sizeof(ranges), "0x%llx-0x%llx", (unsigned long long)at(f, 0),
		 (unsigned long long)block_end(f, f->nb - 1));
	OK(query_insert(df, "INSERT INTO block_inlines VALUES(?,?,?,'mm/slub.c',1902,?,?)", "tttit",
			f->name, f->name, f->parent, at(f, 0), ranges));
}

static void fill_side(struct datafile *df)
{
	const struct fx_func *f;
	size_t i;

	fill_meta(df);
	for (i = 0; i < filling->nfuncs; i++) {
		f = &filling->funcs[i];
		fill_blocks(df, f);
		fill_edges(df, f);
		fill_loops(df, f);
		fill_calls(df, f);
		if (f->parent)
			fill_inline(df, f);
	}
}

/* The same recording as record wrote it before schema 7: the newer tables dropped. */
static void fill_schema6(struct datafile *df)
{
	fill_side(df);
	OK(query_exec(df, "DROP TABLE block_inlines; DROP TABLE block_bounds;"
			  " DROP TABLE block_bound_values; DROP TABLE block_contexts;"
			  " DROP TABLE block_runs; DROP TABLE block_run_edges;"
			  " DROP TABLE block_run_calls; PRAGMA user_version = 6"));
}

/* A recording without --blocks. */
static void fill_nodata(struct datafile *df)
{
	fill_meta(df);
}

/* The recording fill writes, at a name of its own in the fixture's directory (the outputs show it).
 */
static void make(struct fx_side *s, char *path, const char *what, void (*fill)(struct datafile *df))
{
	char tmpl[256];

	snprintf(tmpl, sizeof(tmpl), "%s/%s%s-XXXXXX", fx.dir, s->name, what);
	snprintf(path, sizeof(s->data), "%s/%s%s.data", fx.dir, s->name, what);
	filling = s;
	tu_recording(tmpl, fill);
	OK(rename(tmpl, path));
}

static int build(struct fx_side *s)
{
	char dir[192], src[256];

	snprintf(dir, sizeof(dir), "%s/%s", fx.dir, s->name);
	snprintf(src, sizeof(src), "%s/slub.s", dir);
	snprintf(s->vmlinux, sizeof(s->vmlinux), "%s/vmlinux", dir);
	if (tu_run("mkdir -p '%s'", dir) || tu_write_file(src, s->src) ||
	    tu_run("cd '%s' && cc -nostdlib -static -Wl,--build-id -Wl,-Ttext=0xffffffff81000000"
		   " -Wl,-e,_stext slub.s -o vmlinux 2>/dev/null",
		   dir) ||
	    tu_each_line(nm_line, s, "nm '%s'", s->vmlinux) ||
	    elfsym_build_id(s->vmlinux, s->bid, sizeof(s->bid)))
		return -1;
	make(s, s->data, "", fill_side);
	make(s, s->schema6, "-schema6", fill_schema6);
	make(s, s->nodata, "-nodata", fill_nodata);
	return 0;
}

static int setup(void **state)
{
	if (tu_mkdtemp(fx.dir, sizeof(fx.dir), "kp-diff-blocks"))
		return -1;
	fx.built = !build(&fx.s[0]) && !build(&fx.s[1]);
	return 0;
}

static int teardown(void **state)
{
	if (*fx.dir && !getenv("KEEP"))
		tu_run("rm -rf '%s'", fx.dir);
	return 0;
}

static void need(void)
{
	tu_need_built(fx.built, "cc, as and nm");
}

/* diff --blocks with both vmlinux files and the options given, its output masked. */
static void golden(const char *name, const char *base, const char *hard, char **opts)
{
	char *argv[16] = {"diff",	   "--blocks",		 "--vmlinux-base",
			  fx.s[0].vmlinux, "--vmlinux-hardened", fx.s[1].vmlinux};
	const char *const mask[] = {fx.dir,	 "DIR",	    fx.s[0].bid, "BASE-ID",
				    fx.s[1].bid, "HARD-ID", NULL};
	int n = 6;
	char *out;

	while (opts && *opts)
		argv[n++] = *opts++;
	argv[n++] = (char *)base;
	argv[n++] = (char *)hard;
	argv[n] = NULL;
	out = tu_output(cmd_diff, argv);
	tu_golden_mask(name, out, mask);
	free(out);
}

static void test_text(void **state)
{
	need();
	golden("diff-blocks-text", fx.s[0].data, fx.s[1].data, NULL);
}

static void test_json(void **state)
{
	char *opts[] = {"--json", NULL};

	need();
	golden("diff-blocks-json", fx.s[0].data, fx.s[1].data, opts);
	/* strict JSON, as a script reads it */
	OK(tu_run("python3 -c 'import json, sys; json.load(open(sys.argv[1]))'"
		  " tests/unit/golden/diff-blocks-json"));
}

/* A function of one side only: the inline instance the base kernel does not have. */
static void test_one_side(void **state)
{
	char *opts[] = {"--func", "shuffle_freelist", "-n", "3", NULL};

	need();
	golden("diff-blocks-one-side", fx.s[0].data, fx.s[1].data, opts);
}

/* A schema-6 base: counts without runs (Poisson intervals), no bounds to name a cause. */
static void test_schema6(void **state)
{
	char *opts[] = {"--func", "allocate_slab", NULL};

	need();
	golden("diff-blocks-schema6", fx.s[0].schema6, fx.s[1].data, opts);
}

/* No vmlinux found for the base (its build-id is the fixture's): no lines to match. */
static void test_no_lines(void **state)
{
	char *argv[] = {
		"diff",	      "--blocks", "--vmlinux-hardened", fx.s[1].vmlinux, fx.s[0].data,
		fx.s[1].data, NULL};
	const char *const mask[] = {fx.dir,	 "DIR",	    fx.s[0].bid, "BASE-ID",
				    fx.s[1].bid, "HARD-ID", NULL};
	char *out;

	need();
	setenv("XDG_CACHE_HOME", "/nonexistent", 1);
	out = tu_output(cmd_diff, argv);
	unsetenv("XDG_CACHE_HOME");
	tu_golden_mask("diff-blocks-no-lines", out, mask);
	free(out);
}

static void test_errors(void **state)
{
	char *nodata[] = {"diff", "--blocks", fx.s[0].nodata, fx.s[1].data, NULL};
	char *absent[] = {"diff", "--blocks", "--func", "nope", fx.s[0].data, fx.s[1].data, NULL};
	char *func[] = {"diff", "--func", "nope", fx.s[0].data, fx.s[1].data, NULL};
	char *folded[] = {"diff", "--blocks", "--folded", fx.s[0].data, fx.s[1].data, NULL};
	char want[1024];

	need();
	snprintf(want, sizeof(want),
		 "kprotperf diff: %s has no --blocks data (record it with record --blocks FUNC)\n",
		 fx.s[0].nodata);
	tu_expect(cmd_diff, nodata, 2, 1, want);
	snprintf(want, sizeof(want),
		 "kprotperf diff: neither %s nor %s has --blocks data for nope\n", fx.s[0].data,
		 fx.s[1].data);
	tu_expect(cmd_diff, absent, 2, 1, want);
	tu_expect(cmd_diff, func, 2, 2,
		  "kprotperf diff: --func goes with --blocks (see kprotperf diff --help)\n");
	tu_expect(cmd_diff, folded, 2, 2,
		  "kprotperf diff: --blocks and --folded are two different outputs: choose one"
		  " (see kprotperf diff --help)\n");
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_text),	 cmocka_unit_test(test_json),
		cmocka_unit_test(test_one_side), cmocka_unit_test(test_schema6),
		cmocka_unit_test(test_no_lines), cmocka_unit_test(test_errors),
	};

	return cmocka_run_group_tests(tests, setup, teardown);
}
