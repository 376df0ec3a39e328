// SPDX-License-Identifier: GPL-2.0-only
/*
 * kprotperf diff on two synthetic recordings of 5 runs each whose right
 * answer is known: the hardened kernel has init_on_alloc=1 and slab_nomerge
 * on its cmdline, SLAB_FREELIST_RANDOM and an MDS mitigation; clone takes
 * exactly twice as long per call, mmap 20% longer, getppid the same;
 * clear_page_erms takes twice the samples; copy_process is a .isra clone in
 * one kernel and a .constprop clone in the other; shuffle_freelist is out of
 * line in the base and inlined into allocate_slab in the hardened kernel.
 * Outputs are compared whole with golden files (tests/unit/golden/diff-*),
 * the recordings' temporary dir masked; the statistics, within tolerances.
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
#include "data/runs.h"
#include "symbols/stacks.h"
#include "cmd/cmds.h"
#include "util/hist.h"
#include "testutil.h"

#define K(off)	 ((long long)(0xffffffff81000000ULL + (off)))
#define OK(expr) assert_int_equal((expr), 0)
#define RUNS	 5

static char dir[256], base[300], hard[300], feats[300];

/* Per-call latency of each run, in ns: the mean is exactly 100 us. */
static const long long clone_ns[RUNS] = {95000, 100000, 105000, 98000, 102000};

static void meta(struct datafile *df, const char *key, const char *value)
{
	OK(query_insert(df, "INSERT INTO meta VALUES(?,?)", "tt", key, value));
}

static void provenance(struct datafile *df, bool hardened)
{
	meta(df, "kernel.release", hardened ? "6.1.0-hard" : "6.1.0-base");
	meta(df, "kernel.build_id", hardened ? "bbbb" : "aaaa");
	meta(df, "kernel.cmdline",
	     hardened ? "BOOT_IMAGE=/vmlinuz root=/dev/sda1 init_on_alloc=1 slab_nomerge quiet"
		      : "BOOT_IMAGE=/vmlinuz root=/dev/sda1 quiet");
	meta(df, "arch", "x86_64");
	meta(df, "record.command", "./big-fork 100");
	meta(df, "sampling.freq_hz", "100");
	OK(query_insert(df, "INSERT INTO config VALUES('CONFIG_SLAB_FREELIST_RANDOM', ?)", "t",
			hardened ? "y" : "n"));
	OK(query_insert(df, "INSERT INTO config VALUES('CONFIG_INIT_ON_ALLOC_DEFAULT_ON', 'n')",
			""));
	OK(query_insert(df, "INSERT INTO vulnerabilities VALUES('mds', ?)", "t",
			hardened ? "Mitigation: Clear CPU buffers" : "Vulnerable"));
	OK(query_insert(
		df, "INSERT INTO vulnerabilities VALUES('spectre_v2', 'Mitigation: Retpolines')",
		""));
}

static void add_syscall(struct datafile *df, long long id, const char *name, long long calls,
			const long long *ns)
{
	static const char run_sql[] = "INSERT INTO run_latency VALUES(?,'syscall',?,?,?,?,?,?)";
	long long sum = 0;
	int r;

	for (r = 0; r < RUNS; r++) {
		OK(query_insert(df, run_sql, "iiiiiii", (long long)r + 1, id, calls, calls,
				calls * ns[r], calls * ns[r] * 3 / 4, calls * ns[r] / 4));
		sum += calls * ns[r];
		OK(query_insert(df,
				"INSERT INTO latency_hist VALUES('syscall',?,'total',?,0,0,?)"
				" ON CONFLICT DO UPDATE SET count = count + excluded.count",
				"iii", id, (long long)kp_hist_bucket(ns[r]), calls));
	}
	OK(query_insert(df, "INSERT INTO latency VALUES('syscall',?,?,?,?,?,?,?,?)", "itiiiiii", id,
			name, RUNS * calls, RUNS * calls, sum, sum * 3 / 4, sum / 4, ns[2]));
}

