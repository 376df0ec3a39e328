/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * record --blocks and kprotperf features read kernel text from /proc/kcore:
 * an ELF64 core file whose PT_LOAD segments lay out kernel memory at its
 * addresses.  Here a synthetic core file of two segments, and files that
 * are no core file.
 */
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>

#include <elf.h>
#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "analysis/ktext.h"
#include "testutil.h"

#define SEG0 0xffffffff81000000ULL
#define SEG1 0xffffffffa0000000ULL

/* A core file: segment 0 holds 0x100 bytes i & 0xff at SEG0, segment 1 0x40 bytes 0xcc at SEG1. */
static void write_core(const char *path, Elf64_Half type)
{
	Elf64_Ehdr eh = {.e_type = type,
			 .e_machine = EM_X86_64,
			 .e_version = EV_CURRENT,
			 .e_phoff = sizeof(Elf64_Ehdr),
			 .e_ehsize = sizeof(Elf64_Ehdr),
			 .e_phentsize = sizeof(Elf64_Phdr),
			 .e_phnum = 3};
	Elf64_Phdr ph[3] = {
		{.p_type = PT_NOTE, .p_offset = 0, .p_filesz = 0},
		{.p_type = PT_LOAD,
		 .p_offset = 0x1000,
		 .p_vaddr = SEG0,
		 .p_filesz = 0x100,
		 .p_memsz = 0x100},
		{.p_type = PT_LOAD,
		 .p_offset = 0x2000,
		 .p_vaddr = SEG1,
		 .p_filesz = 0x40,
		 .p_memsz = 0x40},
	};
	unsigned char seg0[0x100], seg1[0x40];
	FILE *f = fopen(path, "w");
	int i;

	assert_non_null(f);
	memcpy(eh.e_ident, ELFMAG, SELFMAG);
	eh.e_ident[EI_CLASS] = ELFCLASS64;
	eh.e_ident[EI_DATA] = ELFDATA2LSB;
	eh.e_ident[EI_VERSION] = EV_CURRENT;
	for (i = 0; i < 0x100; i++)
		seg0[i] = i;
	memset(seg1, 0xcc, sizeof(seg1));
	fwrite(&eh, sizeof(eh), 1, f);
	fwrite(ph, sizeof(ph), 1, f);
	fseek(f, 0x1000, SEEK_SET);
	fwrite(seg0, sizeof(seg0), 1, f);
	fseek(f, 0x2000, SEEK_SET);
	fwrite(seg1, sizeof(seg1), 1, f);
	assert_int_equal(fclose(f), 0);
}

static void test_kcore_read(void **state)
{
	char dir[PATH_MAX], path[PATH_MAX + 8];
	unsigned char buf[0x40];

	assert_int_equal(tu_mkdtemp(dir, sizeof(dir), "kcore"), 0);
	snprintf(path, sizeof(path), "%s/kcore", dir);
	write_core(path, ET_CORE);
	/* inside the first segment, its last byte included */
	assert_int_equal(ktext_kcore(path, SEG0 + 0x10, buf, 0x10), 0);
	assert_int_equal(buf[0], 0x10);
	assert_int_equal(buf[15], 0x1f);
	assert_int_equal(ktext_kcore(path, SEG0 + 0xf0, buf, 0x10), 0);
	assert_int_equal(buf[15], 0xff);
	/* the second segment */
	assert_int_equal(ktext_kcore(path, SEG1, buf, 0x40), 0);
	assert_int_equal(buf[0x3f], 0xcc);
	/* running past a segment's end, before it, between segments */
	assert_int_equal(ktext_kcore(path, SEG0 + 0xf8, buf, 0x10), -ENOENT);
	assert_int_equal(ktext_kcore(path, SEG0 - 1, buf, 0x2), -ENOENT);
	assert_int_equal(ktext_kcore(path, SEG0 + 0x1000, buf, 0x10), -ENOENT);
	/* an address whose offset would wrap */
	assert_int_equal(ktext_kcore(path, ~0ULL - 4, buf, 0x10), -ENOENT);
	unlink(path);
	rmdir(dir);
}

static void test_kcore_not_core(void **state)
{
	char dir[PATH_MAX], path[PATH_MAX + 8];
	unsigned char buf[16];

	assert_int_equal(tu_mkdtemp(dir, sizeof(dir), "kcore"), 0);
	snprintf(path, sizeof(path), "%s/kcore", dir);
	/* an executable is no core file */
	write_core(path, ET_EXEC);
	assert_int_equal(ktext_kcore(path, SEG0, buf, sizeof(buf)), -ENOEXEC);
	/* too short for an ELF header */
	assert_int_equal(tu_write_file(path, "\177ELF"), 0);
	assert_int_equal(ktext_kcore(path, SEG0, buf, sizeof(buf)), -ENOEXEC);
	unlink(path);
	assert_int_equal(ktext_kcore(path, SEG0, buf, sizeof(buf)), -ENOENT);
	rmdir(dir);
}

/* The vmlinux fallback refuses what is no ELF file with a symbol table, and a missing file. */
static void test_vmlinux_not_elf(void **state)
{
	unsigned char buf[16];

	assert_int_equal(ktext_vmlinux("/proc/self/status", 0, 0, buf, sizeof(buf)), -ENOEXEC);
	assert_int_equal(ktext_vmlinux("/nonexistent/vmlinux", 0, 0, buf, sizeof(buf)), -ENOENT);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_kcore_read),
		cmocka_unit_test(test_kcore_not_core),
		cmocka_unit_test(test_vmlinux_not_elf),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
