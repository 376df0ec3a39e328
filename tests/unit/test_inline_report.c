// SPDX-License-Identifier: GPL-2.0-only
/*
 * report --inline, folded and annotate offline, no kernel involved: a fixture
 * ELF built at test time stands in for the recorded kernel's vmlinux (linked
 * where the kernel is, with _stext, a GNU build-id and DWARF), and synthetic
 * recordings hold stacks through its inlined function as record writes them,
 * with a KASLR slide.  The expected addresses, ranges and lines come from nm,
 * objdump and llvm-dwarfdump, never from kprotperf's own symbolizer, and the
 * lines from marker comments in the fixture's source.  Outputs are compared
 * whole: with golden files (tests/unit/golden/inline-*) where what the
 * toolchain decides (addresses, sizes, build-id) is masked once checked
 * against those tools, or with a text computed whole from them.
 */
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>

#include <limits.h>
#include <sqlite3.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "cmd/cmds.h"
#include "data/datafile.h"
#include "data/query.h"
#include "symbols/elfsym.h"
#include "report/report_folded.h"
#include "util/hist.h"
#include "symbols/inlines.h"
#include "report/report.h"
#include "testutil.h"
#include "util/fmt.h"

#define OK(expr) assert_int_equal((expr), 0)

#define RELEASE "6.1.0-kp-test"
#define SRC	"mm/kp_slab.c" /* as the compiler was given it, like mm/slub.c */
#define SLIDE	0x2a000000ULL
#define COMM	"kp"

/*
 * Built as the kernel is, never run: linked at 0xffffffff81000000, _stext in
 * .text.  kp_shuffle is always inlined into kp_alloc_slab; its call of the
 * cold kp_fill goes to kp_alloc_slab's .cold part, so the instance has two
 * ranges.  KP_SEED differs in the "other build".
 */
static const char fixture_src[] =
	"#ifndef KP_SEED\n"
	"#define KP_SEED 3\n"
	"#endif\n"
	"asm(\".text\\n.globl _stext\\n.type _stext,@function\\n_stext:\\n\\tcall kp_main\\n\"\n"
	"    \"\\tud2\\n.size _stext, .-_stext\\n\");\n"
	"volatile int sink;\n"
	"__attribute__((noinline, noclone, cold)) int kp_fill(int x)\n"
	"{\n"
	"	return x * KP_SEED + sink; /* KP_FILL_BODY */\n"
	"}\n"
	"static inline __attribute__((always_inline)) int kp_shuffle(const int *a, int n)\n"
	"{\n"
	"	int i, s = 0;\n"
	"\n"
	"	for (i = 0; i < n; i++) {\n"
	"		if (a[i] == 7)\n"
	"			s += kp_fill(a[i]); /* KP_SHUFFLE_CALL */\n"
	"		s ^= a[i] * sink; /* KP_SHUFFLE_BODY */\n"
	"	}\n"
	"	return s;\n"
	"}\n"
	"__attribute__((noinline, noclone)) int kp_alloc_slab(const int *a, int n)\n"
	"{\n"
	"	int r = sink * KP_SEED;\n"
	"\n"
	"	r += kp_shuffle(a, n); /* KP_CALL_SHUFFLE */\n"
	"	sink = r;\n"
	"	return r + 1; /* KP_ALLOC_RET */\n"
	"}\n"
	"__attribute__((noinline, noclone)) int kp_new_slab(const int *a, int n)\n"
	"{\n"
	"	return kp_alloc_slab(a, n) + 2; /* KP_CALL_NEW */\n"
	"}\n"
	"__attribute__((noinline, noclone)) int kp_other_caller(const int *a, int n)\n"
	"{\n"
	"	return kp_alloc_slab(a, n) * 3; /* KP_CALL_OTHER */\n"
	"}\n"
	"int kp_main(void)\n"
	"{\n"
	"	static const int a[4] = {1, 7, 3, 4};\n"
	"\n"
	"	return kp_new_slab(a, 4) + kp_other_caller(a, 2); /* KP_MAIN_BODY */\n"
	"}\n";

#define PATH_LEN   192
#define MAX_SYMS   32
#define MAX_INSNS  512
#define MAX_ROWS   512
#define MAX_RANGES 8
#define NSTACKS	   5
#define MAX_FRAMES 6

struct sym {
	char name[64];
	__u64 addr, size;
};

struct insn {
	__u64 addr;
	char mnem[16];
	char sym[64]; /* the target of a direct call */
};

struct row {
	__u64 addr;
	int line;
};

/* A frame as folded should print it, root first. */
struct xframe {
	const char *name;
	int line;
	bool inl;
};

/* A recorded kernel stack: link-time addresses, leaf first, and what it means; 0-ended. */
struct stack {
	long long id, count;
	__u64 addr[4];
	struct xframe want[MAX_FRAMES];
};

static struct {
	/* short: they are spliced into messages compared whole */
	char dir[128];
	char vmlinux[PATH_LEN], other[PATH_LEN], nodwarf[PATH_LEN];
	char probe[PATH_LEN], plain[PATH_LEN], noslide[PATH_LEN], schema2[PATH_LEN];
	char bid[ELFSYM_BID_HEX];
	bool built;
	const char *broken; /* the fixture came out other than the tests assume */
	struct sym syms[MAX_SYMS];
	size_t nsyms;
	struct insn insns[MAX_INSNS];
	size_t ninsns;
	struct row rows[MAX_ROWS];
	size_t nrows;
	/* the kp_shuffle instance: link-time, sorted, empty ranges dropped */
	struct inline_range ranges[MAX_RANGES];
	size_t nranges;
	__u64 entry, bytes;
	int call_line;
	/* sampled pcs and return addresses, link-time */
	__u64 body, parent_pc, fill_pc, main_pc, ret_fill, ret_new, ret_other;
	struct stack stacks[NSTACKS];
} fx;

