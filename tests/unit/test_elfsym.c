/* SPDX-License-Identifier: GPL-2.0-only */
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>

#include <errno.h>
#include <limits.h>
#include <link.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <sys/stat.h>

#include "symbols/elfsym.h"
#include "system/provenance.h"
#include "testutil.h"

/* This binary as loaded: where it lies and the build id of its loaded notes. */
struct self {
	char path[PATH_MAX];
	char bid[ELFSYM_BID_HEX];
	uintptr_t bias;
	const ElfW(Phdr) * phdr;
	int phnum;
};

__attribute__((noinline, used)) static int traced_function(int n)
{
	volatile int acc = n;

	while (n-- > 0)
		acc = acc * 7 + n;
	return acc;
}

static int self_cb(struct dl_phdr_info *info, size_t size, void *ctx)
{
	struct self *s = ctx;
	const ElfW(Phdr) * ph;
	int i;

	s->bias = info->dlpi_addr;
	s->phdr = info->dlpi_phdr;
	s->phnum = info->dlpi_phnum;
	for (i = 0; i < info->dlpi_phnum; i++) {
		ph = &info->dlpi_phdr[i];
		if (ph->p_type == PT_NOTE &&
		    !provenance_parse_build_id((const void *)(s->bias + ph->p_vaddr), ph->p_memsz,
					       s->bid, sizeof(s->bid)))
			break;
	}
	return 1; /* the main program comes first: stop there */
}

static int setup(void **state)
{
	struct self *s = calloc(1, sizeof(*s));

	if (!s || !realpath("/proc/self/exe", s->path)) {
		free(s);
		return -1;
	}
	dl_iterate_phdr(self_cb, s);
	*state = s;
	return 0;
}

static int teardown(void **state)
{
	free(*state);
	return 0;
}

/* The file offset of a link-time address of this binary, from its loaded program headers. */
static __u64 file_offset(const struct self *s, __u64 vaddr)
{
	const ElfW(Phdr) * ph;
	int i;

	for (i = 0; i < s->phnum; i++) {
		ph = &s->phdr[i];
		if (ph->p_type == PT_LOAD && vaddr >= ph->p_vaddr &&
		    vaddr < ph->p_vaddr + ph->p_filesz)
			return vaddr - ph->p_vaddr + ph->p_offset;
	}
	fail_msg("no PT_LOAD holds %llx", (unsigned long long)vaddr);
	return 0;
}

static void test_build_id(void **state)
{
	struct self *s = *state;
	char hex[ELFSYM_BID_HEX];

	assert_int_equal(strlen(s->bid), 40);
	assert_int_equal(elfsym_build_id(s->path, hex, sizeof(hex)), 0);
	assert_string_equal(hex, s->bid);
	assert_int_equal(elfsym_build_id("/nonexistent/elfsym", hex, sizeof(hex)), -ENOENT);
	assert_string_equal(hex, "");
}

static void test_find_function(void **state)
{
	struct self *s = *state;
	__u64 vaddr = (uintptr_t)traced_function - s->bias, at, off = 0;
	struct elfsym *f;

	assert_int_equal(elfsym_open(s->path, NULL, NULL, &f), 0);
	assert_string_equal(elfsym_bid(f), s->bid);
	assert_true(elfsym_vaddr(f, file_offset(s, vaddr) + 3, &at));
	assert_int_equal(at, vaddr + 3);
	assert_string_equal(elfsym_find(f, at, &off), "traced_function");
	assert_int_equal(off, 3);
	assert_null(elfsym_find(f, 0, &off));
	assert_false(elfsym_vaddr(f, ~0ULL, &at));
	elfsym_free(f);
}

static void test_build_id_must_match(void **state)
{
	struct self *s = *state;
	char other[ELFSYM_BID_HEX];
	struct elfsym *f;

	assert_int_equal(elfsym_open(s->path, s->bid, NULL, &f), 0);
	elfsym_free(f);
	assert_int_equal(elfsym_open(s->path, "", NULL, &f), 0);
	elfsym_free(f);
	strcpy(other, s->bid);
	other[0] = other[0] == '0' ? '1' : '0';
	assert_int_equal(elfsym_open(s->path, other, NULL, &f), -ESTALE);
}

static void test_not_elf(void **state)
{
	char path[] = "/tmp/elfsym_text_XXXXXX";
	char hex[ELFSYM_BID_HEX];
	struct elfsym *f;
	int fd = mkstemp(path);

	assert_true(fd >= 0);
	assert_int_equal(write(fd, "not an ELF file\n", 16), 16);
	close(fd);
	assert_int_equal(elfsym_open(path, NULL, NULL, &f), -ENOEXEC);
	assert_int_equal(elfsym_build_id(path, hex, sizeof(hex)), -ENOEXEC);
	assert_int_equal(elfsym_open("/dev/null", NULL, NULL, &f), -ENOEXEC);
	/* a FIFO is refused at once: its open used to block for a writer */
	unlink(path);
	assert_int_equal(mkfifo(path, 0600), 0);
	assert_int_equal(elfsym_open(path, NULL, NULL, &f), -ENOEXEC);
	assert_int_equal(elfsym_open("/nonexistent/elfsym", NULL, NULL, &f), -ENOENT);
	unlink(path);
}

/* Without a build id note the symbols still come from .symtab. */
static void test_no_build_id(void **state)
{
	struct self *s = *state;
	char dir[] = "/tmp/elfsym_nobid_XXXXXX", copy[64];
	__u64 vaddr = (uintptr_t)traced_function - s->bias, off = 0;
	struct elfsym *f;

	assert_non_null(mkdtemp(dir));
	snprintf(copy, sizeof(copy), "%s/copy", dir);
	if (tu_run("objcopy --remove-section .note.gnu.build-id '%s' '%s' 2>&1", s->path, copy)) {
		rmdir(dir);
		fprintf(stderr, "skipped: objcopy could not copy this binary\n");
		skip();
	}
	assert_int_equal(elfsym_open(copy, NULL, NULL, &f), 0);
	assert_string_equal(elfsym_bid(f), "");
	assert_string_equal(elfsym_find(f, vaddr + 1, &off), "traced_function");
	assert_int_equal(off, 1);
	elfsym_free(f);
	unlink(copy);
	rmdir(dir);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_build_id),
		cmocka_unit_test(test_find_function),
		cmocka_unit_test(test_build_id_must_match),
		cmocka_unit_test(test_not_elf),
		cmocka_unit_test(test_no_build_id),
	};

	traced_function(3);
	return cmocka_run_group_tests(tests, setup, teardown);
}
