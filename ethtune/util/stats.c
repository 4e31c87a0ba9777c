/* Statistics all layers share: Student t, mean intervals, Welch, Spearman, Wilson, quantiles,
 * histograms. */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "util/ethtune.h"
#include "util/stats.h"

/* One step of Lentz's method: the factor the continued fraction's value changes by. */
static double lentz_step(double aa, double *c, double *d)
{
	const double tiny = 1e-300;

	*d = 1 + aa * *d;
	if (fabs(*d) < tiny)
		*d = tiny;
	*c = 1 + aa / *c;
	if (fabs(*c) < tiny)
		*c = tiny;
	*d = 1 / *d;
	return *d * *c;
}

/* Regularized incomplete beta I_x(a,b) by Lentz's continued fraction. */
static double betacf(double a, double b, double x)
{
	const double tiny = 1e-300;
	double c = 1, d = 1 - (a + b) * x / (a + 1), h;
	int m;

	if (fabs(d) < tiny)
		d = tiny;
	d = 1 / d;
	h = d;
	for (m = 1; m <= 300; m++) {
		double m2 = 2.0 * m, del;

		h *= lentz_step(m * (b - m) * x / ((a + m2 - 1) * (a + m2)), &c, &d);
		del = lentz_step(-(a + m) * (a + b + m) * x / ((a + m2) * (a + m2 + 1)), &c, &d);
		h *= del;
		if (fabs(del - 1) < 1e-14)
			break;
	}
	return h;
}

static double ibeta(double a, double b, double x)
{
	double bt;

	if (x <= 0)
		return 0;
	if (x >= 1)
		return 1;
	bt = exp(lgamma(a + b) - lgamma(a) - lgamma(b) + a * log(x) + b * log(1 - x));
	if (x < (a + 1) / (a + b + 2))
		return bt * betacf(a, b, x) / a;
	return 1 - bt * betacf(b, a, 1 - x) / b;
}

static double t_cdf(double t, unsigned int df)
{
	double x = df / (df + t * t), tail = 0.5 * ibeta(df / 2.0, 0.5, x);

	return t >= 0 ? 1 - tail : tail;
}

double stats_t_quantile(double p, unsigned int df)
{
	double lo = 0, hi = 1e7;
	int i;

	if (df == 0 || p <= 0 || p >= 1)
		return NAN;
	if (p < 0.5)
		return -stats_t_quantile(1 - p, df);
	for (i = 0; i < 200 && hi - lo > 1e-12 * (1 + lo); i++) {
		double mid = (lo + hi) / 2;

		if (t_cdf(mid, df) < p)
			lo = mid;
		else
			hi = mid;
	}
	return (lo + hi) / 2;
}

double stats_ci_half(const double *v, unsigned int n, double level, double *mean)
{
	double m = 0, ss = 0;
	unsigned int i;

	for (i = 0; i < n; i++)
		m += v[i];
	m = n ? m / n : 0;
	if (mean)
		*mean = m;
	if (n < 2)
		return INFINITY;
	for (i = 0; i < n; i++)
		ss += (v[i] - m) * (v[i] - m);
	return stats_t_quantile(0.5 + level / 200.0, n - 1) * sqrt(ss / (n - 1)) / sqrt(n);
}

void stats_mean_ci(const double *v, unsigned int n, double level, struct et_ci *c)
{
	c->n = n;
	c->half = stats_ci_half(v, n, level, &c->mean);
	c->lo = c->mean - c->half;
	c->hi = c->mean + c->half;
}

double stats_mean_finite(const double *v, unsigned int n)
{
	double m = 0;
	unsigned int i, k = 0;

	for (i = 0; i < n; i++)
		if (!isnan(v[i])) {
			m += v[i];
			k++;
		}
	return k ? m / k : NAN;
}

static void mean_var(const double *v, unsigned int n, double *m, double *var)
{
	unsigned int i;

	*m = 0;
	*var = 0;
	for (i = 0; i < n; i++)
		*m += v[i];
	*m /= n;
	for (i = 0; i < n; i++)
		*var += (v[i] - *m) * (v[i] - *m);
	*var /= n - 1;
}

double stats_welch_p(const double *a, unsigned int na, const double *b, unsigned int nb)
{
	double ma, va, mb, vb, sa, sb, t, df;

	if (na < 2 || nb < 2)
		return 1;
	mean_var(a, na, &ma, &va);
	mean_var(b, nb, &mb, &vb);
	sa = va / na;
	sb = vb / nb;
	if (sa + sb <= 0)
		return ma == mb ? 1 : 0;
	t = fabs(ma - mb) / sqrt(sa + sb);
	df = (sa + sb) * (sa + sb) / (sa * sa / (na - 1) + sb * sb / (nb - 1));
	return 2 * (1 - t_cdf(t, df < 1 ? 1 : (unsigned int)df));
}

