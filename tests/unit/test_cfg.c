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
#include <unistd.h>

#include "analysis/cfg.h"
#include "symbols/debuginfo.h"
#include "analysis/inline_ctx.h"
#include "testutil.h"

/*
 * Functions as the kernel's compiler lays them out, assembled at test time
 * into one flat image at 0: each case runs from its label to NAME_end, and
 * what follows the cases stands for other functions (thunks, a noreturn
 * function, a plain one).  The successor lists below name blocks by index.
 */
static const char fixture_src[] =
	".text\n"
	"straight: push %rbp\n mov %rsp,%rbp\n add $1,%rdi\n pop %rbp\n ret\n int3\n"
	"straight_end:\n"
	/* if/else */
	"diamond: test %edi,%edi\n je 1f\n mov $1,%eax\n jmp 2f\n"
	"1: mov $2,%eax\n"
	"2: ret\n int3\n"
	"diamond_end:\n"
	/* for (i = 1; i < n; i++), rotated behind a guard, as shuffle_freelist's */
	"counted: mov $1,%eax\n cmp %edi,%eax\n jae 2f\n"
	"1: add %eax,%edx\n add $1,%eax\n cmp %edi,%eax\n jb 1b\n"
	"2: ret\n"
	"counted_end:\n"
	"nested: xor %ecx,%ecx\n"
	"1: xor %edx,%edx\n"
	"2: add $1,%edx\n cmp %esi,%edx\n jb 2b\n"
	" add $1,%ecx\n cmp %edi,%ecx\n jb 1b\n"
	" ret\n"
	"nested_end:\n"
	/* a search: leaves where it finds, or at the end */
	"twoexit: xor %eax,%eax\n"
	"1: cmpb $0,(%rdi,%rax)\n je 2f\n"
	" add $1,%rax\n cmp %rsi,%rax\n jb 1b\n"
	" mov $-1,%eax\n ret\n"
	"2: ret\n"
	"twoexit_end:\n"
	/* a conditional and a plain tail call */
	"tail: test %edi,%edi\n je other\n add $1,%edi\n jmp other\n int3\n"
	"tail_end:\n"
	/* how Debian returns; a jump through a retpoline */
	"thunks: test %edi,%edi\n jne __x86_return_thunk\n test %rax,%rax\n"
	" je 1f\n jmp __x86_indirect_thunk_rax\n"
	"1: call __x86_indirect_thunk_rax\n jmp __x86_return_thunk\n int3\n"
	"thunks_end:\n"
	/* BUG() (a ud2 that never resumes), WARN() (one that does), a noreturn call, a call off the
	   end */
	"traps: test %edi,%edi\n jne 1f\n ud2\n"
	"1: cmp $2,%edi\n jne 2f\n warn_ud2: ud2\n add $1,%eax\n"
	"2: cmp $3,%edi\n jne 3f\n call stack_chk_fail\n"
	"3: cmp $4,%edi\n jne 4f\n ret\n"
	"4: call other\n"
	"traps_end:\n"
	/* a switch through a jump table: its cases are reached from nowhere it knows */
	"switch: cmp $2,%edi\n ja 9f\n mov %edi,%eax\n jmp *0x2000(,%rax,8)\n"
	" mov $1,%eax\n ret\n"
	" mov $2,%eax\n ret\n"
	"9: xor %eax,%eax\n ret\n"
	"switch_end:\n"
	/* two blocks in a cycle, each entered from outside it */
	"irreducible: test %edi,%edi\n je 2f\n"
	"1: add $1,%eax\n cmp %esi,%eax\n jae 3f\n"
	"2: add $2,%eax\n cmp %edx,%eax\n jb 1b\n"
	"3: ret\n"
	"irreducible_end:\n"
	/* a static key: a 5-byte nop patched into a jmp */
	"site: site_nop: .byte 0x0f,0x1f,0x44,0x00,0x00\n mov $1,%eax\n ret\n"
	"site_on: xor %eax,%eax\n ret\n"
	"site_end:\n"
	/* bytes capstone cannot decode (push %es is not x86_64), reached; and a jump into an insn
	 */
	"baddec: test %edi,%edi\n je 1f\n ret\n1: .byte 0x06\n"
	"baddec_end:\n"
	"badjmp: test %edi,%edi\n je badjmp_mid+1\n badjmp_mid: mov $0x12345678,%eax\n ret\n"
	"badjmp_end:\n"
	".p2align 4\n"
	"__x86_return_thunk: ret\n int3\n"
	"__x86_indirect_thunk_rax: jmp *%rax\n int3\n"
	"stack_chk_fail: ud2\n"
	"other: ret\n";

