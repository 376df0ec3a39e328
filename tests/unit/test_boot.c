// SPDX-License-Identifier: GPL-2.0-only
/*
 * The views of a boot recording (src/boot/): report, folded, diff,
 * features and the protection map on boot recordings made here as
 * kprotperf boot writes them (schema 10's tables), whole outputs against
 * goldens, the JSON parsed; a diff against a workload's recording refused,
 * a recording naming a run it does not have refused, and a hostile
 * function name kept off the terminal and out of the JSON's syntax.
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
#include "data/boot_schema.h"
#include "data/datafile.h"
#include "data/model.h"
#include "data/query.h"
#include "data/recording.h"
#include "testutil.h"
#include "util/kv.h"

static char dir[64];

/* One side of the fixture: what differs between the base and the hardened boots. */
struct side {
	const char *name, *cmdline, *mode;
	unsigned int runs;
	bool hostile;	  /* a function whose name holds a terminal escape */
	const char *cpu;  /* boot --cpu: the guest's CPU model and vulnerabilities kept */
	bool events;	  /* a model table of format 2: TLB misses and events (schema 12) */
	const char *core; /* mode timing: the core model that timed it */
};

/* Whether s was recorded under the timing model: its caches and TLBs as cache's, and cycles. */
static bool timed(const struct side *s)
{
	return s->mode && !strcmp(s->mode, "timing");
}

/* Whether s simulated caches: mode cache, or timing's one geometry. */
static bool cached(const struct side *s)
{
	return s->mode && (!strcmp(s->mode, "cache") || timed(s));
}

static void put_meta(struct datafile *df, const struct side *s)
{
	struct kv_list meta = {}, config = {};

	assert_int_equal(kv_add(&meta, "boot.runs", "%u", s->runs), 0);
	assert_int_equal(kv_add(&meta, "boot.append", "%s", s->cmdline + 14), 0);
	assert_int_equal(kv_add(&meta, "boot.kernel", "linux-image-amd64"), 0);
	assert_int_equal(kv_add(&meta, "boot.accel", "icount"), 0);
	assert_int_equal(kv_add(&meta, "kernel.release", "6.1.0-26-amd64"), 0);
	assert_int_equal(kv_add(&meta, "kernel.build_id", "abcd"), 0);
	assert_int_equal(kv_add(&meta, "kernel.cmdline", "%s", s->cmdline), 0);
	assert_int_equal(kv_add(&meta, "arch", "x86_64"), 0);
	if (s->mode) {
		assert_int_equal(kv_add(&meta, "model.mode", "%s", s->mode), 0);
		assert_int_equal(kv_add(&meta, "model.qemu", "1:7.2"), 0);
		assert_int_equal(kv_add(&meta, "model.window", "boot"), 0);
		assert_int_equal(kv_add(&meta, "model.format", "%d", s->events ? 2 : 1), 0);
	}
	if (timed(s)) {
		assert_int_equal(kv_add(&meta, "model.core", "%s", s->core), 0);
		assert_int_equal(kv_add(&meta, "model.timing", "core.width=4 lat.dram=250"), 0);
	}
	if (s->cpu) {
		assert_int_equal(kv_add(&meta, "boot.cpu", "%s", s->cpu), 0);
		assert_int_equal(kv_add(&meta, "cpu.model", "Intel Core Processor (Skylake)"), 0);
		assert_int_equal(query_exec(df,
					    "INSERT INTO vulnerabilities VALUES"
					    "('meltdown', 'Mitigation: PTI'),"
					    "('retbleed', 'Vulnerable'), ('tsa', 'Not affected')"),
				 0);
	}
	assert_int_equal(recording_put_meta(df, &meta), 0);
	assert_int_equal(kv_add(&config, "CONFIG_SHUFFLE_PAGE_ALLOCATOR", "y"), 0);
	assert_int_equal(kv_add(&config, "CONFIG_RETHUNK", "y"), 0);
	assert_int_equal(kv_add(&config, "CONFIG_INIT_ON_ALLOC_DEFAULT_ON", "y"), 0);
	assert_int_equal(recording_put_config(df, &config), 0);
	kv_list_free(&meta);
	kv_list_free(&config);
}

