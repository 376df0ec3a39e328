/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * The machine model's window markers as the guest executes them
 * (plugin/kp_model.c matches their bytes): record --model and the
 * model-window workload both open a window with model_marker_start().
 */
#ifndef KP_MODEL_MARKER_H
#define KP_MODEL_MARKER_H

/* nopw 0x4b5052NN(%rax,%rax,1): multi-byte nops no compiler emits */
#define MODEL_MARKER_STOP "nopw 0x4b505202(%%rax,%%rax,1)"

/*
 * The start marker, then a jump: it ends the marker's translation block,
 * so counting starts at its target.  There the plugin sees a load from the
 * marker's own address, which tells it where guest RAM is among QEMU's host
 * addresses (instruction fetches have no physical address in plugin API 1).
 */
static inline void model_marker_start(void)
{
	unsigned long bytes;

	asm volatile("0: nopw 0x4b505201(%%rax,%%rax,1)\n\t"
		     "jmp 1f\n"
		     "1: movq 0b(%%rip), %0"
		     : "=r"(bytes)
		     :
		     : "memory");
	(void)bytes;
}

static inline void model_marker_stop(void)
{
	asm volatile(MODEL_MARKER_STOP ::: "memory");
}

#endif