#define MAX_SYMS 64
#define IMAGE	 4096

struct sym {
	char name[48];
	__u64 addr;
};

struct fixture {
	struct tu_fixture tu; /* first: tu_fixture_setup() allocates it */
	__u8 image[IMAGE];
	size_t len;
	struct sym syms[MAX_SYMS];
	size_t nsyms;
};

static void parse_sym(const char *line, void *arg)
{
	struct fixture *f = arg;
	unsigned long long a;
	char name[48];

	if (f->nsyms < MAX_SYMS && sscanf(line, "%llx %*c %47s", &a, name) == 2) {
		snprintf(f->syms[f->nsyms].name, sizeof(f->syms[0].name), "%s", name);
		f->syms[f->nsyms++].addr = a;
	}
}

static int build(void *arg)
{
	struct fixture *f = arg;
	char path[PATH_MAX];
	FILE *fp;

	snprintf(path, sizeof(path), "%s/f.s", f->tu.dir);
	if (tu_write_file(path, fixture_src) ||
	    tu_run("cd '%s' && as --64 -o f.o f.s && objcopy -O binary -j .text f.o f.bin",
		   f->tu.dir) ||
	    tu_each_line(parse_sym, f, "nm '%s/f.o'", f->tu.dir))
		return -1;
	snprintf(path, sizeof(path), "%s/f.bin", f->tu.dir);
	fp = fopen(path, "rb");
	if (!fp)
		return -1;
	f->len = fread(f->image, 1, sizeof(f->image), fp);
	fclose(fp);
	return f->len && f->nsyms ? 0 : -1;
}

static int setup(void **state)
{
	return tu_fixture_setup(state, sizeof(struct fixture), "kp-cfg", "as, objcopy, nm", build);
}

static __u64 sym(const struct fixture *f, const char *name)
{
	size_t i;

	for (i = 0; i < f->nsyms; i++) {
		if (!strcmp(f->syms[i].name, name))
			return f->syms[i].addr;
	}
	fail_msg("no symbol %s in the fixture", name);
	return 0;
}

static enum cfg_callee fx_callee(void *arg, __u64 addr)
{
	const struct fixture *f = arg;

	if (addr == sym(f, "__x86_return_thunk"))
		return CFG_CALLEE_RETURN;
	if (addr == sym(f, "__x86_indirect_thunk_rax"))
		return CFG_CALLEE_INDIRECT;
	return addr == sym(f, "stack_chk_fail") ? CFG_CALLEE_NORETURN : CFG_CALLEE_FUNC;
}

static bool fx_site(void *arg, __u64 addr, __u64 *target)
{
	const struct fixture *f = arg;

	if (addr != sym(f, "site_nop"))
		return false;
	*target = sym(f, "site_on");
	return true;
}

static bool fx_warn(void *arg, __u64 addr)
{
	return addr == sym(arg, "warn_ud2");
}

/* The case name's graph, built at base, with the fixture's symbols known. */
static int build_case(const struct fixture *f, const char *name, struct cfg **g, char *why)
{
	char end[64];
	__u64 lo = sym(f, name), hi;
	struct cfg_env env = {fx_callee, fx_site, fx_warn, (void *)f};
	struct cfg_text t;

	snprintf(end, sizeof(end), "%s_end", name);
	hi = sym(f, end);
	t = (struct cfg_text){lo, f->image + lo, hi - lo};
	return cfg_build(&t, 1, &env, g, why, 256);
}

