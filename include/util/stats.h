/* Statistics all layers share: Student t, mean intervals, Welch, paired t, Spearman, Wilson,
 * quantiles, the median's sign-test interval, histograms. */
#ifndef ETHTUNE_UTIL_STATS_H
#define ETHTUNE_UTIL_STATS_H

#include <stdint.h>

/* Student t quantile: P(T <= x) = p with df degrees of freedom. */
double stats_t_quantile(double p, unsigned int df);
/* Confidence interval half-width of the mean at level (percent). */
double stats_ci_half(const double *v, unsigned int n, double level, double *mean);
/* A mean with its Student-t confidence interval at level (percent); lo/hi infinite for n < 2. */
struct et_ci {
	double mean, lo, hi, half;
	unsigned int n;
};
void stats_mean_ci(const double *v, unsigned int n, double level, struct et_ci *c);
/* Mean of the values that are not NaN; NaN when there are none. */
double stats_mean_finite(const double *v, unsigned int n);
/* Welch's unequal-variance t-test: two-sided p-value for "the means of a and b differ"
 * (df by Welch-Satterthwaite, rounded down). 1 when either sample has fewer than 2 values. */
double stats_welch_p(const double *a, unsigned int na, const double *b, unsigned int nb);
/* Is x below the normal population that n values of this mean and standard deviation were
 * drawn from? One-sided p-value of the prediction (leave-one-out) t-test:
 * t = (mean - x) / (sd sqrt(1 + 1/n)), Student t with n - 1 df. 1 with n < 2 or a NaN; where
 * the values do not vary (sd 0), 0 when x is below their mean, else 1. */
double stats_pred_below_p(double x, double mean, double sd, unsigned int n);
/* Paired t-test: two-sided p-value for "the mean of a[i] - b[i] is not 0", over the pairs
 * where neither is NaN (df: pairs - 1). 1 with fewer than 2 pairs. */
double stats_paired_p(const double *a, const double *b, unsigned int n);
/* The mean of a[i] - b[i] over the same pairs, the difference that test judges (NaN: none). */
double stats_paired_mean(const double *a, const double *b, unsigned int n);
/* Spearman's rank correlation of a[i] and b[i] over the pairs where neither is NaN (ties take
 * their mean rank), and in *p the one-sided p-value for "b rises with a": exact, over every
 * permutation of the ranks, up to SPEARMAN_EXACT_N pairs, Student t (n - 2 df) above. NaN, and
 * *p 1, with fewer than 3 pairs or a variable that does not vary. */
#define SPEARMAN_EXACT_N 9
double stats_spearman(const double *a, const double *b, unsigned int n, double *p);
/* Wilson score interval at 95% for k successes of n. */
void stats_wilson(uint64_t k, uint64_t n, double *lo, double *hi);

/* Nearest rank (1..n) of quantile q (0..1) among n ordered values: ceil(q n), at least 1. */
uint64_t stats_rank(double q, uint64_t n);
/* The first of nb buckets whose cumulative count reaches rank; nb when none does. */
unsigned int stats_bucket_of_rank(const uint64_t *count, unsigned int nb, uint64_t rank);
/* Quantile q (0..1) of n >= 1 sorted values, interpolated linearly between neighbours. */
double stats_quantile_sorted(const double *v, unsigned int n, double q);
/* The median of n >= 1 values (sorted in place) and its distribution-free interval by the sign
 * test: order statistics k and n + 1 - k for the largest k whose coverage under Binomial(n, 1/2)
 * is at least 95% (the whole range, and its smaller coverage, when n is too small). Returns the
 * coverage in percent. */
double stats_median_sign_ci(double *v, unsigned int n, double *med, double *lo, double *hi);

/* A latency distribution in microseconds: what every latency printout shows. */
struct stats_lat {
	double min, mean, p50, p90, p99, p999, max;
};

/* Log-linear latency histogram in nanoseconds, ~3% resolution. */
#define HIST_SUB_BITS 5
#define HIST_BUCKETS  2048
struct stats_hist {
	uint64_t n, sum, min, max;
	uint64_t b[HIST_BUCKETS];
};
static inline unsigned int hist_idx(uint64_t v)
{
	unsigned int msb, shift;

	if (v < (1u << (HIST_SUB_BITS + 1)))
		return (unsigned int)v;
	msb = 63 - __builtin_clzll(v);
	shift = msb - HIST_SUB_BITS;
	if (shift > 58)
		return HIST_BUCKETS - 1;
	return (shift << HIST_SUB_BITS) + (unsigned int)(v >> shift);
}
void hist_add(struct stats_hist *h, uint64_t v);
void hist_merge(struct stats_hist *dst, const struct stats_hist *src);
/* Value at quantile q (0..1), nanoseconds (bucket midpoint). */
double hist_quantile(const struct stats_hist *h, double q);
/* The latency summary (us) of a non-empty histogram of nanoseconds. */
void hist_lat_us(const struct stats_hist *h, struct stats_lat *l);

#endif
