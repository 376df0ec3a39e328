// SPDX-License-Identifier: GPL-2.0-only
/*
 * kprotperf record: start the command stopped, attach the BPF programs, let
 * it run, and save syscall latencies, page faults and stack samples of its
 * whole process tree into the data file.  This file owns the session from
 * start to end and what is said when it fails; its parts are in session.h.
 */
#include "record/record.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/signalfd.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>
#include <bpf/libbpf.h>

#include "data/datafile.h"
#include "kprotperf.h"
#include "record.skel.h"
#include "record/blocks.h"
#include "record/collect.h"
#include "record/counting.h"
#include "record/funcs.h"
#include "record/limits.h"
#include "record/measures.h"
#include "record/privileges.h"
#include "record/procs.h"
#include "record/session.h"
#include "record/stackstore.h"
#include "record/ustack_dwarf.h"
#include "symbols/ksyms.h"
#include "system/provenance.h"
#include "util/kv.h"

static const char *const stage_names[] = {
	[STAGE_LOAD_BPF] = "loading BPF programs",
	[STAGE_COUNT] = "opening --count's events",
	[STAGE_FOLLOW] = "following processes",
	[STAGE_START_TARGET] = "starting the target",
	[STAGE_READ_MAPS] = "reading the process's mappings",
	[STAGE_WATCH] = "watching events",
	[STAGE_ATTACH] = "attaching tracepoints",
	[STAGE_SAMPLING] = "opening the sampling events",
	[STAGE_KALLSYMS] = "reading /proc/kallsyms",
	[STAGE_FUNC] = "--func",
	[STAGE_BLOCKS] = "--blocks",
	[STAGE_RUN_COMMAND] = "running the command",
	[STAGE_RECORDING] = "recording",
	[STAGE_WAIT_TREE] = "waiting for the run's processes",
	[STAGE_SAVE_RUN] = "saving the run",
	[STAGE_START_COMMAND] = "starting the command",
	[STAGE_WRITE] = "writing the data file",
};

static int libbpf_quiet(enum libbpf_print_level level, const char *fmt, va_list ap)
{
	return level == LIBBPF_WARN && getenv("KPROTPERF_DEBUG") ? vfprintf(stderr, fmt, ap) : 0;
}

static int load_bpf(struct session *s)
{
	const struct record_opts *o = s->o;
	struct record_bpf *skel;
	int err;

	libbpf_set_print(libbpf_quiet);
	skel = record_bpf__open();
	if (!skel)
		return -errno;
	skel->rodata->filter_tree = !o->system_wide;
	/* -p: the target's threads get their state at their first syscall */
	skel->rodata->lazy_threads = o->pid > 0;
	/* the threads' syscall table: a power of two, at most half full */
	while ((1U << skel->rodata->sys_bits) < 2 * o->max_tasks)
		skel->rodata->sys_bits++;
	/* --no-syscalls: the raw_tp programs every syscall of the machine would run */
	bpf_program__set_autoload(skel->progs.kp_sys_enter, !o->no_syscalls);
	bpf_program__set_autoload(skel->progs.kp_sys_exit, !o->no_syscalls);
	bpf_program__set_autoattach(skel->progs.kp_fork, false);
	skel->rodata->dwarf_size = o->dwarf_size;
	err = bpf_map__set_max_entries(skel->maps.events, o->ring_mib << 20);
	err = err ?: bpf_map__set_max_entries(skel->maps.stacks_sent, o->max_stacks);
	/* fp: the dwarf buffers are never used, one will do */
	err = err
		      ?: bpf_map__set_max_entries(skel->maps.sample_dwarf,
						  o->dwarf_size ? libbpf_num_possible_cpus() : 1);
	err = err ?: bpf_map__set_max_entries(skel->maps.tree, o->max_tasks);
	err = err ?: bpf_map__set_max_entries(skel->maps.systab, 1U << skel->rodata->sys_bits);
	err = err ?: counting_setup(s->counting, skel);
	err = err
		      ?: limits_check(skel, o->ring_mib, o->max_stacks, o->max_tasks, s->why,
				      sizeof(s->why));
	err = err ?: record_bpf__load(skel);
	if (err) {
		record_bpf__destroy(skel);
		return err;
	}
	s->skel = skel;
	return 0;
}

