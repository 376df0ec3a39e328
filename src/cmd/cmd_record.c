// SPDX-License-Identifier: GPL-2.0-only
/* kprotperf record: its options, checked, then the recording session. */
#include "cmd/cmds.h"

#include <errno.h>
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cmd/options.h"
#include "data/datafile.h"
#include "record/model_run.h"
#include "record/record.h"

enum {
	OPT_MAX_STACKS = OPTIONS_LONG_ONLY,
	OPT_MAX_TASKS,
	OPT_FUNC,
	OPT_PROBE,
	OPT_VMLINUX,
	OPT_FUNC_STACKS,
	OPT_STRICT,
	OPT_NO_SYSCALLS,
	OPT_BPF_STATS,
	OPT_CALL_GRAPH,
	OPT_RING_SIZE,
	OPT_BLOCKS,
	OPT_BLOCKS_LIMIT,
	OPT_MODEL,
	OPT_COUNT
};

static const struct options_entry entries[] = {
	{'o', "output", "FILE",
	 "data file (default kprotperf.data; replaced atomically): absent\n"
	 "or a regular file, never a symlink, device or directory"},
	{'p', "pid", "PID", "record a running process and the children it starts"},
	{'a', "all-cpus", NULL, "system-wide: every process (with CMD: while CMD runs)"},
	{'d', "duration", "SEC", "stop after SEC seconds; CMD then gets SIGTERM"},
	{'F', "freq", "HZ",
	 "sampling frequency per CPU (default 99): the sampling event's\n"
	 "period is adjusted to take about HZ samples a second"},
	{'e', "event", "EVENT",
	 "sample stacks on EVENT instead of cpu-clock (a name as for\n"
	 "--count): with -c, a sample every PERIOD events, else at -F's\n"
	 "frequency; each stack is weighed by the events its samples\n"
	 "stand for (folded)"},
	{'c', "period", "PERIOD",
	 "a sample every PERIOD events of -e's event (perf's -c; not\n"
	 "with -F)"},
	{OPT_COUNT, "count", "EVENTS",
	 "count each of EVENTS (comma-separated) from each syscall's\n"
	 "entry to its return, per thread, and over each --func\n"
	 "function's calls (repeatable, at most 8 events): perf's\n"
	 "names (cycles, instructions, cache-misses, LLC-load-misses,\n"
	 "task-clock, page-faults, context-switches, ...), a PMU's\n"
	 "cpu/event=0x3c,umask=0/ or its events/ names; a hardware\n"
	 "event without a PMU is refused before anything runs.\n"
	 "Counted by kprotperf's own BPF hooks, no perf event opened:\n"
	 "task-clock and cpu-clock (on-CPU ns, by the clock that times\n"
	 "the call), context-switches (sched_switch), cpu-migrations\n"
	 "(sched_migrate_task), page-faults (the exceptions\n"
	 "tracepoints, faults on user addresses), minor-faults and\n"
	 "major-faults (the thread's min_flt and maj_flt); the others\n"
	 "(hardware, cache, PMU, alignment-faults, emulation-faults)\n"
	 "by bpf_perf_event_read. Every read lies outside the timed\n"
	 "window: latencies are those of a recording without --count"},
	{'q', "quiet", NULL, "no progress line and no summary"},
	{OPT_CALL_GRAPH, "call-graph", "MODE",
	 "how user stacks are walked: fp (default: frame pointers, in\n"
	 "the kernel) or dwarf[,SIZE]: SIZE bytes of the user stack\n"
	 "(default 8192, at most 65528) and the registers copied at\n"
	 "each sample and unwound by kprotperf with the binaries' CFI\n"
	 "(.eh_frame/.debug_frame) while recording; only the frames are\n"
	 "saved"},
	{OPT_NO_SYSCALLS, "no-syscalls", NULL,
	 "no per-syscall tracing: CPU samples, page faults and --func\n"
	 "only, without the two BPF programs every syscall on the\n"
	 "machine would run"},
	{OPT_BPF_STATS, "bpf-stats", NULL,
	 "also count the runs and time of kprotperf's own BPF programs\n"
	 "with the kernel's BPF statistics, for report; they add two\n"
	 "clock reads to every run of every BPF program on the machine"},
	{'r', "repeat", "N",
	 "run CMD N times, one after the other, into one data file:\n"
	 "the tables hold the totals, the runs, run_latency and\n"
	 "run_samples tables each run's share; stops at the first\n"
	 "run that exits non-zero or is killed (default 1)"},
	{OPT_FUNC, "func", "NAME",
	 "also measure kernel function NAME (glob; repeatable; clones\n"
	 "such as NAME.isra.0 count as NAME): entry-to-return latency\n"
	 "split by syscall, kernel stack and slab cache; a function\n"
	 "inlined into all its callers is timed at each inline\n"
	 "instance, by kprobes at its entry and exits (from DWARF);\n"
	 "a NAME no function matches is warned about, recorded as\n"
	 "absent on this kernel, and the others are probed (when\n"
	 "none matches: an error)"},
	{OPT_BLOCKS, "blocks", "FUNC",
	 "also count the basic blocks of kernel function FUNC (a name,\n"
	 "or its one compiler clone; repeatable, up to 8 functions): its\n"
	 "running text is disassembled into a control-flow graph and a\n"
	 "kprobe put at each block head; per block its executions, per\n"
	 "edge and loop the counts they imply, per call the instructions\n"
	 "executed, each loop's trips and the value of what bounds it\n"
	 "(split by slab cache), and calls by syscall, slab cache and,\n"
	 "with --func-stacks, kernel stack; a function inlined into all\n"
	 "its callers is counted at each inline instance (from DWARF:\n"
	 "--vmlinux or the kernel's -dbg package); needs kprobes and\n"
	 "/proc/kcore (else --vmlinux)"},
	{OPT_BLOCKS_LIMIT, "blocks-limit", "N",
	 "at most N probes (blocks) per --blocks function (default 256,\n"
	 "at most 1024): a function with more is refused"},
	{OPT_MODEL, "model", NULL,
	 "run CMD in the window of kprotperf's machine model (in the VM\n"
	 "under scripts/vm-run.sh --model): the model counts exact\n"
	 "instructions and simulated cache misses per kernel and user\n"
	 "PC from CMD's exec to its end, machine-wide; nothing is\n"
	 "attached, no sample taken. The recording holds the kernel's\n"
	 "symbols and the mappings of every program CMD's process tree\n"
	 "executes; vm-run.sh merges the counts into it at QEMU's exit\n"
	 "(kprotperf inject). With -r N, N windows whose counts add\n"
	 "up. Not with -p, -a, -d, --func, --blocks or the sampling\n"
	 "options"},
	{OPT_STRICT, "strict", NULL, "refuse to record when any --func NAME matches nothing"},
	{OPT_PROBE, "probe", "MODE",
	 "how to probe --func: auto (default: fentry where possible,\n"
	 "else kprobe), fentry or kprobe"},
	{OPT_FUNC_STACKS, "func-stacks", NULL,
	 "also take the kernel stack of every probed call (a stack\n"
	 "walk per call) for kprotperf folded --weight latency, and\n"
	 "of every --blocks call"},
	{OPT_VMLINUX, "vmlinux", "PATH",
	 "the kernel's vmlinux with DWARF (default: found by build-id\n"
	 "or under /usr/lib/debug/boot, /boot, /lib/modules), for\n"
	 "--func and --blocks on inlined functions, the names of\n"
	 "--blocks' loop bounds, and --blocks' text when /proc/kcore\n"
	 "cannot be read"},
	{OPT_RING_SIZE, "ring-size", "MIB",
	 "ring buffer for samples and stacks, in MiB, a power of two\n"
	 "(default 8, with --call-graph dwarf 64; at most 2048); what\n"
	 "a full ring drops is counted (lost_ring_full); refused when\n"
	 "it would take more than half of the available memory"},
	{OPT_MAX_STACKS, "max-stacks", "N",
	 "stacks the kernel remembers having sent, so that each is sent\n"
	 "once (default 16384, at most 1048576); one it forgets is sent\n"
	 "again, never lost"},
	{OPT_MAX_TASKS, "max-tasks", "N",
	 "processes and threads followed at once (default 8192, at most\n"
	 "4194304)"},
	{},
};

