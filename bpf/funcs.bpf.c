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

/*
 * fentry/fexit programs are bound to one function at load time: each copy of
 * this object carries KP_FENTRY_SLOTS pairs, and which function pair i
 * probes is fentry_funcs[i].  Fewer copies: libbpf parses the kernel's BTF
 * once per object loaded.
 */
const volatile __u32 fentry_funcs[KP_FENTRY_SLOTS];
const volatile __u32 func_flags[KP_MAX_FUNCS];
/* --func-stacks: a kernel stack walk per call, for folded --weight latency */
const volatile bool func_stacks;
/* ids from here on are inline instances (record --func on inlined functions) */
const volatile __u32 first_inline = KP_MAX_FUNCS;

struct {
	__uint(type, BPF_MAP_TYPE_PERCPU_ARRAY);
	__uint(max_entries, KP_MAX_FUNCS);
	__type(key, __u32);
	__type(value, struct kp_lat);
} func_lat SEC(".maps");

/* record --count: per function id; one entry when nothing is counted */
struct {
	__uint(type, BPF_MAP_TYPE_PERCPU_ARRAY);
	__uint(max_entries, KP_MAX_FUNCS);
	__type(key, __u32);
	__type(value, struct kp_cnt_lat);
} func_cnt SEC(".maps");

