// SPDX-License-Identifier: GPL-2.0-only
/*
 * Files at paths a user gives (util/safeio.h): outputs never written
 * through a link planted beside them nor into a folder another user can
 * write; text inputs refused at once, in one line, when they are no
 * regular file or larger than 16 MiB; a file kprotperf finds beside itself
 * read through no link and no part others could change; and the text such
 * files hold escaped before it reaches a terminal (scenario --list,
 * features --features).
 */
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "cmd/cmds.h"
#include "data/datafile.h"
#include "util/safeio.h"
#include "testutil.h"

static char dir[PATH_MAX - 64];

static int setup(void **state)
{
	return tu_mkdtemp(dir, sizeof(dir), "kp-safeio");
}

static int teardown(void **state)
{
	return tu_run("rm -rf '%s'", dir) ? -1 : 0;
}

/* dir/name, in buf. */
static const char *at(char *buf, size_t len, const char *name)
{
	snprintf(buf, len, "%s/%s", dir, name);
	return buf;
}

static int fill_new(FILE *f, void *ctx)
{
	fputs("new\n", f);
	return 0;
}

/* Links planted at the name and at the old fixed temporary name: neither is followed. */
static void test_write_not_through_links(void **state)
{
	char victim[PATH_MAX], link[PATH_MAX], tmp[PATH_MAX], *text;
	int fd = open(dir, O_RDONLY | O_DIRECTORY);

	assert_int_equal(tu_write_file(at(victim, sizeof(victim), "victim"), "precious\n"), 0);
	assert_int_equal(symlink(victim, at(link, sizeof(link), "next.scn")), 0);
	assert_int_equal(symlink(victim, at(tmp, sizeof(tmp), "next.scn.tmp")), 0);
	assert_int_equal(safeio_write(fd, "next.scn", 0644, fill_new, NULL), 0);
	text = tu_read_file(victim);
	assert_string_equal(text, "precious\n");
	free(text);
	text = tu_read_file(link);
	assert_string_equal(text, "new\n");
	free(text);
	/* the link at the name was replaced, not written through; the other left alone */
	assert_int_equal(tu_run("test -f '%s' && ! test -L '%s' && test -L '%s'", link, link, tmp),
			 0);
	/* nothing but these three */
	assert_int_equal(tu_run("test $(ls -A '%s' | wc -l) = 3", dir), 0);
	close(fd);
}

/* The folder refused with why (exact), or accepted. */
static void expect_dir(const char *path, uid_t owner, const char *want)
{
	char why[512];
	int fd = safeio_dir(path, owner, why, sizeof(why));

	if (!want) {
		assert_true(fd >= 0);
		close(fd);
		return;
	}
	assert_int_equal(fd, -EPERM);
	assert_string_equal(why, want);
}

static void test_shared_folders(void **state)
{
	char shared[PATH_MAX], sticky[PATH_MAX], theirs[PATH_MAX], want[PATH_MAX + 256];

	at(shared, sizeof(shared), "shared");
	at(sticky, sizeof(sticky), "sticky");
	assert_int_equal(mkdir(shared, 0700) || chmod(shared, 0777), 0);
	assert_int_equal(mkdir(sticky, 0700) || chmod(sticky, 01777), 0);
	snprintf(want, sizeof(want),
		 "folder '%s' can be written by other users (mode 0777, not sticky): write into "
		 "a folder only you can write",
		 shared);
	expect_dir(shared, (uid_t)-1, want);
	assert_int_equal(chmod(shared, 0775), 0);
	snprintf(want, sizeof(want),
		 "folder '%s' can be written by other users (mode 0775, not sticky): write into "
		 "a folder only you can write",
		 shared);
	expect_dir(shared, (uid_t)-1, want);
	/* other users cannot replace or rename what is ours in a sticky folder (/tmp) */
	expect_dir(sticky, (uid_t)-1, NULL);
	expect_dir(dir, (uid_t)-1, NULL);
	if (geteuid())
		return; /* giving a folder away needs root */
	at(theirs, sizeof(theirs), "theirs");
	assert_int_equal(mkdir(theirs, 0755) || chown(theirs, 65534, 65534), 0);
	snprintf(want, sizeof(want),
		 "folder '%s' belongs to another user (uid 65534): write into a folder of your "
		 "own",
		 theirs);
	expect_dir(theirs, (uid_t)-1, want);
	/* the user the output is for (sudo's) may own it */
	expect_dir(theirs, 65534, NULL);
}

