// SPDX-License-Identifier: GPL-2.0-only
/*
 * The model's loads and stores per data type and member (model_data.h): each
 * counted PC that read or wrote memory resolved by its file's resolver
 * (datatype/dtype.h), kept as a part (type, member, function, counts) while
 * the files are open, then the parts sorted and merged into types, members
 * and the functions that access each member, as model_lines.c merges lines.
 * Resolving happens here, when a view reads the recording: the model's run
 * pays nothing for it.
 */
#include "model/model_data.h"

#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "data/datafile.h"
#include "datatype/dtype.h"
#include "model/model_annotate_int.h"
#include "model/model_data_calls.h"
#include "symbols/elfsym.h"
#include "symbols/kernel_dwarf.h"
#include "symbols/user_frames.h"
#include "util/array.h"

const char *const mdata_count_names[MD_COUNTS] = {
	"reads", "writes", "d1_read_misses", "d1_write_misses", "ll_misses", "dtlb_misses",
};

/* One access's counts before merging; strings owned by the resolvers, or by the part. */
struct part {
	const char *type, *module, *member; /* type NULL: untyped */
	__u64 size, offset, msize;
	char *func; /* the function of the PC */
	struct mdata_counts c;
};

/* A user file and its resolver, opened once. */
struct ufile {
	struct user_file uf;
	struct dtype_file *dt; /* NULL: no DWARF */
};

/* A function's start, for an untyped PC's offset in it. */
struct fstart {
	char *name, *module;
	__u64 start;
};

struct collect {
	struct mdata *d;
	struct datafile *df;
	struct dtype_file *kdt; /* NULL: the kernel's PCs untyped, d->kernel_note says why */
	__u64 slide;		/* runtime minus link-time kernel addresses */
	struct model_map_list maps;
	struct ufile *files;
	size_t nfiles, fcap;
	struct part *parts;
	size_t nparts, pcap;
	size_t ucap;
	struct mcalls *calls; /* the string helpers' call sites; only with the kernel's DWARF */
	size_t ccap;
};

/* The PC whose accesses a call's slice is of. */
struct pc_ctx {
	struct collect *c;
	const struct model_row *r;
};

__u64 mdata_accesses(const struct mdata_counts *c)
{
	return c->v[MD_READS] + c->v[MD_WRITES];
}

__u64 mdata_misses(const struct mdata_counts *c)
{
	return c->v[MD_D1_READ_MISSES] + c->v[MD_D1_WRITE_MISSES];
}

bool mdata_known(const struct mdata *d, enum mdata_count k)
{
	return k != MD_DTLB_MISSES || d->mc.tlb;
}

double mdata_share(const struct mdata *d, int side)
{
	__u64 a = side > MD_USER ? d->accesses[0] + d->accesses[1] : d->accesses[side];
	__u64 t = side > MD_USER ? d->typed[0] + d->typed[1] : d->typed[side];

	return a ? (double)t / a : NAN;
}

static void counts_add(struct mdata_counts *a, const struct mdata_counts *b)
{
	int i;

	for (i = 0; i < MD_COUNTS; i++)
		a->v[i] += b->v[i];
}

/* The resolver of the file m maps, opened the first time; *out NULL: no DWARF. */
static int user_resolver(struct collect *c, const struct model_map *m, struct ufile **out)
{
	struct ufile *u;
	size_t i;
	int err;

	for (i = 0; i < c->nfiles; i++)
		if (user_file_is(&c->files[i].uf, m->path, m->build_id)) {
			*out = &c->files[i];
			return 0;
		}
	if (array_reserve((void **)&c->files, &c->fcap, c->nfiles + 1, sizeof(*c->files)))
		return -ENOMEM;
	u = &c->files[c->nfiles++];
	*u = (struct ufile){};
	err = user_file_open(&u->uf, m->path, m->build_id, datafile_symfs(c->df));
	if (!err && u->uf.di && u->uf.segs)
		err = dtype_open(&u->dt, u->uf.di);
	*out = u;
	return err == -ENODATA ? 0 : err;
}

