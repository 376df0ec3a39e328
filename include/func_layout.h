/* SPDX-License-Identifier: (GPL-2.0-only OR BSD-2-Clause) */
/*
 * Function latency probes (record --func): map keys and values shared by
 * bpf/funcs.bpf.c and src/funcs.c.  Latencies use struct kp_lat of kprotperf.h.
 */
#ifndef KP_FUNC_LAYOUT_H
#define KP_FUNC_LAYOUT_H

#include "kprotperf.h"

#define KP_MAX_FUNCS 64
/* fentry/fexit pairs per copy of the funcs object (FENTRY_PAIR in funcs.bpf.c) */
#define KP_FENTRY_SLOTS 16
/* nr of calls made outside any syscall (page faults, kernel threads), in the data file */
#define KP_NO_SYSCALL 0xffff
/* per-syscall slots of a function: one per syscall number, then one for "none" */
#define KP_FUNC_NR_SLOTS (KP_MAX_SYSCALLS + 1)

enum kp_func_flag {
	KP_FUNC_ARG0_KMEM_CACHE = 1,	/* first argument is a struct kmem_cache * */
};

struct kp_func_split {
	__u64 calls;
	__u64 total_ns;
};

struct kp_func_by_stack {
	__u32 func;
	__s32 kstack;
};

struct kp_func_by_ctx {
	__u32 func;
	char ctx[KP_CTX_LEN];
};

#endif
