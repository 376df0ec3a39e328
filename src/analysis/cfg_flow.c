/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * What a control-flow graph's shape says, once cfg.c has its blocks and
 * edges: dominators, loops, and which edge counts block counts give.
 *
 * Loops: natural loops from back edges (to a head dominating the source),
 * one per head, its body the blocks reaching a latch without passing the
 * head; what is left cyclic once back edges are removed is irreducible,
 * reported as a loop with no trip count.
 *
 * Edge counts: each block's count is the sum of its in-edges and of its
 * out-edges, and the entering call's count the sum of the leaving edges'.
 * A constraint left with one unknown edge gives it, until none does.  An
 * edge that stays unknown lies on a cycle of unknowns (the two ways of a
 * branch into blocks that others enter too), which only measuring one of
 * them closes; or it bridges two such cycles, which this peeling leaves
 * open although solving the whole linear system would give it.
 */
#include "analysis/cfg.h"

#include <errno.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "util/array.h"

/* Reverse postorder from the entry: order[k] is the k-th block, num[b] its rank. */
static int rpo(const struct cfg *g, int *order, int *num)
{
	int *stack = malloc(g->nb * sizeof(*stack)), *next = calloc(g->nb, sizeof(*next));
	size_t sp = 0, k = g->nb;
	int b, s;

	if (!stack || !next) {
		free(stack);
		free(next);
		return -ENOMEM;
	}
	memset(num, -1, g->nb * sizeof(*num));
	stack[sp++] = g->entry;
	num[g->entry] = 0;
	while (sp) {
		b = stack[sp - 1];
		if (next[b] < g->b[b].nsucc) {
			s = g->b[b].succ[next[b]++];
			if (s >= 0 && num[s] < 0) {
				num[s] = 0;
				stack[sp++] = s;
			}
			continue;
		}
		order[--k] = b;
		sp--;
	}
	for (k = 0; k < g->nb; k++)
		num[order[k]] = (int)k;
	free(stack);
	free(next);
	return 0;
}

static int intersect(const struct cfg *g, const int *num, int a, int b)
{
	while (a != b) {
		while (num[a] > num[b])
			a = g->b[a].idom;
		while (num[b] > num[a])
			b = g->b[b].idom;
	}
	return a;
}

/* Cooper, Harvey and Kennedy's "A Simple, Fast Dominance Algorithm". */
static void dominators(struct cfg *g, const int *order, const int *num)
{
	bool changed = true;
	size_t k;
	int i, b, p, d;

	g->b[g->entry].idom = g->entry;
	while (changed) {
		changed = false;
		for (k = 1; k < g->nb; k++) {
			b = order[k];
			d = -1;
			for (i = 0; i < g->b[b].npred; i++) {
				p = g->e[g->in[g->b[b].in_first + i]].from;
				if (p < 0 || g->b[p].idom < 0)
					continue;
				d = d < 0 ? p : intersect(g, num, p, d);
			}
			if (d != g->b[b].idom) {
				g->b[b].idom = d;
				changed = true;
			}
		}
	}
	g->b[g->entry].idom = -1;
}

static bool dominates(const struct cfg *g, int h, int u)
{
	for (; u >= 0; u = g->b[u].idom) {
		if (u == h)
			return true;
	}
	return false;
}

/* Loops' lists are short and built once: grown one at a time. */
static int append(int **v, size_t *n, int x)
{
	int *p = realloc(*v, (*n + 1) * sizeof(**v));

	if (!p)
		return -ENOMEM;
	p[(*n)++] = x;
	*v = p;
	return 0;
}

static bool in_body(const struct cfg_loop *l, int b)
{
	size_t lo = 0, hi = l->nbody, m;

	while (lo < hi) {
		m = lo + (hi - lo) / 2;
		if (l->body[m] < b)
			lo = m + 1;
		else
			hi = m;
	}
	return lo < l->nbody && l->body[lo] == b;
}

/* The blocks marked in mark, sorted, into l's body. */
static int take_body(const struct cfg *g, struct cfg_loop *l, const bool *mark)
{
	size_t i;
	int err = 0;

	for (i = 0; !err && i < g->nb; i++) {
		if (mark[i])
			err = append(&l->body, &l->nbody, (int)i);
	}
	return err;
}

/* Mark what reaches (back) or is reached from (!back) the marked blocks, through edges
 * allowed, not going past stop. */
