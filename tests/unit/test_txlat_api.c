/* txlat's results from raw queues: quantiles, median interval, totals, orphans, windows. */
#include <math.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <setjmp.h>
#include <string.h>
#include <cmocka.h>
#include <linux/types.h>

#include "trace/txlat.h"
#include "txlat.h"

static struct txlat_q qs[TXLAT_QUEUES], base[TXLAT_QUEUES];
static struct txlat_result res;

/* n samples of ns each into queue q's free histogram, with the sum and max the programs keep */
static void add(struct txlat_q *q, enum txlat_hist_kind k, uint64_t ns, uint64_t n)
{
	q->h[k].slot[txlat_bucket(ns)] += n;
	q->st.sum_ns[k] += ns * n;
	if (ns > q->st.max_ns[k])
		q->st.max_ns[k] = ns;
}

static bool near(double v, double want, double rel)
{
	return fabs(v - want) <= rel * want;
}

static void reset(void)
{
	memset(qs, 0, sizeof(qs));
	memset(base, 0, sizeof(base));
	memset(&res, 0, sizeof(res));
	res.ksyms_ok = true;
}

/* One queue in use: its row and the total agree; TCP orphaned after xmit is "orphaning". */
static void test_single_queue(void **state)
{
	struct txlat_q *q = &qs[0];
	uint64_t i, sum = 0;

	reset();
	add(q, TXLAT_H_FREE, 1500000, 10);
	for (i = 0; i < 4990; i++) {
		add(q, TXLAT_H_FREE, 2100000 + i * 20, 1);
		sum += 2100000 + i * 20;
	}
	sum += 1500000 * 10;
	q->st.c[TXLAT_C_XMIT] = 5000;
	q->st.c[TXLAT_C_XMIT_BYTES] = 5000 * 1514;
	q->st.c[TXLAT_C_CONSUMED] = 4990;
	q->st.c[TXLAT_C_TCP] = 1873;
	q->st.c[TXLAT_C_TCP_WFREE] = 1868;
	q->st.c[TXLAT_C_TCP_ORPHANED] = 1853;
	q->st.c[TXLAT_C_TCP_OWNED_FREE] = 15;
	txlat_result_compute(qs, &res);

	assert_int_equal(res.active, 1);
	assert_int_equal(res.c.xmit, 5000);
	assert_int_equal(res.c.bytes, 5000 * 1514);
	assert_int_equal(res.c.consumed, 4990);
	assert_int_equal(res.q[0].c.xmit, 5000);
	assert_int_equal(res.free.n, 5000);
	assert_int_equal(res.not_seen_freed, 10);
	/* the true median is the 2490th of the 4990 spread samples: 2.1498 ms */
	assert_true(near(res.free.p50_us, 2149.8, 0.0625));
	assert_true(res.free.p50_lo_us <= res.free.p50_us);
	assert_true(res.free.p50_us <= res.free.p50_hi_us);
	assert_true(res.free.p50_hi_us - res.free.p50_lo_us < 0.2 * res.free.p50_us);
	assert_true(res.free.p50_us <= res.free.p90_us && res.free.p90_us <= res.free.p99_us);
	assert_true(res.free.p99_us <= res.free.max_us);
	assert_true(fabs(res.free.max_us - (2100000 + 4989 * 20) / 1000.0) < 1e-9);
	assert_true(fabs(res.free.mean_us - (double)(sum / 5000) / 1000.0) < 1e-9);
	/* the queue's row is the total */
	assert_true(res.q[0].free.p50_us == res.free.p50_us);
	assert_true(res.q[0].free.p50_lo_us == res.free.p50_lo_us);
	assert_true(res.q[0].free.max_us == res.free.max_us);
	/* log2 bins: 1.5 ms in [1024, 2047] us, the rest in [2048, 4095] us */
	assert_int_equal(res.free.lo, 11);
	assert_int_equal(res.free.hi, 12);
	assert_int_equal(res.free.bin[11], 10);
	assert_int_equal(res.free.bin[12], 4990);
	assert_int_equal(res.c.tcp, 1873);
	assert_int_equal(res.tcp_orphans, 1853);
	assert_true(fabs(res.orphan_frac - 1853.0 / 1873) < 1e-9);
	assert_string_equal(res.verdict, "orphaning");
	/* no TCP timing and no peer here */
	assert_int_equal(res.wfree.n, 0);
	assert_true(isnan(res.wfree.p50_us));
	assert_int_equal(res.peer_rx.n, 0);
}

