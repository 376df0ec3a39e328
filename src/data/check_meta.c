// SPDX-License-Identifier: GPL-2.0-only
/* What some meta values must be: up to 19 digits from lo to hi, or an address. */
#include "data/check_meta.h"

#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

#define DIGITS	   "0123456789"
#define NS_MAX	   (1ULL << 60)
#define COUNT_2_50 "a count from 0 to 2^50"

static const struct meta_rule rules[] = {
	{"record.wall_ns", 0, NS_MAX, "a time from 0 to 2^60 ns"},
	{"sampling.freq_hz", 1, 100000, "a frequency from 1 to 100000"},
	{"cpu.count", 1, 65536, "a number of CPUs from 1 to 65536"},
	{"record.repeat", 1, 100000, "a number of runs from 1 to 100000"},
	{"record.exit_code", 0, 255, "an exit status from 0 to 255"},
	{"kernel.stext", 0, 0, "an address 0x and 1 to 16 hex digits"},
	{"model.format", 1, 2, "the model's table format, 1 or 2"},
	{"sampling.period", 1, 1ULL << 40, "a period from 1 to 2^40"},
	{"model.timing_insns", 0, 1ULL << 50, COUNT_2_50},
	{"model.timing_unknown", 0, 1ULL << 50, COUNT_2_50},
	{"model.timing_prefetches", 0, 1ULL << 50, COUNT_2_50},
	{"model.timing_cycles", 0, 1ULL << 50, COUNT_2_50},
	{"model.callsites_dropped", 0, 1ULL << 50, COUNT_2_50},
};

/* Whether s is 1 to max of the characters of set, and only those. */
static bool span_ok(const char *s, const char *set, size_t max)
{
	size_t n = strlen(s);

	return n && n <= max && strspn(s, set) == n;
}

static bool value_ok(const struct meta_rule *r, const char *value)
{
	unsigned long long v;

	if (!r->hi)
		return !strncmp(value, "0x", 2) && span_ok(value + 2, DIGITS "abcdef", 16);
	if (!span_ok(value, DIGITS, 19))
		return false;
	v = strtoull(value, NULL, 10);
	return v >= r->lo && v <= r->hi;
}

const struct meta_rule *meta_rule_broken(const char *key, const char *value)
{
	size_t i;

	for (i = 0; i < sizeof(rules) / sizeof(rules[0]); i++)
		if (!strcmp(key, rules[i].key))
			return value_ok(&rules[i], value) ? NULL : &rules[i];
	return NULL;
}
