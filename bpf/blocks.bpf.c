// SPDX-License-Identifier: GPL-2.0-only
/*
 * kprotperf record --blocks: one kprobe at each basic block head of a
 * function, its cookie naming function and block.  A function's call ends
 * at a kretprobe; an inline instance's where control leaves it: probes at
 * its exits (a ret or a jump out in place, or the parent's code it goes on
 * in), with side-entry probes where parent code enters it elsewhere than at
 * its entry.  Per call (task storage, a stack for nesting and recursion)
 * the instructions executed, each loop head's executions and each loop's
 * bound (a fetch program run at the block comparing against it); at the
 * end of a call those values as per-call distributions and the call's
 * context (syscall, kernel stack, slab cache); per block its executions
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

/* --func-stacks: the kernel stack at each call's entry */
const volatile bool func_stacks;

struct {
	__uint(type, BPF_MAP_TYPE_ARRAY);
	__uint(max_entries, KP_BLK_FUNCS *KP_BLK_MAX);
	__type(key, __u32);
	__type(value, struct kp_blk_info);
} binfo SEC(".maps");

struct {
	__uint(type, BPF_MAP_TYPE_ARRAY);
	__uint(max_entries, KP_BLK_FUNCS *KP_BLK_EXITS);
	__type(key, __u32);
	__type(value, struct kp_blk_exit_info);
} bexits SEC(".maps");

struct {
	__uint(type, BPF_MAP_TYPE_ARRAY);
	__uint(max_entries, KP_BLK_FUNCS);
	__type(key, __u32);
	__type(value, struct kp_blk_func);
} bfuncs SEC(".maps");

/* each counted loop's bound: bbounds[func * KP_BLK_LOOPS + loop] */
struct {
	__uint(type, BPF_MAP_TYPE_ARRAY);
	__uint(max_entries, KP_BLK_FUNCS *KP_BLK_LOOPS);
	__type(key, __u32);
	__type(value, struct kp_fetch);
} bbounds SEC(".maps");

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

/* complete calls by context and instructions; sized by user space */
struct {
	__uint(type, BPF_MAP_TYPE_HASH);
	__uint(max_entries, 16384);
	__type(key, struct kp_blk_ctx_key);
	__type(value, __u64);
} bctx SEC(".maps");

struct {
	__uint(type, BPF_MAP_TYPE_TASK_STORAGE);
	__uint(map_flags, BPF_F_NO_PREALLOC);
	__type(key, int);
	__type(value, struct kp_blk_thread);
} bthreads SEC(".maps");

/* A probe's room: the registers it saved, a fetch program's stack and value, a stack walk. */
struct scratch {
	__u64 regs[KP_FREG_COUNT];
	__u64 st[KP_FETCH_STACK];
	__u32 sp, bad;
	__u64 value;
	struct kp_rec_stack stack;
};

/* no BPF program runs nested on a CPU (bpf_prog_active), so one per CPU serves all */
struct {
	__uint(type, BPF_MAP_TYPE_PERCPU_ARRAY);
	__uint(max_entries, 1);
	__type(key, __u32);
	__type(value, struct scratch);
} bscratch SEC(".maps");

static __always_inline struct scratch *scratch(void)
{
	__u32 zero = 0;

	return bpf_map_lookup_elem(&bscratch, &zero);
}

#define SLOT(i) ((i) & (KP_FETCH_STACK - 1))

/*
 * One operation of a fetch program on s's stack of *sp values; false ends
 * the program.  Every stack index is masked, the mask kept by barrier_var():
 * older verifiers lose a range across the 32-bit arithmetic of sp.
 */
