// SPDX-License-Identifier: GPL-2.0-only
/* The estimators of diff/stats.h: point values, bootstrap, delta method, Poisson. */
#include "diff/stats.h"

#include <errno.h>
#include <math.h>
#include <stdlib.h>

#include "util/hist.h"

/* two-sided 95% normal quantile */
#define Z95 1.959963984540054

void stats_point(const struct stats_run *b, size_t nb, const struct stats_run *h, size_t nh,
		 struct stats_result *r)
{
	double nsum[2] = {0, 0}, dsum[2] = {0, 0};
	size_t i;

	for (i = 0; i < nb; i++) {
		nsum[0] += b[i].num;
		dsum[0] += b[i].den;
	}
	for (i = 0; i < nh; i++) {
		nsum[1] += h[i].num;
		dsum[1] += h[i].den;
	}
	*r = (struct stats_result){
		.lo = NAN, .hi = NAN, .delta_lo = NAN, .delta_hi = NAN, .p = NAN};
	r->base = dsum[0] > 0 ? nsum[0] / dsum[0] : 0;
	r->hard = dsum[1] > 0 ? nsum[1] / dsum[1] : 0;
	r->base_den = dsum[0];
	r->hard_den = dsum[1];
	r->ratio = r->base > 0 ? r->hard / r->base : r->hard > 0 ? INFINITY : 1;
	r->base_run = nb ? nsum[0] / nb : 0;
	r->hard_run = nh ? nsum[1] / nh : 0;
	r->delta_run = r->hard_run - r->base_run;
}

/* splitmix64: small, fast, and the same stream everywhere */
static __u64 next_rand(__u64 *s)
{
	__u64 z = (*s += 0x9e3779b97f4a7c15ULL);

	z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
	z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
	return z ^ (z >> 31);
}

/* One bootstrap replicate of a side: sum(num) and sum(den) over n runs drawn with replacement. */
static void resample(const struct stats_run *v, size_t n, __u64 *s, double *num, double *den)
{
	size_t i, k;

	*num = *den = 0;
	for (i = 0; i < n; i++) {
		k = next_rand(s) % n;
		*num += v[k].num;
		*den += v[k].den;
	}
}

/* The q quantile of n sorted values, interpolated between neighbours. */
static double quantile(const double *v, size_t n, double q)
{
	double pos = q * (n - 1), f = floor(pos);
	size_t i = (size_t)f;

	if (i + 1 >= n)
		return v[n - 1];
	if (isinf(v[i]) || isinf(v[i + 1]))
		return pos - f < 0.5 ? v[i] : v[i + 1];
	return v[i] + (pos - f) * (v[i + 1] - v[i]);
}

/*
 * Moves the k-th smallest of v[0..n) to v[k], none larger before it and
 * none smaller after (Hoare's select): a bootstrap's four quantiles need
 * four values of 2000, not the sort of them that took half of a diff.
 */
static void select_nth(double *v, long n, long k)
{
	long l = 0, r = n - 1, i, j;
	double p, t;

	while (l < r) {
		p = v[l + (r - l) / 2];
		for (i = l, j = r; i <= j;) {
			while (v[i] < p)
				i++;
			while (v[j] > p)
				j--;
			if (i <= j) {
				t = v[i];
				v[i++] = v[j];
				v[j--] = t;
			}
		}
		if (k <= j)
			r = j;
		else if (k >= i)
			l = i;
		else
			return;
	}
}

/* quantile() of v as sorted, v reordered: only its two neighbours are put in place. */
static double select_quantile(double *v, size_t n, double q)
{
	size_t i = (size_t)floor(q * (n - 1)), k, m;
	double t;

	select_nth(v, (long)n, (long)i);
	if (i + 1 < n) {
		for (m = i + 1, k = i + 2; k < n; k++)
			if (v[k] < v[m])
				m = k;
		t = v[i + 1];
		v[i + 1] = v[m];
		v[m] = t;
	}
	return quantile(v, n, q);
}

