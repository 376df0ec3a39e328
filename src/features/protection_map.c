// SPDX-License-Identifier: GPL-2.0-only
/* The protection map (protection_map.h): the cells' numbers, then SVG or JSON. */
#include "features/protection_map.h"

#include <math.h>
#include <string.h>

#include "features/features.h"
#include "util/esc.h"
#include "util/json.h"

static const char *const types[] = {"source", "compiler", "config", "boot"};
static const char *const positions[] = {"code", "data", "layout"};
#define NTYPES	   (sizeof(types) / sizeof(types[0]))
#define NPOSITIONS (sizeof(positions) / sizeof(positions[0]))

/* What the map measures: CPU time per run (workloads), instructions per boot (boots). */
struct unit {
	const char *json;  /* the JSON keys' suffix */
	const char *text;  /* a value's unit, as text shows it in millions */
	const char *per;   /* "run", "boot" */
	const char *about; /* the legend's measure */
	const char *base;  /* what the share is of */
};

static const struct unit time_unit = {"_ns", "ms", "run", "CPU time per run", "kernel's time"};
static const struct unit insns_unit = {"_insns", "M insns", "boot", "instructions per boot",
				       "boot's instructions"};

struct map {
	const struct features *feat;
	const struct unit *u;
	const struct map_cost *cost;	 /* per feature, in the mapping's order */
	double base_ns;			 /* the base kernel's: CPU time per run, or boot's insns */
	double cell[NTYPES][NPOSITIONS]; /* change per run (boot) */
	int nfeat[NTYPES][NPOSITIONS];
	double scale_pct; /* the legend's end: the largest cell, rounded up */
};

static int index_of(const char *const *v, size_t n, const char *s)
{
	size_t i;

	for (i = 0; s && i < n; i++)
		if (!strcmp(v[i], s))
			return i;
	return -1;
}

double protection_map_scale(double x)
{
	double p = pow(10, floor(log10(fmax(x, 0.1))));

	return x <= p ? p : x <= 2 * p ? 2 * p : x <= 5 * p ? 5 * p : 10 * p;
}

/* Feature i's cell (type and position); false when it has none or is not placed. */
static bool cell_of(const struct map *m, size_t i, int *t, int *p)
{
	*t = index_of(types, NTYPES, features_class(m->feat, i, FEATURES_TYPE));
	*p = index_of(positions, NPOSITIONS, features_class(m->feat, i, FEATURES_POSITION));
	return *t >= 0 && *p >= 0 && m->cost[i].placed;
}

static void place(struct map *m)
{
	double max = 0;
	size_t i;
	int t, p;

	for (i = 0; i < features_count(m->feat); i++) {
		if (!cell_of(m, i, &t, &p))
			continue;
		m->nfeat[t][p]++;
		m->cell[t][p] += m->cost[i].delta;
	}
	for (t = 0; t < (int)NTYPES; t++)
		for (p = 0; p < (int)NPOSITIONS; p++)
			max = fmax(max, fabs(m->cell[t][p]));
	m->scale_pct = protection_map_scale(m->base_ns > 0 ? 100 * max / m->base_ns : 0);
}

static double pct(const struct map *m, double ns)
{
	return m->base_ns > 0 ? 100 * ns / m->base_ns : 0;
}

void protection_map_colour(double x, char buf[8])
{
	int r, g, b;

	x = fmax(-1, fmin(1, x));
	/* white to #b2182b, or to #2166ac */
	r = x >= 0 ? 255 - lround(x * (255 - 0xb2)) : 255 - lround(-x * (255 - 0x21));
	g = x >= 0 ? 255 - lround(x * (255 - 0x18)) : 255 - lround(-x * (255 - 0x66));
	b = x >= 0 ? 255 - lround(x * (255 - 0x2b)) : 255 - lround(-x * (255 - 0xac));
	snprintf(buf, 8, "#%02x%02x%02x", r, g, b);
}

/* Red for a cost, blue for a saving, white for none; grey: no feature in the cell. */
static void colour(const struct map *m, int t, int p, char buf[8])
{
	double x = m->scale_pct > 0 ? pct(m, m->cell[t][p]) / m->scale_pct : 0;

	if (!m->nfeat[t][p]) {
		strcpy(buf, "#e0e0e0");
		return;
	}
	protection_map_colour(x, buf);
}

/* key with the map's unit: "delta" -> "delta_ns" (workloads), "delta_insns" (boots) */
static const char *key(const struct map *m, const char *k, char *buf, size_t len)
{
	snprintf(buf, len, "%s%s", k, m->u->json);
	return buf;
}

