/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * The machine model's window markers as the guest executes them
 * (plugin/kp_model.c matches their bytes): record --model and the
 * model-window workload both open a window with model_marker_hint_guest()
 * and model_marker_start().
 */
#ifndef KP_MODEL_MARKER_H
#define KP_MODEL_MARKER_H

#include <stdbool.h>
#include <stdio.h>
#include <string.h>

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

/*
 * The hint: nopw 0x4b5053NN(%rax,%rax,1), NN = 0x80 | pti | pcid << 1.  It
 * tells the plugin whether the guest uses page-table isolation (its kernel
 * pages are then not global) and PCIDs (the TLBs' tags), which it cannot
 * read from the guest's registers.  The last one before a window counts.
 */
static inline void model_marker_hint(bool pti, bool pcid)
{
	switch ((pti ? 1 : 0) | (pcid ? 2 : 0)) {
	case 0:
		asm volatile("nopw 0x4b505380(%%rax,%%rax,1)" ::: "memory");
		break;
	case 1:
		asm volatile("nopw 0x4b505381(%%rax,%%rax,1)" ::: "memory");
		break;
	case 2:
		asm volatile("nopw 0x4b505382(%%rax,%%rax,1)" ::: "memory");
		break;
	default:
		asm volatile("nopw 0x4b505383(%%rax,%%rax,1)" ::: "memory");
		break;
	}
}

/* word, whole, among the blank-separated words of line */
static inline bool model_marker_word(const char *line, const char *word)
{
	size_t n = strlen(word);
	const char *p;

	for (p = strstr(line, word); p; p = strstr(p + 1, word))
		if ((p == line || strchr(" \t:", p[-1])) && strchr(" \t\n", p[n]))
			return true;
	return false;
}

/* the first line of path that starts with prefix (any line when ""), into buf */
static inline bool model_marker_line(const char *path, const char *prefix, char *buf, int size)
{
	FILE *f = fopen(path, "r");
	bool found = false;

	if (!f)
		return false;
	while (!found && fgets(buf, size, f))
		found = !strncmp(buf, prefix, strlen(prefix));
	fclose(f);
	return found;
}

/*
 * The hint for this guest: PTI when the kernel says it mitigates Meltdown
 * with it, PCID when the CPU has it (/proc/cpuinfo's flags) and the kernel
 * was not told nopcid
 */
static inline void model_marker_hint_guest(void)
{
	char buf[8192];
	bool pti, pcid;

	pti = model_marker_line("/sys/devices/system/cpu/vulnerabilities/meltdown",
				"Mitigation: PTI", buf, sizeof(buf));
	pcid = model_marker_line("/proc/cpuinfo", "flags", buf, sizeof(buf)) &&
	       model_marker_word(buf, "pcid");
	if (pcid && model_marker_line("/proc/cmdline", "", buf, sizeof(buf)))
		pcid = !model_marker_word(buf, "nopcid");
	model_marker_hint(pti, pcid);
}

static inline void model_marker_stop(void)
{
	asm volatile(MODEL_MARKER_STOP ::: "memory");
}

#endif
