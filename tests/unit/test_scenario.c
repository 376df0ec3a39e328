// SPDX-License-Identifier: GPL-2.0-only
/*
 * explore's scenarios: the templates (the built-in share/explore.conf and
 * every error of a bad file), the text of scenarios read and written back,
 * the generator and its mutants (a golden of 1000 of them, every one
 * within its ranges), and the runner: every action, a hang killed, limits
 * applied (--mem to the files all together), an unprivileged user, a stop
 * by SIGTERM, no process it started and no scratch folder left behind.
 */
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>
#include <dirent.h>
#include <errno.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "explore/scenario.h"
#include "testutil.h"

#define N_ACTIONS 14

struct fixture {
	char dir[256];
	struct scn_templates *t; /* the built-in ones */
};

static int setup(void **state)
{
	struct fixture *f = calloc(1, sizeof(*f));
	char why[256];

	if (!f || tu_mkdtemp(f->dir, sizeof(f->dir), "kp-scenario"))
		return -1;
	/* what a scenario leaves behind comes here, where run_text() sees it */
	if (prctl(PR_SET_CHILD_SUBREAPER, 1))
		return -1;
	*state = f;
	return scn_templates_load(&f->t, NULL, why, sizeof(why));
}

static int teardown(void **state)
{
	struct fixture *f = *state;

	if (!getenv("KEEP"))
		tu_run("rm -rf '%s'", f->dir);
	scn_templates_free(f->t);
	free(f);
	return 0;
}

static void write_in(const struct fixture *f, char *path, size_t len, const char *name,
		     const char *text)
{
	snprintf(path, len, "%s/%s", f->dir, name);
	assert_int_equal(tu_write_file(path, text), 0);
}

/* What fn printed to a FILE, as a string (caller frees). */
static char *printed(const struct scn_templates *t,
		     void (*fn)(const struct scn_templates *, FILE *))
{
	char *buf = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&buf, &len);

	assert_non_null(f);
	fn(t, f);
	assert_int_equal(fclose(f), 0);
	return buf;
}

static char *read_text(const char *path)
{
	FILE *f = fopen(path, "re");
	char *buf = NULL;
	size_t cap = 0;

	assert_non_null(f);
	if (getdelim(&buf, &cap, '\0', f) < 0) {
		free(buf);
		buf = strdup("");
	}
	fclose(f);
	return buf;
}

/* The built-in templates are share/explore.conf's, and docs/explore.md lists them as --list. */
static void test_builtin(void **state)
{
	static const char *const names[N_ACTIONS] = {
		"fork", "clone_threads", "mmap",     "munmap",	   "brk",     "pipe",  "socketpair",
		"open", "mkdir",	 "setxattr", "read_write", "eventfd", "epoll", "msg",
	};
	struct fixture *f = *state;
	struct scn_templates *file;
	char why[256], *a, *b, *readme;
	size_t i;

	assert_int_equal(scn_templates_count(f->t), N_ACTIONS);
	for (i = 0; i < N_ACTIONS; i++)
		assert_string_equal(scn_template_name(f->t, i), names[i]);
	assert_int_equal(scn_templates_load(&file, "share/explore.conf", why, sizeof(why)), 0);
	a = printed(f->t, scn_templates_print);
	b = printed(file, scn_templates_print);
	assert_string_equal(a, b);
	tu_golden("scenario-templates", a);
	readme = read_text("docs/explore.md");
	if (!strstr(readme, a))
		fail_msg("docs/explore.md's list of actions is not scenario --list's output");
	free(readme);
	free(a);
	free(b);
	scn_templates_free(file);
}

static void expect_bad_conf(const struct fixture *f, const char *text, const char *want)
{
	char path[512], why[512], full[1024];
	struct scn_templates *t;

	write_in(f, path, sizeof(path), "bad.conf", text);
	assert_int_equal(scn_templates_load(&t, path, why, sizeof(why)), -EINVAL);
	assert_null(t);
	snprintf(full, sizeof(full), "%s%s", path, want);
	assert_string_equal(why, full);
}

