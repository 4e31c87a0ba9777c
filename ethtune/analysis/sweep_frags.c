/* sweep frags: one flow with order-0 against order-3 page frags (high_order_alloc_disable). */
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "state/devset.h"
#include "util/ethtune.h"
#include "util/stats.h"
#include "state/undo.h"
#include "out/json_print.h"
#include "analysis/sweep.h"
#include "analysis/thresholds.h"
#include "trace/txlat.h"

#define HOAD "net.core.high_order_alloc_disable"

static const char *const setting_names[2] = { "order-3", "order-0" };

/* The mean frag size of one traced window (NaN without frags): a bin's middle stands for its
 * skbs, [2^b, 2^(b+1)). */
static double frag_bytes_mean(const struct txlat_counts *c)
{
	double nb = 0, sb = 0;
	unsigned int i;

	for (i = 0; i < TXLAT_NFRAG_BINS; i++) {
		nb += c->frag_bytes[i];
		sb += (double)c->frag_bytes[i] * 1.5 * (double)(1ULL << i);
	}
	return nb ? sb / nb : NAN;
}

/* One flow at setting k (high_order_alloc_disable k), traced. */
static int frag_point(const struct sweep_opts *o, struct txlat *tl, struct frag_sweep *s,
		      unsigned int k, char *err, size_t errlen)
{
	struct frag_point *p = &s->p[k];
	struct probe_result *r = calloc(1, sizeof(*r));
	struct txlat_result *ts = calloc(1, sizeof(*ts));
	char v[4], why[256];
	int ret;

	if (!r || !ts) {
		ret = -ENOMEM;
		goto out;
	}
	snprintf(v, sizeof(v), "%u", k);
	ret = sysctl_set_kernel(HOAD, v, err, errlen);
	if (ret)
		goto out;
	if (tl && txlat_reset(tl))
		tl = NULL;
	ret = sweep_probe(o, 1, PROBE_STREAM, 0, r, err, errlen);
	if (ret)
		goto out;
	p->rep_mbps[p->n] = r->mbps;
	/* what the sender's process spends per Gbit/s: the frags' cost on the sending side */
	p->rep_cpu[p->n] = r->mbps > 0 ? r->local.proc_cpu * 1000 / r->mbps : NAN;
	p->rep_frags[p->n] = p->rep_bytes[p->n] = p->rep_p50[p->n] = NAN;
	if (tl && !txlat_collect(tl, ts, why, sizeof(why))) {
		p->rep_frags[p->n] = txlat_frags_mean(&ts->c);
		p->rep_bytes[p->n] = frag_bytes_mean(&ts->c);
		p->rep_p50[p->n] = ts->free.p50_us;
	}
	p->n++;
out:
	free(r);
	free(ts);
	return ret;
}

/* The finite values of v (n of them) into out; their count. */
static unsigned int finite_of(const double *v, unsigned int n, double *out)
{
	unsigned int i, m = 0;

	for (i = 0; i < n; i++)
		if (!isnan(v[i]))
			out[m++] = v[i];
	return m;
}

static void judge(struct frag_sweep *s)
{
	double a[FRAG_REPS], b[FRAG_REPS];
	unsigned int k, na, nb;

	for (k = 0; k < 2; k++) {
		struct frag_point *p = &s->p[k];

		stats_mean_ci(p->rep_mbps, p->n, CI_LEVEL, &p->mbps);
		na = finite_of(p->rep_cpu, p->n, a);
		stats_mean_ci(a, na, CI_LEVEL, &p->cpu);
		na = finite_of(p->rep_frags, p->n, a);
		stats_mean_ci(a, na, CI_LEVEL, &p->frags);
		p->bytes_per_frag = stats_mean_finite(p->rep_bytes, p->n);
		p->compl_p50_us = stats_mean_finite(p->rep_p50, p->n);
	}
	s->p_mbps = stats_welch_p(s->p[0].rep_mbps, s->p[0].n, s->p[1].rep_mbps, s->p[1].n);
	na = finite_of(s->p[0].rep_cpu, s->p[0].n, a);
	nb = finite_of(s->p[1].rep_cpu, s->p[1].n, b);
	s->p_cpu = stats_welch_p(a, na, b, nb);
	na = finite_of(s->p[0].rep_frags, s->p[0].n, a);
	nb = finite_of(s->p[1].rep_frags, s->p[1].n, b);
	s->p_frags = na && nb ? stats_welch_p(a, na, b, nb) : NAN;
	/* the cheaper setting: fewer CPU per Gbit/s where that differs, else more throughput;
	 * none unless the difference is significant */
	s->cheaper = -1;
	if (s->p_cpu < SIG_P) {
		s->cheaper = s->p[0].cpu.mean <= s->p[1].cpu.mean ? 0 : 1;
		s->cheaper_by = "sender CPU per Gbit/s";
	} else if (s->p_mbps < SIG_P) {
		s->cheaper = s->p[0].mbps.mean >= s->p[1].mbps.mean ? 0 : 1;
		s->cheaper_by = "throughput";
	}
}