static int flood(const struct cfg *g, bool *mark, bool back, const bool *allowed, int stop)
{
	int *work = malloc((g->nb + 1) * sizeof(*work)), b, n, i;
	size_t sp = 0, k;

	if (!work)
		return -ENOMEM;
	for (k = 0; k < g->nb; k++) {
		if (mark[k] && (int)k != stop)
			work[sp++] = (int)k;
	}
	while (sp) {
		b = work[--sp];
		n = back ? g->b[b].npred : g->b[b].nsucc;
		for (i = 0; i < n; i++) {
			int e = back ? g->in[g->b[b].in_first + i] : g->b[b].edge[i];
			int x = back ? g->e[e].from : g->e[e].to;

			if (x < 0 || mark[x] || (allowed && !allowed[e]))
				continue;
			mark[x] = true;
			if (x != stop)
				work[sp++] = x;
		}
	}
	free(work);
	return 0;
}

static int add_loop(struct cfg *g, size_t *cap, int head, bool irreducible)
{
	int err = array_reserve((void **)&g->loops, cap, g->nloops + 1, sizeof(*g->loops));

	if (err)
		return err;
	g->loops[g->nloops++] =
		(struct cfg_loop){.head = head, .parent = -1, .irreducible = irreducible};
	return 0;
}

/* One natural loop per head: the blocks reaching a latch without passing the head. */
static int natural_loops(struct cfg *g, const int *num, bool *mark, size_t *cap)
{
	struct cfg_loop *l;
	size_t i;
	int h, err = 0;

	for (h = 0; !err && h < (int)g->nb; h++) {
		memset(mark, 0, g->nb * sizeof(*mark));
		l = NULL;
		for (i = 0; !err && i < g->ne; i++) {
			if (g->e[i].to != h || g->e[i].from < 0 || num[h] > num[g->e[i].from] ||
			    !dominates(g, h, g->e[i].from))
				continue;
			g->e[i].back = true;
			if (!l) {
				err = add_loop(g, cap, h, false);
				l = err ? NULL : &g->loops[g->nloops - 1];
			}
			if (l)
				err = append(&l->latches, &l->nlatches, (int)i);
			mark[g->e[i].from] = true;
		}
		if (!l || err)
			continue;
		mark[h] = true;
		err = flood(g, mark, true, NULL, h) ?: take_body(g, l, mark);
	}
	return err;
}

/* The blocks on a cycle through edge i that takes no back edge: reached from its target, reaching
 * its source. */
static int cycle_through(const struct cfg *g, int i, const bool *allowed, bool *fwd, bool *bwd)
{
	size_t k;
	int err;

	memset(fwd, 0, g->nb * sizeof(*fwd));
	memset(bwd, 0, g->nb * sizeof(*bwd));
	fwd[g->e[i].to] = bwd[g->e[i].from] = true;
	err = flood(g, fwd, false, allowed, -1) ?: flood(g, bwd, true, allowed, -1);
	for (k = 0; k < g->nb; k++)
		fwd[k] = fwd[k] && bwd[k];
	return err;
}

/* The loop already holding one of mark's blocks, as a cycle sharing a block is in its SCC. */
static struct cfg_loop *irreducible_with(struct cfg *g, const bool *mark)
{
	size_t l, k;

	for (l = 0; l < g->nloops; l++) {
		for (k = 0; g->loops[l].irreducible && k < g->loops[l].nbody; k++) {
			if (mark[g->loops[l].body[k]])
				return &g->loops[l];
		}
	}
	return NULL;
}

/* What stays cyclic without the back edges: a retreating edge no head dominates. */
static int irreducible_loops(struct cfg *g, const int *num, bool *fwd, size_t *cap)
{
	bool *allowed = calloc(g->ne, sizeof(*allowed)), *bwd = calloc(g->nb, sizeof(*bwd));
	struct cfg_loop *l;
	size_t i, k;
	int err = allowed && bwd ? 0 : -ENOMEM;

	for (i = 0; !err && i < g->ne; i++)
		allowed[i] = !g->e[i].back;
	for (i = 0; !err && i < g->ne; i++) {
		if (g->e[i].back || g->e[i].from < 0 || g->e[i].to < 0 ||
		    num[g->e[i].to] > num[g->e[i].from])
			continue;
		err = cycle_through(g, (int)i, allowed, fwd, bwd);
		l = err ? NULL : irreducible_with(g, fwd);
		if (!err && !l) {
			err = add_loop(g, cap, g->e[i].to, true);
			l = err ? NULL : &g->loops[g->nloops - 1];
		}
		if (!l)
			continue;
		for (k = 0; k < l->nbody; k++)
			fwd[l->body[k]] = true;
		free(l->body);
		l->body = NULL;
		l->nbody = 0;
		err = take_body(g, l, fwd) ?: append(&l->latches, &l->nlatches, (int)i);
		for (k = 0; k < l->nbody; k++) {
			if (num[l->body[k]] < num[l->head])
				l->head = l->body[k];
		}
	}
	free(allowed);
	free(bwd);
	return err;
}

