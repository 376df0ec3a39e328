/* SPDX-License-Identifier: GPL-2.0-only */
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
#include <unistd.h>

#include "symbols/debuginfo.h"
#include "symbols/dwarf_fetch.h"
#include "testutil.h"

/*
 * DWARF written by hand, so that each kind of location is there exactly:
 * kp_fn's parameters a..h each point to a struct of their own (x and y,
 * two unsigned ints), so that dwarf_fetch_pointer_to() finds each by its
 * struct's name: a in rbx, b in memory at rsp + 16, c in r12 as one piece
 * of the whole pointer, d in r12 as half of it, e at the frame base, f at
 * rdi's value at entry, g (a pointer to a const typedef of its struct) in
 * r15 by DW_OP_regx, h in memory at r14 - 8 by DW_OP_bregx.  A lexical
 * block over [kp_in, kp_in_end) has inner, a kp_reg pointer in rax.
 */
static const char asm_src[] =
	"	.text\n"
	"	.globl kp_fn\n"
	"kp_fn:	nop\n	nop\n"
	"kp_in:	nop\n	nop\n"
	"kp_in_end:\n	nop\n	ret\n"
	"kp_fn_end:\n"
	/* abbreviations: unit, function, parameter, pointer, struct, member, base type,
	   block, variable, typedef, const */
	"	.section .debug_abbrev,\"\",@progbits\n"
	"	.uleb128 1, 0x11\n	.byte 1\n	.uleb128 0x03, 0x08, 0x11, 0x01, 0x12, 0x07, 0, 0\n"
	"	.uleb128 2, 0x2e\n	.byte 1\n	.uleb128 0x03, 0x08, 0x11, 0x01, 0x12, 0x07, 0, 0\n"
	"	.uleb128 3, 0x05\n	.byte 0\n	.uleb128 0x03, 0x08, 0x49, 0x13, 0x02, 0x18, 0, 0\n"
	"	.uleb128 4, 0x0f\n	.byte 0\n	.uleb128 0x0b, 0x0b, 0x49, 0x13, 0, 0\n"
	"	.uleb128 5, 0x13\n	.byte 1\n	.uleb128 0x03, 0x08, 0x0b, 0x0b, 0, 0\n"
	"	.uleb128 6, 0x0d\n	.byte 0\n	.uleb128 0x03, 0x08, 0x49, 0x13, 0x38, 0x0b, 0, 0\n"
	"	.uleb128 7, 0x24\n	.byte 0\n	.uleb128 0x03, 0x08, 0x0b, 0x0b, 0x3e, 0x0b, 0, 0\n"
	"	.uleb128 8, 0x0b\n	.byte 1\n	.uleb128 0x11, 0x01, 0x12, 0x07, 0, 0\n"
	"	.uleb128 9, 0x34\n	.byte 0\n	.uleb128 0x03, 0x08, 0x49, 0x13, 0x02, 0x18, 0, 0\n"
	"	.uleb128 10, 0x16\n	.byte 0\n	.uleb128 0x03, 0x08, 0x49, 0x13, 0, 0\n"
	"	.uleb128 11, 0x26\n	.byte 0\n	.uleb128 0x49, 0x13, 0, 0\n"
	"	.byte 0\n"
	"	.section .debug_info,\"\",@progbits\n"
	".Lcu:	.long .Lcu_end - .Lcu - 4\n	.short 4\n	.long 0\n	.byte 8\n"
	"	.uleb128 1\n	.asciz \"kp.s\"\n	.quad kp_fn\n	.quad kp_fn_end - kp_fn\n"
	".Luint:	.uleb128 7\n	.asciz \"unsigned int\"\n	.byte 4, 7\n"
	"	.macro kp_struct name\n"
	".Ls_\\name: .uleb128 5\n	.asciz \"\\name\"\n	.byte 8\n"
	"	.uleb128 6\n	.asciz \"x\"\n	.long .Luint - .Lcu\n	.byte 0\n"
	"	.uleb128 6\n	.asciz \"y\"\n	.long .Luint - .Lcu\n	.byte 4\n"
	"	.byte 0\n"
	".Lp_\\name: .uleb128 4\n	.byte 8\n	.long .Ls_\\name - .Lcu\n"
	"	.endm\n"
	"	kp_struct kp_reg\n	kp_struct kp_breg\n	kp_struct kp_piece\n"
	"	kp_struct kp_part\n	kp_struct kp_fb\n	kp_struct kp_entry\n"
	"	kp_struct kp_bregx\n	kp_struct kp_peeled\n"
	".Ltd:	.uleb128 10\n	.asciz \"kp_peeled_t\"\n	.long .Ls_kp_peeled - .Lcu\n"
	".Lconst: .uleb128 11\n	.long .Ltd - .Lcu\n"
	".Lp_peeled: .uleb128 4\n	.byte 8\n	.long .Lconst - .Lcu\n"
	"	.uleb128 2\n	.asciz \"kp_fn\"\n	.quad kp_fn\n	.quad kp_fn_end - kp_fn\n"
	"	.macro kp_param name, type, loc:vararg\n"
	"	.uleb128 3\n	.asciz \"\\name\"\n	.long \\type - .Lcu\n"
	"	.uleb128 9f - 8f\n8:	.byte \\loc\n9:\n"
	"	.endm\n"
	"	kp_param a, .Lp_kp_reg, 0x53\n"			 /* DW_OP_reg3 */
	"	kp_param b, .Lp_kp_breg, 0x77, 0x10\n"		 /* DW_OP_breg7 16 */
	"	kp_param c, .Lp_kp_piece, 0x5c, 0x93, 8\n"	 /* DW_OP_reg12 DW_OP_piece 8 */
	"	kp_param d, .Lp_kp_part, 0x5c, 0x93, 4\n"	 /* DW_OP_reg12 DW_OP_piece 4 */
	"	kp_param e, .Lp_kp_fb, 0x91, 0x68\n"		 /* DW_OP_fbreg -24 */
	"	kp_param f, .Lp_kp_entry, 0xf3, 1, 0x55, 0x9f\n" /* entry_value(reg5) stack_value */
	"	kp_param g, .Lp_peeled, 0x90, 15\n"		 /* DW_OP_regx 15 */
	"	kp_param h, .Lp_kp_bregx, 0x92, 14, 0x78\n"	 /* DW_OP_bregx 14 -8 */
	"	.uleb128 8\n	.quad kp_in\n	.quad kp_in_end - kp_in\n"
	"	.uleb128 9\n	.asciz \"inner\"\n	.long .Lp_kp_reg - .Lcu\n"
	"	.uleb128 1\n	.byte 0x50\n" /* DW_OP_reg0 */
	"	.byte 0\n	.byte 0\n	.byte 0\n"
	".Lcu_end:\n"
	"	.section .debug_aranges,\"\",@progbits\n"
	"	.long .Lar_end - .Lar\n"
	".Lar:	.short 2\n	.long .Lcu\n	.byte 8, 0\n	.long 0\n"
	"	.quad kp_fn\n	.quad kp_fn_end - kp_fn\n	.quad 0, 0\n"
	".Lar_end:\n";

