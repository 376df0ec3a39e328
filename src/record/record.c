// SPDX-License-Identifier: GPL-2.0-only
/*
 * kprotperf record: start the command stopped, attach the BPF programs, let
 * it run, and save syscall latencies, page faults and stack samples of its
 * whole process tree into the data file.
 */
#include <dirent.h>
#include <errno.h>
#include <getopt.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <poll.h>
#include <sys/epoll.h>
#include <sys/signalfd.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>
#include <bpf/libbpf.h>

#include "record/collect.h"
#include "data/datafile.h"
#include "record/funcs.h"
#include "kprotperf.h"
#include "symbols/ksyms.h"
#include "record/procs.h"
#include "data/provenance.h"
#include "record/record.h"
#include "record.skel.h"
#include "record/sampler.h"
#include "util/syscalls.h"
#include "record/workload.h"

enum end_reason { END_EXITED, END_INTERRUPTED, END_DURATION };
/* How one run ended (the runs table); failed: CMD exited non-zero or was killed. */
enum run_end { RUN_EXITED, RUN_INTERRUPTED, RUN_FAILED, RUN_DURATION };

/*
 * Processes a run left running this long after its CMD exited are killed
 * before the next run starts: their work would count in it.
 */
#define STRAGGLER_GRACE_NS 1000000000ULL

struct session {
	const struct record_opts *o;
	struct record_bpf *skel;
	struct sampler sampler;
	struct funcs *funcs;
	struct ksyms *ks; /* /proc/kallsyms, read once: --func matching, then stacks */
	/*
	 * kallsyms again once fentry probes are attached, for stacks: it has the
	 * BPF trampolines' symbols, which go away when the probes are detached.
	 */
	struct ksyms *probed_ks;
	char why[512]; /* what --func needs, when it cannot probe */
	struct procs *procs;
	struct workload wl;
	struct df *df;
	sigset_t sigs;
	int sigfd, pidfd, epfd;
	pid_t target;
	int status;   /* wait status of the command */
	int exec_err; /* why CMD could not exec in a later run */
	enum end_reason end;
	struct timespec t0;
	__u64 wall_ns;
	__u64 counts[KP_CNT_MAX];
	struct run_deltas *deltas;
	unsigned int run;      /* the run under way or last run, from 0 */
	unsigned int complete; /* runs that ended as exited */
	enum run_end run_end;
	__u64 run_start, run_wall_ns;
	bool line_open; /* the progress line awaits its newline */
};

static __u64 now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec * 1000000000ULL + ts.tv_nsec;
}

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
	err = bpf_map__set_max_entries(skel->maps.stacks, o->max_stacks);
	err = err ?: bpf_map__set_max_entries(skel->maps.samples, o->max_stacks);
	err = err ?: bpf_map__set_max_entries(skel->maps.tree, o->max_tasks);
	err = err ?: bpf_map__set_max_entries(skel->maps.threads, o->max_tasks);
	err = err ?: record_bpf__load(skel);
	if (err) {
		record_bpf__destroy(skel);
		return err;
	}
	s->skel = skel;
	return 0;
}

static int add_to_tree(struct session *s, pid_t pid)
{
	__u32 key = pid;
	__u8 one = 1;

	return bpf_map__update_elem(s->skel->maps.tree, &key, sizeof(key), &one, sizeof(one),
				    BPF_ANY);
}

static int pidfd_of(pid_t pid)
{
	int fd = syscall(SYS_pidfd_open, pid, 0);

	return fd < 0 ? -errno : fd;
}

static int snapshot_all(struct procs *procs)
{
	struct dirent **ents;
	int n, i;

	n = scandir("/proc", &ents, NULL, NULL);
	if (n < 0)
		return -errno;
	for (i = 0; i < n; i++) {
		pid_t pid = atoi(ents[i]->d_name);

		/* processes may exit while we look: that is not an error */
		if (pid > 0)
			procs_snapshot(procs, pid);
		free(ents[i]);
	}
	free(ents);
	return 0;
}

/* Watch pid's exit and trace its tree; running: it has mappings to read already. */
static int follow_target(struct session *s, pid_t pid, bool running)
{
	int err;

	s->target = pid;
	s->pidfd = pidfd_of(pid);
	if (s->pidfd < 0)
		return s->pidfd;
	if (s->o->system_wide)
		return 0;
	err = procs_follow(s->procs, pid);
	err = err ?: running ? procs_snapshot(s->procs, pid) : 0;
	return err ?: add_to_tree(s, pid);
}

