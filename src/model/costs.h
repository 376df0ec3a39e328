/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * The cost table of the machine model's estimated cycles (issue 45, spec
 * §5): extra cycles over cpi per miss and per event, JSON, shipped per guest
 * CPU model (share/costs) or calibrated on this machine (kprotperf
 * calibrate).
 */
#ifndef KP_MODEL_COSTS_H
#define KP_MODEL_COSTS_H

enum model_cost_key {
	MC_I1_MISS,
	MC_D1_MISS,
	MC_LL_MISS,
	MC_ITLB_MISS,
	MC_DTLB_MISS,
	MC_CR3_WRITE,
	MC_TLB_FLUSH,
	MC_LFENCE,
	MC_MFENCE,
	MC_SFENCE,
	MC_CPUID,
	MC_WRMSR,
	MC_RDMSR,
	MC_VERW,
	MC_IRET,
	MC_SYSRET,
	MC_SWAPGS,
	MC_MOV_CR,
	MC_INVLPG,
	MC_INVPCID,
	MC_WBINVD,
	MC_LXDT,
	MC_CALL_IND,
	MC_JMP_IND,
	MC_RET,
	MC_RETPOLINE,
	MC_RETURN_THUNK,
	MC_KEYS
};
struct model_costs {
	char name[128], path[256], vendor[16], model_name[64];
	int family, model;
	double ghz, cpi, c[MC_KEYS];
};
extern const char *const model_cost_names[MC_KEYS];
/* kind word of the raw table → its cost key, or -1 (no cost of its own) */
int model_cost_of_kind(const char *kind);
/* a file (regular, ≤ 64 KiB, no link followed): 0 or -errno with one line printed naming the
 * problem */
int model_costs_load(const char *path, struct model_costs *c);
/* --costs GIVEN (a path, or "native": this machine's calibrated table, refused when it is of
   another CPU), else the shipped table for the guest's cpu.model string (Skylake, Cascadelake,
   EPYC-Rome), else this machine's calibrated table, else -ENOENT with one line saying how to get
   one */
int model_costs_pick(const char *given, const char *guest_cpu_model, struct model_costs *c);

#endif
