/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * kprotperf explore's scenarios: short sequences of syscall steps, each
 * step an action of a template (share/explore.conf: fork, mmap, pipe, open,
 * setxattr, ...) with values for its parameters; written as readable text,
 * one step a line; generated and mutated from a seeded generator, so that
 * the same seed gives the same search; and run, each in a sandboxed child
 * (kprotperf scenario FILE), by scenario_run().
 */
#ifndef KP_SCENARIO_H
#define KP_SCENARIO_H

#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>
#include <linux/types.h>

/* parameters of one template, steps of one scenario */
#define SCN_PARAMS 6
#define SCN_STEPS  16

struct scn_templates;

/* A deterministic generator (the same seed, the same search). */
struct scn_rng {
	__u64 s[2];
};

void scn_rng_seed(struct scn_rng *r, __u64 seed);
__u64 scn_rng_next(struct scn_rng *r);

struct scn_step {
	int tpl;		 /* template index */
	long long v[SCN_PARAMS]; /* its parameters' values, in the template's order */
};

struct scenario {
	struct scn_step step[SCN_STEPS];
	size_t n;
};

/*
 * The templates of the file at path (NULL: the built-in copy of
 * share/explore.conf).  An error is -EINVAL with why naming the line and
 * the reason (an unknown action, a parameter outside its action's, min >
 * max, ...), -errno when the file cannot be read.
 */
int scn_templates_load(struct scn_templates **out, const char *path, char *why, size_t len);
void scn_templates_free(struct scn_templates *t);
size_t scn_templates_count(const struct scn_templates *t);
/* Template i's name (its action's: "fork", "mmap", ...). */
const char *scn_template_name(const struct scn_templates *t, size_t i);

/* A parameter of a template: the values explore may give it. */
struct scn_param {
	const char *name;
	long long min, max, def;
	bool pow2; /* stepped in powers of two (sizes) */
};

size_t scn_template_nparams(const struct scn_templates *t, size_t i);
/* Parameter k of template i, in the template's order: that of scn_step.v. */
const struct scn_param *scn_template_param(const struct scn_templates *t, size_t i, size_t k);
/*
 * The templates to f, for kprotperf scenario --list and docs/explore.md: per
 * template a line "NAME  PARAM=MIN..MAX[ pow2] (DEFAULT) ...", then its
 * about text wrapped and indented by four spaces.
 */
void scn_templates_print(const struct scn_templates *t, FILE *f);

/* The first corpus: one scenario per template, one step of its default values. */
int scn_seeds(const struct scn_templates *t, struct scenario **out, size_t *n);
/*
 * A mutant of in into out: a parameter changed (within its range: doubled,
 * halved, a random value, a neighbour), a step inserted, removed, duplicated
 * or swapped with another, or a step of another scenario spliced in (other
 * may be NULL); which, from r.
 */
void scn_mutate(const struct scn_templates *t, const struct scenario *in,
		const struct scenario *other, struct scn_rng *r, struct scenario *out);

/* s as text, one step a line ("mmap count=16 size=65536 touch=1"), to f. */
int scn_write(const struct scn_templates *t, const struct scenario *s, FILE *f);
/* The scenario file at path: -EINVAL with why (line and reason) when it is not one. */
int scn_read(const struct scn_templates *t, const char *path, struct scenario *out, char *why,
	     size_t len);
/* s as one line of text into buf, for tables ("fork count=4 depth=1; mmap ..."). */
void scn_summary(const struct scn_templates *t, const struct scenario *s, char *buf, size_t len);

/* What a scenario may use when it runs. */
struct scn_limits {
	unsigned int seconds; /* wall clock, the whole scenario (0: 1) */
	/* bytes of address space per process, beyond what this one has mapped; and of the files */
	unsigned long long mem;
	unsigned int procs; /* processes of the user at once (RLIMIT_NPROC) */
	unsigned int files; /* open files per process */
	const char *dir;    /* the scratch folder's parent (NULL: $TMPDIR or /tmp) */
	bool quiet;	    /* no line on stderr of the syscall errors counted or $TMPDIR ignored */
};

/*
 * Says on stderr, as "kprotperf CMD: ...", that $TMPDIR is ignored, and
 * where scratch folders go instead, when the C library dropped it (secure
 * mode: a binary with file capabilities).
 */
void scn_tmpdir_note(const char *cmd);

/*
 * Run s in a sandbox this process makes: a worker process in a process
 * group of its own (this one stays in the caller's), the limits, a new
 * scratch folder as its working directory (removed at the end), and every
 * process it starts killed when it ends or its time is up.  The exit status: 0 when every step ran,
 * 1 when a step failed (a syscall's error is no failure: it is counted and said on stderr), 124
 * when its time was up, 128 + N when signal N (SIGINT, SIGTERM, SIGHUP) stopped it.  It reaps every
 * child of this process (it is their subreaper while it runs): call it where there are none.
 */
int scenario_run(const struct scn_templates *t, const struct scenario *s,
		 const struct scn_limits *lim);

#endif
