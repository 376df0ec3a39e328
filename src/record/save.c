// SPDX-License-Identifier: GPL-2.0-only
/*
 * The data file at the end of a recording: provenance of the machine, the
 * counters, latencies and samples the BPF maps hold, the --func results,
 * the recording's own meta, and the processes and mappings it saw.
 */
#include "record/session.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <bpf/libbpf.h>

#include "data/recording.h"
#include "kprotperf.h"
#include "record.skel.h"
#include "record/blocks.h"
#include "record/collect.h"
#include "record/counting.h"
#include "record/funcs.h"
#include "record/procs.h"
#include "record/record.h"
#include "record/sites_save.h"
#include "record/stackstore.h"
#include "record/ustack_dwarf.h"
#include "symbols/ksyms.h"
#include "system/provenance.h"
#include "util/syscalls.h"

static const char *const end_names[] = {"exited", "interrupted", "duration"};

int save_command_line(struct kv_list *meta, char *const argv[])
{
	char *buf = NULL, *q;
	size_t len = 0;
	FILE *f = open_memstream(&buf, &len);
	int i, err;

	if (!f)
		return -errno;
	for (i = 0; argv[i]; i++) {
		if (i)
			fputc(' ', f);
		if (argv[i][strcspn(argv[i], " \t\n'\"\\$`*?;&|<>()")] || !argv[i][0]) {
			fputc('\'', f);
			for (q = argv[i]; *q; q++) {
				if (*q == '\'')
					fputs("'\\''", f);
				else
					fputc(*q, f);
			}
			fputc('\'', f);
		} else {
			fputs(argv[i], f);
		}
	}
	fclose(f);
	err = kv_add(meta, "record.command", "%s", buf);
	free(buf);
	return err;
}

static int record_meta(struct session *s, struct kv_list *meta, const struct ksyms *ks)
{
	const struct record_opts *o = s->o;
	const struct ksym *stext = ks ? ksyms_by_name(ks, "_stext") : NULL;
	char when[64];
	struct tm tm;
	int err;

	strftime(when, sizeof(when), "%Y-%m-%dT%H:%M:%SZ", gmtime_r(&s->t0.tv_sec, &tm));
	err = kv_add(meta, "tool.version", "%s", KPROTPERF_VERSION);
	err = err
		      ?: kv_add(meta, "record.mode", "%s",
				o->argv	     ? "command"
				: o->pid > 0 ? "pid"
					     : "system");
	err = err ?: kv_add(meta, "record.system_wide", "%d", o->system_wide);
	err = err ?: kv_add(meta, "record.start_time", "%s", when);
	err = err ?: kv_add(meta, "record.wall_ns", "%llu", (unsigned long long)s->wall_ns);
	err = err ?: kv_add(meta, "record.end", "%s", end_names[s->end]);
	err = err ?: kv_add(meta, "record.pid", "%d", s->target);
	err = err ?: kv_add(meta, "record.repeat", "%u", o->repeat);
	err = err ?: kv_add(meta, "record.syscalls", "%s", o->no_syscalls ? "off" : "traced");
	err = err ?: kv_add(meta, "sampling.event", "%s", o->sample_event.name);
	if (o->period)
		err = err ?: kv_add(meta, "sampling.period", "%llu", (unsigned long long)o->period);
	else
		err = err ?: kv_add(meta, "sampling.freq_hz", "%u", o->freq);
	err = err ?: kv_add(meta, "sampling.max_stacks", "%u", o->max_stacks);
	err = err ?: kv_add(meta, "sampling.ring_mib", "%u", o->ring_mib);
	if (o->dwarf_size)
		err = err ?: kv_add(meta, "sampling.call_graph", "dwarf,%u", o->dwarf_size);
	else
		err = err ?: kv_add(meta, "sampling.call_graph", "fp");
	if (!err && stext)
		err = kv_add(meta, "kernel.stext", "0x%llx", (unsigned long long)stext->addr);
	if (!err && s->blocks)
		err = kv_add(meta, "blocks.attach", "%s", blocks_attach_method(s->blocks));
	if (!err && o->argv) {
		err = save_command_line(meta, o->argv);
		err = err ?: kv_add(meta, "record.exit_code", "%d", workload_exit_code(s->status));
	}
	return err;
}

