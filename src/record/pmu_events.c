// SPDX-License-Identifier: GPL-2.0-only
/*
 * Event names (pmu_events.h): perf's built-in names from tables, a PMU's
 * terms placed into config, config1 and config2 by the bit ranges of its
 * sysfs format files, and the refusals.
 */
#include "record/pmu_events.h"

#include <ctype.h>
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <linux/perf_event.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <unistd.h>

struct named {
	const char *name, *alias; /* alias: another spelling, normalised to name */
	__u64 config;
};

static const struct named hardware[] = {
	{"cycles", "cpu-cycles", PERF_COUNT_HW_CPU_CYCLES},
	{"instructions", NULL, PERF_COUNT_HW_INSTRUCTIONS},
	{"cache-references", NULL, PERF_COUNT_HW_CACHE_REFERENCES},
	{"cache-misses", NULL, PERF_COUNT_HW_CACHE_MISSES},
	{"branches", "branch-instructions", PERF_COUNT_HW_BRANCH_INSTRUCTIONS},
	{"branch-misses", NULL, PERF_COUNT_HW_BRANCH_MISSES},
	{"bus-cycles", NULL, PERF_COUNT_HW_BUS_CYCLES},
	{"ref-cycles", NULL, PERF_COUNT_HW_REF_CPU_CYCLES},
	{"stalled-cycles-frontend", NULL, PERF_COUNT_HW_STALLED_CYCLES_FRONTEND},
	{"stalled-cycles-backend", NULL, PERF_COUNT_HW_STALLED_CYCLES_BACKEND},
};

static const struct named software[] = {
	{"cpu-clock", NULL, PERF_COUNT_SW_CPU_CLOCK},
	{"task-clock", NULL, PERF_COUNT_SW_TASK_CLOCK},
	{"page-faults", "faults", PERF_COUNT_SW_PAGE_FAULTS},
	{"context-switches", "cs", PERF_COUNT_SW_CONTEXT_SWITCHES},
	{"cpu-migrations", "migrations", PERF_COUNT_SW_CPU_MIGRATIONS},
	{"minor-faults", NULL, PERF_COUNT_SW_PAGE_FAULTS_MIN},
	{"major-faults", NULL, PERF_COUNT_SW_PAGE_FAULTS_MAJ},
	{"alignment-faults", NULL, PERF_COUNT_SW_ALIGNMENT_FAULTS},
	{"emulation-faults", NULL, PERF_COUNT_SW_EMULATION_FAULTS},
};

/* perf's cache names: CACHE-OP(s) for accesses, CACHE-OP-misses for misses */
static const struct named caches[] = {
	{"L1-dcache", NULL, PERF_COUNT_HW_CACHE_L1D}, {"L1-icache", NULL, PERF_COUNT_HW_CACHE_L1I},
	{"LLC", NULL, PERF_COUNT_HW_CACHE_LL},	      {"dTLB", NULL, PERF_COUNT_HW_CACHE_DTLB},
	{"iTLB", NULL, PERF_COUNT_HW_CACHE_ITLB},     {"branch", NULL, PERF_COUNT_HW_CACHE_BPU},
	{"node", NULL, PERF_COUNT_HW_CACHE_NODE},
};

static const struct named cache_ops[] = {
	{"loads", "load", PERF_COUNT_HW_CACHE_OP_READ},
	{"stores", "store", PERF_COUNT_HW_CACHE_OP_WRITE},
	{"prefetches", "prefetch", PERF_COUNT_HW_CACHE_OP_PREFETCH},
};

#define N(a)	  (sizeof(a) / sizeof((a)[0]))
#define NCACHE	  (N(caches) * N(cache_ops) * 2)
#define ROOT	  "/sys/bus/event_source/devices"
#define SOFTWARE  "cpu-clock, task-clock, page-faults, context-switches, cpu-migrations"
#define PATH_LEN  512
#define TERMS_MAX 16

const char *pmu_events_root(void)
{
	const char *env = getenv("KP_SYSFS_EVENT_SOURCE");

	return env && *env ? env : ROOT;
}

/*
 * The i-th built-in name (aliases too) into buf, its event into ev; false
 * past the last.  One walk for parsing and for the closest name.
 */
