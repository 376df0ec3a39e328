/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * What the scenario files share and scenario.h does not show: the actions
 * kprotperf implements and their limits, the templates loaded from
 * explore.conf, reading line-based text, and a running scenario's state.
 */
#ifndef KP_SCENARIO_INT_H
#define KP_SCENARIO_INT_H

#include <stdbool.h>
#include <stddef.h>
#include <signal.h>
#include <stdio.h>
#include <sys/types.h>

#include "explore/scenario.h"

struct scn_run;

/* An action as C implements it: its parameters and the values it takes at most. */
struct scn_action {
	const char *name;
	const char *param[SCN_PARAMS]; /* NULL after the last */
	long long lo[SCN_PARAMS], hi[SCN_PARAMS];
	/* a step: a[] in param[]'s order; 0, or -1 after scn_fail() */
	int (*run)(struct scn_run *r, const long long *a);
};

/* The actions C implements, by name (NULL: none is called so) or by index. */
const struct scn_action *scn_action_find(const char *name);
size_t scn_action_count(void);
const struct scn_action *scn_action_at(size_t i);

struct scn_template {
	const struct scn_action *act;
	char *about;
	struct scn_param param[SCN_PARAMS];
	int slot[SCN_PARAMS]; /* param[k]'s index in the action's param[] */
	size_t n;	      /* parameters: all of the action's */
};

struct scn_templates {
	struct scn_template *v;
	size_t n, cap;
};

/* Where a line-based file is read, and where its errors go. */
struct scn_src {
	const char *file;
	unsigned int line; /* the line being read, 1-based */
	char *why;
	size_t len;
};

/* Says what is wrong at the current line (line 0: the file as a whole): -EINVAL. */
int scn_bad(struct scn_src *p, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
/*
 * Calls fn on each line of in without its comment ('#' on) and surrounding
 * blanks, blank lines skipped, p->line counting; stops at fn's first error.
 */
int scn_lines(FILE *in, struct scn_src *p, int (*fn)(struct scn_src *p, char *line, void *ctx),
	      void *ctx);
/* A whole number, decimal digits only, at most 2^62: 0, or -EINVAL. */
int scn_number(const char *s, long long *v);
/* The template of the action called name: its index, or -1. */
int scn_template_find(const struct scn_templates *t, const char *name);
/* The action's parameter names, for a message: "count, depth, hold". */
void scn_param_names(const struct scn_action *act, char *buf, size_t len);
/* A template's parameter called name: its index, or -1. */
int scn_param_index(const struct scn_template *tp, const char *name);

/* A step's action values: in the action's order from the template's. */
void scn_action_args(const struct scn_template *tp, const struct scn_step *st, long long *a);

/* Errors counted while a scenario runs: by step, syscall and errno. */
#define SCN_ERR_KINDS 48

struct scn_tally {
	int step; /* the step under way, 0-based; -1 before the first */
	size_t kinds;
	struct {
		int step;
		/* a string literal: fork keeps it at the same address in the supervisor */
		const char *call;
		int err;
		unsigned long n;
	} e[SCN_ERR_KINDS];
	unsigned long other; /* errors of kinds beyond e[] */
};

/* A scenario under way: what its worker process and the actions use. */
struct scn_run {
	const struct scn_templates *t;
	const struct scenario *s;
	struct scn_tally *tally; /* shared with the supervisor */
	int msgq[SCN_STEPS];	 /* each msg step's queue, made by the supervisor; -1: none */
	char *buf;		 /* scn_buffer()'s */
	size_t cap;
	/* bytes the scratch folder's files may still take, of --mem for the run: the worker's */
	unsigned long long room;
};

/* What the steps share (scenario_step.c). */

/* Counts call's failure with err (an errno) in the step under way. */
void scn_err(struct scn_run *r, const char *call, int err);
/* Says on stderr why the step under way failed: -1. */
int scn_fail(struct scn_run *r, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
/* size bytes of zeros to write from (kept for the run), or NULL after counting malloc's ENOMEM. */
char *scn_buffer(struct scn_run *r, size_t size);
/*
 * size more bytes for the scratch folder's files (data or extended
 * attributes), taken from what is left of --mem: false, and call's ENOSPC
 * counted as a full tmpfs would give it, when they do not fit.
 */
bool scn_room(struct scn_run *r, long long size, const char *call);
/* n bytes for the step to free, or NULL after counting malloc's ENOMEM. */
void *scn_alloc(struct scn_run *r, size_t n);
/* Room for n descriptors, each -1, for the step to free; NULL as scn_alloc(). */
int *scn_fds(struct scn_run *r, size_t n);
/* Closes the n descriptors at fds that are not -1. */
void scn_close_all(int *fds, size_t n);
/*
 * size bytes written to wfd and read back from rfd (non-blocking), in pieces
 * the channel takes whole; errors counted as wcall's and rcall's.
 */
void scn_pump(struct scn_run *r, int wfd, int rfd, long long size, const char *wcall,
	      const char *rcall);

/* The actions' steps (scenario_act_*.c). */
int scn_act_fork(struct scn_run *r, const long long *a);
int scn_act_clone_threads(struct scn_run *r, const long long *a);
int scn_act_mmap(struct scn_run *r, const long long *a);
int scn_act_munmap(struct scn_run *r, const long long *a);
int scn_act_brk(struct scn_run *r, const long long *a);
int scn_act_pipe(struct scn_run *r, const long long *a);
int scn_act_socketpair(struct scn_run *r, const long long *a);
int scn_act_open(struct scn_run *r, const long long *a);
int scn_act_mkdir(struct scn_run *r, const long long *a);
int scn_act_setxattr(struct scn_run *r, const long long *a);
int scn_act_read_write(struct scn_run *r, const long long *a);
int scn_act_eventfd(struct scn_run *r, const long long *a);
int scn_act_epoll(struct scn_run *r, const long long *a);
int scn_act_msg(struct scn_run *r, const long long *a);

/* What is pending of set taken and thrown away (scenario_worker.c, the supervisor's too). */
void scn_discard(const sigset_t *set);

/*
 * The worker: r's steps run in this process, forked by supervisor and
 * sandboxed in dir with lim; its exit status.
 */
int scn_worker(struct scn_run *r, const char *dir, const struct scn_limits *lim, pid_t supervisor);

#endif