#define RUN_SQL	 "INSERT INTO boot_runs VALUES(?,?,?,?,?,?,?)"
#define CALL_SQL "INSERT INTO boot_initcalls VALUES(?,?,?,?,?,?)"
#define FUNC_SQL "INSERT INTO boot_funcs VALUES(?,?,?,?)"
#define MISS_SQL "INSERT INTO boot_func_misses VALUES(?,?,?,?,?,?,?,?,?,?)"

#define TLB_SQL	  "INSERT INTO boot_func_tlb VALUES(?,?,?,?,?,?)"
#define EVENT_SQL "INSERT INTO boot_func_events VALUES(?,?,?,?,?,?)"
#define THUNK_SQL "INSERT INTO boot_func_thunks VALUES(?,?,?,?,?)"
#define CYC_SQL	  "INSERT INTO boot_func_cycles VALUES(?,?,?,?,?,?,?,?,?,?)"

/*
 * Run r of side h's cycles under the timing model: start_kernel's CR3
 * writes serialize (twice the writes on the hardened side, twice the
 * cycles), the return thunk's are mostly branch refills, the code before
 * the kernel's mostly its caches (not the kernel's: left out of its total).
 */
static void put_cycles(struct datafile *df, int h, unsigned int r)
{
	long long n = r, ser = 40000 + 40000LL * h + 100 * n;

	assert_int_equal(query_insert(df, CYC_SQL, "ittiiiiiii", n, "start_kernel", "[kernel]",
				      7500000 + ser, 7500000LL, 0LL, 0LL, 0LL, 0LL, ser),
			 0);
	assert_int_equal(query_insert(df, CYC_SQL, "ittiiiiiii", n, "__x86_return_thunk",
				      "[kernel]", 600000 + 100000LL * h, 250000 + 100000LL * h,
				      350000LL, 0LL, 0LL, 0LL, 0LL),
			 0);
	assert_int_equal(query_insert(df, CYC_SQL, "ittiiiiiii", n, BOOT_PRE_KERNEL, "[boot]",
				      900000LL, 125000LL, 0LL, 300000LL, 475000LL, 0LL, 0LL),
			 0);
}

/*
 * Run r of side h's TLB misses and events (format 2): the hardened boot
 * writes CR3 twice as often and misses the TLBs more in start_kernel; the
 * return thunk's VERWs and the code before the kernel's CPUIDs (not the
 * kernel's) are the same on both sides.
 */
static void put_events(struct datafile *df, int h, unsigned int r, bool tlb)
{
	long long n = r;

	if (tlb) {
		assert_int_equal(query_insert(df, TLB_SQL, "ittiii", n, "start_kernel", "[kernel]",
					      0LL, 20 + 30LL * h + n, 40 + 60LL * h + 2 * n),
				 0);
		assert_int_equal(query_insert(df, TLB_SQL, "ittiii", n, "__x86_return_thunk",
					      "[kernel]", 0LL, 5LL + n % 2, 7LL),
				 0);
	}
	assert_int_equal(query_insert(df, EVENT_SQL, "itttii", n, "start_kernel", "[kernel]",
				      "mov_cr3", 100 + 100LL * h + n, 100 + 100LL * h + n),
			 0);
	assert_int_equal(query_insert(df, EVENT_SQL, "itttii", n, "start_kernel", "[kernel]",
				      "lfence", 50LL + n, 0LL),
			 0);
	assert_int_equal(query_insert(df, EVENT_SQL, "itttii", n, "__x86_return_thunk", "[kernel]",
				      "verw", 10LL + n % 2, 0LL),
			 0);
	assert_int_equal(query_insert(df, THUNK_SQL, "ittii", n, "__x86_return_thunk", "[kernel]",
				      1000000 + 400000LL * h + 1000 * n, 0LL),
			 0);
	assert_int_equal(query_insert(df, EVENT_SQL, "itttii", n, BOOT_PRE_KERNEL, "[boot]",
				      "cpuid", 400LL, 0LL),
			 0);
}

/*
 * Run r of side h (0 base, 1 hardened): the hardened boot is slower by
 * its shuffling, has shuffle_free_memory's initcall and function where the
 * base has an old one's, and every run differs a little from the other.
 */