/* The processes and mappings procs saw, into the tasks and maps tables. */
static int put_task(const struct proc_task *t, void *df)
{
	return recording_put_task(df, t->pid, t->ppid, t->comm, t->exited);
}

static int put_map(const struct proc_map *m, void *df)
{
	return recording_put_map(df, m->pid, m->start, m->end, m->pgoff, m->path, m->build_id);
}

int save_procs(struct datafile *df, struct procs *procs)
{
	return procs_for_each_task(procs, put_task, df) ?: procs_for_each_map(procs, put_map, df);
}

int save_provenance(struct datafile *df)
{
	struct kv_list meta = {}, config = {}, vulns = {};
	int err;

	err = provenance_kernel(&meta);
	if (!err && provenance_config(&config, NULL) == -ENOENT)
		err = kv_add(&meta, "kernel.config", "unavailable");
	if (!err && provenance_vulns(&vulns, NULL) == -ENOENT)
		err = kv_add(&meta, "cpu.vulnerabilities", "unavailable");
	err = err ?: recording_put_meta(df, &meta);
	err = err ?: recording_put_config(df, &config);
	err = err ?: recording_put_vulns(df, &vulns);
	kv_list_free(&vulns);
	kv_list_free(&config);
	kv_list_free(&meta);
	return err;
}

static int write_samples(struct session *s)
{
	struct kv_list meta = {};
	struct ksyms *ks;
	int err;

	/* without kallsyms the raw addresses are still saved */
	if (!s->ks)
		ksyms_load(&s->ks, NULL);
	ks = s->probed_ks ?: s->ks;
	err = collect_samples(s->df, s->stacks, s->procs, ks, s->deltas, s->run,
			      strcmp(s->o->sample_event.name, "cpu-clock"));
	err = err ?: funcs_collect(s->funcs, s->df, s->stacks, ks);
	err = err ?: blocks_collect(s->blocks, s->df, s->stacks, ks);
	err = err ?: sites_save(s->df, &meta, s->ks);
	err = err
		      ?: counting_save(s->counting, s->df, bpf_map__fd(s->skel->maps.syscall_cnt),
				       funcs_cnt_fd(s->funcs), funcs_count(s->funcs), &meta);
	err = err ?: record_meta(s, &meta, ks);
	err = err ?: recording_put_meta(s->df, &meta);
	kv_list_free(&meta);
	return err;
}

int save_data(struct session *s)
{
	struct datafile *df = s->df;
	int err;

	/*
	 * A command that never reached its exec left only its launcher's work
	 * (proctree.c has said so).  One that ran too briefly to be sampled,
	 * with no syscall traced, is still a recording: its wall time, exit
	 * code and page faults.
	 */
	if (s->o->argv && !s->o->system_wide && !s->skel->bss->execs)
		return -ENODATA;
	collect_counters(bpf_map__fd(s->skel->maps.counters), s->counts);
	err = save_provenance(df);
	err = err ?: collect_write_counters(df, s->counts);
	/* the kernel's figures for kprotperf's own cost */
	if (!err && s->sampler.stats) {
		struct collect_stats st = {};

		err = collect_bpf_stats(s->skel->obj, &st);
		err = err ?: funcs_each_object(s->funcs, collect_bpf_stats, &st);
		if (!err && s->blocks)
			err = collect_bpf_stats(blocks_object(s->blocks), &st);
		err = collect_write_stats(df, &st) ?: err;
	}
	err = err ?: recording_put_counter(df, "lost_sideband_records", procs_lost(s->procs));
	err = err ?: recording_put_counter(df, "lost_stacks_unknown", stackstore_bad(s->stacks));
	if (s->dwarf) {
		err = err
			      ?: recording_put_counter(df, "lost_user_stacks_unwind",
						       ustack_dwarf_failed(s->dwarf));
		err = err
			      ?: recording_put_counter(df, "lost_user_stacks_truncated",
						       ustack_dwarf_truncated(s->dwarf));
	}
	err = err
		      ?: collect_run_latency(s->deltas, df, s->run, "syscall",
					     bpf_map__fd(s->skel->maps.syscall_lat),
					     KP_MAX_SYSCALLS, syscalls_name, NULL);
	err = err ?: write_samples(s);
	return err ?: save_procs(df, s->procs);
}