/* The mapping of a user PC: of the file its symbol names, else any that holds it. */
static const struct model_map *user_map(const struct collect *c, __u64 pc, const char *module)
{
	const struct model_map *any = NULL;
	size_t i;

	for (i = 0; i < c->maps.n; i++) {
		if (pc < c->maps.m[i].start || pc >= c->maps.m[i].end)
			continue;
		if (!strcmp(c->maps.m[i].path, module))
			return &c->maps.m[i];
		any = any ?: &c->maps.m[i];
	}
	return *module == '/' ? NULL : any;
}

/* A user PC's accesses, or one untyped access saying why there are none. */
static int resolve_user(struct collect *c, const struct model_row *r, struct dtype_access *out,
			unsigned int *n, const char **module)
{
	const struct model_map *m = user_map(c, r->addr, r->module);
	struct ufile *u;
	__u64 vaddr;
	int err;

	*n = 1;
	out[0] = (struct dtype_access){.how = DT_UNTYPED, .why = "in no mapped file"};
	if (!m)
		return 0;
	*module = m->path;
	err = user_resolver(c, m, &u);
	if (err)
		return err;
	if (!u->dt) {
		out[0].why = u->uf.segs ? "no DWARF of its file"
					: "its file is not here or another build (--symfs DIR)";
		return 0;
	}
	if (!elfsym_vaddr(u->uf.segs, r->addr - m->start + m->pgoff, &vaddr)) {
		out[0].why = "outside its file's segments";
		return 0;
	}
	return dtype_resolve(u->dt, vaddr, out, n);
}

static int resolve(struct collect *c, const struct model_row *r, struct dtype_access *out,
		   unsigned int *n, const char **module)
{
	if (r->addr < MODEL_KERNEL_START)
		return resolve_user(c, r, out, n, module);
	*module = "[kernel]";
	*n = 1;
	out[0] = (struct dtype_access){.how = DT_UNTYPED, .why = "no DWARF of the kernel"};
	if (strcmp(r->module, "[kernel]"))
		out[0].why = "in a kernel module: only vmlinux's DWARF is read";
	else if (c->kdt)
		return dtype_resolve(c->kdt, r->addr - c->slide, out, n);
	return 0;
}

/*
 * The share of an instruction's counts that access i of n takes: all of
 * them for its only access.  Of two, the resolver gives the written one
 * first (the destination of movs in Intel's operand order, the stack that
 * push and call write before the memory they read): it takes the writes,
 * the second the reads and the instruction's LL and D-TLB misses.  pop to
 * memory, which reads the stack and writes memory, is the exception, rare
 * enough to be left so.
 */
static struct mdata_counts share(const struct mdata_counts *all, unsigned int i, unsigned int n)
{
	struct mdata_counts c = {};

	if (n < 2)
		return *all;
	if (i == 0) {
		c.v[MD_WRITES] = all->v[MD_WRITES];
		c.v[MD_D1_WRITE_MISSES] = all->v[MD_D1_WRITE_MISSES];
	} else {
		c = *all;
		c.v[MD_WRITES] = c.v[MD_D1_WRITE_MISSES] = 0;
	}
	return c;
}

static int part_add(struct collect *c, const struct dtype_access *a, const char *module,
		    const char *func, const struct mdata_counts *k)
{
	struct part *p;

	if (array_reserve((void **)&c->parts, &c->pcap, c->nparts + 1, sizeof(*c->parts)))
		return -ENOMEM;
	p = &c->parts[c->nparts];
	*p = (struct part){.module = module, .c = *k, .func = strdup(func)};
	if (!p->func)
		return -ENOMEM;
	if (a->how != DT_UNTYPED && a->type) {
		p->type = a->type;
		p->member = a->member ?: "";
		p->size = a->type_size;
		p->offset = a->moffset;
		p->msize = a->msize;
	}
	c->nparts++;
	return 0;
}

