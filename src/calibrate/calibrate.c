// SPDX-License-Identifier: GPL-2.0-only
/*
 * This machine's costs measured (calibrate/calibrate.h): each microbenchmark
 * timed against its twin without the instruction measured, converted to
 * cycles by the clock of a dependent multiply chain (checked against an
 * add chain and the TSC), the constants taken from the shipped table of
 * the machine's vendor.
 */
#include "calibrate/calibrate.h"

#include <errno.h>
#include <math.h>
#include <stdarg.h>
#include <sched.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <time.h>
#include <x86intrin.h>

/* fn's cycles per body (bodies: how many one n stands for). */
static double cycles(struct calib *k, calib_loop_fn *fn, void *ctx, long n, double bodies)
{
	return calib_time(fn, ctx, n) / bodies * k->ghz;
}

/* A cost into the table, never below 0, with its source. */
static void set(struct calib *k, enum model_cost_key key, double v, const char *fmt, ...)
	__attribute__((format(printf, 4, 5)));
static void set(struct calib *k, enum model_cost_key key, double v, const char *fmt, ...)
{
	va_list ap;

	k->r->costs.c[key] = v > 0 ? round(v * 10) / 10 : 0;
	va_start(ap, fmt);
	vsnprintf(k->r->src.s[key], MODEL_COST_SOURCE_MAX, fmt, ap);
	va_end(ap);
	if (k->err)
		fprintf(k->err, "calibrate: %-12s %8.1f cycles\n", model_cost_names[key],
			k->r->costs.c[key]);
}

#define KIB (1UL << 10)

/*
 * The memory hierarchy: d1_miss, ll_miss, dtlb_miss from calib_core's data
 * chases; i1_miss, itlb_miss from chains of jumps.
 */
static int memory(struct calib *k)
{
	struct calib_region code[] = {{4 * KIB, CALIB_LINES, false, 1L << 14},
				      {256 * KIB, CALIB_LINES, false, 1L << 8},
				      {0, CALIB_PAGES, false, 1}};
	struct model_costs *cs = &k->r->costs;
	double c[3], jsmall, jbig, jpages;
	struct calib_loads l;

	if (calib_core(k, &l))
		return -ENOMEM;
	code[2].size = l.pages * 4 * KIB;
	if (calib_regions(k, code, 3, true, c))
		return -ENOMEM;
	jsmall = c[0], jbig = c[1], jpages = c[2];
	set(k, MC_D1_MISS, l.l2 - l.l1,
	    "measured: core.load_to_use.l2 %.1f cycles less core.load_to_use.l1 %.1f (random "
	    "pointer chases through half of L2's size and of L1's, in huge pages)",
	    l.l2, l.l1);
	set(k, MC_DTLB_MISS, l.walk - l.lines_4k,
	    "measured: random pointer chase, one line in each of %zu 4 KiB pages (every access "
	    "a TLB miss, its %zu KiB of lines cached) %.1f cycles, less as many lines in %zu pages "
	    "%.1f",
	    l.pages, l.pages / 16, l.walk, l.pages / 64, l.lines_4k);
	set(k, MC_LL_MISS, l.dram_4k - l.l2 - cs->c[MC_DTLB_MISS],
	    "measured: random pointer chase over 256 MiB, 4 KiB pages (MADV_NOHUGEPAGE) %.1f "
	    "cycles a load, less the L2 latency %.1f and dtlb_miss %.1f%s",
	    l.dram_4k, l.l2, cs->c[MC_DTLB_MISS],
	    l.dram_4k < l.l2 + cs->c[MC_DTLB_MISS]
		    ? " (below 0, taken as 0: here the page walk, not the line, is what a load "
		      "missing everything waits for)"
		    : "");
	set(k, MC_I1_MISS, jbig - jsmall,
	    "measured: a random chain of jumps through 256 KiB of generated code, one a 64-byte "
	    "line, %.1f cycles a jump, less the same in 4 KiB %.1f",
	    jbig, jsmall);
	set(k, MC_ITLB_MISS, jpages - l.lines_4k - jsmall,
	    "measured: a random chain of jumps, one in each of %zu 4 KiB pages of code, %.1f "
	    "cycles a jump, less the data chase's through as many lines %.1f and a cached jump %.1f",
	    l.pages, jpages, l.lines_4k, jsmall);
	return 0;
}

