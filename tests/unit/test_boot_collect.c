// SPDX-License-Identifier: GPL-2.0-only
/*
 * kprotperf boot's reading of raw boot folders (boot/dmesg.c, boot/boot_funcs.c,
 * boot/boot_collect.c) on synthetic folders made here, hostile ones included:
 * the parsed log and the recording's rows compared whole; and the command's
 * refusals before anything runs.
 */
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>
#include <errno.h>
#include <limits.h>
#include <sqlite3.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "boot/opts.h"
#include "boot/boot_collect.h"
#include "boot/dmesg.h"
#include "cmd/cmds.h"
#include "data/datafile.h"
#include "testutil.h"

static char dir[64];

static const char *file(const char *name, const char *text)
{
	static char path[PATH_MAX];

	snprintf(path, sizeof(path), "%s/%s", dir, name);
	assert_int_equal(tu_write_file(path, text), 0);
	return path;
}

/* The parsed log as text: every initcall, then the phases. */
static char *dump_dmesg(const struct boot_dmesg *d)
{
	char *out = NULL;
	size_t len = 0, i;
	FILE *f = open_memstream(&out, &len);

	for (i = 0; i < d->n; i++)
		fprintf(f, "%s start %llu ns %llu ret %d\n", d->ic[i].name,
			(unsigned long long)d->ic[i].start_ns, (unsigned long long)d->ic[i].ns,
			d->ic[i].ret);
	fprintf(f, "unpaired %lu\n", d->unpaired);
	if (d->has_initcalls_end)
		fprintf(f, "initcalls_end %llu\n", (unsigned long long)d->initcalls_end_ns);
	if (d->has_first_user)
		fprintf(f, "first_user %llu\n", (unsigned long long)d->first_user_ns);
	if (d->has_clock_offset)
		fprintf(f, "clock_offset %llu\n", (unsigned long long)d->clock_offset_ns);
	else
		fprintf(f, "no clock offset: %s\n", d->why_no_offset);
	fclose(f);
	return out;
}

static void expect_dmesg(const char *text, const char *want)
{
	struct boot_dmesg d;
	char why[256], *out;

	assert_int_equal(boot_dmesg_read(file("dmesg.txt", text), &d, why, sizeof(why)), 0);
	out = dump_dmesg(&d);
	assert_string_equal(out, want);
	free(out);
	boot_dmesg_free(&d);
}

#define DMESG_GOOD                                                                \
	"[    0.000000] Linux version 6.1.0-test\n"                               \
	"[    0.001000] tsc: Detected 1000.000 MHz processor\n"                   \
	"[    0.100000] calling  init_a+0x0/0x40 @ 1\n"                           \
	"[    0.100500] initcall init_a+0x0/0x40 returned 0 after 400 usecs\n"    \
	"[    0.200000] calling  init_b+0x0/0x20 @ 1\n"                           \
	"[    0.201000] initcall init_b+0x0/0x20 returned -19 after 1000 usecs\n" \
	"[    0.300000] calling  init_c+0x0/0x10 @ 1\n"                           \
	"[    0.300002] initcall init_c+0x0/0x10 returned 0 after 2 usecs\n"      \
	"[    0.400000] Freeing unused kernel image (initmem) memory: 2000K\n"    \
	"[    0.500000] Run /init as init process\n"                              \
	"[    0.600000] kprotperf-boot: tsc 750000000\n"                          \
	"[    0.700000] calling  late+0x0/0x10 @ 12\n"                            \
	"[    0.700001] initcall late+0x0/0x10 returned 0 after 1 usecs\n"        \
	"[    1.500000] tsc: Refined TSC clocksource calibration: 999.000 MHz\n"

static void test_dmesg_good(void **state)
{
	/* 750000000 ticks at 999 MHz: 750750750 ns since reset, the line at 0.6 s */
	expect_dmesg(DMESG_GOOD, "init_a start 100000000 ns 400000 ret 0\n"
				 "init_b start 200000000 ns 1000000 ret -19\n"
				 "init_c start 300000000 ns 2000 ret 0\n"
				 "unpaired 0\n"
				 "initcalls_end 300002000\n"
				 "first_user 500000000\n"
				 "clock_offset 150750750\n");
}

/*
 * Out-of-range times, returns and durations, unpaired and interleaved
 * initcalls, an over-long line, a tsc line without a rate: each bad line is
 * skipped or counted unpaired, never stored.
 */
