/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * What the libFuzzer targets share: the input written to a file of the
 * process's own (for the entry points that take a path), and stdout sent to
 * /dev/null so that printers run whole without filling the terminal.
 */
#ifndef KP_FUZZ_H
#define KP_FUZZ_H
#include <fcntl.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

/*
 * This process's input file, "" until fuzz_file() first runs: inside a
 * directory of its own (mkdtemp, mode 0700), so that nobody can put a
 * symbolic link where the fuzzer, often root, writes.  fuzz_fd stays open
 * on it: each input is written over the last (pwrite, then ftruncate to
 * its size), not the file created and truncated anew.
 */
static char fuzz_dir[64], fuzz_path[96];
static int fuzz_fd = -1;

/*
 * $TMPDIR, else /dev/shm (tmpfs) when there is one, else /tmp.  Not a
 * disk: an ext4 /tmp wrote every input back to the disk (the file written
 * over after a truncation is flushed at close): most of a small parser's
 * time, model_table's 1,810 inputs a second against 17,000 on tmpfs.
 */
static inline const char *fuzz_tmpdir(void)
{
	const char *dir = getenv("TMPDIR");

	if (dir && *dir)
		return dir;
	return access("/dev/shm", W_OK | X_OK) ? "/tmp" : "/dev/shm";
}

/* fuzz_dir made on first use: a private folder for the input or an empty --symfs. */
static inline const char *fuzz_folder(void)
{
	if (!fuzz_dir[0]) {
		snprintf(fuzz_dir, sizeof(fuzz_dir), "%s/kp-fuzz.XXXXXX", fuzz_tmpdir());
		if (!mkdtemp(fuzz_dir))
			abort(); /* the harness's own failure, not a finding: stop loudly */
	}
	return fuzz_dir;
}

/* data written to fuzz_path (suffix: its name's ending, e.g. ".data"); NULL on failure. */
static inline const char *fuzz_file(const uint8_t *data, size_t size, const char *suffix)
{
	size_t done = 0;
	ssize_t n;

	if (!fuzz_path[0]) {
		snprintf(fuzz_path, sizeof(fuzz_path), "%s/input%s", fuzz_folder(), suffix);
		fuzz_fd = open(fuzz_path, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC,
			       0600);
		if (fuzz_fd < 0)
			abort();
	}
	for (; done < size; done += n) {
		n = pwrite(fuzz_fd, data + done, size - done, done);
		if (n <= 0)
			abort();
	}
	if (ftruncate(fuzz_fd, size))
		abort();
	return fuzz_path;
}

static void fuzz_cleanup(void)
{
	if (fuzz_path[0]) {
		close(fuzz_fd);
		unlink(fuzz_path);
	}
	if (fuzz_dir[0])
		rmdir(fuzz_dir);
}

/* stdout to /dev/null, the input file removed at exit. */
static inline void fuzz_init(void)
{
	int fd = open("/dev/null", O_WRONLY);

	if (fd < 0 || dup2(fd, STDOUT_FILENO) < 0)
		abort();
	close(fd);
	atexit(fuzz_cleanup);
}

/* A NUL-terminated copy of data (libFuzzer's buffer has no terminator). */
static inline char *fuzz_str(const uint8_t *data, size_t size)
{
	char *s = malloc(size + 1);

	if (!s)
		abort();
	memcpy(s, data, size);
	s[size] = '\0';
	return s;
}
#endif
