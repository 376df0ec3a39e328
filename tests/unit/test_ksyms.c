/* SPDX-License-Identifier: GPL-2.0-only */
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

#include "symbols/ksyms.h"

/*
 * Unsorted kallsyms lines: symbols sharing an address (an alias with more
 * underscores, a local and a global, a __pfx_ stub), module symbols with the
 * kernel's tab before "[mod]", and data / per-cpu symbols that must be dropped.
 */
static const char kallsyms_text[] = "ffffffff81001000 t do_one_initcall_local\n"
				    "0000000000000000 A fixed_percpu_data\n"
				    "0000000000001000 D cpu_number\n"
				    "ffffffff81000000 T _text\n"
				    "ffffffff81000000 T srso_alias_untrain_ret\n"
				    "ffffffff81000000 T _stext\n"
				    "ffffffffc0201000 t nf_hook_slow\t[nf_tables]\n"
				    "ffffffff81001000 T do_one_initcall\n"
				    "ffffffff81001000 t __pfx_other\n"
				    "ffffffff82000000 D init_task\n"
				    "ffffffff81000ff0 t __pfx_do_one_initcall\n"
				    "ffffffffc0200000 T ext4_iget\t[ext4]\n"
				    "ffffffffc0200100 t ext4_lookup\t[ext4]\n"
				    "ffffffff81002000 W weak_fn\n"
				    "ffffffff81003000 T __memcpy\n"
				    "ffffffff81003000 T memcpy\n"
				    "ffffffffc0202000 t bpf_prog_6deef7357e7b4530_do_sys\t[bpf]\n"
				    "\n";

static const char restricted_text[] = "0000000000000000 T _text\n"
				      "0000000000000000 T _stext\n"
				      "0000000000000000 t nf_hook_slow\t[nf_tables]\n";

struct fixture {
	char path[64];
	struct ksyms *ks;
};

static int write_kallsyms(struct fixture *f, const char *text)
{
	FILE *fp = fopen(f->path, "w");

	if (!fp)
		return -1;
	if (fputs(text, fp) < 0) {
		fclose(fp);
		return -1;
	}
	return fclose(fp) ? -1 : 0;
}

static int setup(void **state)
{
	struct fixture *f = calloc(1, sizeof(*f));
	int fd;

	if (!f)
		return -1;
	strcpy(f->path, "/tmp/kp-test-ksyms-XXXXXX");
	fd = mkstemp(f->path);
	if (fd < 0) {
		free(f);
		return -1;
	}
	close(fd);
	*state = f;
	return 0;
}

static int teardown(void **state)
{
	struct fixture *f = *state;

	ksyms_free(f->ks);
	unlink(f->path);
	free(f);
	return 0;
}

static struct ksyms *load(struct fixture *f, const char *text)
{
	assert_int_equal(write_kallsyms(f, text), 0);
	assert_int_equal(ksyms_load(&f->ks, f->path), 0);
	assert_non_null(f->ks);
	return f->ks;
}

static void assert_sym(const struct ksym *s, __u64 addr, const char *name, const char *module)
{
	assert_non_null(s);
	assert_int_equal(s->addr, addr);
	assert_string_equal(s->name, name);
	assert_string_equal(s->module, module);
}

static void test_lookup(void **state)
{
	struct ksyms *ks = load(*state, kallsyms_text);

	assert_null(ksyms_lookup(ks, 0));
	assert_null(ksyms_lookup(ks, 0x1000));
	assert_null(ksyms_lookup(ks, 0xffffffff80ffffffull));
	assert_sym(ksyms_lookup(ks, 0xffffffff81000000ull), 0xffffffff81000000ull,
		   "srso_alias_untrain_ret", "");
	assert_sym(ksyms_lookup(ks, 0xffffffff81000abcull), 0xffffffff81000000ull,
		   "srso_alias_untrain_ret", "");
	assert_sym(ksyms_lookup(ks, 0xffffffff81000ff4ull), 0xffffffff81000ff0ull,
		   "__pfx_do_one_initcall", "");
	assert_sym(ksyms_lookup(ks, 0xffffffff81001000ull), 0xffffffff81001000ull,
		   "do_one_initcall", "");
	assert_sym(ksyms_lookup(ks, 0xffffffff81001fffull), 0xffffffff81001000ull,
		   "do_one_initcall", "");
	assert_sym(ksyms_lookup(ks, 0xffffffff81002010ull), 0xffffffff81002000ull, "weak_fn", "");
	assert_sym(ksyms_lookup(ks, 0xffffffff81003001ull), 0xffffffff81003000ull, "memcpy", "");
	/* init_task is data: text after the last function still belongs to it */
	assert_sym(ksyms_lookup(ks, 0xffffffff82000010ull), 0xffffffff81003000ull, "memcpy", "");
	assert_sym(ksyms_lookup(ks, 0xffffffffc0200000ull), 0xffffffffc0200000ull, "ext4_iget",
		   "ext4");
	assert_sym(ksyms_lookup(ks, 0xffffffffc02000ffull), 0xffffffffc0200000ull, "ext4_iget",
		   "ext4");
	assert_sym(ksyms_lookup(ks, 0xffffffffc0200100ull), 0xffffffffc0200100ull, "ext4_lookup",
		   "ext4");
	assert_sym(ksyms_lookup(ks, 0xffffffffc0201010ull), 0xffffffffc0201000ull, "nf_hook_slow",
		   "nf_tables");
	assert_sym(ksyms_lookup(ks, 0xffffffffffffffffull), 0xffffffffc0202000ull,
		   "bpf_prog_6deef7357e7b4530_do_sys", "bpf");
}