static void json_feature(const struct map *m, size_t i, struct json *j)
{
	const struct map_cost *c = &m->cost[i];
	char k[32];

	json_open(j, NULL, '{');
	json_str(j, "name", features_name(m->feat, i));
	json_double(j, key(m, "delta", k, sizeof(k)), c->delta);
	/* NAN: null */
	json_double(j, key(m, "ci_low", k, sizeof(k)), c->lo);
	json_double(j, key(m, "ci_high", k, sizeof(k)), c->hi);
	json_double(j, key(m, "base", k, sizeof(k)), c->base);
	json_double(j, key(m, "hardened", k, sizeof(k)), c->hard);
	if (m->u == &insns_unit)
		json_str(j, "measured", c->whole ? "whole boot" : "functions");
	json_close(j, '}');
}

/* Feature k of the cell (t, p) in the file's order; -1 past the last. */
static long nth(const struct map *m, int t, int p, int k)
{
	size_t i;

	int ft, fp;

	for (i = 0; i < features_count(m->feat); i++) {
		if (!cell_of(m, i, &ft, &fp) || ft != t || fp != p)
			continue;
		if (!k--)
			return i;
	}
	return -1;
}

static void json_cell(const struct map *m, int t, int p, struct json *j)
{
	char c[8], key_[32];
	long i;
	int k;

	colour(m, t, p, c);
	json_open(j, NULL, '{');
	json_str(j, "type", types[t]);
	json_str(j, "position", positions[p]);
	json_str(j, "color", c);
	json_double(j, key(m, "delta", key_, sizeof(key_)), m->cell[t][p]);
	json_double(j, "delta_pct", pct(m, m->cell[t][p]));
	json_open(j, "features", '[');
	for (k = 0; (i = nth(m, t, p, k)) >= 0; k++)
		json_feature(m, i, j);
	json_close(j, ']');
	json_close(j, '}');
}

static void print_json(const struct map *m, const char *const path[2], FILE *f)
{
	struct json j;
	size_t t, p;

	json_begin(&j, f);
	json_open(&j, NULL, '{');
	json_str(&j, "base", path[0]);
	json_str(&j, "hardened", path[1]);
	if (m->u == &time_unit) {
		json_str(&j, "unit", "change of CPU time per run, % of the base kernel's");
		json_double(&j, "base_kernel_ns_per_run", m->base_ns);
	} else {
		json_str(&j, "unit", "change of instructions per boot, % of the base boot's");
		json_double(&j, "base_boot_insns", m->base_ns);
	}
	json_double(&j, "scale_pct", m->scale_pct);
	json_open(&j, "cells", '[');
	for (t = 0; t < NTYPES; t++)
		for (p = 0; p < NPOSITIONS; p++)
			json_cell(m, t, p, &j);
	json_close(&j, ']');
	json_close(&j, '}');
	json_end(&j);
}

enum { LEFT = 110, TOP = 110, CW = 230, CH = 132, LINES = 5 };

static void svg_tooltip(const struct map *m, int t, int p, FILE *f)
{
	const struct unit *u = m->u;
	const struct map_cost *c;
	long i;
	int k;

	fprintf(f, "<title>%s, %s: %+.2f %s per %s (%+.2f%% of the base %s)", types[t],
		positions[p], m->cell[t][p] / 1e6, u->text, u->per, pct(m, m->cell[t][p]), u->base);
	for (k = 0; (i = nth(m, t, p, k)) >= 0; k++) {
		c = &m->cost[i];
		fputc('\n', f);
		esc_fputs(f, features_name(m->feat, i), ESC_XML);
		fprintf(f, ": %+.2f %s per %s", c->delta / 1e6, u->text, u->per);
		if (!isnan(c->lo))
			fprintf(f, " [%+.2f, %+.2f] 95%% CI", c->lo / 1e6, c->hi / 1e6);
		fprintf(f, " (base %.2f %s, hardened %.2f %s): ", c->base / 1e6, u->text,
			c->hard / 1e6, u->text);
		esc_fputs(f, features_about(m->feat, i), ESC_XML);
	}
	fputs("</title>\n", f);
}

static void svg_cell(const struct map *m, int t, int p, FILE *f)
{
	int x = LEFT + p * CW, y = TOP + t * CH, k;
	char c[8];
	long i;

	colour(m, t, p, c);
	fprintf(f, "<g class=\"cell\" id=\"cell-%s-%s\">\n", types[t], positions[p]);
	svg_tooltip(m, t, p, f);
	fprintf(f,
		"<rect id=\"rect-%s-%s\" x=\"%d\" y=\"%d\" width=\"%d\" height=\"%d\" fill=\"%s\""
		" stroke=\"#606060\"/>\n",
		types[t], positions[p], x, y, CW, CH, c);
	if (!m->nfeat[t][p]) {
		fprintf(f, "<text x=\"%d\" y=\"%d\" fill=\"#808080\">no feature</text>\n</g>\n",
			x + 8, y + 20);
		return;
	}
	fprintf(f, "<text x=\"%d\" y=\"%d\" font-weight=\"bold\">%+.2f%% (%+.2f %s/%s)</text>\n",
		x + 8, y + 20, pct(m, m->cell[t][p]), m->cell[t][p] / 1e6, m->u->text, m->u->per);
	for (k = 0; k < LINES && (i = nth(m, t, p, k)) >= 0; k++) {
		fprintf(f, "<text x=\"%d\" y=\"%d\" font-size=\"12\">", x + 8, y + 40 + 15 * k);
		esc_fputs(f, features_name(m->feat, i), ESC_XML);
		fprintf(f, " %+.2f %s</text>\n", m->cost[i].delta / 1e6, m->u->text);
	}
	if (m->nfeat[t][p] > LINES)
		fprintf(f, "<text x=\"%d\" y=\"%d\" font-size=\"12\">and %d more</text>\n", x + 8,
			y + 40 + 15 * LINES, m->nfeat[t][p] - LINES);
	fputs("</g>\n", f);
}

