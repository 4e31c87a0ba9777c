/* Statistics behind verdicts: t intervals, Welch's and the paired t-test, Spearman's rank
 * correlation, Wilson intervals, the median's interval by the sign test. */
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include "probe/probe.h"

static void test_mean_ci(void **state)
{
	const double v[] = { 10, 12, 11, 13, 9 };
	struct et_ci c;

	stats_mean_ci(v, 5, 95, &c);
	assert_true(fabs(c.mean - 11) < 1e-9);
	/* t(0.975, 4) = 2.776, s = 1.581: half-width 1.963 */
	assert_true(fabs(c.half - 1.963) < 0.01);
	assert_true(c.lo < 11 && c.hi > 11);
	stats_mean_ci(v, 1, 95, &c);
	assert_true(isinf(c.half));
}

static void test_welch(void **state)
{
	const double a[] = { 500, 520, 480, 510, 490 }, b[] = { 900, 880, 920, 910, 890 };
	const double c[] = { 505, 515, 485, 500, 495 };

	/* clearly different means: tiny p; the same population: large p */
	assert_true(stats_welch_p(a, 5, b, 5) < 1e-4);
	assert_true(stats_welch_p(a, 5, c, 5) > 0.5);
	/* textbook: t = 2.2, df ~ 8: p ~ 0.059 */
	{
		const double x[] = { 1, 2, 3, 4, 5 }, y[] = { 3.2, 4.2, 5.2, 6.2, 7.2 };
		double p = stats_welch_p(x, 5, y, 5);

		assert_true(p > 0.04 && p < 0.08);
	}
	assert_true(stats_welch_p(a, 1, b, 5) == 1);
}

/* profile merge's outlier test: a host's mean against the other hosts' (prediction t-test) */
static void test_pred_below(void **state)
{
	double t = 20 / (5 * sqrt(1.1)), p;

	/* 1 df is Cauchy: P(T > 1) = 1/4; x = mean - sd sqrt(1 + 1/2) makes t 1 with n = 2 */
	assert_true(fabs(stats_pred_below_p(10 - sqrt(1.5), 10, 1, 2) - 0.25) < 1e-9);
	/* 9 df: the p-value is the upper tail at t */
	p = stats_pred_below_p(80, 100, 5, 10);
	assert_true(p > 0 && p < 0.01);
	assert_true(fabs(stats_t_quantile(1 - p, 9) - t) < 1e-6);
	/* above the mean: more than one half; equal: one half */
	assert_true(stats_pred_below_p(120, 100, 5, 10) > 0.99);
	assert_true(fabs(stats_pred_below_p(100, 100, 5, 10) - 0.5) < 1e-12);
	/* no spread: below is certain, at or above is not below */
	assert_true(stats_pred_below_p(99, 100, 0, 5) == 0);
	assert_true(stats_pred_below_p(100, 100, 0, 5) == 1);
	/* one other value: nothing to judge by */
	assert_true(stats_pred_below_p(1, 100, 5, 1) == 1);
	assert_true(stats_pred_below_p(NAN, 100, 5, 10) == 1);
}

static void test_paired(void **state)
{
	/* a shift of 1 that drifts with the pass: Welch sees the drift, the pairs do not */
	const double a[] = { 11, 21, 31, 40.5 }, b[] = { 10, 20, 30, 40 };
	const double nan_a[] = { 11, NAN, 21, 31, 40.5 }, nan_b[] = { 10, 5, 20, 30, 40 };
	const double same[] = { 1, 2, 3, 4 };

	/* differences 1, 1, 1, 0.5: t = 7 with 3 df, p = 0.00599 (closed form for 3 df) */
	assert_true(fabs(stats_paired_p(a, b, 4) - 0.005986) < 1e-4);
	assert_true(stats_welch_p(a, 4, b, 4) > 0.9);
	/* a pair with a NaN is left out, not the run */
	assert_true(fabs(stats_paired_p(nan_a, nan_b, 5) - 0.005986) < 1e-4);
	assert_true(stats_paired_p(same, same, 4) == 1);
	assert_true(stats_paired_p(a, b, 1) == 1);
	/* the side is the pairs': a's lone 100 has no partner and does not count */
	{
		const double x[] = { 1, 100 }, y[] = { 2, NAN };

		assert_true(stats_paired_mean(x, y, 2) == -1);
		assert_true(fabs(stats_paired_mean(nan_a, nan_b, 5) - 0.875) < 1e-12);
		assert_true(isnan(stats_paired_mean(x + 1, y + 1, 1)));
	}
}