double stats_pred_below_p(double x, double mean, double sd, unsigned int n)
{
	double t;

	if (n < 2 || isnan(x) || isnan(mean) || isnan(sd))
		return 1;
	if (sd <= 0)
		return x < mean ? 0 : 1;
	t = (mean - x) / (sd * sqrt(1 + 1.0 / n));
	return 1 - t_cdf(t, n - 1);
}

/* Mean and variance of a[i] - b[i] over the pairs where neither is NaN; their number. */
static unsigned int paired_diff(const double *a, const double *b, unsigned int n, double *m,
				double *var)
{
	unsigned int i, k = 0;

	*m = 0;
	*var = 0;
	for (i = 0; i < n; i++)
		if (!isnan(a[i]) && !isnan(b[i])) {
			*m += a[i] - b[i];
			k++;
		}
	if (!k)
		return 0;
	*m /= k;
	for (i = 0; i < n; i++)
		if (!isnan(a[i]) && !isnan(b[i]))
			*var += (a[i] - b[i] - *m) * (a[i] - b[i] - *m);
	if (k > 1)
		*var /= k - 1;
	return k;
}

double stats_paired_mean(const double *a, const double *b, unsigned int n)
{
	double m, v;

	return paired_diff(a, b, n, &m, &v) ? m : NAN;
}

double stats_paired_p(const double *a, const double *b, unsigned int n)
{
	double m, v;
	unsigned int k = paired_diff(a, b, n, &m, &v);

	if (k < 2)
		return 1;
	if (v <= 0)
		return m == 0 ? 1 : 0;
	return 2 * (1 - t_cdf(fabs(m) / sqrt(v / k), k - 1));
}

/* Mean ranks (1..n) of v's n values, ties sharing the mean of the ranks they span. */
static void ranks(const double *v, unsigned int n, double *r)
{
	unsigned int i, j, lt, eq;

	for (i = 0; i < n; i++) {
		lt = eq = 0;
		for (j = 0; j < n; j++) {
			lt += v[j] < v[i];
			eq += v[j] == v[i];
		}
		r[i] = lt + (eq + 1) / 2.0;
	}
}

/* Pearson's r of two rank vectors. */
static double rank_r(const double *x, const double *y, unsigned int n)
{
	double mx = 0, my = 0, sxy = 0, sxx = 0, syy = 0;
	unsigned int i;

	for (i = 0; i < n; i++) {
		mx += x[i] / n;
		my += y[i] / n;
	}
	for (i = 0; i < n; i++) {
		sxy += (x[i] - mx) * (y[i] - my);
		sxx += (x[i] - mx) * (x[i] - mx);
		syy += (y[i] - my) * (y[i] - my);
	}
	return sxx > 0 && syy > 0 ? sxy / sqrt(sxx * syy) : NAN;
}

/* The share of the n! orders of y's ranks whose correlation with x reaches rho (Heap's
 * algorithm; with ties, the same ranks permuted). */
static double spearman_exact_p(const double *x, const double *y, unsigned int n, double rho)
{
	double p[SPEARMAN_EXACT_N], t;
	unsigned int c[SPEARMAN_EXACT_N] = { 0 }, i = 1;
	uint64_t hit = 0, all = 0;

	memcpy(p, y, n * sizeof(*p));
	hit += rank_r(x, p, n) >= rho - 1e-9;
	all++;
	while (i < n) {
		if (c[i] < i) {
			unsigned int k = i % 2 ? c[i] : 0;

			t = p[k];
			p[k] = p[i];
			p[i] = t;
			hit += rank_r(x, p, n) >= rho - 1e-9;
			all++;
			c[i]++;
			i = 1;
		} else {
			c[i++] = 0;
		}
	}
	return (double)hit / (double)all;
}

double stats_spearman(const double *a, const double *b, unsigned int n, double *p)
{
	double *x = calloc(4 * (size_t)n + 1, sizeof(*x)), *y, *ra, *rb, rho, t;
	unsigned int i, k = 0;

	*p = 1;
	if (!x)
		return NAN;
	y = x + n;
	ra = y + n;
	rb = ra + n;
	for (i = 0; i < n; i++)
		if (!isnan(a[i]) && !isnan(b[i])) {
			x[k] = a[i];
			y[k++] = b[i];
		}
	rho = NAN;
	if (k >= 3) {
		ranks(x, k, ra);
		ranks(y, k, rb);
		rho = rank_r(ra, rb, k);
	}
	if (isnan(rho)) {
		free(x);
		return NAN;
	}
	if (k <= SPEARMAN_EXACT_N) {
		*p = spearman_exact_p(ra, rb, k, rho);
	} else if (rho >= 1) {
		*p = 0;
	} else {
		t = rho * sqrt((k - 2) / (1 - rho * rho));
		*p = 1 - t_cdf(t, k - 2);
	}
	free(x);
	return rho;
}

