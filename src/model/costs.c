// SPDX-License-Identifier: GPL-2.0-only
/*
 * The cost tables (model/costs.h): a strict reader of their one flat JSON
 * format, the kinds' costs, and which table a report uses.
 */
#include "model/costs.h"

#include <ctype.h>
#include <errno.h>
#include <fcntl.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "util/esc.h"

const char *const model_cost_names[MC_KEYS] = {
	"i1_miss", "d1_miss",  "ll_miss", "itlb_miss", "dtlb_miss", "cr3_write",    "tlb_flush",
	"lfence",  "mfence",   "sfence",  "cpuid",     "wrmsr",	    "rdmsr",	    "verw",
	"iret",	   "sysret",   "swapgs",  "mov_cr",    "invlpg",    "invpcid",	    "wbinvd",
	"lxdt",	   "call_ind", "jmp_ind", "ret",       "retpoline", "return_thunk",
};

const struct model_core_group_info model_core_groups[MG_KEYS] = {
	[MG_LTU] = {"load_to_use", "cycles", 0.01},
	[MG_TLB] = {"tlb", "cycles", 0},
	[MG_MISPREDICT] = {"mispredict", "cycles", 0},
	[MG_STREAM_BPC] = {"stream_bytes_per_cycle", "bytes/cycle", 0.01},
	[MG_STREAM_CPL] = {"stream_cycles_per_line", "cycles/line", 0.01},
	[MG_STOSB] = {"rep_stosb_cycles_per_line", "cycles/line", 0.01},
	[MG_MOVSB] = {"rep_movsb_cycles_per_line", "cycles/line", 0.01},
	[MG_LL_CAPACITY] = {"ll_capacity", "KiB", 0},
	[MG_RENAME] = {"rename_registers", "registers", 0},
	[MG_FETCH_CROSSING] = {"fetch_block_crossing", "x", 0.01},
	[MG_L2_STREAM] = {"l2_stream_cycles_per_line", "cycles/line", 0.01},
	[MG_LL_RANDOM] = {"ll_random_cycles_per_line", "cycles/line", 0.01},
	[MG_SCHEDULER] = {"scheduler", "entries", 1},
	[MG_STREAM_4K] = {"stream_4k_cycles_per_line", "cycles/line", 0.01},
	[MG_LL_LOST] = {"ll_lost", "per million", 0},
};

const struct model_core_field model_core_fields[MK_KEYS] = {
	[MK_LTU_L1] = {MG_LTU, "l1"},
	[MK_LTU_L2] = {MG_LTU, "l2"},
	[MK_LTU_LL] = {MG_LTU, "ll"},
	[MK_LTU_DRAM] = {MG_LTU, "dram"},
	[MK_STLB_HIT] = {MG_TLB, "stlb_hit"},
	[MK_WALK_CACHED] = {MG_TLB, "walk_cached"},
	[MK_WALK_DRAM] = {MG_TLB, "dram"},
	[MK_MISPREDICT] = {MG_MISPREDICT, NULL},
	[MK_STREAM_BPC] = {MG_STREAM_BPC, NULL},
	[MK_STREAM_CPL] = {MG_STREAM_CPL, NULL},
	[MK_STOSB_L1] = {MG_STOSB, "l1"},
	[MK_STOSB_L2] = {MG_STOSB, "l2"},
	[MK_STOSB_DRAM] = {MG_STOSB, "dram"},
	[MK_MOVSB_L1] = {MG_MOVSB, "l1"},
	[MK_MOVSB_L2] = {MG_MOVSB, "l2"},
	[MK_MOVSB_DRAM] = {MG_MOVSB, "dram"},
	[MK_LL_CAPACITY] = {MG_LL_CAPACITY, NULL},
	[MK_RENAME] = {MG_RENAME, NULL},
	[MK_FETCH_CROSSING] = {MG_FETCH_CROSSING, NULL},
	[MK_L2_STREAM] = {MG_L2_STREAM, NULL},
	[MK_LL_RANDOM] = {MG_LL_RANDOM, NULL},
	[MK_SCHEDULER] = {MG_SCHEDULER, NULL},
	[MK_STREAM_4K] = {MG_STREAM_4K, NULL},
	[MK_LL_LOST] = {MG_LL_LOST, NULL},
};