static int untyped_add(struct collect *c, const struct model_row *r, const char *why,
		       const struct mdata_counts *k)
{
	struct mdata *d = c->d;
	struct mdata_untyped *u;

	if (d->nupcs && d->upcs[d->nupcs - 1].pc == r->addr &&
	    !strcmp(d->upcs[d->nupcs - 1].reason, why)) {
		d->upcs[d->nupcs - 1].accesses += mdata_accesses(k);
		return 0;
	}
	if (array_reserve((void **)&d->upcs, &c->ucap, d->nupcs + 1, sizeof(*d->upcs)))
		return -ENOMEM;
	u = &d->upcs[d->nupcs];
	*u = (struct mdata_untyped){
		.pc = r->addr, .off = r->addr - r->start, .accesses = mdata_accesses(k)};
	u->func = strdup(r->name);
	u->module = strdup(r->module);
	u->reason = strdup(why);
	d->nupcs++;
	return u->func && u->module && u->reason ? 0 : -ENOMEM;
}

/* A call's slice of a helper's accesses: a part, an untyped PC or a typed count, and a call. */
static int slice_add(const struct mcall_slice *s, void *ctx)
{
	struct pc_ctx *p = ctx;
	struct collect *c = p->c;
	struct mdata *d = c->d;
	struct mdata_counts k = {};
	struct mdata_call *call;
	const char *caller = *s->caller ? s->caller : p->r->name;
	int err = 0;

	k.v[s->write ? MD_WRITES : MD_READS] = s->n;
	if (s->a.how == DT_UNTYPED)
		err = untyped_add(c, p->r, s->a.why, &k);
	else
		d->typed[MD_KERNEL] += s->n;
	err = err ?: part_add(c, &s->a, "[kernel]", caller, &k);
	if (err || array_reserve((void **)&d->calls, &c->ccap, d->ncalls + 1, sizeof(*d->calls)))
		return err ?: -ENOMEM;
	call = &d->calls[d->ncalls++];
	*call = (struct mdata_call){.pc = p->r->addr,
				    .site = s->site,
				    .caller_off = s->caller_off,
				    .write = s->write,
				    .accesses = s->n};
	call->helper = strdup(p->r->name);
	call->caller = strdup(*s->caller ? s->caller : "[unknown]");
	if (s->a.how == DT_UNTYPED)
		call->reason = strdup(s->a.why ?: "untyped");
	else
		call->type = strdup(s->shown);
	return call->helper && call->caller && (call->type || call->reason) ? 0 : -ENOMEM;
}

/*
 * A string helper's accesses split by the calls that reached it, each typed
 * at its call (model_data_calls.h); what no known call holds stays in all.
 */
static int sites_split(struct collect *c, const struct model_row *r, struct mdata_counts *all)
{
	struct pc_ctx p = {c, r};
	__u64 have[2] = {all->v[MD_READS], all->v[MD_WRITES]}, taken[2];
	int err = mcalls_split(c->calls, c->kdt, c->slide, r->name, r->addr, have, slice_add, &p,
			       taken);

	all->v[MD_READS] -= taken[0];
	all->v[MD_WRITES] -= taken[1];
	return err;
}

static struct mdata_counts row_counts(const struct model_row *r)
{
	struct mdata_counts c = {{r->v[MODEL_D1_READS], r->v[MODEL_D1_WRITES],
				  r->v[MODEL_D1_READ_MISSES], r->v[MODEL_D1_WRITE_MISSES],
				  r->v[MODEL_LL_MISSES], r->x[MODEL_DTLB_MISSES]}};

	return c;
}

