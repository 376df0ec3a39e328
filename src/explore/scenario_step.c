// SPDX-License-Identifier: GPL-2.0-only
/*
 * What the actions' steps share (scenario_int.h): counting syscall errors,
 * failing, buffers, memory and descriptors for the step, and pumping bytes
 * through a channel.
 */
#include "explore/scenario_int.h"

#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

/* The most pumped at once: a pipe's default capacity. */
#define PUMP_PIECE 65536

void scn_err(struct scn_run *r, const char *call, int err)
{
	struct scn_tally *t = r->tally;
	size_t i;

	for (i = 0; i < t->kinds; i++) {
		if (t->e[i].step == t->step && t->e[i].err == err && !strcmp(t->e[i].call, call)) {
			t->e[i].n++;
			return;
		}
	}
	if (t->kinds == SCN_ERR_KINDS) {
		t->other++;
		return;
	}
	t->e[t->kinds].step = t->step;
	t->e[t->kinds].call = call;
	t->e[t->kinds].err = err;
	t->e[t->kinds++].n = 1;
}

int scn_fail(struct scn_run *r, const char *fmt, ...)
{
	const struct scn_step *st = &r->s->step[r->tally->step];
	va_list ap;

	fprintf(stderr, "kprotperf scenario: step %d (%s): ", r->tally->step + 1,
		r->t->v[st->tpl].act->name);
	va_start(ap, fmt);
	vfprintf(stderr, fmt, ap);
	va_end(ap);
	fputc('\n', stderr);
	return -1;
}

char *scn_buffer(struct scn_run *r, size_t size)
{
	char *p;

	/* a buffer even for no bytes: NULL says there is none */
	size = size ?: 1;
	if (size <= r->cap)
		return r->buf;
	p = realloc(r->buf, size);
	if (!p) {
		scn_err(r, "malloc", ENOMEM);
		return NULL;
	}
	/* the bytes written are the same on every run */
	memset(p + r->cap, 0, size - r->cap);
	r->buf = p;
	r->cap = size;
	return p;
}

bool scn_room(struct scn_run *r, long long size, const char *call)
{
	if ((unsigned long long)size <= r->room) {
		r->room -= size;
		return true;
	}
	scn_err(r, call, ENOSPC);
	return false;
}

void *scn_alloc(struct scn_run *r, size_t n)
{
	void *p = malloc(n);

	if (!p)
		scn_err(r, "malloc", ENOMEM);
	return p;
}

int *scn_fds(struct scn_run *r, size_t n)
{
	int *fds = scn_alloc(r, n * sizeof(*fds));

	/* all bytes 0xff: every int -1 */
	if (fds)
		memset(fds, 0xff, n * sizeof(*fds));
	return fds;
}

void scn_close_all(int *fds, size_t n)
{
	size_t i;

	for (i = 0; i < n; i++)
		if (fds[i] >= 0)
			close(fds[i]);
}

void scn_pump(struct scn_run *r, int wfd, int rfd, long long size, const char *wcall,
	      const char *rcall)
{
	size_t piece = size < PUMP_PIECE ? size : PUMP_PIECE;
	char *buf = scn_buffer(r, piece);
	ssize_t w, n, got;

	while (buf && size > 0) {
		w = write(wfd, buf, size < (long long)piece ? (size_t)size : piece);
		if (w <= 0) {
			scn_err(r, wcall, w ? errno : EIO);
			return;
		}
		/* what went in is there to read at once: a pipe or a socket of this process */
		for (got = 0; got < w; got += n) {
			n = read(rfd, buf + got, w - got);
			if (n <= 0) {
				scn_err(r, rcall, n ? errno : EIO);
				return;
			}
		}
		size -= w;
	}
}