const char *model_core_name(int k, char *buf, size_t len)
{
	const struct model_core_field *f = &model_core_fields[k];

	snprintf(buf, len, "%s%s%s", model_core_groups[f->group].name, f->name ? "." : "",
		 f->name ?: "");
	return buf;
}

/*
 * The raw table's kinds (spec §1) with a cost of their own.  mov_cr3 has
 * none here: a CR3 write is charged cr3_write through cr3_writes (and its
 * flush tlb_flush through tlb_flushes), never twice.  sysexit costs as
 * sysret, mov_dr as mov_cr (both serializing moves to a system register);
 * serialize and syscall have no key (their instructions count at cpi).
 */
static const struct {
	const char *kind;
	int key;
} kinds[] = {
	{"lfence", MC_LFENCE},	 {"mfence", MC_MFENCE}, {"sfence", MC_SFENCE},
	{"cpuid", MC_CPUID},	 {"wrmsr", MC_WRMSR},	{"rdmsr", MC_RDMSR},
	{"verw", MC_VERW},	 {"iret", MC_IRET},	{"sysret", MC_SYSRET},
	{"sysexit", MC_SYSRET},	 {"swapgs", MC_SWAPGS}, {"mov_cr", MC_MOV_CR},
	{"mov_dr", MC_MOV_CR},	 {"invlpg", MC_INVLPG}, {"invpcid", MC_INVPCID},
	{"wbinvd", MC_WBINVD},	 {"lxdt", MC_LXDT},	{"call_ind", MC_CALL_IND},
	{"jmp_ind", MC_JMP_IND}, {"ret", MC_RET},
};

int model_cost_of_kind(const char *kind)
{
	size_t i;

	for (i = 0; kind && i < sizeof(kinds) / sizeof(kinds[0]); i++)
		if (!strcmp(kind, kinds[i].kind))
			return kinds[i].key;
	return -1;
}

/* The reader: p walks text up to end; at an error, why says what and where. */
struct parser {
	const char *text, *p, *end;
	char *why;
	size_t len;
	struct model_costs *c;
	struct model_cost_sources *src;
	unsigned long long seen_top, seen_cost, seen_src, seen_cpu;
	/* core's figures, its members, core_sources' members; the member being read */
	unsigned long long seen_core, seen_group, seen_core_src;
	enum model_core_group group;
};

/* The way out every refusal ends with. */
#define WAY_OUT \
	"fix it, or give another table with --costs (kprotperf calibrate measures this machine's)"

