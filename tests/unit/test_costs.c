// SPDX-License-Identifier: GPL-2.0-only
/*
 * The cost tables of est_cycles (model/costs.h) read as untrusted input:
 * a whole table's every field; each malformed one refused with the one
 * line expected, word for word; files that are links, folders, FIFOs or
 * over 64 KiB refused; the shipped tables all valid and picked by the
 * guest's CPU model; this machine's calibrated table found, and refused
 * when it is another CPU's; the kinds' cost keys; calibrate --show's whole
 * table and its JSON read back the same; the optional core figures read
 * whole, a table without them still read, each bad one refused in a line
 * naming the field.
 */
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>
#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "calibrate/calibrate.h"
#include "cmd/cmds.h"
#include "model/costs.h"
#include "testutil.h"

static char dir[PATH_MAX - 128];

static int setup(void **state)
{
	return tu_mkdtemp(dir, sizeof(dir), "kp-costs");
}

static int teardown(void **state)
{
	return tu_run("rm -rf '%s'", dir) ? -1 : 0;
}

/* A valid table: cost k is k + 0.5, its source "s" and k; cpu as given. */
static char *table(const char *vendor, int family, int model, const char *name)
{
	char *t = malloc(16384);
	size_t n = 0;
	int k;

	n += sprintf(t + n,
		     "{\"kprotperf_costs\": 1, \"name\": \"test table\",\n"
		     " \"cpu\": {\"vendor\": \"%s\", \"family\": %d, \"model\": %d, "
		     "\"model_name\": \"%s\"},\n"
		     " \"ghz\": 2.5, \"cpi\": 0.75, \"_note\": \"ignored\",\n \"costs\": {",
		     vendor, family, model, name);
	for (k = 0; k < MC_KEYS; k++)
		n += sprintf(t + n, "%s\"%s\": %d.5", k ? ", " : "", model_cost_names[k], k);
	n += sprintf(t + n, "},\n \"sources\": {");
	for (k = 0; k < MC_KEYS; k++)
		n += sprintf(t + n, "%s\"%s\": \"s%d\"", k ? ", " : "", model_cost_names[k], k);
	sprintf(t + n, "}\n}\n");
	return t;
}

/* t with its first from replaced by to (a new string). */
static char *edit(const char *t, const char *from, const char *to)
{
	const char *at = strstr(t, from);
	char *s = malloc(strlen(t) + strlen(to) + 1);

	assert_non_null(at);
	sprintf(s, "%.*s%s%s", (int)(at - t), t, to, at + strlen(from));
	return s;
}

/* The core's figures (lines 6-12) and their sources (13-17), after a table's sources (line 5). */
#define CORE_FIGURES                                                                                           \
	" \"core\": {\"load_to_use\": {\"l1\": 4.5, \"l2\": 12.5, \"ll\": 50.5, \"dram\": 300.5},\n"           \
	" \"tlb\": {\"stlb_hit\": 7.5, \"walk_cached\": 30.5, \"dram\": 60.5}, \"mispredict\": 17.5,\n"        \
	" \"stream_bytes_per_cycle\": 8.5, \"stream_cycles_per_line\": 7.53,\n"                                \
	" \"rep_stosb_cycles_per_line\": {\"l1\": 1.5, \"l2\": 2.5, \"dram\": 9.5},\n"                         \
	" \"rep_movsb_cycles_per_line\": {\"l1\": 2.5, \"l2\": 3.5, \"dram\": 19.5}, \"ll_capacity\": 4096,\n" \
	" \"rename_registers\": 200, \"fetch_block_crossing\": 1.95, \"l2_stream_cycles_per_line\": 2.9,\n"    \
	" \"ll_random_cycles_per_line\": 4.5, \"scheduler\": 45, \"stream_4k_cycles_per_line\": 9.5,"          \
	" \"ll_lost\": 1500}"
#define CORE_SOURCES                                                                                \
	" \"core_sources\": {\"load_to_use\": \"c0\", \"tlb\": \"c1\", \"mispredict\": \"c2\",\n"   \
	" \"stream_bytes_per_cycle\": \"c3\", \"stream_cycles_per_line\": \"c4\",\n"                \
	" \"rep_stosb_cycles_per_line\": \"c5\", \"rep_movsb_cycles_per_line\": \"c6\",\n"          \
	" \"ll_capacity\": \"c7\", \"rename_registers\": \"c8\", \"fetch_block_crossing\": \"c9\"," \
	" \"l2_stream_cycles_per_line\": \"c10\", \"ll_random_cycles_per_line\": \"c11\","          \
	" \"scheduler\": \"c12\", \"stream_4k_cycles_per_line\": \"c13\", \"ll_lost\": \"c14\"}"

