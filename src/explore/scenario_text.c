// SPDX-License-Identifier: GPL-2.0-only
/*
 * Scenarios as text: one step a line, "ACTION NAME=VALUE ...", every
 * parameter of the action's template given once and within its range;
 * '#' starts a comment.  Written in the templates' order of parameters, so
 * that reading what was written gives the same scenario.
 */
#include "explore/scenario.h"

#include <errno.h>
#include <stdio.h>
#include <string.h>

#include "explore/scenario_int.h"
#include "util/safeio.h"

struct text_ctx {
	const struct scn_templates *t;
	struct scenario *s;
};

/* "NAME=VALUE" into the step's value of NAME, seen[] marking what was given. */
static int set_value(struct scn_src *p, const struct scn_template *tp, char *word,
		     struct scn_step *st, bool *seen)
{
	const char *name = tp->act->name;
	char *eq = strchr(word, '='), names[256];
	const struct scn_param *pr;
	int k;

	if (!eq)
		return scn_bad(p, "%s: '%s' is not NAME=VALUE", name, word);
	*eq = 0;
	k = scn_param_index(tp, word);
	if (k < 0) {
		scn_param_names(tp->act, names, sizeof(names));
		return scn_bad(p, "%s: unknown parameter '%s' (it takes %s)", name, word, names);
	}
	if (seen[k])
		return scn_bad(p, "%s: %s is given twice", name, word);
	seen[k] = true;
	pr = &tp->param[k];
	if (scn_number(eq + 1, &st->v[k]))
		return scn_bad(p, "%s: %s='%s' is not a whole number", name, word, eq + 1);
	if (st->v[k] < pr->min || st->v[k] > pr->max)
		return scn_bad(p, "%s: %s=%lld is not within %lld..%lld", name, word, st->v[k],
			       pr->min, pr->max);
	return 0;
}

static int step_line(struct scn_src *p, char *line, void *ctx)
{
	struct text_ctx *c = ctx;
	char *save = NULL, *word = strtok_r(line, " \t", &save);
	int tpl = scn_template_find(c->t, word);
	bool seen[SCN_PARAMS] = {false};
	const struct scn_template *tp;
	struct scn_step *st;
	size_t k;

	if (tpl < 0)
		return scn_bad(p,
			       scn_action_find(word) ? "action '%s' has no template here"
						     : "unknown action '%s'",
			       word);
	if (c->s->n == SCN_STEPS)
		return scn_bad(p, "more than %d steps", SCN_STEPS);
	tp = &c->t->v[tpl];
	st = &c->s->step[c->s->n];
	st->tpl = tpl;
	while ((word = strtok_r(NULL, " \t", &save)))
		if (set_value(p, tp, word, st, seen))
			return -EINVAL;
	for (k = 0; k < tp->n; k++)
		if (!seen[k])
			return scn_bad(p, "%s: no value for %s", tp->act->name, tp->param[k].name);
	c->s->n++;
	return 0;
}

int scn_read(const struct scn_templates *t, const char *path, struct scenario *out, char *why,
	     size_t len)
{
	struct scn_src p = {.file = path, .why = why, .len = len};
	struct scenario s = {.n = 0};
	struct text_ctx c = {.t = t, .s = &s};
	FILE *in = safeio_fopen_text(path, why, len);
	int err;

	if (!in)
		return -errno;
	if (len)
		*why = 0;
	err = scn_lines(in, &p, step_line, &c);
	fclose(in);
	if (!err && !s.n) {
		p.line = 0;
		err = scn_bad(&p, "no steps");
	}
	if (err && len && !*why)
		snprintf(why, len, "%s: %s", path, strerror(-err));
	if (!err)
		*out = s;
	return err;
}

/* The steps to f, each after sep but the first. */
static void print_steps(const struct scn_templates *t, const struct scenario *s, FILE *f,
			const char *sep)
{
	const struct scn_template *tp;
	size_t i, k;

	for (i = 0; i < s->n; i++) {
		tp = &t->v[s->step[i].tpl];
		fprintf(f, "%s%s", i ? sep : "", tp->act->name);
		for (k = 0; k < tp->n; k++)
			fprintf(f, " %s=%lld", tp->param[k].name, s->step[i].v[k]);
	}
}

int scn_write(const struct scn_templates *t, const struct scenario *s, FILE *f)
{
	print_steps(t, s, f, "\n");
	if (s->n)
		fputc('\n', f);
	return ferror(f) ? -EIO : 0;
}

void scn_summary(const struct scn_templates *t, const struct scenario *s, char *buf, size_t len)
{
	FILE *f;

	if (!len)
		return;
	buf[0] = 0;
	f = fmemopen(buf, len, "w");
	if (!f)
		return;
	print_steps(t, s, f, "; ");
	/* a text longer than buf is cut: fmemopen keeps its last byte for the NUL */
	fclose(f);
}
