/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * What the plugin's stand-alone unit programs (tests/unit/model_*.c, built
 * by their t_model_*.sh with model_harness.c) share: counts checked against
 * their known values, a fixed pseudo-random sequence so that the output
 * compared is the same every run, and the best-of-runs timing of the
 * "speed" line.
 */
#ifndef KP_MODEL_HARNESS_H
#define KP_MODEL_HARNESS_H

#include <stdint.h>

/* set by a failed check: the program's exit status */
extern int bad;

/* a FAIL line naming what, and bad set, unless got is want */
void check(const char *what, uint64_t got, uint64_t want);

/* xorshift64: the same sequence every run, from the same seed */
uint64_t next(void);

/* CLOCK_MONOTONIC in ns */
double now_ns(void);

/* *b lowered to the ns per call of n calls from t0 to t1 where that is less */
void best(double *b, double t0, double t1, unsigned int n);

#endif