/* table()'s with the core's figures (a new string). */
static char *table_core(const char *vendor, int family, int model, const char *name)
{
	char *t = table(vendor, family, model, name),
	     *c = edit(t, "}\n}\n", "},\n" CORE_FIGURES ",\n" CORE_SOURCES "\n}\n");

	free(t);
	return c;
}

static void test_whole_table(void **state)
{
	struct model_cost_sources src;
	struct model_costs c;
	char *t = table("GenuineIntel", 6, 94, "Intel(R) \\u00e9 \\ud83d\\ude00"), why[512];
	int k;

	assert_int_equal(model_costs_parse(t, strlen(t), "t.json", &c, &src, why, sizeof(why)), 0);
	assert_string_equal(c.name, "test table");
	assert_string_equal(c.path, "t.json");
	assert_string_equal(c.vendor, "GenuineIntel");
	assert_string_equal(c.model_name, "Intel(R) \xc3\xa9 \xf0\x9f\x98\x80");
	assert_int_equal(c.family, 6);
	assert_int_equal(c.model, 94);
	assert_true(c.ghz == 2.5 && c.cpi == 0.75);
	for (k = 0; k < MC_KEYS; k++) {
		char want[16];

		assert_true(c.c[k] == k + 0.5);
		snprintf(want, sizeof(want), "s%d", k);
		assert_string_equal(src.s[k], want);
	}
	free(t);
}

/* The core's figures read whole; a table without them has none. */
static void test_core(void **state)
{
	static const double want[MK_KEYS] = {4.5,  12.5, 50.5, 300.5, 7.5, 30.5, 60.5, 17.5,
					     8.5,  7.53, 1.5,  2.5,   9.5, 2.5,	 3.5,  19.5,
					     4096, 200,	 1.95, 2.9,   4.5, 45,	 9.5,  1500};
	struct model_cost_sources src;
	struct model_costs c;
	char *t = table_core("x", 1, 2, "y"), *old = table("x", 1, 2, "y"), why[512], s[8];
	int k;

	assert_int_equal(model_costs_parse(t, strlen(t), "t", &c, &src, why, sizeof(why)), 0);
	assert_true(c.has_core);
	for (k = 0; k < MK_KEYS; k++)
		assert_true(c.core[k] == want[k]);
	for (k = 0; k < MG_KEYS; k++) {
		snprintf(s, sizeof(s), "c%d", k);
		assert_string_equal(src.core[k], s);
	}
	assert_true(c.c[MC_D1_MISS] == 1.5);
	assert_int_equal(model_costs_parse(old, strlen(old), "t", &c, &src, why, sizeof(why)), 0);
	assert_false(c.has_core);
	assert_string_equal(src.core[MG_TLB], "");
	free(t);
	free(old);
}

/*
 * Each bad table: (from, to) edited into a valid one, and the problem why
 * must name, at line (0: the edit's line).
 */
struct bad_case {
	const char *from, *to, *why;
	int line;
};

