// SPDX-License-Identifier: GPL-2.0-only
/* The functions inlined at user frames, from each mapped file's DWARF (user_frames.h). */
#include "symbols/user_frames.h"

#include <errno.h>
#include <limits.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <sys/stat.h>

#include "data/datafile.h"
#include "data/samples.h"
#include "symbols/debuginfo.h"
#include "symbols/elfsym.h"
#include "symbols/inline_rows.h"
#include "symbols/symbolize.h"
#include "util/array.h"

void user_file_close(struct user_file *f)
{
	symbolizer_free(f->sym);
	debuginfo_close(f->di);
	elfsym_free(f->segs);
	free(f->skipped);
	free(f->bid);
	free(f->path);
	*f = (struct user_file){};
}

/*
 * The DWARF of the file open at fd (taken): its debug file by build id
 * (under symfs), else its own.  Each file is opened once: the debug file
 * is checked and read on one descriptor, the file's own on fd.
 */
static int open_dwarf(struct user_file *f, const char *file, int fd, const char *symfs)
{
	struct debuginfo_skip skip = {};
	char dbg[PATH_MAX];

	if (!debuginfo_find_open(&f->di, symfs, NULL, elfsym_bid(f->segs), NULL, dbg, sizeof(dbg),
				 &skip))
		close(fd);
	else
		debuginfo_open_elf(&f->di, file, fd);
	/* kept for the report's note: a broken debug file must not pass unseen */
	if (skip.err) {
		f->skipped = strdup(skip.path);
		f->skip_err = skip.err;
		if (!f->skipped)
			return -ENOMEM;
	}
	return f->di ? symbolizer_new(&f->sym, f->di) : 0;
}

int user_frames_path(const char *symfs, const char *path, char *out, size_t len)
{
	const char *c;
	int ret;

	/* ".." is only a way out of symfs: the recorded paths are the kernel's, without any */
	for (c = path; symfs && (c = strstr(c, "..")); c += 2) {
		if ((c == path || c[-1] == '/') && (c[2] == '/' || !c[2]))
			return -EPERM;
	}
	ret = snprintf(out, len, "%s%s%s", symfs ?: "", symfs && *path != '/' ? "/" : "", path);
	return ret < 0 || (size_t)ret >= len ? -ENAMETOOLONG : 0;
}

int user_file_open(struct user_file *f, const char *path, const char *bid, const char *symfs)
{
	char file[PATH_MAX];
	struct stat st;
	int fd, err;

	user_file_close(f);
	f->path = strdup(path);
	f->bid = strdup(bid);
	if (!f->path || !f->bid)
		return -ENOMEM;
	/* the path is the data file's: opening a FIFO or a device would hang or read it */
	if (user_frames_path(symfs, path, file, sizeof(file)) || stat(file, &st) ||
	    !S_ISREG(st.st_mode))
		return 0;
	err = elfsym_open_segs(file, bid, &fd, &f->segs);
	if (err)
		return err == -ENOMEM ? err : 0;
	return open_dwarf(f, file, fd, symfs);
}

bool user_file_is(const struct user_file *f, const char *path, const char *bid)
{
	return f->path && !strcmp(f->path, path) && !strcmp(f->bid, bid);
}

int user_file_symbolize(struct user_file *f, __u64 off, const struct sym_result **r)
{
	__u64 vaddr;

	/* an offset in no segment of the file is no address of its code */
	if (!f->sym || !elfsym_vaddr(f->segs, off, &vaddr))
		return -ENOENT;
	return symbolize(f->sym, vaddr, r);
}

/* The files a command has opened, each once, in the order first needed. */
struct user_files {
	struct user_file *v;
	size_t n, cap;
};

struct user_files *user_files_new(void)
{
	return calloc(1, sizeof(struct user_files));
}

void user_files_free(struct user_files *uf)
{
	size_t i;

	if (!uf)
		return;
	for (i = 0; i < uf->n; i++)
		user_file_close(&uf->v[i]);
	free(uf->v);
	free(uf);
}

const char *user_files_skipped(const struct user_files *uf, size_t i, int *err)
{
	size_t k, j;

	for (k = 0; uf && k < uf->n; k++) {
		const char *p = uf->v[k].skipped;

		/* files of one build id share their debug file: named once */
		for (j = 0; p && j < k; j++)
			if (uf->v[j].skipped && !strcmp(uf->v[j].skipped, p))
				p = NULL;
		if (p && !i--) {
			*err = uf->v[k].skip_err;
			return p;
		}
	}
	return NULL;
}

int user_files_get(struct user_files *uf, const char *path, const char *bid, const char *symfs,
		   struct user_file **out)
{
	size_t i;
	int err;

	/* a handful of files a recording: a scan beats a hash */
	for (i = 0; i < uf->n; i++) {
		if (user_file_is(&uf->v[i], path, bid)) {
			*out = &uf->v[i];
			return 0;
		}
	}
	if (array_reserve((void **)&uf->v, &uf->cap, uf->n + 1, sizeof(*uf->v)))
		return -ENOMEM;
	uf->v[uf->n] = (struct user_file){};
	/* kept even when it failed: a file that is not there is not looked for twice */
	err = user_file_open(&uf->v[uf->n], path, bid, symfs);
	*out = &uf->v[uf->n++];
	return err;
}

struct unamer {
	struct datafile *df;
	const char *symfs; /* datafile_symfs(df) */
	struct user_files *uf;
};

static int name_uframe(const struct samples_uframe *u, void *ctx)
{
	struct unamer *n = ctx;
	struct samples_frame at = {.user = true, .stack = u->stack, .depth = u->depth};
	const struct sym_result *r;
	const struct sym_frame *fn;
	struct user_file *f;
	int err;

	err = user_files_get(n->uf, u->path, u->bid, n->symfs, &f);
	if (err)
		return err;
	err = user_file_symbolize(f, u->off, &r);
	if (err == -ENOENT)
		return 0;
	if (err || !r->n)
		return err;
	/* the function itself, whose row is named by the recorded symbol */
	fn = &r->frames[r->n - 1];
	at.func_die = fn->inlined ? 0 : fn->die;
	at.file = fn->file;
	at.line = fn->line;
	at.leaf = r->n == 1;
	return samples_set_user_frame(n->df, &at) ?: inline_rows_put(n->df, &at, r);
}

int user_frames_name(struct datafile *df, struct user_files *uf)
{
	struct unamer n = {.df = df, .symfs = datafile_symfs(df), .uf = uf};

	return uf ? samples_uframes(df, name_uframe, &n) : 0;
}

int user_frames_name_file(struct datafile *df, struct user_files *uf, const char *path,
			  const char *bid)
{
	struct unamer n = {.df = df, .symfs = datafile_symfs(df), .uf = uf};

	return samples_umodule_frames(df, path, bid, name_uframe, &n);
}
