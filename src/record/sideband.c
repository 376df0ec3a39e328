/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * Perf side-band records from one dummy software event per CPU.
 *
 * Each CPU's event reports into its own ring.  A fork lands in the ring of
 * the parent's CPU while the child's exec and exit may land in another, so
 * records carry a time stamp and are handed over in time order across rings;
 * records stamped after the drain started wait for the next drain.
 */
#include "record/sideband.h"

#include <errno.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include <sys/epoll.h>
#include <sys/mman.h>
#include <sys/syscall.h>

#include "system/cpus.h"
#include "util/array.h"

/* a 5000-fork burst is ~10k fork/exit records: 1 MiB per CPU holds it */
#define RING_PAGES     256
#define RING_PAGES_MIN 8

struct ring {
	int fd;
	void *base; /* metadata page */
	const char *data;
	size_t size; /* of the data area, a power of two */
	__u64 head, tail;
	bool hung; /* its tasks are all gone: no longer watched */
};

struct sideband {
	int epfd;
	struct ring *rings;
	size_t nrings, cap;
	__u64 lost;
	__u64 bounce[65536 / sizeof(__u64)]; /* a record wrapping the ring end */
};

struct rec_lost {
	struct perf_event_header h;
	__u64 id, lost;
};

__u64 sideband_now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec * 1000000000ULL + ts.tv_nsec;
}

static struct perf_event_mmap_page *ring_meta(const struct ring *r)
{
	return r->base;
}

/* The time of the record at the ring's tail; false when none (or the ring is corrupt). */
static bool ring_peek(struct ring *r, __u64 *time, int *err)
{
	const struct perf_event_header *h;
	size_t mask = r->size - 1;

	if (r->tail >= r->head)
		return false;
	/* records are 8-byte aligned, so neither header nor time stamp wraps */
	h = (const void *)(r->data + (r->tail & mask));
	if (h->size < sizeof(*h) + sizeof(__u64) || h->size % 8 || h->size > r->head - r->tail) {
		r->tail = r->head;
		*err = -EIO;
		return false;
	}
	*time = *(const __u64 *)(r->data + ((r->tail + h->size - sizeof(__u64)) & mask));
	return true;
}

static void ring_close(struct ring *r)
{
	munmap(r->base, r->size + sysconf(_SC_PAGESIZE));
	close(r->fd);
}

/* Lost-record counts are the rings' business; the rest goes to fn. */
static int ring_consume(struct sideband *sb, struct ring *r, __u64 time, sideband_fn fn, void *ctx)
{
	size_t mask = r->size - 1, at = r->tail & mask, first;
	const struct perf_event_header *h = (const void *)(r->data + at);
	__u16 size = h->size;
	int err = 0;

	if (at + size > r->size) {
		first = r->size - at;
		memcpy(sb->bounce, r->data + at, first);
		memcpy((char *)sb->bounce + first, r->data, size - first);
		h = (const void *)sb->bounce;
	}
	if (h->type != PERF_RECORD_LOST)
		err = fn(h, time, ctx);
	else if (size >= sizeof(struct rec_lost) + sizeof(__u64))
		sb->lost += ((const struct rec_lost *)h)->lost;
	if (!err)
		r->tail += size;
	return err;
}

/* Stop watching rings whose tasks are all gone: they would poll as hung up forever. */
static void drop_hung(struct sideband *sb)
{
	struct epoll_event ev[16];
	size_t rounds = sb->nrings / 16 + 1;
	struct ring *r;
	int i, n;

	while (rounds-- && (n = epoll_wait(sb->epfd, ev, 16, 0)) > 0) {
		for (i = 0; i < n; i++) {
			if (!(ev[i].events & EPOLLHUP))
				continue;
			r = &sb->rings[ev[i].data.u64];
			epoll_ctl(sb->epfd, EPOLL_CTL_DEL, r->fd, NULL);
			r->hung = true;
		}
	}
}

/*
 * Hand the space read back to the kernel, and close the rings of tasks that
 * are gone once read to the end: a recording may follow one tree after
 * another (record --repeat), each with a ring per CPU.
 */
static void rings_done(struct sideband *sb)
{
	struct epoll_event ev = {.events = EPOLLIN};
	struct ring *r;
	size_t i, n = 0;

	for (i = 0; i < sb->nrings; i++) {
		r = &sb->rings[i];
		__atomic_store_n(&ring_meta(r)->data_tail, r->tail, __ATOMIC_RELEASE);
		/* hung before head was read: nothing can come after it */
		if (r->hung && r->tail == r->head) {
			ring_close(r);
			continue;
		}
		if (n != i) {
			sb->rings[n] = *r;
			ev.data.u64 = n;
			if (!r->hung)
				epoll_ctl(sb->epfd, EPOLL_CTL_MOD, r->fd, &ev);
		}
		n++;
	}
	sb->nrings = n;
}

/* The ring whose next record is the oldest, if that is not newer than cut. */
static struct ring *ring_oldest(struct sideband *sb, __u64 cut, __u64 *time, int *err)
{
	struct ring *best = NULL;
	__u64 t;
	size_t i;

	for (i = 0; i < sb->nrings; i++) {
		if (ring_peek(&sb->rings[i], &t, err) && t <= cut && (!best || t < *time)) {
			best = &sb->rings[i];
			*time = t;
		}
	}
	return best;
}

