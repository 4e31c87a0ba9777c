/* ethtune sweep tsq|mtu|coalesce: probes across settings changed temporarily, then restored. */
#define _GNU_SOURCE
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include <sys/utsname.h>
#include <sys/wait.h>
#include <net/if.h>
#include <linux/if_link.h>

#include "nl/devobj.h"
#include "state/devset.h"
#include "state/sysctl.h"
#include "util/ethtune.h"
#include "util/stats.h"
#include "state/journal.h"
#include "state/undo.h"
#include "out/json_print.h"
#include "analysis/model.h"
#include "analysis/sweep.h"
#include "analysis/thresholds.h"

#define TSQ_SYSCTL "net.ipv4.tcp_limit_output_bytes"

void sweep_opts_init(struct sweep_opts *o)
{
	memset(o, 0, sizeof(*o));
	o->duration_s = 2;
	o->warmup_s = 0.5;
	o->tsq_min = 2048;
	o->tsq_max = 16u << 20;
	o->tsq_constrained = 128u << 10;
}

void sweep_html_begin(const struct sweep_opts *o)
{
	if (o->html)
		json_record();
}

int sweep_html_end(const struct sweep_opts *o, enum html_kind kind)
{
	int ret;

	if (!o->html)
		return 0;
	html_set_tsq_model(model_sw);
	ret = html_report_recorded(o->html, kind);
	if (ret)
		et_err("cannot write %s: %s", o->html, strerror(-ret));
	return ret;
}

static void root_qdisc(const char *dev, char *buf, size_t len)
{
	struct et_link l;

	buf[0] = '\0';
	if (!link_get_dev(dev, &l))
		snprintf(buf, len, "%s", l.qdisc);
}

bool tsq_sysctl_effective(const char *dev, char *cc, size_t cclen, char *reason, size_t rlen)
{
	char def[32] = "", qd[32];

	sysctl_get("net.ipv4.tcp_congestion_control", def, sizeof(def));
	root_qdisc(dev, qd, sizeof(qd));
	if (kernel_at_least(6, 16)) {
		if (!cc[0])
			snprintf(cc, cclen, "%s", def[0] ? def : "cubic");
		snprintf(reason, rlen,
			 "kernel >= 6.16 applies tcp_limit_output_bytes to every flow "
			 "(c4221a8cc3a7); "
			 "using %s",
			 cc);
		return true;
	}
	if (!cc[0])
		snprintf(cc, cclen, "%s", !strcmp(def, "bbr") ? "cubic" : def[0] ? def : "cubic");
	if (!strcmp(qd, "fq")) {
		snprintf(reason, rlen,
			 "root qdisc fq paces every flow and kernels before 6.16 ignore "
			 "tcp_limit_output_bytes for paced flows: the sweep cannot move this flow");
		return false;
	}
	if (!strcmp(cc, "bbr")) {
		snprintf(
			reason, rlen,
			"bbr paces and kernels before 6.16 ignore tcp_limit_output_bytes for paced "
			"flows: use --cc cubic");
		return false;
	}
	snprintf(reason, rlen,
		 "kernel < 6.16 applies tcp_limit_output_bytes only to unpaced flows; using %s%s",
		 cc, !strcmp(def, "bbr") ? " instead of the default bbr" : "");
	return true;
}

void sweep_progress(const struct sweep_opts *o, unsigned int i, unsigned int n, const char *what)
{
	if (o->quiet || !isatty(STDERR_FILENO))
		return;
	fprintf(stderr, "\r\033[K[%u/%u] %s", i, n, what);
	fflush(stderr);
}

void sweep_progress_done(const struct sweep_opts *o)
{
	if (o->quiet || !isatty(STDERR_FILENO))
		return;
	fprintf(stderr, "\r\033[K");
	fflush(stderr);
}

int sweep_probe(const struct sweep_opts *o, unsigned int flows, enum probe_test test, uint32_t msg,
		struct probe_result *res, char *err, size_t errlen)
{
	struct probe_cfg c;
	char host[256];
	uint16_t port;
	int ret;

