// SPDX-License-Identifier: GPL-2.0-only
/*
 * Every row kprotperf record writes: the SQL of the recording side of the
 * data file, one typed writer per table (statements cached by query_insert).
 */
#include "data/recording.h"

#include "data/query.h"
#include "util/kv.h"

static int put_kvs(struct datafile *df, const char *sql, const struct kv_list *l)
{
	size_t i;
	int err = 0;

	for (i = 0; i < l->n && !err; i++)
		err = query_insert(df, sql, "tt", l->v[i].key, l->v[i].value);
	return err;
}

int recording_put_meta(struct datafile *df, const struct kv_list *l)
{
	return put_kvs(df, "INSERT INTO meta VALUES(?,?)", l);
}

int recording_set_meta(struct datafile *df, const struct kv_list *l)
{
	return put_kvs(df, "INSERT OR REPLACE INTO meta VALUES(?,?)", l);
}

int recording_put_config(struct datafile *df, const struct kv_list *l)
{
	return put_kvs(df, "INSERT INTO config VALUES(?,?)", l);
}

int recording_put_vulns(struct datafile *df, const struct kv_list *l)
{
	return put_kvs(df, "INSERT INTO vulnerabilities VALUES(?,?)", l);
}

int recording_put_counter(struct datafile *df, const char *name, __u64 value)
{
	return query_insert(df, "INSERT INTO counters VALUES(?,?)", "ti", name, (long long)value);
}

int recording_put_latency(struct datafile *df, const char *kind, __u32 id, const char *name,
			  const struct recording_lat *l)
{
	return query_insert(df, "INSERT INTO latency VALUES(?,?,?,?,?,?,?,?,?)", "titiiiiii", kind,
			    (long long)id, name, (long long)l->calls, (long long)l->done,
			    (long long)l->total_ns, (long long)l->oncpu_ns,
			    (long long)(l->total_ns - l->oncpu_ns), (long long)l->max_ns);
}

int recording_put_hist_bucket(struct datafile *df, const char *kind, __u32 id, const char *clock,
			      __u32 bucket, __u64 lo_ns, __u64 hi_ns, __u64 count)
{
	return query_insert(df, "INSERT INTO latency_hist VALUES(?,?,?,?,?,?,?)", "titiiii", kind,
			    (long long)id, clock, (long long)bucket, (long long)lo_ns,
			    (long long)hi_ns, (long long)count);
}

int recording_put_task(struct datafile *df, long long pid, long long ppid, const char *comm,
		       bool exited)
{
	return query_insert(df, "INSERT INTO tasks VALUES(?,?,?,?)", "iiti", pid, ppid, comm,
			    (long long)exited);
}

int recording_put_map(struct datafile *df, long long pid, __u64 start, __u64 end, __u64 pgoff,
		      const char *path, const char *build_id)
{
	return query_insert(df, "INSERT INTO maps VALUES(?,?,?,?,?,?)", "iiiitt", pid,
			    (long long)start, (long long)end, (long long)pgoff, path, build_id);
}

int recording_put_sample(struct datafile *df, __u32 pid, __u32 tid, const char *comm,
			 const __s32 *kstack, long long ustack, __u64 count)
{
	if (!kstack)
		return query_insert(df, "INSERT INTO samples VALUES(?,?,?,NULL,?,?)", "iitii",
				    (long long)pid, (long long)tid, comm, ustack, (long long)count);
	return query_insert(df, "INSERT INTO samples VALUES(?,?,?,?,?,?)", "iitiii", (long long)pid,
			    (long long)tid, comm, (long long)*kstack, ustack, (long long)count);
}

int recording_put_kstack_frame(struct datafile *df, __s32 stack, int depth, __u64 addr)
{
	return query_insert(df, "INSERT OR IGNORE INTO kstack_frames VALUES(?,?,?)", "iii",
			    (long long)stack, (long long)depth, (long long)addr);
}

