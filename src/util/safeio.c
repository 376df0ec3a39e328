// SPDX-License-Identifier: GPL-2.0-only
/* Reading and writing files at paths a user gives (safeio.h). */
#include "util/safeio.h"

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>
#include <sys/param.h>
#include <sys/random.h>
#include <unistd.h>

/* how many fresh temporary names are tried before giving up */
#define TMP_TRIES 64

int safeio_open_regular(const char *path, struct stat *st, char *why, size_t len)
{
	/* O_NONBLOCK: opening a FIFO must not wait for a writer before it is refused */
	int fd = open(path, O_RDONLY | O_CLOEXEC | O_NONBLOCK | O_NOCTTY), err = 0;

	if (fd < 0)
		return -errno;
	if (fstat(fd, st))
		err = -errno;
	else if (!S_ISREG(st->st_mode))
		err = -EINVAL;
	if (err == -EINVAL)
		snprintf(why, len, "not a regular file");
	if (!err)
		return fd;
	close(fd);
	return err;
}

/*
 * At most SAFEIO_TEXT_MAX + 1 bytes of fd into *buf (malloc'd, sized from
 * hint, the file's size, and grown should the file grow while read): their
 * count or -errno.  Not 16 MiB up front: a sanitizer build poisons all of it.
 */
static ssize_t read_capped(int fd, char **buf, size_t hint)
{
	size_t n = 0, cap = MIN(hint, (size_t)SAFEIO_TEXT_MAX) + 1;
	char *b = malloc(cap), *nb;
	ssize_t r;

	while (b && n <= SAFEIO_TEXT_MAX) {
		if (n == cap) {
			cap = MIN(cap * 2, (size_t)SAFEIO_TEXT_MAX + 1);
			nb = realloc(b, cap);
			if (!nb)
				break;
			b = nb;
		}
		r = read(fd, b + n, cap - n);
		if (r < 0 && errno == EINTR)
			continue;
		if (r < 0) {
			free(b);
			return -errno;
		}
		if (!r) {
			*buf = b;
			return n;
		}
		n += r;
	}
	if (!b || n <= SAFEIO_TEXT_MAX) {
		free(b);
		return -ENOMEM;
	}
	*buf = b;
	return n;
}

/*
 * The n bytes at buf as a stream of its own: fmemopen without a buffer frees
 * it at fclose, and in text mode keeps a byte for a NUL.
 */
static FILE *stream_of(const char *buf, size_t n)
{
	FILE *f = fmemopen(NULL, n + 1, "w+");

	if (f && (fwrite(buf, 1, n, f) != n || fseek(f, 0, SEEK_SET))) {
		fclose(f);
		errno = EIO;
		return NULL;
	}
	return f;
}

FILE *safeio_fopen_text(const char *path, char *why, size_t len)
{
	char problem[32] = "", *buf = NULL;
	struct stat st;
	FILE *f = NULL;
	ssize_t n;
	int fd = safeio_open_regular(path, &st, problem, sizeof(problem));

	if (fd < 0) {
		snprintf(why, len, "%s: %s", path, *problem ? problem : strerror(-fd));
		errno = -fd;
		return NULL;
	}
	n = read_capped(fd, &buf, st.st_size);
	close(fd);
	if (n > SAFEIO_TEXT_MAX)
		n = -EFBIG;
	if (n >= 0)
		f = stream_of(buf, n);
	if (n < 0 || !f) {
		errno = n < 0 ? -n : errno;
		snprintf(why, len, "%s: %s", path,
			 errno == EFBIG ? "larger than 16 MiB" : strerror(errno));
	}
	free(buf);
	return f;
}

enum trust { TRUSTED, OTHER_OWNER, OTHERS_WRITE };

/*
 * Whether someone but root, this process's user and owner could change the
 * file or folder st: its owner, or, with write permission, its group or
 * anyone (a sticky folder lets them add entries only, under their own name).
 */