/* The line of the fixture's source holding marker. */
static int marker_line(const char *marker)
{
	return tu_marker_line(fixture_src, marker);
}

static void nm_line(const char *line, void *arg)
{
	struct sym s = {};
	char type;

	if (sscanf(line, "%llx %llx %c %63s", &s.addr, &s.size, &type, s.name) == 4 &&
	    (type == 'T' || type == 't') && fx.nsyms < MAX_SYMS)
		fx.syms[fx.nsyms++] = s;
}

static void objdump_line(const char *line, void *arg)
{
	struct insn *in = &fx.insns[fx.ninsns];
	char ops[256] = "";
	unsigned long long target;

	memset(in, 0, sizeof(*in));
	if (sscanf(line, " %llx:\t%15s %255[^\n]", &in->addr, in->mnem, ops) < 2)
		return;
	if (!strcmp(in->mnem, "call"))
		sscanf(ops, "%llx <%63[^>]>", &target, in->sym);
	if (fx.ninsns < MAX_INSNS - 1)
		fx.ninsns++;
}

/* Rows of llvm-dwarfdump --debug-line; end_sequence rows start no code. */
static void line_row(const char *line, void *arg)
{
	struct row r;

	if (sscanf(line, "0x%llx %d", &r.addr, &r.line) == 2 && !strstr(line, "end_sequence") &&
	    fx.nrows < MAX_ROWS)
		fx.rows[fx.nrows++] = r;
}

static void add_range(__u64 lo, __u64 hi)
{
	if (fx.nranges < MAX_RANGES)
		fx.ranges[fx.nranges++] = (struct inline_range){lo, hi};
}

/* llvm-dwarfdump --name=kp_shuffle: its DW_TAG_inlined_subroutine, read without libdw. */
static void dump_line(const char *line, void *arg)
{
	static bool in_inst, in_ranges;
	unsigned long long lo, hi;

	if (strstr(line, ": DW_TAG_")) {
		in_inst = strstr(line, "DW_TAG_inlined_subroutine") != NULL;
		in_ranges = false;
		return;
	}
	if (!in_inst)
		return;
	if (strstr(line, "DW_AT_"))
		in_ranges = strstr(line, "DW_AT_ranges") != NULL;
	if (sscanf(line, " DW_AT_entry_pc (0x%llx)", &lo) == 1)
		fx.entry = lo;
	else if (sscanf(line, " DW_AT_low_pc (0x%llx)", &lo) == 1)
		add_range(lo, lo);
	else if (sscanf(line, " DW_AT_high_pc (0x%llx)", &hi) == 1 && fx.nranges)
		fx.ranges[fx.nranges - 1].hi = hi;
	else if (sscanf(line, " DW_AT_call_line (%d)", &fx.call_line) == 1)
		;
	else if (in_ranges && sscanf(line, " [0x%llx, 0x%llx)", &lo, &hi) == 2)
		add_range(lo, hi);
}

/* As inlines.h gives them: sorted, without empty ranges. */
static void normalise_ranges(void)
{
	size_t i, n = 0;

	qsort(fx.ranges, fx.nranges, sizeof(fx.ranges[0]), tu_cmp_range);
	for (i = 0; i < fx.nranges; i++)
		if (fx.ranges[i].hi > fx.ranges[i].lo)
			fx.ranges[n++] = fx.ranges[i];
	fx.nranges = n;
	fx.bytes = 0;
	for (i = 0; i < n; i++)
		fx.bytes += fx.ranges[i].hi - fx.ranges[i].lo;
}

static const struct sym *sym_named(const char *name)
{
	size_t i;

	for (i = 0; i < fx.nsyms; i++)
		if (!strcmp(fx.syms[i].name, name))
			return &fx.syms[i];
	return NULL;
}

/* The function (nm) holding addr: what kallsyms would name it. */
static const char *sym_at(__u64 addr)
{
	size_t i;

	for (i = 0; i < fx.nsyms; i++)
		if (addr >= fx.syms[i].addr && addr < fx.syms[i].addr + fx.syms[i].size)
			return fx.syms[i].name;
	return "?";
}

static bool in_inline(__u64 pc)
{
	size_t i;

	for (i = 0; i < fx.nranges; i++)
		if (pc >= fx.ranges[i].lo && pc < fx.ranges[i].hi)
			return true;
	return false;
}

/* The line of pc: that of the last row at or below it, as the line program defines. */
static int line_of(__u64 pc)
{
	__u64 best = 0;
	int line = -1;
	size_t i;

	for (i = 0; i < fx.nrows; i++) {
		if (fx.rows[i].addr <= pc && fx.rows[i].addr >= best) {
			best = fx.rows[i].addr;
			line = fx.rows[i].line;
		}
	}
	return line;
}

/* The first row address in [lo, hi) all of whose rows are on line: a pc with one answer. */
static __u64 addr_on_line(__u64 lo, __u64 hi, const char *marker)
{
	int line = marker_line(marker);
	size_t i, k;
	bool all;

	for (i = 0; i < fx.nrows; i++) {
		if (fx.rows[i].addr < lo || fx.rows[i].addr >= hi || fx.rows[i].line != line)
			continue;
		for (all = true, k = 0; k < fx.nrows; k++)
			all &= fx.rows[k].addr != fx.rows[i].addr || fx.rows[k].line == line;
		if (all)
			return fx.rows[i].addr;
	}
	return 0;
}

static __u64 addr_in_func(const char *func, const char *marker, bool inl)
{
	const struct sym *s = sym_named(func);
	__u64 a = s ? addr_on_line(s->addr, s->addr + s->size, marker) : 0;

	return a && in_inline(a) == inl ? a : 0;
}

/* The return address of caller's call of callee (any caller when NULL); 0 if none. */
static __u64 ret_after(const char *caller, const char *callee)
{
	size_t i;

	for (i = 0; i + 1 < fx.ninsns; i++)
		if (!strcmp(fx.insns[i].mnem, "call") && !strcmp(fx.insns[i].sym, callee) &&
		    (!caller || !strcmp(sym_at(fx.insns[i].addr), caller)))
			return fx.insns[i + 1].addr;
	return 0;
}

