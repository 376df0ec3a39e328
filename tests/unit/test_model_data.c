// SPDX-License-Identifier: GPL-2.0-only
/*
 * report --model --data, annotate --model --data-type and diff --model
 * --data offline: a small static program built at test time in two layouts
 * of one struct (item.c; -DLAYOUT_B moves hot to the front, cold behind the
 * padding, and drops only_a) stands in for the recorded workload, its
 * DWARF typing the accesses for real (a pointer parameter, a register
 * stepped through an array, globals by address, an integer used as an
 * address: untypeable).  The recording holds the model's counts as inject
 * leaves them, at the program's PCs mapped where it was linked: each
 * memory instruction of its functions ran 100 times, a read, a write or
 * both as objdump shows its operands, and missed the D1 on half of them
 * when its displacement falls in the second half of a 128-byte pair of
 * lines, else on a tenth: hot's misses fall from A to B, cold's rise.
 * One kernel PC without the kernel's DWARF: untyped, and said so.  Text
 * and JSON compared whole with goldens (tests/unit/golden/model-data-*),
 * the fixture's folder masked; each bad input its one line.
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

static const char item_src[] =
	"struct item {\n"
	"#ifdef LAYOUT_B\n"
	"	long hot;\n"
	"	long pad[8];\n"
	"	long cold;\n"
	"#else\n"
	"	long cold;\n"
	"	long pad[8];\n"
	"	long hot;\n"
	"#endif\n"
	"	char name[16];\n"
	"#ifndef LAYOUT_B\n"
	"	int only_a;\n"
	"#endif\n"
	"	struct pair {\n"
	"		int a, b;\n"
	"	} in;\n"
	"};\n"
	"struct item items[4];\n"
	"__attribute__((noinline)) long kp_sum(struct item *it, int n)\n"
	"{\n"
	"	long s = 0;\n"
	"	for (int i = 0; i < n; i++)\n"
	"		s += it[i].hot;\n"
	"	return s;\n"
	"}\n"
	"__attribute__((noinline)) void kp_touch(struct item *it)\n"
	"{\n"
	"	it->cold = 1;\n"
	"	it->name[3] = 2;\n"
	"	it->in.b = 3;\n"
	"#ifndef LAYOUT_B\n"
	"	it->only_a++;\n"
	"#endif\n"
	"}\n"
	"__attribute__((noinline)) long kp_global(void)\n"
	"{\n"
	"	return items[2].hot + items[1].pad[3];\n"
	"}\n"
	"__attribute__((noinline)) long kp_opaque(unsigned long a)\n"
	"{\n"
	"	return *(volatile long *)(a * 3);\n"
	"}\n"
	"#ifdef KP_ALT\n"
	"__attribute__((noinline)) long kp_patched(struct item *it)\n"
	"{\n"
	"	long v;\n"
	"	asm volatile(\"661: lea 0x48(%%rdi), %%rax\\n662:\\n\"\n"
	"		     \".pushsection .altinstructions,\\\"a\\\"\\n\"\n"
	"		     \".long 661b - .\\n.long 663f - .\\n.word 0\\n\"\n"
	"		     \".byte 662b - 661b\\n.byte 664f - 663f\\n.popsection\\n\"\n"
	"		     \".pushsection .altinstr_replacement,\\\"ax\\\"\\n\"\n"
	"		     \"663: mov 0x48(%%rdi), %%rax\\n664:\\n.popsection\"\n"
	"		     : \"=a\"(v) : \"D\"(it) : \"memory\");\n"
	"	return v;\n"
	"}\n"
	"#endif\n"
	"long sink;\n"
	"void _start(void)\n"
	"{\n"
	"	kp_touch(&items[0]);\n"
	"	sink = kp_sum(items, 4) + kp_global() + kp_opaque(8);\n"
	"	for (;;)\n"
	"		;\n"
	"}\n";

#define KPC	0xffffffff81000100ULL /* the kernel PC, a read 7 times */
#define SLIDE	0x2a000000ULL	      /* the kernel's KASLR slide */
#define MAX_PCS 64

/* One counted PC of a fixture: its address, and its reads and writes per run. */
struct upc {
	__u64 pc;
	bool r, w;
	unsigned long disp;
};

