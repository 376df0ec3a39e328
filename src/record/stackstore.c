// SPDX-License-Identifier: GPL-2.0-only
/*
 * Samples and stacks from the BPF ring buffer.  Two open-addressing tables
 * that grow: stacks by the hash of their frames (the same FNV-1a the BPF
 * side names them by), samples by their whole key.
 */
#include "record/stackstore.h"

#include <errno.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <bpf/libbpf.h>

#include "record/ustack_dwarf.h"
#include "util/array.h"

struct stack {
	__u64 hash;
	size_t off; /* into stackstore.ips */
	__u32 nr;
};

struct sample {
	struct kp_sample_key key;
	__u64 count;  /* 0: free slot */
	__u64 weight; /* the sum of its samples' periods */
};

struct stackstore {
	struct ring_buffer *rb;
	struct ustack_dwarf *dwarf; /* --call-graph dwarf, else NULL */
	struct stack *stacks;	    /* by id */
	size_t nstacks, stacks_cap;
	__u64 *ips;
	size_t nips, ips_cap;
	__s32 *index; /* id + 1 by hash, 0: free; a power of two, at most half full */
	size_t index_cap;
	struct sample *samples; /* a power of two, at most half full */
	size_t nsamples, samples_cap;
	__u64 bad;
};

/* bpf/common.bpf.h's stack_hash(), which names the stacks the BPF side sends */
static __u64 frames_hash(const __u64 *ips, __u32 nr)
{
	__u64 h = 0xcbf29ce484222325ULL;
	__u32 i;

	for (i = 0; i < nr; i++)
		h = (h ^ ips[i]) * 0x100000001b3ULL;
	return h ?: 1;
}

static size_t mix(__u64 h, size_t cap)
{
	return (h * 0x9E3779B97F4A7C15ULL >> 32) & (cap - 1);
}

static int index_grow(struct stackstore *s)
{
	size_t cap = s->index_cap ? 2 * s->index_cap : 1024, i, j;
	__s32 *t = calloc(cap, sizeof(*t));

	if (!t)
		return -ENOMEM;
	for (i = 0; i < s->nstacks; i++) {
		for (j = mix(s->stacks[i].hash, cap); t[j]; j = (j + 1) & (cap - 1))
			;
		t[j] = i + 1;
	}
	free(s->index);
	s->index = t;
	s->index_cap = cap;
	return 0;
}

static bool same_frames(const struct stackstore *s, const struct stack *st, const __u64 *ips,
			__u32 nr)
{
	return st->nr == nr && !memcmp(s->ips + st->off, ips, nr * sizeof(*ips));
}

__s32 stackstore_intern(struct stackstore *s, const __u64 *ips, __u32 nr)
{
	__u64 h = frames_hash(ips, nr);
	struct stack *st;
	size_t j;

	if (2 * (s->nstacks + 1) > s->index_cap && index_grow(s))
		return -ENOMEM;
	for (j = mix(h, s->index_cap); s->index[j]; j = (j + 1) & (s->index_cap - 1)) {
		st = &s->stacks[s->index[j] - 1];
		if (st->hash == h && same_frames(s, st, ips, nr))
			return s->index[j] - 1;
	}
	if (s->nstacks >= INT32_MAX - 1 ||
	    array_reserve((void **)&s->stacks, &s->stacks_cap, s->nstacks + 1,
			  sizeof(*s->stacks)) ||
	    array_reserve((void **)&s->ips, &s->ips_cap, s->nips + nr + 1, sizeof(*s->ips)))
		return -ENOMEM;
	memcpy(s->ips + s->nips, ips, nr * sizeof(*ips));
	s->stacks[s->nstacks] = (struct stack){h, s->nips, nr};
	s->nips += nr;
	s->index[j] = ++s->nstacks;
	return s->nstacks - 1;
}