static bool builtin(size_t i, char *buf, size_t len, struct pmu_event *ev)
{
	const struct named *t, *c, *op;
	bool miss;

	memset(ev, 0, sizeof(*ev));
	if (i < 2 * (N(hardware) + N(software))) {
		t = i / 2 < N(hardware) ? &hardware[i / 2] : &software[i / 2 - N(hardware)];
		ev->type = t < software || t >= software + N(software) ? PERF_TYPE_HARDWARE
								       : PERF_TYPE_SOFTWARE;
		ev->needs_cpu_pmu = ev->type == PERF_TYPE_HARDWARE;
		ev->config = t->config;
		snprintf(ev->name, sizeof(ev->name), "%s", t->name);
		snprintf(buf, len, "%s", i % 2 ? (t->alias ?: "") : t->name);
		return true;
	}
	i -= 2 * (N(hardware) + N(software));
	if (i >= NCACHE)
		return false;
	c = &caches[i / (N(cache_ops) * 2)];
	op = &cache_ops[i / 2 % N(cache_ops)];
	miss = i % 2;
	ev->type = PERF_TYPE_HW_CACHE;
	ev->needs_cpu_pmu = true;
	ev->config =
		c->config | op->config << 8 |
		(__u64)(miss ? PERF_COUNT_HW_CACHE_RESULT_MISS : PERF_COUNT_HW_CACHE_RESULT_ACCESS)
			<< 16;
	snprintf(buf, len, "%s-%s%s", c->name, miss ? op->alias : op->name, miss ? "-misses" : "");
	snprintf(ev->name, sizeof(ev->name), "%s", buf);
	return true;
}

/* The first line of root/a/b (b may be NULL) into buf, its newline dropped: 0 or -errno. */
static int read_sysfs(const char *a, const char *b, char *buf, size_t len)
{
	char path[PATH_LEN];
	FILE *f;
	int err = 0;

	snprintf(path, sizeof(path), "%s/%s%s%s", pmu_events_root(), a, b ? "/" : "", b ?: "");
	f = fopen(path, "re");
	if (!f)
		return -errno;
	if (!fgets(buf, len, f))
		err = -EIO;
	fclose(f);
	buf[strcspn(buf, "\n")] = 0;
	return err;
}

static bool pmu_exists(const char *pmu)
{
	char path[PATH_LEN];
	struct stat st;

	snprintf(path, sizeof(path), "%s/%s", pmu_events_root(), pmu);
	return !stat(path, &st) && S_ISDIR(st.st_mode);
}

/* The edit distance of a and b (both short: names), capped at 255. */
static unsigned int distance(const char *a, const char *b)
{
	unsigned char row[PMU_EVENT_NAME_MAX + 2], diag, up;
	size_t la = strlen(a), lb = strlen(b), i, j;

	if (la > PMU_EVENT_NAME_MAX || lb > PMU_EVENT_NAME_MAX)
		return 255;
	for (j = 0; j <= lb; j++)
		row[j] = j > 255 ? 255 : j;
	for (i = 1; i <= la; i++) {
		diag = row[0];
		row[0] = i > 255 ? 255 : i;
		for (j = 1; j <= lb; j++) {
			up = row[j];
			row[j] = diag + (tolower((unsigned char)a[i - 1]) !=
					 tolower((unsigned char)b[j - 1]));
			if (up + 1 < row[j])
				row[j] = up + 1;
			if (row[j - 1] + 1 < row[j])
				row[j] = row[j - 1] + 1;
			diag = up;
		}
	}
	return row[lb];
}

/* The known name closest to name: the built-in ones, then those in cpu/events/. */
static void closest(const char *name, char *best, size_t len)
{
	unsigned int d, best_d = 256;
	char buf[PMU_EVENT_NAME_MAX + 1], path[PATH_LEN];
	struct pmu_event ev;
	struct dirent *e;
	size_t i;
	DIR *dir;

	for (i = 0; builtin(i, buf, sizeof(buf), &ev); i++)
		if (*buf && (d = distance(name, buf)) < best_d) {
			best_d = d;
			snprintf(best, len, "%s", buf);
		}
	snprintf(path, sizeof(path), "%s/cpu/events", pmu_events_root());
	dir = opendir(path);
	while (dir && (e = readdir(dir)))
		if (e->d_name[0] != '.' && (d = distance(name, e->d_name)) < best_d) {
			best_d = d;
			snprintf(best, len, "%s", e->d_name);
		}
	if (dir)
		closedir(dir);
}

/* Where a format term's bits go: config, config1 or config2, in up to 8 bit ranges. */
struct format {
	int field;
	int nr;
	unsigned int lo[8], hi[8];
};

