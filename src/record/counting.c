// SPDX-License-Identifier: GPL-2.0-only
/*
 * record --count (counting.h): the per-CPU events behind the BPF programs'
 * per-thread counters, and their sums into the data file.
 */
#include "record/counting.h"

#include <errno.h>
#include <linux/perf_event.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/syscall.h>
#include <unistd.h>
#include <bpf/bpf.h>
#include <bpf/libbpf.h>

#include "data/count_tables.h"
#include "func_layout.h"
#include "kprotperf.h"
#include "record.skel.h"
#include "system/cpus.h"
#include "util/kv.h"

struct counting {
	struct pmu_event ev[KP_COUNT_EVENTS_MAX];
	unsigned int n;
	int *fds; /* [cpu * n + i], -1 where not opened */
	int nfds;
	/* the sums at the end of the previous run, per syscall and function */
	struct kp_cnt_lat prev_sys[KP_MAX_SYSCALLS];
	struct kp_cnt_lat prev_func[KP_MAX_FUNCS];
};

int counting_new(struct counting **out, const struct pmu_event *evs, unsigned int n)
{
	struct counting *c;

	*out = NULL;
	if (!n)
		return 0;
	if (n > KP_COUNT_EVENTS_MAX)
		return -E2BIG;
	c = calloc(1, sizeof(*c));
	if (!c)
		return -ENOMEM;
	memcpy(c->ev, evs, n * sizeof(*evs));
	c->n = n;
	*out = c;
	return 0;
}

void counting_free(struct counting *c)
{
	int i;

	if (!c)
		return;
	for (i = 0; i < c->nfds; i++)
		if (c->fds[i] >= 0)
			close(c->fds[i]);
	free(c->fds);
	free(c);
}

enum count_source counting_source(const struct pmu_event *ev)
{
	if (ev->type != PERF_TYPE_SOFTWARE)
		return COUNT_SRC_PERF;
	switch (ev->config) {
	/* a thread's cpu-clock is its on-CPU time too, as perf stat -p counts it */
	case PERF_COUNT_SW_TASK_CLOCK:
	case PERF_COUNT_SW_CPU_CLOCK:
		return COUNT_SRC_CLOCK;
	case PERF_COUNT_SW_CONTEXT_SWITCHES:
		return COUNT_SRC_SWITCH;
	case PERF_COUNT_SW_CPU_MIGRATIONS:
		return COUNT_SRC_MIGRATE;
	case PERF_COUNT_SW_PAGE_FAULTS:
		return COUNT_SRC_FAULT;
	case PERF_COUNT_SW_PAGE_FAULTS_MIN:
		return COUNT_SRC_MINFLT;
	case PERF_COUNT_SW_PAGE_FAULTS_MAJ:
		return COUNT_SRC_MAJFLT;
	default:
		return COUNT_SRC_PERF;
	}
}

/* Each event's bit in the mask of where the programs take it from. */
static struct kp_count_by count_by(const struct counting *c)
{
	struct kp_count_by by = {};
	unsigned int i;
	__u32 bit;

	for (i = 0; c && i < c->n; i++) {
		bit = 1U << i;
		if (c->ev[i].type == PERF_TYPE_SOFTWARE)
			by.soft |= bit;
		switch (counting_source(&c->ev[i])) {
		case COUNT_SRC_CLOCK:
			by.clock |= bit;
			break;
		case COUNT_SRC_SWITCH:
			by.sw |= bit;
			break;
		case COUNT_SRC_MIGRATE:
			by.migrate |= bit;
			break;
		case COUNT_SRC_FAULT:
			by.fault |= bit;
			break;
		case COUNT_SRC_MINFLT:
			by.minflt |= bit;
			break;
		case COUNT_SRC_MAJFLT:
			by.majflt |= bit;
			break;
		default:
			by.read |= bit;
			break;
		}
	}
	return by;
}