static const char *const kinds[] = {"entry", "fall", "jump",	 "taken", "not-taken",
				    "ret",   "tail", "indirect", "noret", "trap"};

static void put(char **p, size_t *left, const char *fmt, ...)
{
	va_list ap;
	int n;

	va_start(ap, fmt);
	n = vsnprintf(*p, *left, fmt, ap);
	va_end(ap);
	assert_true(n >= 0 && (size_t)n < *left);
	*p += n;
	*left -= n;
}

static void put_succ(char **p, size_t *left, const struct cfg *g, int e)
{
	const struct cfg_edge *x = &g->e[e];

	if (x->to == CFG_OUT)
		put(p, left, " %s>out", kinds[x->kind]);
	else
		put(p, left, " %s>%d", kinds[x->kind], x->to);
	if (!x->derivable)
		put(p, left, "?");
}

/*
 * The whole graph as lines of text, offsets from its entry:
 *   "N start-end ninsn: succ... [cond|site] [exit] [indirect] [doomed] idom=I loop=L"
 * then a line per loop: "loop H body=... latches=FROM>TO... exits=FROM>TO... parent=P depth=D"
 */
static void dump(const struct cfg *g, char *out, size_t len)
{
	char *p = out;
	size_t i, k;

	for (i = 0; i < g->nb; i++) {
		const struct cfg_block *b = &g->b[i];

		put(&p, &len, "%zu %llx-%llx %u:", i, (unsigned long long)(b->start - g->addr),
		    (unsigned long long)(b->end - g->addr), b->ninsn);
		for (k = 0; k < (size_t)b->nsucc; k++)
			put_succ(&p, &len, g, b->edge[k]);
		if (b->cond)
			put(&p, &len, b->site ? " site" : " cond");
		put(&p, &len, "%s%s%s idom=%d loop=%d\n", b->exit ? " exit" : "",
		    b->indirect ? " indirect" : "", b->doomed ? " doomed" : "", b->idom, b->loop);
	}
	for (i = 0; i < g->nloops; i++) {
		const struct cfg_loop *l = &g->loops[i];

		put(&p, &len, "%s %d body=", l->irreducible ? "irreducible" : "loop", l->head);
		for (k = 0; k < l->nbody; k++)
			put(&p, &len, "%s%d", k ? "," : "", l->body[k]);
		put(&p, &len, " latches=");
		for (k = 0; k < l->nlatches; k++)
			put(&p, &len, "%s%d>%d", k ? "," : "", g->e[l->latches[k]].from,
			    g->e[l->latches[k]].to);
		put(&p, &len, " exits=");
		for (k = 0; k < l->nexits; k++)
			put(&p, &len, "%s%d>%d", k ? "," : "", g->e[l->exits[k]].from,
			    g->e[l->exits[k]].to);
		put(&p, &len, " parent=%d depth=%d\n", l->parent, l->depth);
	}
}

/* The case's graph, compared whole with want; the graph is handed back for more checks. */
static struct cfg *check_case(void **state, const char *name, const char *want)
{
	struct fixture *f = tu_fixture(state);
	char why[256] = "", got[4096];
	struct cfg *g;

	assert_int_equal(build_case(f, name, &g, why), 0);
	dump(g, got, sizeof(got));
	if (strcmp(got, want))
		print_message("%s:\n%s", name, got);
	assert_string_equal(got, want);
	return g;
}

static void test_straight(void **state)
{
	struct cfg *g = check_case(state, "straight", "0 0-a 5: ret>out exit idom=-1 loop=-1\n");

	assert_int_equal(g->unreached, 0); /* the int3 after ret is padding */
	assert_int_equal(g->ne, 2);
	assert_int_equal(cfg_insns(g, (__u64[]){7}), 35);
	cfg_free(g);
}