static void syscalls(struct datafile *df, bool hardened)
{
	long long clone[RUNS], mmap[RUNS], getppid[RUNS];
	int r;

	for (r = 0; r < RUNS; r++) {
		clone[r] = clone_ns[r] * (hardened ? 2 : 1);
		mmap[r] = (10000 + 100 * r) * (hardened ? 12 : 10) / 10;
		/* the same runs in another order: no change at all */
		getppid[r] = hardened ? 1000 + 10 * ((r + 2) % RUNS) : 1000 + 10 * r;
	}
	add_syscall(df, 56, "clone", 100, clone);
	add_syscall(df, 9, "mmap", 50, mmap);
	add_syscall(df, 110, "getppid", 1000, getppid);
}

/*
 * Stack 1: copy_process under clone; 2: clear_page_erms called from it; 3:
 * shuffle_freelist in allocate_slab under it (a function of its own in the
 * base, inlined at 0x6100-0x6200 in the hardened kernel).
 */
static void stacks(struct datafile *df, bool hardened)
{
	static const char kf[] = "INSERT INTO kstack_frames VALUES(?,?,?)";
	static const char ksym[] = "INSERT INTO ksyms VALUES(?,?,'')";
	const long long top[] = {K(0x2010), K(0x1010), K(0x0010)};
	int d;

	OK(query_insert(df, ksym, "it", K(0), "entry_SYSCALL_64"));
	OK(query_insert(df, ksym, "it", K(0x1000), "do_syscall_64"));
	OK(query_insert(df, ksym, "it", K(0x2000), "kernel_clone"));
	OK(query_insert(df, ksym, "it", K(0x3000),
			hardened ? "copy_process.constprop.0" : "copy_process.isra.0"));
	OK(query_insert(df, ksym, "it", K(0x5000), "clear_page_erms"));
	OK(query_insert(df, ksym, "it", K(0x6000), "allocate_slab"));
	if (!hardened)
		OK(query_insert(df, ksym, "it", K(0x4000), "shuffle_freelist"));
	OK(query_insert(df, kf, "iii", 1LL, 0LL, K(0x3020)));
	OK(query_insert(df, kf, "iii", 2LL, 0LL, K(0x5020)));
	OK(query_insert(df, kf, "iii", 2LL, 1LL, K(0x3030)));
	OK(query_insert(df, kf, "iii", 3LL, 0LL, hardened ? K(0x6110) : K(0x4010)));
	OK(query_insert(df, kf, "iii", 3LL, 1LL, hardened ? K(0x3040) : K(0x6020)));
	if (!hardened)
		OK(query_insert(df, kf, "iii", 3LL, 2LL, K(0x3040)));
	for (d = 0; d < 3; d++) {
		OK(query_insert(df, kf, "iii", 1LL, 1LL + d, top[d]));
		OK(query_insert(df, kf, "iii", 2LL, 2LL + d, top[d]));
		OK(query_insert(df, kf, "iii", 3LL, (hardened ? 2LL : 3LL) + d, top[d]));
	}
}

static void samples(struct datafile *df, bool hardened)
{
	const long long copy[RUNS] = {10, 11, 9, 10, 10}, shuffle[RUNS] = {5, 4, 6, 5, 5};
	long long clear[RUNS] = {19, 20, 21, 20, 20};
	int r;

	for (r = 0; r < RUNS; r++) {
		clear[r] *= hardened ? 2 : 1;
		OK(query_insert(df, "INSERT INTO runs VALUES(?,?,0,'exited')", "ii",
				(long long)r + 1,
				1000000000LL + (hardened ? 200000000LL : 0) + 1000000LL * r));
	}
	tu_run_samples(df, 1, copy, RUNS, "big-fork");
	tu_run_samples(df, 2, clear, RUNS, "big-fork");
	tu_run_samples(df, 3, shuffle, RUNS, "big-fork");
	if (!hardened)
		return;
	/* record --func found shuffle_freelist inlined: sampled, not timed */
	OK(query_insert(df,
			"INSERT INTO funcs VALUES(1,'shuffle_freelist','allocate_slab',?,NULL,"
			"'samples')",
			"i", K(0x6100)));
	OK(query_insert(df,
			"INSERT INTO inlines VALUES(1,'shuffle_freelist','allocate_slab',"
			"'mm/slub.c',1978,?,?,256,'')",
			"it", K(0x6100), "0xffffffff81006100-0xffffffff81006200"));
}

