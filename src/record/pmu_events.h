/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * Event names for record --count and -e, as perf spells them: the generic
 * hardware events (cycles, instructions, ...), the hardware cache events
 * (L1-dcache-load-misses, LLC-loads, dTLB-load-misses, ...), the software
 * ones (task-clock, page-faults, context-switches, ...), a PMU's own terms
 * from sysfs (cpu/event=0x3c,umask=0/, placed by the PMU's format files)
 * and its events/ folder (cpu/NAME/, or NAME alone for cpu's).  libpfm4 is
 * not used: perf's names and sysfs cover what a user of perf types.  Each
 * event is probed on CPU 0 before anything is recorded, and a refusal is one
 * line naming the event and why.
 */
#ifndef KP_PMU_EVENTS_H
#define KP_PMU_EVENTS_H

#include <stdbool.h>
#include <stddef.h>
#include <linux/types.h>

struct perf_event_attr;

#define PMU_EVENT_NAME_MAX 256

struct pmu_event {
	char name[PMU_EVENT_NAME_MAX +
		  1]; /* as given, an alias normalised (cs: context-switches) */
	__u32 type;
	__u64 config, config1, config2;
	bool needs_cpu_pmu; /* a hardware, cache or cpu/.../ event */
};

/* The PMUs' folder: $KP_SYSFS_EVENT_SOURCE, else /sys/bus/event_source/devices. */
const char *pmu_events_root(void);

/*
 * One event name into ev; 0, or -EINVAL with why the line after
 * "kprotperf record: " ("OPT NAME: no such event (the closest ...)").
 */
int pmu_event_parse(const char *name, const char *opt, struct pmu_event *ev, char *why, size_t len);
/*
 * A comma-separated list (a comma inside PMU/.../ is the PMU's) appended to
 * the *n events of evs, at most max in all: 0 or -EINVAL with why.
 */
int pmu_event_list(const char *list, const char *opt, struct pmu_event *evs, unsigned int *n,
		   unsigned int max, char *why, size_t len);

/* attr set up to count ev (disabled: 0, no sampling). */
void pmu_event_attr(const struct pmu_event *ev, struct perf_event_attr *attr);

/*
 * Whether ev can be counted here: refused without a cpu PMU when it needs
 * one, else opened on CPU 0 (as the recording would) and closed.  0, or a
 * negative errno with the refusal's line in why.
 */
int pmu_event_probe(const struct pmu_event *ev, const char *opt, char *why, size_t len);
/*
 * The refusal line of perf_event_open's err (a negative errno) for ev;
 * paranoid: /proc/sys/kernel/perf_event_paranoid's value (for EACCES and EPERM).
 */
void pmu_event_refusal(const struct pmu_event *ev, const char *opt, int err, int paranoid,
		       char *why, size_t len);
/* The no-PMU refusal line for ev (needs_cpu_pmu) when the root has no cpu PMU, else "". */
bool pmu_event_no_pmu(const struct pmu_event *ev, const char *opt, char *why, size_t len);

#endif
