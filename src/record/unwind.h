/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * User stacks without frame pointers (record --call-graph dwarf): a sample's
 * user registers and a copy of the top of its user stack, walked with
 * libdw's unwinder over the .eh_frame/.debug_frame CFI of the files mapped
 * where the frames are.  The address space comes from the caller (the map
 * table side-band records build), not /proc, so a process that exited
 * since its sample still unwinds.  x86_64 only.
 */
#ifndef KP_UNWIND_H
#define KP_UNWIND_H

#include <stdbool.h>
#include <stddef.h>
#include <linux/types.h>

/* x86_64 user registers in DWARF numbering: rax rdx rcx rbx rsi rdi rbp rsp r8..r15 rip */
#define UNW_REGS   17
#define UNW_REG_SP 7
#define UNW_REG_IP 16

/* A file mapping: path is absolute, or "[vdso]"; anything else is not unwound through. */
struct unw_map {
	__u64 start, end, pgoff;
	const char *path;
};

/* The mapping holding address ip in the space being unwound into *out: 0, or -ENOENT. */
typedef int (*unw_find_map)(void *ctx, __u64 ip, struct unw_map *out);

struct unwinder;

int unwinder_new(struct unwinder **out);
void unwinder_free(struct unwinder *u);
/*
 * Unwind one sample.  space names the address space: the files reported
 * into it (lazily, as frames land in them, through find) and their parsed
 * CFI are kept for the next samples of the same space, for the 64 spaces
 * used last.  regs: the user registers at the sample; stack, len: the bytes
 * copied from regs[UNW_REG_SP] upwards, the only memory the unwinder reads.
 * Writes up to max addresses to ips: regs[UNW_REG_IP] first, then return
 * addresses (as a frame-pointer stack gives them).  Returns how many (>= 1
 * when rip is nonzero), or -EINVAL for max < 1.  *truncated is set unless
 * the walk reached a frame whose CFI ends the stack (_start, a thread's
 * clone): it stopped at an unwinder error, the end of the copy, an address
 * no mapping holds, or max.
 */
int unwind_user(struct unwinder *u, __u64 space, unw_find_map find, void *ctx,
		const __u64 regs[UNW_REGS], const void *stack, size_t len, __u64 *ips, int max,
		bool *truncated);
/* Forget an address space (its process exec'd or exited): its files are closed. */
void unwinder_forget(struct unwinder *u, __u64 space);

#endif