static void fill(struct datafile *df, bool hardened)
{
	provenance(df, hardened);
	syscalls(df, hardened);
	stacks(df, hardened);
	samples(df, hardened);
}

static void create(const char *path, bool hardened)
{
	struct datafile *df;

	OK(datafile_create(&df, path, (uid_t)-1, NULL, 0));
	fill(df, hardened);
	OK(datafile_commit(df, (uid_t)-1, (gid_t)-1, NULL, 0));
}

/* A copy of src at dst (in dir) with sql run on it. */
static void variant(const char *src, const char *dst, const char *sql)
{
	char path[300];
	sqlite3 *db;

	snprintf(path, sizeof(path), "%s/%s", dir, dst);
	assert_int_equal(tu_run("cp '%s' '%s'", src, path), 0);
	assert_int_equal(sqlite3_open(path, &db), SQLITE_OK);
	assert_int_equal(sqlite3_exec(db, sql, NULL, NULL, NULL), SQLITE_OK);
	sqlite3_close(db);
}

static int setup(void **state)
{
	if (tu_mkdtemp(dir, sizeof(dir), "kp-diff"))
		return -1;
	snprintf(base, sizeof(base), "%s/base.data", dir);
	snprintf(hard, sizeof(hard), "%s/hard.data", dir);
	snprintf(feats, sizeof(feats), "%s/features.conf", dir);
	create(base, false);
	create(hard, true);
	return tu_write_file(feats, "[init_on_alloc]\nabout = zeroing on allocation\n"
				    "functions = clear_page*\n"
				    "[freelist_random]\nabout = freelist randomization\n"
				    "functions = shuffle_freelist\n");
}

static int teardown(void **state)
{
	if (!getenv("KEEP"))
		tu_run("rm -rf '%s'", dir);
	return 0;
}

/* out must equal golden file name, with the temporary dir masked. */
static void golden(const char *name, const char *out)
{
	const char *const pairs[] = {dir, "$DIR", NULL};

	tu_golden_mask(name, out, pairs);
}

static char *diff_out(const char *a, const char *b, const char *opt)
{
	char *argv[] = {"diff", (char *)a, (char *)b, NULL, NULL, NULL};

	if (opt) {
		argv[1] = (char *)opt;
		argv[2] = (char *)a;
		argv[3] = (char *)b;
	}
	return tu_output(cmd_diff, argv);
}

/*
 * What differs between the recordings, then the tables; 5 runs each, same
 * command and rate: nothing to warn about.
 */
static void test_text(void **state)
{
	char *out = diff_out(base, hard, NULL);

	golden("diff-text", out);
	free(out);
}

/* The value after "key": in the JSON object of s that starts with {"name":"name". */
static double field(const char *s, const char *name, const char *key)
{
	char obj[128], k[64];
	const char *at;
	double v;

	snprintf(obj, sizeof(obj), "{\"name\":\"%s\"", name);
	snprintf(k, sizeof(k), "\"%s\":", key);
	at = strstr(s, obj);
	assert_non_null(at);
	at = strstr(at, k);
	assert_non_null(at);
	assert_int_equal(sscanf(at + strlen(k), "%lf", &v), 1);
	return v;
}

/*
 * Whether "key" is null in the JSON object of s that starts with
 * {"name":"name"; looked for after its "status", past a feature's config.
 */