/* "config:0-7,32-35", "config1:0-15", "config:21": 0 or -EINVAL. */
static int parse_format(const char *text, struct format *f)
{
	const char *p = strchr(text, ':');
	char *end;
	unsigned long lo, hi;

	if (!p)
		return -EINVAL;
	if (p - text == 6 && !strncmp(text, "config", 6))
		f->field = 0;
	else if (p - text == 7 && (!strncmp(text, "config1", 7) || !strncmp(text, "config2", 7)))
		f->field = text[6] - '0';
	else
		return -EINVAL;
	for (f->nr = 0; *p == (f->nr ? ',' : ':') && f->nr < 8; f->nr++) {
		lo = hi = strtoul(p + 1, &end, 10);
		if (end == p + 1)
			return -EINVAL;
		if (*end == '-') {
			p = end;
			hi = strtoul(p + 1, &end, 10);
			if (end == p + 1)
				return -EINVAL;
		}
		if (lo > hi || hi > 63)
			return -EINVAL;
		f->lo[f->nr] = lo;
		f->hi[f->nr] = hi;
		p = end;
	}
	return *p ? -EINVAL : 0;
}

static __u64 *field_of(struct pmu_event *ev, int field)
{
	return field == 0 ? &ev->config : field == 1 ? &ev->config1 : &ev->config2;
}

/* v's bits into f's ranges of ev, lowest bits first: 0, or -ERANGE when v is wider. */
static int place(struct pmu_event *ev, const struct format *f, __u64 v)
{
	__u64 *dst = field_of(ev, f->field), mask;
	unsigned int bits;
	int i;

	for (i = 0; i < f->nr; i++) {
		bits = f->hi[i] - f->lo[i] + 1;
		mask = bits == 64 ? ~0ULL : (1ULL << bits) - 1;
		*dst = (*dst & ~(mask << f->lo[i])) | (v & mask) << f->lo[i];
		v = bits == 64 ? 0 : v >> bits;
	}
	return v ? -ERANGE : 0;
}

static unsigned int width(const struct format *f)
{
	unsigned int bits = 0;
	int i;

	for (i = 0; i < f->nr; i++)
		bits += f->hi[i] - f->lo[i] + 1;
	return bits;
}

/* The PMU's format terms, sorted and comma-separated, into buf. */
static void list_terms(const char *pmu, char *buf, size_t len)
{
	char path[PATH_LEN];
	struct dirent **names;
	size_t n = 0;
	int i, nr;

	snprintf(path, sizeof(path), "%s/%s/format", pmu_events_root(), pmu);
	*buf = 0;
	nr = scandir(path, &names, NULL, alphasort);
	for (i = 0; i < nr; i++) {
		if (names[i]->d_name[0] != '.' && n < len)
			n += snprintf(buf + n, len - n, "%s%s", n ? ", " : "", names[i]->d_name);
		free(names[i]);
	}
	if (nr >= 0)
		free(names);
	if (!*buf)
		snprintf(buf, len, "none");
}

/* One parse of a PMU's terms: where messages go. */
struct pmu_parse {
	const char *pmu, *opt, *name;
	char *why;
	size_t len;
	int depth; /* events/NAME expanded: their terms may not name events again */
};

static int terms(struct pmu_parse *p, const char *list, struct pmu_event *ev);

/* "OPT NAME: PMU has no event or term TERM (its terms: ...)" */
static int no_term(struct pmu_parse *p, const char *term)
{
	char list[PATH_LEN];

	list_terms(p->pmu, list, sizeof(list));
	snprintf(p->why, p->len, "%s %s: %s has no event or term %s (its terms: %s)", p->opt,
		 p->name, p->pmu, term, list);
	return -EINVAL;
}

/* PMU's format/TERM into f: 1 when it has none, 0, or -EINVAL with why. */
static int format_of(struct pmu_parse *p, const char *term, struct format *f)
{
	char sub[PATH_LEN], text[PATH_LEN];

	snprintf(sub, sizeof(sub), "format/%s", term);
	if (strchr(term, '/') || read_sysfs(p->pmu, sub, text, sizeof(text)))
		return 1;
	if (!parse_format(text, f))
		return 0;
	snprintf(p->why, p->len, "%s %s: %s/%s/%s reads '%.64s', not config:LO-HI", p->opt, p->name,
		 pmu_events_root(), p->pmu, sub, text);
	return -EINVAL;
}

/* A term without "=": a format term set to 1, or an event of the PMU's events/ folder. */
static int flag_term(struct pmu_parse *p, const char *term, struct pmu_event *ev)
{
	char sub[PATH_LEN], text[PATH_LEN];
	struct format f;
	int err = format_of(p, term, &f);

	if (err <= 0)
		return err ?: place(ev, &f, 1);
	snprintf(sub, sizeof(sub), "events/%s", term);
	if (p->depth || strchr(term, '/') || read_sysfs(p->pmu, sub, text, sizeof(text)))
		return no_term(p, term);
	p->depth++;
	return terms(p, text, ev);
}

