/* SPDX-License-Identifier: GPL-2.0-only */
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>

#include <errno.h>
#include <limits.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "analysis/inline_ctx.h"
#include "analysis/inline_exits.h"
#include "symbols/debuginfo.h"
#include "symbols/inlines.h"
#include "symbols/symbolize.h"
#include "testutil.h"

/*
 * Built at test time, never run, as the kernel is built: returns through
 * __x86_return_thunk, indirect jumps through __x86_indirect_thunk_rax.
 * kp_work is always inlined into both parents: its unlikely loop body goes
 * to the parents' .cold parts, so each instance has several ranges, with an
 * early return, a call to kp_other (a tail call in kp_parent_two), an
 * indirect tail call, a bare ret and a conditional jump to another function.
 * kp_key is a jump-label site, as the kernel's __jump_table describes them,
 * just after kp_parent_one's instance.
 */
static const char fixture_src[] =
	"static volatile int sink;\n"
	"int (*volatile kp_hook)(int);\n"
	"extern char __start___jump_table[], __stop___jump_table[];\n"
	"asm(\".text\\n.globl __x86_return_thunk\\n.type __x86_return_thunk,@function\\n\"\n"
	"    \"__x86_return_thunk:\\n\\tret\\n\\tint3\\n.size __x86_return_thunk, .-__x86_return_thunk\\n\"\n"
	"    \".globl __x86_indirect_thunk_rax\\n.type __x86_indirect_thunk_rax,@function\\n\"\n"
	"    \"__x86_indirect_thunk_rax:\\n\\tjmp *%rax\\n\\tint3\\n\"\n"
	"    \".size __x86_indirect_thunk_rax, .-__x86_indirect_thunk_rax\\n\");\n"
	"__attribute__((noinline, noclone, cold)) int kp_leaf(int x)\n"
	"{\n"
	"	sink += x;\n"
	"	return x + 1;\n"
	"}\n"
	"__attribute__((noinline, noclone)) int kp_other(int x)\n"
	"{\n"
	"	return x * 5 + sink;\n"
	"}\n"
	"__attribute__((noinline, noclone)) int kp_never(int x)\n"
	"{\n"
	"	return x - sink;\n"
	"}\n"
	"static inline __attribute__((always_inline)) int kp_key(void)\n"
	"{\n"
	"	asm goto(\"kp_site: .byte 0x0f,0x1f,0x44,0x00,0x00\\n\\t\"\n"
	"		 \".pushsection __jump_table,\\\"aw\\\"\\n\\t.balign 8\\n\\t\"\n"
	"		 \".long kp_site - ., %l[on] - .\\n\\t.quad 0\\n\\t.popsection\" : : : : on);\n"
	"	return 0;\n"
	"on:\n"
	"	return 1;\n"
	"}\n"
	"static inline __attribute__((always_inline)) int kp_work(const int *a, int n)\n"
	"{\n"
	"	int i, s = 0;\n"
	"\n"
	"	if (n <= 0)\n"
	"		return -1;\n"
	"	if (n > 1000)\n"
	"		return kp_other(n);\n"
	"	if (n == 999)\n"
	"		return kp_hook(n);\n"
	"	if (n == 998)\n"
	"		asm volatile(\"ret\");\n"
	"	if (n == 997)\n"
	"		asm volatile(\"jne kp_other\");\n"
	"	for (i = 0; i < n; i++) {\n"
	"		if (__builtin_expect(a[i] < 0, 0))\n"
	"			s += kp_leaf(a[i]);\n"
	"		else\n"
	"			s += a[i] * sink;\n"
	"	}\n"
	"	return s;\n"
	"}\n"
	"__attribute__((noinline, noclone)) int kp_parent_one(const int *a, int n)\n"
	"{\n"
	"	int r = kp_work(a, n); /* KP_CALL_ONE */\n"
	"\n"
	"	if (kp_key())\n"
	"		r += sink;\n"
	"	sink = r;\n"
	"	return r + 3;\n"
	"}\n"
	"__attribute__((noinline, noclone)) int kp_parent_two(const int *a, int n)\n"
	"{\n"
	"	return kp_work(a, n); /* KP_CALL_TWO */\n"
	"}\n"
	"int main(int argc, char **argv)\n"
	"{\n"
	"	int a[4] = {argc, 2, 3, 4};\n"
	"\n"
	"	return kp_parent_one(a, argc) + kp_parent_two(a, argc) + kp_never(argc) +\n"
	"	       (int)(__stop___jump_table - __start___jump_table);\n"
	"}\n";

