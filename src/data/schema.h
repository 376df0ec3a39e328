/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * The data file's CREATE TABLE statements, internal to data/: schema_base,
 * the tables of the oldest schema read (KP_SCHEMA_OLDEST), and
 * schema_added, those added by every schema since.
 */
#ifndef KP_SCHEMA_H
#define KP_SCHEMA_H

extern const char schema_base[];
extern const char schema_added[];

#endif
