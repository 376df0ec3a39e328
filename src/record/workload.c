// SPDX-License-Identifier: GPL-2.0-only
/*
 * The recorded command: forked stopped before exec (as the sudo caller when
 * run via sudo), released once everything is attached, its exec failure
 * reported back through a pipe, killed when kprotperf dies.  Nothing it does
 * here counts: its pid is in the traced tree as pending until its exec
 * (record.bpf.c's kp_exec), and execvp's failed PATH attempts come before.
 */
#include "record/workload.h"

#include <errno.h>
#include <fcntl.h>
#include <grp.h>
#include <poll.h>
#include <pthread.h>
#include <pwd.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/prctl.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

static bool parse_id(const char *s, unsigned long *v)
{
	char *end;

	if (!s || !*s)
		return false;
	errno = 0;
	*v = strtoul(s, &end, 10);
	return !errno && !*end;
}

void workload_user(uid_t *uid, gid_t *gid)
{
	unsigned long u, g;

	*uid = getuid();
	*gid = getgid();
	if (*uid != 0 || !parse_id(getenv("SUDO_UID"), &u) || !parse_id(getenv("SUDO_GID"), &g))
		return;
	*uid = u;
	*gid = g;
}

/* Never run the workload as root just because kprotperf needed root: drop to the sudo user. */
static int drop_privileges(void)
{
	struct passwd *pw;
	uid_t uid;
	gid_t gid;

	workload_user(&uid, &gid);
	if (uid == getuid())
		return 0;
	pw = getpwuid(uid);
	if (pw ? initgroups(pw->pw_name, gid) : setgroups(0, NULL))
		return -errno;
	if (setgid(gid) || setuid(uid))
		return -errno;
	return 0;
}

/*
 * The command dies with kprotperf, even of SIGKILL.  Set after setuid, which
 * clears the parent-death signal.  A parent that died before prctl has
 * closed its end of the error pipe.
 */
static int die_with_parent(int err)
{
	struct pollfd reader = {.fd = err, .events = POLLOUT};

	if (prctl(PR_SET_PDEATHSIG, SIGKILL))
		return -errno;
	if (poll(&reader, 1, 0) == 1 && (reader.revents & POLLERR))
		_exit(127);
	return 0;
}

static void child(int go, int err, char *const argv[], const sigset_t *blocked,
		  void (*before_exec)(void))
{
	char c;
	int e;

	/* EOF: the parent died (or gave up) before releasing us */
	if (read(go, &c, 1) != 1)
		_exit(127);
	sigprocmask(SIG_UNBLOCK, blocked, NULL);
	e = drop_privileges();
	e = e ?: die_with_parent(err);
	if (!e) {
		if (before_exec)
			before_exec();
		execvp(argv[0], argv);
		e = -errno;
	}
	e = -e;
	if (write(err, &e, sizeof(e)) < 0)
		_exit(127);
	_exit(127);
}

int workload_start(struct workload *w, char *const argv[], const sigset_t *blocked)
{
	return workload_start_with(w, argv, blocked, NULL);
}

int workload_start_with(struct workload *w, char *const argv[], const sigset_t *blocked,
			void (*before_exec)(void))
{
	int go[2], err[2];

	/* a pipe, not a socket: a kernel may have no AF_UNIX (a small VM's) */
	if (pipe2(go, O_CLOEXEC))
		return -errno;
	if (pipe2(err, O_CLOEXEC)) {
		close(go[0]);
		close(go[1]);
		return -errno;
	}
	w->pid = fork();
	if (w->pid == 0) {
		close(go[1]);
		close(err[0]);
		child(go[0], err[1], argv, blocked, before_exec);
	}
	close(go[0]);
	close(err[1]);
	w->go_fd = go[1];
	w->err_fd = err[0];
	if (w->pid < 0) {
		workload_close(w);
		return -errno;
	}
	return 0;
}

/* write(2) that turns a reader's death into EPIPE alone, its SIGPIPE taken while blocked */
static int write_nosigpipe(int fd, const void *buf, size_t len)
{
	const struct timespec now = {0};
	sigset_t pipe_set, old;
	ssize_t n;
	int err;

	sigemptyset(&pipe_set);
	sigaddset(&pipe_set, SIGPIPE);
	pthread_sigmask(SIG_BLOCK, &pipe_set, &old);
	n = write(fd, buf, len);
	err = n == (ssize_t)len ? 0 : n < 0 ? -errno : -EIO;
	if (err == -EPIPE && !sigismember(&old, SIGPIPE))
		sigtimedwait(&pipe_set, NULL, &now);
	pthread_sigmask(SIG_SETMASK, &old, NULL);
	return err;
}

int workload_exec_error(struct workload *w)
{
	ssize_t n;
	int e = 0;

	do
		n = read(w->err_fd, &e, sizeof(e));
	while (n < 0 && errno == EINTR);
	return n == 0 ? 0 : n == sizeof(e) ? -e : -EIO;
}

int workload_go(struct workload *w)
{
	ssize_t n;
	int e = 0;

	/* EPIPE: it died before its exec, killed while waiting for this */
	e = write_nosigpipe(w->go_fd, "g", 1);
	if (e)
		return e;
	/* the byte stays readable: closing now marks the child released */
	close(w->go_fd);
	w->go_fd = -1;
	do
		n = read(w->err_fd, &e, sizeof(e));
	while (n < 0 && errno == EINTR);
	if (n == 0)
		return 0;
	waitpid(w->pid, NULL, 0);
	w->pid = -1;
	return n == sizeof(e) ? -e : -EIO;
}

bool workload_released(const struct workload *w)
{
	return w->go_fd < 0;
}

void workload_end_how(int status, char *how, size_t len)
{
	if (WIFSIGNALED(status))
		snprintf(how, len, "was killed by signal %d", WTERMSIG(status));
	else
		snprintf(how, len, "exited with status %d", WEXITSTATUS(status));
}

int workload_exit_code(int status)
{
	if (WIFSIGNALED(status))
		return 128 + WTERMSIG(status);
	return WEXITSTATUS(status);
}

void workload_close(struct workload *w)
{
	/* a child still stopped sees EOF and exits; one already running must not linger */
	if (w->pid > 0) {
		kill(w->pid, SIGKILL);
		waitpid(w->pid, NULL, 0);
		w->pid = -1;
	}
	if (w->go_fd >= 0)
		close(w->go_fd);
	if (w->err_fd >= 0)
		close(w->err_fd);
	w->go_fd = w->err_fd = -1;
}