#define MAX_RANGES 16
#define MAX_INSNS  1024
#define MAX_EXT	   8

/* An instance as llvm-dwarfdump shows it. */
struct ext_instance {
	unsigned long long die;
	struct inline_range ranges[MAX_RANGES];
	size_t nranges;
	int call_line;
};

/* An instruction as objdump shows it. */
struct insn {
	unsigned long long addr, target; /* target: of a direct jump or call, else 0 */
	char mnem[16];
	char sym[64]; /* the symbol named with the target */
};

struct fixture {
	struct tu_fixture tu; /* first: tu_fixture_setup() allocates it */
	char exe[PATH_MAX];
	struct insn insns[MAX_INSNS];
	size_t ninsns;
};

/* The line of the fixture's source holding marker. */
static int marker_line(const char *marker)
{
	int line = tu_marker_line(fixture_src, marker);

	assert_true(line > 0);
	return line;
}

static void parse_insn(const char *line, void *arg)
{
	struct fixture *f = arg;
	struct insn *in = &f->insns[f->ninsns];
	char ops[256] = "";

	memset(in, 0, sizeof(*in));
	if (sscanf(line, " %llx:\t%15s %255[^\n]", &in->addr, in->mnem, ops) < 2)
		return;
	if (in->mnem[0] == 'j' || !strcmp(in->mnem, "call"))
		sscanf(ops, "%llx <%63[^>]>", &in->target, in->sym);
	if (f->ninsns < MAX_INSNS - 1)
		f->ninsns++;
}

static int disassemble(struct fixture *f)
{
	if (tu_each_line(parse_insn, f, "objdump -d --no-show-raw-insn '%s'", f->exe))
		return -1;
	return f->ninsns ? 0 : -1;
}

static int build(void *arg)
{
	struct fixture *f = arg;
	char src[PATH_MAX];

	snprintf(src, sizeof(src), "%s/fixture.c", f->tu.dir);
	snprintf(f->exe, sizeof(f->exe), "%s/fixture", f->tu.dir);
	if (tu_write_file(src, fixture_src) ||
	    tu_cc("-O2 -g -mfunction-return=thunk-extern -mindirect-branch=thunk-extern", src,
		  f->exe))
		return -1;
	if (tu_run("command -v llvm-dwarfdump >/dev/null"))
		return -1;
	return disassemble(f);
}

static int setup(void **state)
{
	/* without gcc, objdump or llvm-dwarfdump the fixture tests skip rather than fail */
	return tu_fixture_setup(state, sizeof(struct fixture), "kp-inlines",
				"gcc, objdump, llvm-dwarfdump", build);
}

/* As inlines.h promises them: sorted, without empty ranges, touching ones merged. */
static void normalise(struct ext_instance *e)
{
	size_t i, out = 0;

	qsort(e->ranges, e->nranges, sizeof(e->ranges[0]), tu_cmp_range);
	for (i = 0; i < e->nranges; i++) {
		if (e->ranges[i].lo == e->ranges[i].hi)
			continue;
		if (out && e->ranges[i].lo <= e->ranges[out - 1].hi) {
			if (e->ranges[i].hi > e->ranges[out - 1].hi)
				e->ranges[out - 1].hi = e->ranges[i].hi;
			continue;
		}
		e->ranges[out++] = e->ranges[i];
	}
	e->nranges = out;
}

/* One line of llvm-dwarfdump --name output; *cur is the instance being read, if any. */
static void parse_dump_line(const char *line, const char *quoted, struct ext_instance *v, size_t *n,
			    struct ext_instance **cur, bool *in_ranges)
{
	unsigned long long die, lo, hi;
	struct ext_instance *e = *cur;

