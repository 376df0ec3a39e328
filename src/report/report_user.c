// SPDX-License-Identifier: GPL-2.0-only
/*
 * Reading a user file's DWARF (libc's: megabytes to decompress) costs far
 * more than the rest of a report, yet its inline rows only show when they
 * rank among the top rows.  Each row of what was inlined in a file holds at
 * most the samples of the file's frames: the samples with the leaf there
 * (self) and those of the stacks through it (total), and a row of the same
 * name from several files at most their sum.  So the files are read, most
 * samples first, only while the rows still unread could reach the top.
 */
#include "report/report_user.h"

#include <errno.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

#include "data/samples.h"
#include "symbols/debuginfo.h"
#include "symbols/user_frames.h"
#include "util/array.h"
#include "util/esc.h"
#include "util/json.h"

struct umod {
	char *path, *bid;
	long long self, total;
};

struct umods {
	struct umod *v;
	size_t n, cap;
};

static int add_umod(const struct samples_umodule *m, void *ctx)
{
	struct umods *l = ctx;
	struct umod *u;

	if (array_reserve((void **)&l->v, &l->cap, l->n + 1, sizeof(*l->v)))
		return -ENOMEM;
	u = &l->v[l->n++];
	*u = (struct umod){strdup(m->path), strdup(m->bid), m->self, m->total};
	return u->path && u->bid ? 0 : -ENOMEM;
}

/* The table as the files read so far make it. */
struct standing {
	long long top, n;		 /* rows wanted, rows seen */
	long long nth_self, nth_total;	 /* the last row shown */
	bool inl_shown;			 /* an inline row among those shown */
	long long best_self, best_total; /* the first inline row past them */
	bool inl_below;
};

static bool inlined(const char *name)
{
	static const char tail[] = " [inlined]";
	size_t n = strlen(name), k = sizeof(tail) - 1;

	return n >= k && !strcmp(name + n - k, tail);
}

static int stand_row(const struct samples_func *fn, void *ctx)
{
	struct standing *s = ctx;
	bool inl = inlined(fn->name);

	if (++s->n <= s->top) {
		s->inl_shown |= inl;
		s->nth_self = fn->self;
		s->nth_total = fn->total;
		return 0;
	}
	if (!inl)
		return 0;
	/* rows come best first: the first inline row past the top is the best of them */
	s->inl_below = true;
	s->best_self = fn->self;
	s->best_total = fn->total;
	return 1;
}

/*
 * Whether a row could change among those shown when files holding at most
 * self and total samples are read: an inline row shown could grow (its name
 * may be in them too), and one past the top or new could rise to a tie,
 * which its name might win.
 */
static bool may_change(const struct standing *s, long long self, long long total)
{
	if (s->n < s->top || s->inl_shown)
		return true;
	self += s->inl_below ? s->best_self : 0;
	total += s->inl_below ? s->best_total : 0;
	return self > s->nth_self || (self == s->nth_self && total >= s->nth_total);
}

static int need_more(struct datafile *df, int top, long long self, long long total, bool *more)
{
	struct standing s = {.top = top};
	int err = samples_functions(df, "u", -1, true, stand_row, &s);

	*more = may_change(&s, self, total);
	return err > 0 ? 0 : err;
}

int report_user_frames(struct datafile *df, struct user_files *uf, int top)
{
	struct umods l = {};
	long long self = 0, total = 0;
	bool more = true;
	size_t i;
	int err;

	err = samples_umodules_create(df) ?: samples_umodules(df, add_umod, &l);
	for (i = 0; i < l.n; i++) {
		self += l.v[i].self;
		total += l.v[i].total;
	}
	/* most samples first: the first read is the likeliest to show */
	for (i = 0; !err && i < l.n; i++) {
		err = need_more(df, top, self, total, &more);
		if (err || !more)
			break;
		err = user_frames_name_file(df, uf, l.v[i].path, l.v[i].bid);
		self -= l.v[i].self;
		total -= l.v[i].total;
	}
	for (i = 0; i < l.n; i++) {
		free(l.v[i].path);
		free(l.v[i].bid);
	}
	free(l.v);
	return err;
}

void report_user_notes(const struct user_files *uf, FILE *f, struct json *j)
{
	const char *path;
	size_t i;
	int err;

	for (i = 0; (path = user_files_skipped(uf, i, &err)); i++) {
		if (!j) {
			esc_printf(f, "# debug file skipped, inline frames not shown: %s: %s\n",
				   path, debuginfo_skip_why(err));
			continue;
		}
		if (!i)
			json_open(j, "skipped", '[');
		json_open(j, NULL, '{');
		json_str(j, "file", path);
		json_str(j, "why", debuginfo_skip_why(err));
		json_close(j, '}');
	}
	if (j && i)
		json_close(j, ']');
}