/* Several queues: the totals are over all of them, each queue keeps its own distribution. */
static void test_all_queues(void **state)
{
	reset();
	add(&qs[0], TXLAT_H_FREE, 10000, 100);
	add(&qs[5], TXLAT_H_FREE, 50000, 300);
	add(&qs[TXLAT_QUEUES - 1], TXLAT_H_FREE, 30000, 1);
	qs[0].st.c[TXLAT_C_XMIT] = 100;
	qs[5].st.c[TXLAT_C_XMIT] = 310;
	qs[TXLAT_QUEUES - 1].st.c[TXLAT_C_XMIT] = 1;
	qs[0].st.c[TXLAT_C_CONSUMED] = 100;
	qs[5].st.c[TXLAT_C_KFREED] = 300;
	qs[TXLAT_QUEUES - 1].st.c[TXLAT_C_CONSUMED] = 1;
	qs[5].st.c[TXLAT_C_REXMIT] = 4;
	qs[5].st.c[TXLAT_C_STALE] = 2;
	qs[0].st.c[TXLAT_C_TCP] = 100;
	qs[0].st.c[TXLAT_C_TCP_OWNED_FREE] = 90;
	qs[0].st.c[TXLAT_C_TCP_NOSK] = 10;
	txlat_result_compute(qs, &res);

	assert_int_equal(res.active, 3);
	assert_int_equal(res.c.xmit, 411);
	assert_int_equal(res.c.consumed, 101);
	assert_int_equal(res.c.kfreed, 300);
	assert_int_equal(res.not_seen_freed, 411 - 4 - 101 - 300 - 2);
	assert_int_equal(res.free.n, 401);
	/* rank 201 of 401 lies among queue 5's */
	assert_true(near(res.free.p50_us, 50, 0.0625));
	assert_true(near(res.q[0].free.p50_us, 10, 0.0625));
	assert_true(near(res.q[5].free.p50_us, 50, 0.0625));
	assert_true(res.free.max_us == 50);
	assert_true(res.q[0].free.max_us == 10);
	assert_int_equal(res.q[TXLAT_QUEUES - 1].free.n, 1);
	assert_int_equal(res.q[1].free.n, 0);
	assert_true(isnan(res.q[1].free.p50_us));
	assert_int_equal(res.tcp_orphans, 10);
	assert_true(fabs(res.orphan_frac - 0.1) < 1e-12);
	assert_string_equal(res.verdict, "owned");
}

/* Frags per skb, bytes per frag and the free's latency by frag class, per queue and summed:
 * the seed's 64 KB skb in 16 frags of 4 KB (order-0) on one queue, 2 of 32 KB on another. */
static void test_frags(void **state)
{
	reset();
	qs[0].st.c[TXLAT_C_XMIT] = 100;
	qs[0].st.c[TXLAT_C_FRAGS + 16] = 100;
	qs[0].st.c[TXLAT_C_FRAG_BYTES + 12] = 100; /* [4096, 8191] */
	qs[0].st.c[TXLAT_C_FCLASS_N + 2] = 100;	   /* 5-16 */
	qs[0].st.c[TXLAT_C_FCLASS_NS + 2] = 100 * 30000;
	qs[1].st.c[TXLAT_C_XMIT] = 50;
	qs[1].st.c[TXLAT_C_FRAGS + 2] = 50;
	qs[1].st.c[TXLAT_C_FRAG_BYTES + 15] = 50; /* [32768, 65535] */
	qs[1].st.c[TXLAT_C_FCLASS_N + 1] = 50;	  /* 1-4 */
	qs[1].st.c[TXLAT_C_FCLASS_NS + 1] = 50 * 20000;
	txlat_result_compute(qs, &res);

	assert_int_equal(res.q[0].c.frags[16], 100);
	assert_int_equal(res.q[1].c.frags[2], 50);
	assert_int_equal(res.c.frags[16], 100);
	assert_int_equal(res.c.frags[2], 50);
	assert_int_equal(res.c.frag_bytes[12], 100);
	assert_int_equal(res.c.frag_bytes[15], 50);
	assert_true(fabs(res.q[0].c.fclass_mean_us[2] - 30) < 1e-9);
	assert_true(fabs(res.c.fclass_mean_us[1] - 20) < 1e-9);
	assert_true(isnan(res.c.fclass_mean_us[0]) && isnan(res.c.fclass_mean_us[3]));
	assert_int_equal(res.c.fclass_n[2], 100);
	assert_string_equal(txlat_fclass_name(2), "5-16");
	assert_string_equal(txlat_fclass_name(3), "17+");
}

