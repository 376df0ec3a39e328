// SPDX-License-Identifier: GPL-2.0-only
/*
 * annotate --model offline: a fixture ELF built at test time stands in for
 * the recorded kernel's vmlinux (linked where the kernel is, with _stext,
 * a build-id and DWARF), and a recording holds the model's counts as
 * inject leaves them, with a KASLR slide.  kp_loop is assembly, so that
 * its graph and its lines are known by construction: a guard, a loop of
 * four instructions, two returns.  Its counts are those of 10 calls, 7
 * with n = 5 and 3 with n = 0, so that every edge, the taken ratios
 * (30 % and 80 %) and the loop's trips (35 in 7 entries) follow from the
 * block counts.  kp_outer (C) has kp_inner inlined: its PCs count at the
 * inlined line.  Text and JSON compared whole with golden files
 * (tests/unit/golden/model-annotate-*), the fixture's folder masked.
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
#include "data/model.h"
#include "data/recording.h"
#include "symbols/elfsym.h"
#include "testutil.h"
#include "util/kv.h"

#define SLIDE 0x2a000000ULL

/* _stext first, then kp_loop: rdi an array of esi ints, their sum in eax. */
static const char loop_src[] = ".text\n"
			       ".globl _stext\n.type _stext,@function\n_stext:\n"
			       "\tcall kp_outer\n\tud2\n.size _stext, .-_stext\n"
			       ".globl kp_loop\n.type kp_loop,@function\nkp_loop:\n"
			       "\txor %eax, %eax /* KP_GUARD */\n"
			       "\ttest %esi, %esi\n"
			       "\tjle 3f\n"
			       "1:\tadd (%rdi), %eax /* KP_BODY */\n"
			       "\tadd $4, %rdi\n"
			       "\tdec %esi\n"
			       "\tjnz 1b /* KP_LATCH */\n"
			       "\tret /* KP_DONE */\n"
			       "3:\tmov $-1, %eax /* KP_EMPTY */\n"
			       "\tret\n"
			       ".size kp_loop, .-kp_loop\n";

static const char outer_src[] = "volatile int sink;\n"
				"static inline __attribute__((always_inline)) int kp_inner(int x)\n"
				"{\n"
				"	return x * sink + 3; /* KP_INNER */\n"
				"}\n"
				"__attribute__((noinline)) int kp_outer(void)\n"
				"{\n"
				"	return kp_inner(sink) + 1;\n"
				"}\n";

/* kp_loop's instructions, in order, and the times each ran in the 10 calls */
static const unsigned int runs[] = {10, 10, 10, 35, 35, 35, 35, 7, 3, 3};
#define NLOOP	  (sizeof(runs) / sizeof(runs[0]))
#define MAX_INSNS 64

static struct {
	struct tu_fixture t;
	char vmlinux[PATH_MAX], data[PATH_MAX], bid[ELFSYM_BID_HEX];
	__u64 stext, loop, outer;
	__u64 insns[MAX_INSNS]; /* objdump's: kp_loop's, then kp_outer's */
	size_t ninsns, nloop;
	const char *in; /* the function objdump is in */
} * fx;

static void objdump_line(const char *line, void *arg)
{
	unsigned long long a;
	char name[64];

	if (sscanf(line, "%llx <%63[^>]>:", &a, name) == 2) {
		fx->in = !strcmp(name, "kp_loop")    ? "loop"
			 : !strcmp(name, "kp_outer") ? "outer"
						     : "";
		return;
	}
	if (!fx->in || !*fx->in || sscanf(line, " %llx:", &a) != 1 || fx->ninsns == MAX_INSNS)
		return;
	/* kp_loop's padding after its last ret is none of its code */
	if (!strcmp(fx->in, "loop") && fx->nloop == NLOOP)
		return;
	fx->insns[fx->ninsns++] = a;
	fx->nloop += !strcmp(fx->in, "loop");
}