/* Compiled in dir with a relative name, so the DWARF names mm/kp_slab.c as the kernel's. */
static int compile(const char *out, const char *defs)
{
	return tu_run("cd '%s' && cc -O2 -g %s -fno-pie -no-pie -static -nostdlib -mcmodel=kernel"
		      " -fno-stack-protector -fdebug-prefix-map='%s'=. -Wl,--build-id"
		      " -Wl,-Ttext=0xffffffff81000000 -Wl,-e,_stext " SRC " -o '%s' 2>/dev/null",
		      fx.dir, defs, fx.dir, out);
}

static int build(void)
{
	char src[PATH_MAX];

	snprintf(src, sizeof(src), "%s/mm", fx.dir);
	snprintf(fx.vmlinux, sizeof(fx.vmlinux), "%s/vmlinux", fx.dir);
	snprintf(fx.other, sizeof(fx.other), "%s/vmlinux-other", fx.dir);
	snprintf(fx.nodwarf, sizeof(fx.nodwarf), "%s/vmlinux-nodwarf", fx.dir);
	if (tu_run("mkdir -p '%s'", src))
		return -1;
	snprintf(src, sizeof(src), "%s/" SRC, fx.dir);
	if (tu_write_file(src, fixture_src) || compile(fx.vmlinux, "") ||
	    compile(fx.other, "-DKP_SEED=5"))
		return -1;
	if (tu_run("strip -g -o '%s' '%s'", fx.nodwarf, fx.vmlinux) ||
	    tu_run("command -v llvm-dwarfdump >/dev/null"))
		return -1;
	return elfsym_build_id(fx.vmlinux, fx.bid, sizeof(fx.bid)) || !*fx.bid ? -1 : 0;
}

/* Addresses and lines from the independent tools; NULL, or what is not as assumed. */
static const char *analyse(void)
{
	if (tu_each_line(nm_line, NULL, "nm -S '%s'", fx.vmlinux) ||
	    tu_each_line(objdump_line, NULL, "objdump -d --no-show-raw-insn '%s'", fx.vmlinux) ||
	    tu_each_line(line_row, NULL, "llvm-dwarfdump --debug-line '%s'", fx.vmlinux) ||
	    tu_each_line(dump_line, NULL, "llvm-dwarfdump --name=kp_shuffle '%s'", fx.vmlinux))
		return "nm, objdump or llvm-dwarfdump failed";
	normalise_ranges();
	if (!sym_named("_stext") || !fx.nranges || !fx.entry)
		return "no _stext, or kp_shuffle was not inlined";
	if (fx.call_line != marker_line("KP_CALL_SHUFFLE"))
		return "kp_shuffle's call line is not KP_CALL_SHUFFLE's";
	fx.body = addr_in_func("kp_alloc_slab", "KP_SHUFFLE_BODY", true);
	fx.parent_pc = addr_in_func("kp_alloc_slab", "KP_ALLOC_RET", false);
	fx.fill_pc = addr_in_func("kp_fill", "KP_FILL_BODY", false);
	fx.main_pc = addr_in_func("kp_main", "KP_MAIN_BODY", false);
	fx.ret_fill = ret_after(NULL, "kp_fill");
	fx.ret_new = ret_after("kp_new_slab", "kp_alloc_slab");
	fx.ret_other = ret_after("kp_other_caller", "kp_alloc_slab");
	if (!fx.body || !fx.parent_pc || !fx.fill_pc || !fx.main_pc)
		return "no unambiguous pc on a marker line";
	if (!fx.ret_fill || !in_inline(fx.ret_fill - 1) ||
	    line_of(fx.ret_fill - 1) != marker_line("KP_SHUFFLE_CALL") ||
	    line_of(fx.ret_new - 1) != marker_line("KP_CALL_NEW") ||
	    line_of(fx.ret_other - 1) != marker_line("KP_CALL_OTHER"))
		return "a call is not where its marker is";
	return NULL;
}

/*
 * 1: kp_shuffle's body from kp_new_slab, 2: from kp_other_caller, 3: kp_fill
 * called from kp_shuffle (in kp_alloc_slab's .cold part), 4: kp_alloc_slab's
 * own code, 5: kp_main alone.  kp_shuffle: self 5 + 2, total 7 + 3;
 * kp_alloc_slab on the stack: 14 of the 20 samples.
 */
static void describe_stacks(void)
{
	const int l_body = marker_line("KP_SHUFFLE_BODY"), l_call = fx.call_line,
		  l_new = marker_line("KP_CALL_NEW"), l_other = marker_line("KP_CALL_OTHER"),
		  l_fcall = marker_line("KP_SHUFFLE_CALL");
	const char *cold = sym_at(fx.ret_fill - 1);
	const struct stack v[NSTACKS] = {
		{1,
		 5,
		 {fx.body, fx.ret_new},
		 {{"kp_new_slab", l_new}, {"kp_alloc_slab", l_call}, {"kp_shuffle", l_body, true}}},
		{2,
		 2,
		 {fx.body, fx.ret_other},
		 {{"kp_other_caller", l_other},
		  {"kp_alloc_slab", l_call},
		  {"kp_shuffle", l_body, true}}},
		{3,
		 3,
		 {fx.fill_pc, fx.ret_fill, fx.ret_new},
		 {{"kp_new_slab", l_new},
		  {cold, l_call},
		  {"kp_shuffle", l_fcall, true},
		  {"kp_fill", marker_line("KP_FILL_BODY")}}},
		{4,
		 4,
		 {fx.parent_pc, fx.ret_new},
		 {{"kp_new_slab", l_new}, {"kp_alloc_slab", marker_line("KP_ALLOC_RET")}}},
		{5, 6, {fx.main_pc}, {{"kp_main", marker_line("KP_MAIN_BODY")}}},
	};

	memcpy(fx.stacks, v, sizeof(v));
}

