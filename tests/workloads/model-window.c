/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * model-window -- CMD [ARG...]: runs CMD inside a counting window of
 * kprotperf's machine model (plugin/kp_model.c, scripts/vm-run.sh --model).
 * It executes the hint marker (the guest's PTI and PCID, for the model's
 * TLBs) and the start marker, runs CMD (fork, exec, wait), executes the
 * stop marker and exits with CMD's status (128 + the signal that killed it).
 * Outside QEMU with the plugin the markers are plain nops.
 *
 * The window counts machine-wide from the block after the start marker:
 * this program's fork and wait, CMD, anything else that runs meanwhile, and
 * the kernel, until the stop marker.
 */
#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>
#include <sys/wait.h>

#include "../../include/model_marker.h"

static int usage(FILE *f, const char *prog, int rc)
{
	fprintf(f,
		"usage: %s -- CMD [ARG...]\n"
		"  run CMD between the start and stop markers of kprotperf's machine model\n",
		prog);
	return rc;
}

int main(int argc, char **argv)
{
	int status;
	pid_t pid;

	if (argc > 1 && (!strcmp(argv[1], "-h") || !strcmp(argv[1], "--help")))
		return usage(stdout, argv[0], 0);
	if (argc < 3 || strcmp(argv[1], "--"))
		return usage(stderr, argv[0], 2);
	fflush(NULL);
	model_marker_hint_guest();
	model_marker_start();
	pid = fork();
	if (pid < 0) {
		model_marker_stop();
		fprintf(stderr, "model-window: fork: %s\n", strerror(errno));
		return 125;
	}
	if (pid == 0) {
		execvp(argv[2], argv + 2);
		fprintf(stderr, "model-window: %s: %s\n", argv[2], strerror(errno));
		_exit(errno == ENOENT ? 127 : 126);
	}
	while (waitpid(pid, &status, 0) < 0) {
		if (errno != EINTR) {
			model_marker_stop();
			fprintf(stderr, "model-window: waitpid: %s\n", strerror(errno));
			return 125;
		}
	}
	model_marker_stop();
	if (WIFSIGNALED(status))
		return 128 + WTERMSIG(status);
	return WEXITSTATUS(status);
}