static void test_dmesg_hostile(void **state)
{
	char *text, long_name[3001];

	memset(long_name, 'x', sizeof(long_name) - 1);
	long_name[sizeof(long_name) - 1] = '\0';
	assert_true(
		asprintf(&text,
			 "[99999999999.000000] calling  huge+0x0/0x1 @ 1\n"
			 "[    0.1] calling  short+0x0/0x1 @ 1\n"
			 "no timestamp at all\n"
			 "[    1.000000] calling  a+0x0/0x1 @ 1\n"
			 "[    1.000001] calling  b+0x0/0x1 @ 1\n"
			 "[    1.000002] initcall a+0x0/0x1 returned 0 after 1 usecs\n"
			 "[    1.000003] initcall b+0x0/0x1 returned 99999999999 after 1 usecs\n"
			 "[    1.000004] calling  c+0x0/0x1 @ 1\n"
			 "[    1.000005] initcall c+0x0/0x1 returned 0 after "
			 "18446744073709551616 usecs\n"
			 "[    1.000006] initcall c+0x0/0x1 returned -2147483648 after "
			 "1152921504606846 usecs\n"
			 "[    1.000007] calling  %s+0x0/0x1 @ 1\n"
			 "[    1.000008] initcall %s+0x0/0x1 returned 0 after 1 usecs\n"
			 "[    1.000009] calling  +0x0/0x1 @ 1\n"
			 "[    2.000000] kprotperf-boot: tsc 123\n"
			 "[    2.000001] tsc: Detected 99999999999.000 MHz processor\n",
			 long_name, long_name) > 0);
	expect_dmesg(text, "c start 1000004000 ns 1152921504606846000 ret -2147483648\n"
			   "unpaired 6\n"
			   "initcalls_end 1000006000\n"
			   "no clock offset: no TSC rate ('tsc: Refined TSC clocksource "
			   "calibration: X MHz' or 'tsc: Detected X MHz processor')\n");
	free(text);
}

/* No initcall line (initcall_debug not honoured), no tsc line: the phases still read. */
static void test_dmesg_no_initcalls(void **state)
{
	expect_dmesg("[    0.000000] Linux version 6.1.0-test\n"
		     "[    0.900000] Run /init as init process\n",
		     "unpaired 0\n"
		     "first_user 900000000\n"
		     "no clock offset: no 'kprotperf-boot: tsc TICKS' line (the guest's /init "
		     "writes it)\n");
}

/* A TSC that reads less than printk's time of its own line: no offset, said why. */
static void test_dmesg_tsc_before_clock(void **state)
{
	expect_dmesg("[    5.000000] tsc: Detected 1000.000 MHz processor\n"
		     "[    5.000000] kprotperf-boot: tsc 1000\n",
		     "unpaired 0\n"
		     "no clock offset: the TSC's 1000 ticks at 1000000 kHz come before the "
		     "line's own time\n");
}

#define KALLSYMS(base)                                                                       \
	base "000000 T _stext\n" base "000000 T _text\n" base "000100 T start_kernel\n" base \
	     "000200 t init_once\n" base "000300 T do_one_initcall\n" base                   \
	     "000400 t init_once\n" base "000500 D some_data\n"
#define MODEL_HEAD(id)                                                                       \
	"# kp_model 1\n# mode cache\n# count insn\n# qemu 8.2.2\n# kernel_build_id " id "\n" \
	"# window complete\n# windows opened 1 closed 1 restarts 0 stray_stops 0\n"          \
	"# boot entry_insns 1000\n# boot first_user_insns 50000\n"                           \
	"# geom 0 i1=32768:8:64 d1=32768:8:64 ll=8388608:16:64\n# iaddr physical\n"          \
	"# columns pc insns i1_miss.0 d1_read.0 d1_read_miss.0 d1_write.0 d1_write_miss.0 ll_miss.0\n"
/* firmware and decompressor, a kernel PC below every symbol, then four functions */
#define MODEL_ROWS(base)                                                                         \
	"0x100000 600 1 2 3 4 5 6\n0x100010 400 1 1 1 1 1 1\n0xffff888000000000 7 0 0 0 0 0 0\n" \
	"0x" base "000100 100 1 0 0 0 0 0\n0x" base "000108 50 1 0 0 0 0 0\n"                    \
	"0x" base "000200 10 0 1 0 0 0 0\n0x" base "000300 20 0 0 0 0 0 9\n"                     \
	"0x" base "000400 5 0 1 0 0 0 0\n"

/* Format 2 (the TLBs and the events): the same PCs with a kind, flushes and TLB misses each. */
#define MODEL_HEAD2(id)                                                                         \
	"# kp_model 2\n# mode cache\n# count insn\n# qemu 8.2.2\n# kernel_build_id " id "\n"    \
	"# window complete\n# windows opened 1 closed 1 restarts 0 stray_stops 0\n"             \
	"# boot entry_insns 1000\n# boot first_user_insns 50000\n"                              \
	"# geom 0 i1=32768:8:64 d1=32768:8:64 ll=8388608:16:64\n# tlb 0 itlb=128:8 dtlb=64:4\n" \
	"# guest pti 1 pcid 0\n# iaddr physical\n"                                              \
	"# columns pc insns ev flushes i1_miss.0 d1_read.0 d1_read_miss.0 d1_write.0"           \
	" d1_write_miss.0 ll_miss.0 itlb_miss.0 dtlb_miss.0\n"
#define MODEL_ROWS2(base, n)                                                          \
	"0x100000 600 - 0 1 2 3 4 5 6 1 1\n0x100010 400 cpuid 0 1 1 1 1 1 1 0 0\n"    \
	"0xffff888000000000 7 - 0 0 0 0 0 0 0 0 0\n"                                  \
	"0x" base "000100 100 - 0 1 0 0 0 0 0 2 3\n0x" base "000108 " n " mov_cr3 " n \
	" 1 0 0 0 0 0 0 0\n"                                                          \
	"0x" base "000200 10 lfence 0 0 1 0 0 0 0 0 1\n0x" base                       \
	"000300 20 verw 0 0 0 0 0 0 9 1 0\n"                                          \
	"0x" base "000400 5 invlpg 5 0 1 0 0 0 0 0 0\n"