static void test_diamond(void **state)
{
	cfg_free(check_case(state, "diamond",
			    "0 0-4 2: not-taken>1 taken>2 cond idom=-1 loop=-1\n"
			    "1 4-b 2: jump>3 idom=0 loop=-1\n"
			    "2 b-10 1: fall>3 idom=0 loop=-1\n"
			    "3 10-11 1: ret>out exit idom=0 loop=-1\n"));
}

/*
 * Block counts of 10 calls whose loop ran 40 times in all: the guard's edges are open (the loop
 * and the ret each have two ways in), until the guard's taken count is measured at its jcc.
 */
static void test_counted_loop(void **state)
{
	struct cfg *g = check_case(state, "counted",
				   "0 0-9 3: not-taken>1? taken>2? cond idom=-1 loop=-1\n"
				   "1 9-12 4: not-taken>2? taken>1? cond idom=0 loop=0\n"
				   "2 12-13 1: ret>out exit idom=0 loop=-1\n"
				   "loop 1 body=1 latches=1>1 exits=1>2 parent=-1 depth=1\n");
	__u64 counts[] = {10, 40, 10}, e[6], entries, iters;
	size_t i;

	assert_int_equal(g->ne, 6);
	for (i = 0; i < g->ne; i++)
		e[i] = CFG_UNKNOWN;
	assert_int_equal(cfg_edge_counts(g, counts, e), 4);
	assert_int_equal(e[0], 10);
	assert_int_equal(e[5], 10);
	assert_true(e[1] == CFG_UNKNOWN && e[2] == CFG_UNKNOWN && e[3] == CFG_UNKNOWN &&
		    e[4] == CFG_UNKNOWN);
	assert_int_equal(cfg_loop_trips(g, 0, counts, e, &entries, &iters), -ENODATA);
	/* 2 of the calls skipped the loop: measured at the guard's jae (cc 3, CF clear) */
	assert_int_equal(g->b[0].cc, 3);
	assert_int_equal(g->b[0].branch - g->addr, 7);
	e[2] = 2;
	assert_int_equal(cfg_edge_counts(g, counts, e), 0);
	assert_int_equal(e[1], 8);  /* entries */
	assert_int_equal(e[3], 8);  /* left by the bottom */
	assert_int_equal(e[4], 32); /* went round again */
	assert_int_equal(cfg_loop_trips(g, 0, counts, e, &entries, &iters), 0);
	assert_int_equal(entries, 8);
	assert_int_equal(iters, 40);
	assert_int_equal(cfg_insns(g, counts), 10 * 3 + 40 * 4 + 10);
	/* counts that no run of this code gives: the ret ran more often than the function */
	for (i = 0; i < g->ne; i++)
		e[i] = CFG_UNKNOWN;
	assert_int_equal(cfg_edge_counts(g, (__u64[]){10, 40, 11}, e), -EDOM);
	cfg_free(g);
}

static void test_nested(void **state)
{
	struct cfg *g = check_case(state, "nested",
				   "0 0-2 1: fall>1 idom=-1 loop=-1\n"
				   "1 2-4 1: fall>2 idom=0 loop=0\n"
				   "2 4-b 3: not-taken>3 taken>2 cond idom=1 loop=1\n"
				   "3 b-12 3: not-taken>4 taken>1 cond idom=2 loop=0\n"
				   "4 12-13 1: ret>out exit idom=3 loop=-1\n"
				   "loop 1 body=1,2,3 latches=3>1 exits=3>4 parent=-1 depth=1\n"
				   "loop 2 body=2 latches=2>2 exits=2>3 parent=0 depth=2\n");
	/* 3 calls, 12 outer and 60 inner iterations */
	__u64 counts[] = {3, 12, 60, 12, 3}, e[16], entries, iters;
	size_t i;

	for (i = 0; i < g->ne; i++)
		e[i] = CFG_UNKNOWN;
	assert_int_equal(cfg_edge_counts(g, counts, e), 0);
	assert_int_equal(cfg_loop_trips(g, 0, counts, e, &entries, &iters), 0);
	assert_int_equal(entries, 3);
	assert_int_equal(iters, 12);
	assert_int_equal(cfg_loop_trips(g, 1, counts, e, &entries, &iters), 0);
	assert_int_equal(entries, 12);
	assert_int_equal(iters, 60);
	cfg_free(g);
}

