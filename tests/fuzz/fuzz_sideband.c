// SPDX-License-Identifier: GPL-2.0-only
/*
 * Perf side-band records (mmap, mmap2, comm, fork, exit) as the kernel's
 * rings hand them to record/procs.c: the input is a run of records, each
 * cut at its header's size (the time stamp in its last 8 bytes, as with
 * sample_id_all), fed one by one; then the processes and mappings taken
 * from them are listed as record saves them.  Resolving addresses is left
 * out: it opens the mapped files, which fuzzed paths could name anything.
 */
#include <stdint.h>
#include <string.h>
#include <linux/perf_event.h>

#include "fuzz.h"
#include "record/procs.h"

int LLVMFuzzerInitialize(int *argc, char ***argv)
{
	fuzz_init();
	return 0;
}

static int task(const struct proc_task *t, void *ctx)
{
	*(size_t *)ctx += strnlen(t->comm, sizeof(t->comm));
	return 0;
}

static int map(const struct proc_map *m, void *ctx)
{
	*(size_t *)ctx += strlen(m->path) + strlen(m->build_id);
	return 0;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct perf_event_header h;
	struct procs *p;
	size_t off = 0, n = 0;
	__u64 time;
	void *rec;

	if (procs_new(&p))
		abort();
	while (size - off >= sizeof(h)) {
		memcpy(&h, data + off, sizeof(h));
		if (h.size < sizeof(h) || h.size > size - off)
			break;
		/* a copy of its own, aligned, so that ASan sees any read past its end */
		rec = malloc(h.size);
		if (!rec)
			abort();
		memcpy(rec, data + off, h.size);
		time = 0;
		if (h.size >= sizeof(h) + sizeof(time))
			memcpy(&time, data + off + h.size - sizeof(time), sizeof(time));
		procs_record(p, rec, time);
		free(rec);
		off += h.size;
	}
	procs_for_each_task(p, task, &n);
	procs_for_each_map(p, map, &n);
	procs_free(p);
	return n == (size_t)-1;
}