	if (sscanf(line, " 0x%llx: DW_TAG_", &die) == 1) {
		*cur = NULL;
		*in_ranges = false;
		if (strstr(line, "DW_TAG_inlined_subroutine") && *n < MAX_EXT) {
			*cur = memset(&v[*n], 0, sizeof(v[0]));
			(*cur)->die = die;
		}
		return;
	}
	if (!e)
		return;
	if (strstr(line, "DW_AT_"))
		*in_ranges = strstr(line, "DW_AT_ranges") != NULL;
	if (strstr(line, "DW_AT_abstract_origin") && strstr(line, quoted))
		(*n)++;
	else if (sscanf(line, " DW_AT_low_pc (0x%llx)", &lo) == 1)
		e->ranges[0].lo = lo, e->nranges = 1;
	else if (sscanf(line, " DW_AT_high_pc (0x%llx)", &hi) == 1)
		e->ranges[0].hi = hi;
	else if (sscanf(line, " DW_AT_call_line (%d)", &e->call_line) == 1)
		;
	else if (*in_ranges && sscanf(line, " [0x%llx, 0x%llx)", &lo, &hi) == 2 &&
		 e->nranges < MAX_RANGES)
		e->ranges[e->nranges++] = (struct inline_range){lo, hi};
}

/* The instances of name in path's DWARF, read by llvm-dwarfdump rather than libdw. */
static size_t dwarfdump(const char *path, const char *name, struct ext_instance *v)
{
	char cmd[PATH_MAX + 128], line[512], quoted[128];
	struct ext_instance *cur = NULL;
	bool in_ranges = false;
	size_t n = 0, i;
	FILE *p;

	snprintf(cmd, sizeof(cmd), "llvm-dwarfdump --name='%s' '%s'", name, path);
	snprintf(quoted, sizeof(quoted), "\"%s\"", name);
	p = popen(cmd, "r");
	assert_non_null(p);
	while (fgets(line, sizeof(line), p))
		parse_dump_line(line, quoted, v, &n, &cur, &in_ranges);
	assert_int_equal(pclose(p), 0);
	for (i = 0; i < n; i++)
		normalise(&v[i]);
	return n;
}

static const struct ext_instance *ext_by_die(const struct ext_instance *v, size_t n, __u64 die)
{
	size_t i;

	for (i = 0; i < n; i++) {
		if (v[i].die == die)
			return &v[i];
	}
	fail_msg("instance %#llx not in llvm-dwarfdump's output", (unsigned long long)die);
	return NULL;
}

static void check_same_ranges(const struct inline_instance *in, const struct ext_instance *e)
{
	size_t i;

	assert_int_equal(in->nranges, e->nranges);
	for (i = 0; i < e->nranges; i++) {
		assert_int_equal(in->ranges[i].lo, e->ranges[i].lo);
		assert_int_equal(in->ranges[i].hi, e->ranges[i].hi);
	}
}

static bool inside(const struct inline_range *r, size_t n, __u64 addr)
{
	size_t i;

	for (i = 0; i < n; i++) {
		if (addr >= r[i].lo && addr < r[i].hi)
			return true;
	}
	return false;
}

static const struct inline_exit *exit_at(const struct inline_instance *in, __u64 addr)
{
	size_t i;

	for (i = 0; i < in->nexits; i++) {
		if (in->exits[i].addr == addr)
			return &in->exits[i];
	}
	return NULL;
}

/* What holds whatever the code: exits sorted, outside or at the instance's instructions. */
static void check_exits_shape(const struct inline_instance *in)
{
	const struct inline_exit *x;
	size_t i;

	assert_true(inside(in->ranges, in->nranges, in->entry));
	for (i = 0; i < in->nranges; i++)
		assert_true(inside(in->parent_ranges, in->nparent_ranges, in->ranges[i].lo));
	for (i = 0; i < in->nexits; i++) {
		x = &in->exits[i];
		if (i)
			assert_true(in->exits[i - 1].addr < x->addr);
		if (x->kind == INLINE_EXIT_FALLTHROUGH || x->kind == INLINE_EXIT_BRANCH) {
			assert_false(inside(in->ranges, in->nranges, x->addr));
			assert_true(inside(in->parent_ranges, in->nparent_ranges, x->addr));
		} else {
			assert_true(inside(in->ranges, in->nranges, x->addr));
		}
	}
}

static const struct insn *insn_at(const struct fixture *f, __u64 addr)
{
	size_t i;

	for (i = 0; i < f->ninsns; i++) {
		if (f->insns[i].addr == addr)
			return &f->insns[i];
	}
	return NULL;
}