static int cmp_loop(const void *x, const void *y)
{
	const struct cfg_loop *a = x, *b = y;

	if (a->nbody != b->nbody)
		return a->nbody > b->nbody ? -1 : 1;
	return a->head - b->head;
}

/* Outer loops first; each one's parent, depth, exits, and its blocks' innermost loop. */
static int nest_loops(struct cfg *g)
{
	struct cfg_loop *l;
	size_t i, k, p;
	int err = 0;

	if (g->nloops)
		qsort(g->loops, g->nloops, sizeof(*g->loops), cmp_loop);
	for (i = 0; i < g->nloops; i++) {
		l = &g->loops[i];
		for (p = i; p-- > 0;) {
			if (in_body(&g->loops[p], l->head)) {
				l->parent = (int)p;
				break;
			}
		}
		l->depth = l->parent < 0 ? 1 : g->loops[l->parent].depth + 1;
		for (k = 0; k < l->nbody; k++)
			g->b[l->body[k]].loop = (int)i;
		for (k = 0; !err && k < g->ne; k++) {
			if (g->e[k].from >= 0 && in_body(l, g->e[k].from) &&
			    (g->e[k].to < 0 || !in_body(l, g->e[k].to)))
				err = append(&l->exits, &l->nexits, (int)k);
		}
	}
	return err;
}

/*
 * The edges of flow constraint c into ed, with their signs: block c's in-edges (c < nb), block
 * c - nb's out-edges (c < 2 nb), or, for c == 2 nb, the entering call against all leaving edges.
 */
static size_t con_edges(const struct cfg *g, size_t c, int *ed, signed char *sign)
{
	const struct cfg_block *b = &g->b[c % g->nb];
	size_t i, n = 0;

	if (c < g->nb) {
		for (i = 0; i < (size_t)b->npred; i++, n++)
			ed[n] = g->in[b->in_first + i], sign[n] = 1;
	} else if (c < 2 * g->nb) {
		for (i = 0; i < (size_t)b->nsucc; i++, n++)
			ed[n] = b->edge[i], sign[n] = 1;
	} else {
		for (i = 0; i < g->ne; i++) {
			if (!i || g->e[i].to == CFG_OUT)
				ed[n] = (int)i, sign[n++] = i ? -1 : 1;
		}
	}
	return n;
}

/*
 * Solve each constraint left with one unknown edge until none is: on counts into vals, or, with
 * counts NULL, only which edges become known.  The number left unknown, or -EDOM.
 */
static int peel(const struct cfg *g, const __u64 *counts, bool *known, __u64 *vals, int *ed,
		signed char *sign)
{
	size_t c, i, n, unk = 0, nunk, left = 0;
	bool progress = true;
	__s64 sum, v;

	while (progress) {
		progress = false;
		for (c = 0; c <= 2 * g->nb; c++) {
			n = con_edges(g, c, ed, sign);
			for (i = 0, nunk = 0, sum = 0; i < n; i++) {
				if (!known[ed[i]])
					nunk++, unk = i;
				else if (counts)
					sum += sign[i] * (__s64)vals[ed[i]];
			}
			if (counts && nunk == 0 &&
			    sum != (c < 2 * g->nb ? (__s64)counts[c % g->nb] : 0))
				return -EDOM;
			if (nunk != 1)
				continue;
			known[ed[unk]] = progress = true;
			if (!counts)
				continue;
			v = sign[unk] * ((c < 2 * g->nb ? (__s64)counts[c % g->nb] : 0) - sum);
			if (v < 0)
				return -EDOM;
			vals[ed[unk]] = (__u64)v;
		}
	}
	for (i = 0; i < g->ne; i++)
		left += !known[i];
	return (int)left;
}

/*
 * What peel() leaves: the constraints still holding unknown edges, over those edges, dense.  A
 * row's entries are the edges' signs; as every edge is in two constraints with opposite signs
 * once in-constraints are negated, the matrix is a directed graph's incidence matrix, totally
 * unimodular, and Gauss-Jordan pivots keep its entries in {-1, 0, 1}.
 */