/* Mode timing: format 2's rows with the core model's cycles and their stack (summing to them). */
#define MODEL_HEAD3(id, core)                                                                   \
	"# kp_model 2\n# mode timing\n# count insn\n# qemu 8.2.2\n# kernel_build_id " id "\n"   \
	"# window complete\n# windows opened 1 closed 1 restarts 0 stray_stops 0\n"             \
	"# boot entry_insns 1000\n# boot first_user_insns 50000\n"                              \
	"# geom 0 i1=32768:8:64 d1=32768:8:64 ll=8388608:16:64\n# tlb 0 itlb=128:8 dtlb=64:4\n" \
	"# guest pti 1 pcid 0\n# iaddr physical\n"                                              \
	"# timing core=" core " core.width=4 lat.dram=250\n"                                    \
	"# timing insns 1202 unknown 1 prefetches 3 cycles 9000\n"                              \
	"# columns pc insns ev flushes i1_miss.0 d1_read.0 d1_read_miss.0 d1_write.0"           \
	" d1_write_miss.0 ll_miss.0 itlb_miss.0 dtlb_miss.0 cycles cyc_base cyc_branch"         \
	" cyc_icache cyc_dcache cyc_tlb cyc_serialize\n"
#define MODEL_ROWS3(base, cr3, ser)                                                \
	"0x100000 600 - 0 1 2 3 4 5 6 1 1 900 150 0 300 400 50 0\n"                \
	"0x100010 400 cpuid 0 1 1 1 1 1 1 0 0 2100 100 0 0 0 0 2000\n"             \
	"0xffff888000000000 7 - 0 0 0 0 0 0 0 0 0 2 2 0 0 0 0 0\n"                 \
	"0x" base "000100 100 - 0 1 0 0 0 0 0 2 3 205 25 0 30 0 150 0\n0x" base    \
	"000108 50 mov_cr3 50 1 0 0 0 0 0 0 0 " cr3 " 13 0 0 0 0 " ser "\n"        \
	"0x" base "000200 10 lfence 0 0 1 0 0 0 0 0 1 400 3 0 0 0 17 380\n0x" base \
	"000300 20 verw 0 0 0 0 0 0 9 1 0 2005 5 0 0 2000 0 0\n"                   \
	"0x" base "000400 5 invlpg 5 0 1 0 0 0 0 0 0 101 1 100 0 0 0 0\n"

/* Format 2 of --model insns: the events without TLBs or caches. */
#define MODEL_INSNS2(id, base)                                                               \
	"# kp_model 2\n# mode insns\n# count insn\n# qemu 8.2.2\n# kernel_build_id " id "\n" \
	"# window complete\n# windows opened 1 closed 1 restarts 0 stray_stops 0\n"          \
	"# boot entry_insns 1000\n# boot first_user_insns 50000\n"                           \
	"# guest pti 0 pcid unknown\n# columns pc insns ev flushes\n"                        \
	"0x100000 600 cpuid 0\n0x" base "000100 100 - 0\n0x" base "000108 7 mov_cr3 7\n"     \
	"0x" base "000300 20 verw 0\n0x" base "000600 9 ret 0\n0x" base "000700 4 - 0\n"

/* A raw folder as vm-run.sh --boot leaves it, at DIR/name. */
static const char *raw_folder(const char *name, const char *kallsyms, const char *model,
			      const char *build_id)
{
	static char path[PATH_MAX];
	char sub[128];

	snprintf(path, sizeof(path), "%s/%s", dir, name);
	mkdir(path, 0700);
#define PUT(f, text)                                       \
	do {                                               \
		snprintf(sub, sizeof(sub), "%s/" f, name); \
		file(sub, text);                           \
	} while (0)
	PUT("dmesg.txt", DMESG_GOOD);
	PUT("cmdline", "console=ttyS0 initcall_debug log_buf_len=4M page_alloc.shuffle=1\n");
	PUT("release", "6.1.0-test\n");
	PUT("build-id", build_id);
	PUT("config", "CONFIG_SHUFFLE_PAGE_ALLOCATOR=y\n# CONFIG_INIT_ON_ALLOC_DEFAULT_ON is not "
		      "set\nCONFIG_NOT_HARDENING=y\n");
	if (kallsyms)
		PUT("kallsyms.txt", kallsyms);
	if (model)
		PUT("model.txt", model);
#undef PUT
	return path;
}

