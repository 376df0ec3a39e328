// SPDX-License-Identifier: GPL-2.0-only
/*
 * The processes a recording traces: the command started stopped (or the
 * process taken with -p, or all of them with -a), the tree BPF filters on,
 * and their end: waiting for a run's processes, killing stragglers, and
 * reaping the command.
 */
#include "record/session.h"

#include <dirent.h>
#include <errno.h>
#include <poll.h>
#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>
#include <sys/epoll.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <bpf/libbpf.h>

#include "kprotperf.h"
#include "record.skel.h"
#include "record/collect.h"
#include "record/procs.h"
#include "record/record.h"

/*
 * Processes a run left running this long after its CMD exited are killed
 * before the next run starts: their work would count in it.
 */
#define STRAGGLER_GRACE_NS 1000000000ULL

/* state: KP_TREE_PENDING for the command, which counts from its exec on */
static int add_to_tree(struct session *s, pid_t pid, __u8 state)
{
	__u32 key = pid;

	return bpf_map__update_elem(s->skel->maps.tree, &key, sizeof(key), &state, sizeof(state),
				    BPF_ANY);
}

static int pidfd_of(pid_t pid)
{
	int fd = syscall(SYS_pidfd_open, pid, 0);

	return fd < 0 ? -errno : fd;
}

static int snapshot_all(struct procs *procs)
{
	struct dirent **ents;
	int n, i;

	n = scandir("/proc", &ents, NULL, NULL);
	if (n < 0)
		return -errno;
	for (i = 0; i < n; i++) {
		pid_t pid = atoi(ents[i]->d_name);

		/* processes may exit while we look: that is not an error */
		if (pid > 0)
			procs_snapshot(procs, pid);
		free(ents[i]);
	}
	free(ents);
	return 0;
}

/* Watch pid's exit and trace its tree; running: it has mappings to read already. */
static int follow_target(struct session *s, pid_t pid, bool running)
{
	int err;

	s->target = pid;
	s->pidfd = pidfd_of(pid);
	if (s->pidfd < 0)
		return s->pidfd;
	if (s->o->system_wide)
		return 0;
	err = procs_follow(s->procs, pid);
	/*
	 * Our own child, not reaped, is gone for perf only once it is exiting:
	 * killed before its exec, nothing of it will run to follow.  Its
	 * release finds it dead and tells how it died, as at any other moment.
	 */
	if (err == -ESRCH && !running)
		return 0;
	if (!err && running) {
		s->stage = STAGE_READ_MAPS;
		err = procs_snapshot(s->procs, pid);
	}
	return err ?: add_to_tree(s, pid, running ? KP_TREE_MEMBER : KP_TREE_PENDING);
}

/*
 * BPF gives the command its syscall state as kprotperf forks it, before it
 * can run: it looks nothing up for a thread without one.
 */
static int fork_command(struct session *s)
{
	int err;

	s->skel->bss->forking_command = getpid();
	err = workload_start(&s->wl, s->argv, &s->sigs);
	s->skel->bss->forking_command = 0;
	return err;
}

int proctree_start_command(struct session *s)
{
	int err = fork_command(s);

	return err ?: follow_target(s, s->wl.pid, false);
}

int proctree_start_target(struct session *s)
{
	const struct record_opts *o = s->o;
	int err;

	if (o->system_wide) {
		err = procs_follow(s->procs, -1);
		err = err ?: snapshot_all(s->procs);
		if (err)
			return err;
	}
	if (o->argv)
		return proctree_start_command(s);
	return o->pid > 0 ? follow_target(s, o->pid, true) : 0;
}

/* Killed, say, between its release and its exec: what it did was the launcher's. */
static void note_no_exec(const struct session *s)
{
	char how[64];

	workload_end_how(s->status, how, sizeof(how));
	fprintf(stderr, "kprotperf %s: '%s' %s before its exec: nothing of it ran\n", s->o->cmd,
		s->o->argv[0], how);
}

void proctree_command_exited(struct session *s)
{
	waitpid(s->wl.pid, &s->status, 0);
	s->wl.pid = -1;
	/* kp_exec counts the command's execs; -a does not put it in the tree */
	if (!s->o->system_wide && s->skel->bss->execs <= s->run)
		note_no_exec(s);
	/* a reaped process's pidfd stays readable: stop watching it */
	close(s->pidfd);
	s->pidfd = -1;
	/* Ctrl-C reaches the command too: it may have died of it first */
	if (events_signal_waiting(s))
		s->end = END_INTERRUPTED;
}

/*
 * SIGKILL to pid, if it is still the tree's: held by a pidfd, it is checked
 * in the tree again, so a pid that exited (its entry dropped by kp_exit) and
 * was reused by an unrelated process is never signalled.  0 when killed,
 * -ESRCH when it is gone (its entry, if its exit was missed, dropped).
 */
