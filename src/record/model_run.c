// SPDX-License-Identifier: GPL-2.0-only
/*
 * kprotperf record --model: CMD run between the start and stop markers of
 * kprotperf's machine model (plugin/kp_model.c, a QEMU TCG plugin), with no
 * BPF program and no probe, so that the model counts the workload and the
 * kernel unperturbed.  The recording holds what the counts need to be read:
 * the provenance (which kernel build ran), every kernel text symbol (pruned
 * by inject), the executable mappings of every exec of the workload's
 * process tree (one system-wide perf side-band event, of which the records
 * of other processes are dropped: a fork then costs the kernel a record
 * written, not an inherited event made and freed, docs/model.md) and the
 * function symbols of the files mapped, at their run-time addresses.  The
 * counts come later: QEMU writes them at its exit, and `kprotperf inject
 * --model` (which scripts/vm-run.sh --model calls) merges them.
 *
 * The window is as tight as the markers can make it.  The child executes
 * the hint marker (the guest's PTI and PCID) and the start marker right
 * before its exec; the parent releases the child and
 * waits for it in two system calls back to back and executes the stop
 * marker right after the wait returns, so that of kprotperf's own user code
 * only a few instructions around the markers are counted.
 */
#include "record/model_run.h"

#include <errno.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include <sys/syscall.h>
#include <sys/wait.h>

#include "data/datafile.h"
#include "data/model.h"
#include "data/recording.h"
#include "model_marker.h"
#include "record/procs.h"
#include "record/record.h"
#include "record/session.h"
#include "record/workload.h"
#include "symbols/elfsym.h"
#include "symbols/ksyms.h"
#include "util/kv.h"

struct model_session {
	const struct record_opts *o;
	struct datafile *df;
	struct ksyms *ks;
	struct procs *procs;
	struct workload wl;
	unsigned int runs;
	int status, exec_err;
	__u64 run_ns, wall_ns; /* the last run's, all runs' */
	struct timespec t0;
};

/* in the child, right before its exec: the guest's hint, then the start marker */
static void model_open_window(void)
{
	model_marker_hint_guest();
	model_marker_start();
}

#ifdef __x86_64__
/* write(go, "g", 1), wait4(pid, status, 0, NULL), the stop marker: the wait's result */
static long release_and_wait(int go, pid_t pid, int *status)
{
	static const char g = 'g';
	long nr = __NR_write, a1 = go, a3 = 1;
	const char *a2 = &g;

	asm volatile("syscall\n\t"
		     "movl %[nr_wait4], %%eax\n\t"
		     "movl %[pid], %%edi\n\t"
		     "movq %[status], %%rsi\n\t"
		     "xorl %%edx, %%edx\n\t"
		     "xorl %%r10d, %%r10d\n\t"
		     "syscall\n\t" MODEL_MARKER_STOP
		     : "+a"(nr), "+D"(a1), "+S"(a2), "+d"(a3)
		     : [nr_wait4] "i"(__NR_wait4), [pid] "m"(pid), [status] "m"(status)
		     : "rcx", "r10", "r11", "memory");
	return nr;
}
#endif

static __u64 now_ns(void)
{
	struct timespec t;

	clock_gettime(CLOCK_MONOTONIC, &t);
	return t.tv_sec * 1000000000ULL + t.tv_nsec;
}

/* One run of CMD in a window of its own: 0, or -errno. */
static int one_run(struct model_session *m, const sigset_t *blocked)
{
	__u64 t;
	long ret;
	int err;

	err = workload_start_with(&m->wl, m->o->argv, blocked, model_open_window);
	err = err ?: procs_follow_tree(m->procs, m->wl.pid);
	if (err)
		return err;
	/* the parent's alone: a reader gone is the child's death, which wait4 tells */
	signal(SIGPIPE, SIG_IGN);
	t = now_ns();
	ret = release_and_wait(m->wl.go_fd, m->wl.pid, &m->status);
	m->run_ns = now_ns() - t;
	m->wall_ns += m->run_ns;
	signal(SIGPIPE, SIG_DFL);
	close(m->wl.go_fd);
	m->wl.go_fd = -1;
	if (ret < 0)
		return ret;
	m->wl.pid = -1;
	m->exec_err = workload_exec_error(&m->wl);
	workload_close(&m->wl);
	err = procs_drain(m->procs);
	return err < 0 ? err : 0;
}

struct usym_ctx {
	struct datafile *df;
	const struct proc_map *map;
	const struct elfsym *elf;
};

/* A function symbol of a mapped file at its run-time address, if this mapping holds it. */
static int put_usym(const char *name, __u64 vaddr, __u64 size, void *ctx)
{
	struct usym_ctx *c = ctx;
	const struct proc_map *m = c->map;
	__u64 off;

	if (!size || !elfsym_offset(c->elf, vaddr, &off) || off < m->pgoff ||
	    off - m->pgoff >= m->end - m->start)
		return 0;
	return model_put_usym(c->df, m->start + (off - m->pgoff), size, name, m->path);
}

static int map_usyms(const struct proc_map *m, void *df)
{
	struct usym_ctx c = {df, m, NULL};
	struct elfsym *elf;
	int err;

	if (!m->path || m->path[0] != '/')
		return 0;
	/* a file it cannot read leaves its PCs unnamed, as a sample's would be */
	if (elfsym_open(m->path, m->build_id, NULL, &elf))
		return 0;
	c.elf = elf;
	err = elfsym_each(elf, put_usym, &c);
	elfsym_free(elf);
	return err;
}

