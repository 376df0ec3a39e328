/* SPDX-License-Identifier: GPL-2.0-only */
/* The BPF links a probing capability (--func, --blocks) holds, and whether the kernel can kprobe.
 */
#ifndef KP_LINKS_H
#define KP_LINKS_H

#include <stdbool.h>
#include <stddef.h>

struct bpf_link;

struct links {
	struct bpf_link **v;
	size_t n, cap;
};

/* Keep l (NULL: the attach failed, errno says why); 0, or -errno with l destroyed. */
int links_add(struct links *ls, struct bpf_link *l);
/* Destroy the links added after the first keep of them. */
void links_cut(struct links *ls, size_t keep);
/* Destroy them all and free the list. */
void links_free(struct links *ls);
struct bpf_object;

/* Runs the kernel skipped because a BPF program was already running on the CPU, over obj's
 * programs. */
unsigned long long links_recursion_misses(const struct bpf_object *obj);
/* Whether the kernel can create kprobes for BPF (CONFIG_KPROBES). */
bool links_kprobes_available(void);
/*
 * Hits the kernel's kprobes and fprobes behind ls's kprobe and kprobe.multi
 * links skipped (another probe running on the CPU, a kretprobe's instances
 * used up) into *missed; -EOPNOTSUPP when the kernel does not say (its
 * bpf_link_info has no missed count: before Linux 6.7).
 */
int links_kprobe_missed(const struct links *ls, unsigned long long *missed);

#endif
