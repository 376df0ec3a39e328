// SPDX-License-Identifier: GPL-2.0-only
/*
 * The scenario's worker: the process the supervisor forks, sandboxed
 * (process group, signals, capabilities, descriptors, working directory,
 * limits), running the steps.
 */
#include "explore/scenario_int.h"

#include <errno.h>
#include <linux/capability.h>
#include <signal.h>
#include <stdio.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

/* The bytes of address space this process has mapped (0 when /proc does not say). */
static unsigned long long mapped_now(void)
{
	FILE *f = fopen("/proc/self/statm", "re");
	unsigned long long pages = 0;

	if (f) {
		if (fscanf(f, "%llu", &pages) != 1)
			pages = 0;
		fclose(f);
	}
	return pages * sysconf(_SC_PAGESIZE);
}

/* Soft and hard limit res set to want, or to the hard limit there is when it is lower. */
static int limit(int res, const char *name, unsigned long long want)
{
	struct rlimit rl;

	if (getrlimit(res, &rl) == 0 && rl.rlim_max != RLIM_INFINITY && rl.rlim_max < want)
		want = rl.rlim_max;
	rl.rlim_cur = rl.rlim_max = want;
	if (!setrlimit(res, &rl))
		return 0;
	fprintf(stderr, "kprotperf scenario: cannot set %s to %llu: %s\n", name, want,
		strerror(errno));
	return -1;
}

/*
 * The memory limit adds to what the process has mapped already: the
 * sanitizer build maps terabytes of shadow memory before any scenario.
 * Files are held to the memory limit, the scratch folder may be a tmpfs:
 * all of them together by scn_room(), each by the kernel too.
 */
static int limits(const struct scn_limits *lim)
{
	unsigned long long mem = mapped_now() + lim->mem;

	return limit(RLIMIT_AS, "RLIMIT_AS", mem) ?: limit(RLIMIT_FSIZE, "RLIMIT_FSIZE", lim->mem)
		?: limit(RLIMIT_NPROC, "RLIMIT_NPROC", lim->procs)
		?: limit(RLIMIT_NOFILE, "RLIMIT_NOFILE", lim->files)
		?: limit(RLIMIT_CORE, "RLIMIT_CORE", 0);
}

/* What is pending of set thrown away: a late alarm, a stop meant for the caller's group. */
void scn_discard(const sigset_t *set)
{
	const struct timespec zero = {0, 0};

	while (sigtimedwait(set, NULL, &zero) > 0)
		;
}

/*
 * A process group of its own, which the supervisor kills, out of the
 * caller's: a signal to that (Ctrl-C) is the supervisor's to act on, and
 * one that came before the worker left it is thrown away.  Then what the
 * supervisor blocked let through again; SIGPIPE and SIGXFSZ ignored, so
 * that a closed pipe and the file size limit are errors the steps count,
 * not deaths, and SIGTTOU, so that a line on a terminal set to stop
 * background writers (its group is one) does not stop it.
 */
static int signals(void)
{
	sigset_t set;

	if (setpgid(0, 0)) {
		fprintf(stderr, "kprotperf scenario: cannot make a process group of its own: %s\n",
			strerror(errno));
		return -1;
	}
	sigprocmask(SIG_SETMASK, NULL, &set);
	scn_discard(&set);
	signal(SIGPIPE, SIG_IGN);
	signal(SIGXFSZ, SIG_IGN);
	signal(SIGTTOU, SIG_IGN);
	sigemptyset(&set);
	sigprocmask(SIG_SETMASK, &set, NULL);
	return 0;
}

/*
 * No capability for the steps: forked, not exec'ed, the worker would keep
 * those of a setcap'ed binary (cap_bpf, cap_perfmon, cap_syslog) or of
 * root.  The bounding set goes first, while CAP_SETPCAP, root's, allows
 * it; without CAP_SETPCAP it stays, and no_new_privs sees to it that no
 * exec of the steps' processes regains a capability.
 */
static int drop_capabilities(void)
{
	struct __user_cap_header_struct h = {.version = _LINUX_CAPABILITY_VERSION_3};
	struct __user_cap_data_struct d[2] = {};
	int cap;

	/* PR_CAPBSET_READ fails past the kernel's last capability */
	for (cap = 0; prctl(PR_CAPBSET_READ, cap, 0, 0, 0) >= 0; cap++)
		prctl(PR_CAPBSET_DROP, cap, 0, 0, 0);
	/* fails only before 4.3, which has no ambient set to clear */
	prctl(PR_CAP_AMBIENT, PR_CAP_AMBIENT_CLEAR_ALL, 0, 0, 0);
	if (!syscall(SYS_capset, &h, d) && !prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0))
		return 0;
	fprintf(stderr, "kprotperf scenario: cannot drop its capabilities: %s\n", strerror(errno));
	return -1;
}

static int sandbox(const char *dir, const struct scn_limits *lim, pid_t supervisor)
{
	if (signals() || drop_capabilities())
		return -1;
	/* killed with the supervisor; it may be gone already */
	if (prctl(PR_SET_PDEATHSIG, SIGKILL) || getppid() != supervisor)
		return -1;
	/* nothing of the caller's is the scenario's to use */
	close_range(3, ~0U, 0);
	if (chdir(dir)) {
		fprintf(stderr, "kprotperf scenario: cannot enter the scratch folder %s: %s\n", dir,
			strerror(errno));
		return -1;
	}
	umask(077);
	return limits(lim);
}

int scn_worker(struct scn_run *r, const char *dir, const struct scn_limits *lim, pid_t supervisor)
{
	const struct scn_template *tp;
	long long a[SCN_PARAMS];
	size_t i;

	if (sandbox(dir, lim, supervisor))
		return 1;
	for (i = 0; i < r->s->n; i++) {
		r->tally->step = i;
		tp = &r->t->v[r->s->step[i].tpl];
		scn_action_args(tp, &r->s->step[i], a);
		if (tp->act->run(r, a))
			return 1;
	}
	return 0;
}
