// SPDX-License-Identifier: GPL-2.0-only
/*
 * The machine model's raw table read as untrusted input (model/table.c), and
 * kprotperf inject --model end to end on a recording made here as record
 * --model makes one: merged, read back per function, refused for another
 * kernel build or a second time, the file left as it was when refused.
 */
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "cmd/cmds.h"
#include "data/datafile.h"
#include "data/model.h"
#include "system/provenance.h"
#include "data/recording.h"
#include "model/model_inject.h"
#include "model/table.h"
#include "testutil.h"

#define HEAD                                                                               \
	"# kp_model 1\n# kernel_build_id abcd\n# mode cache\n# count insn\n# qemu 1:7.2\n" \
	"# window complete\n# windows opened 1 closed 1 restarts 0 stray_stops 0\n"        \
	"# geom 0 i1=32768:8:64 d1=32768:8:64 ll=8388608:16:64\n# iaddr physical\n"        \
	"# columns pc insns i1_miss.0 d1_read.0 d1_read_miss.0 d1_write.0 d1_write_miss.0 ll_miss.0\n"
#define ROWS "0x401000 10 1 2 1 0 0 1\n0x401010 5 0 0 0 3 1 0\nffffffff81000100 0 0 0 0 0 0 0\n"
#define KROW "0xffffffff81000100 7 0 4 2 0 0 2\n"

static char dir[64];

static const char *file(const char *name, const char *text)
{
	static char path[128];
	FILE *f;

	snprintf(path, sizeof(path), "%s/%s", dir, name);
	f = fopen(path, "w");
	assert_non_null(f);
	fputs(text, f);
	fclose(f);
	return path;
}

static int count_row(const struct model_table_row *r, void *ctx)
{
	unsigned long long *sum = ctx;

	sum[0]++;
	sum[1] += r->insns;
	sum[2] += r->v[MODEL_LL_MISSES];
	return 0;
}

/* A table that must be refused, and the reason it must be refused with, word for word. */
struct bad_table {
	const char *text, *why;
};

/* Each of the n tables refused as not the model's (-EBADMSG), why saying so; fn sums rows. */
static void tables_refused(const struct bad_table *bad, size_t n, model_table_fn fn)
{
	unsigned long long sum[4] = {0};
	struct model_table t;
	char why[256];
	size_t i;

	for (i = 0; i < n; i++) {
		assert_int_equal(
			model_table_read(file("t", bad[i].text), &t, fn, sum, why, sizeof(why)),
			-EBADMSG);
		assert_string_equal(why, bad[i].why);
	}
}

static void test_table_good(void **state)
{
	unsigned long long sum[3] = {0};
	struct model_table t;
	char why[256];

	assert_int_equal(model_table_read(file("t", HEAD "0x401000 10 1 2 1 0 0 1\n" KROW), &t,
					  count_row, sum, why, sizeof(why)),
			 0);
	assert_string_equal(t.mode, "cache");
	assert_string_equal(t.kernel, "abcd");
	assert_int_equal(t.ngeom, 1);
	assert_int_equal(t.geom[0].cache[2][0], 8388608);
	assert_int_equal(t.opened, 1);
	assert_int_equal(sum[0], 2);
	assert_int_equal(sum[1], 17);
	assert_int_equal(sum[2], 3);
}

/* Each bad table refused with why naming what is wrong. */
static void test_table_bad(void **state)
{
	static const struct bad_table bad[] = {
		{"# kp_model 3\n",
		 "not a table of kprotperf's machine model (no '# kp_model 1' or '2' line)"},
		{HEAD "0x401010 1 0 0 0 0 0 0\n0x401000 1 0 0 0 0 0 0\n",
		 "line 12 is not what the model writes there"},
		{HEAD "0x401000 1 0 0 0 0 0\n", "line 11 is not what the model writes there"},
		{HEAD "0x401000 1 0 0 0 0 0 0 0\n", "line 11 is not what the model writes there"},
		{HEAD "0x401000 1099511627777 0 0 0 0 0 0\n",
		 "line 11 is not what the model writes there"},
		{HEAD "0x401000 1 0 0 0 0 0 -1\n", "line 11 is not what the model writes there"},
		{HEAD "0x401000 1 0 0 0 0 0 0", "line 11 is not what the model writes there"},
		{HEAD "0x401000 1 0 0 0 0 0 0\n# window none\n",
		 "line 12 is not what the model writes there"},
		{"# kp_model 1\n# mode cache\n# qemu 7\n# window complete\n"
		 "# geom 0 i1=24576:8:64 d1=32768:8:64 ll=8388608:16:64\n",
		 "line 5 is not what the model writes there"},
		{"# kp_model 1\n# mode insns\n# qemu 7\n# window complete\n# columns pc insns"
		 " i1_miss.0 d1_read.0 d1_read_miss.0 d1_write.0 d1_write_miss.0 ll_miss.0\n",
		 "line 5 is not what the model writes there"},
		{"# kp_model 1\n# mode insns\n# qemu 7\n0x1 1\n",
		 "the header has no columns line matching its geometries"},
		{"# kp_model 1\n# mode cycles\n", "line 2 is not what the model writes there"},
	};

	tables_refused(bad, sizeof(bad) / sizeof(bad[0]), count_row);
}

/* A recording as record --model leaves it: meta, kernel symbols, a user one. */
static const char *recording(const char *name)
{
	static char path[128];
	struct datafile *df;
	char why[256];

	snprintf(path, sizeof(path), "%s/%s", dir, name);
	unlink(path);
	assert_int_equal(datafile_create(&df, path, (uid_t)-1, why, sizeof(why)), 0);
	tu_model_awaiting(df);
	assert_int_equal(recording_put_ksym(df, 0xffffffff81000100ULL, "kfunc", ""), 0);
	assert_int_equal(recording_put_ksym(df, 0xffffffff81000200ULL, "unused", ""), 0);
	assert_int_equal(recording_put_ksym(df, 0xffffffff81000300ULL, "kslow", ""), 0);
	assert_int_equal(model_put_usym(df, 0x401000, 0x20, "ufunc", "/bin/prog"), 0);
	assert_int_equal(datafile_commit(df, (uid_t)-1, (gid_t)-1, why, sizeof(why)), 0);
	return path;
}

static int func_row(const struct model_row *r, void *ctx)
{
	char *out = ctx;

	snprintf(out + strlen(out), 512 - strlen(out), "%s %s %llu %llu %llu;", r->name, r->module,
		 (unsigned long long)r->insns, (unsigned long long)r->v[MODEL_D1_READ_MISSES],
		 (unsigned long long)r->v[MODEL_LL_MISSES]);
	return 0;
}

