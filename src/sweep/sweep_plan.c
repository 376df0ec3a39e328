// SPDX-License-Identifier: GPL-2.0-only
/* A sweep's plan read and checked, and what each variant is (sweep_plan.h). */
#include "sweep/sweep_plan.h"

#include <errno.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>

#include "util/safeio.h"
#include "util/textline.h"

#define LINE_MAX_BYTES 4096

static const char options_known[] =
	"a variant takes --version, --src, --set, --kernel, --append, --timeout and --cpu";

/* What parsing one line needs: where, and where its words go. */
struct line_ctx {
	const char *path;
	unsigned int line;
	char *why;
	size_t len;
};

static int err_at(const struct line_ctx *c, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));

static int err_at(const struct line_ctx *c, const char *fmt, ...)
{
	va_list ap;
	int err;

	va_start(ap, fmt);
	err = textline_error(c->why, c->len, c->path, c->line, fmt, ap);
	va_end(ap);
	return err;
}

/*
 * The words of s, space-separated, '...' and "..." quoting (the quotes
 * dropped), into out (as long as s) one after the other, NUL-ended; their
 * starts into w.  The number of words, or -EINVAL after saying why.
 */
static int split(const struct line_ctx *c, const char *s, char *out, char **w, size_t max)
{
	size_t n = 0;
	char q;

	while (*s) {
		while (*s == ' ' || *s == '\t')
			s++;
		if (!*s)
			break;
		if (n == max)
			return err_at(c, "more than %zu words: split the variant", max);
		w[n++] = out;
		while (*s && *s != ' ' && *s != '\t') {
			if (*s != '\'' && *s != '"') {
				*out++ = *s++;
				continue;
			}
			q = *s++;
			while (*s && *s != q)
				*out++ = *s++;
			if (!*s)
				return err_at(c, "a %s quote that does not end",
					      q == '"' ? "double" : "single");
			s++;
		}
		*out++ = '\0';
	}
	return n;
}

static bool all_of(const char *s, const char *set)
{
	return *s && strspn(s, set) == strlen(s);
}

#define DIGITS "0123456789"
#define ALNUM  "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz" DIGITS

/* kernel-build.sh's VALUE: y, n, m, a number or a "string" */
static bool config_value(const char *v)
{
	size_t n = strlen(v);

	if (!strcmp(v, "y") || !strcmp(v, "n") || !strcmp(v, "m"))
		return true;
	if (n >= 2 && v[0] == '"' && v[n - 1] == '"')
		return !memchr(v + 1, '"', n - 2);
	if (!strncmp(v, "0x", 2))
		return all_of(v + 2, DIGITS "abcdefABCDEF");
	return all_of(v + (*v == '-'), DIGITS);
}

/* One scalar option: once, or again with the same value. */
static int set_one(const struct line_ctx *c, const char *opt, const char **slot, const char *v)
{
	if (*slot && strcmp(*slot, v))
		return err_at(c, "%s given twice, %s and %s: give it once", opt, *slot, v);
	*slot = v;
	return 0;
}

/* The length of w's key: up to '=' (w itself when it has none). */
static size_t key_len(const char *w)
{
	return strcspn(w, "=");
}

static bool same_key(const char *a, const char *b)
{
	return key_len(a) == key_len(b) && !strncmp(a, b, key_len(a));
}

/* A keyed word (--set NAME=VALUE, a command-line KEY=VALUE) into v, once per key. */
static int add_keyed(const struct line_ctx *c, const char *opt, const char **v, size_t *n,
		     const char *w)
{
	size_t i;

	for (i = 0; i < *n; i++) {
		if (!same_key(v[i], w))
			continue;
		if (strcmp(v[i], w))
			return err_at(c, "%s %.*s given twice, %s and %s: give it once", opt,
				      (int)key_len(w), w, v[i], w);
		return 0;
	}
	if (*n == SWEEP_WORDS_MAX)
		return err_at(c, "more than %d %s words", SWEEP_WORDS_MAX, opt);
	v[(*n)++] = w;
	return 0;
}

static int add_set(const struct line_ctx *c, struct sweep_setup *s, char *v)
{
	size_t name;

	if (!strncmp(v, "CONFIG_", 7))
		memmove(v, v + 7, strlen(v + 7) + 1);
	name = key_len(v);
	if (!v[name] || !name)
		return err_at(c, "--set %s: want OPT=VALUE, e.g. --set SLAB_FREELIST_RANDOM=n", v);
	if (strspn(v, ALNUM "_") != name)
		return err_at(c, "--set %s: '%.*s' is not a config option name", v, (int)name, v);
	if (!config_value(v + name + 1))
		return err_at(c, "--set %s: value '%s' is not y, n, m, a number or a \"string\"", v,
			      v + name + 1);
	return add_keyed(c, "--set", s->sets, &s->nsets, v);
}