/* dir/rel through safeio_open_beneath: its first line, or -errno and why (exact). */
static void expect_beneath(const char *rel, int err, const char *want)
{
	char why[512], line[64] = "";
	int fd = safeio_open_beneath(dir, rel, (uid_t)-1, why, sizeof(why));

	if (err) {
		assert_int_equal(fd, err);
		assert_string_equal(why, want);
		return;
	}
	assert_true(fd >= 0);
	assert_true(read(fd, line, sizeof(line) - 1) > 0);
	close(fd);
	assert_string_equal(line, want);
}

/* A file beside the binary (help's build tree): no link, no stranger's part on the way. */
static void test_open_beneath(void **state)
{
	char p[PATH_MAX], want[PATH_MAX + 64];

	assert_int_equal(mkdir(at(p, sizeof(p), "b"), 0755), 0);
	assert_int_equal(tu_write_file(at(p, sizeof(p), "b/page.1"), "page\n"), 0);
	expect_beneath("b/page.1", 0, "page\n");
	expect_beneath("b//page.1", 0, "page\n");
	expect_beneath("b/none.1", -ENOENT, "");
	expect_beneath("b/../b/page.1", -EINVAL, "");
	expect_beneath("", -EINVAL, "");
	snprintf(want, sizeof(want), "'%s/b/page.1' is not a folder", dir);
	expect_beneath("b/page.1/x", -EINVAL, want);
	snprintf(want, sizeof(want), "'%s/b' is not a regular file", dir);
	expect_beneath("b", -EINVAL, want);
	assert_int_equal(symlink("b", at(p, sizeof(p), "l")), 0);
	snprintf(want, sizeof(want), "'%s/l' is a symbolic link", dir);
	expect_beneath("l/page.1", -EINVAL, want);
	/* the group could rewrite it; a sticky folder keeps the file its owner's */
	assert_int_equal(chmod(at(p, sizeof(p), "b/page.1"), 0664), 0);
	snprintf(want, sizeof(want), "'%s/b/page.1' can be written by other users (mode 0664)",
		 dir);
	expect_beneath("b/page.1", -EPERM, want);
	assert_int_equal(chmod(p, 0644) || chmod(at(p, sizeof(p), "b"), 01777), 0);
	expect_beneath("b/page.1", 0, "page\n");
	assert_int_equal(chmod(p, 0777), 0);
	snprintf(want, sizeof(want), "'%s/b' can be written by other users (mode 0777)", dir);
	expect_beneath("b/page.1", -EPERM, want);
}

/* A recording is refused in a shared folder before anything is made there. */
static void test_datafile_shared(void **state)
{
	char shared[PATH_MAX], path[PATH_MAX + 16], why[512], want[PATH_MAX + 256];
	struct datafile *df;

	at(shared, sizeof(shared), "rec");
	assert_int_equal(mkdir(shared, 0700) || chmod(shared, 0777), 0);
	snprintf(path, sizeof(path), "%s/k.data", shared);
	assert_int_equal(datafile_create(&df, path, (uid_t)-1, why, sizeof(why)), -EPERM);
	snprintf(want, sizeof(want),
		 "folder '%s' can be written by other users (mode 0777, not sticky): write into "
		 "a folder only you can write",
		 shared);
	assert_string_equal(why, want);
	assert_int_equal(tu_run("test -z \"$(ls -A '%s')\"", shared), 0);
}

/* The text reader refuses path with exactly want; errno as it says. */
static void expect_refused(const char *path, int err, const char *want)
{
	char why[512];
	FILE *f;

	errno = 0;
	f = safeio_fopen_text(path, why, sizeof(why));
	assert_null(f);
	assert_int_equal(errno, err);
	assert_string_equal(why, want);
}