static bool is_jump(const struct insn *i)
{
	return i->mnem[0] == 'j';
}

static bool ends_flow(const struct insn *i)
{
	return !strcmp(i->mnem, "jmp") || !strcmp(i->mnem, "ret") || !strcmp(i->mnem, "int3");
}

/* Whether straight code from addr runs back into the instance, as kp_parent_one's stack setup does.
 */
static bool rejoins(const struct fixture *f, const struct inline_instance *in, __u64 addr)
{
	const struct insn *i;
	int k;

	for (k = 0; k < 8; k++) {
		if (inside(in->ranges, in->nranges, addr))
			return true;
		i = insn_at(f, addr);
		if (!i || is_jump(i) || !strcmp(i->mnem, "call") || !strcmp(i->mnem, "ret"))
			return false;
		addr = (i + 1)->addr;
	}
	return false;
}

/* Every range end that objdump shows control can run past is an exit. */
static void check_fallthrough(const struct fixture *f, const struct inline_instance *in, __u64 site)
{
	const struct insn *last = NULL, *at;
	size_t r, i;
	__u64 hi;

	for (r = 0; r < in->nranges; r++) {
		hi = in->ranges[r].hi;
		for (i = 0; i < f->ninsns && f->insns[i].addr < hi; i++)
			last = &f->insns[i];
		assert_non_null(last);
		if (ends_flow(last) || rejoins(f, in, hi))
			continue;
		at = insn_at(f, hi);
		assert_non_null(at);
		/* kprobes refuse a jump-label site: the exit moves to where it leads */
		if (hi == site)
			assert_non_null(exit_at(in, (at + 1)->addr));
		else
			assert_non_null(exit_at(in, hi));
	}
}

/* Calls come back into the instance: neither they nor their targets are exits. */
static void check_calls(const struct fixture *f, const struct inline_instance *in)
{
	size_t i;

	for (i = 0; i < f->ninsns; i++) {
		if (strcmp(f->insns[i].mnem, "call") ||
		    !inside(in->ranges, in->nranges, f->insns[i].addr))
			continue;
		assert_null(exit_at(in, f->insns[i].addr));
		assert_null(exit_at(in, f->insns[i].target));
	}
}

/* The exit at the instance's instruction jumping to sym, of that kind. */
static void check_jump_exit(const struct fixture *f, const struct inline_instance *in,
			    const char *mnem, const char *sym, enum inline_exit_kind kind)
{
	const struct inline_exit *x;
	size_t i;
	int found = 0;

	for (i = 0; i < f->ninsns; i++) {
		if (strcmp(f->insns[i].mnem, mnem) || strcmp(f->insns[i].sym, sym) ||
		    !inside(in->ranges, in->nranges, f->insns[i].addr))
			continue;
		x = exit_at(in, f->insns[i].addr);
		assert_non_null(x);
		assert_int_equal(x->kind, kind);
		found++;
	}
	assert_true(found > 0);
}

static __u64 symbol(struct debuginfo *di, const char *name)
{
	__u64 addr = 0;

	assert_int_equal(debuginfo_symbol(di, name, &addr), 0);
	return addr;
}

static void check_parent_one(const struct fixture *f, struct debuginfo *di,
			     const struct inline_instance *in)
{
	__u64 site = symbol(di, "kp_site");

	assert_int_equal(in->call_line, marker_line("KP_CALL_ONE"));
	assert_true(in->nparent_ranges >= 2); /* with its .cold part */
	check_fallthrough(f, in, site);
	assert_null(exit_at(in, site));
	/* the call to kp_other returns here: only kp_parent_two tail-calls it */
	assert_int_equal(in->unresolved, 0);
	check_jump_exit(f, in, "jne", "kp_other", INLINE_EXIT_TAIL_CALL);
	assert_int_equal(in->cond_exits, 1);
}

static void check_parent_two(const struct fixture *f, const struct inline_instance *in)
{
	assert_int_equal(in->call_line, marker_line("KP_CALL_TWO"));
	check_fallthrough(f, in, 0);
	check_jump_exit(f, in, "jmp", "kp_other", INLINE_EXIT_TAIL_CALL);
	check_jump_exit(f, in, "jne", "kp_other", INLINE_EXIT_TAIL_CALL);
	check_jump_exit(f, in, "ret", "", INLINE_EXIT_RETURN);
	/* jmp __x86_indirect_thunk_rax: kp_hook's target is unknown */
	assert_int_equal(in->unresolved, 1);
	assert_int_equal(in->cond_exits, 1);
}

