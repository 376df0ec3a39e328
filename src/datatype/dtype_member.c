// SPDX-License-Identifier: GPL-2.0-only
/*
 * The member of a type at an offset, as the spec names it: the path of the
 * innermost named member joined by '.', an anonymous struct or union
 * contributing no component, an array member's element under the array's
 * name (its offsets taken in the first element, so that every element's
 * access counts under one member).  An array of structs is its element.
 */
#include "datatype/dtype_int.h"

#include <dwarf.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>
#include <elfutils/libdwfl.h>

#include "datatype/layout.h"
#include "symbols/debuginfo.h"
#include "util/safeio.h"

static bool is_record(int tag)
{
	return tag == DW_TAG_structure_type || tag == DW_TAG_union_type || tag == DW_TAG_class_type;
}

static __s64 mod(__s64 a, __u64 b)
{
	__s64 r = a % (__s64)b;

	return r < 0 ? r + (__s64)b : r;
}

/* The element type of the array die (peeled) into elem, its size; 0 when unknown. */
static __u64 element(Dwarf *dw, Dwarf_Die *die, Dwarf_Die *elem, Dwarf_Off *elem_off)
{
	Dwarf_Attribute attr;
	Dwarf_Die t;

	if (!dwarf_formref_die(dwarf_attr_integrate(die, DW_AT_type, &attr), &t))
		return 0;
	*elem_off = dwarf_dieoffset(&t);
	if (!dt_peel(dw, *elem_off, elem))
		return 0;
	return dt_type_size(dw, *elem_off);
}

/* A member's byte range: its offset and size; false when it has no type. */
static bool member_range(Dwarf *dw, Dwarf_Die *m, __u64 *at, __u64 *size, Dwarf_Off *type)
{
	Dwarf_Attribute attr;
	Dwarf_Word loc = 0, bits = 0, bitoff;
	Dwarf_Die t;

	if (!dwarf_formref_die(dwarf_attr_integrate(m, DW_AT_type, &attr), &t))
		return false;
	*type = dwarf_dieoffset(&t);
	if (dwarf_formudata(dwarf_attr(m, DW_AT_data_bit_offset, &attr), &bitoff) == 0) {
		dwarf_formudata(dwarf_attr(m, DW_AT_bit_size, &attr), &bits);
		*at = bitoff / 8;
		*size = (bitoff % 8 + bits + 7) / 8;
		return true;
	}
	dwarf_formudata(dwarf_attr(m, DW_AT_data_member_location, &attr), &loc);
	*at = loc;
	*size = dt_type_size(dw, *type); /* a DWARF 4 bit-field: its storage unit */
	return true;
}

/* The member of record rec covering byte rel, into m; false when rel is in no member. */
static bool member_at(Dwarf *dw, Dwarf_Die *rec, __u64 rel, Dwarf_Die *m, __u64 *at, __u64 *size,
		      Dwarf_Off *type)
{
	if (dwarf_child(rec, m) != 0)
		return false;
	do {
		if (dwarf_tag(m) != DW_TAG_member || !member_range(dw, m, at, size, type))
			continue;
		/* a zero-sized member (an empty struct, a flexible array) holds no byte */
		if (rel >= *at && rel < *at + *size)
			return true;
	} while (dwarf_siblingof(m, m) == 0);
	return false;
}

/*
 * Of a union's members covering rel, the first that holds a hint there (a variable's
 * `unsigned long *pivots` into maple_node's mr64.pivot, not the slot[] before it); else the
 * first covering, as member_at
 */
static bool member_hint(struct dtype_file *f, Dwarf_Die *rec, __u64 rel, Dwarf_Off hint,
			Dwarf_Die *m, __u64 *at, __u64 *size, Dwarf_Off *type)
{
	Dwarf_Die c;
	__u64 a, s;
	Dwarf_Off t;

	if (!member_at(f->dw, rec, rel, m, at, size, type))
		return false;
	if (!hint || dwarf_tag(rec) != DW_TAG_union_type ||
	    dt_holds(f, *type, (__s64)(rel - *at), hint))
		return true;
	c = *m;
	while (dwarf_siblingof(&c, &c) == 0) {
		if (dwarf_tag(&c) != DW_TAG_member || !member_range(f->dw, &c, &a, &s, &t) ||
		    rel < a || rel >= a + s || !dt_holds(f, t, (__s64)(rel - a), hint))
			continue;
		*m = c;
		*at = a;
		*size = s;
		*type = t;
		break;
	}
	return true;
}

