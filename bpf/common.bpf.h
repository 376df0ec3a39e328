/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * What record.bpf.c and funcs.bpf.c share: the traced tree, the per-thread
 * state (syscall, probed calls), the counters and the ring of stacks and samples.  funcs.bpf.c's
 * copies are replaced at load time by record.bpf.c's maps (bpf_map__reuse_fd).
 */
#ifndef KP_COMMON_BPF_H
#define KP_COMMON_BPF_H

/* false with -a: every process counts */
const volatile bool filter_tree = true;

/* tgid -> KP_TREE_MEMBER for every process of the traced tree, KP_TREE_PENDING before exec */
struct {
	__uint(type, BPF_MAP_TYPE_HASH);
	__uint(max_entries, 8192);
	__type(key, __u32);
	__type(value, __u8);
} tree SEC(".maps");

/*
 * Syscall state of every traced thread, open addressing on its pt_regs
 * address (the one syscall tracepoints pass, fixed for a thread's life).  The
 * raw tracepoints run for every task of the machine: an untraced one is told
 * apart by one inlined array load (its home entry's homes is 0, nearly
 * always), with no helper call and no clock read.  A thread gets its entry
 * from kp_fork (a traced process's children and threads, and the command as
 * kprotperf forks it) or at its first syscall (-p, -a), and gives it back in
 * kp_exit.  funcs.bpf.c's probes only read it.
 */
struct {
	__uint(type, BPF_MAP_TYPE_ARRAY);
	__uint(max_entries, 1 << 14);
	__type(key, __u32);
	__type(value, struct kp_sys);
} systab SEC(".maps");

/* log2 of systab's size, set with it by user space */
const volatile __u32 sys_bits = 14;

/* probed calls in flight (record --func) */
struct {
	__uint(type, BPF_MAP_TYPE_TASK_STORAGE);
	__uint(map_flags, BPF_F_NO_PREALLOC);
	__type(key, int);
	__type(value, struct kp_thread);
} threads SEC(".maps");

/*
 * -p: the target's threads running before recording started have no entry
 * until their first syscall, found then in the tree: only then do untraced
 * tasks pay that tree lookup on every syscall.
 */
const volatile bool lazy_threads;

struct {
	__uint(type, BPF_MAP_TYPE_PERCPU_ARRAY);
	__uint(max_entries, KP_CNT_MAX);
	__type(key, __u32);
	__type(value, __u64);
} counters SEC(".maps");

/* kp_rec_stack and kp_rec_sample records to user space; sized by user space */
struct {
	__uint(type, BPF_MAP_TYPE_RINGBUF);
	__uint(max_entries, 1 << 23);
} events SEC(".maps");

/*
 * Hashes of the stacks already sent.  Only spares the ring: a stack it has
 * forgotten (LRU) is sent again, and user space keeps one copy.
 */
struct {
	__uint(type, BPF_MAP_TYPE_LRU_HASH);
	__uint(max_entries, 16384);
	__type(key, __u64);
	__type(value, __u8);
} stacks_sent SEC(".maps");

/* record --count: the events counted (0: none; the code below is then left out) */
const volatile __u32 count_nev;
/*
 * record --count: where each event's value comes from, bit i for event i
 * (include/kprotperf.h); all 0 when nothing is counted.
 */
const volatile struct kp_count_by count_by;

/* record --count: event i of CPU c at c * count_nev + i, opened by user space */
struct {
	__uint(type, BPF_MAP_TYPE_PERF_EVENT_ARRAY);
	__uint(key_size, sizeof(__u32));
	__uint(value_size, sizeof(__u32));
	__uint(max_entries, 1);
} count_pmu SEC(".maps");

/*
 * record --count: the traced threads' virtual counters, at their systab
 * slot (an array lookup the JIT inlines, where task storage took a helper
 * call and a lock that could fail); one entry when nothing is counted
 */
struct {
	__uint(type, BPF_MAP_TYPE_ARRAY);
	__uint(max_entries, 1);
	__type(key, __u32);
	__type(value, struct kp_cnt_task);
} cnt_sys SEC(".maps");

/* atomic: fentry programs run preemptible and share these slots with raw_tp ones */
static __always_inline void count_n(__u32 idx, __u64 n)
{
	__u64 *c = bpf_map_lookup_elem(&counters, &idx);

	if (c)
		__sync_fetch_and_add(c, n);
}

static __always_inline void count(__u32 idx)
{
	count_n(idx, 1);
}

