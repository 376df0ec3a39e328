/* SPDX-License-Identifier: GPL-2.0-only */
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>

#include <ctype.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <sys/stat.h>

#include "symbols/debug_plain.h"
#include "symbols/debuginfo.h"
#include "symbols/elfsym.h"
#include "symbols/inlines.h"
#include "testutil.h"

/*
 * Built at test time so the inlining is known: helper is always inlined into
 * both callers and has no copy of its own; standalone never is inlined.
 */
static const char fixture_src[] =
	"static volatile int sink;\n"
	"static inline __attribute__((always_inline)) int kp_helper(int x)\n"
	"{\n"
	"	sink += x;\n"
	"	return x * 3 + sink;\n"
	"}\n"
	"__attribute__((noinline, noclone)) int kp_caller_one(int x)\n"
	"{\n"
	"	return kp_helper(x) + 1;\n"
	"}\n"
	"__attribute__((noinline, noclone)) int kp_caller_two(int x)\n"
	"{\n"
	"	return kp_helper(x ^ 5) - 2;\n"
	"}\n"
	"__attribute__((noinline, noclone)) int kp_standalone(int x)\n"
	"{\n"
	"	return x * 7 + sink;\n"
	"}\n"
	"int main(int argc, char **argv)\n"
	"{\n"
	"	return kp_caller_one(argc) + kp_caller_two(argc) + kp_standalone(argc);\n"
	"}\n";

#define RELEASE "6.1.0-kp-test"

struct fixture {
	struct tu_fixture tu;	/* first: tu_fixture_setup() allocates it */
	char exe[PATH_MAX];	/* with DWARF and a build id */
	char nodebug[PATH_MAX]; /* the same program without DWARF */
	char obj[PATH_MAX];	/* ET_REL: its DWARF needs relocating */
	char gz[PATH_MAX];	/* its DWARF compressed, as Debian's debug packages ship it */
	char bid[ELFSYM_BID_HEX];
};

/* A sysroot under dir whose build-id link is the fixture and whose /boot vmlinux has no DWARF. */
static int make_sysroot(struct fixture *f)
{
	return tu_run("mkdir -p '%s/root/usr/lib/debug/.build-id/%.2s' '%s/root/boot' && "
		      "ln -s '%s' '%s/root/usr/lib/debug/.build-id/%.2s/%s.debug' && "
		      "cp '%s' '%s/root/boot/vmlinux-" RELEASE "'",
		      f->tu.dir, f->bid, f->tu.dir, f->exe, f->tu.dir, f->bid, f->bid + 2,
		      f->nodebug, f->tu.dir);
}

static int build(void *arg)
{
	struct fixture *f = arg;
	char src[PATH_MAX];

	snprintf(src, sizeof(src), "%s/fixture.c", f->tu.dir);
	snprintf(f->exe, sizeof(f->exe), "%s/fixture", f->tu.dir);
	snprintf(f->nodebug, sizeof(f->nodebug), "%s/fixture-nodebug", f->tu.dir);
	snprintf(f->obj, sizeof(f->obj), "%s/fixture.o", f->tu.dir);
	snprintf(f->gz, sizeof(f->gz), "%s/fixture-gz", f->tu.dir);
	if (tu_write_file(src, fixture_src) || tu_cc("-O2 -g -Wl,--build-id=sha1", src, f->exe) ||
	    tu_cc("-O2 -g0 -Wl,--build-id=sha1", src, f->nodebug) ||
	    tu_cc("-O2 -g -c", src, f->obj) ||
	    tu_cc("-O2 -g -gz=zlib -Wl,--build-id=sha1", src, f->gz))
		return -1;
	if (elfsym_build_id(f->exe, f->bid, sizeof(f->bid)) || !f->bid[0])
		return -1;
	return make_sysroot(f);
}

static int setup(void **state)
{
	/* without a compiler the fixture tests skip rather than fail */
	return tu_fixture_setup(state, sizeof(struct fixture), "kp-debuginfo", "cc", build);
}

