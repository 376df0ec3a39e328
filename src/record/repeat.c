// SPDX-License-Identifier: GPL-2.0-only
/*
 * The runs of a recording (record --repeat): each run of CMD, how it ended,
 * its row and what it added to the BPF maps, and starting the next one.
 */
#include "record/session.h"

#include <errno.h>
#include <sys/wait.h>
#include <bpf/libbpf.h>

#include "data/recording.h"
#include "kprotperf.h"
#include "record.skel.h"
#include "record/blocks.h"
#include "record/collect.h"
#include "record/counting.h"
#include "record/funcs.h"
#include "record/measures.h"
#include "record/record.h"

static const char *const run_end_names[] = {"exited", "interrupted", "failed", "duration"};

int repeat_exec_status(int err)
{
	return err == -ENOENT ? 127 : 126;
}

/*
 * CMD cannot exec in a later run (say, a script that removed itself): the
 * run fails as it would in a shell, and the runs before it are kept.
 */
static void exec_failed(struct session *s, int err)
{
	s->exec_err = err;
	s->status = W_EXITCODE(repeat_exec_status(err), 0);
	s->end = END_EXITED;
}

static enum run_end run_end_of(const struct session *s)
{
	if (s->end == END_INTERRUPTED)
		return RUN_INTERRUPTED;
	if (s->end == END_DURATION)
		return RUN_DURATION;
	return s->o->argv && workload_exit_code(s->status) ? RUN_FAILED : RUN_EXITED;
}

int repeat_one_run(struct session *s)
{
	int err = 0;

	s->run_start = events_now();
	if (s->o->argv) {
		s->stage = STAGE_RUN_COMMAND;
		err = workload_go(&s->wl);
	}
	if (!err) {
		s->stage = STAGE_RECORDING;
		err = events_loop(s);
	} else if (s->run && err == -EPIPE) {
		/* killed before its exec: reaped below, where its end is told */
		s->end = END_EXITED;
		err = 0;
	} else if (err == -EPIPE) {
		/*
		 * The first run fails: its status, for failed() to tell how it
		 * died.  EPIPE says only that it died, not of what.
		 */
		proctree_reap_workload(s);
	} else if (s->run) {
		exec_failed(s, err);
		err = 0;
	}
	s->run_wall_ns = events_now() - s->run_start;
	if (err)
		return err;
	/* not when exec failed: workload_go reaped it then */
	if (s->end == END_EXITED && s->wl.pid > 0)
		proctree_command_exited(s);
	s->run_end = run_end_of(s);
	return 0;
}

/*
 * What the run added to the --func and --blocks measures, to the runs
 * provider; not a run Ctrl-C cut short, whose measures are a part of it.
 */
static int tell_ended(struct session *s)
{
	const struct record_runs *r = s->o->runs;
	struct run_measures m;
	int err;

	if (!r || s->run_end == RUN_INTERRUPTED)
		return 0;
	err = measures_take(s->measures, s->funcs, s->blocks, &m);
	err = err ?: r->ended(r->ctx, s->run, s->status, &m);
	return err;
}

/*
 * The run's row, and what it added to the func map (funcs_collect reads that
 * map on its own): all the run did has happened by now.
 */
int repeat_put_run(struct session *s)
{
	const char *end = run_end_names[s->run_end];
	int code = workload_exit_code(s->status), err = 0;

	if (funcs_lat_fd(s->funcs) >= 0)
		err = collect_run_latency(s->deltas, s->df, s->run, "func", funcs_lat_fd(s->funcs),
					  funcs_count(s->funcs), NULL, NULL);
	err = err
		      ?: counting_put_run(s->counting, s->df, s->run,
					  bpf_map__fd(s->skel->maps.syscall_cnt),
					  funcs_cnt_fd(s->funcs), funcs_count(s->funcs));
	err = err ?: blocks_put_run(s->blocks, s->df, s->run);
	err = err ?: tell_ended(s);
	err = err
		      ?: recording_put_run(s->df, s->run, s->run_wall_ns, s->o->argv ? &code : NULL,
					   end);
	if (!err)
		s->complete += s->run_end == RUN_EXITED;
	return err;
}

/* A run before the last: what it added to the syscall and samples maps, and its row. */
static int end_run(struct session *s)
{
	int err;

	err = collect_run_latency(s->deltas, s->df, s->run, "syscall",
				  bpf_map__fd(s->skel->maps.syscall_lat), KP_MAX_SYSCALLS, NULL,
				  NULL);
	err = err ?: events_drain_ring(s);
	err = err ?: collect_run_samples(s->deltas, s->stacks, s->run);
	return err ?: repeat_put_run(s);
}

int repeat_another(struct session *s)
{
	const struct record_runs *r = s->o->runs;

	if (!r)
		return s->run_end == RUN_EXITED && s->run + 1 < s->o->repeat;
	/* a provider's runs go on after a failed or killed one, not after Ctrl-C */
	if (s->run_end == RUN_INTERRUPTED)
		return 0;
	switch (r->next(r->ctx, s->run + 1, &s->argv)) {
	case 0:
		return 1;
	case 1:
		return 0;
	default:
		return -ECANCELED;
	}
}

int repeat_next_run(struct session *s)
{
	int err;

	s->stage = STAGE_WAIT_TREE;
	err = proctree_wait(s);
	if (err || (s->run_end != RUN_EXITED && !s->o->runs))
		return err;
	/* a signal now ends the recording with this run, complete */
	if (events_signal_waiting(s)) {
		s->end = END_INTERRUPTED;
		return 0;
	}
	err = events_drain_procs(s);
	s->stage = STAGE_SAVE_RUN;
	err = err ?: end_run(s);
	if (err)
		return err;
	s->run++;
	s->stage = STAGE_START_COMMAND;
	workload_close(&s->wl);
	err = proctree_start_command(s);
	return err ?: events_watch_target(s);
}
