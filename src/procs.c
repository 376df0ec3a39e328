/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * Processes of the traced tree from perf side-band records.
 *
 * One dummy software event per CPU reports mmap2/comm/fork/exit records of
 * the tree into its own ring.  A fork lands in the ring of the parent's CPU
 * while the child's exec and exit may land in another, so records carry a
 * time stamp and are applied in time order across rings; records stamped
 * after the drain started wait for the next drain.
 *
 * A forked child does not copy its parent's mappings: its address space
 * points at the parent's, limited to the mappings that existed at the fork.
 * ELF files are read only when a frame is resolved, once per file.
 */
#include <errno.h>
#include <fcntl.h>
#include <gelf.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include <linux/perf_event.h>
#include <sys/epoll.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <sys/syscall.h>

#include "procs.h"

/* a 5000-fork burst is ~10k fork/exit records: 1 MiB per CPU holds it */
#define RING_PAGES     256
#define RING_PAGES_MIN 8
#define BID_LEN	       20 /* the kernel's BUILD_ID_SIZE_MAX */
#define BID_HEX	       (2 * BID_LEN + 1)
#define DEBUG_DIR      "/usr/lib/debug/.build-id/"

struct ring {
	int fd;
	void *base; /* metadata page */
	const char *data;
	size_t size; /* of the data area, a power of two */
	__u64 head, tail;
};

struct pmap {
	__u64 start, end, pgoff;
	const char *path, *bid; /* interned */
	pid_t pid;
	struct elff *file; /* set at the first resolve */
};

/* A forked child sees its parent's maps with an index below parent_limit. */
struct aspace {
	const struct aspace *parent;
	size_t parent_limit;
	__u32 *idx; /* into procs.maps, oldest first */
	size_t n, cap;
};

struct proc {
	struct proc_task t;
	struct aspace *as;
	__u64 snap_ns; /* when read from /proc: older records predate that state */
};

struct fsym {
	__u64 addr, end;
	__u32 name; /* offset into elff.names */
	__u32 rank; /* among aliases at one address the lowest is kept */
};

struct seg {
	__u64 off, filesz, vaddr;
};

struct elff {
	const char *path, *bid; /* the key, interned */
	const char *file_bid;	/* of the file on disk when it was read */
	struct seg *segs;
	size_t nsegs, segs_cap;
	struct fsym *syms;
	size_t nsyms, syms_cap;
	char *names;
	size_t names_len, names_cap;
};

struct bid_memo {
	const char *path, *bid;
};

struct procs {
	int epfd;
	struct ring *rings;
	size_t nrings, rings_cap;
	__u64 lost;
	struct proc **tasks; /* every process ever seen, in order */
	size_t ntasks, tasks_cap;
	struct proc **pids; /* hash: pid -> current process */
	size_t npids, pids_cap;
	struct aspace **as;
	size_t nas, as_cap;
	struct pmap *maps; /* every mapping ever seen, in order */
	size_t nmaps, maps_cap;
	char **strs; /* hash set of interned strings */
	size_t nstrs, strs_cap;
	struct elff **files;
	size_t nfiles, files_cap;
	struct bid_memo *memo; /* build ids of files read by snapshots */
	size_t nmemo, memo_cap;
	__u64 bounce[65536 / sizeof(__u64)]; /* a record wrapping the ring end */
};

struct rec_mmap {
	struct perf_event_header h;
	__u32 pid, tid;
	__u64 addr, len, pgoff;
	char filename[];
};

struct rec_mmap2 {
	struct perf_event_header h;
	__u32 pid, tid;
	__u64 addr, len, pgoff;
	union {
		struct {
			__u32 maj, min;
			__u64 ino, ino_generation;
		};
		struct {
			__u8 bid_size, reserved1;
			__u16 reserved2;
			__u8 bid[BID_LEN];
		};
	};
	__u32 prot, flags;
	char filename[];
};

struct rec_comm {
	struct perf_event_header h;
	__u32 pid, tid;
	char comm[];
};

struct rec_task {
	struct perf_event_header h;
	__u32 pid, ppid, tid, ptid;
	__u64 time;
};

struct rec_lost {
	struct perf_event_header h;
	__u64 id, lost;
};

static void *grow(void *arr, size_t *cap, size_t need, size_t size)
{
	size_t n = *cap ? *cap : 16;
	void *tmp;

	if (need <= *cap)
		return arr;
	while (n < need)
		n *= 2;
	tmp = reallocarray(arr, n, size);
	if (tmp)
		*cap = n;
	return tmp;
}

static __u64 now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec * 1000000000ULL + ts.tv_nsec;
}

static int read_small(const char *path, char *buf, size_t size)
{
	ssize_t n;
	int fd, err = 0;

	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return -errno;
	n = read(fd, buf, size - 1);
	if (n < 0)
		err = -errno;
	else
		buf[n] = '\0';
	close(fd);
	return err;
}