static const struct options_example examples[] = {
	{"sudo kprotperf record -- ./big-fork 2000",
	 "syscalls, page faults and CPU samples of big-fork's process tree\n"
	 "into kprotperf.data"},
	{"sudo kprotperf record --func new_slab -o k.data -- ./big-fork 2000",
	 "also the latency of every new_slab call, by syscall, stack and\n"
	 "slab cache"},
	{"sudo kprotperf record -r 10 -o base.data -- ./big-fork 2000",
	 "ten runs for kprotperf diff's confidence intervals"},
	{"sudo kprotperf record --count context-switches,task-clock -- ./count-loop 200 20000 0",
	 "context switches and task-clock per syscall, per thread"},
	{"sudo kprotperf record -e page-faults -c 1 -- ./count-loop 0 0 500",
	 "a stack sample at every page fault"},
	{"sudo kprotperf record -a -d 5", "the whole system for five seconds"},
	{},
};

const struct options_cmd record_options = {
	.name = "record",
	.head = "Usage: kprotperf record [OPTIONS] -- CMD [ARGS...]\n"
		"       kprotperf record [OPTIONS] -p PID\n"
		"       kprotperf record [OPTIONS] -a [-d SEC] [-- CMD [ARGS...]]\n"
		"Record syscall latencies (on-CPU and off-CPU), page faults and CPU-clock\n"
		"stack samples of CMD and every process it starts, into a data file.\n",
	.foot = "Needs root, or on the binary CAP_BPF and CAP_PERFMON (BPF programs, perf\n"
		"events, kernel stacks) and CAP_SYSLOG (kernel addresses in /proc/kallsyms):\n"
		"  setcap cap_bpf,cap_perfmon,cap_syslog+ep /usr/local/bin/kprotperf\n"
		"CMD never gets them; under sudo it runs as the invoking user. The data file\n"
		"is created 0600, owned by the invoking user.\n",
	.status = "CMD's: its exit code, or 128+N when signal N killed it (with -r, of\n"
		  "the last run; 130 when interrupted after it exited well); 0 with\n"
		  "--duration, or with -p or -a and no CMD; 1 when recording failed (one\n"
		  "line on stderr says why), 2 for a usage error.\n",
	.examples = examples,
	.column = 23,
	/* options after CMD are CMD's */
	.in_order = true,
	.opts = entries,
};

