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

#include "features/features.h"
#include "system/provenance.h"
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
		"freelist_random",
		"slab_freelist_hardened",
		"init_on_alloc_free",
		"hardened_usercopy",
		"page_alloc_shuffle",
		"list_hardened",
		"mitigations",
		"retpoline",
		"return_thunk",
		"stack_protector",
		"zero_call_used_regs",
		"fortify_source",
		"ubsan",
		"kcfi",
		"ibt",
		"randstruct_full",
		"randstruct_performance",
		"memcg_accounting",
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
		{"__x86_indirect_thunk_rax", "retpoline"},
		{"__x86_indirect_its_thunk_r11", "retpoline"},
		{"__x86_return_thunk", "return_thunk"},
		{"retbleed_return_thunk", "return_thunk"},
		{"srso_safe_ret", "return_thunk"},
		{"__ubsan_handle_out_of_bounds", "ubsan"},
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
		{"RETPOLINE", "retpoline"},
		{"MITIGATION_RETPOLINE", "retpoline"},
		{"RETHUNK", "return_thunk"},
		{"STACKPROTECTOR_STRONG", "stack_protector"},
		{"ZERO_CALL_USED_REGS", "zero_call_used_regs"},
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
	expect_bad(
		"[a]\nfunctions = x\n\n# c\nfunctins = y\n",
		":5: unknown key 'functins' (about, type, position, when, config, functions, sites, patched, on, off or default)");
	expect_bad("[a]\nabout = x\nfunctions x\n", ":3: expected '[feature]' or 'KEY = VALUE'");
	expect_bad("[a]\nabout = x\n\n[b]\nfunctions = y\n",
		   ":1: [a] has no 'functions = ...' or 'sites = ...' line");
	expect_bad("[b]\nfunctions = y\n[a]\nabout = x\n",
		   ":3: [a] has no 'functions = ...' or 'sites = ...' line");
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
	expect_bad("[a]\nconfig = A\n", ":1: [a] has no 'functions = ...' or 'sites = ...' line");
	expect_bad("[a]\nsites = x\ntype = linker\n",
		   ":3: type 'linker': one of source, compiler, config, boot");
	expect_bad("[a]\nsites = x\nposition = heap\n",
		   ":3: position 'heap': one of code, data, layout");
	expect_bad("[a]\nsites = x\nwhen = now\nwhen = run\n",
		   ":3: when 'now': one of build, boot, run");
	expect_bad("[a]\nsites = x\nwhen = run\nwhen = run\n", ":4: [a] has a second 'when'");
	expect_bad("[a]\nsites = x\nsites = y\n", ":3: [a] has a second 'sites'");
	expect_bad("[a]\nsites = stack canary\n",
		   ":2: sites 'stack canary': one pattern name such as stack_canary");
	expect_bad("[a]\nfunctions = x\npatched = yes\n", ":1: [a]: 'patched' needs 'sites = ...'");
	expect_bad("[a]\nsites = x\npatched = no\n", ":3: 'patched = no': only 'patched = yes'");
	expect_bad("[a]\nsites = x\noff =\n", ":3: 'off =' names nothing");
}

/* A recorded kernel, as features_state() asks about it. */
struct kernel {
	const char *config[4][2]; /* option, value */
	long long sites;	  /* of every kind; -1: not scanned */
};

static const char *config_of(const char *option, void *ctx)
{
	const struct kernel *k = ctx;
	size_t i;

	for (i = 0; i < 4 && k->config[i][0]; i++)
		if (!strcmp(k->config[i][0], option))
			return k->config[i][1];
	return NULL;
}

static long long sites_of(const char *kind, void *ctx)
{
	return ((const struct kernel *)ctx)->sites;
}

static long index_of(const struct features *f, const char *name)
{
	long i = features_index(f, name);

	if (i < 0)
		fail_msg("no [%s]", name);
	return i;
}

static void expect_state(const struct features *f, const char *name, struct kernel *k,
			 const char *cmdline, const char *state, const char *why)
{
	struct features_facts facts = {config_of, true, cmdline, sites_of, k};
	char got[256];

	assert_string_equal(
		features_state_name(features_state(f, index_of(f, name), &facts, got, sizeof(got))),
		state);
	assert_string_equal(got, why);
}

/* The order of features.h: not built, sites, command line, default. */
static void test_state(void **state)
{
	struct kernel rethunk = {{{"RETHUNK", "y"}}, 0}, none = {{{"RETHUNK", "n"}}, -1},
		      canary = {{{"STACKPROTECTOR_STRONG", "y"}}, 12},
		      init = {{{"INIT_ON_ALLOC_DEFAULT_ON", "y"}}, -1},
		      noinit = {{{"INIT_ON_FREE_DEFAULT_ON", "n"}}, -1},
		      shuffle = {{{"SHUFFLE_PAGE_ALLOCATOR", "y"}}, -1};
	struct features *f;
	char why[256];

	assert_int_equal(features_load(&f, NULL, why, sizeof(why)), 0);
	expect_state(f, "return_thunk", &none, "", "not built",
		     "no CONFIG_RETHUNK (nor the others)");
	expect_state(f, "return_thunk", &rethunk, "quiet", "off",
		     "no site in the code that ran: the boot patched them out");
	rethunk.sites = 3;
	expect_state(f, "return_thunk", &rethunk, "mitigations=off", "on",
		     "3 sites in the code that ran");
	rethunk.sites = -1;
	expect_state(f, "return_thunk", &rethunk, "ro mitigations=off", "off",
		     "mitigations=off on the command line");
	expect_state(f, "return_thunk", &rethunk, "ro", "on", "CONFIG_RETHUNK=y, by default");
	/* not patched: no site seen says nothing */
	canary.sites = 0;
	expect_state(f, "stack_protector", &canary, "", "on",
		     "CONFIG_STACKPROTECTOR_STRONG=y, by default");
	canary.sites = 12;
	expect_state(f, "stack_protector", &canary, "", "on", "12 sites in the code that ran");
	/* options that only pick the default: built whatever they say */
	expect_state(f, "init_on_alloc_free", &init, "", "on", "CONFIG_INIT_ON_ALLOC_DEFAULT_ON=y");
	expect_state(f, "init_on_alloc_free", &noinit, "", "off",
		     "CONFIG_INIT_ON_ALLOC_DEFAULT_ON is not set");
	expect_state(f, "init_on_alloc_free", &noinit, "init_on_alloc=1 x", "on",
		     "init_on_alloc=1 on the command line");
	expect_state(f, "init_on_alloc_free", &init, "init_on_alloc=1 init_on_alloc=0", "off",
		     "init_on_alloc=0 on the command line");
	expect_state(f, "page_alloc_shuffle", &shuffle, "", "off",
		     "CONFIG_SHUFFLE_PAGE_ALLOCATOR=y, by default");
	expect_state(f, "page_alloc_shuffle", &shuffle, "page_alloc.shuffle=1", "on",
		     "page_alloc.shuffle=1 on the command line");
	features_free(f);
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
		cmocka_unit_test(test_builtin_config), cmocka_unit_test(test_state),
	};

	return cmocka_run_group_tests(tests, make_dir, drop_dir);
}
