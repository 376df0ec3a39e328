// SPDX-License-Identifier: GPL-2.0-only
/* The model's raw table (table.h), parsed as untrusted input. */
#include "model/table.h"

#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "util/safeio.h"

/* a row of 16 geometries is under 2.2 KB; a table of every guest PC under 1 GiB */
#define LINE_MAX_BYTES 4096
#define TABLE_MAX      (1ULL << 30)
#define COUNT_MAX      (1ULL << 40)
/* the call-site lines the plugin writes at most (its KP_SITES_MAX) */
#define SITES_MAX (1ULL << 16)
/* the timing line's totals: a whole window's, so above any one PC's */
#define TOTAL_MAX (1ULL << 50)
/* each of a row's six stack cycles is rounded apart: their sum may miss by one each */
#define STACK_SLACK 6
/* a known timing parameter: latencies, widths, predictor tables' entries */
#define PARAM_MAX (1ULL << 20)

struct reader {
	FILE *f;
	char line[LINE_MAX_BYTES + 2];
	unsigned long no;
	bool header_done, have_columns;
	__u64 last_pc;
	bool any_row;
	const struct model_table_fns *fns; /* the caller's, each NULL or not */
	void *ctx;
	__u64 last_site[3]; /* the last '# callsite' line's PC, site and allocator's call */
	__u64 nrunning, last_running; /* '# running' lines read, the last one's PC */
	unsigned long long bytes;     /* read so far: a file that grows is still bounded */
};

static bool pow2(unsigned long long v)
{
	return v && v <= (1ULL << 32) && !(v & (v - 1));
}

/* "S:A:L" of one cache into c, checked as vm-run.sh checks --I1/--D1/--LL */
static bool parse_cache(const char *s, const char *key, __u32 *c)
{
	unsigned long long v[3];
	int n = 0;

	if (strncmp(s, key, strlen(key)))
		return false;
	s += strlen(key);
	if (sscanf(s, "%llu:%llu:%llu%n", &v[0], &v[1], &v[2], &n) != 3 || s[n])
		return false;
	if (!pow2(v[0]) || !pow2(v[1]) || !pow2(v[2]) || v[1] * v[2] > v[0] || v[0] > UINT32_MAX)
		return false;
	c[0] = v[0];
	c[1] = v[1];
	c[2] = v[2];
	return true;
}

/* "E:A" of one TLB after key, checked as the plugin checks --ITLB/--DTLB */
static bool parse_tlb(const char *s, const char *key, __u32 *c)
{
	unsigned long long v[2];
	int n = 0;

	if (strncmp(s, key, strlen(key)))
		return false;
	s += strlen(key);
	if (sscanf(s, "%llu:%llu%n", &v[0], &v[1], &n) != 2 || s[n])
		return false;
	if (!pow2(v[0]) || !pow2(v[1]) || v[1] > v[0] || v[0] > UINT32_MAX)
		return false;
	c[0] = v[0];
	c[1] = v[1];
	return true;
}

/* "G itlb=E:A dtlb=E:A": geometry G's TLBs, once, after its '# geom G' line */
static bool parse_tlbs(struct model_table *t, const char *s)
{
	char itlb[64], dtlb[64];
	unsigned int k;
	int n = 0;

	if (t->format < 2 || sscanf(s, "%u %63s %63s%n", &k, itlb, dtlb, &n) != 3 || s[n] ||
	    k >= t->ngeom || t->geom[k].tlb[0][0])
		return false;
	return parse_tlb(itlb, "itlb=", t->geom[k].tlb[0]) &&
	       parse_tlb(dtlb, "dtlb=", t->geom[k].tlb[1]);
}

bool model_table_has_tlb(const struct model_table *t)
{
	return t->format >= 2 && t->ngeom > 0;
}

bool model_table_timing(const struct model_table *t)
{
	return !strcmp(t->mode, "timing");
}

