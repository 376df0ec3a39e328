/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * The tables a data file of an older schema lacks, internal to data/: they
 * read as empty, so that every reader queries every table whatever the
 * file's schema.
 */
#ifndef KP_COMPAT_H
#define KP_COMPAT_H

struct datafile;

/* Name of the database that holds them (attached beside the file's). */
#define COMPAT_DB "kp_compat"

/*
 * For a file of a schema older than KP_SCHEMA_VERSION (df's read
 * transaction open): attach every table added since KP_SCHEMA_OLDEST,
 * empty, read-only; the file's own tables of those names are found first.
 * 0 or -errno.
 */
int compat_attach(struct datafile *df);

#endif