struct residue {
	int *col;  /* edge -> column, -1 when known */
	int *edge; /* column -> edge */
	size_t nr, nc;
	int *m; /* nr rows of nc */
	__s64 *rhs;
};

/* Whether constraint c has an unknown edge. */
static bool open_constraint(const struct cfg *g, size_t c, const bool *known, int *ed,
			    signed char *sign)
{
	size_t i, n = con_edges(g, c, ed, sign);

	for (i = 0; i < n && known[ed[i]]; i++)
		;
	return i < n;
}

static int residue_build(const struct cfg *g, const __u64 *counts, const bool *known,
			 const __u64 *vals, int *ed, signed char *sign, struct residue *r)
{
	size_t c, i, n, e, rows = 0;
	int *row;

	for (c = 0; c <= 2 * g->nb; c++)
		rows += open_constraint(g, c, known, ed, sign);
	r->col = malloc(g->ne * sizeof(*r->col));
	r->edge = malloc(g->ne * sizeof(*r->edge));
	for (e = 0; r->col && r->edge && e < g->ne; e++) {
		r->col[e] = known[e] ? -1 : (int)r->nc;
		if (!known[e])
			r->edge[r->nc++] = (int)e;
	}
	r->m = calloc(rows * r->nc + 1, sizeof(*r->m));
	r->rhs = calloc(rows + 1, sizeof(*r->rhs));
	if (!r->col || !r->edge || !r->m || !r->rhs)
		return -ENOMEM;
	for (c = 0; c <= 2 * g->nb; c++) {
		if (!open_constraint(g, c, known, ed, sign))
			continue;
		row = &r->m[r->nr * r->nc];
		r->rhs[r->nr] = counts && c < 2 * g->nb ? (__s64)counts[c % g->nb] : 0;
		n = con_edges(g, c, ed, sign);
		for (i = 0; i < n; i++) {
			if (r->col[ed[i]] >= 0)
				row[r->col[ed[i]]] = sign[i];
			else if (counts)
				r->rhs[r->nr] -= sign[i] * (__s64)vals[ed[i]];
		}
		r->nr++;
	}
	return 0;
}

static void swap_rows(struct residue *r, size_t a, size_t b)
{
	__s64 t = r->rhs[a];
	size_t k;
	int x;

	r->rhs[a] = r->rhs[b];
	r->rhs[b] = t;
	for (k = 0; k < r->nc; k++) {
		x = r->m[a * r->nc + k];
		r->m[a * r->nc + k] = r->m[b * r->nc + k];
		r->m[b * r->nc + k] = x;
	}
}

/* Gauss-Jordan on r: piv[k] the column of row k's pivot; the rank. */
static size_t residue_reduce(struct residue *r, size_t *piv)
{
	size_t rank = 0, c, i, k;
	int *p, *q, f;

	for (c = 0; c < r->nc && rank < r->nr; c++) {
		for (i = rank; i < r->nr && abs(r->m[i * r->nc + c]) != 1; i++)
			;
		if (i == r->nr)
			continue;
		swap_rows(r, i, rank);
		p = &r->m[rank * r->nc];
		if (p[c] < 0) {
			for (k = 0; k < r->nc; k++)
				p[k] = -p[k];
			r->rhs[rank] = -r->rhs[rank];
		}
		for (i = 0; i < r->nr; i++) {
			q = &r->m[i * r->nc];
			if (i == rank || !(f = q[c]))
				continue;
			for (k = 0; k < r->nc; k++)
				q[k] -= f * p[k];
			r->rhs[i] -= f * r->rhs[rank];
		}
		piv[rank++] = c;
	}
	return rank;
}

/* The edges the reduced rows give alone; -EDOM for rows the counts contradict. */
static int residue_read(struct residue *r, size_t rank, const size_t *piv, bool *known, __u64 *vals,
			bool numeric)
{
	size_t i, k;

	for (i = 0; i < r->nr; i++) {
		for (k = 0; k < r->nc && (!r->m[i * r->nc + k] || (i < rank && k == piv[i])); k++)
			;
		if (k < r->nc)
			continue;
		if (i >= rank) {
			if (numeric && r->rhs[i])
				return -EDOM;
			continue;
		}
		if (numeric && r->rhs[i] < 0)
			return -EDOM;
		known[r->edge[piv[i]]] = true;
		if (numeric)
			vals[r->edge[piv[i]]] = (__u64)r->rhs[i];
	}
	return 0;
}