/* Student's t 0.975 quantile for df degrees of freedom (df >= 1). */
static double t975(size_t df)
{
	static const double t[] = {12.706, 4.303, 3.182, 2.776, 2.571, 2.447, 2.365, 2.306,
				   2.262,  2.228, 2.201, 2.179, 2.160, 2.145, 2.131, 2.120,
				   2.110,  2.101, 2.093, 2.086, 2.080, 2.074, 2.069, 2.064,
				   2.060,  2.056, 2.052, 2.048, 2.045, 2.042};

	return df <= 30 ? t[df - 1] : Z95 + 2.4 / df;
}

/* The mean and the variance of the mean (sample variance / n) of v[0..n), n >= 2. */
static void mean_var(const double *v, size_t n, double *mean, double *var)
{
	double sum = 0, ss = 0;
	size_t i;

	for (i = 0; i < n; i++)
		sum += v[i];
	*mean = sum / n;
	for (i = 0; i < n; i++)
		ss += (v[i] - *mean) * (v[i] - *mean);
	*var = ss / (n - 1) / n;
}

void stats_mean_interval(const double *v, size_t n, double *mean, double *lo, double *hi)
{
	double var, half;

	*mean = *lo = *hi = NAN;
	if (n == 1)
		*mean = v[0];
	if (n < 2)
		return;
	mean_var(v, n, mean, &var);
	half = t975(n - 1) * sqrt(var);
	*lo = *mean - half;
	*hi = *mean + half;
}

void stats_welch(const double *b, size_t nb, const double *h, size_t nh, double *lo, double *hi)
{
	double mb, vb, mh, vh, df, half = 0;

	mean_var(b, nb, &mb, &vb);
	mean_var(h, nh, &mh, &vh);
	if (vb + vh > 0) {
		df = (vb + vh) * (vb + vh) / (vb * vb / (nb - 1) + vh * vh / (nh - 1));
		half = t975(df < 1 ? 1 : (size_t)df) * sqrt(vb + vh);
	}
	*lo = mh - mb - half;
	*hi = mh - mb + half;
}

/*
 * The regularized incomplete beta function's continued fraction (modified
 * Lentz), which converges fast for x < (a + 1) / (a + b + 2).
 */
static double beta_fraction(double a, double b, double x)
{
	const double tiny = 1e-300;
	double c = 1, d = 1 - (a + b) * x / (a + 1), h, num, step;
	int m, k;

	d = 1 / (fabs(d) < tiny ? tiny : d);
	h = d;
	for (m = 1; m <= 300; m++)
		for (k = 0; k < 2; k++) {
			/* the even term of step m, then the odd one */
			num = k ? -(a + m) * (a + b + m) * x / ((a + 2 * m) * (a + 2 * m + 1))
				: m * (b - m) * x / ((a + 2 * m - 1) * (a + 2 * m));
			d = 1 + num * d;
			d = 1 / (fabs(d) < tiny ? tiny : d);
			c = 1 + num / c;
			c = fabs(c) < tiny ? tiny : c;
			step = d * c;
			h *= step;
			if (k && fabs(step - 1) < 1e-15)
				return h;
		}
	return h;
}

/* I_x(a, b), the regularized incomplete beta function. */
static double beta_regularized(double a, double b, double x)
{
	double front;

	if (x <= 0 || x >= 1)
		return x <= 0 ? 0 : 1;
	front = exp(lgamma(a + b) - lgamma(a) - lgamma(b) + a * log(x) + b * log1p(-x));
	if (x < (a + 1) / (a + b + 2))
		return front * beta_fraction(a, b, x) / a;
	return 1 - front * beta_fraction(b, a, 1 - x) / b;
}

double stats_welch_p(const double *b, size_t nb, const double *h, size_t nh)
{
	double mb, vb, mh, vh, df, t;

	if (nb < 2 || nh < 2)
		return NAN;
	mean_var(b, nb, &mb, &vb);
	mean_var(h, nh, &mh, &vh);
	if (vb + vh <= 0)
		return mh == mb ? 1 : 0;
	df = (vb + vh) * (vb + vh) / (vb * vb / (nb - 1) + vh * vh / (nh - 1));
	t = (mh - mb) / sqrt(vb + vh);
	/* two-sided: P(|T| > |t|) = I_{df / (df + t^2)}(df / 2, 1 / 2) */
	return beta_regularized(df / 2, 0.5, df / (df + t * t));
}

