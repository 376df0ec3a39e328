/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * Processes of the traced tree, built from perf side-band records applied in
 * time order (sideband.c) and from /proc for processes already running.
 *
 * A forked child does not copy its parent's mappings: its address space
 * points at the parent's, limited to the mappings that existed at the fork.
 * ELF files are read only when a frame is resolved, once per file (elfsym.c).
 */
#include "record/procs.h"

#include <errno.h>
#include <fcntl.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <sys/mman.h>
#include <linux/perf_event.h>

#include "record/sideband.h"
#include "symbols/elfsym.h"
#include "util/array.h"

#define BID_LEN 20 /* the kernel's BUILD_ID_SIZE_MAX */
#define BID_HEX (2 * BID_LEN + 1)

struct pmap {
	__u64 start, end, pgoff;
	const char *path, *bid; /* interned */
	pid_t pid;
	struct pfile *file; /* set at the first resolve */
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

/* A file as its mappings know it; read at the first resolve in it. */
struct pfile {
	const char *path, *bid; /* the key, interned */
	struct elfsym *syms;	/* NULL when the file is gone, not ELF or rebuilt */
};

struct bid_memo {
	const char *path, *bid;
};

struct procs {
	struct sideband *sb;
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
	struct pfile **files;
	size_t nfiles, files_cap;
	struct bid_memo *memo; /* build ids of files read by snapshots */
	size_t nmemo, memo_cap;
	/*
	 * procs_follow_tree: the system's records, of which those of processes
	 * outside the followed trees are dropped; sys_event: one system-wide
	 * event serves every tree (else each has an inherited one).
	 */
	bool tree_only, sys_event;
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
	struct aspace *as;

	if (array_reserve((void **)&p->as, &p->as_cap, p->nas + 1, sizeof(*p->as)))
		return NULL;
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
	struct proc **slot, *pr;

	if (array_reserve((void **)&p->tasks, &p->tasks_cap, p->ntasks + 1, sizeof(*p->tasks)))
		return NULL;
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
	struct pmap *old;