static __u64 str_hash(const char *s, size_t len)
{
	__u64 h = 0xcbf29ce484222325ULL;

	while (len--)
		h = (h ^ (unsigned char)*s++) * 0x100000001b3ULL;
	return h;
}

static int strs_rehash(struct procs *p)
{
	size_t cap = p->strs_cap ? 2 * p->strs_cap : 256, i, j;
	char **slot = calloc(cap, sizeof(*slot));

	if (!slot)
		return -ENOMEM;
	for (i = 0; i < p->strs_cap; i++) {
		if (!p->strs[i])
			continue;
		j = str_hash(p->strs[i], strlen(p->strs[i])) & (cap - 1);
		while (slot[j])
			j = (j + 1) & (cap - 1);
		slot[j] = p->strs[i];
	}
	free(p->strs);
	p->strs = slot;
	p->strs_cap = cap;
	return 0;
}

/* The one copy of s[0..len) owned by p, so equal strings compare by pointer. */
static const char *intern(struct procs *p, const char *s, size_t len)
{
	size_t mask, i;
	char *dup;

	if (2 * (p->nstrs + 1) > p->strs_cap && strs_rehash(p))
		return NULL;
	mask = p->strs_cap - 1;
	for (i = str_hash(s, len) & mask; p->strs[i]; i = (i + 1) & mask)
		if (!strncmp(p->strs[i], s, len) && !p->strs[i][len])
			return p->strs[i];
	dup = strndup(s, len);
	if (!dup)
		return NULL;
	p->strs[i] = dup;
	p->nstrs++;
	return dup;
}

static size_t pid_slot(const struct procs *p, pid_t pid)
{
	size_t mask = p->pids_cap - 1, i = ((__u32)pid * 2654435761U) & mask;

	while (p->pids[i] && p->pids[i]->t.pid != pid)
		i = (i + 1) & mask;
	return i;
}

static int pids_reserve(struct procs *p)
{
	struct proc **old = p->pids;
	size_t cap = p->pids_cap, i;

	if (2 * (p->npids + 1) <= cap)
		return 0;
	p->pids_cap = cap ? 2 * cap : 256;
	p->pids = calloc(p->pids_cap, sizeof(*p->pids));
	if (!p->pids) {
		p->pids = old;
		p->pids_cap = cap;
		return -ENOMEM;
	}
	for (i = 0; i < cap; i++)
		if (old[i])
			p->pids[pid_slot(p, old[i]->t.pid)] = old[i];
	free(old);
	return 0;
}

static struct proc *proc_find(const struct procs *p, pid_t pid)
{
	return p->pids_cap ? p->pids[pid_slot(p, pid)] : NULL;
}

static struct aspace *as_new(struct procs *p, const struct aspace *parent)
{
	struct aspace **tmp, *as;

	tmp = grow(p->as, &p->as_cap, p->nas + 1, sizeof(*p->as));
	if (!tmp)
		return NULL;
	p->as = tmp;
	as = calloc(1, sizeof(*as));
	if (!as)
		return NULL;
	as->parent = parent;
	as->parent_limit = p->nmaps;
	p->as[p->nas++] = as;
	return as;
}

/* A new process for pid; one known under that pid before has exited (pid reuse). */
static struct proc *proc_new(struct procs *p, pid_t pid, const struct aspace *parent)
{
	struct proc **tmp, **slot, *pr;

	tmp = grow(p->tasks, &p->tasks_cap, p->ntasks + 1, sizeof(*p->tasks));
	if (!tmp)
		return NULL;
	p->tasks = tmp;
	if (pids_reserve(p))
		return NULL;
	pr = calloc(1, sizeof(*pr));
	if (!pr)
		return NULL;
	pr->as = as_new(p, parent);
	if (!pr->as) {
		free(pr);
		return NULL;
	}
	pr->t.pid = pid;
	p->tasks[p->ntasks++] = pr;
	slot = &p->pids[pid_slot(p, pid)];
	if (*slot)
		(*slot)->t.exited = true;
	else
		p->npids++;
	*slot = pr;
	return pr;
}

static void set_comm(struct proc_task *t, const char *s, size_t len)
{
	memset(t->comm, 0, sizeof(t->comm));
	memcpy(t->comm, s, len < sizeof(t->comm) ? len : sizeof(t->comm) - 1);
}

static int read_task(pid_t pid, struct proc_task *t)
{
	char path[64], buf[1024], *s;
	int err;

	snprintf(path, sizeof(path), "/proc/%d/stat", pid);
	err = read_small(path, buf, sizeof(buf));
	if (err)
		return err;
	/* the comm in stat may hold spaces and parentheses: skip to the last ')' */
	s = strrchr(buf, ')');
	if (!s || sscanf(s + 1, " %*c %d", &t->ppid) != 1)
		return -EINVAL;
	snprintf(path, sizeof(path), "/proc/%d/comm", pid);
	err = read_small(path, buf, sizeof(buf));
	if (err)
		return err;
	set_comm(t, buf, strcspn(buf, "\n"));
	return 0;
}

