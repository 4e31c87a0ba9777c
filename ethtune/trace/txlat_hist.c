/* txlat results from raw counters, in every build (no BPF): quantiles, median interval, windows. */
#include <math.h>
#include <stdbool.h>
#include <stdint.h>
#include <string.h>
#include <sys/param.h>
#include <linux/types.h>

#include "out/json_print.h"
#include "trace/txlat.h"
#include "util/stats.h"
#include "txlat.h"

_Static_assert(TXLAT_POW2_LO >= TXLAT_SUB_BITS, "a power of two below 16 ns starts no bucket");

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
	uint64_t n = txlat_hist_count(h);
	unsigned int i;

	if (!n)
		return 0;
	/* __u64 and uint64_t are the same 64-bit unsigned counter */
	i = stats_bucket_of_rank((const uint64_t *)h->slot, TXLAT_NBUCKETS, stats_rank(p, n));
	if (i == TXLAT_NBUCKETS)
		return txlat_bucket_lo(TXLAT_NBUCKETS - 1);
	return txlat_bucket_lo(i) + txlat_bucket_width(i) / 2;
}

/* Distribution-free 95% interval of the median from order statistics: the samples of ranks
 * n/2 -+ 0.98 sqrt(n) (binomial, normal approximation), as bucket bounds; 0 when empty. */
void txlat_hist_median_ci(const struct txlat_hist *h, uint64_t *lo_ns, uint64_t *hi_ns)
{
	const uint64_t *slot = (const uint64_t *)h->slot; /* __u64 is uint64_t */
	uint64_t n = txlat_hist_count(h), rlo, rhi;
	unsigned int i;
	double half;

	*lo_ns = *hi_ns = 0;
	if (!n)
		return;
	half = 0.98 * sqrt((double)n);
	rlo = n / 2.0 - half < 1 ? 1 : (uint64_t)floor(n / 2.0 - half);
	rhi = n / 2.0 + half + 1 > n ? n : (uint64_t)ceil(n / 2.0 + half + 1);
	*lo_ns = txlat_bucket_lo(stats_bucket_of_rank(slot, TXLAT_NBUCKETS, rlo));
	i = stats_bucket_of_rank(slot, TXLAT_NBUCKETS, rhi);
	*hi_ns = i < TXLAT_NBUCKETS ? txlat_bucket_lo(i) + txlat_bucket_width(i)
				    : txlat_bucket_lo(TXLAT_NBUCKETS - 1);
}

void txlat_log2_bin_us(int b, uint64_t *lo_us, uint64_t *hi_us)
{
	*lo_us = b ? 1ULL << (b - 1) : 0;
	*hi_us = (1ULL << b) - 1;
}

void txlat_lat_from_hist(const struct txlat_hist *h, uint64_t max_ns, uint64_t sum_ns,
			 struct txlat_lat *l)
{
	uint64_t lo, hi, acc;
	int i, k;

	memset(l, 0, sizeof(*l));
	l->n = txlat_hist_count(h);
	l->sum_ns = sum_ns;
	l->lo = TXLAT_LOG2_BINS;
	l->hi = -1;
	/* 2^k ns (k >= TXLAT_SUB_BITS) starts a bucket, and every bucket lies below the next one's
	 * start: the buckets before the one that starts at or above 2^k hold the samples below */
	for (i = 0, k = 0, acc = 0; i < TXLAT_NBUCKETS; i++) {
		while (k < TXLAT_POW2_BINS && txlat_bucket_lo(i) >= 1ULL << (TXLAT_POW2_LO + k))
			l->below_pow2[k++] = acc;
		acc += h->slot[i];
	}
	while (k < TXLAT_POW2_BINS)
		l->below_pow2[k++] = acc;
	/* log2 microsecond bins, summed from the fine buckets */
	for (i = 0; i < TXLAT_NBUCKETS; i++) {
		uint64_t us = txlat_bucket_lo(i) / 1000;
		int b = us ? 64 - __builtin_clzll(us) : 0; /* 0: <1us, b: [2^(b-1), 2^b) */

		if (!h->slot[i])
			continue;
		l->bin[b] += h->slot[i];
		l->lo = b < l->lo ? b : l->lo;
		l->hi = b > l->hi ? b : l->hi;
	}
	if (!l->n) {
		l->mean_us = l->p50_us = l->p50_lo_us = l->p50_hi_us = NAN;
		l->p90_us = l->p99_us = l->max_us = NAN;
		return;
	}
	l->mean_us = (sum_ns / l->n) / 1000.0;
	/* A bucket's middle may lie above the largest sample in it. */
	l->p50_us = MIN(txlat_hist_quantile(h, 0.50), max_ns) / 1000.0;
	txlat_hist_median_ci(h, &lo, &hi);
	l->p50_lo_us = lo / 1000.0;
	l->p50_hi_us = MIN(hi, max_ns) / 1000.0;
	l->p90_us = MIN(txlat_hist_quantile(h, 0.90), max_ns) / 1000.0;
	l->p99_us = MIN(txlat_hist_quantile(h, 0.99), max_ns) / 1000.0;
	l->max_us = max_ns / 1000.0;
}

