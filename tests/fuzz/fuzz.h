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
 * symbolic link where the fuzzer, often root, writes.
 */
static char fuzz_dir[64], fuzz_path[96];

/* data written to fuzz_path (suffix: its name's ending, e.g. ".data"); NULL on failure. */
static inline const char *fuzz_file(const uint8_t *data, size_t size, const char *suffix)
{
	FILE *f;

	if (!fuzz_path[0]) {
		snprintf(fuzz_dir, sizeof(fuzz_dir), "%s/kp-fuzz.XXXXXX",
			 getenv("TMPDIR") ?: "/tmp");
		if (!mkdtemp(fuzz_dir))
			abort(); /* the harness's own failure, not a finding: stop loudly */
		snprintf(fuzz_path, sizeof(fuzz_path), "%s/input%s", fuzz_dir, suffix);
	}
	f = fopen(fuzz_path, "w");
	if (!f)
		abort();
	if (size && fwrite(data, 1, size, f) != size)
		abort();
	if (fclose(f))
		abort();
	return fuzz_path;
}

static void fuzz_cleanup(void)
{
	if (!fuzz_path[0])
		return;
	unlink(fuzz_path);
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