/* Every row of the recording's boot tables and its meta, as sqlite3 prints them. */
static char *dump_recording(const char *path)
{
	static const char *const sql[] = {
		"SELECT * FROM boot_runs ORDER BY run",
		"SELECT * FROM boot_initcalls ORDER BY run, seq",
		"SELECT * FROM boot_funcs ORDER BY run, name, module",
		"SELECT * FROM boot_func_misses ORDER BY run, name, module, geom",
		"SELECT * FROM boot_func_tlb ORDER BY run, name, module, geom",
		"SELECT * FROM boot_func_events ORDER BY run, name, module, kind",
		"SELECT * FROM boot_func_thunks ORDER BY run, name, module",
		"SELECT * FROM boot_func_cycles ORDER BY run, name, module",
		"SELECT * FROM model_geoms",
		"SELECT * FROM model_tlbs",
		"SELECT * FROM config ORDER BY option",
		"SELECT * FROM vulnerabilities ORDER BY name",
		"SELECT * FROM meta WHERE key NOT IN ('tool.version') ORDER BY key",
	};
	char *out = NULL;
	size_t len = 0, i;
	FILE *f = open_memstream(&out, &len);
	sqlite3_stmt *st;
	sqlite3 *db;
	int c;

	assert_int_equal(sqlite3_open_v2(path, &db, SQLITE_OPEN_READONLY, NULL), SQLITE_OK);
	for (i = 0; i < sizeof(sql) / sizeof(sql[0]); i++) {
		assert_int_equal(sqlite3_prepare_v2(db, sql[i], -1, &st, NULL), SQLITE_OK);
		fprintf(f, "-- %s\n", sql[i]);
		while (sqlite3_step(st) == SQLITE_ROW)
			for (c = 0; c < sqlite3_column_count(st); c++)
				fprintf(f, "%s%s",
					sqlite3_column_type(st, c) == SQLITE_NULL
						? "NULL"
						: (const char *)sqlite3_column_text(st, c),
					c + 1 < sqlite3_column_count(st) ? "|" : "\n");
		sqlite3_finalize(st);
	}
	sqlite3_close(db);
	fclose(f);
	return out;
}

/* The recording the tests write, DIR/boot.data. */
static const char *output(void)
{
	static char path[PATH_MAX];

	snprintf(path, sizeof(path), "%s/boot.data", dir);
	return path;
}

static int collect_on(const char *const *dirs, unsigned int n, const char *model, const char *cpu,
		      char *why, size_t len)
{
	struct boot_opts o = {.output = output(),
			      .kernel = "linux-image-amd64",
			      .append = "page_alloc.shuffle=1",
			      .cpu = cpu,
			      .model = model,
			      .repeat = n};

	unlink(o.output);
	return boot_collect(&o, dirs, n, why, len);
}

static int collect(const char *const *dirs, unsigned int n, const char *model, char *why,
		   size_t len)
{
	return collect_on(dirs, n, model, NULL, why, len);
}

/*
 * Two boots at two KASLR offsets, each symbolized with its own kallsyms, on
 * --cpu Skylake-Client-v1: run 0's cpu-model and vulnerabilities/ kept.
 */
static void test_collect_two_runs(void **state)
{
	char d0[PATH_MAX], d1[PATH_MAX], why[512], *out;
	const char *dirs[] = {d0, d1};
	struct datafile *df;

	strcpy(d0, raw_folder("run-0", KALLSYMS("ffffffff81"),
			      MODEL_HEAD("abcd1234") MODEL_ROWS("ffffffff81"), "abcd1234\n"));
	strcpy(d1, raw_folder("run-1", KALLSYMS("ffffffff93"),
			      MODEL_HEAD("abcd1234") MODEL_ROWS("ffffffff93"), "abcd1234\n"));
	file("run-0/cpu-model", "Intel Core Processor (Skylake)\n");
	assert_int_equal(tu_run("mkdir -p '%s/run-0/vulnerabilities'", dir), 0);
	file("run-0/vulnerabilities/meltdown", "Mitigation: PTI\n");
	file("run-0/vulnerabilities/tsa", "Not affected\n");
	assert_int_equal(collect_on(dirs, 2, "cache", "Skylake-Client-v1", why, sizeof(why)), 0);
	/* every value within what a data file may hold (data/check.c) */
	assert_int_equal(datafile_open(&df, output(), why, sizeof(why)), 0);
	datafile_close(df);
	out = dump_recording(output());
	tu_golden("boot-collect", out);
	free(out);
	/* the other tests' run-0 is without them */
	assert_int_equal(tu_run("rm -r '%s/run-0/cpu-model' '%s/run-0/vulnerabilities'", dir, dir),
			 0);
}

/*
 * A model table of format 2: per run and function its TLB misses and its
 * kinds' executions and flushes, the TLB geometry and the format in meta;
 * a run of format 1 after one of format 2 is refused.
 */
static void mask_dir(char *s);