static enum trust trust_of(const struct stat *st, uid_t owner)
{
	if (st->st_uid && st->st_uid != geteuid() && st->st_uid != owner)
		return OTHER_OWNER;
	if ((st->st_mode & (S_IWGRP | S_IWOTH)) &&
	    !(S_ISDIR(st->st_mode) && (st->st_mode & S_ISVTX)))
		return OTHERS_WRITE;
	return TRUSTED;
}

/* Whether someone but root, this process's user and owner could change what dir holds. */
static int check_dir(int fd, const char *dir, uid_t owner, char *why, size_t len)
{
	struct stat st;

	if (fstat(fd, &st))
		return -errno;
	if (!S_ISDIR(st.st_mode))
		return -ENOTDIR;
	switch (trust_of(&st, owner)) {
	case OTHER_OWNER:
		snprintf(why, len,
			 "folder '%s' belongs to another user (uid %u): write into a folder of "
			 "your own",
			 dir, (unsigned int)st.st_uid);
		return -EPERM;
	case OTHERS_WRITE:
		snprintf(why, len,
			 "folder '%s' can be written by other users (mode %04o, not sticky): "
			 "write into a folder only you can write",
			 dir, (unsigned int)(st.st_mode & 07777));
		return -EPERM;
	case TRUSTED:
		break;
	}
	return 0;
}

/*
 * Why path, opened at fd with O_PATH | O_NOFOLLOW, is not to be read through
 * as a folder (is_file false) or read as a file: -EINVAL or -EPERM and why,
 * else 0.
 */
static int check_part(int fd, const char *path, bool is_file, uid_t owner, char *why, size_t len)
{
	struct stat st;
	const char *bad = NULL;

	if (fstat(fd, &st))
		return -errno;
	if (S_ISLNK(st.st_mode))
		bad = "is a symbolic link";
	else if (is_file ? !S_ISREG(st.st_mode) : !S_ISDIR(st.st_mode))
		bad = is_file ? "is not a regular file" : "is not a folder";
	if (bad) {
		snprintf(why, len, "'%s' %s", path, bad);
		return -EINVAL;
	}
	switch (trust_of(&st, owner)) {
	case OTHER_OWNER:
		snprintf(why, len, "'%s' belongs to another user (uid %u)", path,
			 (unsigned int)st.st_uid);
		return -EPERM;
	case OTHERS_WRITE:
		snprintf(why, len, "'%s' can be written by other users (mode %04o)", path,
			 (unsigned int)(st.st_mode & 07777));
		return -EPERM;
	case TRUSTED:
		break;
	}
	return 0;
}

int safeio_open_beneath(const char *dir, const char *rel, uid_t owner, char *why, size_t len)
{
	char parts[PATH_MAX], path[PATH_MAX], *part, *next, *save;
	int fd, sub, err;

	if (len)
		*why = '\0';
	if (snprintf(parts, sizeof(parts), "%s", rel) >= (int)sizeof(parts))
		return -ENAMETOOLONG;
	part = strtok_r(parts, "/", &save);
	if (!part || strstr(rel, ".."))
		return -EINVAL;
	snprintf(path, sizeof(path), "%s", dir);
	/* O_PATH: nothing is opened for reading, no device or FIFO, before it is checked */
	fd = open(dir, O_PATH | O_CLOEXEC);
	err = fd < 0 ? -errno : check_part(fd, path, false, owner, why, len);
	for (; !err && part; part = next) {
		next = strtok_r(NULL, "/", &save);
		snprintf(path + strlen(path), sizeof(path) - strlen(path), "/%s", part);
		sub = openat(fd, part, O_PATH | O_NOFOLLOW | O_CLOEXEC);
		err = sub < 0 ? -errno : check_part(sub, path, !next, owner, why, len);
		if (!err && !next) {
			/* its folder is checked: no one else can have replaced it since */
			close(sub);
			sub = openat(fd, part, O_RDONLY | O_NOFOLLOW | O_CLOEXEC);
			err = sub < 0 ? -errno : 0;
		}
		close(fd);
		fd = sub;
	}
	if (err && fd >= 0)
		close(fd);
	return err ?: fd;
}

