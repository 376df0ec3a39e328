/* SPDX-License-Identifier: GPL-2.0-only */
/* Kernel symbol table: from /proc/kallsyms at record time, from the data file at report time. */
#ifndef KP_KSYMS_H
#define KP_KSYMS_H

#include <stddef.h>
#include <linux/types.h>

struct ksym {
	__u64 addr;
	const char *name;
	const char *module; /* "" for vmlinux */
};

struct ksyms;

int ksyms_new(struct ksyms **out);
/* Load a kallsyms-format file (NULL: /proc/kallsyms); -EPERM when addresses are hidden. */
int ksyms_load(struct ksyms **out, const char *path);
/* The same from fd, read to its end (the caller bounds what it may hold); fd stays open. */
int ksyms_load_fd(struct ksyms **out, int fd);
int ksyms_add(struct ksyms *ks, __u64 addr, const char *name, const char *module);
/* Sort after the last ksyms_add; ksyms_load does it itself. */
void ksyms_sort(struct ksyms *ks);
/* The symbol containing addr (greatest start <= addr), NULL below the first. */
const struct ksym *ksyms_lookup(const struct ksyms *ks, __u64 addr);
const struct ksym *ksyms_by_name(const struct ksyms *ks, const char *name);
/* The index (as ksyms_at's) of the first of the symbols starting at addr; -1: none does. */
long ksyms_index(const struct ksyms *ks, __u64 addr);
const struct ksym *ksyms_at(const struct ksyms *ks, size_t i);
void ksyms_free(struct ksyms *ks);

#endif
