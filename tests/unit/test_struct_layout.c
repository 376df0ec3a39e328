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

#include "cmd/cmds.h"
#include "datatype/layout.h"
#include "symbols/debuginfo.h"
#include "testutil.h"

/*
 * A struct whose layout x86-64's ABI fixes, each kind of member pahole
 * shows: a hole after a char, two bitfields in one unit (a bit hole, then a
 * byte hole), an anonymous union (its members under their own names, at
 * one offset), a nested struct, arrays, a function pointer, a typedef of
 * an anonymous struct on the second cache line, tail padding.  LAYOUT_B is
 * the same struct as another build lays it out: c after p (which moves
 * every member but tail), tail gone, extra added: one member on each side
 * only.
 */
static const char c_src[] = "typedef struct {\n"
			    "	int a;\n"
			    "	char b;\n"
			    "} kp_anon_t;\n"
			    "struct kp_inner {\n"
			    "	long x;\n"
			    "	int y;\n"
			    "};\n"
			    "struct kp_layout {\n"
			    "#ifndef LAYOUT_B\n"
			    "	char c;\n"
			    "	void *p;\n"
			    "#else\n"
			    "	void *p;\n"
			    "	char c;\n"
			    "#endif\n"
			    "	unsigned int f1 : 3;\n"
			    "	unsigned int f2 : 4;\n"
			    "	short s;\n"
			    "	union {\n"
			    "		int u_i;\n"
			    "		float u_f;\n"
			    "	};\n"
			    "	struct kp_inner in;\n"
			    "	char name[16];\n"
			    "	int (*fn)(struct kp_inner *, int);\n"
			    "	kp_anon_t anon;\n"
			    "	const char *str;\n"
			    "	struct kp_inner arr[2][3];\n"
			    "#ifndef LAYOUT_B\n"
			    "	char tail;\n"
			    "#else\n"
			    "	long extra;\n"
			    "#endif\n"
			    "};\n"
			    "struct kp_layout kp_g;\n"
			    "kp_anon_t kp_a;\n"
			    "int main(void)\n"
			    "{\n"
			    "	return kp_g.s + kp_a.a;\n"
			    "}\n";

static int build(void *arg)
{
	struct tu_fixture *f = arg;
	char path[PATH_MAX], out[PATH_MAX];

	snprintf(path, sizeof(path), "%s/l.c", f->dir);
	if (tu_write_file(path, c_src))
		return -1;
	snprintf(out, sizeof(out), "%s/a5", f->dir);
	if (tu_cc("-O2 -gdwarf-5", path, out))
		return -1;
	snprintf(out, sizeof(out), "%s/a4", f->dir);
	if (tu_cc("-O2 -gdwarf-4", path, out))
		return -1;
	snprintf(out, sizeof(out), "%s/b5", f->dir);
	return tu_cc("-O2 -gdwarf-5 -DLAYOUT_B", path, out);
}

static int setup(void **state)
{
	return tu_fixture_setup(state, sizeof(struct tu_fixture), "kp-layout", "gcc", build);
}

static struct layout *find(const struct tu_fixture *f, const char *file, const char *name, int want,
			   const char *closest)
{
	struct layout *l = NULL;
	struct debuginfo *di;
	char path[PATH_MAX], near[64];

	snprintf(path, sizeof(path), "%s/%s", f->dir, file);
	assert_int_equal(debuginfo_open(&di, path), 0);
	assert_int_equal(layout_find(di, file, name, &l, near, sizeof(near)), want);
	if (closest)
		assert_string_equal(near, closest);
	debuginfo_close(di);
	return l;
}

struct want {
	const char *name, *type;
	__u64 offset, size;
	__u32 bit_offset, bit_size, bit_hole;
	__u64 hole;
	unsigned int depth;
};

