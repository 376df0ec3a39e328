/* SPDX-License-Identifier: GPL-2.0-only */
/* What the reading commands share: their FILE operand, opening it, and its kernel's DWARF. */
#ifndef KP_CLI_H
#define KP_CLI_H

#include <stdbool.h>
#include <stddef.h>

struct datafile;
struct features;
struct kernel_dwarf;

/* --help of folded's and annotate's --vmlinux PATH, where cli_kernel_dwarf() looks. */
#define CLI_VMLINUX_HELP                                                \
	"the recorded kernel's vmlinux with DWARF (default: found by\n" \
	"build-id in /usr/lib/debug or kernel-build.sh's cache, or\n"   \
	"under /usr/lib/debug/boot, /boot, /lib/modules)"

/* --help of --symfs DIR, the reading commands' (cli_symfs()). */
#define CLI_SYMFS_HELP                                        \
	"look for files with symbols relative to DIR (as\n"   \
	"perf): the recorded user files as DIR/PATH, their\n" \
	"debug files under DIR/usr/lib/debug, none outside\n" \
	"DIR (default: /)"

#define CLI_GEOM_HELP                                           \
	"with --model: the misses of cache geometry K (0 by\n"  \
	"default; vm-run.sh --I1/--D1/--LL repeated simulate\n" \
	"several side by side)"

#define CLI_COSTS_HELP                                               \
	"with --model: the cost table of est_cycles, an estimate\n"  \
	"(docs/model.md): a JSON file, or native (this machine's,\n" \
	"from kprotperf calibrate); default: the shipped table of\n" \
	"the recorded CPU's model, else native; a recording of\n"    \
	"--model timing needs none: its est_cycles are the timing\n" \
	"model's cycles (a table given is said to be unused)"

#define CLI_STACK_HELP                                                 \
	"with --model, of a recording of --model timing: each row's\n" \
	"cycle stack beside est_cycles: the cycles the core model\n"   \
	"charged to base (issue), branch (mispredictions), icache,\n"  \
	"dcache, tlb and serialize, and each one's share"

/* --geom K into *geom: 0, or -EINVAL after saying why. */
int cli_geom(const char *cmd, const char *arg, unsigned int *geom);

struct model_view_opts;
/*
 * report --model (hard NULL) of the recording opened as base from path, or
 * diff --model of base and hard, each with its kernel's DWARF (or NULL): the exit status, 0 or 1
 * after one line saying why.
 */
int cli_model_view(const char *cmd, struct datafile *base, struct kernel_dwarf *kb,
		   const char *path, struct datafile *hard, struct kernel_dwarf *kh,
		   const struct model_view_opts *o);

/*
 * --symfs DIR's argument, for cli_open(): 0 when it is a folder, else
 * -EINVAL after saying why.
 */
int cli_symfs(const char *cmd, const char *dir);

/*
 * PREFIX/rel into buf when this binary is an installed one (PREFIX/bin/
 * kprotperf, wherever PREFIX is) and PREFIX/rel exists: buf, else NULL.
 */
const char *cli_prefix_path(const char *rel, char *buf, size_t len);

/*
 * The data file a command reads when no option names one: an installed
 * kprotperf's PREFIX/share/kprotperf/name (into buf), else NULL, the
 * built-in copy.
 */
const char *cli_data_file(const char *name, char *buf, size_t len);

/*
 * Take at most one positional FILE argument after options_parse() into
 * *input; input NULL: the command takes none.  -EINVAL (said) for more.
 */
int cli_input(int argc, char **argv, const char *cmd, const char **input);
/*
 * Open a recording, its files with symbols to be read under symfs (NULL: /,
 * see datafile_set_symfs()); on failure print one line naming the problem
 * and return -errno.
 */
int cli_open(const char *cmd, const char *path, const char *symfs, struct datafile **out);
/*
 * The feature mapping of --features path (NULL: cli_data_file()'s
 * features.conf); a bad file said in one line.
 */
int cli_features(const char *cmd, const char *path, struct features **out);
/*
 * Say in one line why reading path (opened as df) failed with err: the bad
 * value the data file holds (-EBADMSG), else err's text.
 */
void cli_read_error(const char *cmd, const char *path, struct datafile *df, int err);
/*
 * Whether df has no CPU sample, then said in one line ("kprotperf CMD:
 * PATH: no CPU samples in 1.77ms at 99 Hz"): for the commands that show
 * nothing else.
 */
bool cli_no_samples(const char *cmd, const char *path, struct datafile *df);
/* Whether df holds a bad value, then said as cli_read_error says it. */
bool cli_bad_data(const char *cmd, const char *path, struct datafile *df);

/*
 * The DWARF of the recording's kernel into *out: NULL when none is found,
 * which is said on stderr after "missing: " unless missing is NULL.  A file
 * that cannot be used (another build, no DWARF) is an error, printed:
 * returns -errno.  note, unless NULL, keeps what was said or would have
 * been ("" when the DWARF was found), for output that shows it elsewhere.
 */
int cli_kernel_dwarf(const char *cmd, struct datafile *df, const char *vmlinux, const char *missing,
		     struct kernel_dwarf **out, char *note, size_t len);

#endif