static int pc_row(const struct model_row *r, void *ctx)
{
	struct collect *c = ctx;
	struct mdata_counts all = row_counts(r), k;
	struct dtype_access acc[DTYPE_MAX_ACCESS];
	const char *module = r->module;
	int side = r->addr >= MODEL_KERNEL_START ? MD_KERNEL : MD_USER;
	unsigned int i, n = 0;
	int err;

	err = model_counts_add(&c->d->mc, r);
	if (err || !mdata_accesses(&all))
		return err;
	c->d->accesses[side] += mdata_accesses(&all);
	err = side == MD_KERNEL && c->calls ? sites_split(c, r, &all) : 0;
	err = err ?: resolve(c, r, acc, &n, &module);
	if (err)
		return err;
	if (!n) {
		acc[0] = (struct dtype_access){.how = DT_UNTYPED, .why = "no memory operand"};
		n = 1;
	}
	for (i = 0; i < n && i < DTYPE_MAX_ACCESS && !err; i++) {
		k = share(&all, i, n);
		if (acc[i].how != DT_UNTYPED && acc[i].type)
			c->d->typed[side] += mdata_accesses(&k);
		else if (mdata_accesses(&k)) /* not the misses alone a split left */
			err = untyped_add(c, r, acc[i].why ?: "untyped", &k);
		err = err ?: part_add(c, &acc[i], module, r->name, &k);
	}
	return err;
}

static int by_key(const void *x, const void *y)
{
	const struct part *a = x, *b = y;

	if (!a->type || !b->type)
		return !a->type - !b->type;
	return strcmp(a->type, b->type) ?: strcmp(a->module, b->module)
		?: strcmp(a->member, b->member) ?: (a->offset > b->offset) - (a->offset < b->offset)
		?: (a->msize > b->msize) - (a->msize < b->msize) ?: strcmp(a->func, b->func);
}

static bool same_type(const struct part *a, const struct part *b)
{
	return a->type && b->type && !strcmp(a->type, b->type) && !strcmp(a->module, b->module);
}

static bool same_member(const struct part *a, const struct part *b)
{
	return same_type(a, b) && !strcmp(a->member, b->member) && a->offset == b->offset &&
	       a->msize == b->msize;
}

static int by_fn_accesses(const void *x, const void *y)
{
	const struct mdata_fn *a = x, *b = y;

	if (a->accesses != b->accesses)
		return a->accesses > b->accesses ? -1 : 1;
	return strcmp(a->name, b->name);
}

/* The member of parts p[0..n) (one member's, by function): its counts and functions. */
static int member_make(struct mdata_member *m, const struct part *p, size_t n)
{
	size_t i;

	*m = (struct mdata_member){.offset = p->offset, .size = p->msize};
	m->member = strdup(p->member);
	m->fns = calloc(n, sizeof(*m->fns));
	if (!m->member || !m->fns)
		return -ENOMEM;
	for (i = 0; i < n; i++) {
		counts_add(&m->c, &p[i].c);
		if (!m->nfns || strcmp(m->fns[m->nfns - 1].name, p[i].func)) {
			m->fns[m->nfns].name = strdup(p[i].func);
			if (!m->fns[m->nfns++].name)
				return -ENOMEM;
		}
		m->fns[m->nfns - 1].accesses += mdata_accesses(&p[i].c);
	}
	qsort(m->fns, m->nfns, sizeof(*m->fns), by_fn_accesses);
	return 0;
}

static int by_offset(const void *x, const void *y)
{
	const struct mdata_member *a = x, *b = y;

	if (a->offset != b->offset)
		return a->offset < b->offset ? -1 : 1;
	if (a->size != b->size)
		return a->size > b->size ? -1 : 1;
	return strcmp(a->member, b->member);
}

/* The type of parts p[0..n) (sorted, one type's): its counts and members. */
static int type_make(struct mdata_type *t, const struct part *p, size_t n)
{
	size_t i, j;
	int err = 0;

	*t = (struct mdata_type){.size = p->size};
	t->type = strdup(p->type);
	t->module = strdup(p->module);
	t->members = calloc(n, sizeof(*t->members));
	if (!t->type || !t->module || !t->members)
		return -ENOMEM;
	for (i = 0; i < n && !err; i = j) {
		for (j = i + 1; j < n && same_member(&p[i], &p[j]); j++)
			;
		err = member_make(&t->members[t->nmembers++], p + i, j - i);
	}
	for (i = 0; i < n; i++)
		counts_add(&t->c, &p[i].c);
	qsort(t->members, t->nmembers, sizeof(*t->members), by_offset);
	return err;
}