static void test_by_name(void **state)
{
	struct ksyms *ks = load(*state, kallsyms_text);
	const struct ksym *a, *b;

	assert_sym(ksyms_by_name(ks, "_stext"), 0xffffffff81000000ull, "_stext", "");
	assert_sym(ksyms_by_name(ks, "_text"), 0xffffffff81000000ull, "_text", "");
	assert_sym(ksyms_by_name(ks, "do_one_initcall_local"), 0xffffffff81001000ull,
		   "do_one_initcall_local", "");
	assert_sym(ksyms_by_name(ks, "__pfx_other"), 0xffffffff81001000ull, "__pfx_other", "");
	assert_sym(ksyms_by_name(ks, "ext4_lookup"), 0xffffffffc0200100ull, "ext4_lookup", "ext4");
	assert_null(ksyms_by_name(ks, "init_task"));
	assert_null(ksyms_by_name(ks, "cpu_number"));
	assert_null(ksyms_by_name(ks, "fixed_percpu_data"));
	assert_null(ksyms_by_name(ks, "do_one"));
	assert_null(ksyms_by_name(ks, "ext4"));

	/* module names are interned: every ext4 symbol shares one string */
	a = ksyms_by_name(ks, "ext4_iget");
	b = ksyms_by_name(ks, "ext4_lookup");
	assert_non_null(a);
	assert_non_null(b);
	assert_ptr_equal(a->module, b->module);
}

static void test_restricted(void **state)
{
	struct fixture *f = *state;

	assert_int_equal(write_kallsyms(f, restricted_text), 0);
	assert_int_equal(ksyms_load(&f->ks, f->path), -EPERM);
}

static void test_bad_input(void **state)
{
	struct fixture *f = *state;

	assert_int_equal(ksyms_load(&f->ks, "/nonexistent/kallsyms"), -ENOENT);
	assert_int_equal(write_kallsyms(f, ""), 0);
	assert_int_equal(ksyms_load(&f->ks, f->path), -ENODATA);
	assert_int_equal(write_kallsyms(f, "ffffffff81000000 T _text\nnot a symbol line\n"), 0);
	assert_int_equal(ksyms_load(&f->ks, f->path), -EINVAL);
	assert_int_equal(write_kallsyms(f, "ffffffff81000000 T _text\t[unterminated\n"), 0);
	assert_int_equal(ksyms_load(&f->ks, f->path), -EINVAL);
}

