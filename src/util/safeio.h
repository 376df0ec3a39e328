/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * Files at paths a user gives, read and written so that neither can be
 * turned against kprotperf when it runs as root:
 * - a text input must be a regular file of at most SAFEIO_TEXT_MAX bytes:
 *   a device, FIFO or folder is refused at once, not read for ever;
 * - an output goes into a folder no other user can write (one could
 *   replace or redirect what is written there), under a fresh temporary
 *   name made with O_EXCL | O_NOFOLLOW (a link planted there is never
 *   followed), renamed into place once complete (no half-written file);
 * - a file kprotperf finds beside itself is read through no link, and only
 *   when no other user could have put it or a folder on its way there.
 * Errors: -errno, and why, one line naming the file or folder, when errno
 * alone would not say it.
 */
#ifndef KP_SAFEIO_H
#define KP_SAFEIO_H

#include <stddef.h>
#include <stdio.h>
#include <sys/stat.h>
#include <sys/types.h>

/* scenarios, templates and feature maps are a few KiB */
#define SAFEIO_TEXT_MAX (16 << 20)

/*
 * path opened for reading, O_CLOEXEC, if a regular file (st: its stat): fd
 * or -errno; why says "not a regular file" for -EINVAL, the one it sets.
 */
int safeio_open_regular(const char *path, struct stat *st, char *why, size_t len);
/*
 * dir/rel (names, no "..") opened for reading, O_CLOEXEC, if a regular
 * file: fd, or -errno and why (the part refused) when a folder under dir or
 * the file is a symbolic link (none is followed) or of the wrong type, or
 * when someone but root, this process's user and owner could change dir,
 * a folder on the way or the file.
 */
int safeio_open_beneath(const char *dir, const char *rel, uid_t owner, char *why, size_t len);
/* A regular file of at most SAFEIO_TEXT_MAX bytes as a stream in memory; NULL, errno set. */
FILE *safeio_fopen_text(const char *path, char *why, size_t len);

/*
 * dir opened to write into: refused (-EPERM) when it belongs to someone but
 * root, this process's user or owner (-1: none; the user an output is for),
 * or when group or others can write it and it is not sticky.  fd or -errno.
 */
int safeio_dir(const char *dir, uid_t owner, char *why, size_t len);
/* safeio_dir on path's folder; *name: path's last part. */
int safeio_dir_of(const char *path, uid_t owner, const char **name, char *why, size_t len);
/* Folder name in fd, made (0755) when absent and opened through no link: fd or -errno. */
int safeio_subdir(int fd, const char *name);
/* A new file in dirfd, prefix and six random characters (into name): fd or -errno. */
int safeio_tmp(int dirfd, const char *prefix, mode_t mode, char *name, size_t len);
/* name in dirfd written through its descriptor by fill (0 or -errno) whole, or left as it was. */
int safeio_write_fd(int dirfd, const char *name, mode_t mode, int (*fill)(int fd, void *ctx),
		    void *ctx);
/* name in dirfd written by fill (0 or -errno) whole, or left as it was. */
int safeio_write(int dirfd, const char *name, mode_t mode, int (*fill)(FILE *f, void *ctx),
		 void *ctx);

#endif