/* A fresh CMD, stopped before exec until its pid is in the traced tree. */
static int start_command(struct session *s)
{
	int err = workload_start(&s->wl, s->o->argv, &s->sigs);

	return err ?: follow_target(s, s->wl.pid, false);
}

/*
 * Start the command stopped, or take the running process, and follow its tree.
 * Side-band events are opened before /proc is read, so a process forked in
 * between is seen by one or the other.
 */
static int start_target(struct session *s)
{
	const struct record_opts *o = s->o;
	int err;

	if (o->system_wide) {
		err = procs_follow(s->procs, -1);
		err = err ?: snapshot_all(s->procs);
		if (err)
			return err;
	}
	if (o->argv)
		return start_command(s);
	return o->pid > 0 ? follow_target(s, o->pid, true) : 0;
}

enum { SRC_SIGNAL, SRC_TARGET, SRC_PROCS };

static int watch(int epfd, int fd, __u32 tag)
{
	struct epoll_event ev = {.events = EPOLLIN, .data.u32 = tag};

	return fd < 0 || !epoll_ctl(epfd, EPOLL_CTL_ADD, fd, &ev) ? 0 : -errno;
}

static int setup_events(struct session *s)
{
	int err;

	s->epfd = epoll_create1(EPOLL_CLOEXEC);
	if (s->epfd < 0)
		return -errno;
	err = watch(s->epfd, s->sigfd, SRC_SIGNAL);
	err = err ?: watch(s->epfd, s->pidfd, SRC_TARGET);
	return err ?: watch(s->epfd, procs_fd(s->procs), SRC_PROCS);
}

static __u64 lost_total(struct session *s)
{
	__u64 n = procs_lost(s->procs);
	int i;

	for (i = KP_CNT_LOST_KSTACK; i < KP_CNT_MAX; i++)
		n += s->counts[i];
	return n;
}

static void progress(struct session *s, __u64 now)
{
	char run[48] = "";

	if (s->o->repeat > 1)
		snprintf(run, sizeof(run), "run %u of %u, ", s->run + 1, s->o->repeat);
	collect_counters(bpf_map__fd(s->skel->maps.counters), s->counts);
	fprintf(stderr, "\rkprotperf: %s%.1f s, %llu samples, %llu syscalls, %llu lost ", run,
		(now - s->wall_ns) / 1e9, (unsigned long long)s->counts[KP_CNT_SAMPLES],
		(unsigned long long)s->counts[KP_CNT_SYSCALLS], (unsigned long long)lost_total(s));
	s->line_open = true;
}

static void end_line(struct session *s)
{
	if (s->line_open)
		fputc('\n', stderr);
	s->line_open = false;
}

static int drain_procs(struct session *s)
{
	int n = procs_drain(s->procs);

	return n < 0 ? n : 0;
}

/* One event from epoll; returns 1 when recording should stop. */
static int handle(struct session *s, __u32 tag)
{
	struct signalfd_siginfo si;

	switch (tag) {
	case SRC_SIGNAL:
		if (read(s->sigfd, &si, sizeof(si)) != sizeof(si))
			return -errno;
		s->end = END_INTERRUPTED;
		return 1;
	case SRC_TARGET:
		s->end = END_EXITED;
		return 1;
	default:
		return drain_procs(s);
	}
}

static int run(struct session *s)
{
	const struct record_opts *o = s->o;
	__u64 start = s->wall_ns, now = now_ns(), tick = now + 1000000000ULL, until;
	__u64 deadline = o->duration > 0 ? start + (__u64)(o->duration * 1e9) : 0;
	bool show = !o->quiet && isatty(STDERR_FILENO);
	struct epoll_event ev[4];
	int n, i, r;

	for (;;) {
		now = now_ns();
		until = deadline && deadline < tick ? deadline : tick;
		n = epoll_wait(s->epfd, ev, 4, until > now ? (until - now) / 1000000 + 1 : 0);
		if (n < 0 && errno != EINTR)
			return -errno;
		for (i = 0; i < n; i++) {
			r = handle(s, ev[i].data.u32);
			if (r)
				return r < 0 ? r : 0;
		}
		now = now_ns();
		if (deadline && now >= deadline) {
			s->end = END_DURATION;
			return 0;
		}
		if (now >= tick) {
			if (show)
				progress(s, now);
			tick += 1000000000ULL;
		}
	}
}