static int put_ksyms(struct model_session *m)
{
	const struct ksym *k;
	size_t i;
	int err = 0;

	for (i = 0; (k = ksyms_at(m->ks, i)) && !err; i++)
		err = recording_put_ksym(m->df, k->addr, k->name, k->module);
	return err;
}

static int model_meta(struct model_session *m)
{
	const struct ksym *stext = ksyms_by_name(m->ks, "_stext");
	struct kv_list meta = {};
	char when[64];
	struct tm tm;
	int err;

	strftime(when, sizeof(when), "%Y-%m-%dT%H:%M:%SZ", gmtime_r(&m->t0.tv_sec, &tm));
	err = kv_add(&meta, "tool.version", "%s", KPROTPERF_VERSION);
	err = err ?: kv_add(&meta, "record.mode", "command");
	err = err ?: kv_add(&meta, "record.start_time", "%s", when);
	err = err ?: kv_add(&meta, "record.wall_ns", "%llu", (unsigned long long)m->wall_ns);
	err = err ?: kv_add(&meta, "record.end", "exited");
	err = err ?: kv_add(&meta, "record.repeat", "%u", m->runs);
	err = err ?: kv_add(&meta, "record.syscalls", "off");
	err = err ?: save_command_line(&meta, m->o->argv);
	err = err ?: kv_add(&meta, "record.exit_code", "%d", workload_exit_code(m->status));
	if (!err && stext)
		err = kv_add(&meta, "kernel.stext", "0x%llx", (unsigned long long)stext->addr);
	err = err ?: kv_add(&meta, "model.windows", "%u", m->runs);
	err = err ?: kv_add(&meta, "model.state", "awaiting");
	err = err ?: recording_put_meta(m->df, &meta);
	kv_list_free(&meta);
	return err;
}

static int save(struct model_session *m)
{
	return save_provenance(m->df) ?: put_ksyms(m) ?: save_procs(m->df, m->procs)
		?: procs_for_each_map(m->procs, map_usyms, m->df)
		?: recording_put_counter(m->df, "lost_sideband_records", procs_lost(m->procs))
		?: model_meta(m);
}

/* The runs, each saved as record's are: 0, or -errno (m->exec_err: CMD did not run). */
static int runs(struct model_session *m, const sigset_t *blocked)
{
	int err = 0, code;

	clock_gettime(CLOCK_REALTIME, &m->t0);
	while (m->runs < m->o->repeat) {
		err = one_run(m, blocked);
		if (err || m->exec_err)
			return err;
		code = workload_exit_code(m->status);
		err = recording_put_run(m->df, m->runs, m->run_ns, &code, "exited");
		m->runs++;
		if (err || code)
			break;
	}
	return err;
}

static int model_record(struct model_session *m, const sigset_t *blocked)
{
	char why[512] = "";
	uid_t uid;
	gid_t gid;
	int err;

	/* before anything runs: a recording must not be lost at the end for want of a path */
	workload_user(&uid, &gid);
	err = datafile_check_target(m->o->output, why, sizeof(why));
	err = err ?: datafile_create(&m->df, m->o->output, uid, why, sizeof(why));
	if (err) {
		fprintf(stderr, "kprotperf record: cannot write '%s': %s\n", m->o->output,
			why[0] ? why : strerror(-err));
		return 1;
	}
	err = ksyms_load(&m->ks, NULL);
	if (err == -EPERM) {
		fprintf(stderr, "kprotperf record: --model: kernel addresses are hidden in "
				"/proc/kallsyms: run as root (or with CAP_SYSLOG)\n");
		return 1;
	}
	err = err ?: procs_new(&m->procs) ?: runs(m, blocked);
	if (!err && m->exec_err) {
		fprintf(stderr, "kprotperf record: cannot run '%s': %s\n", m->o->argv[0],
			strerror(-m->exec_err));
		return m->exec_err == -ENOENT ? 127 : 126;
	}
	err = err ?: save(m);
	if (!err)
		err = datafile_commit(m->df, uid == getuid() ? (uid_t)-1 : uid, gid, why,
				      sizeof(why));
	m->df = err ? m->df : NULL;
	if (err) {
		fprintf(stderr, "kprotperf record: --model: %s\n", why[0] ? why : strerror(-err));
		return 1;
	}
	if (!m->o->quiet)
		fprintf(stderr, "kprotperf: wrote %s: %u run%s in the model's window, %.2f s\n",
			m->o->output, m->runs, m->runs == 1 ? "" : "s", m->wall_ns / 1e9);
	return workload_exit_code(m->status);
}

int record_model_run(const struct record_opts *o)
{
	struct model_session m = {.o = o, .wl = {.pid = -1, .go_fd = -1, .err_fd = -1}};
	struct sigaction dfl = {.sa_handler = SIG_DFL};
	sigset_t blocked;
	int ret;

#ifndef __x86_64__
	fprintf(stderr, "kprotperf record: --model: the model's markers are x86-64 instructions\n");
	return 1;
#endif
	/* Ctrl-C reaches CMD, which ends; kprotperf waits for it and saves the runs */
	sigemptyset(&blocked);
	sigaddset(&blocked, SIGINT);
	sigaddset(&blocked, SIGTERM);
	sigaddset(&blocked, SIGHUP);
	sigprocmask(SIG_BLOCK, &blocked, NULL);
	/* an ignored SIGCHLD would reap CMD before wait4 could tell how it ended */
	sigaction(SIGCHLD, &dfl, NULL);
	ret = model_record(&m, &blocked);
	if (m.df)
		datafile_abort(m.df);
	workload_close(&m.wl);
	procs_free(m.procs);
	ksyms_free(m.ks);
	return ret;
}
