// SPDX-License-Identifier: GPL-2.0-only
/* The machine model's tables (model.h): their SQL. */
#include "data/model.h"

#include <errno.h>
#include <string.h>
#include <sqlite3.h>

#include "data/query.h"

const char *const model_stat_names[MODEL_STATS] = {
	"i1_misses", "d1_reads", "d1_read_misses", "d1_writes", "d1_write_misses", "ll_misses",
};

const char *const model_cyc_names[MODEL_CYCS] = {
	"base", "branch", "icache", "dcache", "tlb", "serialize",
};

#define X(k, s) #k,
const char *const model_kind_names[MODEL_KINDS + 1] = {MODEL_KIND_LIST NULL};
#undef X

bool model_kind_serializing(enum model_kind k)
{
#define X(k, s) s,
	static const bool ser[MODEL_KINDS] = {MODEL_KIND_LIST};
#undef X

	return (unsigned int)k < MODEL_KINDS && ser[k];
}

int model_kind_of(const char *s)
{
	int k;

	for (k = 0; k < MODEL_KINDS; k++)
		if (!strcmp(s, model_kind_names[k]))
			return k;
	return -1;
}

int model_put_pc(struct datafile *df, __u64 pc, __u64 insns)
{
	return query_insert(df, "INSERT INTO model_pcs VALUES(?,?)", "ii", (long long)pc,
			    (long long)insns);
}

int model_put_misses(struct datafile *df, __u64 pc, unsigned int geom, const __u64 *v)
{
	return query_insert(df, "INSERT INTO model_misses VALUES(?,?,?,?,?,?,?,?)", "iiiiiiii",
			    (long long)pc, (long long)geom, (long long)v[0], (long long)v[1],
			    (long long)v[2], (long long)v[3], (long long)v[4], (long long)v[5]);
}

int model_put_geom(struct datafile *df, unsigned int geom, const struct model_geom *g)
{
	const __u32(*c)[3] = g->cache;

	return query_insert(df, "INSERT INTO model_geoms VALUES(?,?,?,?,?,?,?,?,?,?)", "iiiiiiiiii",
			    (long long)geom, (long long)c[0][0], (long long)c[0][1],
			    (long long)c[0][2], (long long)c[1][0], (long long)c[1][1],
			    (long long)c[1][2], (long long)c[2][0], (long long)c[2][1],
			    (long long)c[2][2]);
}

int model_put_tlb(struct datafile *df, __u64 pc, unsigned int geom, __u64 itlb, __u64 dtlb)
{
	return query_insert(df, "INSERT INTO model_tlb VALUES(?,?,?,?)", "iiii", (long long)pc,
			    (long long)geom, (long long)itlb, (long long)dtlb);
}

int model_put_event(struct datafile *df, __u64 pc, const char *kind, __u64 flushes)
{
	return query_insert(df, "INSERT INTO model_events VALUES(?,?,?)", "iti", (long long)pc,
			    kind, (long long)flushes);
}

int model_put_running(struct datafile *df, __u64 pc, const __u8 *b, unsigned int len)
{
	static const char digits[] = "0123456789abcdef";
	char hex[2 * MODEL_RUNNING_BYTES + 1];
	unsigned int i;

	if (!len || len > MODEL_RUNNING_BYTES)
		return -EINVAL;
	for (i = 0; i < len; i++) {
		hex[2 * i] = digits[b[i] >> 4];
		hex[2 * i + 1] = digits[b[i] & 15];
	}
	hex[2 * len] = '\0';
	return query_insert(df, "INSERT INTO model_running VALUES(?,?)", "it", (long long)pc, hex);
}

int model_put_site(struct datafile *df, __u64 pc, __u64 site, __u64 alloc, __u64 reads,
		   __u64 writes)
{
	int err = query_insert(df,
			       "INSERT INTO model_sites VALUES(?,?,?,?) ON CONFLICT(pc, site) DO"
			       " UPDATE SET reads = reads + excluded.reads,"
			       " writes = writes + excluded.writes",
			       "iiii", (long long)pc, (long long)site, (long long)reads,
			       (long long)writes);

	if (err || !alloc)
		return err;
	return query_insert(df, "INSERT INTO model_alloc_sites VALUES(?,?,?,?,?)", "iiiii",
			    (long long)pc, (long long)site, (long long)alloc, (long long)reads,
			    (long long)writes);
}

int model_put_tlbs(struct datafile *df, unsigned int geom, const struct model_geom *g)
{
	return query_insert(df, "INSERT INTO model_tlbs VALUES(?,?,?,?,?)", "iiiii",
			    (long long)geom, (long long)g->tlb[0][0], (long long)g->tlb[0][1],
			    (long long)g->tlb[1][0], (long long)g->tlb[1][1]);
}

