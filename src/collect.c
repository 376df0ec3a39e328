// SPDX-License-Identifier: GPL-2.0-only
/*
 * Moves what the BPF maps hold at the end of a recording into the data file:
 * counters, syscall latencies, samples and their stacks.  Kernel frames stay
 * raw addresses plus the kallsyms symbols they need; user frames are resolved
 * now, while the binaries of exited processes are still known.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <bpf/bpf.h>
#include <bpf/libbpf.h>

#include "collect.h"
#include "datafile.h"
#include "hist.h"
#include "kprotperf.h"
#include "ksyms.h"
#include "procs.h"
#include "syscalls.h"

static const char *const counter_names[KP_CNT_MAX] = {
	[KP_CNT_SAMPLES] = "samples",
	[KP_CNT_SYSCALLS] = "syscalls",
	[KP_CNT_FAULTS_USER] = "page_faults_user",
	[KP_CNT_FAULTS_KERNEL] = "page_faults_kernel",
	[KP_CNT_LOST_KSTACK] = "lost_kernel_stacks",
	[KP_CNT_LOST_USTACK] = "lost_user_stacks",
	[KP_CNT_STACK_COLLISION] = "lost_stack_collisions",
	[KP_CNT_LOST_SAMPLES] = "lost_samples_map_full",
	[KP_CNT_LOST_THREADS] = "lost_threads_map_full",
	[KP_CNT_LOST_TREE] = "lost_tree_map_full",
	[KP_CNT_LOST_NR] = "lost_syscall_nr_out_of_range",
};

struct sample {
	struct kp_sample_key key;
	__u64 count;
};

struct ustack {
	__u32 tgid;
	__s32 id;
};

int collect_counters(int fd, __u64 *totals)
{
	int ncpu = libbpf_num_possible_cpus(), c;
	__u64 *vals;
	__u32 k;

	if (ncpu < 0)
		return ncpu;
	vals = calloc(ncpu, sizeof(*vals));
	if (!vals)
		return -ENOMEM;
	for (k = 0; k < KP_CNT_MAX; k++) {
		totals[k] = 0;
		if (bpf_map_lookup_elem(fd, &k, vals))
			continue;
		for (c = 0; c < ncpu; c++)
			totals[k] += vals[c];
	}
	free(vals);
	return 0;
}

int collect_write_counters(struct df *df, const __u64 *totals)
{
	int i, err = 0;

	for (i = 0; i < KP_CNT_MAX && !err; i++)
		err = df_insert(df, "INSERT INTO counters VALUES(?,?)", "ti", counter_names[i],
				(long long)totals[i]);
	return err;
}

static void lat_sum(struct kp_lat *sum, const struct kp_lat *v, int ncpu)
{
	int c, b;

	memset(sum, 0, sizeof(*sum));
	for (c = 0; c < ncpu; c++, v++) {
		sum->calls += v->calls;
		sum->done += v->done;
		sum->total_ns += v->total_ns;
		sum->oncpu_ns += v->oncpu_ns;
		if (v->max_ns > sum->max_ns)
			sum->max_ns = v->max_ns;
		for (b = 0; b < KP_HIST_BUCKETS; b++) {
			sum->hist[b] += v->hist[b];
			sum->oncpu_hist[b] += v->oncpu_hist[b];
		}
	}
}

static int put_hist(struct df *df, const char *kind, __u32 id, const char *clock, const __u64 *hist)
{
	__u32 b;
	int err = 0;

	for (b = 0; b < KP_HIST_BUCKETS && !err; b++) {
		if (!hist[b])
			continue;
		err = df_insert(df, "INSERT INTO latency_hist VALUES(?,?,?,?,?,?,?)", "titiiii",
				kind, (long long)id, clock, (long long)b, (long long)kp_hist_lo(b),
				(long long)kp_hist_hi(b), (long long)hist[b]);
	}
	return err;
}

int collect_latency(struct df *df, int fd, const char *kind, __u32 nkeys,
		    const char *(*name)(__u32 id, char *buf, size_t len))
{
	int ncpu = libbpf_num_possible_cpus(), err = 0;
	struct kp_lat *vals, sum;
	char buf[32];
	__u32 id;

	if (ncpu < 0)
		return ncpu;
	vals = calloc(ncpu, sizeof(*vals));
	if (!vals)
		return -ENOMEM;
	for (id = 0; id < nkeys && !err; id++) {
		if (bpf_map_lookup_elem(fd, &id, vals))
			continue;
		lat_sum(&sum, vals, ncpu);
		if (!sum.calls && !sum.done)
			continue;
		err = df_insert(df, "INSERT INTO latency VALUES(?,?,?,?,?,?,?,?,?)", "titiiiiii",
				kind, (long long)id, name(id, buf, sizeof(buf)),
				(long long)sum.calls, (long long)sum.done, (long long)sum.total_ns,
				(long long)sum.oncpu_ns, (long long)(sum.total_ns - sum.oncpu_ns),
				(long long)sum.max_ns);
		if (!err)
			err = put_hist(df, kind, id, "total", sum.hist);
		if (!err)
			err = put_hist(df, kind, id, "oncpu", sum.oncpu_hist);
	}
	free(vals);
	return err;
}

static int read_samples(int fd, struct sample **out, size_t *n)
{
	struct kp_sample_key key, cur, *prev = NULL;
	struct sample *s = NULL, *tmp;
	size_t cap = 0;

	*n = 0;
	while (!bpf_map_get_next_key(fd, prev, &key)) {
		cur = key;
		prev = &cur;
		if (*n == cap) {
			cap = cap ? cap * 2 : 1024;
			tmp = realloc(s, cap * sizeof(*s));
			if (!tmp) {
				free(s);
				return -ENOMEM;
			}
			s = tmp;
		}
		s[*n].key = cur;
		if (!bpf_map_lookup_elem(fd, &cur, &s[*n].count))
			(*n)++;
	}
	*out = s;
	return 0;
}

static int cmp_s32(const void *a, const void *b)
{
	__s32 x = *(const __s32 *)a, y = *(const __s32 *)b;

	return (x > y) - (x < y);
}

static int cmp_ustack(const void *a, const void *b)
{
	const struct ustack *x = a, *y = b;

	if (x->tgid != y->tgid)
		return x->tgid < y->tgid ? -1 : 1;
	return cmp_s32(&x->id, &y->id);
}

/* Sorted distinct elements of an array, in place; returns the new length. */
static size_t uniq(void *base, size_t n, size_t size, int (*cmp)(const void *, const void *))
{
	char *a = base;
	size_t i, out = 0;

	qsort(a, n, size, cmp);
	for (i = 0; i < n; i++) {
		if (out && !cmp(a + (out - 1) * size, a + i * size))
			continue;
		memmove(a + out * size, a + i * size, size);
		out++;
	}
	return out;
}