int counting_setup(const struct counting *c, struct record_bpf *skel)
{
	int ncpu = libbpf_num_possible_cpus(), err;

	if (ncpu < 0)
		return ncpu;
	skel->rodata->count_nev = c ? c->n : 0;
	skel->rodata->count_by = count_by(c);
	/* a hook that runs on every migration of the machine: only when counted */
	bpf_program__set_autoload(skel->progs.kp_migrate, skel->rodata->count_by.migrate != 0);
	/* nothing counted: the maps' smallest sizes (the programs leave them alone) */
	err = bpf_map__set_max_entries(skel->maps.count_pmu, c ? ncpu * c->n : 1);
	err = err ?: bpf_map__set_max_entries(skel->maps.syscall_cnt, c ? KP_MAX_SYSCALLS : 1);
	/* a thread's counters at its systab slot */
	return err
		       ?: bpf_map__set_max_entries(skel->maps.cnt_sys,
						   c ? 1U << skel->rodata->sys_bits : 1);
}

static int open_one(const struct pmu_event *ev, int cpu)
{
	struct perf_event_attr attr;
	int fd;

	pmu_event_attr(ev, &attr);
	fd = syscall(__NR_perf_event_open, &attr, -1, cpu, -1, PERF_FLAG_FD_CLOEXEC);
	return fd < 0 ? -errno : fd;
}

int counting_open(struct counting *c, struct record_bpf *skel, char *why, size_t len)
{
	unsigned char mask[CPUS_MAX / 8];
	int ncpu = libbpf_num_possible_cpus(), map = bpf_map__fd(skel->maps.count_pmu), cpu, fd;
	unsigned int i;
	__u32 key;

	if (!c)
		return 0;
	if (ncpu < 0 || cpus_online(mask, CPUS_MAX) < 0)
		return ncpu < 0 ? ncpu : -EIO;
	c->fds = malloc(ncpu * c->n * sizeof(*c->fds));
	if (!c->fds)
		return -ENOMEM;
	c->nfds = ncpu * c->n;
	memset(c->fds, -1, c->nfds * sizeof(*c->fds));
	for (cpu = 0; cpu < ncpu; cpu++) {
		for (i = 0; i < c->n && cpus_has(mask, cpu); i++) {
			/* the programs' hooks count it: no perf event */
			if (counting_source(&c->ev[i]) != COUNT_SRC_PERF)
				continue;
			fd = open_one(&c->ev[i], cpu);
			if (fd < 0) {
				pmu_event_refusal(&c->ev[i], "--count", fd, pmu_events_paranoid(),
						  why, len);
				return fd;
			}
			key = cpu * c->n + i;
			c->fds[key] = fd;
			if (bpf_map_update_elem(map, &key, &fd, BPF_ANY))
				return -errno;
		}
	}
	return 0;
}

/* fn on the sum over the CPUs of each key of a per-CPU kp_cnt_lat array. */
static int cnt_each(int fd, __u32 nkeys,
		    int (*fn)(__u32 id, const struct kp_cnt_lat *sum, void *ctx), void *ctx)
{
	int ncpu = libbpf_num_possible_cpus(), err = 0, cpu;
	struct kp_cnt_lat *vals, sum;
	unsigned int i;
	__u32 id;

	if (ncpu < 0)
		return ncpu;
	vals = calloc(ncpu, sizeof(*vals));
	if (!vals)
		return -ENOMEM;
	for (id = 0; id < nkeys && !err; id++) {
		if (bpf_map_lookup_elem(fd, &id, vals))
			continue;
		memset(&sum, 0, sizeof(sum));
		for (cpu = 0; cpu < ncpu; cpu++) {
			sum.calls += vals[cpu].calls;
			sum.window_ns += vals[cpu].window_ns;
			for (i = 0; i < KP_COUNT_EVENTS_MAX; i++) {
				sum.ev[i].counter += vals[cpu].ev[i].counter;
				sum.ev[i].enabled += vals[cpu].ev[i].enabled;
				sum.ev[i].running += vals[cpu].ev[i].running;
			}
		}
		err = fn(id, &sum, ctx);
	}
	free(vals);
	return err;
}

