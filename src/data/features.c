// SPDX-License-Identifier: GPL-2.0-only
/*
 * The feature mapping: share/features.conf (its header documents the format
 * and the roll-up rule), compiled in, or a user's file in its place.
 */
#include <errno.h>
#include <fnmatch.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "util/array.h"
#include "data/features.h"
#include "util/textline.h"
#include "features_conf.h"

/* kallsyms' KSYM_NAME_LEN: no function name is longer */
#define NAME_MAX_LEN 512
#define NAME_CHARS   "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789_-"
#define CONFIG_CHARS "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789_"

struct feature {
	char *name;
	char *about;
	char **globs;
	size_t nglobs, cap;
	char **configs; /* Kconfig options without CONFIG_ */
	size_t nconfigs, ccap;
};

struct features {
	struct feature *v;
	size_t n, cap;
};

struct parser {
	struct features *f;
	const char *file;
	unsigned int line;
	unsigned int block_line; /* the line of the last [feature] */
	char *why;
	size_t len;
};

/* Says what is wrong at file:line (line 0: the file as a whole). */
/* A copy of str onto the list v (n used, cap allocated); a failed strdup still counts. */
static int push_copy(char ***v, size_t *n, size_t *cap, const char *str)
{
	if (array_reserve((void **)v, cap, *n + 1, sizeof(**v)))
		return -ENOMEM;
	(*v)[*n] = strdup(str);
	return (*v)[(*n)++] ? 0 : -ENOMEM;
}

static int bad(struct parser *p, unsigned int line, const char *fmt, ...)
{
	va_list ap;
	int err;

	va_start(ap, fmt);
	err = textline_error(p->why, p->len, p->file, line, fmt, ap);
	va_end(ap);
	return err;
}

static struct feature *current(struct parser *p)
{
	return p->f->n ? &p->f->v[p->f->n - 1] : NULL;
}

/* A block that names no function maps nothing: a mistake, not a choice. */
static int check_block(struct parser *p)
{
	struct feature *ft = current(p);

	if (ft && !ft->nglobs)
		return bad(p, p->block_line, "[%s] has no 'functions = ...' line", ft->name);
	return 0;
}

static int add_feature(struct parser *p, char *s)
{
	size_t n = strlen(s), i;
	struct feature *ft;

	if (s[n - 1] != ']')
		return bad(p, p->line, "expected '[feature]'");
	s[n - 1] = 0;
	s = textline_trim(s + 1);
	if (!*s || s[strspn(s, NAME_CHARS)])
		return bad(p, p->line, "feature name '%s': use letters, digits, '_' and '-'", s);
	for (i = 0; i < p->f->n; i++)
		if (!strcmp(p->f->v[i].name, s))
			return bad(p, p->line, "[%s] is defined twice", s);
	if (check_block(p))
		return -EINVAL;
	if (array_reserve((void **)&p->f->v, &p->f->cap, p->f->n + 1, sizeof(*ft)))
		return -ENOMEM;
	ft = &p->f->v[p->f->n++];
	*ft = (struct feature){.name = strdup(s)};
	p->block_line = p->line;
	return ft->name ? 0 : -ENOMEM;
}

/* Frame names are matched without their clone suffix: a pattern with one never matches. */
static int add_globs(struct parser *p, struct feature *ft, char *list)
{
	char *save = NULL, *g;

	for (g = strtok_r(list, " \t", &save); g; g = strtok_r(NULL, " \t", &save)) {
		if (strchr(g, '.'))
			return bad(p, p->line,
				   "'%s': give the function's name without clone suffix", g);
		if (push_copy(&ft->globs, &ft->nglobs, &ft->cap, g))
			return -ENOMEM;
	}
	return 0;
}

static const char *config_owner(const struct features *f, const char *option)
{
	size_t i, k;

	for (i = 0; i < f->n; i++)
		for (k = 0; k < f->v[i].nconfigs; k++)
			if (!strcmp(f->v[i].configs[k], option))
				return f->v[i].name;
	return NULL;
}

/* Kconfig option names, CONFIG_ optional; each option builds one feature at most. */
static int add_configs(struct parser *p, struct feature *ft, char *list)
{
	char *save = NULL, *o;
	const char *owner;

	if (!*list)
		return bad(p, p->line, "'config =' names no option");
	for (o = strtok_r(list, " \t", &save); o; o = strtok_r(NULL, " \t", &save)) {
		if (!strncmp(o, "CONFIG_", 7))
			o += 7;
		if (!*o || o[strspn(o, CONFIG_CHARS)])
			return bad(p, p->line,
				   "config option '%s': give a Kconfig name such as "
				   "SLAB_FREELIST_RANDOM",
				   o);
		owner = config_owner(p->f, o);
		if (owner)
			return bad(p, p->line, "config %s is already [%s]'s", o, owner);
		if (push_copy(&ft->configs, &ft->nconfigs, &ft->ccap, o))
			return -ENOMEM;
	}
	return 0;
}

