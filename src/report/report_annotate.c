// SPDX-License-Identifier: GPL-2.0-only
/*
 * kprotperf annotate --func NAME: where inside one function the CPU samples
 * fell, per source line (with what was inlined at that line) and, for a
 * kernel function, per address range of each inline instance in it.  A
 * kernel function needs the kernel's DWARF, a user one its file's (read
 * when naming the user frames, symbols/user_frames.h).
 */
#include "report/report_annotate.h"

#include <errno.h>
#include <stdbool.h>
#include <stdio.h>

#include "data/datafile.h"
#include "data/samples.h"
#include "symbols/inlines.h"
#include "symbols/kernel_dwarf.h"
#include "symbols/stacks.h"
#include "symbols/user_frames.h"
#include "util/esc.h"
#include "util/json.h"

struct annotator {
	struct datafile *df;
	struct kernel_dwarf *kd; /* NULL: func is a user function */
	const char *func;
	bool json;
	struct json *j;
	long long self, total; /* the function's samples: in its code, anywhere on the stack */
};

static int line_row(const struct samples_hit_line *l, void *ctx)
{
	struct annotator *a = ctx;
	char where[256];

	snprintf(where, sizeof(where), "%s:%d", l->file ?: "??", l->line);
	if (!a->j) {
		esc_printf(stdout, "%8lld %6.2f%% %8lld  %-36s %s\n", l->self,
			   a->self ? 100.0 * l->self / a->self : 0.0, l->total, where,
			   l->chain ?: "");
		return 0;
	}
	json_open(a->j, NULL, '{');
	json_str(a->j, "file", l->file ?: "??");
	json_u64(a->j, "line", l->line);
	json_str(a->j, "inlined", l->chain ?: "");
	json_u64(a->j, "self_samples", l->self);
	json_u64(a->j, "total_samples", l->total);
	json_close(a->j, '}');
	return 0;
}

static int print_range(struct annotator *a, __u64 lo, __u64 hi)
{
	long long self, total;
	/* the samples whose pc (at the function's depth) is in the range: at the leaf, anywhere */
	int err = samples_hit_range(a->df, lo, hi, &self, &total);

	if (err)
		return err;
	if (!a->j) {
		printf("    0x%llx-0x%llx %6llu bytes %8lld %8lld\n", (unsigned long long)lo,
		       (unsigned long long)hi, (unsigned long long)(hi - lo), self, total);
		return 0;
	}
	json_open(a->j, NULL, '{');
	json_u64(a->j, "lo", lo);
	json_u64(a->j, "hi", hi);
	json_u64(a->j, "self_samples", self);
	json_u64(a->j, "total_samples", total);
	json_close(a->j, '}');
	return 0;
}

static int inst_row(__u64 die, __u64 func_die, long long self, long long total, void *ctx)
{
	struct annotator *a = ctx;
	struct inline_instance in;
	size_t i;
	int err = 0;

	/* a DIE the DWARF cannot take back is no instance to show */
	if (inlines_at(kernel_dwarf_debuginfo(a->kd), die, func_die, &in))
		return 0;
	if (!a->j) {
		esc_printf(
			stdout,
			"  %s (called at %s:%d), %zu ranges, %llu bytes: self %lld, total %lld\n",
			in.func, in.call_file ?: "?", in.call_line, in.nranges,
			(unsigned long long)in.bytes, self, total);
	} else {
		json_open(a->j, NULL, '{');
		json_str(a->j, "inlined", in.func);
		json_str(a->j, "call_file", in.call_file ?: "");
		json_u64(a->j, "call_line", in.call_line);
		json_u64(a->j, "bytes", in.bytes);
		json_u64(a->j, "self_samples", self);
		json_u64(a->j, "total_samples", total);
		json_open(a->j, "ranges", '[');
	}
	for (i = 0; i < in.nranges && !err; i++)
		err = print_range(a, kernel_dwarf_runtime(a->kd, in.ranges[i].lo),
				  kernel_dwarf_runtime(a->kd, in.ranges[i].hi));
	if (a->j) {
		json_close(a->j, ']');
		json_close(a->j, '}');
	}
	inlines_free_one(&in);
	return err;
}

/* Per inline range needs each frame's pc, which user frames do not keep. */
static int annotate_text(struct annotator *a)
{
	const char *symfs = datafile_symfs(a->df);
	int err;

	esc_printf(stdout,
		   "# annotate %s: %lld samples with it on the %s stack, %lld in its own code\n",
		   a->func, a->total, a->kd ? "kernel" : "user", a->self);
	if (a->kd)
		esc_printf(stdout, "# kernel %s, DWARF from %s\n\n",
			   datafile_meta(a->df, "kernel.release") ?: "?", kernel_dwarf_path(a->kd));
	else
		esc_printf(stdout, "# user function, DWARF from its mapped files%s%s\n\n",
			   symfs ? " under " : "", symfs ?: "");
	printf("Per source line (SELF: the sampled pc is on the line; TOTAL: also in functions\n"
	       "called from it; INLINED: the functions inlined there, outermost first)\n");
	printf("%8s %7s %8s  %-36s %s\n", "SELF", "SELF%", "TOTAL", "LINE", "INLINED");
	err = samples_hit_lines(a->df, line_row, a);
	if (err || !a->kd)
		return err;
	printf("\nPer inline range (samples with the pc in the range: SELF at the leaf, TOTAL "
	       "anywhere)\n");
	return samples_hit_insts(a->df, inst_row, a);
}

static int annotate_json(struct annotator *a)
{
	struct json j;
	int err;

	a->j = &j;
	json_begin(&j, stdout);
	json_open(&j, NULL, '{');
	json_str(&j, "function", a->func);
	if (a->kd)
		json_str(&j, "vmlinux", kernel_dwarf_path(a->kd));
	else
		json_str(&j, "space", "user");
	json_u64(&j, "self_samples", a->self);
	json_u64(&j, "total_samples", a->total);
	json_open(&j, "lines", '[');
	err = samples_hit_lines(a->df, line_row, a);
	json_close(&j, ']');
	if (a->kd) {
		json_open(&j, "inline_instances", '[');
		err = err ?: samples_hit_insts(a->df, inst_row, a);
		json_close(&j, ']');
	}
	json_close(&j, '}');
	json_end(&j);
	return err;
}

static int annotate(struct annotator *a)
{
	/* a user function's lines are its files' DWARF; a kernel one's, the kernel's alone */
	struct user_files *uf = a->kd ? NULL : user_files_new();
	int err = !a->kd && !uf ? -ENOMEM : stacks_name_frames(a->df, a->kd, uf);

	user_files_free(uf);
	err = err ?: samples_hit_create(a->df, a->func, !a->kd);
	if (err)
		return err;
	samples_hit_totals(a->df, &a->total, &a->self);
	if (!a->total)
		return ANNOTATE_NO_SAMPLES;
	return a->json ? annotate_json(a) : annotate_text(a);
}

int annotate_show(struct datafile *df, struct kernel_dwarf *kd, const char *func, bool json)
{
	struct annotator a = {.df = df, .kd = kd, .func = func, .json = json};

	return annotate(&a);
}
