// SPDX-License-Identifier: GPL-2.0-only
/* What kprotperf explore prints (explore_out.h). */
#include "explore/explore_out.h"

#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "explore/scenario.h"
#include "explore/search.h"
#include "util/esc.h"
#include "util/json.h"
#include "util/syscalls.h"

static size_t corpus_size(const struct search *s)
{
	const struct search_entry *e = NULL;
	size_t n, i, k = 0;

	e = search_entries(s, &n);
	for (i = 0; i < n; i++)
		k += !e[i].finding;
	return k;
}

void explore_out_progress(struct explore_progress *p, const struct search *s,
			  const struct search_entry *kept, double seconds)
{
	bool tty = isatty(STDERR_FILENO);
	double best = search_best_ns(s);

	if (p->quiet)
		return;
	if (kept) {
		explore_out_end(p);
		fprintf(stderr, "explore: run %u: kept %s/%04u.scn: %s\n", kept->run,
			kept->finding ? "findings" : "corpus", kept->id, kept->why);
	}
	if (!tty)
		return;
	fprintf(stderr, "\r\033[Kexplore: %u runs, %u reached the target, corpus %zu, ",
		search_runs(s), search_reached(s), corpus_size(s));
	if (best >= 0)
		fprintf(stderr, "best %.0f ns per call, ", best);
	fprintf(stderr, "%.0f s", seconds);
	p->line = true;
}

void explore_out_end(struct explore_progress *p)
{
	if (p->line)
		fputc('\n', stderr);
	p->line = false;
}

/* "CACHE (SYSCALL)", the way a context reads. */
static void context_name(const struct search_context *c, char *buf, size_t len)
{
	char nr[32];

	snprintf(buf, len, "%s (%s)", *c->ctx ? c->ctx : "-",
		 c->nr < 0 ? "no syscall" : syscalls_name(c->nr, NULL, nr, sizeof(nr)));
}

static const struct search_entry *entry(const struct search *s, unsigned int id)
{
	size_t n;
	const struct search_entry *e = search_entries(s, &n);

	return id && id <= n ? &e[id - 1] : NULL;
}

static void print_contexts(FILE *f, const struct explore_what *o, const struct scn_templates *t,
			   struct search *s)
{
	const struct search_context *c;
	char name[96], steps[512];
	size_t n, i;

	c = search_contexts(s, &n);
	fprintf(f, "# the contexts of its calls, the costliest first (INSNS/CALL: its instructions"
		   " per call, exact; TRIPS: its loops' most trips in a call; NS/CALL: the run's"
		   " time per call)\n");
	fprintf(f, "%-40s %8s %11s %6s %9s  %s\n", "CONTEXT", "CALLS", "INSNS/CALL", "TRIPS",
		"NS/CALL", "SCENARIO");
	for (i = 0; i < n; i++) {
		context_name(&c[i], name, sizeof(name));
		scn_summary(t, &entry(s, c[i].id)->s, steps, sizeof(steps));
		esc_printf(f, "%-40s %8llu %11.2f %6llu ", name, (unsigned long long)c[i].calls,
			   c[i].insns, (unsigned long long)c[i].trips);
		if (c[i].ns_per_call >= 0)
			fprintf(f, "%9.0f", c[i].ns_per_call);
		else
			fprintf(f, "%9s", "-");
		esc_printf(f, "  %s/corpus/%04u.scn: %s\n", o->dir, c[i].id, steps);
	}
}

static void print_text(FILE *f, const struct explore_what *o, const struct scn_templates *t,
		       struct search *s, double seconds)
{
	esc_printf(f,
		   "# explore %s: %u runs in %.1f s (seed %llu); %u reached it; %zu scenarios "
		   "kept in %s/corpus; %u hung, %u crashed (in %s/findings)\n",
		   o->target, search_runs(s), seconds, (unsigned long long)o->seed,
		   search_reached(s), corpus_size(s), o->dir, search_count(s, SEARCH_HUNG),
		   search_count(s, SEARCH_CRASHED), o->dir);
	if (!search_reached(s)) {
		esc_printf(f,
			   "explore: %s was not reached: none of the %u scenarios made the "
			   "traced processes call it; it may need syscalls the templates lack, "
			   "or another kernel configuration\n",
			   o->target, search_runs(s));
		return;
	}
	print_contexts(f, o, t, s);
}

