// SPDX-License-Identifier: GPL-2.0-only
/*
 * Which cost table a report uses (model/costs.h): the one given, the
 * shipped one of the guest's CPU model (an installed copy first, else the
 * built-in one), or this machine's calibrated one, checked to be of this
 * machine's CPU.
 */
#include "model/costs.h"

#include <cpuid.h>
#include <errno.h>
#include <libgen.h>
#include <limits.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/stat.h>
#include <unistd.h>

#include "util/esc.h"
#include "util/safeio.h"

#include "costs_tables.h"

/*
 * The words of the guest's CPU model (any case, anywhere in it) that pick a
 * shipped table: a recording's cpu.model is the guest's model name, as its
 * /proc/cpuinfo gives it ("Intel Core Processor (Skylake)", "Intel Xeon
 * Processor (Cascadelake)", "AMD EPYC-Rome Processor"), or QEMU's name
 * (Skylake-Client-v1).
 */
static const struct {
	const char *word, *file;
} shipped[] = {
	{"Skylake", "skylake.json"},
	{"Cascadelake", "cascadelake.json"},
	{"EPYC-Rome", "epyc-rome.json"},
};

/* s without its leading and trailing spaces, into out. */
static void trimmed(char *out, size_t len, const char *s)
{
	size_t n;

	s += strspn(s, " ");
	n = strlen(s);
	while (n && s[n - 1] == ' ')
		n--;
	snprintf(out, len, "%.*s", (int)n, s);
}

void model_costs_this_cpu(struct model_costs *c)
{
	unsigned int a, b, d, x, brand[12] = {0}, i;
	char name[sizeof(brand) + 1];

	__cpuid(0, a, b, x, d);
	memcpy(c->vendor, &b, 4);
	memcpy(c->vendor + 4, &d, 4);
	memcpy(c->vendor + 8, &x, 4);
	c->vendor[12] = '\0';
	__cpuid(1, a, b, x, d);
	c->family = (a >> 8) & 0xf;
	c->model = (a >> 4) & 0xf;
	if (c->family == 0xf)
		c->family += (a >> 20) & 0xff;
	if (c->family >= 6)
		c->model |= ((a >> 16) & 0xf) << 4;
	if ((unsigned int)__get_cpuid_max(0x80000000, NULL) >= 0x80000004u)
		for (i = 0; i < 3; i++)
			__cpuid(0x80000002 + i, brand[4 * i], brand[4 * i + 1], brand[4 * i + 2],
				brand[4 * i + 3]);
	memcpy(name, brand, sizeof(brand));
	name[sizeof(brand)] = '\0';
	trimmed(c->model_name, sizeof(c->model_name), name);
}

int model_costs_same_cpu(const struct model_costs *c, const struct model_costs *here)
{
	char a[sizeof(c->model_name)], b[sizeof(c->model_name)];

	trimmed(a, sizeof(a), c->model_name);
	trimmed(b, sizeof(b), here->model_name);
	return !strcmp(c->vendor, here->vendor) && c->family == here->family &&
	       c->model == here->model && !strcmp(a, b);
}

const char *model_costs_native_dir(char *buf, size_t len)
{
	const char *cache = getenv("XDG_CACHE_HOME"), *home = getenv("HOME");
	int n;

	if (cache && *cache == '/')
		n = snprintf(buf, len, "%s/kprotperf/costs", cache);
	else if (home && *home == '/')
		n = snprintf(buf, len, "%s/.cache/kprotperf/costs", home);
	else
		return NULL;
	return n > 0 && (size_t)n < len ? buf : NULL;
}

/* The base of the native table's folder (the cache folder) into buf, or NULL. */
static const char *cache_base(char *buf, size_t len)
{
	char *end;

	if (!model_costs_native_dir(buf, len))
		return NULL;
	end = strstr(buf, "/kprotperf/costs");
	*end = '\0';
	return buf;
}

/* The calibrated table of this machine, read through no link: 0 or -errno (said). */
static int native(struct model_costs *c, struct model_cost_sources *src, bool quiet_absent)
{
	char base[PATH_MAX], path[PATH_MAX + 64], why[512];
	struct model_costs here;
	int fd;

	if (!cache_base(base, sizeof(base))) {
		fprintf(stderr, "kprotperf: no $HOME: no calibrated cost table to find\n");
		return -ENOENT;
	}
	snprintf(path, sizeof(path), "%s/kprotperf/costs/" MODEL_COSTS_NATIVE, base);
	fd = safeio_open_beneath(base, "kprotperf/costs/" MODEL_COSTS_NATIVE, geteuid(), why,
				 sizeof(why));
	if (fd == -ENOENT && quiet_absent)
		return fd;
	if (fd == -ENOENT)
		esc_printf(stderr,
			   "kprotperf: no cost table calibrated on this machine (%s): run "
			   "kprotperf calibrate\n",
			   path);
	else if (fd < 0 && *why)
		esc_printf(stderr,
			   "kprotperf: calibrated cost table not read: %s (kprotperf calibrate "
			   "writes it anew)\n",
			   why);
	else if (fd < 0)
		esc_printf(stderr, "kprotperf: cost table %s: %s\n", path, strerror(-fd));
	if (fd < 0 || (fd = model_costs_load_fd(fd, path, c, src)))
		return fd;
	model_costs_this_cpu(&here);
	if (model_costs_same_cpu(c, &here))
		return 0;
	esc_printf(stderr,
		   "kprotperf: cost table %s was calibrated on another CPU (%s family %d model %d "
		   "'%s'), this one is %s family %d model %d '%s': run kprotperf calibrate here\n",
		   path, c->vendor, c->family, c->model, c->model_name, here.vendor, here.family,
		   here.model, here.model_name);
	return -EINVAL;
}