int recording_put_ksym(struct datafile *df, __u64 addr, const char *name, const char *module)
{
	return query_insert(df, "INSERT OR IGNORE INTO ksyms VALUES(?,?,?)", "itt", (long long)addr,
			    name, module);
}

int recording_put_ustack_frame(struct datafile *df, long long stack, int depth, __u64 addr,
			       const char *module, const char *symbol, __u64 offset)
{
	return query_insert(df, "INSERT INTO ustack_frames VALUES(?,?,?,?,?,?)", "iiitti", stack,
			    (long long)depth, (long long)addr, module, symbol, (long long)offset);
}

int recording_put_func(struct datafile *df, long long id, const char *name, const char *symbol,
		       __u64 addr, const char *module, const char *method)
{
	return query_insert(df, "INSERT INTO funcs VALUES(?,?,?,?,?,?)", "ittitt", id, name, symbol,
			    (long long)addr, module, method);
}

int recording_put_func_absent(struct datafile *df, const char *pattern)
{
	/* --func x --func x: one row */
	return query_insert(df, "INSERT OR IGNORE INTO func_absent VALUES(?)", "t", pattern);
}

int recording_put_func_syscall(struct datafile *df, long long func, long long nr, __u64 calls,
			       __u64 total_ns)
{
	return query_insert(df, "INSERT INTO func_syscalls VALUES(?,?,?,?)", "iiii", func, nr,
			    (long long)calls, (long long)total_ns);
}

int recording_put_func_stack(struct datafile *df, long long func, long long kstack, __u64 calls,
			     __u64 total_ns)
{
	return query_insert(df, "INSERT INTO func_stacks VALUES(?,?,?,?)", "iiii", func, kstack,
			    (long long)calls, (long long)total_ns);
}

int recording_put_func_context(struct datafile *df, long long func, const char *context,
			       __u64 calls, __u64 total_ns)
{
	return query_insert(df,
			    "INSERT INTO func_contexts VALUES(?,?,?,?) ON CONFLICT DO UPDATE"
			    " SET calls = calls + excluded.calls,"
			    " total_ns = total_ns + excluded.total_ns",
			    "itii", func, context, (long long)calls, (long long)total_ns);
}

int recording_put_inline(struct datafile *df, const struct recording_inline *in)
{
	return query_insert(df, "INSERT INTO inlines VALUES(?,?,?,?,?,?,?,?,?)", "itttiitit",
			    in->func, in->name, in->parent, in->call_file, in->call_line,
			    (long long)in->entry, in->ranges, (long long)in->bytes, in->exits);
}

int recording_put_run(struct datafile *df, unsigned int run, __u64 wall_ns, const int *exit_code,
		      const char *end)
{
	if (exit_code)
		return query_insert(df, "INSERT INTO runs VALUES(?,?,?,?)", "iiit", (long long)run,
				    (long long)wall_ns, (long long)*exit_code, end);
	return query_insert(df, "INSERT INTO runs VALUES(?,?,NULL,?)", "iit", (long long)run,
			    (long long)wall_ns, end);
}

int recording_put_run_latency(struct datafile *df, unsigned int run, const char *kind, __u32 id,
			      const struct recording_lat *l)
{
	return query_insert(df, "INSERT INTO run_latency VALUES(?,?,?,?,?,?,?,?)", "itiiiiii",
			    (long long)run, kind, (long long)id, (long long)l->calls,
			    (long long)l->done, (long long)l->total_ns, (long long)l->oncpu_ns,
			    (long long)(l->total_ns - l->oncpu_ns));
}

int recording_put_run_sample(struct datafile *df, unsigned int run, const __s32 *kstack,
			     long long ustack, __u64 count)
{
	if (!kstack)
		return query_insert(df, "INSERT INTO run_samples VALUES(?,NULL,?,?)", "iii",
				    (long long)run, ustack, (long long)count);
	return query_insert(df, "INSERT INTO run_samples VALUES(?,?,?,?)", "iiii", (long long)run,
			    (long long)*kstack, ustack, (long long)count);
}