static int cmp_p(const void *a, const void *b, void *p)
{
	double x = ((const double *)p)[*(const size_t *)a],
	       y = ((const double *)p)[*(const size_t *)b];

	/* NAN last: no test, never significant */
	if (isnan(x) || isnan(y))
		return isnan(x) - isnan(y);
	return x < y ? -1 : x > y;
}

int stats_holm(const double *p, size_t n, double alpha, bool *sig)
{
	size_t *order = malloc((n ?: 1) * sizeof(*order)), i, m = 0;

	if (!order)
		return -ENOMEM;
	for (i = 0; i < n; i++) {
		order[i] = i;
		sig[i] = false;
		m += !isnan(p[i]);
	}
	qsort_r(order, n, sizeof(*order), cmp_p, (void *)p);
	/* step down: the k-th smallest p against alpha / (m - k), until one is not below */
	for (i = 0; i < m && p[order[i]] <= alpha / (m - i); i++)
		sig[order[i]] = true;
	free(order);
	return 0;
}

/*
 * The percentile interval of a bootstrap over few runs is too narrow: it
 * sees the runs' spread as if it were the population's (divisor n, not
 * n - 1) and with normal tails, not Student's.  Hesterberg's expanded
 * percentile interval takes the tails where a normal quantile equals
 * sqrt(n / (n - 1)) t(df): here n is the smaller side's runs, df the two
 * sides' runs minus 2.  With 5 + 5 runs the tails are 0.5% instead of 2.5%.
 */
static double expanded_tail(size_t nb, size_t nh)
{
	size_t n = nb < nh ? nb : nh;
	double z = sqrt((double)n / (n - 1)) * t975(nb + nh - 2);

	return 0.5 * erfc(z / M_SQRT2);
}

int stats_bootstrap(const struct stats_run *b, size_t nb, const struct stats_run *h, size_t nh,
		    struct stats_result *r)
{
	double tail = expanded_tail(nb, nh);
	double *ratio = malloc(2 * DS_RESAMPLES * sizeof(*ratio)), *delta = ratio + DS_RESAMPLES;
	double nu[2], de[2], mb, mh;
	__u64 seed = DS_SEED;
	size_t k;

	if (!ratio)
		return -ENOMEM;
	for (k = 0; k < DS_RESAMPLES; k++) {
		resample(b, nb, &seed, &nu[0], &de[0]);
		resample(h, nh, &seed, &nu[1], &de[1]);
		mb = de[0] > 0 ? nu[0] / de[0] : 0;
		mh = de[1] > 0 ? nu[1] / de[1] : 0;
		ratio[k] = mb > 0 ? mh / mb : mh > 0 ? INFINITY : 1;
		delta[k] = nu[1] / nh - nu[0] / nb;
	}
	r->lo = select_quantile(ratio, DS_RESAMPLES, tail);
	r->hi = select_quantile(ratio, DS_RESAMPLES, 1 - tail);
	r->delta_lo = select_quantile(delta, DS_RESAMPLES, tail);
	r->delta_hi = select_quantile(delta, DS_RESAMPLES, 1 - tail);
	r->sig = r->lo > 1 || r->hi < 1;
	r->method = DS_BOOTSTRAP;
	free(ratio);
	return 0;
}

/*
 * U counts, for every pair of one value from h and one from b, 1 when h's is
 * larger and 1/2 when both fall in the same bucket (a tie).  The normal
 * approximation's variance is corrected for the ties, bucket by bucket.
 */
double stats_mann_whitney(const __u64 *b, const __u64 *h, size_t nbuckets, double *z)
{
	double below = 0, u = 0, ties = 0, n1 = 0, n2 = 0, n, t, var, zz;
	size_t i;

	for (i = 0; i < nbuckets; i++) {
		u += h[i] * (below + 0.5 * b[i]);
		below += b[i];
		t = (double)b[i] + h[i];
		ties += t * t * t - t;
		n1 += h[i];
		n2 += b[i];
	}
	n = n1 + n2;
	var = n > 1 ? n1 * n2 / 12 * ((n + 1) - ties / (n * (n - 1))) : 0;
	zz = var > 0 ? (u - n1 * n2 / 2) / sqrt(var) : 0;
	if (z)
		*z = zz;
	return erfc(fabs(zz) / M_SQRT2);
}