static const struct want members[] = {
	{"c", "char", 0, 1, 0, 0, 0, 7, 0},
	{"p", "void *", 8, 8, 0, 0, 0, 0, 0},
	{"f1", "unsigned int", 16, 4, 0, 3, 0, 0, 0},
	{"f2", "unsigned int", 16, 4, 3, 4, 1, 1, 0},
	{"s", "short int", 18, 2, 0, 0, 0, 0, 0},
	{"u_i", "int", 20, 4, 0, 0, 0, 0, 1},
	{"u_f", "float", 20, 4, 0, 0, 0, 0, 1},
	{"in", "struct kp_inner", 24, 16, 0, 0, 0, 0, 0},
	{"name", "char[16]", 40, 16, 0, 0, 0, 0, 0},
	{"fn", "int (*)(struct kp_inner *, int)", 56, 8, 0, 0, 0, 0, 0},
	{"anon", "kp_anon_t", 64, 8, 0, 0, 0, 0, 0},
	{"str", "const char *", 72, 8, 0, 0, 0, 0, 0},
	{"arr", "struct kp_inner[2][3]", 80, 96, 0, 0, 0, 0, 0},
	{"tail", "char", 176, 1, 0, 0, 0, 0, 0},
};

static void check_members(const struct layout *l)
{
	size_t i, n = sizeof(members) / sizeof(members[0]);

	assert_string_equal(l->type, "struct kp_layout");
	assert_int_equal(l->size, 184);
	assert_int_equal(l->n, n);
	for (i = 0; i < n; i++) {
		const struct layout_member *m = &l->members[i];
		const struct want *w = &members[i];

		assert_string_equal(m->name, w->name);
		assert_string_equal(m->type, w->type);
		assert_int_equal(m->offset, w->offset);
		assert_int_equal(m->size, w->size);
		assert_int_equal(m->bit_offset, w->bit_offset);
		assert_int_equal(m->bit_size, w->bit_size);
		assert_int_equal(m->bit_hole, w->bit_hole);
		assert_int_equal(m->hole, w->hole);
		assert_int_equal(m->depth, w->depth);
		assert_int_equal(m->in_union, w->depth == 1);
	}
	assert_int_equal(l->holes, 2);
	assert_int_equal(l->hole_bytes, 8);
	assert_int_equal(l->bit_holes, 1);
	assert_int_equal(l->hole_bits, 1);
	assert_int_equal(l->padding, 7);
}

/* Every member where the ABI puts it, in DWARF 5 (data_bit_offset) and 4 (bit_offset). */
static void test_members(void **state)
{
	struct tu_fixture *f = tu_fixture(state);
	const char *const files[] = {"a5", "a4"};
	struct layout *l;
	__u64 line, past;
	size_t i;

	for (i = 0; i < 2; i++) {
		l = find(f, files[i], "kp_layout", 0, NULL);
		check_members(l);
		/* the second cache line starts at anon, exactly */
		assert_true(layout_boundary(l, 10, &line, &past));
		assert_int_equal(line, 1);
		assert_int_equal(past, 0);
		assert_false(layout_boundary(l, 9, &line, &past));
		/* the third inside arr, which tail follows: "was 48 bytes ago" */
		assert_true(layout_boundary(l, 13, &line, &past));
		assert_int_equal(line, 2);
		assert_int_equal(past, 48);
		assert_non_null(layout_member_named(l, "u_f"));
		assert_null(layout_member_named(l, "nosuch"));
		/* by offset: a member's first and last byte, a union's first member, holes */
		assert_string_equal(layout_member_at(l, 8)->name, "p");
		assert_string_equal(layout_member_at(l, 15)->name, "p");
		assert_string_equal(layout_member_at(l, 20)->name, "u_i");
		assert_string_equal(layout_member_at(l, 17 * 8)->name, "arr");
		assert_string_equal(layout_member_at(l, 176)->name, "tail");
		assert_null(layout_member_at(l, 1));
		assert_null(layout_member_at(l, 177));
		layout_free(l);
	}
}