static int add_setting(struct parser *p, char *s)
{
	struct feature *ft = current(p);
	char *eq = strchr(s, '='), *key, *value;

	if (!eq)
		return bad(
			p, p->line,
			"expected '[feature]', 'about = ...', 'config = ...' or 'functions = ...'");
	*eq = 0;
	key = textline_trim(s);
	value = textline_trim(eq + 1);
	if (!ft)
		return bad(p, p->line, "'%s' before the first [feature]", key);
	if (!strcmp(key, "functions"))
		return add_globs(p, ft, value);
	if (!strcmp(key, "config"))
		return add_configs(p, ft, value);
	if (strcmp(key, "about"))
		return bad(p, p->line, "unknown key '%s' (about, config or functions)", key);
	if (ft->about)
		return bad(p, p->line, "[%s] has a second 'about'", ft->name);
	ft->about = strdup(value);
	return ft->about ? 0 : -ENOMEM;
}

static int parse(struct parser *p, FILE *in)
{
	char *buf = NULL, *s;
	size_t cap = 0;
	int err = 0;

	while (!err && getline(&buf, &cap, in) >= 0) {
		p->line++;
		s = textline_trim(buf);
		if (*s && *s != '#')
			err = *s == '[' ? add_feature(p, s) : add_setting(p, s);
	}
	free(buf);
	if (!err && ferror(in))
		err = -EIO;
	err = err ?: check_block(p);
	if (!err && !p->f->n)
		err = bad(p, 0, "no [feature] blocks");
	return err;
}

int features_load(struct features **out, const char *path, char *why, size_t len)
{
	struct parser p = {.file = path ?: "built-in features.conf", .why = why, .len = len};
	FILE *in = path ? fopen(path, "r")
			: fmemopen((void *)kp_features_conf, sizeof(kp_features_conf) - 1, "r");
	int err = in ? 0 : -errno;

	*out = NULL;
	if (len)
		*why = 0;
	p.f = calloc(1, sizeof(*p.f));
	if (!err && !p.f)
		err = -ENOMEM;
	err = err ?: parse(&p, in);
	if (in)
		fclose(in);
	if (err && len && !*why)
		snprintf(why, len, "%s: %s", p.file, strerror(-err));
	if (err)
		features_free(p.f);
	else
		*out = p.f;
	return err;
}

const char *features_match(const struct features *f, const char *name)
{
	char base[NAME_MAX_LEN];
	/*
	 * diff's SQL_FUNC_BASE rule: all from the first '.' is a clone suffix,
	 * .cold included (its samples are the function's work).  Not
	 * func_base_len(): that one picks probe targets, and .cold and __pfx_
	 * symbols are none.
	 */
	size_t len = strcspn(name, "."), i, j;

	if (len >= sizeof(base))
		return NULL;
	memcpy(base, name, len);
	base[len] = 0;
	for (i = 0; i < f->n; i++)
		for (j = 0; j < f->v[i].nglobs; j++)
			if (!fnmatch(f->v[i].globs[j], base, 0))
				return f->v[i].name;
	return NULL;
}

size_t features_count(const struct features *f)
{
	return f->n;
}

const char *features_name(const struct features *f, size_t i)
{
	return f->v[i].name;
}

const char *features_about(const struct features *f, size_t i)
{
	return f->v[i].about ?: "";
}

size_t features_nconfig(const struct features *f, size_t i)
{
	return f->v[i].nconfigs;
}

const char *features_config(const struct features *f, size_t i, size_t k)
{
	return f->v[i].configs[k];
}

const char *features_of_config(const struct features *f, const char *option)
{
	if (!strncmp(option, "CONFIG_", 7))
		option += 7;
	return config_owner(f, option);
}

void features_free(struct features *f)
{
	size_t i, j;

	if (!f)
		return;
	for (i = 0; i < f->n; i++) {
		for (j = 0; j < f->v[i].nglobs; j++)
			free(f->v[i].globs[j]);
		free(f->v[i].globs);
		for (j = 0; j < f->v[i].nconfigs; j++)
			free(f->v[i].configs[j]);
		free(f->v[i].configs);
		free(f->v[i].name);
		free(f->v[i].about);
	}
	free(f->v);
	free(f);
}
