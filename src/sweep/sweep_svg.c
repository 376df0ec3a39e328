// SPDX-License-Identifier: GPL-2.0-only
/*
 * A sweep's matrix as an SVG heat map (sweep_out.h): variants as rows,
 * operations as columns, each cell coloured as the protection map colours
 * a change (red: the variant is slower, blue: faster), with its change, a
 * mark when significant, and its top function; the whole cell in its
 * tooltip.  Rows and cells that were not compared are grey and say why.
 */
#include "sweep/sweep_svg.h"

#include <math.h>
#include <stdbool.h>
#include <string.h>

#include "features/protection_map.h"
#include "sweep/sweep_matrix.h"
#include "sweep/sweep_out.h"
#include "util/esc.h"
#include "util/fmt.h"

enum { TOP = 120, CW = 160, CH = 84, CHARW = 8, MIN_WIDTH = 1000 };
/* what a cell's line of 11-pixel text holds */
#define CELL_CHARS 24

struct svg {
	const struct sweep_matrix *m;
	FILE *f;
	int left;	  /* the grid's left edge: after the longest variant name */
	double scale_pct; /* the legend's end */
};

static void text(FILE *f, const char *s)
{
	esc_fputs(f, s, ESC_XML);
}

/* A function's change per run, with its unit. */
static void delta(char *buf, size_t len, const struct sweep_cell *c, double v)
{
	if (c->model)
		snprintf(buf, len, "%+.0f %s", v,
			 c->has_est ? "est_cycles"
			 : c->cache ? "misses"
				    : "insns");
	else if (v >= 0 && (buf[0] = '+'))
		fmt_ns(buf + 1, len - 1, v);
	else
		fmt_ns(buf, len, v);
}

/* s as a cell's line holds it: cut with "..." when longer (at a character's start). */
static void cut(FILE *f, const char *s)
{
	char buf[CELL_CHARS + 1];
	size_t n = 0;
	int l;

	if (strlen(s) <= CELL_CHARS) {
		text(f, s);
		return;
	}
	while (n < CELL_CHARS - 3 && (l = esc_utf8(s + n)) > 0 && n + l <= CELL_CHARS - 3)
		n += l;
	snprintf(buf, sizeof(buf), "%.*s...", (int)n, s);
	text(f, buf);
}

static void cell_title(const struct svg *g, const struct sweep_row *r, size_t k)
{
	const struct sweep_cell *c = &r->cells[k];
	char b[24], h[24], d[40];
	size_t i;

	fputs("<title>", g->f);
	text(g->f, r->v->name);
	fprintf(g->f, " on %s: ", g->m->ops[k]);
	if (!c->ok) {
		text(g->f, c->why);
		fputs("</title>\n", g->f);
		return;
	}
	fmt_ns(b, sizeof(b), c->op.base);
	fmt_ns(h, sizeof(h), c->op.hard);
	fprintf(g->f,
		"%+.2f%% [%+.2f%%, %+.2f%%] 95%% CI, p %.2g, %s over the matrix; time per"
		" operation %s on base, %s on the variant (%zu and %zu runs); the runs' wall time"
		" %+.2f%%",
		sweep_pct(c->op.ratio), sweep_pct(c->op.lo), sweep_pct(c->op.hi), c->p,
		c->sig ? "significant" : "not significant", b, h, c->runs[0], c->runs[1],
		sweep_pct(c->wall.ratio));
	if (c->model)
		fprintf(g->f, "; the kernel's instructions per run %+.2f%%, misses %+.2f%%",
			c->insns[0] > 0 ? sweep_pct(c->insns[1] / c->insns[0]) : NAN,
			c->cache && c->misses[0] > 0 ? sweep_pct(c->misses[1] / c->misses[0])
						     : NAN);
	if (c->has_est && !c->timing)
		fprintf(g->f, ", est_cycles (an estimate) %+.2f%%",
			c->est[0] > 0 ? sweep_pct(c->est[1] / c->est[0]) : NAN);
	if (c->has_est && c->timing) {
		fputs(", est_cycles (timing model, core ", g->f);
		text(g->f, g->m->core);
		fprintf(g->f, ") %+.2f%%", c->est[0] > 0 ? sweep_pct(c->est[1] / c->est[0]) : NAN);
	}
	if (c->funcs_why[0]) {
		fputs("\nno functions: ", g->f);
		text(g->f, c->funcs_why);
	}
	for (i = 0; i < c->ntop; i++) {
		delta(d, sizeof(d), c, c->top[i].delta);
		fputs(i ? "\n" : "\nthe kernel functions that changed most, per run:\n", g->f);
		text(g->f, c->top[i].name);
		fprintf(g->f, " %s", d);
	}
	fputs("</title>\n", g->f);
}