static __always_inline bool fetch_op(const struct kp_fetch_op *op, struct scratch *s, __u32 *sp)
{
	__u64 n = *sp, v, arg = op->arg;

	barrier_var(n);
	if (op->op == KP_FOP_REG || op->op == KP_FOP_CONST) {
		if (n >= KP_FETCH_STACK || arg >= KP_FREG_COUNT)
			return false;
		s->st[SLOT(n)] = op->op == KP_FOP_REG ? s->regs[arg] : op->imm;
		*sp = n + 1;
		return true;
	}
	if (!n || n > KP_FETCH_STACK)
		return false;
	v = s->st[SLOT(n - 1)];
	if (op->op >= KP_FOP_ADD && op->op <= KP_FOP_MUL) {
		if (n < 2)
			return false;
		*sp = --n;
		if (op->op == KP_FOP_ADD)
			v = s->st[SLOT(n - 1)] + v;
		else if (op->op == KP_FOP_SUB)
			v = s->st[SLOT(n - 1)] - v;
		else
			v = s->st[SLOT(n - 1)] * v;
	} else if (op->op == KP_FOP_LOAD) {
		__u64 addr = v;

		v = 0;
		if (arg > 8 || bpf_probe_read_kernel(&v, arg & 15, (void *)addr))
			return false;
	} else if (op->op == KP_FOP_AND) {
		v &= op->imm;
	} else if (op->op == KP_FOP_SHR) {
		v >>= arg & 63;
	} else if (op->op == KP_FOP_SAR) {
		v = (__s64)v >> (arg & 63);
	} else if (op->op == KP_FOP_SHL) {
		v <<= arg & 63;
	} else if ((op->op == KP_FOP_ZEXT || op->op == KP_FOP_SEXT) && arg && arg < 8) {
		__u32 shift = 64 - 8 * arg;

		v = op->op == KP_FOP_ZEXT ? v << shift >> shift
					  : (__u64)((__s64)(v << shift) >> shift);
	} else {
		return false;
	}
	s->st[SLOT(n - 1)] = v;
	return true;
}

/* A fetch program being run by bpf_loop(). */
struct fetch_loop {
	const struct kp_fetch *f;
	struct scratch *s;
};

static long fetch_step(__u32 i, void *arg)
{
	struct fetch_loop *l = arg;
	const struct kp_fetch_op *op;

	if (i >= KP_FETCH_OPS)
		return 1;
	op = &l->f->ops[i];
	if (op->op == KP_FOP_END)
		return 1;
	l->s->bad = !fetch_op(op, l->s, &l->s->sp);
	return l->s->bad;
}

/*
 * Run f on the registers saved in s, its value into s->value: 1, or 0 when
 * it reads nothing.  A global function, its loop a bpf_loop(): the verifier
 * checks one step once, rather than every step at every call site.  The
 * stack depth lives in the map value, not on the BPF stack: verifiers before
 * Linux 6.7 check a callback as if it ran once, from its caller's known
 * state, and would take a depth known to be 0 for every step's.
 */
__noinline int fetch_run(const struct kp_fetch *f, struct scratch *s)
{
	struct fetch_loop l = {f, s};

	if (!f || !s || !f->n || f->n > KP_FETCH_OPS)
		return 0;
	s->sp = 0;
	s->bad = 0;
	bpf_loop(f->n, fetch_step, &l, 0);
	if (s->bad || !s->sp || s->sp > KP_FETCH_STACK)
		return 0;
	s->value = s->st[SLOT(s->sp - 1)];
	return 1;
}

/* Run f on the registers at the probe: false when it reads nothing. */
static __always_inline bool fetch(const struct kp_fetch *f, struct pt_regs *regs, __s64 *out)
{
	struct scratch *s = scratch();

	if (!s || !f->n || bpf_probe_read_kernel(s->regs, sizeof(s->regs), regs) ||
	    !fetch_run(f, s))
		return false;
	*out = s->value;
	return true;
}

/* Whether a jcc with condition cc jumps under flags (as cfg_cc_taken()). */
static __always_inline bool cc_taken(__u8 cc, __u64 flags)
{
	bool cf = flags & 1, pf = flags & 4, zf = flags & 64, sf = flags & 128, of = flags & 2048;
	bool r;

	switch (cc >> 1) {
	case 0:
		r = of;
		break;
	case 1:
		r = cf;
		break;
	case 2:
		r = zf;
		break;
	case 3:
		r = cf || zf;
		break;
	case 4:
		r = sf;
		break;
	case 5:
		r = pf;
		break;
	case 6:
		r = sf != of;
		break;
	default:
		r = zf || sf != of;
		break;
	}
	return (cc & 1) ? !r : r;
}

