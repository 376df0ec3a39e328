// SPDX-License-Identifier: GPL-2.0-only
/*
 * kprotperf features --vmlinux on two kernels assembled at test time, laid
 * out as a vmlinux is: functions between _stext and _etext, padded apart
 * by gas's nops and the linker script's int3s, a page of int3s before the
 * entry text as the 2 MiB alignment is on x86-64.  The two differ in the
 * xors of zeroed call-used registers before two returns, one of them after
 * the function's own xor %eax,%eax: the text bytes count each function's
 * code up to its last instruction that is no fill, so the hardened one has
 * exactly the 7 bytes of xors more, where the sites' xors are 9 (the
 * return value's xor is counted in the site too).
 */
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cmd/cmds.h"
#include "features/inventory.h"
#include "testutil.h"

/* ZERO=1: the xors -fzero-call-used-regs=used-gpr adds */
static const char kernel_src[] = "	.text\n"
				 "	.globl	_stext\n"
				 "_stext:\n"
				 /* 6 bytes of code, then 10 of nops to align the next */
				 "	.type	plain, @function\n"
				 "plain:\n"
				 "	push	%rbx\n"
				 "	mov	%rdi, %rbx\n"
				 "	pop	%rbx\n"
				 "	ret\n"
				 "	.size	plain, .-plain\n"
				 "	.p2align 4\n"
				 /* 14 bytes, 21 with the xors, an SLS int3, int3s */
				 "	.type	zeroed, @function\n"
				 "zeroed:\n"
				 "	test	%rdi, %rdi\n"
				 "	je	1f\n"
				 "	xor	%eax, %eax\n"
				 ".if ZERO\n"
				 "	xor	%edx, %edx\n"
				 ".endif\n"
				 "	ret\n"
				 "1:	mov	$1, %eax\n"
				 ".if ZERO\n"
				 "	xor	%ecx, %ecx\n"
				 "	xor	%r8d, %r8d\n"
				 ".endif\n"
				 "	ret\n"
				 "	int3\n"
				 "	.size	zeroed, .-zeroed\n"
				 "	.p2align 4, 0xcc\n"
				 /* a nop inside is code: 6 bytes, then a nop of its own size */
				 "	.type	inner, @function\n"
				 "inner:\n"
				 "	nop\n"
				 "	mov	%rdi, %rax\n"
				 "	ud2\n"
				 "	nopl	(%rax)\n"
				 "	.size	inner, .-inner\n"
				 "	.balign	4096, 0xcc\n"
				 /* 3 bytes and one that decodes as nothing: 4 */
				 "	.globl	entry\n"
				 "	.type	entry, @function\n"
				 "entry:\n"
				 "	swapgs\n"
				 "	.byte	0x06\n"
				 "	.size	entry, .-entry\n"
				 "	.balign	64, 0xcc\n"
				 "	.globl	_etext\n"
				 "_etext:\n";

struct fixture {
	struct tu_fixture tu; /* first: tu_fixture_setup() allocates it */
	char vmlinux[2][PATH_MAX];
};

static int build(void *arg)
{
	struct fixture *fx = arg;
	char path[PATH_MAX];
	int z;

	snprintf(path, sizeof(path), "%s/k.s", fx->tu.dir);
	if (tu_write_file(path, kernel_src))
		return -1;
	for (z = 0; z < 2; z++) {
		snprintf(fx->vmlinux[z], sizeof(fx->vmlinux[z]), "%s/vmlinux%d", fx->tu.dir, z);
		if (tu_run("cd '%s' && as --64 --defsym ZERO=%d -o k%d.o k.s && ld -m elf_x86_64"
			   " -Ttext=0xffffffff81000000 -e 0 -o vmlinux%d k%d.o",
			   fx->tu.dir, z, z, z, z))
			return -1;
	}
	return 0;
}

static int setup(void **state)
{
	return tu_fixture_setup(state, sizeof(struct fixture), "kp-inventory", "as, ld", build);
}

/* The whole inventory of the vmlinux at path: its functions' code and every count. */
static void expect(const char *path, const __u64 *code, __u64 text_bytes, unsigned int sites,
		   __u64 zeroing)
{
	static const char *const names[] = {"plain", "zeroed", "inner", "entry"};
	struct inventory *inv;
	char why[256];
	size_t i;
	int k;

	assert_int_equal(inventory_build(path, &inv, why, sizeof(why)), 0);
	assert_int_equal(inv->n, 4);
	for (i = 0; i < inv->n; i++) {
		/* _stext and plain are one function, named by the function symbol */
		assert_string_equal(inv->f[i].name, names[i]);
		assert_int_equal(inv->f[i].found.code, code[i]);
	}
	/* the span it reads: fill and all */
	assert_int_equal(inv->text_len, 0x1040);
	assert_int_equal(inv->text_bytes, text_bytes);
	assert_int_equal(inv->zeroing_bytes, zeroing);
	for (k = 0; k < SITES_KINDS; k++)
		assert_int_equal(inv->sites[k], k == SITES_ZERO_REGS ? sites : 0);
	assert_int_equal(inv->bad, 1);
	inventory_free(inv);
}

static void test_text_bytes(void **state)
{
	static const __u64 base[] = {6, 14, 6, 4}, zcur[] = {6, 21, 6, 4};
	struct fixture *fx = tu_fixture(state);

	expect(fx->vmlinux[0], base, 30, 0, 0);
	/* 7 bytes more: the xors of %edx, %ecx and %r8d */
	expect(fx->vmlinux[1], zcur, 37, 2, 9);
}

/* features' whole output on argv, text and JSON, against the goldens name and name-json. */
static void golden(const struct fixture *fx, const char *name, char **argv)
{
	const char *const mask[] = {fx->tu.dir, "DIR", NULL};
	char *out = tu_output(cmd_features, argv);
	char *json[8] = {"features", "--json"};
	int i;

	tu_golden_mask(name, out, mask);
	free(out);
	for (i = 1; argv[i]; i++)
		json[i + 1] = argv[i];
	tu_golden_json(name, fx->tu.dir, cmd_features, json);
}

static void test_output(void **state)
{
	struct fixture *fx = tu_fixture(state);
	char *one[] = {"features", "--vmlinux", fx->vmlinux[1], NULL};
	char *pair[] = {"features", "--vmlinux", fx->vmlinux[0], "--vmlinux", fx->vmlinux[1], NULL};

	golden(fx, "inventory", one);
	golden(fx, "inventory-pair", pair);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_text_bytes),
		cmocka_unit_test(test_output),
	};

	return cmocka_run_group_tests(tests, setup, tu_fixture_teardown);
}