int model_put_cycles(struct datafile *df, __u64 pc, const __u64 *cyc)
{
	return query_insert(df, "INSERT INTO model_cycles VALUES(?,?,?,?,?,?,?,?)", "iiiiiiii",
			    (long long)pc, (long long)cyc[0], (long long)cyc[1], (long long)cyc[2],
			    (long long)cyc[3], (long long)cyc[4], (long long)cyc[5],
			    (long long)cyc[6]);
}

int model_put_usym(struct datafile *df, __u64 addr, __u64 size, const char *name,
		   const char *module)
{
	return query_insert(df, "INSERT OR IGNORE INTO usyms VALUES(?,?,?,?)", "iitt",
			    (long long)addr, (long long)size, name, module);
}

/* The symbol that holds each PC: kernel PCs read as negative integers. */
#define KSYM_OF(pc) "(SELECT addr FROM ksyms k WHERE k.addr <= " pc " ORDER BY k.addr DESC LIMIT 1)"
#define USYM_OF(pc) "(SELECT addr FROM usyms u WHERE u.addr <= " pc " ORDER BY u.addr DESC LIMIT 1)"

int model_prune_symbols(struct datafile *df)
{
	/* NOT IN with a NULL in its list is never true: the NULLs are left out */
	return query_exec(
		df, "DELETE FROM ksyms WHERE name NOT IN ('_stext', '_text') AND addr NOT IN"
		    " (SELECT s FROM (SELECT " KSYM_OF(
			    "p.pc") " AS s FROM model_pcs p"
				    " WHERE p.pc < 0) WHERE s IS NOT NULL);"
				    "DELETE FROM usyms WHERE addr NOT IN"
				    " (SELECT s FROM (SELECT " USYM_OF(
					    "p.pc") " AS s FROM model_pcs p"
						    " WHERE p.pc >= 0) WHERE s IS NOT NULL);");
}

struct geom_walk {
	struct datafile *df;
	struct model_geom *g;
	unsigned int max, *n;
};

static int geom_row(sqlite3_stmt *st, void *ctx)
{
	struct geom_walk *w = ctx;
	struct model_geom *g;
	int c;

	if (*w->n == w->max)
		return query_bad(w->df, "table model_geoms: more than %u geometries", w->max);
	g = &w->g[(*w->n)++];
	for (c = 0; c < 9; c++)
		g->cache[c / 3][c % 3] = sqlite3_column_int64(st, c);
	for (c = 0; c < 4; c++)
		g->tlb[c / 2][c % 2] = sqlite3_column_int64(st, 9 + c);
	return 0;
}

int model_geoms(struct datafile *df, struct model_geom *g, unsigned int max, unsigned int *n)
{
	struct geom_walk w = {df, g, max, n};

	*n = 0;
	return query_each(
		df,
		"SELECT i1_size, i1_assoc, i1_line, d1_size, d1_assoc, d1_line, ll_size,"
		" ll_assoc, ll_line, COALESCE(t.itlb_entries, 0), COALESCE(t.itlb_assoc, 0),"
		" COALESCE(t.dtlb_entries, 0), COALESCE(t.dtlb_assoc, 0) FROM model_geoms g"
		" LEFT JOIN model_tlbs t USING (geom) ORDER BY geom",
		geom_row, &w, "");
}

struct row_walk {
	model_row_fn fn;
	void *ctx;
};

static int model_row(sqlite3_stmt *st, void *ctx)
{
	struct row_walk *w = ctx;
	struct model_row r = {
		.name = query_text(st, 0),
		.module = query_text(st, 1),
		.addr = sqlite3_column_int64(st, 2),
		.insns = sqlite3_column_int64(st, 3),
	};
	int i;

	for (i = 0; i < MODEL_STATS; i++)
		r.v[i] = sqlite3_column_int64(st, 4 + i);
	for (i = 0; i < MODEL_XSTATS; i++)
		r.x[i] = sqlite3_column_int64(st, 4 + MODEL_STATS + i);
	/* pc_sql's last column; model_functions' addr is the start already */
	r.start = sqlite3_column_count(st) > 4 + MODEL_STATS + MODEL_XSTATS
			  ? (__u64)sqlite3_column_int64(st, 4 + MODEL_STATS + MODEL_XSTATS)
			  : r.addr;
	return w->fn(&r, w->ctx);
}

/*
 * Each PC with its stats in geometry ?1, its TLB misses there, its event
 * and the symbol that holds it.  rp: the entries of a retpoline thunk it
 * begins (a thunk the boot patched to an indirect jmp, or to lfence and
 * one, is the jump it executes, not a retpoline: its first instruction
 * then has a kind); rt: those of a return thunk.  The kernel's thunks and
 * a user program's of the same names (gcc -mindirect-branch=thunk and
 * -mfunction-return=thunk emit them so) alike.
 */
