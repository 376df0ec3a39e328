/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * The floor of syscall tracing: what merely having a BPF program on the
 * sys_enter and sys_exit raw tracepoints costs every syscall of the system.
 * No tracer built on these tracepoints can add less per syscall.
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
