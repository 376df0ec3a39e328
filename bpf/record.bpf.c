// SPDX-License-Identifier: GPL-2.0-only
/*
 * kprotperf record: per-syscall latency (on-CPU and off-CPU), page faults and
 * CPU-clock stack samples of one process tree.  Only raw tracepoints and
 * perf_event programs: they need neither kprobes nor fentry nor tracefs.
 */
#include "vmlinux.h"
#include <bpf/bpf_helpers.h>
#include <bpf/bpf_tracing.h>
#include <bpf/bpf_core_read.h>
#include "kprotperf.h"
#include "common.bpf.h"

char LICENSE[] SEC("license") = "GPL";

struct {
	__uint(type, BPF_MAP_TYPE_PERCPU_ARRAY);
	__uint(max_entries, KP_MAX_SYSCALLS);
	__type(key, __u32);
	__type(value, struct kp_lat);
} syscall_lat SEC(".maps");

/* record --count: per syscall number; one entry when nothing is counted */
struct {
	__uint(type, BPF_MAP_TYPE_PERCPU_ARRAY);
	__uint(max_entries, KP_MAX_SYSCALLS);
	__type(key, __u32);
	__type(value, struct kp_cnt_lat);
} syscall_cnt SEC(".maps");

/* the sampler's stack buffer: perf_event programs do not nest on a CPU */
struct {
	__uint(type, BPF_MAP_TYPE_PERCPU_ARRAY);
	__uint(max_entries, 1);
	__type(key, __u32);
	__type(value, struct kp_rec_stack);
} sample_stack SEC(".maps");

/*
 * Plain increment: only this file's raw tracepoint programs, which run with
 * preemption off, write this slot (count() is for slots fentry shares).
 */
static __always_inline void count_syscall(void)
{
	__u32 idx = KP_CNT_SYSCALLS;
	__u64 *c = bpf_map_lookup_elem(&counters, &idx);

	if (c)
		(*c)++;
}

static __always_inline void hist_inc(__u64 *hist, __u32 b)
{
	/* keep clang from bounds-checking one register and indexing with a copy */
	barrier_var(b);
	if (b < KP_HIST_BUCKETS)
		hist[b]++;
}

/*
 * task_pt_regs() minus task->stack, learnt at the first entry given out:
 * sched_switch finds the two tasks' entries without a helper call.
 */
__u64 regs_off;

static __always_inline void learn_regs_off(struct task_struct *task, __u64 regs)
{
	if (!regs_off)
		regs_off = regs - ptr_value(task->stack);
}

/*
 * -p and -a: a thread running before recording started gets its entry at
 * its first syscall or fault.  Compiled out otherwise: then an untraced
 * thread never gets here.
 */
static __always_inline struct kp_sys *sys_lazy(__u64 regs)
{
	struct task_struct *task;
	__u8 state;

	if (filter_tree && !lazy_threads)
		return NULL;
	task = bpf_get_current_task_btf();
	state = tree_state(task->tgid);
	if (!state)
		return NULL;
	learn_regs_off(task, regs);
	return sys_enroll(regs, state == KP_TREE_PENDING);
}

/*
 * record --count: the thread's values at a syscall's entry, read before its
 * clock (the counting's work outside the timed window); their times are
 * stamped with that clock once it is read (cnt_enter_stamp).
 */
static __always_inline struct kp_cnt_task *cnt_enter(const struct kp_sys *e)
{
	struct kp_cnt_task *t = cnt_current(e);

	if (!t)
		return NULL;
	t->entry_fails = t->fails;
	t->entry_ok = cnt_now(t, t->entry, 0);
	return t;
}

/*
 * record --count with every event from the hooks (no perf read): no slice
 * bookkeeping at the syscall, only the thread's bumped sums and fault
 * counts at entry; the clock events' deltas are the call's on-CPU time,
 * which sys_exit works out anyway.
 */
static __always_inline void cnt_enter_hooks(const struct kp_sys *e)
{
	struct kp_cnt_task *t = cnt_task(e);
	__u32 i;

	if (!t) {
		count(KP_CNT_LOST_COUNT);
		return;
	}
	/* from now on the hooks bump its sums */
	t->live = 1;
	/*
	 * Unrolled, so that each copy tests constant bits of the rodata the
	 * verifier knows: it keeps only the live branches of the events counted.
	 */
#pragma unroll
	for (i = 0; i < KP_COUNT_EVENTS_MAX && i < count_nev; i++)
		if (!(count_by.clock & (1U << i)))
			t->entry[i].counter = t->sum[i].counter;
	if (count_by.minflt | count_by.majflt)
		cnt_task_faults(t->entry);
	t->entry_ok = 1;
}

