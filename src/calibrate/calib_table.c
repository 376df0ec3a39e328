// SPDX-License-Identifier: GPL-2.0-only
/* A cost table written as model/costs.h reads it, and shown (calibrate/calibrate.h). */
#include "calibrate/calibrate.h"

#include <errno.h>
#include <string.h>

#include "util/esc.h"

/* s as a JSON string: quotes, backslashes and control characters escaped. */
static void jstr(FILE *f, const char *s)
{
	fputc('"', f);
	for (; *s; s++) {
		if (*s == '"' || *s == '\\')
			fprintf(f, "\\%c", *s);
		else if ((unsigned char)*s < 0x20 || *s == 0x7f)
			fprintf(f, "\\u%04x", (unsigned char)*s);
		else
			fputc(*s, f);
	}
	fputc('"', f);
}

/* Whether member g is written and shown: every one but an optional figure not measured (0). */
static bool core_known(const struct model_costs *c, int g)
{
	return g < MG_OPTIONAL || c->core[MK_OPTIONAL + g - MG_OPTIONAL];
}

/* Member g's figures: one number, or an object of them. */
static void core_member_json(FILE *f, const struct model_costs *c, int g)
{
	int k, n;

	fprintf(f, "    \"%s\": ", model_core_groups[g].name);
	for (k = 0, n = 0; k < MK_KEYS; k++) {
		if (model_core_fields[k].group != (enum model_core_group)g)
			continue;
		if (model_core_fields[k].name)
			fprintf(f, "%s\"%s\": ", n++ ? ", " : "{ ", model_core_fields[k].name);
		fprintf(f, "%.2f", c->core[k]);
	}
	fputs(n ? " }" : "", f);
}

/* The core's figures and their sources, after the sources' closing brace. */
static void core_json(FILE *f, const struct model_costs *c, const struct model_cost_sources *src)
{
	const char *sep = "";
	int g;

	fputs(",\n  \"core\": {\n", f);
	for (g = 0; g < MG_KEYS; g++)
		if (core_known(c, g)) {
			fputs(sep, f);
			core_member_json(f, c, g);
			sep = ",\n";
		}
	fputs("\n  },\n  \"core_sources\": {\n", f);
	for (g = 0, sep = ""; g < MG_KEYS; g++)
		if (core_known(c, g)) {
			fprintf(f, "%s    \"%s\": ", sep, model_core_groups[g].name);
			jstr(f, src->core[g]);
			sep = ",\n";
		}
	fputs("\n  }", f);
}

int calib_write_json(FILE *f, const struct model_costs *c, const struct model_cost_sources *src)
{
	int k;

	fputs("{\n  \"kprotperf_costs\": 1,\n  \"name\": ", f);
	jstr(f, c->name);
	fputs(",\n  \"cpu\": { \"vendor\": ", f);
	jstr(f, c->vendor);
	fprintf(f, ", \"family\": %d, \"model\": %d, \"model_name\": ", c->family, c->model);
	jstr(f, c->model_name);
	fprintf(f, " },\n  \"ghz\": %.3f,\n  \"cpi\": %.3f,\n  \"costs\": {\n", c->ghz, c->cpi);
	for (k = 0; k < MC_KEYS; k++)
		fprintf(f, "    \"%s\": %.1f%s\n", model_cost_names[k], c->c[k],
			k + 1 < MC_KEYS ? "," : "");
	fputs("  },\n  \"sources\": {\n", f);
	for (k = 0; k < MC_KEYS; k++) {
		fprintf(f, "    \"%s\": ", model_cost_names[k]);
		jstr(f, src->s[k]);
		fputs(k + 1 < MC_KEYS ? ",\n" : "\n", f);
	}
	fputs("  }", f);
	if (c->has_core)
		core_json(f, c, src);
	fputs("\n}\n", f);
	return ferror(f) ? -EIO : 0;
}

/* The core's figures: one line each, its unit, its member's source on the member's first. */
static void core_show(FILE *f, const struct model_costs *c, const struct model_cost_sources *src)
{
	enum model_core_group g, last = MG_KEYS;
	char name[64];
	int k;

	fprintf(f, "# the core's figures, for a timing model\n%-36s %9s %-12s %s\n", "FIGURE",
		"VALUE", "UNIT", "SOURCE");
	for (k = 0; k < MK_KEYS; k++) {
		g = model_core_fields[k].group;
		if (!core_known(c, g))
			continue; /* not measured: a table written before it */
		esc_printf(f, "core.%-31s %9.2f %-12s %s\n", model_core_name(k, name, sizeof(name)),
			   c->core[k], model_core_groups[g].unit, g != last ? src->core[g] : "\"");
		last = g;
	}
}

void calib_show(FILE *f, const struct model_costs *c, const struct model_cost_sources *src)
{
	int k;

	esc_printf(f, "# cost table: %s (%s)\n", c->name, c->path);
	esc_printf(f, "# cpu: %s family %d model %d '%s'\n", c->vendor, c->family, c->model,
		   c->model_name);
	fprintf(f, "# %.3f GHz (cycles per ns), cpi %.3f; costs in extra cycles over cpi\n", c->ghz,
		c->cpi);
	fprintf(f, "%-13s %10s  %s\n", "KEY", "CYCLES", "SOURCE");
	for (k = 0; k < MC_KEYS; k++)
		esc_printf(f, "%-13s %10.1f  %s\n", model_cost_names[k], c->c[k], src->s[k]);
	if (c->has_core)
		core_show(f, c, src);
}
