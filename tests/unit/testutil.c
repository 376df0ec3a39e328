// SPDX-License-Identifier: GPL-2.0-only
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>

#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "data/datafile.h"
#include "analysis/cfg.h"
#include "data/query.h"
#include "data/recording.h"
#include "symbols/debuginfo.h"
#include "analysis/file_cfg.h"
#include "symbols/inlines.h"
#include "symbols/ksyms.h"
#include "util/kv.h"
#include "testutil.h"

/* Room for a few quoted paths and the flags around them. */
#define CMD_LEN (4 * PATH_MAX)

static int format_cmd(char *cmd, const char *fmt, va_list ap)
{
	int n = vsnprintf(cmd, CMD_LEN, fmt, ap);

	return n < 0 || n >= CMD_LEN ? -1 : 0;
}

int tu_run(const char *fmt, ...)
{
	char cmd[CMD_LEN];
	va_list ap;
	int err;

	va_start(ap, fmt);
	err = format_cmd(cmd, fmt, ap);
	va_end(ap);
	return err ? -1 : system(cmd);
}

int tu_each_line(void (*fn)(const char *line, void *arg), void *arg, const char *fmt, ...)
{
	char cmd[CMD_LEN], line[512];
	va_list ap;
	FILE *p;
	int err;

	va_start(ap, fmt);
	err = format_cmd(cmd, fmt, ap);
	va_end(ap);
	if (err)
		return -1;
	p = popen(cmd, "r");
	if (!p)
		return -1;
	while (fgets(line, sizeof(line), p))
		fn(line, arg);
	return pclose(p);
}

int tu_write_file(const char *path, const char *text)
{
	FILE *f = fopen(path, "w");
	int err;

	if (!f)
		return -1;
	err = fputs(text, f) < 0;
	return fclose(f) || err ? -1 : 0;
}

int tu_mkdtemp(char *dir, size_t len, const char *name)
{
	const char *tmp = getenv("TMPDIR");

	snprintf(dir, len, "%s/%s-XXXXXX", tmp ? tmp : "/tmp", name);
	return mkdtemp(dir) ? 0 : -1;
}

int tu_fixture_setup(void **state, size_t size, const char *prefix, const char *needs,
		     int (*build)(void *f))
{
	struct tu_fixture *f = calloc(1, size);

	if (!f)
		return -1;
	if (tu_mkdtemp(f->dir, sizeof(f->dir), prefix)) {
		free(f);
		return -1;
	}
	f->needs = needs;
	f->built = !build(f);
	*state = f;
	return 0;
}

int tu_fixture_teardown(void **state)
{
	struct tu_fixture *f = *state;

	tu_run("rm -rf '%s'", f->dir);
	free(f);
	return 0;
}

void tu_need_built(bool built, const char *needs)
{
	if (!built) {
		print_message("skipped: cannot build the fixture (%s)\n", needs);
		skip();
	}
}

void *tu_fixture(void **state)
{
	struct tu_fixture *f = *state;

	tu_need_built(f->built, f->needs);
	return f;
}

int tu_cc(const char *flags, const char *src, const char *out)
{
	return tu_run("cc %s '%s' -o '%s' 2>/dev/null", flags, src, out);
}

int tu_marker_line(const char *src, const char *marker)
{
	const char *at = strstr(src, marker), *p;
	int line = 1;

	if (!at)
		return -1;
	for (p = src; p < at; p++)
		line += *p == '\n';
	return line;
}

bool tu_ends_with(const char *s, const char *suffix)
{
	size_t n = s ? strlen(s) : 0, m = strlen(suffix);

	return n >= m && !strcmp(s + n - m, suffix);
}

int tu_cmp_range(const void *a, const void *b)
{
	const struct inline_range *x = a, *y = b;

	return x->lo < y->lo ? -1 : x->lo > y->lo;
}

char *tu_run_fd(int (*cmd)(int, char **), char **argv, int out_fd, int *ret)
{
	char out[] = "/tmp/kp-stdout-XXXXXX", *buf = calloc(1, 65536);
	int fd = mkstemp(out), null = open("/dev/null", O_WRONLY), saved[3] = {-1, dup(1), dup(2)};
	int argc = 0;

	while (argv[argc])
		argc++;
	/* what stdio buffered before must not land in the capture, nor the capture after it */
	fflush(NULL);
	dup2(null, 3 - out_fd);
	dup2(fd, out_fd);
	*ret = cmd(argc, argv);
	fflush(NULL);
	dup2(saved[1], 1);
	dup2(saved[2], 2);
	close(saved[1]);
	close(saved[2]);
	close(null);
	assert_true(pread(fd, buf, 65535, 0) >= 0);
	close(fd);
	unlink(out);
	return buf;
}

char *tu_output(int (*cmd)(int, char **), char **argv)
{
	int ret;
	char *out = tu_run_fd(cmd, argv, 1, &ret);

	assert_int_equal(ret, 0);
	return out;
}

void tu_golden_json(const char *name, const char *dir, int (*cmd)(int, char **), char **argv)
{
	char path[PATH_MAX], gname[128], *out = tu_output(cmd, argv), *pretty;
	const char *const mask[] = {dir, "DIR", NULL};

	snprintf(path, sizeof(path), "%s/out.json", dir);
	assert_int_equal(tu_write_file(path, out), 0);
	assert_int_equal(tu_run("python3 -c 'import json, sys; d = json.load(open(sys.argv[1]));"
				" open(sys.argv[1] + \".pretty\", \"w\").write("
				"json.dumps(d, indent=1) + \"\\n\")' %s",
				path),
			 0);
	snprintf(path + strlen(path), sizeof(path) - strlen(path), ".pretty");
	pretty = tu_read_file(path);
	assert_non_null(pretty);
	snprintf(gname, sizeof(gname), "%s-json", name);
	tu_golden_mask(gname, pretty, mask);
	free(pretty);
	free(out);
}

