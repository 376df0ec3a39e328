// SPDX-License-Identifier: GPL-2.0-only
/* One boot's kernel log (dmesg.h), parsed as untrusted input. */
#include "boot/dmesg.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "util/safeio.h"

/* printk's lines are at most 1 KiB; a longer one is no line the kernel wrote */
#define LINE_MAX_BYTES 1024
/* a time or count a data file can hold (check.c's R_NS: 2^60) */
#define NS_MAX	 (1ULL << 60)
#define USEC_MAX (NS_MAX / 1000)
/* the seconds of a timestamp: 2^60 ns is ~36 years */
#define SEC_MAX 1000000000ULL

/* What reading one log needs besides its result. */
struct scan {
	struct boot_dmesg *d;
	char pending[BOOT_NAME_MAX]; /* the symbol of the calling line not yet returned */
	__u64 pending_ns;
	bool have_pending, have_tsc, have_refined, have_detected;
	__u64 tsc_ticks, tsc_line_ns, refined_khz, detected_khz;
};

/* A decimal number of at most max at *s, *s moved past it. */
static bool number(const char **s, __u64 max, __u64 *v)
{
	const char *p = *s;
	__u64 x = 0;

	if (*p < '0' || *p > '9')
		return false;
	for (; *p >= '0' && *p <= '9'; p++) {
		if (x > (max - (*p - '0')) / 10)
			return false;
		x = x * 10 + (*p - '0');
	}
	*v = x;
	*s = p;
	return true;
}

/* "[    1.234567] " into ns; the text after it, or NULL for a line without a timestamp. */
static const char *timestamp(const char *s, __u64 *ns)
{
	__u64 sec, usec;
	const char *p = s;

	if (*p++ != '[')
		return NULL;
	p += strspn(p, " ");
	if (!number(&p, SEC_MAX, &sec) || *p++ != '.')
		return NULL;
	s = p;
	if (!number(&p, 999999, &usec) || p - s != 6 || strncmp(p, "] ", 2))
		return NULL;
	*ns = sec * 1000000000ULL + usec * 1000;
	return p + 2;
}

/* The first word of s (up to a space) into out: its length, 0 when none or too long. */
static size_t word(const char *s, char *out, size_t len)
{
	size_t n = strcspn(s, " ");

	if (!n || n >= len)
		return 0;
	memcpy(out, s, n);
	out[n] = '\0';
	return n;
}

static int add_initcall(struct boot_dmesg *d, const char *sym, __u64 start_ns, __u64 usecs, int ret)
{
	struct boot_initcall *ic;

	if (d->n == d->cap) {
		size_t cap = d->cap ? 2 * d->cap : 1024;

		ic = reallocarray(d->ic, cap, sizeof(*ic));
		if (!ic)
			return -ENOMEM;
		d->ic = ic;
		d->cap = cap;
	}
	ic = &d->ic[d->n++];
	/* "pci_init+0x0/0x40": the function's name alone */
	snprintf(ic->name, sizeof(ic->name), "%.*s", (int)strcspn(sym, "+"), sym);
	ic->start_ns = start_ns;
	ic->ns = usecs * 1000;
	ic->ret = ret;
	return 0;
}

/* "calling  SYM @ PID": SYM waits for its returned line. */
static void calling(struct scan *sc, const char *s, __u64 ns)
{
	size_t n;

	s += strspn(s, " ");
	n = word(s, sc->pending, sizeof(sc->pending));
	sc->d->unpaired += sc->have_pending;
	sc->have_pending = n && sc->pending[0] != '+' && !strncmp(s + n, " @ ", 3);
	sc->d->unpaired += !sc->have_pending;
	sc->pending_ns = ns;
}

/* "initcall SYM returned R after U usecs", paired with SYM's calling line. */
static int returned(struct scan *sc, const char *s, __u64 ns)
{
	char sym[BOOT_NAME_MAX];
	__u64 ret, usecs;
	bool neg;
	size_t n = word(s, sym, sizeof(sym));

	s += n;
	if (!n || strncmp(s, " returned ", 10))
		return 0;
	s += 10;
	neg = *s == '-';
	s += neg;
	if (!number(&s, neg ? 2147483648ULL : 2147483647ULL, &ret) || strncmp(s, " after ", 7))
		goto unpaired;
	s += 7;
	if (!number(&s, USEC_MAX, &usecs) || strcmp(s, " usecs"))
		goto unpaired;
	if (!sc->have_pending || strcmp(sym, sc->pending))
		goto unpaired;
	sc->have_pending = false;
	sc->d->has_initcalls_end = true;
	sc->d->initcalls_end_ns = ns;
	return add_initcall(sc->d, sym, sc->pending_ns, usecs, neg ? -(long long)ret : (int)ret);
unpaired:
	sc->d->unpaired++;
	return 0;
}