__u64 dt_array_elem(struct dtype_file *f, Dwarf_Off type, Dwarf_Off *etype)
{
	Dwarf_Die d, e;

	if (!type || !dt_peel(f->dw, type, &d) || dwarf_tag(&d) != DW_TAG_array_type)
		return 0;
	return element(f->dw, &d, &e, etype);
}

__u64 dt_array_at(struct dtype_file *f, Dwarf_Off type, __s64 off, __u64 *moffset)
{
	struct dt_res r;
	Dwarf_Die d, e;
	Dwarf_Off eo;

	if (!type)
		return 0;
	dt_member(f, type, off, &r);
	if (!r.a.type || !dt_peel(f->dw, r.leaf, &d) || dwarf_tag(&d) != DW_TAG_array_type)
		return 0;
	*moffset = r.a.moffset;
	return element(f->dw, &d, &e, &eo);
}

/* Whether the peeled type d is t (peeled): one DIE, or two units' copies of one name and size. */
static bool same_type(struct dtype_file *f, Dwarf_Die *d, Dwarf_Off t)
{
	Dwarf_Die e;

	if (!dt_peel(f->dw, t, &e))
		return false;
	if (dwarf_dieoffset(d) == dwarf_dieoffset(&e))
		return true;
	return dwarf_tag(d) == dwarf_tag(&e) &&
	       dt_type_name(f, dwarf_dieoffset(d)) == dt_type_name(f, dwarf_dieoffset(&e)) &&
	       dt_type_size(f->dw, dwarf_dieoffset(d)) == dt_type_size(f->dw, dwarf_dieoffset(&e));
}

static bool holds(struct dtype_file *f, Dwarf_Off type, __s64 off, Dwarf_Off t, int depth)
{
	Dwarf_Die d, m, e;
	Dwarf_Off mt, eo;
	__u64 at, size, es;

	if (off < 0 || depth > 8 || !dt_peel(f->dw, type, &d))
		return false;
	if (!off && same_type(f, &d, t))
		return true;
	if (dwarf_tag(&d) == DW_TAG_array_type) {
		es = element(f->dw, &d, &e, &eo);
		return es && holds(f, eo, mod(off, es), t, depth + 1);
	}
	/* the plugin's randstruct DWARF has offsets the code does not use */
	if (!is_record(dwarf_tag(&d)) || f->rs_file || dwarf_child(&d, &m) != 0)
		return false;
	do { /* any member covering off: each of a union's */
		if (dwarf_tag(&m) != DW_TAG_member || !member_range(f->dw, &m, &at, &size, &mt) ||
		    (__u64)off < at || ((__u64)off >= at + size && size))
			continue;
		if (holds(f, mt, off - (__s64)at, t, depth + 1))
			return true;
	} while (dwarf_siblingof(&m, &m) == 0);
	return false;
}

/* holds, asked once for each type, offset and t: joins and unions ask the same often */
bool dt_holds(struct dtype_file *f, Dwarf_Off type, __s64 off, Dwarf_Off t)
{
	bool found, yes;
	void *v = dt_memo_get(&f->holds, type, (__u64)off, t, &found);

	if (found)
		return v != NULL;
	yes = holds(f, type, off, t, 0);
	dt_memo_put(&f->holds, type, (__u64)off, t, yes ? f : NULL); /* else asked again */
	return yes;
}

struct walk {
	char path[256];
	size_t used;
	__u64 moff, msize, rel, base; /* base: the first element's offset shift */
	Dwarf_Off leaf, hint;
};

static void add_name(struct walk *w, const char *name)
{
	if (!name || w->used >= sizeof(w->path) - 1)
		return;
	w->used += snprintf(w->path + w->used, sizeof(w->path) - w->used, "%s%s",
			    w->used ? "." : "", name);
}

/*
 * Into the type of the member just named (w->leaf): into *rec when it is a
 * record, or an array of them (w->rel then in its element); false when the
 * member is the leaf.
 */