	if (et_stop_signal()) { /* asked to stop: no new measurement */
		snprintf(err, errlen, "interrupted");
		return -EINTR;
	}
	probe_cfg_init(&c);
	ret = probe_peer_split(o->peer, PROBE_DEFAULT_PORT, host, sizeof(host), &port);
	if (ret) {
		snprintf(err, errlen, "bad peer '%s'", o->peer);
		return ret;
	}
	c.peer = host;
	c.port = port;
	c.test = test;
	c.flows = flows;
	c.duration_s = o->duration_s;
	c.warmup_s = o->warmup_s;
	if (msg)
		c.msg_size = msg;
	if (test == PROBE_RR || test == PROBE_CRR)
		c.nodelay = true;
	snprintf(c.cc, sizeof(c.cc), "%s", o->cc);
	ret = probe_cfg_check(&c, err, errlen);
	if (ret)
		return ret;
	if (o->dev && !if_nametoindex(o->dev)) {
		snprintf(err, errlen,
			 "%s is gone (removed, or its namespace deleted, during the run)", o->dev);
		return -ENODEV;
	}
	memset(res, 0, sizeof(*res));
	ret = probe_run(&c, res);
	if (ret && o->dev && !if_nametoindex(o->dev)) {
		/* the probe's own error (a timeout) would hide why */
		snprintf(err, errlen,
			 "%s is gone (removed, or its namespace deleted, during the run); probe to "
			 "%s: %.200s",
			 o->dev, o->peer, res->err[0] ? res->err : strerror(-ret));
		return -ENODEV;
	}
	if (ret)
		snprintf(err, errlen, "probe to %s: %s", o->peer,
			 res->err[0] ? res->err : strerror(-ret));
	return ret;
}

static int set_tsq(uint64_t l, char *err, size_t errlen)
{
	char v[32];

	snprintf(v, sizeof(v), "%llu", (unsigned long long)l);
	return sysctl_set(TSQ_SYSCTL, v, err, errlen);
}

static void fmt_bytes(uint64_t b, char *buf, size_t len)
{
	if (b >= (1u << 20) && !(b % (1u << 20)))
		snprintf(buf, len, "%lluM", (unsigned long long)(b >> 20));
	else if (b >= 1024 && !(b % 1024))
		snprintf(buf, len, "%lluK", (unsigned long long)(b >> 10));
	else
		snprintf(buf, len, "%llu", (unsigned long long)b);
}

static int cmp_point(const void *a, const void *b)
{
	const struct tsq_point *x = a, *y = b;

	return x->limit < y->limit ? -1 : x->limit > y->limit;
}

/* The delay TSQ waits for, from the throttled points' residence times. */
static void residence_delay(struct tsq_sweep *s)
{
	double best = 0, d[SWEEP_MAX_POINTS];
	unsigned int i, n = 0;

	if (s->line_mbps <= 0)
		return;
	for (i = 0; i < s->n; i++)
		best = fmax(best, s->p[i].mbps);
	for (i = 0; i < s->n; i++)
		if (!isnan(s->p[i].residence_us) && s->p[i].mbps < THROTTLED_SHARE * best &&
		    s->p[i].mbps < THROTTLED_SHARE * s->line_mbps * s->rho)
			d[n++] = fmax(0, s->p[i].residence_us - s->ser_us);
	if (n < 2)
		return;
	qsort(d, n, sizeof(d[0]), cmp_double);
	s->n_res = n;
	s->d_res_us = stats_quantile_sorted(d, n, 0.5);
	s->d_res_lo_us = stats_quantile_sorted(d, n, 0.25);
	s->d_res_hi_us = stats_quantile_sorted(d, n, 0.75);
}