/* Nothing traced: every quantile n/a, no bins, no verdict; without kallsyms no orphans. */
static void test_empty_and_no_ksyms(void **state)
{
	reset();
	txlat_result_compute(qs, &res);
	assert_int_equal(res.active, 0);
	assert_int_equal(res.free.n, 0);
	assert_true(isnan(res.free.mean_us) && isnan(res.free.p50_us) &&
		    isnan(res.free.p50_lo_us) && isnan(res.free.p50_hi_us) &&
		    isnan(res.free.p90_us) && isnan(res.free.p99_us) && isnan(res.free.max_us));
	assert_true(res.free.hi < res.free.lo);
	assert_string_equal(res.verdict, "n/a");
	assert_true(res.orphan_frac == 0);
	assert_int_equal(res.not_seen_freed, 0);

	reset();
	res.ksyms_ok = false;
	qs[2].st.c[TXLAT_C_XMIT] = 50;
	qs[2].st.c[TXLAT_C_TCP] = 50;
	qs[2].st.c[TXLAT_C_TCP_NOSK] = 50;
	txlat_result_compute(qs, &res);
	assert_int_equal(res.c.tcp, 50);
	assert_int_equal(res.tcp_orphans, 0);
	assert_true(res.orphan_frac == 0);
	assert_int_equal(res.not_seen_freed, 50);
}

/* Quantiles are capped at the largest sample: a bucket's middle may lie above it. */
static void test_lat_capped(void **state)
{
	static struct txlat_hist h;
	struct txlat_lat l;
	uint64_t v = txlat_bucket_lo(txlat_bucket(2000000)); /* the bottom of its bucket */

	memset(&h, 0, sizeof(h));
	h.slot[txlat_bucket(v)] = 500;
	txlat_lat_from_hist(&h, v, v * 500, &l);
	assert_int_equal(l.n, 500);
	assert_true(l.p50_us == v / 1000.0);
	assert_true(l.p90_us == v / 1000.0 && l.p99_us == v / 1000.0);
	assert_true(l.p50_hi_us == v / 1000.0);
	assert_true(l.p50_lo_us == v / 1000.0);
	assert_true(l.mean_us == v / 1000.0);
	assert_true(l.max_us == v / 1000.0);
	/* the mean is the programs' sum over n, in whole ns */
	txlat_lat_from_hist(&h, v, v * 500 + 499, &l);
	assert_true(l.mean_us == v / 1000.0);
	/* below 1 us: bin 0 */
	memset(&h, 0, sizeof(h));
	h.slot[txlat_bucket(700)] = 3;
	txlat_lat_from_hist(&h, 700, 2100, &l);
	assert_true(l.lo == 0 && l.hi == 0 && l.bin[0] == 3);
	/* 700 ns lies in [672, 704): the bucket's middle, below the largest sample */
	assert_true(l.p50_us == 0.688 && l.mean_us == 0.7 && l.max_us == 0.7);
}

/* The counts below each power of two of ns are exact: against a brute count of samples, one in
 * every fine bucket from 0 to past the last bound, and samples just below and at each bound. */
static void test_below_pow2(void **state)
{
	static struct txlat_hist h;
	struct txlat_lat l;
	uint64_t want, sum = 0, max = 0;
	unsigned int i, k;

	memset(&h, 0, sizeof(h));
	for (i = 0; i < TXLAT_NBUCKETS; i++)
		if (txlat_bucket_lo(i) < (2ULL << (TXLAT_POW2_LO + TXLAT_POW2_BINS)))
			h.slot[i] = i % 7 + 1;
	txlat_lat_from_hist(&h, 1, 1, &l);
	for (k = 0; k < TXLAT_POW2_BINS; k++) {
		uint64_t bound = 1ULL << (TXLAT_POW2_LO + k);

		for (want = 0, i = 0; i < TXLAT_NBUCKETS; i++)
			if (txlat_bucket_lo(i) + txlat_bucket_width(i) <= bound)
				want += h.slot[i];
		assert_int_equal(l.below_pow2[k], want);
		if (k)
			assert_true(l.below_pow2[k] >= l.below_pow2[k - 1]);
	}
	assert_true(l.below_pow2[TXLAT_POW2_BINS - 1] < l.n);
	/* a sample 1 ns below a bound counts below it, one at the bound above it */
	memset(&h, 0, sizeof(h));
	for (k = 0; k < TXLAT_POW2_BINS; k++) {
		uint64_t bound = 1ULL << (TXLAT_POW2_LO + k);

		h.slot[txlat_bucket(bound - 1)]++;
		h.slot[txlat_bucket(bound)]++;
		sum += 2 * bound - 1;
		max = bound;
	}
	txlat_lat_from_hist(&h, max, sum, &l);
	assert_int_equal(l.sum_ns, sum);
	for (k = 0; k < TXLAT_POW2_BINS; k++)
		assert_int_equal(l.below_pow2[k], 2 * k + 1);
}

