// SPDX-License-Identifier: GPL-2.0-only
/* Raw boot folders into a recording (boot_collect.h). */
#include "boot/boot_collect.h"

#include <errno.h>
#include <limits.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "boot/opts.h"
#include "boot/dmesg.h"
#include "boot/boot_funcs.h"
#include "data/boot_write.h"
#include "data/datafile.h"
#include "system/provenance.h"
#include "data/recording.h"
#include "util/esc.h"
#include "util/kv.h"
#include "util/safeio.h"

/* What the runs must share, from run 0, and the recording being written. */
struct collect {
	const struct boot_opts *o;
	struct datafile *df;
	char release[65], build_id[129], cmdline[4096], qemu[128];
	char cpu_model[128]; /* the guest's /proc/cpuinfo model name; "": none */
	struct model_table t0;
	char *why;
	size_t len;
};

static void path_of(char *p, const char *dir, const char *name)
{
	snprintf(p, PATH_MAX, "%s/%s", dir, name);
}

/* The one line of a small file of the folder into buf (without its newline). */
static int small_file(struct collect *c, const char *dir, const char *name, char *buf, size_t size)
{
	char p[PATH_MAX], msg[256] = "";
	FILE *f;
	size_t n;

	path_of(p, dir, name);
	f = safeio_fopen_text(p, msg, sizeof(msg));
	if (!f) {
		snprintf(c->why, c->len, "%s: %s", p, msg[0] ? msg : strerror(errno));
		return -errno;
	}
	if (!fgets(buf, size, f))
		buf[0] = '\0';
	fclose(f);
	n = strcspn(buf, "\n");
	if (!n || (n == size - 1 && buf[n] != '\n')) {
		snprintf(c->why, c->len, "%s: %s", p, n ? "longer than it can be" : "empty");
		return -EBADMSG;
	}
	buf[n] = '\0';
	return 0;
}

/* Whether the folder has name at all: the files vm-run.sh added later are optional. */
static bool has(const char *dir, const char *name)
{
	char p[PATH_MAX];
	struct stat st;

	path_of(p, dir, name);
	return !lstat(p, &st) || errno != ENOENT;
}

/* release, build-id and cmdline; a run of another kernel than run 0's is refused. */
static int provenance(struct collect *c, const char *dir, unsigned int run)
{
	char release[sizeof(c->release)], id[sizeof(c->build_id)], p[PATH_MAX];
	int err;

	err = small_file(c, dir, "release", release, sizeof(release)) ?:
	      small_file(c, dir, "build-id", id, sizeof(id)) ?:
	      (run ? 0 : small_file(c, dir, "cmdline", c->cmdline, sizeof(c->cmdline))) ?:
	      (run || !has(dir, "cpu-model")
		       ? 0
		       : small_file(c, dir, "cpu-model", c->cpu_model, sizeof(c->cpu_model)));
	if (err)
		return err;
	if (strspn(id, "0123456789abcdef") != strlen(id)) {
		path_of(p, dir, "build-id");
		snprintf(c->why, c->len, "%s: not a build id in hex", p);
		return -EBADMSG;
	}
	if (!run) {
		memcpy(c->release, release, sizeof(release));
		memcpy(c->build_id, id, sizeof(id));
	} else if (strcmp(id, c->build_id)) {
		snprintf(c->why, c->len,
			 "run %u booted another kernel than run 0 (build id %s, not %s): refused",
			 run, id, c->build_id);
		return -EINVAL;
	}
	return 0;
}

/* dmesg.txt: the initcalls and the phases' times into row. */
static int initcalls(struct collect *c, const char *dir, unsigned int run, struct boot_run_row *row)
{
	char p[PATH_MAX], msg[256];
	struct boot_dmesg d;
	size_t i;
	int err;

	path_of(p, dir, "dmesg.txt");
	err = boot_dmesg_read(p, &d, msg, sizeof(msg));
	if (err)
		snprintf(c->why, c->len, "%s: %s", p, msg[0] ? msg : strerror(-err));
	for (i = 0; !err && i < d.n; i++)
		err = boot_put_initcall(c->df, run, i, d.ic[i].name, d.ic[i].start_ns, d.ic[i].ns,
					d.ic[i].ret);
	if (!err && !d.n)
		esc_printf(stderr,
			   "kprotperf boot: run %u: no initcall in %s (initcall_debug not "
			   "honoured?)\n",
			   run, p);
	if (!err && !d.has_clock_offset)
		esc_printf(stderr, "kprotperf boot: run %u: no clock offset: %s\n", run,
			   d.why_no_offset);
	row->has_clock_offset = d.has_clock_offset;
	row->clock_offset_ns = d.clock_offset_ns;
	row->has_initcalls_end = d.has_initcalls_end;
	row->initcalls_end_ns = d.initcalls_end_ns;
	row->has_first_user = d.has_first_user;
	row->first_user_ns = d.first_user_ns;
	row->initcalls = d.n;
	boot_dmesg_free(&d);
	return err;
}

