/* SPDX-License-Identifier: (GPL-2.0-only OR BSD-2-Clause) */
/*
 * Layout shared by the BPF programs and user space: map keys, values and
 * counter indices.  Changing anything here changes what a recording means,
 * so bump KP_SCHEMA_VERSION in datafile.h when it does.
 */
#ifndef KPROTPERF_H
#define KPROTPERF_H

#include "hist_layout.h"

#define KP_COMM_LEN    16
#define KP_STACK_DEPTH 127
/* x86_64 syscall numbers stay below this; larger ones are counted as lost */
#define KP_MAX_SYSCALLS 512
/* record --count: events counted at once at most */
#define KP_COUNT_EVENTS_MAX 8

/* Event counters, one per-CPU slot each. */
enum kp_counter {
	KP_CNT_SAMPLES,	      /* CPU-clock samples of the traced tree */
	KP_CNT_SYSCALLS,      /* syscall entries of the traced tree */
	KP_CNT_FAULTS_USER,   /* page faults from user mode */
	KP_CNT_FAULTS_KERNEL, /* page faults from kernel mode */
	/* lost or degraded data: every one is saved and reported */
	KP_CNT_LOST_KSTACK,   /* kernel stack unavailable in kernel mode, or no room in the ring */
	KP_CNT_LOST_USTACK,   /* user stack unavailable, or no room in the ring */
	KP_CNT_LOST_RING,     /* ring buffer full: a sample dropped (a stack: LOST_*STACK) */
	KP_CNT_LOST_THREADS,  /* no room for a thread in systab: its syscalls lost */
	KP_CNT_LOST_TREE,     /* tree map full: a child process not followed */
	KP_CNT_LOST_NR,	      /* syscall number out of range */
	KP_CNT_LOST_FUNC_MAP, /* --func: a map was full */
	KP_CNT_LOST_FUNC_DEPTH, /* --func: nested deeper than KP_FUNC_DEPTH */
	KP_CNT_FUNC_UNMATCHED,	/* --func: a return without its entry (entry not seen) */
	KP_CNT_LOST_COUNT,	/* --count: a call whose counters could not be read whole */
	KP_CNT_MAX,
};

/*
 * Values in the tree map.  The command kprotperf starts enters it pending:
 * its launcher's setup and PATH search do not count; its exec makes it a
 * member (like perf's enable-on-exec).
 */
#define KP_TREE_MEMBER	1
#define KP_TREE_PENDING 2

/* probed calls nested in one thread deeper than this are counted lost */
#define KP_FUNC_DEPTH 8
#define KP_CTX_LEN    32

/* One probed call (record --func) not yet returned. */
struct kp_func_call {
	__u64 ts;
	__u64 kstack; /* with --func-stacks: the stack's hash (kp_rec_stack), else 0 */
	__u16 func;
	__u16 slot; /* syscall slot: nr, or KP_MAX_SYSCALLS for none */
	char ctx[KP_CTX_LEN];
	__u32 cnt_ok;	 /* --count: the thread's counters were read at entry */
	__u32 cnt_fails; /* and kp_cnt_task.fails then */
};

/*
 * record --count: where each event's value comes from, bit i for event i.
 * soft: a software event, whose enabled and running times are the clock's
 * (a CPU never schedules it out).  read: read with bpf_perf_event_read*;
 * the others from the BPF programs' own hooks, no perf event opened:
 * clock (task-clock, cpu-clock: the clock, slice by slice), sw
 * (context-switches: sched_switch), migrate (cpu-migrations:
 * sched_migrate_task), fault (page-faults: the exceptions tracepoints),
 * minflt and majflt (minor-faults, major-faults: the task's min_flt and
 * maj_flt).
 */
struct kp_count_by {
	__u32 soft, read, clock, sw, migrate, fault, minflt, majflt;
};

/* record --count: one event's counter, enabled and running times. */
struct kp_cnt_val {
	__u64 counter, enabled, running;
};

/*
 * record --count: a traced thread's virtual counters, in cnt_sys at its
 * kp_sys entry's slot (reset when the entry is given to another thread).
 * The events are per-CPU; a thread's value is sum plus what the CPU counted
 * since snap, taken when it was switched in (or first seen): sum + (now -
 * snap).  At switch-out, (now - snap) goes into sum.  A read that failed
 * on the way, or a switch not seen (on_cpu or cpu not as they should be),
 * counts in fails: a call that saw it change is not counted.  At a call's
 * entry snap is taken anew when it is not of this CPU: only deltas from
 * entry to return matter.
 */
struct kp_cnt_task {
	__u32 live;   /* snap and sum are set */
	__u32 on_cpu; /* snap is of the CPU it runs on */
	__u32 fails;
	__u32 entry_ok; /* the syscall under way's values are in entry */
	__u32 entry_fails;
	__u32 cpu; /* the CPU of snap */
	struct kp_cnt_val snap[KP_COUNT_EVENTS_MAX];
	struct kp_cnt_val sum[KP_COUNT_EVENTS_MAX];
	struct kp_cnt_val entry[KP_COUNT_EVENTS_MAX];
};