static void svg_legend(const struct map *m, FILE *f)
{
	int y = TOP + (int)NTYPES * CH + 30, w = (int)NPOSITIONS * CW;

	fputs("<defs><linearGradient id=\"scale\"><stop offset=\"0\" stop-color=\"#2166ac\"/>"
	      "<stop offset=\"0.5\" stop-color=\"#ffffff\"/><stop offset=\"1\""
	      " stop-color=\"#b2182b\"/></linearGradient></defs>\n",
	      f);
	fprintf(f,
		"<rect id=\"legend\" x=\"%d\" y=\"%d\" width=\"%d\" height=\"14\" fill=\"url(#scale)\""
		" stroke=\"#606060\"/>\n",
		LEFT, y, w);
	fprintf(f, "<text x=\"%d\" y=\"%d\">%+.1f%%</text>\n", LEFT, y + 32, -m->scale_pct);
	fprintf(f, "<text x=\"%d\" y=\"%d\" text-anchor=\"middle\">0</text>\n", LEFT + w / 2,
		y + 32);
	fprintf(f, "<text x=\"%d\" y=\"%d\" text-anchor=\"end\">%+.1f%%</text>\n", LEFT + w, y + 32,
		m->scale_pct);
	fprintf(f,
		"<text x=\"%d\" y=\"%d\" font-size=\"12\">change of %s (hardened"
		" minus base), %% of the base %s %.2f %s per %s;</text>\n"
		"<text x=\"%d\" y=\"%d\" font-size=\"12\">red: the hardened kernel spends more,"
		" blue: less; grey: no feature of that type and position</text>\n",
		LEFT, y + 52, m->u->about, m->u == &time_unit ? "kernel's" : "boot's",
		m->base_ns / 1e6, m->u->text, m->u->per, LEFT, y + 68);
}

static void print_svg(const struct map *m, const char *const path[2], FILE *f)
{
	int w = LEFT + (int)NPOSITIONS * CW + 20, h = TOP + (int)NTYPES * CH + 116;
	size_t t, p;

	fprintf(f,
		"<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n"
		"<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"%d\" height=\"%d\""
		" viewBox=\"0 0 %d %d\" font-family=\"sans-serif\" font-size=\"14\">\n"
		"<rect width=\"100%%\" height=\"100%%\" fill=\"#ffffff\"/>\n",
		w, h, w, h);
	fprintf(f,
		"<text x=\"%d\" y=\"28\" font-size=\"18\" font-weight=\"bold\">kprotperf"
		" protection map: what each kind of protection costs</text>\n<text x=\"%d\""
		" y=\"50\" font-size=\"12\">base ",
		LEFT, LEFT);
	esc_fputs(f, path[0], ESC_XML);
	fputs(", hardened ", f);
	esc_fputs(f, path[1], ESC_XML);
	fprintf(f,
		"</text>\n<text x=\"%d\" y=\"68\" font-size=\"12\">each cell: its"
		" features' change of %s (hover: each feature, its 95%%"
		" interval, what it is)</text>\n",
		LEFT, m->u->about);
	for (p = 0; p < NPOSITIONS; p++)
		fprintf(f,
			"<text x=\"%zu\" y=\"%d\" text-anchor=\"middle\""
			" font-weight=\"bold\">%s</text>\n",
			LEFT + p * CW + CW / 2, TOP - 10, positions[p]);
	for (t = 0; t < NTYPES; t++)
		fprintf(f,
			"<text x=\"%d\" y=\"%zu\" text-anchor=\"end\" font-weight=\"bold\">%s</text>\n",
			LEFT - 10, TOP + t * CH + CH / 2, types[t]);
	for (t = 0; t < NTYPES; t++)
		for (p = 0; p < NPOSITIONS; p++)
			svg_cell(m, t, p, f);
	svg_legend(m, f);
	fputs("</svg>\n", f);
}

void protection_map(const struct features *feat, const struct map_cost *cost, double base,
		    enum map_unit unit, const char *const path[2], bool svg, FILE *f)
{
	struct map m = {.feat = feat,
			.u = unit == MAP_INSNS ? &insns_unit : &time_unit,
			.cost = cost,
			.base_ns = base};

	place(&m);
	if (svg)
		print_svg(&m, path, f);
	else
		print_json(&m, path, f);
}
