/* validate ownership: TCP skbs stay owned by their socket until the driver completes them. */

#include "analysis/thresholds.h"
#include "analysis/validate.h"
#include "analysis/validate_check.h"
#include "trace/txlat.h"
#include "util/stats.h"

/* Bound: the orphaned share's Wilson interval starts at most at ORPHAN_MAJORITY, from at least
 * ORPHAN_MIN_SKBS TCP skbs (analysis/thresholds.h): a device that orphans at xmit hides its queue
 * from TSQ and BQL; the majority rule is diagnose's orphans-at-xmit finding, not the odd ACK. */
static int check_ownership(struct val_ctx *c, struct val_res *r)
{
	const struct txlat_result *t;
	double lo, hi;
	int ret;

	ret = val_load(c, r);
	if (ret)
		return ret < 0 ? ret : 0;
	val_load_loaded(c, r, false); /* ownership is per skb: a light flow still tells */
	if (!c->tl_ok) {
		val_set(r, VR_SKIP, "txlat unavailable: %s", c->tl_err);
		return 0;
	}
	t = c->tl; /* val_load() made it */
	if (!t->ksyms_ok) {
		val_set(r, VR_SKIP, "txlat could not count socket ownership (kernel symbols)");
		return 0;
	}
	if (t->c.tcp < ORPHAN_MIN_SKBS) {
		val_set(r, VR_SKIP, "txlat traced %llu TCP skbs, fewer than %d",
			(unsigned long long)t->c.tcp, ORPHAN_MIN_SKBS);
		return 0;
	}
	stats_wilson(t->tcp_orphans, t->c.tcp, &lo, &hi);
	val_measured(r, "orphan-fraction", t->orphan_frac);
	val_measured(r, "orphan-lo-fraction", lo);
	val_measured(r, "orphan-hi-fraction", hi);
	val_measured(r, "tcp-skbs", (double)t->c.tcp);
	val_bound(r, "max-orphan-lo-fraction", ORPHAN_MAJORITY);
	if (lo > ORPHAN_MAJORITY) {
		val_set(r, c->vo->allow_orphan ? VR_PASS : VR_FAIL,
			"%.0f%% [%.0f, %.0f] of %llu TCP skbs were not owned by their socket when "
			"freed (Wilson 95%%): TSQ and BQL cannot see the queue",
			100 * t->orphan_frac, 100 * lo, 100 * hi, (unsigned long long)t->c.tcp);
		r->warn = c->vo->allow_orphan;
	} else {
		val_set(r, VR_PASS,
			"%.0f%% [%.0f, %.0f] of %llu TCP skbs orphaned before the free (Wilson "
			"95%%)",
			100 * t->orphan_frac, 100 * lo, 100 * hi, (unsigned long long)t->c.tcp);
	}
	return 0;
}

const struct val_entry val_check_ownership = {
	.name = "ownership",
	.needs = VAL_NEEDS_PEER | VAL_NEEDS_LOAD | VAL_NEEDS_TXLAT,
	.software = "its skbs are freed by the receiver, never owned until a driver's completion",
	.run = check_ownership,
};
