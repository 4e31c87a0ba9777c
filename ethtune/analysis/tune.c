/* ethtune tune: sweep the TX completion knob, pick a setting by objective, write a profile. */
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include <sys/utsname.h>
#include <linux/ethtool_netlink.h>

#include "analysis/tune.h"
#include "nl/devobj.h"
#include "nl/netdev.h"
#include "knowledge/drvdb.h"
#include "util/ethtune.h"
#include "out/json_print.h"
#include "knowledge/profile.h"
#include "analysis/sweep.h"
#include "out/html.h"
#include "analysis/thresholds.h"

enum objective { OBJ_THROUGHPUT, OBJ_LATENCY, OBJ_CPU, OBJ_BALANCED };
static const char *const obj_names[] = { "throughput", "latency", "cpu", "balanced", NULL };

static const char *const rules[] = {
	[OBJ_THROUGHPUT] = "among settings within 5% of the best single-flow throughput at both "
			   "TSQ limits (or not below it by Welch's test over the passes), the "
			   "fewest completion interrupts (or the largest delay)",
	[OBJ_LATENCY] = "the smallest delay among settings whose median RR latency is within 10% "
			"of the lowest (or not above it by Welch's test over the passes)",
	[OBJ_CPU] = "the lowest sender CPU per Gbit/s among settings within 10% of the best "
		    "throughput",
	[OBJ_BALANCED] = "the smallest interrupt rate that keeps single-flow throughput within 5% "
			 "of the best and RR p99 within twice the best",
};

/* Lower is better. What a setting costs in completion interrupts, as the rule says: the measured
 * rate, or where the device's interrupts cannot be counted (no /proc/interrupts line: txsim, a
 * software device) the largest delay. Not sender CPU: among settings of equal throughput it is
 * noise, and the pick would change from run to run. */
static double cost_irq(const struct coal_point *p)
{
	if (!isnan(p->irq_per_s))
		return p->irq_per_s;
	return -(double)p->val[0];
}

static bool orphans(const struct coal_point *p)
{
	return !isnan(p->orphan_frac) && p->orphan_frac > ORPHAN_MAJORITY;
}

/* Is a's metric (one value per pass) not worse than best's by more than frac, or not
 * significantly so? Welch's t-test at SIG_P where there are passes to test with, and only for a
 * shortfall of at most TUNE_NEAR_SLACK times frac: three noisy passes leave a 38% loss not
 * significant (txsim at tx-usecs 1024 under TCG: 457 against 736 Mbit/s, which the model puts at
 * 0.70 of line rate), and the rule then picks the largest delay among those "near", the one
 * most likely to cost a flow. */
static bool near(const double *a, const double *best, unsigned int n, double ma, double mb,
		 double frac, bool higher_is_better)
{
	double wide = TUNE_NEAR_SLACK * frac;

	if (higher_is_better ? ma >= (1 - frac) * mb : ma <= (1 + frac) * mb)
		return true;
	if (higher_is_better ? ma < (1 - wide) * mb : ma > (1 + wide) * mb)
		return false;
	return n >= 2 && stats_welch_p(a, n, best, n) >= SIG_P;
}

/* The worse of a setting's shares of the bests (throughput at both TSQ limits, and for balanced
 * p99 against its bound), at most 1. */
static double worst_share(const struct coal_point *p, enum objective obj, double best,
			  double bestc, double bestp99)
{
	double w = fmin(best > 0 ? p->mbps / best : 0, bestc > 0 ? p->mbps_constrained / bestc : 0);

	if (obj == OBJ_BALANCED && !isnan(p->rr_p99_us) && isfinite(bestp99) && p->rr_p99_us > 0)
		w = fmin(w, TUNE_P99_FACTOR * bestp99 / p->rr_p99_us);
	return fmin(w, 1);
}

/* Bests of the settings the rule may consider (the owned ones, where any setting keeps skbs
 * owned): the best of each metric and the settings that have it. */
struct bests {
	double mbps, mbpsc, p99, p50;
	int ib, ic, il;
	bool any_owned;
};

