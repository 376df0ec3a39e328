/* SPDX-License-Identifier: GPL-2.0-only */
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>

#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include <capstone/capstone.h>

#include "analysis/cfg.h"
#include "analysis/file_cfg.h"
#include "datatype/dtype.h"
#include "symbols/debuginfo.h"
#include "testutil.h"

/*
 * A program whose accesses have known types: a pointer parameter's member
 * (in its register), a global array of structs by index, a TLS variable
 * (what %gs: per-CPU variables are to the kernel), locals in the frame,
 * the canary, a load through an integer an untyped function returned (no
 * type to be had), and kp_flow, in assembly so that no DWARF location
 * helps: a register copied from the address of items and stepped by one
 * element, and a pointer member loaded from a call's result; kp_null,
 * kp_cmov and kp_loop, in assembly too: a pointer joined with NULL, by a
 * branch or a cmov, and a pointer stepped over an array member in a loop;
 * kp_gloop: a global array of structs walked by a pointer formed from its
 * address (lea, mov $SYM) and stepped by whole elements; kp_encoded: an
 * encoded pointer decoded by an inlined helper, and a union's view chosen by
 * the pointer variable into it.
 */
static const char fixture_src[] =
	"struct point {\n"
	"\tlong x, y;\n"
	"};\n"
	"struct item {\n"
	"\tint id;\n"
	"\tlong weight;\n"
	"\tstruct point pos;\n"
	"\tchar name[12];\n"
	"};\n"
	"struct node {\n"
	"\tstruct item *item;\n"
	"\tstruct node *next;\n"
	"\tunion {\n"
	"\t\tint count;\n"
	"\t\tunsigned int ucount;\n"
	"\t};\n"
	"};\n"
	"struct vec {\n"
	"\tlong n;\n"
	"\tlong v[4];\n"
	"\tstruct item *it;\n"
	"};\n"
	"struct item items[8];\n"
	"struct vec vecs;\n"
	"__thread struct item tls_item;\n"
	"struct node first;\n"
	"__attribute__((noinline)) struct node *kp_get_node(void)\n"
	"{\n"
	"\treturn first.next;\n"
	"}\n"
	"__attribute__((noinline)) unsigned long kp_opaque(void)\n"
	"{\n"
	"\treturn (unsigned long)first.item;\n"
	"}\n"
	"__attribute__((noinline)) int kp_param(struct node *n)\n"
	"{\n"
	"\treturn n->count;\n"
	"}\n"
	"__attribute__((noinline)) long kp_global(int i)\n"
	"{\n"
	"\treturn items[i].pos.y;\n"
	"}\n"
	"__attribute__((noinline)) long kp_tls(void)\n"
	"{\n"
	"\treturn tls_item.weight;\n"
	"}\n"
	"__attribute__((noinline)) long kp_stack(long i)\n"
	"{\n"
	"\tvolatile struct point pt;\n"
	"\n"
	"\tpt.x = i;\n"
	"\tpt.y = i * 2;\n"
	"\treturn pt.x + pt.y;\n"
	"}\n"
	"__attribute__((noinline)) long kp_untyped(void)\n"
	"{\n"
	"\treturn *(long *)(kp_opaque() + 16);\n"
	"}\n"
	"__attribute__((noinline)) void kp_fill(char *buf, int i)\n"
	"{\n"
	"\tbuf[i & 31] = (char)i;\n"
	"}\n"
	"__attribute__((noinline)) int kp_canary(int i)\n"
	"{\n"
	"\tchar buf[32];\n"
	"\n"
	"\tkp_fill(buf, i);\n"
	"\treturn buf[3];\n"
	"}\n"
	"long kp_flow(void);\n"
	"asm(\".text\\n.globl kp_flow\\n.type kp_flow,@function\\nkp_flow:\\n\"\n"
	"    \"\tlea items(%rip), %rax\\n\"\n"
	"    \"\tmov %rax, %rdx\\n\"\n"
	"    \"\tadd $48, %rdx\\n\"\n"
	"    \"\tmov 24(%rdx), %rcx\\n\"\n"
	"    \"\tmov 36(%rdx), %cl\\n\"\n"
	"    \"\tpush %rbx\\n\"\n"
	"    \"\tcall kp_get_node\\n\"\n"
	"    \"\tmov 8(%rax), %rbx\\n\"\n"
	"    \"\tmov 16(%rbx), %eax\\n\"\n"
	"    \"\tpop %rbx\\n\"\n"
	"    \"\tret\\n\"\n"
	"    \".size kp_flow, .-kp_flow\\n\");\n"
	"long kp_spill(void);\n"
	"asm(\".text\\n.globl kp_spill\\n.type kp_spill,@function\\nkp_spill:\\n\"\n"
	"    \"\tsub $24, %rsp\\n\"\n"
	"    \"\tcall kp_get_node\\n\"\n"
	"    \"\tmov %rax, 8(%rsp)\\n\"\n"
	"    \"\tlea 16(%rsp), %rdi\\n\"\n"
	"    \"\tmovq $0, (%rdi)\\n\"\n"
	"    \"\tcall kp_opaque\\n\"\n"
	"    \"\tmov 8(%rsp), %rdx\\n\"\n"
	"    \"\tmov 16(%rdx), %eax\\n\"\n"
	"    \"\tadd $24, %rsp\\n\"\n"
	"    \"\tret\\n\"\n"
	"    \".size kp_spill, .-kp_spill\\n\");\n"
	"long kp_rep(void);\n"
	"asm(\".text\\n.globl kp_rep\\n.type kp_rep,@function\\nkp_rep:\\n\"\n"
	"    \"\\tlea items+48(%rip), %rdi\\n\"\n"
	"    \"\\tmov $6, %ecx\\n\"\n"
	"    \"\\txor %eax, %eax\\n\"\n"
	"    \"\\trep stosq\\n\"\n"
	"    \"\\tmovsd items+8(%rip), %xmm0\\n\"\n"
	"    \"\\tret\\n\"\n"
	"    \".size kp_rep, .-kp_rep\\n\");\n"
	"long kp_null(void);\n"
	"asm(\".text\\n.globl kp_null\\n.type kp_null,@function\\nkp_null:\\n\"\n"
	"    \"\\tpush %rbx\\n\"\n"
	"    \"\\tcall kp_get_node\\n\"\n"
	"    \"\\txor %ebx, %ebx\\n\"\n"
	"    \"\\ttest %rax, %rax\\n\"\n"
	"    \"\\tje 1f\\n\"\n"
	"    \"\\tmov %rax, %rbx\\n\"\n"
	"    \"1:\\ttest %rbx, %rbx\\n\"\n"
	"    \"\\tje 2f\\n\"\n"
	"    \"\\tmov 8(%rbx), %rax\\n\"\n"
	"    \"2:\\tpop %rbx\\n\"\n"
	"    \"\\tret\\n\"\n"
	"    \".size kp_null, .-kp_null\\n\");\n"
	"long kp_cmov(int i);\n"
	"asm(\".text\\n.globl kp_cmov\\n.type kp_cmov,@function\\nkp_cmov:\\n\"\n"
	"    \"\\tpush %rbx\\n\"\n"
	"    \"\\tmov %edi, %ebx\\n\"\n"
	"    \"\\tcall kp_get_node\\n\"\n"
	"    \"\\txor %ecx, %ecx\\n\"\n"
	"    \"\\ttest %ebx, %ebx\\n\"\n"
	"    \"\\tcmove %rcx, %rax\\n\"\n"
	"    \"\\tmov 16(%rax), %eax\\n\"\n"
	"    \"\\tpop %rbx\\n\"\n"
	"    \"\\tret\\n\"\n"
	"    \".size kp_cmov, .-kp_cmov\\n\");\n"
	"long kp_loop(void);\n"
	"asm(\".text\\n.globl kp_loop\\n.type kp_loop,@function\\nkp_loop:\\n\"\n"
	"    \"\\tlea vecs+8(%rip), %rax\\n\"\n"
	"    \"\\tmov $4, %ecx\\n\"\n"
	"    \"\\txor %edx, %edx\\n\"\n"
	"    \"1:\\tadd (%rax), %rdx\\n\"\n"
	"    \"\\tadd $8, %rax\\n\"\n"
	"    \"\\tsub $1, %ecx\\n\"\n"
	"    \"\\tjne 1b\\n\"\n"
	"    \"\\tadd -8(%rax), %rdx\\n\"\n"
	"    \"\\tmov $16, %esi\\n\"\n"
	"    \"\\tlea vecs(%rip), %rdi\\n\"\n"
	"    \"\\tadd %rsi, %rdi\\n\"\n"
	"    \"\\tadd (%rdi), %rdx\\n\"\n"
	"    \"\\tadd 24(%rdi), %rdx\\n\"\n"
	"    \"\\tmov %rdx, %rax\\n\"\n"
	"    \"\\tret\\n\"\n"
	"    \".size kp_loop, .-kp_loop\\n\");\n"
	"long kp_gloop(void);\n"
	"asm(\".text\\n.globl kp_gloop\\n.type kp_gloop,@function\\nkp_gloop:\\n\"\n"
	"    \"\\tlea items+24(%rip), %rdx\\n\"\n"
	"    \"\\tmov $4, %ecx\\n\"\n"
	"    \"1:\\tmovq $1, (%rdx)\\n\"\n"
	"    \"\\tmovl $2, 12(%rdx)\\n\"\n"
	"    \"\\tadd $96, %rdx\\n\"\n"
	"    \"\\tsub $1, %ecx\\n\"\n"
	"    \"\\tjne 1b\\n\"\n"
	"    \"\\tmov $items+48, %eax\\n\"\n"
	"    \"\\tmov $2, %ecx\\n\"\n"
	"    \"2:\\tmov 8(%rax), %rdx\\n\"\n"
	"    \"\\tadd $48, %rax\\n\"\n"
	"    \"\\tsub $1, %ecx\\n\"\n"
	"    \"\\tjne 2b\\n\"\n"
	"    \"\\tmov %rdx, %rax\\n\"\n"
	"    \"\\tret\\n\"\n"
	"    \".size kp_gloop, .-kp_gloop\\n\");\n"
	"long kp_index(int i);\n"
	"asm(\".text\\n.globl kp_index\\n.type kp_index,@function\\nkp_index:\\n\"\n"
	"    \"\\tlea vecs(%rip), %rdx\\n\"\n"
	"    \"\\tmovslq %edi, %rdi\\n\"\n"
	"    \"\\tlea 8(%rdx,%rdi,8), %rax\\n\"\n"
	"    \"\\tmov (%rax), %rax\\n\"\n"
	"    \"\\tret\\n\"\n"
	"    \".size kp_index, .-kp_index\\n\");\n"
	"long kp_iret(void);\n"
	"asm(\".text\\n.globl kp_iret\\n.type kp_iret,@function\\nkp_iret:\\n\"\n"
	"    \"\\tiretq\\n\"\n"
	"    \"\\tret\\n\"\n"
	"    \".size kp_iret, .-kp_iret\\n\");\n"
	/*
	 * an encoded pointer (as the maple tree's maple_enode): an opaque pointer whose low byte
	 * an inlined helper clears to make a node pointer, of a node whose union has a slot[]
	 * view and a pivot[] view at the same offsets
	 */
	"struct enode;\n"
	"struct mnode {\n"
	"\tunion {\n"
	"\t\tstruct {\n"
	"\t\t\tstruct mnode *parent;\n"
	"\t\t\tvoid *slot[8];\n"
	"\t\t};\n"
	"\t\tstruct {\n"
	"\t\t\tstruct mnode *rparent;\n"
	"\t\t\tunsigned long pivot[7];\n"
	"\t\t\tlong gap;\n"
	"\t\t} r;\n"
	"\t};\n"
	"};\n"
	"static inline __attribute__((always_inline)) struct mnode *\n"
	"to_node(const struct enode *e)\n"
	"{\n"
	"\treturn (struct mnode *)((unsigned long)e & ~0xffUL);\n"
	"}\n"
	"static inline __attribute__((always_inline)) unsigned long *pivots(struct mnode *n)\n"
	"{\n"
	"\treturn n->r.pivot;\n"
	"}\n"
	"__attribute__((noinline)) unsigned long kp_encoded(const struct enode *e, int i)\n"
	"{\n"
	"\tunsigned long *piv = pivots(to_node(e));\n"
	"\tunsigned long s = 0;\n"
	"\tfor (int k = 0; k < i; k++)\n"
	"\t\ts += piv[k];\n"
	"\treturn s + (unsigned long)to_node(e)->parent;\n"
	"}\n"
	"int main(int argc, char **argv)\n"
	"{\n"
	"\treturn kp_param(&first) + kp_global(argc) + kp_tls() + kp_stack(argc) + kp_untyped() + kp_canary(argc) +\n"
	"\t       kp_flow() + kp_spill() + kp_rep() + kp_null() + kp_cmov(argc) + kp_loop() +\n"
	"\t       kp_gloop() + kp_encoded((void *)argv, argc);\n"
	"}\n";