/* KP_TREE_MEMBER or KP_TREE_PENDING for a process of the tree, else 0 */
static __always_inline __u8 tree_state(__u32 tgid)
{
	__u8 *v;

	if (!filter_tree)
		return KP_TREE_MEMBER;
	v = bpf_map_lookup_elem(&tree, &tgid);
	return v ? *v : 0;
}

static __always_inline bool in_tree(__u32 tgid)
{
	return tree_state(tgid) == KP_TREE_MEMBER;
}

/* record --count: a systab slot taken by a new thread, whose counters start anew */
static __always_inline void cnt_reset(__u32 slot)
{
	struct kp_cnt_task *t = bpf_map_lookup_elem(&cnt_sys, &slot);

	if (t) {
		t->live = 0;
		t->on_cpu = 0;
		t->entry_ok = 0;
	}
}

static __always_inline __u32 sys_home(__u64 regs)
{
	/* Fibonacci hashing: stacks are THREAD_SIZE-aligned, the low bits say nothing */
	return (regs >> 8) * 0x9E3779B97F4A7C15ULL >> (64 - sys_bits);
}

static __always_inline struct kp_sys *sys_entry(__u32 i)
{
	i &= (1U << sys_bits) - 1;
	return bpf_map_lookup_elem(&systab, &i);
}

/* The syscall state of the thread whose pt_regs are at regs, or NULL: not traced. */
static __always_inline struct kp_sys *sys_find(__u64 regs)
{
	__u32 h = sys_home(regs), k;
	struct kp_sys *e = sys_entry(h);

	if (!e || !e->homes)
		return NULL;
	if (e->owner == regs)
		return e;
#pragma unroll
	for (k = 1; k < KP_SYS_PROBES; k++) {
		e = sys_entry(h + k);
		if (e && e->owner == regs)
			return e;
	}
	return NULL;
}

/*
 * An entry for the thread whose pt_regs are at regs, before it runs or from
 * its own context, so that nothing looks it up meanwhile.
 */
static __always_inline struct kp_sys *sys_enroll(__u64 regs, bool pending)
{
	__u32 h = sys_home(regs), k;
	struct kp_sys *home = sys_entry(h), *e;

	if (!home)
		return NULL;
#pragma unroll
	for (k = 0; k < KP_SYS_PROBES; k++) {
		e = sys_entry(h + k);
		if (!e)
			continue;
		if (e->owner == regs)
			return e;
		if (__sync_val_compare_and_swap(&e->owner, 0, regs) == 0) {
			e->in_syscall = 0;
			e->pending = pending;
			e->slot = (h + k) & ((1U << sys_bits) - 1);
			if (count_nev)
				cnt_reset(e->slot);
			__sync_fetch_and_add(&home->homes, 1);
			return e;
		}
	}
	count(KP_CNT_LOST_THREADS);
	return NULL;
}

/* The thread leaves: its stack, so its regs address, goes to another task. */
static __always_inline void sys_release(__u64 regs)
{
	struct kp_sys *e = sys_find(regs), *home = sys_entry(sys_home(regs));

	if (!e || !home)
		return;
	e->in_syscall = 0;
	__sync_fetch_and_add(&home->homes, -1);
	__sync_val_compare_and_swap(&e->owner, regs, 0);
}

/*
 * A pointer's value as a number, to hash: the verifier allows only + and -
 * on pointers.  A helper call: for the paths that are not per syscall.
 */
static __always_inline __u64 ptr_value(const void *p)
{
	__u64 v = 0;

	bpf_probe_read_kernel(&v, sizeof(v), &p);
	return v;
}

static __always_inline __u64 task_regs(struct task_struct *task)
{
	return ptr_value((const void *)bpf_task_pt_regs(task));
}

/* Task storage of task, or NULL; cheap for the tasks that have none of any map. */
static __always_inline struct kp_thread *task_thread(struct task_struct *task)
{
	if (!task->bpf_storage)
		return NULL;
	return bpf_task_storage_get(&threads, task, 0, 0);
}

/*
 * Probed-call state of the current thread if it is traced and past its exec,
 * *sys its syscall state.
 */
static __always_inline struct kp_thread *current_thread(struct task_struct *task,
							struct kp_sys **sys)
{
	struct kp_sys *e = sys_find(task_regs(task));
	struct kp_thread *t;

	if (!e || e->pending)
		return NULL;
	t = bpf_task_storage_get(&threads, task, 0, BPF_LOCAL_STORAGE_GET_F_CREATE);
	if (!t) {
		count(KP_CNT_LOST_THREADS);
		return NULL;
	}
	*sys = e;
	return t;
}

/*
 * Wake user space only once the ring is a quarter full: it drains the ring
 * on its own every tick, and a wakeup per record would cost more than the
 * record.
 */
