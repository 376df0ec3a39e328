/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * Helpers the cmocka unit tests share: shell commands, fixture files and
 * programs compiled at test time, and a subcommand's output captured.  The
 * ones that check with cmocka's asserts must run inside a test.
 */
#ifndef KP_TESTUTIL_H
#define KP_TESTUTIL_H

#include <limits.h>
#include <stdbool.h>
#include <stddef.h>

struct ksyms;

/* system() on the formatted command; -1 when it does not fit. */
int tu_run(const char *fmt, ...) __attribute__((format(printf, 1, 2)));

/*
 * Feeds each line the formatted command prints to fn, with arg; the command's
 * status from pclose(), or -1 when it could not be started.
 */
int tu_each_line(void (*fn)(const char *line, void *arg), void *arg, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));

/* A sorted kernel symbol table of names, 0x100 apart from 0xffffffff81000000. */
struct ksyms *tu_ksyms(const char *const *names, size_t n);
int tu_write_file(const char *path, const char *text);
/* The whole text file at path (caller frees); NULL when it cannot be opened. */
char *tu_read_file(const char *path);

/* Makes $TMPDIR/name-XXXXXX (/tmp without TMPDIR) into dir; 0 or -1. */
int tu_mkdtemp(char *dir, size_t len, const char *name);

/* Compiles src into out with cc and flags, quietly: a missing compiler makes tests skip. */
int tu_cc(const char *flags, const char *src, const char *out);

/* The 1-based line of src holding marker; -1 when it is not there. */
int tu_marker_line(const char *src, const char *marker);

bool tu_ends_with(const char *s, const char *suffix);

/* qsort() order of struct inline_range: by lo. */
int tu_cmp_range(const void *a, const void *b);
struct datafile;
/* A synthetic recording at the mkstemp() template tmpl, its rows written by fill. */
void tu_recording(char *tmpl, void (*fill)(struct datafile *df));
/* The meta and _stext of a recording record --model left awaiting the counts (build-id abcd). */
void tu_model_awaiting(struct datafile *df);
/*
 * Kernel stack kstack sampled per_run[r] times in run r + 1 of runs (pid and
 * tid 10, comm), and their sum in the samples table.
 */
void tu_run_samples(struct datafile *df, long long kstack, const long long *per_run, size_t runs,
		    const char *comm);

/*
 * Runs a subcommand on the NULL-terminated argv with fd 1 (stdout) or 2
 * (stderr) captured and the other one silenced; returns what it wrote to
 * out_fd (caller frees).
 */
char *tu_run_fd(int (*cmd)(int, char **), char **argv, int out_fd, int *ret);

/* The stdout of cmd on argv, which must succeed (caller frees). */
char *tu_output(int (*cmd)(int, char **), char **argv);

/*
 * out must equal tests/unit/golden/name (paths are relative to the checkout,
 * where tests/run.sh runs the suites); KP_UPDATE_GOLDEN=1 writes it instead.
 */
void tu_golden(const char *name, const char *out);

/*
 * tu_golden on out with what varies between runs or toolchains masked: each
 * text of pairs ({text, placeholder}, ..., NULL-ended), in order, replaced
 * by its placeholder everywhere; an empty text masks nothing.
 */
void tu_golden_mask(const char *name, const char *out, const char *const *pairs);

/* tu_golden on the stdout of cmd on argv, which must succeed. */
void tu_golden_output(const char *name, int (*cmd)(int, char **), char **argv);

/*
 * The stdout of cmd on argv (which must succeed), JSON, parsed and
 * pretty-printed by python3 into dir/out.json.pretty (the output itself
 * left in dir/out.json for more checks), golden as NAME-json with dir
 * masked as DIR.
 */
void tu_golden_json(const char *name, const char *dir, int (*cmd)(int, char **), char **argv);

/* Runs cmd on argv: it exits with status and writes exactly want to fd. */
void tu_expect(int (*cmd)(int, char **), char **argv, int fd, int status, const char *want);

/*
 * A cmocka group state for tests over files built at setup in a temporary
 * directory: a test's own fixture struct embeds it as its first member.
 */
struct tu_fixture {
	char dir[PATH_MAX / 2];
	bool built;	   /* build succeeded: without it the tests skip */
	const char *needs; /* what the build needs, for the skip message */
};

/*
 * A group setup: callocs size bytes (a struct beginning with a struct
 * tu_fixture), makes its dir with tu_mkdtemp(prefix) and runs build on it,
 * whose failure makes the tests skip rather than fail.  0, or -1 when there
 * is no memory or directory.
 */
int tu_fixture_setup(void **state, size_t size, const char *prefix, const char *needs,
		     int (*build)(void *f));

/* The group teardown that goes with it: removes the dir and frees. */
int tu_fixture_teardown(void **state);

/* Skips the test, saying what the build needs, unless built. */
void tu_need_built(bool built, const char *needs);

/* The fixture in state, once built; skips the test otherwise. */
void *tu_fixture(void **state);

struct cfg_env;
struct cfg_text;
struct debuginfo;
struct file_cfg;
/*
 * An ELF file with DWARF (a vmlinux, or a fixture) for control-flow graph
 * tests: its DWARF, and its functions' text and what cfg_build() asks of
 * its symbol table (analysis/file_cfg.h: thunks, noreturn callees,
 * jump-label sites, the WARNs of its __bug_table).
 */
struct tu_kernel {
	struct debuginfo *di;
	struct file_cfg *fc;
};
void tu_kernel_open(struct tu_kernel *k, const char *path);
void tu_kernel_close(struct tu_kernel *k);
/* The text of the function called name, at its DWARF addresses, from the symbol table. */
void tu_kernel_text(const struct tu_kernel *k, const char *name, struct cfg_text *t);
/* What the symbol table says of its callees, jump-label sites and WARNs, as record --blocks. */
struct cfg_env tu_kernel_env(struct tu_kernel *k);

#endif