/* "pti P pcid Q", each 0, 1 or unknown */
static bool parse_guest(struct model_table *t, const char *s)
{
	char pti[16], pcid[16];
	int n = 0;

	if (t->format < 2 || t->guest_pti[0] ||
	    sscanf(s, "pti %15s pcid %15s%n", pti, pcid, &n) != 2 || s[n])
		return false;
	if ((strcmp(pti, "0") && strcmp(pti, "1") && strcmp(pti, "unknown")) ||
	    (strcmp(pcid, "0") && strcmp(pcid, "1") && strcmp(pcid, "unknown")))
		return false;
	strcpy(t->guest_pti, pti);
	strcpy(t->guest_pcid, pcid);
	return true;
}

static bool parse_geom(struct model_table *t, const char *s)
{
	char i1[64], d1[64], ll[64];
	unsigned int k;
	int n = 0;

	if (sscanf(s, "%u %63s %63s %63s%n", &k, i1, d1, ll, &n) != 4 || s[n] || k != t->ngeom ||
	    k >= MODEL_GEOMS_MAX)
		return false;
	if (!parse_cache(i1, "i1=", t->geom[k].cache[0]) ||
	    !parse_cache(d1, "d1=", t->geom[k].cache[1]) ||
	    !parse_cache(ll, "ll=", t->geom[k].cache[2]))
		return false;
	t->ngeom++;
	return true;
}

/* a word of letters, digits and .:+~_- into out, as the plugin and vm-run write them */
static bool word(const char *s, char *out, size_t len)
{
	size_t n =
		strspn(s, "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789.:+~_-");

	if (!n || s[n] || n >= len)
		return false;
	memcpy(out, s, n + 1);
	return true;
}

/* 1 to 7 digits at s, the whole of it, up to PARAM_MAX */
static bool param(const char *s)
{
	size_t n = strspn(s, "0123456789");

	return n && n <= 7 && !s[n] && strtoull(s, NULL, 10) <= PARAM_MAX;
}

/*
 * One KEY=VALUE word (n bytes at s) of the timing line: the parameters the
 * plugin documents checked, any other (prefetchers', events') kept as a word.
 */
static bool timing_kv(const char *s, size_t n)
{
	static const char *const nums[] = {
		"core.width",	    "core.window", "core.mshrs", "core.mispredict", "lat.l1",
		"lat.l2",	    "lat.ll",	   "lat.dram",	 "lat.stlb",	    "lat.walk",
		"lat.string_bytes", "bp.cond",	   "bp.hist",	 "bp.btb",	    "bp.btb_assoc",
		"bp.ras",	    NULL,
	};
	char w[256], scratch[256], *v;
	__u32 c[3];
	size_t k;

	if (n >= sizeof(w))
		return false;
	memcpy(w, s, n);
	w[n] = '\0';
	v = strchr(w, '=');
	/* keys as the plugin names them: ev.NAME may take an event's own spelling */
	k = strspn(w, "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789._-");
	if (!v || !k || v != w + k)
		return false;
	*v++ = '\0';
	if (!strcmp(w, "l2"))
		return parse_cache(v, "", c);
	if (!strcmp(w, "stlb"))
		return parse_tlb(v, "", c);
	for (k = 0; nums[k]; k++)
		if (!strcmp(w, nums[k]))
			return param(v);
	return word(v, scratch, sizeof(scratch));
}

/* "core=NAME KEY=VALUE...": the core model and its parameters, once, each key once */
static bool timing_core(struct model_table *t, const char *s)
{
	char name[sizeof(t->core)];
	const char *p, *rest;
	size_t n = strcspn(s + 5, " ");

	if (t->core[0] || strncmp(s, "core=", 5) || n >= sizeof(name))
		return false;
	memcpy(name, s + 5, n);
	name[n] = '\0';
	rest = s + 5 + n;
	if (!word(name, t->core, sizeof(t->core)) || strlen(rest) >= sizeof(t->timing))
		return false;
	for (p = rest; *p; p += n) {
		char key[258];
		size_t k = strcspn(p + 1, "= ");

		n = 1 + strcspn(p + 1, " ");
		if (*p != ' ' || k >= sizeof(key) - 2 || !timing_kv(p + 1, n - 1))
			return false;
		/* " KEY=" earlier on the line: a parameter given twice */
		snprintf(key, sizeof(key), " %.*s=", (int)k, p + 1);
		if (memmem(rest, p - rest, key, strlen(key)))
			return false;
	}
	strcpy(t->timing, *rest ? rest + 1 : rest);
	return true;
}