/* The --blocks state of the current thread if it is traced and past its exec. */
static __always_inline struct kp_blk_thread *blk_thread(struct task_struct *task,
							struct kp_sys **sys)
{
	struct kp_sys *e = sys_find(task_regs(task));

	if (!e || e->pending)
		return NULL;
	*sys = e;
	return bpf_task_storage_get(&bthreads, task, 0, BPF_LOCAL_STORAGE_GET_F_CREATE);
}

/* The thread's state when it has any, for a probe that never begins a call. */
static __always_inline struct kp_blk_thread *blk_thread_had(void)
{
	struct task_struct *task = bpf_get_current_task_btf();

	if (!task->bpf_storage)
		return NULL;
	return bpf_task_storage_get(&bthreads, task, 0, 0);
}

/* The call's slab cache, from the pointer its function's fetch program reads. */
static __always_inline void read_cache(struct kp_blk_call *c, struct pt_regs *regs)
{
	struct kp_blk_func *f = bpf_map_lookup_elem(&bfuncs, &c->func);
	struct kmem_cache *s;
	__s64 v;

	if (f && fetch(&f->cache, regs, &v) && v) {
		s = (struct kmem_cache *)v;
		bpf_probe_read_kernel_str(c->ctx, KP_CTX_LEN, BPF_CORE_READ(s, name));
	}
}

/* func's counters, looked up only where one changes: on 6.1 each lookup is a helper call */
static __always_inline struct kp_blk_stats *stats_of(__u32 func)
{
	return bpf_map_lookup_elem(&bstats, &func);
}

static __always_inline void push(struct pt_regs *regs, struct kp_blk_thread *t, __u32 func,
				 const struct kp_sys *sys)
{
	struct kp_blk_func *f = bpf_map_lookup_elem(&bfuncs, &func);
	struct kp_blk_stats *st = stats_of(func);
	struct kp_blk_call *c;
	struct scratch *s;
	__u32 d = t->depth;

	if (!st)
		return;

	/* an instance's last call lost its exit: its entry in the same frame is a new call */
	if (f && f->inl && d && d <= KP_BLK_DEPTH) {
		c = &t->call[(d - 1) & (KP_BLK_DEPTH - 1)];
		if (c->func == func && c->sp == PT_REGS_SP(regs)) {
			st->unmatched++;
			d--;
		}
	}
	if (d >= KP_BLK_DEPTH) {
		st->lost_depth++;
		/* its return pops it all the same */
		t->depth = d + 1;
		return;
	}
	/* keeps the mask, which the verifier needs, from being optimized away */
	barrier_var(d);
	c = &t->call[d & (KP_BLK_DEPTH - 1)];
	/* what a call reads before it writes; bound[] only once bound_read says so */
	c->func = func;
	c->bound_read = 0;
	c->insns = 0;
	c->kstack = 0;
	__builtin_memset(c->trips, 0, sizeof(c->trips));
	__builtin_memset(c->ctx, 0, sizeof(c->ctx));
	c->sp = PT_REGS_SP(regs);
	c->nr = sys->in_syscall ? sys->nr : KP_BLK_NO_SYSCALL;
	read_cache(c, regs);
	s = func_stacks ? scratch() : NULL;
	if (s)
		c->kstack = stack_ref(regs, &s->stack, 0, KP_CNT_LOST_KSTACK);
	t->depth = d + 1;
	st->calls++;
}

