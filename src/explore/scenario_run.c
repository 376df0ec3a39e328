// SPDX-License-Identifier: GPL-2.0-only
/*
 * scenario_run(): the supervisor.  It makes its process the subreaper of
 * everything it starts, makes the scratch folder and the System V queues
 * the steps use, forks the worker into a process group of the worker's own
 * (the caller's group, a pipeline's tee say, is none of its business), and
 * when the worker ends, the time is up or it is told to stop, kills that
 * group, reaps every process of it and removes what it made.  It stays in
 * the caller's group, so that Ctrl-C reaches it, not the worker.  It waits
 * for signals with sigwaitinfo() rather than handlers, so it keeps no
 * state outside its stack.
 */
#include "explore/scenario.h"

#include <errno.h>
#include <limits.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/auxv.h>
#include <sys/msg.h>
#include <sys/prctl.h>
#include <sys/wait.h>
#include <unistd.h>

#include "explore/scenario_int.h"
#include "util/scratch.h"

/* Where the scratch folder's entries are removed from: at most this many directories open. */
#define FTW_FDS 16

/* What the supervisor waits for: its worker's end, the alarm, being told to stop. */
static void waited_signals(sigset_t *set)
{
	sigemptyset(set);
	sigaddset(set, SIGCHLD);
	sigaddset(set, SIGALRM);
	sigaddset(set, SIGINT);
	sigaddset(set, SIGTERM);
	sigaddset(set, SIGHUP);
}

/* "in step 2 (fork)", for the messages. */
static const char *step_of(const struct scn_run *r, char *buf, size_t len)
{
	int i = r->tally->step;

	if (i < 0)
		return "before its first step";
	snprintf(buf, len, "in step %d (%s)", i + 1, r->t->v[r->s->step[i].tpl].act->name);
	return buf;
}

/*
 * Whether the C library dropped a TMPDIR this process was given: it does
 * in secure mode (AT_SECURE: a binary with file capabilities), where the
 * caller's TMPDIR is not to be trusted.  /proc/self/environ is the
 * environment as exec gave it, before anything was dropped.
 */
static bool tmpdir_dropped(void)
{
	char *var = NULL;
	bool was = false;
	size_t cap = 0;
	FILE *f;

	if (!getauxval(AT_SECURE) || getenv("TMPDIR"))
		return false;
	f = fopen("/proc/self/environ", "re");
	if (!f)
		return false;
	while (!was && getdelim(&var, &cap, '\0', f) > 0)
		was = !strncmp(var, "TMPDIR=", strlen("TMPDIR="));
	free(var);
	fclose(f);
	return was;
}

void scn_tmpdir_note(const char *cmd)
{
	if (tmpdir_dropped())
		fprintf(stderr,
			"kprotperf %s: $TMPDIR is ignored: this binary's file capabilities make the "
			"C library drop it; scratch folders go to /tmp (scenario --dir DIR chooses)\n",
			cmd);
}

static int make_scratch(const struct scn_limits *lim, char *dir, size_t len)
{
	int err;

	if (!lim->dir && !lim->quiet)
		scn_tmpdir_note("scenario");
	err = scratch_make(dir, len, lim->dir, "scenario");
	if (!err)
		return 0;
	fprintf(stderr, "kprotperf scenario: cannot make a scratch folder in %s: %s\n",
		lim->dir ? lim->dir : "$TMPDIR or /tmp", strerror(-err));
	return -1;
}

static int remove_scratch(const char *dir)
{
	int err = scratch_remove(dir);

	if (!err)
		return 0;
	fprintf(stderr, "kprotperf scenario: cannot remove the scratch folder %s: %s\n", dir,
		strerror(-err));
	return -1;
}

/* A queue for each msg step, made here so that it is removed even when the worker is killed. */
static void make_queues(struct scn_run *r)
{
	size_t i;

	for (i = 0; i < SCN_STEPS; i++) {
		r->msgq[i] = -1;
		if (i >= r->s->n || r->t->v[r->s->step[i].tpl].act->run != scn_act_msg)
			continue;
		r->tally->step = i;
		r->msgq[i] = msgget(IPC_PRIVATE, IPC_CREAT | 0600);
		if (r->msgq[i] < 0)
			scn_err(r, "msgget", errno);
	}
	r->tally->step = -1;
}

static void remove_queues(const struct scn_run *r)
{
	size_t i;

	for (i = 0; i < SCN_STEPS; i++)
		if (r->msgq[i] >= 0)
			msgctl(r->msgq[i], IPC_RMID, NULL);
}

/*
 * Until the worker w ends (0, how in *end), the alarm rings or a signal
 * says stop (that signal).  The worker is left a zombie: its group's id,
 * which kill_group() signals, cannot go to another group while it is one.
 */
static int wait_worker(pid_t w, unsigned int seconds, siginfo_t *end)
{
	sigset_t set;
	int sig;

	waited_signals(&set);
	alarm(seconds ?: 1);
	for (;;) {
		sig = sigwaitinfo(&set, NULL);
		if (sig > 0 && sig != SIGCHLD)
			return sig;
		/* orphans of the group come here too: this process is their subreaper */
		for (;;) {
			end->si_pid = 0;
			if (waitid(P_ALL, 0, end, WEXITED | WNOHANG | WNOWAIT) || !end->si_pid)
				break;
			if (end->si_pid == w)
				return 0;
			waitpid(end->si_pid, NULL, 0);
		}
	}
}