static int build(void *f)
{
	char *d = ((struct tu_fixture *)f)->dir;

	fx = f;
	snprintf(fx->vmlinux, sizeof(fx->vmlinux), "%s/vmlinux", d);
	if (tu_run("mkdir -p '%s/kp'", d) ||
	    tu_write_file(strcat(strcpy(fx->data, d), "/kp/loop.S"), loop_src) ||
	    tu_write_file(strcat(strcpy(fx->data, d), "/kp/outer.c"), outer_src))
		return -1;
	if (tu_run("cd '%s' && cc -O2 -g -fno-pie -no-pie -static -nostdlib -mcmodel=kernel"
		   " -fno-stack-protector -fdebug-prefix-map='%s'=. -Wl,--build-id"
		   " -Wl,-Ttext=0xffffffff81000000 -Wl,-e,_stext kp/loop.S kp/outer.c -o vmlinux"
		   " 2>/dev/null",
		   d, d) ||
	    tu_each_line(objdump_line, NULL, "objdump -d --no-show-raw-insn '%s'", fx->vmlinux))
		return -1;
	fx->stext = 0xffffffff81000000ULL + SLIDE;
	snprintf(fx->data, sizeof(fx->data), "%s/m.data", d);
	return fx->nloop == NLOOP && fx->ninsns > NLOOP &&
			       !elfsym_build_id(fx->vmlinux, fx->bid, sizeof(fx->bid)) && *fx->bid
		       ? 0
		       : -1;
}

/* The table a recording is of: format 1; format 2 (TLBs and events); mode timing (and cycles) */
enum table { FORMAT1, FORMAT2, TIMING };
static enum table made; /* the one recording() fills */

static void put_meta(struct datafile *df)
{
	struct kv_list meta = {};

	if (made == TIMING) {
		assert_int_equal(kv_add(&meta, "model.core", "ooo"), 0);
		assert_int_equal(kv_add(&meta, "model.timing", "core.width=4 lat.dram=250"), 0);
		assert_int_equal(kv_add(&meta, "model.timing_insns", "1000"), 0);
		assert_int_equal(kv_add(&meta, "model.timing_cycles", "9000"), 0);
	}
	if (made >= FORMAT2) {
		assert_int_equal(kv_add(&meta, "model.format", "2"), 0);
		assert_int_equal(kv_add(&meta, "model.guest_pti", "1"), 0);
		assert_int_equal(kv_add(&meta, "model.guest_pcid", "1"), 0);
	}
	assert_int_equal(kv_add(&meta, "kernel.build_id", "%s", fx->bid), 0);
	assert_int_equal(kv_add(&meta, "kernel.release", "6.1.0-kp-test"), 0);
	assert_int_equal(kv_add(&meta, "model.windows", "1"), 0);
	assert_int_equal(kv_add(&meta, "model.state", "counted"), 0);
	assert_int_equal(kv_add(&meta, "model.mode", made == TIMING ? "timing" : "cache"), 0);
	assert_int_equal(kv_add(&meta, "model.window", "complete"), 0);
	assert_int_equal(kv_add(&meta, "model.qemu", "1:7.2"), 0);
	assert_int_equal(recording_put_meta(df, &meta), 0);
	kv_list_free(&meta);
}

/*
 * Of mode timing, PC i's cycles for its n executions: one each to issue, 8
 * for the guard's fetch miss, 10 for each D1 miss of the load and 30 for
 * each of its D-TLB misses.
 */
static void put_cycles(struct datafile *df, size_t i, __u64 n)
{
	__u64 c[1 + MODEL_CYCS] = {0};
	int k;

	c[1 + MODEL_CYC_BASE] = n;
	c[1 + MODEL_CYC_ICACHE] = i == 0 ? 8 : 0;
	c[1 + MODEL_CYC_DCACHE] = i == 3 ? 10 * (n / 5) : 0;
	c[1 + MODEL_CYC_TLB] = i == 3 ? 30 * (n / 7) : 0;
	for (k = 1; k <= MODEL_CYCS; k++)
		c[0] += c[k];
	assert_int_equal(model_put_cycles(df, fx->insns[i] + SLIDE, c), 0);
}

/*
 * kp_loop's PCs as the model counts 10 calls; kp_outer's at 0 (how many it
 * has is the compiler's say); a user PC without DWARF.
 */