static void put_run(struct datafile *df, const struct side *s, int h, unsigned int r)
{
	long long j = 1000 * r, off = 2000000 + j;
	long long ins = s->mode ? 1 : 0;

	assert_int_equal(query_insert(df, RUN_SQL, "iiiiiii", (long long)r, off,
				      40000000LL + 3000000 * h + 7 * j,
				      45000000LL + 3000000 * h + j, ins ? 500000 + j : -1,
				      ins ? 47000000LL + 3000000 * h + j : -1, 3LL),
			 0);
	/* the NULLs of a boot without the model */
	if (!ins)
		assert_int_equal(query_exec(df, "UPDATE boot_runs SET entry_insns = NULL,"
						" first_user_insns = NULL"),
				 0);
	assert_int_equal(query_insert(df, CALL_SQL, "iitiii", (long long)r, 0LL, "pci_subsys_init",
				      1000000LL, 20000000LL + 10 * j, 0LL),
			 0);
	assert_int_equal(query_insert(df, CALL_SQL, "iitiii", (long long)r, 1LL,
				      h ? "shuffle_init" : "old_init", 21000000LL, 1000000LL + j,
				      0LL),
			 0);
	assert_int_equal(query_insert(df, CALL_SQL, "iitiii", (long long)r, 2LL, "net_dev_init",
				      23000000LL, 5000000LL + 2000000 * h + j, 0LL),
			 0);
	if (!ins)
		return;
	assert_int_equal(query_insert(df, FUNC_SQL, "itti", (long long)r, BOOT_PRE_KERNEL, "[boot]",
				      500000LL + j),
			 0);
	assert_int_equal(query_insert(df, FUNC_SQL, "itti", (long long)r, "start_kernel",
				      "[kernel]", 30000000LL + j),
			 0);
	assert_int_equal(query_insert(df, FUNC_SQL, "itti", (long long)r, "__x86_return_thunk",
				      "[kernel]", 1000000LL + 400000 * h + j),
			 0);
	assert_int_equal(query_insert(df, FUNC_SQL, "itti", (long long)r,
				      h ? "shuffle_free_memory" : "old_func", "[kernel]",
				      2000000LL + j),
			 0);
	assert_int_equal(
		query_insert(df, FUNC_SQL, "itti", (long long)r, "e1000_probe", "e1000", 70000LL),
		0);
	if (s->hostile)
		assert_int_equal(query_insert(df, FUNC_SQL, "itti", (long long)r,
					      "evil\x1b]0;owned\x07\"\\name;x", "[kernel]",
					      3000000LL),
				 0);
	if (s->events)
		put_events(df, h, r, cached(s));
	if (timed(s))
		put_cycles(df, h, r);
	if (!cached(s))
		return;
	assert_int_equal(query_insert(df, MISS_SQL, "ittiiiiiii", (long long)r, "start_kernel",
				      "[kernel]", 0LL, 100LL, 5000LL, 300LL, 2000LL, 50LL, 20LL),
			 0);
	assert_int_equal(query_insert(df, MISS_SQL, "ittiiiiiii", (long long)r,
				      "__x86_return_thunk", "[kernel]", 0LL, 10LL + 40 * h, 10LL,
				      1LL, 0LL, 0LL, 1LL + h),
			 0);
}

/* A boot recording of side s at dir/NAME. */
static const char *boot_recording(const struct side *s, int h)
{
	static char path[2][128];
	struct datafile *df;
	char why[256];
	unsigned int r;

	snprintf(path[h], sizeof(path[h]), "%s/%s", dir, s->name);
	unlink(path[h]);
	assert_int_equal(datafile_create(&df, path[h], (uid_t)-1, why, sizeof(why)), 0);
	put_meta(df, s);
	if (cached(s))
		assert_int_equal(model_put_geom(df, 0,
						&(struct model_geom){{{32768, 8, 64},
								      {32768, 8, 64},
								      {8388608, 16, 64}}}),
				 0);
	if (cached(s) && s->events)
		assert_int_equal(
			model_put_tlbs(df, 0, &(struct model_geom){.tlb = {{128, 8}, {64, 4}}}), 0);
	for (r = 0; r < s->runs; r++)
		put_run(df, s, h, r);
	assert_int_equal(datafile_commit(df, (uid_t)-1, (gid_t)-1, why, sizeof(why)), 0);
	return path[h];
}

#define BASE_CMD "console=ttyS0 quiet"
#define HARD_CMD "console=ttyS0 quiet page_alloc.shuffle=1 init_on_alloc=1"

static const char *base(void)
{
	return boot_recording(&(struct side){"base.data", BASE_CMD, "cache", 2}, 0);
}

