/* txlat's latency histograms (layout in ethtune/trace/bpf/txlat.h): counts and quantiles. */
#ifndef ETHTUNE_TXLAT_HIST_H
#define ETHTUNE_TXLAT_HIST_H

#include <stdint.h>

struct txlat_hist;

/* Samples in h. */
uint64_t txlat_hist_count(const struct txlat_hist *h);
/* Value at quantile p (0..1): the middle of the bucket that holds it, in ns; 0 when empty. */
uint64_t txlat_hist_quantile(const struct txlat_hist *h, double p);
/* Distribution-free 95% interval of the median, as bucket bounds in ns; 0 when empty. */
void txlat_hist_median_ci(const struct txlat_hist *h, uint64_t *lo_ns, uint64_t *hi_ns);

#endif