static bool has_parent(const struct inline_instance *v, size_t n, const char *name)
{
	size_t i;

	for (i = 0; i < n; i++) {
		if (!strcmp(v[i].parent, name))
			return true;
	}
	return false;
}

/* What a caller of debuginfo_open() relies on: its DWARF, read through inlines.c. */
static void check_helper(struct debuginfo *di)
{
	struct inline_instance *v;
	size_t n;

	assert_int_equal(inlines_find(di, "kp_helper", &v, &n), 0);
	assert_int_equal(n, 2);
	assert_true(has_parent(v, n, "kp_caller_one"));
	assert_true(has_parent(v, n, "kp_caller_two"));
	assert_non_null(v[0].call_file);
	assert_non_null(strstr(v[0].call_file, "fixture.c"));
	assert_true(v[0].call_line > 0);
	inlines_free(v, n);
}

static void test_inlined_only(void **state)
{
	struct fixture *f = tu_fixture(state);
	struct debuginfo *di;

	assert_int_equal(debuginfo_open(&di, f->exe), 0);
	check_helper(di);
	debuginfo_close(di);
}

static void test_symbol(void **state)
{
	struct fixture *f = tu_fixture(state);
	struct debuginfo *di;
	__u64 addr = 0;

	assert_int_equal(debuginfo_open(&di, f->exe), 0);
	assert_int_equal(debuginfo_symbol(di, "kp_standalone", &addr), 0);
	assert_true(addr != 0);
	assert_int_equal(debuginfo_symbol(di, "kp_no_such_symbol", &addr), -ENOENT);
	debuginfo_close(di);
}

/* An object file's DWARF only makes sense once libdwfl has applied its relocations. */
static void test_relocatable(void **state)
{
	struct fixture *f = tu_fixture(state);
	struct debuginfo *di;

	assert_int_equal(debuginfo_open(&di, f->obj), 0);
	check_helper(di);
	debuginfo_close(di);
}

static void test_open_nodebug(void **state)
{
	struct fixture *f = tu_fixture(state);
	struct debuginfo *di = (void *)1;

	assert_int_equal(debuginfo_open(&di, f->nodebug), -ENODATA);
	assert_null(di);
	assert_int_equal(debuginfo_open(&di, "/nonexistent/vmlinux"), -ENOENT);
}

/* --vmlinux a FIFO: refused at once (the open blocked for a writer), as a device is */
static void test_open_not_regular(void **state)
{
	char dir[] = "/tmp/debuginfo_fifo_XXXXXX", fifo[64], why[256];
	struct debuginfo *di = (void *)1;

	assert_non_null(mkdtemp(dir));
	snprintf(fifo, sizeof(fifo), "%s/vmlinux", dir);
	assert_int_equal(mkfifo(fifo, 0600), 0);
	assert_int_equal(debuginfo_open(&di, fifo), -EISDIR);
	assert_null(di);
	assert_int_equal(debuginfo_open(&di, "/dev/zero"), -EISDIR);
	debuginfo_explain(-EISDIR, "/dev/zero", NULL, why, sizeof(why));
	assert_string_equal(why, "/dev/zero is not a regular file: give a vmlinux file");
	unlink(fifo);
	rmdir(dir);
}

