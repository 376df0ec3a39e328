// SPDX-License-Identifier: GPL-2.0-only
/* The boot tables' writers (boot_write.h): their SQL. */
#include "data/boot_write.h"

#include "data/query.h"

/* ?1 run, then (flag, value) pairs: a value whose flag is 0 stores NULL */
#define OR_NULL(f, v) "CASE WHEN ?" #f " THEN ?" #v " END"

int boot_put_run(struct datafile *df, unsigned int run, const struct boot_run_row *r)
{
	return query_insert(
		df,
		"INSERT INTO boot_runs VALUES(?1, " OR_NULL(2, 3) ", " OR_NULL(4, 5) ", " OR_NULL(
			6, 7) ", " OR_NULL(8, 9) ", " OR_NULL(10, 11) ", ?12)",
		"iiiiiiiiiiii", (long long)run, (long long)r->has_clock_offset,
		(long long)r->clock_offset_ns, (long long)r->has_initcalls_end,
		(long long)r->initcalls_end_ns, (long long)r->has_first_user,
		(long long)r->first_user_ns, (long long)r->has_entry, (long long)r->entry_insns,
		(long long)r->has_first_user_insns, (long long)r->first_user_insns,
		(long long)r->initcalls);
}

int boot_put_initcall(struct datafile *df, unsigned int run, unsigned int seq, const char *name,
		      __u64 start_ns, __u64 ns, int ret)
{
	return query_insert(df, "INSERT INTO boot_initcalls VALUES(?,?,?,?,?,?)", "iitiii",
			    (long long)run, (long long)seq, name, (long long)start_ns,
			    (long long)ns, (long long)ret);
}

int boot_put_func(struct datafile *df, unsigned int run, const char *name, const char *module,
		  __u64 insns)
{
	return query_insert(df, "INSERT INTO boot_funcs VALUES(?,?,?,?)", "itti", (long long)run,
			    name, module, (long long)insns);
}

int boot_put_func_misses(struct datafile *df, unsigned int run, const char *name,
			 const char *module, unsigned int geom, const __u64 *v)
{
	return query_insert(df, "INSERT INTO boot_func_misses VALUES(?,?,?,?,?,?,?,?,?,?)",
			    "ittiiiiiii", (long long)run, name, module, (long long)geom,
			    (long long)v[0], (long long)v[1], (long long)v[2], (long long)v[3],
			    (long long)v[4], (long long)v[5]);
}

int boot_put_func_tlb(struct datafile *df, unsigned int run, const char *name, const char *module,
		      unsigned int geom, __u64 itlb, __u64 dtlb)
{
	return query_insert(df, "INSERT INTO boot_func_tlb VALUES(?,?,?,?,?,?)", "ittiii",
			    (long long)run, name, module, (long long)geom, (long long)itlb,
			    (long long)dtlb);
}

int boot_put_func_event(struct datafile *df, unsigned int run, const char *name, const char *module,
			const char *kind, __u64 execs, __u64 flushes)
{
	return query_insert(df, "INSERT INTO boot_func_events VALUES(?,?,?,?,?,?)", "itttii",
			    (long long)run, name, module, kind, (long long)execs,
			    (long long)flushes);
}

int boot_put_func_thunks(struct datafile *df, unsigned int run, const char *name,
			 const char *module, __u64 retpolines, __u64 return_thunks)
{
	return query_insert(df, "INSERT INTO boot_func_thunks VALUES(?,?,?,?,?)", "ittii",
			    (long long)run, name, module, (long long)retpolines,
			    (long long)return_thunks);
}

int boot_put_func_cycles(struct datafile *df, unsigned int run, const char *name,
			 const char *module, const __u64 *cyc)
{
	return query_insert(df, "INSERT INTO boot_func_cycles VALUES(?,?,?,?,?,?,?,?,?,?)",
			    "ittiiiiiii", (long long)run, name, module, (long long)cyc[0],
			    (long long)cyc[1], (long long)cyc[2], (long long)cyc[3],
			    (long long)cyc[4], (long long)cyc[5], (long long)cyc[6]);
}