/*
 * As GCC lays a struct out: a member of an anonymous struct in an
 * anonymous union, a named struct in that union, a named nested struct and
 * the bitfields of struct slab; built with DWARF 5 (DW_AT_data_bit_offset)
 * and DWARF 4 (DW_AT_bit_offset from the storage unit's top bit).
 */
static const char c_src[] = "struct kp_order {\n"
			    "	unsigned int x;\n"
			    "};\n"
			    "struct kp_slab {\n"
			    "	unsigned long flags;\n"
			    "	union {\n"
			    "		struct {\n"
			    "			void *next;\n"
			    "			int slabs;\n"
			    "		};\n"
			    "		struct kp_list {\n"
			    "			void *prev, *next2;\n"
			    "		} list;\n"
			    "	};\n"
			    "	struct kp_order oo;\n"
			    "	unsigned int limit;\n"
			    "	union {\n"
			    "		unsigned long counters;\n"
			    "		struct {\n"
			    "			unsigned inuse : 16;\n"
			    "			unsigned objects : 15;\n"
			    "			unsigned frozen : 1;\n"
			    "		};\n"
			    "	};\n"
			    "};\n"
			    "__attribute__((noinline)) unsigned int kp_get(struct kp_slab *slab)\n"
			    "{\n"
			    "	return slab->objects + slab->limit;\n"
			    "}\n"
			    "__attribute__((noinline)) int kp_int(int n)\n"
			    "{\n"
			    "	return n * 3 + 1;\n"
			    "}\n"
			    "int main(void)\n"
			    "{\n"
			    "	static struct kp_slab s;\n"
			    "	return kp_get(&s) + kp_int(2);\n"
			    "}\n";

