// SPDX-License-Identifier: GPL-2.0-only
/*
 * The feature mapping: share/features.conf (its header documents the format
 * and the roll-up rule), compiled in, or a user's file in its place.
 */
#include "features/features.h"

#include <errno.h>
#include <fnmatch.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "data/runs.h"
#include "features_conf.h"
#include "util/array.h"
#include "util/safeio.h"
#include "util/textline.h"

/* kallsyms' KSYM_NAME_LEN: no function name is longer */
#define NAME_MAX_LEN 512
#define NAME_CHARS   "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789_-"
#define CONFIG_CHARS "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789_"

/* A space-separated list of words, as the settings take them. */
struct words {
	char **v;
	size_t n, cap;
};

struct feature {
	char *name;
	char *about;
	struct words globs;
	struct words configs;		   /* Kconfig options without CONFIG_ */
	const char *cls[FEATURES_CLASSES]; /* type, position, when: a value of class_values */
	char *sites;			   /* a sites.h kind name */
	struct words on, off, dflt;	   /* command-line words; "on", "off" or options */
	bool patched;
};

static const char *const class_keys[FEATURES_CLASSES] = {"type", "position", "when"};
static const char *const class_values[FEATURES_CLASSES][5] = {
	{"source", "compiler", "config", "boot", NULL},
	{"code", "data", "layout", NULL},
	{"build", "boot", "run", NULL},
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

/* A copy of str onto w; a failed strdup still counts. */
static int push_copy(struct words *w, const char *str)
{
	if (array_reserve((void **)&w->v, &w->cap, w->n + 1, sizeof(*w->v)))
		return -ENOMEM;
	w->v[w->n] = strdup(str);
	return w->v[w->n++] ? 0 : -ENOMEM;
}

static void words_free(struct words *w)
{
	size_t i;

	for (i = 0; i < w->n; i++)
		free(w->v[i]);
	free(w->v);
}

static bool words_has(const struct words *w, const char *s)
{
	size_t i;

	for (i = 0; i < w->n; i++)
		if (!strcmp(w->v[i], s))
			return true;
	return false;
}

/* Says what is wrong at file:line (line 0: the file as a whole). */
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

/*
 * A block that names no function and no site maps nothing: a mistake, not a
 * choice, but for a layout chosen at build (RANDSTRUCT), which runs no code
 * of its own: its cost is where data lands.
 */
static int check_block(struct parser *p)
{
	struct feature *ft = current(p);
	bool no_code = ft && ft->cls[1] && ft->cls[2] && !strcmp(ft->cls[1], "layout") &&
		       !strcmp(ft->cls[2], "build");

	if (ft && !ft->globs.n && !ft->sites && !no_code)
		return bad(p, p->block_line, "[%s] has no 'functions = ...' or 'sites = ...' line",
			   ft->name);
	if (ft && ft->patched && !ft->sites)
		return bad(p, p->block_line, "[%s]: 'patched' needs 'sites = ...'", ft->name);
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
		if (push_copy(&ft->globs, g))
			return -ENOMEM;
	}
	return 0;
}

static const char *config_owner(const struct features *f, const char *option)
{
	size_t i, k;

	for (i = 0; i < f->n; i++)
		for (k = 0; k < f->v[i].configs.n; k++)
			if (!strcmp(f->v[i].configs.v[k], option))
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
		if (push_copy(&ft->configs, o))
			return -ENOMEM;
	}
	return 0;
}

/* type, position or when: one of its values, once. */
static int set_class(struct parser *p, struct feature *ft, int c, const char *value)
{
	const char *const *v;

	if (ft->cls[c])
		return bad(p, p->line, "[%s] has a second '%s'", ft->name, class_keys[c]);
	for (v = class_values[c]; *v; v++)
		if (!strcmp(*v, value)) {
			ft->cls[c] = *v;
			return 0;
		}
	return bad(p, p->line, "%s '%s': one of %s, %s, %s%s%s", class_keys[c], value,
		   class_values[c][0], class_values[c][1], class_values[c][2],
		   class_values[c][3] ? ", " : "", class_values[c][3] ?: "");
}