static void test_two_exits(void **state)
{
	struct cfg *g = check_case(state, "twoexit",
				   "0 0-2 1: fall>1 idom=-1 loop=-1\n"
				   "1 2-8 2: not-taken>2 taken>4 cond idom=0 loop=0\n"
				   "2 8-11 3: not-taken>3 taken>1 cond idom=1 loop=0\n"
				   "3 11-17 2: ret>out exit idom=2 loop=-1\n"
				   "4 17-18 1: ret>out exit idom=1 loop=-1\n"
				   "loop 1 body=1,2 latches=2>1 exits=1>4,2>3 parent=-1 depth=1\n");
	/* 4 calls: 3 found, one after 5 steps in all, one ran to the end */
	__u64 counts[] = {4, 9, 6, 1, 3}, e[16];
	size_t i;

	for (i = 0; i < g->ne; i++)
		e[i] = CFG_UNKNOWN;
	assert_int_equal(cfg_edge_counts(g, counts, e), 0);
	assert_int_equal(e[g->b[1].edge[1]], 3);
	assert_int_equal(e[g->b[2].edge[1]], 5);
	cfg_free(g);
}

static void test_tail_call(void **state)
{
	cfg_free(check_case(state, "tail",
			    "0 0-8 2: not-taken>1 tail>out cond exit idom=-1 loop=-1\n"
			    "1 8-10 2: tail>out exit idom=0 loop=-1\n"));
}

static void test_thunks(void **state)
{
	struct cfg *g = check_case(state, "thunks",
				   "0 0-8 2: not-taken>1 ret>out cond exit idom=-1 loop=-1\n"
				   "1 8-d 2: not-taken>2 taken>3 cond idom=0 loop=-1\n"
				   "2 d-12 1: indirect>out exit indirect idom=1 loop=-1\n"
				   "3 12-19 2: ret>out exit idom=1 loop=-1\n");

	assert_int_equal(g->nindirect, 1);
	cfg_free(g);
}

static void test_traps(void **state)
{
	cfg_free(check_case(state, "traps",
			    "0 0-4 2: not-taken>1 taken>2 cond idom=-1 loop=-1\n"
			    "1 4-6 1: trap>out exit doomed idom=0 loop=-1\n"
			    "2 6-b 2: not-taken>3 taken>4 cond idom=0 loop=-1\n"
			    "3 b-10 2: fall>4 idom=2 loop=-1\n"
			    "4 10-15 2: not-taken>5 taken>6 cond idom=2 loop=-1\n"
			    "5 15-1a 1: noret>out exit doomed idom=4 loop=-1\n"
			    "6 1a-1f 2: not-taken>7 taken>8 cond idom=4 loop=-1\n"
			    "7 1f-20 1: ret>out exit idom=6 loop=-1\n"
			    "8 20-25 1: noret>out exit doomed idom=6 loop=-1\n"));
}

/* The table's cases are not blocks: reached from nowhere known, they are counted as such. */
static void test_switch(void **state)
{
	struct cfg *g = check_case(state, "switch",
				   "0 0-5 2: not-taken>1 taken>2 cond idom=-1 loop=-1\n"
				   "1 5-e 2: indirect>out exit indirect idom=0 loop=-1\n"
				   "2 1a-1d 2: ret>out exit idom=0 loop=-1\n");
	__u64 e[8];
	size_t i;

	assert_int_equal(g->nindirect, 1);
	assert_int_equal(g->unreached, 4);
	for (i = 0; i < g->ne; i++)
		e[i] = CFG_UNKNOWN;
	assert_int_equal(cfg_edge_counts(g, (__u64[]){5, 4, 1}, e), 0);
	cfg_free(g);
}