/* TERM=VALUE: placed by the PMU's format/TERM, or config, config1, config2 set whole. */
static int value_term(struct pmu_parse *p, const char *term, const char *value,
		      struct pmu_event *ev)
{
	struct format f = {.nr = 1, .lo = {0}, .hi = {63}};
	char *end;
	__u64 v;
	int err;

	errno = 0;
	v = strtoull(value, &end, 0);
	if (!*value || *end || errno || *value == '-') {
		snprintf(p->why, p->len, "%s %s: %s=%s is not a number", p->opt, p->name, term,
			 value);
		return -EINVAL;
	}
	err = format_of(p, term, &f);
	if (err < 0)
		return err;
	if (err > 0) {
		if (strcmp(term, "config") && strcmp(term, "config1") && strcmp(term, "config2"))
			return no_term(p, term);
		f.field = term[6] ? term[6] - '0' : 0;
	}
	if (!place(ev, &f, v))
		return 0;
	snprintf(p->why, p->len, "%s %s: %s=%s does not fit its %u bits", p->opt, p->name, term,
		 value, width(&f));
	return -EINVAL;
}

/* "event=0x3c,umask=0,NAME,...": each term into ev. */
static int terms(struct pmu_parse *p, const char *list, struct pmu_event *ev)
{
	char copy[PMU_EVENT_NAME_MAX + 1], *save = NULL, *t, *eq;
	int err = 0, n = 0;

	snprintf(copy, sizeof(copy), "%s", list);
	for (t = strtok_r(copy, ",", &save); t && !err; t = strtok_r(NULL, ",", &save)) {
		if (++n > TERMS_MAX)
			break;
		eq = strchr(t, '=');
		if (eq)
			*eq = 0;
		err = eq ? value_term(p, t, eq + 1, ev) : flag_term(p, t, ev);
	}
	if (!err && !n) {
		snprintf(p->why, p->len, "%s %s: no terms between the slashes", p->opt, p->name);
		err = -EINVAL;
	} else if (!err && n > TERMS_MAX) {
		snprintf(p->why, p->len, "%s %s: more than %d terms", p->opt, p->name, TERMS_MAX);
		err = -EINVAL;
	}
	return err;
}

/* "PMU/TERMS/" (as text has it from pmu on, name the whole event as given). */
static int pmu_syntax(const char *name, const char *text, const char *opt, struct pmu_event *ev,
		      char *why, size_t len)
{
	char pmu[PMU_EVENT_NAME_MAX + 1], list[PMU_EVENT_NAME_MAX + 1], type[32], *end;
	const char *slash = strchr(text, '/');
	struct pmu_parse p = {pmu, opt, name, why, len, 0};
	size_t n = strlen(text);
	unsigned long v;

	snprintf(pmu, sizeof(pmu), "%.*s", (int)(slash - text), text);
	if (n < 2 || text[n - 1] != '/' || slash == text + n - 1 || !*pmu || pmu[0] == '.') {
		snprintf(why, len, "%s %s: not PMU/TERM=VALUE,.../ (a PMU's event ends in /)", opt,
			 name);
		return -EINVAL;
	}
	snprintf(ev->name, sizeof(ev->name), "%s", name);
	ev->needs_cpu_pmu = !strncmp(pmu, "cpu", 3);
	if (ev->needs_cpu_pmu && pmu_event_no_pmu(ev, opt, why, len))
		return -ENODEV;
	if (read_sysfs(pmu, "type", type, sizeof(type))) {
		snprintf(why, len, "%s %s: no PMU %s here (%s/%s/type cannot be read)", opt, name,
			 pmu, pmu_events_root(), pmu);
		return -EINVAL;
	}
	errno = 0;
	v = strtoul(type, &end, 10);
	if (!*type || *end || errno || v > 0xffffffffUL) {
		snprintf(why, len, "%s %s: %s/%s/type reads '%.32s', not a number", opt, name,
			 pmu_events_root(), pmu, type);
		return -EINVAL;
	}
	ev->type = v;
	snprintf(list, sizeof(list), "%.*s", (int)(n - (slash - text) - 2), slash + 1);
	return terms(&p, list, ev);
}