struct fixture {
	struct tu_fixture tu; /* first: tu_fixture_setup() allocates it */
	char exe[PATH_MAX];
};

static int build(void *arg)
{
	struct fixture *f = arg;
	char src[PATH_MAX];

	snprintf(src, sizeof(src), "%s/fixture.c", f->tu.dir);
	snprintf(f->exe, sizeof(f->exe), "%s/fixture", f->tu.dir);
	return tu_write_file(src, fixture_src) ||
	       tu_cc("-O2 -g -no-pie -fstack-protector-strong", src, f->exe);
}

static int setup(void **state)
{
	return tu_fixture_setup(state, sizeof(struct fixture), "kp-dtype", "cc", build);
}

static const char *const hows[] = {"untyped", "register", "flow",    "global",
				   "percpu",  "stack",	  "stackop", "canary"};

static void put(char *out, size_t len, const struct dtype_access *a)
{
	size_t used = strlen(out);

	if (a->how == DT_UNTYPED)
		snprintf(out + used, len - used, "untyped: %s\n", a->why);
	else if (!a->type_size)
		snprintf(out + used, len - used, "%s %s\n", hows[a->how], a->type);
	else
		snprintf(out + used, len - used, "%s %s (%llu) %s +%llu at %llu size %llu\n",
			 hows[a->how], a->type, (unsigned long long)a->type_size,
			 a->member[0] ? a->member : "-", (unsigned long long)a->offset,
			 (unsigned long long)a->moffset, (unsigned long long)a->msize);
}