/*
 * The command we started must not outlive the recording.  One that exited
 * was reaped already: this one still runs, or never got to exec (as when
 * setting up a later run failed).
 */
static void reap_workload(struct session *s)
{
	struct pollfd exited = {.fd = s->pidfd, .events = POLLIN};

	if (!s->o->argv || s->wl.pid <= 0)
		return;
	/* give it 5 s to exit on SIGTERM, which blocks until exec */
	if (!workload_released(&s->wl) ||
	    (!kill(s->wl.pid, SIGTERM) && poll(&exited, 1, 5000) != 1))
		kill(s->wl.pid, SIGKILL);
	waitpid(s->wl.pid, &s->status, 0);
	s->wl.pid = -1;
}

static int put_kvs(struct df *df, const char *sql, const struct kv_list *l)
{
	size_t i;
	int err = 0;

	for (i = 0; i < l->n && !err; i++)
		err = df_insert(df, sql, "tt", l->v[i].key, l->v[i].value);
	return err;
}

/* The command line as one shell-quoted string. */
static int command_line(struct kv_list *meta, char *const argv[])
{
	char *buf = NULL, *q;
	size_t len = 0;
	FILE *f = open_memstream(&buf, &len);
	int i, err;

	if (!f)
		return -errno;
	for (i = 0; argv[i]; i++) {
		if (i)
			fputc(' ', f);
		if (argv[i][strcspn(argv[i], " \t\n'\"\\$`*?;&|<>()")] || !argv[i][0]) {
			fputc('\'', f);
			for (q = argv[i]; *q; q++) {
				if (*q == '\'')
					fputs("'\\''", f);
				else
					fputc(*q, f);
			}
			fputc('\'', f);
		} else {
			fputs(argv[i], f);
		}
	}
	fclose(f);
	err = kv_add(meta, "record.command", "%s", buf);
	free(buf);
	return err;
}

static const char *const end_names[] = {"exited", "interrupted", "duration"};

static int record_meta(struct session *s, struct kv_list *meta, const struct ksyms *ks)
{
	const struct record_opts *o = s->o;
	const struct ksym *stext = ks ? ksyms_by_name(ks, "_stext") : NULL;
	char when[64];
	struct tm tm;
	int err;

	strftime(when, sizeof(when), "%Y-%m-%dT%H:%M:%SZ", gmtime_r(&s->t0.tv_sec, &tm));
	err = kv_add(meta, "tool.version", "%s", KPROTPERF_VERSION);
	err = err
		      ?: kv_add(meta, "record.mode", "%s",
				o->argv	     ? "command"
				: o->pid > 0 ? "pid"
					     : "system");
	err = err ?: kv_add(meta, "record.system_wide", "%d", o->system_wide);
	err = err ?: kv_add(meta, "record.start_time", "%s", when);
	err = err ?: kv_add(meta, "record.wall_ns", "%llu", (unsigned long long)s->wall_ns);
	err = err ?: kv_add(meta, "record.end", "%s", end_names[s->end]);
	err = err ?: kv_add(meta, "record.pid", "%d", s->target);
	err = err ?: kv_add(meta, "record.repeat", "%u", o->repeat);
	err = err ?: kv_add(meta, "sampling.event", "cpu-clock");
	err = err ?: kv_add(meta, "sampling.freq_hz", "%u", o->freq);
	err = err ?: kv_add(meta, "sampling.max_stacks", "%u", o->max_stacks);
	if (!err && stext)
		err = kv_add(meta, "kernel.stext", "0x%llx", (unsigned long long)stext->addr);
	if (!err && o->argv) {
		err = command_line(meta, o->argv);
		err = err ?: kv_add(meta, "record.exit_code", "%d", workload_exit_code(s->status));
	}
	return err;
}

static int put_task(const struct proc_task *t, void *df)
{
	return df_insert(df, "INSERT INTO tasks VALUES(?,?,?,?)", "iiti", (long long)t->pid,
			 (long long)t->ppid, t->comm, (long long)t->exited);
}

static int put_map(const struct proc_map *m, void *df)
{
	return df_insert(df, "INSERT INTO maps VALUES(?,?,?,?,?,?)", "iiiitt", (long long)m->pid,
			 (long long)m->start, (long long)m->end, (long long)m->pgoff, m->path,
			 m->build_id);
}