static void test_find_explicit(void **state)
{
	struct fixture *f = tu_fixture(state);
	char out[PATH_MAX], src[PATH_MAX], other[ELFSYM_BID_HEX];
	size_t i;

	assert_int_equal(debuginfo_find(RELEASE, f->bid, f->exe, out, sizeof(out)), 0);
	assert_string_equal(out, f->exe);
	/* no build id recorded: any file with DWARF will do */
	assert_int_equal(debuginfo_find(RELEASE, NULL, f->exe, out, sizeof(out)), 0);
	strcpy(other, f->bid);
	other[0] = other[0] == '0' ? '1' : '0';
	assert_int_equal(debuginfo_find(RELEASE, other, f->exe, out, sizeof(out)), -ESTALE);
	assert_string_equal(out, f->exe);
	/* build ids compare as numbers, whatever the case of their hex */
	for (i = 0; f->bid[i]; i++)
		other[i] = toupper((unsigned char)f->bid[i]);
	other[i] = '\0';
	assert_int_equal(debuginfo_find(RELEASE, other, f->exe, out, sizeof(out)), 0);
	assert_int_equal(debuginfo_find(RELEASE, f->bid, f->nodebug, out, sizeof(out)), -ENODATA);
	snprintf(src, sizeof(src), "%s/fixture.c", f->tu.dir);
	assert_int_equal(debuginfo_find(RELEASE, NULL, src, out, sizeof(out)), -ENOEXEC);
	assert_int_equal(debuginfo_find(RELEASE, NULL, "/nonexistent/vmlinux", out, sizeof(out)),
			 -ENOENT);
}

static void test_find_search(void **state)
{
	struct fixture *f = tu_fixture(state);
	char root[PATH_MAX], out[PATH_MAX], other[ELFSYM_BID_HEX];

	snprintf(root, sizeof(root), "%s/root", f->tu.dir);
	assert_int_equal(debuginfo_find_sysroot(root, RELEASE, f->bid, NULL, out, sizeof(out)), 0);
	assert_non_null(strstr(out, "/usr/lib/debug/.build-id/"));
	assert_true(!strncmp(out, root, strlen(root)));
	/* by release only /boot/vmlinux-RELEASE exists, and it has no DWARF */
	assert_int_equal(debuginfo_find_sysroot(root, RELEASE, NULL, NULL, out, sizeof(out)),
			 -ENOENT);
	strcpy(other, f->bid);
	other[2] = other[2] == '0' ? '1' : '0';
	assert_int_equal(debuginfo_find_sysroot(root, RELEASE, other, NULL, out, sizeof(out)),
			 -ENOENT);
	assert_int_equal(debuginfo_find_sysroot(root, NULL, NULL, NULL, out, sizeof(out)), -ENOENT);
	/* a release cannot climb out of the searched directories */
	assert_int_equal(
		debuginfo_find_sysroot(root, "../../" RELEASE, NULL, NULL, out, sizeof(out)),
		-ENOENT);
}

/* kernel-build.sh's build-id directory is searched too, but not under a sysroot. */
static void test_find_cache(void **state)
{
	struct fixture *f = tu_fixture(state);
	char cache[2200], link[2300], out[PATH_MAX], want[2400];
	const char *saved = getenv("XDG_CACHE_HOME");
	char *keep = saved ? strdup(saved) : NULL;

	snprintf(cache, sizeof(cache), "%s/xdg", f->tu.dir);
	snprintf(link, sizeof(link), "%s/kprotperf/debug/.build-id/%.2s", cache, f->bid);
	assert_int_equal(
		tu_run("mkdir -p '%s' && ln -s '%s' '%s/%s.debug'", link, f->exe, link, f->bid + 2),
		0);
	snprintf(want, sizeof(want), "%s/%s.debug", link, f->bid + 2);
	setenv("XDG_CACHE_HOME", cache, 1);
	assert_int_equal(debuginfo_find(NULL, f->bid, NULL, out, sizeof(out)), 0);
	assert_string_equal(out, want);
	assert_int_equal(
		debuginfo_find_sysroot("/nonexistent", NULL, f->bid, NULL, out, sizeof(out)),
		-ENOENT);
	if (keep)
		setenv("XDG_CACHE_HOME", keep, 1);
	else
		unsetenv("XDG_CACHE_HOME");
	free(keep);
}

/* debug_plain_write of path as rel (under XDG_CACHE_HOME dir/xdg): its result */
static int plain_write(struct fixture *f, const char *path, const char *rel)
{
	int fd = open(path, O_RDONLY | O_CLOEXEC), err;

	assert_true(fd >= 0);
	err = debug_plain_write(fd, rel);
	close(fd);
	return err;
}

