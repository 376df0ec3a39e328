// SPDX-License-Identifier: GPL-2.0-only
/*
 * The feature mapping: the built-in share/features.conf, kernel function
 * names (clones, .cold parts, inline frames) mapped to their features, a
 * user's file in its place, and every bad file named by file:line.
 */
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "data/features.h"
#include "data/provenance.h"
#include "testutil.h"

static char dir[256];

static int make_dir(void **state)
{
	return tu_mkdtemp(dir, sizeof(dir), "kp-features");
}

static int drop_dir(void **state)
{
	if (!getenv("KEEP"))
		tu_run("rm -rf '%s'", dir);
	return 0;
}

static void test_builtin(void **state)
{
	static const char *const names[] = {
		"freelist_random",   "slab_freelist_hardened", "init_on_alloc_free",
		"hardened_usercopy", "page_alloc_shuffle",     "list_hardened",
		"mitigations",	     "memcg_accounting",
	};
	struct features *f;
	char why[256];
	size_t i;

	assert_int_equal(features_load(&f, NULL, why, sizeof(why)), 0);
	assert_int_equal(features_count(f), sizeof(names) / sizeof(names[0]));
	for (i = 0; i < features_count(f); i++) {
		assert_string_equal(features_name(f, i), names[i]);
		assert_true(strlen(features_about(f, i)) > 20);
	}
	features_free(f);
}

/* Names as kallsyms and the DWARF of Debian's 6.1 kernel have them. */
static void test_builtin_matches(void **state)
{
	static const char *const map[][2] = {
		{"shuffle_freelist", "freelist_random"},
		{"next_freelist_entry", "freelist_random"},
		{"init_cache_random_seq.cold", "freelist_random"},
		{"freelist_ptr", "slab_freelist_hardened"},
		{"kernel_init_pages", "init_on_alloc_free"},
		{"post_alloc_hook", "init_on_alloc_free"},
		{"slab_post_alloc_hook", "init_on_alloc_free"},
		{"slab_free_hook", "init_on_alloc_free"},
		{"memcg_slab_post_alloc_hook", "memcg_accounting"},
		{"check_object_size", "hardened_usercopy"},
		{"__check_object_size.cold", "hardened_usercopy"},
		{"__check_heap_object", "hardened_usercopy"},
		{"shuffle_pick_tail", "page_alloc_shuffle"},
		{"shuffle_valid_page.constprop.0", "page_alloc_shuffle"},
		{"__list_del_entry_valid.cold", "list_hardened"},
		{"__x86_indirect_thunk_rax", "mitigations"},
		{"__x86_indirect_its_thunk_r11", "mitigations"},
		{"__x86_return_thunk", "mitigations"},
		{"srso_alias_untrain_ret", "mitigations"},
		{"entry_untrain_ret", "mitigations"},
		{"clear_bhb_loop", "mitigations"},
		{"indirect_branch_prediction_barrier", "mitigations"},
		{"speculation_ctrl_update_current", "mitigations"},
		/* clone suffixes of every kind, one after another */
		{"freelist_ptr.isra.0.part.0", "slab_freelist_hardened"},
		{"post_alloc_hook.lto_priv.3", "init_on_alloc_free"},
	};
	/* generic paths, and code only close in name to the features' */
	static const char *const unmapped[] = {
		"allocate_slab",	"clear_page_erms",	   "entry_SYSCALL_64",
		"set_return_thunk",	"slab_free_freelist_hook", "memset_erms",
		"freelist_dereference", "__pfx_shuffle_pick_tail", "",
	};
	struct features *f;
	char why[256];
	size_t i;

	assert_int_equal(features_load(&f, NULL, why, sizeof(why)), 0);
	for (i = 0; i < sizeof(map) / sizeof(map[0]); i++) {
		assert_non_null(features_match(f, map[i][0]));
		assert_string_equal(features_match(f, map[i][0]), map[i][1]);
	}
	for (i = 0; i < sizeof(unmapped) / sizeof(unmapped[0]); i++)
		assert_null(features_match(f, unmapped[i]));
	features_free(f);
}

