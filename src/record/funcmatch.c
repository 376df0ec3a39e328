// SPDX-License-Identifier: GPL-2.0-only
/*
 * --func patterns matched over the kernel's symbols: the targets they name,
 * clones folded in (util/funcname.h), and suggestions for a name matching nothing.
 */
#include "record/funcmatch.h"

#include <errno.h>
#include <fnmatch.h>
#include <stdlib.h>
#include <string.h>

#include "symbols/ksyms.h"
#include "util/funcname.h"

static bool matches(const char *pattern, const char *sym, size_t base)
{
	char name[64];

	if (!fnmatch(pattern, sym, 0))
		return true;
	if (base >= sizeof(name))
		return false;
	memcpy(name, sym, base);
	name[base] = 0;
	return !fnmatch(pattern, name, 0);
}

static struct func_target *target_of(struct func_target **t, size_t *n, const char *sym,
				     size_t base)
{
	struct func_target *tmp;
	size_t i;

	for (i = 0; i < *n; i++)
		if (strlen((*t)[i].name) == base && !strncmp((*t)[i].name, sym, base))
			return &(*t)[i];
	tmp = realloc(*t, (*n + 1) * sizeof(**t));
	if (!tmp)
		return NULL;
	*t = tmp;
	tmp = &tmp[(*n)++];
	memset(tmp, 0, sizeof(*tmp));
	memcpy(tmp->name, sym, base < sizeof(tmp->name) ? base : sizeof(tmp->name) - 1);
	tmp->clone = true;
	return tmp;
}

static int add_sym(struct func_target *t, const struct ksym *k)
{
	struct func_sym *s;
	size_t i;

	for (i = 0; i < t->nsyms; i++)
		if (t->syms[i].addr == k->addr)
			return 0;
	s = realloc(t->syms, (t->nsyms + 1) * sizeof(*s));
	if (!s)
		return -ENOMEM;
	t->syms = s;
	t->syms[t->nsyms++] = (struct func_sym){k->name, k->module, k->addr};
	if (!strcmp(k->name, t->name))
		t->clone = false;
	return 0;
}

/* Where the function has a symbol of its own, its clones are parts of it, not entries. */
static void drop_clones(struct func_target *t)
{
	size_t i, out = 0;

	if (t->clone)
		return;
	for (i = 0; i < t->nsyms; i++)
		if (!strcmp(t->syms[i].symbol, t->name))
			t->syms[out++] = t->syms[i];
	t->nsyms = out;
}

static int match_one(const struct ksyms *ks, const char *pattern, struct func_target **t, size_t *n,
		     bool *hit)
{
	const struct ksym *k;
	struct func_target *ft;
	size_t i, base;
	int err;

	for (i = 0; (k = ksyms_at(ks, i)); i++) {
		base = funcname_base_len(k->name);
		if (!base || !matches(pattern, k->name, base))
			continue;
		ft = target_of(t, n, k->name, base);
		if (!ft)
			return -ENOMEM;
		err = add_sym(ft, k);
		if (err)
			return err;
		*hit = true;
	}
	return 0;
}

static int cmp_target(const void *a, const void *b)
{
	return strcmp(((const struct func_target *)a)->name, ((const struct func_target *)b)->name);
}

int func_match(const struct ksyms *ks, char *const *patterns, int n, struct func_target **out,
	       size_t *nout, const char **bad)
{
	struct func_target *t = NULL;
	size_t nt = 0, i;
	bool hit;
	int p, err = 0;

	for (p = 0; p < n && !err; p++) {
		hit = false;
		err = match_one(ks, patterns[p], &t, &nt, &hit);
		if (!err && !hit) {
			*bad = patterns[p];
			err = -ENOENT;
		}
	}
	if (err) {
		func_targets_free(t, nt);
		return err;
	}
	for (i = 0; i < nt; i++)
		drop_clones(&t[i]);
	qsort(t, nt, sizeof(*t), cmp_target);
	*out = t;
	*nout = nt;
	return 0;
}

void func_targets_free(struct func_target *t, size_t n)
{
	size_t i;

	for (i = 0; i < n; i++)
		free(t[i].syms);
	free(t);
}

/* Edit distance, for suggesting what a mistyped name was meant to be. */
static int distance(const char *a, size_t la, const char *b, size_t lb)
{
	int row[64], prev, tmp, best;
	size_t i, j;

	if (la >= 64 || lb >= 64)
		return 1 << 20;
	for (j = 0; j <= lb; j++)
		row[j] = j;
	for (i = 1; i <= la; i++) {
		prev = row[0];
		row[0] = i;
		for (j = 1; j <= lb; j++) {
			tmp = row[j];
			best = prev + (a[i - 1] != b[j - 1]);
			if (row[j] + 1 < best)
				best = row[j] + 1;
			if (row[j - 1] + 1 < best)
				best = row[j - 1] + 1;
			row[j] = best;
			prev = tmp;
		}
	}
	return row[lb];
}

static void keep_best(char best[][64], int *dist, int k, int *found, const char *name, size_t len,
		      int d)
{
	int i, j;

	for (i = 0; i < *found; i++)
		if (strlen(best[i]) == len && !strncmp(best[i], name, len))
			return;
	for (i = 0; i < *found && dist[i] <= d; i++)
		;
	if (i >= k)
		return;
	for (j = (*found < k ? *found : k - 1); j > i; j--) {
		memcpy(best[j], best[j - 1], 64);
		dist[j] = dist[j - 1];
	}
	memcpy(best[i], name, len);
	best[i][len] = 0;
	dist[i] = d;
	if (*found < k)
		(*found)++;
}

int func_closest(const struct ksyms *ks, const char *name, char best[][64], int k)
{
	int dist[16], found = 0, d;
	const struct ksym *s;
	size_t i, base, len = strlen(name);

	if (k > 16)
		k = 16;
	for (i = 0; (s = ksyms_at(ks, i)); i++) {
		base = funcname_base_len(s->name);
		if (!base || base >= 64)
			continue;
		d = distance(name, len, s->name, base);
		if (found < k || d < dist[found - 1])
			keep_best(best, dist, k, &found, s->name, base, d);
	}
	return found;
}