static int by_misses(const void *x, const void *y)
{
	const struct mdata_type *a = x, *b = y;
	__u64 ma = mdata_misses(&a->c), mb = mdata_misses(&b->c);

	if (ma != mb)
		return ma > mb ? -1 : 1;
	ma = mdata_accesses(&a->c);
	mb = mdata_accesses(&b->c);
	if (ma != mb)
		return ma > mb ? -1 : 1;
	return strcmp(a->type, b->type) ?: strcmp(a->module, b->module);
}

static int by_untyped(const void *x, const void *y)
{
	const struct mdata_untyped *a = x, *b = y;

	if (a->accesses != b->accesses)
		return a->accesses > b->accesses ? -1 : 1;
	return (a->pc > b->pc) - (a->pc < b->pc) ?: strcmp(a->reason, b->reason);
}

static int by_call(const void *x, const void *y)
{
	const struct mdata_call *a = x, *b = y;

	return (a->accesses < b->accesses) - (a->accesses > b->accesses)
		?: (a->site > b->site) - (a->site < b->site) ?: (a->pc > b->pc) - (a->pc < b->pc)
		?: a->write - b->write;
}

/* The parts, sorted, into d's types (the untyped ones into d->untyped). */
static int merge(struct collect *c)
{
	struct mdata *d = c->d;
	size_t i, j, n = c->nparts;
	int err = 0;

	if (n)
		qsort(c->parts, n, sizeof(*c->parts), by_key);
	d->types = calloc(n + 1, sizeof(*d->types));
	d->untyped = (struct mdata_type){.type = strdup("(untyped)"), .module = strdup("-")};
	if (!d->types || !d->untyped.type || !d->untyped.module)
		return -ENOMEM;
	for (i = 0; i < n && c->parts[i].type && !err; i = j) {
		for (j = i + 1; j < n && same_type(&c->parts[i], &c->parts[j]); j++)
			;
		err = type_make(&d->types[d->ntypes++], c->parts + i, j - i);
	}
	for (; i < n; i++)
		counts_add(&d->untyped.c, &c->parts[i].c);
	if (d->ntypes)
		qsort(d->types, d->ntypes, sizeof(*d->types), by_misses);
	if (d->nupcs)
		qsort(d->upcs, d->nupcs, sizeof(*d->upcs), by_untyped);
	if (d->ncalls)
		qsort(d->calls, d->ncalls, sizeof(*d->calls), by_call);
	return err;
}

static void collect_free(struct collect *c)
{
	size_t i;

	for (i = 0; i < c->nparts; i++)
		free(c->parts[i].func);
	free(c->parts);
	for (i = 0; i < c->nfiles; i++) {
		dtype_close(c->files[i].dt);
		user_file_close(&c->files[i].uf);
	}
	free(c->files);
	mcalls_free(c->calls);
	model_map_list_free(&c->maps);
	dtype_close(c->kdt);
}

/* The running bytes of the kernel's patched sites, at link-time addresses. */
struct running_list {
	struct dtype_running *v;
	size_t n, cap;
	__u64 slide;
};

static int running_add(__u64 pc, const __u8 *b, unsigned int len, void *ctx)
{
	struct running_list *l = ctx;
	struct dtype_running *r;

	if (array_reserve((void **)&l->v, &l->cap, l->n + 1, sizeof(*l->v)))
		return -ENOMEM;
	r = &l->v[l->n++];
	*r = (struct dtype_running){.pc = pc - l->slide, .len = len};
	memcpy(r->b, b, len);
	return 0;
}

/*
 * What the kernel's patched sites ran, as the plugin saw them: every one of
 * them when the table said so and dropped none (meta model.patched_*);
 * else (an older recording) a site .altinstructions names stays untyped.
 */
static int kernel_running(struct collect *c)
{
	const char *dropped = datafile_meta(c->df, "model.patched_dropped");
	struct running_list l = {.slide = c->slide};
	int err = model_running_each(c->df, running_add, &l);

	err = err ?: dtype_set_running(c->kdt, l.v, l.n, dropped && !strcmp(dropped, "0"));
	free(l.v);
	return err;
}

