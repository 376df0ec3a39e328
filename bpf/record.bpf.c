// SPDX-License-Identifier: GPL-2.0-only
/*
 * kprotperf record: per-syscall latency (on-CPU and off-CPU), page faults and
 * CPU-clock stack samples of one process tree.  Only raw tracepoints and
 * perf_event programs: they need neither kprobes nor fentry nor tracefs.
 */
#include "vmlinux.h"
#include <bpf/bpf_helpers.h>
#include <bpf/bpf_tracing.h>
#include <bpf/bpf_core_read.h>
#include "kprotperf.h"
#include "common.bpf.h"

char LICENSE[] SEC("license") = "GPL";

struct {
	__uint(type, BPF_MAP_TYPE_PERCPU_ARRAY);
	__uint(max_entries, KP_MAX_SYSCALLS);
	__type(key, __u32);
	__type(value, struct kp_lat);
} syscall_lat SEC(".maps");

struct {
	__uint(type, BPF_MAP_TYPE_HASH);
	__uint(max_entries, 16384);
	__type(key, struct kp_sample_key);
	__type(value, __u64);
} samples SEC(".maps");

/*
 * Plain increment: only this file's raw tracepoint programs, which run with
 * preemption off, write this slot (count() is for slots fentry shares).
 */
static __always_inline void count_syscall(void)
{
	__u32 idx = KP_CNT_SYSCALLS;
	__u64 *c = bpf_map_lookup_elem(&counters, &idx);

	if (c)
		(*c)++;
}

static __always_inline void hist_add(__u64 *hist, __u64 v)
{
	__u32 b = kp_hist_bucket(v);

	/* keep clang from bounds-checking one register and indexing with a copy */
	barrier_var(b);
	if (b < KP_HIST_BUCKETS)
		hist[b]++;
}

/*
 * task_pt_regs() minus task->stack, learnt at the first entry given out:
 * sched_switch finds the two tasks' entries without a helper call.
 */
__u64 regs_off;

static __always_inline void learn_regs_off(struct task_struct *task, __u64 regs)
{
	if (!regs_off)
		regs_off = regs - ptr_value(task->stack);
}

/*
 * -p and -a: a thread running before recording started gets its entry at
 * its first syscall or fault.  Compiled out otherwise: then an untraced
 * thread never gets here.
 */
static __always_inline struct kp_sys *sys_lazy(__u64 regs)
{
	struct task_struct *task;
	__u8 state;

	if (filter_tree && !lazy_threads)
		return NULL;
	task = bpf_get_current_task_btf();
	state = tree_state(task->tgid);
	if (!state)
		return NULL;
	learn_regs_off(task, regs);
	return sys_enroll(regs, state == KP_TREE_PENDING);
}

SEC("raw_tp/sys_enter")
int BPF_PROG(kp_sys_enter, struct pt_regs *regs, long nr)
{
	struct kp_sys *e = sys_find((__u64)regs) ?: sys_lazy((__u64)regs);
	__u32 n = nr;
	struct kp_lat *lat;

	if (!e)
		return 0;
	/* pending: timed all the same, and counted by kp_exec if this is the exec that succeeds */
	if (!e->pending) {
		count_syscall();
		lat = bpf_map_lookup_elem(&syscall_lat, &n);
		if (!lat) {
			count(KP_CNT_LOST_NR);
			return 0;
		}
		lat->calls++;
	}
	e->nr = n;
	e->oncpu_ns = 0;
	e->in_syscall = 1;
	e->start_ns = bpf_ktime_get_ns();
	e->slice_ns = e->start_ns;
	return 0;
}

SEC("raw_tp/sys_exit")
int BPF_PROG(kp_sys_exit, struct pt_regs *regs, long ret)
{
	struct kp_sys *e = sys_find((__u64)regs);
	__u64 now, total, oncpu;
	struct kp_lat *lat;

	if (!e || !e->in_syscall)
		return 0;
	e->in_syscall = 0;
	/* the launcher's own syscalls, and the execve attempts of its PATH search that failed */
	if (e->pending)
		return 0;
	now = bpf_ktime_get_ns();
	total = now - e->start_ns;
	oncpu = e->oncpu_ns + now - e->slice_ns;
	if (oncpu > total)
		oncpu = total;
	lat = bpf_map_lookup_elem(&syscall_lat, &e->nr);
	if (!lat)
		return 0;
	lat->done++;
	lat->total_ns += total;
	lat->oncpu_ns += oncpu;
	if (total > lat->max_ns)
		lat->max_ns = total;
	hist_add(lat->hist, total);
	hist_add(lat->oncpu_hist, oncpu);
	return 0;
}

/* sched_switch's way from a pointer to its value: through memory, not a helper call */
struct {
	__uint(type, BPF_MAP_TYPE_PERCPU_ARRAY);
	__uint(max_entries, 1);
	__type(key, __u32);
	__type(value, __u64);
} switch_scratch SEC(".maps");

static __always_inline struct kp_sys *switch_find(struct task_struct *task)
{
	__u32 zero = 0;
	volatile __u64 *v;

	if (!regs_off)
		return NULL;
	v = bpf_map_lookup_elem(&switch_scratch, &zero);
	if (!v)
		return NULL;
	*v = (__u64)task->stack;
	return sys_find(*v + regs_off);
}

/*
 * Closes prev's on-CPU slice and opens next's, when they are in a syscall.
 * tp_btf: next is a task pointer, whose stack locates its entry.
 */
