/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * The floor of syscall tracing: what merely having a BPF program on the
 * sys_enter and sys_exit raw tracepoints costs every syscall of the system.
 * No tracer built on these tracepoints can add less per syscall.  The
 * clock_* pair (floor clock) adds what timing a syscall cannot do without:
 * one clock read at entry and one at return.  The count_* pair (floor
 * count) adds to the clock reads what counting two events per syscall from
 * per-CPU perf events cannot do without: reading both at entry and at
 * return (record --count's method, issue 47).
 */
#include "vmlinux.h"
#include <bpf/bpf_helpers.h>

char LICENSE[] SEC("license") = "GPL";

SEC("raw_tp/sys_enter")
int floor_enter(void *ctx)
{
	return 0;
}

SEC("raw_tp/sys_exit")
int floor_exit(void *ctx)
{
	return 0;
}

/* where the clock reads go, so that they are not optimised away */
__u64 clock_sink;

SEC("raw_tp/sys_enter")
int clock_enter(void *ctx)
{
	clock_sink = bpf_ktime_get_ns();
	return 0;
}

SEC("raw_tp/sys_exit")
int clock_exit(void *ctx)
{
	clock_sink = bpf_ktime_get_ns();
	return 0;
}

/* two events per CPU at cpu * 2 + i, filled by floor.c */
struct {
	__uint(type, BPF_MAP_TYPE_PERF_EVENT_ARRAY);
	__uint(key_size, sizeof(__u32));
	__uint(value_size, sizeof(__u32));
} counters SEC(".maps");

__u64 count_sink;

static __always_inline void read_two(void)
{
	__u64 i = (__u64)bpf_get_smp_processor_id() * 2;

	count_sink += bpf_perf_event_read(&counters, i) + bpf_perf_event_read(&counters, i + 1);
}

SEC("raw_tp/sys_enter")
int count_enter(void *ctx)
{
	clock_sink = bpf_ktime_get_ns();
	read_two();
	return 0;
}

SEC("raw_tp/sys_exit")
int count_exit(void *ctx)
{
	read_two();
	clock_sink = bpf_ktime_get_ns();
	return 0;
}