/* " N" at *p (a count up to max) into *v, *p moved past it */
static bool bounded(char **p, __u64 max, __u64 *v)
{
	char *s = *p;

	if (*s != ' ' || s[1] < '0' || s[1] > '9')
		return false;
	errno = 0;
	*v = strtoull(s + 1, p, 10);
	return !errno && *v <= max;
}

/* "insns N unknown N prefetches N cycles N": what the core model saw, once */
static bool timing_totals(struct model_table *t, const char *s)
{
	static const char *const keys[] = {"insns", " unknown", " prefetches", " cycles"};
	__u64 *v[] = {&t->core_insns, &t->core_unknown, &t->prefetches, &t->cycles};
	char *p = (char *)s;
	size_t i;

	for (i = 0; i < 4; i++) {
		if (strncmp(p, keys[i], strlen(keys[i])))
			return false;
		p += strlen(keys[i]);
		if (!bounded(&p, TOTAL_MAX, v[i]))
			return false;
	}
	if (*p || t->has_totals || t->core_unknown > t->core_insns)
		return false;
	t->has_totals = true;
	return true;
}

static bool columns_ok(const struct model_table *t, const char *s)
{
	char want[LINE_MAX_BYTES];
	size_t n = snprintf(want, sizeof(want), "pc insns%s", t->format >= 2 ? " ev flushes" : "");
	unsigned int g;

	for (g = 0; g < t->ngeom; g++) {
		n += snprintf(want + n, sizeof(want) - n,
			      " i1_miss.%u d1_read.%u d1_read_miss.%u d1_write.%u d1_write_miss.%u"
			      " ll_miss.%u",
			      g, g, g, g, g, g);
		if (t->format >= 2)
			n += snprintf(want + n, sizeof(want) - n, " itlb_miss.%u dtlb_miss.%u", g,
				      g);
	}
	if (model_table_timing(t))
		snprintf(want + n, sizeof(want) - n,
			 " cycles cyc_base cyc_branch cyc_icache cyc_dcache cyc_tlb cyc_serialize");
	return !strcmp(s, want);
}

/* "# boot KEY N" of the boot window (a count each, at most once) */
static bool boot_line(struct model_table *t, const char *s)
{
	bool *has = !strncmp(s, "entry_insns ", 12)	   ? &t->has_entry
		    : !strncmp(s, "first_user_insns ", 17) ? &t->has_first_user
							   : NULL;
	__u64 *v = has == &t->has_entry ? &t->entry_insns : &t->first_user_insns;
	char *end;

	if (!has || *has)
		return false;
	s = strchr(s, ' ') + 1;
	if (*s < '0' || *s > '9')
		return false;
	errno = 0;
	*v = strtoull(s, &end, 10);
	if (errno || *end || *v > COUNT_MAX)
		return false;
	*has = true;
	return true;
}

/* " 0xADDR" at *p into *v, *p moved past it: a kernel address, or 0 when zero_ok */
static bool kernel_addr(char **p, bool zero_ok, __u64 *v)
{
	char *s = *p;

	/* digits only: strtoull would take a second 0x, a sign or spaces */
	if (strncmp(s, " 0x", 3) || !s[3] || !strchr("0123456789abcdef", s[3]) || s[4] == 'x')
		return false;
	errno = 0;
	*v = strtoull(s + 3, p, 16);
	return !errno && (*v >= MODEL_KERNEL_START || (zero_ok && !*v));
}