static const char *hard(void)
{
	return boot_recording(&(struct side){"hard.data", HARD_CMD, "cache", 2}, 1);
}

static const char *const mask[] = {dir, "DIR", NULL};

/* The stdout of cmd on argv golden as name, the fixture's folder masked. */
static void golden(const char *name, int (*cmd)(int, char **), char **argv)
{
	char *out = tu_output(cmd, argv);

	tu_golden_mask(name, out, mask);
	free(out);
}

static void test_report(void **state)
{
	char b[128];

	snprintf(b, sizeof(b), "%s", base());
	{
		char *text[] = {"report", b, NULL};
		char *json[] = {"report", "--json", b, NULL};

		golden("boot-report", cmd_report, text);
		tu_golden_json("boot-report", dir, cmd_report, json);
	}
}

/*
 * Without the model: phases and initcalls, one boot, no interval, a line saying why no functions;
 * booted with --cpu: the guest's CPU and its vulnerabilities in the header.
 */
static void test_report_plain(void **state)
{
	char *text[] = {"report",
			(char *)boot_recording(&(struct side){"plain.data", BASE_CMD, NULL, 1,
							      false, "Skylake-Client-v1"},
					       0),
			NULL};

	golden("boot-report-plain", cmd_report, text);
}

static void test_folded(void **state)
{
	char b[128];

	snprintf(b, sizeof(b), "%s", base());
	{
		char *times[] = {"folded", b, NULL};
		char *insns[] = {"folded", "--model", "insns", b, NULL};
		char *ll[] = {"folded", "--model", "ll", b, NULL};
		char *out = tu_output(cmd_folded, times);

		golden("boot-folded", cmd_folded, times);
		/* the widths add up to reset -> first user process: 2000500 + 45000500 ns */
		assert_int_equal(
			tu_run("test \"$(awk '{s += $NF} END {print s}' <<'EOF'\n%sEOF\n)\""
			       " = 47001000",
			       out),
			0);
		free(out);
		golden("boot-folded-insns", cmd_folded, insns);
		golden("boot-folded-ll", cmd_folded, ll);
	}
}

/* diff of b and h, text and JSON golden as name, the JSON then checked by the python check. */
static void diff_case(const char *name, const char *b, const char *h, const char *check)
{
	char *text[] = {"diff", (char *)b, (char *)h, NULL};
	char *json[] = {"diff", "--json", (char *)b, (char *)h, NULL};

	golden(name, cmd_diff, text);
	tu_golden_json(name, dir, cmd_diff, json);
	assert_int_equal(tu_run("python3 -c 'import json, sys; d = json.load(open(sys.argv[1]));"
				" %s' %s/out.json",
				check, dir),
			 0);
}

/* interface D: one side only is new or gone, intervals with 2 boots a side */
static void test_diff(void **state)
{
	char b[128];

	snprintf(b, sizeof(b), "%s", base());
	diff_case("boot-diff", b, hard(),
		  "f = {x[\"name\"]: x for x in d[\"functions\"]};"
		  " i = {x[\"name\"]: x for x in d[\"initcalls\"]};"
		  " assert f[\"shuffle_free_memory\"][\"status\"] == \"new\";"
		  " assert f[\"shuffle_free_memory\"][\"base_insns\"] is None;"
		  " assert f[\"old_func\"][\"status\"] == \"gone\";"
		  " assert i[\"shuffle_init\"][\"status\"] == \"new\";"
		  " assert i[\"old_init\"][\"status\"] == \"gone\";"
		  " p = {x[\"name\"]: x for x in d[\"phases\"]};"
		  " assert p[\"first_user\"][\"delta_ns\"] == 3000000;"
		  " assert p[\"first_user\"][\"significant\"] is True;"
		  " assert p[\"kernel_entry\"][\"significant\"] is False;"
		  " assert d[\"base\"][\"runs\"] == 2");
}

/*
 * One boot a side: no interval, nothing significant or not (null); and
 * with the model on the hardened side only, no function new or gone.
 */