#define MAX_SYMS 16

struct sym {
	char name[32];
	__u64 addr;
};

struct fixture {
	struct tu_fixture tu; /* first: tu_fixture_setup() allocates it */
	struct sym syms[MAX_SYMS];
	size_t nsyms;
};

static void parse_sym(const char *line, void *arg)
{
	struct fixture *f = arg;
	unsigned long long a;
	char name[32];

	if (f->nsyms < MAX_SYMS && sscanf(line, "%llx %*c %31s", &a, name) == 2 &&
	    !strncmp(name, "kp_", 3)) {
		snprintf(f->syms[f->nsyms].name, sizeof(f->syms[0].name), "%s", name);
		f->syms[f->nsyms++].addr = a;
	}
}

static int build(void *arg)
{
	struct fixture *f = arg;
	char path[PATH_MAX], out[PATH_MAX];

	snprintf(path, sizeof(path), "%s/d.s", f->tu.dir);
	if (tu_write_file(path, asm_src) ||
	    tu_run("cd '%s' && as --64 -o d.o d.s && ld -e kp_fn -o d d.o", f->tu.dir) ||
	    tu_each_line(parse_sym, f, "nm '%s/d'", f->tu.dir))
		return -1;
	snprintf(path, sizeof(path), "%s/m.c", f->tu.dir);
	snprintf(out, sizeof(out), "%s/m5", f->tu.dir);
	if (tu_write_file(path, c_src) || tu_cc("-O2 -gdwarf-5", path, out))
		return -1;
	snprintf(out, sizeof(out), "%s/m4", f->tu.dir);
	if (tu_cc("-O2 -gdwarf-4", path, out))
		return -1;
	/* both builds lay kp_get and kp_int out alike: one's symbols serve */
	return tu_each_line(parse_sym, f, "nm '%s'", out) || f->nsyms < 6 ? -1 : 0;
}