/* Every access of the function name's instructions, one line each, into out. */
static void accesses(struct tu_kernel *k, struct dtype_file *d, const char *name, char *out,
		     size_t len)
{
	struct dtype_access a[DTYPE_MAX_ACCESS];
	struct cfg_text t;
	const uint8_t *code;
	uint64_t pc;
	size_t left;
	unsigned int n, i;
	cs_insn *insn;
	csh cs;

	tu_kernel_text(k, name, &t);
	assert_int_equal(cs_open(CS_ARCH_X86, CS_MODE_64, &cs), CS_ERR_OK);
	insn = cs_malloc(cs);
	code = t.code;
	left = t.len;
	pc = t.addr;
	out[0] = 0;
	while (cs_disasm_iter(cs, &code, &left, &pc, insn)) {
		assert_int_equal(dtype_resolve(d, insn->address, a, &n), 0);
		for (i = 0; i < n; i++)
			put(out, len, &a[i]);
		if (insn->id == X86_INS_RET)
			break; /* the padding after it is no code */
	}
	cs_free(insn, 1);
	cs_close(&cs);
}

struct want {
	const char *func, *accesses;
};

static void test_fixture(void **state)
{
	static const struct want wants[] = {
		{"kp_param", "register struct node (24) count +16 at 16 size 4\n"
			     "stackop (stack operation)\n"},
		{"kp_get_node", "global struct node (24) next +8 at 8 size 8\n"
				"stackop (stack operation)\n"},
		{"kp_global", "flow struct item (48) pos.y +24 at 24 size 8\n"
			      "stackop (stack operation)\n"},
		{"kp_tls", "percpu struct item (48) weight +8 at 8 size 8\n"
			   "stackop (stack operation)\n"},
		{"kp_stack", "stack struct point (16) x +0 at 0 size 8\n"
			     "stack struct point (16) y +8 at 8 size 8\n"
			     "stack struct point (16) x +0 at 0 size 8\n"
			     "stack struct point (16) y +8 at 8 size 8\n"
			     "stackop (stack operation)\n"},
		{"kp_untyped", "stackop (stack operation)\n"
			       "untyped: no type for %rax\n"
			       "stackop (stack operation)\n"},
		{"kp_canary", "canary (stack canary)\n"
			      "canary (stack canary)\n"
			      "stackop (stack operation)\n"
			      "stack char[32] (32) - +3 at 0 size 32\n"
			      "canary (stack canary)\n"
			      "canary (stack canary)\n"
			      "stackop (stack operation)\n"},
		{"kp_flow", "flow struct item (48) pos.y +24 at 24 size 8\n"
			    "flow struct item (48) name +36 at 32 size 12\n"
			    "stackop (stack operation)\n"
			    "stackop (stack operation)\n"
			    "flow struct node (24) next +8 at 8 size 8\n"
			    "flow struct node (24) count +16 at 16 size 4\n"
			    "stackop (stack operation)\n"
			    "stackop (stack operation)\n"},
		/* a call's result spilled and reloaded, and a store through the address of a slot
		 */
		{"kp_spill", "stackop (stack operation)\n"
			     "stack struct node * (8) - +0 at 0 size 8\n"
			     "untyped: stack slot with no variable\n"
			     "stackop (stack operation)\n"
			     "stack struct node * (8) - +0 at 0 size 8\n"
			     "flow struct node (24) count +16 at 16 size 4\n"
			     "stackop (stack operation)\n"},
		/*
		 * rep stosq's iterations walk the element from its start: the whole
		 * object's; SSE's movsd, whose F2 is its opcode's, one member's
		 */
		{"kp_rep", "flow struct item (48) - +0 at 0 size 48\n"
			   "global struct item (48) weight +8 at 8 size 8\n"
			   "stackop (stack operation)\n"},
		/* a pointer or NULL on the ways in: the pointer (NULL's way cannot load) */
		{"kp_null", "stackop (stack operation)\n"
			    "stackop (stack operation)\n"
			    "flow struct node (24) next +8 at 8 size 8\n"
			    "stackop (stack operation)\n"
			    "stackop (stack operation)\n"},
		/* the same, chosen by a cmov */
		{"kp_cmov", "stackop (stack operation)\n"
			    "stackop (stack operation)\n"
			    "flow struct node (24) count +16 at 16 size 4\n"
			    "stackop (stack operation)\n"
			    "stackop (stack operation)\n"},
		/*
		 * a pointer stepped over an array member in a loop: into some element of it at the
		 * loop's head and after, so that -8 past the loop is the array's last element, not
		 * the member before it; a pointer moved by a number in a register
		 */
		{"kp_loop", "flow struct vec (48) v +8 at 8 size 32\n"
			    "flow struct vec (48) v +8 at 8 size 32\n"
			    "flow struct vec (48) v +16 at 8 size 32\n"
			    "flow struct vec (48) it +40 at 40 size 8\n"
			    "stackop (stack operation)\n"},
		/*
		 * a global array of structs walked through a pointer a lea (and a mov $SYM) formed
		 * from it, stepped by whole elements: each access that element's member
		 */
		{"kp_gloop", "flow struct item (48) pos.y +24 at 24 size 8\n"
			     "flow struct item (48) name +36 at 32 size 12\n"
			     "flow struct item (48) weight +8 at 8 size 8\n"
			     "stackop (stack operation)\n"},
		/* &p->v[i] as lea 8(p,i,8): the array member at the displacement, by element */
		{"kp_index", "flow struct vec (48) v +8 at 8 size 32\n"
			     "stackop (stack operation)\n"},
		/* an iret's pops of the interrupt frame, which no operand names */
		{"kp_iret", "stackop (stack operation)\n"
			    "stackop (stack operation)\n"},
		/*
		 * the low byte of an encoded pointer cleared in the inlined to_node(): a struct
		 * mnode; the pivots' loads, through a variable of unsigned long * into it, of its
		 * union's view that holds unsigned longs there, not the slot[] view before it
		 */
		{"kp_encoded", "flow struct mnode (72) r.pivot +8 at 8 size 56\n"
			       "flow struct mnode (72) parent +0 at 0 size 8\n"
			       "stackop (stack operation)\n"},
	};
	struct fixture *f = tu_fixture(state);
	struct dtype_file *d;
	struct tu_kernel k;
	char got[2048];
	size_t i;

	tu_kernel_open(&k, f->exe);
	assert_int_equal(dtype_open(&d, k.di), 0);
	for (i = 0; i < sizeof(wants) / sizeof(wants[0]); i++) {
		accesses(&k, d, wants[i].func, got, sizeof(got));
		if (strcmp(got, wants[i].accesses))
			print_message("%s:\n%s", wants[i].func, got);
		assert_string_equal(got, wants[i].accesses);
	}
	/* again, from the cache: the same */
	accesses(&k, d, "kp_flow", got, sizeof(got));
	assert_string_equal(got, wants[7].accesses);
	dtype_close(d);
	tu_kernel_close(&k);
}