/* record --blocks, before --func: its text is read before any probe is put into it */
static int attach_blocks(struct session *s)
{
	int err;

	if (!s->o->blocks.n)
		return 0;
	s->stage = STAGE_BLOCKS;
	err = blocks_attach(&s->blocks, &s->o->blocks, s->ks, s->skel, s->why, sizeof(s->why));
	if (!err && blocks_note(s->blocks) && !s->o->quiet)
		fprintf(stderr, "kprotperf %s: %s\n", s->o->cmd, blocks_note(s->blocks));
	return err;
}

/* Everything until the target runs: fails before CMD has run a single instruction. */
static int prepare(struct session *s)
{
	int err;

	s->stage = STAGE_LOAD_BPF;
	err = load_bpf(s);
	if (err)
		return err;
	s->stage = STAGE_COUNT;
	err = counting_open(s->counting, s->skel, s->why, sizeof(s->why));
	if (err)
		return err;
	s->stage = STAGE_FOLLOW;
	err = procs_new(&s->procs);
	if (!err && s->o->dwarf_size)
		err = ustack_dwarf_new(&s->dwarf, s->procs);
	err = err ?: stackstore_new(&s->stacks, s->skel->maps.events, s->dwarf);
	err = err ?: collect_deltas_new(&s->deltas);
	if (!err && s->o->runs)
		err = measures_new(&s->measures);
	if (err)
		return err;
	/* before the command's fork, which kp_fork marks traced (proctree.c) */
	s->stage = STAGE_ATTACH;
	s->skel->links.kp_fork = bpf_program__attach(s->skel->progs.kp_fork);
	if (!s->skel->links.kp_fork)
		return -errno;
	s->stage = STAGE_START_TARGET;
	err = proctree_start_target(s);
	if (err)
		return err;
	s->stage = STAGE_WATCH;
	err = events_setup(s);
	if (err)
		return err;
	s->stage = STAGE_ATTACH;
	err = record_bpf__attach(s->skel);
	if (err)
		return err;
	s->stage = STAGE_SAMPLING;
	err = sampler_attach(&s->sampler, s->skel->progs.kp_sample,
			     &(struct sampler_event){&s->o->sample_event, s->o->period, s->o->freq},
			     s->o->bpf_stats);
	if (err || (!s->o->func.n && !s->o->blocks.n))
		return err;
	s->stage = STAGE_KALLSYMS;
	err = ksyms_load(&s->ks, NULL);
	if (err)
		return err;
	err = attach_blocks(s);
	if (err || !s->o->func.n)
		return err;
	s->stage = STAGE_FUNC;
	err = funcs_attach(&s->funcs, &s->o->func, s->ks, s->skel, s->why, sizeof(s->why));
	/* a measure missing is worth a line even with -q, unlike the notes */
	if (!err && funcs_warning(s->funcs))
		fprintf(stderr, "kprotperf %s: %s\n", s->o->cmd, funcs_warning(s->funcs));
	if (!err && s->why[0] && !s->o->quiet)
		fprintf(stderr, "kprotperf %s: %s\n", s->o->cmd, s->why);
	/* without it, trampoline frames are only named after whatever precedes them */
	if (!err && funcs_uses_fentry(s->funcs))
		ksyms_load(&s->probed_ks, NULL);
	return err;
}

/* The runs, until the last one ends, then the data file. */
static int go(struct session *s)
{
	int err;

	clock_gettime(CLOCK_REALTIME, &s->t0);
	s->wall_ns = events_now();
	for (;;) {
		err = repeat_one_run(s);
		if (!err)
			err = repeat_another(s);
		if (err <= 0)
			break;
		err = repeat_next_run(s);
		if (err || s->end == END_INTERRUPTED)
			break;
	}
	s->wall_ns = events_now() - s->wall_ns;
	events_end_line(s);
	sampler_detach(&s->sampler);
	funcs_detach(s->funcs);
	blocks_detach(s->blocks);
	/* fork and exit stay traced until the tree is killed: it must be current */
	proctree_detach_but_tree(s);
	proctree_reap_workload(s);
	if (err || s->end != END_EXITED)
		proctree_kill_rest(s);
	record_bpf__detach(s->skel);
	err = err ?: events_drain_procs(s);
	err = err ?: events_drain_ring(s);
	if (err)
		return err;
	s->stage = STAGE_WRITE;
	/* the last run's share of the syscall and samples maps is read with their totals */
	return repeat_put_run(s) ?: save_data(s);
}

/*
 * --blocks' reasons start with "--blocks", --func's do not; a command that
 * probes a function of its own option (explore's --target) names that one,
 * the option its user gave.
 */