/* The numeric options: ranges and the words of their errors. */
static const struct options_number num_pid = {"pid", 1, 1 << 22, true, "expected a process id"};
static const struct options_number num_duration = {"duration", 0.001, 1e7, false,
						   "expected seconds > 0"};
static const struct options_number num_freq = {"frequency", 1, 100000, true,
					       "expected 1..100000 Hz"};
static const struct options_number num_period = {"--period", 1, 1099511627776.0, true,
						 "expected a period of 1..2^40 events"};
static const struct options_number num_repeat = {"--repeat", 1, 100000, true,
						 "expected a number of runs, 1..100000"};
/* ~1 KiB of kernel memory a stack: 1 GiB at most (see record/limits.c) */
static const struct options_number num_stacks = {"--max-stacks", 64, 1 << 20, true,
						 "expected 64..1048576"};
static const struct options_number num_ring = {"--ring-size", 1, 2048, true,
					       "expected a power of two, 1..2048 (MiB)"};
static const struct options_number num_dwarf = {"--call-graph dwarf size", 8, 65528, true,
						"expected 8..65528 bytes, a multiple of 8"};
static const struct options_number num_blocks_limit = {"--blocks-limit", 1, KP_BLK_MAX, true,
						       "expected 1..1024 probes"};
/* pid_max's own limit */
static const struct options_number num_tasks = {"--max-tasks", 64, 1 << 22, true,
						"expected 64..4194304"};

static int bad_arg(const char *opt, const char *arg, const char *want)
{
	fprintf(stderr, "kprotperf record: invalid %s '%s': %s\n", opt, arg, want);
	return -EINVAL;
}

