/* Coalescing sweep: throughput at two TSQ limits, RR latency, CPU and interrupts per setting. */
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <net/if.h>

#include "nl/devobj.h"
#include "nl/netdev.h"
#include "state/devset.h"
#include "state/sysctl.h"
#include "util/ethtune.h"
#include "state/journal.h"
#include "state/undo.h"
#include "out/json_print.h"
#include "analysis/sweep.h"
#include "analysis/thresholds.h"
#include "trace/txlat.h"

#define TSQ_SYSCTL "net.ipv4.tcp_limit_output_bytes"

/* The first NAPI of the device (they are set alike), over netdev netlink; -errno with err set. */
static int napi_first(const char *dev, struct nd_napi *out, char *err, size_t errlen)
{
	struct nd_dev *d = calloc(1, sizeof(*d));
	struct nl_sock ns;
	int ret;

	if (!d)
		return -ENOMEM;
	d->ifindex = (int)if_nametoindex(dev);
	ret = netdev_open(&ns);
	if (ret) {
		snprintf(err, errlen, "the kernel has no netdev netlink family: no NAPI to tune");
		goto out;
	}
	ret = napi_dump(&ns, d);
	nl_close(&ns);
	if (!ret && !d->n_napi)
		ret = -ENOENT;
	if (ret)
		snprintf(err, errlen, "%s shows no NAPI instance over netdev netlink (%s)", dev,
			 ret == -ENOENT ? "none linked" : strerror(-ret));
	else
		*out = d->napi[0];
out:
	free(d);
	return ret;
}

static int check_napi(const struct sweep_opts *o, const struct coal_spec *spec, char *err,
		      size_t errlen)
{
	const char *keys[COAL_MAX_PARAMS + 2];
	unsigned int i, n = 0;
	struct nd_napi first;
	int ret = napi_first(o->dev, &first, err, errlen);

	if (ret)
		return ret;
	for (i = 0; i < spec->nparams; i++)
		keys[n++] = spec->param[i];
	for (i = 0; i < spec->nfixed; i++)
		keys[n++] = spec->fixed_key[i];
	for (i = 0; i < n; i++) {
		const struct et_param *p = napi_param(keys[i]);

		if (!p || (p->type != ET_U32 && p->type != ET_U64)) {
			snprintf(err, errlen, "%s is not a numeric NAPI parameter", keys[i]);
			return -EINVAL;
		}
		if (!napi_has(&first, p->attr)) {
			snprintf(err, errlen, "%s's NAPI %u does not report %s", o->dev, first.id,
				 keys[i]);
			return -EOPNOTSUPP;
		}
	}
	return 0;
}

static int check_supported(const struct sweep_opts *o, const struct coal_spec *spec,
			   struct et_vals *cur, char *err, size_t errlen)
{
	struct nl_sock ns;
	unsigned int i;
	int ret = nl_open_genl(&ns, "ethtool");

	if (ret) {
		snprintf(err, errlen, "ethtool netlink unavailable: %s", strerror(-ret));
		return ret;
	}
	ret = obj_get(&ns, &et_coalesce, o->dev, cur);
	nl_close(&ns);
	if (ret == -EOPNOTSUPP) {
		snprintf(err, errlen, "%s does not support coalesce parameters", o->dev);
		return ret;
	}
	if (ret) {
		snprintf(err, errlen, "cannot read coalesce of %s: %s", o->dev, strerror(-ret));
		return ret;
	}
	for (i = 0; i < spec->nparams; i++) {
		const struct et_param *p = obj_param(&et_coalesce, spec->param[i]);

		if (!p || p->type != ET_U32) {
			snprintf(err, errlen, "--param %s is not a numeric coalesce parameter",
				 spec->param[i]);
			return -EINVAL;
		}
		if (!vals_has(cur, p->attr)) {
			snprintf(err, errlen, "%s does not support coalesce %s", o->dev, p->key);
			return -EOPNOTSUPP;
		}
	}
	for (i = 0; i < spec->nfixed; i++) {
		const struct et_param *p = obj_param(&et_coalesce, spec->fixed_key[i]);

		if (!p || !vals_has(cur, p->attr)) {
			snprintf(err, errlen, "%s does not support coalesce %s", o->dev,
				 spec->fixed_key[i]);
			return -EOPNOTSUPP;
		}
	}
	return 0;
}