static void test_irreducible(void **state)
{
	struct cfg *g =
		check_case(state, "irreducible",
			   "0 0-4 2: not-taken>1? taken>2? cond idom=-1 loop=-1\n"
			   "1 4-b 3: not-taken>2? taken>3? cond idom=0 loop=0\n"
			   "2 b-12 3: not-taken>3? taken>1? cond idom=0 loop=0\n"
			   "3 12-13 1: ret>out exit idom=0 loop=-1\n"
			   "irreducible 1 body=1,2 latches=2>1 exits=1>3,2>3 parent=-1 depth=1\n");
	__u64 x, y;

	assert_false(g->e[g->loops[0].latches[0]].back);
	assert_int_equal(cfg_loop_trips(g, 0, (__u64[]){1, 1, 1, 1}, (__u64[16]){0}, &x, &y),
			 -EDOM);
	cfg_free(g);
}

static void test_site(void **state)
{
	struct cfg *g = check_case(state, "site",
				   "0 0-5 1: not-taken>1 taken>2 site idom=-1 loop=-1\n"
				   "1 5-b 2: ret>out exit idom=0 loop=-1\n"
				   "2 b-e 2: ret>out exit idom=0 loop=-1\n");

	assert_int_equal(g->b[0].cc, -1);
	cfg_free(g);
}

static void test_bad_text(void **state)
{
	struct fixture *f = tu_fixture(state);
	char why[256] = "", want[128];
	struct cfg *g;

	assert_int_equal(build_case(f, "baddec", &g, why), -EILSEQ);
	snprintf(want, sizeof(want), "capstone cannot decode at %#llx",
		 (unsigned long long)sym(f, "baddec_end") - 1);
	assert_string_equal(why, want);
	assert_null(g);
	assert_int_equal(build_case(f, "badjmp", &g, why), -EINVAL);
	snprintf(want, sizeof(want), "a jump into the middle of the instruction before %#llx",
		 (unsigned long long)sym(f, "badjmp_mid") + 5);
	assert_string_equal(why, want);
	assert_int_equal(cfg_build(&(struct cfg_text){0x1000, f->image, 0}, 1, NULL, &g, why, 256),
			 -EINVAL);
	assert_string_equal(why, "no text to disassemble");
}

/* Without what the symbol table knows, a jump to a thunk is a tail call and a ud2 a BUG's. */
static void test_no_env(void **state)
{
	struct fixture *f = tu_fixture(state);
	__u64 lo = sym(f, "thunks");
	struct cfg_text t = {lo, f->image + lo, sym(f, "thunks_end") - lo};
	char why[256];
	struct cfg *g;

	assert_int_equal(cfg_build(&t, 1, NULL, &g, why, sizeof(why)), 0);
	assert_int_equal(g->e[g->b[0].edge[1]].kind, CFG_EDGE_TAIL);
	assert_int_equal(g->nindirect, 0);
	assert_int_equal(cfg_block_at(g, lo + 9), 1);
	assert_int_equal(cfg_block_at(g, lo + 0x19), -1);
	cfg_free(g);
}

static void test_cc(void **state)
{
	const __u64 cf = 1, zf = 1 << 6, sf = 1 << 7, of = 1 << 11;

	assert_true(cfg_cc_taken(4, zf));	      /* je */
	assert_false(cfg_cc_taken(5, zf));	      /* jne */
	assert_true(cfg_cc_taken(2, cf));	      /* jb */
	assert_true(cfg_cc_taken(3, 0));	      /* jae */
	assert_true(cfg_cc_taken(6, zf));	      /* jbe */
	assert_true(cfg_cc_taken(12, sf));	      /* jl: SF != OF */
	assert_false(cfg_cc_taken(12, sf | of));      /* jl */
	assert_true(cfg_cc_taken(15, sf | of));	      /* jg */
	assert_false(cfg_cc_taken(15, zf | sf | of)); /* jg */
	assert_true(cfg_noreturn_name("__stack_chk_fail"));
	assert_false(cfg_noreturn_name("kfree"));
}

