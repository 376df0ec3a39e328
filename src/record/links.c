// SPDX-License-Identifier: GPL-2.0-only
/* The BPF links of --func and --blocks: kept, cut back and destroyed in one way. */
#include "record/links.h"

#include <errno.h>
#include <stdlib.h>
#include <unistd.h>
#include <string.h>
#include <bpf/bpf.h>
#include <bpf/btf.h>
#include <bpf/libbpf.h>

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

/* bpf_link_info as Linux 6.7 has it, past what the uapi headers here know */
#define LINK_INFO_SIZE		 88
#define PERF_EVENT_KPROBE_MISSED 48 /* perf_event.kprobe.missed */
#define KPROBE_MULTI_MISSED	 32 /* kprobe_multi.missed */
#define PERF_EVENT_TYPE		 16 /* perf_event.type */
#define PERF_EVENT_KPROBE	 3  /* BPF_PERF_EVENT_KPROBE, then KRETPROBE */

/* The type of struct or union id's member name, looked for through anonymous ones; -1 none. */
static int member(const struct btf *btf, int id, const char *name)
{
	const struct btf_type *t = btf__type_by_id(btf, btf__resolve_type(btf, id));
	const struct btf_member *m;
	const char *n;
	int i, found;

	if (!t || !btf_is_composite(t))
		return -1;
	for (i = 0, m = btf_members(t); i < btf_vlen(t); i++, m++) {
		n = btf__name_by_offset(btf, m->name_off);
		if (n && !strcmp(n, name))
			return m->type;
		found = n && *n ? -1 : member(btf, m->type, name);
		if (found >= 0)
			return found;
	}
	return -1;
}

/* Whether the running kernel's bpf_link_info has perf_event.kprobe.missed. */
static bool kernel_says_missed(void)
{
	struct btf *btf = btf__load_vmlinux_btf();
	int id = btf ? btf__find_by_name_kind(btf, "bpf_link_info", BTF_KIND_STRUCT) : -1;

	id = id >= 0 ? member(btf, id, "perf_event") : -1;
	id = id >= 0 ? member(btf, id, "kprobe") : -1;
	id = id >= 0 ? member(btf, id, "missed") : -1;
	btf__free(btf);
	return id >= 0;
}

static __u64 u64_at(const __u8 *p, size_t off)
{
	__u64 v;

	memcpy(&v, p + off, sizeof(v));
	return v;
}

int links_kprobe_missed(const struct links *ls, unsigned long long *missed)
{
	__u8 info[LINK_INFO_SIZE];
	__u32 len, type, ev;
	size_t i;

	if (!kernel_says_missed())
		return -EOPNOTSUPP;
	*missed = 0;
	for (i = 0; i < ls->n; i++) {
		memset(info, 0, sizeof(info));
		len = sizeof(info);
		if (bpf_obj_get_info_by_fd(bpf_link__fd(ls->v[i]), info, &len))
			continue;
		memcpy(&type, info, sizeof(type));
		memcpy(&ev, info + PERF_EVENT_TYPE, sizeof(ev));
		if (type == BPF_LINK_TYPE_KPROBE_MULTI)
			*missed += u64_at(info, KPROBE_MULTI_MISSED);
		else if (type == BPF_LINK_TYPE_PERF_EVENT &&
			 (ev == PERF_EVENT_KPROBE || ev == PERF_EVENT_KPROBE + 1))
			*missed += u64_at(info, PERF_EVENT_KPROBE_MISSED);
	}
	return 0;
}