int pmu_event_parse(const char *name, const char *opt, struct pmu_event *ev, char *why, size_t len)
{
	char buf[PMU_EVENT_NAME_MAX + 1], best[PMU_EVENT_NAME_MAX + 1] = "", cpu[PATH_LEN];
	size_t i;
	int err;

	if (!*name || strlen(name) > PMU_EVENT_NAME_MAX) {
		snprintf(why, len, "%s '%.64s': an event's name has 1 to %d characters", opt, name,
			 PMU_EVENT_NAME_MAX);
		return -EINVAL;
	}
	for (i = 0; builtin(i, buf, sizeof(buf), ev); i++)
		if (*buf && !strcmp(buf, name))
			return 0;
	memset(ev, 0, sizeof(*ev));
	if (strchr(name, '/'))
		err = pmu_syntax(name, name, opt, ev, why, len);
	else if (snprintf(cpu, sizeof(cpu), "events/%s", name),
		 strchr(name, '.') || read_sysfs("cpu", cpu, buf, sizeof(buf))) {
		closest(name, best, sizeof(best));
		snprintf(why, len, "%s %s: no such event (the closest known name: %s)", opt, name,
			 best);
		return -EINVAL;
	} else {
		snprintf(cpu, sizeof(cpu), "cpu/%s/", name);
		err = pmu_syntax(name, cpu, opt, ev, why, len);
	}
	return err;
}

int pmu_event_list(const char *list, const char *opt, struct pmu_event *evs, unsigned int *n,
		   unsigned int max, char *why, size_t len)
{
	char name[PMU_EVENT_NAME_MAX + 1];
	const char *p = list, *q;
	bool in_pmu;
	int err;

	do {
		for (q = p, in_pmu = false; *q && (*q != ',' || in_pmu); q++)
			if (*q == '/')
				in_pmu = !in_pmu;
		if (*n >= max) {
			if (max == 1)
				snprintf(why, len, "%s %s: one event only", opt, list);
			else
				snprintf(why, len, "%s %s: more than %u events in all", opt, list,
					 max);
			return -EINVAL;
		}
		snprintf(name, sizeof(name), "%.*s", (int)(q - p), p);
		err = pmu_event_parse(name, opt, &evs[*n], why, len);
		if (err)
			return err;
		++*n;
		p = q + 1;
	} while (*q);
	return 0;
}

void pmu_event_attr(const struct pmu_event *ev, struct perf_event_attr *attr)
{
	memset(attr, 0, sizeof(*attr));
	attr->size = sizeof(*attr);
	attr->type = ev->type;
	attr->config = ev->config;
	attr->config1 = ev->config1;
	attr->config2 = ev->config2;
	attr->read_format = PERF_FORMAT_TOTAL_TIME_ENABLED | PERF_FORMAT_TOTAL_TIME_RUNNING;
}

bool pmu_event_no_pmu(const struct pmu_event *ev, const char *opt, char *why, size_t len)
{
	if (!ev->needs_cpu_pmu || pmu_exists("cpu") || pmu_exists("cpu_core"))
		return false;
	snprintf(why, len,
		 "%s %s: no hardware PMU here (%s/cpu is missing: a VM without a virtual PMU?);"
		 " software events work: " SOFTWARE,
		 opt, ev->name, pmu_events_root());
	return true;
}

void pmu_event_refusal(const struct pmu_event *ev, const char *opt, int err, int paranoid,
		       char *why, size_t len)
{
	if (err == -ENOENT || err == -EOPNOTSUPP || err == -EINVAL)
		snprintf(why, len, "%s %s: not supported by this CPU (perf_event_open: %s)", opt,
			 ev->name, strerror(-err));
	else if ((err == -EACCES || err == -EPERM) && paranoid > -2)
		snprintf(why, len,
			 "%s %s: not permitted (perf_event_open: %s): perf_event_paranoid is %d",
			 opt, ev->name, strerror(-err), paranoid);
	else
		snprintf(why, len, "%s %s: perf_event_open: %s", opt, ev->name, strerror(-err));
}

static int paranoid(void)
{
	FILE *f = fopen("/proc/sys/kernel/perf_event_paranoid", "re");
	int v = -2;

	if (f) {
		if (fscanf(f, "%d", &v) != 1)
			v = -2;
		fclose(f);
	}
	return v;
}

int pmu_event_probe(const struct pmu_event *ev, const char *opt, char *why, size_t len)
{
	struct perf_event_attr attr;
	int fd;

	if (pmu_event_no_pmu(ev, opt, why, len))
		return -ENODEV;
	pmu_event_attr(ev, &attr);
	attr.disabled = 1;
	fd = syscall(__NR_perf_event_open, &attr, -1, 0, -1, PERF_FLAG_FD_CLOEXEC);
	if (fd >= 0) {
		close(fd);
		return 0;
	}
	fd = -errno;
	pmu_event_refusal(ev, opt, fd, paranoid(), why, len);
	return fd;
}