static int fail(struct parser *ps, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static int fail(struct parser *ps, const char *fmt, ...)
{
	const char *q;
	va_list ap;
	int line = 1, n;

	for (q = ps->text; q < ps->p && q < ps->end; q++)
		line += *q == '\n';
	va_start(ap, fmt);
	n = vsnprintf(ps->why, ps->len, fmt, ap);
	va_end(ap);
	if (n >= 0 && (size_t)n < ps->len)
		snprintf(ps->why + n, ps->len - n, " (line %d): %s", line, WAY_OUT);
	return -EINVAL;
}

static void skip_ws(struct parser *ps)
{
	while (ps->p < ps->end && strchr(" \t\r\n", *ps->p) && *ps->p)
		ps->p++;
}

static int expect(struct parser *ps, char ch)
{
	skip_ws(ps);
	if (ps->p >= ps->end || *ps->p != ch)
		return fail(ps, "expected '%c'%s", ch, ps->p >= ps->end ? " at the end" : "");
	ps->p++;
	return 0;
}

/* 4 hex digits at s: their value, or -1. */
static long hex4(const char *s, const char *end)
{
	long v = 0;
	int i;

	if (end - s < 4)
		return -1;
	for (i = 0; i < 4; i++) {
		if (!isxdigit((unsigned char)s[i]))
			return -1;
		v = v * 16 + (isdigit((unsigned char)s[i]) ? s[i] - '0' : tolower(s[i]) - 'a' + 10);
	}
	return v;
}

/* A \uXXXX escape (with its pair for a surrogate) at ps->p, after the "\u": its code point or -1.
 */
static long unicode_escape(struct parser *ps)
{
	long hi = hex4(ps->p, ps->end), lo;

	if (hi < 0)
		return -1;
	ps->p += 4;
	if (hi < 0xd800 || hi > 0xdfff)
		return hi;
	if (hi > 0xdbff || ps->end - ps->p < 6 || ps->p[0] != '\\' || ps->p[1] != 'u')
		return -1;
	lo = hex4(ps->p + 2, ps->end);
	if (lo < 0xdc00 || lo > 0xdfff)
		return -1;
	ps->p += 6;
	return 0x10000 + ((hi - 0xd800) << 10) + (lo - 0xdc00);
}

/* cp as UTF-8 into out (room for 4): its length. */
static int put_utf8(long cp, char *out)
{
	if (cp < 0x80)
		return out[0] = cp, 1;
	if (cp < 0x800)
		return out[0] = 0xc0 | cp >> 6, out[1] = 0x80 | (cp & 0x3f), 2;
	if (cp < 0x10000)
		return out[0] = 0xe0 | cp >> 12, out[1] = 0x80 | ((cp >> 6) & 0x3f),
		       out[2] = 0x80 | (cp & 0x3f), 3;
	out[0] = 0xf0 | cp >> 18, out[1] = 0x80 | ((cp >> 12) & 0x3f);
	out[2] = 0x80 | ((cp >> 6) & 0x3f), out[3] = 0x80 | (cp & 0x3f);
	return 4;
}

/* One escape after its backslash into out: its length, or -1. */
static int escape(struct parser *ps, char *out)
{
	static const char from[] = "\"\\/bfnrt", to[] = "\"\\/\b\f\n\r\t";
	const char *e;
	long cp;

	if (ps->p >= ps->end)
		return -1;
	if (*ps->p == 'u') {
		ps->p++;
		cp = unicode_escape(ps);
		return cp <= 0 ? -1 : put_utf8(cp, out);
	}
	e = strchr(from, *ps->p);
	if (!e || !*ps->p)
		return -1;
	ps->p++;
	*out = to[e - from];
	return 1;
}

/*
 * A string into out (size len): refused when too long, unterminated, with
 * a bad escape, invalid UTF-8 or a control character (no name or source
 * may move the terminal's cursor).
 */
static int string(struct parser *ps, char *out, size_t len, const char *what)
{
	size_t n = 0;
	char buf[4];
	int k;

	if (expect(ps, '"'))
		return fail(ps, "%s: expected a string", what);
	while (ps->p < ps->end && *ps->p != '"') {
		if (*ps->p == '\\') {
			ps->p++;
			k = escape(ps, buf);
			if (k < 0)
				return fail(ps, "%s: a bad escape in a string", what);
		} else {
			k = esc_utf8(ps->p);
			if (k <= 0 || ps->p + k > ps->end)
				return fail(ps, "%s: a string that is not UTF-8", what);
			memcpy(buf, ps->p, k);
			ps->p += k;
		}
		if ((unsigned char)buf[0] < 0x20 || buf[0] == 0x7f ||
		    ((unsigned char)buf[0] == 0xc2 && (unsigned char)buf[1] < 0xa0))
			return fail(ps, "%s: a control character in a string", what);
		if (n + k >= len)
			return fail(ps, "%s: a string longer than %zu bytes", what, len - 1);
		memcpy(out + n, buf, k);
		n += k;
	}
	if (ps->p >= ps->end)
		return fail(ps, "%s: a string without its closing '\"'", what);
	ps->p++;
	out[n] = '\0';
	return 0;
}

/* JSON's number grammar at ps->p: the span's length, 0 when none. */
static size_t number_span(const char *s, const char *end)
{
	const char *q = s;

#define DIGITS()                                      \
	while (q < end && isdigit((unsigned char)*q)) \
		q++;
	if (q < end && *q == '-')
		q++;
	if (q >= end || !isdigit((unsigned char)*q))
		return 0;
	if (*q == '0')
		q++;
	else
		DIGITS();
	if (q < end && *q == '.') {
		if (++q >= end || !isdigit((unsigned char)*q))
			return 0;
		DIGITS();
	}
	if (q < end && (*q == 'e' || *q == 'E')) {
		q++;
		if (q < end && (*q == '+' || *q == '-'))
			q++;
		if (q >= end || !isdigit((unsigned char)*q))
			return 0;
		DIGITS();
	}
#undef DIGITS
	return q - s;
}

/* A number from lo to hi (both included) into *out. */
static int number(struct parser *ps, const char *what, double lo, double hi, double *out)
{
	char buf[64];
	size_t n;

	skip_ws(ps);
	n = number_span(ps->p, ps->end);
	if (!n)
		return fail(ps, "%s: expected a number", what);
	if (n >= sizeof(buf))
		return fail(ps, "%s: a number of over 63 characters", what);
	memcpy(buf, ps->p, n);
	buf[n] = '\0';
	*out = strtod(buf, NULL);
	if (!isfinite(*out) || *out < lo || *out > hi)
		return fail(ps, "%s: %s is out of range, expected %g..%g", what, buf, lo, hi);
	ps->p += n;
	return 0;
}

/* A member of an object, its key read: its value read, or -EINVAL. */
typedef int member_fn(struct parser *ps, const char *key);

/* A note's value ('_' keys): a string or a number, ignored. */
static int note(struct parser *ps, const char *key)
{
	char s[MODEL_COST_SOURCE_MAX];
	double v;

	skip_ws(ps);
	if (ps->p < ps->end && *ps->p == '"')
		return string(ps, s, sizeof(s), key);
	return number(ps, key, -1e300, 1e300, &v);
}

/* An object whose members fn reads (notes aside). */
static int object(struct parser *ps, member_fn *fn)
{
	char key[64];
	int err;

	if (expect(ps, '{'))
		return -EINVAL;
	skip_ws(ps);
	if (ps->p < ps->end && *ps->p == '}') {
		ps->p++;
		return 0;
	}
	do {
		if (string(ps, key, sizeof(key), "a key") || expect(ps, ':'))
			return -EINVAL;
		err = key[0] == '_' ? note(ps, key) : fn(ps, key);
		if (err)
			return err;
		skip_ws(ps);
	} while (ps->p < ps->end && *ps->p == ',' && ps->p++);
	return expect(ps, '}') ? fail(ps, "expected ',' or '}' after a value") : 0;
}

/* Bit i of *seen set, refused when it was: a duplicate key. */
static int once(struct parser *ps, unsigned long long *seen, int i, const char *key)
{
	if (*seen & (1ULL << i))
		return fail(ps, "'%s' is given twice", key);
	*seen |= 1ULL << i;
	return 0;
}

static int key_index(const char *key)
{
	int k;

	for (k = 0; k < MC_KEYS; k++)
		if (!strcmp(key, model_cost_names[k]))
			return k;
	return -1;
}

static int cost_member(struct parser *ps, const char *key)
{
	int k = key_index(key);
	char what[80];

	if (k < 0)
		return fail(ps, "'costs' has an unknown key '%s'", key);
	snprintf(what, sizeof(what), "costs.%s", key);
	return once(ps, &ps->seen_cost, k, key) ?: number(ps, what, 0, 1e9, &ps->c->c[k]);
}

/* A source into out (NULL: read and dropped), refused when empty. */
static int source(struct parser *ps, char *out, const char *what)
{
	char scratch[MODEL_COST_SOURCE_MAX];

	out = out ?: scratch;
	if (string(ps, out, MODEL_COST_SOURCE_MAX, what))
		return -EINVAL;
	if (!*out)
		return fail(ps, "%s is empty: every cost names where its number comes from", what);
	return 0;
}

static int source_member(struct parser *ps, const char *key)
{
	int k = key_index(key);
	char what[80];

	if (k < 0)
		return fail(ps, "'sources' has an unknown key '%s'", key);
	snprintf(what, sizeof(what), "sources.%s", key);
	return once(ps, &ps->seen_src, k, key) ?: source(ps, ps->src ? ps->src->s[k] : NULL, what);
}

/* The member of "core" named key, or -1. */
static int group_index(const char *key)
{
	int g;

	for (g = 0; g < MG_KEYS; g++)
		if (!strcmp(key, model_core_groups[g].name))
			return g;
	return -1;
}

/* Figure k of core: a number within its member's bounds. */
static int core_figure(struct parser *ps, int k, const char *key)
{
	char what[80];

	model_core_name(k, what + 5, sizeof(what) - 5);
	memcpy(what, "core.", 5);
	return once(ps, &ps->seen_core, k, key)
		       ?: number(ps, what, model_core_groups[model_core_fields[k].group].lo, 1e6,
				 &ps->c->core[k]);
}

/* A member of one of core's objects (ps->group's). */
static int core_sub_member(struct parser *ps, const char *key)
{
	int k;

	for (k = 0; k < MK_KEYS; k++)
		if (model_core_fields[k].group == ps->group && model_core_fields[k].name &&
		    !strcmp(key, model_core_fields[k].name))
			return core_figure(ps, k, key);
	return fail(ps, "'core.%s' has an unknown key '%s'", model_core_groups[ps->group].name,
		    key);
}

static int core_member(struct parser *ps, const char *key)
{
	int g = group_index(key), k;

	if (g < 0)
		return fail(ps, "'core' has an unknown key '%s'", key);
	if (once(ps, &ps->seen_group, g, key))
		return -EINVAL;
	for (k = 0; k < MK_KEYS; k++)
		if (model_core_fields[k].group == (enum model_core_group)g &&
		    !model_core_fields[k].name)
			return core_figure(ps, k, key);
	ps->group = g;
	return object(ps, core_sub_member);
}

static int core_source_member(struct parser *ps, const char *key)
{
	int g = group_index(key);
	char what[80];

	if (g < 0)
		return fail(ps, "'core_sources' has an unknown key '%s'", key);
	snprintf(what, sizeof(what), "core_sources.%s", key);
	return once(ps, &ps->seen_core_src, g, key)
		       ?: source(ps, ps->src ? ps->src->core[g] : NULL, what);
}

/* An integer lo..hi into *out. */
static int integer(struct parser *ps, const char *what, int lo, int hi, int *out)
{
	double v;

	if (number(ps, what, lo, hi, &v))
		return -EINVAL;
	if (v != trunc(v))
		return fail(ps, "%s: expected a whole number", what);
	*out = (int)v;
	return 0;
}

static int cpu_member(struct parser *ps, const char *key)
{
	static const char *const names[] = {"vendor", "family", "model", "model_name"};
	struct model_costs *c = ps->c;
	int i;

	for (i = 0; i < 4 && strcmp(key, names[i]); i++)
		;
	if (i == 4)
		return fail(ps, "'cpu' has an unknown key '%s'", key);
	if (once(ps, &ps->seen_cpu, i, key))
		return -EINVAL;
	switch (i) {
	case 0:
		return string(ps, c->vendor, sizeof(c->vendor), "cpu.vendor");
	case 1:
		return integer(ps, "cpu.family", 0, 4095, &c->family);
	case 2:
		return integer(ps, "cpu.model", 0, 255, &c->model);
	default:
		return string(ps, c->model_name, sizeof(c->model_name), "cpu.model_name");
	}
}

/* The top's keys, those before T_CORE required. */
enum { T_FORMAT, T_NAME, T_CPU, T_GHZ, T_CPI, T_COSTS, T_SOURCES, T_CORE, T_CORE_SOURCES, T_KEYS };
static const char *const top_names[T_KEYS] = {
	"kprotperf_costs", "name", "cpu", "ghz", "cpi", "costs", "sources", "core", "core_sources"};

static int top_member(struct parser *ps, const char *key)
{
	int i;
	double v;

	for (i = 0; i < T_KEYS && strcmp(key, top_names[i]); i++)
		;
	if (i == T_KEYS)
		return fail(ps, "unknown key '%s' (a note's key starts with '_')", key);
	if (once(ps, &ps->seen_top, i, key))
		return -EINVAL;
	switch (i) {
	case T_FORMAT:
		if (number(ps, key, 0, 1e9, &v))
			return -EINVAL;
		return v == 1 ? 0 : fail(ps, "format %g: this kprotperf reads format 1", v);
	case T_NAME:
		return string(ps, ps->c->name, sizeof(ps->c->name), key);
	case T_CPU:
		return object(ps, cpu_member);
	case T_GHZ:
		return number(ps, key, 0.05, 20, &ps->c->ghz);
	case T_CPI:
		return number(ps, key, 0.01, 100, &ps->c->cpi);
	case T_COSTS:
		return object(ps, cost_member);
	case T_SOURCES:
		return object(ps, source_member);
	case T_CORE:
		return object(ps, core_member);
	default:
		return object(ps, core_source_member);
	}
}

/* The first key of names (n of them) not in seen, or NULL. */
static const char *missing(unsigned long long seen, const char *const *names, int n)
{
	int i;

	for (i = 0; i < n; i++)
		if (!(seen & (1ULL << i)))
			return names[i];
	return NULL;
}

/*
 * core and core_sources: both whole, or neither (a table written before them); each optional
 * figure (added later, from MK_OPTIONAL on) with its source, or neither.
 */
static int core_complete(struct parser *ps)
{
	char name[64];
	int k, g;

	if (!(ps->seen_top & (1ULL << T_CORE | 1ULL << T_CORE_SOURCES)))
		return 0;
	for (k = 0; k < MK_KEYS; k++)
		if (!(ps->seen_core & (1ULL << k)) &&
		    (k < MK_OPTIONAL ||
		     ps->seen_core_src & (1ULL << model_core_fields[k].group)))
			return fail(ps, "no 'core.%s'", model_core_name(k, name, sizeof(name)));
	for (g = 0; g < MG_KEYS; g++)
		if (!(ps->seen_core_src & (1ULL << g)) &&
		    (g < MG_OPTIONAL || ps->seen_core & (1ULL << (MK_OPTIONAL + g - MG_OPTIONAL))))
			return fail(ps,
				    "no 'core_sources.%s': every figure of 'core' names how it was "
				    "measured",
				    model_core_groups[g].name);
	ps->c->has_core = 1;
	return 0;
}

static int complete(struct parser *ps)
{
	static const char *const cpu[] = {"vendor", "family", "model", "model_name"};
	const char *m;

	ps->p = ps->end;
	if ((m = missing(ps->seen_top, top_names, T_CORE)))
		return fail(ps, "no '%s'", m);
	if ((m = missing(ps->seen_cpu, cpu, 4)))
		return fail(ps, "no 'cpu.%s'", m);
	if ((m = missing(ps->seen_cost, model_cost_names, MC_KEYS)))
		return fail(ps, "no cost 'costs.%s'", m);
	if ((m = missing(ps->seen_src, model_cost_names, MC_KEYS)))
		return fail(ps,
			    "no 'sources.%s': every cost names where its number comes from "
			    "(\"measured: ...\" or a citation)",
			    m);
	return core_complete(ps);
}

int model_costs_parse(const char *text, size_t n, const char *origin, struct model_costs *c,
		      struct model_cost_sources *src, char *why, size_t len)
{
	/* a copy with a NUL after it: esc_utf8 reads up to a NUL, never past n */
	char *copy = n <= MODEL_COSTS_MAX ? malloc(n + 1) : NULL;
	struct parser ps = {.text = copy,
			    .p = copy,
			    .end = copy + n,
			    .why = why,
			    .len = len,
			    .c = c,
			    .src = src};
	int err;

	memset(c, 0, sizeof(*c));
	if (src)
		memset(src, 0, sizeof(*src));
	snprintf(c->path, sizeof(c->path), "%s", origin);
	if (!copy) {
		snprintf(why, len, "%s",
			 n > MODEL_COSTS_MAX ? "larger than 64 KiB" : strerror(ENOMEM));
		return n > MODEL_COSTS_MAX ? -EFBIG : -ENOMEM;
	}
	memcpy(copy, text, n);
	copy[n] = '\0';
	if (memchr(copy, '\0', n))
		err = fail(&ps, "a NUL byte: not a JSON text");
	else
		err = object(&ps, top_member);
	skip_ws(&ps);
	if (!err && ps.p != ps.end)
		err = fail(&ps, "text after the table's closing '}'");
	err = err ?: complete(&ps);
	free(copy);
	return err;
}

/* The whole of fd (at most MODEL_COSTS_MAX bytes) into buf: its length, or -errno. */
static ssize_t read_all(int fd, char *buf)
{
	size_t n = 0;
	ssize_t r;

	while (n <= MODEL_COSTS_MAX) {
		r = read(fd, buf + n, MODEL_COSTS_MAX + 1 - n);
		if (r < 0 && errno == EINTR)
			continue;
		if (r < 0)
			return -errno;
		if (!r)
			break;
		n += r;
	}
	return n > MODEL_COSTS_MAX ? -EFBIG : (ssize_t)n;
}

int model_costs_load_fd(int fd, const char *path, struct model_costs *c,
			struct model_cost_sources *src)
{
	char *buf = malloc(MODEL_COSTS_MAX + 1), why[768];
	struct stat st;
	ssize_t n = -ENOMEM;
	int err;

	if (buf && fstat(fd, &st))
		n = -errno;
	else if (buf && !S_ISREG(st.st_mode))
		n = -EINVAL;
	else if (buf)
		n = read_all(fd, buf);
	close(fd);
	if (n == -EINVAL || n == -EFBIG)
		snprintf(why, sizeof(why), "%s: " WAY_OUT,
			 n == -EFBIG ? "larger than 64 KiB, not a cost table"
				     : "not a regular file");
	else if (n < 0)
		snprintf(why, sizeof(why), "%s", strerror(-n));
	err = n < 0 ? (int)n : model_costs_parse(buf, n, path, c, src, why, sizeof(why));
	if (err)
		esc_printf(stderr, "kprotperf: cost table %s: %s\n", path, why);
	free(buf);
	return err;
}

int model_costs_load_sources(const char *path, struct model_costs *c,
			     struct model_cost_sources *src)
{
	int fd = open(path, O_RDONLY | O_NOFOLLOW | O_NONBLOCK | O_NOCTTY | O_CLOEXEC);

	if (fd < 0 && errno == ELOOP) {
		esc_printf(stderr,
			   "kprotperf: cost table %s: a symbolic link, not followed: give the file "
			   "it points to\n",
			   path);
		return -ELOOP;
	}
	if (fd < 0) {
		fd = -errno;
		esc_printf(stderr, "kprotperf: cost table %s: %s\n", path, strerror(-fd));
		return fd;
	}
	return model_costs_load_fd(fd, path, c, src);
}

int model_costs_load(const char *path, struct model_costs *c)
{
	return model_costs_load_sources(path, c, NULL);
}