static void test_inject(void **state)
{
	const char *data = recording("k.data");
	char why[256], got[512] = "", table[128];
	struct datafile *df;

	snprintf(table, sizeof(table), "%s",
		 file("m.txt", HEAD "0x401000 10 1 2 1 0 0 1\n"
				    "0x401010 5 0 0 0 3 1 0\n" KROW));
	assert_int_equal(model_inject(table, data, why, sizeof(why)), 0);
	assert_int_equal(datafile_open(&df, data, why, sizeof(why)), 0);
	assert_string_equal(datafile_meta(df, "model.state"), "counted");
	assert_string_equal(datafile_meta(df, "model.window"), "complete");
	assert_int_equal(model_functions(df, 0, func_row, got), 0);
	assert_string_equal(got, "ufunc /bin/prog 15 1 1;kfunc [kernel] 7 2 2;");
	datafile_close(df);
	/* the unused kernel symbol pruned, _stext kept */
	assert_int_equal(tu_run("test \"$(sqlite3 %s 'SELECT group_concat(name) FROM "
				"(SELECT name FROM ksyms ORDER BY addr)')\" = _stext,kfunc",
				data),
			 0);
	assert_int_equal(model_inject(table, data, why, sizeof(why)), -EEXIST);
	assert_string_equal(why, "it holds the model's counts already");
}

/* inject of the table text into data refused with err and why want, data left as it was */
static void inject_refused(const char *data, const char *text, int err, const char *want)
{
	char why[256], copy[160];

	snprintf(copy, sizeof(copy), "%s.orig", data);
	assert_int_equal(tu_run("cp %s %s", data, copy), 0);
	assert_int_equal(model_inject(file("bad.txt", text), data, why, sizeof(why)), err);
	assert_string_equal(why, want);
	assert_int_equal(tu_run("cmp -s %s %s", data, copy), 0);
}

static void test_inject_refused(void **state)
{
	const char *data = recording("k.data");

	inject_refused(data,
		       "# kp_model 1\n# kernel_build_id ef01\n# mode insns\n# qemu 7\n"
		       "# window complete\n# windows opened 1 closed 1 restarts 0 stray_stops 0\n"
		       "# columns pc insns\n",
		       -EINVAL,
		       "the table counted kernel build ef01, the recording was made on abcd: merge"
		       " the table of the boot that made the recording");
	inject_refused(data,
		       "# kp_model 1\n# kernel_build_id abcd\n# mode insns\n# qemu 7\n"
		       "# window complete\n# windows opened 2 closed 2 restarts 0 stray_stops 0\n"
		       "# columns pc insns\n",
		       -EINVAL,
		       "the table counted 2 windows, the recording opened 1: other windows"
		       " (model-window, another record --model) ran in that boot");
}

/* Three cache geometries, as vm-run.sh --D1/--LL repeated writes them */
#define G32_8M "i1=32768:8:64 d1=32768:8:64 ll=8388608:16:64"
#define G16_8M "i1=32768:8:64 d1=16384:8:64 ll=8388608:16:64"
#define G32_1M "i1=32768:8:64 d1=32768:8:64 ll=1048576:16:64"
#define G8_8M  "i1=32768:8:64 d1=8192:8:64 ll=8388608:16:64"

/* A recording named name with the counts of a sweep merged: geometries and rows as the plugin
 * writes. */
static const char *sweep(const char *name, const char *const *geoms, unsigned int n,
			 const char *rows)
{
	static char path[128];
	char text[4096], why[256];
	size_t len = snprintf(text, sizeof(text),
			      "# kp_model 1\n# kernel_build_id abcd\n# mode cache\n# qemu 7\n"
			      "# window complete\n# windows opened 1 closed 1 restarts 0"
			      " stray_stops 0\n");
	unsigned int g;

	for (g = 0; g < n; g++)
		len += snprintf(text + len, sizeof(text) - len, "# geom %u %s\n", g, geoms[g]);
	len += snprintf(text + len, sizeof(text) - len, "# columns pc insns");
	for (g = 0; g < n; g++)
		len += snprintf(text + len, sizeof(text) - len,
				" i1_miss.%u d1_read.%u d1_read_miss.%u d1_write.%u"
				" d1_write_miss.%u ll_miss.%u",
				g, g, g, g, g, g);
	snprintf(text + len, sizeof(text) - len, "\n%s", rows);
	snprintf(path, sizeof(path), "%s", recording(name));
	assert_int_equal(model_inject(file("sweep.txt", text), path, why, sizeof(why)), 0);
	return path;
}

/*
 * The base (side 0): D1 32K and 16K with an 8M LL, and D1 32K with a 1M
 * LL; the hardened (1): the base's 1M and 32K geometries in another order,
 * and D1 8K of its own.
 */
static const char *sweep_side(int side)
{
	static const char *const g[2][3] = {{G32_8M, G16_8M, G32_1M}, {G32_1M, G32_8M, G8_8M}};
	static const char *const rows[2] = {
		"0x401000 10 1 2 1 0 0 1 1 2 2 0 0 1 1 2 1 0 0 1\n"
		"0x401010 5 0 0 0 3 1 0 0 0 0 3 1 0 0 0 0 3 1 1\n"
		"0xffffffff81000100 700 10 400 20 100 5 3 10 400 40 100 9 3 10 400 20 100 5 9\n"
		"0xffffffff81000300 300 4 150 10 50 2 1 4 150 15 50 3 1 4 150 10 50 2 4\n",
		"0x401000 10 1 2 1 0 0 1 1 2 1 0 0 1 1 2 3 0 0 1\n"
		"0x401010 5 0 0 0 3 1 1 0 0 0 3 1 0 0 0 0 3 2 0\n"
		"0xffffffff81000100 760 12 430 30 110 6 14 12 430 30 110 6 4 12 430 70 110 12 4\n"
		"0xffffffff81000300 300 4 150 10 50 2 4 4 150 10 50 2 1 4 150 20 50 4 1\n",
	};

	return sweep(side ? "hard.data" : "base.data", g[side], 3, rows[side]);
}

/* report --model of a sweep: a line per geometry, kernel and user, text and JSON. */
static void test_sweep_report(void **state)
{
	const char *data = sweep_side(0);
	char *text[] = {"report", "--model", (char *)data, NULL};
	char *json[] = {"report", "--model", "--json", (char *)data, NULL};

	tu_golden_output("model-sweep-report", cmd_report, text);
	tu_golden_json("model-sweep-report", dir, cmd_report, json);
}

/* diff --model of two sweeps: geometries matched by value, each side's own listed as such. */
static void test_sweep_diff(void **state)
{
	char base[128], hard[128];

	snprintf(base, sizeof(base), "%s", sweep_side(0));
	snprintf(hard, sizeof(hard), "%s", sweep_side(1));
	{
		char *text[] = {"diff", "--model", base, hard, NULL};
		char *json[] = {"diff", "--model", "--json", base, hard, NULL};
		char *ll1m[] = {"diff", "--model", "--geom", "2", base, hard, NULL};
		char *d16k[] = {"diff", "--model", "--geom", "1", base, hard, NULL};

		tu_golden_output("model-sweep-diff", cmd_diff, text);
		tu_golden_json("model-sweep-diff", dir, cmd_diff, json);
		/* matched by size, ways and line, not by index; the kernel's change of each */
		assert_int_equal(
			tu_run("python3 -c 'import json, sys; d = json.load(open(sys.argv[1]));"
			       " g = d[\"geometries\"];"
			       " assert [(x[\"base_geometry\"], x[\"hardened_geometry\"],"
			       " x[\"only\"]) for x in g] == [(0, 1, None), (1, None, \"base\"),"
			       " (2, 0, None), (None, 2, \"hardened\")], g;"
			       " assert [x[\"kernel\"].get(\"delta_ll_misses\") for x in g]"
			       " == [1, None, 5, None], g' %s/out.json",
			       dir),
			0);
		/* the base's geometry 2 is the hardened's 0: its functions by misses */
		tu_golden_output("model-sweep-diff-geom2", cmd_diff, ll1m);
		/* the base's geometry 1 is not in the hardened recording: by instructions */
		tu_golden_output("model-sweep-diff-geom1", cmd_diff, d16k);
	}
}

