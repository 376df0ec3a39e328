// SPDX-License-Identifier: GPL-2.0-only
/*
 * The templates: share/explore.conf (its header documents the format),
 * compiled in, or a user's file in its place, each block checked against
 * the action C implements under its name.
 */
#include "explore/scenario_int.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "explore_conf.h"
#include "util/array.h"
#include "util/esc.h"
#include "util/safeio.h"

#define PARAM_FORM "expected 'MIN..MAX default DEFAULT', then 'pow2' for sizes"

/* Where --list wraps the about texts. */
#define WRAP_COLUMN 78

static struct scn_template *current(struct scn_templates *t)
{
	return t->n ? &t->v[t->n - 1] : NULL;
}

void scn_param_names(const struct scn_action *act, char *buf, size_t len)
{
	size_t i, n = 0;

	buf[0] = 0;
	for (i = 0; i < SCN_PARAMS && act->param[i] && n < len; i++)
		n += snprintf(buf + n, len - n, "%s%s", i ? ", " : "", act->param[i]);
}

static void action_names(char *buf, size_t len)
{
	size_t i, n = 0;

	buf[0] = 0;
	for (i = 0; i < scn_action_count() && n < len; i++)
		n += snprintf(buf + n, len - n, "%s%s", i ? ", " : "", scn_action_at(i)->name);
}

/* A block must give every parameter its action takes: the action needs a value for each. */
static int check_block(struct scn_templates *t, struct scn_src *p, unsigned int block_line)
{
	struct scn_template *tp = current(t);
	unsigned int line = p->line;
	size_t i;
	int err = 0;

	for (i = 0; tp && !err && i < SCN_PARAMS && tp->act->param[i]; i++) {
		if (scn_param_index(tp, tp->act->param[i]) >= 0)
			continue;
		p->line = block_line;
		err = scn_bad(p, "[%s] has no line for its parameter %s", tp->act->name,
			      tp->act->param[i]);
		p->line = line;
	}
	return err;
}

static int add_template(struct scn_templates *t, struct scn_src *p, char *s,
			unsigned int *block_line)
{
	const struct scn_action *act;
	char names[512], *end = s + strlen(s) - 1;
	size_t i;

	if (check_block(t, p, *block_line))
		return -EINVAL;
	if (*end != ']')
		return scn_bad(p, "expected '[action]'");
	do
		*end-- = 0;
	while (end > s && (*end == ' ' || *end == '\t'));
	s += 1 + strspn(s + 1, " \t");
	act = scn_action_find(s);
	if (!act) {
		action_names(names, sizeof(names));
		return scn_bad(p, "no action '%s' (there are %s)", s, names);
	}
	for (i = 0; i < t->n; i++)
		if (t->v[i].act == act)
			return scn_bad(p, "[%s] is defined twice", s);
	if (array_reserve((void **)&t->v, &t->cap, t->n + 1, sizeof(*t->v)))
		return -ENOMEM;
	t->v[t->n++] = (struct scn_template){.act = act};
	*block_line = p->line;
	return 0;
}

/* "MIN..MAX default DEFAULT [pow2]" into pr, within what the action takes. */
static int parse_range(struct scn_src *p, const struct scn_action *act, int slot, char *value,
		       struct scn_param *pr)
{
	const char *name = act->param[slot];
	char *save = NULL, *range = strtok_r(value, " \t", &save);
	char *word = strtok_r(NULL, " \t", &save), *def = strtok_r(NULL, " \t", &save);
	char *pow2 = strtok_r(NULL, " \t", &save), *dots = range ? strstr(range, "..") : NULL;

	if (!dots || !word || strcmp(word, "default") || !def || (pow2 && strcmp(pow2, "pow2")) ||
	    strtok_r(NULL, " \t", &save))
		return scn_bad(p, "param %s: " PARAM_FORM, name);
	*dots = 0;
	*pr = (struct scn_param){.name = name, .pow2 = !!pow2};
	if (scn_number(range, &pr->min) || scn_number(dots + 2, &pr->max) ||
	    scn_number(def, &pr->def))
		return scn_bad(p, "param %s: MIN, MAX and DEFAULT are whole numbers", name);
	if (pr->min > pr->max)
		return scn_bad(p, "param %s: min %lld > max %lld", name, pr->min, pr->max);
	if (pr->min < act->lo[slot] || pr->max > act->hi[slot])
		return scn_bad(p, "param %s: %lld..%lld is not within %s's %lld..%lld", name,
			       pr->min, pr->max, act->name, act->lo[slot], act->hi[slot]);
	if (pr->def < pr->min || pr->def > pr->max)
		return scn_bad(p, "param %s: default %lld is not within %lld..%lld", name, pr->def,
			       pr->min, pr->max);
	if (pr->pow2 && !pr->min)
		return scn_bad(p, "param %s: pow2 needs a min of 1 or more", name);
	return 0;
}

static int add_param(struct scn_src *p, struct scn_template *tp, const char *key, char *value)
{
	const struct scn_action *act = tp->act;
	char names[256];
	int slot;

	for (slot = 0; slot < SCN_PARAMS && act->param[slot]; slot++)
		if (!strcmp(act->param[slot], key))
			break;
	if (slot == SCN_PARAMS || !act->param[slot]) {
		scn_param_names(act, names, sizeof(names));
		return scn_bad(p, "%s has no parameter '%s' (it takes %s)", act->name, key, names);
	}
	if (scn_param_index(tp, key) >= 0)
		return scn_bad(p, "param %s is given twice", key);
	if (parse_range(p, act, slot, value, &tp->param[tp->n]))
		return -EINVAL;
	tp->slot[tp->n++] = slot;
	return 0;
}

