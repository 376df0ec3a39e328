/* SPDX-License-Identifier: GPL-2.0-only */
/* Limits that protect the machine: BPF map sizes against the memory available. */
#ifndef KP_LIMITS_H
#define KP_LIMITS_H

#include <stddef.h>

struct record_bpf;

/*
 * Whether the maps --ring-size, --max-stacks and --max-tasks size (as set in
 * the opened, not yet loaded skel) fit in half of MemAvailable: 0, or
 * -ENOMEM with why naming the option and the memory it would need.
 */
int limits_check(const struct record_bpf *skel, unsigned int ring_mib, unsigned int max_stacks,
		 unsigned int max_tasks, char *why, size_t len);

#endif