static void test_collect_format2(void **state)
{
	char d0[PATH_MAX], d1[PATH_MAX], why[512], *out;
	const char *dirs[] = {d0, d1};
	struct datafile *df;

	strcpy(d0,
	       raw_folder("run2-0", KALLSYMS("ffffffff81"),
			  MODEL_HEAD2("abcd1234") MODEL_ROWS2("ffffffff81", "50"), "abcd1234\n"));
	strcpy(d1,
	       raw_folder("run2-1", KALLSYMS("ffffffff93"),
			  MODEL_HEAD2("abcd1234") MODEL_ROWS2("ffffffff93", "60"), "abcd1234\n"));
	assert_int_equal(collect(dirs, 2, "cache", why, sizeof(why)), 0);
	assert_int_equal(datafile_open(&df, output(), why, sizeof(why)), 0);
	datafile_close(df);
	out = dump_recording(output());
	tu_golden("boot-collect-format2", out);
	free(out);
	strcpy(d1, raw_folder("run2-1", KALLSYMS("ffffffff93"),
			      MODEL_HEAD("abcd1234") MODEL_ROWS("ffffffff93"), "abcd1234\n"));
	assert_int_equal(collect(dirs, 2, "cache", why, sizeof(why)), -EINVAL);
	mask_dir(why);
	assert_string_equal(why, "DIR/run2-1/model.txt: a table of format 1, run 0's of format 2:"
				 " every boot needs the same plugin");
	/* --model insns: the events and thunk entries, no TLB row, no TLB geometry */
	strcpy(d0,
	       raw_folder("run2-0",
			  KALLSYMS("ffffffff81") "ffffffff81000600 T __x86_return_thunk\n"
						 "ffffffff81000700 T __x86_indirect_thunk_rax\n",
			  MODEL_INSNS2("abcd1234", "ffffffff81"), "abcd1234\n"));
	assert_int_equal(collect(dirs, 1, "insns", why, sizeof(why)), 0);
	out = dump_recording(output());
	tu_golden("boot-collect-format2-insns", out);
	free(out);
}

/*
 * Mode timing: per run and function the model's cycles and their stack
 * (the mov_cr3's cycles another per run), the core in meta; a run timed by
 * another core, and a table whose stack does not sum, refused in one line.
 */
static void test_collect_timing(void **state)
{
	char d0[PATH_MAX], d1[PATH_MAX], why[512], *out;
	const char *dirs[] = {d0, d1};
	struct datafile *df;

	strcpy(d0,
	       raw_folder("run3-0", KALLSYMS("ffffffff81"),
			  MODEL_HEAD3("abcd1234", "ooo") MODEL_ROWS3("ffffffff81", "3013", "3000"),
			  "abcd1234\n"));
	strcpy(d1,
	       raw_folder("run3-1", KALLSYMS("ffffffff93"),
			  MODEL_HEAD3("abcd1234", "ooo") MODEL_ROWS3("ffffffff93", "3513", "3500"),
			  "abcd1234\n"));
	assert_int_equal(collect(dirs, 2, "timing", why, sizeof(why)), 0);
	assert_int_equal(datafile_open(&df, output(), why, sizeof(why)), 0);
	datafile_close(df);
	out = dump_recording(output());
	tu_golden("boot-collect-timing", out);
	free(out);
	strcpy(d1,
	       raw_folder("run3-1", KALLSYMS("ffffffff93"),
			  MODEL_HEAD3("abcd1234", "zen") MODEL_ROWS3("ffffffff93", "3513", "3500"),
			  "abcd1234\n"));
	assert_int_equal(collect(dirs, 2, "timing", why, sizeof(why)), -EINVAL);
	mask_dir(why);
	assert_string_equal(why, "DIR/run3-1/model.txt: timed by another core model than run 0's");
	/* a row whose stack is 19 short of its cycles: more than rounding allows */
	strcpy(d1,
	       raw_folder(
		       "run3-1", KALLSYMS("ffffffff93"),
		       MODEL_HEAD3("abcd1234", "ooo") MODEL_ROWS3(
			       "ffffffff93", "3513",
			       "3500") "0xffffffff93000500 1 - 0 0 0 0 0 0 0 0 0 20 1 0 0 0 0 0\n",
		       "abcd1234\n"));
	assert_int_equal(collect(dirs, 2, "timing", why, sizeof(why)), -EBADMSG);
	mask_dir(why);
	assert_string_equal(why, "DIR/run3-1/model.txt: line 25: its cycle stack sums to 1, not to"
				 " its 20 cycles (within 6)");
}

/*
 * A real boot's raw folder, trimmed (tests/unit/boot/README): Debian 12's
 * 6.1 under vm-run.sh --boot --model insns, KASLR on, symbolized by its own
 * kallsyms.
 */
static void test_collect_real(void **state)
{
	const char *d = "tests/unit/boot";
	char why[512], *out;
	struct datafile *df;

	assert_int_equal(collect(&d, 1, "insns", why, sizeof(why)), 0);
	assert_int_equal(datafile_open(&df, output(), why, sizeof(why)), 0);
	datafile_close(df);
	out = dump_recording(output());
	tu_golden("boot-collect-real", out);
	free(out);
}

/* Without --model: the log's rows alone, no function. */
static void test_collect_no_model(void **state)
{
	char why[512], *out;
	const char *d = raw_folder("run-plain", NULL, NULL, "abcd1234\n");

	assert_int_equal(collect(&d, 1, NULL, why, sizeof(why)), 0);
	out = dump_recording(output());
	tu_golden("boot-collect-no-model", out);
	free(out);
}