static const char meta_sql[] = "INSERT INTO meta VALUES(?,?)";
static const char func_sql[] = "INSERT INTO funcs VALUES(?,?,?,?,?,?)";
static const char lat_sql[] = "INSERT INTO latency VALUES('func',?,?,?,?,?,0,0,?)";
static const char hist_sql[] = "INSERT INTO latency_hist VALUES('func',?,'total',?,?,?,?)";

/* _stext at slide, as record writes it in the meta table. */
static void stext_text(char *buf, size_t len, __u64 slide)
{
	snprintf(buf, len, "0x%llx", (unsigned long long)(sym_named("_stext")->addr + slide));
}

/* What record writes about the kernel and its samples, the kernel at slide. */
static void fill_samples(struct datafile *df, __u64 slide)
{
	char stext[32];
	size_t i;
	int d;

	stext_text(stext, sizeof(stext), slide);
	OK(query_insert(df, meta_sql, "tt", "kernel.release", RELEASE));
	OK(query_insert(df, meta_sql, "tt", "kernel.build_id", fx.bid));
	OK(query_insert(df, meta_sql, "tt", "kernel.stext", stext));
	OK(query_insert(df, meta_sql, "tt", "sampling.freq_hz", "1000"));
	OK(query_insert(df, meta_sql, "tt", "record.command", "kp-test"));
	for (i = 0; i < fx.nsyms; i++)
		OK(query_insert(df, "INSERT INTO ksyms VALUES(?,?,'')", "it",
				(long long)(fx.syms[i].addr + slide), fx.syms[i].name));
	for (i = 0; i < NSTACKS; i++) {
		for (d = 0; fx.stacks[i].addr[d]; d++)
			OK(query_insert(df, "INSERT INTO kstack_frames VALUES(?,?,?)", "iii",
					fx.stacks[i].id, (long long)d,
					(long long)(fx.stacks[i].addr[d] + slide)));
		OK(query_insert(df, "INSERT INTO samples VALUES(100,100,'" COMM "',?,NULL,?)", "ii",
				fx.stacks[i].id, fx.stacks[i].count));
	}
	OK(query_insert(df, "INSERT INTO counters VALUES('samples',20)", ""));
}

/* kp_shuffle's latency: 9 calls of 2us and one of 6us. */
#define INL_CALLS 10
#define INL_TOTAL 24000
#define INL_MAX	  6000
/* kp_alloc_slab probed as well: EST/CALL = 10 samples x 1ms / 20 calls */
#define PARENT_CALLS 20

static void fill_latency(struct datafile *df)
{
	__u32 b1 = kp_hist_bucket(2000), b2 = kp_hist_bucket(INL_MAX);

	OK(query_insert(df, lat_sql, "itiiii", 1LL, "kp_shuffle", (long long)INL_CALLS,
			(long long)INL_CALLS, (long long)INL_TOTAL, (long long)INL_MAX));
	OK(query_insert(df, hist_sql, "iiiii", 1LL, (long long)b1, (long long)hist_lo(b1),
			(long long)hist_hi(b1), 9LL));
	OK(query_insert(df, hist_sql, "iiiii", 1LL, (long long)b2, (long long)hist_lo(b2),
			(long long)hist_hi(b2), 1LL));
	OK(query_insert(df, func_sql, "ittitt", 2LL, "kp_alloc_slab", "kp_alloc_slab",
			(long long)(sym_named("kp_alloc_slab")->addr + SLIDE), NULL, "kprobe"));
	OK(query_insert(df, lat_sql, "itiiii", 2LL, "kp_alloc_slab", (long long)PARENT_CALLS,
			(long long)PARENT_CALLS, 200000LL, 30000LL));
}

/* The recorded ranges as funcs_inline.c writes them, or its exits ("hi:fallthrough"). */
static void ranges_text(char *buf, size_t len, __u64 slide, bool exits)
{
	size_t i, off = 0;

	buf[0] = 0;
	for (i = 0; i < fx.nranges; i++) {
		if (exits)
			off += snprintf(buf + off, len - off, "%s0x%llx:fallthrough", i ? " " : "",
					(unsigned long long)(fx.ranges[i].hi + slide));
		else
			off += snprintf(buf + off, len - off, "%s0x%llx-0x%llx", i ? " " : "",
					(unsigned long long)(fx.ranges[i].lo + slide),
					(unsigned long long)(fx.ranges[i].hi + slide));
	}
}

/* As record --func kp_shuffle writes the instance (inline_probes_put), with its latency. */
static void fill_probe(struct datafile *df)
{
	char ranges[512], exits[512];

	fill_samples(df, SLIDE);
	ranges_text(ranges, sizeof(ranges), SLIDE, false);
	ranges_text(exits, sizeof(exits), SLIDE, true);
	OK(query_insert(df, func_sql, "ittitt", 1LL, "kp_shuffle", "kp_alloc_slab",
			(long long)(fx.entry + SLIDE), "", "inline-kprobe"));
	OK(query_insert(df, "INSERT INTO inlines VALUES(?,?,?,?,?,?,?,?,?)", "itttiitit", 1LL,
			"kp_shuffle", "kp_alloc_slab", SRC, (long long)fx.call_line,
			(long long)(fx.entry + SLIDE), ranges, (long long)fx.bytes, exits));
	fill_latency(df);
}

static void fill_plain(struct datafile *df)
{
	fill_samples(df, SLIDE);
}

static void fill_noslide(struct datafile *df)
{
	fill_samples(df, 0);
}

static void create(char *path, const char *name, void (*fill)(struct datafile *df))
{
	struct datafile *df;

	snprintf(path, PATH_LEN, "%s/%s", fx.dir, name);
	OK(datafile_create(&df, path, (uid_t)-1, NULL, 0));
	fill(df);
	OK(datafile_commit(df, (uid_t)-1, (gid_t)-1, NULL, 0));
}