#define MODEL_PCS                                                                                                                                                     \
	"WITH p AS (SELECT m.pc AS pc, m.insns AS insns,"                                                                                                             \
	" COALESCE(x.i1_misses, 0) AS s0, COALESCE(x.d1_reads, 0) AS s1,"                                                                                             \
	" COALESCE(x.d1_read_misses, 0) AS s2, COALESCE(x.d1_writes, 0) AS s3,"                                                                                       \
	" COALESCE(x.d1_write_misses, 0) AS s4, COALESCE(x.ll_misses, 0) AS s5,"                                                                                      \
	" COALESCE(t.itlb_misses, 0) AS t0, COALESCE(t.dtlb_misses, 0) AS t1,"                                                                                        \
	" COALESCE(e.flushes, 0) AS fl, COALESCE(e.kind, '-') AS kind,"                                                                                               \
	" COALESCE(c.cycles, 0) AS cy, COALESCE(c.base, 0) AS c0, COALESCE(c.branch, 0) AS c1,"                                                                       \
	" COALESCE(c.icache, 0) AS c2, COALESCE(c.dcache, 0) AS c3, COALESCE(c.tlb, 0) AS c4,"                                                                        \
	" COALESCE(c.serialize, 0) AS c5"                                                                                                                             \
	" FROM model_pcs m LEFT JOIN model_misses x ON x.pc = m.pc AND x.geom = ?1"                                                                                   \
	" LEFT JOIN model_tlb t ON t.pc = m.pc AND t.geom = ?1"                                                                                                       \
	" LEFT JOIN model_events e ON e.pc = m.pc LEFT JOIN model_cycles c ON c.pc = m.pc),"                                                                          \
	" s AS (SELECT p.*, CASE WHEN p.pc < 0 THEN " KSYM_OF(                                                                                                        \
		"p.pc") " END AS k,"                                                                                                                                  \
			" CASE WHEN p.pc >= 0 THEN " USYM_OF(                                                                                                         \
				"p.pc") " END AS u FROM p),"                                                                                                          \
					" n AS (SELECT s.*, COALESCE(ks.name, us.name, '[unknown]') AS name,"                                                         \
					" CASE WHEN s.pc < 0 THEN COALESCE(NULLIF(ks.module, ''), '[kernel]')"                                                        \
					" ELSE COALESCE(us.module, '[unknown]') END AS module,"                                                                       \
					" COALESCE(ks.addr, us.addr, s.pc) AS start,"                                                                                 \
					" CASE WHEN COALESCE(ks.addr, us.addr) = s.pc AND s.kind = '-' AND (COALESCE(ks.name, us.name) GLOB '__x86_indirect_thunk_*'" \
					" OR COALESCE(ks.name, us.name) GLOB '__x86_indirect_call_thunk_*'"                                                           \
					" OR COALESCE(ks.name, us.name) GLOB '__x86_indirect_jump_thunk_*') THEN s.insns ELSE 0 END AS rp,"                           \
					" CASE WHEN COALESCE(ks.addr, us.addr) = s.pc AND (COALESCE(ks.name, us.name) IN ('__x86_return_thunk', 'zen_untrain_ret',"   \
					" 'srso_return_thunk', 'srso_untrain_ret', 'retbleed_return_thunk', 'its_return_thunk',"                                      \
					" 'entry_untrain_ret') OR COALESCE(ks.name, us.name) GLOB 'srso_alias_*') THEN s.insns ELSE 0 END AS rt"                      \
					" FROM s LEFT JOIN ksyms ks ON ks.addr = s.k"                                                                                 \
					" LEFT JOIN usyms us ON us.addr = s.u AND s.pc < us.addr + us.size) "

/* The executions of each kind, per PC or summed */
#define X(k, s)	 ", CASE WHEN kind = '" #k "' THEN insns ELSE 0 END"
#define PC_KINDS MODEL_KIND_LIST
static const char pc_sql[] =
	MODEL_PCS "SELECT name, module, pc, insns, s0, s1, s2, s3, s4, s5,"
		  " t0, t1, fl, rp, rt" PC_KINDS ", cy, c0, c1, c2, c3, c4, c5, start"
		  " FROM n ORDER BY pc";
#undef X
#define X(k, s) ", SUM(CASE WHEN kind = '" #k "' THEN insns ELSE 0 END)"
static const char func_sql[] =
	MODEL_PCS "SELECT name, module, MIN(start), SUM(insns), SUM(s0), SUM(s1), SUM(s2), SUM(s3),"
		  " SUM(s4), SUM(s5), SUM(t0), SUM(t1), SUM(fl), SUM(rp), SUM(rt)" PC_KINDS
		  ", SUM(cy), SUM(c0), SUM(c1), SUM(c2), SUM(c3), SUM(c4), SUM(c5)"
		  " FROM n GROUP BY name, module ORDER BY 4 DESC, name, module";