static const struct bad_case bad[] = {
	{"\"ghz\": 2.5", "\"ghz\": -1", "ghz: -1 is out of range, expected 0.05..20"},
	{"\"d1_miss\": 1.5", "\"d1_miss\": -0.5",
	 "costs.d1_miss: -0.5 is out of range, expected 0..1e+09"},
	{"\"d1_miss\": 1.5", "\"d1_miss\": NaN", "costs.d1_miss: expected a number"},
	{"\"d1_miss\": 1.5", "\"d1_miss\": 1e400",
	 "costs.d1_miss: 1e400 is out of range, expected 0..1e+09"},
	{"\"d1_miss\": 1.5", "\"d1_miss\": 01", "expected ',' or '}' after a value"},
	{"\"d1_miss\": 1.5", "\"d1_miss\": \"1\"", "costs.d1_miss: expected a number"},
	{"\"d1_miss\": 1.5", "\"d1_miss\": 1.5, \"d1_miss\": 2", "'d1_miss' is given twice"},
	{"\"d1_miss\": 1.5", "\"d1miss\": 1.5", "'costs' has an unknown key 'd1miss'"},
	{"\"d1_miss\": 1.5, ", "", "no cost 'costs.d1_miss'", 7},
	{"\"d1_miss\": \"s1\", ", "",
	 "no 'sources.d1_miss': every cost names where its number comes from (\"measured: ...\" or "
	 "a citation)",
	 7},
	{"\"d1_miss\": \"s1\"", "\"d1_miss\": \"\"",
	 "sources.d1_miss is empty: every cost names where its number comes from"},
	{"\"d1_miss\": \"s1\"", "\"d1_miss\": \"a\\u001b[2J\"",
	 "sources.d1_miss: a control character in a string"},
	{"\"d1_miss\": \"s1\"", "\"d1_miss\": \"a\\x\"",
	 "sources.d1_miss: a bad escape in a string"},
	{"\"d1_miss\": \"s1\"", "\"d1_miss\": \"\\ud83d\"",
	 "sources.d1_miss: a bad escape in a string"},
	{"\"d1_miss\": \"s1\"", "\"d1_miss\": \"\xff\"",
	 "sources.d1_miss: a string that is not UTF-8"},
	{"\"name\": \"test table\"", "\"nmae\": \"x\"",
	 "unknown key 'nmae' (a note's key starts with '_')"},
	{"\"kprotperf_costs\": 1", "\"kprotperf_costs\": 2",
	 "format 2: this kprotperf reads format 1"},
	{"\"family\": 6", "\"family\": 6.5", "cpu.family: expected a whole number"},
	{"\"family\": 6, ", "", "no 'cpu.family'", 7},
	{"\"cpu\": {", "\"cpu\": {\"stepping\": 1, ", "'cpu' has an unknown key 'stepping'"},
	{"\"vendor\": \"GenuineIntel\"", "\"vendor\": \"GenuineIntelXXXX\"",
	 "cpu.vendor: a string longer than 15 bytes"},
	{"\"ghz\": 2.5, ", "", "no 'ghz'", 7},
	{"\"_note\": \"ignored\"", "\"_note\": {}", "_note: expected a number"},
	{"\"costs\": {", "\"costs\": [", "expected '{'"},
	{"}\n}\n", "}\n}\n{}", "text after the table's closing '}'", 7},
	{"}\n}\n", "}\n", "expected ',' or '}' after a value", 6},
};