#define FORK_OK "[fork]\ncount = 1..4 default 2\ndepth = 1..2 default 1\nhold = 0..0 default 0\n"

static void test_bad_templates(void **state)
{
	struct fixture *f = *state;

	expect_bad_conf(
		f, "[frok]\n",
		":1: no action 'frok' (there are fork, clone_threads, mmap, munmap, brk, "
		"pipe, socketpair, open, mkdir, setxattr, read_write, eventfd, epoll, msg)");
	expect_bad_conf(f, "[fork\n", ":1: expected '[action]'");
	expect_bad_conf(f, FORK_OK "[fork]\n", ":5: [fork] is defined twice");
	expect_bad_conf(f, "[fork]\ncount = 1..4 default 2\n[eventfd]\ncount = 1..1 default 1\n",
			":1: [fork] has no line for its parameter depth");
	expect_bad_conf(f, "[eventfd]\ncount = 1..1 default 1\n[fork]\nhold = 0..0 default 0\n",
			":3: [fork] has no line for its parameter count");
	expect_bad_conf(
		f, "[mmap]\nabout = x\ncount = 1..4 default 1\nsize = 4096..1024 default 4096\n",
		":4: param size: min 4096 > max 1024");
	expect_bad_conf(f, "[fork]\ncount = 1..4 default 5\n",
			":2: param count: default 5 is not within 1..4");
	expect_bad_conf(f, "[fork]\ncount = 1..300 default 5\n",
			":2: param count: 1..300 is not within fork's 1..256");
	expect_bad_conf(f, "[mmap]\nsize = 1024..4096 default 4096\n",
			":2: param size: 1024..4096 is not within mmap's 4096..1073741824");
	expect_bad_conf(f, "[open]\nsize = 0..16 default 0 pow2\n",
			":2: param size: pow2 needs a min of 1 or more");
	expect_bad_conf(
		f, "[fork]\ncount = 1..4\n",
		":2: param count: expected 'MIN..MAX default DEFAULT', then 'pow2' for sizes");
	expect_bad_conf(
		f, "[fork]\ncount = 1..4 default 2 pow3\n",
		":2: param count: expected 'MIN..MAX default DEFAULT', then 'pow2' for sizes");
	expect_bad_conf(
		f, "[fork]\ncount = 1..4 default 2 pow2 x\n",
		":2: param count: expected 'MIN..MAX default DEFAULT', then 'pow2' for sizes");
	expect_bad_conf(f, "[fork]\ncount = -1..4 default 2\n",
			":2: param count: MIN, MAX and DEFAULT are whole numbers");
	expect_bad_conf(f, "[fork]\ndpth = 1..4 default 2\n",
			":2: fork has no parameter 'dpth' (it takes count, depth, hold)");
	expect_bad_conf(f, "[fork]\ncount = 1..4 default 2\ncount = 1..4 default 2\n",
			":3: param count is given twice");
	expect_bad_conf(f, "[fork]\nabout = a\nabout = b\n", ":3: [fork] has a second 'about'");
	expect_bad_conf(f, "count = 1..4 default 2\n", ":1: 'count' before the first [action]");
	expect_bad_conf(f, "[fork]\ncount\n",
			":2: expected '[action]', 'about = ...' or 'PARAM = MIN..MAX default "
			"DEFAULT'");
	expect_bad_conf(f, "# nothing\n\n", ": no [action] blocks");
}

/* A file of a few templates, in its own order; values pinned by MIN = MAX. */
static void test_own_templates(void **state)
{
	struct fixture *f = *state;
	struct scn_templates *t;
	char path[512], why[256], *text;

	write_in(f, path, sizeof(path), "own.conf",
		 "# mine\n"
		 "[eventfd]  # a comment\n"
		 "count = 5..5 default 5\n"
		 "[ fork ]\n"
		 "hold = 0..60000 default 0\n"
		 "about = forks # and a comment\n"
		 "depth=1..2   default   2\n"
		 "count = 1..64 default 64\n");
	assert_int_equal(scn_templates_load(&t, path, why, sizeof(why)), 0);
	text = printed(t, scn_templates_print);
	assert_string_equal(text, "eventfd  count=5..5 (5)\n"
				  "fork  hold=0..60000 (0)  depth=1..2 (2)  count=1..64 (64)\n"
				  "    forks\n");
	free(text);
	scn_templates_free(t);
	snprintf(path, sizeof(path), "%s/none.conf", f->dir);
	assert_int_equal(scn_templates_load(&t, path, why, sizeof(why)), -ENOENT);
	assert_true(tu_ends_with(why, "/none.conf: No such file or directory"));
}

