// SPDX-License-Identifier: GPL-2.0-only
/*
 * The machine model's cost table (costs.h), read as untrusted input.  A
 * minimal reader of the views' own, for their tests until the cost tables'
 * owner lands theirs (share/costs, kprotperf calibrate): a JSON object of
 * numbers, strings and objects of those, the keys of spec §5.
 */
#include "model/costs.h"

#include <errno.h>
#include <math.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "util/esc.h"
#include "util/safeio.h"

#define COSTS_MAX (64 * 1024)

const char *const model_cost_names[MC_KEYS] = {
	"i1_miss", "d1_miss",  "ll_miss", "itlb_miss", "dtlb_miss", "cr3_write",    "tlb_flush",
	"lfence",  "mfence",   "sfence",  "cpuid",     "wrmsr",	    "rdmsr",	    "verw",
	"iret",	   "sysret",   "swapgs",  "mov_cr",    "invlpg",    "invpcid",	    "wbinvd",
	"lxdt",	   "call_ind", "jmp_ind", "ret",       "retpoline", "return_thunk",
};

int model_cost_of_kind(const char *kind)
{
	int k;

	if (!strcmp(kind, "sysexit"))
		return MC_SYSRET;
	/* a CR3 write's cost is cr3_write's, charged per write */
	for (k = MC_LFENCE; k <= MC_RET; k++)
		if (!strcmp(kind, model_cost_names[k]))
			return k;
	return -1;
}

struct parser {
	const char *s, *end;
	struct model_costs *c;
	bool seen[MC_KEYS], version;
};

static void ws(struct parser *p)
{
	while (p->s < p->end && strchr(" \t\r\n", *p->s))
		p->s++;
}

static bool lit(struct parser *p, char ch)
{
	ws(p);
	if (p->s < p->end && *p->s == ch) {
		p->s++;
		return true;
	}
	return false;
}

/* A string without escapes but \" and \\, into out (truncated to len - 1). */
static bool str(struct parser *p, char *out, size_t len)
{
	size_t n = 0;

	if (!lit(p, '"'))
		return false;
	while (p->s < p->end && *p->s != '"') {
		if (*p->s == '\\' && p->s + 1 < p->end)
			p->s++;
		if ((unsigned char)*p->s < 0x20)
			return false;
		if (n + 1 < len)
			out[n++] = *p->s;
		p->s++;
	}
	out[n] = '\0';
	return lit(p, '"');
}

static bool num(struct parser *p, double *v)
{
	char buf[64], *e;
	size_t n;

	ws(p);
	n = strspn(p->s, "0123456789+-.eE");
	if (!n || n >= sizeof(buf) || p->s + n > p->end)
		return false;
	memcpy(buf, p->s, n);
	buf[n] = '\0';
	*v = strtod(buf, &e);
	p->s += n;
	return !*e && isfinite(*v);
}

/* Any value, skipped: strings, numbers and flat objects of those. */
static bool skip(struct parser *p)
{
	char b[256];
	double v;

	ws(p);
	if (p->s < p->end && *p->s == '"')
		return str(p, b, sizeof(b));
	if (!lit(p, '{'))
		return num(p, &v);
	if (lit(p, '}'))
		return true;
	do {
		if (!str(p, b, sizeof(b)) || !lit(p, ':') || !skip(p))
			return false;
	} while (lit(p, ','));
	return lit(p, '}');
}

static bool cost(struct parser *p, const char *key)
{
	double v;
	int k;

	for (k = 0; k < MC_KEYS; k++)
		if (!strcmp(key, model_cost_names[k])) {
			if (!num(p, &v) || v < 0 || v > 1e9 || p->seen[k])
				return false;
			p->c->c[k] = v;
			p->seen[k] = true;
			return true;
		}
	return skip(p);
}