/* A window is what happened since its base: counts, sums and histograms less the base's. */
static void test_window(void **state)
{
	struct txlat_q *q = &qs[3], *b = &base[3];
	unsigned int i;

	reset();
	add(b, TXLAT_H_FREE, 100000, 1000);
	add(b, TXLAT_H_FREE, 150000, 1);
	add(b, TXLAT_H_WFREE, 90000, 700);
	b->st.c[TXLAT_C_XMIT] = 1001;
	b->st.c[TXLAT_C_CONSUMED] = 1001;
	b->st.c[TXLAT_C_TCP] = 800;
	b->st.c[TXLAT_C_TCP_ORPHANED] = 800;
	*q = *b;
	add(q, TXLAT_H_FREE, 300000, 500);
	q->st.c[TXLAT_C_XMIT] += 500;
	q->st.c[TXLAT_C_CONSUMED] += 500;
	q->st.c[TXLAT_C_TCP] += 500;
	q->st.c[TXLAT_C_TCP_OWNED_FREE] += 500;
	for (i = 0; i < TXLAT_QUEUES; i++)
		txlat_q_window(&qs[i], &base[i]);
	assert_int_equal(q->st.c[TXLAT_C_XMIT], 500);
	assert_int_equal(q->st.sum_ns[TXLAT_H_FREE], 500 * 300000ULL);
	/* a larger maximum than the base's is the window's own */
	assert_int_equal(q->st.max_ns[TXLAT_H_FREE], 300000);
	assert_int_equal(txlat_hist_count(&q->h[TXLAT_H_FREE]), 500);
	assert_int_equal(q->h[TXLAT_H_FREE].slot[txlat_bucket(100000)], 0);
	/* no tcp_wfree sample in the window: nothing, not the base's maximum */
	assert_int_equal(txlat_hist_count(&q->h[TXLAT_H_WFREE]), 0);
	assert_int_equal(q->st.max_ns[TXLAT_H_WFREE], 0);
	assert_int_equal(q->st.sum_ns[TXLAT_H_WFREE], 0);
	txlat_result_compute(qs, &res);
	assert_int_equal(res.free.n, 500);
	assert_true(near(res.free.p50_us, 300, 0.0625));
	assert_true(res.free.mean_us == 300);
	assert_int_equal(res.c.tcp, 500);
	assert_int_equal(res.tcp_orphans, 0);
	assert_string_equal(res.verdict, "owned");

	/* the base's maximum not exceeded: the window's largest sample is bounded by its top
	 * bucket, never the earlier maximum */
	reset();
	add(b, TXLAT_H_FREE, 900000, 10);
	*q = *b;
	add(q, TXLAT_H_FREE, 200000, 40);
	txlat_q_window(q, b);
	assert_true(q->st.max_ns[TXLAT_H_FREE] >= 200000);
	assert_true(q->st.max_ns[TXLAT_H_FREE] < 200000 * 1.0625);
	assert_int_equal(txlat_hist_count(&q->h[TXLAT_H_FREE]), 40);

	/* two equal reads: an empty window */
	reset();
	add(b, TXLAT_H_FREE, 5000, 10);
	b->st.c[TXLAT_C_XMIT] = 10;
	*q = *b;
	txlat_q_window(q, b);
	assert_int_equal(q->st.c[TXLAT_C_XMIT], 0);
	assert_int_equal(q->st.max_ns[TXLAT_H_FREE], 0);
	assert_int_equal(txlat_hist_count(&q->h[TXLAT_H_FREE]), 0);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_single_queue),
		cmocka_unit_test(test_all_queues),
		cmocka_unit_test(test_frags),
		cmocka_unit_test(test_empty_and_no_ksyms),
		cmocka_unit_test(test_lat_capped),
		cmocka_unit_test(test_below_pow2),
		cmocka_unit_test(test_window),
	};

	return cmocka_run_group_tests_name("txlat_api", tests, NULL, NULL);
}