/*
 * record --count, every event from the hooks: the syscall's deltas, its
 * times total (every event's enabled and running time, all of them
 * software: summed once, in window_ns) and oncpu
 */
static __always_inline void cnt_exit_hooks(const struct kp_sys *e, __u64 total, __u64 oncpu)
{
	struct kp_cnt_task *t = cnt_task(e);
	/* a helper call only when a fault count is counted (its rodata is 0 otherwise) */
	struct task_struct *task =
		count_by.minflt | count_by.majflt ? bpf_get_current_task_btf() : NULL;
	__u32 nr = e->nr, i;
	struct kp_cnt_lat *l = bpf_map_lookup_elem(&syscall_cnt, &nr);
	__u64 d;

	if (!t || !t->entry_ok || !l) {
		count(KP_CNT_LOST_COUNT);
		return;
	}
	t->entry_ok = 0;
	l->calls++;
	l->window_ns += total;
	/* unrolled, as cnt_enter_hooks' loop */
#pragma unroll
	for (i = 0; i < KP_COUNT_EVENTS_MAX && i < count_nev; i++) {
		if (count_by.clock & (1U << i))
			d = oncpu;
		else
			d = t->sum[i].counter + cnt_task_fault(task, i) - t->entry[i].counter;
		l->ev[i].counter += d;
	}
}

/* record --count: what the syscall counted, from its entry's values, at now (its return) */
static __always_inline void cnt_exit(const struct kp_sys *e, __u64 now)
{
	struct kp_cnt_task *t = cnt_task(e);
	__u32 nr = e->nr;
	struct kp_cnt_lat *l = bpf_map_lookup_elem(&syscall_cnt, &nr);
	bool ok = t && t->entry_ok && t->fails == t->entry_fails && l;

	if (t)
		t->entry_ok = 0;
	if (!ok || !cnt_account(t, t->entry, l, false, now))
		count(KP_CNT_LOST_COUNT);
}

SEC("raw_tp/sys_enter")
int BPF_PROG(kp_sys_enter, struct pt_regs *regs, long nr)
{
	struct kp_sys *e = sys_find((__u64)regs) ?: sys_lazy((__u64)regs);
	struct kp_cnt_task *t;
	__u32 n = nr;
	struct kp_lat *lat;

	if (!e)
		return 0;
	/* pending: timed all the same, and counted by kp_exec if this is the exec that succeeds */
	if (!e->pending) {
		count_syscall();
		lat = bpf_map_lookup_elem(&syscall_lat, &n);
		if (!lat) {
			count(KP_CNT_LOST_NR);
			return 0;
		}
		lat->calls++;
	}
	e->nr = n;
	e->oncpu_ns = 0;
	e->in_syscall = 1;
	/*
	 * Read before the clock at entry and after it at return: the counting's
	 * own work lies outside the timed window. Pending too: the exec that
	 * succeeds is counted at its return.
	 */
	t = count_nev && count_by.read ? cnt_enter(e) : NULL;
	if (count_nev && !count_by.read)
		cnt_enter_hooks(e);
	e->start_ns = bpf_ktime_get_ns();
	e->slice_ns = e->start_ns;
	if (t && t->entry_ok)
		cnt_stamp(t->entry, e->start_ns);
	return 0;
}

SEC("raw_tp/sys_exit")
int BPF_PROG(kp_sys_exit, struct pt_regs *regs, long ret)
{
	struct kp_sys *e = sys_find((__u64)regs);
	__u64 now, total, oncpu;
	struct kp_lat *lat;
	__u32 b;

	if (!e || !e->in_syscall)
		return 0;
	e->in_syscall = 0;
	/* the launcher's own syscalls, and the execve attempts of its PATH search that failed */
	if (e->pending)
		return 0;
	now = bpf_ktime_get_ns();
	if (count_nev && count_by.read)
		cnt_exit(e, now);
	total = now - e->start_ns;
	oncpu = e->oncpu_ns + now - e->slice_ns;
	if (oncpu > total)
		oncpu = total;
	if (count_nev && !count_by.read)
		cnt_exit_hooks(e, total, oncpu);
	lat = bpf_map_lookup_elem(&syscall_lat, &e->nr);
	if (!lat)
		return 0;
	lat->done++;
	lat->total_ns += total;
	lat->oncpu_ns += oncpu;
	if (total > lat->max_ns)
		lat->max_ns = total;
	b = kp_hist_bucket(total);
	hist_inc(lat->hist, b);
	/* a syscall that never left the CPU (most do): one bucket for both */
	if (oncpu != total)
		b = kp_hist_bucket(oncpu);
	hist_inc(lat->oncpu_hist, b);
	return 0;
}

