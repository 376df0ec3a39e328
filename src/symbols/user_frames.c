// SPDX-License-Identifier: GPL-2.0-only
/* The functions inlined at user frames, from each mapped file's DWARF (user_frames.h). */
#include "symbols/user_frames.h"

#include <errno.h>
#include <limits.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "data/datafile.h"
#include "data/samples.h"
#include "symbols/debuginfo.h"
#include "symbols/elfsym.h"
#include "symbols/inline_rows.h"
#include "symbols/symbolize.h"

void user_file_close(struct user_file *f)
{
	symbolizer_free(f->sym);
	debuginfo_close(f->di);
	elfsym_free(f->segs);
	free(f->bid);
	free(f->path);
	*f = (struct user_file){};
}

/* The DWARF of the file: its debug file by build id (under symfs), else its own. */
static int open_dwarf(struct user_file *f, const char *file, const char *symfs)
{
	char dbg[PATH_MAX];

	if (debuginfo_find_sysroot(symfs, NULL, elfsym_bid(f->segs), NULL, dbg, sizeof(dbg)) ||
	    debuginfo_open(&f->di, dbg))
		debuginfo_open(&f->di, file);
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
	int err;

	user_file_close(f);
	f->path = strdup(path);
	f->bid = strdup(bid);
	if (!f->path || !f->bid)
		return -ENOMEM;
	/* the path is the data file's: opening a FIFO or a device would hang or read it */
	if (user_frames_path(symfs, path, file, sizeof(file)) || stat(file, &st) ||
	    !S_ISREG(st.st_mode))
		return 0;
	err = elfsym_open(file, bid, symfs, &f->segs);
	if (err)
		return err == -ENOMEM ? err : 0;
	return open_dwarf(f, file, symfs);
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

struct unamer {
	struct datafile *df;
	const char *symfs; /* datafile_symfs(df) */
	struct user_file f;
};

static int name_uframe(const struct samples_uframe *u, void *ctx)
{
	struct unamer *n = ctx;
	struct user_file *f = &n->f;
	struct samples_frame at = {.user = true, .stack = u->stack, .depth = u->depth};
	const struct sym_result *r;
	const struct sym_frame *fn;
	int err;

	if (!user_file_is(f, u->path, u->bid)) {
		err = user_file_open(f, u->path, u->bid, n->symfs);
		if (err)
			return err;
	}
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

int user_frames_name(struct datafile *df)
{
	struct unamer n = {.df = df, .symfs = datafile_symfs(df)};
	int err = samples_uframes(df, name_uframe, &n);

	user_file_close(&n.f);
	return err;
}