void txlat_q_window(struct txlat_q *now, const struct txlat_q *base)
{
	unsigned int i, k;

	for (i = 0; i < TXLAT_C_NCTR; i++)
		now->st.c[i] -= MIN(base->st.c[i], now->st.c[i]);
	/* the largest skb: the window's own when it grew, else no more than the one before */
	if (!now->st.c[TXLAT_C_XMIT])
		now->st.max_len = now->st.max_segs = 0;
	for (k = 0; k < TXLAT_H_NKINDS; k++) {
		int top = -1;

		now->st.sum_ns[k] -= MIN(base->st.sum_ns[k], now->st.sum_ns[k]);
		for (i = 0; i < TXLAT_NBUCKETS; i++) {
			now->h[k].slot[i] -= MIN(base->h[k].slot[i], now->h[k].slot[i]);
			if (now->h[k].slot[i])
				top = (int)i;
		}
		/* A larger maximum than before was reached in the window; otherwise the window's
		 * largest sample lies in its top bucket and below the earlier maximum. */
		if (top < 0)
			now->st.max_ns[k] = 0;
		else if (now->st.max_ns[k] <= base->st.max_ns[k])
			now->st.max_ns[k] = MIN(base->st.max_ns[k],
						txlat_bucket_lo(top) + txlat_bucket_width(top) - 1);
	}
}

_Static_assert(TXLAT_NFRAGS == TXLAT_FRAG_SLOTS && TXLAT_NFRAG_BINS == TXLAT_FRAG_BINS &&
		       TXLAT_NFCLASSES == TXLAT_FCLASSES,
	       "trace/txlat.h and bpf/txlat.h disagree on the frag counters");

static void counts_from(struct txlat_counts *c, const struct txlat_qstats *st)
{
	const __u64 *v = st->c;
	unsigned int i;

	c->xmit = v[TXLAT_C_XMIT];
	c->bytes = v[TXLAT_C_XMIT_BYTES];
	c->consumed = v[TXLAT_C_CONSUMED];
	c->kfreed = v[TXLAT_C_KFREED];
	c->reused = v[TXLAT_C_REXMIT];
	c->stale = v[TXLAT_C_STALE];
	c->evicted = v[TXLAT_C_EVICTED];
	c->tcp = v[TXLAT_C_TCP];
	c->tcp_no_sk = v[TXLAT_C_TCP_NOSK];
	c->tcp_wfree = v[TXLAT_C_TCP_WFREE];
	c->tcp_sock_wfree = v[TXLAT_C_TCP_SOCKWFREE];
	c->tcp_other = v[TXLAT_C_TCP_OTHER];
	c->tcp_owned_free = v[TXLAT_C_TCP_OWNED_FREE];
	c->tcp_orphaned = v[TXLAT_C_TCP_ORPHANED];
	c->wfree_early = v[TXLAT_C_WFREE_EARLY];
	c->peer = v[TXLAT_C_PEER];
	c->gso = v[TXLAT_C_GSO];
	c->segs = v[TXLAT_C_SEGS];
	c->max_len = st->max_len;
	c->max_segs = st->max_segs;
	c->lin_driver = v[TXLAT_C_LIN_DRIVER];
	c->lin_stack = v[TXLAT_C_LIN_STACK];
	memcpy(c->frags, v + TXLAT_C_FRAGS, sizeof(c->frags));
	memcpy(c->frag_bytes, v + TXLAT_C_FRAG_BYTES, sizeof(c->frag_bytes));
	for (i = 0; i < TXLAT_NFCLASSES; i++) {
		c->fclass_n[i] = v[TXLAT_C_FCLASS_N + i];
		c->fclass_mean_us[i] =
			c->fclass_n[i] ? v[TXLAT_C_FCLASS_NS + i] / 1e3 / c->fclass_n[i] : NAN;
	}
}