static int write_provenance(struct df *df)
{
	struct kv_list meta = {}, config = {}, vulns = {};
	int err;

	err = provenance_kernel(&meta);
	if (!err && provenance_config(&config, NULL) == -ENOENT)
		err = kv_add(&meta, "kernel.config", "unavailable");
	if (!err && provenance_vulns(&vulns, NULL) == -ENOENT)
		err = kv_add(&meta, "cpu.vulnerabilities", "unavailable");
	err = err ?: put_kvs(df, "INSERT INTO meta VALUES(?,?)", &meta);
	err = err ?: put_kvs(df, "INSERT INTO config VALUES(?,?)", &config);
	err = err ?: put_kvs(df, "INSERT INTO vulnerabilities VALUES(?,?)", &vulns);
	kv_list_free(&vulns);
	kv_list_free(&config);
	kv_list_free(&meta);
	return err;
}

static int write_samples(struct session *s)
{
	struct kv_list meta = {};
	struct ksyms *ks;
	int err;

	/* without kallsyms the raw addresses are still saved */
	if (!s->ks)
		ksyms_load(&s->ks, NULL);
	ks = s->probed_ks ?: s->ks;
	err = collect_samples(s->df, bpf_map__fd(s->skel->maps.samples),
			      bpf_map__fd(s->skel->maps.stacks), s->procs, ks, s->deltas, s->run);
	err = err ?: funcs_collect(s->funcs, s->df, ks);
	err = err ?: record_meta(s, &meta, ks);
	err = err ?: put_kvs(s->df, "INSERT INTO meta VALUES(?,?)", &meta);
	kv_list_free(&meta);
	return err;
}

static int write_data(struct session *s)
{
	struct df *df = s->df;
	int err;

	collect_counters(bpf_map__fd(s->skel->maps.counters), s->counts);
	if (!s->counts[KP_CNT_SAMPLES] && !s->counts[KP_CNT_SYSCALLS])
		return -ENODATA;
	err = write_provenance(df);
	err = err ?: collect_write_counters(df, s->counts);
	err = err
		      ?: df_insert(df, "INSERT INTO counters VALUES(?,?)", "ti",
				   "lost_sideband_records", (long long)procs_lost(s->procs));
	err = err
		      ?: collect_run_latency(s->deltas, df, s->run, "syscall",
					     bpf_map__fd(s->skel->maps.syscall_lat),
					     KP_MAX_SYSCALLS, syscall_name, NULL);
	err = err ?: write_samples(s);
	err = err ?: procs_for_each_task(s->procs, put_task, df);
	return err ?: procs_for_each_map(s->procs, put_map, df);
}


/* Everything until the target runs: fails before CMD has run a single instruction. */
static int prepare(struct session *s, const char **what)
{
	int err;

	*what = "loading BPF programs";
	err = load_bpf(s);
	if (err)
		return err;
	*what = "following processes";
	err = procs_new(&s->procs);
	err = err ?: run_deltas_new(&s->deltas);
	if (err)
		return err;
	*what = "starting the target";
	err = start_target(s);
	if (err)
		return err;
	*what = "watching events";
	err = setup_events(s);
	if (err)
		return err;
	*what = "attaching tracepoints";
	err = record_bpf__attach(s->skel);
	if (err)
		return err;
	*what = "opening CPU-clock sampling events";
	err = sampler_attach(&s->sampler, s->skel->progs.kp_sample, s->o->freq);
	if (err || !s->o->func.n)
		return err;
	*what = "reading /proc/kallsyms";
	err = ksyms_load(&s->ks, NULL);
	if (err)
		return err;
	*what = "--func";
	err = funcs_attach(&s->funcs, &s->o->func, s->ks, s->skel, s->why, sizeof(s->why));
	if (!err && s->why[0] && !s->o->quiet)
		fprintf(stderr, "kprotperf record: %s\n", s->why);
	/* without it, trampoline frames are only named after whatever precedes them */
	if (!err && funcs_uses_fentry(s->funcs))
		ksyms_load(&s->probed_ks, NULL);
	return err;
}

static bool signal_waiting(const struct session *s)
{
	struct pollfd p = {.fd = s->sigfd, .events = POLLIN};

	return poll(&p, 1, 0) == 1;
}

