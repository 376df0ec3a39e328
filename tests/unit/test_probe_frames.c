/* SPDX-License-Identifier: GPL-2.0-only */
/* Which kernel frames are kprotperf's own probes, and where a stack is cut for them. */
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>

#include "symbols/stacks.h"

#define N(a) ((int)(sizeof(a) / sizeof((a)[0])))

static void test_programs(void **state)
{
	/* kprotperf's programs are all named kp_*, in bpf/ */
	assert_int_equal(stacks_probe_frame("bpf_prog_a6c0ed09e1c16be2_kp_sys_exit"), PROBE_OURS);
	assert_int_equal(stacks_probe_frame("bpf_prog_0123456789abcdef_kp_fentry12"), PROBE_OURS);
	assert_int_equal(stacks_probe_frame("bpf_prog_6deef7357e7b4530_do_sys"), PROBE_FOREIGN);
	assert_int_equal(stacks_probe_frame("bpf_prog_6deef7357e7b4530"), PROBE_FOREIGN);
	/* the kernel's own bpf_prog_* functions: the bpf() syscall's, not JIT code */
	assert_int_equal(stacks_probe_frame("bpf_prog_load"), PROBE_NONE);
	assert_int_equal(stacks_probe_frame("bpf_prog_put"), PROBE_NONE);
	assert_int_equal(stacks_probe_frame("bpf_prog_free_deferred"), PROBE_NONE);
	/* a tag of 15 or 17 hex digits is not a tag */
	assert_int_equal(stacks_probe_frame("bpf_prog_a6c0ed09e1c16be_kp_x"), PROBE_NONE);
	assert_int_equal(stacks_probe_frame("bpf_prog_a6c0ed09e1c16be2a_kp_x"), PROBE_NONE);
	assert_int_equal(stacks_probe_frame(NULL), PROBE_NONE);
	assert_int_equal(stacks_probe_frame(""), PROBE_NONE);
}

static void test_glue(void **state)
{
	static const char *const ours[] = {
		"bpf_trace_run1",
		"bpf_trace_run2",
		"bpf_trace_run12",
		"__bpf_trace_sys_enter",
		"__bpf_trace_sched_switch",
		"__bpf_prog_enter",
		"__bpf_prog_enter_recur",
		"__bpf_prog_exit_recur",
		"__bpf_prog_enter_sleepable",
		"trace_call_bpf",
		"bpf_overflow_handler",
		"kprobe_multi_link_handler",
		"kprobe_multi_link_prog_run",
	};
	static const char *const kprobes[] = {
		"kprobe_ftrace_handler",
		"kprobe_dispatcher",
		"kretprobe_dispatcher",
		"kprobe_perf_func",
		"kprobe_int3_handler",
		"exc_int3",
		"asm_exc_int3",
		"fprobe_handler",
		"arch_rethook_trampoline",
		"kprobe_optinsn_page",
		"do_int3",
		"ftrace_regs_caller",
	};
	/* near misses: tracepoint and trampoline code that is not only BPF's */
	static const char *const none[] = {
		"bpf_trace_run",
		"bpf_trace_run2x",
		"__traceiter_sys_enter",
		"syscall_trace_enter",
		"bpf_trampoline_link_prog",
		"bpf_trampoline_",
		"bpf_trampoline_update",
		"perf_trace_run_bpf_submit",
		"do_syscall_64",
		"bpf_dispatcher_change_prog",
		"trace_call_bpf_x",
	};
	int i;

	assert_int_equal(stacks_probe_frame("bpf_trampoline_6442506812"), PROBE_TRAMPOLINE);
	for (i = 0; i < N(ours); i++)
		assert_int_equal(stacks_probe_frame(ours[i]), PROBE_OURS);
	for (i = 0; i < N(kprobes); i++)
		assert_int_equal(stacks_probe_frame(kprobes[i]), PROBE_IF_BPF);
	for (i = 0; i < N(none); i++)
		assert_int_equal(stacks_probe_frame(none[i]), PROBE_NONE);
}

/* Leaf first, as this host records a getppid's sys_exit program. */
static void test_cut_raw_tp(void **state)
{
	const char *const s[] = {"read_tsc",
				 "ktime_get_mono_fast_ns",
				 "bpf_prog_a6c0ed09e1c16be2_kp_sys_exit",
				 "bpf_trace_run2",
				 "__bpf_trace_sys_exit",
				 "__traceiter_sys_exit",
				 "syscall_exit_work",
				 "do_syscall_64",
				 "entry_SYSCALL_64_after_hwframe"};
	/* a sample in bpf_trace_run2 itself, before the program runs */
	const char *const glue[] = {"__rcu_read_lock", "bpf_trace_run2", "__bpf_trace_sys_exit",
				    "syscall_exit_work"};
	/* the unwinder stopped in the JIT code: the probe is the whole kernel stack */
	const char *const alone[] = {"bpf_prog_f3816ba9c51402ac_kp_sys_enter"};
	const char *const workload[] = {"__task_pid_nr_ns", "__ia32_sys_getppid", "do_syscall_64"};

	assert_int_equal(stacks_probe_cut(s, N(s)), 4);
	assert_int_equal(stacks_probe_cut(glue, N(glue)), 2);
	assert_int_equal(stacks_probe_cut(alone, N(alone)), 0);
	assert_int_equal(stacks_probe_cut(workload, N(workload)), -1);
	assert_int_equal(stacks_probe_cut(NULL, 0), -1);
}