/* sched_switch's way from a pointer to its value: through memory, not a helper call */
struct {
	__uint(type, BPF_MAP_TYPE_PERCPU_ARRAY);
	__uint(max_entries, 1);
	__type(key, __u32);
	__type(value, __u64);
} switch_scratch SEC(".maps");

static __always_inline struct kp_sys *switch_find(struct task_struct *task)
{
	__u32 zero = 0;
	volatile __u64 *v;

	if (!regs_off)
		return NULL;
	v = bpf_map_lookup_elem(&switch_scratch, &zero);
	if (!v)
		return NULL;
	*v = (__u64)task->stack;
	return sys_find(*v + regs_off);
}

/*
 * record --count: prev's slice of the CPU's counters goes into its sum, at
 * now (0: a clock of its own, given back), and its switch out is one
 * context switch.
 */
static __always_inline __u64 cnt_switch_out(const struct kp_sys *prev, __u32 cpu, __u64 now)
{
	struct kp_cnt_task *t = prev ? cnt_task(prev) : NULL;
	struct kp_cnt_val v;
	__u32 i;

	if (!t || !t->live)
		return now;
	now = now ?: cnt_clock();
	/* a slice whose start was not seen: a call under way cannot be counted */
	if (!t->on_cpu || t->cpu != cpu)
		t->fails++;
	for (i = 0; i < KP_COUNT_EVENTS_MAX && i < count_nev && t->on_cpu; i++) {
		if (cnt_cpu(cpu, i, now, &v))
			cnt_add(&t->sum[i], &v, &t->snap[i], &t->sum[i]);
		else
			t->fails++;
	}
	t->on_cpu = 0;
	if (count_by.sw)
		cnt_bump(t, count_by.sw, false);
	return now;
}

/*
 * record --count: next's slice starts: its snap read here, at clock 0, to
 * be stamped with the clock read after it (the reads outside next's slice).
 */
static __always_inline struct kp_cnt_task *cnt_switch_in(const struct kp_sys *next, __u32 cpu)
{
	struct kp_cnt_task *t = next ? cnt_task(next) : NULL;

	if (!t || !t->live)
		return NULL;
	if (t->on_cpu)
		t->fails++;
	cnt_snap(t, cpu, 0);
	return t;
}

/*
 * Closes prev's on-CPU slice and opens next's, when they are in a syscall.
 * tp_btf: next is a task pointer, whose stack locates its entry.
 */
SEC("tp_btf/sched_switch")
int BPF_PROG(kp_sched_switch, bool preempt, struct task_struct *prev, struct task_struct *next)
{
	struct kp_sys *p = switch_find(prev), *n = switch_find(next);
	struct kp_cnt_task *t = NULL;
	__u32 cpu;
	__u64 now = 0;

	if (p && p->in_syscall) {
		now = bpf_ktime_get_ns();
		p->oncpu_ns += now - p->slice_ns;
	}
	if (count_nev) {
		cpu = bpf_get_smp_processor_id();
		now = cnt_switch_out(p, cpu, now);
		t = cnt_switch_in(n, cpu);
	}
	if (!t && !(n && n->in_syscall))
		return 0;
	/* a clock after next's counter reads; none read, prev's will do */
	if (!now || (t && count_by.read))
		now = bpf_ktime_get_ns();
	if (n && n->in_syscall)
		n->slice_ns = now;
	if (t)
		cnt_stamp(t->snap, now);
	return 0;
}

/* record --count of cpu-migrations: the thread moved to another CPU */
SEC("tp_btf/sched_migrate_task")
int BPF_PROG(kp_migrate, struct task_struct *task, int dest_cpu)
{
	struct kp_sys *e = switch_find(task);
	struct kp_cnt_task *t = e ? cnt_task(e) : NULL;

	/* from any CPU: the task is not running, but atomic all the same */
	if (t && t->live)
		cnt_bump(t, count_by.migrate, true);
	return 0;
}

static __always_inline void enroll_child(struct task_struct *child, bool pending)
{
	__u64 regs = task_regs(child);

	learn_regs_off(child, regs);
	sys_enroll(regs, pending);
}

/* kprotperf's pid while it forks the command, set by user space */
__u32 forking_command;

/*
 * The child of a traced process is traced, from its first instruction on;
 * so is the command, pending until its exec: it gets its entry before it can
 * run.
 */
