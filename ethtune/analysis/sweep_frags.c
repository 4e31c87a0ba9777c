/* sweep frags: one flow with order-0 against order-3 page frags (high_order_alloc_disable). */
#include <errno.h>
#include <math.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <linux/if_link.h>

#include "nl/devobj.h"
#include "state/devset.h"
#include "state/sysctl.h"
#include "util/ethtune.h"
#include "util/stats.h"
#include "state/undo.h"
#include "out/json_print.h"
#include "analysis/sweep.h"
#include "analysis/thresholds.h"
#include "trace/txlat.h"

#define HOAD "net.core.high_order_alloc_disable"

static const char *const setting_names[2] = { "order-3", "order-0" };

/* Pocock (1977): the nominal two-sided level of each of K equally spaced looks at the data for 5%
 * overall, K = 1..4 */
static const double pocock_p[FRAG_MAX_LOOKS] = { 0.05, 0.0294, 0.0221, 0.0182 };

/* Is the sweep's data looked at before pass rep (0-based; rep passes done)? rep == max_passes
 * is the final look, after the last pass: it counts among the looks that share the 5%. */
static bool look_before(const struct frag_sweep *s, unsigned int rep)
{
	if (rep == s->max_passes)
		return true;
	return rep >= FRAG_REPS_MIN && rep < s->max_passes &&
	       !((rep - FRAG_REPS_MIN) % FRAG_LOOK_STEP);
}

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

/* The device's gso settings for group g (0: its own), each set only when it differs from cur. */
static int gso_group(const struct sweep_opts *o, struct frag_sweep *s, unsigned int g,
		     uint64_t cur[2], char *err, size_t errlen)
{
	static const char *const keys[2] = { "gso-max-size", "gso-max-segs" };
	const uint64_t own[2] = { s->gso_size0, s->gso_segs0 };
	unsigned int i;
	int ret;

	for (i = 0; i < 2; i++) {
		uint64_t want = own[i];
		struct devset_kv kv;
		char v[24], e[256];

		if (g && !strcmp(s->spec.g[g - 1].key, keys[i]))
			want = s->spec.g[g - 1].val;
		if (want == cur[i])
			continue;
		snprintf(v, sizeof(v), "%llu", (unsigned long long)want);
		kv = (struct devset_kv){ keys[i], v };
		ret = devset_set(o->dev, "link", &kv, 1, DEVSET_JOURNAL, e, sizeof(e), NULL);
		if (ret) {
			/* the message names the setting already, or it is the kernel's own */
			if (!strncmp(e, keys[i], strlen(keys[i])))
				snprintf(err, errlen, "%s", e);
			else
				snprintf(err, errlen, "%s %s: %s", keys[i], v, e);
			return ret;
		}
		cur[i] = want;
	}
	return 0;
}