static double irq_rate(const struct probe_result *r)
{
	unsigned int i;

	if (!r->dev.valid || r->dev.elapsed_s <= 0)
		return NAN;
	/* A driver's own completion interrupt counter beats /proc/interrupts (shared lines). */
	for (i = 0; i < r->dev.n_ethtool && i < 64; i++)
		if (!strcmp(r->dev.ethtool_name[i], "tx_completion_irqs"))
			return r->dev.ethtool_delta[i] / r->dev.elapsed_s;
	if (!r->dev.irq_lines)
		return NAN;
	return r->dev.irqs / r->dev.elapsed_s;
}

/* tl: the tracer when --txlat attached it (NULL otherwise); it traces the bulk flow only. */
static int measure(const struct sweep_opts *o, struct txlat *tl, struct coal_sweep *s,
		   struct coal_point *pt, char *err, size_t errlen)
{
	struct probe_result *r = calloc(1, sizeof(*r));
	struct txlat_result *ts = calloc(1, sizeof(*ts));
	bool ts_ok = false;
	char v[32], why[256];
	long ncpu = sysconf(_SC_NPROCESSORS_ONLN);
	int ret;

	if (!r || !ts) {
		ret = -ENOMEM;
		goto out;
	}
	if (tl && txlat_reset(tl))
		tl = NULL;
	ret = sweep_probe(o, 1, PROBE_STREAM, 0, r, err, errlen);
	ts_ok = tl && !txlat_collect(tl, ts, why, sizeof(why));
	if (ret)
		goto out;
	pt->rep_mbps[pt->nrep] = r->mbps;
	pt->irq_per_s = irq_rate(r);
	pt->cpu_per_gbps =
		r->mbps > 0 ? r->local.cpu_util / 100.0 * (ncpu > 0 ? ncpu : 1) / (r->mbps / 1000.0)
			    : NAN;
	pt->compl_p50_us = ts_ok ? ts->free.p50_us : NAN;
	pt->orphan_frac = ts_ok && ts->c.tcp >= ORPHAN_MIN_SKBS ? ts->orphan_frac : NAN;
	snprintf(v, sizeof(v), "%llu", (unsigned long long)s->tsq_constrained);
	ret = sysctl_set(TSQ_SYSCTL, v, err, errlen);
	if (!ret)
		ret = sweep_probe(o, 1, PROBE_STREAM, 0, r, err, errlen);
	if (!ret)
		pt->rep_mbpsc[pt->nrep] = r->mbps;
	snprintf(v, sizeof(v), "%llu", (unsigned long long)s->tsq_current);
	if (!ret)
		ret = sysctl_set(TSQ_SYSCTL, v, err, errlen);
	if (!ret)
		ret = sweep_probe(o, 1, PROBE_RR, 1, r, err, errlen);
	if (!ret) {
		pt->rr_tps = r->tps;
		pt->rep_p50[pt->nrep] = r->have_lat ? r->lat.p50 : NAN;
		pt->rr_p99_us = r->have_lat ? r->lat.p99 : NAN;
		pt->nrep++;
	}
out:
	free(ts);
	free(r);
	return ret;
}

/* What the change did besides the asked values (a link bounced for it, a value rounded). */
static void say(const char *msg)
{
	et_warn("%s", msg);
}

static void point_means(struct coal_point *p)
{
	p->mbps = stats_mean_finite(p->rep_mbps, p->nrep);
	p->mbps_constrained = stats_mean_finite(p->rep_mbpsc, p->nrep);
	p->rr_p50_us = stats_mean_finite(p->rep_p50, p->nrep);
}