/* One geometry on each side: diff and report as before sweeps, no table of geometries. */
static void test_sweep_one(void **state)
{
	static const char *const g[] = {G32_8M};
	char base[128], hard[128], *out;

	snprintf(base, sizeof(base), "%s",
		 sweep("one-base.data", g, 1, "0xffffffff81000100 700 10 400 20 100 5 3\n"));
	snprintf(hard, sizeof(hard), "%s",
		 sweep("one-hard.data", g, 1, "0xffffffff81000100 760 12 430 30 110 6 4\n"));
	{
		char *diff[] = {"diff", "--model", base, hard, NULL};
		char *report[] = {"report", "--model", base, NULL};

		out = tu_output(cmd_diff, diff);
		assert_null(strstr(out, "per cache geometry"));
		assert_non_null(strstr(out, "\n           700            760 "));
		free(out);
		out = tu_output(cmd_report, report);
		assert_null(strstr(out, "per cache geometry"));
		free(out);
	}
}

/* ---- format 2: TLBs, events, est_cycles (fixtures in tests/unit/model/) ---- */

#define FIX   "tests/unit/model/"
#define COSTS FIX "costs.json"

/* A recording of a kernel with the mitigations' symbols, awaiting the model's counts. */
static const char *recording2(const char *name)
{
	static const struct {
		__u64 addr;
		const char *name;
	} ks[] = {
		{0xffffffff81000000ULL, "_stext"},
		{0xffffffff81000100ULL, "entry_SYSCALL_64"},
		{0xffffffff81000200ULL, "kfunc"},
		{0xffffffff81000300ULL, "__x86_indirect_thunk_rax"},
		{0xffffffff81000320ULL, "__x86_indirect_thunk_rcx"},
		{0xffffffff81000340ULL, "__x86_return_thunk"},
		{0xffffffff81000400ULL, "flush_tlb_one"},
	};
	static char path[128];
	struct kv_list meta = {};
	struct datafile *df;
	char why[256];
	size_t i;

	snprintf(path, sizeof(path), "%s/%s", dir, name);
	unlink(path);
	assert_int_equal(datafile_create(&df, path, (uid_t)-1, why, sizeof(why)), 0);
	assert_int_equal(kv_add(&meta, "kernel.build_id", "abcd"), 0);
	assert_int_equal(kv_add(&meta, "model.windows", "1"), 0);
	assert_int_equal(kv_add(&meta, "model.state", "awaiting"), 0);
	assert_int_equal(recording_put_meta(df, &meta), 0);
	for (i = 0; i < sizeof(ks) / sizeof(ks[0]); i++)
		assert_int_equal(recording_put_ksym(df, ks[i].addr, ks[i].name, ""), 0);
	assert_int_equal(model_put_usym(df, 0x401000, 0x20, "ufunc", "/bin/prog"), 0);
	assert_int_equal(datafile_commit(df, (uid_t)-1, (gid_t)-1, why, sizeof(why)), 0);
	kv_list_free(&meta);
	return path;
}

/* recording2 with table (a fixture) merged */
static const char *merged2(const char *name, const char *table)
{
	const char *path = recording2(name);
	char why[256];

	assert_int_equal(model_inject(table, path, why, sizeof(why)), 0);
	return path;
}

/* Per row: flushes, and the executions of a kind. */
static int sum2_row(const struct model_table_row *r, void *ctx)
{
	unsigned long long *sum = ctx;

	sum[0]++;
	sum[1] += r->flushes;
	sum[2] += r->kind >= 0 ? r->insns : 0;
	sum[3] += r->tlb ? r->tlb[0] + r->tlb[1] : 0;
	return 0;
}

static void test_table2_good(void **state)
{
	unsigned long long sum[4] = {0};
	struct model_table t;
	char why[256];

	assert_int_equal(
		model_table_read(FIX "table2-base.txt", &t, sum2_row, sum, why, sizeof(why)), 0);
	assert_int_equal(t.format, 2);
	assert_string_equal(t.guest_pti, "1");
	assert_string_equal(t.guest_pcid, "0");
	assert_int_equal(t.geom[0].tlb[0][0], 128);
	assert_int_equal(t.geom[0].tlb[1][1], 4);
	assert_int_equal(sum[0], 16);
	assert_int_equal(sum[1], 48);
	assert_int_equal(sum[2], 20 + 400 + 180 + 20 + 25 + 8);
	assert_int_equal(sum[3], 1 + 2 + 3 + 5 + 4 + 36 + 1);
	memset(sum, 0, sizeof(sum));
	assert_int_equal(
		model_table_read(FIX "table2-insns.txt", &t, sum2_row, sum, why, sizeof(why)), 0);
	assert_int_equal(t.format, 2);
	assert_int_equal(t.ngeom, 0);
	assert_string_equal(t.guest_pcid, "unknown");
	assert_int_equal(sum[1], 48);
	assert_int_equal(sum[3], 0);
}

#define HEAD2_TOP                                                                           \
	"# kp_model 2\n# kernel_build_id abcd\n# mode cache\n# qemu 7\n# window complete\n" \
	"# windows opened 1 closed 1 restarts 0 stray_stops 0\n"                            \
	"# geom 0 i1=32768:8:64 d1=32768:8:64 ll=8388608:16:64\n"
#define COLS2_WORDS                                                                   \
	"# columns pc insns ev flushes i1_miss.0 d1_read.0 d1_read_miss.0 d1_write.0" \
	" d1_write_miss.0 ll_miss.0"
#define COLS2 COLS2_WORDS " itlb_miss.0 dtlb_miss.0\n"
#define HEAD2 HEAD2_TOP "# tlb 0 itlb=128:8 dtlb=64:4\n# guest pti 0 pcid 1\n" COLS2