static void find_bests(const struct coal_sweep *s, struct bests *b, unsigned int *excluded)
{
	int i;

	*b = (struct bests){ .p99 = INFINITY, .p50 = INFINITY };
	*excluded = 0;
	for (i = 0; i < (int)s->n; i++)
		b->any_owned |= !orphans(&s->p[i]);
	for (i = 0; i < (int)s->n; i++) {
		if (b->any_owned && orphans(&s->p[i])) {
			(*excluded)++;
			continue;
		}
		if (s->p[i].mbps > b->mbps) {
			b->mbps = s->p[i].mbps;
			b->ib = i;
		}
		if (s->p[i].mbps_constrained > b->mbpsc) {
			b->mbpsc = s->p[i].mbps_constrained;
			b->ic = i;
		}
		if (!isnan(s->p[i].rr_p99_us))
			b->p99 = fmin(b->p99, s->p[i].rr_p99_us);
		if (!isnan(s->p[i].rr_p50_us) && s->p[i].rr_p50_us < b->p50) {
			b->p50 = s->p[i].rr_p50_us;
			b->il = i;
		}
	}
}

/* Does the objective's rule accept setting i, before its cost chooses among those it does? */
static bool accepts(const struct coal_sweep *s, const struct bests *b, enum objective obj, int i)
{
	const struct coal_point *p = &s->p[i];

	if (b->any_owned && orphans(p))
		return false;
	switch (obj) {
	case OBJ_THROUGHPUT:
	case OBJ_BALANCED:
		if (!near(p->rep_mbps, s->p[b->ib].rep_mbps, p->nrep, p->mbps, b->mbps,
			  TUNE_THROUGHPUT_NEAR, true) ||
		    !near(p->rep_mbpsc, s->p[b->ic].rep_mbpsc, p->nrep, p->mbps_constrained,
			  b->mbpsc, TUNE_THROUGHPUT_NEAR, true))
			return false;
		return obj != OBJ_BALANCED || isnan(p->rr_p99_us) || !isfinite(b->p99) ||
		       p->rr_p99_us <= TUNE_P99_FACTOR * b->p99;
	case OBJ_LATENCY:
		/* The median is what a delay moves; inside TUNE_LATENCY_NEAR of the best it is
		 * noise, and then the smaller delay wins. */
		return !isnan(p->rr_p50_us) && near(p->rep_p50, s->p[b->il].rep_p50, p->nrep,
						    p->rr_p50_us, b->p50, TUNE_LATENCY_NEAR, false);
	case OBJ_CPU:
		return p->mbps >= TUNE_CPU_MIN_SHARE * b->mbps && !isnan(p->cpu_per_gbps);
	}
	return false;
}

double tune_cost(const struct coal_point *p, int obj)
{
	switch (obj) {
	case OBJ_THROUGHPUT:
	case OBJ_BALANCED:
		return cost_irq(p);
	case OBJ_LATENCY:
		return (double)p->val[0];
	default:
		return p->cpu_per_gbps;
	}
}

unsigned int tune_accept(const struct coal_sweep *s, int obj, bool *ok, unsigned int *excluded)
{
	struct bests b;
	unsigned int n = 0;
	int i;

	find_bests(s, &b, excluded);
	for (i = 0; i < (int)s->n; i++) {
		ok[i] = accepts(s, &b, obj, i);
		n += ok[i];
	}
	return n;
}

/* A setting that orphans skbs at xmit wins throughput by hiding the queue from TSQ and BQL:
 * it is left out while any setting keeps skbs owned (*excluded says how many were).
 * Where no setting meets the throughput rule at both TSQ limits (one setting best at each, the
 * others further below than the passes' noise), *fallback is set and the pick is the setting
 * whose worse share of the bests is largest: the measurements always name one, and the output
 * says which rule chose it. */
