// SPDX-License-Identifier: GPL-2.0-only
/*
 * record --func on a kernel that lacks some of the functions named (one
 * command line for two kernel builds): the patterns that match nothing are
 * kept as absent and warned about once, unless none matches or --strict;
 * decided on a synthetic symbol table, without BPF.
 */
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>
#include <errno.h>
#include <stdio.h>
#include <string.h>

#include "record/funcmatch.h"
#include "record/funcresolve.h"
#include "symbols/ksyms.h"
#include "testutil.h"

static int make_table(void **state)
{
	static const char *const names[] = {"allocate_slab", "new_slab", "kmem_cache_alloc",
					    "shuffle_pick_tail"};
	*state = tu_ksyms(names, sizeof(names) / sizeof(names[0]));
	return 0;
}

static int drop_table(void **state)
{
	ksyms_free(*state);
	return 0;
}

struct attempt {
	struct func_resolved r;
	char warn[4096], why[1024];
	int err;
};

/* Globs never ask the DWARF: the outcome depends on the table alone. */
static void resolve(void **state, struct attempt *t, char **pats, int n, bool strict)
{
	memset(t, 0, sizeof(*t));
	t->err = func_resolve(&t->r, *state, pats, n, NULL, strict, t->warn, sizeof(t->warn),
			      t->why, sizeof(t->why));
}

static void test_some_absent(void **state)
{
	char *pats[] = {"allocate_slab", "shuffle_freelist*", "kmem_cache_*", "zz_nothing*"};
	struct attempt t;

	resolve(state, &t, pats, 4, false);
	assert_int_equal(t.err, 0);
	assert_int_equal(t.r.n, 2);
	assert_string_equal(t.r.t[0].name, "allocate_slab");
	assert_string_equal(t.r.t[1].name, "kmem_cache_alloc");
	assert_null(t.r.inl);
	assert_int_equal(t.r.nabsent, 2);
	assert_string_equal(t.r.absent[0], "shuffle_freelist*");
	assert_string_equal(t.r.absent[1], "zz_nothing*");
	/* one line naming both, with the closest names, and what happens to them */
	assert_null(strchr(t.warn, '\n'));
	assert_non_null(strstr(t.warn, "warning: no kernel function matches 'shuffle_freelist*'"
				       " (closest: shuffle_pick_tail"));
	assert_non_null(strstr(t.warn, " or 'zz_nothing*'"));
	assert_non_null(strstr(t.warn, "they are recorded as absent on this kernel, the rest is"
				       " probed (--strict refuses instead)"));
	func_resolved_free(&t.r);
}

static void test_duplicate_absent_once(void **state)
{
	char *pats[] = {"zz_x*", "new_slab", "zz_x*"};
	struct attempt t;

	resolve(state, &t, pats, 3, false);
	assert_int_equal(t.err, 0);
	assert_int_equal(t.r.n, 1);
	assert_int_equal(t.r.nabsent, 1);
	assert_non_null(strstr(t.warn, "it is recorded as absent"));
	func_resolved_free(&t.r);
}

static void test_all_match_no_warning(void **state)
{
	char *pats[] = {"allocate_slab", "new_slab"};
	struct attempt t;

	resolve(state, &t, pats, 2, true);
	assert_int_equal(t.err, 0);
	assert_int_equal(t.r.n, 2);
	assert_int_equal(t.r.nabsent, 0);
	assert_string_equal(t.warn, "");
	func_resolved_free(&t.r);
}

/* --strict: today's refusal, naming the first pattern matching nothing. */
static void test_strict_refuses(void **state)
{
	char *pats[] = {"allocate_slab", "alocate_slab*", "zz_y*"};
	struct attempt t;

	resolve(state, &t, pats, 3, true);
	assert_int_equal(t.err, -ENOENT);
	assert_true(!strncmp(t.why,
			     "no kernel function matches 'alocate_slab*' (closest: "
			     "allocate_slab",
			     strlen("no kernel function matches 'alocate_slab*' (closest: "
				    "allocate_slab")));
	assert_null(strstr(t.why, "zz_y"));
	assert_null(t.r.t);
	assert_int_equal(t.r.nabsent, 0);
}

/* Nothing to measure at all is still an error, naming every pattern. */
static void test_none_matches(void **state)
{
	char *pats[] = {"zz_a*", "zz_b*"};
	struct attempt t;

	resolve(state, &t, pats, 2, false);
	assert_int_equal(t.err, -ENOENT);
	assert_non_null(strstr(t.why, "no kernel function matches 'zz_a*'"));
	assert_non_null(strstr(t.why, " or 'zz_b*'"));
	assert_string_equal(t.warn, "");
	assert_int_equal(t.r.nabsent, 0);
}

/* A --vmlinux that cannot tell whether a name is inlined is an error, strict or not. */
static void test_bad_vmlinux_is_an_error(void **state)
{
	char *pats[] = {"allocate_slab", "no_such_fn_xyz"}, dir[256], path[300], want[400];
	struct attempt t;

	assert_int_equal(tu_mkdtemp(dir, sizeof(dir), "kp-funcresolve"), 0);
	snprintf(path, sizeof(path), "%s/vmlinux", dir);
	assert_int_equal(tu_write_file(path, "not an ELF file\n"), 0);
	memset(&t, 0, sizeof(t));
	t.err = func_resolve(&t.r, *state, pats, 2, path, false, t.warn, sizeof(t.warn), t.why,
			     sizeof(t.why));
	tu_run("rm -rf '%s'", dir);
	assert_int_equal(t.err, -ENOENT);
	snprintf(want, sizeof(want),
		 "--vmlinux %s: not an ELF file, so kprotperf cannot tell whether "
		 "no_such_fn_xyz is inlined",
		 path);
	assert_string_equal(t.why, want);
	assert_string_equal(t.warn, "");
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_some_absent),
		cmocka_unit_test(test_duplicate_absent_once),
		cmocka_unit_test(test_all_match_no_warning),
		cmocka_unit_test(test_strict_refuses),
		cmocka_unit_test(test_none_matches),
		cmocka_unit_test(test_bad_vmlinux_is_an_error),
	};

	return cmocka_run_group_tests(tests, make_table, drop_table);
}