void tu_expect(int (*cmd)(int, char **), char **argv, int fd, int status, const char *want)
{
	int ret;
	char *out = tu_run_fd(cmd, argv, fd, &ret);

	assert_string_equal(out, want);
	assert_int_equal(ret, status);
	free(out);
}

char *tu_read_file(const char *path)
{
	FILE *f = fopen(path, "re");
	char *buf = NULL;
	size_t cap = 0;

	if (!f)
		return NULL;
	/* a text file has no NUL: one getdelim reads all of it */
	if (getdelim(&buf, &cap, '\0', f) < 0) {
		free(buf);
		buf = strdup("");
	}
	fclose(f);
	return buf;
}

void tu_golden(const char *name, const char *out)
{
	char path[PATH_MAX];
	char *want;

	snprintf(path, sizeof(path), "tests/unit/golden/%s", name);
	if (getenv("KP_UPDATE_GOLDEN")) {
		assert_int_equal(tu_write_file(path, out), 0);
		return;
	}
	want = tu_read_file(path);
	if (!want)
		fail_msg("%s is missing: make it with KP_UPDATE_GOLDEN=1 and review it", path);
	assert_string_equal(out, want);
	free(want);
}

void tu_golden_output(const char *name, int (*cmd)(int, char **), char **argv)
{
	char *out = tu_output(cmd, argv);

	tu_golden(name, out);
	free(out);
}

/* s with every from (not empty) replaced by to (caller frees). */
static char *replace_all(const char *s, const char *from, const char *to)
{
	size_t nf = strlen(from), nt = strlen(to), n = 0;
	const char *p, *at;
	char *buf, *q;

	for (p = s; (at = strstr(p, from)); p = at + nf)
		n++;
	buf = malloc(strlen(s) + n * nt + 1);
	assert_non_null(buf);
	for (q = buf, p = s; (at = strstr(p, from)); p = at + nf) {
		q = mempcpy(q, p, at - p);
		q = mempcpy(q, to, nt);
	}
	strcpy(q, p);
	return buf;
}

void tu_golden_mask(const char *name, const char *out, const char *const *pairs)
{
	char *s = strdup(out), *t;

	assert_non_null(s);
	for (; *pairs; pairs += 2) {
		if (!*pairs[0])
			continue;
		t = replace_all(s, pairs[0], pairs[1]);
		free(s);
		s = t;
	}
	tu_golden(name, s);
	free(s);
}

void tu_recording(char *tmpl, void (*fill)(struct datafile *df))
{
	struct datafile *df;

	close(mkstemp(tmpl));
	assert_int_equal(datafile_create(&df, tmpl, (uid_t)-1, NULL, 0), 0);
	fill(df);
	assert_int_equal(datafile_commit(df, (uid_t)-1, (gid_t)-1, NULL, 0), 0);
}

void tu_model_awaiting(struct datafile *df)
{
	struct kv_list meta = {};

	assert_int_equal(kv_add(&meta, "kernel.build_id", "abcd"), 0);
	assert_int_equal(kv_add(&meta, "model.windows", "1"), 0);
	assert_int_equal(kv_add(&meta, "model.state", "awaiting"), 0);
	assert_int_equal(recording_put_meta(df, &meta), 0);
	assert_int_equal(recording_put_ksym(df, 0xffffffff81000000ULL, "_stext", ""), 0);
	kv_list_free(&meta);
}

void tu_run_samples(struct datafile *df, long long kstack, const long long *per_run, size_t runs,
		    const char *comm)
{
	long long sum = 0;
	size_t r;

	for (r = 0; r < runs; r++) {
		assert_int_equal(query_insert(df, "INSERT INTO run_samples VALUES(?,?,0,?)", "iii",
					      (long long)r + 1, kstack, per_run[r]),
				 0);
		sum += per_run[r];
	}
	assert_int_equal(query_insert(df, "INSERT INTO samples VALUES(10,10,?,?,0,?)", "tii", comm,
				      kstack, sum),
			 0);
}

struct ksyms *tu_ksyms(const char *const *names, size_t n)
{
	struct ksyms *ks;
	size_t i;

	assert_int_equal(ksyms_new(&ks), 0);
	for (i = 0; i < n; i++)
		assert_int_equal(ksyms_add(ks, 0xffffffff81000000ULL + i * 0x100, names[i], ""), 0);
	ksyms_sort(ks);
	return ks;
}

void tu_kernel_open(struct tu_kernel *k, const char *path)
{
	*k = (struct tu_kernel){0};
	assert_int_equal(debuginfo_open(&k->di, path), 0);
	assert_int_equal(file_cfg_open(&k->fc, k->di, NULL), 0);
}

void tu_kernel_close(struct tu_kernel *k)
{
	file_cfg_close(k->fc);
	debuginfo_close(k->di);
}

void tu_kernel_text(const struct tu_kernel *k, const char *name, struct cfg_text *t)
{
	assert_int_equal(file_cfg_text(k->fc, name, t), 0);
}

struct cfg_env tu_kernel_env(struct tu_kernel *k)
{
	return file_cfg_env(k->fc);
}