/* A raw folder's vulnerabilities/ that is a link (to the host's, say): refused, nothing written. */
static void test_collect_vulns_link(void **state)
{
	char why[512], want[PATH_MAX + 64];
	const char *d = raw_folder("run-link", NULL, NULL, "abcd1234\n");

	assert_int_equal(
		tu_run("ln -s /sys/devices/system/cpu/vulnerabilities '%s/vulnerabilities'", d), 0);
	assert_int_equal(collect(&d, 1, NULL, why, sizeof(why)), -ENOTDIR);
	snprintf(want, sizeof(want), "%s/vulnerabilities: Not a directory", d);
	assert_string_equal(why, want);
	assert_int_equal(access(output(), F_OK), -1);
}

/* The test's folder varies: DIR stands for it in s. */
static void mask_dir(char *s)
{
	char *p;

	while ((p = strstr(s, dir))) {
		memmove(p + 3, p + strlen(dir), strlen(p + strlen(dir)) + 1);
		memcpy(p, "DIR", 3);
	}
}

/* One bad run: refused with one line naming it, and no file written. */
static void expect_refused(const char *kallsyms, const char *model, const char *id,
			   const char *want)
{
	char d0[PATH_MAX], d1[PATH_MAX], why[512], got[600];
	const char *dirs[] = {d0, d1};

	strcpy(d0, raw_folder("ok-0", KALLSYMS("ffffffff81"),
			      MODEL_HEAD("abcd1234") MODEL_ROWS("ffffffff81"), "abcd1234\n"));
	assert_int_equal(tu_run("rm -rf '%s/bad-1'", dir), 0);
	strcpy(d1, raw_folder("bad-1", kallsyms, model, id));
	if (!collect(dirs, 2, "cache", why, sizeof(why)))
		fail_msg("not refused: %s", want);
	snprintf(got, sizeof(got), "%s", why);
	mask_dir(got);
	assert_string_equal(got, want);
	assert_int_equal(access(output(), F_OK), -1);
}

static void test_collect_refused(void **state)
{
	const char *ks = KALLSYMS("ffffffff81");

	expect_refused(ks, MODEL_HEAD("abcd1234") MODEL_ROWS("ffffffff81"), "beef\n",
		       "run 1 booted another kernel than run 0 (build id beef, not abcd1234): "
		       "refused");
	expect_refused(ks, MODEL_HEAD("abcd1234") MODEL_ROWS("ffffffff81"), "not hex\n",
		       "DIR/bad-1/build-id: not a build id in hex");
	expect_refused(ks, MODEL_HEAD("abcd1234") MODEL_ROWS("ffffffff81"), "",
		       "DIR/bad-1/build-id: empty");
	expect_refused(NULL, MODEL_HEAD("abcd1234") MODEL_ROWS("ffffffff81"), "abcd1234\n",
		       "DIR/bad-1/kallsyms.txt: No such file or directory");
	expect_refused("ffffffff81000000 T\n", MODEL_HEAD("abcd1234") MODEL_ROWS("ffffffff81"),
		       "abcd1234\n",
		       "DIR/bad-1/kallsyms.txt: a line is not 'ADDRESS TYPE NAME [MODULE]'");
	expect_refused(ks, MODEL_HEAD("ffff") MODEL_ROWS("ffffffff81"), "abcd1234\n",
		       "DIR/bad-1/model.txt: counted on kernel build ffff, not the abcd1234 that "
		       "booted");
	expect_refused(ks,
		       MODEL_HEAD("abcd1234") "0x100000 1099511627776 0 0 0 0 0 0\n"
					      "0x100001 1 0 0 0 0 0 0\n",
		       "abcd1234\n", "DIR/bad-1/model.txt: a function's counts add up past 2^40");
	expect_refused(ks, MODEL_HEAD("abcd1234") "0x100000 1099511627777 0 0 0 0 0 0\n",
		       "abcd1234\n",
		       "DIR/bad-1/model.txt: line 13 is not what the model writes there");
	expect_refused(ks,
		       "# kp_model 1\n# mode insns\n# qemu 8.2.2\n# window complete\n"
		       "# boot entry_insns 5\n# boot entry_insns 6\n# columns pc insns\n",
		       "abcd1234\n",
		       "DIR/bad-1/model.txt: line 6 is not what the model writes there");
	expect_refused(ks,
		       "# kp_model 1\n# mode insns\n# qemu 8.2.2\n# window complete\n"
		       "# columns pc insns\n"
		       "0x100000 1\n",
		       "abcd1234\n",
		       "DIR/bad-1/model.txt: counted in mode insns, not the --model cache asked "
		       "for");
}

