// SPDX-License-Identifier: GPL-2.0-only
/*
 * The actions that start processes and threads: fork (chains of nested
 * forks) and clone_threads, each optionally holding what it started alive
 * together, blocked on a pipe, for hold ms.
 */
#include "explore/scenario_int.h"

#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <stdlib.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

/* The exit code of a chain one of whose processes was killed; errnos stay below it. */
#define CHAIN_KILLED 125
/* Enough for a thread that only reads a pipe, and small beside the memory limit. */
#define THREAD_STACK (64 * 1024)

/* Where what a step with hold > 0 started waits: a pipe it reads until the writer closes it. */
struct gate {
	int fd[2];
};

static void gate_open(struct scn_run *r, struct gate *g, long long hold)
{
	g->fd[0] = g->fd[1] = -1;
	if (hold && pipe2(g->fd, O_CLOEXEC)) {
		scn_err(r, "pipe", errno);
		g->fd[0] = g->fd[1] = -1;
	}
}

/* Blocks until the gate opens (at once when there is none). */
static void gate_wait(const struct gate *g)
{
	char c;

	/* nothing is ever written: the read returns at the end of the file */
	if (g->fd[0] >= 0)
		read(g->fd[0], &c, 1);
}

/* hold ms on, everything waiting let go. */
static void gate_release(struct gate *g, long long hold)
{
	struct timespec ts = {hold / 1000, hold % 1000 * 1000000};

	if (g->fd[1] < 0)
		return;
	nanosleep(&ts, NULL);
	close(g->fd[1]);
	g->fd[1] = -1;
}

static void gate_close(struct gate *g)
{
	if (g->fd[0] >= 0)
		close(g->fd[0]);
}

/* The exit code of a chain's process, from its wait status. */
static int chain_code(int status)
{
	return WIFEXITED(status) ? WEXITSTATUS(status) : CHAIN_KILLED;
}

/*
 * A process of a chain with depth processes from it down: it forks the
 * next, waits at the gate and for its child.  Its exit code: 0, the errno
 * of a fork that failed down the chain, or CHAIN_KILLED.
 */
static int chain(struct gate g, long long depth)
{
	pid_t pid = -1;
	int status, err = 0;

	/* its copy of the writer closed, the gate opens when the parent closes its own */
	if (g.fd[1] >= 0)
		close(g.fd[1]);
	g.fd[1] = -1;
	if (depth > 1) {
		pid = fork();
		if (!pid)
			_exit(chain(g, depth - 1));
		if (pid < 0)
			err = errno;
	}
	gate_wait(&g);
	if (pid > 0 && waitpid(pid, &status, 0) == pid)
		err = chain_code(status);
	return err;
}

int scn_act_fork(struct scn_run *r, const long long *a)
{
	long long count = a[0], depth = a[1], hold = a[2], i;
	int status, code, killed = 0;
	struct gate g;
	pid_t pid;

	gate_open(r, &g, hold);
	for (i = 0; i < count; i++) {
		pid = fork();
		if (!pid)
			_exit(chain(g, depth));
		if (pid < 0)
			scn_err(r, "fork", errno);
	}
	gate_release(&g, hold);
	gate_close(&g);
	/* the step's children: earlier steps reaped theirs */
	while (wait(&status) > 0) {
		code = chain_code(status);
		if (code == CHAIN_KILLED)
			killed++;
		else if (code)
			scn_err(r, "fork", code);
	}
	return killed ? scn_fail(r, "%d of its chains had a process killed by a signal", killed)
		      : 0;
}

static void *thread_main(void *gate)
{
	gate_wait(gate);
	return NULL;
}

int scn_act_clone_threads(struct scn_run *r, const long long *a)
{
	long long count = a[0], hold = a[1], i, n = 0;
	pthread_t *tid = scn_alloc(r, count * sizeof(*tid));
	pthread_attr_t attr;
	struct gate g;
	int err;

	if (!tid)
		return 0;
	gate_open(r, &g, hold);
	pthread_attr_init(&attr);
	pthread_attr_setstacksize(&attr, THREAD_STACK);
	for (i = 0; i < count; i++) {
		err = pthread_create(&tid[n], &attr, thread_main, &g);
		if (err)
			scn_err(r, "clone", err);
		else
			n++;
	}
	pthread_attr_destroy(&attr);
	gate_release(&g, hold);
	while (n)
		pthread_join(tid[--n], NULL);
	gate_close(&g);
	free(tid);
	return 0;
}
