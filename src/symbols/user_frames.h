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

#include <stdbool.h>
#include <stddef.h>
#include <linux/types.h>

struct datafile;
struct debuginfo;
struct elfsym;
struct sym_result;
struct symbolizer;

/* One mapped file, known by its recorded path and build id, and its DWARF. */
struct user_file {
	char *path, *bid;	/* as recorded; NULL before the first open */
	struct elfsym *segs;	/* its segments, to turn file offsets into addresses */
	struct debuginfo *di;	/* NULL: no DWARF to be had */
	struct symbolizer *sym; /* NULL with di */
	char *skipped;		/* a debug file found but not read, else NULL */
	int skip_err;		/* why (debuginfo_skip_why()) */
};

/*
 * f (closed first) for the file recorded at path: its DWARF when the file
 * is there (under symfs, when not NULL), is the recorded build (elfsym_open
 * refuses another build id) and has any.  0 also when it has none (f->sym
 * NULL); -ENOMEM.
 */
int user_file_open(struct user_file *f, const char *path, const char *bid, const char *symfs);
void user_file_close(struct user_file *f);
/* Whether f is open for the file recorded at path with build id bid. */
bool user_file_is(const struct user_file *f, const char *path, const char *bid);
/* The inline chain at file offset off: -ENOENT without DWARF or outside the file's segments. */
int user_file_symbolize(struct user_file *f, __u64 off, const struct sym_result **r);

/*
 * The file to read for path, a mapped file's as the data file recorded it,
 * into out: symfs/path, or path itself when symfs is NULL.  The path is
 * untrusted: with a symfs, one with a ".." component, which could lead out
 * of it, is refused with -EPERM; -ENAMETOOLONG when out is too short.
 */
int user_frames_path(const char *symfs, const char *path, char *out, size_t len);

/*
 * The user files a command has opened, each opened once and kept for every
 * view and recording that needs it (diff's two sides share their libc).
 * Owned by the command's view, freed after its last use.
 */
struct user_files;
struct user_files *user_files_new(void);
void user_files_free(struct user_files *uf);
/*
 * The file recorded at path with build id bid into *out: opened the first
 * time (user_file_open(), its error returned then, the failed file kept
 * so that it is not tried again), else the one opened before.
 */
int user_files_get(struct user_files *uf, const char *path, const char *bid, const char *symfs,
		   struct user_file **out);
/*
 * The i-th debug file (0, 1, ...) uf's files skipped, each path once, NULL
 * past the last (and with uf NULL); *err: why, for debuginfo_skip_why().
 */
const char *user_files_skipped(const struct user_files *uf, size_t i, int *err);

/*
 * Add to the frames table (as samples_frames_create() made it) the rows of
 * the functions inlined at each user frame, and the file:line of the frame
 * itself, from the files of uf.  uf NULL: none, for the views that show
 * neither (their user rows are named by the recorded symbols alone), and
 * no file is read.  Files that are gone, another build or without DWARF
 * are left as they are; only -ENOMEM and the data file's errors are
 * returned.
 */
int user_frames_name(struct datafile *df, struct user_files *uf);
/*
 * The same for the frames of one file (path, build id "" when unknown) of
 * samples_umodules(), after samples_umodules_create().
 */
int user_frames_name_file(struct datafile *df, struct user_files *uf, const char *path,
			  const char *bid);

#endif
