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
#include "symbols/symbolize.h"
#include "symbols/user_frames.h"
#include "testutil.h"

/*
 * Built at test time so the nesting is known: kp_inner is inlined into
 * kp_middle, which is inlined into kp_outer; kp_plain inlines nothing.  The
 * markers name the lines the tests expect.
 */
static const char fixture_src[] =
	"static volatile int sink;\n"
	"static inline __attribute__((always_inline)) int kp_inner(int x)\n"
	"{\n"
	"	sink += x;\n"
	"	return sink * 3;\n"
	"}\n"
	"static inline __attribute__((always_inline)) int kp_middle(int x)\n"
	"{\n"
	"	int r = kp_inner(x + 1); /* CALL_INNER */\n"
	"	return r + sink;\n"
	"}\n"
	"__attribute__((noinline, noclone)) int kp_outer(int x)\n"
	"{\n"
	"	return kp_middle(x * 2) - 1; /* CALL_MIDDLE */\n"
	"}\n"
	"__attribute__((noinline, noclone)) int kp_plain(int x)\n"
	"{\n"
	"	return x * 7 + sink;\n"
	"}\n"
	"int main(int argc, char **argv)\n"
	"{\n"
	"	return kp_outer(argc) + kp_plain(argc);\n"
	"}\n";

/* How far past a function's symbol the tests look for an address in an instance. */
#define SCAN_BYTES 0x1000

struct fixture {
	struct tu_fixture tu; /* first: tu_fixture_setup() allocates it */
	char exe[PATH_MAX];   /* DWARF 5, gcc 12's default */
	char exe4[PATH_MAX];  /* the same with DWARF 4 */
};

static int build(void *arg)
{
	struct fixture *f = arg;
	char src[PATH_MAX];

	snprintf(src, sizeof(src), "%s/fixture.c", f->tu.dir);
	snprintf(f->exe, sizeof(f->exe), "%s/fixture", f->tu.dir);
	snprintf(f->exe4, sizeof(f->exe4), "%s/fixture-dwarf4", f->tu.dir);
	return tu_write_file(src, fixture_src) || tu_cc("-O2 -g -gdwarf-5", src, f->exe) ||
	       tu_cc("-O2 -g -gdwarf-4", src, f->exe4);
}

static int setup(void **state)
{
	/* without a compiler the fixture tests skip rather than fail */
	return tu_fixture_setup(state, sizeof(struct fixture), "kp-symbolize", "cc", build);
}

/* The fixture's DWARF (version 4 or 5), opened with a symbolizer over it. */
static struct symbolizer *open_fixture(void **state, int version, struct debuginfo **di)
{
	struct fixture *f = tu_fixture(state);
	struct symbolizer *s;

	assert_int_equal(debuginfo_open(di, version == 4 ? f->exe4 : f->exe), 0);
	assert_int_equal(symbolizer_new(&s, *di), 0);
	return s;
}

/* The line of fixture_src holding marker. */
static int marker_line(const char *marker)
{
	int line = tu_marker_line(fixture_src, marker);

	assert_true(line > 0);
	return line;
}

/* The first address past function func's symbol whose innermost frame is inner. */
static __u64 find_frame(struct debuginfo *di, struct symbolizer *s, const char *func,
			const char *inner, const struct sym_result **out)
{
	__u64 start, a;

	assert_int_equal(debuginfo_symbol(di, func, &start), 0);
	for (a = start; a < start + SCAN_BYTES; a++) {
		assert_int_equal(symbolize(s, a, out), 0);
		if ((*out)->n && (*out)->frames[0].func && !strcmp((*out)->frames[0].func, inner))
			return a;
	}
	fail_msg("no address in %s's first %#x bytes is in %s", func, SCAN_BYTES, inner);
	return 0;
}

static void check_chain(void **state, int version)
{
	const struct sym_result *r;
	struct symbolizer *s;
	struct debuginfo *di;

	s = open_fixture(state, version, &di);
	find_frame(di, s, "kp_outer", "kp_inner", &r);
	assert_int_equal(r->n, 3);
	assert_string_equal(r->frames[0].func, "kp_inner");
	assert_string_equal(r->frames[1].func, "kp_middle");
	assert_string_equal(r->frames[2].func, "kp_outer");
	assert_true(r->frames[0].inlined);
	assert_true(r->frames[1].inlined);
	assert_false(r->frames[2].inlined);
	/* the innermost frame is where the code is: kp_inner's body */
	assert_true(tu_ends_with(r->frames[0].file, "/fixture.c"));
	assert_in_range(r->frames[0].line, marker_line("sink += x"), marker_line("sink * 3"));
	/* each outer frame is where it called the frame inside it */
	assert_true(tu_ends_with(r->frames[1].file, "/fixture.c"));
	assert_int_equal(r->frames[1].line, marker_line("CALL_INNER"));
	assert_true(tu_ends_with(r->frames[2].file, "/fixture.c"));
	assert_int_equal(r->frames[2].line, marker_line("CALL_MIDDLE"));
	assert_true(r->frames[0].die && r->frames[1].die && r->frames[2].die);
	assert_true(r->frames[0].die != r->frames[1].die);
	symbolizer_free(s);
	debuginfo_close(di);
}