/* A PC outside any text, and a file without DWARF. */
static void test_bad_input(void **state)
{
	struct fixture *f = tu_fixture(state);
	struct dtype_access a[DTYPE_MAX_ACCESS];
	struct dtype_file *d;
	struct tu_kernel k;
	unsigned int n;

	tu_kernel_open(&k, f->exe);
	assert_int_equal(dtype_open(&d, k.di), 0);
	assert_int_equal(dtype_resolve(d, 0x10, a, &n), 0);
	assert_int_equal(n, 1);
	assert_int_equal(a[0].how, DT_UNTYPED);
	assert_string_equal(a[0].why, "no instruction there");
	dtype_close(d);
	tu_kernel_close(&k);
}

struct reason {
	char why[64];
	unsigned int n;
};

/* Counts why (cut at its first number, which differs from PC to PC) among r[*nr]. */
static void count_reason(struct reason *r, size_t *nr, size_t cap, const char *why)
{
	char key[64];
	size_t i;

	snprintf(key, sizeof(key), "%.*s", (int)strcspn(why, "0123456789"), why);
	for (i = 0; i < *nr; i++)
		if (!strcmp(r[i].why, key))
			break;
	if (i == *nr) {
		if (*nr == cap)
			return;
		snprintf(r[(*nr)++].why, sizeof(r[0].why), "%s", key);
	}
	r[i].n++;
}

