// SPDX-License-Identifier: GPL-2.0-only
/* The BPF links of --func and --blocks: kept, cut back and destroyed in one way. */
#include <errno.h>
#include <stdlib.h>
#include <unistd.h>
#include <bpf/bpf.h>
#include <bpf/libbpf.h>

#include "record/links.h"
#include "util/array.h"

int links_add(struct links *ls, struct bpf_link *l)
{
	if (!l)
		return -errno;
	if (array_reserve((void **)&ls->v, &ls->cap, ls->n + 1, sizeof(*ls->v))) {
		bpf_link__destroy(l);
		return -ENOMEM;
	}
	ls->v[ls->n++] = l;
	return 0;
}

void links_cut(struct links *ls, size_t keep)
{
	while (ls->n > keep)
		bpf_link__destroy(ls->v[--ls->n]);
}

void links_free(struct links *ls)
{
	links_cut(ls, 0);
	free(ls->v);
	ls->v = NULL;
	ls->cap = 0;
}

unsigned long long links_recursion_misses(const struct bpf_object *obj)
{
	unsigned long long n = 0;
	struct bpf_program *p;

	bpf_object__for_each_program (p, obj) {
		struct bpf_prog_info info = {};
		__u32 len = sizeof(info);

		if (bpf_program__fd(p) >= 0 &&
		    !bpf_obj_get_info_by_fd(bpf_program__fd(p), &info, &len))
			n += info.recursion_misses;
	}
	return n;
}

bool links_kprobes_available(void)
{
	/* the kprobe PMU exists exactly when the kernel can create kprobes for BPF */
	return !access("/sys/bus/event_source/devices/kprobe/type", F_OK);
}
