/* validate's traffic: one probe against the peer, and the bulk flow several checks judge. */
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <net/if.h>

#include "analysis/thresholds.h"
#include "analysis/validate.h"
#include "analysis/validate_check.h"
#include "nl/devobj.h"
#include "probe/probe.h"
#include "trace/txlat.h"
#include "util/ethtune.h"

/* The bulk flow loaded the device when it carried at least this share of the line rate's
 * goodput (else of tsq's one flow): a quarter, as reconfig's resume. Below it BQL's limit is
 * not judged on it (SKIP inconclusive): a flow held back by losses elsewhere (qemu 7.2's e1000e
 * sent TSO as IP fragments, whose reassembly the peer dropped: 3-4 Mbit/s in 3 of 4 runs on a
 * 1 Gb/s line) queues nothing for BQL to size. */
#define VAL_LOAD_SHARE 0.25
/* ... and a flow that retransmitted this share of its segments is said to be held by losses */
#define VAL_LOAD_LOSSY 0.01

static void load_sample(void *arg, unsigned int iter, double el, double total, double v)
{
	struct val_ctx *c = arg;
	struct bql_sum b;

	(void)iter;
	(void)el;
	(void)total;
	(void)v;
	if (c->nsamp >= sizeof(c->s_bytes) / sizeof(c->s_bytes[0]))
		return;
	if (dev_sysfs_u64(c->o.dev, "statistics/tx_bytes", &c->s_bytes[c->nsamp]) ||
	    dev_sysfs_u64(c->o.dev, "statistics/tx_packets", &c->s_pkts[c->nsamp]))
		return;
	bql_sum_read(c->o.dev, &b);
	c->s_bql[c->nsamp++] = b.limit;
}

int val_probe(struct val_ctx *c, unsigned int flows, enum probe_test test, double dur, bool sample,
	      struct probe_result *res, char *err, size_t errlen)
{
	struct probe_cfg cfg;
	char host[256];
	uint16_t port;
	int ret;

	if (et_stop_signal()) {
		snprintf(err, errlen, "interrupted");
		return -EINTR;
	}
	probe_cfg_init(&cfg);
	ret = probe_peer_split(c->o.peer, PROBE_DEFAULT_PORT, host, sizeof(host), &port);
	if (ret) {
		snprintf(err, errlen, "bad peer '%s'", c->o.peer);
		return ret;
	}
	cfg.peer = host;
	cfg.port = port;
	cfg.test = test;
	cfg.flows = flows;
	cfg.duration_s = dur;
	cfg.warmup_s = c->o.warmup_s;
	cfg.key_file = et_opts.key_file;
	cfg.end_window = c->end_window;
	if (test == PROBE_RR) {
		cfg.msg_size = 1;
		cfg.nodelay = true;
	}
	if (sample) {
		cfg.progress = load_sample;
		cfg.progress_arg = c;
	}
	ret = probe_cfg_check(&cfg, err, errlen);
	if (ret)
		return ret;
	memset(res, 0, sizeof(*res));
	ret = probe_run(&cfg, res);
	if (ret && !if_nametoindex(c->o.dev))
		snprintf(err, errlen,
			 "%s is gone (removed, or its namespace deleted, during the run)",
			 c->o.dev);
	else if (ret)
		snprintf(err, errlen, "the peer %s stopped answering: %.200s", c->o.peer,
			 res->err[0] ? res->err : strerror(-ret));
	return ret;
}

/* The bulk flow of load_s under txlat, sampling the device's counters and BQL limits. */
static int run_load(struct val_ctx *c)
{
	struct txlat *t = NULL;
	struct bql_sum b;

	if (c->load_done)
		return c->load_ret;
	c->load_done = true;
	c->lr = calloc(1, sizeof(*c->lr));
	c->tl = calloc(1, sizeof(*c->tl));
	if (!c->lr || !c->tl)
		return c->load_ret = -ENOMEM;
	bql_sum_read(c->o.dev, &b);
	c->n_txq = b.n_txq;
	c->n_bql = b.n_bql;
	c->bql_before = b.limit;
	c->bql_min = b.limit_min;
	c->stall_before = b.stall_cnt;
	c->have_stall = b.have_stall;
	c->have_bql = c->n_bql > 0;
	if (txlat_open(c->o.dev, NULL, &t, c->tl_err, sizeof(c->tl_err)))
		t = NULL;
	load_sample(c, 0, 0, 0, 0);
	c->load_ret = val_probe(c, 1, PROBE_STREAM, c->vo->load_s, true, c->lr, c->load_err,
				sizeof(c->load_err));
	load_sample(c, 0, 0, 0, 0);
	c->tl_ok = t && !txlat_collect(t, c->tl, c->tl_err, sizeof(c->tl_err));
	txlat_close(t);
	bql_sum_read(c->o.dev, &b);
	c->n_bql = b.n_bql;
	c->stall_after = b.stall_cnt;
	c->have_stall = b.have_stall;
	return c->load_ret;
}

/* Loaded: at least VAL_LOAD_SHARE of the line rate's goodput, else of tsq's one flow; true where
 * neither is known. */
bool val_load_loaded(struct val_ctx *c, struct val_res *r, bool judged)
{
	const struct probe_tcpinfo *ti = &c->lr->sender_ti;
	double mss = c->mtu > 52 ? c->mtu - 52 : 1448, ref = NAN, rtx = 0;
	const char *what = "";
	char of[96] = "";
	bool loaded;

	if (c->speed > 0) {
		ref = c->speed * GOODPUT_SHARE;
		what = "the line rate's goodput";
	} else if (c->tsq_one_mbps > 0) {
		ref = c->tsq_one_mbps;
		what = "tsq's one flow";
	}
	if (ti->bytes_sent)
		rtx = ti->retrans * mss / (double)ti->bytes_sent;
	loaded = isnan(ref) || c->lr->mbps >= VAL_LOAD_SHARE * ref;
	if (judged) {
		val_measured(r, "load-mbps", c->lr->mbps);
		val_measured(r, "load-retransmitted-share", rtx);
	}
	if (!isnan(ref)) {
		if (judged)
			val_bound(r, "min-load-mbps", VAL_LOAD_SHARE * ref);
		snprintf(of, sizeof(of), " (%.1f%% of %s %.0f)", 100 * c->lr->mbps / ref, what,
			 ref);
	}
	val_diag(r,
		 "the bulk flow carried %.1f MB in %.0f s, %.1f Mbit/s%s; %u segments "
		 "retransmitted (%.2f%% of what it sent)",
		 (double)ti->bytes_sent / 1e6, c->vo->load_s, c->lr->mbps, of, ti->retrans,
		 100 * rtx);
	if (!loaded)
		val_diag(r, "the bulk flow stayed below %.0f%% of %s: it did not load the device%s",
			 100 * VAL_LOAD_SHARE, what,
			 rtx >= VAL_LOAD_LOSSY ? ", and losses held it back" : "");
	return loaded;
}

int val_load(struct val_ctx *c, struct val_res *r)
{
	int ret = run_load(c);

	if (ret == -EINTR)
		return ret;
	if (ret) {
		val_set(r, VR_FAIL, "%s", c->load_err);
		return 1;
	}
	return 0;
}
