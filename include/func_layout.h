/* SPDX-License-Identifier: (GPL-2.0-only OR BSD-2-Clause) */
/*
 * Function latency probes (record --func): map keys and values shared by
 * bpf/funcs.bpf.c and src/funcs.c.  Latencies use struct kp_lat of kprotperf.h.
 */
#ifndef KP_FUNC_LAYOUT_H
#define KP_FUNC_LAYOUT_H

#include "kprotperf.h"

#define KP_MAX_FUNCS 64
/* struct kp_pc_action's exits: one bit per function */
_Static_assert(KP_MAX_FUNCS <= 64, "kp_pc_action.exits has 64 bits");
/* fentry/fexit pairs per copy of the funcs object (FENTRY_PAIR in funcs.bpf.c) */
#define KP_FENTRY_SLOTS 16
/* nr of calls made outside any syscall (page faults, kernel threads), in the data file */
#define KP_NO_SYSCALL 0xffff
/* per-syscall slots of a function: one per syscall number, then one for "none" */
#define KP_FUNC_NR_SLOTS (KP_MAX_SYSCALLS + 1)

enum kp_func_flag {
	KP_FUNC_ARG0_KMEM_CACHE = 1, /* first argument is a struct kmem_cache * */
};

/*
 * record --func on an inlined function: kprobes at addresses inside parent
 * functions, one per address, whose cookie indexes this table.  exits has bit
 * f set where control leaves an instance probed as function f (so
 * KP_MAX_FUNCS must not exceed 64); entry is the instance entered there.
 */
#define KP_MAX_PC_PROBES 1024
#define KP_NO_FUNC	 0xffff

struct kp_pc_action {
	__u64 exits;
	__u32 entry; /* KP_NO_FUNC when none */
	__u32 pad;
};

struct kp_func_split {
	__u64 calls;
	__u64 total_ns;
};

struct kp_func_by_stack {
	__u64 kstack; /* hash of a kp_rec_stack */
	__u32 func;
	__u32 pad;
};

struct kp_func_by_ctx {
	__u32 func;
	char ctx[KP_CTX_LEN];
};

#endif