/* xoroshiro128+ seeded by splitmix64, as their reference code computes them. */
static void test_rng(void **state)
{
	static const __u64 want[2][3] = {
		{0x509946a41cd733a3ULL, 0xd805fcac6824536eULL, 0xdadc02f3e3cf7be3ULL},
		{0x4ff5bb8dee914928ULL, 0xf4bb636399efc448ULL, 0x676ce74bb045e184ULL},
	};
	struct scn_rng r;
	int seed, i;

	for (seed = 0; seed < 2; seed++) {
		scn_rng_seed(&r, seed);
		assert_int_equal(r.s[0], seed ? 0x910a2dec89025cc1ULL : 0xe220a8397b1dcdafULL);
		for (i = 0; i < 3; i++)
			assert_int_equal(scn_rng_next(&r), want[seed][i]);
	}
}

static char *written(const struct scn_templates *t, const struct scenario *s)
{
	char *buf = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&buf, &len);

	assert_non_null(f);
	assert_int_equal(scn_write(t, s, f), 0);
	assert_int_equal(fclose(f), 0);
	return buf;
}

static void test_seeds(void **state)
{
	struct fixture *f = *state;
	struct scenario *seeds;
	char *text, sum[256];
	size_t n, i;

	assert_int_equal(scn_seeds(f->t, &seeds, &n), 0);
	assert_int_equal(n, N_ACTIONS);
	for (i = 0; i < n; i++) {
		assert_int_equal(seeds[i].n, 1);
		assert_int_equal(seeds[i].step[0].tpl, i);
	}
	seeds[0].n = n;
	for (i = 1; i < n; i++)
		seeds[0].step[i] = seeds[i].step[0];
	text = written(f->t, &seeds[0]);
	tu_golden("scenario-seeds", text);
	scn_summary(f->t, &seeds[1], sum, sizeof(sum));
	assert_string_equal(sum, "clone_threads count=16 hold=0");
	scn_summary(f->t, &seeds[0], sum, 30);
	/* cut to fit, its end included */
	assert_string_equal(sum, "fork count=16 depth=1 hold=0;");
	free(text);
	free(seeds);
}

/* Any order of the parameters, blanks and comments read; written in the templates' order. */
static void test_round_trip(void **state)
{
	struct fixture *f = *state;
	struct scenario s, again;
	char path[512], why[256], *text;

	write_in(f, path, sizeof(path), "rt.scn",
		 "# a scenario\n"
		 "\n"
		 "  mmap   touch=0 size=1048576 count=3 shared=1   # kept\n"
		 "fork depth=2 count=7 hold=0\n"
		 "msg count=1024 size=8192\n");
	assert_int_equal(scn_read(f->t, path, &s, why, sizeof(why)), 0);
	assert_int_equal(s.n, 3);
	text = written(f->t, &s);
	assert_string_equal(text, "mmap count=3 size=1048576 shared=1 touch=0\n"
				  "fork count=7 depth=2 hold=0\n"
				  "msg count=1024 size=8192\n");
	write_in(f, path, sizeof(path), "rt2.scn", text);
	memset(&again, 0x55, sizeof(again));
	assert_int_equal(scn_read(f->t, path, &again, why, sizeof(why)), 0);
	assert_int_equal(again.n, s.n);
	assert_memory_equal(again.step, s.step, s.n * sizeof(s.step[0]));
	free(text);
}

static void expect_bad_scn(const struct fixture *f, const struct scn_templates *t, const char *text,
			   const char *want)
{
	char path[512], why[512], full[1024];
	struct scenario s;

	write_in(f, path, sizeof(path), "bad.scn", text);
	assert_int_equal(scn_read(t, path, &s, why, sizeof(why)), -EINVAL);
	snprintf(full, sizeof(full), "%s%s", path, want);
	assert_string_equal(why, full);
}

