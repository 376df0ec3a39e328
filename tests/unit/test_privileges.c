// SPDX-License-Identifier: GPL-2.0-only
/*
 * Whether kallsyms hides addresses: on its first text symbol, not its first
 * line (Debian 6.1 starts with per-CPU symbols at 0, which hid nothing and
 * once made record refuse every recording in the VM).
 */
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>
#include <limits.h>
#include <stdio.h>

#include "record/privileges.h"
#include "testutil.h"

static bool hidden(const char *text)
{
	char dir[PATH_MAX], path[PATH_MAX + 16];
	bool ret;

	assert_int_equal(tu_mkdtemp(dir, sizeof(dir), "privileges"), 0);
	snprintf(path, sizeof(path), "%s/kallsyms", dir);
	assert_int_equal(tu_write_file(path, text), 0);
	ret = privileges_kallsyms_hidden(path);
	assert_int_equal(tu_run("rm -rf '%s'", dir), 0);
	return ret;
}

static void test_kallsyms_hidden(void **state)
{
	/* 6.1: per-CPU symbols first, at 0 whoever reads them */
	assert_false(hidden("0000000000000000 A fixed_percpu_data\n"
			    "0000000000000000 A __per_cpu_start\n"
			    "ffffffff81000000 T _stext\n"));
	assert_true(hidden("0000000000000000 A fixed_percpu_data\n"
			   "0000000000000000 T _stext\n"));
	assert_false(hidden("ffffffff81000000 T srso_alias_untrain_ret\n"));
	assert_true(hidden("0000000000000000 t srso_alias_untrain_ret\n"
			   "0000000000000000 T _stext\n"));
	/* no text symbol, or no file: nothing to tell, the steps will say */
	assert_false(hidden("0000000000000000 A fixed_percpu_data\n"));
	assert_false(hidden(""));
	assert_false(privileges_kallsyms_hidden("/nonexistent/kallsyms"));
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_kallsyms_hidden),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