/* Each bad figure of core's, edited into a table with them (17 lines). */
static const struct bad_case bad_core[] = {
	{"\"l1\": 4.5", "\"l1\": 0",
	 "core.load_to_use.l1: 0 is out of range, expected 0.01..1e+06"},
	{"\"mispredict\": 17.5", "\"mispredict\": -1",
	 "core.mispredict: -1 is out of range, expected 0..1e+06"},
	{"\"mispredict\": 17.5", "\"mispredict\": {}", "core.mispredict: expected a number"},
	{"\"stream_bytes_per_cycle\": 8.5", "\"stream_bytes_per_cycle\": 1e7",
	 "core.stream_bytes_per_cycle: 1e7 is out of range, expected 0.01..1e+06"},
	{"\"walk_cached\": 30.5, ", "", "no 'core.tlb.walk_cached'", 18},
	{"\"stlb_hit\": 7.5", "\"stlb\": 7.5", "'core.tlb' has an unknown key 'stlb'"},
	{"\"mispredict\": 17.5", "\"mispredicts\": 17.5",
	 "'core' has an unknown key 'mispredicts'"},
	{"\"mispredict\": 17.5", "\"mispredict\": 17.5, \"mispredict\": 1",
	 "'mispredict' is given twice"},
	{"\"dram\": 9.5", "\"dram\": 9.5, \"dram\": 1", "'dram' is given twice"},
	{"\"tlb\": {", "\"tlb\": 5, \"x\": {", "expected '{'"},
	{"\"tlb\": \"c1\"", "\"tlb\": \"\"",
	 "core_sources.tlb is empty: every cost names where its number comes from"},
	{"\"tlb\": \"c1\"", "\"tlbs\": \"c1\"", "'core_sources' has an unknown key 'tlbs'"},
	{"\"tlb\": \"c1\", \"mispredict\": \"c2\",", "\"tlb\": \"c1\",",
	 "no 'core_sources.mispredict': every figure of 'core' names how it was measured", 18},
	{",\n" CORE_SOURCES, "",
	 "no 'core_sources.load_to_use': every figure of 'core' names how it was measured", 14},
	{CORE_FIGURES ",\n", "", "no 'core.load_to_use.l1'", 11},
	{", \"ll_capacity\": 4096,\n", ",\n", "no 'core.ll_capacity'", 18},
	{"\"ll_capacity\": \"c7\", ", "",
	 "no 'core_sources.ll_capacity': every figure of 'core' names how it was measured", 18},
	{",\n \"rename_registers\": 200,", ",\n", "no 'core.rename_registers'", 18},
	{", \"rename_registers\": \"c8\",", ",",
	 "no 'core_sources.rename_registers': every figure of 'core' names how it was measured",
	 18},
	{", \"fetch_block_crossing\": 1.95,", ",", "no 'core.fetch_block_crossing'", 18},
	{", \"fetch_block_crossing\": \"c9\",", ",",
	 "no 'core_sources.fetch_block_crossing': every figure of 'core' names how it was measured",
	 18},
	{", \"l2_stream_cycles_per_line\": 2.9,", ",", "no 'core.l2_stream_cycles_per_line'", 18},
	{", \"l2_stream_cycles_per_line\": \"c10\",", ",",
	 "no 'core_sources.l2_stream_cycles_per_line': every figure of 'core' names how it was "
	 "measured",
	 18},
	{"\n \"ll_random_cycles_per_line\": 4.5,", "\n", "no 'core.ll_random_cycles_per_line'", 18},
	{", \"scheduler\": 45,", ",", "no 'core.scheduler'", 18},
	{", \"stream_4k_cycles_per_line\": 9.5,", ",", "no 'core.stream_4k_cycles_per_line'", 18},
	{", \"ll_lost\": 1500}", "}", "no 'core.ll_lost'", 18},
	{"\"ll_lost\": 1500", "\"ll_lost\": -1",
	 "core.ll_lost: -1 is out of range, expected 0..1e+06"},
	{", \"ll_random_cycles_per_line\": \"c11\",", ",",
	 "no 'core_sources.ll_random_cycles_per_line': every figure of 'core' names how it was "
	 "measured",
	 18},
	{", \"scheduler\": \"c12\",", ",",
	 "no 'core_sources.scheduler': every figure of 'core' names how it was measured", 18},
	{", \"stream_4k_cycles_per_line\": \"c13\",", ",",
	 "no 'core_sources.stream_4k_cycles_per_line': every figure of 'core' names how it was "
	 "measured",
	 18},
	{", \"ll_lost\": \"c14\"}", "}",
	 "no 'core_sources.ll_lost': every figure of 'core' names how it was measured", 18},
};

#define WAY_OUT \
	"fix it, or give another table with --costs (kprotperf calibrate measures this machine's)"

/* Each of the n cases edited into t refused with its line. */
static void refuse(const char *t, const struct bad_case *b, size_t n)
{
	char why[1024], want[1024];
	struct model_costs c;
	size_t i;
	int line;

	for (i = 0; i < n; i++) {
		char *e = edit(t, b[i].from, b[i].to);
		const char *at = strstr(e, b[i].to);

		assert_int_equal(model_costs_parse(e, strlen(e), "t", &c, NULL, why, sizeof(why)),
				 -EINVAL);
		for (line = 1; at > e; at--)
			line += at[-1] == '\n';
		line = b[i].line ?: line;
		snprintf(want, sizeof(want), "%s (line %d): " WAY_OUT, b[i].why, line);
		if (strcmp(why, want))
			fail_msg("case %zu: got '%s', want '%s'", i, why, want);
		free(e);
	}
}

static void test_refused(void **state)
{
	char *t = table("GenuineIntel", 6, 94, "x"), *tc = table_core("x", 1, 2, "y"), why[1024];
	struct model_costs c;

	refuse(t, bad, sizeof(bad) / sizeof(bad[0]));
	refuse(tc, bad_core, sizeof(bad_core) / sizeof(bad_core[0]));
	free(tc);
	assert_int_equal(
		model_costs_parse("{\"name\": \"a\0\"}", 14, "t", &c, NULL, why, sizeof(why)),
		-EINVAL);
	assert_string_equal(why,
			    "a NUL byte: not a JSON text (line 1): fix it, or give another "
			    "table with --costs (kprotperf calibrate measures this machine's)");
	free(t);
}