static void test_cut_kprobes(void **state)
{
	/* a kprobe's trap running kprotperf's program: cut at the trap */
	const char *const trap[] = {"bpf_prog_0123456789abcdef_kp_kprobe",
				    "trace_call_bpf",
				    "kprobe_perf_func",
				    "kprobe_dispatcher",
				    "kprobe_int3_handler",
				    "exc_int3",
				    "asm_exc_int3",
				    "allocate_slab",
				    "___slab_alloc"};
	/* the same machinery without BPF above it: someone else's kprobe */
	const char *const other[] = {"my_handler", "kprobe_int3_handler", "exc_int3",
				     "asm_exc_int3", "allocate_slab"};
	/* fentry: the trampoline image and its enter/exit helpers */
	const char *const fentry[] = {
		"__htab_map_lookup_elem", "bpf_prog_0123456789abcdef_kp_fentry3",
		"bpf_trampoline_6442506812", "allocate_slab", "___slab_alloc"};
	const char *const unnamed[] = {NULL, "bpf_trace_run2", NULL, "syscall_exit_work"};
	/* a sample in the trampoline's own code, or in what its enter helper calls */
	const char *const tramp[] = {"bpf_trampoline_6442506812", "allocate_slab"};
	const char *const enter[] = {"migrate_disable", "__bpf_prog_enter_recur",
				     "bpf_trampoline_6442506812", "allocate_slab"};
	/* an optimized kprobe's detour buffer (the VM's 6.1) */
	const char *const opt[] = {"read_hpet",		 "bpf_prog_0123456789abcdef_kp_pc",
				   "trace_call_bpf",	 "kprobe_perf_func",
				   "kprobe_dispatcher",	 "opt_pre_handler",
				   "optimized_callback", "kprobe_optinsn_page",
				   "allocate_slab"};

	assert_int_equal(stacks_probe_cut(trap, N(trap)), 6);
	assert_int_equal(stacks_probe_cut(tramp, N(tramp)), 0);
	assert_int_equal(stacks_probe_cut(enter, N(enter)), 2);
	assert_int_equal(stacks_probe_cut(opt, N(opt)), 7);
	assert_int_equal(stacks_probe_cut(other, N(other)), -1);
	assert_int_equal(stacks_probe_cut(fentry, N(fentry)), 2);
	assert_int_equal(stacks_probe_cut(unnamed, N(unnamed)), 1);
}

/*
 * fexit: the trampoline calls the traced function, which runs with the
 * trampoline on the stack: that is the workload's time, not the probe's.
 */
static void test_cut_fexit(void **state)
{
	const char *const body[] = {"setup_object",  "shuffle_freelist",
				    "allocate_slab", "bpf_trampoline_6442480477",
				    "allocate_slab", "___slab_alloc"};
	/* the probe of a function traced under another's trampoline: cut at the inner one */
	const char *const nested[] = {"bpf_prog_164120c79dc8d1b9_kp_fentry1",
				      "bpf_trampoline_6442480999",
				      "new_slab",
				      "allocate_slab",
				      "bpf_trampoline_6442480477",
				      "allocate_slab",
				      "___slab_alloc"};
	/* a raw tracepoint's program in a function that runs under a trampoline */
	const char *const rawtp[] = {"bpf_prog_a6c0ed09e1c16be2_kp_fault_ker",
				     "bpf_trace_run2",
				     "__bpf_trace_page_fault_kernel",
				     "exc_page_fault",
				     "asm_exc_page_fault",
				     "allocate_slab",
				     "bpf_trampoline_6442480477",
				     "allocate_slab"};

	assert_int_equal(stacks_probe_cut(body, N(body)), -1);
	assert_int_equal(stacks_probe_cut(nested, N(nested)), 1);
	assert_int_equal(stacks_probe_cut(rawtp, N(rawtp)), 2);
}

/* Another tool's program and the glue that runs it stay as they are. */
static void test_cut_foreign(void **state)
{
	const char *const foreign[] = {"bpf_prog_6deef7357e7b4530_do_sys", "bpf_trace_run2",
				       "__bpf_trace_sys_enter", "syscall_trace_enter"};
	/* ours nested in theirs (a helper that fires a tracepoint): only ours goes */
	const char *const nested[] = {"bpf_prog_a6c0ed09e1c16be2_kp_sched_s",
				      "bpf_trace_run3",
				      "__bpf_trace_sched_switch",
				      "bpf_prog_6deef7357e7b4530_other",
				      "bpf_trace_run2",
				      "syscall_trace_enter"};

	assert_int_equal(stacks_probe_cut(foreign, N(foreign)), -1);
	assert_int_equal(stacks_probe_cut(nested, N(nested)), 2);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_programs),   cmocka_unit_test(test_glue),
		cmocka_unit_test(test_cut_raw_tp), cmocka_unit_test(test_cut_kprobes),
		cmocka_unit_test(test_cut_fexit),  cmocka_unit_test(test_cut_foreign),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
