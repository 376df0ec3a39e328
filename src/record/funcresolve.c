// SPDX-License-Identifier: GPL-2.0-only
/*
 * --func patterns resolved: symbols first, then the DWARF for plain names
 * without one; what matches neither is absent on this kernel (a function
 * compiled out of it), which record notes and goes on, unless nothing
 * matches at all or --strict asks it to refuse.
 */
#include "record/funcresolve.h"

#include <errno.h>
#include <stdio.h>
#include <string.h>

#include "record/funcmatch.h"
#include "record/inline_probes.h"

static const char inlined_hint[] =
	"; a function inlined into all its callers has no symbol: with the kernel's debug info "
	"(--vmlinux, or linux-image-RELEASE-dbg) kprotperf probes its inline instances";

/*
 * Whether err, from looking bad up as an inlined-only function, says no more
 * than that the kernel has no such function; the vmlinux's own trouble (no
 * DWARF in the one given, not an ELF file, another build) is not that.
 */
static bool no_such(int err, const char *vmlinux)
{
	if (vmlinux && (err == -ENODATA || err == -ENOEXEC))
		return false;
	return err != -ESTALE && err != -ENOMEM;
}

/* The vmlinux could not tell whether bad is inlined: why. */
static void dwarf_trouble(const char *bad, const char *vmlinux, int err, const char *path,
			  char *why, size_t len)
{
	if (err == -ESTALE)
		snprintf(why, len,
			 "%.200s is the vmlinux of another kernel build (its build-id "
			 "differs from the running kernel's)",
			 path);
	else if (err == -ENOMEM)
		snprintf(why, len, "%s", strerror(ENOMEM));
	else
		snprintf(why, len,
			 "--vmlinux %.200s: %s, so kprotperf cannot tell whether %s is "
			 "inlined",
			 vmlinux, err == -ENODATA ? "no DWARF debug info in it" : "not an ELF file",
			 bad);
}

/* "'bad' (closest: a, b, c)" appended at why + off; the new offset (>= len: full). */
static size_t with_closest(const struct ksyms *ks, const char *bad, char *why, size_t len,
			   size_t off)
{
	char best[3][64], name[64];
	int n, i;

	/* suggest from the literal part of a glob */
	snprintf(name, sizeof(name), "%.*s", (int)strcspn(bad, "*?["), bad);
	n = func_closest(ks, name, best, 3);
	if (off < len)
		off += snprintf(why + off, len - off, "'%s'", bad);
	for (i = 0; i < n && off < len; i++)
		off += snprintf(why + off, len - off, "%s%s", i ? ", " : " (closest: ", best[i]);
	if (n && off < len)
		off += snprintf(why + off, len - off, ")");
	return off;
}

/* "no kernel function matches 'a' (closest: ...) or 'b' ...", with the hint without DWARF. */
static size_t no_match(const struct ksyms *ks, const char *const *bad, size_t n, bool dwarf,
		       char *why, size_t len)
{
	size_t off = snprintf(why, len, "no kernel function matches "), i;

	for (i = 0; i < n && off < len; i++) {
		if (i)
			off += snprintf(why + off, len - off, " or ");
		off = with_closest(ks, bad[i], why, len, off);
	}
	if (!dwarf && off < len)
		off += snprintf(why + off, len - off, "%s", inlined_hint);
	return off;
}

static void add_absent(struct func_resolved *r, const char *pattern)
{
	size_t i;

	/* --func x --func x: once */
	for (i = 0; i < r->nabsent; i++)
		if (!strcmp(r->absent[i], pattern))
			return;
	r->absent[r->nabsent++] = pattern;
}

/* The patterns without bad; the untried ones first, so the next try scans only those first. */
static int drop(char **pat, int n, const char *bad)
{
	char *next[KP_MAX_FUNCS];
	int i;

	for (i = 0; pat[i] != bad; i++)
		;
	memcpy(next, &pat[i + 1], (n - i - 1) * sizeof(*pat));
	memcpy(&next[n - i - 1], pat, i * sizeof(*pat));
	memcpy(pat, next, --n * sizeof(*pat));
	return n;
}

/*
 * func_match() stops at the first pattern matching nothing, every one before
 * it matched: the untried ones go first in the next try, so a try that fails
 * scans kallsyms only for patterns not tried before, and none is scanned for
 * more than twice (without inlined names, once).  *dwarf: a DWARF was found.
 */
static int resolve(struct func_resolved *r, const struct ksyms *ks, char **pat, int n,
		   const char *vmlinux, bool strict, bool *dwarf, char *why, size_t len)
{
	char path[4096] = "";
	const char *bad = NULL;
	int err;

	for (;;) {
		err = n ? func_match(ks, pat, n, &r->t, &r->n, &bad) : 0;
		if (err != -ENOENT)
			return err;
		err = bad[strcspn(bad, "*?[")]
			      ? -ENOENT
			      : inline_probes_add(&r->inl, bad, vmlinux, ks, path, sizeof(path));
		*dwarf = r->inl != NULL;
		if (err && !no_such(err, vmlinux)) {
			dwarf_trouble(bad, vmlinux, err, path, why, len);
			return err == -ENOMEM ? err : -ENOENT;
		}
		if (err && strict) {
			no_match(ks, &bad, 1, *dwarf, why, len);
			return -ENOENT;
		}
		if (err)
			add_absent(r, bad);
		n = drop(pat, n, bad);
	}
}

int func_resolve(struct func_resolved *r, const struct ksyms *ks, char *const *patterns, int n,
		 const char *vmlinux, bool strict, char *warn, size_t wlen, char *why, size_t len)
{
	char *pat[KP_MAX_FUNCS];
	bool dwarf = false;
	size_t off;
	int err;

	*r = (struct func_resolved){};
	if (wlen)
		*warn = '\0';
	memcpy(pat, patterns, n * sizeof(*pat));
	err = resolve(r, ks, pat, n, vmlinux, strict, &dwarf, why, len);
	/* a DWARF searched in vain holds no instance to probe */
	if (!inline_probes_count(r->inl)) {
		inline_probes_free(r->inl);
		r->inl = NULL;
	}
	if (!err && !r->n && !r->inl && r->nabsent) {
		no_match(ks, r->absent, r->nabsent, dwarf, why, len);
		err = -ENOENT;
	}
	if (err) {
		func_resolved_free(r);
		return err;
	}
	if (!r->nabsent || !wlen)
		return 0;
	off = snprintf(warn, wlen, "warning: ");
	off += no_match(ks, r->absent, r->nabsent, true, warn + off, off < wlen ? wlen - off : 0);
	if (off < wlen)
		off += snprintf(warn + off, wlen - off,
				": %s as absent on this kernel, the rest is probed (--strict"
				" refuses instead)",
				r->nabsent == 1 ? "it is recorded" : "they are recorded");
	if (!dwarf && off < wlen)
		snprintf(warn + off, wlen - off, "%s", inlined_hint);
	return 0;
}

void func_resolved_free(struct func_resolved *r)
{
	func_targets_free(r->t, r->n);
	inline_probes_free(r->inl);
	*r = (struct func_resolved){};
}