/* Each bad table of format 2 refused with why naming what is wrong. */
static void test_table2_bad(void **state)
{
	static const struct bad_table bad[] = {
		/* a TLB geometry that is not a power of two, ways above entries, none */
		{HEAD2_TOP "# tlb 0 itlb=96:8 dtlb=64:4\n",
		 "line 8 is not what the model writes there"},
		{HEAD2_TOP "# tlb 0 itlb=128:8 dtlb=4:8\n",
		 "line 8 is not what the model writes there"},
		{HEAD2_TOP "# tlb 1 itlb=128:8 dtlb=64:4\n",
		 "line 8 is not what the model writes there"},
		{HEAD2_TOP COLS2 "0x1 1 - 0 0 0 0 0 0 0 0 0\n", "geometry 0 has no '# tlb 0' line"},
		/* format 1's columns in a table of format 2, and the reverse */
		{HEAD2_TOP "# tlb 0 itlb=128:8 dtlb=64:4\n# columns pc insns i1_miss.0 d1_read.0"
			   " d1_read_miss.0 d1_write.0 d1_write_miss.0 ll_miss.0\n",
		 "line 9 is not what the model writes there"},
		{"# kp_model 1\n# mode insns\n# qemu 7\n# window complete\n# columns pc insns ev"
		 " flushes\n",
		 "line 5 is not what the model writes there"},
		{"# kp_model 1\n# guest pti 1 pcid 1\n",
		 "line 2 is not what the model writes there"},
		{HEAD2_TOP "# guest pti yes pcid 1\n", "line 8 is not what the model writes there"},
		/* a kind not on the list, flushes by what does not flush, more than executed */
		{HEAD2 "0x1 1 nop 0 0 0 0 0 0 0 0 0\n",
		 "line 11 is not what the model writes there"},
		{HEAD2 "0x1 5 lfence 1 0 0 0 0 0 0 0 0\n",
		 "line 11 is not what the model writes there"},
		{HEAD2 "0x1 5 mov_cr3 6 0 0 0 0 0 0 0 0\n",
		 "line 11 is not what the model writes there"},
		/* a TLB count missing, one too many, one beyond 2^40 */
		{HEAD2 "0x1 5 - 0 0 0 0 0 0 0 0\n", "line 11 is not what the model writes there"},
		{HEAD2 "0x1 5 - 0 0 0 0 0 0 0 0 0 0\n",
		 "line 11 is not what the model writes there"},
		{HEAD2 "0x1 5 - 0 0 0 0 0 0 0 0 1099511627777\n",
		 "line 11 is not what the model writes there"},
	};

	tables_refused(bad, sizeof(bad) / sizeof(bad[0]), sum2_row);
}

#define PATCHED "# patched sites 2 dropped 3\n"
#define RUN1	"# running 0xffffffff81000100 f0480fc70e\n"
#define RUN2	"# running 0xffffffff81000200 90\n"

/* The running bytes of patched sites (the plugin's '# patched' and '# running' lines). */
static int sum_running(const struct model_table_running *r, void *ctx)
{
	unsigned long long *sum = ctx;
	unsigned int i;

	sum[0]++;
	for (i = 0; i < r->len; i++)
		sum[1] = sum[1] * 256 + r->b[i];
	sum[2] += r->len;
	return 0;
}

static const struct model_table_fns running_fns = {.running = sum_running};

static void test_table2_running(void **state)
{
	static const struct bad_table bad[] = {
		/* before '# patched', beyond its count, fewer than it, twice, in format 1 */
		{HEAD2_TOP RUN1, "line 8 is not what the model writes there"},
		{HEAD2_TOP PATCHED RUN1 RUN2 RUN2, "line 11 is not what the model writes there"},
		{HEAD2_TOP PATCHED RUN1 "# tlb 0 itlb=128:8 dtlb=64:4\n" COLS2
					"0x1 1 - 0 0 0 0 0 0 0 0 0\n",
		 "the header says 2 patched sites and lists 1"},
		{HEAD2_TOP PATCHED PATCHED, "line 9 is not what the model writes there"},
		{"# kp_model 1\n# patched sites 0 dropped 0\n",
		 "line 2 is not what the model writes there"},
		/* a count above 2^18, a word missing */
		{HEAD2_TOP "# patched sites 262145 dropped 0\n",
		 "line 8 is not what the model writes there"},
		{HEAD2_TOP "# patched sites 1\n", "line 8 is not what the model writes there"},
		/* out of order, a user PC, no bytes, 16 bytes, odd, uppercase, junk after */
		{HEAD2_TOP PATCHED RUN2 RUN1, "line 10 is not what the model writes there"},
		{HEAD2_TOP PATCHED "# running 0x401000 90\n",
		 "line 9 is not what the model writes there"},
		{HEAD2_TOP PATCHED "# running 0xffffffff81000100 \n",
		 "line 9 is not what the model writes there"},
		{HEAD2_TOP PATCHED
		 "# running 0xffffffff81000100 00112233445566778899aabbccddeeff\n",
		 "line 9 is not what the model writes there"},
		{HEAD2_TOP PATCHED "# running 0xffffffff81000100 909\n",
		 "line 9 is not what the model writes there"},
		{HEAD2_TOP PATCHED "# running 0xffffffff81000100 F0\n",
		 "line 9 is not what the model writes there"},
		{HEAD2_TOP PATCHED "# running 0xffffffff81000100 90 90\n",
		 "line 9 is not what the model writes there"},
		/* after a row */
		{HEAD2 "0x1 1 - 0 0 0 0 0 0 0 0 0\n" PATCHED,
		 "line 12 is not what the model writes there"},
	};
	static const char good[] = HEAD2_TOP PATCHED RUN1 RUN2
		"# tlb 0 itlb=128:8 dtlb=64:4\n# guest pti 0 pcid 1\n" COLS2
		"0x1 1 - 0 0 0 0 0 0 0 0 0\n";
	unsigned long long sum[3] = {0};
	struct model_table t;
	char why[256];

	tables_refused(bad, sizeof(bad) / sizeof(bad[0]), sum2_row);
	assert_int_equal(
		model_table_read_fns(file("t", good), &t, &running_fns, sum, why, sizeof(why)), 0);
	assert_true(t.has_patched);
	assert_int_equal(t.patched_sites, 2);
	assert_int_equal(t.patched_dropped, 3);
	assert_int_equal(sum[0], 2);
	assert_int_equal(sum[2], 6);
	assert_int_equal(sum[1] & 0xffff, 0x0e90);
}

/* inject of running bytes: model_running in hex, the meta saying how many were seen */
static void test_inject_running(void **state)
{
	const char *data = recording2("k3.data");
	struct datafile *df;
	char why[256];

	assert_int_equal(model_inject(file("run.txt", HEAD2_TOP PATCHED RUN1 RUN2
					   "# tlb 0 itlb=128:8 dtlb=64:4\n" COLS2
					   "0x1 1 - 0 0 0 0 0 0 0 0 0\n"),
				      data, why, sizeof(why)),
			 0);
	assert_int_equal(datafile_open(&df, data, why, sizeof(why)), 0);
	assert_string_equal(datafile_meta(df, "model.patched_sites"), "2");
	assert_string_equal(datafile_meta(df, "model.patched_dropped"), "3");
	datafile_close(df);
	assert_int_equal(tu_run("test \"$(sqlite3 %s 'SELECT printf(\"%%x\", pc), code FROM"
				" model_running ORDER BY pc')\" = 'ffffffff81000100|f0480fc70e\n"
				"ffffffff81000200|90'",
				data),
			 0);
}

/* inject of format 2: the new tables and meta, a bad table leaving the file as it was */
static void test_inject2(void **state)
{
	const char *data = recording2("k2.data");
	struct datafile *df;
	char why[256];

	inject_refused(data, HEAD2 "0x1 5 - 0 0 0 0 0 0 0 0 x\n", -EBADMSG,
		       "line 11 is not what the model writes there");
	assert_int_equal(model_inject(FIX "table2-base.txt", data, why, sizeof(why)), 0);
	assert_int_equal(datafile_open(&df, data, why, sizeof(why)), 0);
	assert_string_equal(datafile_meta(df, "model.format"), "2");
	assert_string_equal(datafile_meta(df, "model.guest_pti"), "1");
	assert_string_equal(datafile_meta(df, "model.guest_pcid"), "0");
	assert_true(model_has_tlb(df, 0));
	datafile_close(df);
	assert_int_equal(
		tu_run("test \"$(sqlite3 %s 'SELECT count(*), sum(flushes), group_concat(kind)"
		       " FROM (SELECT * FROM model_events ORDER BY pc);"
		       " SELECT count(*), sum(itlb_misses), sum(dtlb_misses) FROM model_tlb;"
		       " SELECT * FROM model_tlbs')\" = '12|48|swapgs,mov_cr3,verw,sysret,call_ind,"
		       "lfence,ret,jmp_ind,ret,invlpg,call_ind,ret\n16|14|38\n0|128|8|64|4'",
		       data),
		0);
}

