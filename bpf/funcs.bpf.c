// SPDX-License-Identifier: GPL-2.0-only
/*
 * kprotperf record --func: entry-to-return latency of kernel functions called
 * by the traced tree, split by the syscall they ran in, their kernel stack
 * and, for slab functions, the cache.  fentry/fexit where the kernel allows
 * it, else kprobe/kretprobe; the tree, thread, counter and stack maps are the
 * ones of record.bpf.c, shared by fd.
 */
#include "vmlinux.h"
#include <bpf/bpf_helpers.h>
#include <bpf/bpf_tracing.h>
#include <bpf/bpf_core_read.h>
#include "kprotperf.h"
#include "func_layout.h"
#include "common.bpf.h"

char LICENSE[] SEC("license") = "GPL";

/* fentry/fexit programs are loaded once per function: which one this copy is */
const volatile __u32 fentry_func;
const volatile __u32 func_flags[KP_MAX_FUNCS];

struct {
	__uint(type, BPF_MAP_TYPE_HASH);
	__uint(max_entries, 8192);
	__type(key, struct kp_func_tid);
	__type(value, struct kp_func_frames);
} func_frames SEC(".maps");

struct {
	__uint(type, BPF_MAP_TYPE_PERCPU_ARRAY);
	__uint(max_entries, KP_MAX_FUNCS);
	__type(key, __u32);
	__type(value, struct kp_lat);
} func_lat SEC(".maps");

struct {
	__uint(type, BPF_MAP_TYPE_HASH);
	__uint(max_entries, 4096);
	__type(key, struct kp_func_by_nr);
	__type(value, struct kp_func_split);
} func_nr SEC(".maps");

struct {
	__uint(type, BPF_MAP_TYPE_HASH);
	__uint(max_entries, 16384);
	__type(key, struct kp_func_by_stack);
	__type(value, struct kp_func_split);
} func_stack SEC(".maps");

struct {
	__uint(type, BPF_MAP_TYPE_HASH);
	__uint(max_entries, 4096);
	__type(key, struct kp_func_by_ctx);
	__type(value, struct kp_func_split);
} func_ctx SEC(".maps");

static __always_inline struct kp_func_frames *frames_of(__u32 tid, __u32 func, bool create)
{
	static const struct kp_func_frames zero;
	struct kp_func_tid key = { tid, func };
	struct kp_func_frames *f = bpf_map_lookup_elem(&func_frames, &key);

	if (f || !create)
		return f;
	if (bpf_map_update_elem(&func_frames, &key, &zero, BPF_NOEXIST)) {
		count(KP_CNT_LOST_FUNC_MAP);
		return NULL;
	}
	return bpf_map_lookup_elem(&func_frames, &key);
}

/* The syscall the current thread is in, if the tree's syscall tracking saw it enter. */
static __always_inline __u32 syscall_nr(__u32 tid)
{
	struct kp_thread *t = bpf_map_lookup_elem(&threads, &tid);

	return t && t->in_syscall ? t->nr : KP_NO_SYSCALL;
}

static __always_inline int enter(__u32 func, void *ctx, struct kmem_cache *arg0)
{
	struct task_struct *task = bpf_get_current_task_btf();
	__u32 tgid = task->tgid, tid = task->pid, d;
	struct kp_func_frames *f;

	if (func >= KP_MAX_FUNCS || !in_tree(tgid))
		return 0;
	f = frames_of(tid, func, true);
	if (!f)
		return 0;
	d = f->depth++;
	if (d >= KP_FUNC_DEPTH) {
		count(KP_CNT_LOST_FUNC_DEPTH);
		return 0;
	}
	f->kstack[d] = bpf_get_stackid(ctx, &stacks, 0);
	f->nr[d] = syscall_nr(tid);
	f->ctx[d][0] = 0;
	/*
	 * The 6.1 verifier does not keep the bound checked above once func was
	 * spilled, and clang would drop a mask it knows to be redundant.
	 */
	barrier_var(func);
	if (func_flags[func & (KP_MAX_FUNCS - 1)] & KP_FUNC_ARG0_KMEM_CACHE)
		bpf_probe_read_kernel_str(f->ctx[d], KP_CTX_LEN, BPF_CORE_READ(arg0, name));
	f->ts[d] = bpf_ktime_get_ns();
	return 0;
}

