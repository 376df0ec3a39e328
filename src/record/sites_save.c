// SPDX-License-Identifier: GPL-2.0-only
/* The sites of the code a recording ran (sites_save.h). */
#include "record/sites_save.h"

#include <errno.h>
#include <string.h>

#include "data/protect.h"
#include "features/inventory.h"
#include "util/kv.h"

struct scan {
	struct inventory *inv;
	struct datafile *df;
	const struct inventory_func *last;
	int err;
};

static void put_site(void *arg, __u64 addr, __u32 len, enum sites_kind kind)
{
	struct scan *s = arg;

	/* a run of xors longer than any compiler emits is cut: the file holds at most that */
	if (!s->err)
		s->err = protect_put_site(s->df, addr,
					  len < PROTECT_SITE_MAX ? len : PROTECT_SITE_MAX,
					  sites_kind_name(kind));
}

/* Addresses come in order: a function's come together. */
static int scan_addr(__u64 addr, void *ctx)
{
	struct scan *s = ctx;
	const struct inventory_func *f = inventory_func_at(s->inv, addr);

	if (!f || f == s->last)
		return 0;
	s->last = f;
	inventory_sites(s->inv, f, put_site, s);
	return s->err ?: protect_put_func(s->df, f->addr, f->name, f->size);
}

int sites_save(struct datafile *df, struct kv_list *meta, struct ksyms *ks)
{
	struct scan s = {.df = df};
	char why[4352];
	int err = inventory_open(NULL, ks, &s.inv, why, sizeof(why));

	if (err == -ENOMEM)
		return err;
	/* inventory's why advises features --vmlinux, which record has not */
	if (err)
		return kv_add(meta, "protect.source",
			      "none: the running kernel's text cannot be read (/proc/kallsyms,"
			      " /proc/kcore): %s",
			      strerror(-err));
	err = protect_code_addrs(df, scan_addr, &s);
	inventory_free(s.inv);
	return err ?: kv_add(meta, "protect.source", "%s", "/proc/kcore");
}