#undef X

int model_functions(struct datafile *df, unsigned int geom, model_row_fn fn, void *ctx)
{
	struct row_walk w = {fn, ctx};

	return query_each(df, func_sql, model_row, &w, "i", (long long)geom);
}

int model_each_pc(struct datafile *df, unsigned int geom, model_row_fn fn, void *ctx)
{
	struct row_walk w = {fn, ctx};

	return query_each(df, pc_sql, model_row, &w, "i", (long long)geom);
}

struct running_walk {
	model_running_row_fn fn;
	void *ctx;
};

static int hex_digit(char c)
{
	return c >= '0' && c <= '9' ? c - '0' : c >= 'a' && c <= 'f' ? c - 'a' + 10 : -1;
}

static int running_row(sqlite3_stmt *st, void *ctx)
{
	struct running_walk *w = ctx;
	const char *hex = query_str(st, 1);
	size_t n = strlen(hex), i;
	__u8 b[MODEL_RUNNING_BYTES];

	if (!n || n % 2 || n > 2 * MODEL_RUNNING_BYTES)
		return 0;
	for (i = 0; i < n / 2; i++) {
		int hi = hex_digit(hex[2 * i]), lo = hex_digit(hex[2 * i + 1]);

		if (hi < 0 || lo < 0)
			return 0;
		b[i] = hi << 4 | lo;
	}
	return w->fn(sqlite3_column_int64(st, 0), b, n / 2, w->ctx);
}

int model_running_each(struct datafile *df, model_running_row_fn fn, void *ctx)
{
	struct running_walk w = {fn, ctx};

	return query_each(df, "SELECT pc, code FROM model_running ORDER BY pc", running_row, &w,
			  "");
}

struct site_walk {
	model_site_row_fn fn;
	void *ctx;
};

static int site_row(sqlite3_stmt *st, void *ctx)
{
	struct site_walk *w = ctx;

	return w->fn(sqlite3_column_int64(st, 0), sqlite3_column_int64(st, 1),
		     sqlite3_column_int64(st, 2), sqlite3_column_int64(st, 3), w->ctx);
}

int model_sites_each(struct datafile *df, model_site_row_fn fn, void *ctx)
{
	struct site_walk w = {fn, ctx};

	return query_each(df, "SELECT pc, site, reads, writes FROM model_sites ORDER BY pc, site",
			  site_row, &w, "");
}

struct alloc_site_walk {
	model_alloc_site_row_fn fn;
	void *ctx;
};

static int alloc_site_row(sqlite3_stmt *st, void *ctx)
{
	struct alloc_site_walk *w = ctx;

	return w->fn(sqlite3_column_int64(st, 0), sqlite3_column_int64(st, 1),
		     sqlite3_column_int64(st, 2), sqlite3_column_int64(st, 3),
		     sqlite3_column_int64(st, 4), w->ctx);
}

int model_alloc_sites_each(struct datafile *df, model_alloc_site_row_fn fn, void *ctx)
{
	struct alloc_site_walk w = {fn, ctx};

	return query_each(df,
			  "SELECT pc, site, alloc, reads, writes FROM model_alloc_sites"
			  " ORDER BY pc, site, alloc",
			  alloc_site_row, &w, "");
}

struct map_walk {
	model_map_fn fn;
	void *ctx;
};

static int map_row(sqlite3_stmt *st, void *ctx)
{
	struct map_walk *w = ctx;
	struct model_map m = {
		.start = sqlite3_column_int64(st, 0),
		.end = sqlite3_column_int64(st, 1),
		.pgoff = sqlite3_column_int64(st, 2),
		.path = query_str(st, 3),
		.build_id = query_str(st, 4),
	};

	return w->fn(&m, w->ctx);
}

int model_maps(struct datafile *df, model_map_fn fn, void *ctx)
{
	struct map_walk w = {fn, ctx};

	return query_each(
		df,
		"SELECT DISTINCT start, end, pgoff, path, COALESCE(build_id, '') FROM maps"
		" WHERE path IS NOT NULL AND end > start ORDER BY path, start",
		map_row, &w, "");
}

static int any_row(sqlite3_stmt *st, void *ctx)
{
	*(bool *)ctx = true;
	return 1;
}

bool model_present(struct datafile *df)
{
	bool any = false;

	query_each(df, "SELECT 1 FROM model_pcs LIMIT 1", any_row, &any, "");
	return any;
}

bool model_has_tlb(struct datafile *df, unsigned int geom)
{
	bool any = false;

	query_each(df, "SELECT 1 FROM model_tlbs WHERE geom = ? AND itlb_entries > 0", any_row,
		   &any, "i", (long long)geom);
	return any;
}