static void test_diff_one_run(void **state)
{
	static const struct {
		const char *golden, *mode, *check;
	} c[] = {
		{"boot-diff-one", "insns",
		 "r = d[\"phases\"] + d[\"initcalls\"] + d[\"functions\"];"
		 " assert all(x[k] is None for x in r for k in x"
		 " if k.startswith(\"ci_\") or k == \"significant\"), r;"
		 " assert \"misses\" not in d[\"functions\"][0]"},
		{"boot-diff-nomodel", NULL,
		 "assert d[\"functions\"] == [];"
		 " assert len(d[\"initcalls\"]) == 4 and len(d[\"phases\"]) == 3"},
	};
	char b[128];
	size_t i;

	for (i = 0; i < sizeof(c) / sizeof(c[0]); i++) {
		snprintf(b, sizeof(b), "%s",
			 boot_recording(&(struct side){"b1.data", BASE_CMD, c[i].mode, 1}, 0));
		diff_case(c[i].golden, b,
			  boot_recording(&(struct side){"h1.data", HARD_CMD, "insns", 1}, 1),
			  c[i].check);
	}
}

/*
 * TLB misses and events (format 2) over three boots a side: the kernel's
 * and each function's fields compared with Welch's intervals, est_cycles
 * weighed by the table of the guest's CPU (Skylake), named (report: the
 * kernel's and each function's means per boot); against a
 * recording of format 1 the fields are unknown, said, not zero.
 */
static void test_diff_model(void **state)
{
	char b[128], h[128], old[128];

	snprintf(b, sizeof(b), "%s",
		 boot_recording(&(struct side){"bm.data", BASE_CMD, "cache", 3, false,
					       "Skylake-Client-v1", true},
				0));
	snprintf(h, sizeof(h), "%s",
		 boot_recording(&(struct side){"hm.data", HARD_CMD, "cache", 3, false,
					       "Skylake-Client-v1", true},
				1));
	{
		char *text[] = {"report", b, NULL};
		char *json[] = {"report", "--json", b, NULL};

		golden("boot-report-model", cmd_report, text);
		tu_golden_json("boot-report-model", dir, cmd_report, json);
		assert_int_equal(
			tu_run("python3 -c 'import json, sys; d = json.load(open(sys.argv[1]));"
			       " k = d[\"kernel\"]; assert k[\"cr3_writes\"][\"mean\"] == 101;"
			       " assert k[\"cr3_writes\"][\"ci_low\"] < 101;"
			       " assert d[\"costs\"][\"name\"];"
			       " f = {x[\"name\"]: x for x in d[\"functions\"]};"
			       " assert f[\"start_kernel\"][\"dtlb_misses\"] == 42;"
			       " assert f[\"start_kernel\"][\"est_cycles\"] > 0' %s/out.json",
			       dir),
			0);
	}
	diff_case("boot-diff-model", b, h,
		  "k = d[\"kernel\"]; f = {x[\"name\"]: x for x in d[\"functions\"]};"
		  " assert d[\"costs\"][\"est_cycles\"].startswith(\"an estimate\");"
		  " assert k[\"cr3_writes\"][\"delta\"] == 100;"
		  " assert k[\"cr3_writes\"][\"significant\"] is True;"
		  " assert k[\"serializing\"][\"significant\"] is True;"
		  " assert abs(k[\"itlb_misses\"][\"delta\"] - 30) < 1e-9;"
		  " assert k[\"est_cycles\"][\"delta\"] > 0;"
		  " m = f[\"__x86_return_thunk\"][\"model\"];"
		  " assert m[\"serializing\"][\"significant\"] is False;"
		  " assert f[\"start_kernel\"][\"model\"][\"tlb_flushes\"][\"base\"] == 101");
	snprintf(old, sizeof(old), "%s",
		 boot_recording(&(struct side){"bo.data", BASE_CMD, "cache", 3, false,
					       "Skylake-Client-v1", false},
				0));
	diff_case(
		"boot-diff-model-old", old, h,
		"assert all(v is None for v in d[\"kernel\"].values());"
		" assert all(v is None for x in d[\"functions\"] for v in x[\"model\"].values())");
	/* a recording of schema 11 (before the boot's TLBs and events): read, the fields unknown */
	assert_int_equal(
		tu_run("sqlite3 %s \"DROP TABLE boot_func_tlb; DROP TABLE boot_func_events;"
		       " DELETE FROM meta WHERE key = 'model.format';"
		       " PRAGMA user_version = 11\"",
		       old),
		0);
	/* --model insns of format 2: events, no TLB; est_cycles without cache misses */
	snprintf(b, sizeof(b), "%s",
		 boot_recording(&(struct side){"bi.data", BASE_CMD, "insns", 3, false,
					       "Skylake-Client-v1", true},
				0));
	diff_case("boot-diff-model-insns", b,
		  boot_recording(&(struct side){"hi.data", HARD_CMD, "insns", 3, false,
						"Skylake-Client-v1", true},
				 1),
		  "k = d[\"kernel\"]; assert k[\"itlb_misses\"] is None;"
		  " assert k[\"cr3_writes\"][\"delta\"] == 100;"
		  " assert k[\"est_cycles\"][\"significant\"] is True");
	diff_case("boot-diff-model-schema11", old, h,
		  "assert all(v is None for v in d[\"kernel\"].values());"
		  " assert d[\"base\"][\"events\"] is False and d[\"hardened\"][\"events\"]");
	/* no cost table for a CPU of no known model (it crashed): no estimate, the rest compared */
	snprintf(b, sizeof(b), "%s",
		 boot_recording(&(struct side){"bn.data", BASE_CMD, "cache", 3, false, NULL, true},
				0));
	diff_case("boot-diff-model-nocosts", b,
		  boot_recording(&(struct side){"hn.data", HARD_CMD, "cache", 3, false, NULL, true},
				 1),
		  "k = d[\"kernel\"]; assert d[\"costs\"] is None and k[\"est_cycles\"] is None;"
		  " assert k[\"cr3_writes\"][\"delta\"] == 100");
	snprintf(b, sizeof(b), "%s",
		 boot_recording(&(struct side){"bni.data", BASE_CMD, "insns", 3, false, NULL, true},
				0));
	diff_case("boot-diff-model-insns-nocosts", b,
		  boot_recording(
			  &(struct side){"hni.data", HARD_CMD, "insns", 3, false, NULL, true}, 1),
		  "k = d[\"kernel\"]; assert d[\"costs\"] is None and k[\"est_cycles\"] is None;"
		  " assert k[\"cr3_writes\"][\"delta\"] == 100");
}

