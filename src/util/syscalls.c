// SPDX-License-Identifier: GPL-2.0-only
/* Syscall names and numbers of this ABI, from the table generated at build time. */
#include "util/syscalls.h"

#include <stdio.h>
#include <string.h>

#include "syscall_names.h"

#define NNAMES (sizeof(kp_syscall_names) / sizeof(kp_syscall_names[0]))

const char *syscalls_name(__u32 nr, void *ctx, char *buf, size_t len)
{
	if (nr < NNAMES && kp_syscall_names[nr])
		return kp_syscall_names[nr];
	snprintf(buf, len, "syscall_%u", nr);
	return buf;
}