static void test_text_inputs(void **state)
{
	char fifo[PATH_MAX], big[PATH_MAX], link[PATH_MAX], want[PATH_MAX + 64], why[256];
	static char buf[65536];
	size_t n, r;
	FILE *f;

	expect_refused("/dev/zero", EINVAL, "/dev/zero: not a regular file");
	snprintf(want, sizeof(want), "%s: not a regular file", dir);
	expect_refused(dir, EINVAL, want);
	/* a FIFO without a writer: refused at once, not waited on */
	assert_int_equal(mkfifo(at(fifo, sizeof(fifo), "fifo"), 0600), 0);
	snprintf(want, sizeof(want), "%s: not a regular file", fifo);
	expect_refused(fifo, EINVAL, want);
	/* through a link, what it points to counts */
	assert_int_equal(symlink("/dev/zero", at(link, sizeof(link), "zero.scn")), 0);
	snprintf(want, sizeof(want), "%s: not a regular file", link);
	expect_refused(link, EINVAL, want);
	at(big, sizeof(big), "big");
	assert_int_equal(tu_run("truncate -s %d '%s'", SAFEIO_TEXT_MAX + 1, big), 0);
	snprintf(want, sizeof(want), "%s: larger than 16 MiB", big);
	expect_refused(big, EFBIG, want);
	/* 16 MiB is still read, whole */
	assert_int_equal(tu_run("yes 0123456 | head -c %d > '%s'", SAFEIO_TEXT_MAX, big), 0);
	f = safeio_fopen_text(big, why, sizeof(why));
	assert_non_null(f);
	n = fread(buf, 1, 8, f);
	assert_memory_equal(buf, "0123456\n", 8);
	while ((r = fread(buf, 1, sizeof(buf), f)) > 0)
		n += r;
	fclose(f);
	assert_int_equal(n, SAFEIO_TEXT_MAX);
}

/* The commands that read a user's text file: one exact line, exit 1. */
static void test_commands_refuse(void **state)
{
	char *scn[] = {"scenario", "/dev/zero", NULL};
	char *list[] = {"scenario", "--templates", "/dev/zero", "--list", NULL};
	char *feat[] = {"features", "--features", "/dev/zero", "x.data", NULL};
	char *folder[] = {"scenario", dir, NULL}, want[PATH_MAX + 64];

	tu_expect(cmd_scenario, scn, 2, 1, "kprotperf scenario: /dev/zero: not a regular file\n");
	tu_expect(cmd_scenario, list, 2, 1, "kprotperf scenario: /dev/zero: not a regular file\n");
	tu_expect(cmd_features, feat, 2, 1, "kprotperf features: /dev/zero: not a regular file\n");
	/* it once said "Input/output error" */
	snprintf(want, sizeof(want), "kprotperf scenario: %s: not a regular file\n", dir);
	tu_expect(cmd_scenario, folder, 2, 1, want);
}

/* ESC and CR from a file reach the terminal escaped. */
static void test_escaped(void **state)
{
	char conf[PATH_MAX], feat[PATH_MAX], want[PATH_MAX + 256];
	char *list[] = {"scenario", "--templates", conf, "--list", NULL};
	char *bad[] = {"features", "--features", feat, "x.data", NULL};

	assert_int_equal(tu_write_file(at(conf, sizeof(conf), "t.conf"),
				       "[eventfd]\nabout = red \x1b[31mhere\rthere\n"
				       "count = 1..4 default 2\n"),
			 0);
	tu_expect(cmd_scenario, list, 1, 0,
		  "eventfd  count=1..4 (2)\n    red \\x1b[31mhere\\rthere\n");
	assert_int_equal(tu_write_file(at(feat, sizeof(feat), "f.conf"), "[x\x1b]0;pwned\x07]\n"),
			 0);
	snprintf(want, sizeof(want),
		 "kprotperf features: %s:1: feature name 'x\\x1b]0;pwned\\x07': use letters, "
		 "digits, '_' and '-'\n",
		 feat);
	tu_expect(cmd_features, bad, 2, 1, want);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_write_not_through_links),
		cmocka_unit_test(test_shared_folders),
		cmocka_unit_test(test_open_beneath),
		cmocka_unit_test(test_datafile_shared),
		cmocka_unit_test(test_text_inputs),
		cmocka_unit_test(test_commands_refuse),
		cmocka_unit_test(test_escaped),
	};

	return cmocka_run_group_tests(tests, setup, teardown);
}