static bool is_null(const char *s, const char *name, const char *key)
{
	char obj[128], k[64];
	const char *at;

	snprintf(obj, sizeof(obj), "{\"name\":\"%s\"", name);
	snprintf(k, sizeof(k), "\"%s\":", key);
	at = strstr(s, obj);
	assert_non_null(at);
	at = strstr(at, "\"status\":");
	assert_non_null(at);
	at = strstr(at, k);
	assert_non_null(at);
	return !strncmp(at + strlen(k), "null", 4);
}

/* The row of name in the first table after title in text out (static buffer). */
static const char *row_of(const char *out, const char *title, const char *name)
{
	static char line[512];
	char start[128];
	const char *at = strstr(out, title), *end;

	assert_non_null(at);
	snprintf(start, sizeof(start), "\n%s ", name);
	at = strstr(at, start);
	assert_non_null(at);
	end = strchr(at + 1, '\n');
	snprintf(line, sizeof(line), "%.*s", (int)(end ? end - at - 1 : (long)strlen(at + 1)),
		 at + 1);
	return line;
}

static const char *array(const char *out, const char *key)
{
	char k[64];
	const char *at;

	snprintf(k, sizeof(k), "\"%s\":[", key);
	at = strstr(out, k);
	assert_non_null(at);
	return at;
}

static void test_syscalls(void **state)
{
	char *out = diff_out(base, hard, "--json");
	const char *sc = array(out, "syscalls");

	/* clone: twice as slow, the interval holds 2x */
	assert_float_equal(field(sc, "clone", "ratio"), 2.0, 1e-9);
	assert_true(field(sc, "clone", "ci_low_pct") < 100);
	assert_true(field(sc, "clone", "ci_high_pct") > 100);
	/* 100 calls a run, 100 us more each */
	assert_float_equal(field(sc, "clone", "delta_per_run_ns"), 1e7, 1);
	/* getppid: the same runs, not significant */
	assert_float_equal(field(sc, "getppid", "ratio"), 1.0, 1e-9);
	assert_true(field(sc, "getppid", "ci_low_pct") <= 0);
	assert_true(field(sc, "getppid", "ci_high_pct") >= 0);
	/* on-CPU three quarters of it, off-CPU a quarter */
	assert_float_equal(field(array(out, "syscalls_offcpu"), "clone", "delta_per_run_ns"), 2.5e6,
			   1);
	free(out);
}

/* copy_process.isra.0 and copy_process.constprop.0 are one function. */
static void test_clone_suffixes(void **state)
{
	char *out = diff_out(base, hard, "--json");
	const char *kt = array(out, "kernel_functions_total");

	/* on every stack: 35 samples a run in the base, 55 in the hardened, of 10 ms */
	assert_float_equal(field(kt, "copy_process", "base"), 35 * 1e7, 1);
	assert_float_equal(field(kt, "copy_process", "hardened"), 55 * 1e7, 1);
	free(out);
}

static void test_inlining_changes(void **state)
{
	char *json = diff_out(base, hard, "--json");

	/* the hardened instance, known from its recorded ranges without DWARF */
	assert_float_equal(
		field(array(json, "inline_self"), "shuffle_freelist in allocate_slab", "hardened"),
		5 * 1e7, 1);
	free(json);
}

static void test_features(void **state)
{
	char *argv[] = {"diff", "--json", "--features", feats, base, hard, NULL};
	char *out = tu_output(cmd_diff, argv);
	/* clear_page_erms doubled: 20 samples a run more, 10 ms each */
	assert_float_equal(field(array(out, "features"), "init_on_alloc", "delta_per_run_ns"),
			   20 * 1e7, 1);
	/* base: shuffle_freelist's own symbol; hardened: allocate_slab's code, no DWARF */
	assert_true(is_null(array(out, "features"), "freelist_random", "hardened"));
	assert_float_equal(field(array(out, "features"), "(unmapped)", "delta_per_run_ns"), 5e7, 1);
	/* +25 samples a run and -5 (freelist_random): no share of a total that cancels */
	assert_true(is_null(array(out, "features"), "init_on_alloc", "share_pct"));
	/* each feature says what it is */
	golden("diff-features-json", out);
	free(out);
	argv[1] = "-n20";
	out = tu_output(cmd_diff, argv);
	golden("diff-features-text", out);
	free(out);
}