/*
 * An installed kprotperf's PREFIX/share/kprotperf/costs/file (PREFIX: the
 * folder above bin/ holding this binary), through no link and no folder
 * another user could change: fd, or -ENOENT when this is no installed copy.
 */
static int installed(const char *file, char *path, size_t len)
{
	char exe[PATH_MAX], rel[128], why[512], *bindir, *prefix;
	ssize_t n = readlink("/proc/self/exe", exe, sizeof(exe) - 1);
	struct stat st;

	if (n <= 0 || stat("/proc/self/exe", &st))
		return -ENOENT;
	exe[n] = '\0';
	bindir = dirname(exe);
	if (strcmp(basename(bindir), "bin"))
		return -ENOENT;
	prefix = dirname(bindir);
	snprintf(rel, sizeof(rel), "share/kprotperf/costs/%s", file);
	snprintf(path, len, "%s/%s", prefix, rel);
	if (access(path, F_OK))
		return -ENOENT;
	n = safeio_open_beneath(prefix, rel, st.st_uid, why, sizeof(why));
	if (n < 0)
		esc_printf(stderr, "kprotperf: cost table %s: %s\n", path,
			   *why ? why : strerror(-n));
	return n;
}

/* The shipped table file: the installed copy, else the built-in one. */
static int shipped_table(const char *file, struct model_costs *c, struct model_cost_sources *src)
{
	char path[PATH_MAX + 160], why[768];
	int fd = installed(file, path, sizeof(path)), err;
	size_t i;

	if (fd >= 0)
		return model_costs_load_fd(fd, path, c, src);
	if (fd != -ENOENT)
		return fd;
	for (i = 0; i < sizeof(kp_costs_builtin) / sizeof(kp_costs_builtin[0]); i++) {
		if (strcmp(kp_costs_builtin[i].file, file))
			continue;
		snprintf(path, sizeof(path), "built-in share/costs/%s", file);
		err = model_costs_parse(kp_costs_builtin[i].text, kp_costs_builtin[i].n, path, c,
					src, why, sizeof(why));
		if (err)
			esc_printf(stderr, "kprotperf: cost table %s: %s\n", path, why);
		return err;
	}
	fprintf(stderr, "kprotperf: no shipped cost table %s in this build: give --costs FILE\n",
		file);
	return -ENOENT;
}

int model_costs_pick_sources(const char *given, const char *guest_cpu_model, struct model_costs *c,
			     struct model_cost_sources *src)
{
	size_t i;
	int err;

	if (given && !strcmp(given, "native"))
		return native(c, src, false);
	if (given)
		return model_costs_load_sources(given, c, src);
	for (i = 0; guest_cpu_model && i < sizeof(shipped) / sizeof(shipped[0]); i++)
		if (strcasestr(guest_cpu_model, shipped[i].word))
			return shipped_table(shipped[i].file, c, src);
	err = native(c, src, true);
	if (err != -ENOENT)
		return err;
	esc_printf(stderr,
		   "kprotperf: no cost table for the guest's CPU (%s) and none calibrated on this "
		   "machine: run kprotperf calibrate, or give --costs FILE (shipped: "
		   "share/costs/skylake.json, cascadelake.json, epyc-rome.json)\n",
		   guest_cpu_model && *guest_cpu_model ? guest_cpu_model : "unknown");
	return -ENOENT;
}

int model_costs_pick(const char *given, const char *guest_cpu_model, struct model_costs *c)
{
	return model_costs_pick_sources(given, guest_cpu_model, c, NULL);
}

int model_costs_est(bool timing, const char *given, const char *guest_cpu_model,
		    struct model_costs *c, const struct model_costs **costs)
{
	int err;

	*costs = NULL;
	/* cachegrind's cycle estimates yield to a simulator's cycles: say so, and go on */
	if (timing) {
		if (given)
			esc_printf(
				stderr,
				"kprotperf: --costs %s not used: est_cycles of a timing recording"
				" is the timing model's cycles\n",
				given);
		return 0;
	}
	err = model_costs_pick(given, guest_cpu_model, c);
	if (!err)
		*costs = c;
	return given ? err : 0;
}