/* A boot recording under the timing model of core core, 3 boots with events: side h. */
static const char *timing_boots(const char *name, int h, const char *core)
{
	return boot_recording(&(struct side){name, h ? HARD_CMD : BASE_CMD, "timing", 3, false,
					     "Skylake-Client-v1", true, core},
			      h);
}

/*
 * --model timing: est_cycles the model's cycles (the kernel's, not the
 * code's before it), labelled with the core and no cost table (one given
 * is said unused); diff compares two boots of one core, by the change in
 * cycles, and refuses one of another mode or core in one line.
 */
static void test_timing(void **state)
{
	char b[128], h[128], x[128], costs[] = "--costs=share/costs/skylake.json", *err;
	char *text[] = {"report", b, NULL};
	char *json[] = {"report", "--json", b, NULL};
	char *given[] = {"report", "--model", costs, b, NULL};
	char *mixed[] = {"diff", b, x, NULL};
	int ret;

	snprintf(b, sizeof(b), "%s", timing_boots("bt.data", 0, "skylake"));
	snprintf(h, sizeof(h), "%s", timing_boots("ht.data", 1, "skylake"));
	golden("boot-report-timing", cmd_report, text);
	tu_golden_json("boot-report-timing", dir, cmd_report, json);
	assert_int_equal(tu_run("python3 -c 'import json, sys; d = json.load(open(sys.argv[1]));"
				" k = d[\"kernel\"]; assert d[\"costs\"] is None;"
				" assert d[\"core\"] == \"skylake\";"
				" assert k[\"est_cycles\"][\"mean\"] == 8140100' %s/out.json",
				dir),
			 0);
	err = tu_run_fd(cmd_report, given, 2, &ret);
	assert_int_equal(ret, 0);
	assert_string_equal(err, "kprotperf: --costs share/costs/skylake.json not used: est_cycles"
				 " of a timing recording is the timing model's cycles\n");
	free(err);
	diff_case("boot-diff-timing", b, h,
		  "k = d[\"kernel\"]; assert d[\"costs\"] is None;"
		  " assert k[\"est_cycles\"][\"delta\"] == 140000;"
		  " assert k[\"est_cycles\"][\"significant\"] is True");
	snprintf(x, sizeof(x), "%s",
		 boot_recording(&(struct side){"hc.data", HARD_CMD, "cache", 3, false,
					       "Skylake-Client-v1", true},
				1));
	tu_expect(cmd_diff, mixed, 2, 1,
		  "kprotperf diff: the base recording was modelled with timing, the hardened one"
		  " with cache: compare recordings of one mode\n");
	tu_expect(cmd_diff, mixed, 1, 1, "");
	snprintf(x, sizeof(x), "%s", timing_boots("hz.data", 1, "epyc-milan"));
	tu_expect(cmd_diff, mixed, 2, 1,
		  "kprotperf diff: the base boots were timed by core skylake, the hardened ones by"
		  " epyc-milan: compare boots of one core (boot both with one --core)\n");
}