/*
 * Runs g calls times, each way chosen at random, into counts (per block) and truth (per edge); a
 * run that has not left after 10000 blocks is dropped.
 */
static void simulate(const struct cfg *g, unsigned int seed, int calls, __u64 *counts, __u64 *truth)
{
	__u64 *bc = calloc(g->nb, sizeof(*bc)), *ec = calloc(g->ne, sizeof(*ec));
	int c, b, e, steps;
	size_t i;

	assert_true(bc && ec);
	srand(seed);
	memset(counts, 0, g->nb * sizeof(*counts));
	memset(truth, 0, g->ne * sizeof(*truth));
	for (c = 0; c < calls; c++) {
		memset(bc, 0, g->nb * sizeof(*bc));
		memset(ec, 0, g->ne * sizeof(*ec));
		ec[0] = 1;
		for (b = g->entry, steps = 0; b >= 0 && steps < 10000; steps++, b = g->e[e].to) {
			bc[b]++;
			e = g->b[b].edge[rand() % g->b[b].nsucc];
			ec[e]++;
		}
		for (i = 0; b < 0 && i < g->nb; i++)
			counts[i] += bc[i];
		for (i = 0; b < 0 && i < g->ne; i++)
			truth[i] += ec[i];
	}
	free(bc);
	free(ec);
}

/*
 * Edge counts solved from random runs' block counts are the runs' own, and exactly the
 * derivable edges are solved; the number of them.
 */
static size_t check_solved(const struct cfg *g, unsigned int seed)
{
	__u64 *counts = calloc(g->nb, sizeof(*counts)), *truth = calloc(g->ne, sizeof(*truth)),
	      *e = calloc(g->ne, sizeof(*e));
	size_t i, n = 0;
	int left;

	assert_true(counts && truth && e);
	simulate(g, seed, 50, counts, truth);
	for (i = 0; i < g->ne; i++)
		e[i] = CFG_UNKNOWN;
	left = cfg_edge_counts(g, counts, e);
	assert_true(left >= 0);
	for (i = 0; i < g->ne; i++) {
		assert_int_equal(e[i] != CFG_UNKNOWN, g->e[i].derivable);
		if (e[i] != CFG_UNKNOWN)
			assert_int_equal(e[i], truth[i]);
		n += g->e[i].derivable;
	}
	assert_int_equal((size_t)left, g->ne - n);
	free(counts);
	free(truth);
	free(e);
	return n;
}

static void test_random_runs(void **state)
{
	static const char *const cases[] = {"straight", "diamond",     "counted", "nested",
					    "twoexit",	"tail",	       "thunks",  "traps",
					    "switch",	"irreducible", "site"};
	struct fixture *f = tu_fixture(state);
	char why[256];
	struct cfg *g;
	unsigned int seed;
	size_t i;

	for (i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		assert_int_equal(build_case(f, cases[i], &g, why), 0);
		for (seed = 1; seed <= 20; seed++)
			check_solved(g, seed);
		cfg_free(g);
	}
}

/* A vmlinux's knowledge, as record --blocks will hand it in. */
static int k_line(struct tu_kernel *k, __u64 addr, const char **file)
{
	Dwfl_Line *l = dwfl_module_getsrc(debuginfo_module(k->di), addr);
	int line = 0;

	assert_non_null(l);
	*file = dwfl_lineinfo(l, NULL, &line, NULL, NULL, NULL);
	return line;
}

/*
 * Each loop as "HEAD_LINE blocks=N parent=P exits=LINE,...": the lines in mm/slub.c of its head
 * and of the branches leaving it, starred when they lead to a BUG.
 */