/* report --model of format 2, text and JSON whole; its totals checked against the formula */
static void test_report2(void **state)
{
	const char *data = merged2("r2.data", FIX "table2-base.txt");
	char *text[] = {"report", "--model", "--costs", COSTS, (char *)data, NULL};
	char *json[] = {"report", "--model", "--json", "--costs", COSTS, (char *)data, NULL};

	tu_golden_output("model-tlb-report", cmd_report, text);
	tu_golden_json("model-tlb-report", dir, cmd_report, json);
	/* by hand: docs/model.md's formula on the fixture's kernel and user PCs */
	assert_int_equal(
		tu_run("python3 -c 'import json, sys; d = json.load(open(sys.argv[1]));"
		       " k = d[\"totals\"][\"kernel\"]; u = d[\"totals\"][\"user\"];"
		       " assert d[\"tlb\"] and d[\"events\"], d;"
		       " assert (k[\"est_cycles\"], u[\"est_cycles\"]) == (100977, 309), (k, u);"
		       " assert [k[x] for x in (\"insns\", \"itlb_misses\", \"dtlb_misses\","
		       " \"cr3_writes\", \"tlb_flushes\", \"serializing\", \"indirect_branches\","
		       " \"returns\", \"retpolines\", \"return_thunks\")]"
		       " == [1193, 13, 36, 100, 48, 368, 100, 95, 30, 25], k;"
		       " f = {x[\"name\"]: x for x in d[\"functions\"]};"
		       " assert f[\"__x86_indirect_thunk_rcx\"][\"retpolines\"] == 0;"
		       " assert f[\"__x86_indirect_thunk_rcx\"][\"indirect_branches\"] == 20;"
		       " assert d[\"costs\"][\"path\"] == \"%s\"' %s/out.json",
		       COSTS, dir),
		0);
}

/* diff --model of two recordings of format 2, sorted by the change in est_cycles */
static void test_diff2(void **state)
{
	char base[128], hard[128];

	snprintf(base, sizeof(base), "%s", merged2("b2.data", FIX "table2-base.txt"));
	snprintf(hard, sizeof(hard), "%s", merged2("h2.data", FIX "table2-hard.txt"));
	{
		char *text[] = {"diff", "--model", "--sort", "est", "--costs",
				COSTS,	base,	   hard,     NULL};
		char *json[] = {"diff",	   "--model", "--json", "--sort", "est",
				"--costs", COSTS,     base,	hard,	  NULL};

		tu_golden_output("model-tlb-diff", cmd_diff, text);
		tu_golden_json("model-tlb-diff", dir, cmd_diff, json);
		/* entry_SYSCALL_64: 100 more CR3 writes (x 200), 40 more flushes (x 300), +14
		 * I-TLB and +10 D-TLB misses (x 20, x 25), 100 more instructions (x 0.5) */
		assert_int_equal(
			tu_run("python3 -c 'import json, sys; d = json.load(open(sys.argv[1]));"
			       " f = d[\"functions\"][0];"
			       " assert (f[\"name\"], f[\"delta_est_cycles\"], f[\"delta_cr3_writes\"])"
			       " == (\"entry_SYSCALL_64\", 32580, 100), f;"
			       " t = d[\"totals\"][0];"
			       " assert (t[\"module\"], t[\"delta_itlb_misses\"], t[\"delta_dtlb_misses\"])"
			       " == (\"kernel\", 26, 40), t' %s/out.json",
			       dir),
			0);
	}
}

/* folded --model est, itlb and dtlb: whole outputs */
static void test_folded2(void **state)
{
	const char *data = merged2("f2.data", FIX "table2-base.txt");
	char *est[] = {"folded", "--model", "est", "--costs", COSTS, (char *)data, NULL};
	char *itlb[] = {"folded", "--model", "itlb", "-K", (char *)data, NULL};
	char *dtlb[] = {"folded", "--model", "dtlb", (char *)data, NULL};

	tu_expect(cmd_folded, est, 1, 0,
		  "[kernel];kfunc 4080\n[kernel];entry_SYSCALL_64 90585\n"
		  "[kernel];__x86_indirect_thunk_rax 1230\n/bin/prog;ufunc 309\n"
		  "[kernel];__x86_return_thunk 1163\n[kernel];__x86_indirect_thunk_rcx 50\n"
		  "[kernel];flush_tlb_one 3869\n");
	tu_expect(cmd_folded, itlb, 1, 0, "[kernel];kfunc 6\n[kernel];entry_SYSCALL_64 7\n");
	tu_expect(cmd_folded, dtlb, 1, 0,
		  "[kernel];kfunc 30\n[kernel];entry_SYSCALL_64 5\n/bin/prog;ufunc 2\n"
		  "[kernel];flush_tlb_one 1\n");
	tu_expect(cmd_folded, est, 2, 0,
		  "kprotperf folded: est_cycles is an estimate (costs: unit-test costs (made-up"
		  " numbers), " COSTS ")\n");
}

/*
 * Made without a TLB: a table of format 1 (no TLB, no events) and one of
 * mode insns (events, no TLB) say so in a line, null in JSON, never zeros.
 */
