// SPDX-License-Identifier: GPL-2.0-only
/*
 * Moves what the BPF maps hold at the end of a recording into the data file:
 * counters, syscall latencies, samples and their stacks.  Kernel frames stay
 * raw addresses plus the kallsyms symbols they need; user frames are resolved
 * now, while the binaries of exited processes are still known.
 */
#include "record/collect.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <bpf/bpf.h>
#include <bpf/libbpf.h>

#include "kprotperf.h"

#include "data/count_tables.h"
#include "data/recording.h"
#include "record/procs.h"
#include "record/stackstore.h"
#include "record/ustack_dwarf.h"
#include "symbols/ksyms.h"
#include "util/array.h"
#include "util/hist.h"

static const char *const counter_names[KP_CNT_MAX] = {
	[KP_CNT_SAMPLES] = "samples",
	[KP_CNT_SYSCALLS] = "syscalls",
	[KP_CNT_FAULTS_USER] = "page_faults_user",
	[KP_CNT_FAULTS_KERNEL] = "page_faults_kernel",
	[KP_CNT_LOST_KSTACK] = "lost_kernel_stacks",
	[KP_CNT_LOST_USTACK] = "lost_user_stacks",
	[KP_CNT_LOST_RING] = "lost_ring_full",
	[KP_CNT_LOST_THREADS] = "lost_threads_map_full",
	[KP_CNT_LOST_TREE] = "lost_tree_map_full",
	[KP_CNT_LOST_NR] = "lost_syscall_nr_out_of_range",
	[KP_CNT_LOST_FUNC_MAP] = "lost_func_map_full",
	[KP_CNT_LOST_FUNC_DEPTH] = "lost_func_too_deep",
	[KP_CNT_FUNC_UNMATCHED] = "lost_func_unmatched_returns",
	[KP_CNT_LOST_COUNT] = "lost_count",
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

int collect_write_counters(struct datafile *df, const __u64 *totals)
{
	int i, err = 0;

	for (i = 0; i < KP_CNT_MAX && !err; i++)
		err = recording_put_counter(df, counter_names[i], totals[i]);
	return err;
}

/* One program name's runs and time, summed over the objects that load it. */
static int stats_add(struct collect_stats *c, const char *name, __u64 runs, __u64 ns)
{
	size_t i;

	for (i = 0; i < c->n; i++)
		if (!strcmp(c->v[i].name, name))
			break;
	if (i == c->n) {
		if (array_reserve((void **)&c->v, &c->cap, c->n + 1, sizeof(*c->v)))
			return -ENOMEM;
		snprintf(c->v[c->n].name, sizeof(c->v[0].name), "%s", name);
		c->v[c->n].runs = c->v[c->n].ns = 0;
		c->n++;
	}
	c->v[i].runs += runs;
	c->v[i].ns += ns;
	return 0;
}

int collect_bpf_stats(struct bpf_object *obj, void *ctx)
{
	struct bpf_program *p;
	struct bpf_prog_info info;
	__u32 len;
	int err = 0;

	bpf_object__for_each_program (p, obj) {
		memset(&info, 0, sizeof(info));
		len = sizeof(info);
		/* not loaded (record --no-syscalls, the unused attach types of --func) */
		if (bpf_program__fd(p) < 0 ||
		    bpf_obj_get_info_by_fd(bpf_program__fd(p), &info, &len))
			continue;
		err = stats_add(ctx, bpf_program__name(p), info.run_cnt, info.run_time_ns);
		if (err)
			break;
	}
	return err;
}

int collect_write_stats(struct datafile *df, struct collect_stats *c)
{
	char key[128];
	size_t i;
	int err = 0;

	for (i = 0; i < c->n && !err; i++) {
		snprintf(key, sizeof(key), "bpf_runs.%s", c->v[i].name);
		err = recording_put_counter(df, key, c->v[i].runs);
		snprintf(key, sizeof(key), "bpf_run_ns.%s", c->v[i].name);
		err = err ?: recording_put_counter(df, key, c->v[i].ns);
	}
	free(c->v);
	*c = (struct collect_stats){};
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

static int put_hist(struct datafile *df, const char *kind, __u32 id, const char *clock,
		    const __u64 *hist)
{
	__u32 b;
	int err = 0;

	for (b = 0; b < KP_HIST_BUCKETS && !err; b++) {
		if (!hist[b])
			continue;
		err = recording_put_hist_bucket(df, kind, id, clock, b, hist_lo(b), hist_hi(b),
						hist[b]);
	}
	return err;
}

/* fn with the sum over the CPUs of each key of a per-CPU kp_lat array. */
static int lat_each(int fd, __u32 nkeys, int (*fn)(__u32 id, const struct kp_lat *sum, void *ctx),
		    void *ctx)
{
	int ncpu = libbpf_num_possible_cpus(), err = 0;
	struct kp_lat *vals, sum;
	__u32 id;

	if (ncpu < 0)
		return ncpu;
	vals = calloc(ncpu, sizeof(*vals));
	if (!vals)
		return -ENOMEM;
	for (id = 0; id < nkeys && !err; id++) {
		if (!bpf_map_lookup_elem(fd, &id, vals)) {
			lat_sum(&sum, vals, ncpu);
			err = fn(id, &sum, ctx);
		}
	}
	free(vals);
	return err;
}

struct lat_part {
	__u64 calls, done, total_ns, oncpu_ns;
};

/* One kind's totals at the end of the previous run, per key. */
struct lat_prev {
	const char *kind;
	struct lat_part *part;
	struct lat_prev *next;
};

struct lat_rows {
	struct datafile *df;
	const char *kind;
	lat_name_fn name;
	void *ctx;
	unsigned int run;
	struct lat_part *prev; /* NULL: no run_latency rows */
};

static int put_run_lat(const struct lat_rows *w, __u32 id, const struct kp_lat *sum)
{
	struct lat_part *prev = &w->prev[id];
	struct recording_lat d = {sum->calls - prev->calls, sum->done - prev->done,
				  sum->total_ns - prev->total_ns, sum->oncpu_ns - prev->oncpu_ns};

	*prev = (struct lat_part){sum->calls, sum->done, sum->total_ns, sum->oncpu_ns};
	if (!d.calls && !d.done)
		return 0;
	return recording_put_run_latency(w->df, w->run, w->kind, id, &d);
}

static int put_lat(__u32 id, const struct kp_lat *sum, void *ctx)
{
	const struct lat_rows *w = ctx;
	struct recording_lat l = {sum->calls, sum->done, sum->total_ns, sum->oncpu_ns, sum->max_ns};
	char buf[32];
	int err;

	err = w->prev ? put_run_lat(w, id, sum) : 0;
	if (err || !w->name || (!sum->calls && !sum->done))
		return err;
	err = recording_put_latency(w->df, w->kind, id, w->name(id, w->ctx, buf, sizeof(buf)), &l);
	err = err ?: put_hist(w->df, w->kind, id, "total", sum->hist);
	return err ?: put_hist(w->df, w->kind, id, "oncpu", sum->oncpu_hist);
}

int collect_latency(struct datafile *df, int fd, const char *kind, __u32 nkeys, lat_name_fn name,
		    void *ctx)
{
	struct lat_rows w = {df, kind, name, ctx};

	return lat_each(fd, nkeys, put_lat, &w);
}

static int add_total(__u32 id, const struct kp_lat *sum, void *ctx)
{
	__u64 *t = ctx;

	t[0] += sum->done;
	t[1] += sum->total_ns;
	return 0;
}

int collect_lat_total(int fd, __u32 nkeys, __u64 *done, __u64 *total_ns)
{
	__u64 t[2] = {0, 0};
	int err = lat_each(fd, nkeys, add_total, t);

	*done = t[0];
	*total_ns = t[1];
	return err;
}

int collect_dump(int fd, size_t ksz, size_t vsz, void **keys, void **vals, size_t *n)
{
	char *k = NULL, *v = NULL, cur[256];
	size_t kcap = 0, vcap = 0;
	void *prev = NULL;

	if (ksz > sizeof(cur))
		return -EINVAL;
	*n = 0;
	while (!bpf_map_get_next_key(fd, prev, cur)) {
		prev = cur;
		if (array_reserve((void **)&k, &kcap, *n + 1, ksz) ||
		    array_reserve((void **)&v, &vcap, *n + 1, vsz)) {
			free(k);
			free(v);
			return -ENOMEM;
		}
		memcpy(k + *n * ksz, cur, ksz);
		if (!bpf_map_lookup_elem(fd, cur, v + *n * vsz))
			(*n)++;
	}
	*keys = k;
	*vals = v;
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

static int put_kstack(struct datafile *df, const struct stackstore *st, __s32 id,
		      const struct ksyms *ks)
{
	const struct ksym *sym;
	const __u64 *ips;
	__u32 d, nr;
	int err = 0;

	ips = stackstore_frames(st, id, &nr);
	for (d = 0; ips && d < nr && !err; d++) {
		err = recording_put_kstack_frame(df, id, d, ips[d]);
		/* callers' frames hold return addresses: look up the call instruction */
		sym = ksyms_lookup(ks, d ? ips[d] - 1 : ips[d]);
		if (!err && sym)
			err = recording_put_ksym(df, sym->addr, sym->name, sym->module);
	}
	return err;
}

static int put_ustack(struct datafile *df, const struct stackstore *st, struct procs *procs,
		      const struct ustack *u, long long id)
{
	const __u64 *ips;
	struct ufrm f;
	__u32 d, nr;
	int err = 0;

	ips = stackstore_frames(st, u->id, &nr);
	for (d = 0; ips && d < nr && !err; d++) {
		if (ips[d] == KP_IP_TRUNCATED) {
			f = (struct ufrm){.module = "[truncated]"};
		} else if (procs_resolve(procs, u->tgid, d ? ips[d] - 1 : ips[d], &f)) {
			f.module = "[unknown]";
			f.sym = NULL;
			f.off = 0;
		} else if (d) {
			f.off++;
		}
		err = recording_put_ustack_frame(df, id, d, ips[d], f.module, f.sym, f.off);
	}
	return err;
}

int collect_kstacks(struct datafile *df, const struct stackstore *st, __s32 *ids, size_t n,
		    const struct ksyms *ks)
{
	size_t i, m = 0;
	int err = 0;

	for (i = 0; i < n; i++)
		if (ids[i] >= 0)
			ids[m++] = ids[i];
	m = uniq(ids, m, sizeof(*ids), cmp_s32);
	for (i = 0; i < m && !err; i++)
		err = put_kstack(df, st, ids[i], ks);
	return err;
}

/* User stack ids are only unique per address space: number (tgid, id) pairs anew. */
static int put_ustacks(struct datafile *df, const struct stackstore *st, struct procs *procs,
		       const struct kp_sample_key *k, size_t n, struct ustack **out, size_t *nout)
{
	struct ustack *u = malloc((n + 1) * sizeof(*u));
	size_t i, m = 0;
	int err = 0;

	if (!u)
		return -ENOMEM;
	for (i = 0; i < n; i++)
		if (k[i].ustack >= 0)
			u[m++] = (struct ustack){k[i].tgid, k[i].ustack};
	m = uniq(u, m, sizeof(*u), cmp_ustack);
	for (i = 0; i < m && !err; i++)
		err = put_ustack(df, st, procs, &u[i], i);
	*out = u;
	*nout = m;
	return err;
}

/* The user stack's id in the data file: its index among the (tgid, id) pairs, or -errno. */
static long long ustack_no(const struct kp_sample_key *k, const struct ustack *u, size_t nu)
{
	struct ustack want = {k->tgid, k->ustack}, *hit;

	if (k->ustack < 0)
		return k->ustack;
	hit = bsearch(&want, u, nu, sizeof(*u), cmp_ustack);
	return hit ? hit - u : -ENOENT;
}

static int put_sample(struct datafile *df, const struct kp_sample_key *k, __u64 count,
		      const struct ustack *u, size_t nu)
{
	long long ustack = ustack_no(k, u, nu);
	char comm[KP_COMM_LEN + 1] = {};

	memcpy(comm, k->comm, KP_COMM_LEN);
	/* kstack NULL: the sample hit user mode; negative: the kernel stack was lost */
	return recording_put_sample(df, k->tgid, k->pid, comm,
				    k->kstack == KP_NO_KSTACK ? NULL : &k->kstack, ustack, count);
}

static int put_samples_kstacks(struct datafile *df, const struct stackstore *st,
			       const struct kp_sample_key *k, size_t n, const struct ksyms *ks)
{
	__s32 *ids = malloc((n + 1) * sizeof(*ids));
	size_t i;
	int err;

	if (!ids)
		return -ENOMEM;
	for (i = 0; i < n; i++)
		ids[i] = k[i].kstack;
	err = collect_kstacks(df, st, ids, n, ks);
	free(ids);
	return err;
}

struct sample_count {
	struct kp_sample_key key;
	__u64 count;
};

struct run_sample {
	__u32 run;
	struct kp_sample_key key;
	__u64 count;
};

struct run_deltas {
	struct lat_prev *lat;
	struct sample_count *prev; /* the sample counts at the previous run's end, by key */
	size_t nprev;
	struct run_sample *added; /* what each run added */
	size_t nadded, cap;
};

/* One run_samples row in the making: stack ids as the samples table has them. */
struct run_row {
	__u32 run;
	__s32 kstack;
	long long ustack;
	__u64 count;
};

int collect_deltas_new(struct run_deltas **out)
{
	*out = calloc(1, sizeof(**out));
	return *out ? 0 : -ENOMEM;
}

void collect_deltas_free(struct run_deltas *r)
{
	struct lat_prev *l;

	if (!r)
		return;
	while ((l = r->lat)) {
		r->lat = l->next;
		free(l->part);
		free(l);
	}
	free(r->prev);
	free(r->added);
	free(r);
}

/* The kind's totals at the end of the previous run: zero before the first. */
static struct lat_part *prev_totals(struct run_deltas *r, const char *kind, __u32 nkeys)
{
	struct lat_prev *l;

	for (l = r->lat; l; l = l->next)
		if (!strcmp(l->kind, kind))
			return l->part;
	l = calloc(1, sizeof(*l));
	if (!l)
		return NULL;
	l->part = calloc(nkeys + 1, sizeof(*l->part));
	if (!l->part) {
		free(l);
		return NULL;
	}
	l->kind = kind;
	l->next = r->lat;
	r->lat = l;
	return l->part;
}

int collect_run_latency(struct run_deltas *r, struct datafile *df, unsigned int run,
			const char *kind, int fd, __u32 nkeys, lat_name_fn name, void *ctx)
{
	struct lat_rows w = {df, kind, name, ctx, run, prev_totals(r, kind, nkeys)};

	return w.prev ? lat_each(fd, nkeys, put_lat, &w) : -ENOMEM;
}

static int cmp_sample_key(const void *a, const void *b)
{
	return memcmp(a, b, sizeof(struct kp_sample_key));
}

static int add_run_sample(struct run_deltas *r, unsigned int run, const struct kp_sample_key *k,
			  __u64 count)
{
	if (array_reserve((void **)&r->added, &r->cap, r->nadded + 1, sizeof(*r->added)))
		return -ENOMEM;
	r->added[r->nadded++] = (struct run_sample){run, *k, count};
	return 0;
}

/* What each key counted in k and v gained since the previous run. */
static int run_samples_add(struct run_deltas *r, unsigned int run, const struct kp_sample_key *k,
			   const __u64 *v, size_t n)
{
	struct sample_count *cur = malloc((n + 1) * sizeof(*cur)), *was;
	size_t i;
	int err = 0;

	if (!cur)
		return -ENOMEM;
	for (i = 0; i < n; i++)
		cur[i] = (struct sample_count){k[i], v[i]};
	qsort(cur, n, sizeof(*cur), cmp_sample_key);
	for (i = 0; i < n && !err; i++) {
		/* keys are never deleted and counts only grow */
		/* r->prev is NULL before the first run, which bsearch must not be given */
		was = r->nprev ? bsearch(&cur[i], r->prev, r->nprev, sizeof(*cur), cmp_sample_key)
			       : NULL;
		if (!was || cur[i].count > was->count)
			err = add_run_sample(r, run, &cur[i].key,
					     cur[i].count - (was ? was->count : 0));
	}
	free(r->prev);
	r->prev = cur;
	r->nprev = n;
	return err;
}

int collect_run_samples(struct run_deltas *r, const struct stackstore *st, unsigned int run)
{
	struct kp_sample_key *k;
	size_t n;
	__u64 *v;
	int err;

	err = stackstore_samples(st, &k, &v, &n);
	if (err)
		return err;
	err = run_samples_add(r, run, k, v, n);
	free(k);
	free(v);
	return err;
}

static int cmp_run_row(const void *a, const void *b)
{
	const struct run_row *x = a, *y = b;

	if (x->run != y->run)
		return x->run < y->run ? -1 : 1;
	if (x->kstack != y->kstack)
		return x->kstack < y->kstack ? -1 : 1;
	return (x->ustack > y->ustack) - (x->ustack < y->ustack);
}

static int put_run_row(struct datafile *df, const struct run_row *w)
{
	return recording_put_run_sample(df, w->run, w->kstack == KP_NO_KSTACK ? NULL : &w->kstack,
					w->ustack, w->count);
}

/* Samples of different threads with the same stacks meet in one row per run. */
static int put_run_samples(struct datafile *df, const struct run_deltas *r, const struct ustack *u,
			   size_t nu)
{
	struct run_row *w = malloc((r->nadded + 1) * sizeof(*w));
	size_t i, m = 0;
	int err = 0;

	if (!w)
		return -ENOMEM;
	for (i = 0; i < r->nadded; i++)
		w[i] = (struct run_row){r->added[i].run, r->added[i].key.kstack,
					ustack_no(&r->added[i].key, u, nu), r->added[i].count};
	qsort(w, r->nadded, sizeof(*w), cmp_run_row);
	for (i = 0; i < r->nadded; i++) {
		if (m && !cmp_run_row(&w[m - 1], &w[i]))
			w[m - 1].count += w[i].count;
		else
			w[m++] = w[i];
	}
	for (i = 0; i < m && !err; i++)
		err = put_run_row(df, &w[i]);
	free(w);
	return err;
}

/* One sample_weights row in the making: a samples key without its comm. */
struct weight_row {
	__u32 pid, tid;
	__s32 kstack;
	long long ustack;
	__u64 weight;
};

static int cmp_weight_row(const void *a, const void *b)
{
	const struct weight_row *x = a, *y = b;

	if (x->pid != y->pid)
		return x->pid < y->pid ? -1 : 1;
	if (x->tid != y->tid)
		return x->tid < y->tid ? -1 : 1;
	if (x->kstack != y->kstack)
		return x->kstack < y->kstack ? -1 : 1;
	return (x->ustack > y->ustack) - (x->ustack < y->ustack);
}

/* The weights per (pid, tid, kstack, ustack): one row each, comms merged. */
static int put_weights(struct datafile *df, const struct kp_sample_key *k, const __u64 *weights,
		       size_t n, const struct ustack *u, size_t nu)
{
	struct weight_row *w = malloc((n + 1) * sizeof(*w));
	size_t i, m = 0;
	int err = 0;

	if (!w)
		return -ENOMEM;
	for (i = 0; i < n; i++)
		w[i] = (struct weight_row){k[i].tgid, k[i].pid, k[i].kstack,
					   ustack_no(&k[i], u, nu), weights[i]};
	qsort(w, n, sizeof(*w), cmp_weight_row);
	for (i = 0; i < n; i++) {
		if (m && !cmp_weight_row(&w[m - 1], &w[i]))
			w[m - 1].weight += w[i].weight;
		else
			w[m++] = w[i];
	}
	for (i = 0; i < m && !err; i++)
		err = count_put_weight(df, w[i].pid, w[i].tid,
				       w[i].kstack == KP_NO_KSTACK ? NULL : &w[i].kstack,
				       w[i].ustack, w[i].weight);
	free(w);
	return err;
}

int collect_samples(struct datafile *df, const struct stackstore *st, struct procs *procs,
		    const struct ksyms *ks, struct run_deltas *runs, unsigned int run, bool weighed)
{
	struct kp_sample_key *k = NULL;
	struct ustack *u = NULL;
	size_t n, nu = 0, i;
	__u64 *counts = NULL, *weights = NULL;
	int err;

	err = stackstore_weighed(st, &k, &counts, weighed ? &weights : NULL, &n);
	err = err ?: put_samples_kstacks(df, st, k, n, ks);
	err = err ?: put_ustacks(df, st, procs, k, n, &u, &nu);
	for (i = 0; i < n && !err; i++)
		err = put_sample(df, &k[i], counts[i], u, nu);
	if (!err && weighed)
		err = put_weights(df, k, weights, n, u, nu);
	if (!err && runs) {
		err = run_samples_add(runs, run, k, counts, n);
		err = err ?: put_run_samples(df, runs, u, nu);
	}
	free(u);
	free(weights);
	free(counts);
	free(k);
	return err;
}
