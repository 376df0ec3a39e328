// SPDX-License-Identifier: GPL-2.0-only
/* Running kprotperf's scripts (vmrun.h), vm-run.sh --boot among them: fork and execv, no shell. */
#include "boot/vmrun.h"

#include <errno.h>
#include <fcntl.h>
#include <libgen.h>
#include <limits.h>
#include <signal.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "boot/opts.h"
#include "util/esc.h"
#include "util/safeio.h"

/* vm-run.sh's arguments: the fixed ones, the options' and the caches' */
#define ARGS_MAX (18 + BOOT_CACHE_ARGS_MAX)
/* a console line is cut here when printed */
#define TAIL_LINE 256

bool vmrun_path(const char *env, const char *rel, char *path, size_t len)
{
	const char *set = getenv(env);
	char exe[PATH_MAX];
	ssize_t n;

	if (set && *set) {
		snprintf(path, len, "%s", set);
	} else {
		n = readlink("/proc/self/exe", exe, sizeof(exe) - 1);
		exe[n > 0 ? n : 0] = '\0';
		snprintf(path, len, "%s/%s", dirname(exe), rel);
	}
	return !access(path, X_OK);
}

int vmrun_find(const char *who, const char *env, const char *rel, char *path, size_t len)
{
	if (vmrun_path(env, rel, path, len))
		return 0;
	esc_printf(stderr, "%s: no %s at %s: set %s to its path\n", who, rel, path, env);
	return -ENOENT;
}

int boot_vmrun_find(char *path, size_t len)
{
	return vmrun_find("kprotperf boot", "KP_VM_RUN", "scripts/vm-run.sh", path, len);
}

static void build_argv(const char **argv, const char *vmrun, const struct boot_opts *o,
		       const char *dir, char *timeout)
{
	unsigned int n = 0, i;

	argv[n++] = vmrun;
	argv[n++] = "--boot";
	argv[n++] = "--out";
	argv[n++] = dir;
	if (o->kernel) {
		argv[n++] = "--kernel";
		argv[n++] = o->kernel;
	}
	if (o->append) {
		argv[n++] = "--append";
		argv[n++] = o->append;
	}
	if (o->timeout) {
		argv[n++] = "--timeout";
		argv[n++] = timeout;
	}
	if (o->cpu) {
		argv[n++] = "--cpu";
		argv[n++] = o->cpu;
	}
	if (o->model) {
		argv[n++] = "--model";
		argv[n++] = o->model;
	}
	if (o->core) {
		argv[n++] = "--core";
		argv[n++] = o->core;
	}
	for (i = 0; i < o->ncaches; i++)
		argv[n++] = o->caches[i];
	argv[n] = NULL;
}

/* In the child: env set, output into log, stdin from /dev/null, signals as they were, then argv. */
static void child(const char *who, const char *const *argv, const char *const *env, int logfd)
{
	int null = open("/dev/null", O_RDONLY | O_CLOEXEC);
	sigset_t none;

	sigemptyset(&none);
	sigprocmask(SIG_SETMASK, &none, NULL);
	for (; env && *env; env++)
		if (putenv((char *)*env))
			_exit(126);
	if (null < 0 || dup2(null, 0) < 0 || dup2(logfd, 1) < 0 || dup2(logfd, 2) < 0)
		_exit(126);
	execv(argv[0], (char *const *)argv);
	dprintf(2, "%s: cannot run %s: %s\n", who, argv[0], strerror(errno));
	_exit(126);
}

/* the script vmrun_spawn() waits for, 0 when none: vmrun_forward() signals it */
static volatile pid_t running;

void vmrun_forward(int sig)
{
	pid_t pid = running;

	if (pid > 0)
		kill(pid, sig);
}

int vmrun_spawn(const char *who, const char *const *argv, const char *const *env, const char *log)
{
	int logfd, status;
	pid_t pid;

	logfd = open(log, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0600);
	if (logfd < 0) {
		esc_printf(stderr, "%s: cannot create %s: %s\n", who, log, strerror(errno));
		return -errno;
	}
	pid = fork();
	if (!pid)
		child(who, argv, env, logfd);
	close(logfd);
	if (pid < 0) {
		esc_printf(stderr, "%s: cannot start %s: %s\n", who, argv[0], strerror(errno));
		return -errno;
	}
	running = pid;
	while (waitpid(pid, &status, 0) < 0)
		if (errno != EINTR) {
			running = 0;
			return -errno;
		}
	running = 0;
	return WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
}

int boot_vmrun(const char *vmrun, const struct boot_opts *o, const char *dir, const char *log)
{
	const char *argv[ARGS_MAX];
	char timeout[16];

	snprintf(timeout, sizeof(timeout), "%u", o->timeout);
	build_argv(argv, vmrun, o, dir, timeout);
	return vmrun_spawn("kprotperf boot", argv, NULL, log);
}

void boot_print_tail(const char *path, unsigned int max, const char *indent)
{
	char ring[10][TAIL_LINE], why[256];
	unsigned int n = 0, i;
	FILE *f = safeio_fopen_text(path, why, sizeof(why));
	char *line = NULL;
	size_t cap = 0;

	if (!f)
		return;
	if (max > 10)
		max = 10;
	while (max && getline(&line, &cap, f) > 0) {
		line[strcspn(line, "\r\n")] = '\0';
		snprintf(ring[n++ % max], TAIL_LINE, "%s", line);
	}
	for (i = n > max ? n - max : 0; i < n; i++)
		esc_printf(stderr, "%s%s\n", indent, ring[i % max]);
	free(line);
	fclose(f);
}