static __always_inline int ring_flags(void)
{
	return bpf_ringbuf_query(&events, BPF_RB_AVAIL_DATA) >
			       bpf_ringbuf_query(&events, BPF_RB_RING_SIZE) / 4
		       ? BPF_RB_FORCE_WAKEUP
		       : BPF_RB_NO_WAKEUP;
}

/* FNV-1a over the frames, never 0 (which says "no stack") */
static __always_inline __u64 stack_hash(const struct kp_rec_stack *r, __u32 nr)
{
	__u64 h = 0xcbf29ce484222325ULL;
	__u32 i;

	for (i = 0; i < KP_STACK_DEPTH && i < nr; i++)
		h = (h ^ r->ips[i]) * 0x100000001b3ULL;
	return h ?: 1;
}

/*
 * The hash of the current stack (flags: 0 or BPF_F_USER_STACK), walked into
 * r, which is sent to user space the first time; 0 when it could not be had
 * (counted as lost).
 */
static __always_inline __u64 stack_ref(void *ctx, struct kp_rec_stack *r, __u64 flags, __u32 lost)
{
	long len = bpf_get_stack(ctx, r->ips, sizeof(r->ips), flags);
	__u8 one = 1;
	__u64 size;

	if (len <= 0) {
		count(lost);
		return 0;
	}
	r->type = KP_REC_STACK;
	r->nr = (__u64)len / sizeof(__u64);
	r->hash = stack_hash(r, r->nr);
	if (bpf_map_lookup_elem(&stacks_sent, &r->hash))
		return r->hash;
	size = offsetof(struct kp_rec_stack, ips) + (__u64)len;
	if (size > sizeof(*r))
		return 0;
	/* the sample is kept all the same, with this stack lost */
	if (bpf_ringbuf_output(&events, r, size, ring_flags())) {
		count(lost);
		return 0;
	}
	bpf_map_update_elem(&stacks_sent, &r->hash, &one, BPF_ANY);
	return r->hash;
}

/* The clock for software events' times (cnt_cpu), 0 when none is counted. */
static __always_inline __u64 cnt_clock(void)
{
	return count_by.soft ? bpf_ktime_get_ns() : 0;
}

/*
 * Event i on this CPU into v, its times at now if software: false when it
 * cannot be read.  An event of the hooks' reads nothing: the clock's is now,
 * the others' 0 (their counts are in the thread's sum, or its task_struct).
 * now 0: the times are stamped later (cnt_stamp), once the clock is read.
 */
static __always_inline bool cnt_cpu(__u32 cpu, __u32 i, __u64 now, struct kp_cnt_val *v)
{
	__u64 index = (__u64)cpu * count_nev + i;
	struct bpf_perf_event_value pv;
	long c;

	if (!(count_by.read & (1U << i))) {
		v->counter = count_by.clock & (1U << i) ? now : 0;
		v->enabled = now;
		v->running = now;
		return true;
	}
	if (count_by.soft & (1U << i)) {
		/* a counter, or a negative errno */
		c = bpf_perf_event_read(&count_pmu, index);
		if (c < 0 && c >= -4095)
			return false;
		v->counter = c;
		v->enabled = now;
		v->running = now;
		return true;
	}
	if (bpf_perf_event_read_value(&count_pmu, index, &pv, sizeof(pv)))
		return false;
	v->counter = pv.counter;
	v->enabled = pv.enabled;
	v->running = pv.running;
	return true;
}

/* a - b + c for each of the three values */
static __always_inline void cnt_add(struct kp_cnt_val *d, const struct kp_cnt_val *a,
				    const struct kp_cnt_val *b, const struct kp_cnt_val *c)
{
	d->counter = a->counter - b->counter + c->counter;
	d->enabled = a->enabled - b->enabled + c->enabled;
	d->running = a->running - b->running + c->running;
}

/* The counters of the thread whose systab entry is e. */
static __always_inline struct kp_cnt_task *cnt_task(const struct kp_sys *e)
{
	__u32 slot = e->slot;

	return bpf_map_lookup_elem(&cnt_sys, &slot);
}

/* The running thread's slice starts now (clock), on this CPU (it was switched in here). */
static __always_inline void cnt_snap(struct kp_cnt_task *t, __u32 cpu, __u64 clock)
{
	__u32 i;

	for (i = 0; i < KP_COUNT_EVENTS_MAX && i < count_nev; i++)
		if (!cnt_cpu(cpu, i, clock, &t->snap[i]))
			t->fails++;
	t->cpu = cpu;
	t->on_cpu = 1;
}