/*
 * Syscalls sorted by contribution: clone (+10ms a run), mmap (+100us),
 * getppid (0); copy_process.isra.0 and copy_process.constprop.0 are one
 * function; in self time clear_page_erms doubles, first by contribution;
 * shuffle_freelist is inlined in the hardened kernel only.
 */
static void test_json(void **state)
{
	char *out = diff_out(base, hard, "--json");

	golden("diff-json", out);
	free(out);
}

/*
 * A measure one side has no row for is null on that side in --json, and so
 * are its ratio and change: shuffle_freelist's feature has no sample in the
 * hardened kernel, allocate_slab's self time and the inline instance none in
 * the base; a syscall only the hardened side makes.
 */
static void test_absent_rows_null(void **state)
{
	char *out, path[300];
	char *argv[] = {"diff", "--json", base, path, NULL};

	variant(hard, "getpid.data",
		"INSERT INTO latency VALUES('syscall',39,'getpid',5,5,5000,5000,0,1000);"
		"INSERT INTO run_latency SELECT run,'syscall',39,1,1,1000,1000,0 FROM runs");
	snprintf(path, sizeof(path), "%s/getpid.data", dir);
	out = tu_output(cmd_diff, argv);
	assert_true(is_null(array(out, "features"), "freelist_random", "hardened"));
	assert_true(is_null(array(out, "features"), "freelist_random", "hardened_per_run_ns"));
	assert_true(is_null(array(out, "features"), "freelist_random", "ratio"));
	assert_true(is_null(array(out, "kernel_functions_self"), "allocate_slab", "base"));
	assert_true(
		is_null(array(out, "kernel_functions_self"), "allocate_slab", "base_per_run_ns"));
	assert_true(is_null(array(out, "kernel_functions_self"), "allocate_slab", "change_pct"));
	assert_true(
		is_null(array(out, "inline_self"), "shuffle_freelist in allocate_slab", "base"));
	assert_true(is_null(array(out, "syscalls"), "getpid", "base"));
	assert_true(is_null(array(out, "syscalls"), "getpid", "base_per_run_ns"));
	assert_true(is_null(array(out, "syscalls"), "getpid", "calls_per_run_base"));
	assert_float_equal(field(array(out, "syscalls"), "getpid", "hardened"), 1000, 1e-9);
	/* measured on both sides: numbers */
	assert_false(is_null(array(out, "syscalls"), "clone", "base"));
	free(out);
}

/* Nothing on one side: "new" or "gone", never inf. */
static void test_new_gone(void **state)
{
	char *out = diff_out(base, hard, NULL);
	const char *self = "Kernel functions: self";

	assert_null(strstr(out, "inf +inf"));
	assert_non_null(strstr(row_of(out, self, "allocate_slab"), " new new "));
	assert_non_null(strstr(row_of(out, self, "shuffle_freelist"), " gone gone "));
	assert_non_null(
		strstr(row_of(out, "Hardening features", "freelist_random"), " gone gone "));
	assert_non_null(
		strstr(row_of(out, "Inline instances: self", "shuffle_freelist"), " new new "));
	free(out);
}

/*
 * SHARE only where the total change is one of parts that go one way:
 * syscalls (clone +10ms, mmap +102us) yes; features (+250ms unmapped, -50ms
 * freelist_random) no, nor the kernel functions taken as shares of them; a
 * base whose getppid was 10x slower cancels clone's change: no shares.
 */