static void k_loops(struct tu_kernel *k, const struct cfg *g, char *out, size_t len)
{
	const char *file;
	size_t i, x;

	for (i = 0; i < g->nloops; i++) {
		const struct cfg_loop *l = &g->loops[i];

		assert_false(l->irreducible);
		put(&out, &len,
		    "%d blocks=%zu parent=%d exits=", k_line(k, g->b[l->head].start, &file),
		    l->nbody, l->parent);
		assert_true(tu_ends_with(file, "mm/slub.c"));
		for (x = 0; x < l->nexits; x++) {
			const struct cfg_edge *e = &g->e[l->exits[x]];

			put(&out, &len, "%s%d%s", x ? "," : "",
			    k_line(k, g->b[e->from].branch, &file),
			    e->to >= 0 && g->b[e->to].doomed ? "*" : "");
			assert_true(tu_ends_with(file, "mm/slub.c"));
		}
		put(&out, &len, "\n");
	}
}

/*
 * Debian 6.1's allocate_slab, shuffle_freelist inlined into it, with its .cold part: the loops
 * of the issue, found at their source lines.
 */
static void test_real_vmlinux(void **state)
{
	const char *path = getenv("KP_TEST_VMLINUX");
	struct tu_kernel k;
	struct cfg_env env;
	struct cfg_text t[2];
	char why[256] = "", got[512];
	struct cfg *g;
	unsigned int i;

	if (!path || access(path, R_OK)) {
		print_message("skipped: KP_TEST_VMLINUX names no readable vmlinux with DWARF "
			      "(e.g. /root/.cache/kprotperf/dbg/vmlinux-6.1.0-56-amd64)\n");
		skip();
	}
	tu_kernel_open(&k, path);
	tu_kernel_text(&k, "allocate_slab", &t[0]);
	tu_kernel_text(&k, "allocate_slab.cold", &t[1]);
	env = tu_kernel_env(&k);
	assert_int_equal(cfg_build(t, 2, &env, &g, why, sizeof(why)), 0);
	print_message("allocate_slab: %zu blocks, %zu edges (%zu derivable from block counts), %zu "
		      "loops\n",
		      g->nb, g->ne, check_solved(g, 1), g->nloops);
	for (i = 2; i <= 20; i++)
		check_solved(g, i);
	assert_int_equal(g->unreached, 0);
	assert_int_equal(g->nindirect, 0);
	/*
	 * shuffle_freelist's for (idx = 1; idx < slab->objects; idx++), rotated: entered at the
	 * inlined next_freelist_entry (1874), left at the test of 1906 or for set_freepointer's
	 * BUG_ON (419, doomed); next_freelist_entry's do-while (1877-1878) inside it and once
	 * before it; allocate_slab's plain loop (1984) when there is no shuffling.
	 */
	k_loops(&k, g, got, sizeof(got));
	assert_string_equal(got, "1874 blocks=5 parent=-1 exits=1906,419*\n"
				 "1985 blocks=2 parent=-1 exits=1984,419*\n"
				 "1877 blocks=1 parent=-1 exits=1878\n"
				 "1877 blocks=1 parent=0 exits=1878\n");
	cfg_free(g);
	tu_kernel_close(&k);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_straight),     cmocka_unit_test(test_diamond),
		cmocka_unit_test(test_counted_loop), cmocka_unit_test(test_nested),
		cmocka_unit_test(test_two_exits),    cmocka_unit_test(test_tail_call),
		cmocka_unit_test(test_thunks),	     cmocka_unit_test(test_traps),
		cmocka_unit_test(test_switch),	     cmocka_unit_test(test_irreducible),
		cmocka_unit_test(test_site),	     cmocka_unit_test(test_bad_text),
		cmocka_unit_test(test_no_env),	     cmocka_unit_test(test_cc),
		cmocka_unit_test(test_random_runs),  cmocka_unit_test(test_real_vmlinux),
	};

	return cmocka_run_group_tests(tests, setup, tu_fixture_teardown);
}