static void probe_error(const struct record_opts *o, bool blocks, const char *msg, char *why,
			size_t len)
{
	const char *flag = blocks ? "--blocks" : "--func";
	const char *sep = ": ";

	if (blocks && !strncmp(msg, flag, strlen(flag))) {
		msg += strlen(flag);
		sep = "";
	}
	snprintf(why, len, "%s%s%s", o->probe_flag ?: flag, sep, msg);
}

/* What failed at s->stage with err, into why; the exit status to return. */
static int explain(const struct session *s, int err, char *why, size_t len)
{
	const struct record_opts *o = s->o;
	const char *fix = "";

	/* save_data(): the command never reached its exec */
	if (err == -ENODATA && s->stage == STAGE_WRITE && o->argv) {
		snprintf(why, len, "nothing of '%s' ran: no data file written", o->argv[0]);
		return 1;
	}
	if (err == -EPERM || err == -EACCES)
		fix = ": run as root (or with CAP_BPF, CAP_PERFMON and CAP_SYSLOG)";
	else if (err == -ENOSPC || err == -EDQUOT)
		fix = ": free space or write elsewhere with -o (nothing was written)";
	if (o->pid && (err == -ESRCH || err == -ENOENT) &&
	    (s->stage == STAGE_START_TARGET || s->stage == STAGE_READ_MAPS)) {
		snprintf(why, len, "no process with pid %d", o->pid);
		return 1;
	}
	/* root is not enough: ptrace access to the process is */
	if (s->stage == STAGE_READ_MAPS && (err == -EPERM || err == -EACCES)) {
		snprintf(
			why, len,
			"cannot read /proc/%d/maps: %s: process %d may not be traced from here "
			"(another user's or another user namespace's process, or ptrace limited by "
			"kernel.yama.ptrace_scope); record a process this user may ptrace, or "
			"-a to record the whole system",
			o->pid, strerror(-err), o->pid);
		return 1;
	}
	if ((s->stage == STAGE_LOAD_BPF || s->stage == STAGE_COUNT) && s->why[0]) {
		snprintf(why, len, "%s", s->why);
		return 1;
	}
	if (s->stage == STAGE_BLOCKS || s->stage == STAGE_FUNC) {
		probe_error(o, s->stage == STAGE_BLOCKS, s->why[0] ? s->why : strerror(-err), why,
			    len);
		return 1;
	}
	/* repeat_one_run reaped it: how it died, as when it dies after its release */
	if (o->argv && s->stage == STAGE_RUN_COMMAND && err == -EPIPE) {
		char how[64];

		workload_end_how(s->status, how, sizeof(how));
		snprintf(why, len, "'%s' %s before its exec: nothing of it ran", o->argv[0], how);
		return 1;
	}
	if (o->argv && s->stage == STAGE_RUN_COMMAND) {
		snprintf(why, len, "cannot run '%s': %s", o->argv[0], strerror(-err));
		return repeat_exec_status(err);
	}
	snprintf(why, len, "%s: %s%s", stage_names[s->stage], strerror(-err), fix);
	return 1;
}

/* The one place a failed recording is told: the exit status to return. */
static int failed(struct session *s, int err)
{
	/* room for CMD's name, however long: the reason comes after it */
	size_t len = 1024 + (s->o->argv ? strlen(s->o->argv[0]) : 0);
	char *why = malloc(len);
	int status;

	if (!why) {
		fprintf(stderr, "kprotperf %s: %s\n", s->o->cmd, strerror(ENOMEM));
		return 1;
	}
	status = explain(s, err, why, len);
	fprintf(stderr, "kprotperf %s: %s\n", s->o->cmd, why);
	free(why);
	return status;
}

static void summary(struct session *s)
{
	unsigned int n = s->o->repeat;
	char runs[64] = "";

	if (n > 1 && s->complete == n)
		snprintf(runs, sizeof(runs), "%u runs, ", n);
	else if (n > 1)
		snprintf(runs, sizeof(runs), "%u of %u runs complete, ", s->complete, n);
	char syscalls[48] = "syscalls not traced";

	if (!s->o->no_syscalls)
		snprintf(syscalls, sizeof(syscalls), "%llu syscalls",
			 (unsigned long long)s->counts[KP_CNT_SYSCALLS]);
	fprintf(stderr,
		"kprotperf: wrote %s: %s%llu samples, %s, %llu page faults, %llu lost, "
		"%.2f s%s\n",
		s->o->output, runs, (unsigned long long)s->counts[KP_CNT_SAMPLES], syscalls,
		(unsigned long long)(s->counts[KP_CNT_FAULTS_USER] +
				     s->counts[KP_CNT_FAULTS_KERNEL]),
		(unsigned long long)events_lost(s), s->wall_ns / 1e9,
		s->end == END_INTERRUPTED ? " (interrupted)" : "");
}