static bool cpu(struct parser *p, const char *key)
{
	double v;

	if (!strcmp(key, "vendor"))
		return str(p, p->c->vendor, sizeof(p->c->vendor));
	if (!strcmp(key, "model_name"))
		return str(p, p->c->model_name, sizeof(p->c->model_name));
	if (!strcmp(key, "family") || !strcmp(key, "model")) {
		if (!num(p, &v) || v < 0 || v > 65535 || v != (int)v)
			return false;
		*(!strcmp(key, "family") ? &p->c->family : &p->c->model) = v;
		return true;
	}
	return skip(p);
}

static bool object(struct parser *p, bool (*member)(struct parser *p, const char *key))
{
	char key[64];

	if (!lit(p, '{'))
		return false;
	if (lit(p, '}'))
		return true;
	do {
		if (!str(p, key, sizeof(key)) || !lit(p, ':') || !member(p, key))
			return false;
	} while (lit(p, ','));
	return lit(p, '}');
}

static bool top(struct parser *p, const char *key)
{
	double v;

	if (!strcmp(key, "kprotperf_costs"))
		return num(p, &v) && v == 1 && (p->version = true);
	if (!strcmp(key, "name"))
		return str(p, p->c->name, sizeof(p->c->name)) && p->c->name[0];
	if (!strcmp(key, "ghz"))
		return num(p, &p->c->ghz) && p->c->ghz > 0 && p->c->ghz < 100;
	if (!strcmp(key, "cpi"))
		return num(p, &p->c->cpi) && p->c->cpi > 0 && p->c->cpi < 100;
	if (!strcmp(key, "cpu"))
		return object(p, cpu);
	if (!strcmp(key, "costs"))
		return object(p, cost);
	return skip(p);
}

static int parse(const char *path, const char *text, size_t n, struct model_costs *c)
{
	struct parser p = {text, text + n, c};
	int k;

	if (!object(&p, top) || (ws(&p), p.s != p.end) || !p.version || !c->name[0] || !c->cpi) {
		esc_printf(
			stderr,
			"kprotperf: cost table %s: not one (a JSON object with kprotperf_costs 1,"
			" name, cpi and costs)\n",
			path);
		return -EBADMSG;
	}
	for (k = 0; k < MC_KEYS; k++)
		if (!p.seen[k]) {
			esc_printf(stderr, "kprotperf: cost table %s: no cost %s\n", path,
				   model_cost_names[k]);
			return -EBADMSG;
		}
	return 0;
}

int model_costs_load(const char *path, struct model_costs *c)
{
	char why[256] = "", *text;
	struct stat st;
	ssize_t n;
	int fd, err;

	*c = (struct model_costs){0};
	fd = safeio_open_regular(path, &st, why, sizeof(why));
	if (fd < 0) {
		esc_printf(stderr, "kprotperf: cost table %s: %s\n", path,
			   why[0] ? why : strerror(-fd));
		return fd;
	}
	text = st.st_size <= COSTS_MAX ? malloc(COSTS_MAX + 1) : NULL;
	n = text ? read(fd, text, COSTS_MAX + 1) : -1;
	close(fd);
	if (n < 0 || n > COSTS_MAX) {
		esc_printf(stderr, "kprotperf: cost table %s: %s\n", path,
			   text && n < 0 ? strerror(errno) : "larger than 64 KiB");
		free(text);
		return -EFBIG;
	}
	err = parse(path, text, n, c);
	free(text);
	if (!err)
		snprintf(c->path, sizeof(c->path), "%s", path);
	return err;
}

int model_costs_pick(const char *given, const char *guest_cpu_model, struct model_costs *c)
{
	const char *home = getenv("HOME");
	char native[512];

	snprintf(native, sizeof(native), "%s/.cache/kprotperf/costs/native.json", home ?: "");
	if (given)
		return model_costs_load(strcmp(given, "native") ? given : native, c);
	if (home && !access(native, F_OK))
		return model_costs_load(native, c);
	fprintf(stderr, "kprotperf: no cost table for est_cycles: run kprotperf calibrate, or give"
			" --costs FILE\n");
	return -ENOENT;
}