/* What peel() could not give, by solving the rest of the system whole. */
static int eliminate(const struct cfg *g, const __u64 *counts, bool *known, __u64 *vals, int *ed,
		     signed char *sign)
{
	struct residue r = {0};
	size_t *piv = malloc((g->ne + 1) * sizeof(*piv)), rank;
	int err = piv ? residue_build(g, counts, known, vals, ed, sign, &r) : -ENOMEM;

	if (!err) {
		rank = residue_reduce(&r, piv);
		err = residue_read(&r, rank, piv, known, vals, counts != NULL);
	}
	free(piv);
	free(r.col);
	free(r.edge);
	free(r.m);
	free(r.rhs);
	return err;
}

/* peel(), then eliminate() when edges are left, with work arrays of their own. */
static int solve(const struct cfg *g, const __u64 *counts, bool *known, __u64 *vals)
{
	int *ed = malloc(g->ne * sizeof(*ed));
	signed char *sign = malloc(g->ne);
	int ret = ed && sign ? peel(g, counts, known, vals, ed, sign) : -ENOMEM;
	size_t i;

	if (ret > 0)
		ret = eliminate(g, counts, known, vals, ed, sign);
	for (i = 0; ret >= 0 && i < g->ne; i++)
		ret += !known[i];
	free(ed);
	free(sign);
	return ret;
}

int cfg_edge_counts(const struct cfg *g, const __u64 *counts, __u64 *edges)
{
	bool *known = malloc(g->ne * sizeof(*known));
	size_t i;
	int ret;

	if (!known)
		return -ENOMEM;
	for (i = 0; i < g->ne; i++)
		known[i] = edges[i] != CFG_UNKNOWN;
	ret = solve(g, counts, known, edges);
	for (i = 0; ret >= 0 && i < g->ne; i++) {
		if (!known[i])
			edges[i] = CFG_UNKNOWN;
	}
	free(known);
	return ret;
}

int cfg_loop_trips(const struct cfg *g, int l, const __u64 *counts, const __u64 *edges,
		   __u64 *entries, __u64 *iterations)
{
	const struct cfg_loop *loop = &g->loops[l];
	const struct cfg_block *h = &g->b[loop->head];
	int i, e;

	if (loop->irreducible)
		return -EDOM;
	*entries = 0;
	for (i = 0; i < h->npred; i++) {
		e = g->in[h->in_first + i];
		if (g->e[e].from >= 0 && in_body(loop, g->e[e].from))
			continue;
		if (edges[e] == CFG_UNKNOWN)
			return -ENODATA;
		*entries += edges[e];
	}
	*iterations = counts[loop->head];
	return 0;
}

static bool edge_doomed(const struct cfg *g, const struct cfg_edge *e)
{
	if (e->to >= 0)
		return g->b[e->to].doomed;
	return e->kind == CFG_EDGE_TRAP || e->kind == CFG_EDGE_NORETURN;
}

/* The blocks whose every way on is doomed, from the traps back: a cycle that never leaves is not.
 */
static void find_doomed(struct cfg *g)
{
	bool changed = true, all;
	size_t i;
	int k;

	while (changed) {
		changed = false;
		for (i = g->nb; i-- > 0;) {
			for (k = 0, all = !g->b[i].doomed; all && k < g->b[i].nsucc; k++)
				all = edge_doomed(g, &g->e[g->b[i].edge[k]]);
			if (all)
				g->b[i].doomed = changed = true;
		}
	}
}

int cfg_analyse(struct cfg *g, char *why, size_t wlen)
{
	int *order = malloc(g->nb * sizeof(*order)), *num = malloc(g->nb * sizeof(*num));
	bool *mark = malloc(g->nb * sizeof(*mark)), *known = calloc(g->ne, sizeof(*known));
	size_t cap = 0, i;
	int err = order && num && mark && known ? rpo(g, order, num) : -ENOMEM;

	if (!err) {
		dominators(g, order, num);
		find_doomed(g);
		err = natural_loops(g, num, mark, &cap) ?: irreducible_loops(g, num, mark, &cap)
								   ?: nest_loops(g);
	}
	if (!err)
		err = solve(g, NULL, known, NULL);
	for (i = 0; err >= 0 && i < g->ne; i++)
		g->e[i].derivable = known[i];
	free(order);
	free(num);
	free(mark);
	free(known);
	if (err < 0)
		snprintf(why, wlen, "out of memory");
	return err < 0 ? err : 0;
}