static int exit_code(const struct session *s)
{
	int code = workload_exit_code(s->status);

	if (!s->o->argv || s->end == END_DURATION)
		return 0;
	/* a runs provider's commands fail as they may: only Ctrl-C says something */
	if (s->o->runs)
		return s->end == END_INTERRUPTED ? 130 : 0;
	/* interrupted after CMD exited well: between runs, or waiting for its children */
	return s->end == END_INTERRUPTED && !code ? 130 : code;
}

/* A failing run ends the repetition: say so, a crashing workload must not go unnoticed. */
static void report_failed_run(const struct session *s)
{
	unsigned int n = s->o->repeat;
	char how[256];

	if (n == 1 || s->run_end != RUN_FAILED || s->o->runs)
		return;
	if (s->exec_err)
		snprintf(how, sizeof(how), "cannot run '%.128s': %s", s->o->argv[0],
			 strerror(-s->exec_err));
	else if (WIFSIGNALED(s->status))
		snprintf(how, sizeof(how), "was killed by signal %d (%s)", WTERMSIG(s->status),
			 strsignal(WTERMSIG(s->status)));
	else
		snprintf(how, sizeof(how), "exited with status %d", WEXITSTATUS(s->status));
	fprintf(stderr, "kprotperf %s: run %u of %u %s%s (%u complete run%s kept)\n", s->o->cmd,
		s->run + 1, n, how, s->run + 1 < n ? "; stopped repeating" : "", s->complete,
		s->complete == 1 ? "" : "s");
}

/* --count's events and -e's: whether each can be opened here, before anything is made. */
static int probe_events(const struct record_opts *o, char *why, size_t len)
{
	unsigned int i;
	int err = 0;

	/* an event the programs' hooks count opens no perf event */
	for (i = 0; i < o->ncount && !err; i++)
		if (counting_source(&o->count[i]) == COUNT_SRC_PERF)
			err = pmu_event_probe(&o->count[i], "--count", 0, 0, why, len);
	/*
	 * -e or -c: sampled as the sampler will, so an event that only counts
	 * is refused here; the default, cpu-clock at -F, is opened as it always
	 * was (the launcher's first perf_event_open is its sampler's).
	 */
	if (err || (!o->period && !strcmp(o->sample_event.name, "cpu-clock")))
		return err;
	return pmu_event_probe(&o->sample_event, "-e", o->period, o->freq, why, len);
}

/*
 * GCC's randstruct plugin leaves the declared layout of the structures it
 * shuffles in the DWARF, and so in the BTF pahole makes from it (6.1 builds
 * the two together only under COMPILE_TEST): CO-RE would read task_struct's
 * tgid, stack and mm elsewhere, and every process look like none of the
 * workload's.  record --model attaches nothing and is not refused.
 */
static bool btf_misplaced(void)
{
	struct kv_list config = {};
	const char *v;
	bool bad;

	if (provenance_config(&config, NULL))
		return false;
	v = kv_get(&config, "CONFIG_GCC_PLUGIN_RANDSTRUCT");
	bad = v && !strcmp(v, "y");
	kv_list_free(&config);
	return bad;
}