static void test_no_tlb(void **state)
{
	static const char *const g[] = {G32_8M};
	char one[128], insns[128], two[128], want[256], *out;

	snprintf(one, sizeof(one), "%s",
		 sweep("f1.data", g, 1, "0xffffffff81000100 700 10 400 20 100 5 3\n"));
	snprintf(insns, sizeof(insns), "%s", merged2("i2.data", FIX "table2-insns.txt"));
	snprintf(two, sizeof(two), "%s", merged2("t2.data", FIX "table2-base.txt"));
	{
		char *r1[] = {"report", "--model", "--costs", COSTS, one, NULL};
		char *j1[] = {"report", "--model", "--json", "--costs", COSTS, one, NULL};
		char *ri[] = {"report", "--model", "--costs", COSTS, insns, NULL};
		char *ji[] = {"report", "--model", "--json", insns, NULL};
		char *d12[] = {"diff", "--model", "--costs", COSTS, one, two, NULL};
		char *f1[] = {"folded", "--model", "itlb", one, NULL};

		tu_golden_output("model-format1-report", cmd_report, r1);
		tu_golden_json("model-format1-report", dir, cmd_report, j1);
		assert_int_equal(
			tu_run("python3 -c 'import json, sys; d = json.load(open(sys.argv[1]));"
			       " k = d[\"totals\"][\"kernel\"];"
			       " assert not d[\"tlb\"] and not d[\"events\"], d;"
			       " assert k[\"itlb_misses\"] is None and k[\"cr3_writes\"] is None, k;"
			       " assert k[\"est_cycles\"] == 350 + 100 + 25 * 12 + 3 * 150, k' %s/out.json",
			       dir),
			0);
		tu_golden_output("model-insns2-report", cmd_report, ri);
		tu_golden_json("model-insns2-report", dir, cmd_report, ji);
		assert_int_equal(
			tu_run("python3 -c 'import json, sys; d = json.load(open(sys.argv[1]));"
			       " k = d[\"totals\"][\"kernel\"];"
			       " assert not d[\"tlb\"] and d[\"events\"], d;"
			       " assert k[\"itlb_misses\"] is None and k[\"cr3_writes\"] == 100, k;"
			       " assert k[\"est_cycles\"] is None and d[\"costs\"] is None, k' %s/out.json",
			       dir),
			0);
		/* a format-1 base against a format-2 hardened: no columns of what one lacks */
		tu_golden_output("model-format1-diff", cmd_diff, d12);
		snprintf(want, sizeof(want),
			 "kprotperf folded: %s: made without a TLB: no TLB misses\n", one);
		tu_expect(cmd_folded, f1, 2, 1, want);
		out = tu_output(cmd_report, (char *[]){"report", "--model", one, NULL});
		assert_non_null(strstr(out, "\n# made without a TLB and without events (a table of"
					    " format 1): no TLB misses, instruction kinds or"
					    " flushes\n"));
		free(out);
		/* a recording of schema 10, before TLBs: the same, its tables lacking read empty */
		assert_int_equal(
			tu_run("cp %s %s/s10.data && sqlite3 %s/s10.data 'DROP TABLE model_tlb;"
			       " DROP TABLE model_events; DROP TABLE model_tlbs;"
			       " PRAGMA user_version = 10'",
			       one, dir, dir),
			0);
		snprintf(want, sizeof(want), "%s/s10.data", dir);
		out = tu_output(cmd_report,
				(char *[]){"report", "--model", "--costs", COSTS, want, NULL});
		tu_golden("model-format1-report", out);
		free(out);
	}
}

/*
 * cmd on argv exits 1 after one line on stderr naming the cost table at
 * path, and shows nothing: the line's words are the cost tables' reader's.
 */
static void refused_costs(char **argv, const char *path)
{
	char want[256], *err, *out;
	int ret;

	err = tu_run_fd(cmd_report, argv, 2, &ret);
	assert_int_equal(ret, 1);
	snprintf(want, sizeof(want), "kprotperf: cost table %s: ", path);
	assert_true(!strncmp(err, want, strlen(want)));
	assert_true(strchr(err, '\n') == err + strlen(err) - 1);
	free(err);
	out = tu_run_fd(cmd_report, argv, 1, &ret);
	assert_string_equal(out, "");
	free(out);
}

/* A cost table that is not one (a cost missing, cut short, over 64 KiB): one line, nothing shown */
static void test_costs_bad(void **state)
{
	const char *data = merged2("c2.data", FIX "table2-base.txt");
	char bad[128], junk[128];
	char *argv[] = {"report", "--model", "--costs", bad, (char *)data, NULL};
	char *cut[] = {"report", "--model", "--costs", junk, (char *)data, NULL};
	char *big[] = {"report", "--model", "--costs", (char *)data, (char *)data, NULL};

	/* file() returns its own buffer: each path copied */
	snprintf(bad, sizeof(bad), "%s",
		 file("bad.json", "{\"kprotperf_costs\": 1, \"name\": \"x\", \"cpi\": 1,"
				  " \"costs\": {\"i1_miss\": 1}}\n"));
	snprintf(junk, sizeof(junk), "%s", file("junk.json", "{\"kprotperf_costs\": 1,"));
	refused_costs(argv, bad);
	refused_costs(cut, junk);
	refused_costs(big, data);
}

#define TIMING FIX "table3-timing.txt"
#define HEAD3_TOP                                                                            \
	"# kp_model 2\n# kernel_build_id abcd\n# mode timing\n# qemu 7\n# window complete\n" \
	"# windows opened 1 closed 1 restarts 0 stray_stops 0\n"                             \
	"# geom 0 i1=32768:8:64 d1=32768:8:64 ll=8388608:16:64\n"                            \
	"# tlb 0 itlb=128:8 dtlb=64:4\n"
#define CORE3 \
	"# timing core=ooo core.width=4 lat.dram=250 l2=524288:8:64 ev.lfence=60 ev.L1D-miss=3\n"
#define TOTAL3 "# timing insns 10 unknown 1 prefetches 2 cycles 100\n"
#define COLS3       \
	COLS2_WORDS \
	" itlb_miss.0 dtlb_miss.0 cycles cyc_base cyc_branch cyc_icache cyc_dcache cyc_tlb cyc_serialize\n"
#define HEAD3 HEAD3_TOP CORE3 TOTAL3 COLS3

/* Per row of mode timing: its cycles, and its stack's sum. */
static int sum3_row(const struct model_table_row *r, void *ctx)
{
	unsigned long long *sum = ctx;
	int i;

	sum[0] += r->cyc ? r->cyc[0] : 0;
	for (i = 1; r->cyc && i <= MODEL_CYCS; i++)
		sum[1] += r->cyc[i];
	return 0;
}

/* The fixture of mode timing: the core, its parameters as written, totals, cycles per row. */
static void test_timing_table_good(void **state)
{
	unsigned long long sum[2] = {0};
	struct model_table t;
	char why[256];

	assert_int_equal(model_table_read(TIMING, &t, sum3_row, sum, why, sizeof(why)), 0);
	assert_true(model_table_timing(&t));
	assert_string_equal(t.core, "skylake-ish");
	assert_true(!strncmp(t.timing, "core.width=4 core.window=224 ", 29));
	assert_true(tu_ends_with(t.timing, " stlb=2048:16 pf.l1_stride=1 ev.lfence=60"));
	assert_int_equal(t.core_insns, 1240);
	assert_int_equal(t.core_unknown, 3);
	assert_int_equal(t.prefetches, 17);
	assert_int_equal(t.cycles, 43839);
	assert_int_equal(sum[0], 43839);
	assert_int_equal(sum[1], 43838);
}