__s32 stackstore_id(const struct stackstore *s, __u64 hash)
{
	size_t j;

	if (!s->index_cap)
		return -ENOENT;
	for (j = mix(hash, s->index_cap); s->index[j]; j = (j + 1) & (s->index_cap - 1))
		if (s->stacks[s->index[j] - 1].hash == hash)
			return s->index[j] - 1;
	return -ENOENT;
}

const __u64 *stackstore_frames(const struct stackstore *s, __s32 id, __u32 *nr)
{
	if (id < 0 || (size_t)id >= s->nstacks)
		return NULL;
	*nr = s->stacks[id].nr;
	return s->ips + s->stacks[id].off;
}

static __u64 key_hash(const struct kp_sample_key *k)
{
	__u64 w[sizeof(*k) / sizeof(__u64)];

	_Static_assert(sizeof(*k) % sizeof(__u64) == 0, "the key hashes as whole words");
	memcpy(w, k, sizeof(w));
	return frames_hash(w, sizeof(w) / sizeof(w[0]));
}

static int samples_grow(struct stackstore *s)
{
	size_t cap = s->samples_cap ? 2 * s->samples_cap : 1024, i, j;
	struct sample *t = calloc(cap, sizeof(*t));

	if (!t)
		return -ENOMEM;
	for (i = 0; i < s->samples_cap; i++) {
		if (!s->samples[i].count)
			continue;
		for (j = mix(key_hash(&s->samples[i].key), cap); t[j].count;
		     j = (j + 1) & (cap - 1))
			;
		t[j] = s->samples[i];
	}
	free(s->samples);
	s->samples = t;
	s->samples_cap = cap;
	return 0;
}

static int count_sample(struct stackstore *s, const struct kp_sample_key *k, __u64 period)
{
	size_t j;

	if (2 * (s->nsamples + 1) > s->samples_cap && samples_grow(s))
		return -ENOMEM;
	for (j = mix(key_hash(k), s->samples_cap); s->samples[j].count;
	     j = (j + 1) & (s->samples_cap - 1)) {
		if (!memcmp(&s->samples[j].key, k, sizeof(*k))) {
			s->samples[j].count++;
			s->samples[j].weight += period;
			return 0;
		}
	}
	s->samples[j] = (struct sample){*k, 1, period};
	s->nsamples++;
	return 0;
}

/* A stack named by a sample: its id, or why there is none. */
static __s32 sample_stack(struct stackstore *s, __u64 hash, bool lost, __s32 none)
{
	__s32 id;

	if (!hash)
		return lost ? -ENODATA : none;
	id = stackstore_id(s, hash);
	if (id < 0)
		s->bad++;
	return id;
}

static int on_sample(struct stackstore *s, const struct kp_rec_sample *r)
{
	struct kp_sample_key k = {.tgid = r->tgid, .pid = r->pid};

	k.kstack = sample_stack(s, r->kstack, r->flags & KP_SAMPLE_KSTACK_LOST, KP_NO_KSTACK);
	k.ustack = sample_stack(s, r->ustack, true, -ENODATA);
	memcpy(k.comm, r->comm, sizeof(k.comm));
	return count_sample(s, &k, r->period);
}

static int on_stack(struct stackstore *s, const struct kp_rec_stack *r, size_t size)
{
	__s32 id;

	if (r->nr > KP_STACK_DEPTH || size < offsetof(struct kp_rec_stack, ips) + r->nr * 8) {
		s->bad++;
		return 0;
	}
	id = stackstore_intern(s, r->ips, r->nr);
	if (id >= 0 && s->stacks[id].hash != r->hash)
		s->bad++;
	return id < 0 ? id : 0;
}

