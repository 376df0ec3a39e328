// SPDX-License-Identifier: GPL-2.0-only
/*
 * kprotperf explore (explore.h): the search as one recording whose runs
 * are scenarios, each run by `kprotperf scenario FILE` (this very binary)
 * in a sandbox of its own; and --replay, one scenario recorded as record
 * would.  What is kept is written at once, so that an interrupted search
 * leaves its corpus whole.
 */
#include "explore/explore.h"

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include <sys/stat.h>
#include <sys/wait.h>

#include "explore/explore_out.h"
#include "explore/scenario.h"
#include "explore/search.h"
#include "record/links.h"
#include "record/measures.h"
#include "record/record.h"
#include "record/workload.h"
#include "util/esc.h"
#include "util/safeio.h"

/* exit status of kprotperf scenario whose time was up */
#define SCENARIO_TIMEOUT 124
/* the scenario of the run under way, in -o DIR */
#define NEXT_NAME "next.scn"

/* the folders of a search's -o DIR: the corpus, the findings (hung or crashed) */
static const char *const subdirs[] = {"corpus", "findings"};
#define N_SUBDIRS (sizeof(subdirs) / sizeof(subdirs[0]))

struct explore {
	const struct explore_opts *o;
	struct scn_templates *t;
	struct search *s;
	struct record_runs runs;
	char next[PATH_MAX]; /* the scenario of the run under way */
	/* -o DIR and its folders, written through these only: DIR was checked once */
	int dir, sub[N_SUBDIRS];
	bool made;	     /* DIR was made by the search */
	char self[PATH_MAX]; /* this binary: the scenarios' runner */
	char secs[16];
	char *argv[10];
	/* each run's scenario, by the run's parity: the next is chosen before the last is weighed
	 */
	struct scenario ran[2];
	struct timespec t0;
	struct explore_progress progress;
};

static double elapsed(const struct explore *e)
{
	struct timespec now;

	clock_gettime(CLOCK_MONOTONIC, &now);
	return (now.tv_sec - e->t0.tv_sec) + (now.tv_nsec - e->t0.tv_nsec) / 1e9;
}

/* What write_scenario writes. */
struct scn_file {
	const struct scn_templates *t;
	const struct scenario *s;
	const char *header;
};

static int fill_scenario(FILE *f, void *ctx)
{
	const struct scn_file *sf = ctx;

	if (sf->header)
		fprintf(f, "# %s\n", sf->header);
	return scn_write(sf->t, sf->s, f);
}

/* name in dirfd written whole or not at all: a reader never sees half a scenario. */
static int write_scenario(const struct explore *e, int dirfd, const char *name,
			  const struct scenario *s, const char *header)
{
	struct scn_file sf = {e->t, s, header};

	return safeio_write(dirfd, name, 0644, fill_scenario, &sf);
}

/* The runner's command for the scenario in e->next. */
static void runner_argv(struct explore *e)
{
	int i = 0;

	snprintf(e->secs, sizeof(e->secs), "%u", e->o->limit_s);
	e->argv[i++] = e->self;
	e->argv[i++] = "scenario";
	/* the errors a scenario meets are counted and said by none of its runs */
	e->argv[i++] = "--quiet";
	e->argv[i++] = "--seconds";
	e->argv[i++] = e->secs;
	if (e->o->templates) {
		e->argv[i++] = "--templates";
		e->argv[i++] = (char *)e->o->templates;
	}
	e->argv[i++] = e->next;
	e->argv[i] = NULL;
}

static bool budget_left(const struct explore *e, unsigned int run)
{
	if (e->o->seconds > 0)
		return elapsed(e) < e->o->seconds;
	return run < e->o->runs;
}

static int next_run(void *ctx, unsigned int run, char *const **argv)
{
	struct explore *e = ctx;
	int err;

	if (!budget_left(e, run))
		return 1;
	e->ran[run & 1] = *search_next(e->s);
	err = write_scenario(e, e->dir, NEXT_NAME, &e->ran[run & 1], NULL);
	if (err) {
		fprintf(stderr, "\nkprotperf explore: cannot write %s: %s\n", e->next,
			strerror(-err));
		return err;
	}
	*argv = e->argv;
	return 0;
}