int safeio_dir(const char *dir, uid_t owner, char *why, size_t len)
{
	int fd = open(dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC), err;

	if (len)
		*why = '\0';
	if (fd < 0)
		return -errno;
	err = check_dir(fd, dir, owner, why, len);
	if (err) {
		close(fd);
		return err;
	}
	return fd;
}

int safeio_dir_of(const char *path, uid_t owner, const char **name, char *why, size_t len)
{
	const char *slash = strrchr(path, '/');
	char *dir;
	int fd;

	*name = slash ? slash + 1 : path;
	if (!**name)
		return -EISDIR;
	if (!slash)
		return safeio_dir(".", owner, why, len);
	dir = slash == path ? strdup("/") : strndup(path, slash - path);
	if (!dir)
		return -ENOMEM;
	fd = safeio_dir(dir, owner, why, len);
	free(dir);
	return fd;
}

/* Six characters a name may hold, at random. */
static void random_tail(char *s)
{
	static const char set[] = "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789";
	unsigned char r[6];
	int i;

	/* names guessed are no danger, O_EXCL keeps them new: only another try */
	if (getrandom(r, sizeof(r), GRND_NONBLOCK) != (ssize_t)sizeof(r))
		for (i = 0; i < 6; i++)
			r[i] = random() ^ getpid();
	for (i = 0; i < 6; i++)
		s[i] = set[r[i] % (sizeof(set) - 1)];
	s[6] = '\0';
}

int safeio_subdir(int fd, const char *name)
{
	int sub;

	if (mkdirat(fd, name, 0755) && errno != EEXIST)
		return -errno;
	sub = openat(fd, name, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
	return sub < 0 ? -errno : sub;
}

int safeio_tmp(int dirfd, const char *prefix, mode_t mode, char *name, size_t len)
{
	size_t n = strlen(prefix);
	int i, fd;

	if (n + 7 > len || n + 6 > NAME_MAX)
		return -ENAMETOOLONG;
	memcpy(name, prefix, n);
	for (i = 0; i < TMP_TRIES; i++) {
		random_tail(name + n);
		fd = openat(dirfd, name, O_CREAT | O_EXCL | O_NOFOLLOW | O_WRONLY | O_CLOEXEC,
			    mode);
		if (fd >= 0 || errno != EEXIST)
			return fd < 0 ? -errno : fd;
	}
	return -EEXIST;
}

int safeio_write_fd(int dirfd, const char *name, mode_t mode, int (*fill)(int fd, void *ctx),
		    void *ctx)
{
	char prefix[NAME_MAX + 1], tmp[NAME_MAX + 1];
	int fd, err;

	if (snprintf(prefix, sizeof(prefix), "%s.tmp.", name) >= (int)sizeof(prefix))
		return -ENAMETOOLONG;
	fd = safeio_tmp(dirfd, prefix, mode, tmp, sizeof(tmp));
	if (fd < 0)
		return fd;
	err = fill(fd, ctx);
	if (close(fd) && !err)
		err = -errno;
	if (!err && renameat(dirfd, tmp, dirfd, name))
		err = -errno;
	if (err)
		unlinkat(dirfd, tmp, 0);
	return err;
}

struct stream_fill {
	int (*fill)(FILE *f, void *ctx);
	void *ctx;
};

/* safeio_write's fill through a stream of its own on the descriptor (closed with it). */
static int fill_stream(int fd, void *ctx)
{
	const struct stream_fill *s = ctx;
	int dup_fd = dup(fd), err;
	FILE *f = dup_fd < 0 ? NULL : fdopen(dup_fd, "w");

	if (!f) {
		err = -errno;
		if (dup_fd >= 0)
			close(dup_fd);
		return err;
	}
	err = s->fill(f, s->ctx);
	if (fclose(f) && !err)
		err = -errno;
	return err;
}

int safeio_write(int dirfd, const char *name, mode_t mode, int (*fill)(FILE *f, void *ctx),
		 void *ctx)
{
	struct stream_fill s = {fill, ctx};

	return safeio_write_fd(dirfd, name, mode, fill_stream, &s);
}
