/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * boot-clock: writes `kprotperf-boot: tsc TICKS` to the kernel's log
 * (/dev/kmsg) in one write, TICKS being the time stamp counter read right
 * before it.  scripts/vm-run.sh --boot runs it first thing in the guest:
 * the line's printk time stamp and TICKS pair the two clocks, so that
 * `kprotperf boot` can place the boot's first user instruction, known in
 * TSC ticks (under QEMU's icount, virtual ns since reset), on the log's
 * time line.  Exits 0, or 1 with one line on stderr.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>
#include <x86intrin.h>

int main(int argc, char **argv)
{
	char line[64];
	unsigned long long tsc;
	ssize_t n;
	int fd, len;

	if (argc > 1) {
		fprintf(stderr, "usage: %s\n  write 'kprotperf-boot: tsc TICKS' to /dev/kmsg\n",
			argv[0]);
		return strcmp(argv[1], "-h") && strcmp(argv[1], "--help") ? 1 : 0;
	}
	fd = open("/dev/kmsg", O_WRONLY | O_CLOEXEC);
	if (fd < 0) {
		fprintf(stderr, "boot-clock: /dev/kmsg: %s\n", strerror(errno));
		return 1;
	}
	tsc = __rdtsc();
	len = snprintf(line, sizeof(line), "kprotperf-boot: tsc %llu\n", tsc);
	/* /dev/kmsg takes one record per write: a short one is an error */
	n = write(fd, line, len);
	if (n != len) {
		fprintf(stderr, "boot-clock: writing /dev/kmsg: %s\n",
			n < 0 ? strerror(errno) : "short write");
		close(fd);
		return 1;
	}
	close(fd);
	return 0;
}
