/* SPDX-License-Identifier: GPL-2.0-only */
/* Whether this process may record, said before anything is loaded. */
#ifndef KP_PRIVILEGES_H
#define KP_PRIVILEGES_H

#include <stdbool.h>
#include <stddef.h>

/*
 * 0 when this process has what recording needs: CAP_BPF and CAP_PERFMON
 * (CAP_SYS_ADMIN before 5.8), CAP_SYSLOG when /proc/kallsyms would hide
 * addresses from it, CAP_SYS_RESOURCE when BPF memory counts against a
 * finite RLIMIT_MEMLOCK (before 5.11).  Else -EPERM, with why naming what
 * is lacking and the setcap line that grants all of it.
 */
int privileges_check(char *why, size_t len);

/*
 * Whether a kallsyms file (/proc/kallsyms) shows zeros instead of addresses
 * (kptr_restrict): judged on its first text symbol, as the per-CPU ones
 * that may come first are at 0 anyway.  false when it cannot be read.
 */
bool privileges_kallsyms_hidden(const char *path);

#endif
