// SPDX-License-Identifier: GPL-2.0-only
/*
 * Where a counted PC is in the source (model_annotate_int.h): kernel PCs
 * through the kernel's DWARF, user PCs through the mapping that holds them
 * (the recording's maps, read once) and their file's DWARF.
 */
#include "model/model_annotate_int.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "data/datafile.h"
#include "symbols/kernel_dwarf.h"
#include "symbols/symbolize.h"
#include "util/array.h"

char *model_inlined_chain(const struct sym_result *r)
{
	size_t len = 1, at = 0;
	unsigned int i;
	char *s;

	for (i = 0; i + 1 < r->n; i++)
		len += strlen(r->frames[i].func ?: "?") + 1;
	s = malloc(len);
	if (!s)
		return NULL;
	*s = 0;
	for (i = r->n > 1 ? r->n - 1 : 0; i-- > 0;)
		at += snprintf(s + at, len - at, "%s%s", at ? ";" : "", r->frames[i].func ?: "?");
	return s;
}

static int map_row(const struct model_map *m, void *ctx)
{
	struct model_map_list *l = ctx;
	struct model_map *d;

	if (array_reserve((void **)&l->m, &l->cap, l->n + 1, sizeof(*l->m)))
		return -ENOMEM;
	d = &l->m[l->n];
	*d = *m;
	d->path = strdup(m->path);
	d->build_id = strdup(m->build_id);
	if (!d->path || !d->build_id) {
		free((char *)d->path);
		free((char *)d->build_id);
		return -ENOMEM;
	}
	l->n++;
	return 0;
}

void model_map_list_free(struct model_map_list *l)
{
	size_t i;

	for (i = 0; i < l->n; i++) {
		free((char *)l->m[i].path);
		free((char *)l->m[i].build_id);
	}
	free(l->m);
}

/* A user PC of the file at path: through the mapping that holds it, at its file offset. */
static int user_place(struct model_ann *a, __u64 pc, const char *path, const struct sym_result **r)
{
	const struct model_map *m = NULL;
	size_t i;
	int err;

	for (i = 0; i < a->maps.n && !m; i++)
		if (pc >= a->maps.m[i].start && pc < a->maps.m[i].end &&
		    !strcmp(a->maps.m[i].path, path))
			m = &a->maps.m[i];
	if (!m)
		return -ENOENT;
	if (!user_file_is(&a->uf, m->path, m->build_id)) {
		err = user_file_open(&a->uf, m->path, m->build_id, datafile_symfs(a->df));
		if (err)
			return err;
	}
	return user_file_symbolize(&a->uf, pc - m->start + m->pgoff, r);
}

int model_pc_place(struct model_ann *a, __u64 pc, const char *module, const struct sym_result **r)
{
	int err;

	if (pc >= MODEL_KERNEL_START) {
		if (!a->kd || strcmp(module, "[kernel]"))
			return -ENOENT;
		err = kernel_dwarf_symbolize(a->kd, pc, r);
	} else {
		err = *module == '/' ? user_place(a, pc, module, r) : -ENOENT;
	}
	return err;
}

int model_map_list_read(struct datafile *df, struct model_map_list *l)
{
	return model_maps(df, map_row, l);
}

int model_place_open(struct model_ann *a)
{
	return model_map_list_read(a->df, &a->maps);
}

void model_place_close(struct model_ann *a)
{
	user_file_close(&a->uf);
	model_map_list_free(&a->maps);
}