/* For tu_run_fd: argv[1] a path to load (model_costs_load). */
static int load_cmd(int argc, char **argv)
{
	struct model_costs c;

	return model_costs_load(argv[1], &c);
}

/* For tu_run_fd: model_costs_pick(argv[1] or NULL for "-", argv[2] or NULL), c's name printed. */
static int pick_cmd(int argc, char **argv)
{
	struct model_costs c;
	int err = model_costs_pick(strcmp(argv[1], "-") ? argv[1] : NULL, argv[2], &c);

	if (!err)
		fprintf(stderr, "%s | %s\n", c.name, c.path);
	return err;
}

/* fn on argv: returns want, and stderr is exactly line (dir masked as DIR). */
static void said(int (*fn)(int, char **), char **argv, int want, const char *line)
{
	char *err, *at, masked[2048];
	int ret;

	err = tu_run_fd(fn, argv, 2, &ret);
	assert_int_equal(ret, want);
	snprintf(masked, sizeof(masked), "%s", err);
	while ((at = strstr(masked, dir))) {
		memmove(at + 3, at + strlen(dir), strlen(at + strlen(dir)) + 1);
		memcpy(at, "DIR", 3);
	}
	assert_string_equal(masked, line);
	free(err);
}

static void test_files(void **state)
{
	char path[PATH_MAX], link[PATH_MAX], big[PATH_MAX], *t = table("x", 1, 2, "y");
	char *argv[] = {"load", path, NULL};
	FILE *f;
	int i;

	snprintf(path, sizeof(path), "%s/ok.json", dir);
	assert_int_equal(tu_write_file(path, t), 0);
	said(load_cmd, argv, 0, "");
	snprintf(link, sizeof(link), "%s/link.json", dir);
	assert_int_equal(symlink(path, link), 0);
	argv[1] = link;
	said(load_cmd, argv, -ELOOP,
	     "kprotperf: cost table DIR/link.json: a symbolic link, not followed: give the file it "
	     "points to\n");
	argv[1] = dir;
	said(load_cmd, argv, -EINVAL,
	     "kprotperf: cost table DIR: not a regular file: " WAY_OUT "\n");
	snprintf(big, sizeof(big), "%s/fifo", dir);
	assert_int_equal(mkfifo(big, 0600), 0);
	argv[1] = big;
	said(load_cmd, argv, -EINVAL,
	     "kprotperf: cost table DIR/fifo: not a regular file: " WAY_OUT "\n");
	snprintf(big, sizeof(big), "%s/big.json", dir);
	f = fopen(big, "w");
	assert_non_null(f);
	for (i = 0; i < 70000; i++)
		fputc(' ', f);
	fputs(t, f);
	fclose(f);
	said(load_cmd, argv, -EFBIG,
	     "kprotperf: cost table DIR/big.json: larger than 64 KiB, not a cost table: " WAY_OUT
	     "\n");
	snprintf(big, sizeof(big), "%s/none.json", dir);
	said(load_cmd, argv, -ENOENT,
	     "kprotperf: cost table DIR/none.json: No such file or directory\n");
	free(t);
}

static void test_shipped(void **state)
{
	char *argv[] = {"pick", "-", "Skylake-Client-v1", NULL};

	said(pick_cmd, argv, 0,
	     "Intel Skylake client (shipped) | built-in share/costs/skylake.json\n");
	argv[2] = "Cascadelake-Server-v1";
	said(pick_cmd, argv, 0,
	     "Intel Cascade Lake server (shipped) | built-in share/costs/cascadelake.json\n");
	argv[2] = "EPYC-Rome-v1";
	said(pick_cmd, argv, 0,
	     "AMD EPYC Rome, Zen 2 (shipped) | built-in share/costs/epyc-rome.json\n");
	argv[2] = "skylake-server";
	said(pick_cmd, argv, 0,
	     "Intel Skylake client (shipped) | built-in share/costs/skylake.json\n");
	/* as recordings keep it: the guest's model name */
	argv[2] = "Intel Core Processor (Skylake)";
	said(pick_cmd, argv, 0,
	     "Intel Skylake client (shipped) | built-in share/costs/skylake.json\n");
	argv[2] = "Intel Xeon Processor (Cascadelake)";
	said(pick_cmd, argv, 0,
	     "Intel Cascade Lake server (shipped) | built-in share/costs/cascadelake.json\n");
	argv[2] = "AMD EPYC-Rome Processor";
	said(pick_cmd, argv, 0,
	     "AMD EPYC Rome, Zen 2 (shipped) | built-in share/costs/epyc-rome.json\n");
}

