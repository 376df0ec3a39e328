// SPDX-License-Identifier: GPL-2.0-only
/* --func name matching on a synthetic symbol table with known clones. */
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>
#include <errno.h>
#include <string.h>

#include "record/funcmatch.h"
#include "symbols/ksyms.h"
#include "util/funcname.h"
#include "testutil.h"

static int make_table(void **state)
{
	static const char *const names[] = {
		"allocate_slab",
		"allocate_slab.cold",
		"__pfx_allocate_slab",
		"mas_copy_node.isra.0",
		"shuffle_freelist_x",
		"kmem_cache_alloc",
		"kmem_cache_free",
		"foo.constprop.0",
		"foo.constprop.1",
		"bar",
		"bar.part.0",
		"dup_name",
		"dup_name",
	};
	*state = tu_ksyms(names, sizeof(names) / sizeof(names[0]));
	return 0;
}

static int drop_table(void **state)
{
	ksyms_free(*state);
	return 0;
}

static void test_base_len(void **state)
{
	assert_int_equal(funcname_base_len("allocate_slab"), 13);
	assert_int_equal(funcname_base_len("mas_copy_node.isra.0"), 13);
	assert_int_equal(funcname_base_len("foo.constprop.1"), 3);
	assert_int_equal(funcname_base_len("bar.part.0"), 3);
	assert_int_equal(funcname_base_len("allocate_slab.cold"), 0);
	assert_int_equal(funcname_base_len("x.isra.0.cold"), 0);
	assert_int_equal(funcname_base_len("__pfx_allocate_slab"), 0);
}

static struct func_target *match(void **state, char **pats, int n, size_t *nt)
{
	struct func_target *t = NULL;
	const char *bad = NULL;

	assert_int_equal(func_match(*state, pats, n, &t, nt, &bad), 0);
	return t;
}

static void test_exact_and_clones(void **state)
{
	char *pats[] = {"allocate_slab", "mas_copy_node", "foo", "bar"};
	struct func_target *t;
	size_t n;

	t = match(state, pats, 4, &n);
	assert_int_equal(n, 4);
	/* sorted by name: allocate_slab, bar, foo, mas_copy_node */
	assert_string_equal(t[0].name, "allocate_slab");
	assert_int_equal(t[0].nsyms, 1); /* .cold and __pfx_ are not entry points */
	assert_false(t[0].clone);
	assert_string_equal(t[1].name, "bar");
	assert_int_equal(t[1].nsyms, 1); /* bar.part.0 is a piece of bar, not a second entry */
	assert_string_equal(t[1].syms[0].symbol, "bar");
	assert_string_equal(t[2].name, "foo");
	assert_true(t[2].clone);
	assert_int_equal(t[2].nsyms, 2); /* both constprop clones count as foo */
	assert_string_equal(t[3].name, "mas_copy_node");
	assert_true(t[3].clone);
	assert_string_equal(t[3].syms[0].symbol, "mas_copy_node.isra.0");
	func_targets_free(t, n);
}

static void test_glob_and_duplicates(void **state)
{
	char *pats[] = {"kmem_cache_*", "dup_name"};
	struct func_target *t;
	size_t n;

	t = match(state, pats, 2, &n);
	assert_int_equal(n, 3);
	assert_string_equal(t[0].name, "dup_name");
	assert_int_equal(t[0].nsyms, 2); /* same-named statics: both probed */
	assert_string_equal(t[1].name, "kmem_cache_alloc");
	assert_string_equal(t[2].name, "kmem_cache_free");
	func_targets_free(t, n);
}

static void test_unknown_and_closest(void **state)
{
	char *pats[] = {"allocate_slab", "alocate_slab"};
	struct func_target *t = NULL;
	const char *bad = NULL;
	char best[3][64];
	size_t n;

	assert_int_equal(func_match(*state, pats, 2, &t, &n, &bad), -ENOENT);
	assert_string_equal(bad, "alocate_slab");
	assert_int_equal(func_closest(*state, bad, best, 3), 3);
	assert_string_equal(best[0], "allocate_slab");
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_base_len),
		cmocka_unit_test(test_exact_and_clones),
		cmocka_unit_test(test_glob_and_duplicates),
		cmocka_unit_test(test_unknown_and_closest),
	};

	return cmocka_run_group_tests(tests, make_table, drop_table);
}
