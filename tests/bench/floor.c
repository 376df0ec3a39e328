/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * Loader for the floor programs (`floor clock`: the pair that reads the
 * clock instead of the empty one): attach them, print "ready" so the bench
 * starts its workload only once they are live, and keep them attached until
 * stdin closes or we are told to stop.  Holding on stdin lets the bench
 * detach us just by closing a pipe, and means we cannot outlive it.
 */
#include <errno.h>
#include <signal.h>
#include <stdbool.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>
#include "floor.skel.h"

static volatile sig_atomic_t stop;

static void on_signal(int sig)
{
	stop = 1;
}

int main(int argc, char **argv)
{
	/* no SA_RESTART: a signal must interrupt the read() below */
	struct sigaction sa = {.sa_handler = on_signal};
	bool clock = argc > 1 && !strcmp(argv[1], "clock");
	struct floor_bpf *skel;
	char buf[64];
	ssize_t n;
	int err;

	sigaction(SIGINT, &sa, NULL);
	sigaction(SIGTERM, &sa, NULL);

	skel = floor_bpf__open();
	if (!skel) {
		fprintf(stderr, "floor: cannot open BPF programs: %s\n", strerror(errno));
		return 1;
	}
	bpf_program__set_autoload(skel->progs.floor_enter, !clock);
	bpf_program__set_autoload(skel->progs.floor_exit, !clock);
	bpf_program__set_autoload(skel->progs.clock_enter, clock);
	bpf_program__set_autoload(skel->progs.clock_exit, clock);
	err = floor_bpf__load(skel);
	err = err ?: floor_bpf__attach(skel);
	if (err) {
		fprintf(stderr, "floor: cannot attach: %s\n", strerror(-err));
		floor_bpf__destroy(skel);
		return 1;
	}

	printf("ready\n");
	fflush(stdout);

	while (!stop) {
		n = read(STDIN_FILENO, buf, sizeof(buf));
		if (n == 0 || (n < 0 && errno != EINTR))
			break;
	}

	floor_bpf__destroy(skel);
	return 0;
}
