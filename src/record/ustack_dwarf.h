/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * record --call-graph dwarf: the user stacks of samples unwound while
 * recording, over the address spaces side-band records keep (procs), so
 * that only frames are stored.
 */
#ifndef KP_USTACK_DWARF_H
#define KP_USTACK_DWARF_H

#include <stdbool.h>
#include <linux/types.h>

#include "kprotperf.h"

/* The outermost frame of a user stack the unwinder could not walk to its end. */
#define KP_IP_TRUNCATED (~0ULL - 1)

struct procs;
struct ustack_dwarf;

int ustack_dwarf_new(struct ustack_dwarf **out, struct procs *procs);
void ustack_dwarf_free(struct ustack_dwarf *d);
/*
 * The user frames of r (whose stack copy holds r->size bytes) into ips, a
 * KP_IP_TRUNCATED last when the walk stopped early: how many, 0 when there
 * are none.
 */
int ustack_dwarf_unwind(struct ustack_dwarf *d, const struct kp_rec_dwarf *r, __u64 *ips, int max);
/* Stacks truncated, and samples whose user stack gave no frame at all. */
__u64 ustack_dwarf_truncated(const struct ustack_dwarf *d);
__u64 ustack_dwarf_failed(const struct ustack_dwarf *d);

#endif