/*
 * The counters of the current thread (its systab entry e) at a call's
 * entry (NULL: none to be had): a slice whose start was not seen here (its
 * first call, or a switch-in missed) starts now, by a clock of its own.
 */
static __always_inline struct kp_cnt_task *cnt_current(const struct kp_sys *e)
{
	struct kp_cnt_task *t = cnt_task(e);
	__u32 cpu = bpf_get_smp_processor_id();

	if (!t) {
		count(KP_CNT_LOST_COUNT);
		return NULL;
	}
	t->live = 1;
	if (!t->on_cpu || t->cpu != cpu)
		cnt_snap(t, cpu, cnt_clock());
	return t;
}

/*
 * Values read at clock 0 (cnt_cpu) made values at clock: software events'
 * times, and the clock events' counters, are the clock's.
 */
static __always_inline void cnt_stamp(struct kp_cnt_val *v, __u64 clock)
{
	__u32 i;

	for (i = 0; i < KP_COUNT_EVENTS_MAX && i < count_nev; i++) {
		if (count_by.clock & (1U << i))
			v[i].counter += clock;
		if (count_by.soft & (1U << i)) {
			v[i].enabled += clock;
			v[i].running += clock;
		}
	}
}

/* Bumps the events of mask in t's sum (atomic: from another CPU than t's). */
static __always_inline void cnt_bump(struct kp_cnt_task *t, __u32 mask, bool atomic)
{
	__u32 i;

	for (i = 0; i < KP_COUNT_EVENTS_MAX && i < count_nev; i++) {
		if (!(mask & (1U << i)))
			continue;
		if (atomic)
			__sync_fetch_and_add(&t->sum[i].counter, 1);
		else
			t->sum[i].counter++;
	}
}

/*
 * The thread's own fault count of event i (the task's min_flt or maj_flt),
 * 0 for the events that are no such count.
 */
static __always_inline __u64 cnt_task_fault(const struct task_struct *task, __u32 i)
{
	if (count_by.minflt & (1U << i))
		return task->min_flt;
	if (count_by.majflt & (1U << i))
		return task->maj_flt;
	return 0;
}

/* The current thread's own fault counts added to out, for the events that are them. */
static __always_inline void cnt_task_faults(struct kp_cnt_val *out)
{
	struct task_struct *task = bpf_get_current_task_btf();
	__u32 i;

	for (i = 0; i < KP_COUNT_EVENTS_MAX && i < count_nev; i++)
		out[i].counter += cnt_task_fault(task, i);
}

/*
 * The running thread t's values now into out, software events' times at
 * clock (0: stamped later): false when one cannot be read.
 */
static __always_inline bool cnt_now(struct kp_cnt_task *t, struct kp_cnt_val *out, __u64 clock)
{
	__u32 cpu = bpf_get_smp_processor_id(), i;
	struct kp_cnt_val v;

	if (!t->on_cpu || t->cpu != cpu)
		return false;
	for (i = 0; i < KP_COUNT_EVENTS_MAX && i < count_nev; i++) {
		if (!cnt_cpu(cpu, i, clock, &v))
			return false;
		cnt_add(&out[i], &v, &t->snap[i], &t->sum[i]);
	}
	if (count_by.minflt | count_by.majflt)
		cnt_task_faults(out);
	return true;
}

/*
 * What the thread counted from entry (its values then) to now, added into l:
 * false when lost.  atomic: for fentry programs, which run preemptible and
 * share l's CPU slot with each other (raw tracepoints' plain adds suffice).
 * clock: the caller's return time, read before the counters, so that their
 * reads lie outside the timed window.
 */
static __always_inline bool cnt_account(struct kp_cnt_task *t, const struct kp_cnt_val *entry,
					struct kp_cnt_lat *l, bool atomic, __u64 clock)
{
	struct kp_cnt_val now[KP_COUNT_EVENTS_MAX];
	__u32 i;

	if (!cnt_now(t, now, clock))
		return false;
	if (atomic)
		__sync_fetch_and_add(&l->calls, 1);
	else
		l->calls++;
	for (i = 0; i < KP_COUNT_EVENTS_MAX && i < count_nev; i++) {
		if (atomic) {
			__sync_fetch_and_add(&l->ev[i].counter, now[i].counter - entry[i].counter);
			__sync_fetch_and_add(&l->ev[i].enabled, now[i].enabled - entry[i].enabled);
			__sync_fetch_and_add(&l->ev[i].running, now[i].running - entry[i].running);
		} else {
			l->ev[i].counter += now[i].counter - entry[i].counter;
			l->ev[i].enabled += now[i].enabled - entry[i].enabled;
			l->ev[i].running += now[i].running - entry[i].running;
		}
	}
	return true;
}

#endif