static void test_bad_scenarios(void **state)
{
	struct fixture *f = *state;
	struct scn_templates *own;
	char path[512], why[256], many[1024] = "";
	struct scenario s;
	int i;

	expect_bad_scn(f, f->t, "# c\nfrok count=1\n", ":2: unknown action 'frok'");
	expect_bad_scn(f, f->t, "fork count=1 depth=1\n", ":1: fork: no value for hold");
	expect_bad_scn(f, f->t, "fork count=1 dpth=1\n",
		       ":1: fork: unknown parameter 'dpth' (it takes count, depth, hold)");
	expect_bad_scn(f, f->t, "fork count=1 count=2\n", ":1: fork: count is given twice");
	expect_bad_scn(f, f->t, "fork count=65 depth=1 hold=0\n",
		       ":1: fork: count=65 is not within 1..64");
	expect_bad_scn(f, f->t, "fork count=0x4 depth=1 hold=0\n",
		       ":1: fork: count='0x4' is not a whole number");
	expect_bad_scn(f, f->t, "fork count=-1 depth=1 hold=0\n",
		       ":1: fork: count='-1' is not a whole number");
	expect_bad_scn(f, f->t, "fork count=\n", ":1: fork: count='' is not a whole number");
	expect_bad_scn(f, f->t, "fork count 4\n", ":1: fork: 'count' is not NAME=VALUE");
	expect_bad_scn(f, f->t, "# only\n\n", ": no steps");
	for (i = 0; i < 17; i++)
		strcat(many, "eventfd count=1\n");
	expect_bad_scn(f, f->t, many, ":17: more than 16 steps");
	write_in(f, path, sizeof(path), "fork-only.conf", FORK_OK);
	assert_int_equal(scn_templates_load(&own, path, why, sizeof(why)), 0);
	expect_bad_scn(f, own, "brk count=1 size=4096 touch=0\n",
		       ":1: action 'brk' has no template here");
	scn_templates_free(own);
	snprintf(path, sizeof(path), "%s/none.scn", f->dir);
	assert_int_equal(scn_read(f->t, path, &s, why, sizeof(why)), -ENOENT);
	assert_true(tu_ends_with(why, "/none.scn: No such file or directory"));
}

/* 1000 mutants of a corpus that grows with them, each of a random member and another. */
static char *mutants(const struct scn_templates *t, __u64 seed, size_t n)
{
	struct scenario *corpus, *seeds;
	size_t ns, nc, i, parent, other, len = 0;
	char *out = NULL, sum[1024];
	struct scn_rng r;
	FILE *f = open_memstream(&out, &len);

	assert_int_equal(scn_seeds(t, &seeds, &ns), 0);
	corpus = calloc(ns + n, sizeof(*corpus));
	memcpy(corpus, seeds, ns * sizeof(*seeds));
	nc = ns;
	scn_rng_seed(&r, seed);
	for (i = 0; i < n; i++, nc++) {
		/* one after the other: the order of a call's arguments is the compiler's */
		parent = scn_rng_next(&r) % nc;
		other = scn_rng_next(&r) % nc;
		scn_mutate(t, &corpus[parent], &corpus[other], &r, &corpus[nc]);
		scn_summary(t, &corpus[nc], sum, sizeof(sum));
		fprintf(f, "%s\n", sum);
	}
	fclose(f);
	free(corpus);
	free(seeds);
	return out;
}

static void test_mutants_golden(void **state)
{
	struct fixture *f = *state;
	char *a = mutants(f->t, 42, 1000), *b = mutants(f->t, 42, 1000);
	char *c = mutants(f->t, 43, 1000);

	assert_string_equal(a, b);
	assert_string_not_equal(a, c);
	tu_golden("scenario-mutants", a);
	free(a);
	free(b);
	free(c);
}