static int by_count(const void *a, const void *b)
{
	const struct reason *x = a, *y = b;

	return (int)y->n - (int)x->n;
}

/* The share of a function's accesses (one per memory operand or stack operation) typed. */
static void share(struct tu_kernel *k, struct dtype_file *d, const char *name, unsigned int *typed,
		  unsigned int *all, struct reason *r, size_t *nr, size_t cap)
{
	struct dtype_access a[DTYPE_MAX_ACCESS];
	struct cfg_text t;
	const uint8_t *code;
	uint64_t pc;
	size_t left;
	unsigned int n, i, t0 = *typed, a0 = *all;
	cs_insn *insn;
	csh cs;

	if (file_cfg_text(k->fc, name, &t))
		return;
	assert_int_equal(cs_open(CS_ARCH_X86, CS_MODE_64, &cs), CS_ERR_OK);
	insn = cs_malloc(cs);
	code = t.code;
	left = t.len;
	pc = t.addr;
	while (cs_disasm_iter(cs, &code, &left, &pc, insn)) {
		assert_int_equal(dtype_resolve(d, insn->address, a, &n), 0);
		for (i = 0; i < n; i++) {
			(*all)++;
			if (a[i].how != DT_UNTYPED)
				(*typed)++;
			else
				count_reason(r, nr, cap, a[i].why);
		}
	}
	print_message("  %-24s %4u of %4u typed\n", name, *typed - t0, *all - a0);
	cs_free(insn, 1);
	cs_close(&cs);
}