int sideband_drain(struct sideband *sb, sideband_fn fn, void *ctx)
{
	/* a record stamped after this may have older ones still on their way into other rings */
	__u64 cut = sideband_now(), time = 0;
	int n = 0, err = 0, ret;
	struct ring *r;
	size_t i;

	drop_hung(sb);
	for (i = 0; i < sb->nrings; i++) {
		r = &sb->rings[i];
		r->head = __atomic_load_n(&ring_meta(r)->data_head, __ATOMIC_ACQUIRE);
		r->tail = ring_meta(r)->data_tail;
	}
	while ((r = ring_oldest(sb, cut, &time, &err))) {
		ret = ring_consume(sb, r, time, fn, ctx);
		if (ret) {
			err = ret;
			break;
		}
		n++;
	}
	rings_done(sb);
	return err ?: n;
}

static int perf_open(pid_t pid, int cpu, bool inherit, bool build_id, size_t wakeup_bytes)
{
	struct perf_event_attr a = {
		.type = PERF_TYPE_SOFTWARE,
		.size = sizeof(a),
		.config = PERF_COUNT_SW_DUMMY,
		/* time stamps on every record: rings are merged in time order */
		.sample_type = PERF_SAMPLE_TIME,
		.sample_id_all = 1,
		.use_clockid = 1,
		.clockid = CLOCK_MONOTONIC,
		.inherit = inherit,
		.exclude_kernel = 1,
		.exclude_hv = 1,
		.mmap = 1,
		.mmap2 = 1,
		.comm = 1,
		.comm_exec = 1,
		.task = 1,
		.build_id = build_id,
		.watermark = 1,
		.wakeup_watermark = wakeup_bytes,
	};
	int fd = syscall(__NR_perf_event_open, &a, pid, cpu, -1, PERF_FLAG_FD_CLOEXEC);

	return fd < 0 ? -errno : fd;
}

/* Shrinks *pages while the locked-memory limit refuses the ring. */
static int ring_open(struct ring *r, pid_t pid, int cpu, bool inherit, size_t *pages,
		     bool *build_id)
{
	size_t pg = sysconf(_SC_PAGESIZE);
	int fd, err;

	for (;;) {
		fd = perf_open(pid, cpu, inherit, *build_id, *pages * pg / 4);
		/* build ids in mmap2 records need Linux 5.12 */
		if (fd == -EINVAL && *build_id) {
			*build_id = false;
			continue;
		}
		if (fd < 0)
			return fd;
		r->base = mmap(NULL, (*pages + 1) * pg, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
		if (r->base != MAP_FAILED)
			break;
		err = -errno;
		close(fd);
		if ((err != -EPERM && err != -ENOMEM) || *pages <= RING_PAGES_MIN)
			return err;
		*pages /= 2;
	}
	r->fd = fd;
	r->data = (const char *)r->base + pg;
	r->size = *pages * pg;
	return 0;
}

static int ring_add(struct sideband *sb, pid_t pid, int cpu, bool inherit, size_t *pages,
		    bool *build_id)
{
	struct epoll_event ev = {.events = EPOLLIN, .data.u64 = sb->nrings};
	struct ring *r;
	int err;

	if (array_reserve((void **)&sb->rings, &sb->cap, sb->nrings + 1, sizeof(*sb->rings)))
		return -ENOMEM;
	r = &sb->rings[sb->nrings];
	*r = (struct ring){};
	err = ring_open(r, pid, cpu, inherit, pages, build_id);
	if (err)
		return err;
	if (epoll_ctl(sb->epfd, EPOLL_CTL_ADD, r->fd, &ev)) {
		err = -errno;
		ring_close(r);
		return err;
	}
	sb->nrings++;
	return 0;
}

/* One ring per online CPU: the kernel maps no ring of an inherited event on all CPUs. */
static int follow_cpus(struct sideband *sb, pid_t pid, bool inherit)
{
	unsigned char mask[CPUS_MAX / 8];
	int ncpu = cpus_online(mask, CPUS_MAX), cpu, err;
	size_t pages = RING_PAGES;
	bool build_id = true;

	if (ncpu < 0)
		return ncpu;
	for (cpu = 0; cpu < ncpu; cpu++) {
		if (!cpus_has(mask, cpu))
			continue;
		err = ring_add(sb, pid, cpu, inherit, &pages, &build_id);
		if (err)
			return err;
	}
	return 0;
}

int sideband_follow(struct sideband *sb, pid_t pid)
{
	size_t start = sb->nrings;
	int err = follow_cpus(sb, pid, pid != -1);

	if (!err)
		return 0;
	while (sb->nrings > start) {
		sb->nrings--;
		epoll_ctl(sb->epfd, EPOLL_CTL_DEL, sb->rings[sb->nrings].fd, NULL);
		ring_close(&sb->rings[sb->nrings]);
	}
	return err;
}

int sideband_fd(const struct sideband *sb)
{
	return sb->epfd;
}

__u64 sideband_lost(const struct sideband *sb)
{
	return sb->lost;
}

int sideband_new(struct sideband **out)
{
	struct sideband *sb = calloc(1, sizeof(*sb));
	int err;

	if (!sb)
		return -ENOMEM;
	sb->epfd = epoll_create1(EPOLL_CLOEXEC);
	if (sb->epfd < 0) {
		err = -errno;
		free(sb);
		return err;
	}
	*out = sb;
	return 0;
}

void sideband_free(struct sideband *sb)
{
	size_t i;

	if (!sb)
		return;
	for (i = 0; i < sb->nrings; i++)
		ring_close(&sb->rings[i]);
	free(sb->rings);
	close(sb->epfd);
	free(sb);
}
