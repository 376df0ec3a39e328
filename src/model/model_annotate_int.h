/* SPDX-License-Identifier: GPL-2.0-only */
/* What annotate --model's parts share: the counts of one function's PCs, its lines, its blocks. */
#ifndef KP_MODEL_ANNOTATE_INT_H
#define KP_MODEL_ANNOTATE_INT_H

#include <stdbool.h>
#include <stddef.h>
#include <linux/types.h>

#include "model/rows.h"
#include "symbols/user_frames.h"

struct json;
struct model_annotate_opts;
struct model_blocks;
struct sym_result;

/* One counted PC of the function annotated. */
struct model_pc {
	__u64 pc;
	struct model_func c; /* name and module NULL: the function's */
};

/* One source line's counts; name and module those of the function holding it. */
struct model_line {
	struct model_func c;
	char *file, *inlined; /* inlined: the functions inlined there, outermost first */
	int line;
};

struct model_map_list {
	struct model_map *m; /* path and build_id owned */
	size_t n, cap;
};
/* model_place.c: each distinct mapping of df's files into l (-ENOMEM, or as data/ readers fail). */
int model_map_list_read(struct datafile *df, struct model_map_list *l);
void model_map_list_free(struct model_map_list *l);

struct model_ann {
	struct datafile *df;
	struct kernel_dwarf *kd; /* NULL: kernel PCs have no line */
	const struct model_annotate_opts *o;
	struct model_counts mc;
	const struct model_func *fn; /* o->func's row in mc.funcs; NULL: all functions */
	bool kernel;		     /* fn is a function of the kernel's own text */
	struct model_pc *pcs;	     /* fn's counted PCs, by pc */
	size_t npcs, pcap;
	struct model_line *lines;
	size_t nlines, lcap;
	struct model_func unplaced; /* counts at PCs no line table knows */
	struct model_map_list maps; /* user PCs to file offsets */
	struct user_file uf;	    /* the user file last looked at */
	struct model_blocks *blk;   /* fn's blocks, when fn is the kernel's */
	struct json *j;		    /* NULL: text */
};

/*
 * model_place.c: the recording's maps read (-ENOMEM, or as data/ readers
 * fail), so that model_pc_place() places user PCs; closed with what it
 * opened of the user files.
 */
int model_place_open(struct model_ann *a);
void model_place_close(struct model_ann *a);
/* The source place of PC pc of a function in module: 0 with *r, -ENOENT none, -ENOMEM. */
int model_pc_place(struct model_ann *a, __u64 pc, const char *module, const struct sym_result **r);
/* The functions inlined at r, outermost first, joined by ';' (caller frees; "" none). */
char *model_inlined_chain(const struct sym_result *r);

/* model_lines.c: a's lines from its PCs (fn's, or all), merged by place, then printed. */
int model_lines_collect(struct model_ann *a);
void model_lines_print(struct model_ann *a);
void model_lines_free(struct model_ann *a);
/*
 * model_blocks.c: fn's basic blocks and loops from the kernel's file, the counts
 * laid on them (a graph that cannot be built is said when printed: only
 * -ENOMEM fails), printed (text or a->j), freed.
 */
int model_blocks_build(struct model_ann *a);
void model_blocks_print(struct model_ann *a);
void model_blocks_free(struct model_ann *a);

#endif