static void sum_q(struct txlat_q *dst, const struct txlat_q *src)
{
	unsigned int i, k;

	for (i = 0; i < TXLAT_C_NCTR; i++)
		dst->st.c[i] += src->st.c[i];
	dst->st.max_len = MAX(dst->st.max_len, src->st.max_len);
	dst->st.max_segs = MAX(dst->st.max_segs, src->st.max_segs);
	for (k = 0; k < TXLAT_H_NKINDS; k++) {
		dst->st.sum_ns[k] += src->st.sum_ns[k];
		if (src->st.max_ns[k] > dst->st.max_ns[k])
			dst->st.max_ns[k] = src->st.max_ns[k];
		for (i = 0; i < TXLAT_NBUCKETS; i++)
			dst->h[k].slot[i] += src->h[k].slot[i];
	}
}

void txlat_result_compute(const struct txlat_q *q, struct txlat_result *r)
{
	struct txlat_q total;
	const struct txlat_counts *c = &r->c;
	uint64_t orphaned, owned;
	unsigned int i;

	memset(&total, 0, sizeof(total));
	r->active = 0;
	for (i = 0; i < TXLAT_MAX_QUEUES; i++) {
		counts_from(&r->q[i].c, &q[i].st);
		txlat_lat_from_hist(&q[i].h[TXLAT_H_FREE], q[i].st.max_ns[TXLAT_H_FREE],
				    q[i].st.sum_ns[TXLAT_H_FREE], &r->q[i].free);
		r->active += q[i].st.c[TXLAT_C_XMIT] > 0;
		sum_q(&total, &q[i]);
	}
	counts_from(&r->c, &total.st);
	txlat_lat_from_hist(&total.h[TXLAT_H_FREE], total.st.max_ns[TXLAT_H_FREE],
			    total.st.sum_ns[TXLAT_H_FREE], &r->free);
	txlat_lat_from_hist(&total.h[TXLAT_H_WFREE], total.st.max_ns[TXLAT_H_WFREE],
			    total.st.sum_ns[TXLAT_H_WFREE], &r->wfree);
	txlat_lat_from_hist(&total.h[TXLAT_H_PEER], total.st.max_ns[TXLAT_H_PEER],
			    total.st.sum_ns[TXLAT_H_PEER], &r->peer_rx);
	r->not_seen_freed = (int64_t)c->xmit - c->reused - c->consumed - c->kfreed - c->stale;
	orphaned = c->tcp_no_sk + c->tcp_orphaned;
	owned = c->tcp_owned_free;
	r->tcp_orphans = r->ksyms_ok ? orphaned : 0;
	r->orphan_frac = c->tcp ? (double)r->tcp_orphans / (double)c->tcp : 0;
	if (!owned && !orphaned)
		r->verdict = "n/a";
	else if (orphaned * 2 > owned + orphaned)
		r->verdict = "orphaning";
	else
		r->verdict = "owned";
}

/* log2 microsecond buckets: the JSON array always, the bars only with text. */
void txlat_print_log2(const struct txlat_lat *l, bool text)
{
	const uint64_t *b = l->bin;
	uint64_t top = 0;
	int i, lo = l->lo, hi = l->hi;

	for (i = lo; i <= hi; i++)
		top = b[i] > top ? b[i] : top;
	open_json_array(PRINT_JSON, "histogram");
	if (text && hi >= 0)
		print_text("  %10s : %-10s\n", "usecs", "count");
	for (i = lo; i <= hi && hi >= 0; i++) {
		uint64_t from, to;
		char bar[41];
		int n = top ? (int)(b[i] * 40 / top) : 0;

		txlat_log2_bin_us(i, &from, &to);
		memset(bar, '*', n);
		bar[n] = 0;
		open_json_object(NULL);
		print_uint(PRINT_JSON, "lo-us", NULL, from);
		print_uint(PRINT_JSON, "hi-us", NULL, to);
		print_uint(PRINT_JSON, "count", NULL, b[i]);
		close_json_object();
		if (text)
			print_text("  %8llu -> %-8llu : %-10llu |%-40s|\n",
				   (unsigned long long)from, (unsigned long long)to,
				   (unsigned long long)b[i], bar);
	}
	close_json_array(PRINT_JSON, NULL);
}