/* What the wire allows: goodput per wire byte (rho) from the MTU and GSO size, the line rate
 * (0 unknown) and the serialization of one full skb at it. One read of the link and driver;
 * *in is left describing the device for tsq_effective(). */
static void dev_wire(const char *dev, struct tsq_sweep *s, struct model_in *inp)
{
	struct et_drvinfo di = {};
	struct model_in in;
	struct model_out out;
	struct nl_sock ns;
	struct et_link l;

	model_defaults(&in);
	if (!link_get_dev(dev, &l)) {
		if (vals_has(&l.v, IFLA_MTU))
			in.mtu = (uint32_t)l.v.v[IFLA_MTU];
		if (vals_has(&l.v, IFLA_GSO_MAX_SIZE))
			in.gso_size = (uint32_t)l.v.v[IFLA_GSO_MAX_SIZE];
	}
	if (in.gso_size > 65536)
		in.gso_size = 65536; /* BIG TCP needs more than a limit; keep the classic skb */
	s->rho = model_derive(&in, &out) || out.rho <= 0 ? RHO_UNKNOWN : out.rho;
	if (!nl_open_genl(&ns, "ethtool")) {
		drvinfo_get(&ns, dev, &di);
		nl_close(&ns);
	}
	if (di.ok && di.speed > 0) {
		s->line_mbps = di.speed;
		s->ser_us = in.gso_size * 8.0 / di.speed;
	}
	in.rate_bps = s->line_mbps > 0 ? s->line_mbps * 1e6 : 10e9;
	*inp = in;
}

/* What the kernel makes of each sysctl value: min(max(2 * truesize, pacing_rate >> 10), sysctl)
 * for the flows it applies to (pacing rate taken as the line rate), the sysctl not at all for
 * paced flows before 6.16. */
static void tsq_effective(struct model_in in, struct tsq_sweep *s)
{
	struct model_out mo;
	unsigned int i;

	for (i = 0; i < s->n; i++) {
		in.tsq = s->p[i].limit;
		if (model_derive(&in, &mo))
			continue;
		/* below one skb the one-skb exception keeps one skb moving whatever the sysctl */
		s->p[i].below_floor = s->p[i].limit < mo.skb_truesize;
		s->p[i].eff_limit = !s->sysctl_effective  ? UINT64_MAX
				    : s->p[i].below_floor ? mo.skb_truesize
							  : mo.limit;
	}
}

/* One more pass at point p (a new point when p is NULL): throughput, retransmits and the
 * bytes below TCP; the point's fields become the means over its passes. */
static int tsq_measure(const struct sweep_opts *o, struct tsq_sweep *s, struct tsq_point *p,
		       uint64_t l, unsigned int i, unsigned int n, char *err, size_t errlen)
{
	struct probe_result *r = calloc(1, sizeof(*r));
	char what[96], lb[24];
	struct et_ci c;
	int ret;

	if (!r)
		return -ENOMEM;
	fmt_bytes(l, lb, sizeof(lb));
	snprintf(what, sizeof(what), "tcp_limit_output_bytes %s", lb);
	sweep_progress(o, i, n, what);
	ret = set_tsq(l, err, errlen);
	if (!ret)
		ret = sweep_probe(o, 1, PROBE_STREAM, 0, r, err, errlen);
	if (!ret && !p && s->n < SWEEP_MAX_POINTS) {
		p = &s->p[s->n++];
		memset(p, 0, sizeof(*p));
		p->limit = l;
	}
	if (!ret && p && p->nrep < TSQ_MAX_REPS) {
		p->rep_mbps[p->nrep] = r->mbps;
		p->rep_wmem[p->nrep++] = r->sender_ti.wmem_samples ? r->sender_ti.wmem_alloc : NAN;
		p->retrans += r->sender_ti.retrans;
		stats_mean_ci(p->rep_mbps, p->nrep, CI_LEVEL, &c);
		p->mbps = c.mean;
		p->mbps_half = c.half;
		p->wmem = stats_mean_finite(p->rep_wmem, p->nrep);
		p->residence_us = p->mbps > 0 ? p->wmem * 8 / p->mbps : NAN;
	}
	free(r);
	return ret;
}