/* A file as kprotperf before schema 3 wrote it: no inlines table, no inline probes. */
static void make_schema2(void)
{
	sqlite3 *db;

	create(fx.schema2, "schema2.data", fill_probe);
	OK(sqlite3_open_v2(fx.schema2, &db, SQLITE_OPEN_READWRITE, NULL));
	OK(sqlite3_exec(db,
			"DROP TABLE inlines; DELETE FROM funcs WHERE method = 'inline-kprobe';"
			" DELETE FROM latency WHERE id = 1; DELETE FROM latency_hist WHERE id = 1;"
			" PRAGMA user_version = 2;",
			NULL, NULL, NULL));
	sqlite3_close(db);
}

static int setup(void **state)
{
	if (tu_mkdtemp(fx.dir, sizeof(fx.dir), "kp-inline-report"))
		return -1;
	/* without cc, binutils or llvm-dwarfdump the tests skip rather than fail */
	fx.built = !build();
	if (!fx.built)
		return 0;
	fx.broken = analyse();
	if (fx.broken)
		return 0;
	describe_stacks();
	create(fx.probe, "probe.data", fill_probe);
	create(fx.plain, "plain.data", fill_plain);
	create(fx.noslide, "noslide.data", fill_noslide);
	make_schema2();
	return 0;
}

static int teardown(void **state)
{
	if (!getenv("KEEP"))
		tu_run("rm -rf '%s'", fx.dir);
	return 0;
}

static void need_fixture(void)
{
	tu_need_built(fx.built, "cc, binutils, llvm-dwarfdump");
	if (fx.broken)
		fail_msg("the fixture is not as the tests assume: %s", fx.broken);
}

/* How golden files show the instance's row of report --inline, and its JSON. */
static const char row_mark[] = "$ROW\n";
static const char json_mark[] = "\"inline_instances\":[$INSTANCE]}\n";

/*
 * The stdout of cmd on argv, which must succeed, must equal golden file name
 * once what the toolchain decides is masked: the fixture's dir, its build-id
 * and _stext, and want (what the tests compute from the independent tools:
 * the instance's row or JSON; "" for none), which the golden file holds as
 * mark.
 */
static void golden(const char *name, int (*cmd)(int, char **), char **argv, const char *want,
		   const char *mark)
{
	char stext[32], *out = tu_output(cmd, argv);
	const char *const pairs[] = {
		want, mark, fx.dir, "$DIR", fx.bid, "$BID", stext, "$STEXT", NULL,
	};

	stext_text(stext, sizeof(stext), SLIDE);
	tu_golden_mask(name, out, pairs);
	free(out);
}

static __u64 want_p99(void)
{
	__u32 b = kp_hist_bucket(INL_MAX);
	__u64 mid = hist_lo(b) + (hist_hi(b) - hist_lo(b)) / 2;

	return mid > INL_MAX ? INL_MAX : mid;
}

/*
 * The instance's row and ranges line; probed: with record --func's latency;
 * est: kp_alloc_slab's calls were timed.  SELF 7, TOTAL 10, 10 of the 14
 * samples with kp_alloc_slab: 71.4%.
 */
static void want_row(char *buf, size_t len, __u64 slide, bool probed, bool est)
{
	char site[64], p99[32], ranges[512];
	int n;

	snprintf(site, sizeof(site), SRC ":%d", marker_line("KP_CALL_SHUFFLE"));
	fmt_ns(p99, sizeof(p99), want_p99());
	ranges_text(ranges, sizeof(ranges), slide, false);
	n = snprintf(buf, len, "%-20s %-20s %-22s %6llu %6d %6d %6.1f%% %9s %-13s %7d %9s %9s\n",
		     "kp_shuffle", "kp_alloc_slab", site, (unsigned long long)fx.bytes, 7, 10,
		     100.0 * 10 / 14, est ? "500.00us" : "-", probed ? "inline-kprobe" : "samples",
		     probed ? INL_CALLS : 0, probed ? "2.40us" : "-", probed ? p99 : "-");
	/* the ranges line spells them as the JSON does */
	snprintf(buf + n, len - n, "    ranges: %s\n", ranges);
}

static void test_report_inline_dwarf(void **state)
{
	char *argv[] = {"report", "--inline", "--vmlinux", fx.vmlinux, fx.probe, NULL};
	char row[1024];

	need_fixture();
	/* one row: the sampled instance (by DIE) and the probed one (by entry) are the same */
	want_row(row, sizeof(row), SLIDE, true, true);
	golden("inline-report-dwarf", cmd_report, argv, row, row_mark);
}

static void want_json(char *buf, size_t len, bool probed)
{
	char site[64], ranges[512], *p;
	int n;

	snprintf(site, sizeof(site), SRC ":%d", marker_line("KP_CALL_SHUFFLE"));
	ranges_text(ranges, sizeof(ranges), SLIDE, false);
	for (p = strchr(ranges, ' '); p; p = strchr(p, ' '))
		*p = ',';
	n = snprintf(buf, len,
		     "\"inline_instances\":[{\"inlined\":\"kp_shuffle\",\"parent\":"
		     "\"kp_alloc_slab\",\"call_site\":\"%s\",\"bytes\":%llu,\"ranges\":[\"",
		     site, (unsigned long long)fx.bytes);
	for (p = ranges; *p; p++)
		n += snprintf(buf + n, len - n, *p == ',' ? "\",\"" : "%c", *p);
	n += snprintf(buf + n, len - n,
		      "\"],\"self_samples\":7,\"total_samples\":10,\"parent_samples\":14,"
		      "\"est_ns_per_parent_call\":500000,\"method\":\"%s\"",
		      probed ? "inline-kprobe" : "samples");
	if (probed)
		n += snprintf(buf + n, len - n, ",\"calls\":%d,\"avg_ns\":%d,\"p99_ns\":%llu",
			      INL_CALLS, INL_TOTAL / INL_CALLS, (unsigned long long)want_p99());
	snprintf(buf + n, len - n, "}]}\n");
}