/*
 * A compressed debug file's inflated copy: the same DWARF, nothing left
 * compressed in it; a file with nothing compressed gets none; no link in the
 * cache's folders is followed.
 */
static void test_plain_copy(void **state)
{
	struct fixture *f = tu_fixture(state);
	char xdg[2200], copy[2400], away[2300];
	const char *saved = getenv("XDG_CACHE_HOME");
	char *keep = saved ? strdup(saved) : NULL;
	struct debuginfo *di;

	snprintf(xdg, sizeof(xdg), "%s/xdg-plain", f->tu.dir);
	setenv("XDG_CACHE_HOME", xdg, 1);
	assert_int_equal(debug_plain_dir(copy, sizeof(copy)), 0);
	assert_int_equal(plain_write(f, f->gz, "ab/cdef.debug"), 0);
	snprintf(copy, sizeof(copy), "%s/kprotperf/debug/plain/ab/cdef.debug", xdg);
	assert_int_equal(debuginfo_open(&di, copy), 0);
	check_helper(di);
	debuginfo_close(di);
	assert_int_equal(plain_write(f, copy, "ab/again.debug"), -ENODATA);
	assert_int_equal(plain_write(f, f->exe, "ab/plain.debug"), -ENODATA);
	snprintf(copy, sizeof(copy), "%s/kprotperf/debug/plain/ab/plain.debug", xdg);
	assert_int_not_equal(access(copy, F_OK), 0);
	/* a folder on the way replaced by a link elsewhere: nothing written there */
	snprintf(away, sizeof(away), "%s/away", f->tu.dir);
	assert_int_equal(tu_run("mkdir -p '%s' && ln -s '%s' '%s/kprotperf/debug/plain/cd'", away,
				away, xdg),
			 0);
	assert_true(plain_write(f, f->gz, "cd/link.debug") < 0);
	snprintf(copy, sizeof(copy), "%s/link.debug", away);
	assert_int_not_equal(access(copy, F_OK), 0);
	assert_int_equal(plain_write(f, f->gz, "no-folder.debug"), -EINVAL);
	if (keep)
		setenv("XDG_CACHE_HOME", keep, 1);
	else
		unsetenv("XDG_CACHE_HOME");
	free(keep);
}

/* The real case: Debian's -dbg vmlinux is found by its build id and opened. */
static void test_real_vmlinux(void **state)
{
	const char *path = getenv("KP_TEST_VMLINUX");
	char bid[ELFSYM_BID_HEX], out[PATH_MAX];
	struct debuginfo *di;
	__u64 stext;

	if (!path || access(path, R_OK)) {
		print_message(
			"skipped: KP_TEST_VMLINUX names no readable vmlinux with DWARF (the vm "
			"tier runs this with the -dbg vmlinux)\n");
		skip();
	}
	assert_int_equal(elfsym_build_id(path, bid, sizeof(bid)), 0);
	assert_int_equal(debuginfo_find(NULL, bid, path, out, sizeof(out)), 0);
	assert_int_equal(debuginfo_open(&di, path), 0);
	assert_int_equal(debuginfo_symbol(di, "_stext", &stext), 0);
	assert_int_equal(stext, 0xffffffff81000000ULL);
	debuginfo_close(di);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_inlined_only),	 cmocka_unit_test(test_symbol),
		cmocka_unit_test(test_relocatable),	 cmocka_unit_test(test_open_nodebug),
		cmocka_unit_test(test_open_not_regular), cmocka_unit_test(test_find_explicit),
		cmocka_unit_test(test_find_search),	 cmocka_unit_test(test_find_cache),
		cmocka_unit_test(test_plain_copy),	 cmocka_unit_test(test_real_vmlinux),
	};

	return cmocka_run_group_tests(tests, setup, tu_fixture_teardown);
}