static bool into(Dwarf *dw, Dwarf_Die *rec, struct walk *w)
{
	Dwarf_Die t, elem;
	Dwarf_Off eoff;
	__u64 esize;

	if (!dt_peel(dw, w->leaf, &t))
		return false;
	if (dwarf_tag(&t) == DW_TAG_array_type) {
		esize = element(dw, &t, &elem, &eoff);
		if (!esize || !is_record(dwarf_tag(&elem)))
			return false; /* an array of scalars: the array is the member */
		w->base += w->rel - w->rel % esize;
		w->rel %= esize;
		w->leaf = eoff;
		w->msize = esize;
		t = elem;
	}
	if (!is_record(dwarf_tag(&t)))
		return false;
	*rec = t;
	return true;
}

static bool shuffled(struct dtype_file *f, Dwarf_Die *rec, int depth);
static bool code_layout(struct dtype_file *f, Dwarf_Die *rec, struct layout **out);

/*
 * Down from the record rec through the members covering w->rel.  On a
 * randstruct plugin build, a member whose own type the plugin shuffles is
 * where it stops: its DWARF's offsets are not the code's.
 */
static void walk_members(struct dtype_file *f, Dwarf_Die *rec, struct walk *w)
{
	struct layout *l;
	Dwarf_Die m;
	Dwarf_Off type;
	__u64 at, size;
	int depth;

	for (depth = 0; depth < 16 && member_hint(f, rec, w->rel, w->hint, &m, &at, &size, &type);
	     depth++) {
		add_name(w, dwarf_diename(&m));
		w->moff += at;
		w->rel -= at;
		w->msize = size;
		w->leaf = type;
		if (!into(f->dw, rec, w))
			return;
		if (f->rs_file && (shuffled(f, rec, 0) || (code_layout(f, rec, &l) && l)))
			return;
	}
}

static int by_name(const void *a, const void *b)
{
	return strcmp(*(char *const *)a, *(char *const *)b);
}

/* The lines "STRUCT * *" of the randstruct.offsets f: structures marked but not measured. */
static int read_shuffled(struct dtype_file *f, FILE *in)
{
	char line[256], st[128], a[8], b[8];
	size_t cap = 0;
	char **v;

	while (fgets(line, sizeof(line), in)) {
		if (sscanf(line, "%127s %7s %7s", st, a, b) != 3 || strcmp(a, "*") ||
		    strcmp(b, "*"))
			continue;
		if (f->rs_nshuffled == cap) {
			cap = cap ? 2 * cap : 64;
			v = realloc(f->rs_shuffled, cap * sizeof(*v));
			if (!v)
				return -ENOMEM;
			f->rs_shuffled = v;
		}
		f->rs_shuffled[f->rs_nshuffled] = strdup(st);
		if (!f->rs_shuffled[f->rs_nshuffled])
			return -ENOMEM;
		f->rs_nshuffled++;
	}
	qsort(f->rs_shuffled, f->rs_nshuffled, sizeof(*f->rs_shuffled), by_name);
	return 0;
}

int dt_randstruct_open(struct dtype_file *f)
{
	const char *mainfile = NULL;
	char path[4096], why[128], *real, *slash;
	struct stat st;
	FILE *in;
	int fd, err;

	dwfl_module_info(debuginfo_module(f->di), NULL, NULL, NULL, NULL, NULL, &mainfile, NULL);
	real = mainfile ? realpath(mainfile, NULL) : NULL;
	slash = real ? strrchr(real, '/') : NULL;
	if (!slash) {
		free(real);
		return 0;
	}
	snprintf(path, sizeof(path), "%.*s/randstruct.offsets", (int)(slash - real), real);
	free(real);
	fd = safeio_open_regular(path, &st, why, sizeof(why));
	in = fd >= 0 ? fdopen(fd, "r") : NULL;
	if (!in) {
		if (fd >= 0)
			close(fd);
		return 0;
	}
	err = read_shuffled(f, in);
	fclose(in);
	f->rs_file = err ? NULL : strdup(mainfile);
	return err ?: f->rs_file ? 0 : -ENOMEM;
}

static void layout_drop(void *l)
{
	layout_free(l);
}