static void cell(const struct svg *g, size_t i, size_t k)
{
	const struct sweep_row *r = &g->m->rows[i];
	const struct sweep_cell *c = &r->cells[k];
	int x = g->left + (int)k * CW, y = TOP + (int)i * CH;
	char colour[8] = "#e0e0e0", d[40];

	if (c->ok)
		protection_map_colour(sweep_pct(c->op.ratio) / g->scale_pct, colour);
	fprintf(g->f, "<g class=\"cell\" id=\"cell-%zu-%zu\" data-variant=\"", i, k);
	text(g->f, r->v->name);
	fprintf(g->f, "\" data-operation=\"%s\">\n", g->m->ops[k]);
	cell_title(g, r, k);
	fprintf(g->f,
		"<rect x=\"%d\" y=\"%d\" width=\"%d\" height=\"%d\" fill=\"%s\""
		" stroke=\"#606060\"/>\n",
		x, y, CW, CH, colour);
	if (!c->ok) {
		fprintf(g->f,
			"<text x=\"%d\" y=\"%d\" fill=\"#606060\">not compared</text>\n</g>\n",
			x + 8, y + 22);
		return;
	}
	fprintf(g->f, "<text x=\"%d\" y=\"%d\" font-weight=\"bold\">%+.2f%%%s</text>\n", x + 8,
		y + 22, sweep_pct(c->op.ratio), c->sig ? " *" : "");
	if (c->ntop) {
		fprintf(g->f, "<text x=\"%d\" y=\"%d\" font-size=\"11\">", x + 8, y + 42);
		cut(g->f, c->top[0].name);
		delta(d, sizeof(d), c, c->top[0].delta);
		fprintf(g->f, "</text>\n<text x=\"%d\" y=\"%d\" font-size=\"11\">%s</text>\n",
			x + 8, y + 57, d);
	}
	if (c->has_est)
		fprintf(g->f, "<text x=\"%d\" y=\"%d\" font-size=\"11\">est %+.2f%%</text>\n",
			x + 8, y + 74, c->est[0] > 0 ? sweep_pct(c->est[1] / c->est[0]) : 0);
	else if (c->model && c->cache)
		fprintf(g->f, "<text x=\"%d\" y=\"%d\" font-size=\"11\">misses %+.2f%%</text>\n",
			x + 8, y + 74,
			c->misses[0] > 0 ? sweep_pct(c->misses[1] / c->misses[0]) : 0);
	fputs("</g>\n", g->f);
}

/* A row that was not compared: one grey band saying why. */
static void band(const struct svg *g, size_t i)
{
	const struct sweep_row *r = &g->m->rows[i];
	int y = TOP + (int)i * CH, w = (int)g->m->nops * CW;
	size_t fits = w / 7 > 20 ? w / 7 : 20;
	char shown[SWEEP_FIELD_MAX];

	/* as much as the band holds, cut with "..." */
	snprintf(shown, sizeof(shown), "%s", r->why);
	if (strlen(shown) > fits && fits < sizeof(shown))
		strcpy(shown + fits - 3, "...");
	fprintf(g->f, "<g class=\"failed\" id=\"failed-%zu\" data-variant=\"", i);
	text(g->f, r->v->name);
	fputs("\">\n<title>", g->f);
	text(g->f, r->v->name);
	fputs(": not compared: ", g->f);
	text(g->f, r->why);
	fprintf(g->f,
		"</title>\n<rect x=\"%d\" y=\"%d\" width=\"%d\" height=\"%d\" fill=\"#e0e0e0\""
		" stroke=\"#606060\"/>\n<text x=\"%d\" y=\"%d\" fill=\"#606060\" font-size=\"12\">",
		g->left, y, w, CH, g->left + 8, y + 22);
	text(g->f, shown);
	fputs("</text>\n</g>\n", g->f);
}

static void heads(const struct svg *g)
{
	const struct sweep_row *r;
	size_t i, k;

	for (k = 0; k < g->m->nops; k++)
		fprintf(g->f,
			"<text x=\"%d\" y=\"%d\" text-anchor=\"middle\" font-weight=\"bold\">%s</text>\n",
			g->left + (int)k * CW + CW / 2, TOP - 10, g->m->ops[k]);
	for (i = 0; i < g->m->nrows; i++) {
		r = &g->m->rows[i];
		fprintf(g->f, "<text x=\"%d\" y=\"%d\" text-anchor=\"end\" font-weight=\"bold\">",
			g->left - 10, TOP + (int)i * CH + CH / 2 + 5);
		fputs("<title>", g->f);
		text(g->f, r->v->options);
		for (k = 0; k < r->ndiffers; k++) {
			fputs("\n", g->f);
			text(g->f, r->differs[k]);
		}
		fputs("</title>", g->f);
		text(g->f, r->v->name);
		fputs("</text>\n", g->f);
	}
}

