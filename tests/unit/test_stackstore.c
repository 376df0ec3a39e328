// SPDX-License-Identifier: GPL-2.0-only
/*
 * The store of samples and stacks, fed ring records as the BPF side sends
 * them: stacks kept once by their frames and named by the BPF side's hash,
 * samples counted by their whole key, and every record that makes no sense
 * counted, never trusted.
 */
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "record/stackstore.h"

/* bpf/common.bpf.h's FNV-1a: the hash the BPF side names a stack by */
static __u64 fnv(const __u64 *ips, __u32 nr)
{
	__u64 h = 0xcbf29ce484222325ULL;
	__u32 i;

	for (i = 0; i < nr; i++)
		h = (h ^ ips[i]) * 0x100000001b3ULL;
	return h ?: 1;
}

static __u64 send_stack(struct stackstore *s, const __u64 *ips, __u32 nr)
{
	struct kp_rec_stack r = {.type = KP_REC_STACK, .nr = nr, .hash = fnv(ips, nr)};

	memcpy(r.ips, ips, nr * sizeof(*ips));
	assert_int_equal(stackstore_record(s, &r, offsetof(struct kp_rec_stack, ips) + nr * 8), 0);
	return r.hash;
}

static void send_sample(struct stackstore *s, __u32 pid, __u64 kstack, __u64 ustack, __u32 flags)
{
	struct kp_rec_sample r = {.type = KP_REC_SAMPLE,
				  .tgid = pid,
				  .pid = pid,
				  .flags = flags,
				  .kstack = kstack,
				  .ustack = ustack,
				  .comm = "w"};

	assert_int_equal(stackstore_record(s, &r, sizeof(r)), 0);
}

static int cmp_key(const void *a, const void *b)
{
	return memcmp(a, b, sizeof(struct kp_sample_key));
}

static void test_stacks_once_samples_counted(void **state)
{
	static const __u64 k[] = {0xffffffff81000010, 0xffffffff81000020}, u[] = {0x401000};
	struct kp_sample_key *keys;
	struct stackstore *s;
	__u64 hk, hu, *counts;
	const __u64 *f;
	__u32 nr;
	size_t n;

	assert_int_equal(stackstore_new(&s, NULL, NULL), 0);
	hk = send_stack(s, k, 2);
	hu = send_stack(s, u, 1);
	/* sent again after the kernel forgot it: kept once */
	assert_int_equal(send_stack(s, k, 2), hk);
	assert_int_equal(stackstore_id(s, hk), 0);
	assert_int_equal(stackstore_id(s, hu), 1);
	f = stackstore_frames(s, 0, &nr);
	assert_non_null(f);
	assert_int_equal(nr, 2);
	assert_memory_equal(f, k, sizeof(k));
	assert_int_equal(stackstore_intern(s, u, 1), 1);
	send_sample(s, 7, hk, hu, 0);
	send_sample(s, 7, hk, hu, 0);
	send_sample(s, 7, 0, hu, 0);
	send_sample(s, 8, 0, 0, KP_SAMPLE_KSTACK_LOST | KP_SAMPLE_USTACK_LOST);
	assert_int_equal(stackstore_samples(s, &keys, &counts, &n), 0);
	assert_int_equal(n, 3);
	/* whole keys compared, so sort them with their counts alongside */
	for (size_t i = 0; i < n; i++)
		memcpy(keys[i].comm + 8, &counts[i], sizeof(counts[i]));
	qsort(keys, n, sizeof(*keys), cmp_key);
	assert_int_equal(keys[0].pid, 7);
	assert_int_equal(keys[0].kstack, 0);
	assert_int_equal(keys[0].ustack, 1);
	assert_int_equal(keys[0].comm[8], 2);
	assert_int_equal(keys[1].kstack, KP_NO_KSTACK);
	assert_int_equal(keys[1].comm[8], 1);
	assert_int_equal(keys[2].pid, 8);
	assert_int_equal(keys[2].kstack, -ENODATA);
	assert_int_equal(keys[2].ustack, -ENODATA);
	assert_int_equal(stackstore_bad(s), 0);
	free(keys);
	free(counts);
	stackstore_free(s);
}