static void test_spearman(void **state)
{
	/* one flow's cwnd and rate in five lab rounds: ranks agree, p = 1/5! */
	const double cwnd[] = { 57, 77, 119, 223, 340 }, mbps[] = { 310, 404, 523, 735, 861 };
	/* exact p of these, by enumerating the permutations (a Python check): 0.0061508, and with a
	 * tie in x 0.0174603 (rho 0.810844) */
	const double x[] = { 1, 2, 3, 4, 5, 6, 7 }, y[] = { 2, 1, 4, 3, 6, 5, 7 };
	const double xt[] = { 1, 2, 2, 3, 4, 5, 6 }, yt[] = { 3, 1, 2, 5, 4, 7, 6 };
	const double up[] = { 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11 };
	const double wob[] = { 2, 1, 4, 3, 6, 5, 8, 7, 11, 9, 10 };
	const double nan_x[] = { 57, NAN, 77, 119, 223, 340 };
	const double nan_y[] = { 310, 999, 404, 523, 735, 861 };
	const double flat[] = { 5, 5, 5, 5 };
	double p, rho;

	rho = stats_spearman(cwnd, mbps, 5, &p);
	assert_true(fabs(rho - 1) < 1e-12 && fabs(p - 1.0 / 120) < 1e-12);
	/* falling together is no evidence that one rises with the other */
	rho = stats_spearman(cwnd, (const double[]){ 861, 735, 523, 404, 310 }, 5, &p);
	assert_true(fabs(rho + 1) < 1e-12 && p == 1);
	rho = stats_spearman(x, y, 7, &p);
	assert_true(fabs(rho - 0.892857) < 1e-6 && fabs(p - 0.0061508) < 1e-6);
	rho = stats_spearman(xt, yt, 7, &p);
	assert_true(fabs(rho - 0.810844) < 1e-6 && fabs(p - 0.0174603) < 1e-6);
	/* above SPEARMAN_EXACT_N, Student t: rho 0.936364, t 8.00 with 9 df */
	rho = stats_spearman(up, wob, 11, &p);
	assert_true(fabs(rho - 0.936364) < 1e-6 && p > 0 && p < 1e-4);
	/* a pair with a NaN is left out */
	rho = stats_spearman(nan_x, nan_y, 6, &p);
	assert_true(fabs(rho - 1) < 1e-12 && fabs(p - 1.0 / 120) < 1e-12);
	/* too few pairs, or nothing that varies: no answer */
	assert_true(isnan(stats_spearman(cwnd, mbps, 2, &p)) && p == 1);
	assert_true(isnan(stats_spearman(flat, mbps, 4, &p)) && p == 1);
}

static void test_wilson(void **state)
{
	double lo, hi;

	stats_wilson(98, 100, &lo, &hi);
	assert_true(lo > 0.92 && lo < 0.95 && hi > 0.99);
	stats_wilson(50, 100, &lo, &hi);
	assert_true(lo < 0.5 && hi > 0.5 && lo > 0.39 && hi < 0.61);
	stats_wilson(0, 0, &lo, &hi);
	assert_true(lo == 0 && hi == 1);
}

/* The sign test's order statistics, as tests/bench/lib/paired.py takes them: the widest pair
 * with 95% coverage, or the whole range with its own when n is too small. */
static void test_median_sign(void **state)
{
	double v[20], med, lo, hi, cov;
	unsigned int i;

	for (i = 0; i < 12; i++)
		v[i] = 12 - i; /* unsorted on purpose */
	cov = stats_median_sign_ci(v, 12, &med, &lo, &hi);
	assert_true(med == 6.5 && lo == 3 && hi == 10 && fabs(cov - 96.14) < 0.01);
	for (i = 0; i < 20; i++)
		v[i] = i + 1;
	cov = stats_median_sign_ci(v, 20, &med, &lo, &hi);
	assert_true(med == 10.5 && lo == 6 && hi == 15 && fabs(cov - 95.86) < 0.01);
	v[0] = 3, v[1] = 1, v[2] = 2;
	cov = stats_median_sign_ci(v, 3, &med, &lo, &hi);
	assert_true(med == 2 && lo == 1 && hi == 3 && cov == 75);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_mean_ci), cmocka_unit_test(test_welch),
		cmocka_unit_test(test_paired),	cmocka_unit_test(test_pred_below),	cmocka_unit_test(test_spearman),
		cmocka_unit_test(test_wilson),	cmocka_unit_test(test_median_sign),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