/* Set setting k (its values from the spec's cross product) and measure it once. */
static int sweep_point(const struct sweep_opts *o, const struct coal_spec *spec, struct txlat *tl,
		       struct coal_sweep *s, unsigned int k, unsigned int rep, unsigned int reps,
		       char *err, size_t errlen)
{
	struct coal_point *pt = &s->p[k];
	char *args[1 + 2 * (COAL_MAX_PARAMS + 2)], vals[COAL_MAX_PARAMS][16], what[128];
	unsigned int idx = k, argc = 0, w = 0, i;
	struct et_vals after;
	struct nl_sock ns;
	int ret;

	args[argc++] = spec->napi ? "napi" : "coalesce";
	if (spec->napi)
		args[argc++] = "all";
	for (i = 0; i < spec->nfixed; i++) {
		args[argc++] = (char *)spec->fixed_key[i];
		args[argc++] = (char *)spec->fixed_val[i];
	}
	what[0] = '\0';
	for (i = 0; i < spec->nparams; i++) {
		pt->val[i] = spec->vals[i][idx % spec->nvals[i]];
		idx /= spec->nvals[i];
		snprintf(vals[i], sizeof(vals[i]), "%u", pt->val[i]);
		args[argc++] = (char *)spec->param[i];
		args[argc++] = vals[i];
		w += snprintf(what + w, sizeof(what) - w, "%s%s %u", i ? " " : "", spec->param[i],
			      pt->val[i]);
	}
	sweep_progress(o, rep * s->n + k + 1, reps * s->n, what);
	ret = devset_apply(o->dev, (int)argc, args, err, errlen, say);
	if (ret)
		return ret;
	if (spec->napi) {
		struct nd_napi n;

		if (!napi_first(o->dev, &n, err, errlen))
			for (i = 0; i < spec->nparams; i++)
				pt->got[i] = (uint32_t)n.a.v[napi_param(spec->param[i])->attr];
		err[0] = '\0';
	} else if (!nl_open_genl(&ns, "ethtool")) {
		if (!obj_get(&ns, &et_coalesce, o->dev, &after))
			for (i = 0; i < spec->nparams; i++)
				pt->got[i] =
					(uint32_t)after
						.v[obj_param(&et_coalesce, spec->param[i])->attr];
		nl_close(&ns);
	}
	return measure(o, tl, s, pt, err, errlen);
}

int sweep_coalesce(const struct sweep_opts *o, const struct coal_spec *spec, struct coal_sweep *s,
		   char *err, size_t errlen)
{
	unsigned int total = 1, i, k, j, rep, reps = o->reps ? o->reps : 1;
	struct et_vals cur;
	struct txlat *tl = NULL;
	char buf[64], why[256];
	int ret;

	memset(s, 0, sizeof(*s));
	s->napi = spec->napi;
	ret = spec->napi ? check_napi(o, spec, err, errlen)
			 : check_supported(o, spec, &cur, err, errlen);
	if (ret)
		return ret;
	s->nparams = spec->nparams;
	for (i = 0; i < spec->nparams; i++) {
		snprintf(s->param[i], sizeof(s->param[i]), "%s", spec->param[i]);
		total *= spec->nvals[i];
	}
	if (total > COAL_MAX_POINTS) {
		snprintf(err, errlen, "%u settings are too many (at most %d)", total,
			 COAL_MAX_POINTS);
		return -E2BIG;
	}
	for (i = 0; i < spec->nfixed; i++)
		snprintf(s->fixed + strlen(s->fixed), sizeof(s->fixed) - strlen(s->fixed),
			 "%s%s %s", i ? " " : "", spec->fixed_key[i], spec->fixed_val[i]);
	if (!sysctl_get(TSQ_SYSCTL, buf, sizeof(buf)))
		s->tsq_current = strtoull(buf, NULL, 10);
	s->tsq_constrained = o->tsq_constrained;
	s->n = total;
	/* One tracer for the whole sweep, a window per point (the ifindex survives the changes,
	 * link bounces included); without it the points' completion latency is n/a. */
	if (spec->txlat && txlat_open(o->dev, NULL, &tl, why, sizeof(why)))
		et_warn("sweep coalesce: --txlat: %s; completion latency n/a", why);
	undo_temp_begin();
	for (rep = 0; rep < reps && !ret; rep++) {
		for (j = 0; j < total; j++) {
			/* odd passes run backwards, so drift hits every setting alike */
			k = rep % 2 ? total - 1 - j : j;
			ret = sweep_point(o, spec, tl, s, k, rep, reps, err, errlen);
			if (ret)
				break;
		}
	}
	sweep_progress_done(o);
	txlat_close(tl);
	undo_temp_end();
	for (k = 0; k < s->n; k++)
		point_means(&s->p[k]);
	coal_pareto(s);
	return ret;
}

static bool dominates(const struct coal_point *a, const struct coal_point *b)
{
	/* a is no worse everywhere and better somewhere; unknown values do not count. */
	double ai = isnan(a->irq_per_s) ? a->cpu_per_gbps : a->irq_per_s;
	double bi = isnan(b->irq_per_s) ? b->cpu_per_gbps : b->irq_per_s;
	bool ge = a->mbps_constrained >= b->mbps_constrained &&
		  (isnan(a->rr_p99_us) || isnan(b->rr_p99_us) || a->rr_p99_us <= b->rr_p99_us) &&
		  (isnan(ai) || isnan(bi) || ai <= bi);
	bool gt = a->mbps_constrained > b->mbps_constrained ||
		  (!isnan(a->rr_p99_us) && !isnan(b->rr_p99_us) && a->rr_p99_us < b->rr_p99_us) ||
		  (!isnan(ai) && !isnan(bi) && ai < bi);

	return ge && gt;
}