/* Further passes over every point, alternately backwards and forwards so drift hits all alike,
 * until each point's CI_LEVEL interval is within NARROW_CI of its mean or the passes are spent
 * (at least MIN_ROUNDS passes). */
static int tsq_passes(const struct sweep_opts *o, struct tsq_sweep *s, unsigned int reps, char *err,
		      size_t errlen)
{
	unsigned int pass, j, k, n = s->n;
	bool narrow;
	int ret = 0;

	for (pass = 1; pass < reps && !ret; pass++) {
		for (j = 0; j < n && !ret; j++) {
			k = pass % 2 ? n - 1 - j : j;
			ret = tsq_measure(o, s, &s->p[k], s->p[k].limit, pass * n + j + 1, reps * n,
					  err, errlen);
		}
		narrow = true;
		for (k = 0; k < n; k++)
			narrow &= s->p[k].mbps_half <= NARROW_CI * s->p[k].mbps;
		if (narrow && pass + 1 >= MIN_ROUNDS)
			break;
	}
	return ret;
}

int sweep_tsq(const struct sweep_opts *o, struct tsq_sweep *s, char *err, size_t errlen)
{
	struct model_in dev_in;
	struct sweep_opts po = *o;
	double t0 = et_now_s(), fac, best = 0, L[SWEEP_MAX_POINTS], X[SWEEP_MAX_POINTS];
	unsigned int npts, i, k;
	char buf[64];
	int ret = 0;

	memset(s, 0, sizeof(*s));
	snprintf(s->cc, sizeof(s->cc), "%s", o->cc);
	s->sysctl_effective = tsq_sysctl_effective(o->dev, s->cc, sizeof(s->cc), s->cc_reason,
						   sizeof(s->cc_reason));
	snprintf(po.cc, sizeof(po.cc), "%s", s->cc);
	if (!sysctl_get(TSQ_SYSCTL, buf, sizeof(buf)))
		s->tsq_before = strtoull(buf, NULL, 10);
	dev_wire(o->dev, s, &dev_in);
	npts = o->points ? o->points
			 : (unsigned int)lround(log2((double)o->tsq_max / o->tsq_min)) + 1;
	if (npts < 3)
		npts = 3;
	if (npts > SWEEP_MAX_POINTS - 4)
		npts = SWEEP_MAX_POINTS - 4;
	fac = pow((double)o->tsq_max / o->tsq_min, 1.0 / (npts - 1));
	undo_temp_begin();
	for (i = 0; i < npts && !ret; i++)
		ret = tsq_measure(&po, s, NULL, (uint64_t)llround(o->tsq_min * pow(fac, i)), i + 1,
				  npts + 2, err, errlen);
	/* Refine near the knee: two points between the last below KNEE_SHARE and the first above.
	 */
	for (i = 0; i < s->n && !ret; i++)
		best = fmax(best, s->p[i].mbps);
	for (k = 0; k < s->n && !ret && s->p[k].mbps < KNEE_SHARE * best; k++)
		;
	if (!ret && k > 0 && k < s->n) {
		uint64_t lo = s->p[k - 1].limit, hi = s->p[k].limit;
		double r = pow((double)hi / lo, 1.0 / 3);

		ret = tsq_measure(&po, s, NULL, (uint64_t)llround(lo * r), npts + 1, npts + 2, err,
				  errlen);
		if (!ret)
			ret = tsq_measure(&po, s, NULL, (uint64_t)llround(lo * r * r), npts + 2,
					  npts + 2, err, errlen);
	}
	if (!ret) {
		qsort(s->p, s->n, sizeof(s->p[0]), cmp_point);
		ret = tsq_passes(&po, s, o->reps ? o->reps : 3, err, errlen);
	}
	sweep_progress_done(o);
	undo_temp_end();
	if (ret)
		return ret;
	qsort(s->p, s->n, sizeof(s->p[0]), cmp_point);
	for (i = 0; i < s->n; i++) {
		L[i] = (double)s->p[i].limit;
		X[i] = s->p[i].mbps * 1e6;
	}
	tsq_effective(dev_in, s);
	/* A fit is a model only if it describes the points: its rmse within FIT_RMSE_SHARE of the
	 * plateau, and the interval of D above zero. */
	if (s->n < 3) {
		snprintf(s->fit_reason, sizeof(s->fit_reason), "fewer than 3 points");
	} else if (model_fit(L, X, s->n, s->rho, FIT_BOOT, FIT_CONF, 1, &s->fit)) {
		snprintf(s->fit_reason, sizeof(s->fit_reason), "the fit did not converge");
	} else if (s->fit.rmse > FIT_RMSE_SHARE * s->fit.R) {
		snprintf(s->fit_reason, sizeof(s->fit_reason),
			 "rmse %.0f Mbit/s is more than a tenth of the plateau %.0f Mbit/s",
			 s->fit.rmse / 1e6, s->fit.R / 1e6);
	} else if (s->fit.D_lo <= 0) {
		snprintf(s->fit_reason, sizeof(s->fit_reason),
			 "the interval of D reaches zero [%.0f, %.0f] us", s->fit.D_lo * 1e6,
			 s->fit.D_hi * 1e6);
	} else {
		s->fit_ok = true;
		s->cap_current_mbps =
			model_sw((double)s->tsq_before, s->rho, s->fit.R, s->fit.D) / 1e6;
		s->cap_default_mbps = model_sw(TSQ_DEFAULT_BYTES, s->rho, s->fit.R, s->fit.D) / 1e6;
	}
	residence_delay(s);
	s->elapsed_s = et_now_s() - t0;
	return 0;
}