static void write_conf(char *path, size_t len, const char *name, const char *text)
{
	snprintf(path, len, "%s/%s", dir, name);
	assert_int_equal(tu_write_file(path, text), 0);
}

/* A user's file replaces the built-in one; the first feature naming a function wins. */
static void test_override(void **state)
{
	char path[512], why[256];
	struct features *f;

	write_conf(path, sizeof(path), "mine.conf",
		   "# mine\n"
		   "[slab]\n"
		   "functions = allocate_slab shuffle_*\n"
		   "\n"
		   "[shuffle]\n"
		   "about = never reached for shuffle_freelist\n"
		   "functions=shuffle_freelist\n"
		   "functions =\tkernel_init_pages\n");
	assert_int_equal(features_load(&f, path, why, sizeof(why)), 0);
	assert_int_equal(features_count(f), 2);
	assert_string_equal(features_about(f, 0), "");
	assert_string_equal(features_about(f, 1), "never reached for shuffle_freelist");
	assert_string_equal(features_match(f, "allocate_slab.isra.0"), "slab");
	assert_string_equal(features_match(f, "shuffle_freelist"), "slab");
	assert_string_equal(features_match(f, "kernel_init_pages"), "shuffle");
	assert_null(features_match(f, "__x86_return_thunk"));
	features_free(f);
}

/* 'config =' lines: Kconfig names, CONFIG_ optional, each option one feature's. */
static void test_config_key(void **state)
{
	char path[512], why[256];
	struct features *f;

	write_conf(path, sizeof(path), "config.conf",
		   "[random]\n"
		   "config = CONFIG_SLAB_FREELIST_RANDOM\n"
		   "functions = shuffle_freelist\n"
		   "config=\tRANDOM_KMALLOC_CACHES  X86_64\n"
		   "[plain]\n"
		   "functions = memset\n");
	assert_int_equal(features_load(&f, path, why, sizeof(why)), 0);
	assert_int_equal(features_nconfig(f, 0), 3);
	assert_string_equal(features_config(f, 0, 0), "SLAB_FREELIST_RANDOM");
	assert_string_equal(features_config(f, 0, 1), "RANDOM_KMALLOC_CACHES");
	assert_string_equal(features_config(f, 0, 2), "X86_64");
	assert_int_equal(features_nconfig(f, 1), 0);
	assert_string_equal(features_of_config(f, "SLAB_FREELIST_RANDOM"), "random");
	assert_string_equal(features_of_config(f, "CONFIG_X86_64"), "random");
	assert_null(features_of_config(f, "SLAB_FREELIST_HARDENED"));
	assert_null(features_of_config(f, "CONFIG_"));
	features_free(f);
}

/* The built-in options are the ones 6.1 and 6.12 name, and record keeps them all. */
static void test_builtin_config(void **state)
{
	static const char *const map[][2] = {
		{"SLAB_FREELIST_RANDOM", "freelist_random"},
		{"CONFIG_SLAB_FREELIST_HARDENED", "slab_freelist_hardened"},
		{"INIT_ON_ALLOC_DEFAULT_ON", "init_on_alloc_free"},
		{"INIT_ON_FREE_DEFAULT_ON", "init_on_alloc_free"},
		{"HARDENED_USERCOPY", "hardened_usercopy"},
		{"SHUFFLE_PAGE_ALLOCATOR", "page_alloc_shuffle"},
		{"DEBUG_LIST", "list_hardened"},
		{"LIST_HARDENED", "list_hardened"},
		{"RETPOLINE", "mitigations"},
		{"MITIGATION_RETPOLINE", "mitigations"},
		{"PAGE_TABLE_ISOLATION", "mitigations"},
		{"CPU_SRSO", "mitigations"},
	};
	char why[256], option[128];
	struct features *f;
	size_t i, k, n = 0;

	assert_int_equal(features_load(&f, NULL, why, sizeof(why)), 0);
	for (i = 0; i < sizeof(map) / sizeof(map[0]); i++)
		assert_string_equal(features_of_config(f, map[i][0]), map[i][1]);
	/* memcg accounting is no protection: no option of its own */
	assert_int_equal(features_nconfig(f, features_count(f) - 1), 0);
	for (i = 0; i < features_count(f); i++) {
		for (k = 0; k < features_nconfig(f, i); k++, n++) {
			snprintf(option, sizeof(option), "CONFIG_%s", features_config(f, i, k));
			if (!provenance_config_relevant(option))
				fail_msg("%s of [%s] is not among provenance's relevant options",
					 option, features_name(f, i));
		}
	}
	assert_true(n >= 20);
	features_free(f);
}