/* The instructions: fences, CPUID, VERW, IRETQ, calls, jumps, returns, thunks. */
static void instructions(struct calib *k)
{
	struct model_costs *c = &k->r->costs;
	long buf[8] = {0};
	unsigned short ds;
	double base, call, ind, pair;

	base = cycles(k, calib_nofence, buf, 1L << 16, CALIB_BODIES);
	set(k, MC_LFENCE, cycles(k, calib_lfence, buf, 1L << 16, CALIB_BODIES) - base,
	    "measured: LFENCE between a store and two adds, less the same without it");
	set(k, MC_MFENCE, cycles(k, calib_mfence, buf, 1L << 15, CALIB_BODIES) - base,
	    "measured: MFENCE between a store and two adds, less the same without it");
	set(k, MC_SFENCE, cycles(k, calib_sfence, buf, 1L << 16, CALIB_BODIES) - base,
	    "measured: SFENCE between a store and two adds, less the same without it");
	set(k, MC_CPUID,
	    cycles(k, calib_cpuid, NULL, 1L << 10, CALIB_BODIES) -
		    cycles(k, calib_nocpuid, NULL, 1L << 10, CALIB_BODIES),
	    "measured: CPUID leaf 0, less the loop without it (under a hypervisor CPUID traps: "
	    "this is the trap's cost)");
	asm("mov %%ss, %0" : "=r"(ds)); /* __USER_DS: 64-bit user mode's %ds is 0 */
	set(k, MC_VERW,
	    cycles(k, calib_verw, &ds, 1L << 14, CALIB_BODIES) -
		    cycles(k, calib_empty, NULL, 1L << 14, CALIB_BODIES),
	    "measured: VERW of the user data selector (%%ss, %#x) from memory, less an empty loop "
	    "(buffers cleared only on a CPU whose microcode makes VERW clear them)",
	    ds);
	set(k, MC_IRET,
	    cycles(k, calib_iret, NULL, 1L << 14, CALIB_BODIES) -
		    cycles(k, calib_noiret, NULL, 1L << 14, CALIB_BODIES),
	    "measured: IRETQ to the same ring (ring 3) through a frame pushed, less the frame "
	    "pushed and popped (a return to another ring costs more)");
	call = cycles(k, calib_call_lea, NULL, 1L << 16, CALIB_BODIES);
	ind = cycles(k, calib_call_ind, NULL, 1L << 16, CALIB_BODIES);
	set(k, MC_CALL_IND, ind - call,
	    "measured: a predicted CALL *%%rax to a RET, less a direct CALL to it");
	set(k, MC_JMP_IND,
	    cycles(k, calib_jmp_ind, NULL, 1L << 16, CALIB_BODIES) -
		    cycles(k, calib_jmp_direct, NULL, 1L << 16, CALIB_BODIES),
	    "measured: a predicted JMP *%%rax, less a direct JMP");
	pair = cycles(k, calib_call_direct, NULL, 1L << 16, CALIB_BODIES);
	set(k, MC_RET, pair - 2 * c->cpi,
	    "measured: a direct CALL and its predicted RET, %.1f cycles, less two instructions "
	    "at cpi",
	    pair);
	set(k, MC_RETPOLINE,
	    cycles(k, calib_retpoline, NULL, 1L << 14, CALIB_BODIES) - ind - 3 * c->cpi -
		    c->c[MC_RET],
	    "measured: a CALL through a retpoline thunk built as Linux's "
	    "__x86_indirect_thunk_rax, less a predicted CALL *%%rax, the thunk's three "
	    "instructions at cpi and its RET's cost");
	set(k, MC_RETURN_THUNK,
	    cycles(k, calib_return_thunk, NULL, 1L << 16, CALIB_BODIES) - pair - c->cpi,
	    "measured: a RET through a return thunk (JMP to 'ret; int3', as Linux's "
	    "__x86_return_thunk), less a plain RET and the JMP at cpi");
}

/* The costs user mode cannot measure: the shipped table of this vendor's, each source named. */
static int constants(struct calib *k)
{
	static const enum model_cost_key keys[] = {MC_CR3_WRITE, MC_TLB_FLUSH, MC_WRMSR,  MC_RDMSR,
						   MC_SYSRET,	 MC_SWAPGS,    MC_MOV_CR, MC_INVLPG,
						   MC_INVPCID,	 MC_WBINVD,    MC_LXDT};
	struct model_cost_sources *src = malloc(sizeof(*src));
	bool amd = !strcmp(k->r->costs.vendor, "AuthenticAMD");
	const char *file = amd ? "epyc-rome.json" : "skylake.json";
	struct model_costs ship;
	size_t i;
	int err;

	if (!src)
		return -ENOMEM;
	err = model_costs_pick_sources(NULL, amd ? "EPYC-Rome" : "Skylake", &ship, src);
	for (i = 0; !err && i < sizeof(keys) / sizeof(keys[0]); i++)
		set(k, keys[i], ship.c[keys[i]], "constant (user mode cannot run it), of %s: %s",
		    file, src->s[keys[i]]);
	free(src);
	return err;
}

