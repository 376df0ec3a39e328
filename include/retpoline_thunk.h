/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * A retpoline thunk as Linux builds __x86_indirect_thunk_rax, for the
 * programs that time one (kprotperf calibrate) or run one under the model
 * (tests/bench/model_est.c): the call's return address is replaced by
 * %rax, so the ret goes there while its prediction spins in the trap.
 */
#ifndef KP_RETPOLINE_THUNK_H
#define KP_RETPOLINE_THUNK_H

#define RETPOLINE_THUNK_RAX     \
	"	call 1f\n"            \
	"2:	pause\n"            \
	"	lfence\n"             \
	"	jmp 2b\n"             \
	"	.p2align 4\n"         \
	"1:	mov %rax, (%rsp)\n" \
	"	ret\n"                \
	"	int3\n"

#endif