/* One more call with this value; false when bvalues is full. */
static __always_inline bool add_value(struct kp_blk_value *k, __u8 what, __u8 loop, __u64 v,
				      __s64 bound)
{
	__u64 one = 1, *n;

	k->what = what;
	k->loop = loop;
	k->value = v;
	k->bound = bound;
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

/* One more call of its context and instructions; false when bctx is full. */
static __always_inline bool add_call(const struct kp_blk_call *c, __u32 func)
{
	struct kp_blk_ctx_key k = {
		.func = func, .nr = c->nr, .kstack = c->kstack, .insns = c->insns};
	__u64 one = 1, *n;

	__builtin_memcpy(k.ctx, c->ctx, KP_CTX_LEN);
	n = bpf_map_lookup_elem(&bctx, &k);
	if (!n) {
		if (!bpf_map_update_elem(&bctx, &k, &one, BPF_NOEXIST))
			return true;
		n = bpf_map_lookup_elem(&bctx, &k);
		if (!n)
			return false;
	}
	__sync_fetch_and_add(n, 1);
	return true;
}

/* A global function: the verifier checks it once, not at each of its three callers. */
__noinline int account(const struct kp_blk_call *c, struct kp_blk_stats *st)
{
	struct kp_blk_value k = {};
	struct kp_blk_func *f;
	__u32 l, func;
	bool ok;

	if (!c || !st)
		return 0;
	/* a key on the stack: older verifiers take no other memory as one */
	func = c->func;
	f = bpf_map_lookup_elem(&bfuncs, &func);
	if (!f)
		return 0;
	k.func = func;
	__builtin_memcpy(k.ctx, c->ctx, KP_CTX_LEN);
	ok = add_call(c, func);
	for (l = 0; l < KP_BLK_LOOPS && l < f->nloops; l++) {
		ok &= add_value(&k, KP_BLK_TRIPS, l, c->trips[l], 0);
		if (c->bound_read & (1U << l))
			ok &= add_value(&k, KP_BLK_BOUND, l, c->trips[l], c->bound[l]);
	}
	if (!ok)
		st->lost_map++;
	st->complete++;
	return 0;
}

/* The innermost open call, if it is func's (and recorded). */
static __always_inline struct kp_blk_call *innermost(struct kp_blk_thread *t, __u32 func)
{
	__u32 d = t->depth;
	struct kp_blk_call *c;

	if (!d || d > KP_BLK_DEPTH)
		return NULL;
	barrier_var(d);
	c = &t->call[(d - 1) & (KP_BLK_DEPTH - 1)];
	return c->func == func ? c : NULL;
}

/*
 * The innermost open call of func: an inline instance's call may sit above
 * its parent's, whose blocks (the same addresses) count into the parent's.
 */
static __always_inline struct kp_blk_call *open_call(struct kp_blk_thread *t, __u32 func)
{
	__u32 d = t->depth, i;

	if (d > KP_BLK_DEPTH)
		return NULL;
	for (i = 1; i <= KP_BLK_DEPTH && i <= d; i++) {
		if (t->call[(d - i) & (KP_BLK_DEPTH - 1)].func == func)
			return &t->call[(d - i) & (KP_BLK_DEPTH - 1)];
	}
	return NULL;
}

/* End the innermost call, func's, as an exit of kind says. */
static __always_inline void leave(struct pt_regs *regs, struct kp_blk_thread *t, __u32 func,
				  __u8 kind, __u8 cc)
{
	struct kp_blk_call *c = innermost(t, func);
	struct kp_blk_stats *st;

	if (!c)
		return;
	/* the parent's code runs in the frame the instance was entered in; an interrupt does not */
	if (kind == KP_BLK_EXIT_PARENT && c->sp != PT_REGS_SP(regs))
		return;
	if (kind == KP_BLK_EXIT_CC && !cc_taken(cc, regs->flags))
		return;
	st = stats_of(func);
	if (!st)
		return;
	t->depth--;
	account(c, st);
}

static __always_inline void read_bound(struct pt_regs *regs, struct kp_blk_call *c, __u32 func,
				       __u8 loop)
{
	__u32 k = func * KP_BLK_LOOPS + loop;
	struct kp_blk_stats *st;
	struct kp_fetch *f;
	__s64 v;

	if (loop >= KP_BLK_LOOPS || (c->bound_read & (1U << loop)))
		return;
	f = bpf_map_lookup_elem(&bbounds, &k);
	if (!f || !fetch(f, regs, &v)) {
		st = stats_of(func);
		if (st)
			st->bound_lost++;
		return;
	}
	c->bound[loop & (KP_BLK_LOOPS - 1)] = v;
	c->bound_read |= 1U << loop;
}

/* An exit or side-entry probe of an inline instance. */
static __always_inline int exit_probe(struct pt_regs *regs, __u32 func, __u32 idx)
{
	__u32 k = func * KP_BLK_EXITS + idx;
	struct kp_blk_exit_info *e = bpf_map_lookup_elem(&bexits, &k);
	struct kp_blk_stats *st;
	struct kp_blk_thread *t;

	if (!e || !e->kind)
		return 0;
	t = blk_thread_had();
	if (!t)
		return 0;
	if (e->kind != KP_BLK_SIDE_ENTRY) {
		leave(regs, t, func, e->kind, e->cc);
		return 0;
	}
	/* code of the instance running outside any call of it: entered past its entry probe */
	st = innermost(t, func) ? NULL : stats_of(func);
	if (st)
		st->side++;
	return 0;
}

static __always_inline int block_probe(struct pt_regs *regs, __u64 cookie)
{
	__u32 func = (cookie >> 16) & (KP_BLK_FUNCS - 1), blk = cookie & 0xffff;
	__u32 idx = func * KP_BLK_MAX + blk;
	struct kp_blk_info *b;
	struct kp_blk_thread *t;
	struct kp_blk_call *c;
	struct kp_sys *sys;
	__u64 *n;

	if (blk & KP_BLK_EXIT_PROBE)
		return exit_probe(regs, func, blk & (KP_BLK_EXITS - 1));
	b = bpf_map_lookup_elem(&binfo, &idx);
	if (!b || !b->used)
		return 0;
	/*
	 * Only an entry asks whether the thread is traced, and gives it its
	 * state; any other block counts into a call open in that state, which
	 * untraced threads never have.
	 */
	if (b->entry) {
		t = blk_thread(bpf_get_current_task_btf(), &sys);
		if (!t)
			return 0;
		push(regs, t, func, sys);
	} else {
		t = blk_thread_had();
		if (!t)
			return 0;
	}
	/* none open, or the innermost one lost: nothing to count into */
	c = open_call(t, func);
	if (!c)
		return 0;
	c->insns += b->insns;
	if (b->loop < KP_BLK_LOOPS)
		c->trips[b->loop & (KP_BLK_LOOPS - 1)]++;
	if (b->bound != KP_BLK_NO_LOOP)
		read_bound(regs, c, func, b->bound);
	n = bpf_map_lookup_elem(&bcount, &idx);
	if (n)
		*n += 1;
	if (b->exit)
		leave(regs, t, func, b->exit, b->cc);
	return 0;
}

static __always_inline int block_return(__u32 func)
{
	struct kp_blk_stats *st = bpf_map_lookup_elem(&bstats, &func);
	struct kp_blk_thread *t;
	__u32 d, i;

	if (!st)
		return 0;
	t = blk_thread_had();
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
		account(&t->call[d], st);
		return 0;
	}
	/* entered before recording started */
	st->unmatched++;
	return 0;
}

SEC("kprobe")
int BPF_KPROBE(kp_block)
{
	return block_probe(ctx, bpf_get_attach_cookie(ctx));
}

SEC("kretprobe")
int BPF_KRETPROBE(kp_block_ret)
{
	return block_return(bpf_get_attach_cookie(ctx));
}

/* The functions' entry blocks and returns as two kprobe.multi links, where the kernel has them. */
SEC("kprobe.multi")
int BPF_KPROBE(kp_block_multi)
{
	return block_probe(ctx, bpf_get_attach_cookie(ctx));
}

SEC("kretprobe.multi")
int BPF_KRETPROBE(kp_block_ret_multi)
{
	return block_return(bpf_get_attach_cookie(ctx));
}