/* "V lines N dropped D": the call-site section's version (1, 2) and size, once */
static int sites_head(const struct reader *r, struct model_table *t, const char *s, char *why,
		      size_t len)
{
	unsigned long long n, d;
	unsigned int v;
	int k = 0;

	if (t->has_sites || sscanf(s, "%u lines %llu dropped %llu%n", &v, &n, &d, &k) != 3 || s[k])
		return -EBADMSG;
	if (v != 1 && v != 2) {
		snprintf(why, len,
			 "line %lu: call-site section version %u, this reader knows 1 and 2", r->no,
			 v);
		return -EBADMSG;
	}
	if (n > SITES_MAX || d > TOTAL_MAX)
		return -EBADMSG;
	t->has_sites = true;
	t->sites_version = v;
	t->nsites = n;
	t->sites_dropped = d;
	return 0;
}

/* (pc, site, alloc) after the last line's, in that order */
static bool site_after(const struct reader *r, const struct model_table_site *x)
{
	const __u64 *l = r->last_site;

	if (x->pc != l[0])
		return x->pc > l[0];
	if (x->site != l[1])
		return x->site > l[1];
	return x->alloc > l[2];
}

/*
 * " 0xPC 0xSITE [0xALLOC] READS WRITES" (0xALLOC in version 2): one, after the previous,
 * within the count said; an allocator's call only with a call site
 */
static int site_line(struct reader *r, struct model_table *t, char *s)
{
	struct model_table_site x = {};

	if (!t->has_sites || t->sites_seen >= t->nsites || !kernel_addr(&s, false, &x.pc) ||
	    !kernel_addr(&s, true, &x.site) ||
	    (t->sites_version >= 2 && !kernel_addr(&s, true, &x.alloc)) ||
	    !bounded(&s, COUNT_MAX, &x.reads) || !bounded(&s, COUNT_MAX, &x.writes) || *s ||
	    !(x.reads | x.writes) || (x.alloc && !x.site))
		return -EBADMSG;
	if (t->sites_seen && !site_after(r, &x))
		return -EBADMSG;
	r->last_site[0] = x.pc;
	r->last_site[1] = x.site;
	r->last_site[2] = x.alloc;
	t->sites_seen++;
	return r->fns->site ? r->fns->site(&x, r->ctx) : 0;
}

/* A '# callsites' or '# callsite' line (s after "# "): 1 when it is neither. */
static int site_header(struct reader *r, struct model_table *t, char *s, char *why, size_t len)
{
	if (!strncmp(s, "callsites ", 10))
		return sites_head(r, t, s + 10, why, len);
	if (!strncmp(s, "callsite ", 9))
		return site_line(r, t, s + 8);
	return 1;
}

/* "sites N dropped D", once, before its '# running' lines: at most MODEL_RUNNING_MAX */
static bool patched_line(struct model_table *t, const char *s)
{
	char *p = (char *)s + 5;

	if (t->format < 2 || t->has_patched || strncmp(s, "sites", 5) ||
	    !bounded(&p, MODEL_RUNNING_MAX, &t->patched_sites) || strncmp(p, " dropped", 8))
		return false;
	p += 8;
	if (!bounded(&p, COUNT_MAX, &t->patched_dropped) || *p)
		return false;
	t->has_patched = true;
	return true;
}

/* "0xPC HEX" of a '# running' line: a kernel PC above the last, 1 to 15 bytes in hex */
static bool parse_running(const struct reader *r, const char *s, struct model_table_running *run)
{
	size_t n;
	char *end;
	unsigned int i;

	if (strncmp(s, "0x", 2) || !s[2] || !strchr("0123456789abcdef", s[2]))
		return false;
	errno = 0;
	run->pc = strtoull(s + 2, &end, 16);
	if (errno || *end != ' ' || run->pc < MODEL_KERNEL_START ||
	    (r->nrunning && run->pc <= r->last_running))
		return false;
	n = strspn(end + 1, "0123456789abcdef");
	if (!n || n % 2 || n > 2 * MODEL_RUNNING_BYTES || end[1 + n])
		return false;
	run->len = n / 2;
	for (i = 0; i < run->len; i++)
		run->b[i] = strtoul((char[3]){end[1 + 2 * i], end[2 + 2 * i], 0}, NULL, 16);
	return true;
}

/*
 * A '# running' line after '# patched', as many as it says: fns->running's error, or
 * -EBADMSG (why empty: the line is named) when it is malformed.
 */