/* The refusals before anything runs: usage errors (2), vm-run.sh not found (1). */
static void test_cli_refusals(void **state)
{
	char *no_o[] = {"boot", "-r", "2", NULL};
	char *zero[] = {"boot", "-r", "0", "-o", "x.data", NULL};
	char *word[] = {"boot", "--repeat", "x", "-o", "x.data", NULL};
	char *neg[] = {"boot", "--repeat=-3", "-o", "x.data", NULL};
	char *cache[] = {"boot", "--model", "insns", "--LL=1,2", "-o", "x.data", NULL};
	char *cpu[] = {"boot", "--cpu", "Skylake Client", "-o", "x.data", NULL};
	char *dash[] = {"boot", "--cpu=-x", "-o", "x.data", NULL};
	char *core[] = {"boot", "--model", "cache", "--core", "skylake", "-o", "x.data", NULL};
	char *ok[] = {"boot", "-o", "x.data", NULL};

	tu_expect(cmd_boot, no_o, 2, 2, "kprotperf boot: give -o FILE, the recording to write\n");
	tu_expect(cmd_boot, zero, 2, 2,
		  "kprotperf boot: invalid --repeat '0': expected a number of boots, 1..100\n");
	tu_expect(cmd_boot, word, 2, 2,
		  "kprotperf boot: invalid --repeat 'x': expected a number of boots, 1..100\n");
	tu_expect(cmd_boot, neg, 2, 2,
		  "kprotperf boot: invalid --repeat '-3': expected a number of boots, 1..100\n");
	tu_expect(cmd_boot, cache, 2, 2,
		  "kprotperf boot: invalid --LL '1,2': expected SIZE,ASSOC,LINE (bytes, ways, "
		  "bytes)\n");
	tu_expect(cmd_boot, cpu, 2, 2,
		  "kprotperf boot: invalid --cpu 'Skylake Client': expected a QEMU CPU model such"
		  " as Skylake-Client-v1 (qemu-system-x86_64 -cpu help)\n");
	tu_expect(cmd_boot, dash, 2, 2,
		  "kprotperf boot: invalid --cpu '-x': expected a QEMU CPU model such as"
		  " Skylake-Client-v1 (qemu-system-x86_64 -cpu help)\n");
	tu_expect(cmd_boot, core, 2, 2,
		  "kprotperf boot: --core describes the timing model's core: it needs --model"
		  " timing\n");
	setenv("KP_VM_RUN", "/nonexistent/vm-run.sh", 1);
	tu_expect(cmd_boot, ok, 2, 1,
		  "kprotperf boot: no scripts/vm-run.sh at /nonexistent/vm-run.sh: set KP_VM_RUN "
		  "to its path\n");
	unsetenv("KP_VM_RUN");
}

/*
 * A real log: Debian 12's 6.1.0 booted by vm-run.sh --boot (icount), kept
 * in tests/unit/boot/.  Its summary whole, and its first and last initcall.
 */
static void test_dmesg_real(void **state)
{
	struct boot_dmesg d;
	char why[256], line[512];
	size_t n;

	assert_int_equal(
		boot_dmesg_read("tests/unit/boot/debian-6.1-dmesg.txt", &d, why, sizeof(why)), 0);
	n = snprintf(line, sizeof(line), "%zu initcalls, %lu unpaired; first %s at %llu; last %s",
		     d.n, d.unpaired, d.ic[0].name, (unsigned long long)d.ic[0].start_ns,
		     d.ic[d.n - 1].name);
	snprintf(line + n, sizeof(line) - n, "; end %llu, first user %llu, offset %llu",
		 (unsigned long long)d.initcalls_end_ns, (unsigned long long)d.first_user_ns,
		 (unsigned long long)d.clock_offset_ns);
	assert_true(d.has_initcalls_end && d.has_first_user && d.has_clock_offset);
	/* PCI quirks' "pci ...: calling  quirk_...": no initcall, not counted */
	assert_string_equal(line, "670 initcalls, 0 unpaired; first con_init at 112453000; last "
				  "genpd_power_off_unused; end 1682219000, first user 1827069000, "
				  "offset 4396650850");
	boot_dmesg_free(&d);
}

/*
 * A stand-in for vm-run.sh at DIR/vm-run.sh: it logs its arguments (the
 * --out folder left out: it is in the scratch folder) to DIR/args and
 * copies DIR/run-0 into --out; with fail, leaves a console.log of 12 lines
 * (one with an escape sequence) and its reason, and exits 125.
 */
static const char *fake_vmrun(bool fail)
{
	static char path[PATH_MAX];
	char *text;

	assert_true(asprintf(&text,
			     "#!/bin/sh\n"
			     "[ \"$1 $2\" = '--boot --out' ] || exit 99\n"
			     "out=$3; shift 3; echo \"$*\" >>'%1$s/args'; mkdir -p \"$out\"\n"
			     "%2$s",
			     dir,
			     fail ? "i=1; while [ $i -le 12 ]; do echo \"console $i\"; i=$((i+1)); "
				    "done >\"$out/console.log\"\n"
				    "printf 'panic \\033[2J\\n' >>\"$out/console.log\"\n"
				    "echo 'vm-run: the guest kernel panicked' >&2; exit 125\n"
				  : "") > 0);
	snprintf(path, sizeof(path), "%s/vm-run.sh", dir);
	file("vm-run.sh", text);
	free(text);
	if (!fail) {
		snprintf(path, sizeof(path), "%s/vm-run.sh", dir);
		assert_int_equal(
			tu_run("printf 'cp \"%%s\"/run-0/* \"$out\"/\\n' '%s' >>'%s'", dir, path),
			0);
	}
	assert_int_equal(chmod(path, 0700), 0);
	setenv("KP_VM_RUN", path, 1);
	setenv("TMPDIR", dir, 1);
	unlink(file("args", ""));
	return path;
}