static int add_setting(struct scn_templates *t, struct scn_src *p, char *s)
{
	struct scn_template *tp = current(t);
	char *eq = strchr(s, '='), *key = s, *value;

	if (!eq)
		return scn_bad(p, "expected '[action]', 'about = ...' or 'PARAM = MIN..MAX "
				  "default DEFAULT'");
	value = eq + 1 + strspn(eq + 1, " \t");
	while (eq > key && (eq[-1] == ' ' || eq[-1] == '\t'))
		eq--;
	*eq = 0;
	if (!tp)
		return scn_bad(p, "'%s' before the first [action]", key);
	if (strcmp(key, "about"))
		return add_param(p, tp, key, value);
	if (tp->about)
		return scn_bad(p, "[%s] has a second 'about'", tp->act->name);
	tp->about = strdup(value);
	return tp->about ? 0 : -ENOMEM;
}

struct conf_ctx {
	struct scn_templates *t;
	unsigned int block_line; /* the line of the last [action] */
};

static int conf_line(struct scn_src *p, char *s, void *ctx)
{
	struct conf_ctx *c = ctx;

	return *s == '[' ? add_template(c->t, p, s, &c->block_line) : add_setting(c->t, p, s);
}

static int parse(struct scn_templates *t, struct scn_src *p, FILE *in)
{
	struct conf_ctx c = {.t = t};
	int err = scn_lines(in, p, conf_line, &c);

	err = err ?: check_block(t, p, c.block_line);
	if (!err && !t->n) {
		p->line = 0;
		err = scn_bad(p, "no [action] blocks");
	}
	return err;
}

int scn_templates_load(struct scn_templates **out, const char *path, char *why, size_t len)
{
	struct scn_src p = {.file = path ?: "built-in explore.conf", .why = why, .len = len};
	struct scn_templates *t;
	FILE *in;
	int err;

	*out = NULL;
	if (len)
		*why = 0;
	in = path ? safeio_fopen_text(path, why, len)
		  : fmemopen((void *)kp_explore_conf, sizeof(kp_explore_conf) - 1, "r");
	err = in ? 0 : -errno;
	t = calloc(1, sizeof(*t));
	if (!err && !t)
		err = -ENOMEM;
	err = err ?: parse(t, &p, in);
	if (in)
		fclose(in);
	if (err && len && !*why)
		snprintf(why, len, "%s: %s", p.file, strerror(-err));
	if (err)
		scn_templates_free(t);
	else
		*out = t;
	return err;
}

void scn_templates_free(struct scn_templates *t)
{
	size_t i;

	if (!t)
		return;
	for (i = 0; i < t->n; i++)
		free(t->v[i].about);
	free(t->v);
	free(t);
}

size_t scn_templates_count(const struct scn_templates *t)
{
	return t->n;
}

const char *scn_template_name(const struct scn_templates *t, size_t i)
{
	return t->v[i].act->name;
}

size_t scn_template_nparams(const struct scn_templates *t, size_t i)
{
	return t->v[i].n;
}

const struct scn_param *scn_template_param(const struct scn_templates *t, size_t i, size_t k)
{
	return &t->v[i].param[k];
}

int scn_template_find(const struct scn_templates *t, const char *name)
{
	size_t i;

	for (i = 0; i < t->n; i++)
		if (!strcmp(t->v[i].act->name, name))
			return i;
	return -1;
}

int scn_param_index(const struct scn_template *tp, const char *name)
{
	size_t i;

	for (i = 0; i < tp->n; i++)
		if (!strcmp(tp->param[i].name, name))
			return i;
	return -1;
}

void scn_action_args(const struct scn_template *tp, const struct scn_step *st, long long *a)
{
	size_t i;

	for (i = 0; i < tp->n; i++)
		a[tp->slot[i]] = st->v[i];
}

/* text from column 4, escaped (it is the file's), its words wrapped before WRAP_COLUMN. */
static void print_wrapped(FILE *f, const char *text)
{
	char *copy = strdup(text), *save = NULL, *word;
	size_t col = 0, n;

	word = copy ? strtok_r(copy, " ", &save) : NULL;
	for (; word; word = strtok_r(NULL, " ", &save)) {
		n = esc_len(word, ESC_TEXT);
		if (col && col + 1 + n > WRAP_COLUMN) {
			fputc('\n', f);
			col = 0;
		}
		col += fprintf(f, "%s", col ? " " : "    ");
		col += esc_fputs(f, word, ESC_TEXT);
	}
	if (col)
		fputc('\n', f);
	free(copy);
}

void scn_templates_print(const struct scn_templates *t, FILE *f)
{
	const struct scn_template *tp;
	const struct scn_param *pr;
	size_t i, k;

	for (i = 0; i < t->n; i++) {
		tp = &t->v[i];
		fputs(tp->act->name, f);
		for (k = 0; k < tp->n; k++) {
			pr = &tp->param[k];
			fprintf(f, "  %s=%lld..%lld%s (%lld)", pr->name, pr->min, pr->max,
				pr->pow2 ? " pow2" : "", pr->def);
		}
		fputc('\n', f);
		print_wrapped(f, tp->about ?: "");
	}
}
