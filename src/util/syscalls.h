/* SPDX-License-Identifier: GPL-2.0-only */
/* Syscall names and numbers of this ABI, from the table generated at build time. */
#ifndef KP_SYSCALLS_H
#define KP_SYSCALLS_H

#include <stddef.h>
#include <linux/types.h>

/* Name of syscall nr on this ABI (ctx unused: the shape collect_latency wants); "syscall_NR",
 * formatted into buf, for numbers the table lacks. */
const char *syscalls_name(__u32 nr, void *ctx, char *buf, size_t len);

#endif