static void no_dwarf_note(char *buf, size_t len)
{
	snprintf(buf, len,
		 "no debug info for kernel " RELEASE " (build-id %s) here; install "
		 "linux-image-" RELEASE "-dbg or give its vmlinux with --vmlinux",
		 fx.bid);
}

static void test_report_inline_json(void **state)
{
	char *dwarf[] = {"report", "--inline", "--json", "--vmlinux", fx.vmlinux, fx.probe, NULL};
	char *nodwarf[] = {"report", "--inline", "--json", fx.probe, NULL};
	char want[2048];

	need_fixture();
	want_json(want, sizeof(want), true);
	golden("inline-report-json-dwarf", cmd_report, dwarf, want, json_mark);
	/* without DWARF: the same numbers, from the recorded ranges */
	golden("inline-report-json-nodwarf", cmd_report, nodwarf, want, json_mark);
}

static void test_report_inline_without_dwarf(void **state)
{
	char *probe[] = {"report", "--inline", fx.probe, NULL};
	char *plain[] = {"report", "--inline", fx.plain, NULL};
	char row[1024];

	need_fixture();
	/* the recorded instance, counted on its recorded ranges: the DWARF path's numbers */
	want_row(row, sizeof(row), SLIDE, true, true);
	golden("inline-report-nodwarf", cmd_report, probe, row, row_mark);
	/* nothing probed and no DWARF: no instance known */
	golden("inline-report-plain-nodwarf", cmd_report, plain, "", "");
}

static void test_report_inline_samples_only(void **state)
{
	char *argv[] = {"report", "--inline", "--vmlinux", fx.vmlinux, fx.plain, NULL};
	char row[1024];

	need_fixture();
	/* found in the DWARF by its samples; no parent calls timed, so no EST/CALL */
	want_row(row, sizeof(row), SLIDE, false, false);
	golden("inline-report-samples-only", cmd_report, argv, row, row_mark);
}

static void test_report_kernel_functions(void **state)
{
	char *dwarf[] = {"report", "--json", "--vmlinux", fx.vmlinux, fx.probe, NULL};
	char *nodwarf[] = {"report", "--json", fx.probe, NULL};

	need_fixture();
	/* the inlined function is a row of its own, its samples also its parent's self */
	golden("inline-report-kfuncs-json-dwarf", cmd_report, dwarf, "", "");
	golden("inline-report-kfuncs-json-nodwarf", cmd_report, nodwarf, "", "");
}

/* folded's output for the stacks: one line per distinct text, sorted, counts merged. */
struct fline {
	char text[512];
	long long n;
};

static int cmp_fline(const void *a, const void *b)
{
	return strcmp(((const struct fline *)a)->text, ((const struct fline *)b)->text);
}

static void fold_stack(const struct stack *s, bool srcline, bool inlines, struct fline *l)
{
	const struct xframe *f;
	size_t off;
	int i;

	off = snprintf(l->text, sizeof(l->text), COMM);
	for (i = 0; s->want[i].name; i++) {
		f = &s->want[i];
		if (f->inl && !inlines)
			continue;
		off += snprintf(l->text + off, sizeof(l->text) - off, ";%s", f->name);
		if (srcline)
			off += snprintf(l->text + off, sizeof(l->text) - off, ":" SRC ":%d",
					f->line);
		off += snprintf(l->text + off, sizeof(l->text) - off, f->inl ? "_[i]" : "_[k]");
	}
	l->n = s->count;
}

static char *want_folded(bool srcline, bool inlines)
{
	struct fline v[NSTACKS];
	char *buf = calloc(1, 4096);
	size_t i, off = 0;

	for (i = 0; i < NSTACKS; i++)
		fold_stack(&fx.stacks[i], srcline, inlines, &v[i]);
	qsort(v, NSTACKS, sizeof(v[0]), cmp_fline);
	for (i = 0; i < NSTACKS; i++) {
		if (i + 1 < NSTACKS && !strcmp(v[i].text, v[i + 1].text)) {
			v[i + 1].n += v[i].n;
			continue;
		}
		off += snprintf(buf + off, 4096 - off, "%s %lld\n", v[i].text, v[i].n);
	}
	return buf;
}

static void expect_folded(char **argv, bool srcline, bool inlines)
{
	char *want = want_folded(srcline, inlines);

	tu_expect(cmd_folded, argv, 1, 0, want);
	free(want);
}

static void test_folded_inline(void **state)
{
	char *argv[] = {"folded", "--vmlinux", fx.vmlinux, fx.probe, NULL};

	need_fixture();
	expect_folded(argv, false, true);
	/* spelled out once, so a wrong model above cannot hide a wrong order */
	golden("inline-folded", cmd_folded, argv, "", "");
}

static void test_folded_srcline(void **state)
{
	char *argv[] = {"folded", "--srcline", "--vmlinux", fx.vmlinux, fx.probe, NULL};

	need_fixture();
	expect_folded(argv, true, true);
	golden("inline-folded-srcline", cmd_folded, argv, "", "");
}

static void test_folded_no_inline(void **state)
{
	char *argv[] = {"folded", "--no-inline", "--vmlinux", fx.vmlinux, fx.probe, NULL};

	need_fixture();
	expect_folded(argv, false, false);
	/* stacks 1 and 4 are one line once the inline frame is gone */
	golden("inline-folded-no-inline", cmd_folded, argv, "", "");
}

/* Per range: SELF = samples with the leaf pc in it, TOTAL = with the parent's pc in it. */
static void range_counts(const struct inline_range *r, long long *self, long long *total)
{
	*self = fx.body >= r->lo && fx.body < r->hi ? 7 : 0;
	*total = *self + (fx.ret_fill - 1 >= r->lo && fx.ret_fill - 1 < r->hi ? 3 : 0);
}