/* The kernel's resolver, or why its PCs stay untyped. */
static int kernel_open(struct collect *c, struct kernel_dwarf *kd, const char *note)
{
	struct mdata *d = c->d;
	int err;

	if (!kd) {
		snprintf(d->kernel_note, sizeof(d->kernel_note), "%s",
			 note && *note ? note : "no DWARF of the recorded kernel found");
		return 0;
	}
	c->slide = kernel_dwarf_runtime(kd, 0);
	err = dtype_open(&c->kdt, kernel_dwarf_debuginfo(kd));
	if (!err)
		err = kernel_running(c);
	if (err == -ENODATA)
		snprintf(d->kernel_note, sizeof(d->kernel_note), "%s has no DWARF",
			 kernel_dwarf_path(kd));
	return err == -ENODATA ? 0 : err;
}

int mdata_collect(struct mdata *d, struct datafile *df, struct kernel_dwarf *kd, const char *note,
		  unsigned int geom, char *why, size_t len)
{
	struct collect c = {.d = d, .df = df};
	int err;

	*d = (struct mdata){};
	/* the totals from the PCs the view walks: the functions' query would walk them again */
	err = model_counts_head(df, geom, &d->mc, why, len);
	if (!err && !d->mc.cache) {
		snprintf(why, len,
			 "--data needs the model's caches: record under vm-run.sh --model cache");
		err = -ENOMEDIUM;
	}
	if (err)
		return err;
	d->line = d->mc.geoms[geom].cache[1][2] ?: 64;
	err = kernel_open(&c, kd, note) ?: model_map_list_read(df, &c.maps);
	/* the string helpers' call sites, typed through the kernel's DWARF alone */
	if (!err && c.kdt)
		err = mcalls_load(&c.calls, df);
	err = err ?: model_each_pc(df, geom, pc_row, &c) ?: merge(&c);
	collect_free(&c);
	return err;
}

static void type_free(struct mdata_type *t)
{
	size_t i, k;

	for (i = 0; i < t->nmembers; i++) {
		for (k = 0; k < t->members[i].nfns; k++)
			free(t->members[i].fns[k].name);
		free(t->members[i].fns);
		free(t->members[i].member);
	}
	free(t->members);
	free(t->type);
	free(t->module);
}

void mdata_free(struct mdata *d)
{
	size_t i;

	for (i = 0; i < d->ntypes; i++)
		type_free(&d->types[i]);
	free(d->types);
	type_free(&d->untyped);
	for (i = 0; i < d->nupcs; i++) {
		free(d->upcs[i].func);
		free(d->upcs[i].module);
		free(d->upcs[i].reason);
	}
	free(d->upcs);
	for (i = 0; i < d->ncalls; i++) {
		free(d->calls[i].helper);
		free(d->calls[i].caller);
		free(d->calls[i].type);
		free(d->calls[i].reason);
	}
	free(d->calls);
	model_counts_free(&d->mc);
	*d = (struct mdata){};
}

/* "task_struct" names "struct task_struct" too; a name as C spells it names itself. */
static bool name_is(const char *type, const char *name)
{
	static const char *const kw[] = {"struct ", "union ", "enum "};
	size_t i, n;

	if (!strcmp(type, name))
		return true;
	for (i = 0; i < sizeof(kw) / sizeof(kw[0]); i++) {
		n = strlen(kw[i]);
		if (!strncmp(type, kw[i], n) && !strcmp(type + n, name))
			return true;
	}
	return false;
}

const struct mdata_type *mdata_find(const struct mdata *d, const char *name)
{
	return mdata_find_in(d, name, NULL);
}

const struct mdata_type *mdata_find_in(const struct mdata *d, const char *name, const char *module)
{
	size_t i;

	for (i = 0; i < d->ntypes; i++)
		if (name_is(d->types[i].type, name) &&
		    (!module || !strcmp(d->types[i].module, module)))
			return &d->types[i];
	return NULL;
}