/* Each bad table of mode timing refused in one line naming the line or what lacks. */
static void test_timing_table_bad(void **state)
{
	static const struct bad_table bad[] = {
		/* a stack summing 7 short of its cycles; one summing 7 over */
		{HEAD3 "0x1 5 - 0 0 0 0 0 0 0 0 0 100 90 1 1 1 0 0\n",
		 "line 12: its cycle stack sums to 93, not to its 100 cycles (within 6)"},
		{HEAD3 "0x1 5 - 0 0 0 0 0 0 0 0 0 10 17 0 0 0 0 0\n",
		 "line 12: its cycle stack sums to 17, not to its 10 cycles (within 6)"},
		/* a timing line missing, or given twice */
		{HEAD3_TOP CORE3 COLS3 "0x1 5 - 0 0 0 0 0 0 0 0 0 0 0 0 0 0 0 0\n",
		 "mode timing without its '# timing core=' and '# timing insns' lines"},
		{HEAD3_TOP TOTAL3 COLS3, "mode timing without its '# timing core=' and '# timing"
					 " insns' lines"},
		{HEAD3_TOP CORE3 CORE3, "line 10 is not what the model writes there"},
		/* a negative cycle count, one beyond 2^40, a stack part missing, one too many */
		{HEAD3 "0x1 5 - 0 0 0 0 0 0 0 0 0 -5 0 0 0 0 0 0\n",
		 "line 12 is not what the model writes there"},
		{HEAD3 "0x1 5 - 0 0 0 0 0 0 0 0 0 1099511627777 1099511627777 0 0 0 0 0\n",
		 "line 12 is not what the model writes there"},
		{HEAD3 "0x1 5 - 0 0 0 0 0 0 0 0 0 1 1 0 0 0 0\n",
		 "line 12 is not what the model writes there"},
		{HEAD3 "0x1 5 - 0 0 0 0 0 0 0 0 0 1 1 0 0 0 0 0 0\n",
		 "line 12 is not what the model writes there"},
		/* totals beyond 2^50, negative, more unknown than seen, a word missing */
		{HEAD3_TOP CORE3
		 "# timing insns 1125899906842625 unknown 0 prefetches 0 cycles 0\n",
		 "line 10 is not what the model writes there"},
		{HEAD3_TOP CORE3 "# timing insns 10 unknown 0 prefetches -1 cycles 0\n",
		 "line 10 is not what the model writes there"},
		{HEAD3_TOP CORE3 "# timing insns 10 unknown 11 prefetches 0 cycles 0\n",
		 "line 10 is not what the model writes there"},
		{HEAD3_TOP CORE3 "# timing insns 10 unknown 1 cycles 0\n",
		 "line 10 is not what the model writes there"},
		/* a parameter not a number, huge, twice; a cache that is none; a word not KEY=VALUE
		 */
		{HEAD3_TOP "# timing core=ooo core.width=four\n",
		 "line 9 is not what the model writes there"},
		{HEAD3_TOP "# timing core=ooo lat.dram=2000000\n",
		 "line 9 is not what the model writes there"},
		{HEAD3_TOP "# timing core=ooo bp.ras=32 core.width=4 bp.ras=16\n",
		 "line 9 is not what the model writes there"},
		{HEAD3_TOP "# timing core=ooo l2=1000:8:64\n",
		 "line 9 is not what the model writes there"},
		{HEAD3_TOP "# timing core=ooo ev.x=a/b\n",
		 "line 9 is not what the model writes there"},
		{HEAD3_TOP "# timing core=ooo ev/x=1\n",
		 "line 9 is not what the model writes there"},
		{HEAD3_TOP "# timing core=ooo width\n",
		 "line 9 is not what the model writes there"},
		{HEAD3_TOP "# timing core= core.width=4\n",
		 "line 9 is not what the model writes there"},
		/* the cycles columns in a table of mode cache; timing lines in one */
		{HEAD2_TOP "# tlb 0 itlb=128:8 dtlb=64:4\n" COLS3,
		 "line 9 is not what the model writes there"},
		{HEAD2_TOP "# tlb 0 itlb=128:8 dtlb=64:4\n" CORE3 TOTAL3 COLS2,
		 "mode cache with its '# timing core=' and '# timing insns' lines"},
		/* mode timing of two geometries, or of none */
		{HEAD3_TOP "# geom 1 i1=32768:8:64 d1=32768:8:64 ll=1048576:16:64\n"
			   "# tlb 1 itlb=128:8 dtlb=64:4\n" CORE3 TOTAL3 COLS2_WORDS
			   " itlb_miss.0 dtlb_miss.0 i1_miss.1 d1_read.1 d1_read_miss.1 d1_write.1"
			   " d1_write_miss.1 ll_miss.1 itlb_miss.1 dtlb_miss.1 cycles cyc_base"
			   " cyc_branch cyc_icache cyc_dcache cyc_tlb cyc_serialize\n",
		 "mode timing with 2 cache geometries in a table of format 2 (it simulates one, in"
		 " format 2)"},
		{"# kp_model 2\n# mode timing\n# qemu 7\n# window complete\n" CORE3 TOTAL3
		 "# columns pc insns ev flushes cycles cyc_base cyc_branch cyc_icache cyc_dcache"
		 " cyc_tlb cyc_serialize\n",
		 "mode timing with 0 cache geometries"},
	};

	tables_refused(bad, sizeof(bad) / sizeof(bad[0]), sum3_row);
}

/* A timing recording checked when opened: a stack part below 0, totals beyond 2^50. */
static void timing_corrupt(const char *data)
{
	char bad[160], want[512], *err;
	char *argv[] = {"report", "--model", bad, NULL};
	int ret;

	snprintf(bad, sizeof(bad), "%s/neg.data", dir);
	assert_int_equal(tu_run("cp %s %s && sqlite3 %s 'UPDATE model_cycles SET dcache = -5"
				" WHERE pc = 4198400'",
				data, bad, bad),
			 0);
	snprintf(want, sizeof(want),
		 "kprotperf report: %s: corrupt data file: table model_cycles, row 4198400: dcache"
		 " is -5, not a count from 0 to 2^40: record it again\n",
		 bad);
	tu_expect(cmd_report, argv, 2, 1, want);
	assert_int_equal(tu_run("cp %s %s && sqlite3 %s \"UPDATE meta SET value ="
				" '1125899906842625' WHERE key = 'model.timing_cycles'\"",
				data, bad, bad),
			 0);
	err = tu_run_fd(cmd_report, argv, 2, &ret);
	assert_int_equal(ret, 1);
	assert_non_null(strstr(err, ": model.timing_cycles is '1125899906842625', not a count"
				    " from 0 to 2^50: record it again\n"));
	free(err);
}

/* inject of mode timing: each PC's cycles and stack, the core's meta; a bad stack refused */
static void test_timing_inject(void **state)
{
	const char *data = recording2("k3.data");
	struct datafile *df;
	char why[256];

	inject_refused(data, HEAD3 "0x1 5 - 0 0 0 0 0 0 0 0 0 9 1 1 0 0 0 0\n", -EBADMSG,
		       "line 12: its cycle stack sums to 2, not to its 9 cycles (within 6)");
	assert_int_equal(model_inject(TIMING, data, why, sizeof(why)), 0);
	assert_int_equal(datafile_open(&df, data, why, sizeof(why)), 0);
	assert_string_equal(datafile_meta(df, "model.mode"), "timing");
	assert_string_equal(datafile_meta(df, "model.core"), "skylake-ish");
	assert_true(tu_ends_with(datafile_meta(df, "model.timing"), " ev.lfence=60"));
	assert_string_equal(datafile_meta(df, "model.timing_insns"), "1240");
	assert_string_equal(datafile_meta(df, "model.timing_unknown"), "3");
	assert_string_equal(datafile_meta(df, "model.timing_prefetches"), "17");
	assert_string_equal(datafile_meta(df, "model.timing_cycles"), "43839");
	assert_true(model_has_tlb(df, 0));
	datafile_close(df);
	assert_int_equal(
		tu_run("test \"$(sqlite3 %s 'SELECT count(*), sum(cycles), sum(base), sum(branch),"
		       " sum(icache), sum(dcache), sum(tlb), sum(serialize) FROM model_cycles;"
		       " SELECT count(*) FROM model_misses')\" = '16|43839|1233|2570|360|6925|1450"
		       "|31300\n16'",
		       data),
		0);
	timing_corrupt(data);
}

