/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * Every value of a data file checked when it is opened, internal to data/:
 * data files travel between people, so each is untrusted input, and no
 * reader may see a value of the wrong type, out of range, or a string too
 * long or holding NUL.
 */
#ifndef KP_CHECK_H
#define KP_CHECK_H

struct datafile;

/* 0, or -EBADMSG with the first bad value (table, row, column) said by query_bad. */
int check_tables(struct datafile *df);

#endif