/* Every value within its template's range, every scenario within 1..SCN_STEPS steps. */
static void check_mutants(const struct scn_templates *t, __u64 seed, size_t n)
{
	struct scenario *seeds, cur, next, other;
	char path[32], why[512];
	struct scn_rng r;
	size_t ns, i, changed = 0;
	FILE *f;

	assert_int_equal(scn_seeds(t, &seeds, &ns), 0);
	scn_rng_seed(&r, seed);
	cur = seeds[0];
	other = seeds[ns - 1];
	for (i = 0; i < n; i++) {
		scn_mutate(t, &cur, &other, &r, &next);
		assert_in_range(next.n, 1, SCN_STEPS);
		changed += memcmp(&cur, &next, sizeof(cur)) != 0;
		/* the ranges are checked by reading the mutant back */
		f = tmpfile();
		assert_non_null(f);
		assert_int_equal(scn_write(t, &next, f), 0);
		fflush(f);
		snprintf(path, sizeof(path), "/proc/self/fd/%d", fileno(f));
		memset(&cur, 0x55, sizeof(cur));
		if (scn_read(t, path, &cur, why, sizeof(why)))
			fail_msg("mutant %zu: %s", i, why);
		fclose(f);
		/* unused steps are zero in both */
		assert_memory_equal(&cur, &next, sizeof(cur));
		if (i % 7 == 0)
			other = next;
	}
	/* a mutant is another scenario unless nothing can change (all pinned, one step) */
	assert_true(changed > n * 9 / 10);
	free(seeds);
}

static void test_mutants_in_range(void **state)
{
	struct fixture *f = *state;
	struct scn_templates *own;
	char path[512], why[256];

	check_mutants(f->t, 1, 3000);
	check_mutants(f->t, 7, 3000);
	/* pinned values never move; a full scenario of them still mutates */
	write_in(f, path, sizeof(path), "pinned.conf",
		 "[eventfd]\ncount = 5..5 default 5\n[epoll]\ncount = 2..2 default 2\n"
		 "fds = 0..3 default 1\n");
	assert_int_equal(scn_templates_load(&own, path, why, sizeof(why)), 0);
	check_mutants(own, 3, 2000);
	scn_templates_free(own);
}

/* What a run in a child did: its status, its stderr, and whether anything is left. */
struct outcome {
	int status;
	char *err;
};

/* In the child: stdin and stdout on /dev/null, stderr to path; uid: run as it (0: as is). */
static void child_io(const char *path, uid_t uid, const char *dir)
{
	if (!freopen("/dev/null", "r", stdin) || !freopen("/dev/null", "w", stdout) ||
	    !freopen(path, "w", stderr))
		_exit(99);
	/* unbuffered, as stderr was before */
	setvbuf(stderr, NULL, _IONBF, 0);
	if (uid && (chmod(dir, 0777) || setgid(uid) || setuid(uid)))
		_exit(98);
}

static bool dir_empty(const char *dir)
{
	DIR *d = opendir(dir);
	struct dirent *e;
	int n = 0;

	assert_non_null(d);
	while ((e = readdir(d)))
		n += strcmp(e->d_name, ".") && strcmp(e->d_name, "..");
	closedir(d);
	return !n;
}

/*
 * text run by scenario_run() in a child, its scratch folder in a folder of
 * its own; afterwards no process it started is left (this process, their
 * subreaper, has no child) and no scratch folder.  term_after: SIGTERM
 * after so many ms.
 */
static struct outcome run_text(const struct fixture *f, const struct scn_templates *t,
			       const char *text, struct scn_limits lim, uid_t uid, int term_after)
{
	char path[512], errpath[512], why[256], dir[512];
	struct outcome o;
	struct scenario s;
	pid_t pid;
	int st;

	write_in(f, path, sizeof(path), "run.scn", text);
	assert_int_equal(scn_read(t, path, &s, why, sizeof(why)), 0);
	snprintf(dir, sizeof(dir), "%s/scratch", f->dir);
	assert_int_equal(mkdir(dir, 0700), 0);
	snprintf(errpath, sizeof(errpath), "%s/stderr", f->dir);
	lim.dir = dir;
	fflush(NULL);
	pid = fork();
	assert_true(pid >= 0);
	if (!pid) {
		child_io(errpath, uid, dir);
		_exit(scenario_run(t, &s, &lim));
	}
	if (term_after) {
		usleep(term_after * 1000);
		kill(pid, SIGTERM);
	}
	assert_int_equal(waitpid(pid, &st, 0), pid);
	assert_true(WIFEXITED(st));
	o.status = WEXITSTATUS(st);
	o.err = read_text(errpath);
	assert_int_equal(waitpid(-1, NULL, WNOHANG), -1);
	assert_int_equal(errno, ECHILD);
	assert_true(dir_empty(dir));
	assert_int_equal(rmdir(dir), 0);
	return o;
}