void sweep_tsq_print(const struct tsq_sweep *s)
{
	unsigned int i;

	open_json_object("tsq-sweep");
	print_string(PRINT_ANY, "cc", "TSQ sweep, congestion control %s", s->cc);
	print_bool(PRINT_JSON, "sysctl-effective", NULL, s->sysctl_effective);
	print_string(PRINT_ANY, "cc-reason", " (%s)\n", s->cc_reason);
	print_uint(PRINT_ANY, "tsq-before", "tcp_limit_output_bytes before: %llu (restored)\n",
		   s->tsq_before);
	print_text("  %12s %12s %12s %8s %8s %10s %10s\n", "limit", "effective", "Mbit/s", "95%",
		   "retrans", "in-host", "waits-us");
	open_json_array(PRINT_JSON, "points");
	for (i = 0; i < s->n; i++) {
		open_json_object(NULL);
		print_uint(PRINT_ANY, "limit", "  %12llu", s->p[i].limit);
		if (s->p[i].eff_limit == UINT64_MAX || !s->p[i].eff_limit)
			print_na("effective-limit", " %12s");
		else
			print_uint(PRINT_ANY, "effective-limit", " %12llu", s->p[i].eff_limit);
		print_bool(PRINT_JSON, "below-floor", NULL, s->p[i].below_floor);
		print_float(PRINT_ANY, "mbps", " %12.1f", s->p[i].mbps);
		if (isinf(s->p[i].mbps_half))
			print_na("half-mbps", " +-%-6s");
		else
			print_float(PRINT_ANY, "half-mbps", " +-%-6.1f", s->p[i].mbps_half);
		print_uint(PRINT_JSON, "passes", NULL, s->p[i].nrep);
		print_uint(PRINT_ANY, "retrans", " %8llu", s->p[i].retrans);
		if (isnan(s->p[i].wmem)) {
			print_na("wmem-alloc", " %10s");
			print_na("residence-us", " %10s\n");
		} else {
			print_float(PRINT_ANY, "wmem-alloc", " %10.0f", s->p[i].wmem);
			print_float(PRINT_ANY, "residence-us", " %10.0f\n", s->p[i].residence_us);
		}
		close_json_object();
	}
	close_json_array(PRINT_JSON, NULL);
	if (s->fit_ok) {
		open_json_object("fit");
		print_text("model X(L) = min(R, 8*rho*L / (8*rho*L/R + D)), rho %.3f:\n", s->rho);
		print_float(PRINT_JSON, "rho", NULL, s->rho);
		print_float(PRINT_ANY, "r-mbps", "  R %.1f Mbit/s", s->fit.R / 1e6);
		print_float(PRINT_ANY, "r-lo-mbps", " [%.1f,", s->fit.R_lo / 1e6);
		print_float(PRINT_ANY, "r-hi-mbps", " %.1f]\n", s->fit.R_hi / 1e6);
		print_float(PRINT_ANY, "d-us", "  D %.1f us", s->fit.D * 1e6);
		print_float(PRINT_ANY, "d-lo-us", " [%.1f,", s->fit.D_lo * 1e6);
		print_float(PRINT_ANY, "d-hi-us", " %.1f] (95%% bootstrap)\n", s->fit.D_hi * 1e6);
		print_uint(PRINT_ANY, "knee", "  knee L* %llu bytes (95%% of R)\n",
			   (uint64_t)llround(s->fit.knee));
		print_float(PRINT_ANY, "rmse-mbps", "  rmse %.1f Mbit/s\n", s->fit.rmse / 1e6);
		print_float(PRINT_ANY, "cap-current-mbps",
			    "  single-flow cap at the current limit: %.1f Mbit/s\n",
			    s->cap_current_mbps);
		print_float(PRINT_ANY, "cap-default-mbps",
			    "  single-flow cap at the 4 MiB default: %.1f Mbit/s\n",
			    s->cap_default_mbps);
		close_json_object();
	} else {
		print_string(PRINT_ANY, "fit-failed", "model: no fit (%s)\n", s->fit_reason);
	}
	for (i = s->n; i-- > 0;)
		if (s->p[i].below_floor) {
			print_text("at %llu bytes and below the sysctl is under the kernel's floor "
				   "(one "
				   "skb's truesize: the one-skb exception sends it anyway)\n",
				   (unsigned long long)s->p[i].limit);
			break;
		}
	open_json_object("residence");
	if (s->n_res) {
		print_text(
			"measured: the time a byte waits below TCP, less %.0f us to serialize one "
			"skb at the line rate:\n",
			s->ser_us);
		print_float(PRINT_ANY, "d-us", "  D %.0f us", s->d_res_us);
		print_float(PRINT_JSON, "serialization-us", NULL, s->ser_us);
		print_float(PRINT_ANY, "d-lo-us", " [%.0f,", s->d_res_lo_us);
		print_float(PRINT_ANY, "d-hi-us", " %.0f]", s->d_res_hi_us);
		print_uint(PRINT_ANY, "points", " (quartiles of %u points TSQ throttles)\n",
			   s->n_res);
	} else {
		print_text("measured D: n/a (needs the line rate and two points TSQ throttles)\n");
	}
	close_json_object();
	print_float(PRINT_ANY, "elapsed-s", "elapsed %.1f s\n", s->elapsed_s);
	close_json_object();
}

