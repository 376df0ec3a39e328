/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * Loader for the floor programs (`floor clock`: the pair that reads the
 * clock instead of the empty one; `floor count`: the clock and two software
 * events, context-switches and task-clock, opened on every CPU): attach them, print "ready" so the bench
 * starts its workload only once they are live, and keep them attached until
 * stdin closes or we are told to stop.  Holding on stdin lets the bench
 * detach us just by closing a pipe, and means we cannot outlive it.
 */
#include <errno.h>
#include <linux/perf_event.h>
#include <signal.h>
#include <stdbool.h>
#include <stdio.h>
#include <string.h>
#include <sys/syscall.h>
#include <unistd.h>
#include "floor.skel.h"

static volatile sig_atomic_t stop;

static void on_signal(int sig)
{
	stop = 1;
}

/* context-switches and task-clock on every CPU into the counters map: 0 or -errno */
static int open_counters(struct floor_bpf *skel)
{
	static const __u64 config[2] = {PERF_COUNT_SW_CONTEXT_SWITCHES, PERF_COUNT_SW_TASK_CLOCK};
	int ncpu = libbpf_num_possible_cpus(), map = bpf_map__fd(skel->maps.counters);
	__u32 key;
	int cpu, i, fd;

	for (cpu = 0; cpu < ncpu; cpu++) {
		for (i = 0; i < 2; i++) {
			struct perf_event_attr a = {.type = PERF_TYPE_SOFTWARE,
						    .size = sizeof(a),
						    .config = config[i]};

			fd = syscall(SYS_perf_event_open, &a, -1, cpu, -1, 0);
			if (fd < 0)
				return -errno;
			key = cpu * 2 + i;
			/* the map holds the event; the fd closes with this process */
			if (bpf_map_update_elem(map, &key, &fd, BPF_ANY))
				return -errno;
		}
	}
	return 0;
}

int main(int argc, char **argv)
{
	/* no SA_RESTART: a signal must interrupt the read() below */
	struct sigaction sa = {.sa_handler = on_signal};
	const char *pair = argc > 1 ? argv[1] : "";
	bool clock = !strcmp(pair, "clock"), count = !strcmp(pair, "count");
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
	bpf_program__set_autoload(skel->progs.floor_enter, !clock && !count);
	bpf_program__set_autoload(skel->progs.floor_exit, !clock && !count);
	bpf_program__set_autoload(skel->progs.clock_enter, clock);
	bpf_program__set_autoload(skel->progs.clock_exit, clock);
	bpf_program__set_autoload(skel->progs.count_enter, count);
	bpf_program__set_autoload(skel->progs.count_exit, count);
	bpf_map__set_max_entries(skel->maps.counters, libbpf_num_possible_cpus() * 2);
	err = floor_bpf__load(skel);
	err = err ?: (count ? open_counters(skel) : 0);
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