/* this machine's table under XDG_CACHE_HOME=dir/cache: absent, another CPU's, its own */
static void test_native(void **state)
{
	char cache[PATH_MAX], path[PATH_MAX + 64], *t;
	char *argv[] = {"pick", "native", NULL, NULL};
	struct model_costs here;

	snprintf(cache, sizeof(cache), "%s/cache", dir);
	setenv("XDG_CACHE_HOME", cache, 1);
	said(pick_cmd, argv, -ENOENT,
	     "kprotperf: no cost table calibrated on this machine "
	     "(DIR/cache/kprotperf/costs/native.json): run kprotperf calibrate\n");
	argv[1] = "-";
	argv[2] = "max";
	said(pick_cmd, argv, -ENOENT,
	     "kprotperf: no cost table for the guest's CPU (max) and none calibrated on this "
	     "machine: run kprotperf calibrate, or give --costs FILE (shipped: "
	     "share/costs/skylake.json, cascadelake.json, epyc-rome.json)\n");
	assert_int_equal(tu_run("mkdir -p '%s/kprotperf/costs'", cache), 0);
	snprintf(path, sizeof(path), "%s/kprotperf/costs/native.json", cache);
	t = table("GenuineIntel", 6, 94, "Other");
	assert_int_equal(tu_write_file(path, t), 0);
	free(t);
	model_costs_this_cpu(&here);
	argv[1] = "native";
	{
		char want[1024];

		snprintf(want, sizeof(want),
			 "kprotperf: cost table DIR/cache/kprotperf/costs/native.json was "
			 "calibrated on another CPU (GenuineIntel family 6 model 94 'Other'), this "
			 "one is %s family %d model %d '%s': run kprotperf calibrate here\n",
			 here.vendor, here.family, here.model, here.model_name);
		said(pick_cmd, argv, -EINVAL, want);
	}
	t = table(here.vendor, here.family, here.model, here.model_name);
	assert_int_equal(tu_write_file(path, t), 0);
	free(t);
	said(pick_cmd, argv, 0, "test table | DIR/cache/kprotperf/costs/native.json\n");
	argv[1] = "-";
	said(pick_cmd, argv, 0, "test table | DIR/cache/kprotperf/costs/native.json\n");
	/* a link where the table is: not followed */
	assert_int_equal(tu_run("cd '%s/kprotperf/costs' && mv native.json real.json && "
				"ln -s real.json native.json",
				cache),
			 0);
	argv[1] = "native";
	said(pick_cmd, argv, -EINVAL,
	     "kprotperf: calibrated cost table not read: 'DIR/cache/kprotperf/costs/native.json' "
	     "is a symbolic link (kprotperf calibrate writes it anew)\n");
	unsetenv("XDG_CACHE_HOME");
}

static void test_kinds(void **state)
{
	static const char *const kinds[] = {
		"lfence", "mfence",  "sfence",	"cpuid",  "wrmsr",     "rdmsr",	   "verw",
		"iret",	  "sysret",  "sysexit", "swapgs", "mov_cr3",   "mov_cr",   "mov_dr",
		"invlpg", "invpcid", "wbinvd",	"lxdt",	  "serialize", "call_ind", "jmp_ind",
		"ret",	  "syscall", "-",	"bogus"};
	char got[2048] = "";
	size_t i;
	int k;

	for (i = 0; i < sizeof(kinds) / sizeof(kinds[0]); i++) {
		k = model_cost_of_kind(kinds[i]);
		snprintf(got + strlen(got), sizeof(got) - strlen(got), "%s=%s ", kinds[i],
			 k < 0 ? "-1" : model_cost_names[k]);
	}
	assert_string_equal(got, "lfence=lfence mfence=mfence sfence=sfence cpuid=cpuid "
				 "wrmsr=wrmsr rdmsr=rdmsr verw=verw iret=iret sysret=sysret "
				 "sysexit=sysret swapgs=swapgs mov_cr3=-1 mov_cr=mov_cr "
				 "mov_dr=mov_cr invlpg=invlpg invpcid=invpcid wbinvd=wbinvd "
				 "lxdt=lxdt serialize=-1 call_ind=call_ind jmp_ind=jmp_ind ret=ret "
				 "syscall=-1 -=-1 bogus=-1 ");
	assert_int_equal(model_cost_of_kind(NULL), -1);
}