static int parse_probe(const char *arg, enum probe_mode *mode)
{
	static const char *const names[] = {"auto", "fentry", "kprobe"};
	size_t i;

	for (i = 0; i < sizeof(names) / sizeof(names[0]); i++) {
		if (!strcmp(arg, names[i])) {
			*mode = i;
			return 0;
		}
	}
	return bad_arg("--probe", arg, "expected auto, fentry or kprobe");
}

static int parse_call_graph(struct record_opts *o, const char *arg)
{
	double v = 0;
	int err;

	if (!strcmp(arg, "fp")) {
		o->dwarf_size = 0;
		return 0;
	}
	if (strcmp(arg, "dwarf") && strncmp(arg, "dwarf,", 6))
		return bad_arg("--call-graph", arg, "expected fp, dwarf or dwarf,SIZE");
	o->dwarf_size = KP_DWARF_STACK_DEFAULT;
	if (!arg[5])
		return 0;
	err = options_num(&record_options, &num_dwarf, arg + 6, &v);
	if (err)
		return err;
	if ((unsigned int)v % 8)
		return bad_arg("--call-graph", arg, "the size must be a multiple of 8");
	o->dwarf_size = v;
	return 0;
}

static int parse_ring(struct record_opts *o, const char *arg)
{
	double v = 0;
	int err = options_num(&record_options, &num_ring, arg, &v);

	if (err)
		return err;
	o->ring_mib = v;
	if (o->ring_mib & (o->ring_mib - 1))
		return bad_arg("--ring-size", arg, num_ring.want);
	return 0;
}

/* -e EVENT or --count EVENT[,EVENT...]: one line when a name is not an event. */
static int parse_events(struct record_opts *o, int c, const char *arg)
{
	char why[1024];
	unsigned int n = 0;
	int err;

	if (c == 'e')
		err = pmu_event_list(arg, "-e", &o->sample_event, &n, 1, why, sizeof(why));
	else
		err = pmu_event_list(arg, "--count", o->count, &o->ncount, KP_COUNT_EVENTS_MAX, why,
				     sizeof(why));
	if (err)
		fprintf(stderr, "kprotperf record: %s\n", why);
	return err;
}

/* The options with a value: numbers, names and paths. */
static int set_arg(struct record_opts *o, int c, const char *arg)
{
	double v = 0;
	int err;

	switch (c) {
	case 'o':
		o->output = arg;
		return 0;
	case 'p':
		err = options_num(&record_options, &num_pid, arg, &v);
		o->pid = v;
		return err;
	case 'd':
		return options_num(&record_options, &num_duration, arg, &o->duration);
	case 'F':
		err = options_num(&record_options, &num_freq, arg, &v);
		o->freq = v;
		o->freq_set = true;
		return err;
	case 'c':
		err = options_num(&record_options, &num_period, arg, &v);
		o->period = v;
		return err;
	case 'e':
	case OPT_COUNT:
		return parse_events(o, c, arg);
	case 'r':
		err = options_num(&record_options, &num_repeat, arg, &v);
		o->repeat = v;
		return err;
	case OPT_MAX_STACKS:
	case OPT_MAX_TASKS:
		err = options_num(&record_options, c == OPT_MAX_STACKS ? &num_stacks : &num_tasks,
				  arg, &v);
		*(c == OPT_MAX_STACKS ? &o->max_stacks : &o->max_tasks) = v;
		return err;
	case OPT_FUNC:
		if (o->func.n == KP_MAX_FUNCS)
			return bad_arg("--func", arg, "too many --func options");
		o->func.patterns[o->func.n++] = (char *)arg;
		return 0;
	case OPT_BLOCKS:
		if (o->blocks.n == KP_BLK_FUNCS)
			return bad_arg("--blocks", arg, "at most 8 --blocks functions");
		o->blocks.funcs[o->blocks.n++] = arg;
		return 0;
	case OPT_BLOCKS_LIMIT:
		err = options_num(&record_options, &num_blocks_limit, arg, &v);
		o->blocks.limit = v;
		return err;
	case OPT_PROBE:
		return parse_probe(arg, &o->func.mode);
	case OPT_VMLINUX:
		o->func.vmlinux = arg;
		return 0;
	case OPT_CALL_GRAPH:
		return parse_call_graph(o, arg);
	case OPT_RING_SIZE:
		return parse_ring(o, arg);
	}
	return -EINVAL;
}

