// SPDX-License-Identifier: GPL-2.0-only
/*
 * The actions on descriptors and files: pipe, socketpair, open, mkdir,
 * setxattr and read_write.  Files and directories are made in the working
 * directory, the scenario's scratch folder, named after their step so that
 * every step makes new ones.  They are the workload's own files, made by
 * its syscalls (what explore measures), not kprotperf's outputs: the folder
 * is private (mkdtemp, 0700) and each file new, so O_EXCL | O_NOFOLLOW
 * only make sure that nothing there is followed or reused.
 */
#include "explore/scenario_int.h"

#include <errno.h>
#include <fcntl.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/xattr.h>
#include <unistd.h>

/* Room for a name and 64 levels of "/d". */
#define PATH_LEN 256
/* a new file of the step's own, never a link */
#define NEW_FILE (O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC)

/* The name of the step's i-th file or directory, its kind's letter first. */
static void step_name(const struct scn_run *r, char kind, long long i, char *buf, size_t len)
{
	snprintf(buf, len, "%c%d.%lld", kind, r->tally->step + 1, i);
}

/* make (a pipe or a socket pair) count times, all open together, size bytes through each. */
static void channels(struct scn_run *r, const long long *a, const char *call,
		     int (*make)(const long long *a, int *fd))
{
	long long count = a[0], i;
	int *fd = scn_fds(r, 2 * count);

	if (!fd)
		return;
	for (i = 0; i < count; i++) {
		if (!make(a, fd + 2 * i))
			continue;
		scn_err(r, call, errno);
		/* socketpair writes the numbers it meant to give out before it fails */
		fd[2 * i] = fd[2 * i + 1] = -1;
	}
	for (i = 0; i < count; i++)
		if (fd[2 * i] >= 0)
			scn_pump(r, fd[2 * i + 1], fd[2 * i], a[1], "write", "read");
	scn_close_all(fd, 2 * count);
	free(fd);
}

static int make_pipe(const long long *a, int *fd)
{
	return pipe2(fd, O_NONBLOCK | O_CLOEXEC);
}

static int make_socketpair(const long long *a, int *fd)
{
	return socketpair(a[3], a[2] | SOCK_NONBLOCK | SOCK_CLOEXEC, 0, fd);
}

int scn_act_pipe(struct scn_run *r, const long long *a)
{
	channels(r, a, "pipe", make_pipe);
	return 0;
}

int scn_act_socketpair(struct scn_run *r, const long long *a)
{
	channels(r, a, "socketpair", make_socketpair);
	return 0;
}

/* size bytes of the run's buffer written to fd. */
static void write_all(struct scn_run *r, int fd, const char *buf, long long size)
{
	ssize_t w;

	for (; size > 0; size -= w) {
		w = write(fd, buf, size);
		if (w <= 0) {
			scn_err(r, "write", w ? errno : EIO);
			return;
		}
	}
}

int scn_act_open(struct scn_run *r, const long long *a)
{
	long long count = a[0], size = a[1], i;
	char *buf = scn_buffer(r, size), name[PATH_LEN];
	int *fd = scn_fds(r, count);

	for (i = 0; buf && fd && i < count; i++) {
		step_name(r, 'o', i, name, sizeof(name));
		fd[i] = open(name, NEW_FILE | O_WRONLY, 0600);
		if (fd[i] < 0)
			scn_err(r, "open", errno);
		else if (scn_room(r, size, "write"))
			write_all(r, fd[i], buf, size);
	}
	if (fd)
		scn_close_all(fd, count);
	free(fd);
	return 0;
}

int scn_act_mkdir(struct scn_run *r, const long long *a)
{
	long long count = a[0], depth = a[1], i, level;
	char path[PATH_LEN];
	size_t n;

	for (i = 0; i < count; i++) {
		step_name(r, 'd', i, path, sizeof(path));
		n = strlen(path);
		for (level = 0; level < depth; level++) {
			if (level)
				n += snprintf(path + n, sizeof(path) - n, "/d");
			if (mkdir(path, 0700)) {
				scn_err(r, "mkdir", errno);
				break;
			}
		}
	}
	return 0;
}

int scn_act_setxattr(struct scn_run *r, const long long *a)
{
	long long count = a[0], size = a[1], i;
	char *buf = scn_buffer(r, size), name[PATH_LEN];
	int fd;

	for (i = 0; buf && i < count; i++) {
		step_name(r, 'x', i, name, sizeof(name));
		fd = open(name, NEW_FILE | O_WRONLY, 0600);
		if (fd < 0) {
			scn_err(r, "open", errno);
			continue;
		}
		if (scn_room(r, size, "setxattr") && fsetxattr(fd, "user.kprotperf", buf, size, 0))
			scn_err(r, "setxattr", errno);
		close(fd);
	}
	return 0;
}

int scn_act_read_write(struct scn_run *r, const long long *a)
{
	long long count = a[0], size = a[1], i;
	char *buf = scn_buffer(r, size), name[PATH_LEN];
	bool room;
	int fd;

	if (!buf)
		return 0;
	step_name(r, 'f', 0, name, sizeof(name));
	fd = open(name, NEW_FILE | O_RDWR, 0600);
	if (fd < 0) {
		scn_err(r, "open", errno);
		return 0;
	}
	/* the same size bytes each time: the file takes them, or is refused them, once */
	room = scn_room(r, size, "pwrite");
	for (i = 0; i < count; i++) {
		if (room && pwrite(fd, buf, size, 0) < 0)
			scn_err(r, "pwrite", errno);
		if (pread(fd, buf, size, 0) < 0)
			scn_err(r, "pread", errno);
	}
	close(fd);
	return 0;
}