void dt_randstruct_close(struct dtype_file *f)
{
	size_t i;

	dt_cache_free(&f->layouts, layout_drop);
	for (i = 0; i < f->rs_nshuffled; i++)
		free(f->rs_shuffled[i]);
	free(f->rs_shuffled);
	free(f->rs_file);
}

/*
 * Whether the plugin shuffles rec though no offsets were asked: marked in
 * the source (the file's list), or made of function pointers alone (and
 * records of them), which it shuffles unmarked.
 */
static bool shuffled(struct dtype_file *f, Dwarf_Die *rec, int depth)
{
	const char *name = dwarf_diename(rec);
	Dwarf_Die m, t;
	Dwarf_Off type, p;
	__u64 at, size;
	bool any = false;

	if (!depth && name &&
	    bsearch(&name, f->rs_shuffled, f->rs_nshuffled, sizeof(char *), by_name))
		return true;
	if (depth > 4 || dwarf_child(rec, &m) != 0)
		return false;
	do {
		if (dwarf_tag(&m) != DW_TAG_member)
			continue;
		if (!member_range(f->dw, &m, &at, &size, &type) || !dt_peel(f->dw, type, &t))
			return false;
		if (is_record(dwarf_tag(&t))
			    ? !shuffled(f, &t, depth + 1)
			    : !(p = dt_pointee(f->dw, type)) || !dt_peel(f->dw, p, &t) ||
				      dwarf_tag(&t) != DW_TAG_subroutine_type)
			return false;
		any = true;
	} while (dwarf_siblingof(&m, &m) == 0);
	return any;
}

/*
 * The layout of rec by the offsets its code uses into *out, NULL when the
 * file has none for it; false when out of memory.
 */
static bool code_layout(struct dtype_file *f, Dwarf_Die *rec, struct layout **out)
{
	Dwarf_Off type = dwarf_dieoffset(rec);
	struct layout *l;
	bool found;

	l = dt_cache_get(&f->layouts, type, &found);
	if (!found) {
		if (layout_of_die(rec, f->rs_file, &l))
			l = NULL;
		else if (!l->code_offsets) {
			layout_free(l);
			l = NULL;
		}
		if (dt_cache_put(&f->layouts, type, l)) {
			layout_free(l);
			return false;
		}
	}
	*out = l;
	return true;
}

/*
 * On a randstruct plugin build, the record rec by the offsets its code uses into
 * w: true when the file has them for it (the member at w->rel, then down it
 * by DWARF, unless the plugin shuffles that member's type too), or when the
 * plugin shuffles rec without them (the whole object); false to name by
 * the DWARF's.
 */
static bool code_member(struct dtype_file *f, Dwarf_Die *rec, struct walk *w)
{
	const struct layout_member *m;
	struct layout *l;
	Dwarf_Die t;

	if (!code_layout(f, rec, &l))
		return false;
	if (!l)
		return shuffled(f, rec, 0); /* no member named by the DWARF's layout */
	m = layout_member_at(l, w->rel);
	if (!m)
		return true; /* a hole, or a bitfield the offsets leave unplaced: the object */
	add_name(w, m->name);
	w->moff = m->offset;
	w->rel -= m->offset;
	w->msize = m->size;
	w->leaf = m->type_off;
	if (into(f->dw, &t, w) && !shuffled(f, &t, 0))
		walk_members(f, &t, w);
	return true;
}

void dt_member(struct dtype_file *f, Dwarf_Off type, __s64 off, struct dt_res *r)
{
	dt_member_hint(f, type, off, 0, r);
}

static void member_of(struct dtype_file *f, Dwarf_Off type, __s64 off, Dwarf_Off hint,
		      struct dt_res *r)
{
	struct walk w = {.hint = hint};
	Dwarf_Die d, elem;
	Dwarf_Off eoff;
	__u64 size, esize;