SEC("tp_btf/sched_switch")
int BPF_PROG(kp_sched_switch, bool preempt, struct task_struct *prev, struct task_struct *next)
{
	struct kp_sys *p = switch_find(prev), *n = switch_find(next);
	__u64 now = 0;

	if (p && p->in_syscall) {
		now = bpf_ktime_get_ns();
		p->oncpu_ns += now - p->slice_ns;
	}
	if (n && n->in_syscall)
		n->slice_ns = now ?: bpf_ktime_get_ns();
	return 0;
}

static __always_inline void enroll_child(struct task_struct *child, bool pending)
{
	__u64 regs = task_regs(child);

	learn_regs_off(child, regs);
	sys_enroll(regs, pending);
}

/* kprotperf's pid while it forks the command, set by user space */
__u32 forking_command;

/*
 * The child of a traced process is traced, from its first instruction on;
 * so is the command, pending until its exec: it gets its entry before it can
 * run.
 */
SEC("tp_btf/sched_process_fork")
int BPF_PROG(kp_fork, struct task_struct *parent, struct task_struct *child)
{
	__u32 tgid = parent->tgid;
	__u8 *state;

	if (!filter_tree)
		return 0;
	state = bpf_map_lookup_elem(&tree, &tgid);
	if (!state) {
		if (tgid == forking_command)
			enroll_child(child, true);
		return 0;
	}
	/* a child forked before the command's exec is the launcher's: pending too */
	tgid = child->tgid;
	if (tgid != parent->tgid && bpf_map_update_elem(&tree, &tgid, state, BPF_ANY)) {
		count(KP_CNT_LOST_TREE);
		return 0;
	}
	enroll_child(child, *state == KP_TREE_PENDING);
	return 0;
}

/* the command's execs, one a run: a run whose command exited without one never ran it */
__u64 execs;

/*
 * The command's exec succeeded: from now on its process counts, and so does
 * this execve, entry to return, once.  The execve attempts that failed
 * before it (execvp's PATH search) never count.
 */
SEC("raw_tp/sched_process_exec")
int BPF_PROG(kp_exec, struct task_struct *p)
{
	struct task_struct *task = bpf_get_current_task_btf();
	__u32 tgid = task->tgid;
	struct kp_lat *lat;
	struct kp_sys *e;
	__u8 *state;

	if (!filter_tree)
		return 0;
	state = bpf_map_lookup_elem(&tree, &tgid);
	if (!state || *state != KP_TREE_PENDING)
		return 0;
	*state = KP_TREE_MEMBER;
	__sync_fetch_and_add(&execs, 1);
	e = sys_find(task_regs(task));
	if (!e || !e->pending)
		return 0;
	e->pending = 0;
	if (!e->in_syscall)
		return 0;
	count_syscall();
	lat = bpf_map_lookup_elem(&syscall_lat, &e->nr);
	if (lat)
		lat->calls++;
	else
		count(KP_CNT_LOST_NR);
	return 0;
}

SEC("raw_tp/sched_process_exit")
int BPF_PROG(kp_exit, struct task_struct *task)
{
	struct task_struct *cur = bpf_get_current_task_btf();
	__u32 tgid = cur->tgid;

	sys_release(task_regs(cur));
	/* signal->live reached zero: the last thread of the process is leaving */
	if (filter_tree && cur->signal->live.counter == 0)
		bpf_map_delete_elem(&tree, &tgid);
	return 0;
}

static __always_inline int fault(__u64 regs, __u32 counter)
{
	struct kp_sys *e = sys_find(regs) ?: sys_lazy(regs);

	if (e && !e->pending)
		count(counter);
	return 0;
}

/* regs: the user registers, at the top of the task's stack like a syscall's */
SEC("raw_tp/page_fault_user")
int BPF_PROG(kp_fault_user, unsigned long address, struct pt_regs *regs)
{
	return fault((__u64)regs, KP_CNT_FAULTS_USER);
}

/* regs: where in the kernel it faulted; the task's are found from the task */
SEC("raw_tp/page_fault_kernel")
int kp_fault_kernel(void *ctx)
{
	return fault(task_regs(bpf_get_current_task_btf()), KP_CNT_FAULTS_KERNEL);
}

SEC("perf_event")
int kp_sample(struct bpf_perf_event_data *ctx)
{
	__u64 id = bpf_get_current_pid_tgid(), one = 1, *n;
	struct kp_sample_key key = {};
	long err;

	key.tgid = id >> 32;
	key.pid = (__u32)id;
	if (!key.pid || !in_tree(key.tgid))
		return 0;
	count(KP_CNT_SAMPLES);
	/* x86_64: kernel addresses are the negative half */
	if ((long)PT_REGS_IP(&ctx->regs) < 0)
		key.kstack = stack_id(ctx, 0, KP_CNT_LOST_KSTACK);
	else
		key.kstack = KP_NO_KSTACK;
	key.ustack = stack_id(ctx, BPF_F_USER_STACK, KP_CNT_LOST_USTACK);
	bpf_get_current_comm(key.comm, sizeof(key.comm));
	n = bpf_map_lookup_elem(&samples, &key);
	if (n) {
		__sync_fetch_and_add(n, 1);
		return 0;
	}
	err = bpf_map_update_elem(&samples, &key, &one, BPF_NOEXIST);
	if (err == -EEXIST) {
		/* another CPU inserted the same key first */
		n = bpf_map_lookup_elem(&samples, &key);
		if (n)
			__sync_fetch_and_add(n, 1);
	} else if (err) {
		count(KP_CNT_LOST_SAMPLES);
	}
	return 0;
}