/* --append's words: each a command-line parameter, KEY or KEY=VALUE. */
static int add_params(const struct line_ctx *c, struct sweep_setup *s, char *v)
{
	char *w, *save = NULL;
	int err = 0;

	for (w = strtok_r(v, " \t", &save); w && !err; w = strtok_r(NULL, " \t", &save))
		err = *w == '=' ? err_at(c, "--append: '%s' has no parameter name", w)
				: add_keyed(c, "--append", s->params, &s->nparams, w);
	return err;
}

static int check_scalar(const struct line_ctx *c, const char *opt, const char *v)
{
	if (!strcmp(opt, "--version") &&
	    !(all_of(v, DIGITS ".") && strchr(v, '.') && v[0] != '.' && v[strlen(v) - 1] != '.'))
		return err_at(c, "--version %s: want a version such as 6.1 or 6.12", v);
	if (!strcmp(opt, "--timeout") && (!all_of(v, DIGITS) || v[0] == '0' || strlen(v) > 5))
		return err_at(c, "--timeout %s: want whole seconds, 1..99999", v);
	/* QEMU's -cpu words; whether QEMU runs it, vm-run.sh asks it before the boot */
	if (!strcmp(opt, "--cpu") && (!all_of(v, ALNUM "-_.,=+") || v[0] == '-' || v[0] == ','))
		return err_at(c,
			      "--cpu %s: want a QEMU CPU model such as Skylake-Client-v1"
			      " (qemu-system-x86_64 -cpu help)",
			      v);
	if (!*v)
		return err_at(c, "%s: an empty value", opt);
	return 0;
}

/* Option opt (without its "=VALUE") with value v into s. */
static int one_option(const struct line_ctx *c, struct sweep_setup *s, const char *opt, char *v)
{
	static const char *const scalars[] = {"--version", "--src", "--kernel", "--timeout",
					      "--cpu"};
	const char **slot[] = {&s->version, &s->src, &s->kernel, &s->timeout, &s->cpu};
	size_t i;

	if (!strcmp(opt, "--set"))
		return add_set(c, s, v);
	if (!strcmp(opt, "--append"))
		return add_params(c, s, v);
	for (i = 0; i < sizeof(scalars) / sizeof(scalars[0]); i++)
		if (!strcmp(opt, scalars[i]))
			return check_scalar(c, opt, v) ?: set_one(c, opt, slot[i], v);
	return err_at(c, "unknown option '%s': %s", opt, options_known);
}

static int parse_options(const struct line_ctx *c, char **w, int n, struct sweep_setup *s)
{
	char *opt, *eq, *v;
	int i, err = 0;

	for (i = 0; i < n && !err; i++) {
		opt = w[i];
		if (strncmp(opt, "--", 2))
			return err_at(c, "'%s' is no option: %s", opt, options_known);
		eq = strchr(opt, '=');
		if (eq)
			*eq = '\0';
		if (eq)
			v = eq + 1;
		else if (i + 1 < n)
			v = w[++i];
		else
			return err_at(c, "%s needs a value", opt);
		err = one_option(c, s, opt, v);
	}
	if (!err && s->kernel && (s->version || s->src || s->nsets))
		return err_at(c,
			      "--kernel boots a kernel as it is, --version, --src and --set build"
			      " one: give one or the other");
	return err;
}

/* "NAME:" of the line into v->name; the options after it, or NULL after saying why. */
static char *name_of(const struct line_ctx *c, char *s, struct sweep_variant *v)
{
	char *colon = strchr(s, ':'), *name;

	if (!colon || colon == s || s[0] == '-') {
		err_at(c, "no variant name: a line is NAME: OPTIONS (e.g. base: --version 6.1)");
		return NULL;
	}
	*colon = '\0';
	name = textline_trim(s);
	if (!all_of(name, ALNUM "_-+") || strlen(name) >= SWEEP_NAME_MAX) {
		err_at(c,
		       "variant name '%s': letters, digits, '_', '-' and '+' only, at most %d of"
		       " them (it names a folder)",
		       name, SWEEP_NAME_MAX - 1);
		return NULL;
	}
	snprintf(v->name, sizeof(v->name), "%s", name);
	return textline_trim(colon + 1);
}

