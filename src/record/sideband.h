/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * Perf side-band records (mmap/mmap2/comm/fork/exit) of a process tree or of
 * the whole system, read from one dummy event ring per CPU and handed over
 * in time order across the rings.
 */
#ifndef KP_SIDEBAND_H
#define KP_SIDEBAND_H

#include <stdbool.h>
#include <sys/types.h>
#include <linux/perf_event.h>
#include <linux/types.h>

struct sideband;

/*
 * Called with each record, whole even when it wrapped the ring end, and its
 * time stamp (which also ends the record: sample_id_all); nonzero stops the
 * drain and leaves the record for the next one.
 */
typedef int (*sideband_fn)(const struct perf_event_header *h, __u64 time, void *ctx);

int sideband_new(struct sideband **out);
void sideband_free(struct sideband *sb);
/*
 * Records of pid and every process it starts from now on, through an
 * inherited event, which each fork copies (pid -1: the whole system, one
 * event per CPU that a fork does not copy).
 */
int sideband_follow(struct sideband *sb, pid_t pid);
/* An fd to poll: readable when records are waiting. */
int sideband_fd(const struct sideband *sb);
/* Hands the waiting records to fn, oldest first; returns how many, or -errno. */
int sideband_drain(struct sideband *sb, sideband_fn fn, void *ctx);
/* Records the kernel dropped (ring full); never handed to a sideband_fn. */
__u64 sideband_lost(const struct sideband *sb);
/* Now, on the clock the records are stamped with. */
__u64 sideband_now(void);

#endif
