// SPDX-License-Identifier: GPL-2.0-only
/*
 * kprotperf record --blocks: one kprobe at each basic block head of a
 * function, its cookie naming function and block, and a kretprobe at the
 * function to close a call.  Per call (task storage, a stack for nesting and
 * recursion) the instructions executed and each loop head's executions; at
 * return, those values as per-call distributions; per block, its executions
 * within recorded calls.  The tree, thread, counter and ring maps are
 * record.bpf.c's, shared by fd.
 */
#include "vmlinux.h"
#include <bpf/bpf_helpers.h>
#include <bpf/bpf_tracing.h>
#include <bpf/bpf_core_read.h>
#include "kprotperf.h"
#include "blocks_layout.h"
#include "common.bpf.h"

char LICENSE[] SEC("license") = "GPL";

/* a function whose first argument is a struct kmem_cache *: its name is the call's context */
const volatile bool arg0_cache[KP_BLK_FUNCS];

struct {
	__uint(type, BPF_MAP_TYPE_ARRAY);
	__uint(max_entries, KP_BLK_FUNCS *KP_BLK_MAX);
	__type(key, __u32);
	__type(value, struct kp_blk_info);
} binfo SEC(".maps");

/* executions of each block within recorded calls; kprobes run with preemption off */
struct {
	__uint(type, BPF_MAP_TYPE_PERCPU_ARRAY);
	__uint(max_entries, KP_BLK_FUNCS *KP_BLK_MAX);
	__type(key, __u32);
	__type(value, __u64);
} bcount SEC(".maps");

struct {
	__uint(type, BPF_MAP_TYPE_PERCPU_ARRAY);
	__uint(max_entries, KP_BLK_FUNCS);
	__type(key, __u32);
	__type(value, struct kp_blk_stats);
} bstats SEC(".maps");

/* per-call values: how many calls had each; sized by user space */
struct {
	__uint(type, BPF_MAP_TYPE_HASH);
	__uint(max_entries, 32768);
	__type(key, struct kp_blk_value);
	__type(value, __u64);
} bvalues SEC(".maps");

struct {
	__uint(type, BPF_MAP_TYPE_TASK_STORAGE);
	__uint(map_flags, BPF_F_NO_PREALLOC);
	__type(key, int);
	__type(value, struct kp_blk_thread);
} bthreads SEC(".maps");

/* The --blocks state of the current thread if it is traced and past its exec. */
static __always_inline struct kp_blk_thread *blk_thread(struct task_struct *task)
{
	struct kp_sys *e = sys_find(task_regs(task));

	if (!e || e->pending)
		return NULL;
	return bpf_task_storage_get(&bthreads, task, 0, BPF_LOCAL_STORAGE_GET_F_CREATE);
}

static __always_inline void push(struct kp_blk_thread *t, struct kp_blk_stats *st, __u32 func,
				 struct kmem_cache *arg0)
{
	struct kp_blk_call *c;
	__u32 d = t->depth;

	if (d >= KP_BLK_DEPTH) {
		st->lost_depth++;
		/* its return pops it all the same */
		t->depth = d + 1;
		return;
	}
	c = &t->call[d & (KP_BLK_DEPTH - 1)];
	__builtin_memset(c, 0, sizeof(*c));
	c->func = func;
	if (arg0_cache[func & (KP_BLK_FUNCS - 1)] && arg0)
		bpf_probe_read_kernel_str(c->ctx, KP_CTX_LEN, BPF_CORE_READ(arg0, name));
	t->depth = d + 1;
	st->calls++;
}

SEC("kprobe")
int BPF_KPROBE(kp_block, struct kmem_cache *arg0)
{
	__u64 cookie = bpf_get_attach_cookie(ctx);
	__u32 func = cookie >> 16, idx = func * KP_BLK_MAX + (cookie & 0xffff), d;
	struct kp_blk_info *b = bpf_map_lookup_elem(&binfo, &idx);
	struct kp_blk_stats *st = bpf_map_lookup_elem(&bstats, &func);
	struct kp_blk_thread *t;
	struct kp_blk_call *c;
	__u64 *n;

	if (!b || !st || !b->used)
		return 0;
	/* every task runs these addresses: untraced ones leave after one array load */
	t = blk_thread(bpf_get_current_task_btf());
	if (!t)
		return 0;
	if (b->entry)
		push(t, st, func, arg0);
	d = t->depth;
	/* none open, or the innermost one lost: nothing to count into */
	if (!d || d > KP_BLK_DEPTH)
		return 0;
	c = &t->call[(d - 1) & (KP_BLK_DEPTH - 1)];
	if (c->func != func)
		return 0;
	c->insns += b->insns;
	if (b->loop < KP_BLK_LOOPS)
		c->trips[b->loop & (KP_BLK_LOOPS - 1)]++;
	n = bpf_map_lookup_elem(&bcount, &idx);
	if (n)
		*n += 1;
	return 0;
}

/* One more call with value v of what (loop) in ctx; false when bvalues is full. */
static __always_inline bool add_value(struct kp_blk_value *k, __u8 what, __u8 loop, __u64 v)
{
	__u64 one = 1, *n;

	k->what = what;
	k->loop = loop;
	k->value = v;
	n = bpf_map_lookup_elem(&bvalues, k);
	if (!n) {
		if (!bpf_map_update_elem(&bvalues, k, &one, BPF_NOEXIST))
			return true;
		/* another CPU put it in first, or the map is full */
		n = bpf_map_lookup_elem(&bvalues, k);
		if (!n)
			return false;
	}
	__sync_fetch_and_add(n, 1);
	return true;
}

static __always_inline void account(const struct kp_blk_call *c, struct kp_blk_stats *st,
				    __u32 nloops)
{
	struct kp_blk_value k = {.func = c->func};
	bool ok;
	__u32 l;

	__builtin_memcpy(k.ctx, c->ctx, KP_CTX_LEN);
	ok = add_value(&k, KP_BLK_INSNS, 0, c->insns);
	for (l = 0; l < KP_BLK_LOOPS && l < nloops; l++)
		ok &= add_value(&k, KP_BLK_TRIPS, l, c->trips[l]);
	if (!ok)
		st->lost_map++;
	st->complete++;
}

/* loops counted per call, per function */
const volatile __u32 nloops[KP_BLK_FUNCS];

SEC("kretprobe")
int BPF_KRETPROBE(kp_block_ret)
{
	__u32 func = bpf_get_attach_cookie(ctx), d, i;
	struct kp_blk_stats *st = bpf_map_lookup_elem(&bstats, &func);
	struct task_struct *task = bpf_get_current_task_btf();
	struct kp_blk_thread *t;

	if (!st || !task->bpf_storage)
		return 0;
	t = bpf_task_storage_get(&bthreads, task, 0, 0);
	if (!t || !t->depth)
		return 0;
	if (t->depth > KP_BLK_DEPTH) {
		/* a call too deep to have been recorded */
		t->depth--;
		return 0;
	}
	/* the innermost open call of func; those above it lost their returns */
	for (i = 1; i <= KP_BLK_DEPTH && i <= t->depth; i++) {
		d = (t->depth - i) & (KP_BLK_DEPTH - 1);
		if (t->call[d].func != func)
			continue;
		st->unmatched += i - 1;
		t->depth = d;
		account(&t->call[d], st, nloops[func & (KP_BLK_FUNCS - 1)]);
		return 0;
	}
	/* entered before recording started */
	st->unmatched++;
	return 0;
}