static void fill(struct datafile *df)
{
	struct model_geom g = {{{32768, 8, 64}, {32768, 8, 64}, {8388608, 16, 64}},
			       {{128, 8}, {64, 4}}};
	__u64 v[MODEL_STATS];
	size_t i;

	put_meta(df);
	assert_int_equal(recording_put_ksym(df, fx->stext, "_stext", ""), 0);
	assert_int_equal(recording_put_ksym(df, fx->insns[0] + SLIDE, "kp_loop", ""), 0);
	assert_int_equal(recording_put_ksym(df, fx->insns[NLOOP] + SLIDE, "kp_outer", ""), 0);
	assert_int_equal(model_put_geom(df, 0, &g), 0);
	if (made >= FORMAT2)
		assert_int_equal(model_put_tlbs(df, 0, &g), 0);
	assert_int_equal(model_put_usym(df, 0x401000, 0x20, "ufunc", "/nonexistent/prog"), 0);
	assert_int_equal(model_put_pc(df, 0x401000, 4), 0);
	for (i = 0; i < fx->ninsns; i++) {
		__u64 n = i < NLOOP ? runs[i] : 0;

		memset(v, 0, sizeof(v));
		v[MODEL_I1_MISSES] = i == 0 || i == 3;
		/* the loop's load: a read each time, a miss on every fifth */
		v[MODEL_D1_READS] = i == 3 ? n : 0;
		v[MODEL_D1_READ_MISSES] = i == 3 ? n / 5 : 0;
		v[MODEL_LL_MISSES] = i == 3 ? 2 : 0;
		assert_int_equal(model_put_pc(df, fx->insns[i] + SLIDE, n), 0);
		assert_int_equal(model_put_misses(df, fx->insns[i] + SLIDE, 0, v), 0);
		if (made == TIMING)
			put_cycles(df, i, n);
		if (made == FORMAT1)
			continue;
		/* the guard's fetch misses the I-TLB once, the load the D-TLB every seventh */
		assert_int_equal(
			model_put_tlb(df, fx->insns[i] + SLIDE, 0, i == 0, i == 3 ? n / 7 : 0), 0);
		/* kp_loop's two returns */
		if (i == 7 || i == 9)
			assert_int_equal(model_put_event(df, fx->insns[i] + SLIDE, "ret", 0), 0);
	}
}

/* fx->data made afresh: a recording of a table of that kind */
static void recording(enum table table)
{
	struct datafile *df;
	char why[256];

	made = table;
	unlink(fx->data);
	assert_int_equal(datafile_create(&df, fx->data, (uid_t)-1, why, sizeof(why)), 0);
	fill(df);
	assert_int_equal(datafile_commit(df, (uid_t)-1, (gid_t)-1, why, sizeof(why)), 0);
}

static void golden(const char *name, char **argv)
{
	int ret;
	char *out = tu_run_fd(cmd_annotate, argv, 1, &ret);

	assert_int_equal(ret, 0);
	tu_golden_mask(name, out, (const char *const[]){fx->t.dir, "DIR", NULL});
	free(out);
}

static void test_blocks_text(void **state)
{
	char *argv[] = {"annotate",  "--model",	  "-f",	    "kp_loop",
			"--vmlinux", fx->vmlinux, fx->data, NULL};

	fx = tu_fixture(state);
	recording(FORMAT1);
	golden("model-annotate-text", argv);
}

/*
 * annotate --model --json -f func: it succeeds, and the python3 expression
 * check holds of its one function f.
 */
static void check_json(const char *func, const char *check)
{
	char *argv[] = {"annotate",  "--model",	  "--json", "-f", (char *)func,
			"--vmlinux", fx->vmlinux, fx->data, NULL};
	char *out, path[PATH_MAX + 16];
	int ret;

	out = tu_run_fd(cmd_annotate, argv, 1, &ret);
	assert_int_equal(ret, 0);
	snprintf(path, sizeof(path), "%s/%s.json", fx->t.dir, func);
	assert_int_equal(tu_write_file(path, out), 0);
	free(out);
	assert_int_equal(tu_run("python3 -c 'import json, sys; f = json.load(open(sys.argv[1]))"
				"[\"functions\"][0]; assert %s, f' '%s'",
				check, path),
			 0);
}

static void test_blocks_json(void **state)
{
	char *argv[] = {"annotate",  "--model",	  "--json", "-f", "kp_loop",
			"--vmlinux", fx->vmlinux, fx->data, NULL};

	fx = tu_fixture(state);
	recording(FORMAT1);
	golden("model-annotate-json", argv);
	/* it parses, and the derived numbers are those of the 10 calls */
	check_json("kp_loop",
		   "[x[\"count\"] for x in f[\"blocks\"]] == [10, 35, 7, 3]"
		   " and [x.get(\"taken\") for x in f[\"blocks\"]] == [0.3, 0.8, None, None]"
		   " and (f[\"loops\"][0][\"entries\"], f[\"loops\"][0][\"iterations\"])"
		   " == (7, 35) and f[\"insns\"] == 183 and f[\"d1_read_misses\"] == 7");
}