SEC("tp_btf/sched_process_fork")
int BPF_PROG(kp_fork, struct task_struct *parent, struct task_struct *child)
{
	__u32 tgid = parent->tgid;
	__u8 *state;

	if (!filter_tree)
		return 0;
	state = bpf_map_lookup_elem(&tree, &tgid);
	if (!state) {
		if (tgid == forking_command)
			enroll_child(child, true);
		return 0;
	}
	/* a child forked before the command's exec is the launcher's: pending too */
	tgid = child->tgid;
	if (tgid != parent->tgid && bpf_map_update_elem(&tree, &tgid, state, BPF_ANY)) {
		count(KP_CNT_LOST_TREE);
		return 0;
	}
	enroll_child(child, *state == KP_TREE_PENDING);
	return 0;
}

/* the command's execs, one a run: a run whose command exited without one never ran it */
__u64 execs;

/*
 * The command's exec succeeded: from now on its process counts, and so does
 * this execve, entry to return, once.  The execve attempts that failed
 * before it (execvp's PATH search) never count.
 */
SEC("raw_tp/sched_process_exec")
int BPF_PROG(kp_exec, struct task_struct *p)
{
	struct task_struct *task = bpf_get_current_task_btf();
	__u32 tgid = task->tgid;
	struct kp_lat *lat;
	struct kp_sys *e;
	__u8 *state;

	if (!filter_tree)
		return 0;
	state = bpf_map_lookup_elem(&tree, &tgid);
	if (!state || *state != KP_TREE_PENDING)
		return 0;
	*state = KP_TREE_MEMBER;
	__sync_fetch_and_add(&execs, 1);
	e = sys_find(task_regs(task));
	if (!e || !e->pending)
		return 0;
	e->pending = 0;
	if (!e->in_syscall)
		return 0;
	count_syscall();
	lat = bpf_map_lookup_elem(&syscall_lat, &e->nr);
	if (lat)
		lat->calls++;
	else
		count(KP_CNT_LOST_NR);
	return 0;
}

SEC("raw_tp/sched_process_exit")
int BPF_PROG(kp_exit, struct task_struct *task)
{
	struct task_struct *cur = bpf_get_current_task_btf();
	__u32 tgid = cur->tgid;

	sys_release(task_regs(cur));
	/* signal->live reached zero: the last thread of the process is leaving */
	if (filter_tree && cur->signal->live.counter == 0)
		bpf_map_delete_elem(&tree, &tgid);
	return 0;
}

/* x86_64's TASK_SIZE_MAX with 4-level page tables: user addresses lie below it */
#define USER_ADDR_END 0x00007ffffffff000ULL

/*
 * record --count of page-faults: one on a user address, as perf's software
 * event counts them (do_user_addr_fault), in the thread's sum.
 */
static __always_inline void cnt_fault(const struct kp_sys *e, unsigned long address)
{
	struct kp_cnt_task *t = cnt_task(e);

	if (t && t->live && address < USER_ADDR_END)
		cnt_bump(t, count_by.fault, false);
}

static __always_inline int fault(__u64 regs, __u32 counter, unsigned long address)
{
	struct kp_sys *e = sys_find(regs) ?: sys_lazy(regs);

	if (!e || e->pending)
		return 0;
	count(counter);
	if (count_by.fault)
		cnt_fault(e, address);
	return 0;
}

/* regs: the user registers, at the top of the task's stack like a syscall's */
SEC("raw_tp/page_fault_user")
int BPF_PROG(kp_fault_user, unsigned long address, struct pt_regs *regs)
{
	return fault((__u64)regs, KP_CNT_FAULTS_USER, address);
}

/* regs: where in the kernel it faulted; the task's are found from the task */
SEC("raw_tp/page_fault_kernel")
int BPF_PROG(kp_fault_kernel, unsigned long address)
{
	return fault(task_regs(bpf_get_current_task_btf()), KP_CNT_FAULTS_KERNEL, address);
}

/* --call-graph dwarf: user stack bytes copied per sample; 0: frame pointers, in the kernel */
const volatile __u32 dwarf_size;

/* one per possible CPU (sized by user space): per-CPU values cannot be this large */
struct {
	__uint(type, BPF_MAP_TYPE_ARRAY);
	__uint(max_entries, 1);
	__type(key, __u32);
	__type(value, struct kp_rec_dwarf);
} sample_dwarf SEC(".maps");

#define PAGE 4096

/*
 * The top of the user stack, a page at a time: a page that cannot be read
 * here (unmapped past the stack's end, or not resident) ends the copy, and
 * what came before it is kept.
 */