/* The names a type is asked by; what is absent gets the closest name, or none. */
static void test_names(void **state)
{
	struct tu_fixture *f = tu_fixture(state);
	struct layout *l;

	l = find(f, "a5", "struct kp_layout", 0, NULL);
	check_members(l);
	layout_free(l);
	l = find(f, "a5", "kp_anon_t", 0, NULL);
	assert_string_equal(l->type, "kp_anon_t");
	assert_int_equal(l->size, 8);
	assert_int_equal(l->n, 2);
	assert_int_equal(l->padding, 3);
	layout_free(l);
	l = find(f, "a5", "kp_inner", 0, NULL);
	assert_string_equal(l->type, "struct kp_inner");
	layout_free(l);
	assert_null(find(f, "a5", "union kp_layout", -ENOENT, ""));
	assert_null(find(f, "a5", "kp_layot", -ENOENT, "kp_layout"));
	assert_null(find(f, "a5", "struct kp_inr", -ENOENT, "kp_inner"));
	assert_null(find(f, "a5", "zzzzzzzzzzzz", -ENOENT, ""));
}

/* pahole's view, text and JSON, and a mistyped name's one line, through the command. */
static void test_command(void **state)
{
	struct tu_fixture *f = tu_fixture(state);
	const char *const mask[] = {f->dir, "DIR", NULL};
	char a5[PATH_MAX], a4[PATH_MAX], b5[PATH_MAX], want[PATH_MAX * 2];
	char *one[] = {"features", "--layout", "kp_layout", "--vmlinux", a5, NULL};
	char *dw4[] = {"features", "--layout", "kp_layout", "--vmlinux", a4, NULL};
	char *json[] = {"features", "--layout", "kp_layout", "--vmlinux", a5, "--json", NULL};
	char *bad[] = {"features", "--layout", "kp_layot", "--vmlinux", a5, NULL};
	char *out, *out4;

	snprintf(a5, sizeof(a5), "%s/a5", f->dir);
	snprintf(a4, sizeof(a4), "%s/a4", f->dir);
	snprintf(b5, sizeof(b5), "%s/b5", f->dir);
	out = tu_output(cmd_features, one);
	tu_golden_mask("struct-layout", out, mask);
	/* DWARF 4 gives the same view, but for the file's name */
	out4 = tu_output(cmd_features, dw4);
	assert_string_equal(strchr(out4, '\n'), strchr(out, '\n'));
	free(out4);
	free(out);
	tu_golden_json("struct-layout", f->dir, cmd_features, json);
	snprintf(want, sizeof(want),
		 "kprotperf features: no type 'kp_layot' in %s (closest: kp_layout)\n", a5);
	tu_expect(cmd_features, bad, 2, 1, want);
}

/* Two builds side by side: the members that moved, those on one side only. */
static void test_pair(void **state)
{
	struct tu_fixture *f = tu_fixture(state);
	const char *const mask[] = {f->dir, "DIR", NULL};
	char a5[PATH_MAX], b5[PATH_MAX];
	char *pair[] = {"features", "--layout",	 "kp_layout", "--vmlinux",
			a5,	    "--vmlinux", b5,	      NULL};
	char *json[] = {"features",  "--layout", "kp_layout", "--vmlinux", a5,
			"--vmlinux", b5,	 "--json",    NULL};
	char *out;

	snprintf(a5, sizeof(a5), "%s/a5", f->dir);
	snprintf(b5, sizeof(b5), "%s/b5", f->dir);
	out = tu_output(cmd_features, pair);
	tu_golden_mask("struct-layout-pair", out, mask);
	free(out);
	tu_golden_json("struct-layout-pair", f->dir, cmd_features, json);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_members),
		cmocka_unit_test(test_names),
		cmocka_unit_test(test_command),
		cmocka_unit_test(test_pair),
	};

	return cmocka_run_group_tests(tests, setup, tu_fixture_teardown);
}
