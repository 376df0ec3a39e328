// SPDX-License-Identifier: GPL-2.0-only
/*
 * diff --folded: each recording folded by symbols/folded_stacks.h as
 * kprotperf folded folds it, kernel frames without clone suffix, the two
 * merged line by line (both in byte order).
 */
#include "diff/diff_folded.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "data/datafile.h"
#include "symbols/folded_stacks.h"
#include "symbols/stacks.h"
#include "symbols/user_frames.h"
#include "util/array.h"

struct folded_line {
	char *line;
	long long n;
};

struct side {
	struct folded_line *v;
	size_t n, cap;
	long long total;
};

static int keep_line(const char *line, long long n, void *ctx)
{
	struct side *s = ctx;
	char *copy;

	if (array_reserve((void **)&s->v, &s->cap, s->n + 1, sizeof(*s->v)))
		return -ENOMEM;
	copy = strdup(line);
	if (!copy)
		return -ENOMEM;
	s->v[s->n++] = (struct folded_line){copy, n};
	/* data/ checked at open that the samples' counts, >= 0, sum within 2^63 */
	s->total += n;
	return 0;
}

static void side_free(struct side *s)
{
	size_t i;

	for (i = 0; i < s->n; i++)
		free(s->v[i].line);
	free(s->v);
}

/*
 * Kernel frames ("NAME_[k]", "NAME_[i]") without clone suffix: which clones
 * GCC makes and how it numbers them (.isra.0, .constprop.1) differs between
 * two builds of one function, whose stacks must meet.
 */
static void strip_clones(char *line)
{
	char *frame = line, *end, *dot;
	size_t n;

	for (; frame; frame = end ? end + 1 : NULL) {
		end = strchr(frame, ';');
		n = end ? (size_t)(end - frame) : strlen(frame);
		if (n < 5 ||
		    (strncmp(frame + n - 4, "_[k]", 4) && strncmp(frame + n - 4, "_[i]", 4)))
			continue;
		dot = memchr(frame, '.', n - 4);
		if (!dot || dot == frame)
			continue;
		memmove(dot, frame + n - 4, strlen(frame + n - 4) + 1);
		end = strchr(dot, ';');
	}
}

static int cmp_line(const void *a, const void *b)
{
	return strcmp(((const struct folded_line *)a)->line, ((const struct folded_line *)b)->line);
}

/* The lines stripped of clone suffixes, sorted again, and those now alike added up. */
static void merge_clones(struct side *s)
{
	size_t i, out = 0;

	for (i = 0; i < s->n; i++)
		strip_clones(s->v[i].line);
	if (s->n)
		qsort(s->v, s->n, sizeof(*s->v), cmp_line);
	for (i = 0; i < s->n; i++) {
		if (out && !strcmp(s->v[out - 1].line, s->v[i].line)) {
			s->v[out - 1].n += s->v[i].n;
			free(s->v[i].line);
			continue;
		}
		s->v[out++] = s->v[i];
	}
	s->n = out;
}

static int load_side(struct side *s, struct datafile *df, struct kernel_dwarf *kd,
		     struct user_files *uf, const struct folded_frames *fr)
{
	int err = stacks_name_frames(df, kd, uf) ?: folded_events(df, fr, keep_line, s);

	if (!err)
		merge_clones(s);
	return err;
}

/*
 * flamegraph.pl reads either count column as \d+(\.\d*)?, so a normalized
 * count is printed with two decimals (trailing zeros dropped, never an
 * exponent): a stack with few samples does not round away to 0, and the
 * column still sums to the base total within rounding.
 */
static void put_scaled(FILE *out, double v)
{
	char buf[64];
	int n = snprintf(buf, sizeof(buf), "%.2f", v);

	while (buf[n - 1] == '0')
		buf[--n] = 0;
	if (buf[n - 1] == '.')
		buf[--n] = 0;
	fprintf(out, " %s", buf);
}

/* scale < 0: the hardened counts as they are. */
static int print_merged(const struct side *b, const struct side *h, double scale, FILE *out)
{
	size_t i = 0, j = 0;
	long long bn, hn;
	int c;

	while (i < b->n || j < h->n) {
		c = i == b->n ? 1 : j == h->n ? -1 : strcmp(b->v[i].line, h->v[j].line);
		bn = c <= 0 ? b->v[i].n : 0;
		hn = c >= 0 ? h->v[j].n : 0;
		fprintf(out, "%s %lld", c <= 0 ? b->v[i].line : h->v[j].line, bn);
		if (scale < 0)
			fprintf(out, " %lld", hn);
		else
			put_scaled(out, hn * scale);
		fputc('\n', out);
		i += c <= 0;
		j += c >= 0;
	}
	return ferror(out) ? -EIO : 0;
}

int diff_folded(struct datafile *base, struct kernel_dwarf *kd_base, struct datafile *hard,
		struct kernel_dwarf *kd_hard, bool normalize, FILE *out)
{
	struct folded_frames fr = {.user = true, .kernel = true, .inlines = true};
	/* both sides' files opened once: two recordings of one workload share them */
	struct user_files *uf = user_files_new();
	struct side b = {}, h = {};
	double scale = -1;
	int err = uf ? 0 : -ENOMEM;

	err = err ?: load_side(&b, base, kd_base, uf, &fr) ?: load_side(&h, hard, kd_hard, uf, &fr);
	user_files_free(uf);
	if (err)
		goto out;
	/* scaled as doubles, rounded only when printed */
	if (normalize && h.total)
		scale = (double)b.total / h.total;
	err = print_merged(&b, &h, scale, out);
out:
	side_free(&b);
	side_free(&h);
	return err;
}