static int parse_line(const struct line_ctx *c, char *s, struct sweep_plan *p)
{
	struct sweep_variant *v = &p->v[p->n];
	char *opts, *w[2 * SWEEP_WORDS_MAX];
	const struct sweep_variant *dup;
	int n;

	*v = (struct sweep_variant){.line = c->line};
	opts = name_of(c, s, v);
	if (!opts)
		return -EINVAL;
	dup = sweep_plan_find(p, v->name);
	if (dup)
		return err_at(c,
			      "a second variant named '%s' (the first is on line %u): give each"
			      " variant its own name",
			      v->name, dup->line);
	if (p->n == SWEEP_VARIANTS_MAX)
		return err_at(c, "more than %d variants", SWEEP_VARIANTS_MAX);
	v->options = strdup(opts);
	v->words = malloc(strlen(opts) + 1);
	if (!v->options || !v->words) {
		free(v->options);
		free(v->words);
		return -ENOMEM;
	}
	p->n++;
	n = split(c, opts, v->words, w, sizeof(w) / sizeof(w[0]));
	return n < 0 ? n : parse_options(c, w, n, &v->own);
}

static bool has_control(const char *s)
{
	for (; *s; s++)
		if ((unsigned char)*s < 0x20 ? *s != '\t' : *s == 0x7f)
			return true;
	return false;
}

static int parse_lines(struct sweep_plan *p, struct line_ctx *c, char *text)
{
	char *line, *next, *s;
	int err = 0;

	for (line = text; line && !err; line = next) {
		next = strchr(line, '\n');
		if (next)
			*next++ = '\0';
		c->line++;
		s = textline_trim(line);
		if (!*s || *s == '#')
			continue;
		if (strlen(s) > LINE_MAX_BYTES)
			err = err_at(c, "a line of more than %d bytes", LINE_MAX_BYTES);
		else if (has_control(s))
			err = err_at(c, "a control character in the line");
		else
			err = parse_line(c, s, p);
	}
	return err;
}

int sweep_plan_parse(const char *path, const char *text, size_t size, struct sweep_plan *p,
		     char *why, size_t len)
{
	struct line_ctx c = {path, 0, why, len};
	char *copy = malloc(size + 1);
	int err;

	*p = (struct sweep_plan){.text = malloc(size + 1), .size = size};
	if (!copy || !p->text) {
		free(copy);
		snprintf(why, len, "%s: no memory", path);
		return -ENOMEM;
	}
	memcpy(p->text, text, size);
	p->text[size] = '\0';
	memcpy(copy, text, size);
	copy[size] = '\0';
	err = memchr(text, '\0', size) ? err_at(&c, "a NUL byte: not a text file")
				       : parse_lines(p, &c, copy);
	free(copy);
	c.line = 0;
	if (!err && !sweep_plan_find(p, "base"))
		err = err_at(&c,
			     "no base line: a plan compares its variants with the one named base"
			     " (base: OPTIONS)");
	if (!err && p->n < 2)
		err = err_at(&c, "no variant besides base: add a line NAME: OPTIONS");
	if (!err)
		p->base = sweep_plan_find(p, "base") - p->v;
	return err;
}

int sweep_plan_load(const char *path, struct sweep_plan *p, char *why, size_t len)
{
	FILE *f = safeio_fopen_text(path, why, len);
	char *text = NULL;
	size_t n = 0;
	int err;

	*p = (struct sweep_plan){};
	if (!f)
		return -errno;
	/* the stream is in memory and at most SAFEIO_TEXT_MAX bytes */
	text = malloc(SAFEIO_TEXT_MAX + 1);
	if (text)
		n = fread(text, 1, SAFEIO_TEXT_MAX + 1, f);
	fclose(f);
	if (!text) {
		snprintf(why, len, "%s: no memory", path);
		return -ENOMEM;
	}
	err = sweep_plan_parse(path, text, n, p, why, len);
	free(text);
	return err;
}

void sweep_plan_free(struct sweep_plan *p)
{
	size_t i;

	for (i = 0; i < p->n; i++) {
		free(p->v[i].options);
		free(p->v[i].words);
	}
	free(p->text);
	*p = (struct sweep_plan){};
}

const struct sweep_variant *sweep_plan_find(const struct sweep_plan *p, const char *name)
{
	size_t i;

	for (i = 0; i < p->n; i++)
		if (!strcmp(p->v[i].name, name))
			return &p->v[i];
	return NULL;
}
