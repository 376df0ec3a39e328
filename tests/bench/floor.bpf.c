/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * The floor of syscall tracing: what merely having a BPF program on the
 * sys_enter and sys_exit raw tracepoints costs every syscall of the system.
 * No tracer built on these tracepoints can add less per syscall.  The
 * clock_* pair (floor clock) adds what timing a syscall cannot do without:
 * one clock read at entry and one at return.
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