/* The command's exit, seen on its pidfd: reap it now, for its status. */
static void command_exited(struct session *s)
{
	waitpid(s->wl.pid, &s->status, 0);
	s->wl.pid = -1;
	/* a reaped process's pidfd stays readable: stop watching it */
	close(s->pidfd);
	s->pidfd = -1;
	/* Ctrl-C reaches the command too: it may have died of it first */
	if (signal_waiting(s))
		s->end = END_INTERRUPTED;
}

/* CMD's status when it cannot exec, as a shell has it. */
static int exec_status(int err)
{
	return err == -ENOENT ? 127 : 126;
}

/*
 * CMD cannot exec in a later run (say, a script that removed itself): the
 * run fails as it would in a shell, and the runs before it are kept.
 */
static void exec_failed(struct session *s, int err)
{
	s->exec_err = err;
	s->status = W_EXITCODE(exec_status(err), 0);
	s->end = END_EXITED;
}

static enum run_end run_end_of(const struct session *s)
{
	if (s->end == END_INTERRUPTED)
		return RUN_INTERRUPTED;
	if (s->end == END_DURATION)
		return RUN_DURATION;
	return s->o->argv && workload_exit_code(s->status) ? RUN_FAILED : RUN_EXITED;
}

/* Let the command go and follow it until it exits, a signal comes or time is up. */
static int one_run(struct session *s, const char **what)
{
	int err = 0;

	s->run_start = now_ns();
	if (s->o->argv) {
		*what = "running the command";
		err = workload_go(&s->wl);
	}
	if (!err) {
		*what = "recording";
		err = run(s);
	} else if (s->run) {
		exec_failed(s, err);
		err = 0;
	}
	s->run_wall_ns = now_ns() - s->run_start;
	if (err)
		return err;
	/* not when exec failed: workload_go reaped it then */
	if (s->end == END_EXITED && s->wl.pid > 0)
		command_exited(s);
	s->run_end = run_end_of(s);
	return 0;
}

/* SIGKILL to every process of the tree; entries whose exit was missed are dropped. */
static int kill_tree(struct session *s)
{
	int fd = bpf_map__fd(s->skel->maps.tree), killed = 0, err;
	__u32 *pids;
	__u8 *vals;
	size_t n, i;

	err = collect_dump(fd, sizeof(*pids), sizeof(*vals), (void **)&pids, (void **)&vals, &n);
	if (err)
		return err;
	for (i = 0; i < n; i++) {
		if (!kill(pids[i], SIGKILL))
			killed++;
		else if (errno == ESRCH)
			bpf_map__delete_elem(s->skel->maps.tree, &pids[i], sizeof(pids[i]), 0);
	}
	free(pids);
	free(vals);
	return killed;
}

static bool tree_empty(const struct session *s)
{
	__u32 pid;

	return bpf_map__get_next_key(s->skel->maps.tree, NULL, &pid, sizeof(pid)) != 0;
}

static void note_killed(struct session *s, int n)
{
	end_line(s);
	fprintf(stderr,
		"kprotperf record: run %u of %u left %d process%s running %.0f s after CMD "
		"exited: killed, so that %s cannot count in the next run\n",
		s->run + 1, s->o->repeat, n, n == 1 ? "" : "es", STRAGGLER_GRACE_NS / 1e9,
		n == 1 ? "it" : "they");
}

/*
 * Before the next run: every process this run started must have exited, so
 * that nothing of it leaks into the next one.  Only the traced tree is
 * waited for: system-wide (-a), a run simply ends with its CMD.
 */
static int wait_tree(struct session *s)
{
	__u64 kill_at = now_ns() + STRAGGLER_GRACE_NS;
	struct epoll_event ev[4];
	int n, i, r, killed = 0;

	while (!s->o->system_wide && !tree_empty(s)) {
		if (now_ns() >= kill_at) {
			/* again each round: a dying process may still have forked */
			n = kill_tree(s);
			if (n < 0)
				return n;
			if (n && !killed++)
				note_killed(s, n);
		}
		n = epoll_wait(s->epfd, ev, 4, 10);
		if (n < 0 && errno != EINTR)
			return -errno;
		for (i = 0; i < n; i++) {
			r = handle(s, ev[i].data.u32);
			if (r < 0)
				return r;
			if (r) {
				s->run_end = RUN_INTERRUPTED;
				return 0;
			}
		}
	}
	return 0;
}

static const char *const run_end_names[] = {"exited", "interrupted", "failed", "duration"};