/*
 * The typed share of some of the kernel's hot functions (every load, store and
 * stack operation of their text), and why the rest is untyped: a measure for
 * the rules rather than a check, but each must type something.
 */
static void test_real_vmlinux(void **state)
{
	static const char *const funcs[] = {
		"copy_process",	      "__schedule",	 "do_syscall_64",     "kmem_cache_alloc",
		"__task_pid_nr_ns",   "copy_page_range", "__handle_mm_fault", "filemap_map_pages",
		"do_user_addr_fault", "update_curr",	 "enqueue_task_fair", "find_vma",
	};
	const char *path = getenv("KP_TEST_VMLINUX");
	struct reason r[64] = {0};
	struct dtype_file *d;
	struct tu_kernel k;
	unsigned int typed = 0, all = 0;
	size_t nr = 0, i;
	clock_t c0;

	if (!path || access(path, R_OK)) {
		print_message("skipped: KP_TEST_VMLINUX names no readable vmlinux with DWARF "
			      "(e.g. /root/.cache/kprotperf/dbg/vmlinux-6.1.0-56-amd64)\n");
		skip();
	}
	tu_kernel_open(&k, path);
	c0 = clock();
	assert_int_equal(dtype_open(&d, k.di), 0);
	print_message("indexed in %.1f s\n", (double)(clock() - c0) / CLOCKS_PER_SEC);
	c0 = clock();
	for (i = 0; i < sizeof(funcs) / sizeof(funcs[0]); i++)
		share(&k, d, funcs[i], &typed, &all, r, &nr, 64);
	print_message("typed %u of %u (%.3f) in %.1f s; untyped:\n", typed, all,
		      all ? (double)typed / all : 0, (double)(clock() - c0) / CLOCKS_PER_SEC);
	qsort(r, nr, sizeof(r[0]), by_count);
	for (i = 0; i < nr && i < 15; i++)
		print_message("  %5u  %s\n", r[i].n, r[i].why);
	assert_true(typed > 0);
	dtype_close(d);
	tu_kernel_close(&k);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_fixture),
		cmocka_unit_test(test_bad_input),
		cmocka_unit_test(test_real_vmlinux),
	};

	return cmocka_run_group_tests(tests, setup, tu_fixture_teardown);
}