/* The table must be of the mode asked for, the kernel that booted, and run 0's geometries. */
static int same_model(struct collect *c, const struct model_table *t, const char *p,
		      unsigned int run)
{
	if (strcmp(t->mode, c->o->model)) {
		snprintf(c->why, c->len, "%s: counted in mode %s, not the --model %s asked for", p,
			 t->mode, c->o->model);
		return -EINVAL;
	}
	if (t->kernel[0] && strcmp(t->kernel, c->build_id)) {
		snprintf(c->why, c->len, "%s: counted on kernel build %s, not the %s that booted",
			 p, t->kernel, c->build_id);
		return -EINVAL;
	}
	if (run && t->format != c->t0.format) {
		snprintf(c->why, c->len,
			 "%s: a table of format %u, run 0's of format %u: every boot needs the same"
			 " plugin",
			 p, t->format, c->t0.format);
		return -EINVAL;
	}
	if (run && (t->ngeom != c->t0.ngeom || memcmp(t->geom, c->t0.geom, sizeof(t->geom)))) {
		snprintf(c->why, c->len, "%s: counted with other cache geometries than run 0's", p);
		return -EINVAL;
	}
	/* the boots' cycles add up only when one core model made them */
	if (run && (strcmp(t->core, c->t0.core) || strcmp(t->timing, c->t0.timing))) {
		snprintf(c->why, c->len, "%s: timed by another core model than run 0's", p);
		return -EINVAL;
	}
	return 0;
}

/* A function's kinds of format 2: only those it executed or that flushed TLBs. */
static int put_events(struct collect *c, const struct boot_func *f, unsigned int run)
{
	unsigned int k;
	int err = 0;

	for (k = 0; !err && f->execs && k <= MODEL_KINDS; k++)
		if ((k < MODEL_KINDS && f->execs[k]) || f->flushes[k])
			err = boot_put_func_event(c->df, run, f->name, f->module,
						  k < MODEL_KINDS ? model_kind_names[k] : "-",
						  f->execs[k], f->flushes[k]);
	if (!err && f->thunks && (f->thunks[0] || f->thunks[1]))
		err = boot_put_func_thunks(c->df, run, f->name, f->module, f->thunks[0],
					   f->thunks[1]);
	return err;
}

static int put_funcs(struct collect *c, const struct boot_funcs *bf, const struct model_table *t,
		     unsigned int run)
{
	struct boot_func f;
	unsigned int g;
	size_t i;
	int err = 0;

	for (i = 0; !err && boot_funcs_at(bf, i, &f); i++) {
		err = boot_put_func(c->df, run, f.name, f.module, f.v[0]);
		for (g = 0; !err && g < t->ngeom; g++)
			err = boot_put_func_misses(c->df, run, f.name, f.module, g,
						   f.v + 1 + g * MODEL_STATS);
		for (g = 0; !err && f.tlb && g < t->ngeom; g++)
			err = boot_put_func_tlb(c->df, run, f.name, f.module, g, f.tlb[2 * g],
						f.tlb[2 * g + 1]);
		err = err ?: put_events(c, &f, run);
		if (!err && f.cyc)
			err = boot_put_func_cycles(c->df, run, f.name, f.module, f.cyc);
	}
	return err;
}

/* model.txt with kallsyms.txt: the instructions per function, and the window's two marks. */
static int functions(struct collect *c, const char *dir, unsigned int run, struct boot_run_row *row)
{
	char model[PATH_MAX], kallsyms[PATH_MAX];
	struct boot_funcs *bf;
	struct model_table t;
	int err;

	path_of(model, dir, "model.txt");
	path_of(kallsyms, dir, "kallsyms.txt");
	err = boot_funcs_read(&bf, &t, model, kallsyms, c->why, c->len);
	if (err)
		return err;
	err = same_model(c, &t, model, run) ?: put_funcs(c, bf, &t, run);
	boot_funcs_free(bf);
	if (err)
		return err;
	if (strcmp(t.window, "complete"))
		esc_printf(stderr,
			   "kprotperf boot: run %u: the model's window is %s: the boot "
			   "never reached user mode\n",
			   run, t.window);
	if (!run)
		c->t0 = t;
	row->has_entry = t.has_entry;
	row->entry_insns = t.entry_insns;
	row->has_first_user_insns = t.has_first_user;
	row->first_user_insns = t.first_user_insns;
	return 0;
}

static int collect_run(struct collect *c, const char *dir, unsigned int run)
{
	struct boot_run_row row = {0};

	return provenance(c, dir, run) ?: initcalls(c, dir, run, &row) ?:
	       (c->o->model ? functions(c, dir, run, &row) : 0) ?: boot_put_run(c->df, run, &row);
}