static void expect_bad(const char *text, const char *want)
{
	char path[512], why[256], full[768];
	struct features *f = (struct features *)1;

	write_conf(path, sizeof(path), "bad.conf", text);
	assert_int_equal(features_load(&f, path, why, sizeof(why)), -EINVAL);
	assert_null(f);
	snprintf(full, sizeof(full), "%s%s", path, want);
	assert_string_equal(why, full);
}

static void test_bad_files(void **state)
{
	expect_bad("functions = x\n", ":1: 'functions' before the first [feature]");
	expect_bad("[a]\nfunctions = x\n\n# c\nfunctins = y\n",
		   ":5: unknown key 'functins' (about, config or functions)");
	expect_bad("[a]\nabout = x\nfunctions x\n",
		   ":3: expected '[feature]', 'about = ...', 'config = ...' or 'functions = ...'");
	expect_bad("[a]\nabout = x\n\n[b]\nfunctions = y\n",
		   ":1: [a] has no 'functions = ...' line");
	expect_bad("[b]\nfunctions = y\n[a]\nabout = x\n", ":3: [a] has no 'functions = ...' line");
	expect_bad("[a]\nfunctions = x\n[a]\nfunctions = y\n", ":3: [a] is defined twice");
	expect_bad("[a b]\nfunctions = x\n",
		   ":1: feature name 'a b': use letters, digits, '_' and '-'");
	expect_bad("[a\nfunctions = x\n", ":1: expected '[feature]'");
	expect_bad("[a]\nabout = x\nabout = y\n", ":3: [a] has a second 'about'");
	expect_bad("[a]\nfunctions = x y.isra.0\n",
		   ":2: 'y.isra.0': give the function's name without clone suffix");
	expect_bad("# nothing\n\n", ": no [feature] blocks");
	expect_bad("config = X\n[a]\nfunctions = x\n", ":1: 'config' before the first [feature]");
	expect_bad("[a]\nfunctions = x\nconfig = SLAB-RANDOM\n",
		   ":3: config option 'SLAB-RANDOM': give a Kconfig name such as "
		   "SLAB_FREELIST_RANDOM");
	expect_bad("[a]\nfunctions = x\nconfig = CONFIG_\n",
		   ":3: config option '': give a Kconfig name such as SLAB_FREELIST_RANDOM");
	expect_bad("[a]\nfunctions = x\nconfig =\n", ":3: 'config =' names no option");
	expect_bad("[a]\nfunctions = x\nconfig = A B\n[b]\nfunctions = y\nconfig = C B\n",
		   ":6: config B is already [a]'s");
	expect_bad("[a]\nconfig = A\n", ":1: [a] has no 'functions = ...' line");
}

static void test_missing_file(void **state)
{
	char path[512], why[256], want[768];
	struct features *f;

	snprintf(path, sizeof(path), "%s/none.conf", dir);
	assert_int_equal(features_load(&f, path, why, sizeof(why)), -ENOENT);
	snprintf(want, sizeof(want), "%s: No such file or directory", path);
	assert_string_equal(why, want);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_builtin),	       cmocka_unit_test(test_builtin_matches),
		cmocka_unit_test(test_override),       cmocka_unit_test(test_bad_files),
		cmocka_unit_test(test_missing_file),   cmocka_unit_test(test_config_key),
		cmocka_unit_test(test_builtin_config),
	};

	return cmocka_run_group_tests(tests, make_dir, drop_dir);
}