/* cmd's stdout on a and on b, each succeeding, the same */
static void same_output(int (*cmd)(int, char **), char **a, char **b)
{
	char *out = tu_output(cmd, a), *with = tu_output(cmd, b);

	assert_string_equal(out, with);
	free(with);
	free(out);
}

/*
 * report --model of a timing recording, text and JSON whole, with and
 * without --stack: est_cycles the model's cycles, labelled so, no cost table.
 */
static void test_timing_report(void **state)
{
	const char *data = merged2("r3.data", TIMING);
	char *text[] = {"report", "--model", (char *)data, NULL};
	char *json[] = {"report", "--model", "--json", (char *)data, NULL};
	char *stack[] = {"report", "--model", "--stack", (char *)data, NULL};
	char *stack_json[] = {"report", "--model", "--stack", "--json", (char *)data, NULL};
	char *costs[] = {"report", "--model", "--costs", COSTS, (char *)data, NULL};
	char want[256];

	tu_golden_output("model-timing-report", cmd_report, text);
	tu_golden_json("model-timing-report", dir, cmd_report, json);
	/* the totals' est_cycles the rows' cycles, each function's stack summing to them */
	assert_int_equal(
		tu_run("python3 -c 'import json, sys; d = json.load(open(sys.argv[1]));"
		       " k = d[\"totals\"][\"kernel\"]; u = d[\"totals\"][\"user\"]; m = d[\"model\"];"
		       " assert d[\"costs\"] is None and m[\"mode\"] == \"timing\", d;"
		       " assert (m[\"core\"], m[\"cycles\"], m[\"parameters\"][\"core.width\"],"
		       " m[\"parameters\"][\"l2\"]) == (\"skylake-ish\", 43839, 4, \"524288:8:64\"), m;"
		       " assert (k[\"est_cycles\"], u[\"est_cycles\"]) == (43743, 96), (k, u);"
		       " assert all(abs(sum(f[\"stack\"].values()) - f[\"est_cycles\"]) <= 6 * 16"
		       " for f in d[\"functions\"]), d' %s/out.json",
		       dir),
		0);
	tu_golden_output("model-timing-stack", cmd_report, stack);
	/* JSON has the stack with --stack or without */
	same_output(cmd_report, json, stack_json);
	/* --costs: said unused in one line, the output as without it */
	snprintf(want, sizeof(want),
		 "kprotperf: --costs %s not used: est_cycles of a timing recording is the timing"
		 " model's cycles\n",
		 COSTS);
	tu_expect(cmd_report, costs, 2, 0, want);
	same_output(cmd_report, text, costs);
	tu_expect(cmd_folded, (char *[]){"folded", "--model", "est", (char *)data, NULL}, 1, 0,
		  "[kernel];kfunc 11230\n[kernel];entry_SYSCALL_64 30500\n"
		  "[kernel];__x86_indirect_thunk_rax 660\n/bin/prog;ufunc 96\n"
		  "[kernel];__x86_return_thunk 25\n[kernel];__x86_indirect_thunk_rcx 120\n"
		  "[kernel];flush_tlb_one 1208\n");
	tu_expect(cmd_folded, (char *[]){"folded", "--model", "est", (char *)data, NULL}, 2, 0,
		  "kprotperf folded: est_cycles is the timing model's cycles (core skylake-ish)\n");
}

/* --stack of a recording not of the timing model: one line, the way out, nothing shown */
static void test_timing_stack_refused(void **state)
{
	const char *data = merged2("s2.data", FIX "table2-base.txt");
	char *argv[] = {"report", "--model", "--stack", (char *)data, NULL};
	char want[512];

	snprintf(want, sizeof(want),
		 "kprotperf report: %s: --stack needs a recording of the timing model, this one"
		 " is of mode cache: record it under scripts/vm-run.sh --model timing\n",
		 data);
	tu_expect(cmd_report, argv, 2, 1, want);
	tu_expect(cmd_report, argv, 1, 1, "");
	tu_expect(cmd_report, (char *[]){"report", "--stack", (char *)data, NULL}, 2, 2,
		  "kprotperf report: --stack goes with --model (and without --data)\n");
}

/*
 * diff --model of a timing recording against a cache one, either way round:
 * one line, nothing shown; two timing recordings compare their cycles
 * (table3-timing-hard.txt: twice the CR3 writes, 1000 fewer dcache cycles).
 */
static void test_timing_diff(void **state)
{
	char timing[128], cache[128], hard[128], want[256];
	size_t i;

	snprintf(timing, sizeof(timing), "%s", merged2("d3.data", TIMING));
	snprintf(hard, sizeof(hard), "%s", merged2("e3.data", FIX "table3-timing-hard.txt"));
	snprintf(cache, sizeof(cache), "%s", merged2("d2.data", FIX "table2-base.txt"));
	{
		/* each with its base's mode and its hardened one's */
		char *refused[][7] = {
			{"diff", "--model", timing, cache, NULL, "timing", "cache"},
			{"diff", "--model", "--json", cache, timing, "cache", "timing"},
			{"diff", "--model", "--data", timing, cache, "timing", "cache"},
		};
		char *tt[] = {"diff", "--model", "--sort", "est", timing, hard, NULL};

		for (i = 0; i < sizeof(refused) / sizeof(refused[0]); i++) {
			snprintf(want, sizeof(want),
				 "kprotperf diff: the base recording was modelled with %s, the"
				 " hardened one with %s: compare recordings of one mode\n",
				 refused[i][5], refused[i][6]);
			refused[i][5] = NULL;
			tu_expect(cmd_diff, refused[i], 2, 1, want);
			tu_expect(cmd_diff, refused[i], 1, 1, "");
		}
		tu_golden_output("model-timing-diff", cmd_diff, tt);
	}
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_table_good),
		cmocka_unit_test(test_table_bad),
		cmocka_unit_test(test_inject),
		cmocka_unit_test(test_inject_refused),
		cmocka_unit_test(test_sweep_report),
		cmocka_unit_test(test_sweep_diff),
		cmocka_unit_test(test_sweep_one),
		cmocka_unit_test(test_table2_good),
		cmocka_unit_test(test_table2_bad),
		cmocka_unit_test(test_table2_running),
		cmocka_unit_test(test_inject_running),
		cmocka_unit_test(test_inject2),
		cmocka_unit_test(test_report2),
		cmocka_unit_test(test_diff2),
		cmocka_unit_test(test_folded2),
		cmocka_unit_test(test_no_tlb),
		cmocka_unit_test(test_costs_bad),
		cmocka_unit_test(test_timing_table_good),
		cmocka_unit_test(test_timing_table_bad),
		cmocka_unit_test(test_timing_inject),
		cmocka_unit_test(test_timing_report),
		cmocka_unit_test(test_timing_stack_refused),
		cmocka_unit_test(test_timing_diff),
	};
	int rc;

	strcpy(dir, "/tmp/kp-model-XXXXXX");
	if (!mkdtemp(dir))
		return 1;
	/* no calibrated table of this machine: est_cycles only with --costs */
	setenv("HOME", dir, 1);
	rc = cmocka_run_group_tests(tests, NULL, NULL);
	tu_run("rm -rf %s", dir);
	return rc;
}
