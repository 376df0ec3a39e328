/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * What record.bpf.c and funcs.bpf.c share: the traced tree, the per-thread
 * state (syscall, probed calls), the counters and the stack map.  funcs.bpf.c's copies are
 * replaced at load time by record.bpf.c's maps (bpf_map__reuse_fd).
 */
#ifndef KP_COMMON_BPF_H
#define KP_COMMON_BPF_H

#define EEXIST 17

/* false with -a: every process counts */
const volatile bool filter_tree = true;

/* tgid -> 1 for every process of the traced tree */
struct {
	__uint(type, BPF_MAP_TYPE_HASH);
	__uint(max_entries, 8192);
	__type(key, __u32);
	__type(value, __u8);
} tree SEC(".maps");

/* tid -> syscall state and probed calls in flight; only traced threads get one */
struct {
	__uint(type, BPF_MAP_TYPE_HASH);
	__uint(max_entries, 8192);
	__type(key, __u32);
	__type(value, struct kp_thread);
} threads SEC(".maps");

struct {
	__uint(type, BPF_MAP_TYPE_PERCPU_ARRAY);
	__uint(max_entries, KP_CNT_MAX);
	__type(key, __u32);
	__type(value, __u64);
} counters SEC(".maps");

struct {
	__uint(type, BPF_MAP_TYPE_STACK_TRACE);
	__uint(max_entries, 16384);
	__uint(key_size, sizeof(__u32));
	__uint(value_size, KP_STACK_DEPTH * sizeof(__u64));
} stacks SEC(".maps");

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

static __always_inline bool in_tree(__u32 tgid)
{
	return !filter_tree || bpf_map_lookup_elem(&tree, &tgid);
}

/*
 * State of the current thread if it is traced, created at its first syscall
 * or probed call.  The ids come straight from the BTF task pointer: cheaper
 * than a bpf_get_current_pid_tgid() call on these hot paths.
 */
static __always_inline struct kp_thread *current_thread(struct task_struct *task)
{
	static const struct kp_thread zero;
	__u32 tid = task->pid;
	struct kp_thread *t = bpf_map_lookup_elem(&threads, &tid);

	if (t || !in_tree(task->tgid))
		return t;
	if (bpf_map_update_elem(&threads, &tid, &zero, BPF_NOEXIST)) {
		count(KP_CNT_LOST_THREADS);
		return NULL;
	}
	return bpf_map_lookup_elem(&threads, &tid);
}

/* A stack id, or -errno counted as a collision or as lost. */
static __always_inline __s32 stack_id(void *ctx, __u64 flags, __u32 lost)
{
	long id = bpf_get_stackid(ctx, &stacks, flags);

	if (id == -EEXIST)
		count(KP_CNT_STACK_COLLISION);
	else if (id < 0)
		count(lost);
	return id;
}

#endif