/* record -e: each key's weight is the sum of its samples' periods. */
static void test_weights(void **state)
{
	static const __u64 u[] = {0x401000};
	struct kp_rec_sample r = {.type = KP_REC_SAMPLE, .tgid = 5, .pid = 6, .comm = "w"};
	struct kp_sample_key *keys;
	struct stackstore *s;
	__u64 *counts, *weights;
	size_t n;

	assert_int_equal(stackstore_new(&s, NULL, NULL), 0);
	r.ustack = send_stack(s, u, 1);
	r.period = 1000;
	assert_int_equal(stackstore_record(s, &r, sizeof(r)), 0);
	r.period = 2500;
	assert_int_equal(stackstore_record(s, &r, sizeof(r)), 0);
	assert_int_equal(stackstore_weighed(s, &keys, &counts, &weights, &n), 0);
	assert_int_equal(n, 1);
	assert_int_equal(keys[0].ustack, 0);
	assert_int_equal(counts[0], 2);
	assert_int_equal(weights[0], 3500);
	free(weights);
	free(counts);
	free(keys);
	stackstore_free(s);
}

/* Garbage from the ring is counted and dropped; nothing reads past a record. */
static void test_bad_records(void **state)
{
	struct kp_rec_stack st = {.type = KP_REC_STACK, .nr = KP_STACK_DEPTH + 1};
	struct kp_rec_dwarf *d = calloc(1, sizeof(*d));
	struct stackstore *s;
	__u32 junk = 99;
	const __u64 *f;
	__u32 nr;

	assert_non_null(d);
	assert_int_equal(stackstore_new(&s, NULL, NULL), 0);
	assert_int_equal(stackstore_record(s, &junk, sizeof(junk)), 0);
	assert_int_equal(stackstore_record(s, &junk, 2), 0);
	/* more frames than a stack holds, or than the record carries */
	assert_int_equal(stackstore_record(s, &st, sizeof(st)), 0);
	st.nr = 4;
	assert_int_equal(stackstore_record(s, &st, offsetof(struct kp_rec_stack, ips) + 8), 0);
	/* a sample naming a stack never sent */
	send_sample(s, 1, 0x1234, 0, KP_SAMPLE_USTACK_LOST);
	/* a dwarf sample without an unwinder (record --call-graph fp) */
	d->type = KP_REC_DWARF;
	assert_int_equal(stackstore_record(s, d, offsetof(struct kp_rec_dwarf, stack)), 0);
	assert_int_equal(stackstore_bad(s), 6);
	assert_null(stackstore_frames(s, 0, &nr));
	assert_null(stackstore_frames(s, -1, &nr));
	f = stackstore_frames(s, 0, &nr);
	assert_null(f);
	stackstore_free(s);
	free(d);
}

/* Tables grow: many distinct stacks and keys, each found again. */
static void test_growth(void **state)
{
	struct kp_sample_key *keys;
	struct stackstore *s;
	__u64 ips[3], *counts, h[5000];
	size_t n, i;

	assert_int_equal(stackstore_new(&s, NULL, NULL), 0);
	for (i = 0; i < 5000; i++) {
		ips[0] = i;
		ips[1] = i * 7;
		ips[2] = 42;
		h[i] = send_stack(s, ips, 1 + i % 3);
	}
	for (i = 0; i < 5000; i++) {
		assert_int_equal(stackstore_id(s, h[i]), i);
		send_sample(s, i % 100, 0, h[i], 0);
	}
	assert_int_equal(stackstore_samples(s, &keys, &counts, &n), 0);
	assert_int_equal(n, 5000);
	for (i = 0; i < n; i++)
		assert_int_equal(counts[i], 1);
	assert_int_equal(stackstore_bad(s), 0);
	free(keys);
	free(counts);
	stackstore_free(s);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_stacks_once_samples_counted),
		cmocka_unit_test(test_weights),
		cmocka_unit_test(test_bad_records),
		cmocka_unit_test(test_growth),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