/* One kind's rows in the making: totals, or a run's share (prev set). */
struct cnt_rows {
	const struct counting *c;
	struct datafile *df;
	const char *kind;
	unsigned int run;
	struct kp_cnt_lat *prev; /* NULL: event_totals */
};

static int put_rows(__u32 id, const struct kp_cnt_lat *sum, void *ctx)
{
	struct cnt_rows *w = ctx;
	const struct kp_cnt_lat *p = w->prev ? &w->prev[id] : &(struct kp_cnt_lat){};
	struct count_total_row r = {w->kind, id, 0, sum->calls - p->calls};
	int err = 0;

	for (r.event = 0; r.calls && r.event < w->c->n && !err; r.event++) {
		r.total = sum->ev[r.event].counter - p->ev[r.event].counter;
		r.enabled_ns = sum->ev[r.event].enabled - p->ev[r.event].enabled;
		r.running_ns = sum->ev[r.event].running - p->ev[r.event].running;
		/* the hooks' events, all software: their times kept once, the calls' */
		r.enabled_ns += sum->window_ns - p->window_ns;
		r.running_ns += sum->window_ns - p->window_ns;
		err = w->prev ? count_put_run_total(w->df, w->run, &r) : count_put_total(w->df, &r);
	}
	if (w->prev)
		w->prev[id] = *sum;
	return err;
}

int counting_put_run(struct counting *c, struct datafile *df, unsigned int run, int sys_fd,
		     int func_fd, size_t nfuncs)
{
	struct cnt_rows sys = {c, df, "syscall", run, c ? c->prev_sys : NULL};
	struct cnt_rows func = {c, df, "func", run, c ? c->prev_func : NULL};
	int err;

	if (!c)
		return 0;
	err = cnt_each(sys_fd, KP_MAX_SYSCALLS, put_rows, &sys);
	if (!err && func_fd >= 0)
		err = cnt_each(func_fd, nfuncs < KP_MAX_FUNCS ? nfuncs : KP_MAX_FUNCS, put_rows,
			       &func);
	return err;
}

static int put_events(const struct counting *c, struct datafile *df, struct kv_list *meta)
{
	char names[KP_COUNT_EVENTS_MAX * (PMU_EVENT_NAME_MAX + 1)];
	char sources[KP_COUNT_EVENTS_MAX * 32];
	struct count_event_row r;
	size_t n = 0, ns = 0;
	int err = 0;

	for (r.event = 0; r.event < c->n && !err; r.event++) {
		r.name = c->ev[r.event].name;
		r.type = c->ev[r.event].type;
		r.config = c->ev[r.event].config;
		r.config1 = c->ev[r.event].config1;
		r.config2 = c->ev[r.event].config2;
		n += snprintf(names + n, sizeof(names) - n, "%s%s", n ? "," : "", r.name);
		ns += snprintf(sources + ns, sizeof(sources) - ns, "%s%s", ns ? "," : "",
			       count_source_names[counting_source(&c->ev[r.event])]);
		err = count_put_event(df, &r);
	}
	err = err ?: kv_add(meta, "count.sources", "%s", sources);
	return err ?: kv_add(meta, "count.events", "%s", names);
}

int counting_save(const struct counting *c, struct datafile *df, int sys_fd, int func_fd,
		  size_t nfuncs, struct kv_list *meta)
{
	struct cnt_rows sys = {c, df, "syscall"}, func = {c, df, "func"};
	int err;

	if (!c)
		return 0;
	err = put_events(c, df, meta);
	err = err ?: cnt_each(sys_fd, KP_MAX_SYSCALLS, put_rows, &sys);
	if (!err && func_fd >= 0)
		err = cnt_each(func_fd, nfuncs < KP_MAX_FUNCS ? nfuncs : KP_MAX_FUNCS, put_rows,
			       &func);
	return err;
}