/* The peer's change, run in the peer's namespace; its journal entries stay the owner's. */
struct peer_set {
	const struct sweep_opts *o;
	int argc;
	char **argv;
	pid_t owner;
};

static int peer_set_in_netns(void *ctx)
{
	const struct peer_set *p = ctx;
	char e[512];
	int ret;

	journal_temp_adopt(p->owner);
	ret = devset_apply(p->o->peer_dev, p->argc, p->argv, e, sizeof(e), NULL);
	if (ret)
		fprintf(stderr, "ethtune: peer %s: %s\n", p->o->peer_dev, e);
	return ret;
}

void sweep_tsq_plot(const struct tsq_sweep *s, struct svg_series *p)
{
	double lmin = 1e18, lmax = 0;
	unsigned int i;

	memset(p, 0, sizeof(*p));
	p->x_label = "tcp_limit_output_bytes";
	p->y_label = "Mbit/s (one flow)";
	for (i = 0; i < s->n && i < SVG_MAX_POINTS; i++) {
		const struct tsq_point *t = &s->p[i];

		p->p[p->n++] = (struct svg_point){ (double)t->limit, t->mbps,
						   t->mbps - t->mbps_half, t->mbps + t->mbps_half };
		lmin = fmin(lmin, (double)t->limit);
		lmax = fmax(lmax, (double)t->limit);
	}
	if (!s->fit_ok) {
		snprintf(p->label, sizeof(p->label), "no model: %s", s->fit_reason);
		return;
	}
	p->y_top = s->fit.R / 1e6;
	snprintf(p->label, sizeof(p->label), "model: R %.0f Mbit/s, D %.0f us, knee %.0f KiB",
		 s->fit.R / 1e6, s->fit.D * 1e6, s->fit.knee / 1024);
	if (lmax <= lmin)
		return;
	for (i = 0; i < SVG_MAX_CURVE; i++) {
		double l = lmin * pow(lmax / lmin, i / (SVG_MAX_CURVE - 1.0));

		p->cx[i] = l;
		p->cy[i] = model_sw(l, s->rho, s->fit.R, s->fit.D) / 1e6;
	}
	p->ncurve = SVG_MAX_CURVE;
}