static void test_features(void **state)
{
	char b[128], h[128];

	snprintf(b, sizeof(b), "%s", base());
	snprintf(h, sizeof(h), "%s", hard());
	{
		char *text[] = {"features", h, NULL};
		char *json[] = {"features", "--json", h, NULL};
		char *plain[] = {
			"features",
			(char *)boot_recording(&(struct side){"plain.data", BASE_CMD, NULL, 1,
							      false, "Skylake-Client-v1"},
					       0),
			NULL};

		golden("boot-features", cmd_features, text);
		tu_golden_json("boot-features", dir, cmd_features, json);
		golden("boot-features-plain", cmd_features, plain);
	}
}

/* The protection map of two boots: placed by instructions per boot, the SVG well-formed. */
static void test_map(void **state)
{
	char b[128], h[128];

	snprintf(b, sizeof(b), "%s", base());
	snprintf(h, sizeof(h), "%s", hard());
	{
		char *json[] = {"features", "--json", b, h, NULL};
		char *svg[] = {"features", "--svg", b, h, NULL};
		char path[160], *out = tu_output(cmd_features, svg);

		tu_golden_json("boot-map", dir, cmd_features, json);
		snprintf(path, sizeof(path), "%s/map.svg", dir);
		assert_int_equal(tu_write_file(path, out), 0);
		assert_int_equal(tu_run("python3 -c 'import sys, xml.etree.ElementTree as E;"
					" E.parse(sys.argv[1])' %s",
					path),
				 0);
		assert_non_null(strstr(out, "page_alloc_shuffle +2.00 M insns"));
		free(out);
	}
}

/*
 * Boots that differ in init_on_free=1 alone: init_on_alloc_free stays on
 * (by the config) but is now set by the command line, its own functions ran
 * in neither boot, and the map charges it the whole boot's change (3 M
 * instructions in the fixture), every other feature its functions'.
 */
static void test_map_sole_switch(void **state)
{
	char b[128], h[128];

	snprintf(b, sizeof(b), "%s", base());
	snprintf(h, sizeof(h), "%s",
		 boot_recording(&(struct side){"iof.data", BASE_CMD " init_on_free=1", "cache", 2},
				1));
	{
		char *json[] = {"features", "--json", b, h, NULL};

		tu_golden_json("boot-map-sole", dir, cmd_features, json);
		assert_int_equal(
			tu_run("python3 -c 'import json, sys; d = json.load(open(sys.argv[1]));"
			       " f = [x for c in d[\"cells\"] for x in c[\"features\"]];"
			       " w = [x for x in f if x[\"measured\"] == \"whole boot\"];"
			       " assert [x[\"name\"] for x in w] == [\"init_on_alloc_free\"], w;"
			       " assert w[0][\"delta_insns\"] == 3000000, w' %s/out.json",
			       dir),
			0);
	}
}

/* A workload's recording: meta only, as record leaves one with nothing sampled. */
static const char *workload(void)
{
	static char path[128];
	struct kv_list meta = {};
	struct datafile *df;
	char why[256];

	snprintf(path, sizeof(path), "%s/k.data", dir);
	unlink(path);
	assert_int_equal(datafile_create(&df, path, (uid_t)-1, why, sizeof(why)), 0);
	assert_int_equal(kv_add(&meta, "kernel.release", "6.1.0-26-amd64"), 0);
	assert_int_equal(recording_put_meta(df, &meta), 0);
	assert_int_equal(datafile_commit(df, (uid_t)-1, (gid_t)-1, why, sizeof(why)), 0);
	kv_list_free(&meta);
	return path;
}