static int running_line(struct reader *r, const struct model_table *t, const char *s)
{
	struct model_table_running run;

	if (!t->has_patched || r->nrunning >= t->patched_sites || !parse_running(r, s, &run))
		return -EBADMSG;
	r->nrunning++;
	r->last_running = run.pc;
	return r->fns->running ? r->fns->running(&run, r->ctx) : 0;
}

/* One '#' line of the header; false when it is malformed. */
static bool header_line(struct reader *r, struct model_table *t, const char *s)
{
	int n = 0;

	/* timing's columns follow from the mode: it must come first */
	if (!strncmp(s, "mode ", 5))
		return word(s + 5, t->mode, sizeof(t->mode)) &&
		       (!strcmp(t->mode, "insns") || !strcmp(t->mode, "cache") ||
			(model_table_timing(t) && !r->have_columns));
	if (!strncmp(s, "window ", 7))
		return word(s + 7, t->window, sizeof(t->window));
	if (!strncmp(s, "windows ", 8))
		return sscanf(s + 8, "opened %u closed %u restarts %u stray_stops %u%n", &t->opened,
			      &t->closed, &t->restarts, &t->stray_stops, &n) == 4 &&
		       !s[8 + n];
	if (!strncmp(s, "qemu ", 5))
		return word(s + 5, t->qemu, sizeof(t->qemu));
	if (!strncmp(s, "kernel_build_id ", 16))
		return word(s + 16, t->kernel, sizeof(t->kernel));
	if (!strncmp(s, "iaddr ", 6))
		return word(s + 6, t->iaddr, sizeof(t->iaddr));
	if (!strncmp(s, "boot ", 5))
		return boot_line(t, s + 5);
	if (!strncmp(s, "geom ", 5))
		return !r->have_columns && parse_geom(t, s + 5);
	if (!strncmp(s, "tlb ", 4))
		return !r->have_columns && parse_tlbs(t, s + 4);
	if (!strncmp(s, "guest ", 6))
		return parse_guest(t, s + 6);
	if (!strncmp(s, "patched ", 8))
		return patched_line(t, s + 8);
	if (!strncmp(s, "timing core=", 12))
		return !r->have_columns && timing_core(t, s + 7);
	if (!strncmp(s, "timing insns ", 13))
		return !r->have_columns && timing_totals(t, s + 7);
	if (!strncmp(s, "columns ", 8)) {
		r->have_columns = columns_ok(t, s + 8);
		return r->have_columns;
	}
	/* the plugin's other lines (count, qemu_header, io_accesses, ...) say how, not what */
	return true;
}

/* " N" (a count up to COUNT_MAX) at *p into *v, *p moved past it */
static bool count(char **p, __u64 *v)
{
	return bounded(p, COUNT_MAX, v);
}

/* " EV FLUSHES" of format 2: a kind or '-', and flushes only by what may flush */
static bool event(char **p, struct model_table_row *row)
{
	char kind[16], *s = *p;
	size_t n;

	if (*s != ' ')
		return false;
	n = strcspn(s + 1, " ");
	if (!n || n >= sizeof(kind))
		return false;
	memcpy(kind, s + 1, n);
	kind[n] = '\0';
	row->kind = model_kind_of(kind);
	if (row->kind < 0 && strcmp(kind, "-"))
		return false;
	*p = s + 1 + n;
	if (!count(p, &row->flushes) || row->flushes > row->insns)
		return false;
	return !row->flushes || row->kind == MK_mov_cr3 || row->kind == MK_mov_cr ||
	       row->kind == MK_invlpg || row->kind == MK_invpcid;
}

/* " CYCLES BASE ... SERIALIZE" of mode timing into cyc: the stack sums to the cycles */
static int cycles(const struct reader *r, char **p, __u64 *cyc, char *why, size_t len)
{
	__u64 sum = 0;
	int i;

	for (i = 0; i <= MODEL_CYCS; i++)
		if (!count(p, &cyc[i]))
			return -EBADMSG;
	for (i = 1; i <= MODEL_CYCS; i++)
		sum += cyc[i];
	if (sum + STACK_SLACK < cyc[0] || sum > cyc[0] + STACK_SLACK) {
		snprintf(
			why, len,
			"line %lu: its cycle stack sums to %llu, not to its %llu cycles (within %d)",
			r->no, (unsigned long long)sum, (unsigned long long)cyc[0], STACK_SLACK);
		return -EBADMSG;
	}
	return 0;
}