static void test_chain_dwarf5(void **state)
{
	check_chain(state, 5);
}

static void test_chain_dwarf4(void **state)
{
	check_chain(state, 4);
}

static void test_plain(void **state)
{
	const struct sym_result *r;
	struct symbolizer *s;
	struct debuginfo *di;
	__u64 addr;

	s = open_fixture(state, 5, &di);
	assert_int_equal(debuginfo_symbol(di, "kp_plain", &addr), 0);
	assert_int_equal(symbolize(s, addr, &r), 0);
	assert_int_equal(r->n, 1);
	assert_string_equal(r->frames[0].func, "kp_plain");
	assert_false(r->frames[0].inlined);
	assert_true(tu_ends_with(r->frames[0].file, "/fixture.c"));
	/* the entry's rows: the declaration, then the statement its first instruction is for */
	assert_in_range(r->frames[0].line, marker_line("kp_plain(int x)"), marker_line("x * 7"));
	symbolizer_free(s);
	debuginfo_close(di);
}

static void test_outside(void **state)
{
	const struct sym_result *r, *again;
	struct symbolizer *s;
	struct debuginfo *di;
	__u64 addr;

	s = open_fixture(state, 5, &di);
	/* data, and an address below everything */
	assert_int_equal(debuginfo_symbol(di, "sink", &addr), 0);
	assert_int_equal(symbolize(s, addr, &r), 0);
	assert_int_equal(r->n, 0);
	assert_int_equal(symbolize(s, 0x10, &r), 0);
	assert_int_equal(r->n, 0);
	/* unknown addresses are cached too, 0 as well */
	assert_int_equal(symbolize(s, 0, &r), 0);
	assert_int_equal(symbolize(s, 0, &again), 0);
	assert_int_equal(r->n, 0);
	assert_ptr_equal(r, again);
	symbolizer_free(s);
	debuginfo_close(di);
}

static void test_cache(void **state)
{
	const struct sym_result *a, *b, *c;
	struct symbolizer *s;
	struct debuginfo *di;
	__u64 outer, plain;

	s = open_fixture(state, 5, &di);
	assert_int_equal(debuginfo_symbol(di, "kp_outer", &outer), 0);
	assert_int_equal(debuginfo_symbol(di, "kp_plain", &plain), 0);
	assert_int_equal(symbolize(s, outer, &a), 0);
	assert_int_equal(symbolize(s, plain, &c), 0);
	assert_int_equal(symbolize(s, outer, &b), 0);
	assert_ptr_equal(a, b);
	assert_ptr_not_equal(a, c);
	symbolizer_free(s);
	debuginfo_close(di);
}

/* r as eu-addr2line -f -i prints it, less columns ("in" names the outermost function). */
static void format_result(const struct sym_result *r, char *buf, size_t len)
{
	size_t n = 0;
	unsigned int k;

	n += snprintf(buf + n, len - n, "%s", r->frames[0].func);
	if (r->frames[0].inlined)
		n += snprintf(buf + n, len - n, " inlined at %s:%d in %s", r->frames[1].file,
			      r->frames[1].line, r->frames[r->n - 1].func);
	for (k = 0; k < r->n && n < len; k++) {
		if (k)
			n += snprintf(buf + n, len - n, "%s\n", r->frames[k].func);
		else
			n += snprintf(buf + n, len - n, "\n");
		n += snprintf(buf + n, len - n, "%s:%d\n", r->frames[k].file, r->frames[k].line);
	}
}

/* eu-addr2line's answer for addr, with the columns it adds cut off. */
static bool eu_addr2line(const char *exe, __u64 addr, char *buf, size_t len)
{
	char cmd[2 * PATH_MAX];
	size_t n;
	FILE *p;

	snprintf(cmd, sizeof(cmd),
		 "eu-addr2line -f -i -e '%s' %#llx | sed -E 's/(:[0-9]+):[0-9]+( in |$)/\\1\\2/'",
		 exe, (unsigned long long)addr);
	p = popen(cmd, "r");
	if (!p)
		return false;
	n = fread(buf, 1, len - 1, p);
	buf[n] = '\0';
	return !pclose(p) && n;
}