/*
 * The run's row, and what it added to the func map (funcs_collect reads that
 * map on its own): all the run did has happened by now.
 */
static int put_run(struct session *s)
{
	const char *end = run_end_names[s->run_end];
	int err = 0;

	if (funcs_lat_fd(s->funcs) >= 0)
		err = collect_run_latency(s->deltas, s->df, s->run, "func", funcs_lat_fd(s->funcs),
					  funcs_count(s->funcs), NULL, NULL);
	if (!err && s->o->argv)
		err = df_insert(s->df, "INSERT INTO runs VALUES(?,?,?,?)", "iiit",
				(long long)s->run, (long long)s->run_wall_ns,
				(long long)workload_exit_code(s->status), end);
	else if (!err)
		err = df_insert(s->df, "INSERT INTO runs VALUES(?,?,NULL,?)", "iit",
				(long long)s->run, (long long)s->run_wall_ns, end);
	if (!err)
		s->complete += s->run_end == RUN_EXITED;
	return err;
}

/* A run before the last: what it added to the syscall and samples maps, and its row. */
static int end_run(struct session *s)
{
	int err;

	err = collect_run_latency(s->deltas, s->df, s->run, "syscall",
				  bpf_map__fd(s->skel->maps.syscall_lat), KP_MAX_SYSCALLS, NULL,
				  NULL);
	err = err ?: collect_run_samples(s->deltas, bpf_map__fd(s->skel->maps.samples), s->run);
	return err ?: put_run(s);
}

static bool another_run(const struct session *s)
{
	return s->run_end == RUN_EXITED && s->run + 1 < s->o->repeat;
}

/* Close the run that ended well, and start the next one, unless a signal came. */
static int next_run(struct session *s, const char **what)
{
	int err;

	*what = "waiting for the run's processes";
	err = wait_tree(s);
	if (err || s->run_end != RUN_EXITED)
		return err;
	/* a signal now ends the recording with this run, complete */
	if (signal_waiting(s)) {
		s->end = END_INTERRUPTED;
		return 0;
	}
	err = drain_procs(s);
	*what = "saving the run";
	err = err ?: end_run(s);
	if (err)
		return err;
	s->run++;
	*what = "starting the command";
	workload_close(&s->wl);
	err = start_command(s);
	return err ?: watch(s->epfd, s->pidfd, SRC_TARGET);
}

static int go(struct session *s, const char **what)
{
	int err;

	clock_gettime(CLOCK_REALTIME, &s->t0);
	s->wall_ns = now_ns();
	for (;;) {
		err = one_run(s, what);
		if (err || !another_run(s))
			break;
		err = next_run(s, what);
		if (err || s->end == END_INTERRUPTED)
			break;
	}
	s->wall_ns = now_ns() - s->wall_ns;
	end_line(s);
	sampler_detach(&s->sampler);
	funcs_detach(s->funcs);
	record_bpf__detach(s->skel);
	reap_workload(s);
	err = err ?: drain_procs(s);
	if (err)
		return err;
	*what = "writing the data file";
	/* the last run's share of the syscall and samples maps is read with their totals */
	return put_run(s) ?: write_data(s);
}

static int explain(const struct session *s, const char *what, int err)
{
	const struct record_opts *o = s->o;
	const char *fix = "";

	if (err == -ENODATA) {
		fprintf(stderr, "kprotperf record: nothing was recorded (no samples, no syscalls); "
				"no data file written\n");
		return 1;
	}
	if (err == -EPERM || err == -EACCES)
		fix = ": run as root (or with CAP_BPF and CAP_PERFMON)";
	else if (err == -ENOSPC || err == -EDQUOT)
		fix = ": free space or write elsewhere with -o (nothing was written)";
	if (o->pid && (err == -ESRCH || err == -ENOENT) && !strcmp(what, "starting the target")) {
		fprintf(stderr, "kprotperf record: no process with pid %d\n", o->pid);
		return 1;
	}
	if (!strcmp(what, "--func")) {
		fprintf(stderr, "kprotperf record: --func: %s\n",
			s->why[0] ? s->why : strerror(-err));
		return 1;
	}
	if (o->argv && !strcmp(what, "running the command")) {
		fprintf(stderr, "kprotperf record: cannot run '%s': %s\n", o->argv[0],
			strerror(-err));
		return exec_status(err);
	}
	fprintf(stderr, "kprotperf record: %s: %s%s\n", what, strerror(-err), fix);
	return 1;
}

