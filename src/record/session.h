/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * One recording, as the parts of kprotperf record running it share it:
 * record.c sets it up and tears it down, events.c waits on it, proctree.c
 * starts, follows and ends its processes, repeat.c runs CMD again for
 * --repeat, and save.c writes the data file at its end.
 */
#ifndef KP_SESSION_H
#define KP_SESSION_H

#include <signal.h>
#include <stdbool.h>
#include <time.h>
#include <sys/types.h>
#include <linux/types.h>

#include "kprotperf.h"
#include "record/sampler.h"
#include "record/workload.h"

struct record_opts;

enum end_reason { END_EXITED, END_INTERRUPTED, END_DURATION };
/* How one run ended (the runs table); failed: CMD exited non-zero or was killed. */
enum run_end { RUN_EXITED, RUN_INTERRUPTED, RUN_FAILED, RUN_DURATION };

/* What the session is doing: what failed, when something does. */
enum stage {
	STAGE_LOAD_BPF,
	STAGE_COUNT,
	STAGE_FOLLOW,
	STAGE_START_TARGET,
	STAGE_READ_MAPS, /* -p PID: /proc/PID/maps */
	STAGE_WATCH,
	STAGE_ATTACH,
	STAGE_SAMPLING,
	STAGE_KALLSYMS,
	STAGE_FUNC,
	STAGE_BLOCKS,
	STAGE_RUN_COMMAND,
	STAGE_RECORDING,
	STAGE_WAIT_TREE,
	STAGE_SAVE_RUN,
	STAGE_START_COMMAND,
	STAGE_WRITE,
};

struct session {
	const struct record_opts *o;
	struct record_bpf *skel;
	struct sampler sampler;
	struct funcs *funcs;
	struct counting *counting; /* record --count, NULL without */
	struct blocks *blocks;	   /* record --blocks */
	struct ksyms *ks;	   /* /proc/kallsyms, read once: --func matching, then stacks */
	/*
	 * kallsyms again once fentry probes are attached, for stacks: it has the
	 * BPF trampolines' symbols, which go away when the probes are detached.
	 */
	struct ksyms *probed_ks;
	char why[1024]; /* what --func or --blocks needs, when it cannot probe */
	struct procs *procs;
	struct stackstore *stacks;  /* samples and stacks, from the ring buffer */
	struct ustack_dwarf *dwarf; /* --call-graph dwarf: the user stacks' unwinder */
	struct workload wl;
	char *const *argv; /* the command of the run under way: o->argv, or runs->next()'s */
	struct measures *measures; /* with o->runs: what each run added, for ended() */
	struct datafile *df;
	sigset_t sigs;
	int sigfd, pidfd, epfd;
	pid_t target;
	int status;   /* wait status of the command */
	int exec_err; /* why CMD could not exec in a later run */
	enum end_reason end;
	enum stage stage;
	struct timespec t0;
	__u64 wall_ns;
	__u64 counts[KP_CNT_MAX];
	struct run_deltas *deltas;
	unsigned int run;      /* the run under way or last run, from 0 */
	unsigned int complete; /* runs that ended as exited */
	enum run_end run_end;
	__u64 run_start, run_wall_ns;
	bool line_open; /* the progress line awaits its newline */
};

/* events.c: the session's events (signals, the target's exit, side-band records). */
__u64 events_now(void);
int events_setup(struct session *s);
/* Watch the exit of the target anew (s->pidfd), for the next run's CMD. */
int events_watch_target(struct session *s);
/* Until the target exits, a signal comes or --duration is up; s->end says which. */
int events_loop(struct session *s);
/* One event from epoll; 1 when recording should stop (s->end says why). */
int events_handle(struct session *s, __u32 tag);
bool events_signal_waiting(const struct session *s);
int events_drain_procs(struct session *s);
/* Take in what the ring buffer holds (samples and stacks). */
int events_drain_ring(struct session *s);
/* Records lost, whatever the reason. */
__u64 events_lost(struct session *s);
/* End the progress line, if one is on the terminal. */
void events_end_line(struct session *s);

/* proctree.c: the traced processes. */
/*
 * Start the command stopped, or take the running process, and follow its tree.
 * Side-band events are opened before /proc is read, so a process forked in
 * between is seen by one or the other.
 */
int proctree_start_target(struct session *s);
/* A fresh CMD, stopped before exec until its pid is in the traced tree. */
int proctree_start_command(struct session *s);
/* The command's exit, seen on its pidfd: reap it now, for its status. */
void proctree_command_exited(struct session *s);
/* Before the next run: until every process of the traced tree has exited. */
int proctree_wait(struct session *s);
/* The command we started must not outlive the recording. */
void proctree_reap_workload(struct session *s);
/* Stop recording, but keep following forks and exits into the tree map. */
void proctree_detach_but_tree(struct session *s);
/*
 * What is left of the tree CMD started, when kprotperf stops first (a signal,
 * --duration, a failure): SIGKILL, so that nothing of it outlives the
 * recording.  Complete only while fork and exit are traced (before
 * record_bpf__detach): then a process forked meanwhile is killed too.
 */
void proctree_kill_rest(struct session *s);

/* repeat.c: the runs of the command (--repeat). */
/* CMD's status when it cannot exec, as a shell has it. */
int repeat_exec_status(int err);
/* Let the command go and follow it until it exits, a signal comes or time is up. */
int repeat_one_run(struct session *s);
/*
 * Whether another run follows: 1, with s->argv its command; 0; or -errno
 * (the runs provider failed: it said why).
 */
int repeat_another(struct session *s);
/* Close the run that ended well, and start the next one, unless a signal came. */
int repeat_next_run(struct session *s);
/* The run's row, and what it added to the func map. */
int repeat_put_run(struct session *s);

/*
 * save.c: the data file, once the recording has stopped, with or without
 * samples and syscalls; -ENODATA when the command never reached its exec.
 */
int save_data(struct session *s);
struct kv_list;
struct procs;
/* Its parts that record --model (model_run.c) writes too. */
int save_provenance(struct datafile *df);
int save_procs(struct datafile *df, struct procs *procs);
/* The command line as one shell-quoted string, as meta record.command. */
int save_command_line(struct kv_list *meta, char *const argv[]);

#endif