/* [func * KP_FUNC_NR_SLOTS + syscall slot]: an array, so the JIT inlines the lookup */
struct {
	__uint(type, BPF_MAP_TYPE_PERCPU_ARRAY);
	__uint(max_entries, (KP_MAX_FUNCS * KP_FUNC_NR_SLOTS));
	__type(key, __u32);
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

struct {
	__uint(type, BPF_MAP_TYPE_ARRAY);
	__uint(max_entries, KP_MAX_PC_PROBES);
	__type(key, __u32);
	__type(value, struct kp_pc_action);
} pc_actions SEC(".maps");

/*
 * Open a call of func (< KP_MAX_FUNCS) on s's stack: its slot, for the caller
 * to stamp, or NULL when the stack is full (counted, depth left as it was).
 */
static __always_inline struct kp_func_call *push(struct kp_thread *s, const struct kp_sys *sys,
						 __u32 func, void *ctx, struct kmem_cache *arg0)
{
	struct kp_func_call *c;
	__u32 d = s->depth;

	if (d >= KP_FUNC_DEPTH) {
		count(KP_CNT_LOST_FUNC_DEPTH);
		return NULL;
	}
	s->depth = d + 1;
	c = &s->call[d];
	c->func = func;
	c->cnt_ok = 0;
	c->slot = sys->in_syscall && sys->nr < KP_MAX_SYSCALLS ? sys->nr : KP_MAX_SYSCALLS;
	c->kstack = func_stacks ? stack_ref(ctx, &s->stack, 0, KP_CNT_LOST_KSTACK) : 0;
	c->ctx[0] = 0;
	/*
	 * The 6.1 verifier does not keep the caller's bound on func once it was
	 * spilled, and clang would drop a mask it knows to be redundant.
	 */
	barrier_var(func);
	if (func_flags[func & (KP_MAX_FUNCS - 1)] & KP_FUNC_ARG0_KMEM_CACHE) {
		/* the whole name is the map key later: no bytes of an earlier name may remain */
		__builtin_memset(c->ctx, 0, KP_CTX_LEN);
		bpf_probe_read_kernel_str(c->ctx, KP_CTX_LEN, BPF_CORE_READ(arg0, name));
	}
	return c;
}

/*
 * record --count: the thread's values at the entry of the call on top
 * (after the walk), at clock: 0 when they are read before the call's clock,
 * which cnt_push_stamp() then gives them.
 */
static __always_inline void cnt_push(struct kp_thread *s, struct kp_func_call *c,
				     const struct kp_sys *sys, __u64 clock)
{
	__u32 d = s->depth - 1;
	struct kp_cnt_task *t;

	if (d >= KP_FUNC_DEPTH)
		return;
	t = cnt_current(sys);
	if (!t)
		return;
	/* a bound the verifier keeps after the spills of the calls between */
	barrier_var(d);
	d &= KP_FUNC_DEPTH - 1;
	c->cnt_fails = t->fails;
	c->cnt_ok = cnt_now(t, s->cnt[d], clock);
}

/* record --count: the values cnt_push() read at clock 0, at the call's clock */
static __always_inline void cnt_push_stamp(struct kp_thread *s, const struct kp_func_call *c)
{
	__u32 d = s->depth - 1;

	if (d >= KP_FUNC_DEPTH || !c->cnt_ok)
		return;
	barrier_var(d);
	d &= KP_FUNC_DEPTH - 1;
	cnt_stamp(s->cnt[d], c->ts);
}

/* record --count: what the call at depth d counted, at clock (its return, read before) */
static __always_inline void cnt_pop(struct kp_thread *s, __u32 d, const struct kp_func_call *c,
				    __u64 clock)
{
	/* c's fields before the helper calls, across which 6.12's verifier loses c's bound */
	__u32 func = c->func, ok = c->cnt_ok, fails = c->cnt_fails;
	struct kp_sys *sys = sys_find(task_regs(bpf_get_current_task_btf()));
	struct kp_cnt_task *t = sys ? cnt_task(sys) : NULL;
	struct kp_cnt_lat *l = bpf_map_lookup_elem(&func_cnt, &func);

	if (d >= KP_FUNC_DEPTH || !t || !l || !ok || fails != t->fails) {
		count(KP_CNT_LOST_COUNT);
		return;
	}
	barrier_var(d);
	d &= KP_FUNC_DEPTH - 1;
	if (!cnt_account(t, s->cnt[d], l, true, clock))
		count(KP_CNT_LOST_COUNT);
}

static __always_inline int enter(__u32 func, void *ctx, struct kmem_cache *arg0)
{
	struct kp_func_call *c;
	struct kp_thread *s;
	struct kp_sys *sys;

	if (func >= KP_MAX_FUNCS)
		return 0;
	s = current_thread(bpf_get_current_task_btf(), &sys);
	if (!s)
		return 0;
	c = push(s, sys, func, ctx, arg0);
	if (!c) {
		/* its return comes all the same: leave() pops the calls too deep to record */
		s->depth++;
		return 0;
	}
	/* before the clock: the counting's own work lies outside the timed window */
	if (count_nev)
		cnt_push(s, c, sys, 0);
	/* after the stack walk, which is the probe's time, not the function's */
	c->ts = bpf_ktime_get_ns();
	if (count_nev)
		cnt_push_stamp(s, c);
	return 0;
}

static __always_inline void split(void *map, const void *key, __u64 ns)
{
	struct kp_func_split *s = bpf_map_lookup_elem(map, key), one = {1, ns};

	if (s) {
		__sync_fetch_and_add(&s->calls, 1);
		__sync_fetch_and_add(&s->total_ns, ns);
	} else if (bpf_map_update_elem(map, key, &one, BPF_NOEXIST)) {
		count(KP_CNT_LOST_FUNC_MAP);
	}
}

/* fentry programs run preemptible: another task's can interleave on this CPU */
static __always_inline void account(const struct kp_func_call *c, __u64 ns)
{
	__u32 func = c->func, b = kp_hist_bucket(ns), slot = func * KP_FUNC_NR_SLOTS + c->slot;
	struct kp_lat *lat = bpf_map_lookup_elem(&func_lat, &func);
	struct kp_func_split *nr = bpf_map_lookup_elem(&func_nr, &slot);

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
	if (nr) {
		__sync_fetch_and_add(&nr->calls, 1);
		__sync_fetch_and_add(&nr->total_ns, ns);
	}
}

static __always_inline void account_keys(const struct kp_func_call *c, __u64 ns)
{
	struct kp_func_by_stack ks = {c->kstack, c->func};
	struct kp_func_by_ctx kc = {c->func};

	if (c->kstack)
		split(&func_stack, &ks, ns);
	if (c->ctx[0]) {
		__builtin_memcpy(kc.ctx, c->ctx, KP_CTX_LEN);
		split(&func_ctx, &kc, ns);
	}
}

static __always_inline __u64 bit(__u32 func)
{
	return 1ULL << (func & (KP_MAX_FUNCS - 1));
}

/*
 * Where the innermost open call of a function in mask is, below depth, or -1;
 * a call of a function whose id is below stop ends the search.
 */
static __always_inline int find(const struct kp_thread *s, __u32 depth, __u64 mask, __u32 stop)
{
	__u32 i, d;

	/* past KP_FUNC_DEPTH the calls on top were never recorded: no slot is theirs */
	if (depth > KP_FUNC_DEPTH)
		return -1;
	for (i = 1; i <= KP_FUNC_DEPTH && i <= depth; i++) {
		d = depth - i;
		/* a bound the verifier keeps, which clang must not prove away */
		barrier_var(d);
		d &= KP_FUNC_DEPTH - 1;
		if (s->call[d].func < stop)
			return -1;
		if (mask & bit(s->call[d].func))
			return d;
	}
	return -1;
}

/* Close the call at d; the calls above it lost their returns or exits. */
static __always_inline void pop_to(struct kp_thread *s, __u32 d, __u64 now)
{
	struct kp_func_call *c;

	if (s->depth > d + 1)
		count_n(KP_CNT_FUNC_UNMATCHED, s->depth - d - 1);
	s->depth = d;
	/*
	 * The index masked where the verifier sees it, before each use: 6.12's
	 * loses the bound of d's range in the shift that scales it and refused
	 * the program (clang drops a mask it can prove redundant).
	 */
	barrier_var(d);
	d &= KP_FUNC_DEPTH - 1;
	/* after the return's clock: the counting's own work outside the timed window */
	if (count_nev)
		cnt_pop(s, d, &s->call[d], now);
	barrier_var(d);
	d &= KP_FUNC_DEPTH - 1;
	c = &s->call[d];
	account(c, now - c->ts);
	account_keys(c, now - c->ts);
}

static __always_inline int leave(__u32 func)
{
	__u64 now = bpf_ktime_get_ns();
	struct kp_thread *s = task_thread(bpf_get_current_task_btf());
	int d;

	/* none: not traced, or the command before its exec, whose calls enter() did not take */
	if (!s)
		return 0;
	if (s->depth > KP_FUNC_DEPTH) {
		/* a call too deep to have been recorded */
		s->depth--;
		return 0;
	}
	d = find(s, s->depth, bit(func), 0);
	if (d < 0) {
		/* entered before recording started, or its entry was not seen */
		count(KP_CNT_FUNC_UNMATCHED);
		return 0;
	}
	/* calls above it lost their returns (kretprobe maxactive exhausted) */
	pop_to(s, d, now);
	return 0;
}

/*
 * Leaving inline instances: the innermost open call of each instance left
 * here is closed, and instances above it lost their exits.  Exit addresses
 * are also reached on paths that never entered the instance, so an exit with
 * no open call is normal and not counted.  The search stops at a probed
 * function: above one, this is another activation of the parent (a callee
 * or recursion), whose exit must not close the outer one's instance.  One
 * address can end nested instances.
 */
static __always_inline void leave_inline(struct kp_thread *s, __u64 exits, __u64 now)
{
	__u32 i;
	int d;

	for (i = 0; i < KP_FUNC_DEPTH; i++) {
		d = find(s, s->depth, exits, first_inline);
		if (d < 0)
			return;
		/* one exit ends one call of each instance */
		exits &= ~bit(s->call[d & (KP_FUNC_DEPTH - 1)].func);
		pop_to(s, d, now);
	}
}

/* The entry pc inside a loop of the instance is reached again: the same invocation. */
static __always_inline bool already_in(const struct kp_thread *s, __u32 func)
{
	return s->depth && find(s, s->depth, bit(func), 0) == (int)s->depth - 1;
}

SEC("kprobe")
int kp_pc(struct pt_regs *ctx)
{
	__u32 i = bpf_get_attach_cookie(ctx);
	struct kp_pc_action *a = bpf_map_lookup_elem(&pc_actions, &i);
	struct kp_func_call *c;
	struct kp_thread *s;
	struct kp_sys *sys;
	__u64 now = 0;

	if (!a)
		return 0;
	/* every task runs these addresses: untraced ones leave before any clock read */
	s = current_thread(bpf_get_current_task_btf(), &sys);
	if (!s)
		return 0;
	if (a->exits) {
		now = bpf_ktime_get_ns();
		leave_inline(s, a->exits, now);
	}
	if (a->entry >= KP_MAX_FUNCS || already_in(s, a->entry))
		return 0;
	c = push(s, sys, a->entry, ctx, NULL);
	if (!c)
		return 0;
	/*
	 * Where one instance ends and the next begins, one instant for both (the
	 * counters read after it); else they are read before the entry's clock.
	 */
	if (count_nev && !now)
		cnt_push(s, c, sys, 0);
	c->ts = now ?: bpf_ktime_get_ns();
	if (count_nev && now)
		cnt_push(s, c, sys, now);
	else if (count_nev)
		cnt_push_stamp(s, c);
	return 0;
}

#define FENTRY_PAIR(i)                                                         \
	SEC("fentry")                                                          \
	int BPF_PROG(kp_fentry##i)                                             \
	{                                                                      \
		__u64 arg0 = 0;                                                \
                                                                               \
		/* fails harmlessly for functions without arguments */         \
		bpf_get_func_arg(ctx, 0, &arg0);                               \
		return enter(fentry_funcs[i], ctx, (struct kmem_cache *)arg0); \
	}                                                                      \
	SEC("fexit")                                                           \
	int BPF_PROG(kp_fexit##i)                                              \
	{                                                                      \
		return leave(fentry_funcs[i]);                                 \
	}

FENTRY_PAIR(0)
FENTRY_PAIR(1)
FENTRY_PAIR(2)
FENTRY_PAIR(3)
FENTRY_PAIR(4)
FENTRY_PAIR(5)
FENTRY_PAIR(6)
FENTRY_PAIR(7)
FENTRY_PAIR(8)
FENTRY_PAIR(9)
FENTRY_PAIR(10)
FENTRY_PAIR(11)
FENTRY_PAIR(12)
FENTRY_PAIR(13)
FENTRY_PAIR(14)
FENTRY_PAIR(15)

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