/*
 * Per line: stack 3 at kp_shuffle's call of kp_fill (total only), stacks 1
 * and 2 in its body, stack 4 in kp_alloc_slab's own code; 11 samples self.
 */
static void want_annotate(char *buf, size_t len)
{
	static const char fmt[] = "%8lld %6.2f%% %8lld  " SRC ":%-*d %s\n";
	const int w = 36 - (int)strlen(SRC ":");
	long long self, total;
	size_t i;
	int n;

	n = snprintf(buf, len,
		     "Per source line (SELF: the sampled pc is on the line; TOTAL: also in "
		     "functions\ncalled from it; INLINED: the functions inlined there, outermost "
		     "first)\n%8s %7s %8s  %-36s %s\n",
		     "SELF", "SELF%", "TOTAL", "LINE", "INLINED");
	n += snprintf(buf + n, len - n, fmt, 0LL, 0.0, 3LL, w, marker_line("KP_SHUFFLE_CALL"),
		      "kp_shuffle");
	n += snprintf(buf + n, len - n, fmt, 7LL, 700.0 / 11, 7LL, w,
		      marker_line("KP_SHUFFLE_BODY"), "kp_shuffle");
	n += snprintf(buf + n, len - n, fmt, 4LL, 400.0 / 11, 4LL, w, marker_line("KP_ALLOC_RET"),
		      "");
	n += snprintf(buf + n, len - n,
		      "\nPer inline range (samples with the pc in the range: SELF at the leaf, "
		      "TOTAL anywhere)\n  kp_shuffle (called at " SRC ":%d), %zu ranges, %llu "
		      "bytes: self 7, total 10\n",
		      fx.call_line, fx.nranges, (unsigned long long)fx.bytes);
	for (i = 0; i < fx.nranges; i++) {
		range_counts(&fx.ranges[i], &self, &total);
		n += snprintf(buf + n, len - n, "    0x%llx-0x%llx %6llu bytes %8lld %8lld\n",
			      (unsigned long long)(fx.ranges[i].lo + SLIDE),
			      (unsigned long long)(fx.ranges[i].hi + SLIDE),
			      (unsigned long long)(fx.ranges[i].hi - fx.ranges[i].lo), self, total);
	}
}

static void test_annotate(void **state)
{
	char *argv[] = {"annotate", "--func", "kp_alloc_slab", "--vmlinux", fx.vmlinux,
			fx.probe,   NULL};
	char want[4096];
	int n;

	need_fixture();
	n = snprintf(want, sizeof(want),
		     "# annotate kp_alloc_slab: 14 samples with it on the kernel stack, 11 in its "
		     "own code\n# kernel " RELEASE ", DWARF from %s\n\n",
		     fx.vmlinux);
	/* stack 3 counts at kp_alloc_slab's .cold part: a clone of it */
	want_annotate(want + n, sizeof(want) - n);
	tu_expect(cmd_annotate, argv, 1, 0, want);
}

static void want_annotate_json(char *buf, size_t len)
{
	long long self, total;
	size_t i;
	int n;

	n = snprintf(buf, len,
		     "{\"function\":\"kp_alloc_slab\",\"vmlinux\":\"%s\",\"self_samples\":11,"
		     "\"total_samples\":14,\"lines\":["
		     "{\"file\":\"" SRC "\",\"line\":%d,\"inlined\":\"kp_shuffle\","
		     "\"self_samples\":0,\"total_samples\":3},"
		     "{\"file\":\"" SRC "\",\"line\":%d,\"inlined\":\"kp_shuffle\","
		     "\"self_samples\":7,\"total_samples\":7},"
		     "{\"file\":\"" SRC "\",\"line\":%d,\"inlined\":\"\","
		     "\"self_samples\":4,\"total_samples\":4}],"
		     "\"inline_instances\":[{\"inlined\":\"kp_shuffle\",\"call_file\":\"" SRC "\","
		     "\"call_line\":%d,\"bytes\":%llu,\"self_samples\":7,\"total_samples\":10,"
		     "\"ranges\":[",
		     fx.vmlinux, marker_line("KP_SHUFFLE_CALL"), marker_line("KP_SHUFFLE_BODY"),
		     marker_line("KP_ALLOC_RET"), fx.call_line, (unsigned long long)fx.bytes);
	for (i = 0; i < fx.nranges; i++) {
		range_counts(&fx.ranges[i], &self, &total);
		n += snprintf(
			buf + n, len - n,
			"%s{\"lo\":%llu,\"hi\":%llu,\"self_samples\":%lld,\"total_samples\":%lld}",
			i ? "," : "", (unsigned long long)(fx.ranges[i].lo + SLIDE),
			(unsigned long long)(fx.ranges[i].hi + SLIDE), self, total);
	}
	snprintf(buf + n, len - n, "]}]}\n");
}

static void test_annotate_json(void **state)
{
	char *argv[] = {"annotate",  "--func",	 "kp_alloc_slab", "--json",
			"--vmlinux", fx.vmlinux, fx.probe,	  NULL};
	char want[4096];

	need_fixture();
	want_annotate_json(want, sizeof(want));
	tu_expect(cmd_annotate, argv, 1, 0, want);
}

static void test_annotate_errors(void **state)
{
	char *nodwarf[] = {"annotate", "--func", "kp_alloc_slab", fx.probe, NULL};
	/* a prefix of a sampled function is not that function */
	char *nowhere[] = {"annotate", "--func", "kp_alloc", "--vmlinux",
			   fx.vmlinux, fx.probe, NULL};
	char want[1024], note[512];

	need_fixture();
	no_dwarf_note(note, sizeof(note));
	snprintf(want, sizeof(want), "kprotperf annotate: annotate needs the kernel's DWARF: %s\n",
		 note);
	tu_expect(cmd_annotate, nodwarf, 2, 1, want);
	tu_expect(cmd_annotate, nodwarf, 1, 1, "");
	snprintf(want, sizeof(want),
		 "kprotperf annotate: no CPU sample has kp_alloc on its kernel stack in %s (see "
		 "the KERNEL FUNCTION table of kprotperf report)\n",
		 fx.probe);
	tu_expect(cmd_annotate, nowhere, 2, 1, want);
}

