/* Unit tests of txlat's latency buckets and quantiles (no BPF, no kernel). */
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <string.h>
#include <cmocka.h>
#include <linux/types.h>

#include "trace/txlat.h"
#include "txlat.h"

/* Every value falls in the bucket whose range holds it, buckets are contiguous, and each is
 * at most 1/16 of its value wide. */
static void test_buckets(void **state)
{
	uint64_t v;
	__u32 i, prev = 0;

	for (v = 0; v < (1ULL << 36); v = v < 4096 ? v + 1 : v + v / 7 + 1) {
		__u32 b = txlat_bucket(v);

		assert_true(b >= prev);
		assert_true(txlat_bucket_lo(b) <= v);
		assert_true(v < txlat_bucket_lo(b) + txlat_bucket_width(b));
		assert_true(txlat_bucket_width(b) * 16 <= (v > 16 ? v : 16));
		prev = b;
	}
	for (i = 1; i < TXLAT_NBUCKETS; i++)
		assert_int_equal(txlat_bucket_lo(i),
				 txlat_bucket_lo(i - 1) + txlat_bucket_width(i - 1));
	assert_int_equal(txlat_bucket(~0ULL), TXLAT_NBUCKETS - 1);
	assert_int_equal(txlat_log2(1), 0);
	assert_int_equal(txlat_log2(1ULL << 40), 40);
}

static void test_quantiles(void **state)
{
	static struct txlat_hist h;
	uint64_t v, p50;

	memset(&h, 0, sizeof(h));
	assert_int_equal(txlat_hist_quantile(&h, 0.5), 0);
	/* 1000 samples of 1..1000 us: p50 ~500 us, p99 ~990 us, each within a bucket (6.25%). */
	for (v = 1; v <= 1000; v++)
		h.slot[txlat_bucket(v * 1000)]++;
	assert_int_equal(txlat_hist_count(&h), 1000);
	p50 = txlat_hist_quantile(&h, 0.5);
	assert_true(p50 > 500000 * 0.94 && p50 < 500000 * 1.06);
	v = txlat_hist_quantile(&h, 0.99);
	assert_true(v > 990000 * 0.94 && v < 990000 * 1.06);
	/* One sample: every quantile is its bucket. */
	memset(&h, 0, sizeof(h));
	h.slot[txlat_bucket(4000000)]++;
	v = txlat_hist_quantile(&h, 0.0);
	assert_true(v > 4000000 * 0.97 && v < 4000000 * 1.03);
	assert_int_equal(txlat_hist_quantile(&h, 1.0), v);
}

/* The median's 95% interval: ranks 500 -+ 31 of 1000 uniform samples, widened to buckets. */
static void test_median_ci(void **state)
{
	static struct txlat_hist h;
	uint64_t v, lo, hi;

	memset(&h, 0, sizeof(h));
	txlat_hist_median_ci(&h, &lo, &hi);
	assert_true(lo == 0 && hi == 0);
	for (v = 1; v <= 1000; v++)
		h.slot[txlat_bucket(v * 1000)]++;
	txlat_hist_median_ci(&h, &lo, &hi);
	assert_true(lo <= 469000 && lo > 469000 * 0.93);
	assert_true(hi >= 531000 && hi < 531000 * 1.07);
	/* all samples equal: the interval is that one bucket */
	memset(&h, 0, sizeof(h));
	h.slot[txlat_bucket(2000000)] = 500;
	txlat_hist_median_ci(&h, &lo, &hi);
	assert_true(lo <= 2000000 && hi > 2000000 && hi - lo < 2000000 / 16);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_buckets),
		cmocka_unit_test(test_quantiles),
		cmocka_unit_test(test_median_ci),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