/* A sample whose user stack is unwound here, from its registers and stack bytes. */
static int on_dwarf(struct stackstore *s, const struct kp_rec_dwarf *r, size_t size)
{
	struct kp_sample_key k = {.tgid = r->tgid, .pid = r->pid};
	__u64 ips[KP_STACK_DEPTH];
	int n = 0;

	if (!s->dwarf || r->size > KP_DWARF_STACK_MAX ||
	    size < offsetof(struct kp_rec_dwarf, stack) + r->size) {
		s->bad++;
		return 0;
	}
	k.kstack = sample_stack(s, r->kstack, r->flags & KP_SAMPLE_KSTACK_LOST, KP_NO_KSTACK);
	if (!(r->flags & KP_SAMPLE_USTACK_LOST))
		n = ustack_dwarf_unwind(s->dwarf, r, ips, KP_STACK_DEPTH);
	k.ustack = n > 0 ? stackstore_intern(s, ips, n) : -ENODATA;
	if (k.ustack == -ENOMEM)
		return -ENOMEM;
	memcpy(k.comm, r->comm, sizeof(k.comm));
	return count_sample(s, &k, r->period);
}

/* libbpf's ring buffer callback: a negative return stops the drain and is its result */
static int on_record(void *ctx, void *data, size_t size)
{
	return stackstore_record(ctx, data, size);
}

int stackstore_record(struct stackstore *s, const void *data, size_t size)
{
	__u32 type;

	if (size < sizeof(type)) {
		s->bad++;
		return 0;
	}
	memcpy(&type, data, sizeof(type));
	if (type == KP_REC_STACK && size >= offsetof(struct kp_rec_stack, ips))
		return on_stack(s, data, size);
	if (type == KP_REC_SAMPLE && size >= sizeof(struct kp_rec_sample))
		return on_sample(s, data);
	if (type == KP_REC_DWARF && size >= offsetof(struct kp_rec_dwarf, stack))
		return on_dwarf(s, data, size);
	s->bad++;
	return 0;
}

int stackstore_new(struct stackstore **out, const struct bpf_map *ring, struct ustack_dwarf *dwarf)
{
	struct stackstore *s = calloc(1, sizeof(*s));
	int err;

	if (!s)
		return -ENOMEM;
	s->dwarf = dwarf;
	s->rb = ring ? ring_buffer__new(bpf_map__fd(ring), on_record, s, NULL) : NULL;
	if (ring && !s->rb) {
		err = -errno;
		free(s);
		return err;
	}
	*out = s;
	return 0;
}

void stackstore_free(struct stackstore *s)
{
	if (!s)
		return;
	ring_buffer__free(s->rb);
	free(s->samples);
	free(s->index);
	free(s->ips);
	free(s->stacks);
	free(s);
}

int stackstore_fd(const struct stackstore *s)
{
	return s->rb ? ring_buffer__epoll_fd(s->rb) : -1;
}

int stackstore_drain(struct stackstore *s)
{
	return s->rb ? ring_buffer__consume(s->rb) : 0;
}

int stackstore_samples(const struct stackstore *s, struct kp_sample_key **keys, __u64 **counts,
		       size_t *n)
{
	return stackstore_weighed(s, keys, counts, NULL, n);
}

int stackstore_weighed(const struct stackstore *s, struct kp_sample_key **keys, __u64 **counts,
		       __u64 **weights, size_t *n)
{
	size_t i, m = 0;

	if (weights) {
		*weights = malloc((s->nsamples + 1) * sizeof(**weights));
		if (!*weights)
			return -ENOMEM;
	}
	*keys = malloc((s->nsamples + 1) * sizeof(**keys));
	*counts = malloc((s->nsamples + 1) * sizeof(**counts));
	if (!*keys || !*counts) {
		free(*keys);
		free(*counts);
		if (weights)
			free(*weights);
		*keys = NULL;
		*counts = NULL;
		return -ENOMEM;
	}
	for (i = 0; i < s->samples_cap; i++) {
		if (!s->samples[i].count)
			continue;
		if (weights)
			(*weights)[m] = s->samples[i].weight;
		(*keys)[m] = s->samples[i].key;
		(*counts)[m++] = s->samples[i].count;
	}
	*n = m;
	return 0;
}

__u64 stackstore_bad(const struct stackstore *s)
{
	return s->bad;
}