struct prog {
	char path[PATH_MAX], data[PATH_MAX], bid[ELFSYM_BID_HEX];
	struct upc pcs[MAX_PCS];
	size_t npcs;
	struct {
		char name[64];
		__u64 addr, size;
	} fn[8];
	size_t nfn;
};

static struct {
	struct tu_fixture t;
	struct prog p[4]; /* layout A, layout B, A linked as a kernel, with a patched site */
	struct prog *in;  /* the one objdump is reading */
	bool infn;	  /* in one of its kp_ functions or _start */
	bool no_cache;	  /* the next recording simulated no caches */
	bool tlb;	  /* the next recording is of format 2, with TLBs */
} * fx;

/* A memory operand's displacement ("0x48(%rdi)": 0x48); 0 when none. */
static unsigned long disp_of(const char *ops)
{
	const char *p = strchr(ops, '(');

	while (p && p > ops && p[-1] != ',' && p[-1] != ' ' && p[-1] != '\t')
		p--;
	return p ? strtoul(p, NULL, 16) : 0;
}

/* objdump's line of an instruction: reads, writes or both of memory, as its operands say. */
static void insn(struct prog *p, __u64 a, const char *mn, const char *ops)
{
	const char *comma = strrchr(ops, ',');
	bool dst = comma ? strchr(comma, '(') != NULL : false;
	bool mem = strchr(ops, '(') != NULL;
	struct upc *u = &p->pcs[p->npcs];

	if (p->npcs == MAX_PCS || !strncmp(mn, "lea", 3) || strstr(mn, "nop") ||
	    !strcmp(mn, "cs") || !strcmp(mn, "data16"))
		return;
	*u = (struct upc){.pc = a, .disp = disp_of(ops)};
	if (!strcmp(mn, "ret") || !strncmp(mn, "call", 4)) {
		u->r = !strcmp(mn, "ret");
		u->w = !u->r;
	} else if (mem) {
		u->w = dst;
		u->r = !dst || strncmp(mn, "mov", 3);
	}
	p->npcs += u->r || u->w;
}

static void objdump_line(const char *line, void *arg)
{
	struct prog *p = fx->in;
	char name[64], mn[32], ops[128] = "";
	unsigned long long a;

	if (sscanf(line, "%llx <%63[^>]>:", &a, name) == 2) {
		fx->infn = !strncmp(name, "kp_", 3) || !strcmp(name, "_start");
		if (fx->infn && p->nfn < 8) {
			snprintf(p->fn[p->nfn].name, sizeof(p->fn[0].name), "%s", name);
			p->fn[p->nfn++].addr = a;
		}
		return;
	}
	if (fx->infn && sscanf(line, " %llx:\t%31s %127[^\n]", &a, mn, ops) >= 2)
		insn(p, a, mn, ops);
}

static int build_one(struct prog *p, const char *dir, const char *name, const char *flags)
{
	size_t i;

	snprintf(p->path, sizeof(p->path), "%s/%s", dir, name);
	snprintf(p->data, sizeof(p->data), "%s/%s.data", dir, name);
	fx->in = p;
	if (tu_run("cd '%s' && cc -O2 -g -fno-pie -no-pie -static -nostdlib -fno-stack-protector"
		   " -fcf-protection=none -fdebug-prefix-map='%s'=. -Wl,--build-id %s item.c -o %s"
		   " 2>/dev/null",
		   dir, dir, flags, name) ||
	    tu_each_line(objdump_line, NULL, "objdump -d --no-show-raw-insn '%s'", p->path) ||
	    elfsym_build_id(p->path, p->bid, sizeof(p->bid)) || !*p->bid || !p->nfn)
		return -1;
	/* each function's size: up to the next one's start (they are in address order) */
	for (i = 0; i < p->nfn; i++)
		p->fn[i].size = i + 1 < p->nfn ? p->fn[i + 1].addr - p->fn[i].addr : 0x40;
	return p->npcs > 6 ? 0 : -1;
}

