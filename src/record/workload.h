/* SPDX-License-Identifier: GPL-2.0-only */
/* The recorded command: started stopped, released once everything is attached. */
#ifndef KP_WORKLOAD_H
#define KP_WORKLOAD_H

#include <stdbool.h>
#include <signal.h>
#include <stddef.h>
#include <sys/types.h>

struct workload {
	pid_t pid;
	int go_fd;  /* socket: one byte releases the child; -1 once it did */
	int err_fd; /* read end: errno of a failed exec, EOF once exec succeeded */
};

/* The uid/gid the command runs as: the sudo caller when root via sudo, else ours. */
void workload_user(uid_t *uid, gid_t *gid);
/* Fork the command, stopped before exec; signals in *blocked are unblocked in it. */
int workload_start(struct workload *w, char *const argv[], const sigset_t *blocked);
/* The same, calling before_exec in the child right before its exec (record --model's marker). */
int workload_start_with(struct workload *w, char *const argv[], const sigset_t *blocked,
			void (*before_exec)(void));
/*
 * After the child was released (its go byte written by the caller) and
 * ended: -errno when its exec failed, 0 when it succeeded.
 */
int workload_exec_error(struct workload *w);
/*
 * Let it exec; -errno (e.g. -ENOENT) when exec failed, the child is reaped
 * then; -EPIPE when it had died already, not reaped: EPIPE says that it
 * died, only its wait status says how.
 */
int workload_go(struct workload *w);
/* Whether workload_go let the child go on to exec: until then *blocked stays blocked in it. */
bool workload_released(const struct workload *w);
/*
 * How a child that never reached its exec ended, from its wait status, into
 * how: "was killed by signal 9", "exited with status 127".
 */
void workload_end_how(int status, char *how, size_t len);
/* Exit status in shell convention: the code, or 128 + signal. */
int workload_exit_code(int status);
/* Release the pipes; kills and reaps a child that was not reaped yet. */
void workload_close(struct workload *w);

#endif
