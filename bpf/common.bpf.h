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

#endif