int tune_pick(const struct coal_sweep *s, int obj, unsigned int *excluded, bool *fallback)
{
	bool ok[COAL_MAX_POINTS];
	struct bests b;
	int i, k = -1;

	*fallback = false;
	tune_accept(s, obj, ok, excluded);
	/* the first of the accepted settings that costs least */
	for (i = 0; i < (int)s->n; i++)
		if (ok[i] && (k < 0 || tune_cost(&s->p[i], obj) < tune_cost(&s->p[k], obj)))
			k = i;
	if (k >= 0 || (obj != OBJ_THROUGHPUT && obj != OBJ_BALANCED))
		return k;
	find_bests(s, &b, excluded);
	for (i = 0; i < (int)s->n; i++) {
		if ((b.any_owned && orphans(&s->p[i])) || !(s->p[i].mbps > 0))
			continue;
		if (k < 0 || worst_share(&s->p[i], obj, b.mbps, b.mbpsc, b.p99) >
				     worst_share(&s->p[k], obj, b.mbps, b.mbpsc, b.p99))
			k = i;
	}
	*fallback = k >= 0;
	return k;
}

const char *tune_objective_name(int obj)
{
	return obj >= 0 && obj <= OBJ_BALANCED ? obj_names[obj] : "?";
}

const char *tune_rule(int obj)
{
	return obj >= 0 && obj <= OBJ_BALANCED ? rules[obj] : "?";
}

/* The recommendation as a profile, written by the one checked, atomic profile writer. */
static int write_profile(const char *path, const char *name, const char *driver,
			 const struct coal_sweep *s, const struct coal_point *p, enum objective obj,
			 char *err, size_t errlen)
{
	char host[64] = "unknown", date[16], buf[192], tool[32];
	const char *const prov[][2] = {
		{ "kind", "measured" },		 { "host", host }, { "date", date },
		{ "objective", obj_names[obj] }, { "tool", tool }, { "rule", rules[obj] },
	};
	struct profile *pr = malloc(sizeof(*pr));
	time_t t = time(NULL);
	struct tm tm;
	unsigned int i;
	int ret;

	if (!pr) {
		snprintf(err, errlen, "%s", strerror(ENOMEM));
		return -ENOMEM;
	}
	gethostname(host, sizeof(host) - 1);
	gmtime_r(&t, &tm);
	strftime(date, sizeof(date), "%Y-%m-%d", &tm);
	profile_init(pr, name);
	snprintf(pr->comment, sizeof(pr->comment), "%s: measured by ethtune tune --objective %s",
		 name, obj_names[obj]);
	snprintf(buf, sizeof(buf), "%s, objective %s: %.0f Mbit/s one flow (%.0f at TSQ %llu)",
		 driver, obj_names[obj], p->mbps, p->mbps_constrained,
		 (unsigned long long)s->tsq_constrained);
	ret = profile_add(pr, PS_PROFILE, "description", buf, err, errlen);
	if (!ret)
		ret = profile_add(pr, PS_MATCH, "driver", driver, err, errlen);
	if (!ret && s->fixed[0]) {
		char fx[96], *k, *save;

		snprintf(fx, sizeof(fx), "%s", s->fixed);
		for (k = strtok_r(fx, " ", &save); k && !ret; k = strtok_r(NULL, " ", &save)) {
			char *v = strtok_r(NULL, " ", &save);

			if (v)
				ret = profile_add(pr, s->napi ? PS_NAPI : PS_COALESCE, k, v, err,
						  errlen);
		}
	}
	for (i = 0; !ret && i < s->nparams; i++) {
		snprintf(buf, sizeof(buf), "%u", p->got[i] ? p->got[i] : p->val[i]);
		ret = profile_add(pr, s->napi ? PS_NAPI : PS_COALESCE, s->param[i], buf, err,
				  errlen);
	}
	snprintf(tool, sizeof(tool), "ethtune %s", ETHTUNE_VERSION);
	for (i = 0; !ret && i < sizeof(prov) / sizeof(prov[0]); i++)
		ret = profile_add(pr, PS_PROVENANCE, prov[i][0], prov[i][1], err, errlen);
	if (!ret)
		ret = profile_save(pr, path, err, errlen);
	free(pr);
	return ret;
}

int tune_objective(const char *name)
{
	int k;

	for (k = 0; obj_names[k] && strcmp(obj_names[k], name); k++)
		;
	return obj_names[k] ? k : -EINVAL;
}

static void print_str_na(const char *key, const char *fmt, const char *v)
{
	if (v && *v)
		print_string(PRINT_ANY, key, fmt, v);
	else
		print_na(key, fmt);
}