/*
 * The two clocks must agree this closely (a host's load that comes and goes
 * during the round robin moves them a few percent), and the core's clock
 * lie within these factors of the TSC's rate: turbo runs up to ~2x the
 * nominal rate on desktop parts, ~3x on low-power laptop ones.
 */
#define CLOCK_AGREE 0.15
#define TSC_LOW	    0.25
#define TSC_HIGH    4.0

/* The TSC's rate in GHz against CLOCK_MONOTONIC, over a multiply chain of ~10 ms. */
static double tsc_ghz(void)
{
	struct timespec a, b;
	unsigned long long c0, c1;

	clock_gettime(CLOCK_MONOTONIC, &a);
	c0 = __rdtsc();
	calib_imul_chain(NULL, 1L << 19);
	c1 = __rdtsc();
	clock_gettime(CLOCK_MONOTONIC, &b);
	return (c1 - c0) / ((b.tv_sec - a.tv_sec) * 1e9 + (b.tv_nsec - a.tv_nsec));
}

/*
 * The core's clock, cycles per ns: a dependent IMUL chain (3 cycles each),
 * cross-checked by a dependent register ADD chain (1 each) timed round robin
 * with it, and bounded by the TSC's rate.  A dependent immediate add is no
 * clock: Golden Cove and later fold them, faster than one a cycle.  0, or
 * -ERANGE said in one line when the measures disagree.
 */
static int measure_clock(struct calib *k)
{
	struct calib_job j[2] = {{calib_imul_chain, NULL, 1L << 15, 0},
				 {calib_add_chain, NULL, 1L << 16, 0}};
	double imul, add, tsc;

	calib_time_rr(j, 2);
	imul = CALIB_IMUL_LAT * CALIB_CHAIN_OPS / j[0].best;
	add = CALIB_ADD_LAT * CALIB_CHAIN_OPS / j[1].best;
	tsc = tsc_ghz();
	if (fabs(add / imul - 1) > CLOCK_AGREE) {
		fprintf(stderr,
			"kprotperf calibrate: no sure clock: a dependent IMUL chain (3 cycles each) "
			"gives %.3f GHz, a dependent ADD chain (1 each) %.3f GHz, over %.0f%% apart: "
			"no table written\n",
			imul, add, CLOCK_AGREE * 100);
		return -ERANGE;
	}
	if (imul < TSC_LOW * tsc || imul > TSC_HIGH * tsc) {
		fprintf(stderr,
			"kprotperf calibrate: no sure clock: a dependent IMUL chain gives %.3f GHz, "
			"%.2fx the TSC's %.3f GHz (outside %.2f-%.0fx): no table written\n",
			imul, imul / tsc, tsc, TSC_LOW, TSC_HIGH);
		return -ERANGE;
	}
	k->ghz = k->r->costs.ghz = round(imul * 1000) / 1000;
	if (k->err)
		fprintf(k->err,
			"calibrate: %.3f GHz (a dependent IMUL chain; an ADD chain %.3f, "
			"the TSC %.3f)\n",
			k->ghz, add, tsc);
	return 0;
}

/* Pinned to the CPU it runs on: no migration between a loop and its twin. */
static void pin(void)
{
	cpu_set_t set;
	int cpu = sched_getcpu();

	if (cpu < 0)
		return;
	CPU_ZERO(&set);
	CPU_SET(cpu, &set);
	sched_setaffinity(0, sizeof(set), &set);
}

int calib_measure(struct calib_result *r, FILE *err)
{
	struct calib k = {.err = err, .r = r};
	struct model_costs *c = &r->costs;
	long buf[8] = {0};
	int e;

	memset(r, 0, sizeof(*r));
	pin();
	model_costs_this_cpu(c);
	snprintf(c->name, sizeof(c->name), "calibrated on %s (this machine)",
		 *c->model_name ? c->model_name : c->vendor);
	e = measure_clock(&k);
	if (e)
		return e;
	c->cpi = round(cycles(&k, calib_mix, buf, 1L << 16, 1) /
		       (CALIB_BODIES * CALIB_MIX_INSNS + 2) * 1000) /
		 1000;
	if (err)
		fprintf(err, "calibrate: cpi %.3f\n", c->cpi);
	e = memory(&k);
	if (e) {
		fprintf(stderr, "kprotperf calibrate: cannot map the benchmarks' memory: %s\n",
			strerror(-e));
		return e;
	}
	instructions(&k);
	return constants(&k);
}