	while (dt_peel(f->dw, type, &d) && dwarf_tag(&d) == DW_TAG_array_type) {
		esize = element(f->dw, &d, &elem, &eoff);
		if (!esize || !is_record(dwarf_tag(&elem)))
			break;
		off = mod(off, esize);
		type = eoff;
	}
	if (!dt_peel(f->dw, type, &d)) {
		dt_untyped(f, r, "pointer to void");
		return;
	}
	size = dt_type_size(f->dw, type);
	if (!size && is_record(dwarf_tag(&d))) {
		dt_untyped(f, r, dt_internf(f, "%s is incomplete", dt_type_name(f, type)));
		return;
	}
	if (off < 0) {
		dt_untyped(f, r,
			   dt_internf(f, "offset -%#llx before %s", (unsigned long long)-off,
				      dt_type_name(f, type)));
		return;
	}
	if (size && (__u64)off >= size) {
		/* past the end: an element of an array of them, or a container, none can tell */
		dt_untyped(f, r,
			   dt_internf(f, "offset %#llx past %s", (unsigned long long)off,
				      dt_type_name(f, type)));
		return;
	}
	w.rel = off;
	w.msize = size;
	w.leaf = type;
	if (is_record(dwarf_tag(&d)) && !(f->rs_file && code_member(f, &d, &w)))
		walk_members(f, &d, &w);
	r->a.type = dt_type_name(f, type);
	r->a.type_size = size;
	r->a.member = dt_intern(f, w.path);
	r->a.moffset = w.moff; /* in the first element of an array member */
	r->a.offset = off - w.base;
	r->a.msize = w.msize;
	r->a.why = NULL;
	r->leaf = w.leaf;
}

/*
 * member_of, asked once for each type, offset and hint (the flow asks again at every pc).
 * A typed answer leaves r->a.how as the caller set it; an untyped one is all of r.
 */
void dt_member_hint(struct dtype_file *f, Dwarf_Off type, __s64 off, Dwarf_Off hint,
		    struct dt_res *r)
{
	bool found;
	struct dt_res *m = dt_memo_get(&f->members, type, (__u64)off, hint, &found);
	enum dtype_how how = r->a.how;

	if (!found) {
		member_of(f, type, off, hint, r);
		m = malloc(sizeof(*m));
		if (m && dt_memo_put(&f->members, type, (__u64)off, hint, m)) {
			free(m);
			m = NULL;
		}
		if (m)
			*m = *r;
		return;
	}
	*r = *m;
	if (!m->a.why)
		r->a.how = how;
}

static __u64 align_of(struct dtype_file *f, Dwarf_Off type, int depth);

/* A record's alignment: its members' largest, 1 when one sits off its own alignment. */
static __u64 record_align(struct dtype_file *f, Dwarf_Die *rec, int depth)
{
	__u64 at, size, a, best = 1;
	Dwarf_Off type;
	Dwarf_Die m;

	if (dwarf_child(rec, &m) != 0)
		return 1;
	do {
		if (dwarf_tag(&m) != DW_TAG_member || !member_range(f->dw, &m, &at, &size, &type))
			continue;
		a = align_of(f, type, depth + 1);
		if (at % a)
			return 1; /* packed */
		best = a > best ? a : best;
	} while (dwarf_siblingof(&m, &m) == 0);
	return best;
}

static __u64 align_of(struct dtype_file *f, Dwarf_Off type, int depth)
{
	Dwarf_Attribute attr;
	Dwarf_Word a;
	Dwarf_Die d, elem;
	Dwarf_Off eoff;
	__u64 size;

	if (depth > 8 || !dt_peel(f->dw, type, &d))
		return 1;
	if (dwarf_formudata(dwarf_attr(&d, DW_AT_alignment, &attr), &a) == 0 && a)
		return a;
	if (dwarf_tag(&d) == DW_TAG_array_type)
		return element(f->dw, &d, &elem, &eoff) ? align_of(f, eoff, depth + 1) : 1;
	if (is_record(dwarf_tag(&d)))
		return record_align(f, &d, depth);
	size = dt_type_size(f->dw, type);
	return size && size <= 16 && !(size & (size - 1)) ? size : 1;
}

__u64 dt_type_align(struct dtype_file *f, Dwarf_Off type)
{
	bool found;
	void *v = dt_cache_get(&f->aligns, type, &found);
	__u64 a;

	if (found)
		return (uintptr_t)v;
	a = align_of(f, type, 0);
	dt_cache_put(&f->aligns, type, (void *)(uintptr_t)a);
	return a;
}
