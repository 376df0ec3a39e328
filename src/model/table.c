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

struct reader {
	FILE *f;
	char line[LINE_MAX_BYTES + 2];
	unsigned long no;
	bool header_done, have_columns;
	__u64 last_pc;
	bool any_row;
	unsigned long long bytes; /* read so far: a file that grows is still bounded */
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

/* One '#' line of the header; false when it is malformed. */
static bool header_line(struct reader *r, struct model_table *t, const char *s)
{
	int n = 0;

	if (!strncmp(s, "mode ", 5))
		return word(s + 5, t->mode, sizeof(t->mode)) &&
		       (!strcmp(t->mode, "insns") || !strcmp(t->mode, "cache"));
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
	char *s = *p;

	if (*s != ' ' || s[1] < '0' || s[1] > '9')
		return false;
	errno = 0;
	*v = strtoull(s + 1, p, 10);
	return !errno && *v <= COUNT_MAX;
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

static int row(struct reader *r, const struct model_table *t, model_table_fn fn, void *ctx)
{
	__u64 v[MODEL_GEOMS_MAX * MODEL_STATS], tlb[MODEL_GEOMS_MAX * 2];
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
	if (*end)
		return -EBADMSG;
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

static int header_done(const struct model_table *t, char *why, size_t len)
{
	unsigned int g;

	if (!t->mode[0] || !t->window[0] || !t->qemu[0]) {
		snprintf(why, len, "the header lacks its mode, window or qemu line");
		return -EBADMSG;
	}
	if (t->has_entry && t->has_first_user && t->entry_insns > t->first_user_insns) {
		snprintf(why, len, "the boot window reached user mode before the kernel's entry");
		return -EBADMSG;
	}
	if (!strcmp(t->mode, "cache") != (t->ngeom > 0)) {
		snprintf(why, len, "mode %s with %u cache geometries", t->mode, t->ngeom);
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
	return header_done(t, why, len);
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
		if (r->line[0] == '#' && r->line[1] == ' ') {
			if (r->any_row || !header_line(r, t, r->line + 2))
				break;
			continue;
		}
		if (!r->header_done) {
			err = header_end(r, t, why, len);
			if (err || !fn)
				return err;
			r->header_done = true;
		}
		err = row(r, t, fn, ctx);
		if (err)
			break;
	}
	if (err == -EFBIG) {
		snprintf(why, len, "larger than any table the model writes (1 GiB)");
		return err;
	}
	if (err == -EBADMSG || err > 0) {
		snprintf(why, len, "line %lu is not what the model writes there", r->no);
		return -EBADMSG;
	}
	return err ?: r->header_done ? 0 : header_end(r, t, why, len);
}

int model_table_read(const char *path, struct model_table *t, model_table_fn fn, void *ctx,
		     char *why, size_t len)
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
	r->f = r ? fdopen(fd, "r") : NULL;
	if (!r || !r->f) {
		free(r);
		close(fd);
		return -ENOMEM;
	}
	err = read_all(r, t, fn, ctx, why, len);
	fclose(r->f);
	free(r);
	return err;
}