static __always_inline void split(void *map, const void *key, __u64 ns)
{
	struct kp_func_split *s = bpf_map_lookup_elem(map, key), one = { 1, ns };

	if (s) {
		__sync_fetch_and_add(&s->calls, 1);
		__sync_fetch_and_add(&s->total_ns, ns);
	} else if (bpf_map_update_elem(map, key, &one, BPF_NOEXIST)) {
		count(KP_CNT_LOST_FUNC_MAP);
	}
}

static __always_inline void account(__u32 func, const struct kp_func_frames *f, __u32 d,
				    __u64 ns)
{
	struct kp_func_by_stack ks = { func, f->kstack[d] };
	struct kp_func_by_nr kn = { func, f->nr[d] };
	struct kp_lat *lat = bpf_map_lookup_elem(&func_lat, &func);
	struct kp_func_by_ctx kc = { func };
	__u32 b = kp_hist_bucket(ns);

	/* fentry programs run preemptible: another task's can interleave on this CPU */
	if (lat) {
		__sync_fetch_and_add(&lat->calls, 1);
		__sync_fetch_and_add(&lat->done, 1);
		__sync_fetch_and_add(&lat->total_ns, ns);
		if (ns > lat->max_ns)
			lat->max_ns = ns;
		barrier_var(b);
		if (b < KP_HIST_BUCKETS)
			__sync_fetch_and_add(&lat->hist[b], 1);
	}
	split(&func_nr, &kn, ns);
	split(&func_stack, &ks, ns);
	if (f->ctx[d][0]) {
		__builtin_memcpy(kc.ctx, f->ctx[d], KP_CTX_LEN);
		split(&func_ctx, &kc, ns);
	}
}

static __always_inline int leave(__u32 func)
{
	__u64 now = bpf_ktime_get_ns();
	__u32 tid = bpf_get_current_task_btf()->pid, d;
	struct kp_func_tid key = { tid, func };
	struct kp_func_frames *f;

	if (func >= KP_MAX_FUNCS)
		return 0;
	f = frames_of(tid, func, false);
	if (!f || !f->depth) {
		/* entered before recording started, or its entry was not seen */
		if (!filter_tree || f)
			count(KP_CNT_FUNC_UNMATCHED);
		return 0;
	}
	d = --f->depth;
	if (d < KP_FUNC_DEPTH)
		account(func, f, d, now - f->ts[d]);
	if (!f->depth)
		bpf_map_delete_elem(&func_frames, &key);
	return 0;
}

SEC("fentry")
int BPF_PROG(kp_fentry)
{
	__u64 arg0 = 0;

	/* fails harmlessly for functions without arguments */
	bpf_get_func_arg(ctx, 0, &arg0);
	return enter(fentry_func, ctx, (struct kmem_cache *)arg0);
}

SEC("fexit")
int BPF_PROG(kp_fexit)
{
	return leave(fentry_func);
}

SEC("kprobe")
int BPF_KPROBE(kp_kprobe, struct kmem_cache *arg0)
{
	return enter(bpf_get_attach_cookie(ctx), ctx, arg0);
}

SEC("kretprobe")
int BPF_KRETPROBE(kp_kretprobe)
{
	return leave(bpf_get_attach_cookie(ctx));
}

SEC("kprobe.multi")
int BPF_KPROBE(kp_kprobe_multi, struct kmem_cache *arg0)
{
	return enter(bpf_get_attach_cookie(ctx), ctx, arg0);
}

SEC("kretprobe.multi")
int BPF_KRETPROBE(kp_kretprobe_multi)
{
	return leave(bpf_get_attach_cookie(ctx));
}