static int set_opt(void *ctx, int c, const char *arg)
{
	struct record_opts *o = ctx;

	switch (c) {
	case 'a':
		o->system_wide = true;
		return 0;
	case 'q':
		o->quiet = true;
		return 0;
	case OPT_FUNC_STACKS:
		o->func.stacks = true;
		return 0;
	case OPT_STRICT:
		o->func.strict = true;
		return 0;
	case OPT_NO_SYSCALLS:
		o->no_syscalls = true;
		return 0;
	case OPT_BPF_STATS:
		o->bpf_stats = true;
		return 0;
	case OPT_MODEL:
		o->model = true;
		return 0;
	}
	return set_arg(o, c, arg);
}

static int check_repeat(struct record_opts *o)
{
	if (o->repeat && !o->argv) {
		fprintf(stderr,
			"kprotperf record: --repeat needs a command to start again for each "
			"run (-- CMD), not %s\n",
			o->pid ? "-p PID" : "-a alone");
		return -EINVAL;
	}
	if (o->repeat > 1 && o->duration) {
		fprintf(stderr, "kprotperf record: --repeat cannot be combined with --duration: "
				"each run lasts as long as CMD\n");
		return -EINVAL;
	}
	if (!o->repeat)
		o->repeat = 1;
	return 0;
}

/* --model attaches nothing: what needs an attachment or another target is refused. */
static int check_model(const struct record_opts *o, bool sampling)
{
	const char *what = o->pid	    ? "-p"
			   : o->system_wide ? "-a"
			   : o->duration    ? "--duration"
			   : o->func.n	    ? "--func"
			   : o->blocks.n    ? "--blocks"
			   : o->bpf_stats   ? "--bpf-stats"
			   : sampling ? "the sampling and counting options (-F, -e, -c, --count,"
					" --call-graph, --ring-size)"
				      : NULL;

	if (!o->model || !what)
		return 0;
	fprintf(stderr,
		"kprotperf record: --model runs CMD with nothing attached: it cannot be combined "
		"with %s (record those in a run of their own)\n",
		what);
	return -EINVAL;
}

/* A dwarf sample is ~SIZE bytes: at 999 Hz on every CPU that fills 8 MiB fast. */
static void default_ring(struct record_opts *o)
{
	if (!o->ring_mib)
		o->ring_mib = o->dwarf_size ? 64 : 8;
}

int record_parse(int argc, char **argv, struct record_opts *o)
{
	int err;

	record_opts_init(o);
	/* not given yet: the call graph decides (default_ring) */
	o->ring_mib = 0;
	err = options_parse(&record_options, argc, argv, set_opt, o);
	if (err)
		return err;
	o->argv = optind < argc ? argv + optind : NULL;
	if (!o->argv && !o->pid && !o->system_wide) {
		fprintf(stderr, "kprotperf record: nothing to record: give -- CMD, -p PID or -a "
				"(see kprotperf record --help)\n");
		return -EINVAL;
	}
	if (o->pid && (o->argv || o->system_wide)) {
		fprintf(stderr, "kprotperf record: -p PID cannot be combined with CMD or -a\n");
		return -EINVAL;
	}
	if (o->period && o->freq_set) {
		fprintf(stderr, "kprotperf record: -c PERIOD and -F HZ cannot be combined: a sample"
				" every PERIOD events, or about HZ samples a second\n");
		return -EINVAL;
	}
	err = check_model(o, o->freq != KP_DEFAULT_FREQ_HZ || o->dwarf_size || o->ring_mib ||
				     o->period || strcmp(o->sample_event.name, "cpu-clock") ||
				     o->ncount);
	if (err)
		return err;
	default_ring(o);
	o->blocks.vmlinux = o->func.vmlinux;
	o->blocks.stacks = o->func.stacks;
	return check_repeat(o);
}

int cmd_record(int argc, char **argv)
{
	struct record_opts o;
	int err = record_parse(argc, argv, &o);

	if (err)
		return err > 0 ? 0 : 2;
	return o.model ? record_model_run(&o) : record_run(&o);
}