/* A process first met in a record: whatever /proc still tells about it. */
static struct proc *proc_get(struct procs *p, pid_t pid)
{
	struct proc *pr = proc_find(p, pid);

	if (pr)
		return pr;
	pr = proc_new(p, pid, NULL);
	if (pr)
		read_task(pid, &pr->t);
	return pr;
}

/* The latest mapping of as containing ip. */
static struct pmap *as_lookup(const struct procs *p, const struct aspace *as, __u64 ip)
{
	size_t limit = SIZE_MAX, i;
	struct pmap *m;

	for (; as; limit = as->parent_limit, as = as->parent) {
		for (i = as->n; i-- > 0;) {
			m = &p->maps[as->idx[i]];
			if (as->idx[i] < limit && ip >= m->start && ip < m->end)
				return m;
		}
	}
	return NULL;
}

static int map_add(struct procs *p, struct proc *pr, const struct pmap *m)
{
	struct aspace *as = pr->as;
	struct pmap *old, *tmp;
	__u32 *idx;

	old = as_lookup(p, as, m->start);
	if (old && old->start == m->start && old->end == m->end && old->pgoff == m->pgoff &&
	    old->path == m->path && old->bid == m->bid)
		return 0;
	tmp = grow(p->maps, &p->maps_cap, p->nmaps + 1, sizeof(*p->maps));
	if (!tmp)
		return -ENOMEM;
	p->maps = tmp;
	idx = grow(as->idx, &as->cap, as->n + 1, sizeof(*as->idx));
	if (!idx)
		return -ENOMEM;
	as->idx = idx;
	p->maps[p->nmaps] = *m;
	p->maps[p->nmaps].pid = pr->t.pid;
	p->maps[p->nmaps].file = NULL;
	as->idx[as->n++] = p->nmaps++;
	return 0;
}

/* Files, and the vdso whose frames are still told apart; not anonymous code. */
static bool keep_path(const char *name, size_t len)
{
	if (len == 6 && !memcmp(name, "[vdso]", 6))
		return true;
	return len && name[0] == '/' && !(len >= 6 && !memcmp(name, "//anon", 6));
}

static void bid_hex(const __u8 *bid, size_t len, char *hex)
{
	size_t i;

	for (i = 0; i < len && i < BID_LEN; i++)
		sprintf(hex + 2 * i, "%02x", bid[i]);
	hex[2 * i] = '\0';
}

/* m holds the addresses; the name is not NUL-terminated when it fills its field */
static int record_map(struct procs *p, pid_t pid, struct pmap *m, const char *name, size_t name_max,
		      const char *hex)
{
	size_t len = strnlen(name, name_max);
	struct proc *pr;

	if (!keep_path(name, len))
		return 0;
	m->path = intern(p, name, len);
	m->bid = intern(p, hex, strlen(hex));
	pr = proc_get(p, pid);
	if (!m->path || !m->bid || !pr)
		return -ENOMEM;
	return map_add(p, pr, m);
}

static int on_mmap2(struct procs *p, const struct perf_event_header *h)
{
	const struct rec_mmap2 *r = (const void *)h;
	struct pmap m = {.start = r->addr, .end = r->addr + r->len, .pgoff = r->pgoff};
	char hex[BID_HEX] = "";

	if (!(r->prot & PROT_EXEC))
		return 0;
	if (h->misc & PERF_RECORD_MISC_MMAP_BUILD_ID)
		bid_hex(r->bid, r->bid_size, hex);
	return record_map(p, r->pid, &m, r->filename, h->size - sizeof(*r) - sizeof(__u64), hex);
}

/* Kernels before mmap2: only executable mappings unless MMAP_DATA, no build id. */
static int on_mmap(struct procs *p, const struct perf_event_header *h)
{
	const struct rec_mmap *r = (const void *)h;
	struct pmap m = {.start = r->addr, .end = r->addr + r->len, .pgoff = r->pgoff};

	if (h->misc & PERF_RECORD_MISC_MMAP_DATA)
		return 0;
	return record_map(p, r->pid, &m, r->filename, h->size - sizeof(*r) - sizeof(__u64), "");
}

static int on_comm(struct procs *p, const struct perf_event_header *h, __u64 time)
{
	const struct rec_comm *r = (const void *)h;
	bool exec = h->misc & PERF_RECORD_MISC_COMM_EXEC;
	struct proc *pr;

	/* a thread renaming itself does not rename the process */
	if (!exec && r->pid != r->tid)
		return 0;
	pr = proc_get(p, r->pid);
	if (!pr)
		return -ENOMEM;
	/* a snapshot taken after this record already shows its effect */
	if (time < pr->snap_ns)
		return 0;
	if (exec) {
		pr->as = as_new(p, NULL);
		if (!pr->as)
			return -ENOMEM;
	}
	set_comm(&pr->t, r->comm, strnlen(r->comm, h->size - sizeof(*r) - sizeof(__u64)));
	return 0;
}