static int build(void *f)
{
	char *d = ((struct tu_fixture *)f)->dir, src[PATH_MAX];

	fx = f;
	snprintf(src, sizeof(src), "%s/item.c", d);
	if (tu_write_file(src, item_src))
		return -1;
	return build_one(&fx->p[0], d, "a", "") ?: build_one(&fx->p[1], d, "b", "-DLAYOUT_B")
		?: build_one(&fx->p[2], d, "vmlinux",
			     "-mcmodel=kernel -Wl,-Ttext=0xffffffff81000000")
		?: build_one(&fx->p[3], d, "vmalt",
			     "-DKP_ALT -mcmodel=kernel -Wl,-Ttext=0xffffffff81000000");
}

/* The meta of a recording of kernel build kbid (NULL: one no file here has). */
static void put_meta(struct datafile *df, const char *kbid)
{
	struct kv_list meta = {};

	if (kbid)
		assert_int_equal(kv_add(&meta, "kernel.build_id", "%s", kbid), 0);
	else
		assert_int_equal(kv_add(&meta, "kernel.build_id", "%040d", 7), 0);
	assert_int_equal(kv_add(&meta, "kernel.release", "6.1.0-kp-data-test"), 0);
	assert_int_equal(kv_add(&meta, "model.windows", "1"), 0);
	assert_int_equal(kv_add(&meta, "model.state", "counted"), 0);
	assert_int_equal(kv_add(&meta, "model.mode", fx->no_cache ? "insns" : "cache"), 0);
	assert_int_equal(kv_add(&meta, "model.window", "complete"), 0);
	assert_int_equal(kv_add(&meta, "model.qemu", "1:7.2"), 0);
	if (fx->tlb)
		assert_int_equal(kv_add(&meta, "model.format", "2"), 0);
	assert_int_equal(recording_put_meta(df, &meta), 0);
	kv_list_free(&meta);
}

static void put_pc(struct datafile *df, const struct upc *u)
{
	__u64 v[MODEL_STATS] = {};
	__u64 miss = u->disp % 128 >= 64 ? 50 : 10;

	v[MODEL_D1_READS] = u->r ? 100 : 0;
	v[MODEL_D1_READ_MISSES] = u->r ? miss : 0;
	v[MODEL_D1_WRITES] = u->w ? 100 : 0;
	v[MODEL_D1_WRITE_MISSES] = u->w ? miss : 0;
	v[MODEL_LL_MISSES] = 1;
	assert_int_equal(model_put_pc(df, u->pc, 100), 0);
	if (!fx->no_cache)
		assert_int_equal(model_put_misses(df, u->pc, 0, v), 0);
	/* a D-TLB miss on each 25 accesses */
	if (fx->tlb)
		assert_int_equal(model_put_tlb(df, u->pc, 0, 0, (u->r + u->w) * 4), 0);
}

static void fill(struct datafile *df, const struct prog *p)
{
	struct model_geom g = {{{32768, 8, 64}, {32768, 8, 64}, {8388608, 16, 64}},
			       {{128, 8}, {64, 4}}};
	__u64 v[MODEL_STATS] = {[MODEL_D1_READS] = 7, [MODEL_D1_READ_MISSES] = 3};
	size_t i;

	put_meta(df, NULL);
	assert_int_equal(recording_put_ksym(df, 0xffffffff81000000ULL, "_stext", ""), 0);
	assert_int_equal(recording_put_ksym(df, KPC - 0x10, "kfunc", ""), 0);
	if (!fx->no_cache)
		assert_int_equal(model_put_geom(df, 0, &g), 0);
	if (fx->tlb)
		assert_int_equal(model_put_tlbs(df, 0, &g), 0);
	assert_int_equal(recording_put_map(df, 10, 0x401000, 0x402000, 0x1000, p->path, p->bid), 0);
	for (i = 0; i < p->nfn; i++)
		assert_int_equal(
			model_put_usym(df, p->fn[i].addr, p->fn[i].size, p->fn[i].name, p->path),
			0);
	for (i = 0; i < p->npcs; i++)
		put_pc(df, &p->pcs[i]);
	assert_int_equal(model_put_pc(df, KPC, 7), 0);
	if (!fx->no_cache)
		assert_int_equal(model_put_misses(df, KPC, 0, v), 0);
}

