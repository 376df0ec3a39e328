// SPDX-License-Identifier: GPL-2.0-only
/*
 * The event loop of a recording: one epoll over the signals that stop it,
 * the target's exit and the side-band records of its processes, with the
 * progress line on a terminal once a second.
 */
#include "record/session.h"

#include <errno.h>
#include <stdio.h>
#include <time.h>
#include <unistd.h>
#include <sys/epoll.h>
#include <sys/signalfd.h>
#include <poll.h>
#include <bpf/libbpf.h>

#include "kprotperf.h"
#include "record.skel.h"
#include "record/collect.h"
#include "record/procs.h"
#include "record/record.h"
#include "record/stackstore.h"
#include "record/ustack_dwarf.h"

enum { SRC_SIGNAL, SRC_TARGET, SRC_PROCS, SRC_RING };

/* the ring buffer is drained this often, and whenever it is a quarter full */
#define RING_TICK_NS 100000000ULL

__u64 events_now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec * 1000000000ULL + ts.tv_nsec;
}

static int watch(int epfd, int fd, __u32 tag)
{
	struct epoll_event ev = {.events = EPOLLIN, .data.u32 = tag};

	return fd < 0 || !epoll_ctl(epfd, EPOLL_CTL_ADD, fd, &ev) ? 0 : -errno;
}

int events_setup(struct session *s)
{
	int err;

	s->epfd = epoll_create1(EPOLL_CLOEXEC);
	if (s->epfd < 0)
		return -errno;
	err = watch(s->epfd, s->sigfd, SRC_SIGNAL);
	err = err ?: watch(s->epfd, s->pidfd, SRC_TARGET);
	err = err ?: watch(s->epfd, stackstore_fd(s->stacks), SRC_RING);
	return err ?: watch(s->epfd, procs_fd(s->procs), SRC_PROCS);
}

int events_watch_target(struct session *s)
{
	return watch(s->epfd, s->pidfd, SRC_TARGET);
}

__u64 events_lost(struct session *s)
{
	__u64 n = procs_lost(s->procs) + stackstore_bad(s->stacks);
	int i;

	if (s->dwarf)
		n += ustack_dwarf_failed(s->dwarf);
	for (i = KP_CNT_LOST_KSTACK; i < KP_CNT_MAX; i++)
		n += s->counts[i];
	return n;
}

static void progress(struct session *s, __u64 now)
{
	char run[48] = "";

	if (s->o->repeat > 1)
		snprintf(run, sizeof(run), "run %u of %u, ", s->run + 1, s->o->repeat);
	collect_counters(bpf_map__fd(s->skel->maps.counters), s->counts);
	fprintf(stderr, "\rkprotperf: %s%.1f s, %llu samples, %llu syscalls, %llu lost ", run,
		(now - s->wall_ns) / 1e9, (unsigned long long)s->counts[KP_CNT_SAMPLES],
		(unsigned long long)s->counts[KP_CNT_SYSCALLS], (unsigned long long)events_lost(s));
	s->line_open = true;
}

void events_end_line(struct session *s)
{
	if (s->line_open)
		fputc('\n', stderr);
	s->line_open = false;
}

int events_drain_procs(struct session *s)
{
	int n = procs_drain(s->procs);

	return n < 0 ? n : 0;
}

int events_drain_ring(struct session *s)
{
	/* first the mmaps, execs and forks: dwarf stacks are unwound in those address spaces */
	int n = s->dwarf ? procs_drain(s->procs) : 0;

	if (n >= 0)
		n = stackstore_drain(s->stacks);
	return n < 0 ? n : 0;
}

int events_handle(struct session *s, __u32 tag)
{
	struct signalfd_siginfo si;

	switch (tag) {
	case SRC_SIGNAL:
		if (read(s->sigfd, &si, sizeof(si)) != sizeof(si))
			return -errno;
		s->end = END_INTERRUPTED;
		return 1;
	case SRC_TARGET:
		s->end = END_EXITED;
		return 1;
	case SRC_RING:
		return events_drain_ring(s);
	default:
		return events_drain_procs(s);
	}
}

bool events_signal_waiting(const struct session *s)
{
	struct pollfd p = {.fd = s->sigfd, .events = POLLIN};

	return poll(&p, 1, 0) == 1;
}

/* Every RING_TICK_NS: the ring drained, and once a second the progress line. */
static int on_tick(struct session *s, __u64 now, __u64 *tick, __u64 *shown)
{
	if (now < *tick)
		return 0;
	*tick = now + RING_TICK_NS;
	if (!s->o->quiet && isatty(STDERR_FILENO) && now - *shown >= 1000000000ULL) {
		progress(s, now);
		*shown = now;
	}
	return events_drain_ring(s);
}

int events_loop(struct session *s)
{
	const struct record_opts *o = s->o;
	__u64 start = s->wall_ns, now = events_now(), tick = now + RING_TICK_NS, shown = now, until;
	__u64 deadline = o->duration > 0 ? start + (__u64)(o->duration * 1e9) : 0;
	struct epoll_event ev[4];
	int n, i, r;

	for (;;) {
		now = events_now();
		until = deadline && deadline < tick ? deadline : tick;
		n = epoll_wait(s->epfd, ev, 4, until > now ? (until - now) / 1000000 + 1 : 0);
		if (n < 0 && errno != EINTR)
			return -errno;
		for (i = 0; i < n; i++) {
			r = events_handle(s, ev[i].data.u32);
			if (r)
				return r < 0 ? r : 0;
		}
		now = events_now();
		if (deadline && now >= deadline) {
			s->end = END_DURATION;
			return 0;
		}
		r = on_tick(s, now, &tick, &shown);
		if (r)
			return r;
	}
}
