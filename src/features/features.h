/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * Which hardening feature a kernel function belongs to, for diff's roll-up:
 * an editable mapping (share/features.conf, built in; --features FILE
 * replaces it) from function and inlined-function name globs to features,
 * and from the Kconfig options that build them.
 */
#ifndef KP_FEATURES_H
#define KP_FEATURES_H

#include <stdbool.h>
#include <stddef.h>

struct features;
struct runs_feature_map;

/* What a feature is (share/features.conf's type, position and when). */
enum features_class { FEATURES_TYPE, FEATURES_POSITION, FEATURES_WHEN, FEATURES_CLASSES };

/* path NULL: the built-in mapping.  On a bad file, why names the line. */
int features_load(struct features **out, const char *path, char *why, size_t len);
/* The feature of function (or inlined function) name, clone suffixes ignored; NULL: unmapped. */
const char *features_match(const struct features *f, const char *name);
size_t features_count(const struct features *f);
/* The index of the feature named so; -1: none (or f NULL). */
long features_index(const struct features *f, const char *name);
/* Feature i, in the file's order, and its one-line description. */
const char *features_name(const struct features *f, size_t i);
const char *features_about(const struct features *f, size_t i);
/* The Kconfig options (without CONFIG_) that build feature i, from its 'config =' lines. */
size_t features_nconfig(const struct features *f, size_t i);
const char *features_config(const struct features *f, size_t i, size_t k);
/* The feature a Kconfig option (CONFIG_ optional) builds; NULL: none. */
const char *features_of_config(const struct features *f, const char *option);
/* Feature i's type, position or when; NULL: the file does not say. */
const char *features_class(const struct features *f, size_t i, enum features_class c);
/* The compiler-inserted sites (a sites.h kind name) that are feature i's; NULL: none. */
const char *features_sites(const struct features *f, size_t i);
/* The feature whose 'sites =' is kind; NULL: none. */
const char *features_of_site(const struct features *f, const char *kind);
/* The mapping as data/runs.h's readers take it. */
void features_map(const struct features *f, struct runs_feature_map *m);

/* What is known of a recorded kernel, for features_state(). */
struct features_facts {
	/* a Kconfig option's value ("y", "m", ...; NULL: not set), when config_known */
	const char *(*config)(const char *option, void *ctx);
	bool config_known;
	const char *cmdline; /* NULL: unknown */
	/* the sites of a kind in the code that ran; -1 (or sites NULL): not scanned */
	long long (*sites)(const char *kind, void *ctx);
	void *ctx;
};

enum features_state { FS_UNKNOWN, FS_ON, FS_OFF, FS_NOT_BUILT };

/*
 * Whether feature i is on the kernel k describes, and why (one phrase:
 * "mitigations=off on the command line", ...).  In order: not built (none
 * of its config options set, unless 'default =' names options: those only
 * pick the default), its sites in the code that ran (none: off, when
 * 'patched = yes'), its 'on ='/'off =' words on the command line (the last
 * wins), its default.
 */
enum features_state features_state(const struct features *f, size_t i,
				   const struct features_facts *k, char *why, size_t len);
const char *features_state_name(enum features_state s);
void features_free(struct features *f);

#endif