/* Change dev (and the peer's device, possibly in its namespace) temporarily. */
static int set_both(const struct sweep_opts *o, int argc, char **argv, char *err, size_t errlen)
{
	struct peer_set p = { o, argc, argv, getpid() };
	int ret;

	ret = devset_apply(o->dev, argc, argv, err, errlen, NULL);
	if (ret || !o->peer_dev)
		return ret;
	if (!o->peer_netns || (netns_current() && !strcmp(o->peer_netns, netns_current())))
		return devset_apply(o->peer_dev, argc, argv, err, errlen, NULL);
	ret = netns_run(o->peer_netns, peer_set_in_netns, &p);
	if (ret == -ENONET)
		fprintf(stderr, "ethtune: cannot enter peer namespace '%s'\n", o->peer_netns);
	if (ret) {
		snprintf(err, errlen, "cannot change the peer device %s", o->peer_dev);
		return -EIO;
	}
	return 0;
}

/* Some drivers (e1000e) reset the NIC on an MTU change: wait for the link before measuring. */
static void wait_link_up(const char *dev)
{
	struct et_link l;

	/* a reset starts a little later */
	nanosleep(&(struct timespec){ 0, 300 * 1000000L }, NULL);
	if (!link_get_dev(dev, &l) && strcmp(l.operstate, "UP") && strcmp(l.operstate, "UNKNOWN")) {
		link_wait_up(dev, 15);
		sleep(1); /* the peer's end comes up about as late */
	}
}

static uint32_t dev_max_mtu(const char *dev, uint32_t *cur)
{
	struct et_link l;

	if (link_get_dev(dev, &l))
		return 0;
	*cur = (uint32_t)l.v.v[IFLA_MTU];
	return (uint32_t)l.v.v[IFLA_MAX_MTU];
}