/* The keys of data/boot_schema.h's recording, with the provenance record writes. */
static int put_meta(struct collect *c, unsigned int n, bool no_config)
{
	const struct boot_opts *o = c->o;
	struct kv_list meta = {};
	int err;

	err = kv_add(&meta, "tool.version", "%s", KPROTPERF_VERSION);
	err = err ?: kv_add(&meta, "boot.runs", "%u", n);
	err = err ?: kv_add(&meta, "boot.append", "%s", o->append ? o->append : "");
	err = err ?: kv_add(&meta, "boot.kernel", "%s", o->kernel ? o->kernel : "");
	err = err ?: kv_add(&meta, "boot.accel", "icount");
	err = err ?: kv_add(&meta, "kernel.release", "%s", c->release);
	err = err ?: kv_add(&meta, "kernel.build_id", "%s", c->build_id);
	err = err ?: kv_add(&meta, "kernel.cmdline", "%s", c->cmdline);
	err = err ?: kv_add(&meta, "arch", "x86_64");
	err = err ?: kv_add(&meta, "boot.cpu", "%s", o->cpu ? o->cpu : "");
	if (!err && *c->cpu_model)
		err = kv_add(&meta, "cpu.model", "%s", c->cpu_model);
	if (!err && no_config)
		err = kv_add(&meta, "kernel.config", "unavailable");
	if (!err && o->model) {
		err = kv_add(&meta, "model.mode", "%s", o->model);
		err = err ?: kv_add(&meta, "model.qemu", "%s", c->t0.qemu);
		err = err ?: kv_add(&meta, "model.window", "boot");
		err = err ?: kv_add(&meta, "model.format", "%u", c->t0.format);
	}
	if (!err && o->model && model_table_timing(&c->t0)) {
		err = kv_add(&meta, "model.core", "%s", c->t0.core);
		err = err ?: kv_add(&meta, "model.timing", "%s", c->t0.timing);
	}
	if (!err && o->model && c->t0.format >= 2) {
		err = kv_add(&meta, "model.guest_pti", "%s",
			     c->t0.guest_pti[0] ? c->t0.guest_pti : "unknown");
		err = err
			      ?: kv_add(&meta, "model.guest_pcid", "%s",
					c->t0.guest_pcid[0] ? c->t0.guest_pcid : "unknown");
	}
	err = err ?: recording_put_meta(c->df, &meta);
	kv_list_free(&meta);
	return err;
}

/* vulnerabilities/: the guest kernel's files (a real folder, not a link; none: nothing kept). */
static int put_vulns(struct collect *c, const char *dir)
{
	struct kv_list v = {};
	char p[PATH_MAX];
	struct stat st;
	int err = 0;

	path_of(p, dir, "vulnerabilities");
	if (lstat(p, &st) && errno == ENOENT)
		return 0;
	if (!S_ISDIR(st.st_mode))
		err = -ENOTDIR;
	err = err ?: provenance_vulns(&v, p);
	if (!err && v.n > 64)
		err = -E2BIG;
	if (err)
		snprintf(c->why, c->len, "%s: %s", p,
			 err == -E2BIG ? "more than 64 files: not a kernel's" : strerror(-err));
	err = err ?: recording_put_vulns(c->df, &v);
	kv_list_free(&v);
	return err;
}

/* The kernel's config (vm-run.sh copies it from the kernel folder or package); absent is said. */
static int put_config(struct collect *c, const char *dir, unsigned int n)
{
	struct kv_list config = {};
	char p[PATH_MAX], msg[256];
	struct stat st;
	unsigned int g;
	int fd, err = 0;

	path_of(p, dir, "config");
	fd = safeio_open_regular(p, &st, msg, sizeof(msg));
	if (fd >= 0) {
		close(fd);
		err = provenance_config(&config, p);
		if (err)
			snprintf(c->why, c->len, "%s: %s", p, strerror(-err));
	}
	err = err ?: recording_put_config(c->df, &config) ?: put_meta(c, n, fd < 0) ?:
		     put_vulns(c, dir);
	for (g = 0; !err && c->o->model && g < c->t0.ngeom; g++)
		err = model_put_geom(c->df, g, &c->t0.geom[g])
			      ?: (model_table_has_tlb(&c->t0)
					  ? model_put_tlbs(c->df, g, &c->t0.geom[g])
					  : 0);
	kv_list_free(&config);
	return err;
}

int boot_collect(const struct boot_opts *o, const char *const *dirs, unsigned int n, char *why,
		 size_t len)
{
	struct collect c = {.o = o, .why = why, .len = len};
	unsigned int run;
	int err;

	*why = '\0';
	err = datafile_check_target(o->output, why, len);
	err = err ?: datafile_create(&c.df, o->output, (uid_t)-1, why, len);
	if (err)
		return err;
	for (run = 0; !err && run < n; run++)
		err = collect_run(&c, dirs[run], run);
	err = err ?: put_config(&c, dirs[0], n);
	if (err) {
		datafile_abort(c.df);
		return err;
	}
	return datafile_commit(c.df, (uid_t)-1, (gid_t)-1, why, len);
}