/* The DWARF offset of the out-of-line function at addr, as symbolize() gives it. */
static __u64 func_die_at(struct debuginfo *di, __u64 addr)
{
	const struct sym_result *r;
	struct symbolizer *s;
	__u64 die;

	assert_int_equal(symbolizer_new(&s, di), 0);
	assert_int_equal(symbolize(s, addr, &r), 0);
	assert_true(r->n > 0);
	assert_false(r->frames[r->n - 1].inlined);
	die = r->frames[r->n - 1].die;
	symbolizer_free(s);
	return die;
}

/*
 * inlines_at() gives back the instance inlines_find() found at that DIE,
 * whether told the function holding it or left to find it.
 */
static void check_at(struct debuginfo *di, const struct inline_instance *want, bool told)
{
	struct inline_instance in;
	size_t i;

	assert_int_equal(inlines_at(di, want->die, told ? func_die_at(di, want->entry) : 0, &in),
			 0);
	assert_string_equal(in.func, want->func);
	assert_string_equal(in.parent, want->parent);
	assert_int_equal(in.parent_lo, want->parent_lo);
	assert_int_equal(in.call_line, want->call_line);
	assert_int_equal(in.entry, want->entry);
	assert_int_equal(in.nranges, want->nranges);
	for (i = 0; i < in.nranges; i++)
		assert_int_equal(in.ranges[i].lo, want->ranges[i].lo);
	assert_int_equal(in.nparent_ranges, want->nparent_ranges);
	assert_null(in.exits);
	inlines_free_one(&in);
	assert_null(in.ranges);
}

static void test_fixture_instances(void **state)
{
	struct fixture *f = tu_fixture(state);
	struct ext_instance ext[MAX_EXT];
	struct inline_instance *v;
	struct inlines_ctx *ctx;
	struct debuginfo *di;
	size_t n, next, i;

	next = dwarfdump(f->exe, "kp_work", ext);
	assert_int_equal(debuginfo_open(&di, f->exe), 0);
	assert_int_equal(inlines_find(di, "kp_work", &v, &n), 0);
	assert_int_equal(n, 2);
	assert_int_equal(next, 2);
	for (i = 0; i < n; i++) {
		assert_string_equal(v[i].func, "kp_work");
		assert_null(v[i].exits);
		assert_non_null(strstr(v[i].call_file, "fixture.c"));
		assert_int_equal(v[i].parent_lo, symbol(di, v[i].parent));
		check_same_ranges(&v[i], ext_by_die(ext, next, v[i].die));
		check_at(di, &v[i], false);
		check_at(di, &v[i], true);
		assert_int_equal(inlines_ctx_open(&ctx, di), 0);
		assert_int_equal(inlines_exits(ctx, &v[i]), 0);
		inlines_ctx_close(ctx);
		check_exits_shape(&v[i]);
		check_calls(f, &v[i]);
		if (!strcmp(v[i].parent, "kp_parent_one"))
			check_parent_one(f, di, &v[i]);
		else if (!strcmp(v[i].parent, "kp_parent_two"))
			check_parent_two(f, &v[i]);
		else
			fail_msg("unexpected parent %s", v[i].parent);
	}
	assert_string_not_equal(v[0].parent, v[1].parent);
	inlines_free(v, n);
	debuginfo_close(di);
}

static void test_fixture_missing(void **state)
{
	struct fixture *f = tu_fixture(state);
	struct inline_instance *v = NULL;
	struct debuginfo *di;
	size_t n = 1;

	assert_int_equal(debuginfo_open(&di, f->exe), 0);
	assert_int_equal(inlines_find(di, "kp_no_such_function", &v, &n), -ENOENT);
	/* defined with code of its own, inlined nowhere */
	assert_int_equal(inlines_find(di, "kp_never", &v, &n), 0);
	assert_int_equal(n, 0);
	inlines_free(v, n);
	/* offset 0 is a unit header, no DIE */
	assert_int_equal(inlines_at(di, 0, 0, &(struct inline_instance){0}), -ENOENT);
	debuginfo_close(di);
}

