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

/* when the task now running on this CPU was switched in */
struct {
	__uint(type, BPF_MAP_TYPE_PERCPU_ARRAY);
	__uint(max_entries, 1);
	__type(key, __u32);
	__type(value, __u64);
} switch_in SEC(".maps");

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

/* On-CPU time since the current thread's last switch-in, clipped to the syscall. */
static __always_inline __u64 oncpu_slice(const struct kp_thread *t, __u64 now)
{
	__u32 zero = 0;
	__u64 *in = bpf_map_lookup_elem(&switch_in, &zero);
	__u64 from = t->start_ns;

	if (in && *in > from)
		from = *in;
	return now - from;
}

static __always_inline void hist_add(__u64 *hist, __u64 v)
{
	__u32 b = kp_hist_bucket(v);

	/* keep clang from bounds-checking one register and indexing with a copy */
	barrier_var(b);
	if (b < KP_HIST_BUCKETS)
		hist[b]++;
}

SEC("raw_tp/sys_enter")
int BPF_PROG(kp_sys_enter, struct pt_regs *regs, long nr)
{
	struct kp_thread *t = current_thread(bpf_get_current_task_btf());
	__u32 n = nr;
	struct kp_lat *lat;

	if (!t)
		return 0;
	count(KP_CNT_SYSCALLS);
	lat = bpf_map_lookup_elem(&syscall_lat, &n);
	if (!lat) {
		count(KP_CNT_LOST_NR);
		return 0;
	}
	lat->calls++;
	t->nr = n;
	t->oncpu_ns = 0;
	t->in_syscall = 1;
	t->start_ns = bpf_ktime_get_ns();
	return 0;
}

SEC("raw_tp/sys_exit")
int BPF_PROG(kp_sys_exit, struct pt_regs *regs, long ret)
{
	__u32 tid = bpf_get_current_task_btf()->pid;
	__u64 now = bpf_ktime_get_ns(), total, oncpu;
	struct kp_thread *t;
	struct kp_lat *lat;

	t = bpf_map_lookup_elem(&threads, &tid);
	if (!t || !t->in_syscall)
		return 0;
	t->in_syscall = 0;
	total = now - t->start_ns;
	oncpu = t->oncpu_ns + oncpu_slice(t, now);
	if (oncpu > total)
		oncpu = total;
	lat = bpf_map_lookup_elem(&syscall_lat, &t->nr);
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

/* Runs in the context of prev: close prev's on-CPU slice, open next's. */
SEC("raw_tp/sched_switch")
int BPF_PROG(kp_sched_switch, bool preempt, struct task_struct *prev)
{
	__u32 tid = (__u32)bpf_get_current_pid_tgid(), zero = 0;
	__u64 now = bpf_ktime_get_ns(), *in;
	struct kp_thread *t;

	t = bpf_map_lookup_elem(&threads, &tid);
	if (t && t->in_syscall)
		t->oncpu_ns += oncpu_slice(t, now);
	in = bpf_map_lookup_elem(&switch_in, &zero);
	if (in)
		*in = now;
	return 0;
}

SEC("raw_tp/sched_process_fork")
int BPF_PROG(kp_fork, struct task_struct *parent, struct task_struct *child)
{
	__u32 tgid = bpf_get_current_pid_tgid() >> 32;
	__u8 one = 1;

	if (!filter_tree || !bpf_map_lookup_elem(&tree, &tgid))
		return 0;
	tgid = BPF_CORE_READ(child, tgid);
	if (bpf_map_update_elem(&tree, &tgid, &one, BPF_ANY))
		count(KP_CNT_LOST_TREE);
	return 0;
}

SEC("raw_tp/sched_process_exit")
int BPF_PROG(kp_exit, struct task_struct *task)
{
	__u64 id = bpf_get_current_pid_tgid();
	__u32 tid = (__u32)id, tgid = id >> 32;
	struct task_struct *cur = (void *)bpf_get_current_task();

	bpf_map_delete_elem(&threads, &tid);
	/* signal->live reached zero: the last thread of the process is leaving */
	if (filter_tree && BPF_CORE_READ(cur, signal, live.counter) == 0)
		bpf_map_delete_elem(&tree, &tgid);
	return 0;
}

static __always_inline int fault(__u32 counter)
{
	if (in_tree(bpf_get_current_pid_tgid() >> 32))
		count(counter);
	return 0;
}

SEC("raw_tp/page_fault_user")
int kp_fault_user(void *ctx)
{
	return fault(KP_CNT_FAULTS_USER);
}

SEC("raw_tp/page_fault_kernel")
int kp_fault_kernel(void *ctx)
{
	return fault(KP_CNT_FAULTS_KERNEL);
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