static int record(struct session *s)
{
	char why[512] = "";
	uid_t uid;
	gid_t gid;
	int err;

	if (access("/sys/kernel/btf/vmlinux", R_OK)) {
		fprintf(stderr,
			"kprotperf %s: this kernel has no BTF (/sys/kernel/btf/vmlinux): "
			"kprotperf needs a kernel built with CONFIG_DEBUG_INFO_BTF=y\n",
			s->o->cmd);
		return 1;
	}
	if (btf_misplaced()) {
		fprintf(stderr,
			"kprotperf %s: this kernel was built by GCC's randstruct plugin, whose BTF "
			"keeps the declared layout of the structures it shuffles (task_struct): "
			"BPF would read the wrong fields; record --model only, or build it with "
			"clang's randstruct\n",
			s->o->cmd);
		return 1;
	}
	if (privileges_check(why, sizeof(why))) {
		fprintf(stderr, "kprotperf %s: %s\n", s->o->cmd, why);
		return 1;
	}
	/* the events, each opened on CPU 0: a refusal leaves no file behind */
	if (probe_events(s->o, why, sizeof(why))) {
		fprintf(stderr, "kprotperf %s: %s\n", s->o->cmd, why);
		return 1;
	}
	err = counting_new(&s->counting, s->o->count, s->o->ncount);
	if (err) {
		fprintf(stderr, "kprotperf %s: --count: %s\n", s->o->cmd, strerror(-err));
		return 1;
	}
	/* before anything runs: a recording must not be lost at the end for want of a path */
	if (datafile_check_target(s->o->output, why, sizeof(why)) < 0 && why[0]) {
		fprintf(stderr, "kprotperf %s: cannot write '%s': %s\n", s->o->cmd, s->o->output,
			why);
		return 1;
	}
	workload_user(&uid, &gid);
	err = datafile_create(&s->df, s->o->output, uid, why, sizeof(why));
	if (err && why[0]) {
		fprintf(stderr, "kprotperf %s: cannot write '%s': %s\n", s->o->cmd, s->o->output,
			why);
		return 1;
	}
	if (err) {
		fprintf(stderr,
			"kprotperf %s: cannot create '%s': %s: choose a writable path "
			"with -o\n",
			s->o->cmd, s->o->output, strerror(-err));
		return 1;
	}
	err = prepare(s) ?: go(s);
	if (err) {
		proctree_kill_rest(s);
		datafile_abort(s->df);
		return failed(s, err);
	}
	err = datafile_commit(s->df, uid == getuid() ? (uid_t)-1 : uid, gid, why, sizeof(why));
	if (err && why[0]) {
		fprintf(stderr, "kprotperf %s: %s\n", s->o->cmd, why);
		return 1;
	}
	/* the stage is still STAGE_WRITE */
	if (err)
		return failed(s, err);
	report_failed_run(s);
	if (!s->o->quiet)
		summary(s);
	return exit_code(s);
}

void record_opts_init(struct record_opts *o)
{
	*o = (struct record_opts){.cmd = "record",
				  .output = "kprotperf.data",
				  .freq = KP_DEFAULT_FREQ_HZ,
				  .max_stacks = 16384,
				  .max_tasks = 8192,
				  .ring_mib = 8,
				  .blocks.limit = BLOCKS_LIMIT_DEFAULT};
	char why[256];

	/* a built-in name: no sysfs read */
	pmu_event_parse("cpu-clock", "-e", &o->sample_event, why, sizeof(why));
}

/*
 * The signals that end a recording, blocked to be read from a signalfd.  A
 * shell starts a script's background command with SIGINT ignored, which
 * would discard it: like perf record, kprotperf takes SIGINT and SIGTERM
 * back (kill -INT stops a recording made with &); an ignored SIGHUP
 * (nohup) stays ignored.
 */
static void take_signals(sigset_t *set)
{
	sigemptyset(set);
	sigaddset(set, SIGINT);
	sigaddset(set, SIGTERM);
	sigaddset(set, SIGHUP);
	sigprocmask(SIG_BLOCK, set, NULL);
	signal(SIGINT, SIG_DFL);
	signal(SIGTERM, SIG_DFL);
}

int record_run(const struct record_opts *o)
{
	struct session s = {.o = o,
			    .argv = o->argv,
			    .sigfd = -1,
			    .pidfd = -1,
			    .epfd = -1,
			    .wl = {.pid = -1, .go_fd = -1, .err_fd = -1}};
	int ret;

	take_signals(&s.sigs);
	s.sigfd = signalfd(-1, &s.sigs, SFD_CLOEXEC);
	ret = record(&s);
	sampler_detach(&s.sampler);
	funcs_free(s.funcs);
	blocks_free(s.blocks);
	ksyms_free(s.probed_ks);
	ksyms_free(s.ks);
	collect_deltas_free(s.deltas);
	counting_free(s.counting);
	measures_free(s.measures);
	record_bpf__destroy(s.skel);
	stackstore_free(s.stacks);
	ustack_dwarf_free(s.dwarf);
	procs_free(s.procs);
	workload_close(&s.wl);
	if (s.epfd >= 0)
		close(s.epfd);
	if (s.pidfd >= 0)
		close(s.pidfd);
	if (s.sigfd >= 0)
		close(s.sigfd);
	return ret;
}
