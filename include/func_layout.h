/* SPDX-License-Identifier: (GPL-2.0-only OR BSD-2-Clause) */
/*
 * Function latency probes (record --func): map keys and values shared by
 * bpf/funcs.bpf.c and src/funcs.c.  Latencies use struct kp_lat of kprotperf.h.
 */
#ifndef KP_FUNC_LAYOUT_H
#define KP_FUNC_LAYOUT_H

#define KP_MAX_FUNCS 64
/* calls of one function nested in itself deeper than this are counted lost */
#define KP_FUNC_DEPTH 8
#define KP_CTX_LEN 32
/* nr of calls made outside any syscall (page faults, kernel threads) */
#define KP_NO_SYSCALL 0xffff

enum kp_func_flag {
	KP_FUNC_ARG0_KMEM_CACHE = 1,	/* first argument is a struct kmem_cache * */
};

/* Entries of one function not yet returned, for one thread. */
struct kp_func_frames {
	__u64 ts[KP_FUNC_DEPTH];
	__s32 kstack[KP_FUNC_DEPTH];
	__u32 nr[KP_FUNC_DEPTH];
	char ctx[KP_FUNC_DEPTH][KP_CTX_LEN];
	__u32 depth;
	__u32 pad;
};

struct kp_func_tid {
	__u32 tid;
	__u32 func;
};

struct kp_func_split {
	__u64 calls;
	__u64 total_ns;
};

struct kp_func_by_nr {
	__u32 func;
	__u32 nr;
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
