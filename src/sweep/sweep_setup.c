// SPDX-License-Identifier: GPL-2.0-only
/* A variant's setup: base's options and its own merged (sweep_setup.h). */
#include "sweep/sweep_setup.h"

#include <string.h>

static size_t key_len(const char *w)
{
	return strcspn(w, "=");
}

/* Each of add's words over v's of the same key, or after them. */
static void merge(const char **v, size_t *n, const char *const *add, size_t nadd)
{
	size_t i, k;

	for (i = 0; i < nadd; i++) {
		for (k = 0; k < *n; k++)
			if (key_len(v[k]) == key_len(add[i]) &&
			    !strncmp(v[k], add[i], key_len(add[i])))
				break;
		if (k < *n)
			v[k] = add[i];
		else if (*n < SWEEP_WORDS_MAX)
			v[(*n)++] = add[i];
	}
}

void sweep_setup_of(const struct sweep_plan *p, const struct sweep_variant *v,
		    struct sweep_setup *s)
{
	const struct sweep_setup *own = &v->own;

	*s = p->v[p->base].own;
	if (v == &p->v[p->base])
		return;
	if (own->kernel) {
		s->version = s->src = NULL;
		s->nsets = 0;
		s->kernel = own->kernel;
	}
	if (own->version || own->src || own->nsets)
		s->kernel = NULL;
	s->version = own->version ?: s->version;
	s->src = own->src ?: s->src;
	s->timeout = own->timeout ?: s->timeout;
	s->cpu = own->cpu ?: s->cpu;
	merge(s->sets, &s->nsets, own->sets, own->nsets);
	merge(s->params, &s->nparams, own->params, own->nparams);
}

bool sweep_setup_builds(const struct sweep_setup *s)
{
	return !s->kernel;
}

size_t sweep_setup_build_args(const struct sweep_setup *s, const char **argv, size_t n)
{
	size_t i;

	if (s->version) {
		argv[n++] = "--version";
		argv[n++] = s->version;
	}
	if (s->src) {
		argv[n++] = "--src";
		argv[n++] = s->src;
	}
	for (i = 0; i < s->nsets; i++) {
		argv[n++] = "--set";
		argv[n++] = s->sets[i];
	}
	argv[n] = NULL;
	return n;
}

bool sweep_setup_cmdline(const struct sweep_setup *s, char *buf, size_t len)
{
	size_t i, used = 0;
	int n;

	buf[0] = '\0';
	for (i = 0; i < s->nparams; i++) {
		n = snprintf(buf + used, len - used, "%s%s", i ? " " : "", s->params[i]);
		if (n < 0 || (size_t)n >= len - used)
			return false;
		used += n;
	}
	return true;
}

void sweep_shell_word(const char *w, FILE *f)
{
	const char *safe = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789"
			   "_-+=.,/:@%";

	if (*w && strspn(w, safe) == strlen(w)) {
		fputs(w, f);
		return;
	}
	fputc('\'', f);
	for (; *w; w++)
		if (*w == '\'')
			fputs("'\\''", f);
		else
			fputc(*w, f);
	fputc('\'', f);
}

void sweep_setup_print(const struct sweep_setup *s, FILE *f)
{
	const char *argv[SWEEP_SETUP_ARGS];
	char cmdline[8192];
	size_t i, n;

	if (sweep_setup_builds(s)) {
		fputs("kernel-build.sh", f);
		n = sweep_setup_build_args(s, argv, 0);
		for (i = 0; i < n; i++) {
			fputc(' ', f);
			sweep_shell_word(argv[i], f);
		}
	} else {
		fputs("kernel ", f);
		sweep_shell_word(s->kernel, f);
	}
	if (s->nparams && sweep_setup_cmdline(s, cmdline, sizeof(cmdline))) {
		fputs("; append ", f);
		sweep_shell_word(cmdline, f);
	}
	if (s->timeout)
		fprintf(f, "; timeout %s", s->timeout);
	if (s->cpu) {
		fputs("; cpu ", f);
		sweep_shell_word(s->cpu, f);
	}
}

void sweep_setup_line(const struct sweep_setup *s, char *buf, size_t len)
{
	/* one byte kept: a full memory stream writes no NUL */
	FILE *f = len > 1 ? fmemopen(buf, len - 1, "w") : NULL;

	memset(buf, 0, len);
	if (!f)
		return;
	sweep_setup_print(s, f);
	fclose(f);
}