/* One kind name; which ones kprotperf knows is sites.h's to say (cli_features). */
static int set_sites(struct parser *p, struct feature *ft, const char *value)
{
	if (!*value || value[strspn(value, CONFIG_CHARS)])
		return bad(p, p->line, "sites '%s': one pattern name such as stack_canary", value);
	if (ft->sites)
		return bad(p, p->line, "[%s] has a second 'sites'", ft->name);
	ft->sites = strdup(value);
	return ft->sites ? 0 : -ENOMEM;
}

static int add_words(struct parser *p, struct words *w, const char *key, char *list)
{
	char *save = NULL, *o;

	if (!*list)
		return bad(p, p->line, "'%s =' names nothing", key);
	for (o = strtok_r(list, " \t", &save); o; o = strtok_r(NULL, " \t", &save))
		if (push_copy(w, !strncmp(o, "CONFIG_", 7) ? o + 7 : o))
			return -ENOMEM;
	return 0;
}

/* The keys that say what a feature is and when it is on; 1: not one of them. */
static int set_state_key(struct parser *p, struct feature *ft, const char *key, char *value)
{
	int c;

	for (c = 0; c < FEATURES_CLASSES; c++)
		if (!strcmp(key, class_keys[c]))
			return set_class(p, ft, c, value);
	if (!strcmp(key, "sites"))
		return set_sites(p, ft, value);
	if (!strcmp(key, "on"))
		return add_words(p, &ft->on, key, value);
	if (!strcmp(key, "off"))
		return add_words(p, &ft->off, key, value);
	if (!strcmp(key, "default"))
		return add_words(p, &ft->dflt, key, value);
	if (strcmp(key, "patched"))
		return 1;
	if (strcmp(value, "yes"))
		return bad(p, p->line, "'patched = %s': only 'patched = yes'", value);
	ft->patched = true;
	return 0;
}

static int add_setting(struct parser *p, char *s)
{
	struct feature *ft = current(p);
	char *eq = strchr(s, '='), *key, *value;
	int err;

	if (!eq)
		return bad(p, p->line, "expected '[feature]' or 'KEY = VALUE'");
	*eq = 0;
	key = textline_trim(s);
	value = textline_trim(eq + 1);
	if (!ft)
		return bad(p, p->line, "'%s' before the first [feature]", key);
	if (!strcmp(key, "functions"))
		return add_globs(p, ft, value);
	if (!strcmp(key, "config"))
		return add_configs(p, ft, value);
	err = set_state_key(p, ft, key, value);
	if (err <= 0)
		return err;
	if (strcmp(key, "about"))
		return bad(p, p->line,
			   "unknown key '%s' (about, type, position, when, config, functions,"
			   " sites, patched, on, off or default)",
			   key);
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
	FILE *in;
	int err;

	*out = NULL;
	if (len)
		*why = 0;
	in = path ? safeio_fopen_text(path, why, len)
		  : fmemopen((void *)kp_features_conf, sizeof(kp_features_conf) - 1, "r");
	err = in ? 0 : -errno;
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
		for (j = 0; j < f->v[i].globs.n; j++)
			if (!fnmatch(f->v[i].globs.v[j], base, 0))
				return f->v[i].name;
	return NULL;
}

const char *features_of_site(const struct features *f, const char *kind)
{
	size_t i;

	for (i = 0; i < f->n; i++)
		if (f->v[i].sites && !strcmp(f->v[i].sites, kind))
			return f->v[i].name;
	return NULL;
}

static const char *of_frame(const char *name, void *f)
{
	return features_match(f, name);
}

static const char *of_site(const char *kind, void *f)
{
	return features_of_site(f, kind);
}

void features_map(const struct features *f, struct runs_feature_map *m)
{
	*m = (struct runs_feature_map){of_frame, of_site, (void *)f};
}

size_t features_count(const struct features *f)
{
	return f->n;
}

long features_index(const struct features *f, const char *name)
{
	size_t i;

	for (i = 0; f && i < f->n; i++)
		if (!strcmp(f->v[i].name, name))
			return i;
	return -1;
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
	return f->v[i].configs.n;
}

const char *features_config(const struct features *f, size_t i, size_t k)
{
	return f->v[i].configs.v[k];
}

const char *features_class(const struct features *f, size_t i, enum features_class c)
{
	return f->v[i].cls[c];
}

const char *features_sites(const struct features *f, size_t i)
{
	return f->v[i].sites;
}

const char *features_of_config(const struct features *f, const char *option)
{
	if (!strncmp(option, "CONFIG_", 7))
		option += 7;
	return config_owner(f, option);
}

