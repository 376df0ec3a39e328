/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * The functions inlined at a recording's user frames, from the DWARF of the
 * files their code is mapped from: the debug file of the file's build id
 * under /usr/lib/debug/.build-id when installed, else the file itself.
 * Looked up when reading the recording, not when recording it: record's cost
 * and the data file stay as they are, and a file rebuilt since (another
 * build id) gets no inline frames rather than wrong ones.  With a symfs
 * (datafile_set_symfs()), both the files and the debug files are looked up
 * under it, and nowhere else, as perf --symfs does.
 */
#ifndef KP_USER_FRAMES_H
#define KP_USER_FRAMES_H

#include <stddef.h>

struct datafile;

/*
 * The file to read for path, a mapped file's as the data file recorded it,
 * into out: symfs/path, or path itself when symfs is NULL.  The path is
 * untrusted: with a symfs, one with a ".." component, which could lead out
 * of it, is refused with -EPERM; -ENAMETOOLONG when out is too short.
 */
int user_frames_path(const char *symfs, const char *path, char *out, size_t len);

/*
 * Add to the frames table (as samples_frames_create() made it) the rows of
 * the functions inlined at each user frame, and the file:line of the frame
 * itself.  Files that are gone, another build or without DWARF are left
 * as they are; only -ENOMEM and the data file's errors are returned.
 */
int user_frames_name(struct datafile *df);

#endif