int sweep_frags(const struct sweep_opts *o, struct frag_sweep *s, char *err, size_t errlen)
{
	struct txlat *tl = NULL;
	double t0 = et_now_s();
	char buf[32], why[256];
	unsigned int rep, j;
	int ret = 0;

	memset(s, 0, sizeof(*s));
	if (sysctl_get_kernel(HOAD, buf, sizeof(buf))) {
		snprintf(err, errlen,
			 "%s: not in this kernel, or not reachable from this namespace (it is "
			 "kernel-wide: run from the initial namespace, "
			 "with --netns for the device's)",
			 HOAD);
		return -EOPNOTSUPP;
	}
	s->before = atoi(buf);
	if (txlat_open(o->dev, NULL, &tl, why, sizeof(why))) {
		et_warn("sweep frags: txlat: %s; frags per skb n/a", why);
		tl = NULL;
	}
	undo_temp_begin();
	/* ABBA: order-3, order-0, order-0, order-3, ...: a drift hits both alike */
	for (rep = 0; rep < FRAG_REPS && !ret; rep++)
		for (j = 0; j < 2 && !ret; j++) {
			unsigned int k = rep % 2 ? 1 - j : j;

			sweep_progress(o, rep * 2 + j + 1, FRAG_REPS * 2, setting_names[k]);
			ret = frag_point(o, tl, s, k, err, errlen);
		}
	sweep_progress_done(o);
	txlat_close(tl);
	undo_temp_end();
	if (ret)
		return ret;
	s->have_txlat = !isnan(stats_mean_finite(s->p[0].rep_frags, s->p[0].n));
	judge(s);
	s->elapsed_s = et_now_s() - t0;
	return 0;
}

void sweep_frags_print(const struct frag_sweep *s)
{
	unsigned int k;

	open_json_object("frag-sweep");
	print_uint(PRINT_ANY, "high-order-alloc-disable-before",
		   "page frags: net.core.high_order_alloc_disable was %llu (put back)\n",
		   s->before);
	print_text("one flow, %d interleaved runs each (mean [95%% t interval]):\n", FRAG_REPS);
	open_json_array(PRINT_JSON, "points");
	for (k = 0; k < 2; k++) {
		const struct frag_point *p = &s->p[k];

		open_json_object(NULL);
		print_string(PRINT_ANY, "setting", "  %-8s", setting_names[k]);
		print_uint(PRINT_ANY, "high-order-alloc-disable", " (%llu):", k);
		print_float(PRINT_ANY, "mbps", " %.0f Mbit/s", p->mbps.mean);
		print_float(PRINT_ANY, "mbps-lo", " [%.0f,", p->mbps.lo);
		print_float(PRINT_ANY, "mbps-hi", " %.0f]", p->mbps.hi);
		print_float(PRINT_ANY, "cpu-pct-per-gbit", ", sender %.1f%% of a CPU per Gbit/s",
			    p->cpu.mean);
		if (p->frags.n) {
			print_float(PRINT_ANY, "frags-per-skb", ", %.2f frags per skb",
				    p->frags.mean);
			print_float(PRINT_ANY, "frags-per-skb-lo", " [%.2f,", p->frags.lo);
			print_float(PRINT_ANY, "frags-per-skb-hi", " %.2f]", p->frags.hi);
			print_float(PRINT_ANY, "bytes-per-frag", " of ~%.0f bytes",
				    p->bytes_per_frag);
			print_float(PRINT_ANY, "completion-p50-us", ", xmit-to-free p50 %.0f us",
				    p->compl_p50_us);
		} else {
			print_na("frags-per-skb", ", frags per skb %s");
		}
		print_text("\n");
		close_json_object();
	}
	close_json_array(PRINT_JSON, NULL);
	print_text("test: Welch's t-test, p < %.2f significant:", SIG_P);
	if (!isnan(s->p_frags))
		print_float(PRINT_ANY, "frags-p", " frags per skb p %.3f,", s->p_frags);
	print_float(PRINT_ANY, "mbps-p", " throughput p %.3f,", s->p_mbps);
	print_float(PRINT_ANY, "cpu-p", " CPU per Gbit/s p %.3f\n", s->p_cpu);
	if (s->cheaper >= 0) {
		print_string(PRINT_ANY, "cheaper", "cheaper: %s", setting_names[s->cheaper]);
		print_string(PRINT_ANY, "cheaper-by", " (by %s)\n", s->cheaper_by);
	} else {
		print_na("cheaper",
			 "cheaper: %s (no significant difference in CPU or throughput)\n");
	}
	print_float(PRINT_ANY, "elapsed-s", "elapsed %.1f s\n", s->elapsed_s);
	close_json_object();
}