static void want_other_build(char *buf, size_t len, const char *cmd)
{
	snprintf(buf, len,
		 "kprotperf %s: %s is the vmlinux of another kernel build: its build-id differs "
		 "from the recorded kernel's (" RELEASE "); give the one of the recorded kernel "
		 "with --vmlinux\n",
		 cmd, fx.other);
}

static void test_vmlinux_of_another_build(void **state)
{
	char *report[] = {"report", "--inline", "--vmlinux", fx.other, fx.probe, NULL};
	char *folded[] = {"folded", "--vmlinux", fx.other, fx.probe, NULL};
	char *annotate[] = {"annotate", "--func", "kp_alloc_slab", "--vmlinux", fx.other,
			    fx.probe,	NULL};
	char bid[ELFSYM_BID_HEX], want[1024];

	need_fixture();
	OK(elfsym_build_id(fx.other, bid, sizeof(bid)));
	assert_string_not_equal(bid, fx.bid);
	want_other_build(want, sizeof(want), "report");
	tu_expect(cmd_report, report, 2, 1, want);
	tu_expect(cmd_report, report, 1, 1, "");
	want_other_build(want, sizeof(want), "folded");
	tu_expect(cmd_folded, folded, 2, 1, want);
	want_other_build(want, sizeof(want), "annotate");
	tu_expect(cmd_annotate, annotate, 2, 1, want);
}

static void test_vmlinux_without_dwarf(void **state)
{
	char *report[] = {"report", "--inline", "--vmlinux", fx.nodwarf, fx.probe, NULL};
	char bid[ELFSYM_BID_HEX], want[1024];

	need_fixture();
	/* the same build, only its DWARF gone */
	OK(elfsym_build_id(fx.nodwarf, bid, sizeof(bid)));
	assert_string_equal(bid, fx.bid);
	snprintf(want, sizeof(want),
		 "kprotperf report: %s has no DWARF debug info (install linux-image-" RELEASE
		 "-dbg, or give its vmlinux with --vmlinux)\n",
		 fx.nodwarf);
	tu_expect(cmd_report, report, 2, 1, want);
}

static void test_kaslr(void **state)
{
	char *slid[] = {"folded", "--vmlinux", fx.vmlinux, fx.plain, NULL};
	char *unslid[] = {"folded", "--vmlinux", fx.vmlinux, fx.noslide, NULL};
	char *slid_src[] = {"folded", "--srcline", "--vmlinux", fx.vmlinux, fx.plain, NULL};
	char *unslid_src[] = {"folded", "--srcline", "--vmlinux", fx.vmlinux, fx.noslide, NULL};
	char *report[] = {"report", "--inline", "--vmlinux", fx.vmlinux, fx.noslide, NULL};
	char *nodwarf[] = {"folded", fx.noslide, NULL};
	char row[1024], *a, *b;

	need_fixture();
	a = tu_output(cmd_folded, slid);
	b = tu_output(cmd_folded, unslid);
	assert_string_equal(a, b);
	free(a);
	free(b);
	expect_folded(unslid, false, true);
	expect_folded(slid_src, true, true);
	expect_folded(unslid_src, true, true);
	/* from the kallsyms names alone, no inline frames */
	expect_folded(nodwarf, false, false);
	/* the instance's ranges where that kernel ran: the file's own addresses */
	want_row(row, sizeof(row), 0, false, false);
	golden("inline-report-noslide", cmd_report, report, row, row_mark);
}

static void test_schema2(void **state)
{
	char *nodwarf[] = {"report", "--inline", fx.schema2, NULL};
	char *dwarf[] = {"report", "--inline", "--vmlinux", fx.vmlinux, fx.schema2, NULL};
	char *whole[] = {"report", fx.schema2, NULL};
	char row[1024];
	struct datafile *df;
	char why[256];

	need_fixture();
	OK(datafile_open(&df, fx.schema2, why, sizeof(why)));
	assert_int_equal(query_scalar(df, "PRAGMA user_version", NULL), 2);
	assert_int_equal(query_scalar(df,
				      "SELECT COUNT(*) FROM main.sqlite_master WHERE name ="
				      " 'inlines'",
				      NULL),
			 0);
	datafile_close(df);
	golden("inline-report-schema2-nodwarf", cmd_report, nodwarf, "", "");
	/* the DWARF's instance, sampled only; kp_alloc_slab's calls still give EST/CALL */
	want_row(row, sizeof(row), SLIDE, false, true);
	golden("inline-report-schema2-dwarf", cmd_report, dwarf, row, row_mark);
	golden("inline-report-schema2", cmd_report, whole, "", "");
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_report_inline_dwarf),
		cmocka_unit_test(test_report_inline_json),
		cmocka_unit_test(test_report_inline_without_dwarf),
		cmocka_unit_test(test_report_inline_samples_only),
		cmocka_unit_test(test_report_kernel_functions),
		cmocka_unit_test(test_folded_inline),
		cmocka_unit_test(test_folded_srcline),
		cmocka_unit_test(test_folded_no_inline),
		cmocka_unit_test(test_annotate),
		cmocka_unit_test(test_annotate_json),
		cmocka_unit_test(test_annotate_errors),
		cmocka_unit_test(test_vmlinux_of_another_build),
		cmocka_unit_test(test_vmlinux_without_dwarf),
		cmocka_unit_test(test_kaslr),
		cmocka_unit_test(test_schema2),
	};

	return cmocka_run_group_tests(tests, setup, teardown);
}
