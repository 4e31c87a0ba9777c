/* validate bql: every TX queue has byte queue limits, and they move under a bulk flow. */
#include <math.h>
#include <stdint.h>
#include <stdio.h>

#include "analysis/validate.h"
#include "analysis/validate_check.h"
#include "knowledge/drvdb.h"
#include "util/ethtune.h"

/* Bound: every TX queue has BQL; under a flow that loaded the device (val_load_loaded()) the
 * limit moves (differs between samples or from before, or rises above limit_min); stall_cnt
 * does not grow. BQL keeps the ring's queue short under TSQ: a limit that never moves is not
 * fed completions, and a stall in a normal flow is a completion that never came. */
static int check_bql(struct val_ctx *c, struct val_res *r)
{
	struct bql_sum b;
	unsigned int nq, nb, i;
	uint64_t lo = UINT64_MAX, hi = 0;
	bool adapted, loaded;
	int ret;

	bql_sum_read(c->o.dev, &b);
	nq = b.n_txq;
	nb = b.n_bql;
	if (!nb && c->software) {
		val_set(r, VR_SKIP,
			"%s is a software device (%s): none of its %u TX queues has "
			"byte_queue_limits",
			c->o.dev, c->driver[0] ? c->driver : c->kind, nq);
		return 0;
	}
	val_measured(r, "tx-queues", nq);
	val_measured(r, "bql-queues", nb);
	val_bound(r, "min-bql-queues", nq);
	if (nb < nq) {
		const struct drv_info *di = drvdb_lookup(c->driver);

		if (di && !di->bql)
			val_diag(r, "drvdb: %s does not call netdev_tx_completed_queue()",
				 c->driver);
		val_set(r, VR_FAIL, "%u of %u TX queues have no byte_queue_limits", nq - nb, nq);
		return 0;
	}
	ret = val_load(c, r);
	if (ret)
		return ret < 0 ? ret : 0;
	loaded = val_load_loaded(c, r, true);
	for (i = 0; i < c->nsamp; i++) {
		lo = c->s_bql[i] < lo ? c->s_bql[i] : lo;
		hi = c->s_bql[i] > hi ? c->s_bql[i] : hi;
	}
	adapted = c->nsamp && (hi != lo || hi != c->bql_before || hi > c->bql_min);
	val_measured(r, "limit-before-bytes", (double)c->bql_before);
	val_measured(r, "limit-lo-bytes", c->nsamp ? (double)lo : NAN);
	val_measured(r, "limit-hi-bytes", (double)hi);
	val_measured(r, "limit-min-bytes", (double)c->bql_min);
	val_diag(r, "limit summed over %u queues, %u samples during a %.0f s flow", nb, c->nsamp,
		 c->vo->load_s);
	if (c->have_stall) {
		val_measured(r, "stall-cnt", (double)(c->stall_after - c->stall_before));
		val_bound(r, "max-stall-cnt", 0);
	} else {
		val_diag(r, "stall detector part skipped: no stall_cnt (kernel before 6.9)");
	}
	if (c->have_stall && c->stall_after != c->stall_before)
		val_set(r, VR_FAIL, "the stall detector counted %llu stalls in a normal flow",
			(unsigned long long)(c->stall_after - c->stall_before));
	else if (!loaded)
		val_set(r, VR_SKIP,
			"inconclusive: the bulk flow carried %.1f Mbit/s, too little load to judge "
			"the limit by (it read %llu-%llu bytes)",
			c->lr->mbps, (unsigned long long)lo, (unsigned long long)hi);
	else if (!adapted)
		val_set(r, VR_FAIL, "the limit stayed at %llu bytes (limit_min %llu) under load",
			(unsigned long long)hi, (unsigned long long)c->bql_min);
	else
		val_set(r, VR_PASS,
			"BQL on all %u TX queues, the limit moved %llu-%llu bytes under "
			"load%s",
			nq, (unsigned long long)lo, (unsigned long long)hi,
			c->have_stall ? ", no stall" : "");
	return 0;
}

const struct val_entry val_check_bql = {
	.name = "bql",
	.needs = VAL_NEEDS_PEER | VAL_NEEDS_LOAD | VAL_NEEDS_BQL,
	.run = check_bql,
};
