/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * The samples and stacks of a recording, as they arrive through the BPF
 * ring buffer: every stack kept once (by its frames), numbered in order of
 * arrival as the data file numbers them, and every sample counted by thread,
 * command name and stacks.  Nothing here has a fixed size to fill.
 */
#ifndef KP_STACKSTORE_H
#define KP_STACKSTORE_H

#include <stddef.h>
#include <linux/types.h>

#include "kprotperf.h"

/* kstack of a sample taken in user mode, or of a --func call without --func-stacks */
#define KP_NO_KSTACK (-2)

/* One counted sample; kstack/ustack are store ids, or negative (KP_NO_KSTACK, -errno: lost). */
struct kp_sample_key {
	__u32 tgid;
	__u32 pid;
	__s32 kstack;
	__s32 ustack;
	char comm[KP_COMM_LEN];
};

struct bpf_map;
struct stackstore;
struct ustack_dwarf;

/*
 * A store fed by the ring buffer map ring (the BPF objects' "events"); with
 * dwarf (record --call-graph dwarf), user stacks are unwound by it as their
 * samples arrive.
 */
int stackstore_new(struct stackstore **out, const struct bpf_map *ring, struct ustack_dwarf *dwarf);
void stackstore_free(struct stackstore *s);
/* One ring record (data, size bytes) taken in: for tests and fuzzing, without a ring (NULL). */
int stackstore_record(struct stackstore *s, const void *data, size_t size);
/* An fd to poll: readable when the BPF side asked for a wakeup; -1 without a ring. */
int stackstore_fd(const struct stackstore *s);
/* Take in every record waiting in the ring; records taken, or -errno. */
int stackstore_drain(struct stackstore *s);
/* The id of the stack with these frames, kept from now on if new; or -errno. */
__s32 stackstore_intern(struct stackstore *s, const __u64 *ips, __u32 nr);
/* The id of the stack the BPF side sent with this hash, or -ENOENT. */
__s32 stackstore_id(const struct stackstore *s, __u64 hash);
/* Frames of stack id, *nr of them; NULL for an id the store never gave. */
const __u64 *stackstore_frames(const struct stackstore *s, __s32 id, __u32 *nr);
/* Every sample key counted so far and its count, in two arrays the caller frees. */
int stackstore_samples(const struct stackstore *s, struct kp_sample_key **keys, __u64 **counts,
		       size_t *n);
/* The same with each key's weight: the sum of its samples' periods (NULL weights: none). */
int stackstore_weighed(const struct stackstore *s, struct kp_sample_key **keys, __u64 **counts,
		       __u64 **weights, size_t *n);
/* Records that made no sense (a sample naming a stack never sent): a bug if ever nonzero. */
__u64 stackstore_bad(const struct stackstore *s);

#endif
