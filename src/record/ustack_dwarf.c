// SPDX-License-Identifier: GPL-2.0-only
/*
 * record --call-graph dwarf: a sample's user registers and stack bytes,
 * unwound at once with unwind.c over the process's mappings as the
 * side-band records left them.  One sample that cannot be unwound is
 * counted and never stops the recording.
 */
#include "record/ustack_dwarf.h"

#include <errno.h>
#include <stdlib.h>

#include "record/procs.h"
#include "record/unwind.h"

struct ustack_dwarf {
	struct procs *procs;
	struct unwinder *unw;
	__u64 truncated, failed;
};

struct space {
	struct procs *procs;
	pid_t tgid;
	bool drained;
};

static int find_map(void *ctx, __u64 ip, struct unw_map *out)
{
	struct space *sp = ctx;
	struct proc_map m;
	int err = procs_map_at(sp->procs, sp->tgid, ip, &m);

	/* mapped since the ring's drain began: its side-band record may be waiting */
	if (err == -ENOENT && !sp->drained) {
		sp->drained = true;
		if (procs_drain(sp->procs) > 0)
			err = procs_map_at(sp->procs, sp->tgid, ip, &m);
	}
	if (err)
		return err;
	*out = (struct unw_map){m.start, m.end, m.pgoff, m.path};
	return 0;
}

int ustack_dwarf_new(struct ustack_dwarf **out, struct procs *procs)
{
	struct ustack_dwarf *d = calloc(1, sizeof(*d));
	int err;

	if (!d)
		return -ENOMEM;
	err = unwinder_new(&d->unw);
	if (err) {
		free(d);
		return err;
	}
	d->procs = procs;
	*out = d;
	return 0;
}

void ustack_dwarf_free(struct ustack_dwarf *d)
{
	if (!d)
		return;
	unwinder_free(d->unw);
	free(d);
}

int ustack_dwarf_unwind(struct ustack_dwarf *d, const struct kp_rec_dwarf *r, __u64 *ips, int max)
{
	struct space sp = {d->procs, r->tgid, false};
	__u64 space = procs_space(d->procs, r->tgid);
	bool trunc = false;
	int n;

	_Static_assert(KP_UREGS == UNW_REGS, "the BPF side copies the registers unwind.c reads");
	if (max < 2)
		return 0;
	/* forked since the ring's drain began: its side-band record may be waiting */
	if (!space && procs_drain(d->procs) > 0)
		space = procs_space(d->procs, r->tgid);
	n = r->regs[UNW_REG_IP] && space ? unwind_user(d->unw, space, find_map, &sp, r->regs,
						       r->stack, r->size, ips, max - 1, &trunc)
					 : 0;
	if (n <= 0) {
		d->failed++;
		return 0;
	}
	if (trunc) {
		d->truncated++;
		ips[n++] = KP_IP_TRUNCATED;
	}
	return n;
}

__u64 ustack_dwarf_truncated(const struct ustack_dwarf *d)
{
	return d->truncated;
}

__u64 ustack_dwarf_failed(const struct ustack_dwarf *d)
{
	return d->failed;
}