static int kill_member(struct session *s, __u32 pid)
{
	int fd = pidfd_of(pid), err = 0;
	__u8 v;

	if (fd == -ESRCH)
		bpf_map__delete_elem(s->skel->maps.tree, &pid, sizeof(pid), 0);
	if (fd < 0)
		return fd;
	if (bpf_map__lookup_elem(s->skel->maps.tree, &pid, sizeof(pid), &v, sizeof(v), 0) ||
	    syscall(SYS_pidfd_send_signal, fd, SIGKILL, NULL, 0))
		err = -ESRCH;
	close(fd);
	return err;
}

/* SIGKILL to every process of the tree: how many were killed. */
static int kill_tree(struct session *s)
{
	int fd = bpf_map__fd(s->skel->maps.tree), killed = 0, err;
	__u32 *pids;
	__u8 *vals;
	size_t n, i;

	err = collect_dump(fd, sizeof(*pids), sizeof(*vals), (void **)&pids, (void **)&vals, &n);
	if (err)
		return err;
	for (i = 0; i < n; i++)
		if (!kill_member(s, pids[i]))
			killed++;
	free(pids);
	free(vals);
	return killed;
}

static bool tree_empty(const struct session *s)
{
	__u32 pid;

	return bpf_map__get_next_key(s->skel->maps.tree, NULL, &pid, sizeof(pid)) != 0;
}

static void note_killed(struct session *s, int n)
{
	events_end_line(s);
	fprintf(stderr,
		"kprotperf %s: run %u of %u left %d process%s running %.0f s after CMD "
		"exited: killed, so that %s cannot count in the next run\n",
		s->o->cmd, s->run + 1, s->o->repeat, n, n == 1 ? "" : "es",
		STRAGGLER_GRACE_NS / 1e9, n == 1 ? "it" : "they");
}

/*
 * Every process this run started must have exited, so that nothing of it
 * leaks into the next one.  Only the traced tree is waited for: system-wide
 * (-a), a run simply ends with its CMD.
 */
int proctree_wait(struct session *s)
{
	__u64 kill_at = events_now() + STRAGGLER_GRACE_NS;
	struct epoll_event ev[4];
	int n, i, r, killed = 0;

	while (!s->o->system_wide && !tree_empty(s)) {
		if (events_now() >= kill_at) {
			/* again each round: a dying process may still have forked */
			n = kill_tree(s);
			if (n < 0)
				return n;
			if (n && !killed++)
				note_killed(s, n);
		}
		n = epoll_wait(s->epfd, ev, 4, 10);
		if (n < 0 && errno != EINTR)
			return -errno;
		/* the ring wakes us only when a quarter full: a long wait drains it too */
		r = events_drain_ring(s);
		if (r)
			return r;
		for (i = 0; i < n; i++) {
			r = events_handle(s, ev[i].data.u32);
			if (r < 0)
				return r;
			if (r) {
				s->run_end = RUN_INTERRUPTED;
				return 0;
			}
		}
	}
	return 0;
}

/*
 * One that exited was reaped already: this one still runs, or never got to
 * exec (as when setting up a later run failed).
 */
void proctree_reap_workload(struct session *s)
{
	struct pollfd exited = {.fd = s->pidfd, .events = POLLIN};

	if (!s->o->argv || s->wl.pid <= 0)
		return;
	/* give it 5 s to exit on SIGTERM, which blocks until exec */
	if (!workload_released(&s->wl) ||
	    (!kill(s->wl.pid, SIGTERM) && poll(&exited, 1, 5000) != 1))
		kill(s->wl.pid, SIGKILL);
	waitpid(s->wl.pid, &s->status, 0);
	s->wl.pid = -1;
}

void proctree_detach_but_tree(struct session *s)
{
	struct bpf_link **keep[] = {&s->skel->links.kp_fork, &s->skel->links.kp_exit}, *saved[2];
	size_t i;

	for (i = 0; i < 2; i++) {
		saved[i] = *keep[i];
		*keep[i] = NULL;
	}
	record_bpf__detach(s->skel);
	for (i = 0; i < 2; i++)
		*keep[i] = saved[i];
}

/* Rounds of SIGKILL to the tree, each until the killed have left it. */
#define KILL_ROUNDS   10
#define KILL_ROUND_MS 100

void proctree_kill_rest(struct session *s)
{
	int round, ms;

	/* -p's tree is not ours, and -a does not fill the tree */
	if (!s->o->argv || s->o->system_wide || !s->skel)
		return;
	/* what a dying process forked meanwhile joined the tree: the next round's */
	for (round = 0; round < KILL_ROUNDS && kill_tree(s) > 0; round++)
		for (ms = 0; ms < KILL_ROUND_MS && !tree_empty(s); ms++)
			usleep(1000);
}