/*
 * The worker's group killed and every child of this process (each one of
 * the group) reaped.  The signal goes out again before each reap, for a
 * process forked as it went out, while the zombie about to be reaped still
 * holds the group's id.
 */
static void kill_group(pid_t w)
{
	siginfo_t info;

	kill(-w, SIGKILL);
	while (!waitid(P_ALL, 0, &info, WEXITED | WNOWAIT)) {
		kill(-w, SIGKILL);
		waitpid(info.si_pid, NULL, 0);
	}
}

/* The exit status, and what it was said on stderr. */
static int outcome(const struct scn_run *r, int sig, const siginfo_t *end, unsigned int seconds)
{
	char where[64];
	const char *at = step_of(r, where, sizeof(where));

	if (sig == SIGALRM) {
		fprintf(stderr,
			"kprotperf scenario: time is up after %u s, %s: its processes are killed\n",
			seconds ?: 1, at);
		return 124;
	}
	if (sig) {
		fprintf(stderr,
			"kprotperf scenario: stopped by SIG%s %s: its processes are killed\n",
			sigabbrev_np(sig), at);
		return 128 + sig;
	}
	if (end->si_code != CLD_EXITED) {
		fprintf(stderr, "kprotperf scenario: its process was killed by SIG%s %s\n",
			sigabbrev_np(end->si_status) ?: "?", at);
		return 1;
	}
	return end->si_status;
}

static void print_errors(const struct scn_run *r)
{
	const struct scn_tally *t = r->tally;
	unsigned long total = t->other;
	const char *name;
	size_t i;

	for (i = 0; i < t->kinds; i++)
		total += t->e[i].n;
	if (!total)
		return;
	fprintf(stderr, "kprotperf scenario: %lu syscall error%s, counted, not failures:", total,
		total == 1 ? "" : "s");
	for (i = 0; i < t->kinds; i++) {
		name = strerrorname_np(t->e[i].err);
		fprintf(stderr, "%s %lu %s ", i ? "," : "", t->e[i].n, t->e[i].call);
		if (name)
			fputs(name, stderr);
		else
			fprintf(stderr, "errno %d", t->e[i].err);
		fprintf(stderr, " in step %d (%s)", t->e[i].step + 1,
			r->t->v[r->s->step[t->e[i].step].tpl].act->name);
	}
	if (t->other)
		fprintf(stderr, ", %lu of other kinds", t->other);
	fputc('\n', stderr);
}

static int supervise(struct scn_run *r, const char *dir, const struct scn_limits *lim)
{
	siginfo_t end = {};
	pid_t self = getpid(), w;
	int sig, status;

	/* nothing buffered is written twice */
	fflush(NULL);
	w = fork();
	if (w < 0) {
		fprintf(stderr, "kprotperf scenario: cannot start its process: %s\n",
			strerror(errno));
		return 1;
	}
	if (!w) {
		status = scn_worker(r, dir, lim, self);
		/* what it said, even to a buffered stderr */
		fflush(stderr);
		_exit(status);
	}
	/* as the worker does, so that the group is there whichever runs first */
	setpgid(w, w);
	sig = wait_worker(w, lim->seconds, &end);
	alarm(0);
	kill_group(w);
	return outcome(r, sig, &end, lim->seconds);
}

int scenario_run(const struct scn_templates *t, const struct scenario *s,
		 const struct scn_limits *lim)
{
	struct sigaction dfl = {.sa_handler = SIG_DFL}, chld;
	struct scn_run r = {.t = t, .s = s, .room = lim->mem};
	char dir[PATH_MAX];
	sigset_t set, old;
	int status = 1;

	/*
	 * SIGCHLD ignored (trap '' CHLD, some CI runners) or SA_NOCLDWAIT
	 * would have the kernel reap the worker before it is waited for; the
	 * worker and its processes inherit the default too.  Blocked signals
	 * need nothing: the waited ones are blocked here anyway, the worker
	 * unblocks all.
	 */
	sigaction(SIGCHLD, &dfl, &chld);
	waited_signals(&set);
	sigprocmask(SIG_BLOCK, &set, &old);
	r.tally = mmap(NULL, sizeof(*r.tally), PROT_READ | PROT_WRITE, MAP_SHARED | MAP_ANONYMOUS,
		       -1, 0);
	if (r.tally == MAP_FAILED) {
		fprintf(stderr, "kprotperf scenario: %s\n", strerror(errno));
		goto out_mask;
	}
	r.tally->step = -1;
	/* fails only on kernels older than 3.4 */
	prctl(PR_SET_CHILD_SUBREAPER, 1);
	if (make_scratch(lim, dir, sizeof(dir)))
		goto out_reaper;
	make_queues(&r);
	status = supervise(&r, dir, lim);
	remove_queues(&r);
	if (remove_scratch(dir) && !status)
		status = 1;
	if (!lim->quiet)
		print_errors(&r);
out_reaper:
	prctl(PR_SET_CHILD_SUBREAPER, 0);
	munmap(r.tally, sizeof(*r.tally));
out_mask:
	scn_discard(&set);
	sigprocmask(SIG_SETMASK, &old, NULL);
	sigaction(SIGCHLD, &chld, NULL);
	return status;
}