/*
 * The kernel's recording: the program linked as a vmlinux, its functions
 * kernel symbols and its PCs kernel PCs, both SLIDE above where it was
 * linked (KASLR), undone through the symbols the vmlinux also has.
 */
static void fill_kernel(struct datafile *df, const struct prog *p)
{
	struct model_geom g = {{{32768, 8, 64}, {32768, 8, 64}, {8388608, 16, 64}}};
	struct upc u;
	size_t i;

	put_meta(df, p->bid);
	assert_int_equal(model_put_geom(df, 0, &g), 0);
	for (i = 0; i < p->nfn; i++)
		assert_int_equal(recording_put_ksym(df, p->fn[i].addr + SLIDE, p->fn[i].name, ""),
				 0);
	for (i = 0; i < p->npcs; i++) {
		u = p->pcs[i];
		u.pc += SLIDE;
		put_pc(df, &u);
	}
}

static void recording(const struct prog *p, const char *path)
{
	struct datafile *df;
	char why[256];

	unlink(path);
	assert_int_equal(datafile_create(&df, path, (uid_t)-1, why, sizeof(why)), 0);
	if (p == &fx->p[2] || p == &fx->p[3])
		fill_kernel(df, p);
	else
		fill(df, p);
	assert_int_equal(datafile_commit(df, (uid_t)-1, (gid_t)-1, why, sizeof(why)), 0);
}

static void recordings(void)
{
	recording(&fx->p[0], fx->p[0].data);
	recording(&fx->p[1], fx->p[1].data);
}

static void golden(const char *name, int (*cmd)(int, char **), char **argv)
{
	int ret;
	char *out = tu_run_fd(cmd, argv, 1, &ret);

	assert_int_equal(ret, 0);
	tu_golden_mask(name, out, (const char *const[]){fx->t.dir, "DIR", NULL});
	free(out);
}

/* cmd's JSON on argv, pretty-printed, golden; the python3 expression check holds of it (d). */
static void golden_json(const char *name, int (*cmd)(int, char **), char **argv, const char *check)
{
	char path[PATH_MAX + 16];

	tu_golden_json(name, fx->t.dir, cmd, argv);
	snprintf(path, sizeof(path), "%s/out.json", fx->t.dir);
	assert_int_equal(tu_run("python3 -c 'import json, sys; d = json.load(open(sys.argv[1]));"
				" assert %s, d' '%s'",
				check, path),
			 0);
}

static void test_report_text(void **state)
{
	char *argv[] = {"report", "--model", "--data", fx->p[0].data, NULL};

	fx = tu_fixture(state);
	recordings();
	golden("model-data-report", cmd_report, argv);
}

/* The JSON parses, and its sums hold: the types' and untyped accesses are all of them. */
static void test_report_json(void **state)
{
	char *argv[] = {"report", "--model", "--data", "--json", fx->p[0].data, NULL};

	fx = tu_fixture(state);
	recordings();
	golden_json(
		"model-data-report", cmd_report, argv,
		"d[\"accesses\"] == sum(t[\"reads\"] + t[\"writes\"] for t in d[\"data_types\"])"
		" + d[\"untyped_totals\"][\"reads\"] + d[\"untyped_totals\"][\"writes\"]"
		" and d[\"kernel_typed_share\"] == 0 and 0 < d[\"user_typed_share\"] <= 1"
		" and any(u[\"function\"] == \"kfunc\" and u[\"accesses\"] == 7"
		" for u in d[\"untyped\"])"
		" and any(t[\"type\"] == \"struct item\" and t[\"size\"] == 112"
		" for t in d[\"data_types\"])");
}