/* kp_inner's code in kp_outer counts at kp_inner's own line, with it as the inlined chain. */
static void test_inlined_line(void **state)
{
	char check[512];

	fx = tu_fixture(state);
	recording(FORMAT1);
	snprintf(check, sizeof(check),
		 "any(l[\"inlined\"] == \"kp_inner\" and l[\"file\"].endswith(\"kp/outer.c\")"
		 " and l[\"line\"] == %d for l in f[\"lines\"])",
		 tu_marker_line(outer_src, "KP_INNER"));
	check_json("kp_outer", check);
}

/*
 * Of a table of format 2, with a cost table: est_cycles, the TLB misses and
 * the returns per line and per block, text and JSON whole.
 */
static void test_blocks_tlb(void **state)
{
	char *text[] = {"annotate", "--model", "--costs",   "tests/unit/model/costs.json",
			"-f",	    "kp_loop", "--vmlinux", fx->vmlinux,
			fx->data,   NULL};
	char *json[] = {
		"annotate", "--model", "--json",    "--costs",	 "tests/unit/model/costs.json",
		"-f",	    "kp_loop", "--vmlinux", fx->vmlinux, fx->data,
		NULL};

	fx = tu_fixture(state);
	recording(FORMAT2);
	golden("model-annotate-tlb-text", text);
	golden("model-annotate-tlb-json", json);
}

/*
 * Of mode timing: est_cycles the model's cycles, and with --stack each
 * line's and block's stack, text and JSON whole; without --stack no stack
 * columns.
 */
static void test_blocks_timing(void **state)
{
	char *text[] = {"annotate",  "--model",	  "--stack", "-f", "kp_loop",
			"--vmlinux", fx->vmlinux, fx->data,  NULL};
	char *plain[] = {"annotate",  "--model",   "-f",     "kp_loop",
			 "--vmlinux", fx->vmlinux, fx->data, NULL};
	char *json[] = {"annotate",  "--model",	  "--json", "-f", "kp_loop",
			"--vmlinux", fx->vmlinux, fx->data, NULL};
	char *out;

	fx = tu_fixture(state);
	recording(TIMING);
	golden("model-annotate-timing-text", text);
	out = tu_output(cmd_annotate, plain);
	assert_null(strstr(out, "serialize"));
	assert_non_null(strstr(out, "# est_cycles (timing model, core ooo)"));
	free(out);
	golden("model-annotate-timing-json", json);
}

static void test_refusals(void **state)
{
	char *user[] = {"annotate",  "--model",	  "-f",	    "ufunc",
			"--vmlinux", fx->vmlinux, fx->data, NULL};
	char *none[] = {"annotate",  "--model",	  "-f",	    "kp_none",
			"--vmlinux", fx->vmlinux, fx->data, NULL};
	char want[2 * PATH_MAX];

	fx = tu_fixture(state);
	recording(FORMAT1);
	snprintf(want, sizeof(want),
		 "kprotperf annotate: %s: no line of ufunc is known: no DWARF for "
		 "/nonexistent/prog (build it with -g, install its -dbg package, or give --symfs "
		 "DIR holding its files)\n",
		 fx->data);
	tu_expect(cmd_annotate, user, 2, 1, want);
	snprintf(want, sizeof(want),
		 "kprotperf annotate: %s: kp_none has no instruction the model counted (see report "
		 "--model)\n",
		 fx->data);
	tu_expect(cmd_annotate, none, 2, 1, want);
}

static int setup(void **state)
{
	int err = tu_fixture_setup(state, sizeof(*fx), "kp-model-ann", "cc, objdump and python3",
				   build);

	fx = *state;
	return err;
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_blocks_text),  cmocka_unit_test(test_blocks_json),
		cmocka_unit_test(test_inlined_line), cmocka_unit_test(test_blocks_tlb),
		cmocka_unit_test(test_refusals),     cmocka_unit_test(test_blocks_timing),
	};

	/* no calibrated table of this machine: est_cycles only with --costs */
	setenv("HOME", "/nonexistent", 1);
	return cmocka_run_group_tests(tests, setup, tu_fixture_teardown);
}
