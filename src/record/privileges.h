/* SPDX-License-Identifier: GPL-2.0-only */
/* Whether this process may record, said before anything is loaded. */
#ifndef KP_PRIVILEGES_H
#define KP_PRIVILEGES_H

#include <stddef.h>

/*
 * 0 when this process has what recording needs: CAP_BPF and CAP_PERFMON
 * (CAP_SYS_ADMIN before 5.8), CAP_SYSLOG when /proc/kallsyms would hide
 * addresses from it, CAP_SYS_RESOURCE when BPF memory counts against a
 * finite RLIMIT_MEMLOCK (before 5.11).  Else -EPERM, with why naming what
 * is lacking and the setcap line that grants all of it.
 */
int privileges_check(char *why, size_t len);

#endif