const char *txlat_fclass_name(unsigned int k)
{
	static const char *const names[TXLAT_NFCLASSES] = { "0", "1-4", "5-16", "17+" };

	return k < TXLAT_NFCLASSES ? names[k] : "?";
}

double txlat_frags_mean(const struct txlat_counts *c)
{
	double n = 0, sum = 0;
	unsigned int i;

	for (i = 0; i < TXLAT_NFRAGS; i++) {
		n += c->frags[i];
		sum += (double)c->frags[i] * i;
	}
	return n ? sum / n : NAN;
}

void txlat_print_frags(const struct txlat_counts *c, bool lin, bool text)
{
	double mean = txlat_frags_mean(c);
	unsigned int i;

	open_json_object("frags");
	if (text)
		print_text("    frags per skb:");
	if (!isnan(mean))
		print_float(PRINT_ANY, "mean", text ? " mean %.2f" : NULL, mean);
	else if (text)
		print_na("mean", " mean %s");
	open_json_array(PRINT_JSON, "histogram");
	for (i = 0; i < TXLAT_NFRAGS; i++) {
		if (!c->frags[i])
			continue;
		open_json_object(NULL);
		print_uint(PRINT_JSON, "frags", NULL, i);
		print_uint(PRINT_JSON, "skbs", NULL, c->frags[i]);
		close_json_object();
		if (text)
			print_text(" %u%s:%llu", i, i == TXLAT_NFRAGS - 1 ? "+" : "",
				   (unsigned long long)c->frags[i]);
	}
	close_json_array(PRINT_JSON, NULL);
	if (text)
		print_text("; bytes per frag:");
	open_json_array(PRINT_JSON, "bytes-per-frag");
	for (i = 0; i < TXLAT_NFRAG_BINS; i++) {
		if (!c->frag_bytes[i])
			continue;
		open_json_object(NULL);
		print_uint(PRINT_JSON, "lo-bytes", NULL, 1ULL << i);
		if (i < TXLAT_NFRAG_BINS - 1)
			print_uint(PRINT_JSON, "hi-bytes", NULL, (2ULL << i) - 1);
		print_uint(PRINT_JSON, "skbs", NULL, c->frag_bytes[i]);
		close_json_object();
		if (text)
			print_text(" %llu%s:%llu", 1ULL << i, i == TXLAT_NFRAG_BINS - 1 ? "+" : "",
				   (unsigned long long)c->frag_bytes[i]);
	}
	close_json_array(PRINT_JSON, NULL);
	if (text)
		print_text("; xmit-to-free by frags:");
	open_json_array(PRINT_JSON, "free-by-frags");
	for (i = 0; i < TXLAT_NFCLASSES; i++) {
		if (!c->fclass_n[i])
			continue;
		open_json_object(NULL);
		print_string(PRINT_JSON, "frags", NULL, txlat_fclass_name(i));
		print_uint(PRINT_JSON, "skbs", NULL, c->fclass_n[i]);
		print_float(PRINT_JSON, "mean-us", NULL, c->fclass_mean_us[i]);
		close_json_object();
		if (text)
			print_text(" %s: %.1f us (%llu)", txlat_fclass_name(i),
				   c->fclass_mean_us[i], (unsigned long long)c->fclass_n[i]);
	}
	close_json_array(PRINT_JSON, NULL);
	if (lin) {
		open_json_object("linearized");
		print_uint(PRINT_ANY, "driver", text ? "; linearized: by the driver %llu" : NULL,
			   c->lin_driver);
		print_uint(PRINT_ANY, "stack", text ? ", by the stack %llu" : NULL, c->lin_stack);
		close_json_object();
	} else if (text) {
		print_text("; linearized: n/a (no fentry)");
	}
	if (text)
		print_text("\n");
	close_json_object();
}
