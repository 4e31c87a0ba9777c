/* validate coalesce: the TX knob sets how long a completion waits, measured with txlat. */
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "analysis/validate.h"
#include "analysis/validate_check.h"
#include "knowledge/drvdb.h"
#include "nl/devobj.h"
#include "probe/probe.h"
#include "state/devset.h"
#include "state/journal.h"
#include "state/undo.h"
#include "trace/txlat.h"
#include "util/ethtune.h"

/* coalesce: the TX knob's settings tried, microseconds: 0 (no coalescing: the driver's own
 * completion path, the baseline) and three settings above an emulated guest's timer floor
 * (60-90 us, docs/design.md) so that growth shows above it, the largest far below a round trip
 * a user would notice. A driver whose smallest value is above 0 starts there. */
#define VAL_COAL_US                                                                                \
	{                                                                                          \
		0, 25, 100, 400                                                                    \
	}
/* coalesce: at the baseline (no coalescing) the median completion's interval starts before the
 * request/response round trip's median: with one skb in flight the next transmit comes only
 * after the response, so a completion later than that waits for it or for a rescan timer
 * (diagnose's completion-stalls). No constant: the bound is the measured round trip. */
/* coalesce: at the largest setting the median completion must stand above the lowest median of
 * the smaller settings by at least this share of their difference, the intervals apart. A
 * quarter: the traced skbs mix requests with ACKs, and in the lab's emulated guest (TCG)
 * txsim's 400 us added ~200 us to a ~540 us path; a knob that does not govern completion adds
 * nothing. */
#define VAL_COAL_GROW 0.25

void val_coal_judge(const struct val_coal *m, const char *knob, struct val_res *r)
{
	const unsigned int l = m->n - 1;
	double floor = isnan(m->floor_us) ? 0 : m->floor_us, grow, need, bound;
	unsigned int i, b = 0, nbad = 0;
	char key[40];

	val_diag(r,
		 "knob %s (drvdb), timer floor %.0f us, median xmit-to-free under "
		 "request/response (txlat)",
		 knob, m->floor_us);
	for (i = 0; i < m->n; i++) {
		snprintf(key, sizeof(key), "p50-at-%.0f-us", m->got[i]);
		val_measured(r, key, m->p50[i]);
		if (!i) {
			val_diag(r, "%s %.0f, the baseline: p50 %.1f us [%.1f, %.1f]", knob,
				 m->got[i], m->p50[i], m->lo[i], m->hi[i]);
			continue;
		}
		/* the setting on top of the baseline's path, the floor and serialization */
		bound = m->hi[0] + (m->got[i] - m->got[0]) + floor + m->ser_us[i];
		snprintf(key, sizeof(key), "max-at-%.0f-us", m->got[i]);
		val_bound(r, key, bound);
		val_diag(r, "%s %.0f: p50 %.1f us [%.1f, %.1f], bound %.1f", knob, m->got[i],
			 m->p50[i], m->lo[i], m->hi[i], bound);
		if (m->lo[i] > bound)
			nbad++;
	}
	/* the smaller settings sit within the path's own noise: the largest must stand above
	 * the lowest of them */
	for (i = 1; i < l; i++)
		if (m->p50[i] < m->p50[b])
			b = i;
	grow = m->p50[l] - m->p50[b];
	need = VAL_COAL_GROW * (m->got[l] - m->got[b]);
	val_measured(r, "growth-us", grow);
	val_bound(r, "min-growth-us", need);
	if (m->rtt_us > 0) {
		val_measured(r, "rtt-us", m->rtt_us);
		val_bound(r, "max-baseline-p50-lo-us", m->rtt_us);
	}
	if (m->rtt_us > 0 && m->lo[0] > m->rtt_us)
		val_set(r, VR_FAIL,
			"at %s %.0f the median completion %.0f us [%.0f, %.0f] comes after the "
			"round trip's %.0f us: completions wait for the next transmit or a timer",
			knob, m->got[0], m->p50[0], m->lo[0], m->hi[0], m->rtt_us);
	else if (nbad)
		val_set(r, VR_FAIL,
			"at %u of %u settings the median completion's whole interval lies beyond "
			"the baseline's plus the setting, floor and serialization",
			nbad, l);
	else if (grow < need || m->lo[l] <= m->hi[b])
		val_set(r, VR_FAIL,
			"the median completion grew %.0f us from %s %.0f to %.0f (intervals %s; "
			"at least %.0f us with the intervals apart): the setting does not govern "
			"completion",
			grow, knob, m->got[b], m->got[l],
			m->lo[l] <= m->hi[b] ? "overlap" : "apart", need);
	else
		val_set(r, VR_PASS,
			"completion within the baseline + setting + floor + serialization at %u "
			"settings, growing %.0f us from %s %.0f to %.0f",
			l, grow, knob, m->got[b], m->got[l]);
}