static void test_annotate(void **state)
{
	char *text[] = {"annotate", "--model", "--data-type", "item", fx->p[0].data, NULL};
	char *pair[] = {"annotate", "--model", "--data-type", "pair", fx->p[0].data, NULL};
	char *json[] = {"annotate", "--model",	   "--data-type", "struct item",
			"--json",   fx->p[0].data, NULL};

	fx = tu_fixture(state);
	recordings();
	golden("model-data-annotate", cmd_annotate, text);
	/* a type no access had as its own: its layout alone, from the program's DWARF */
	golden("model-data-annotate-pair", cmd_annotate, pair);
	golden_json("model-data-annotate", cmd_annotate, json,
		    "d[\"type\"] == \"struct item\" and [m[\"member\"] for m in d[\"members\"]]"
		    " == [\"cold\", \"pad\", \"hot\", \"name\", \"only_a\", \"in\"]"
		    " and d[\"members\"][5][\"nested\"][0][\"member\"] == \"in.b\"");
}

/* hot moved to the front in B: its misses fell; cold's rose; only_a is A's alone. */
static void test_diff(void **state)
{
	char *text[] = {"diff", "--model", "--data", fx->p[0].data, fx->p[1].data, NULL};
	char *json[] = {"diff", "--model", "--data", "--json", fx->p[0].data, fx->p[1].data, NULL};

	fx = tu_fixture(state);
	recordings();
	golden("model-data-diff", cmd_diff, text);
	golden_json(
		"model-data-diff", cmd_diff, json,
		"sorted((m[\"member\"], m[\"base_offset\"], m[\"hard_offset\"], m[\"side\"])"
		" for t in d[\"data_types\"] if t[\"type\"] == \"struct item\""
		" for m in t[\"members\"] if m[\"member\"] in (\"hot\", \"cold\", \"only_a\"))"
		" == [(\"cold\", 0, 72, \"both\"), (\"hot\", 72, 0, \"both\"),"
		" (\"only_a\", 96, None, \"base only\")] and all(m[\"change\"] =="
		" (m[\"hardened\"] or {}).get(\"misses\", 0) - (m[\"base\"] or {}).get(\"misses\", 0)"
		" for t in d[\"data_types\"] for m in t[\"members\"])");
}

/* Of a table of format 2: the D-TLB's misses per type and member, a column of their own. */
static void test_tlb(void **state)
{
	char *argv[] = {"report", "--model", "--data", "-n", "1", fx->p[0].data, NULL};

	fx = tu_fixture(state);
	fx->tlb = true;
	recording(&fx->p[0], fx->p[0].data);
	fx->tlb = false;
	golden("model-data-tlb", cmd_report, argv);
}

/* The same accesses as kernel PCs, typed through the vmlinux given, the KASLR slide undone. */
static void test_kernel(void **state)
{
	char *argv[] = {"report",    "--model",	    "--data",	   "--json",
			"--vmlinux", fx->p[2].path, fx->p[2].data, NULL};

	fx = tu_fixture(state);
	recording(&fx->p[2], fx->p[2].data);
	golden_json("model-data-kernel", cmd_report, argv,
		    "d[\"user_typed_share\"] is None and d[\"kernel_typed_share\"] > 0.8"
		    " and [t[\"module\"] for t in d[\"data_types\"]"
		    " if t[\"type\"] == \"struct item\"] == [\"[kernel]\"]");
}

/* The patched site's address in p[3], SLIDE above: kp_patched's first instruction, its asm. */
static __u64 alt_site(void)
{
	size_t i;

	for (i = 0; i < fx->p[3].nfn; i++)
		if (!strcmp(fx->p[3].fn[i].name, "kp_patched"))
			return fx->p[3].fn[i].addr + SLIDE;
	fail_msg("no kp_patched in vmalt");
	return 0;
}

/*
 * A recording of p[3] whose patched site read 100 times: with the bytes it
 * ran (a load of it->hot where the file has a lea) when run, with the
 * plugin's meta saying all were seen when seen, else as before them.
 */
static void recording_alt(const char *path, bool seen, bool run)
{
	static const __u8 mov[] = {0x48, 0x8b, 0x47, 0x48}; /* mov 0x48(%rdi),%rax */
	struct upc u = {.pc = alt_site(), .r = true};
	struct kv_list meta = {};
	struct datafile *df;
	char why[256];

	unlink(path);
	assert_int_equal(datafile_create(&df, path, (uid_t)-1, why, sizeof(why)), 0);
	fill_kernel(df, &fx->p[3]);
	put_pc(df, &u);
	if (run)
		assert_int_equal(model_put_running(df, u.pc, mov, sizeof(mov)), 0);
	if (seen) {
		assert_int_equal(kv_add(&meta, "model.patched_sites", "%d", run), 0);
		assert_int_equal(kv_add(&meta, "model.patched_dropped", "0"), 0);
		assert_int_equal(recording_put_meta(df, &meta), 0);
	}
	kv_list_free(&meta);
	assert_int_equal(datafile_commit(df, (uid_t)-1, (gid_t)-1, why, sizeof(why)), 0);
}