static void test_shares(void **state)
{
	char *out = diff_out(base, hard, "--json"), *text, slow[300];

	assert_float_equal(field(array(out, "syscalls"), "clone", "share_pct"), 99.0, 0.1);
	assert_true(is_null(array(out, "features"), "(unmapped)", "share_pct"));
	assert_true(is_null(array(out, "kernel_functions_self"), "clear_page_erms", "share_pct"));
	free(out);
	text = diff_out(base, hard, NULL);
	assert_true(tu_ends_with(row_of(text, "Hardening features", "(unmapped)"), " -"));
	assert_null(strstr(text, "125.0%"));
	assert_non_null(strstr(text, "shares not shown: the changes cancel out"));
	free(text);
	variant(base, "slow-getppid.data",
		"UPDATE run_latency SET total_ns = total_ns * 10 WHERE id = 110");
	snprintf(slow, sizeof(slow), "%s/slow-getppid.data", dir);
	out = diff_out(slow, hard, "--json");
	assert_true(field(array(out, "syscalls"), "getppid", "delta_per_run_ns") < -9e6);
	assert_true(is_null(array(out, "syscalls"), "clone", "share_pct"));
	assert_true(is_null(array(out, "syscalls"), "getppid", "share_pct"));
	free(out);
}

/*
 * Calls per run, with an interval of their own: the hardened workload makes
 * three times as many getppid calls, each as fast as before; with 5 runs a
 * side (bootstrap) and with one run on the hardened side (Poisson).
 */
static void test_calls(void **state)
{
	static const char triple[] =
		"UPDATE run_latency SET calls = calls * 3, done = done * 3, total_ns = total_ns * 3,"
		" oncpu_ns = oncpu_ns * 3, offcpu_ns = offcpu_ns * 3 WHERE id = 110;"
		"UPDATE latency SET calls = calls * 3, done = done * 3, total_ns = total_ns * 3,"
		" oncpu_ns = oncpu_ns * 3, offcpu_ns = offcpu_ns * 3 WHERE id = 110;";
	char more[300], one[300], sql[1024], *out, *text, *calls;
	const char *sc;

	variant(hard, "getppid3.data", triple);
	snprintf(more, sizeof(more), "%s/getppid3.data", dir);
	out = diff_out(base, more, "--json");
	sc = array(out, "syscalls");
	assert_float_equal(field(sc, "getppid", "ratio"), 1.0, 1e-9);
	assert_float_equal(field(sc, "getppid", "calls_per_run_base"), 1000, 1e-9);
	assert_float_equal(field(sc, "getppid", "calls_per_run_hardened"), 3000, 1e-9);
	assert_float_equal(field(sc, "getppid", "calls_ratio"), 3.0, 1e-9);
	assert_true(field(sc, "getppid", "calls_ci_low_pct") > 150);
	assert_non_null(strstr(strstr(sc, "{\"name\":\"getppid\""), "\"calls_significant\":true"));
	assert_non_null(strstr(strstr(sc, "{\"name\":\"clone\""), "\"calls_significant\":false"));
	assert_float_equal(field(sc, "clone", "calls_ratio"), 1.0, 1e-9);
	free(out);
	text = diff_out(base, more, NULL);
	assert_non_null(
		strstr(row_of(text, "Syscalls: calls per run", "getppid"), " 3.00x +200.0%"));
	/* clone makes as many calls: not in the table, which ends at an empty line */
	calls = strstr(text, "Syscalls: calls per run");
	assert_non_null(calls);
	*strstr(calls, "\n\n") = 0;
	assert_null(strstr(calls, "\nclone "));
	free(text);
	snprintf(sql, sizeof(sql),
		 "%s DELETE FROM runs; DELETE FROM run_latency;"
		 " DELETE FROM run_samples;",
		 triple);
	variant(hard, "one-run.data", sql);
	snprintf(one, sizeof(one), "%s/one-run.data", dir);
	out = diff_out(base, one, "--json");
	sc = array(out, "syscalls");
	assert_float_equal(field(sc, "getppid", "calls_ratio"), 15.0, 1e-9);
	assert_non_null(strstr(strstr(sc, "{\"name\":\"getppid\""), "\"calls_significant\":true"));
	free(out);
}

/* The rows a runs reader gave, one line each, sorted: SQL gives no order. */
struct run_rows {
	char line[16][96];
	size_t n;
};