static int check_coalesce(struct val_ctx *c, struct val_res *r)
{
	static const uint32_t us[VAL_COAL_POINTS] = VAL_COAL_US;
	const struct drv_param *dp = NULL;
	const struct et_param *p, *ad;
	struct val_coal m = { .floor_us = c->floor_us };
	struct probe_result *pr = NULL;
	struct txlat_result *tr = NULL;
	struct txlat *t = NULL;
	char err[512], why[256], key[40];
	const char *knob;
	unsigned int i, k;
	int mark, ret = 0;

	if (!c->have_coal) {
		val_set(r, VR_SKIP, "%s reports no coalesce parameters", c->o.dev);
		return 0;
	}
	knob = drvdb_tx_knob(c->driver, &c->coal, &dp);
	if (!knob) {
		val_set(r, VR_SKIP, "no TX completion knob known for driver %s (drvdb)",
			c->driver[0] ? c->driver : "?");
		return 0;
	}
	if (dp && dp->rate_limit) {
		val_set(r, VR_SKIP,
			"the TX knob %s caps the interrupt rate (drvdb): with one skb in flight no "
			"interrupt waits for it, so this check's request/response cannot time it",
			knob);
		return 0;
	}
	if (dp && dp->unit && strcmp(dp->unit, "us")) {
		val_set(r, VR_SKIP, "the TX knob %s counts %s, not microseconds", knob, dp->unit);
		return 0;
	}
	p = obj_param(&et_coalesce, knob);
	ad = obj_param(&et_coalesce, "adaptive-tx");
	if (!p || p->type != ET_U32) {
		val_set(r, VR_SKIP, "the TX knob %s is not a number of this kernel's coalesce",
			knob);
		return 0;
	}
	if (txlat_open(c->o.dev, NULL, &t, why, sizeof(why))) {
		val_set(r, VR_SKIP, "txlat unavailable: %s", why);
		return 0;
	}
	pr = calloc(1, sizeof(*pr));
	tr = calloc(1, sizeof(*tr));
	if (!pr || !tr || journal_txn_begin(&mark)) {
		ret = -ENOMEM;
		goto out;
	}
	/* Two passes, the second in reverse order (ABBA): a drift of the path during the check
	 * (an emulated guest's often is) then moves every setting's mean alike, and does not
	 * make the last setting look grown. Each setting: the mean of its two medians, the union
	 * of their intervals. */
	for (k = 0; k < 2 * VAL_COAL_POINTS; k++) {
		struct devset_kv kv[2] = { { knob, key }, { "adaptive-tx", "off" } };
		unsigned int nkv = ad && vals_has(&c->coal, ad->attr) ? 2 : 1;
		uint32_t want;
		struct nl_sock ns;
		struct et_vals now;
		double ser, avg, lo, hi;

		i = k < VAL_COAL_POINTS ? k : 2 * VAL_COAL_POINTS - 1 - k;
		want = us[i] < p->min ? (uint32_t)p->min : us[i];

		snprintf(key, sizeof(key), "%u", want);
		ret = devset_set(c->o.dev, "coalesce", kv, nkv, DEVSET_JOURNAL, err, sizeof(err),
				 NULL);
		if (ret) {
			val_set(r, VR_FAIL, "%s %u refused: %s", knob, want, err);
			ret = ret == -EINTR ? ret : 0;
			goto restore;
		}
		m.got[i] = want;
		if (!nl_open_genl(&ns, "ethtool")) {
			if (!obj_get(&ns, &et_coalesce, c->o.dev, &now))
				m.got[i] = (double)now.v[p->attr];
			nl_close(&ns);
		}
		txlat_reset(t);
		ret = val_probe(c, 1, PROBE_RR, c->o.duration_s, false, pr, err, sizeof(err));
		if (ret) {
			val_set(r, VR_FAIL, "%s", err);
			ret = ret == -EINTR ? ret : 0;
			goto restore;
		}
		if (txlat_collect(t, tr, why, sizeof(why)) || isnan(tr->free.p50_us)) {
			val_set(r, VR_SKIP, "txlat saw no completions at %s %u: %s", knob, want,
				why);
			goto restore;
		}
		avg = tr->c.xmit ? (double)tr->c.bytes / (double)tr->c.xmit : 0;
		ser = c->speed > 0 ? avg * 8 / c->speed : 0;
		lo = isnan(tr->free.p50_lo_us) ? tr->free.p50_us : tr->free.p50_lo_us;
		hi = isnan(tr->free.p50_hi_us) ? tr->free.p50_us : tr->free.p50_hi_us;
		if (k < VAL_COAL_POINTS) {
			m.p50[i] = tr->free.p50_us;
			m.lo[i] = lo;
			m.hi[i] = hi;
			m.ser_us[i] = ser;
		} else {
			m.p50[i] = (m.p50[i] + tr->free.p50_us) / 2;
			m.lo[i] = lo < m.lo[i] ? lo : m.lo[i];
			m.hi[i] = hi > m.hi[i] ? hi : m.hi[i];
			m.ser_us[i] = (m.ser_us[i] + ser) / 2;
			m.n++;
		}
		if (!k)
			m.rtt_us = pr->have_lat ? pr->lat.p50 : 0;
	}
	val_coal_judge(&m, knob, r);
restore:
	if (undo_txn_rollback(mark))
		val_set(r, VR_FAIL, "the coalesce settings could not be put back");
out:
	txlat_close(t);
	free(pr);
	free(tr);
	return ret;
}

const struct val_entry val_check_coalesce = {
	.name = "coalesce",
	.needs = VAL_NEEDS_PEER | VAL_NEEDS_TXLAT,
	.software = "no TX completion of its own, so no knob to time",
	.run = check_coalesce,
};