/* "done in 12.3 s": the time masked */
static void mask_times(char *s)
{
	char *p, *end;

	for (p = s; (p = strstr(p, "done in ")); p += 8) {
		end = strstr(p, " s\n");
		if (!end)
			return;
		p[8] = 'T';
		memmove(p + 9, end, strlen(end) + 1);
	}
}

/* kprotperf boot end to end over the stand-in: two boots, vm-run.sh's arguments, the file. */
static void test_boot_command(void **state)
{
	char *argv[] = {"boot",	 "--kernel", "linux-image-amd64", "--append", "a b",
			"-r",	 "2",	     "--timeout",	  "30",	      "--model",
			"insns", "--cpu",    "Skylake-Client-v1", "-o",	      (char *)output(),
			NULL};
	char *err, *args, *out, path[PATH_MAX];
	int ret;

	raw_folder("run-0", KALLSYMS("ffffffff81"),
		   "# kp_model 1\n# mode insns\n# qemu 8.2.2\n# window complete\n"
		   "# boot entry_insns 5\n# boot first_user_insns 9\n# columns pc insns\n"
		   "0x100000 5\n0xffffffff81000100 4\n",
		   "abcd1234\n");
	fake_vmrun(false);
	unlink(output());
	err = tu_run_fd(cmd_boot, argv, 2, &ret);
	mask_times(err);
	mask_dir(err);
	assert_string_equal(err, "kprotperf boot: boot 1/2...\n"
				 "kprotperf boot: boot 1/2 done in T s\n"
				 "kprotperf boot: boot 2/2...\n"
				 "kprotperf boot: boot 2/2 done in T s\n"
				 "kprotperf: wrote DIR/boot.data: 2 boots\n");
	assert_int_equal(ret, 0);
	free(err);
	args = tu_read_file(strcat(strcpy(path, dir), "/args"));
	assert_non_null(args);
	assert_string_equal(args, "--kernel linux-image-amd64 --append a b --timeout 30 --cpu "
				  "Skylake-Client-v1 --model insns\n"
				  "--kernel linux-image-amd64 --append a b --timeout 30 --cpu "
				  "Skylake-Client-v1 --model insns\n");
	free(args);
	out = dump_recording(output());
	assert_non_null(strstr(out, "-- SELECT * FROM boot_runs ORDER BY run\n"
				    "0|150750750|300002000|500000000|5|9|3\n"
				    "1|150750750|300002000|500000000|5|9|3\n-- "));
	/* the scratch folder (in TMPDIR, the test's folder) is gone */
	assert_int_equal(tu_run("! ls -d '%s'/kprotperf-boot.* 2>/dev/null", dir), 0);
	free(out);
}

/* A boot vm-run.sh could not make: 125, the console's last 10 lines escaped, its reason, no file.
 */
static void test_boot_failed(void **state)
{
	char *argv[] = {"boot", "-o", (char *)output(), NULL};
	char *err;
	int ret;

	fake_vmrun(true);
	unlink(output());
	err = tu_run_fd(cmd_boot, argv, 2, &ret);
	assert_int_equal(ret, 125);
	assert_string_equal(err, "kprotperf boot: boot 1/1...\n"
				 "kprotperf boot: boot 1/1 failed; the console's last lines:\n"
				 "  | console 4\n  | console 5\n  | console 6\n  | console 7\n"
				 "  | console 8\n  | console 9\n  | console 10\n  | console 11\n"
				 "  | console 12\n  | panic \\x1b[2J\n"
				 "kprotperf boot: vm-run.sh: vm-run: the guest kernel panicked\n");
	assert_int_equal(access(output(), F_OK), -1);
	assert_int_equal(tu_run("! ls -d '%s'/kprotperf-boot.* 2>/dev/null", dir), 0);
	free(err);
	unsetenv("KP_VM_RUN");
	unsetenv("TMPDIR");
}

static int setup(void **state)
{
	return tu_mkdtemp(dir, sizeof(dir), "boot-collect");
}

static int teardown(void **state)
{
	return tu_run("rm -rf '%s'", dir) ? -1 : 0;
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_dmesg_good),
		cmocka_unit_test(test_dmesg_hostile),
		cmocka_unit_test(test_dmesg_no_initcalls),
		cmocka_unit_test(test_dmesg_tsc_before_clock),
		cmocka_unit_test(test_dmesg_real),
		cmocka_unit_test(test_collect_two_runs),
		cmocka_unit_test(test_collect_real),
		cmocka_unit_test(test_collect_format2),
		cmocka_unit_test(test_collect_timing),
		cmocka_unit_test(test_collect_vulns_link),
		cmocka_unit_test(test_collect_no_model),
		cmocka_unit_test(test_collect_refused),
		cmocka_unit_test(test_cli_refusals),
		cmocka_unit_test(test_boot_command),
		cmocka_unit_test(test_boot_failed),
	};

	return cmocka_run_group_tests(tests, setup, teardown);
}