/* One flow at point i (group i / 2, high_order_alloc_disable i % 2), traced. */
static int frag_point(const struct sweep_opts *o, struct txlat *tl, struct frag_sweep *s,
		      unsigned int i, uint64_t cur[2], char *err, size_t errlen)
{
	struct frag_point *p = &s->p[i];
	struct probe_result *r = calloc(1, sizeof(*r));
	struct txlat_result *ts = calloc(1, sizeof(*ts));
	char v[4], why[256];
	int ret;

	if (!r || !ts) {
		ret = -ENOMEM;
		goto out;
	}
	ret = gso_group(o, s, i / 2, cur, err, errlen);
	if (ret)
		goto out;
	snprintf(v, sizeof(v), "%u", i % 2);
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

/* Point a against point b, pass by pass: a pass runs the two close together, so what drifts
 * between passes (the host's load, under an emulator) cancels out of each difference. The
 * paired p of each measure; the cheaper by fewer CPU per Gbit/s where that differs, else by
 * more throughput; none unless the difference is significant. */
static void compare(const struct frag_point *a, const struct frag_point *b, double sig_p,
		    struct frag_cmp *c)
{
	unsigned int n = a->n < b->n ? a->n : b->n;

	c->p_mbps = stats_paired_p(a->rep_mbps, b->rep_mbps, n);
	c->p_cpu = stats_paired_p(a->rep_cpu, b->rep_cpu, n);
	c->p_frags = NAN;
	if (!isnan(stats_mean_finite(a->rep_frags, n)) &&
	    !isnan(stats_mean_finite(b->rep_frags, n)))
		c->p_frags = stats_paired_p(a->rep_frags, b->rep_frags, n);
	c->cheaper = -1;
	c->cheaper_by = NULL;
	/* the side is the paired difference's, over the passes the test took */
	if (c->p_cpu < sig_p) {
		c->cheaper = stats_paired_mean(a->rep_cpu, b->rep_cpu, n) <= 0 ? 0 : 1;
		c->cheaper_by = "sender CPU per Gbit/s";
	} else if (c->p_mbps < sig_p) {
		c->cheaper = stats_paired_mean(a->rep_mbps, b->rep_mbps, n) >= 0 ? 0 : 1;
		c->cheaper_by = "throughput";
	}
}

/* Intervals and comparisons of what is measured so far; true when every comparison names the
 * cheaper setting. */
static bool judge(struct frag_sweep *s)
{
	double a[FRAG_REPS_MAX];
	unsigned int i, g, na;
	bool decided = true;

	for (i = 0; i < 2 * s->ngroups; i++) {
		struct frag_point *p = &s->p[i];

		stats_mean_ci(p->rep_mbps, p->n, CI_LEVEL, &p->mbps);
		na = finite_of(p->rep_cpu, p->n, a);
		stats_mean_ci(a, na, CI_LEVEL, &p->cpu);
		na = finite_of(p->rep_frags, p->n, a);
		stats_mean_ci(a, na, CI_LEVEL, &p->frags);
		p->bytes_per_frag = stats_mean_finite(p->rep_bytes, p->n);
		p->compl_p50_us = stats_mean_finite(p->rep_p50, p->n);
	}
	for (g = 0; g < s->ngroups; g++) {
		compare(&s->p[2 * g], &s->p[2 * g + 1], s->sig_p, &s->order[g]);
		decided &= s->order[g].cheaper >= 0;
		if (g) {
			compare(&s->p[0], &s->p[2 * g], s->sig_p, &s->gso[g]);
			decided &= s->gso[g].cheaper >= 0;
		}
	}
	return decided;
}

int sweep_frags(const struct sweep_opts *o, const struct frag_spec *spec, struct frag_sweep *s,
		char *err, size_t errlen)
{
	struct txlat *tl = NULL;
	double t0 = et_now_s();
	char buf[32], why[256];
	unsigned int rep, j, n, g;
	bool decided = false;
	struct et_link *l;
	uint64_t cur[2];
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
	s->spec = *spec;
	s->ngroups = 1 + spec->n;
	s->max_passes = o->reps ? o->reps : FRAG_REPS_MAX;
	for (rep = 1; rep <= s->max_passes; rep++)
		s->looks += look_before(s, rep);
	s->sig_p = pocock_p[s->looks - 1];
	l = calloc(1, sizeof(*l));
	ret = l ? link_get_dev(o->dev, l) : -ENOMEM;
	if (!ret) {
		s->gso_size0 = l->v.v[IFLA_GSO_MAX_SIZE];
		s->gso_segs0 = l->v.v[IFLA_GSO_MAX_SEGS];
	}
	free(l);
	if (ret) {
		snprintf(err, errlen, "cannot read %s's gso settings: %s", o->dev, strerror(-ret));
		return ret;
	}
	cur[0] = s->gso_size0;
	cur[1] = s->gso_segs0;
	undo_temp_begin();
	/* every gso value once before any run: one the device refuses fails here, put back */
	for (g = 1; g < s->ngroups && !ret; g++)
		ret = gso_group(o, s, g, cur, err, errlen);
	if (!ret)
		ret = gso_group(o, s, 0, cur, err, errlen);
	if (!ret && txlat_open(o->dev, NULL, &tl, why, sizeof(why))) {
		et_warn("sweep frags: txlat: %s; frags per skb n/a", why);
		tl = NULL;
	}
	/* forward, backward, forward, ...: ABBA over all points, so a drift hits each alike;
	 * until a look finds every comparison decided */
	n = 2 * s->ngroups;
	for (rep = 0; rep < s->max_passes && !ret; rep++) {
		if (rep && look_before(s, rep) && (decided = judge(s)))
			break;
		for (j = 0; j < n && !ret; j++) {
			unsigned int i = rep % 2 ? n - 1 - j : j;
			char what[64];

			snprintf(what, sizeof(what), "%s%s%s", setting_names[i % 2],
				 i / 2 ? " " : "", i / 2 ? s->spec.g[i / 2 - 1].key : "");
			sweep_progress(o, rep * n + j + 1, s->max_passes * n, what);
			ret = frag_point(o, tl, s, i, cur, err, errlen);
		}
	}
	sweep_progress_done(o);
	txlat_close(tl);
	undo_temp_end();
	if (ret)
		return ret;
	s->have_txlat = !isnan(stats_mean_finite(s->p[0].rep_frags, s->p[0].n));
	s->passes = s->p[0].n;
	if (!decided) /* the final look: every pass ran */
		judge(s);
	s->elapsed_s = et_now_s() - t0;
	return 0;
}

static void print_cmp(const struct frag_cmp *c, const char *const names[2])
{
	print_text("  test: paired t over the passes:");
	if (!isnan(c->p_frags))
		print_float(PRINT_ANY, "frags-p", " frags per skb p %.3f,", c->p_frags);
	print_float(PRINT_ANY, "mbps-p", " throughput p %.3f,", c->p_mbps);
	print_float(PRINT_ANY, "cpu-p", " CPU per Gbit/s p %.3f\n", c->p_cpu);
	if (c->cheaper >= 0) {
		print_string(PRINT_ANY, "cheaper", "  cheaper: %s", names[c->cheaper]);
		print_string(PRINT_ANY, "cheaper-by", " (by %s)\n", c->cheaper_by);
	} else {
		print_na("cheaper",
			 "  cheaper: %s (no significant difference in CPU or throughput)\n");
	}
}

static void print_point(const struct frag_point *p, unsigned int k)
{
	open_json_object(NULL);
	print_string(PRINT_ANY, "setting", "  %-8s", setting_names[k]);
	print_uint(PRINT_ANY, "high-order-alloc-disable", " (%llu):", k);
	print_float(PRINT_ANY, "mbps", " %.0f Mbit/s", p->mbps.mean);
	print_float(PRINT_ANY, "mbps-lo", " [%.0f,", p->mbps.lo);
	print_float(PRINT_ANY, "mbps-hi", " %.0f]", p->mbps.hi);
	print_float(PRINT_ANY, "cpu-pct-per-gbit", ", sender %.1f%% of a CPU per Gbit/s",
		    p->cpu.mean);
	if (p->frags.n) {
		print_float(PRINT_ANY, "frags-per-skb", ", %.2f frags per skb", p->frags.mean);
		print_float(PRINT_ANY, "frags-per-skb-lo", " [%.2f,", p->frags.lo);
		print_float(PRINT_ANY, "frags-per-skb-hi", " %.2f]", p->frags.hi);
		print_float(PRINT_ANY, "bytes-per-frag", " of ~%.0f bytes", p->bytes_per_frag);
		print_float(PRINT_ANY, "completion-p50-us", ", xmit-to-free p50 %.0f us",
			    p->compl_p50_us);
	} else {
		print_na("frags-per-skb", ", frags per skb %s");
	}
	print_text("\n");
	close_json_object();
}

void sweep_frags_print(const struct frag_sweep *s)
{
	static const char *const own[2] = { "the device's own", NULL };
	unsigned int g;

	open_json_object("frag-sweep");
	print_uint(PRINT_ANY, "high-order-alloc-disable-before",
		   "page frags: net.core.high_order_alloc_disable was %llu (put back)\n",
		   s->before);
	print_uint(PRINT_ANY, "gso-max-size-before", "gso-max-size %llu", s->gso_size0);
	print_uint(PRINT_ANY, "gso-max-segs-before", ", gso-max-segs %llu (the device's own)\n",
		   s->gso_segs0);
	print_uint(PRINT_ANY, "passes", "one flow, %llu interleaved passes", s->passes);
	print_uint(PRINT_ANY, "max-passes", " of %llu", s->max_passes);
	print_uint(PRINT_JSON, "looks", NULL, s->looks);
	print_text(" (%u look%s", s->looks, s->looks > 1 ? "s" : "");
	print_float(PRINT_ANY, "sig-p", " at p < %.4f, Pocock's level for 5%% overall;", s->sig_p);
	print_text(" mean [95%% t interval]):\n");
	open_json_array(PRINT_JSON, "points");
	print_point(&s->p[0], 0);
	print_point(&s->p[1], 1);
	close_json_array(PRINT_JSON, NULL);
	print_cmp(&s->order[0], setting_names);
	open_json_array(PRINT_JSON, "gso");
	for (g = 1; g < s->ngroups; g++) {
		const char *names[2] = { own[0], NULL };
		char label[48];

		snprintf(label, sizeof(label), "%s %u", s->spec.g[g - 1].key, s->spec.g[g - 1].val);
		names[1] = label;
		open_json_object(NULL);
		print_string(PRINT_ANY, "param", "%s", s->spec.g[g - 1].key);
		print_uint(PRINT_ANY, "value", " %llu:\n", s->spec.g[g - 1].val);
		open_json_array(PRINT_JSON, "points");
		print_point(&s->p[2 * g], 0);
		print_point(&s->p[2 * g + 1], 1);
		close_json_array(PRINT_JSON, NULL);
		open_json_object("order");
		print_cmp(&s->order[g], setting_names);
		close_json_object();
		print_text("  against the device's own gso settings, both order-3:\n");
		open_json_object("against-own");
		print_cmp(&s->gso[g], names);
		close_json_object();
		close_json_object();
	}
	close_json_array(PRINT_JSON, NULL);
	print_float(PRINT_ANY, "elapsed-s", "elapsed %.1f s\n", s->elapsed_s);
	close_json_object();
}