static int put_kstack(struct df *df, int fd, __s32 id, const struct ksyms *ks)
{
	__u64 ips[KP_STACK_DEPTH] = {};
	const struct ksym *sym;
	int d, err = 0;

	if (bpf_map_lookup_elem(fd, &id, ips))
		return 0;
	for (d = 0; d < KP_STACK_DEPTH && ips[d] && !err; d++) {
		err = df_insert(df, "INSERT INTO kstack_frames VALUES(?,?,?)", "iii", (long long)id,
				(long long)d, (long long)ips[d]);
		/* callers' frames hold return addresses: look up the call instruction */
		sym = ksyms_lookup(ks, d ? ips[d] - 1 : ips[d]);
		if (!err && sym)
			err = df_insert(df, "INSERT OR IGNORE INTO ksyms VALUES(?,?,?)", "itt",
					(long long)sym->addr, sym->name, sym->module);
	}
	return err;
}

static int put_ustack(struct df *df, int fd, struct procs *procs, const struct ustack *u,
		      long long id)
{
	__u64 ips[KP_STACK_DEPTH] = {};
	struct ufrm f;
	int d, err = 0;

	if (bpf_map_lookup_elem(fd, &u->id, ips))
		return 0;
	for (d = 0; d < KP_STACK_DEPTH && ips[d] && !err; d++) {
		if (procs_resolve(procs, u->tgid, d ? ips[d] - 1 : ips[d], &f)) {
			f.module = "[unknown]";
			f.sym = NULL;
			f.off = 0;
		} else if (d) {
			f.off++;
		}
		err = df_insert(df, "INSERT INTO ustack_frames VALUES(?,?,?,?,?,?)", "iiitti", id,
				(long long)d, (long long)ips[d], f.module, f.sym, (long long)f.off);
	}
	return err;
}