static enum search_end end_of(int status)
{
	if (WIFSIGNALED(status))
		return SEARCH_CRASHED;
	return WIFEXITED(status) && WEXITSTATUS(status) == SCENARIO_TIMEOUT ? SEARCH_HUNG
									    : SEARCH_EXITED;
}

/* A kept scenario into the corpus (or, hung or crashed, the findings), named by its id. */
static int keep(struct explore *e, const struct search_entry *k)
{
	char name[16], header[256];

	snprintf(name, sizeof(name), "%04u.scn", k->id);
	snprintf(header, sizeof(header), "kept at run %u: %s", k->run, k->why);
	return write_scenario(e, e->sub[k->finding ? 1 : 0], name, &k->s, header);
}

static int run_ended(void *ctx, unsigned int run, int status, const struct run_measures *m)
{
	struct explore *e = ctx;
	const struct search_entry *kept;
	struct search_feedback fb = {
		.end = end_of(status),
		.calls = m->nblocks ? m->calls : m->func_calls,
		.ns_per_call = m->func_calls ? (double)m->func_ns / m->func_calls : -1,
		.ctx = m->ctx,
		.nctx = m->nctx,
		.blocks = m->blocks,
		.nblocks = m->nblocks,
		.trips = m->trips,
		.nloops = m->nloops};
	int err = search_feedback(e->s, &e->ran[run & 1], &fb, &kept);

	err = err ?: (kept ? keep(e, kept) : 0);
	if (err) {
		fprintf(stderr, "\nkprotperf explore: keeping run %u's scenario: %s\n", run,
			strerror(-err));
		return err;
	}
	explore_out_progress(&e->progress, e->s, kept, elapsed(e));
	return 0;
}

static void close_dir(struct explore *e)
{
	size_t i;

	for (i = 0; i < N_SUBDIRS; i++) {
		if (e->sub[i] >= 0)
			close(e->sub[i]);
		e->sub[i] = -1;
	}
	if (e->dir >= 0)
		close(e->dir);
	e->dir = -1;
}

/* The first n of DIR's folders removed, and DIR if the search made it. */
static void unmake_dir(struct explore *e, size_t n)
{
	size_t i;

	for (i = 0; i < n; i++)
		unlinkat(e->dir, subdirs[i], AT_REMOVEDIR);
	close_dir(e);
	if (e->made)
		rmdir(e->o->dir);
}