void features_free(struct features *f)
{
	size_t i;

	if (!f)
		return;
	for (i = 0; i < f->n; i++) {
		words_free(&f->v[i].globs);
		words_free(&f->v[i].configs);
		words_free(&f->v[i].on);
		words_free(&f->v[i].off);
		words_free(&f->v[i].dflt);
		free(f->v[i].sites);
		free(f->v[i].name);
		free(f->v[i].about);
	}
	free(f->v);
	free(f);
}

static const char *const state_names[] = {
	[FS_UNKNOWN] = "unknown", [FS_ON] = "on", [FS_OFF] = "off", [FS_NOT_BUILT] = "not built"};

const char *features_state_name(enum features_state s)
{
	return state_names[s];
}

/* The first of options whose recorded value is y or m; NULL: none. */
static const char *first_set(const struct words *options, const struct features_facts *k)
{
	const char *v;
	size_t i;

	for (i = 0; i < options->n; i++) {
		v = k->config(options->v[i], k->ctx);
		if (v && (!strcmp(v, "y") || !strcmp(v, "m")))
			return options->v[i];
	}
	return NULL;
}

/* The last word of the command line that turns the feature on or off, as the kernel reads it. */
static enum features_state by_cmdline(const struct feature *ft, const char *cmdline, char *why,
				      size_t len)
{
	enum features_state s = FS_UNKNOWN;
	char word[256];
	const char *p = cmdline;
	int n;

	while (p && sscanf(p, " %255s%n", word, &n) == 1) {
		p += n;
		if (words_has(&ft->off, word) || words_has(&ft->on, word)) {
			s = words_has(&ft->off, word) ? FS_OFF : FS_ON;
			snprintf(why, len, "%s on the command line", word);
		}
	}
	return s;
}

/* built: the config option that built it, NULL when none tells. */
static enum features_state by_default(const struct feature *ft, const struct features_facts *k,
				      const char *built, char *why, size_t len)
{
	const char *o;

	if (!ft->dflt.n || !strcmp(ft->dflt.v[0], "on") || !strcmp(ft->dflt.v[0], "off")) {
		if (built)
			snprintf(why, len, "CONFIG_%s=%s, by default", built,
				 k->config(built, k->ctx));
		else
			snprintf(why, len, "the default");
		return ft->dflt.n && !strcmp(ft->dflt.v[0], "off") ? FS_OFF : FS_ON;
	}
	if (!k->config_known) {
		snprintf(why, len, "its default is CONFIG_%s's, not recorded", ft->dflt.v[0]);
		return FS_UNKNOWN;
	}
	o = first_set(&ft->dflt, k);
	snprintf(why, len, o ? "CONFIG_%s=%s" : "CONFIG_%s is not set", o ?: ft->dflt.v[0],
		 o ? k->config(o, k->ctx) : "");
	return o ? FS_ON : FS_OFF;
}

/*
 * In order: not built (no config option set, unless they only pick the
 * default), the sites in the code that ran (the text as it runs tells
 * better than any switch), the command line, the default.
 */
enum features_state features_state(const struct features *f, size_t i,
				   const struct features_facts *k, char *why, size_t len)
{
	const struct feature *ft = &f->v[i];
	bool picks_default =
		ft->dflt.n && !words_has(&ft->dflt, "on") && !words_has(&ft->dflt, "off");
	const char *built = !picks_default && k->config_known ? first_set(&ft->configs, k) : NULL;
	enum features_state s;
	long long n;

	if (!picks_default && ft->configs.n && k->config_known && !built) {
		snprintf(why, len, "no CONFIG_%s%s", ft->configs.v[0],
			 ft->configs.n > 1 ? " (nor the others)" : "");
		return FS_NOT_BUILT;
	}
	n = ft->sites && k->sites ? k->sites(ft->sites, k->ctx) : -1;
	if (n > 0 || (n == 0 && ft->patched)) {
		snprintf(why, len,
			 n ? "%lld sites in the code that ran"
			   : "no site in the code that ran: the boot patched them out",
			 n);
		return n ? FS_ON : FS_OFF;
	}
	s = by_cmdline(ft, k->cmdline, why, len);
	return s != FS_UNKNOWN ? s : by_default(ft, k, built, why, len);
}