static int on_fork(struct procs *p, const struct rec_task *r)
{
	struct proc *parent, *pr;

	/* a new thread, not a new process */
	if (r->pid == r->ppid)
		return 0;
	parent = proc_get(p, r->ppid);
	if (!parent)
		return -ENOMEM;
	pr = proc_find(p, r->pid);
	/* a snapshot taken after the fork already holds the inherited maps */
	if (!pr || pr->t.exited || r->time >= pr->snap_ns) {
		pr = proc_new(p, r->pid, parent->as);
		if (!pr)
			return -ENOMEM;
		memcpy(pr->t.comm, parent->t.comm, sizeof(pr->t.comm));
	}
	pr->t.ppid = r->ppid;
	return 0;
}

static void on_task_exit(struct procs *p, const struct rec_task *r)
{
	struct proc *pr = proc_find(p, r->pid);

	/* only the group leader's exit ends the process */
	if (pr && r->pid == r->tid && r->time >= pr->snap_ns)
		pr->t.exited = true;
}

static int on_record(struct procs *p, const struct perf_event_header *h, __u64 time)
{
	static const __u16 min_size[] = {
		[PERF_RECORD_MMAP] = sizeof(struct rec_mmap),
		[PERF_RECORD_LOST] = sizeof(struct rec_lost),
		[PERF_RECORD_COMM] = sizeof(struct rec_comm),
		[PERF_RECORD_EXIT] = sizeof(struct rec_task),
		[PERF_RECORD_FORK] = sizeof(struct rec_task),
		[PERF_RECORD_MMAP2] = sizeof(struct rec_mmap2),
	};

	/* every record is followed by its time stamp (sample_id_all) */
	if (h->type >= sizeof(min_size) / sizeof(min_size[0]) ||
	    h->size < min_size[h->type] + sizeof(__u64))
		return 0;
	switch (h->type) {
	case PERF_RECORD_MMAP2:
		return on_mmap2(p, h);
	case PERF_RECORD_MMAP:
		return on_mmap(p, h);
	case PERF_RECORD_COMM:
		return on_comm(p, h, time);
	case PERF_RECORD_FORK:
		return on_fork(p, (const void *)h);
	case PERF_RECORD_EXIT:
		on_task_exit(p, (const void *)h);
		return 0;
	case PERF_RECORD_LOST:
		p->lost += ((const struct rec_lost *)h)->lost;
		return 0;
	}
	return 0;
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

static int ring_consume(struct procs *p, struct ring *r, __u64 time)
{
	size_t mask = r->size - 1, at = r->tail & mask, first;
	const struct perf_event_header *h = (const void *)(r->data + at);
	__u16 size = h->size;
	int err;

	if (at + size > r->size) {
		first = r->size - at;
		memcpy(p->bounce, r->data + at, first);
		memcpy((char *)p->bounce + first, r->data, size - first);
		h = (const void *)p->bounce;
	}
	err = on_record(p, h, time);
	if (!err)
		r->tail += size;
	return err;
}

/* Stop watching rings whose tasks are all gone: they would poll as hung up forever. */
static void drop_hung(struct procs *p)
{
	struct epoll_event ev[16];
	size_t rounds = p->nrings / 16 + 1;
	int i, n;

	while (rounds-- && (n = epoll_wait(p->epfd, ev, 16, 0)) > 0) {
		for (i = 0; i < n; i++)
			if (ev[i].events & EPOLLHUP)
				epoll_ctl(p->epfd, EPOLL_CTL_DEL, p->rings[ev[i].data.u64].fd,
					  NULL);
	}
}

/* The ring whose next record is the oldest, if that is not newer than cut. */
static struct ring *ring_oldest(struct procs *p, __u64 cut, __u64 *time, int *err)
{
	struct ring *best = NULL;
	__u64 t;
	size_t i;

	for (i = 0; i < p->nrings; i++) {
		if (ring_peek(&p->rings[i], &t, err) && t <= cut && (!best || t < *time)) {
			best = &p->rings[i];
			*time = t;
		}
	}
	return best;
}

static struct perf_event_mmap_page *ring_meta(const struct ring *r)
{
	return r->base;
}

int procs_drain(struct procs *p)
{
	/* records stamped later may still be half written in another ring */
	__u64 cut = now_ns(), time = 0;
	int n = 0, err = 0, ret;
	struct ring *r;
	size_t i;

	drop_hung(p);
	for (i = 0; i < p->nrings; i++) {
		r = &p->rings[i];
		r->head = __atomic_load_n(&ring_meta(r)->data_head, __ATOMIC_ACQUIRE);
		r->tail = ring_meta(r)->data_tail;
	}
	while ((r = ring_oldest(p, cut, &time, &err))) {
		ret = ring_consume(p, r, time);
		if (ret) {
			err = ret;
			break;
		}
		n++;
	}
	for (i = 0; i < p->nrings; i++) {
		r = &p->rings[i];
		__atomic_store_n(&ring_meta(r)->data_tail, r->tail, __ATOMIC_RELEASE);
	}
	return err ?: n;
}

static int perf_open(pid_t pid, int cpu, bool build_id, size_t wakeup_bytes)
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
		.inherit = pid != -1,
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

static void ring_close(struct ring *r)
{
	munmap(r->base, r->size + sysconf(_SC_PAGESIZE));
	close(r->fd);
}

/* Shrinks *pages while the locked-memory limit refuses the ring. */
static int ring_open(struct ring *r, pid_t pid, int cpu, size_t *pages, bool *build_id)
{
	size_t pg = sysconf(_SC_PAGESIZE);
	int fd, err;

	for (;;) {
		fd = perf_open(pid, cpu, *build_id, *pages * pg / 4);
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

static int ring_add(struct procs *p, pid_t pid, int cpu, size_t *pages, bool *build_id)
{
	struct epoll_event ev = {.events = EPOLLIN, .data.u64 = p->nrings};
	struct ring *r;
	int err;

	r = grow(p->rings, &p->rings_cap, p->nrings + 1, sizeof(*p->rings));
	if (!r)
		return -ENOMEM;
	p->rings = r;
	r = &p->rings[p->nrings];
	err = ring_open(r, pid, cpu, pages, build_id);
	if (err)
		return err;
	if (epoll_ctl(p->epfd, EPOLL_CTL_ADD, r->fd, &ev)) {
		err = -errno;
		ring_close(r);
		return err;
	}
	p->nrings++;
	return 0;
}

/* One ring per online CPU: the kernel maps no ring of an inherited event on all CPUs. */
static int follow_cpus(struct procs *p, pid_t pid, const char *list)
{
	size_t pages = RING_PAGES;
	bool build_id = true;
	const char *s = list;
	char *end;
	long lo, hi;
	int err;

	while (*s && *s != '\n') {
		lo = hi = strtol(s, &end, 10);
		if (*end == '-')
			hi = strtol(end + 1, &end, 10);
		if (end == s || hi < lo || (*end && *end != ',' && *end != '\n'))
			return -EINVAL;
		for (; lo <= hi; lo++) {
			err = ring_add(p, pid, lo, &pages, &build_id);
			if (err)
				return err;
		}
		s = *end == ',' ? end + 1 : end;
	}
	return 0;
}

int procs_follow(struct procs *p, pid_t pid)
{
	size_t start = p->nrings;
	char list[4096];
	int err;

	err = read_small("/sys/devices/system/cpu/online", list, sizeof(list));
	if (!err)
		err = follow_cpus(p, pid, list);
	/* its parent and name while /proc still has them: it may exit before a drain */
	if (!err && pid > 0 && !proc_get(p, pid))
		err = -ENOMEM;
	if (!err)
		return 0;
	while (p->nrings > start) {
		p->nrings--;
		epoll_ctl(p->epfd, EPOLL_CTL_DEL, p->rings[p->nrings].fd, NULL);
		ring_close(&p->rings[p->nrings]);
	}
	return err;
}

struct elfh {
	int fd;
	Elf *e;
};

static void elf_close(struct elfh *h)
{
	if (!h->e)
		return;
	elf_end(h->e);
	close(h->fd);
	h->e = NULL;
	h->fd = -1;
}

static int elf_open(const char *path, struct elfh *h)
{
	struct stat st;
	int err = -ENOEXEC;

	h->e = NULL;
	h->fd = open(path, O_RDONLY | O_CLOEXEC);
	if (h->fd < 0)
		return -errno;
	if (fstat(h->fd, &st) || !S_ISREG(st.st_mode))
		goto err_close;
	h->e = elf_begin(h->fd, ELF_C_READ_MMAP, NULL);
	if (h->e && elf_kind(h->e) == ELF_K_ELF)
		return 0;
	elf_end(h->e);
	h->e = NULL;
err_close:
	close(h->fd);
	h->fd = -1;
	return err;
}

static bool note_build_id(Elf_Data *d, char *hex)
{
	size_t off = 0, next, name_off, desc_off;
	GElf_Nhdr nh;

	while ((next = gelf_getnote(d, off, &nh, &name_off, &desc_off)) > 0) {
		if (nh.n_type == NT_GNU_BUILD_ID && nh.n_namesz == 4 &&
		    !memcmp((const char *)d->d_buf + name_off, "GNU", 4) && nh.n_descsz) {
			bid_hex((const __u8 *)d->d_buf + desc_off, nh.n_descsz, hex);
			return true;
		}
		off = next;
	}
	return false;
}

/* The GNU build id note as hex, "" when the file has none. */
static void elf_build_id(Elf *e, char *hex)
{
	Elf_Scn *scn = NULL;
	GElf_Shdr sh;
	GElf_Phdr ph;
	Elf_Data *d;
	size_t i, n;

	hex[0] = '\0';
	while ((scn = elf_nextscn(e, scn))) {
		d = gelf_getshdr(scn, &sh) && sh.sh_type == SHT_NOTE ? elf_getdata(scn, NULL)
								     : NULL;
		if (d && note_build_id(d, hex))
			return;
	}
	/* no section headers: the notes are still found through the program headers */
	if (elf_getphdrnum(e, &n))
		return;
	for (i = 0; i < n; i++) {
		if (!gelf_getphdr(e, i, &ph) || ph.p_type != PT_NOTE)
			continue;
		d = elf_getdata_rawchunk(e, ph.p_offset, ph.p_filesz,
					 ph.p_align == 8 ? ELF_T_NHDR8 : ELF_T_NHDR);
		if (d && note_build_id(d, hex))
			return;
	}
}

static int load_segs(struct elff *f, Elf *e)
{
	struct seg *tmp;
	GElf_Phdr ph;
	size_t i, n;

	if (elf_getphdrnum(e, &n))
		return 0;
	for (i = 0; i < n; i++) {
		if (!gelf_getphdr(e, i, &ph) || ph.p_type != PT_LOAD)
			continue;
		tmp = grow(f->segs, &f->segs_cap, f->nsegs + 1, sizeof(*f->segs));
		if (!tmp)
			return -ENOMEM;
		f->segs = tmp;
		f->segs[f->nsegs++] = (struct seg){ph.p_offset, ph.p_filesz, ph.p_vaddr};
	}
	return 0;
}

/* Among aliases prefer a sized, global name with few leading underscores (as perf does). */
static __u32 sym_rank(const GElf_Sym *s, const char *name)
{
	int bind = GELF_ST_BIND(s->st_info);
	__u32 rank = bind == STB_GLOBAL ? 0 : bind == STB_WEAK ? 1 : 2;
	size_t us = strspn(name, "_");

	return (s->st_size ? 0 : 1u << 16) | rank << 8 | (us < 255 ? us : 255);
}

static int sym_add(struct elff *f, Elf *e, size_t strtab, const GElf_Sym *s)
{
	const char *name = elf_strptr(e, strtab, s->st_name);
	size_t len = name ? strlen(name) + 1 : 0;
	struct fsym *tmp;
	GElf_Shdr sec;
	char *names;
	__u64 end;

	if (len <= 1)
		return 0;
	/* a symbol without a size reaches at most to the end of its section */
	if (s->st_size)
		end = s->st_value + s->st_size;
	else if (gelf_getshdr(elf_getscn(e, s->st_shndx), &sec))
		end = sec.sh_addr + sec.sh_size;
	else
		return 0;
	tmp = grow(f->syms, &f->syms_cap, f->nsyms + 1, sizeof(*f->syms));
	if (!tmp)
		return -ENOMEM;
	f->syms = tmp;
	names = grow(f->names, &f->names_cap, f->names_len + len, 1);
	if (!names)
		return -ENOMEM;
	f->names = names;
	memcpy(f->names + f->names_len, name, len);
	f->syms[f->nsyms++] = (struct fsym){s->st_value, end, f->names_len, sym_rank(s, name)};
	f->names_len += len;
	return 0;
}

static bool is_func(const GElf_Sym *s)
{
	int type = GELF_ST_TYPE(s->st_info);

	return (type == STT_FUNC || type == STT_GNU_IFUNC) && s->st_shndx != SHN_UNDEF &&
	       s->st_shndx < SHN_LORESERVE;
}

/* The function symbols of the first section of type (SHT_SYMTAB or SHT_DYNSYM). */
static int load_syms(struct elff *f, Elf *e, __u32 type)
{
	Elf_Scn *scn = NULL;
	Elf_Data *d;
	GElf_Shdr sh;
	GElf_Sym s;
	size_t i, n;
	int err;

	while ((scn = elf_nextscn(e, scn)))
		if (gelf_getshdr(scn, &sh) && sh.sh_type == type)
			break;
	d = scn && sh.sh_entsize ? elf_getdata(scn, NULL) : NULL;
	if (!d)
		return 0;
	n = sh.sh_size / sh.sh_entsize;
	for (i = 1; i < n; i++) {
		if (!gelf_getsym(d, i, &s) || !is_func(&s))
			continue;
		err = sym_add(f, e, sh.sh_link, &s);
		if (err)
			return err;
	}
	return 0;
}

static int sym_cmp(const void *a, const void *b, void *names)
{
	const struct fsym *x = a, *y = b;

	if (x->addr != y->addr)
		return x->addr < y->addr ? -1 : 1;
	if (x->rank != y->rank)
		return x->rank < y->rank ? -1 : 1;
	return strcmp((const char *)names + x->name, (const char *)names + y->name);
}

/* Sorted by address, one symbol per address. */
static void sort_syms(struct elff *f)
{
	size_t i, n = 0;

	if (!f->nsyms)
		return;
	qsort_r(f->syms, f->nsyms, sizeof(*f->syms), sym_cmp, f->names);
	for (i = 1; i < f->nsyms; i++)
		if (f->syms[i].addr != f->syms[n].addr)
			f->syms[++n] = f->syms[i];
	f->nsyms = n + 1;
}

static int debug_open(const char *bid, struct elfh *h)
{
	char path[sizeof(DEBUG_DIR) + BID_HEX + 8];

	h->e = NULL;
	h->fd = -1;
	if (strlen(bid) < 3)
		return -ENOENT;
	snprintf(path, sizeof(path), DEBUG_DIR "%.2s/%s.debug", bid, bid + 2);
	return elf_open(path, h);
}

/*
 * Segments from the file itself (a debug file's are not valid), symbols from
 * the first of: the debug file of the build id, .symtab, .dynsym.  A file
 * rebuilt since it was mapped is not used at all.
 */
static int elff_load(struct procs *p, struct elff *f)
{
	struct elfh file, dbg = {-1, NULL};
	char hex[BID_HEX];
	const char *bid;
	int err;

	if (elf_open(f->path, &file))
		return 0;
	elf_build_id(file.e, hex);
	err = -ENOMEM;
	f->file_bid = intern(p, hex, strlen(hex));
	if (!f->file_bid)
		goto out;
	err = 0;
	if (f->bid[0] && strcmp(f->bid, hex))
		goto out;
	bid = f->bid[0] ? f->bid : hex;
	err = load_segs(f, file.e);
	if (!err && !debug_open(bid, &dbg))
		err = load_syms(f, dbg.e, SHT_SYMTAB);
	if (!err && !f->nsyms)
		err = load_syms(f, file.e, SHT_SYMTAB);
	if (!err && !f->nsyms)
		err = load_syms(f, file.e, SHT_DYNSYM);
	if (!err)
		sort_syms(f);
out:
	elf_close(&dbg);
	elf_close(&file);
	return err;
}

static void elff_free(struct elff *f)
{
	free(f->names);
	free(f->syms);
	free(f->segs);
	free(f);
}

static int file_get(struct procs *p, struct pmap *m)
{
	struct elff **tmp, *f;
	size_t i;
	int err;

	for (i = 0; i < p->nfiles; i++) {
		if (p->files[i]->path == m->path && p->files[i]->bid == m->bid) {
			m->file = p->files[i];
			return 0;
		}
	}
	tmp = grow(p->files, &p->files_cap, p->nfiles + 1, sizeof(*p->files));
	if (!tmp)
		return -ENOMEM;
	p->files = tmp;
	f = calloc(1, sizeof(*f));
	if (!f)
		return -ENOMEM;
	f->path = m->path;
	f->bid = m->bid;
	f->file_bid = "";
	err = elff_load(p, f);
	if (err) {
		elff_free(f);
		return err;
	}
	p->files[p->nfiles++] = f;
	m->file = f;
	return 0;
}

static bool off_to_vaddr(const struct elff *f, __u64 off, __u64 *vaddr)
{
	size_t i;

	for (i = 0; i < f->nsegs; i++) {
		if (off >= f->segs[i].off && off < f->segs[i].off + f->segs[i].filesz) {
			*vaddr = off - f->segs[i].off + f->segs[i].vaddr;
			return true;
		}
	}
	return false;
}

static const struct fsym *sym_find(const struct elff *f, __u64 vaddr)
{
	size_t lo = 0, hi = f->nsyms, mid;

	while (lo < hi) {
		mid = lo + (hi - lo) / 2;
		if (f->syms[mid].addr <= vaddr)
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo && vaddr < f->syms[lo - 1].end ? &f->syms[lo - 1] : NULL;
}

int procs_resolve(struct procs *p, pid_t tgid, __u64 ip, struct ufrm *out)
{
	struct proc *pr = proc_find(p, tgid);
	struct pmap *m = pr ? as_lookup(p, pr->as, ip) : NULL;
	const struct fsym *s;
	__u64 vaddr;
	int err;

	if (!m)
		return -ENOENT;
	out->module = m->path;
	out->sym = NULL;
	out->off = ip - m->start + m->pgoff;
	out->build_id = m->bid;
	if (!strcmp(m->path, "[vdso]"))
		return 0;
	if (!m->file) {
		err = file_get(p, m);
		if (err)
			return err;
	}
	if (!m->bid[0])
		out->build_id = m->file->file_bid;
	s = off_to_vaddr(m->file, out->off, &vaddr) ? sym_find(m->file, vaddr) : NULL;
	if (s) {
		out->sym = m->file->names + s->name;
		out->off = vaddr - s->addr;
	}
	return 0;
}

/* The build id of a file mapped by a snapshot, read once per path. */
static const char *snap_bid(struct procs *p, const char *path)
{
	struct bid_memo *tmp;
	char hex[BID_HEX] = "";
	struct elfh h;
	size_t i;

	for (i = 0; i < p->nmemo; i++)
		if (p->memo[i].path == path)
			return p->memo[i].bid;
	tmp = grow(p->memo, &p->memo_cap, p->nmemo + 1, sizeof(*p->memo));
	if (!tmp)
		return NULL;
	p->memo = tmp;
	if (path[0] == '/' && !elf_open(path, &h)) {
		elf_build_id(h.e, hex);
		elf_close(&h);
	}
	tmp = &p->memo[p->nmemo];
	tmp->path = path;
	tmp->bid = intern(p, hex, strlen(hex));
	if (!tmp->bid)
		return NULL;
	p->nmemo++;
	return tmp->bid;
}

/* One line of /proc/PID/maps: "start-end perms offset dev inode   path". */
static int snapshot_line(struct procs *p, struct proc *pr, char *line)
{
	unsigned long long start, end, pgoff;
	struct pmap m = {};
	char perms[8];
	int name = 0;
	size_t len;

	if (sscanf(line, "%llx-%llx %7s %llx %*s %*s %n", &start, &end, perms, &pgoff, &name) < 4 ||
	    !name || strlen(perms) < 3 || perms[2] != 'x')
		return 0;
	len = strcspn(line + name, "\n");
	if (!keep_path(line + name, len))
		return 0;
	m.start = start;
	m.end = end;
	m.pgoff = pgoff;
	m.path = intern(p, line + name, len);
	m.bid = m.path ? snap_bid(p, m.path) : NULL;
	if (!m.bid)
		return -ENOMEM;
	return map_add(p, pr, &m);
}

int procs_snapshot(struct procs *p, pid_t pid)
{
	struct proc_task t = {.pid = pid};
	char path[64], *line = NULL;
	struct proc *pr;
	size_t cap = 0;
	int err;
	FILE *f;

	err = read_task(pid, &t);
	if (err)
		return err;
	snprintf(path, sizeof(path), "/proc/%d/maps", pid);
	f = fopen(path, "re");
	if (!f)
		return -errno;
	pr = proc_find(p, pid);
	if (!pr || pr->t.exited)
		pr = proc_new(p, pid, NULL);
	err = -ENOMEM;
	if (!pr)
		goto out;
	pr->t = t;
	pr->snap_ns = now_ns();
	err = 0;
	while (!err && getline(&line, &cap, f) > 0)
		err = snapshot_line(p, pr, line);
out:
	free(line);
	fclose(f);
	return err;
}

int procs_for_each_task(struct procs *p, int (*fn)(const struct proc_task *t, void *ctx), void *ctx)
{
	size_t i;
	int ret;

	for (i = 0; i < p->ntasks; i++) {
		ret = fn(&p->tasks[i]->t, ctx);
		if (ret)
			return ret;
	}
	return 0;
}

int procs_for_each_map(struct procs *p, int (*fn)(const struct proc_map *m, void *ctx), void *ctx)
{
	struct proc_map pm;
	struct pmap *m;
	size_t i;
	int ret;

	for (i = 0; i < p->nmaps; i++) {
		m = &p->maps[i];
		pm = (struct proc_map){m->pid, m->start, m->end, m->pgoff, m->path, m->bid};
		ret = fn(&pm, ctx);
		if (ret)
			return ret;
	}
	return 0;
}

int procs_fd(const struct procs *p)
{
	return p->epfd;
}

__u64 procs_lost(const struct procs *p)
{
	return p->lost;
}

int procs_new(struct procs **out)
{
	struct procs *p;
	int err;

	if (elf_version(EV_CURRENT) == EV_NONE)
		return -ENOTSUP;
	p = calloc(1, sizeof(*p));
	if (!p)
		return -ENOMEM;
	p->epfd = epoll_create1(EPOLL_CLOEXEC);
	if (p->epfd < 0) {
		err = -errno;
		free(p);
		return err;
	}
	*out = p;
	return 0;
}

void procs_free(struct procs *p)
{
	size_t i;

	if (!p)
		return;
	for (i = 0; i < p->nrings; i++)
		ring_close(&p->rings[i]);
	free(p->rings);
	close(p->epfd);
	for (i = 0; i < p->nfiles; i++)
		elff_free(p->files[i]);
	free(p->files);
	free(p->memo);
	for (i = 0; i < p->ntasks; i++)
		free(p->tasks[i]);
	free(p->tasks);
	free(p->pids);
	for (i = 0; i < p->nas; i++) {
		free(p->as[i]->idx);
		free(p->as[i]);
	}
	free(p->as);
	free(p->maps);
	for (i = 0; i < p->strs_cap; i++)
		free(p->strs[i]);
	free(p->strs);
	free(p);
}