static const char *kind_name(enum inline_exit_kind k)
{
	static const char *const names[] = {"fallthrough", "branch", "return", "tail-call"};

	return k < sizeof(names) / sizeof(names[0]) ? names[k] : "?";
}

static void print_instance(const struct inline_instance *in)
{
	size_t i;

	print_message("%s in %s (%#llx) at %s:%d, entry %#llx, %llu bytes, %u unresolved, %u "
		      "conditional\n",
		      in->func, in->parent, (unsigned long long)in->parent_lo, in->call_file,
		      in->call_line, (unsigned long long)in->entry, (unsigned long long)in->bytes,
		      in->unresolved, in->cond_exits);
	for (i = 0; i < in->nranges; i++)
		print_message("  range [%#llx, %#llx)\n", (unsigned long long)in->ranges[i].lo,
			      (unsigned long long)in->ranges[i].hi);
	for (i = 0; i < in->nexits; i++)
		print_message("  exit  %#llx %s\n", (unsigned long long)in->exits[i].addr,
			      kind_name(in->exits[i].kind));
}

static double seconds(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec + ts.tv_nsec / 1e9;
}

/* inlines_find() and inlines_exits() for name, checked against llvm-dwarfdump. */
static size_t real_instances(struct debuginfo *di, const char *path, const char *name,
			     struct inline_instance **v)
{
	struct ext_instance ext[MAX_EXT];
	struct inlines_ctx *ctx;
	size_t n, next, i;
	double t = seconds();

	assert_int_equal(inlines_find(di, name, v, &n), 0);
	assert_int_equal(inlines_ctx_open(&ctx, di), 0);
	for (i = 0; i < n; i++)
		assert_int_equal(inlines_exits(ctx, &(*v)[i]), 0);
	inlines_ctx_close(ctx);
	print_message("%s: %zu instances, found with exits in %.2f s\n", name, n, seconds() - t);
	next = dwarfdump(path, name, ext);
	assert_int_equal(n, next);
	for (i = 0; i < n; i++) {
		print_instance(&(*v)[i]);
		check_same_ranges(&(*v)[i], ext_by_die(ext, next, (*v)[i].die));
		check_exits_shape(&(*v)[i]);
		assert_true((*v)[i].nexits > 0);
	}
	return n;
}

/* The case the module exists for: Debian 6.1's shuffle_freelist, only ever inlined. */
static void test_real_vmlinux(void **state)
{
	const char *path = getenv("KP_TEST_VMLINUX");
	struct inline_instance *v;
	struct debuginfo *di;
	size_t n;

	if (!path || access(path, R_OK) || tu_run("command -v llvm-dwarfdump >/dev/null")) {
		print_message("skipped: KP_TEST_VMLINUX names no readable vmlinux with DWARF "
			      "(e.g. /root/.cache/kprotperf/dbg/vmlinux-6.1.0-56-amd64)\n");
		skip();
	}
	assert_int_equal(debuginfo_open(&di, path), 0);
	n = real_instances(di, path, "shuffle_freelist", &v);
	assert_int_equal(n, 1);
	assert_string_equal(v[0].parent, "allocate_slab");
	assert_int_equal(v[0].call_line, 1978);
	assert_non_null(strstr(v[0].call_file, "mm/slub.c"));
	assert_int_equal(v[0].parent_lo, symbol(di, "allocate_slab"));
	inlines_free(v, n);
	n = real_instances(di, path, "new_slab", &v);
	assert_int_equal(n, 2);
	/* one nested in the inlines of kmem_cache_open: the parent is the outermost */
	assert_true(!strcmp(v[0].parent, "___slab_alloc") || !strcmp(v[1].parent, "___slab_alloc"));
	assert_true(!strcmp(v[0].parent, "__kmem_cache_create") ||
		    !strcmp(v[1].parent, "__kmem_cache_create"));
	inlines_free(v, n);
	debuginfo_close(di);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_fixture_instances),
		cmocka_unit_test(test_fixture_missing),
		cmocka_unit_test(test_real_vmlinux),
	};

	return cmocka_run_group_tests(tests, setup, tu_fixture_teardown);
}