/* A new folder name in dirfd, opened: fd or -errno. */
static int make_sub(int dirfd, const char *name)
{
	int fd, err;

	if (mkdirat(dirfd, name, 0755))
		return -errno;
	fd = openat(dirfd, name, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
	if (fd >= 0)
		return fd;
	err = -errno;
	unlinkat(dirfd, name, AT_REMOVEDIR);
	return err;
}

/*
 * -o DIR, made if need be, with its folders: none there yet.  DIR is
 * refused when another user could write in it (util/safeio.h): root's
 * scenarios and corpus must not be written where someone planted a link.
 */
static int make_dir(struct explore *e, char *why, size_t len)
{
	const char *dir = e->o->dir;
	size_t i = 0;
	uid_t uid;
	gid_t gid;
	int err = 0;

	*why = '\0';
	e->made = !mkdir(dir, 0755);
	if (!e->made && errno != EEXIST)
		err = -errno;
	workload_user(&uid, &gid);
	e->dir = err ?: safeio_dir(dir, uid, why, len);
	err = e->dir < 0 ? e->dir : 0;
	for (; !err && i < N_SUBDIRS; i++) {
		e->sub[i] = make_sub(e->dir, subdirs[i]);
		err = e->sub[i] < 0 ? e->sub[i] : 0;
	}
	if (!err)
		return 0;
	unmake_dir(e, i ? i - 1 : 0);
	if (!*why)
		snprintf(why, len, "-o %s: %s", dir,
			 err == -EEXIST ? "it holds a search already: give another folder"
					: strerror(-err));
	return err;
}

/* What record needs to probe the target as the search does. */
static void probe_opts(const struct explore *e, struct record_opts *ro)
{
	const struct explore_opts *o = e->o;

	record_opts_init(ro);
	ro->cmd = "explore";
	ro->probe_flag = "--target";
	ro->repeat = 1;
	ro->argv = (char **)e->argv;
	ro->func.patterns[0] = (char *)o->target;
	ro->func.n = 1;
	ro->func.vmlinux = o->vmlinux;
	ro->blocks.funcs[0] = o->target;
	ro->blocks.n = 1;
	ro->blocks.limit = KP_BLK_MAX;
	ro->blocks.vmlinux = o->vmlinux;
}

static int search(struct explore *e)
{
	const struct explore_opts *o = e->o;
	struct explore_what w = {o->target, o->dir, o->seed, o->json};
	char why[512], data[PATH_MAX];
	struct record_opts ro;
	int err, ret;

	err = make_dir(e, why, sizeof(why));
	if (err) {
		esc_printf(stderr, "kprotperf explore: %s\n", why);
		return 1;
	}
	err = search_new(&e->s, e->t, o->seed);
	if (err) {
		fprintf(stderr, "kprotperf explore: %s\n", strerror(-err));
		unmake_dir(e, N_SUBDIRS);
		return 1;
	}
	snprintf(e->next, sizeof(e->next), "%s/" NEXT_NAME, o->dir);
	snprintf(data, sizeof(data), "%s/explore.data", o->dir);
	runner_argv(e);
	e->ran[0] = *search_next(e->s);
	err = write_scenario(e, e->dir, NEXT_NAME, &e->ran[0], NULL);
	if (err) {
		fprintf(stderr, "kprotperf explore: cannot write %s: %s\n", e->next,
			strerror(-err));
		unmake_dir(e, N_SUBDIRS);
		return 1;
	}
	probe_opts(e, &ro);
	ro.output = data;
	ro.quiet = true;
	e->runs = (struct record_runs){next_run, run_ended, e};
	ro.runs = &e->runs;
	e->progress.quiet = o->quiet;
	clock_gettime(CLOCK_MONOTONIC, &e->t0);
	ret = record_run(&ro);
	explore_out_end(&e->progress);
	unlinkat(e->dir, NEXT_NAME, 0);
	if (search_runs(e->s)) {
		explore_out_print(stdout, &w, e->t, e->s, elapsed(e));
		close_dir(e);
	} else {
		unmake_dir(e, N_SUBDIRS);
	}
	return ret;
}

/* One scenario recorded as the search records them, into --output. */
static int replay(struct explore *e)
{
	const struct explore_opts *o = e->o;
	struct record_opts ro;
	struct scenario s;
	char why[512];

	if (scn_read(e->t, o->replay, &s, why, sizeof(why))) {
		/* why quotes the file */
		esc_printf(stderr, "kprotperf explore: %s\n", why);
		return 1;
	}
	snprintf(e->next, sizeof(e->next), "%s", o->replay);
	runner_argv(e);
	probe_opts(e, &ro);
	ro.output = o->output;
	ro.quiet = o->quiet;
	ro.repeat = o->repeat;
	return record_run(&ro);
}

int explore_run(const struct explore_opts *o)
{
	struct explore e = {.o = o, .dir = -1, .sub = {-1, -1}};
	char why[512];
	ssize_t n;
	int ret;

	if (!links_kprobes_available()) {
		fprintf(stderr,
			"kprotperf explore: this kernel has no kprobes (CONFIG_KPROBES not set), and "
			"explore counts --target's blocks with them: run it on a kernel with kprobes "
			"(in a VM: scripts/vm-run.sh)\n");
		return 1;
	}
	if (scn_templates_load(&e.t, o->templates, why, sizeof(why))) {
		esc_printf(stderr, "kprotperf explore: %s\n", why);
		return 1;
	}
	n = readlink("/proc/self/exe", e.self, sizeof(e.self) - 1);
	if (n <= 0) {
		fprintf(stderr, "kprotperf explore: cannot find its own binary: %s\n",
			strerror(errno));
		scn_templates_free(e.t);
		return 1;
	}
	e.self[n] = '\0';
	/* once here, not once per scenario: they run --quiet */
	scn_tmpdir_note("explore");
	ret = o->replay ? replay(&e) : search(&e);
	search_free(e.s);
	scn_templates_free(e.t);
	return ret;
}