static int row(struct reader *r, const struct model_table *t, model_table_fn fn, void *ctx,
	       char *why, size_t len)
{
	__u64 v[MODEL_GEOMS_MAX * MODEL_STATS], tlb[MODEL_GEOMS_MAX * 2], cyc[1 + MODEL_CYCS];
	struct model_table_row row = {.kind = -1, .v = v, .tlb = tlb};
	unsigned int g, i, per = t->format >= 2 ? MODEL_STATS + 2 : MODEL_STATS;
	char *p = r->line, *end;

	if (strncmp(p, "0x", 2))
		return -EBADMSG;
	errno = 0;
	row.pc = strtoull(p + 2, &end, 16);
	if (errno || end == p + 2 || *end != ' ' || (r->any_row && row.pc <= r->last_pc))
		return -EBADMSG;
	if (!count(&end, &row.insns) || (t->format >= 2 && !event(&end, &row)))
		return -EBADMSG;
	for (g = 0; g < t->ngeom; g++)
		for (i = 0; i < per; i++)
			if (!count(&end, i < MODEL_STATS ? &v[g * MODEL_STATS + i]
							 : &tlb[g * 2 + i - MODEL_STATS]))
				return -EBADMSG;
	if (model_table_timing(t) && cycles(r, &end, cyc, why, len))
		return -EBADMSG;
	if (*end)
		return -EBADMSG;
	row.cyc = model_table_timing(t) ? cyc : NULL;
	r->last_pc = row.pc;
	r->any_row = true;
	if (!model_table_has_tlb(t))
		row.tlb = NULL;
	return fn ? fn(&row, ctx) : 0;
}

/* The next line without its newline into r->line; 0 at the end, -EBADMSG when too long. */
static int next_line(struct reader *r)
{
	size_t n;

	if (!fgets(r->line, sizeof(r->line), r->f))
		return ferror(r->f) ? -EIO : 0;
	r->no++;
	n = strlen(r->line);
	r->bytes += n;
	if (r->bytes > TABLE_MAX)
		return -EFBIG;
	if (!n || r->line[n - 1] != '\n')
		return -EBADMSG;
	r->line[n - 1] = '\0';
	return 1;
}

static int header_done(const struct reader *r, const struct model_table *t, char *why, size_t len)
{
	unsigned int g;

	if (t->has_patched && r->nrunning != t->patched_sites) {
		snprintf(why, len, "the header says %llu patched sites and lists %llu",
			 (unsigned long long)t->patched_sites, (unsigned long long)r->nrunning);
		return -EBADMSG;
	}

	if (!t->mode[0] || !t->window[0] || !t->qemu[0]) {
		snprintf(why, len, "the header lacks its mode, window or qemu line");
		return -EBADMSG;
	}
	if (t->has_entry && t->has_first_user && t->entry_insns > t->first_user_insns) {
		snprintf(why, len, "the boot window reached user mode before the kernel's entry");
		return -EBADMSG;
	}
	if (!strcmp(t->mode, "insns") == (t->ngeom > 0)) {
		snprintf(why, len, "mode %s with %u cache geometries", t->mode, t->ngeom);
		return -EBADMSG;
	}
	if (model_table_timing(t) && (t->format < 2 || t->ngeom != 1)) {
		snprintf(why, len,
			 "mode timing with %u cache geometries in a table of format %u"
			 " (it simulates one, in format 2)",
			 t->ngeom, t->format);
		return -EBADMSG;
	}
	if (model_table_timing(t) ? !t->core[0] || !t->has_totals : t->core[0] || t->has_totals) {
		snprintf(why, len, "mode %s %s its '# timing core=' and '# timing insns' lines",
			 t->mode, model_table_timing(t) ? "without" : "with");
		return -EBADMSG;
	}
	if (t->has_sites && !t->ngeom) {
		snprintf(why, len, "mode insns with call sites: they split the caches' accesses");
		return -EBADMSG;
	}
	if (t->sites_seen != t->nsites) {
		snprintf(why, len, "the header lists %llu call sites, its '# callsites' line %llu",
			 (unsigned long long)t->sites_seen, (unsigned long long)t->nsites);
		return -EBADMSG;
	}
	for (g = 0; t->format >= 2 && g < t->ngeom; g++)
		if (!t->geom[g].tlb[0][0]) {
			snprintf(why, len, "geometry %u has no '# tlb %u' line", g, g);
			return -EBADMSG;
		}
	return 0;
}