static int put_kstacks(struct df *df, int fd, const struct sample *s, size_t n,
		       const struct ksyms *ks)
{
	__s32 *ids = malloc((n + 1) * sizeof(*ids));
	size_t i, m = 0;
	int err = 0;

	if (!ids)
		return -ENOMEM;
	for (i = 0; i < n; i++)
		if (s[i].key.kstack >= 0)
			ids[m++] = s[i].key.kstack;
	m = uniq(ids, m, sizeof(*ids), cmp_s32);
	for (i = 0; i < m && !err; i++)
		err = put_kstack(df, fd, ids[i], ks);
	free(ids);
	return err;
}

/* User stack ids are only unique per address space: number (tgid, id) pairs anew. */
static int put_ustacks(struct df *df, int fd, struct procs *procs, const struct sample *s, size_t n,
		       struct ustack **out, size_t *nout)
{
	struct ustack *u = malloc((n + 1) * sizeof(*u));
	size_t i, m = 0;
	int err = 0;

	if (!u)
		return -ENOMEM;
	for (i = 0; i < n; i++)
		if (s[i].key.ustack >= 0)
			u[m++] = (struct ustack){s[i].key.tgid, s[i].key.ustack};
	m = uniq(u, m, sizeof(*u), cmp_ustack);
	for (i = 0; i < m && !err; i++)
		err = put_ustack(df, fd, procs, &u[i], i);
	*out = u;
	*nout = m;
	return err;
}

static int put_sample(struct df *df, const struct sample *s, const struct ustack *u, size_t nu)
{
	struct ustack want = {s->key.tgid, s->key.ustack}, *hit;
	long long ustack = s->key.ustack;
	char comm[KP_COMM_LEN + 1] = {};

	memcpy(comm, s->key.comm, KP_COMM_LEN);
	if (ustack >= 0) {
		hit = bsearch(&want, u, nu, sizeof(*u), cmp_ustack);
		ustack = hit ? hit - u : -ENOENT;
	}
	/* kstack NULL: the sample hit user mode; negative: the kernel stack was lost */
	if (s->key.kstack == KP_NO_KSTACK)
		return df_insert(df, "INSERT INTO samples VALUES(?,?,?,NULL,?,?)", "iitii",
				 (long long)s->key.tgid, (long long)s->key.pid, comm, ustack,
				 (long long)s->count);
	return df_insert(df, "INSERT INTO samples VALUES(?,?,?,?,?,?)", "iitiii",
			 (long long)s->key.tgid, (long long)s->key.pid, comm,
			 (long long)s->key.kstack, ustack, (long long)s->count);
}

int collect_samples(struct df *df, int samples_fd, int stacks_fd, struct procs *procs,
		    const struct ksyms *ks)
{
	struct ustack *u = NULL;
	struct sample *s;
	size_t n, nu = 0, i;
	int err;

	err = read_samples(samples_fd, &s, &n);
	if (err)
		return err;
	err = put_kstacks(df, stacks_fd, s, n, ks);
	if (!err)
		err = put_ustacks(df, stacks_fd, procs, s, n, &u, &nu);
	for (i = 0; i < n && !err; i++)
		err = put_sample(df, &s[i], u, nu);
	free(u);
	free(s);
	return err;
}