	old = as_lookup(p, as, m->start);
	if (old && old->start == m->start && old->end == m->end && old->pgoff == m->pgoff &&
	    old->path == m->path && old->bid == m->bid)
		return 0;
	if (array_reserve((void **)&p->maps, &p->maps_cap, p->nmaps + 1, sizeof(*p->maps)))
		return -ENOMEM;
	if (array_reserve((void **)&as->idx, &as->cap, as->n + 1, sizeof(*as->idx)))
		return -ENOMEM;
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
	struct aspace *as;
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
		as = as_new(p, NULL);
		if (!as)
			return -ENOMEM;
		pr->as = as;
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

/*
 * procs_follow_tree: whether the record is of a process of a followed tree:
 * a fork by one of them, or anything else of one (its pid and tid are the
 * first fields of every record procs takes).  A process outside is never
 * made, so nothing is read of it from /proc and nothing of it is saved.
 */
static bool in_trees(const struct procs *p, const struct perf_event_header *h)
{
	const struct rec_task *t = (const void *)h;
	const struct proc *pr;

	if (!p->tree_only)
		return true;
	pr = proc_find(p, h->type == PERF_RECORD_FORK ? (pid_t)t->ppid : (pid_t)t->pid);
	return pr && !pr->t.exited;
}

static int on_record(const struct perf_event_header *h, __u64 time, void *ctx)
{
	struct procs *p = ctx;
	static const __u16 min_size[] = {
		[PERF_RECORD_MMAP] = sizeof(struct rec_mmap),
		[PERF_RECORD_COMM] = sizeof(struct rec_comm),
		[PERF_RECORD_EXIT] = sizeof(struct rec_task),
		[PERF_RECORD_FORK] = sizeof(struct rec_task),
		[PERF_RECORD_MMAP2] = sizeof(struct rec_mmap2),
	};

	/* every record is followed by its time stamp (sample_id_all) */
	if (h->type >= sizeof(min_size) / sizeof(min_size[0]) ||
	    h->size < min_size[h->type] + sizeof(__u64) || !in_trees(p, h))
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
	}
	return 0;
}

int procs_drain(struct procs *p)
{
	return sideband_drain(p->sb, on_record, p);
}

int procs_record(struct procs *p, const struct perf_event_header *h, __u64 time)
{
	return on_record(h, time, p);
}

int procs_follow(struct procs *p, pid_t pid)
{
	int err = sideband_follow(p->sb, pid);

	/* its parent and name while /proc still has them: it may exit before a drain */
	if (!err && pid > 0 && !proc_get(p, pid))
		err = -ENOMEM;
	return err;
}

/* A tree's root, held before its exec: a pid an earlier tree used is a new process. */
static int tree_root(struct procs *p, pid_t pid)
{
	struct proc *pr = proc_find(p, pid);

	if (pr && !pr->t.exited)
		return 0;
	pr = proc_new(p, pid, NULL);
	if (!pr)
		return -ENOMEM;
	read_task(pid, &pr->t);
	return 0;
}

int procs_follow_tree(struct procs *p, pid_t pid)
{
	int err = 0;

	if (!p->sys_event) {
		err = sideband_follow(p->sb, -1);
		p->sys_event = !err;
	}
	/* without CAP_PERFMON: an event on the tree, which every fork copies */
	if (err == -EACCES || err == -EPERM)
		err = sideband_follow(p->sb, pid);
	p->tree_only = true;
	return err ?: tree_root(p, pid);
}

static int file_get(struct procs *p, struct pmap *m)
{
	struct pfile *f;
	size_t i;
	int err;

	for (i = 0; i < p->nfiles; i++) {
		if (p->files[i]->path == m->path && p->files[i]->bid == m->bid) {
			m->file = p->files[i];
			return 0;
		}
	}
	if (array_reserve((void **)&p->files, &p->files_cap, p->nfiles + 1, sizeof(*p->files)))
		return -ENOMEM;
	f = calloc(1, sizeof(*f));
	if (!f)
		return -ENOMEM;
	f->path = m->path;
	f->bid = m->bid;
	/* any other failure is remembered: its frames resolve without symbols */
	err = elfsym_open(f->path, f->bid, NULL, &f->syms);
	if (err == -ENOMEM) {
		free(f);
		return err;
	}
	p->files[p->nfiles++] = f;
	m->file = f;
	return 0;
}

int procs_resolve(struct procs *p, pid_t tgid, __u64 ip, struct ufrm *out)
{
	struct proc *pr = proc_find(p, tgid);
	struct pmap *m = pr ? as_lookup(p, pr->as, ip) : NULL;
	const struct elfsym *syms;
	__u64 vaddr, off;
	const char *sym;
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
	syms = m->file->syms;
	if (!syms)
		return 0;
	if (!m->bid[0])
		out->build_id = elfsym_bid(syms);
	sym = elfsym_vaddr(syms, out->off, &vaddr) ? elfsym_find(syms, vaddr, &off) : NULL;
	if (sym) {
		out->sym = sym;
		out->off = off;
	}
	return 0;
}

__u64 procs_space(const struct procs *p, pid_t tgid)
{
	const struct proc *pr = proc_find(p, tgid);

	return pr ? (__u64)(uintptr_t)pr->as : 0;
}

int procs_map_at(const struct procs *p, pid_t tgid, __u64 ip, struct proc_map *out)
{
	const struct proc *pr = proc_find(p, tgid);
	const struct pmap *m = pr ? as_lookup(p, pr->as, ip) : NULL;

	if (!m)
		return -ENOENT;
	*out = (struct proc_map){m->pid, m->start, m->end, m->pgoff, m->path, m->bid};
	return 0;
}

/* The build id of a file mapped by a snapshot, read once per path. */
static const char *snap_bid(struct procs *p, const char *path)
{
	struct bid_memo *tmp;
	char hex[ELFSYM_BID_HEX] = "";
	size_t i;

	for (i = 0; i < p->nmemo; i++)
		if (p->memo[i].path == path)
			return p->memo[i].bid;
	if (array_reserve((void **)&p->memo, &p->memo_cap, p->nmemo + 1, sizeof(*p->memo)))
		return NULL;
	/* a file gone or not ELF has no build id */
	if (path[0] == '/')
		elfsym_build_id(path, hex, sizeof(hex));
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
	pr->snap_ns = sideband_now();
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
	return sideband_fd(p->sb);
}

__u64 procs_lost(const struct procs *p)
{
	return sideband_lost(p->sb);
}

int procs_new(struct procs **out)
{
	struct procs *p = calloc(1, sizeof(*p));
	int err = p ? sideband_new(&p->sb) : -ENOMEM;

	if (err)
		free(p);
	else
		*out = p;
	return err;
}

void procs_free(struct procs *p)
{
	size_t i;

	if (!p)
		return;
	sideband_free(p->sb);
	for (i = 0; i < p->nfiles; i++) {
		elfsym_free(p->files[i]->syms);
		free(p->files[i]);
	}
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