void coal_pareto(struct coal_sweep *s)
{
	unsigned int i, j;

	for (i = 0; i < s->n; i++) {
		s->p[i].pareto = true;
		for (j = 0; j < s->n; j++)
			if (j != i && dominates(&s->p[j], &s->p[i]))
				s->p[i].pareto = false;
	}
}

static void print_num(const char *key, const char *fmt, const char *nafmt, double v)
{
	if (isnan(v))
		print_na(key, nafmt);
	else
		print_float(PRINT_ANY, key, fmt, v);
}

/* Each pass's value, JSON only, where every pass has one: what tune's rule tests with Welch's
 * test, kept so that profile merge can judge a host by its own passes. */
static void print_passes(const char *key, const double *v, unsigned int n)
{
	unsigned int i;

	for (i = 0; i < n; i++)
		if (!isfinite(v[i]))
			return;
	if (!n)
		return;
	open_json_array(PRINT_JSON, key);
	for (i = 0; i < n; i++)
		print_float(PRINT_JSON, NULL, NULL, v[i]);
	close_json_array(PRINT_JSON, NULL);
}

void sweep_coalesce_print(const struct coal_sweep *s)
{
	unsigned int i, j;

	open_json_object("coalesce-sweep");
	print_text("%s sweep%s%s (TSQ %llu and %llu):\n", s->napi ? "NAPI deferral" : "Coalescing",
		   s->fixed[0] ? ", with " : "", s->fixed, (unsigned long long)s->tsq_current,
		   (unsigned long long)s->tsq_constrained);
	if (s->fixed[0])
		print_string(PRINT_JSON, "fixed", NULL, s->fixed);
	print_uint(PRINT_JSON, "tsq-current", NULL, s->tsq_current);
	print_uint(PRINT_JSON, "tsq-constrained", NULL, s->tsq_constrained);
	print_text(" ");
	for (j = 0; j < s->nparams; j++)
		print_text(" %12s", s->param[j]);
	print_text(" %10s %10s %9s %9s %9s %8s %8s %7s %s\n", "Mbit/s", "Mbit/s@c", "RR p50",
		   "RR p99", "irq/s", "cpu/Gb", "txlat50", "orphan", "pareto");
	open_json_array(PRINT_JSON, "points");
	for (i = 0; i < s->n; i++) {
		const struct coal_point *p = &s->p[i];

		open_json_object(NULL);
		print_text(" ");
		for (j = 0; j < s->nparams; j++) {
			char key[48];

			print_uint(PRINT_ANY, s->param[j], " %12llu", p->val[j]);
			if (p->got[j] != p->val[j]) {
				snprintf(key, sizeof(key), "%s-actual", s->param[j]);
				print_uint(PRINT_ANY, key, "(%llu)", p->got[j]);
			}
		}
		print_float(PRINT_ANY, "mbps", " %10.1f", p->mbps);
		print_float(PRINT_ANY, "mbps-constrained", " %10.1f", p->mbps_constrained);
		print_num("rr-p50-us", " %9.1f", " %9s", p->rr_p50_us);
		print_num("rr-p99-us", " %9.1f", " %9s", p->rr_p99_us);
		print_num("irq-per-s", " %9.0f", " %9s", p->irq_per_s);
		print_num("cpu-per-gbps", " %8.2f", " %8s", p->cpu_per_gbps);
		print_num("txlat-p50-us", " %8.1f", " %8s", p->compl_p50_us);
		print_num("orphan-fraction", " %7.2f", " %7s", p->orphan_frac);
		print_bool(PRINT_ANY, "pareto", " %s\n", p->pareto);
		print_passes("pass-mbps", p->rep_mbps, p->nrep);
		print_passes("pass-mbps-constrained", p->rep_mbpsc, p->nrep);
		print_passes("pass-rr-p50-us", p->rep_p50, p->nrep);
		close_json_object();
	}
	close_json_array(PRINT_JSON, NULL);
	close_json_object();
}
