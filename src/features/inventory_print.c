// SPDX-License-Identifier: GPL-2.0-only
/* What kprotperf features prints of an inventory (inventory_print.h). */
#include "features/inventory_print.h"

#include <errno.h>
#include <string.h>

#include "features/inventory.h"
#include "util/esc.h"
#include "util/json.h"

static const char *source_note(const struct inventory *inv)
{
	return inv->from_file ? "as linked, before the boot's patching"
			      : "as the boot patched it (alternatives, thunks)";
}

static void print_table(FILE *f, const struct inventory *inv)
{
	int k;

	esc_printf(
		f,
		"# compiler-inserted protections: %zu functions, %llu bytes of text from %s (%s)\n",
		inv->n, (unsigned long long)inv->text_bytes, inv->source, source_note(inv));
	if (*inv->note)
		esc_printf(f, "# note: %s\n", inv->note);
	if (inv->bad)
		fprintf(f, "# %zu bytes decode as no instruction (skipped)\n", inv->bad);
	fprintf(f, "%-22s %9s %10s\n", "FEATURE", "SITES", "FUNCTIONS");
	for (k = 0; k < SITES_KINDS; k++)
		fprintf(f, "%-22s %9u %10u\n", sites_kind_name(k), inv->sites[k], inv->funcs[k]);
	fprintf(f, "# stack_canary: %u of its sites check the canary, the others load it\n",
		inv->canary_checks);
	fprintf(f, "# zero_call_used_regs: %llu bytes of xors before the returns\n",
		(unsigned long long)inv->zeroing_bytes);
}

static void json_table(struct json *j, const struct inventory *inv)
{
	int k;

	json_open(j, "features", '[');
	for (k = 0; k < SITES_KINDS; k++) {
		json_open(j, NULL, '{');
		json_str(j, "feature", sites_kind_name(k));
		json_u64(j, "sites", inv->sites[k]);
		json_u64(j, "functions", inv->funcs[k]);
		json_close(j, '}');
	}
	json_close(j, ']');
	json_u64(j, "canary_checks", inv->canary_checks);
	json_u64(j, "zeroing_bytes", inv->zeroing_bytes);
}

struct site_out {
	FILE *f;
	struct json *j;
	const struct inventory_func *fn;
};

static void one_site(void *arg, __u64 addr, __u32 len, enum sites_kind kind)
{
	struct site_out *o = arg;

	if (!o->j) {
		esc_printf(o->f, "%016llx  %s+0x%llx  %s\n", (unsigned long long)addr, o->fn->name,
			   (unsigned long long)(addr - o->fn->addr), sites_kind_name(kind));
		return;
	}
	json_open(o->j, NULL, '{');
	json_u64(o->j, "addr", addr);
	json_u64(o->j, "offset", addr - o->fn->addr);
	json_u64(o->j, "bytes", len);
	json_str(o->j, "feature", sites_kind_name(kind));
	json_close(o->j, '}');
}

static const struct inventory_func *find(const struct inventory *inv, const char *name)
{
	size_t i;

	for (i = 0; i < inv->n; i++) {
		if (!strcmp(inv->f[i].name, name))
			return &inv->f[i];
	}
	return NULL;
}

int inventory_print(FILE *f, struct inventory *inv, const char *func, bool json)
{
	const struct inventory_func *fn = func ? find(inv, func) : NULL;
	struct site_out o = {f, NULL, fn};
	struct json j;

	if (func && !fn)
		return -ENOENT;
	if (!json) {
		if (!fn) {
			print_table(f, inv);
			return 0;
		}
		esc_printf(f, "# %s: %llu bytes at %016llx, from %s (%s)\n", fn->name,
			   (unsigned long long)fn->size, (unsigned long long)fn->addr, inv->source,
			   source_note(inv));
		inventory_sites(inv, fn, one_site, &o);
		return 0;
	}
	json_begin(&j, f);
	json_open(&j, NULL, '{');
	json_str(&j, "source", inv->source);
	json_bool(&j, "as_linked", inv->from_file);
	json_str(&j, "note", *inv->note ? inv->note : NULL);
	json_u64(&j, "functions", inv->n);
	json_u64(&j, "text_bytes", inv->text_bytes);
	json_u64(&j, "undecoded_bytes", inv->bad);
	json_table(&j, inv);
	if (fn) {
		o.j = &j;
		json_str(&j, "function", fn->name);
		json_open(&j, "sites", '[');
		inventory_sites(inv, fn, one_site, &o);
		json_close(&j, ']');
	}
	json_close(&j, '}');
	json_end(&j);
	return 0;
}

static void diff_text(FILE *f, struct inventory *const inv[2])
{
	static const char *const side[2] = {"base", "hardened"};
	int k, i;

	for (i = 0; i < 2; i++)
		esc_printf(f, "# %-8s  %s: %zu functions, %llu bytes of text (%s)\n", side[i],
			   inv[i]->source, inv[i]->n, (unsigned long long)inv[i]->text_bytes,
			   source_note(inv[i]));
	fprintf(f, "%-22s %10s %10s %10s %10s %10s\n", "FEATURE", "BASE", "HARDENED", "CHANGE",
		"FUNCS", "FUNCS");
	for (k = 0; k < SITES_KINDS; k++)
		fprintf(f, "%-22s %10u %10u %+10lld %10u %10u\n", sites_kind_name(k),
			inv[0]->sites[k], inv[1]->sites[k],
			(long long)inv[1]->sites[k] - inv[0]->sites[k], inv[0]->funcs[k],
			inv[1]->funcs[k]);
	fputs("BASE, HARDENED: sites; FUNCS: the functions with one, base then hardened\n", f);
	fprintf(f, "text: %+lld bytes; zero_call_used_regs' xors: %+lld bytes\n",
		(long long)(inv[1]->text_bytes - inv[0]->text_bytes),
		(long long)(inv[1]->zeroing_bytes - inv[0]->zeroing_bytes));
}

static void diff_json(FILE *f, struct inventory *const inv[2])
{
	static const char *const side[2] = {"base", "hardened"};
	struct json j;
	int k, i;

	json_begin(&j, f);
	json_open(&j, NULL, '{');
	for (i = 0; i < 2; i++) {
		json_open(&j, side[i], '{');
		json_str(&j, "source", inv[i]->source);
		json_bool(&j, "as_linked", inv[i]->from_file);
		json_u64(&j, "functions", inv[i]->n);
		json_u64(&j, "text_bytes", inv[i]->text_bytes);
		json_u64(&j, "zeroing_bytes", inv[i]->zeroing_bytes);
		json_close(&j, '}');
	}
	json_open(&j, "features", '[');
	for (k = 0; k < SITES_KINDS; k++) {
		json_open(&j, NULL, '{');
		json_str(&j, "feature", sites_kind_name(k));
		json_u64(&j, "base_sites", inv[0]->sites[k]);
		json_u64(&j, "hardened_sites", inv[1]->sites[k]);
		json_i64(&j, "change", (long long)inv[1]->sites[k] - inv[0]->sites[k]);
		json_u64(&j, "base_functions", inv[0]->funcs[k]);
		json_u64(&j, "hardened_functions", inv[1]->funcs[k]);
		json_close(&j, '}');
	}
	json_close(&j, ']');
	json_close(&j, '}');
	json_end(&j);
}

void inventory_print_diff(FILE *f, struct inventory *const inv[2], bool json)
{
	if (json)
		diff_json(f, inv);
	else
		diff_text(f, inv);
}