int sweep_mtu(const struct sweep_opts *o, struct mtu_sweep *s, char *err, size_t errlen)
{
	static const uint32_t cand[] = { 1500, 4000, 9000, 16000, 32000, 65535 };
	uint32_t mtus[16], max, cur = 0;
	unsigned int n = 0, i;
	double t0 = et_now_s();
	int ret = 0;

	memset(s, 0, sizeof(*s));
	max = dev_max_mtu(o->dev, &cur);
	if (!max) {
		snprintf(err, errlen, "cannot read the MTU range of %s", o->dev);
		return -ENODEV;
	}
	for (i = 0; i < sizeof(cand) / sizeof(cand[0]); i++)
		if (cand[i] <= max)
			mtus[n++] = cand[i];
	if (max > 1500 && mtus[n - 1] != max && n < 16)
		mtus[n++] = max;
	undo_temp_begin();
	for (i = 0; i < n && !ret; i++) {
		struct probe_result *r = calloc(1, sizeof(*r));
		char v[16], what[64], *args[] = { "mtu", v };
		double one[MTU_REPS], two[MTU_REPS];
		unsigned int k;

		if (!r) {
			ret = -ENOMEM;
			break;
		}
		snprintf(v, sizeof(v), "%u", mtus[i]);
		snprintf(what, sizeof(what), "mtu %u", mtus[i]);
		sweep_progress(o, i + 1, n, what);
		ret = set_both(o, 2, args, err, errlen);
		if (!ret)
			wait_link_up(o->dev);
		/* one and two flows interleaved, so drift hits both alike */
		for (k = 0; k < MTU_REPS && !ret; k++) {
			ret = sweep_probe(o, 1, PROBE_STREAM, 0, r, err, errlen);
			one[k] = r->mbps;
			if (!ret)
				ret = sweep_probe(o, 2, PROBE_STREAM, 0, r, err, errlen);
			two[k] = r->mbps;
		}
		if (!ret) {
			struct mtu_point *p = &s->p[s->n++];

			p->mtu = mtus[i];
			stats_mean_ci(one, MTU_REPS, CI_LEVEL, &p->c1);
			stats_mean_ci(two, MTU_REPS, CI_LEVEL, &p->c2);
			p->mbps1 = p->c1.mean;
			p->mbps2 = p->c2.mean;
		}
		free(r);
	}
	sweep_progress_done(o);
	undo_temp_end();
	if (ret)
		return ret;
	for (i = 1; i < s->n; i++) {
		const struct mtu_point *p = &s->p[i];

		if (p->mtu > MTU_JUMBO && p->c1.hi < MTU_COLLAPSE_SHARE * s->p[0].c1.lo &&
		    p->c1.hi < p->c2.lo) {
			s->collapse = true;
			s->collapse_mtu = p->mtu;
			s->collapse_i = i;
			break;
		}
	}
	s->elapsed_s = et_now_s() - t0;
	return 0;
}

void sweep_mtu_print(const struct mtu_sweep *s)
{
	unsigned int i;

	open_json_object("mtu-sweep");
	print_text("MTU sweep (one flow, two flows; mean +- 95%% t half-width of %d interleaved "
		   "runs):\n  %6s %12s %9s %12s\n",
		   MTU_REPS, "mtu", "1 flow", "", "2 flows");
	open_json_array(PRINT_JSON, "points");
	for (i = 0; i < s->n; i++) {
		open_json_object(NULL);
		print_uint(PRINT_ANY, "mtu", "  %6llu", s->p[i].mtu);
		print_float(PRINT_ANY, "one-flow-mbps", " %12.1f", s->p[i].mbps1);
		print_float(PRINT_ANY, "one-flow-half-mbps", " +-%-7.1f", s->p[i].c1.half);
		print_float(PRINT_ANY, "two-flows-mbps", " %12.1f", s->p[i].mbps2);
		print_float(PRINT_ANY, "two-flows-half-mbps", " +-%-7.1f\n", s->p[i].c2.half);
		close_json_object();
	}
	close_json_array(PRINT_JSON, NULL);
	print_bool(PRINT_ANY, "large-mtu-collapse", "large-MTU single-flow collapse: %s",
		   s->collapse);
	if (s->collapse)
		print_uint(PRINT_ANY, "collapse-mtu", " from mtu %llu", s->collapse_mtu);
	print_text("\n");
	print_float(PRINT_ANY, "elapsed-s", "elapsed %.1f s\n", s->elapsed_s);
	close_json_object();
}