static void print_hex4(const char *key, const char *fmt, unsigned int v)
{
	char buf[8];

	snprintf(buf, sizeof(buf), "%04x", v & 0xffff);
	print_string(PRINT_ANY, key, fmt, buf);
}

/* Where and by what the result was measured (what profile merge groups and reports by): this
 * host, kernel, ethtune and the time, the device's bus, firmware, driver version and PCI ids
 * (those profile match reads: the function's, or a virtio device's PCI parent's). */
static void print_provenance(const char *dev, const struct et_drvinfo *di)
{
	char host[256] = "", date[32] = "";
	struct prof_dev pd;
	struct utsname u;
	time_t now = time(NULL);
	struct tm tm;
	bool pci;

	if (gethostname(host, sizeof(host) - 1))
		host[0] = '\0';
	if (gmtime_r(&now, &tm))
		strftime(date, sizeof(date), "%Y-%m-%dT%H:%M:%SZ", &tm);
	pci = !prof_dev_get(dev, &pd) && pd.pci;
	print_str_na("host", "host %s", host);
	print_str_na("kernel", ", kernel %s", uname(&u) ? NULL : u.release);
	print_string(PRINT_ANY, "ethtune-version", ", ethtune %s", ETHTUNE_VERSION);
	print_str_na("date", ", %s\n", date);
	print_str_na("bus-info", "bus %s", di->ok ? di->bus : NULL);
	print_str_na("firmware-version", ", firmware %s", di->ok ? di->fw : NULL);
	print_str_na("driver-version", ", driver version %s", di->ok ? di->version : NULL);
	if (!pci) {
		print_na("vendor-id", ", pci %s\n");
		return;
	}
	print_hex4("vendor-id", ", pci %s", pd.vendor);
	print_hex4("device-id", ":%s", pd.device);
	print_hex4("subsystem-vendor-id", ", subsystem %s", pd.sub_vendor);
	print_hex4("subsystem-device-id", ":%s\n", pd.sub_device);
}