static int setup(void **state)
{
	return tu_fixture_setup(state, sizeof(struct fixture), "kp-dwfetch", "as, ld, gcc, nm",
				build);
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

static struct debuginfo *open_fixture(const struct fixture *f, const char *file)
{
	struct debuginfo *di;
	char path[PATH_MAX];

	snprintf(path, sizeof(path), "%s/%s", f->tu.dir, file);
	assert_int_equal(debuginfo_open(&di, path), 0);
	return di;
}

/* ops as a whole program, zero padding included, as the functions give them */
static struct kp_fetch program(const struct kp_fetch_op *ops, size_t n)
{
	struct kp_fetch p;

	memset(&p, 0, sizeof(p));
	memcpy(p.ops, ops, n * sizeof(*ops));
	p.n = n;
	return p;
}

struct pointer_case {
	const char *type;
	int err;
	const char *name;
	struct kp_fetch_op ops[4];
	size_t n;
};

static const struct pointer_case pointer_cases[] = {
	{"kp_reg", 0, "a", {{.op = KP_FOP_REG, .arg = KP_FREG_BX}}, 1},
	{"kp_breg",
	 0,
	 "b",
	 {{.op = KP_FOP_REG, .arg = KP_FREG_SP},
	  {.op = KP_FOP_CONST, .imm = 16},
	  {.op = KP_FOP_ADD},
	  {.op = KP_FOP_LOAD, .arg = 8}},
	 4},
	{"kp_piece", 0, "c", {{.op = KP_FOP_REG, .arg = KP_FREG_R12}}, 1},
	{"kp_part", -ENOENT, NULL, {{0}}, 0},
	{"kp_fb", -ENOENT, NULL, {{0}}, 0},
	{"kp_entry", -ENOENT, NULL, {{0}}, 0},
	{"kp_peeled", 0, "g", {{.op = KP_FOP_REG, .arg = KP_FREG_R15}}, 1},
	{"kp_bregx",
	 0,
	 "h",
	 {{.op = KP_FOP_REG, .arg = KP_FREG_R14},
	  {.op = KP_FOP_CONST, .imm = -8},
	  {.op = KP_FOP_ADD},
	  {.op = KP_FOP_LOAD, .arg = 8}},
	 4},
	{"kp_none", -ENOENT, NULL, {{0}}, 0},
};

/* Each location kind at kp_fn's entry: read as a probe there would, or refused. */
static void test_pointer_locations(void **state)
{
	struct fixture *f = tu_fixture(state);
	struct debuginfo *di = open_fixture(f, "d");
	const struct pointer_case *c;
	struct kp_fetch got, want;
	char name[32];
	size_t i;

	for (i = 0; i < sizeof(pointer_cases) / sizeof(pointer_cases[0]); i++) {
		c = &pointer_cases[i];
		memset(&got, 0, sizeof(got));
		strcpy(name, "-");
		assert_int_equal(dwarf_fetch_pointer_to(di, sym(f, "kp_fn"), c->type, &got, name,
							sizeof(name)),
				 c->err);
		want = program(c->ops, c->n);
		assert_memory_equal(&got, &want, sizeof(got));
		assert_string_equal(name, c->name ? c->name : "-");
	}
	debuginfo_close(di);
}

/* The lexical block's variable before the function's parameters; nothing outside the function. */
static void test_scopes(void **state)
{
	static const struct kp_fetch_op in_rax[] = {{.op = KP_FOP_REG, .arg = KP_FREG_AX}};
	struct fixture *f = tu_fixture(state);
	struct debuginfo *di = open_fixture(f, "d");
	struct kp_fetch got, want = program(in_rax, 1);
	__u64 type = 1, type_a;
	char name[32];

	assert_int_equal(
		dwarf_fetch_pointer_to(di, sym(f, "kp_in"), "kp_reg", &got, name, sizeof(name)), 0);
	assert_memory_equal(&got, &want, sizeof(got));
	assert_string_equal(name, "inner");
	assert_int_equal(
		dwarf_fetch_pointer_to(di, sym(f, "kp_fn_end"), "kp_reg", &got, name, sizeof(name)),
		-ENODATA);
	assert_int_equal(
		dwarf_fetch_reg_name(di, sym(f, "kp_in"), KP_FREG_AX, name, sizeof(name), &type),
		0);
	assert_string_equal(name, "inner");
	assert_int_equal(
		dwarf_fetch_reg_name(di, sym(f, "kp_in"), KP_FREG_BX, name, sizeof(name), &type_a),
		0);
	assert_string_equal(name, "a");
	/* both point to struct kp_reg */
	assert_int_equal(type, type_a);
	assert_int_equal(dwarf_fetch_member(di, type, 32, 32, name, sizeof(name)), 0);
	assert_string_equal(name, "y");
	assert_int_equal(
		dwarf_fetch_reg_name(di, sym(f, "kp_fn"), KP_FREG_AX, name, sizeof(name), &type),
		-ENOENT);
	assert_int_equal(
		dwarf_fetch_reg_name(di, sym(f, "kp_in"), KP_FREG_CX, name, sizeof(name), &type),
		-ENOENT);
	assert_int_equal(dwarf_fetch_reg_name(di, sym(f, "kp_fn_end"), KP_FREG_BX, name,
					      sizeof(name), &type),
			 -ENOENT);
	debuginfo_close(di);
}

struct member_case {
	__u64 bit, bits;
	const char *name; /* NULL: -ENOENT */
};

static const struct member_case member_cases[] = {
	{0, 64, "flags"},     {64, 64, "next"}, /* the anonymous struct's, first in the union */
	{128, 32, "slabs"},   {128, 64, "list.next2"}, /* only the named struct has a member there
							  that wide */
	{192, 32, "oo.x"},			       /* the scalar, not the struct holding it */
	{192, 0, "oo.x"},     {224, 32, "limit"},      {256, 64, "counters"},
	{256, 0, "counters"}, {256, 16, "inuse"},      {272, 15, "objects"},
	{287, 1, "frozen"},   {272, 16, NULL}, /* objects is 15 bits */
	{8, 8, NULL},			       /* inside flags */
	{320, 0, NULL},			       /* past the end */
};

/* kp_get's slab, at its entry, and the members of struct kp_slab. */
static void check_members(const struct fixture *f, const char *file)
{
	static const struct kp_fetch_op in_rdi[] = {{.op = KP_FOP_REG, .arg = KP_FREG_DI}};
	struct debuginfo *di = open_fixture(f, file);
	struct kp_fetch got, want = program(in_rdi, 1);
	const struct member_case *c;
	char name[32];
	__u64 type;
	size_t i;

	assert_int_equal(
		dwarf_fetch_pointer_to(di, sym(f, "kp_get"), "kp_slab", &got, name, sizeof(name)),
		0);
	assert_memory_equal(&got, &want, sizeof(got));
	assert_string_equal(name, "slab");
	assert_int_equal(
		dwarf_fetch_reg_name(di, sym(f, "kp_get"), KP_FREG_DI, name, sizeof(name), &type),
		0);
	assert_string_equal(name, "slab");
	for (i = 0; i < sizeof(member_cases) / sizeof(member_cases[0]); i++) {
		c = &member_cases[i];
		strcpy(name, "-");
		assert_int_equal(dwarf_fetch_member(di, type, c->bit, c->bits, name, sizeof(name)),
				 c->name ? 0 : -ENOENT);
		assert_string_equal(name, c->name ? c->name : "-");
	}
	/* an int is no pointer to a struct */
	assert_int_equal(
		dwarf_fetch_reg_name(di, sym(f, "kp_int"), KP_FREG_DI, name, sizeof(name), &type),
		0);
	assert_string_equal(name, "n");
	assert_int_equal(dwarf_fetch_member(di, type, 0, 32, name, sizeof(name)), -ENOENT);
	debuginfo_close(di);
}

static void test_members_dwarf5(void **state)
{
	check_members(tu_fixture(state), "m5");
}

static void test_members_dwarf4(void **state)
{
	check_members(tu_fixture(state), "m4");
}

/*
 * Debian 6.1's allocate_slab, shuffle_freelist inlined at 0xffffffff813296e5: its s in rbx,
 * its slab in r15 and slab->objects, the 15-bit field at bit 16 of the word at 0x28.
 */
static void test_real_vmlinux(void **state)
{
	static const struct kp_fetch_op in_rbx[] = {{.op = KP_FOP_REG, .arg = KP_FREG_BX}};
	const char *path = getenv("KP_TEST_VMLINUX");
	struct kp_fetch got, want = program(in_rbx, 1);
	struct debuginfo *di;
	char name[64];
	__u64 type;

	if (!path || access(path, R_OK)) {
		print_message("skipped: KP_TEST_VMLINUX names no readable vmlinux with DWARF "
			      "(e.g. /root/.cache/kprotperf/dbg/vmlinux-6.1.0-56-amd64)\n");
		skip();
	}
	assert_int_equal(debuginfo_open(&di, path), 0);
	assert_int_equal(dwarf_fetch_pointer_to(di, 0xffffffff813296e5ull, "kmem_cache", &got, name,
						sizeof(name)),
			 0);
	assert_memory_equal(&got, &want, sizeof(got));
	assert_string_equal(name, "s");
	assert_int_equal(dwarf_fetch_reg_name(di, 0xffffffff8132979eull, KP_FREG_R15, name,
					      sizeof(name), &type),
			 0);
	assert_string_equal(name, "slab");
	assert_int_equal(dwarf_fetch_member(di, type, 0x2a * 8, 15, name, sizeof(name)), 0);
	assert_string_equal(name, "objects");
	assert_int_equal(dwarf_fetch_member(di, type, 0x28 * 8, 64, name, sizeof(name)), 0);
	assert_string_equal(name, "counters");
	assert_int_equal(dwarf_fetch_member(di, type, 0x10 * 8, 64, name, sizeof(name)), 0);
	assert_string_equal(name, "slab_list.prev");
	debuginfo_close(di);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_pointer_locations), cmocka_unit_test(test_scopes),
		cmocka_unit_test(test_members_dwarf5),	  cmocka_unit_test(test_members_dwarf4),
		cmocka_unit_test(test_real_vmlinux),
	};

	return cmocka_run_group_tests(tests, setup, tu_fixture_teardown);
}
