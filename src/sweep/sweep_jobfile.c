// SPDX-License-Identifier: GPL-2.0-only
/* A job's DIR/VARIANT/job written and read (sweep_jobfile.h). */
#include "sweep/sweep_jobfile.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "util/safeio.h"

/* The text fields by key, as written and as read. */
struct field {
	const char *key;
	size_t off, size;
};

#define FIELD(k)                                                                              \
	{                                                                                     \
#k, offsetof(struct sweep_jobfile, k), sizeof(((struct sweep_jobfile *)0)->k) \
	}
static const struct field fields[] = {FIELD(variant), FIELD(setup),  FIELD(ops),
				      FIELD(model),   FIELD(core),   FIELD(record),
				      FIELD(kernel),  FIELD(status), FIELD(reason)};
#undef FIELD
#define NFIELDS (sizeof(fields) / sizeof(fields[0]))

static int fill(FILE *f, void *ctx)
{
	const struct sweep_jobfile *j = ctx;
	size_t i;

	for (i = 0; i < NFIELDS; i++)
		fprintf(f, "%s=%s\n", fields[i].key, (const char *)j + fields[i].off);
	fprintf(f, "repeat=%u\nbuild_seconds=%lld\nboot_seconds=%lld\n", j->repeat, j->build_s,
		j->boot_s);
	return ferror(f) ? -EIO : 0;
}

int sweep_jobfile_write(int dirfd, const struct sweep_jobfile *j)
{
	size_t i;

	/* a value is one line: a reason from a log was cut at its first newline */
	for (i = 0; i < NFIELDS; i++)
		if (strchr((const char *)j + fields[i].off, '\n'))
			return -EINVAL;
	return safeio_write(dirfd, "job", 0644, fill, (void *)j);
}

static int number(const char *v, long long min, long long max, long long *out)
{
	char *end;

	errno = 0;
	*out = strtoll(v, &end, 10);
	return errno || end == v || *end || *out < min || *out > max ? -EINVAL : 0;
}

/* One KEY=VALUE line into j; -EINVAL with what is wrong in why. */
static int one(struct sweep_jobfile *j, char *line, char *why, size_t len)
{
	char *eq = strchr(line, '=');
	long long v;
	size_t i;

	if (!eq) {
		snprintf(why, len, "not KEY=VALUE");
		return -EINVAL;
	}
	*eq++ = '\0';
	for (i = 0; i < NFIELDS; i++) {
		if (strcmp(line, fields[i].key))
			continue;
		if (strlen(eq) >= fields[i].size) {
			snprintf(why, len, "%s: longer than %zu bytes", line, fields[i].size - 1);
			return -EINVAL;
		}
		strcpy((char *)j + fields[i].off, eq);
		return 0;
	}
	if (!strcmp(line, "repeat") && !number(eq, 1, 1000, &v))
		j->repeat = v;
	else if (!strcmp(line, "build_seconds") && !number(eq, -1, 1LL << 40, &v))
		j->build_s = v;
	else if (!strcmp(line, "boot_seconds") && !number(eq, -1, 1LL << 40, &v))
		j->boot_s = v;
	else if (!strcmp(line, "repeat") || strstr(line, "_seconds")) {
		snprintf(why, len, "%s: not a number in range", line);
		return -EINVAL;
	}
	return 0;
}

int sweep_jobfile_read(const char *path, struct sweep_jobfile *j, char *why, size_t len)
{
	FILE *f = safeio_fopen_text(path, why, len);
	char *line = NULL, problem[256];
	unsigned int n = 0;
	size_t cap = 0;
	int err = 0;

	*j = (struct sweep_jobfile){.build_s = -1, .boot_s = -1};
	if (!f)
		return -errno;
	while (!err && getline(&line, &cap, f) > 0) {
		n++;
		line[strcspn(line, "\n")] = '\0';
		err = one(j, line, problem, sizeof(problem));
	}
	if (!err && (!*j->variant || !*j->status || !j->repeat)) {
		n = 0;
		snprintf(problem, sizeof(problem), "no variant, status or repeat");
		err = -EINVAL;
	}
	if (err)
		snprintf(why, len, "%s:%u: %s", path, n, problem);
	free(line);
	fclose(f);
	return err;
}