int tune_dev(const struct sweep_opts *op, const struct tune_opts *t)
{
	static const uint32_t dflt[] = { 0, 16, 32, 64, 128, 256, 512, 1024, 2000 };
	struct sweep_opts o = *op;
	struct coal_spec spec = {};
	struct coal_sweep *s = NULL;
	enum objective obj = t->objective;
	const char *out = t->write_profile, *pname = t->profile_name;
	const struct drv_param *dp = NULL;
	unsigned int excluded = 0;
	bool fallback = false;
	struct et_drvinfo di;
	struct et_vals cur;
	struct nl_sock ns;
	char err[512], path[600];
	int ret, k;

	if (t->param) {
		spec.param[0] = t->param;
		spec.nparams = 1;
		/* NAPI deferral as software completion coalescing (a driver without hardware TX
		 * coalescing: virtio_net without NOTF_COAL): the timeouts defer only while
		 * defer-hard-irqs keeps the interrupt masked */
		spec.napi = napi_param(t->param) && !obj_param(&et_coalesce, t->param);
		if (spec.napi && strcmp(t->param, "defer-hard-irqs")) {
			spec.fixed_key[0] = "defer-hard-irqs";
			spec.fixed_val[0] = TUNE_NAPI_DEFER_IRQS;
			spec.nfixed = 1;
		}
	}
	spec.txlat = t->txlat;
	spec.nvals[0] = t->nvalues;
	memcpy(spec.vals[0], t->values, sizeof(t->values));
	if (nl_open_genl(&ns, "ethtool")) {
		et_err("tune: ethtool netlink unavailable");
		return -EOPNOTSUPP;
	}
	drvinfo_get(&ns, o.dev, &di);
	ret = obj_get(&ns, &et_coalesce, o.dev, &cur);
	nl_close(&ns);
	if (ret && !spec.napi) {
		et_err("tune: %s has no coalescing parameters to tune", o.dev);
		return -EOPNOTSUPP;
	}
	if (!spec.nparams) {
		spec.param[0] = drvdb_tx_knob(di.ok ? di.driver : "", &cur, &dp);
		if (!spec.param[0]) {
			et_err("tune: %s reports no coalescing delay to tune; give --param", o.dev);
			return -EOPNOTSUPP;
		}
		spec.nparams = 1;
	}
	/* a switch (virtio_net's tx-frames: napi_tx off/on) has two values, not a delay range */
	if (dp && dp->unit && !strcmp(dp->unit, "0|1")) {
		if (!spec.nvals[0]) {
			spec.vals[0][0] = 0;
			spec.vals[0][1] = 1;
			spec.nvals[0] = 2;
		}
		spec.txlat = true; /* one side of such a switch may be an orphan mode */
	}
	if (!spec.nvals[0])
		for (k = 0; k < (int)(sizeof(dflt) / sizeof(dflt[0])); k++)
			spec.vals[0][spec.nvals[0]++] = dflt[k];
	s = calloc(1, sizeof(*s));
	if (!s)
		return -ENOMEM;
	sweep_html_begin(&o);
	new_json_obj(et_opts.json);
	print_string(PRINT_ANY, "device", "ethtune tune %s", o.dev);
	print_string(PRINT_ANY, "driver", " (driver %s)", di.ok ? di.driver : "?");
	print_string(PRINT_ANY, "objective", ", objective %s", obj_names[obj]);
	print_string(PRINT_ANY, "param", ", sweeping %s\n", spec.param[0]);
	print_provenance(o.dev, &di);
	ret = sweep_coalesce(&o, &spec, s, err, sizeof(err));
	if (ret) {
		delete_json_obj();
		et_err("tune %s: %s", o.dev, err);
		free(s);
		return ret == -EINVAL ? -EINVAL : -EIO;
	}
	sweep_coalesce_print(s);
	k = tune_pick(s, obj, &excluded, &fallback);
	open_json_object("recommendation");
	print_string(PRINT_ANY, "rule", "rule: %s\n", rules[obj]);
	if (excluded)
		print_uint(PRINT_ANY, "orphaning-excluded",
			   "left out: %llu setting(s) that orphan skbs at xmit (txlat): their "
			   "throughput comes from hiding the queue from TSQ and BQL\n",
			   excluded);
	if (k < 0) {
		print_text("recommendation: n/a (no setting satisfies the rule)\n");
	} else {
		print_string(PRINT_ANY, "param", "recommendation: %s", s->param[0]);
		print_uint(PRINT_ANY, "value", " %llu",
			   s->p[k].got[0] ? s->p[k].got[0] : s->p[k].val[0]);
		print_float(PRINT_ANY, "mbps", " (%.0f Mbit/s one flow", s->p[k].mbps);
		print_float(PRINT_ANY, "mbps-constrained", ", %.0f at the constrained limit",
			    s->p[k].mbps_constrained);
		if (!isnan(s->p[k].rr_p99_us))
			print_float(PRINT_ANY, "rr-p99-us", ", RR p99 %.0f us", s->p[k].rr_p99_us);
		print_text(")\n");
		if (fallback)
			print_string(PRINT_ANY, "fallback",
				     "no setting met the rule at both TSQ limits: %s\n",
				     "picked the largest worst-case share of the bests");
		/* the fixed values go with it: they are part of the setting measured */
		print_text("apply with: ethtune set %s %s%s%s %s %u\n", o.dev,
			   s->napi ? "napi all" : "coalesce", s->fixed[0] ? " " : "", s->fixed,
			   s->param[0], s->p[k].got[0] ? s->p[k].got[0] : s->p[k].val[0]);
	}
	close_json_object();
	if (k >= 0 && (out || pname)) {
		const char *name = pname ? pname : di.ok ? di.driver : o.dev;

		if (!out) {
			snprintf(path, sizeof(path), "profiles/%s-%s.profile", name,
				 obj_names[obj]);
			out = path;
		}
		ret = write_profile(out, name, di.ok ? di.driver : o.dev, s, &s->p[k], obj, err,
				    sizeof(err));
		if (ret)
			et_err("tune: cannot write profile %s: %s", out, err);
		else
			print_string(PRINT_ANY, "profile", "profile written: %s\n", out);
	}
	delete_json_obj();
	free(s);
	if (!ret && sweep_html_end(&o, HTML_TUNE))
		return -EIO;
	return ret ? -EIO : 0;
}