static const struct scn_limits small = {
	.seconds = 20, .mem = 1ULL << 30, .procs = 256, .files = 1024};

static void expect_run(const struct fixture *f, const struct scn_templates *t, const char *text,
		       struct scn_limits lim, int status, const char *err)
{
	struct outcome o = run_text(f, t, text, lim, 0, 0);

	assert_string_equal(o.err, err);
	assert_int_equal(o.status, status);
	free(o.err);
}

/* Each action alone, with small values: status 0 and nothing said. */
static void test_run_each_action(void **state)
{
	static const char *const steps[N_ACTIONS] = {
		"fork count=4 depth=3 hold=1\n",
		"clone_threads count=4 hold=1\n",
		"mmap count=4 size=65536 shared=1 touch=1\n",
		"munmap count=4 size=65536 touch=1\n",
		"brk count=4 size=65536 touch=1\n",
		"pipe count=4 size=100000\n",
		"socketpair count=4 size=100000 type=2 family=1\n",
		"open count=4 size=4096\n",
		"mkdir count=4 depth=3\n",
		"setxattr count=4 size=256\n",
		"read_write count=4 size=4096\n",
		"eventfd count=4\n",
		"epoll count=4 fds=2\n",
		"msg count=40 size=1024\n",
	};
	struct fixture *f = *state;
	size_t i;

	for (i = 0; i < N_ACTIONS; i++)
		expect_run(f, f->t, steps[i], small, 0, "");
}

/* 256 processes blocked on a pipe: all killed when the time is up. */
static void test_run_hang(void **state)
{
	struct fixture *f = *state;
	struct scn_limits lim = small;
	struct scn_templates *t;
	char path[512], why[256];

	write_in(f, path, sizeof(path), "hold.conf",
		 "[fork]\ncount = 1..64 default 1\ndepth = 1..4 default 1\n"
		 "hold = 0..60000 default 0\n");
	assert_int_equal(scn_templates_load(&t, path, why, sizeof(why)), 0);
	lim.seconds = 1;
	expect_run(f, t, "fork count=64 depth=4 hold=60000\n", lim, 124,
		   "kprotperf scenario: time is up after 1 s, in step 1 (fork): its processes are "
		   "killed\n");
	scn_templates_free(t);
}

static void test_run_sigterm(void **state)
{
	struct fixture *f = *state;
	struct scn_templates *t;
	char path[512], why[256];
	struct outcome o;

	write_in(f, path, sizeof(path), "hold.conf",
		 "[fork]\ncount = 1..64 default 1\ndepth = 1..4 default 1\n"
		 "hold = 0..60000 default 0\n");
	assert_int_equal(scn_templates_load(&t, path, why, sizeof(why)), 0);
	o = run_text(f, t, "fork count=16 depth=2 hold=60000\n", small, 0, 500);
	assert_string_equal(o.err, "kprotperf scenario: stopped by SIGTERM in step 1 (fork): its "
				   "processes are killed\n");
	assert_int_equal(o.status, 128 + SIGTERM);
	free(o.err);
	scn_templates_free(t);
}