static void summary(struct session *s)
{
	unsigned int n = s->o->repeat;
	char runs[64] = "";

	if (n > 1 && s->complete == n)
		snprintf(runs, sizeof(runs), "%u runs, ", n);
	else if (n > 1)
		snprintf(runs, sizeof(runs), "%u of %u runs complete, ", s->complete, n);
	fprintf(stderr,
		"kprotperf: wrote %s: %s%llu samples, %llu syscalls, %llu page faults, %llu lost, "
		"%.2f s%s\n",
		s->o->output, runs, (unsigned long long)s->counts[KP_CNT_SAMPLES],
		(unsigned long long)s->counts[KP_CNT_SYSCALLS],
		(unsigned long long)(s->counts[KP_CNT_FAULTS_USER] +
				     s->counts[KP_CNT_FAULTS_KERNEL]),
		(unsigned long long)lost_total(s), s->wall_ns / 1e9,
		s->end == END_INTERRUPTED ? " (interrupted)" : "");
}

static int exit_code(const struct session *s)
{
	int code = workload_exit_code(s->status);

	if (!s->o->argv || s->end == END_DURATION)
		return 0;
	/* interrupted after CMD exited well: between runs, or waiting for its children */
	return s->end == END_INTERRUPTED && !code ? 130 : code;
}

/* A failing run ends the repetition: say so, a crashing workload must not go unnoticed. */
static void report_failed_run(const struct session *s)
{
	unsigned int n = s->o->repeat;
	char how[256];

	if (n == 1 || s->run_end != RUN_FAILED)
		return;
	if (s->exec_err)
		snprintf(how, sizeof(how), "cannot run '%.128s': %s", s->o->argv[0],
			 strerror(-s->exec_err));
	else if (WIFSIGNALED(s->status))
		snprintf(how, sizeof(how), "was killed by signal %d (%s)", WTERMSIG(s->status),
			 strsignal(WTERMSIG(s->status)));
	else
		snprintf(how, sizeof(how), "exited with status %d", WEXITSTATUS(s->status));
	fprintf(stderr, "kprotperf record: run %u of %u %s%s (%u complete run%s kept)\n",
		s->run + 1, n, how, s->run + 1 < n ? "; stopped repeating" : "", s->complete,
		s->complete == 1 ? "" : "s");
}

static int record(struct session *s)
{
	const char *what = "creating the data file";
	uid_t uid;
	gid_t gid;
	int err;

	if (access("/sys/kernel/btf/vmlinux", R_OK)) {
		fprintf(stderr,
			"kprotperf record: this kernel has no BTF (/sys/kernel/btf/vmlinux): "
			"kprotperf needs a kernel built with CONFIG_DEBUG_INFO_BTF=y\n");
		return 1;
	}
	err = df_create(&s->df, s->o->output);
	if (err) {
		fprintf(stderr,
			"kprotperf record: cannot create '%s': %s: choose a writable path "
			"with -o\n",
			s->o->output, strerror(-err));
		return 1;
	}
	err = prepare(s, &what) ?: go(s, &what);
	if (err) {
		df_abort(s->df);
		return explain(s, what, err);
	}
	workload_user(&uid, &gid);
	err = df_commit(s->df, uid == getuid() ? (uid_t)-1 : uid, gid);
	if (err)
		return explain(s, "writing the data file", err);
	report_failed_run(s);
	if (!s->o->quiet)
		summary(s);
	return exit_code(s);
}

int record_run(const struct record_opts *o)
{
	struct session s = {.o = o,
			    .sigfd = -1,
			    .pidfd = -1,
			    .epfd = -1,
			    .wl = {.pid = -1, .go_fd = -1, .err_fd = -1}};
	int ret;

	sigemptyset(&s.sigs);
	sigaddset(&s.sigs, SIGINT);
	sigaddset(&s.sigs, SIGTERM);
	sigaddset(&s.sigs, SIGHUP);
	sigprocmask(SIG_BLOCK, &s.sigs, NULL);
	s.sigfd = signalfd(-1, &s.sigs, SFD_CLOEXEC);
	ret = record(&s);
	sampler_detach(&s.sampler);
	funcs_free(s.funcs);
	ksyms_free(s.probed_ks);
	ksyms_free(s.ks);
	run_deltas_free(s.deltas);
	record_bpf__destroy(s.skel);
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