void stats_wilson(uint64_t k, uint64_t n, double *lo, double *hi)
{
	const double z = 1.959964;
	double p, c, h;

	if (!n) {
		*lo = 0;
		*hi = 1;
		return;
	}
	p = (double)k / (double)n;
	c = (p + z * z / (2.0 * n)) / (1 + z * z / n);
	h = z * sqrt(p * (1 - p) / n + z * z / (4.0 * n * n)) / (1 + z * z / n);
	*lo = fmax(0, c - h);
	*hi = fmin(1, c + h);
}

uint64_t stats_rank(double q, uint64_t n)
{
	uint64_t r = (uint64_t)ceil(q * (double)n);

	if (r < 1)
		r = 1;
	return r > n ? n : r;
}

unsigned int stats_bucket_of_rank(const uint64_t *count, unsigned int nb, uint64_t rank)
{
	uint64_t cum = 0;
	unsigned int i;

	for (i = 0; i < nb; i++) {
		cum += count[i];
		if (cum >= rank)
			return i;
	}
	return nb;
}

double stats_quantile_sorted(const double *v, unsigned int n, double q)
{
	double pos = q * (n - 1);
	unsigned int i = (unsigned int)pos;

	return i + 1 < n ? v[i] + (pos - i) * (v[i + 1] - v[i]) : v[n - 1];
}

double stats_median_sign_ci(double *v, unsigned int n, double *med, double *lo, double *hi)
{
	/* P(Bin(n, 1/2) <= j), and the coverage of the order statistics j + 1 and n - j */
	double ln2n = (double)n * log(2.0), cdf = exp(-ln2n), cov = 1 - 2 * cdf;
	unsigned int j, k = 0;

	qsort(v, n, sizeof(*v), cmp_double);
	*med = stats_quantile_sorted(v, n, 0.5);
	for (j = 1; 2 * j < n; j++) {
		cdf += exp(lgamma(n + 1.0) - lgamma(j + 1.0) - lgamma(n - j + 1.0) - ln2n);
		if (1 - 2 * cdf < 0.95)
			break;
		k = j;
		cov = 1 - 2 * cdf;
	}
	*lo = v[k];
	*hi = v[n - 1 - k];
	return 100 * cov;
}

void hist_add(struct stats_hist *h, uint64_t v)
{
	if (!h->n || v < h->min)
		h->min = v;
	if (v > h->max)
		h->max = v;
	h->n++;
	h->sum += v;
	h->b[hist_idx(v)]++;
}

void hist_merge(struct stats_hist *dst, const struct stats_hist *src)
{
	unsigned int i;

	if (!src->n)
		return;
	if (!dst->n || src->min < dst->min)
		dst->min = src->min;
	if (src->max > dst->max)
		dst->max = src->max;
	dst->n += src->n;
	dst->sum += src->sum;
	for (i = 0; i < HIST_BUCKETS; i++)
		dst->b[i] += src->b[i];
}

/* Lower bound and width of bucket i. */
static void bucket_range(unsigned int i, double *lo, double *w)
{
	unsigned int shift;

	if (i < (1u << (HIST_SUB_BITS + 1))) {
		*lo = i;
		*w = 1;
		return;
	}
	shift = (i >> HIST_SUB_BITS) - 1;
	*lo = (double)((uint64_t)(i - (shift << HIST_SUB_BITS)) << shift);
	*w = (double)(1ULL << shift);
}

double hist_quantile(const struct stats_hist *h, double q)
{
	double lo, w, v;
	unsigned int i;

	if (!h->n)
		return NAN;
	if (q <= 0)
		return h->min;
	if (q >= 1)
		return h->max;
	i = stats_bucket_of_rank(h->b, HIST_BUCKETS, stats_rank(q, h->n));
	if (i == HIST_BUCKETS)
		return h->max;
	bucket_range(i, &lo, &w);
	v = lo + (w > 1 ? w / 2 : 0);
	if (v < h->min)
		v = h->min;
	if (v > h->max)
		v = h->max;
	return v;
}

void hist_lat_us(const struct stats_hist *h, struct stats_lat *l)
{
	l->min = h->min / 1e3;
	l->max = h->max / 1e3;
	l->mean = (double)h->sum / h->n / 1e3;
	l->p50 = hist_quantile(h, 0.50) / 1e3;
	l->p90 = hist_quantile(h, 0.90) / 1e3;
	l->p99 = hist_quantile(h, 0.99) / 1e3;
	l->p999 = hist_quantile(h, 0.999) / 1e3;
}