/* The report path: symbols come back from the data file in any order, without types. */
static void test_new_add_sort(void **state)
{
	struct fixture *f = *state;
	struct ksyms *ks;
	char name[32];
	int i;

	assert_int_equal(ksyms_new(&f->ks), 0);
	ks = f->ks;
	assert_null(ksyms_lookup(ks, 0xffffffff81000000ull));
	assert_null(ksyms_by_name(ks, "x"));

	/* enough symbols, in reverse order, to grow the table and the arena several times */
	for (i = 19999; i >= 0; i--) {
		snprintf(name, sizeof(name), "fn_%d", i);
		assert_int_equal(ksyms_add(ks, 0xffffffff81000000ull + 0x40ull * i, name,
					   i % 3 ? "" : (i % 2 ? "mododd" : "modeven")),
				 0);
	}
	assert_int_equal(ksyms_add(ks, 0xffffffff81000040ull, "__fn_1_alias", NULL), 0);
	assert_int_equal(ksyms_add(ks, 0xffffffff81000080ull, "__pfx_fn_3", ""), 0);
	ksyms_sort(ks);

	assert_null(ksyms_lookup(ks, 0xffffffff80ffffffull));
	assert_sym(ksyms_lookup(ks, 0xffffffff81000000ull), 0xffffffff81000000ull, "fn_0",
		   "modeven");
	assert_sym(ksyms_lookup(ks, 0xffffffff8100007full), 0xffffffff81000040ull, "fn_1", "");
	assert_sym(ksyms_lookup(ks, 0xffffffff81000080ull), 0xffffffff81000080ull, "fn_2", "");
	assert_sym(ksyms_lookup(ks, 0xffffffff810000c1ull), 0xffffffff810000c0ull, "fn_3",
		   "mododd");
	assert_sym(ksyms_lookup(ks, 0xffffffff81000000ull + 0x40ull * 12346 + 7),
		   0xffffffff81000000ull + 0x40ull * 12346, "fn_12346", "");
	assert_sym(ksyms_lookup(ks, 0xffffffff81000000ull + 0x40ull * 19999 + 0x1000),
		   0xffffffff81000000ull + 0x40ull * 19999, "fn_19999", "");
	assert_sym(ksyms_by_name(ks, "fn_7777"), 0xffffffff81000000ull + 0x40ull * 7777, "fn_7777",
		   "");
	assert_sym(ksyms_by_name(ks, "__fn_1_alias"), 0xffffffff81000040ull, "__fn_1_alias", "");
	assert_sym(ksyms_by_name(ks, "__pfx_fn_3"), 0xffffffff81000080ull, "__pfx_fn_3", "");
	assert_int_equal(ksyms_add(ks, 0x1000, NULL, "m"), -EINVAL);
}

/* Recording without kallsyms passes a NULL table around. */
static void test_null_table(void **state)
{
	assert_null(ksyms_lookup(NULL, 0xffffffff81000000ull));
	assert_null(ksyms_by_name(NULL, "_stext"));
	ksyms_free(NULL);
}

/* A name longer than an arena chunk still gets stored whole. */
static void test_long_name(void **state)
{
	struct fixture *f = *state;
	size_t len = 300 * 1024;
	char *name = malloc(len + 1);

	assert_non_null(name);
	memset(name, 'a', len);
	name[len] = '\0';
	assert_int_equal(ksyms_new(&f->ks), 0);
	assert_int_equal(ksyms_add(f->ks, 0x2000, "after", "m"), 0);
	assert_int_equal(ksyms_add(f->ks, 0x1000, name, "m"), 0);
	assert_int_equal(ksyms_add(f->ks, 0x3000, "last", "m"), 0);
	ksyms_sort(f->ks);
	assert_sym(ksyms_lookup(f->ks, 0x1fff), 0x1000, name, "m");
	assert_sym(ksyms_lookup(f->ks, 0x2000), 0x2000, "after", "m");
	assert_sym(ksyms_lookup(f->ks, 0x3000), 0x3000, "last", "m");
	free(name);
}

/* The running kernel's table, when this user may see its addresses. */
static void test_live(void **state)
{
	const struct ksym *stext;
	struct ksyms *ks;
	int ret;

	ret = ksyms_load(&ks, NULL);
	if (ret == -EPERM || ret == -EACCES || ret == -ENOENT)
		skip();
	assert_int_equal(ret, 0);
	stext = ksyms_by_name(ks, "_stext");
	assert_non_null(stext);
	assert_non_null(ksyms_lookup(ks, stext->addr + 1));
	assert_int_equal(ksyms_lookup(ks, stext->addr + 1)->addr, stext->addr);
	assert_null(ksyms_by_name(ks, "init_task"));
	ksyms_free(ks);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_setup_teardown(test_lookup, setup, teardown),
		cmocka_unit_test_setup_teardown(test_by_name, setup, teardown),
		cmocka_unit_test_setup_teardown(test_restricted, setup, teardown),
		cmocka_unit_test_setup_teardown(test_bad_input, setup, teardown),
		cmocka_unit_test_setup_teardown(test_new_add_sort, setup, teardown),
		cmocka_unit_test_setup_teardown(test_long_name, setup, teardown),
		cmocka_unit_test(test_null_table),
		cmocka_unit_test(test_live),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