/* Syscall errors at the limits are counted, one line, not failures. */
static void test_run_limits(void **state)
{
	struct fixture *f = *state;
	struct scn_limits lim = small;

	/* 0, 1 and 2 are open: 5 files of 64 */
	lim.files = 8;
	expect_run(f, f->t, "open count=64 size=16\n", lim, 0,
		   "kprotperf scenario: 59 syscall errors, counted, not failures: 59 open EMFILE "
		   "in step 1 (open)\n");
	/* room for two regions of 16 MiB beyond what the process has */
	lim = small;
	lim.mem = 40 << 20;
	expect_run(f, f->t,
		   "mmap count=8 size=16777216 shared=0 touch=0\nread_write count=2 size=65536\n",
		   lim, 0,
		   "kprotperf scenario: 6 syscall errors, counted, not failures: 6 mmap ENOMEM in "
		   "step 1 (mmap)\n");
	/* the files hold 16 MiB at most all together: 16 of 1 MiB, then nothing */
	lim = small;
	lim.mem = 16 << 20;
	expect_run(f, f->t,
		   "open count=20 size=1048576\nread_write count=4 size=4096\n"
		   "setxattr count=2 size=256\n",
		   lim, 0,
		   "kprotperf scenario: 7 syscall errors, counted, not failures: 4 write ENOSPC in "
		   "step 1 (open), 1 pwrite ENOSPC in step 2 (read_write), 2 setxattr ENOSPC in "
		   "step 3 (setxattr)\n");
}

/* No scratch folder where its parent is missing: status 1, said why. */
static void test_run_no_dir(void **state)
{
	struct fixture *f = *state;
	char path[512], errpath[512], why[256];
	struct scn_limits lim = small;
	struct scenario s;
	char *err;
	pid_t pid;
	int st;

	write_in(f, path, sizeof(path), "run.scn", "eventfd count=1\n");
	assert_int_equal(scn_read(f->t, path, &s, why, sizeof(why)), 0);
	snprintf(errpath, sizeof(errpath), "%s/stderr", f->dir);
	lim.dir = "/nonexistent/kp";
	fflush(NULL);
	pid = fork();
	if (!pid) {
		child_io(errpath, 0, NULL);
		_exit(scenario_run(f->t, &s, &lim));
	}
	assert_int_equal(waitpid(pid, &st, 0), pid);
	assert_int_equal(WEXITSTATUS(st), 1);
	err = read_text(errpath);
	assert_string_equal(err, "kprotperf scenario: cannot make a scratch folder in "
				 "/nonexistent/kp: No such file or directory\n");
	free(err);
}

/*
 * As a user of its own (root makes one up), whose processes the limit
 * counts: the runner and its worker, then two more; every other action
 * works without privileges.
 */
static void test_run_unprivileged(void **state)
{
	struct fixture *f = *state;
	struct scn_limits lim = small;
	struct outcome o;

	if (geteuid()) {
		print_message("skipped: needs root to become a user with no other processes\n");
		skip();
	}
	lim.procs = 4;
	/* the user's new processes reach its scratch folder */
	assert_int_equal(chmod(f->dir, 0711), 0);
	o = run_text(f, f->t,
		     "fork count=16 depth=1 hold=1\nclone_threads count=4 hold=1\n"
		     "setxattr count=2 size=64\nmsg count=40 size=1024\nmkdir count=2 depth=8\n",
		     lim, 60000 + getpid() % 5000, 0);
	assert_string_equal(o.err, "kprotperf scenario: 16 syscall errors, counted, not failures: "
				   "14 fork EAGAIN in step 1 (fork), 2 clone EAGAIN in step 2 "
				   "(clone_threads)\n");
	assert_int_equal(o.status, 0);
	free(o.err);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_builtin),
		cmocka_unit_test(test_bad_templates),
		cmocka_unit_test(test_own_templates),
		cmocka_unit_test(test_rng),
		cmocka_unit_test(test_seeds),
		cmocka_unit_test(test_round_trip),
		cmocka_unit_test(test_bad_scenarios),
		cmocka_unit_test(test_mutants_golden),
		cmocka_unit_test(test_mutants_in_range),
		cmocka_unit_test(test_run_each_action),
		cmocka_unit_test(test_run_hang),
		cmocka_unit_test(test_run_sigterm),
		cmocka_unit_test(test_run_limits),
		cmocka_unit_test(test_run_no_dir),
		cmocka_unit_test(test_run_unprivileged),
	};

	return cmocka_run_group_tests(tests, setup, teardown);
}