static void legend(const struct svg *g)
{
	int y = TOP + (int)g->m->nrows * CH + 30, w = (int)g->m->nops * CW;

	fputs("<defs><linearGradient id=\"scale\"><stop offset=\"0\" stop-color=\"#2166ac\"/>"
	      "<stop offset=\"0.5\" stop-color=\"#ffffff\"/><stop offset=\"1\""
	      " stop-color=\"#b2182b\"/></linearGradient></defs>\n",
	      g->f);
	fprintf(g->f,
		"<rect id=\"legend\" x=\"%d\" y=\"%d\" width=\"%d\" height=\"14\""
		" fill=\"url(#scale)\" stroke=\"#606060\"/>\n",
		g->left, y, w);
	fprintf(g->f, "<text x=\"%d\" y=\"%d\">%+.1f%%</text>\n", g->left, y + 32, -g->scale_pct);
	fprintf(g->f, "<text x=\"%d\" y=\"%d\" text-anchor=\"middle\">0</text>\n", g->left + w / 2,
		y + 32);
	fprintf(g->f, "<text x=\"%d\" y=\"%d\" text-anchor=\"end\">%+.1f%%</text>\n", g->left + w,
		y + 32, g->scale_pct);
	fprintf(g->f,
		"<text x=\"%d\" y=\"%d\" font-size=\"12\">change of the operation's own time (core-ops'"
		" mean per operation) on the variant against base; red: slower, blue: faster, grey:"
		" not compared</text>\n<text x=\"%d\" y=\"%d\" font-size=\"12\">* significant: its 95%%"
		" interval excludes no change, and Holm's procedure over the %zu cells keeps any false"
		" * under %g%%</text>\n",
		g->left, y + 52, g->left, y + 68, g->m->tests, 100 * SWEEP_ALPHA);
}

/* The legend's end: the largest change compared, rounded up as the protection map does. */
static double scale(const struct sweep_matrix *m)
{
	double max = 0;
	size_t i, k;

	for (i = 0; i < m->nrows; i++)
		for (k = 0; m->rows[i].ok && k < m->nops; k++)
			if (m->rows[i].cells[k].ok && isfinite(m->rows[i].cells[k].op.ratio))
				max = fmax(max, fabs(sweep_pct(m->rows[i].cells[k].op.ratio)));
	return protection_map_scale(max);
}

void sweep_out_svg(const struct sweep_matrix *m, FILE *f)
{
	struct svg g = {m, f, 160, scale(m)};
	int w, h;
	size_t i, k;

	for (i = 0; i < m->nrows; i++)
		if ((int)strlen(m->rows[i].v->name) * CHARW + 30 > g.left)
			g.left = (int)strlen(m->rows[i].v->name) * CHARW + 30;
	w = g.left + (int)(m->nops ?: 1) * CW + 20;
	w = w < MIN_WIDTH ? MIN_WIDTH : w;
	h = TOP + (int)m->nrows * CH + 116;
	fprintf(f,
		"<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n"
		"<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"%d\" height=\"%d\""
		" viewBox=\"0 0 %d %d\" font-family=\"sans-serif\" font-size=\"14\">\n"
		"<rect width=\"100%%\" height=\"100%%\" fill=\"#ffffff\"/>\n"
		"<text x=\"20\" y=\"28\" font-size=\"18\" font-weight=\"bold\">kprotperf sweep: what"
		" each variant costs each core operation</text>\n<text x=\"20\" y=\"50\""
		" font-size=\"12\">base: ",
		w, h, w, h);
	text(f, m->base_ok ? m->base.setup : m->base_why);
	fputs("</text>\n<text x=\"20\" y=\"68\" font-size=\"12\">each cell: the change, * when"
	      " significant, and the kernel function that changed most (hover: the interval, p,"
	      " the top functions)",
	      f);
	if (m->timing) {
		fputs("; est: est_cycles (timing model, core ", f);
		text(f, m->core);
		fputs("): its cycles, not counts x costs", f);
	}
	fputs("</text>\n", f);
	heads(&g);
	for (i = 0; i < m->nrows; i++)
		if (!m->rows[i].ok)
			band(&g, i);
		else
			for (k = 0; k < m->nops; k++)
				cell(&g, i, k);
	legend(&g);
	fputs("</svg>\n", f);
}
