/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * The meta values readers take as numbers or addresses, and what each must
 * be (check.c checks every meta row by them when a file is opened).
 */
#ifndef KP_CHECK_META_H
#define KP_CHECK_META_H

struct meta_rule {
	const char *key;
	unsigned long long lo, hi; /* hi 0: an address 0x and 1 to 16 hex digits */
	const char *want;	   /* what the value must be, for the message */
};

/* The rule key's value breaks, or NULL: key has no rule, or value keeps it. */
const struct meta_rule *meta_rule_broken(const char *key, const char *value);

#endif