/* record --count: one syscall's or function's counted calls and their deltas' sums. */
struct kp_cnt_lat {
	__u64 calls;
	struct kp_cnt_val ev[KP_COUNT_EVENTS_MAX];
	/*
	 * With every event from the hooks (all software), the calls' summed
	 * time: every event's enabled and running time, kept once (ev[i]'s
	 * enabled and running stay 0); 0 otherwise.
	 */
	__u64 window_ns;
};

/*
 * Syscall state of one traced thread, in the sys table (bpf/common.bpf.h):
 * found from the pt_regs address the syscall tracepoints pass, with no
 * helper call, so that untraced threads leave after one load.
 */
struct kp_sys {
	__u64 owner;	/* the thread's task_pt_regs() address; 0: free */
	__u64 start_ns; /* syscall entry time */
	__u64 slice_ns; /* start of the syscall's current on-CPU slice: entry or switch-in */
	__u64 oncpu_ns; /* on-CPU time of the syscall before that slice */
	__u32 nr;
	__u32 in_syscall;
	__u32 pending; /* the command's thread before its exec: nothing of it counts */
	__u32 homes;   /* traced threads whose first probe is this entry */
	__u32 slot;    /* this entry's index: its record --count state's too (cnt_sys) */
	__u32 pad;
};

/* entries tried from a thread's home (the table is at most half full): more are lost_threads */
#define KP_SYS_PROBES 4

/*
 * Stacks and samples travel to user space through one ring buffer: a stack
 * is sent once, as a kp_rec_stack, and then named by its hash (0: none).
 * User space deduplicates them, so no fixed-size stack map can collide or
 * fill; what a full ring drops is counted (KP_CNT_LOST_RING).
 */
enum kp_rec_type {
	KP_REC_STACK = 1,
	KP_REC_SAMPLE,
	KP_REC_DWARF, /* record --call-graph dwarf: a sample with its user stack's bytes */
};

struct kp_rec_stack {
	__u32 type;
	__u32 nr; /* frames in ips: the record is sent that long */
	__u64 hash;
	__u64 ips[KP_STACK_DEPTH];
};

/* kp_rec_sample.flags: the stack was asked for and not had */
#define KP_SAMPLE_KSTACK_LOST 1
#define KP_SAMPLE_USTACK_LOST 2

struct kp_rec_sample {
	__u32 type;
	__u32 tgid;
	__u32 pid;
	__u32 flags;
	__u64 kstack; /* 0: the sample hit user mode (or the stack was lost) */
	__u64 ustack;
	char comm[KP_COMM_LEN];
	__u64 period; /* the events it stands for: the sampling event's period then */
};

/* --call-graph dwarf: user stack bytes copied per sample (perf's default and maximum) */
#define KP_DWARF_STACK_DEFAULT 8192
#define KP_DWARF_STACK_MAX     65528
/* x86_64 user registers in DWARF numbering: rax rdx rcx rbx rsi rdi rbp rsp r8-r15 rip */
#define KP_UREGS 17

/*
 * A sample whose user stack is unwound in user space: the registers and the
 * top of the stack (size bytes from regs[7], the stack pointer), sent that
 * long.  stack has a page of slack: the copy goes a page at a time.
 */
struct kp_rec_dwarf {
	__u32 type;
	__u32 tgid;
	__u32 pid;
	__u32 flags;
	__u64 kstack;
	char comm[KP_COMM_LEN];
	__u64 period;
	__u64 regs[KP_UREGS];
	__u32 size;
	__u32 pad;
	__u8 stack[KP_DWARF_STACK_MAX + 8 + 4096];
};

/*
 * Per-thread task storage: probed calls (record --func) of a traced thread
 * past its exec.  Probed calls of all functions nest properly on one thread,
 * so one stack per thread times nesting and recursion alike.
 */
struct kp_thread {
	__u32 depth; /* probed calls in flight, innermost last */
	struct kp_func_call call[KP_FUNC_DEPTH];
	/* --func-stacks: the stack walk's buffer, the thread's own (fentry runs preemptible) */
	struct kp_rec_stack stack;
	/* --count: the thread's counters at each open call's entry */
	struct kp_cnt_val cnt[KP_FUNC_DEPTH][KP_COUNT_EVENTS_MAX];
};

/* Latency of one syscall number (later: one probed function). */
struct kp_lat {
	__u64 calls; /* entries */
	__u64 done;  /* returns: the histograms count these */
	__u64 total_ns;
	__u64 oncpu_ns;
	__u64 max_ns;
	__u64 hist[KP_HIST_BUCKETS];	   /* entry to return */
	__u64 oncpu_hist[KP_HIST_BUCKETS]; /* on-CPU part of it */
};

#endif