/* "X.YYY MHz" (printk's %lu.%03lu) as kHz, 1 kHz to 1 THz; 0 when it is not that. */
static __u64 mhz(const char *s, const char *after)
{
	__u64 whole, frac = 0;
	const char *p;

	if (!number(&s, 1000000, &whole))
		return 0;
	if (*s == '.') {
		p = ++s;
		if (!number(&s, 999, &frac) || s - p != 3)
			return 0;
	}
	if (strcmp(s, after))
		return 0;
	return whole * 1000 + frac;
}

/* The lines that time the TSC: rdtsc in /init, and the kernel's rate. */
static void tsc_line(struct scan *sc, const char *s, __u64 ns)
{
	static const char refined[] = "tsc: Refined TSC clocksource calibration: ",
			  detected[] = "tsc: Detected ", mine[] = "kprotperf-boot: tsc ";
	__u64 v = 0;

	if (!strncmp(s, mine, sizeof(mine) - 1) && !sc->have_tsc) {
		s += sizeof(mine) - 1;
		sc->have_tsc = number(&s, (1ULL << 63) - 1, &v) && !*s;
		sc->tsc_ticks = v;
		sc->tsc_line_ns = ns;
	} else if (!strncmp(s, refined, sizeof(refined) - 1)) {
		sc->refined_khz = mhz(s + sizeof(refined) - 1, " MHz");
		sc->have_refined = sc->refined_khz;
	} else if (!strncmp(s, detected, sizeof(detected) - 1) && !sc->have_detected) {
		sc->detected_khz = mhz(s + sizeof(detected) - 1, " MHz processor");
		sc->have_detected = sc->detected_khz;
	}
}

/* where printk's clock stands against reset: the TSC's ticks (since reset) in ns less the line's
 * time */
static void clock_offset(struct scan *sc)
{
	struct boot_dmesg *d = sc->d;
	__u64 khz = sc->have_refined ? sc->refined_khz : sc->detected_khz;
	unsigned __int128 ns;

	if (!sc->have_tsc) {
		snprintf(d->why_no_offset, sizeof(d->why_no_offset),
			 "no 'kprotperf-boot: tsc TICKS' line (the guest's /init writes it)");
		return;
	}
	if (!khz) {
		snprintf(d->why_no_offset, sizeof(d->why_no_offset),
			 "no TSC rate ('tsc: Refined TSC clocksource calibration: X MHz' or "
			 "'tsc: Detected X MHz processor')");
		return;
	}
	ns = (unsigned __int128)sc->tsc_ticks * 1000000 / khz;
	if (ns < sc->tsc_line_ns || ns - sc->tsc_line_ns > NS_MAX) {
		snprintf(d->why_no_offset, sizeof(d->why_no_offset),
			 "the TSC's %llu ticks at %llu kHz come before the line's own time",
			 (unsigned long long)sc->tsc_ticks, (unsigned long long)khz);
		return;
	}
	d->has_clock_offset = true;
	d->clock_offset_ns = ns - sc->tsc_line_ns;
}

/* One line; its initcalls count only before the first user process. */
static int line(struct scan *sc, const char *s)
{
	struct boot_dmesg *d = sc->d;
	const char *run;
	__u64 ns;

	s = timestamp(s, &ns);
	if (!s)
		return 0;
	tsc_line(sc, s, ns);
	if (d->has_first_user)
		return 0;
	if (!strncmp(s, "calling ", 8)) {
		calling(sc, s + 8, ns);
		return 0;
	}
	if (!strncmp(s, "initcall ", 9))
		return returned(sc, s + 9, ns);
	run = strstr(s, " as init process");
	if (!strncmp(s, "Run ", 4) && run && !run[16]) {
		d->has_first_user = true;
		d->first_user_ns = ns;
		d->unpaired += sc->have_pending;
	}
	return 0;
}

/* Lines of f, a longer one than printk writes skipped whole. */
static int scan_file(struct scan *sc, FILE *f)
{
	char buf[LINE_MAX_BYTES + 2];
	bool skipping = false, whole;
	size_t n;
	int err;

	while (fgets(buf, sizeof(buf), f)) {
		n = strlen(buf);
		whole = n && buf[n - 1] == '\n';
		if (whole)
			buf[n - 1] = '\0';
		if (!skipping && (whole || feof(f))) {
			err = line(sc, buf);
			if (err)
				return err;
		}
		skipping = !whole && !feof(f);
	}
	return ferror(f) ? -EIO : 0;
}

int boot_dmesg_read(const char *path, struct boot_dmesg *d, char *why, size_t len)
{
	struct scan sc = {.d = d};
	FILE *f;
	int err;

	*why = '\0';
	*d = (struct boot_dmesg){0};
	f = safeio_fopen_text(path, why, len);
	if (!f)
		return -errno;
	err = scan_file(&sc, f);
	fclose(f);
	if (err)
		return err;
	clock_offset(&sc);
	return 0;
}

void boot_dmesg_free(struct boot_dmesg *d)
{
	free(d->ic);
	*d = (struct boot_dmesg){0};
}
