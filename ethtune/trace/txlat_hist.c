/* txlat's histograms: counts, quantiles, the median's interval (no BPF: in every build). */
#include <math.h>
#include <stdint.h>
#include <linux/types.h>

#include "trace/txlat_hist.h"
#include "txlat.h"

uint64_t txlat_hist_count(const struct txlat_hist *h)
{
	uint64_t n = 0;
	unsigned int i;

	for (i = 0; i < TXLAT_NBUCKETS; i++)
		n += h->slot[i];
	return n;
}

/* Value at quantile p (0..1): the middle of the bucket that holds it, in ns; 0 when empty. */
uint64_t txlat_hist_quantile(const struct txlat_hist *h, double p)
{
	uint64_t n = txlat_hist_count(h), rank, cum = 0;
	unsigned int i;

	if (!n)
		return 0;
	rank = (uint64_t)ceil(p * (double)n);
	if (rank < 1)
		rank = 1;
	for (i = 0; i < TXLAT_NBUCKETS; i++) {
		cum += h->slot[i];
		if (cum >= rank)
			return txlat_bucket_lo(i) + txlat_bucket_width(i) / 2;
	}
	return txlat_bucket_lo(TXLAT_NBUCKETS - 1);
}

/* Distribution-free 95% interval of the median from order statistics: the samples of ranks
 * n/2 -+ 0.98 sqrt(n) (binomial, normal approximation), as bucket bounds; 0 when empty. */
void txlat_hist_median_ci(const struct txlat_hist *h, uint64_t *lo_ns, uint64_t *hi_ns)
{
	uint64_t n = txlat_hist_count(h), cum = 0, rlo, rhi;
	double half;
	unsigned int i;

	*lo_ns = *hi_ns = 0;
	if (!n)
		return;
	half = 0.98 * sqrt((double)n);
	rlo = n / 2.0 - half < 1 ? 1 : (uint64_t)floor(n / 2.0 - half);
	rhi = n / 2.0 + half + 1 > n ? n : (uint64_t)ceil(n / 2.0 + half + 1);
	for (i = 0; i < TXLAT_NBUCKETS; i++) {
		uint64_t before = cum;

		cum += h->slot[i];
		if (before < rlo && cum >= rlo)
			*lo_ns = txlat_bucket_lo(i);
		if (before < rhi && cum >= rhi) {
			*hi_ns = txlat_bucket_lo(i) + txlat_bucket_width(i);
			return;
		}
	}
	*hi_ns = txlat_bucket_lo(TXLAT_NBUCKETS - 1);
}