static int run_row(const struct runs_value *v, void *ctx)
{
	struct run_rows *r = ctx;

	assert_true(r->n < 16);
	snprintf(r->line[r->n++], sizeof(r->line[0]), "%lld %s %.0f/%.0f", v->run, v->name ?: "-",
		 v->num, v->den);
	return 0;
}

static int cmp_line(const void *a, const void *b)
{
	return strcmp(a, b);
}

static void expect_rows(struct run_rows *r, const char *want)
{
	char got[1024] = "";
	size_t i;

	qsort(r->line, r->n, sizeof(r->line[0]), cmp_line);
	for (i = 0; i < r->n; i++)
		snprintf(got + strlen(got), sizeof(got) - strlen(got), "%s\n", r->line[i]);
	assert_string_equal(got, want);
	r->n = 0;
}

/*
 * An empty runs table makes the recording one run, its totals: the
 * run_samples and run_latency rows of a run 0 the table does not have
 * (its rows deleted, say) are not counted on top of them.
 */
static void test_empty_runs_table(void **state)
{
	struct run_rows rows = {};
	char path[300], why[256];
	struct datafile *df;
	size_t runs;

	variant(base, "no-runs.data",
		"DELETE FROM runs; UPDATE run_samples SET run = run - 1;"
		" UPDATE run_latency SET run = run - 1;");
	snprintf(path, sizeof(path), "%s/no-runs.data", dir);
	OK(datafile_open(&df, path, why, sizeof(why)));
	/* the frames table runs_kernel_self() reads, as diff makes it */
	OK(stacks_name_frames(df, NULL, NULL));
	OK(runs_prepare(df, &runs));
	assert_int_equal(runs, 1);
	OK(runs_kernel_self(df, run_row, &rows));
	expect_rows(&rows, "0 clear_page_erms 100/1\n0 copy_process 50/1\n"
			   "0 shuffle_freelist 25/1\n");
	OK(runs_latency(df, "syscall", "done", run_row, &rows));
	expect_rows(&rows, "0 clone 500/500\n0 getppid 5000/5000\n0 mmap 250/250\n");
	datafile_close(df);
}

static void expect_err(char **argv, int status, const char *fmt, const char *a, const char *b)
{
	char want[1024];

	snprintf(want, sizeof(want), fmt, a, b);
	tu_expect(cmd_diff, argv, 2, status, want);
	/* and nothing on stdout */
	tu_expect(cmd_diff, argv, 1, status, "");
}

static void test_same_recording(void **state)
{
	static const char msg[] = "kprotperf diff: BASE and HARDENED are the same recording (%s "
				  "and %s): give a baseline recording and a hardened one\n";
	char copy[300];
	char *self[] = {"diff", base, base, NULL}, *twin[] = {"diff", base, copy, NULL};

	snprintf(copy, sizeof(copy), "%s/copy.data", dir);
	assert_int_equal(tu_run("cp '%s' '%s'", base, copy), 0);
	expect_err(self, 1, msg, base, base);
	expect_err(twin, 1, msg, base, copy);
}

static void test_bad_inputs(void **state)
{
	char arm[300], empty[300], missing[300];
	char *arch[] = {"diff", base, arm, NULL}, *emp[] = {"diff", empty, hard, NULL};
	char *mis[] = {"diff", base, missing, NULL}, *one[] = {"diff", base, NULL};

	variant(hard, "arm.data", "UPDATE meta SET value = 'aarch64' WHERE key = 'arch'");
	snprintf(arm, sizeof(arm), "%s/arm.data", dir);
	snprintf(empty, sizeof(empty), "%s/empty.data", dir);
	snprintf(missing, sizeof(missing), "%s/missing.data", dir);
	assert_int_equal(tu_write_file(empty, ""), 0);
	expect_err(arch, 1,
		   "kprotperf diff: BASE was recorded on x86_64 and HARDENED on aarch64: "
		   "recordings of different architectures cannot be compared\n%s%s",
		   "", "");
	expect_err(emp, 1, "kprotperf diff: %s: empty file, not a kprotperf data file\n%s", empty,
		   "");
	expect_err(mis, 1,
		   "kprotperf diff: %s: no such file (record one with kprotperf record)\n%s",
		   missing, "");
	expect_err(one, 2,
		   "kprotperf diff: needs two recordings, BASE and HARDENED (see kprotperf diff "
		   "--help)\n%s%s",
		   "", "");
}

