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
	fputs("  }\n}\n", f);
	return ferror(f) ? -EIO : 0;
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
}
