// SPDX-License-Identifier: GPL-2.0-only
/*
 * The data file's tables, as record creates them: those of the oldest schema
 * this version reads, and those added since, which an older file lacks
 * (data/compat.c gives it them empty).  Documented in docs/datafile.md; bump
 * KP_SCHEMA_VERSION on any change.
 */
#include "data/schema.h"

#include "data/blocks_tables.h"
#include "data/boot_schema.h"
#include "data/count_tables.h"
#include "data/model.h"
#include "data/protect.h"

const char schema_base[] =
	"CREATE TABLE meta(key TEXT PRIMARY KEY, value TEXT NOT NULL);"
	"CREATE TABLE config(option TEXT PRIMARY KEY, value TEXT NOT NULL);"
	"CREATE TABLE vulnerabilities(name TEXT PRIMARY KEY, status TEXT NOT NULL);"
	"CREATE TABLE counters(name TEXT PRIMARY KEY, value INTEGER NOT NULL);"
	"CREATE TABLE latency(kind TEXT, id INTEGER, name TEXT, calls INTEGER, done INTEGER,"
	" total_ns INTEGER, oncpu_ns INTEGER, offcpu_ns INTEGER, max_ns INTEGER,"
	" PRIMARY KEY(kind, id));"
	"CREATE TABLE latency_hist(kind TEXT, id INTEGER, clock TEXT, bucket INTEGER,"
	" lo_ns INTEGER, hi_ns INTEGER, count INTEGER, PRIMARY KEY(kind, id, clock, bucket));"
	"CREATE TABLE tasks(pid INTEGER, ppid INTEGER, comm TEXT, exited INTEGER);"
	"CREATE TABLE maps(pid INTEGER, start INTEGER, end INTEGER, pgoff INTEGER, path TEXT,"
	" build_id TEXT);"
	"CREATE TABLE samples(pid INTEGER, tid INTEGER, comm TEXT, kstack INTEGER,"
	" ustack INTEGER, count INTEGER);"
	"CREATE TABLE kstack_frames(stack INTEGER, depth INTEGER, addr INTEGER,"
	" PRIMARY KEY(stack, depth));"
	"CREATE TABLE ksyms(addr INTEGER PRIMARY KEY, name TEXT, module TEXT);"
	"CREATE TABLE ustack_frames(stack INTEGER, depth INTEGER, addr INTEGER, module TEXT,"
	" symbol TEXT, offset INTEGER, PRIMARY KEY(stack, depth));"
	/* schema 2: record --func */
	"CREATE TABLE funcs(id INTEGER PRIMARY KEY, name TEXT, symbol TEXT, addr INTEGER,"
	" module TEXT, method TEXT);"
	"CREATE TABLE func_syscalls(func INTEGER, nr INTEGER, calls INTEGER, total_ns INTEGER,"
	" PRIMARY KEY(func, nr));"
	"CREATE TABLE func_stacks(func INTEGER, kstack INTEGER, calls INTEGER, total_ns INTEGER,"
	" PRIMARY KEY(func, kstack));"
	"CREATE TABLE func_contexts(func INTEGER, context TEXT, calls INTEGER, total_ns INTEGER,"
	" PRIMARY KEY(func, context));";

/*
 * The tables of macros (schema 6 on) as a list: clang-format would indent
 * each string literal after a macro one step further than the last.
 */
/* clang-format off */
const char schema_added[] =
	/* schema 3: record --func on inlined functions */
	"CREATE TABLE inlines(func INTEGER PRIMARY KEY, name TEXT, parent TEXT, call_file TEXT,"
	" call_line INTEGER, entry INTEGER, ranges TEXT, bytes INTEGER, exits TEXT);"
	/* schema 4: record --repeat */
	"CREATE TABLE runs(run INTEGER PRIMARY KEY, wall_ns INTEGER, exit_code INTEGER, end TEXT);"
	"CREATE TABLE run_latency(run INTEGER, kind TEXT, id INTEGER, calls INTEGER, done INTEGER,"
	" total_ns INTEGER, oncpu_ns INTEGER, offcpu_ns INTEGER, PRIMARY KEY(run, kind, id));"
	"CREATE TABLE run_samples(run INTEGER, kstack INTEGER, ustack INTEGER, count INTEGER);"
	/* schema 5: --func patterns that match nothing on the recorded kernel */
	"CREATE TABLE func_absent(pattern TEXT PRIMARY KEY);"
	/* schema 6: record --blocks */
	BLOCKS_TABLES
	/* schema 7: --blocks of inline instances, loop bounds, contexts, runs */
	BLOCKS7_TABLES
	/* schema 8: the compiler-inserted protections of the code that ran */
	PROTECT_TABLES
	/* schema 9: the machine model's counts (record --model, inject --model) */
	MODEL_TABLES
	/* schema 10: kprotperf boot */
	BOOT_TABLES
	/* schema 11: the model's TLBs and events */
	MODEL_TLB_TABLES
	/* schema 12: a boot's TLBs and events */
	BOOT_MODEL_TABLES
	/* schema 13: record --count and -e */
	COUNT_TABLES
	/* schema 14: the timing model's cycles */
	MODEL_TIMING_TABLES
	/* schema 15: a boot's cycles under it */
	BOOT_TIMING_TABLES
	/* schema 16: the bytes patched kernel instructions ran */
	MODEL_RUNNING_TABLES
	/* schema 17: the string helpers' accesses per call site */
	MODEL_SITES_TABLES
	/* schema 18: those of them made by a slab allocator, by the allocator's call */
	MODEL_ALLOC_SITES_TABLES;
/* clang-format on */