/* After sql on the recording at path, report refuses it in one line holding want. */
static void report_refused(const char *path, const char *sql, const char *want)
{
	char *report[] = {"report", (char *)path, NULL}, *out;
	int ret;

	assert_int_equal(tu_run("sqlite3 %s \"%s\"", path, sql), 0);
	out = tu_run_fd(cmd_report, report, 2, &ret);
	assert_int_equal(ret, 1);
	assert_non_null(strstr(out, want));
	assert_ptr_equal(strchr(out, '\n') + 1, out + strlen(out));
	free(out);
}

static void test_refused(void **state)
{
	char b[128], k[128], want[512], *out;
	int ret;

	snprintf(b, sizeof(b), "%s", base());
	snprintf(k, sizeof(k), "%s", workload());
	{
		char *diff[] = {"diff", b, k, NULL};
		char *map[] = {"features", "--json", k, b, NULL};
		char *folded[] = {"folded", "--model", "i1", b, NULL};

		snprintf(
			want, sizeof(want),
			"kprotperf diff: %s is a boot recording (kprotperf boot) and %s a recording"
			" of a workload (kprotperf record): diff compares two of a kind\n",
			b, k);
		tu_expect(cmd_diff, diff, 2, 1, want);
		snprintf(want, sizeof(want),
			 "kprotperf features: %s is a boot recording (kprotperf boot) and %s a"
			 " recording of a workload (kprotperf record): features compares two of a"
			 " kind\n",
			 b, k);
		tu_expect(cmd_features, map, 2, 1, want);
		out = tu_run_fd(cmd_folded, folded, 1, &ret);
		assert_int_equal(ret, 0);
		free(out);
	}
	/* a run the recording does not have: one line naming the table and the run */
	report_refused(
		b, "UPDATE boot_initcalls SET run = 7 WHERE seq = 2 AND run = 1",
		"table boot_initcalls: run 7, but the recording has 2 boots (meta boot.runs)");
	/* more boots than the views keep */
	report_refused(b, "UPDATE meta SET value = 101 WHERE key = 'boot.runs'",
		       "meta boot.runs: '101' is not a number of boots from 1 to 100");
}

/* A function's name with an OSC escape, a BEL, a quote, a backslash and a ';'. */
static void test_hostile(void **state)
{
	char b[128], h[128], *out;

	snprintf(b, sizeof(b), "%s", base());
	snprintf(h, sizeof(h), "%s",
		 boot_recording(&(struct side){"evil.data", HARD_CMD, "cache", 2, true}, 1));
	{
		char *report[] = {"report", h, NULL};
		char *diff[] = {"diff", b, h, NULL};
		char *folded[] = {"folded", "--model", "insns", h, NULL};
		char *json[] = {"diff", "--json", b, h, NULL};
		char *rjson[] = {"report", "--json", h, NULL};
		char **text[] = {report, diff, folded};
		int (*cmd[])(int, char **) = {cmd_report, cmd_diff, cmd_folded};
		size_t i;

		for (i = 0; i < 3; i++) {
			out = tu_output(cmd[i], text[i]);
			assert_null(strchr(out, '\x1b'));
			assert_null(strchr(out, '\x07'));
			assert_non_null(strstr(out, "evil\\x1b]0"));
			free(out);
		}
		tu_golden_json("boot-hostile-diff", dir, cmd_diff, json);
		tu_golden_json("boot-hostile-report", dir, cmd_report, rjson);
	}
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_report),	     cmocka_unit_test(test_report_plain),
		cmocka_unit_test(test_folded),	     cmocka_unit_test(test_diff),
		cmocka_unit_test(test_diff_one_run), cmocka_unit_test(test_diff_model),
		cmocka_unit_test(test_timing),	     cmocka_unit_test(test_features),
		cmocka_unit_test(test_map),	     cmocka_unit_test(test_map_sole_switch),
		cmocka_unit_test(test_refused),	     cmocka_unit_test(test_hostile),
	};
	int rc;

	strcpy(dir, "/tmp/kp-boot-XXXXXX");
	if (!mkdtemp(dir))
		return 1;
	/* no calibrated table of this machine: a table only by the guest's CPU or --costs */
	setenv("HOME", dir, 1);
	unsetenv("XDG_CACHE_HOME");
	rc = cmocka_run_group_tests(tests, NULL, NULL);
	tu_run("rm -rf %s", dir);
	return rc;
}