/*
 * A site the kernel patched at boot: typed as the instruction that ran
 * (struct item's hot), not as the file's lea ("no memory operand"); without
 * the running bytes, the reason says it is unknown; with the plugin saying
 * it saw none there, the file's bytes ran.
 */
static void test_patched(void **state)
{
	char *argv[] = {"report",    "--model",	    "--data",	   "--json",
			"--vmlinux", fx->p[3].path, fx->p[3].data, NULL};
	char *text[] = {"report",      "--model",     "--data", "--vmlinux",
			fx->p[3].path, fx->p[3].data, NULL};

	fx = tu_fixture(state);
	recording_alt(fx->p[3].data, true, true);
	golden("model-data-patched", cmd_report, text);
	golden_json("model-data-patched", cmd_report, argv,
		    "not [u for u in d[\"untyped\"] if u[\"function\"] == \"kp_patched\"]");
	recording_alt(fx->p[3].data, false, false);
	golden("model-data-patched-unknown", cmd_report, text);
	recording_alt(fx->p[3].data, true, false);
	golden_json("model-data-patched-same", cmd_report, argv,
		    "[u[\"reason\"] for u in d[\"untyped\"] if u[\"function\"] == \"kp_patched\"]"
		    " == [\"no memory operand\"]");
}

static void test_refusals(void **state)
{
	char *typo[] = {"annotate", "--model", "--data-type", "itme", fx->p[0].data, NULL};
	char *other[] = {"report",	"--model",     "--data", "--vmlinux",
			 fx->p[1].path, fx->p[0].data, NULL};
	char *nocache[] = {"report", "--model", "--data", fx->p[0].data, NULL};
	char *nomodel[] = {"report", "--data", fx->p[0].data, NULL};
	char want[3 * PATH_MAX];

	fx = tu_fixture(state);
	recordings();
	tu_expect(cmd_annotate, typo, 2, 1,
		  "kprotperf annotate: no type 'itme' in the recording's DWARF (closest: item)\n");
	tu_expect(cmd_report, nomodel, 2, 2,
		  "kprotperf report: --data goes with --model (and without --costs: it counts "
		  "accesses, not cycles)\n");
	/* a vmlinux of another build: refused as every view refuses it */
	snprintf(want, sizeof(want),
		 "kprotperf report: %s is the vmlinux of another kernel build: its build-id "
		 "differs from the recorded kernel's (6.1.0-kp-data-test); give the one of the "
		 "recorded kernel with --vmlinux\n",
		 fx->p[1].path);
	tu_expect(cmd_report, other, 2, 1, want);
	fx->no_cache = true;
	recording(&fx->p[0], fx->p[0].data);
	fx->no_cache = false;
	snprintf(want, sizeof(want),
		 "kprotperf report: %s: --data needs the model's caches: record under vm-run.sh "
		 "--model cache\n",
		 fx->p[0].data);
	tu_expect(cmd_report, nocache, 2, 1, want);
}

static int setup(void **state)
{
	int err = tu_fixture_setup(state, sizeof(*fx), "kp-model-data", "cc, objdump and python3",
				   build);

	fx = *state;
	return err;
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_report_text), cmocka_unit_test(test_report_json),
		cmocka_unit_test(test_annotate),    cmocka_unit_test(test_diff),
		cmocka_unit_test(test_tlb),	    cmocka_unit_test(test_kernel),
		cmocka_unit_test(test_refusals),    cmocka_unit_test(test_patched),
	};

	/* no kernel debug files of this machine's are looked at for the recording's kernel */
	setenv("HOME", "/nonexistent", 1);
	return cmocka_run_group_tests(tests, setup, tu_fixture_teardown);
}
