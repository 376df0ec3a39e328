/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * Text from a data file made safe to print: a data file comes from anyone,
 * and its names must not drive the terminal (escape sequences, carriage
 * returns), break a folded line or make the JSON invalid.  Valid UTF-8 that
 * is no control character prints unchanged.
 */
#ifndef KP_ESC_H
#define KP_ESC_H

#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>

enum esc_mode {
	/* control characters (C0, DEL, C1) and invalid UTF-8: \n, \r, \t, else \xNN per byte */
	ESC_TEXT,
	/* a frame of a folded line: as ESC_TEXT, and ';' (the frame separator) as ':' */
	ESC_FRAME,
	/*
	 * XML 1.0 text or a double-quoted attribute value (an SVG): as
	 * ESC_TEXT, and & < > " as entities and the noncharacters U+FFFE and U+FFFF, which XML
	 * forbids, as \xNN per byte
	 */
	ESC_XML,
};

/*
 * The UTF-8 character at s (RFC 3629: no overlong form, no surrogate, at
 * most U+10FFFF): its length 1..4, or -n when the n bytes at s (n >= 1, the
 * longest start of a character there) are none.  0 at the end of s.
 */
int esc_utf8(const char *s);
/* s escaped to f; returns the bytes written. */
size_t esc_fputs(FILE *f, const char *s, enum esc_mode m);
/* The length of s escaped. */
size_t esc_len(const char *s, enum esc_mode m);
/*
 * fprintf with every %s argument escaped (ESC_TEXT), its width and precision
 * counted in escaped bytes (a cut never splits an escape).  Conversions:
 * d i u x X o c s p f e g (and upper case), flags, * and the h hh l ll z j t
 * length modifiers; returns what fprintf returns.
 */
int esc_printf(FILE *f, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

#endif