static __always_inline __u32 copy_ustack(struct kp_rec_dwarf *r, __u64 sp)
{
	__u32 n = 0, chunk, i;

	for (i = 0; i < KP_DWARF_STACK_MAX / PAGE + 2; i++) {
		if (n >= dwarf_size || n >= KP_DWARF_STACK_MAX)
			break;
		chunk = PAGE - ((sp + n) & (PAGE - 1));
		if (chunk > dwarf_size - n)
			chunk = dwarf_size - n;
		/* bounds the verifier can follow: n < 64 KiB, chunk <= a page */
		n &= 0xffff;
		chunk &= 0x1fff;
		if (chunk > PAGE || bpf_probe_read_user(&r->stack[n], chunk, (void *)(sp + n)))
			break;
		n += chunk;
	}
	return n;
}

/* The user registers, which the kernel saved at the top of the task's stack on entry. */
static __always_inline void user_regs(struct kp_rec_dwarf *r, struct task_struct *task)
{
	struct pt_regs *u = (struct pt_regs *)bpf_task_pt_regs(task);

	r->regs[0] = u->ax;
	r->regs[1] = u->dx;
	r->regs[2] = u->cx;
	r->regs[3] = u->bx;
	r->regs[4] = u->si;
	r->regs[5] = u->di;
	r->regs[6] = u->bp;
	r->regs[7] = u->sp;
	r->regs[8] = u->r8;
	r->regs[9] = u->r9;
	r->regs[10] = u->r10;
	r->regs[11] = u->r11;
	r->regs[12] = u->r12;
	r->regs[13] = u->r13;
	r->regs[14] = u->r14;
	r->regs[15] = u->r15;
	r->regs[16] = u->ip;
}

/* A sample and its user stack's registers and bytes, for user space to unwind. */
static __always_inline void sample_dwarf_rec(const struct kp_rec_sample *s)
{
	struct task_struct *task = bpf_get_current_task_btf();
	__u32 cpu = bpf_get_smp_processor_id(), n = 0;
	struct kp_rec_dwarf *r;
	__u64 size;

	r = bpf_map_lookup_elem(&sample_dwarf, &cpu);
	if (!r)
		return;
	r->type = KP_REC_DWARF;
	r->tgid = s->tgid;
	r->pid = s->pid;
	r->flags = s->flags;
	r->kstack = s->kstack;
	r->period = s->period;
	__builtin_memcpy(r->comm, s->comm, sizeof(r->comm));
	/* a kernel thread has no user stack */
	if (task->mm) {
		user_regs(r, task);
		n = copy_ustack(r, r->regs[7]);
	} else {
		r->flags |= KP_SAMPLE_USTACK_LOST;
		__builtin_memset(r->regs, 0, sizeof(r->regs));
	}
	r->size = n;
	r->pad = 0;
	size = offsetof(struct kp_rec_dwarf, stack) + (n & 0xffff);
	if (bpf_ringbuf_output(&events, r, size, ring_flags()))
		count(KP_CNT_LOST_RING);
}

/*
 * Every sample is one record in the ring: none is merged or dropped in the
 * kernel, so only a full ring can lose one, and that is counted.
 */
SEC("perf_event")
int kp_sample(struct bpf_perf_event_data *ctx)
{
	__u64 id = bpf_get_current_pid_tgid();
	struct kp_rec_stack *st;
	struct kp_rec_sample r;
	__u32 zero = 0;

	r.tgid = id >> 32;
	r.pid = (__u32)id;
	if (!r.pid || !in_tree(r.tgid))
		return 0;
	count(KP_CNT_SAMPLES);
	st = bpf_map_lookup_elem(&sample_stack, &zero);
	if (!st)
		return 0;
	r.type = KP_REC_SAMPLE;
	r.flags = 0;
	r.kstack = 0;
	/* with -c the period given, with -F the one the kernel has adjusted to */
	r.period = ctx->sample_period;
	/* x86_64: kernel addresses are the negative half */
	if ((long)PT_REGS_IP(&ctx->regs) < 0) {
		r.kstack = stack_ref(ctx, st, 0, KP_CNT_LOST_KSTACK);
		r.flags |= r.kstack ? 0 : KP_SAMPLE_KSTACK_LOST;
	}
	bpf_get_current_comm(r.comm, sizeof(r.comm));
	if (dwarf_size) {
		sample_dwarf_rec(&r);
		return 0;
	}
	r.ustack = stack_ref(ctx, st, BPF_F_USER_STACK, KP_CNT_LOST_USTACK);
	r.flags |= r.ustack ? 0 : KP_SAMPLE_USTACK_LOST;
	if (bpf_ringbuf_output(&events, &r, sizeof(r), ring_flags()))
		count(KP_CNT_LOST_RING);
	return 0;
}