static const char *end_name(enum search_end end)
{
	static const char *const names[] = {"exited", "hung", "crashed"};

	return names[end];
}

static void json_scenario(struct json *j, const struct explore_what *o,
			  const struct scn_templates *t, const struct search_entry *e)
{
	char path[4096], steps[512];

	snprintf(path, sizeof(path), "%s/%s/%04u.scn", o->dir, e->finding ? "findings" : "corpus",
		 e->id);
	scn_summary(t, &e->s, steps, sizeof(steps));
	json_u64(j, "id", e->id);
	json_str(j, "file", path);
	json_str(j, "steps", steps);
}

static void json_contexts(struct json *j, const struct explore_what *o,
			  const struct scn_templates *t, struct search *s)
{
	const struct search_context *c = NULL;
	char nr[32];
	size_t n, i;

	c = search_contexts(s, &n);
	json_open(j, "contexts", '[');
	for (i = 0; i < n; i++) {
		json_open(j, NULL, '{');
		json_str(j, "ctx", c[i].ctx);
		json_str(j, "syscall",
			 c[i].nr < 0 ? NULL : syscalls_name(c[i].nr, NULL, nr, sizeof(nr)));
		json_u64(j, "calls", c[i].calls);
		json_double(j, "insns_per_call", c[i].insns);
		json_u64(j, "trips", c[i].trips);
		if (c[i].ns_per_call >= 0)
			json_double(j, "ns_per_call", c[i].ns_per_call);
		else
			json_str(j, "ns_per_call", NULL);
		json_u64(j, "runs", c[i].runs);
		json_open(j, "scenario", '{');
		json_scenario(j, o, t, entry(s, c[i].id));
		json_close(j, '}');
		json_close(j, '}');
	}
	json_close(j, ']');
}

static void json_corpus(struct json *j, const struct explore_what *o, const struct scn_templates *t,
			const struct search *s)
{
	const struct search_entry *e;
	size_t n, i;

	e = search_entries(s, &n);
	json_open(j, "kept", '[');
	for (i = 0; i < n; i++) {
		json_open(j, NULL, '{');
		json_scenario(j, o, t, &e[i]);
		json_u64(j, "run", e[i].run);
		json_str(j, "end", end_name(e[i].end));
		json_str(j, "why", e[i].why);
		json_close(j, '}');
	}
	json_close(j, ']');
}

static void print_json(FILE *f, const struct explore_what *o, const struct scn_templates *t,
		       struct search *s, double seconds)
{
	double best = search_best_ns(s);
	struct json j;

	json_begin(&j, f);
	json_open(&j, NULL, '{');
	json_str(&j, "target", o->target);
	json_u64(&j, "seed", o->seed);
	json_u64(&j, "runs", search_runs(s));
	json_double(&j, "seconds", seconds);
	json_bool(&j, "reached", search_reached(s) > 0);
	json_u64(&j, "reached_runs", search_reached(s));
	json_u64(&j, "hung", search_count(s, SEARCH_HUNG));
	json_u64(&j, "crashed", search_count(s, SEARCH_CRASHED));
	if (best >= 0)
		json_double(&j, "best_ns_per_call", best);
	else
		json_str(&j, "best_ns_per_call", NULL);
	json_str(&j, "dir", o->dir);
	json_contexts(&j, o, t, s);
	json_corpus(&j, o, t, s);
	json_close(&j, '}');
	json_end(&j);
}

void explore_out_print(FILE *f, const struct explore_what *o, const struct scn_templates *t,
		       struct search *s, double seconds)
{
	if (o->json)
		print_json(f, o, t, s, seconds);
	else
		print_text(f, o, t, s, seconds);
}
