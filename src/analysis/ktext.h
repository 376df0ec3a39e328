/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * The running kernel's text, for record --blocks and the features inventory: from
 * /proc/kcore (an ELF core file: alternatives, static calls and jump labels
 * as they are patched now), else from the vmlinux file moved by the KASLR
 * slide (as linked: unpatched).
 */
#ifndef KP_KTEXT_H
#define KP_KTEXT_H

#include <stddef.h>
#include <linux/types.h>

/*
 * len bytes at kernel address addr from the ELF core file at path: 0,
 * -ENOEXEC when it is no ELF64 core file, -ENOENT when no PT_LOAD segment
 * holds all of them, -errno when unreadable.
 */
int ktext_kcore(const char *path, __u64 addr, void *buf, size_t len);
/*
 * len bytes at running address addr from the vmlinux at path, whose _stext
 * runs at stext: 0, -ENOEXEC (no ELF file, no _stext), -ENOENT (no section
 * holds them), -errno.
 */
int ktext_vmlinux(const char *path, __u64 stext, __u64 addr, void *buf, size_t len);

#endif
