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

static int count_row(__u64 pc, __u64 insns, const __u64 *v, void *ctx)
{
	unsigned long long *sum = ctx;

	sum[0]++;
	sum[1] += insns;
	sum[2] += v[MODEL_LL_MISSES];
	return 0;
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
	static const struct {
		const char *text, *why;
	} bad[] = {
		{"# kp_model 2\n",
		 "not a table of kprotperf's machine model (no '# kp_model 1' line)"},
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
	struct model_table t;
	char why[256];
	size_t i;

	for (i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		assert_int_equal(model_table_read(file("t", bad[i].text), &t, count_row,
						  (unsigned long long[3]){0}, why, sizeof(why)),
				 -EBADMSG);
		assert_string_equal(why, bad[i].why);
	}
}

/* A recording as record --model leaves it: meta, kernel symbols, a user one. */
static const char *recording(const char *name)
{
	static char path[128];
	struct kv_list meta = {};
	struct datafile *df;
	char why[256];

	snprintf(path, sizeof(path), "%s/%s", dir, name);
	unlink(path);
	assert_int_equal(datafile_create(&df, path, (uid_t)-1, why, sizeof(why)), 0);
	assert_int_equal(kv_add(&meta, "kernel.build_id", "abcd"), 0);
	assert_int_equal(kv_add(&meta, "model.windows", "1"), 0);
	assert_int_equal(kv_add(&meta, "model.state", "awaiting"), 0);
	assert_int_equal(recording_put_meta(df, &meta), 0);
	assert_int_equal(recording_put_ksym(df, 0xffffffff81000000ULL, "_stext", ""), 0);
	assert_int_equal(recording_put_ksym(df, 0xffffffff81000100ULL, "kfunc", ""), 0);
	assert_int_equal(recording_put_ksym(df, 0xffffffff81000200ULL, "unused", ""), 0);
	assert_int_equal(recording_put_ksym(df, 0xffffffff81000300ULL, "kslow", ""), 0);
	assert_int_equal(model_put_usym(df, 0x401000, 0x20, "ufunc", "/bin/prog"), 0);
	assert_int_equal(datafile_commit(df, (uid_t)-1, (gid_t)-1, why, sizeof(why)), 0);
	kv_list_free(&meta);
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

static void test_inject_refused(void **state)
{
	const char *data = recording("k.data");
	char why[256], copy[160];

	snprintf(copy, sizeof(copy), "%s.orig", data);
	assert_int_equal(tu_run("cp %s %s", data, copy), 0);
	assert_int_equal(model_inject(file("m.txt", "# kp_model 1\n# kernel_build_id ef01\n"
						    "# mode insns\n# qemu 7\n# window complete\n"
						    "# windows opened 1 closed 1 restarts 0"
						    " stray_stops 0\n# columns pc insns\n"),
				      data, why, sizeof(why)),
			 -EINVAL);
	assert_string_equal(why, "the table counted kernel build ef01, the recording was made on "
				 "abcd: merge the table of the boot that made the recording");
	assert_int_equal(model_inject(file("m.txt", "# kp_model 1\n# kernel_build_id abcd\n"
						    "# mode insns\n# qemu 7\n# window complete\n"
						    "# windows opened 2 closed 2 restarts 0"
						    " stray_stops 0\n# columns pc insns\n"),
				      data, why, sizeof(why)),
			 -EINVAL);
	assert_string_equal(why, "the table counted 2 windows, the recording opened 1: other "
				 "windows (model-window, another record --model) ran in that boot");
	assert_int_equal(tu_run("cmp -s %s %s", data, copy), 0);
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

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_table_good),   cmocka_unit_test(test_table_bad),
		cmocka_unit_test(test_inject),	     cmocka_unit_test(test_inject_refused),
		cmocka_unit_test(test_sweep_report), cmocka_unit_test(test_sweep_diff),
		cmocka_unit_test(test_sweep_one),
	};
	int rc;

	strcpy(dir, "/tmp/kp-model-XXXXXX");
	if (!mkdtemp(dir))
		return 1;
	rc = cmocka_run_group_tests(tests, NULL, NULL);
	tu_run("rm -rf %s", dir);
	return rc;
}
