// SPDX-License-Identifier: GPL-2.0-only
/* The actions on event and message objects: eventfd, epoll and msg (System V queues). */
#include "explore/scenario_int.h"

#include <errno.h>
#include <stdlib.h>
#include <sys/epoll.h>
#include <sys/eventfd.h>
#include <sys/msg.h>
#include <unistd.h>
#include <linux/types.h>

/* Events taken by one epoll_wait: any number will do, all stay ready. */
#define EVENTS 64

/* A new eventfd added to the epoll set ep (when there is one): the eventfd, or -1. */
static int watched_eventfd(struct scn_run *r, int ep)
{
	struct epoll_event ev = {.events = EPOLLIN};
	int fd = eventfd(0, EFD_NONBLOCK | EFD_CLOEXEC);

	if (fd < 0) {
		scn_err(r, "eventfd", errno);
		return -1;
	}
	if (ep >= 0 && epoll_ctl(ep, EPOLL_CTL_ADD, fd, &ev))
		scn_err(r, "epoll_ctl", errno);
	return fd;
}

static int new_epoll(struct scn_run *r)
{
	int ep = epoll_create1(EPOLL_CLOEXEC);

	if (ep < 0)
		scn_err(r, "epoll_create", errno);
	return ep;
}

int scn_act_eventfd(struct scn_run *r, const long long *a)
{
	long long count = a[0], i;
	int *fd = scn_fds(r, count + 1);
	struct epoll_event got[EVENTS];
	__u64 one = 1;

	if (!fd)
		return 0;
	fd[count] = new_epoll(r);
	for (i = 0; i < count; i++) {
		fd[i] = watched_eventfd(r, fd[count]);
		if (fd[i] >= 0 && write(fd[i], &one, sizeof(one)) < 0)
			scn_err(r, "write", errno);
	}
	if (fd[count] >= 0 && epoll_wait(fd[count], got, EVENTS, 0) < 0)
		scn_err(r, "epoll_wait", errno);
	scn_close_all(fd, count + 1);
	free(fd);
	return 0;
}

/* fd[0]: the outer set; then each inner set followed by its fds eventfds. */
int scn_act_epoll(struct scn_run *r, const long long *a)
{
	long long count = a[0], fds = a[1], i, k;
	size_t n = 1 + count * (1 + fds);
	struct epoll_event ev = {.events = EPOLLIN};
	int *fd = scn_fds(r, n), *inner;

	if (!fd)
		return 0;
	fd[0] = new_epoll(r);
	for (i = 0; i < count; i++) {
		inner = fd + 1 + i * (1 + fds);
		inner[0] = new_epoll(r);
		if (inner[0] < 0)
			continue;
		for (k = 1; k <= fds; k++)
			inner[k] = watched_eventfd(r, inner[0]);
		if (fd[0] >= 0 && epoll_ctl(fd[0], EPOLL_CTL_ADD, inner[0], &ev))
			scn_err(r, "epoll_ctl", errno);
	}
	scn_close_all(fd, n);
	free(fd);
	return 0;
}

/* The n messages in the queue taken out again. */
static void drain(struct scn_run *r, int q, struct msgbuf *m, long long size, long long n)
{
	for (; n > 0; n--) {
		if (msgrcv(q, m, size, 0, IPC_NOWAIT) < 0) {
			scn_err(r, "msgrcv", errno);
			return;
		}
	}
}

/* 0 or the errno of msgsnd. */
static int send_one(int q, struct msgbuf *m, long long size)
{
	m->mtype = 1;
	return msgsnd(q, m, size, IPC_NOWAIT) ? errno : 0;
}

/*
 * The queue was made by the supervisor, which removes it even when this
 * process is killed: a System V queue outlives its processes.
 */
int scn_act_msg(struct scn_run *r, const long long *a)
{
	long long count = a[0], size = a[1], i, queued = 0;
	struct msgbuf *m = (void *)scn_buffer(r, sizeof(long) + size);
	int q = r->msgq[r->tally->step], err;

	/* without a queue, msgget's error was counted */
	if (q < 0 || !m)
		return 0;
	for (i = 0; i < count; i++) {
		err = send_one(q, m, size);
		/* a full queue: emptied, and the message sent again */
		if (err == EAGAIN && queued) {
			drain(r, q, m, size, queued);
			queued = 0;
			err = send_one(q, m, size);
		}
		if (err)
			scn_err(r, "msgsnd", err);
		else
			queued++;
	}
	drain(r, q, m, size, queued);
	return 0;
}