static void test_same_as_eu_addr2line(void **state)
{
	static const char *const where[][2] = {
		{"kp_outer", "kp_inner"},
		{"kp_outer", "kp_middle"},
		{"kp_outer", "kp_outer"},
		{"kp_plain", "kp_plain"},
	};
	char want[4096], got[4096];
	struct fixture *f = *state;
	const struct sym_result *r;
	struct symbolizer *s;
	struct debuginfo *di;
	size_t i;
	__u64 a;

	if (system("command -v eu-addr2line >/dev/null 2>&1"))
		skip();
	s = open_fixture(state, 5, &di);
	for (i = 0; i < sizeof(where) / sizeof(where[0]); i++) {
		a = find_frame(di, s, where[i][0], where[i][1], &r);
		assert_true(eu_addr2line(f->exe, a, want, sizeof(want)));
		format_result(r, got, sizeof(got));
		assert_string_equal(got, want);
	}
	symbolizer_free(s);
	debuginfo_close(di);
}

/* Debian 6.1: shuffle_freelist() exists only inlined, into allocate_slab() at mm/slub.c:1978. */
static void test_real_vmlinux(void **state)
{
	const char *path = getenv("KP_TEST_VMLINUX");
	const struct sym_result *r;
	struct symbolizer *s;
	struct debuginfo *di;

	if (!path || access(path, R_OK)) {
		print_message("skipped: KP_TEST_VMLINUX names no readable vmlinux-6.1.0-*-amd64 "
			      "with DWARF\n");
		skip();
	}
	assert_int_equal(debuginfo_open(&di, path), 0);
	assert_int_equal(symbolizer_new(&s, di), 0);
	find_frame(di, s, "allocate_slab", "shuffle_freelist", &r);
	assert_int_equal(r->n, 2);
	assert_true(r->frames[0].inlined);
	assert_true(tu_ends_with(r->frames[0].file, "mm/slub.c"));
	assert_string_equal(r->frames[1].func, "allocate_slab");
	assert_false(r->frames[1].inlined);
	assert_true(tu_ends_with(r->frames[1].file, "mm/slub.c"));
	assert_int_equal(r->frames[1].line, 1978);
	symbolizer_free(s);
	debuginfo_close(di);
}

/*
 * A user frame's file as the data file names it, under --symfs: a ".."
 * component could reach out of the folder and is refused; names that only
 * contain dots are files like any other.
 */
static void test_user_frames_path(void **state)
{
	static const char *const refused[] = {
		"/..", "/../etc/passwd", "/usr/../../etc/passwd", "/a/b/..", "..", "../x",
	};
	char out[PATH_MAX];
	size_t i;

	(void)state;
	for (i = 0; i < sizeof(refused) / sizeof(refused[0]); i++) {
		assert_int_equal(user_frames_path("/sym", refused[i], out, sizeof(out)), -EPERM);
	}
	assert_int_equal(user_frames_path("/sym", "/usr/lib/libc.so.6", out, sizeof(out)), 0);
	assert_string_equal(out, "/sym/usr/lib/libc.so.6");
	assert_int_equal(user_frames_path("/sym", "/a/...b/..c/d../.x", out, sizeof(out)), 0);
	assert_string_equal(out, "/sym/a/...b/..c/d../.x");
	assert_int_equal(user_frames_path("/sym", "/a/...", out, sizeof(out)), 0);
	assert_string_equal(out, "/sym/a/...");
	/* without a symfs the path is the host's, where ".." leads nowhere outside / */
	assert_int_equal(user_frames_path(NULL, "/usr/../lib/x", out, sizeof(out)), 0);
	assert_string_equal(out, "/usr/../lib/x");
	assert_int_equal(user_frames_path("/sym", "/usr/lib/libc.so.6", out, 10), -ENAMETOOLONG);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_chain_dwarf5), cmocka_unit_test(test_chain_dwarf4),
		cmocka_unit_test(test_plain),	     cmocka_unit_test(test_outside),
		cmocka_unit_test(test_cache),	     cmocka_unit_test(test_same_as_eu_addr2line),
		cmocka_unit_test(test_real_vmlinux), cmocka_unit_test(test_user_frames_path),
	};

	return cmocka_run_group_tests(tests, setup, tu_fixture_teardown);
}