/*
 * calibrate --show --out of table t, written as dir/file: the whole text
 * golden as name; --json: the file's format, golden as json_name unless
 * NULL, read back as the same table.
 */
static void show(const char *t, const char *file, const char *name, const char *json_name)
{
	char path[PATH_MAX], *out, *json, why[512];
	char *argv[] = {"calibrate", "--show", "--out", path, NULL, NULL};
	struct model_cost_sources s1, s2;
	struct model_costs c1, c2;

	snprintf(path, sizeof(path), "%s/%s", dir, file);
	assert_int_equal(tu_write_file(path, t), 0);
	out = tu_output(cmd_calibrate, argv);
	tu_golden_mask(name, out, (const char *const[]){dir, "DIR", NULL});
	argv[4] = "--json";
	json = tu_output(cmd_calibrate, argv);
	if (json_name)
		tu_golden_mask(json_name, json, (const char *const[]){dir, "DIR", NULL});
	assert_int_equal(model_costs_parse(t, strlen(t), "a", &c1, &s1, why, sizeof(why)), 0);
	assert_int_equal(model_costs_parse(json, strlen(json), "a", &c2, &s2, why, sizeof(why)), 0);
	assert_memory_equal(&c1, &c2, sizeof(c1));
	assert_memory_equal(&s1, &s2, sizeof(s1));
	free(out);
	free(json);
}

static void test_show(void **state)
{
	char *t = table("x", 1, 2, "y");

	show(t, "show.json", "calibrate-show", NULL);
	free(t);
}

/*
 * A table calibrated before ll_capacity, rename_registers,
 * fetch_block_crossing, l2_stream_cycles_per_line,
 * ll_random_cycles_per_line, scheduler, stream_4k_cycles_per_line and
 * ll_lost: read as unknown (0), neither shown nor written.
 */
static void test_show_core_before(void **state)
{
	char *t = table_core("x", 1, 2, "y"),
	     *a = edit(t,
		       ", \"ll_capacity\": 4096,\n \"rename_registers\": 200, "
		       "\"fetch_block_crossing\": 1.95, \"l2_stream_cycles_per_line\": 2.9,\n"
		       " \"ll_random_cycles_per_line\": 4.5, \"scheduler\": 45, "
		       "\"stream_4k_cycles_per_line\": 9.5, \"ll_lost\": 1500}",
		       "}"),
	     *b = edit(a,
		       ",\n \"ll_capacity\": \"c7\", \"rename_registers\": \"c8\", "
		       "\"fetch_block_crossing\": \"c9\", \"l2_stream_cycles_per_line\": \"c10\", "
		       "\"ll_random_cycles_per_line\": \"c11\", \"scheduler\": \"c12\", "
		       "\"stream_4k_cycles_per_line\": \"c13\", \"ll_lost\": \"c14\"}",
		       "}");

	show(b, "before.json", "calibrate-show-core-before", NULL);
	free(b);
	free(a);
	free(t);
}

/* The same with the core's figures: shown after the costs, the JSON golden too. */
static void test_show_core(void **state)
{
	char *t = table_core("x", 1, 2, "y");

	show(t, "core.json", "calibrate-show-core", "calibrate-show-core-json");
	free(t);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_whole_table), cmocka_unit_test(test_refused),
		cmocka_unit_test(test_files),	    cmocka_unit_test(test_shipped),
		cmocka_unit_test(test_native),	    cmocka_unit_test(test_kinds),
		cmocka_unit_test(test_show),	    cmocka_unit_test(test_core),
		cmocka_unit_test(test_show_core),   cmocka_unit_test(test_show_core_before),
	};

	return cmocka_run_group_tests(tests, setup, teardown);
}