/* An older file reads as one run: said, and the one-run methods take over. */
static void test_schema_and_warnings(void **state)
{
	char old[300];
	char *argv[] = {"diff", "--json", base, old, NULL};
	char *out;

	/* a schema-3 file has none of the tables added since (data/schema.c) */
	variant(hard, "old.data",
		"PRAGMA user_version = 3; DROP TABLE runs; DROP TABLE run_latency;"
		" DROP TABLE run_samples; DROP TABLE func_absent; DROP TABLE blocks;"
		" DROP TABLE block_edges; DROP TABLE block_loops; DROP TABLE block_values;"
		" DROP TABLE block_funcs; DROP TABLE block_inlines; DROP TABLE block_bounds;"
		" DROP TABLE block_bound_values; DROP TABLE block_contexts; DROP TABLE block_runs;"
		" DROP TABLE block_run_edges; DROP TABLE block_run_calls; DROP TABLE protect_funcs;"
		" DROP TABLE protect_sites; DROP TABLE model_pcs; DROP TABLE model_misses;"
		" DROP TABLE model_geoms; DROP TABLE usyms; DROP TABLE boot_runs;"
		" DROP TABLE boot_initcalls; DROP TABLE boot_funcs; DROP TABLE boot_func_misses;"
		" UPDATE meta SET value = '1000' WHERE key ="
		" 'sampling.freq_hz'; UPDATE meta SET value = './big-fork 200' WHERE key ="
		" 'record.command'");
	snprintf(old, sizeof(old), "%s/old.data", dir);
	out = tu_output(cmd_diff, argv);
	/* the notes and warnings; the methods: histogram for latency, Poisson for samples */
	golden("diff-old-json", out);
	/* where twice as slow is clear */
	assert_true(field(array(out, "syscalls"), "clone", "p_value") < 1e-6);
	assert_true(field(array(out, "syscalls"), "clone", "ci_low_pct") < 100);
	assert_true(field(array(out, "syscalls"), "clone", "ci_high_pct") > 100);
	free(out);
}

static void test_usage(void **state)
{
	char *help[] = {"diff", "--help", NULL};
	char *norm[] = {"diff", "--normalize", base, hard, NULL};
	char *feat[] = {"diff", "--folded", "--features", feats, base, hard, NULL};

	tu_golden_output("diff-help", cmd_diff, help);
	tu_expect(cmd_diff, norm, 2, 2,
		  "kprotperf diff: --normalize scales the counts of --folded: it needs --folded "
		  "(see kprotperf diff --help)\n");
	tu_expect(cmd_diff, feat, 2, 2,
		  "kprotperf diff: --features maps the tables' samples to features: --folded has "
		  "no tables (see kprotperf diff --help)\n");
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_text),
		cmocka_unit_test(test_syscalls),
		cmocka_unit_test(test_clone_suffixes),
		cmocka_unit_test(test_inlining_changes),
		cmocka_unit_test(test_features),
		cmocka_unit_test(test_json),
		cmocka_unit_test(test_absent_rows_null),
		cmocka_unit_test(test_new_gone),
		cmocka_unit_test(test_shares),
		cmocka_unit_test(test_calls),
		cmocka_unit_test(test_empty_runs_table),
		cmocka_unit_test(test_same_recording),
		cmocka_unit_test(test_bad_inputs),
		cmocka_unit_test(test_schema_and_warnings),
		cmocka_unit_test(test_usage),
	};

	return cmocka_run_group_tests(tests, setup, teardown);
}