/* Count, mean and variance of a histogram, each value at its bucket's midpoint. */
static void moments(const __u64 *hist, double *n, double *mean, double *var)
{
	double s = 0, ss = 0, x;
	__u32 i;

	*n = 0;
	for (i = 0; i < KP_HIST_BUCKETS; i++) {
		if (!hist[i])
			continue;
		/* the last bucket is open-ended: its lower bound stands for it */
		x = i + 1 < KP_HIST_BUCKETS ? (hist_lo(i) + hist_hi(i)) / 2.0 : hist_lo(i);
		*n += hist[i];
		s += hist[i] * x;
		ss += hist[i] * x * x;
	}
	*mean = *n ? s / *n : 0;
	*var = *n > 1 ? (ss - s * s / *n) / (*n - 1) : 0;
	if (*var < 0)
		*var = 0;
}

/*
 * The ratio of two means by the delta method: var(log ratio) is the sum of
 * the squared coefficients of variation of the means, taken from the
 * histograms; the interval is centred on the exact ratio of r.  The U test's
 * p value is kept besides (r->p), also where there is too little for an
 * interval (then the method stays DS_NONE).
 */
void stats_histogram(const __u64 *b, const __u64 *h, struct stats_result *r)
{
	double nb, mb, vb, nh, mh, vh, se;

	moments(b, &nb, &mb, &vb);
	moments(h, &nh, &mh, &vh);
	if (nb < 1 || nh < 1)
		return;
	r->p = stats_mann_whitney(b, h, KP_HIST_BUCKETS, NULL);
	if (nb < 2 || nh < 2 || mb <= 0 || mh <= 0 || r->base <= 0 || r->hard <= 0)
		return;
	se = sqrt(vb / (nb * mb * mb) + vh / (nh * mh * mh));
	r->lo = r->ratio * exp(-Z95 * se);
	r->hi = r->ratio * exp(Z95 * se);
	/* the verdict the interval shows, as with the other methods; p is an aside */
	r->sig = r->lo > 1 || r->hi < 1;
	r->method = DS_HISTOGRAM;
}

/*
 * Events (CPU samples, block executions) arrive as a Poisson process:
 * log(rate ratio) has variance 1/count_b + 1/count_h; half a count is added
 * to each so that something seen on one side only still gets an interval.
 * The weights scale the rates (ns per sample, instructions per execution)
 * and cancel out of that variance.
 */
void stats_poisson_rate(double cb, double eb, double wb, double ch, double eh, double wh,
			double delta, struct stats_result *r)
{
	double se, centre, sd;

	if (eb <= 0 || eh <= 0 || wb <= 0 || wh <= 0)
		return;
	se = sqrt(1 / (cb + 0.5) + 1 / (ch + 0.5));
	centre = log((ch + 0.5) * wh / eh) - log((cb + 0.5) * wb / eb);
	r->lo = exp(centre - Z95 * se);
	r->hi = exp(centre + Z95 * se);
	sd = sqrt(cb * wb * wb / (eb * eb) + ch * wh * wh / (eh * eh));
	r->delta_lo = delta - Z95 * sd;
	r->delta_hi = delta + Z95 * sd;
	r->sig = r->lo > 1 || r->hi < 1;
	r->method = DS_POISSON;
}

void stats_poisson(size_t nb, double period_b, size_t nh, double period_h, struct stats_result *r)
{
	if (!nb || !nh || period_b <= 0 || period_h <= 0)
		return;
	/* samples per run times the period: nb runs of period_b ns per sample */
	stats_poisson_rate(r->base_run * nb / period_b, nb, period_b, r->hard_run * nh / period_h,
			   nh, period_h, r->delta_run, r);
}

const char *stats_method_name(enum stats_method m)
{
	static const char *const names[] = {"none", "bootstrap", "histogram", "poisson"};

	return names[m];
}