/* The header read whole: what it must say before a row. */
static int header_end(const struct reader *r, const struct model_table *t, char *why, size_t len)
{
	if (!r->have_columns) {
		snprintf(why, len, "the header has no columns line matching its geometries");
		return -EBADMSG;
	}
	return header_done(r, t, why, len);
}

static int read_all(struct reader *r, struct model_table *t, model_table_fn fn, void *ctx,
		    char *why, size_t len)
{
	int err = next_line(r);

	if (err > 0 && !strcmp(r->line, "# kp_model 1"))
		t->format = 1;
	else if (err > 0 && !strcmp(r->line, "# kp_model 2"))
		t->format = 2;
	if (!t->format) {
		snprintf(
			why, len,
			"not a table of kprotperf's machine model (no '# kp_model 1' or '2' line)");
		return -EBADMSG;
	}
	while ((err = next_line(r)) > 0) {
		if (r->line[0] == '#' && r->line[1] == ' ' && !r->any_row &&
		    !strncmp(r->line + 2, "running ", 8)) {
			err = running_line(r, t, r->line + 10);
			if (err)
				break;
			continue;
		}
		if (r->line[0] == '#' && r->line[1] == ' ') {
			err = r->any_row ? -EBADMSG : site_header(r, t, r->line + 2, why, len);
			if (err > 0 && !header_line(r, t, r->line + 2))
				err = -EBADMSG;
			if (err < 0)
				break;
			continue;
		}
		if (!r->header_done) {
			err = header_end(r, t, why, len);
			if (err || !fn)
				return err;
			r->header_done = true;
		}
		err = row(r, t, fn, ctx, why, len);
		if (err)
			break;
	}
	if (err == -EFBIG) {
		snprintf(why, len, "larger than any table the model writes (1 GiB)");
		return err;
	}
	if ((err == -EBADMSG && !*why) || err > 0) {
		snprintf(why, len, "line %lu is not what the model writes there", r->no);
		return -EBADMSG;
	}
	return err ?: r->header_done ? 0 : header_end(r, t, why, len);
}

int model_table_read(const char *path, struct model_table *t, model_table_fn fn, void *ctx,
		     char *why, size_t len)
{
	const struct model_table_fns fns = {.row = fn};

	return model_table_read_fns(path, t, &fns, ctx, why, len);
}

int model_table_read_fns(const char *path, struct model_table *t, const struct model_table_fns *fns,
			 void *ctx, char *why, size_t len)
{
	struct reader *r;
	struct stat st;
	int fd, err;

	*why = '\0';
	*t = (struct model_table){0};
	fd = safeio_open_regular(path, &st, why, len);
	if (fd < 0)
		return fd;
	if ((unsigned long long)st.st_size > TABLE_MAX) {
		close(fd);
		snprintf(why, len, "%lld bytes: larger than any table the model writes (1 GiB)",
			 (long long)st.st_size);
		return -EFBIG;
	}
	r = calloc(1, sizeof(*r));
	if (r) {
		r->f = fdopen(fd, "r");
		r->fns = fns;
		r->ctx = ctx;
	}
	if (!r || !r->f) {
		free(r);
		close(fd);
		return -ENOMEM;
	}
	err = read_all(r, t, fns->row, ctx, why, len);
	fclose(r->f);
	free(r);
	return err;
}
