/* ethtune diagnose: findings on a device's TX completion, judged by their cost to one flow. */
#define _GNU_SOURCE
#include <errno.h>
#include <stdarg.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <sys/utsname.h>
#include <linux/if_link.h>
#include <linux/ethtool_netlink.h>

#include "analysis/diagnose.h"
#include "nl/devobj.h"
#include "state/sysctl.h"
#include "knowledge/drvdb.h"
#include "util/ethtune.h"
#include "out/json_print.h"
#include "analysis/model.h"
#include "analysis/sweep.h"
#include "out/html.h"
#include "out/prom.h"
#include "trace/txlat.h"

static void ev(struct diag *d, enum finding_kind k, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));
static void ev(struct diag *d, enum finding_kind k, const char *fmt, ...)
{
	struct finding *f = &d->f[k];
	va_list ap;

	if (f->nev >= MAX_EV)
		return;
	va_start(ap, fmt);
	vsnprintf(f->ev[f->nev++], sizeof(f->ev[0]), fmt, ap);
	va_end(ap);
}

static void finding(struct diag *d, enum finding_kind k, double loss, double lo, double hi)
{
	d->f[k].on = true;
	d->f[k].loss = loss;
	d->f[k].loss_lo = lo;
	d->f[k].loss_hi = hi;
}

static void act(struct diag *d, const char *effect, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));
static void act(struct diag *d, const char *effect, const char *fmt, ...)
{
	va_list ap;

	if (d->nact >= MAX_ACT)
		return;
	va_start(ap, fmt);
	vsnprintf(d->act[d->nact].cmd, sizeof(d->act[0].cmd), fmt, ap);
	va_end(ap);
	snprintf(d->act[d->nact++].effect, sizeof(d->act[0].effect), "%s", effect);
}

static void inconclusive(struct diag *d, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));
static void inconclusive(struct diag *d, const char *fmt, ...)
{
	va_list ap;

	d->headline = H_INCONCLUSIVE;
	va_start(ap, fmt);
	vsnprintf(d->why, sizeof(d->why), fmt, ap);
	va_end(ap);
}

/* Devices whose "completion" is not a driver's: the driver knowledge decides. */
static bool software_dev(const struct diag *d)
{
	return drvdb_software(d->driver, d->kind) != DRV_SW_NONE;
}

bool diag_paced(const char *root_qdisc)
{
	char cc[32];

	if (root_qdisc && !strcmp(root_qdisc, "fq"))
		return true;
	return !sysctl_get("net.ipv4.tcp_congestion_control", cc, sizeof(cc)) && !strcmp(cc, "bbr");
}

static int read_state(const char *dev, struct diag *d)
{
	struct nl_sock eth;
	struct et_link l;
	struct et_drvinfo di;
	char buf[32];
	int ret;

	ret = link_get_dev(dev, &l);
	if (ret)
		return ret;
	snprintf(d->kind, sizeof(d->kind), "%s", !strcmp(dev, "lo") ? "loopback" : l.kind);
	d->mtu = (uint32_t)l.v.v[IFLA_MTU];
	d->max_mtu = (uint32_t)l.v.v[IFLA_MAX_MTU];
	d->gso = (uint32_t)l.v.v[IFLA_GSO_MAX_SIZE];
	d->paced = diag_paced(l.qdisc);
	ret = nl_open_genl(&eth, "ethtool");
	if (ret)
		return ret;
	drvinfo_get(&eth, dev, &di);
	snprintf(d->driver, sizeof(d->driver), "%s", di.ok ? di.driver : "");
	d->speed = di.ok ? di.speed : -1;
	d->have_coal = !obj_get(&eth, &et_coalesce, dev, &d->coal);
	nl_close(&eth);
	d->di = drvdb_lookup(d->driver);
	d->allowed_us = NAN;
	if (d->have_coal)
		d->knob = drvdb_tx_knob(d->driver, &d->coal, &d->knob_dp);
	if (d->knob && (!d->knob_dp || (d->knob_dp->unit && !strcmp(d->knob_dp->unit, "us")))) {
		const struct et_param *p = obj_param(&et_coalesce, d->knob);
		double v = (double)d->coal.v[p->attr];

		if (d->knob_dp && d->knob_dp->mode_below && v > 0 && v < d->knob_dp->mode_below)
			v = d->knob_dp->dynamic_max_us;
		d->allowed_us = v;
	} else if (d->knob) {
		d->allowed_us = 0; /* a frame count or mode switch: completion follows the IRQ */
	}
	d->tsq_now = TSQ_DEFAULT_BYTES;
	if (!sysctl_get("net.ipv4.tcp_limit_output_bytes", buf, sizeof(buf)))
		d->tsq_now = strtoull(buf, NULL, 10);
	return 0;
}

static bool coal_on(const struct diag *d, unsigned int attr)
{
	return d->have_coal && vals_has(&d->coal, attr) && d->coal.v[attr];
}

/* The model of this device: line rate, TSQ limit and the rules of the running kernel, the
 * MTU and skb size, the measured round trip, and how the device turns completions into an
 * interrupt (CQE mode restarts its timer; next-xmit drivers reap on the next transmit). */
static void model_setup(struct diag *d, double rate_mbps, const char *release)
{
	const struct model_dev md = {
		.rate_mbps = rate_mbps,
		.tsq = d->tsq_now,
		.release = release,
		.paced = d->paced,
		.mtu = d->mtu,
		.gso_max_size = d->gso,
		.rtt_us = d->rtt_us,
		.cqe_tx = coal_on(d, ETHTOOL_A_COALESCE_USE_CQE_MODE_TX),
		.next_xmit = d->di && d->di->completion == DRV_COMPL_NEXT_XMIT,
	};

	model_from_dev(&d->mi, &md);
}

static double goodput_mbps(const struct model_in *base, double rate_mbps)
{
	struct model_in in = *base;
	struct model_out mo;

	in.rate_bps = rate_mbps * 1e6;
	return model_derive(&in, &mo) ? rate_mbps * GOODPUT_SHARE : mo.goodput_max_bps / 1e6;
}

/* What the one-flow rounds' counters add up to (the evidence beside the throughput). */
static void flow_evidence(struct flows *fl, const struct probe_result *r)
{
	const struct probe_devstats *s = &r->dev;

	fl->have_qstats |= s->have_qstats;
	fl->tx_stop += s->tx_stop;
	fl->tx_wake += s->tx_wake;
	fl->have_stall |= s->have_stall;
	fl->stall_cnt += s->bql_stall_cnt;
	if (s->bql_stall_max_ms > fl->stall_max_ms)
		fl->stall_max_ms = s->bql_stall_max_ms;
	fl->have_tcpext |= s->have_tcpext;
	fl->spurious_rtx += s->spurious_rtx_hostq;
	fl->sndbuf_limited_us += r->sender_ti.sndbuf_limited_us;
	fl->busy_us += r->sender_ti.busy_us;
}

/* One and two flows in interleaved rounds (ABBA order, so drift hits both alike) until both
 * means are known to within width (relative half-width of the CI_LEVEL interval) or the budget
 * is spent; at least MIN_ROUNDS rounds. */
static int measure_flows(const struct sweep_opts *o, struct diag *d, double width, double budget_s,
			 char *err, size_t errlen)
{
	struct flows *fl = &d->fl;
	struct probe_result *r = calloc(1, sizeof(*r));
	double t0 = et_now_s(), w[MAX_ROUNDS];
	unsigned int i, nw = 0;
	int ret = 0;

	if (!r)
		return -ENOMEM;
	memset(fl, 0, sizeof(*fl));
	while (fl->n < MAX_ROUNDS) {
		unsigned int k;
		char what[64];

		for (k = 0; k < 2 && !ret; k++) {
			unsigned int flows = (fl->n % 2 == 0) == (k == 0) ? 1 : 2;

			snprintf(what, sizeof(what), "round %u: %u flow%s", fl->n + 1, flows,
				 flows > 1 ? "s" : "");
			sweep_progress(o, 2 + fl->n, 2 + MAX_ROUNDS, what);
			ret = sweep_probe(o, flows, PROBE_STREAM, 0, r, err, errlen);
			if (ret)
				break;
			if (flows == 2) {
				fl->two[fl->n] = r->mbps;
				continue;
			}
			fl->one[fl->n] = r->mbps;
			fl->cwnd1[fl->n] = r->sender_ti.valid ? r->sender_ti.snd_cwnd : NAN;
			fl->wait_us[fl->n] = r->sender_ti.wmem_samples && r->mbps > 0
						     ? r->sender_ti.wmem_alloc * 8 / r->mbps
						     : NAN;
			fl->proc_cpu += r->local.proc_cpu;
			fl->sys_cpu += r->local.cpu_util;
			flow_evidence(fl, r);
		}
		if (ret)
			break;
		fl->n++;
		if (fl->n < MIN_ROUNDS)
			continue;
		stats_mean_ci(fl->one, fl->n, CI_LEVEL, &fl->c1);
		stats_mean_ci(fl->two, fl->n, CI_LEVEL, &fl->c2);
		if (fl->c1.half <= width * fl->c1.mean && fl->c2.half <= width * fl->c2.mean)
			break;
		if (et_now_s() - t0 > budget_s)
			break;
	}
	sweep_progress_done(o);
	free(r);
	if (ret)
		return ret;
	stats_mean_ci(fl->one, fl->n, CI_LEVEL, &fl->c1);
	stats_mean_ci(fl->two, fl->n, CI_LEVEL, &fl->c2);
	fl->welch_p = stats_welch_p(fl->one, fl->n, fl->two, fl->n);
	fl->cwnd_rho = stats_spearman(fl->cwnd1, fl->one, fl->n, &fl->cwnd_p);
	fl->proc_cpu /= fl->n;
	fl->sys_cpu /= fl->n;
	for (i = 0; i < fl->n; i++)
		if (!isnan(fl->wait_us[i]))
			w[nw++] = fl->wait_us[i];
	fl->wait_med = NAN;
	if (nw) {
		qsort(w, nw, sizeof(w[0]), cmp_double);
		fl->wait_med = stats_quantile_sorted(w, nw, 0.5);
	}
	return 0;
}

/* D from txlat: the median xmit-to-free under request/response (one skb in flight, so no ring
 * queueing) less the skb's serialization, with the median's order-statistic interval. */
static void delay_from_txlat(struct diag *d)
{
	const struct txlat_lat *f = &d->tl.free;
	double avg = d->tl.c.xmit ? (double)d->tl.c.bytes / (double)d->tl.c.xmit : 0;

	d->D = d->D_lo = d->D_hi = NAN;
	d->ser_us = d->speed > 0 && avg > 0 ? avg * 8 / d->speed : 0;
	if (!d->tl_ok || isnan(f->p50_us))
		return;
	d->D = fmax(0, f->p50_us - d->ser_us);
	d->D_lo = isnan(f->p50_lo_us) ? d->D : fmax(0, f->p50_lo_us - d->ser_us);
	d->D_hi = isnan(f->p50_hi_us) ? d->D : fmax(0, f->p50_hi_us - d->ser_us);
	d->d_src = "txlat, median xmit-to-free under request/response";
}

static void delay_from_sweep(struct diag *d)
{
	if (!isnan(d->D) || !d->did_tsq || !d->tsq.n_res)
		return;
	d->D = d->tsq.d_res_us;
	d->D_lo = d->tsq.d_res_lo_us;
	d->D_hi = d->tsq.d_res_hi_us;
	d->d_src = "TSQ sweep, time a byte waits below TCP where TSQ throttles (quartiles)";
}

/* The measured loss of one flow against what the device can carry. */
static void measured_loss(struct diag *d)
{
	const struct flows *fl = &d->fl;

	d->ref_mbps = fl->c2.mean;
	d->ref_what = "two flows (line rate unknown)";
	if (!isnan(d->line_mbps)) {
		d->ref_mbps = fmax(d->line_mbps, fl->c2.mean);
		d->ref_what = d->ref_mbps > d->line_mbps ? "two flows (above the line rate)"
							 : "line rate";
	}
	d->loss = 1 - fl->c1.mean / d->ref_mbps;
	d->loss_lo = 1 - fl->c1.hi / d->ref_mbps;
	d->loss_hi = 1 - fl->c1.lo / d->ref_mbps;
	/* Against two flows the reference is itself uncertain: a loss needs Welch's test too. */
	if (!strncmp(d->ref_what, "two", 3) && fl->welch_p >= SIG_P)
		d->loss_lo = fmin(d->loss_lo, 0);
}

static void remedies_delayed(const char *dev, struct diag *d)
{
	char eff[200];
	double us, rest;

	if (d->mi.timer == MODEL_TIMER_RESTART) {
		struct model_in in = d->mi;

		in.timer = MODEL_TIMER_FIRST;
		snprintf(eff, sizeof(eff),
			 "the timer no longer restarts on every completion: the model predicts one "
			 "flow loses %.0f%% instead of %.0f%%",
			 100 * model_loss(&in, d->D, 0, 0), 100 * d->mloss);
		act(d, eff, "ethtune set %s coalesce cqe-mode-tx off", dev);
	}
	if (d->knob && !isnan(d->allowed_us) && d->knob_dp && d->knob_dp->unit &&
	    !strcmp(d->knob_dp->unit, "us")) {
		rest = fmax(0, d->D - d->allowed_us); /* the part of D the knob does not set */
		us = model_max_tx_usecs(&d->mi, 1 - MATERIAL / 2);
		if (us >= rest) {
			snprintf(eff, sizeof(eff),
				 "completion delay ~%.0f us: the model predicts one flow loses "
				 "%.0f%% "
				 "instead of %.0f%%",
				 floor(us), 100 * model_loss(&d->mi, floor(us), 0, 0),
				 100 * d->mloss);
			act(d, eff, "ethtune set %s coalesce %s %.0f", dev, d->knob,
			    floor(us - rest));
		}
	}
	if (d->mi.tsq < (1ULL << 40)) {
		uint64_t l = model_min_tsq(&d->mi, 1 - MATERIAL / 2);

		if (l > d->tsq_now) {
			struct model_in in = d->mi;

			in.tsq = l;
			in.tx_usecs = d->D;
			snprintf(eff, sizeof(eff),
				 "the model predicts one flow loses %.0f%% instead of %.0f%% (this "
				 "kernel applies the limit to this flow)",
				 100 * model_loss(&in, d->D, 0, l), 100 * d->mloss);
			act(d, eff, "sysctl -w net.ipv4.tcp_limit_output_bytes=%llu",
			    (unsigned long long)l);
		}
	}
}

/* A driver private flag that is on and whose knowledge entry mentions word. */
static const char *priv_flag_on(const char *dev, const struct diag *d, const char *word)
{
	static char name[48];
	struct et_bitset pf;
	struct nl_sock ns;
	unsigned int i, j;
	int ret;

	if (!d->di || nl_open_genl(&ns, "ethtool"))
		return NULL;
	ret = privflags_get(&ns, dev, &pf);
	nl_close(&ns);
	if (ret)
		return NULL;
	for (i = 0; i < d->di->n_params; i++) {
		const struct drv_param *p = &d->di->params[i];

		if (strncmp(p->key, "priv-flag:", 10) || !strcasestr(p->role, word))
			continue;
		for (j = 0; j < pf.n; j++)
			if (!strcmp(pf.bit[j].name, p->key + 10) && pf.bit[j].active) {
				snprintf(name, sizeof(name), "%s", pf.bit[j].name);
				return name;
			}
	}
	return NULL;
}

/* A 0|1 TX completion mode switch (virtio_net's tx-frames: napi_tx) set to 0. */
static bool mode_switch_off(const struct diag *d)
{
	const struct drv_param *dp = d->knob_dp;
	const struct et_param *p;

	if (!d->knob || !dp ||
	    !((dp->unit && !strcmp(dp->unit, "0|1")) || (dp->gran && !strcmp(dp->gran, "0|1"))))
		return false;
	p = obj_param(&et_coalesce, d->knob);
	return p && !d->coal.v[p->attr];
}

static void decide_orphan(const char *dev, struct diag *d)
{
	const struct txlat_result *t = &d->tl;
	uint64_t orph = t->tcp_orphans;
	double lo, hi;
	const char *flag;

	if (!d->tl_ok || t->c.tcp < ORPHAN_MIN_SKBS)
		return;
	stats_wilson(orph, t->c.tcp, &lo, &hi);
	if (lo <= ORPHAN_MAJORITY)
		return;
	finding(d, F_ORPHAN, NAN, NAN, NAN);
	ev(d, F_ORPHAN,
	   "%.0f%% [%.0f, %.0f] of %llu TCP skbs were not owned by their socket when freed "
	   "(txlat; Wilson 95%% interval)",
	   100 * t->orphan_frac, 100 * lo, 100 * hi, (unsigned long long)t->c.tcp);
	ev(d, F_ORPHAN,
	   "TSQ and BQL cannot see this device's queue: one flow is not throttled by "
	   "completions, and the queue it builds is invisible to the stack");
	flag = priv_flag_on(dev, d, "orphan");
	if (flag)
		act(d, "skbs stay owned until completion: TSQ and BQL see the queue again",
		    "ethtune set %s priv-flag %s off", dev, flag);
	if (mode_switch_off(d))
		act(d, "TX completion interrupts (napi_tx): skbs stay owned until completion",
		    "ethtune set %s coalesce %s 1 --allow-link-down", dev, d->knob);
}

/* The frag limits a driver's linearization is consistent with: the n for which the skbs with
 * more than n frags at xmit number the ones it linearized, within 10%; false when none is. */
static bool linearize_limit(const struct txlat_counts *c, int *lo, int *hi)
{
	uint64_t above = 0;
	int n;

	*lo = *hi = -1;
	for (n = TXLAT_NFRAGS - 2; n >= 0; n--) {
		uint64_t d;

		above += c->frags[n + 1];
		d = above > c->lin_driver ? above - c->lin_driver : c->lin_driver - above;
		if (d * 10 > c->lin_driver)
			continue;
		if (*hi < 0)
			*hi = n;
		*lo = n;
	}
	return *hi >= 0;
}

static void decide_linearize(struct diag *d)
{
	const struct txlat_counts *c = &d->tlb.c;
	double lo, hi;
	int lo_n, hi_n;

	if (!d->tlb_ok || !d->tlb.pull_hooked || c->xmit < ORPHAN_MIN_SKBS)
		return;
	stats_wilson(c->lin_driver, c->xmit, &lo, &hi);
	if (lo < LINEARIZE_SHARE)
		return;
	finding(d, F_LINEARIZE, NAN, NAN, NAN);
	ev(d, F_LINEARIZE,
	   "the driver (%s) linearized %llu of %llu skbs under one bulk flow, %.1f%% [%.1f, %.1f] "
	   "(txlat, fentry __pskb_pull_tail; Wilson 95%%): each is copied into one linear buffer "
	   "after xmit",
	   d->driver[0] ? d->driver : "?", (unsigned long long)c->lin_driver,
	   (unsigned long long)c->xmit, 100.0 * c->lin_driver / c->xmit, 100 * lo, 100 * hi);
	if (linearize_limit(c, &lo_n, &hi_n)) {
		char lim[32];

		if (hi_n > lo_n)
			snprintf(lim, sizeof(lim), "%d to %d", lo_n, hi_n);
		else
			snprintf(lim, sizeof(lim), "%d", lo_n);
		ev(d, F_LINEARIZE,
		   "as many as the skbs with more than %s frags at xmit: the driver's frag limit "
		   "(frags per skb %.1f on average)",
		   lim, txlat_frags_mean(c));
	}
	if (c->lin_stack)
		ev(d, F_LINEARIZE,
		   "the stack linearized %llu more before xmit (the device took no skb with "
		   "that many frags)",
		   (unsigned long long)c->lin_stack);
	if (d->hoad == 1)
		act(d,
		    "order-3 page frags: fewer, larger frags per skb, fewer to linearize "
		    "(measure it: ethtune sweep frags)",
		    "sysctl -w net.core.high_order_alloc_disable=0");
}

/* The counters that saw the late completions, where they saw any: a stopped queue, a stall
 * BQL detected, a retransmit held back behind its uncompleted original. */
static void counter_evidence(struct diag *d, int k)
{
	const struct flows *fl = &d->fl;

	if (fl->have_qstats && fl->tx_stop)
		ev(d, k,
		   "the TX queue stopped %llu times and woke %llu times in the one-flow rounds "
		   "(qstats tx-stop, tx-wake): the ring filled behind completions",
		   (unsigned long long)fl->tx_stop, (unsigned long long)fl->tx_wake);
	if (fl->have_stall && fl->stall_cnt)
		ev(d, k,
		   "BQL's stall detector counted %llu stalls, the longest %llu ms (stall_cnt, "
		   "stall_max)",
		   (unsigned long long)fl->stall_cnt, (unsigned long long)fl->stall_max_ms);
	if (fl->have_tcpext && fl->spurious_rtx)
		ev(d, k,
		   "%llu retransmits were held back because the original skb was not yet "
		   "completed (TcpExt TCPSpuriousRtxHostQueues)",
		   (unsigned long long)fl->spurious_rtx);
}

/* Decide among the findings that cost throughput; the headline explains most of the loss. */
void diag_decide(const char *dev, struct diag *d)
{
	double late_at = NAN, best = -1;
	bool late, explained, stall;
	int k;

	d->headline = H_PROMPT;
	if (software_dev(d)) {
		finding(d, F_SOFTWARE, NAN, NAN, NAN);
		ev(d, F_SOFTWARE,
		   "%s is a software device (%s): its \"completion\" is the receiver consuming the "
		   "skb, not hardware; nothing here is a driver's TX completion",
		   dev, d->kind[0] ? d->kind : d->driver);
		if (d->tl_ok && d->tl.c.tcp)
			ev(d, F_SOFTWARE,
			   "%.0f%% of TCP skbs left their socket before the free (%s)",
			   100 * d->tl.orphan_frac, d->tl.free_is ? d->tl.free_is : "receiver");
		d->headline = F_SOFTWARE;
		return;
	}
	decide_orphan(dev, d);
	decide_linearize(d);
	if (d->f[F_ORPHAN].on) {
		d->headline = F_ORPHAN;
		return;
	}
	if (isnan(d->D)) {
		inconclusive(d,
			     "no completion delay was measured (%s); run as root with BPF, or "
			     "add --tsq-sweep to measure it from the socket's queued bytes",
			     d->tl_err[0] ? d->tl_err : "txlat off");
		return;
	}
	if (!d->did_flows) {
		inconclusive(d, "throughput was not measured");
		return;
	}
	if (!isnan(d->allowed_us)) {
		late_at = LATE_FACTOR *
			  (d->allowed_us + (isnan(d->floor_us) ? 0 : d->floor_us) + d->ser_us);
	}
	late = !isnan(late_at) && d->D_lo > late_at;
	/* the model says this delay costs one flow here: it is (part of) the measured loss */
	explained = d->mloss_hi >= MATERIAL;
	/* Late alone is no finding: a delay counts only by what it costs at this device's rate
	 * under this kernel's TSQ rules (a guest's 176 us on a knob that allows 0 costs nothing
	 * at 1 Gbit/s with a 4 MiB limit). */
	stall = late && explained;

	if (d->did_mtu && d->mtus.collapse) {
		const struct mtu_point *p0 = &d->mtus.p[0], *pc = &d->mtus.p[d->mtus.collapse_i];
		double l = 1 - pc->c1.mean / p0->c1.mean;

		finding(d, F_LARGE_MTU, l, 1 - pc->c1.hi / p0->c1.lo, 1 - pc->c1.lo / p0->c1.hi);
		ev(d, F_LARGE_MTU,
		   "one flow at mtu %u: %.0f Mbit/s [%.0f, %.0f], at mtu %u %.0f [%.0f, %.0f], two "
		   "flows at mtu %u %.0f [%.0f, %.0f] (95%% intervals apart)",
		   pc->mtu, pc->c1.mean, pc->c1.lo, pc->c1.hi, p0->mtu, p0->c1.mean, p0->c1.lo,
		   p0->c1.hi, pc->mtu, pc->c2.mean, pc->c2.lo, pc->c2.hi);
		act(d, "one flow as at the small MTU (measured)", "ethtune set %s mtu %u", dev,
		    d->mtus.p[d->mtus.collapse_i - 1].mtu);
	}
	if (d->loss_lo >= MATERIAL) {
		if (stall) {
			finding(d, F_STALL, d->loss, d->loss_lo, d->loss_hi);
			ev(d, F_STALL,
			   "completions come %.0f us [%.0f, %.0f] after xmit, more than %.0fx what "
			   "%s %.0f allows (with the host's %.0f us timer floor)",
			   d->D, d->D_lo, d->D_hi, LATE_FACTOR, d->knob ? d->knob : "the setting",
			   d->allowed_us, isnan(d->floor_us) ? 0 : d->floor_us);
			ev(d, F_STALL,
			   "at %.0f Mbit/s and tcp_limit_output_bytes %llu the model predicts one "
			   "flow loses %.0f%% [%.0f, %.0f] to that delay",
			   d->mi.rate_bps / 1e6, (unsigned long long)d->tsq_now, 100 * d->mloss,
			   100 * d->mloss_lo, 100 * d->mloss_hi);
			ev(d, F_STALL,
			   "one flow %.0f Mbit/s [%.0f, %.0f], two flows %.0f [%.0f, %.0f] (Welch "
			   "p %.3f): completions wait for something else (the next transmit, a "
			   "rescan timer)",
			   d->fl.c1.mean, d->fl.c1.lo, d->fl.c1.hi, d->fl.c2.mean, d->fl.c2.lo,
			   d->fl.c2.hi, d->fl.welch_p);
		} else if (explained) {
			/* what the delay explains: all of the loss, or the model's share of it */
			double e = d->mloss_hi >= EXPLAINS_SHARE * d->loss ? d->loss : d->mloss_hi;

			finding(d, F_DELAYED, e, e == d->loss ? d->loss_lo : d->mloss_lo,
				e == d->loss ? d->loss_hi : d->mloss_hi);
			ev(d, F_DELAYED,
			   "completion delay D %.0f us [%.0f, %.0f]: the model predicts one flow "
			   "loses %.0f%% [%.0f, %.0f] at %.0f Mbit/s and tcp_limit_output_bytes "
			   "%llu",
			   d->D, d->D_lo, d->D_hi, 100 * d->mloss, 100 * d->mloss_lo,
			   100 * d->mloss_hi, d->mi.rate_bps / 1e6, (unsigned long long)d->tsq_now);
			ev(d, F_DELAYED,
			   "measured: one flow %.0f Mbit/s [%.0f, %.0f] against %s %.0f",
			   d->fl.c1.mean, d->fl.c1.lo, d->fl.c1.hi, d->ref_what, d->ref_mbps);
			if (d->mi.timer == MODEL_TIMER_RESTART)
				ev(d, F_DELAYED,
				   "cqe-mode-tx is on: the completion timer restarts with every "
				   "completion, so a busy ring waits for its quiet end");
		}
		if (!stall && (d->fl.proc_cpu >= CPU_BUSY_PCT || d->fl.sys_cpu >= CPU_BUSY_PCT) &&
		    (!explained || d->mloss_hi < EXPLAINS_SHARE * d->loss)) {
			double e = d->loss - (explained ? d->mloss_hi : 0);

			finding(d, F_CPU, e, e - (d->loss - d->loss_lo),
				e + (d->loss_hi - d->loss));
			ev(d, F_CPU,
			   "one flow %.0f Mbit/s [%.0f, %.0f] against %s %.0f with the sender's "
			   "CPU "
			   "busy (process %.0f%% of a CPU, host %.0f%%); completion delay %.0f us "
			   "explains at most %.0f%% of it (model)",
			   d->fl.c1.mean, d->fl.c1.lo, d->fl.c1.hi, d->ref_what, d->ref_mbps,
			   d->fl.proc_cpu, d->fl.sys_cpu, d->D, 100 * d->mloss_hi);
		}
	}
	for (k = 0; k < F__N; k++)
		if (d->f[k].on && !isnan(d->f[k].loss) && d->f[k].loss > best) {
			best = d->f[k].loss;
			d->headline = k;
		}
	if (d->headline == F_STALL || d->headline == F_DELAYED)
		counter_evidence(d, d->headline);
	if (d->headline == F_DELAYED)
		remedies_delayed(dev, d);
	if (d->headline == F_STALL) {
		const char *flag = priv_flag_on(dev, d, "next xmit");

		if (flag)
			act(d, "completions from the interrupt again",
			    "ethtune set %s priv-flag %s off", dev, flag);
		remedies_delayed(dev, d);
	}
	if (d->headline != H_PROMPT)
		return;
	/* Nothing material found: say prompt only where the data show it. */
	if (d->loss_lo >= MATERIAL) {
		inconclusive(
			d,
			"one flow loses %.0f%% [%.0f, %.0f] against %s, but the completion "
			"delay %.0f us explains at most %.0f%% (model) and the sender's CPU is "
			"not saturated (%.0f%%): look at the receiver, the qdisc or the path",
			100 * d->loss, 100 * d->loss_lo, 100 * d->loss_hi, d->ref_what, d->D,
			100 * d->mloss_hi, d->fl.proc_cpu);
		return;
	}
	if (d->loss_hi >= MATERIAL && d->mloss_hi >= MATERIAL) {
		/* what would decide: where the rounds rise with cwnd, more rounds and not longer */
		char decide[448] = "; a longer --budget or --duration would decide";

		if (d->fl.cwnd_rho > 0 && d->fl.cwnd_p < SIG_P)
			snprintf(decide, sizeof(decide),
				 ". Its rounds rise with the flow's cwnd (Spearman rho %.2f, "
				 "one-sided p %.3f): a flow that TSQ holds back is not "
				 "cwnd-limited, so its cwnd stays where slow start left it and "
				 "each round keeps the rate that cwnd allows; more rounds would "
				 "decide (a longer --budget, or a shorter --duration within it), "
				 "a longer --duration would not",
				 d->fl.cwnd_rho, d->fl.cwnd_p);
		inconclusive(d,
			     "one flow %.0f Mbit/s [%.0f, %.0f] against %s %.0f: the interval is "
			     "too wide after %u rounds to tell whether the %.0f us completion "
			     "delay costs the %.0f%% the model predicts%s",
			     d->fl.c1.mean, d->fl.c1.lo, d->fl.c1.hi, d->ref_what, d->ref_mbps,
			     d->fl.n, d->D, 100 * d->mloss, decide);
		return;
	}
	if (d->mloss_lo >= MATERIAL) {
		/* The model says the delay costs, the measurement says it does not: the delay
		 * under bulk load must be shorter than one skb alone sees. */
		double wb = d->fl.wait_med;
		double lb = model_loss(&d->mi, wb, 0, 0);

		if (!isnan(lb) && lb < MATERIAL)
			return; /* prompt; the evidence says why */
		inconclusive(
			d,
			"the model predicts the %.0f us completion delay costs one flow %.0f%%, "
			"but one flow measured %.0f Mbit/s [%.0f, %.0f] against %s %.0f; a "
			"TSQ sweep (--tsq-sweep) would measure the delay under bulk load",
			d->D, 100 * d->mloss_lo, d->fl.c1.mean, d->fl.c1.lo, d->fl.c1.hi,
			d->ref_what, d->ref_mbps);
	}
}

void diag_judge(struct diag *d, double rate_mbps, const char *release)
{
	model_setup(d, rate_mbps, release);
	if (!d->did_flows)
		return;
	d->line_mbps = d->speed > 0 ? goodput_mbps(&d->mi, d->speed) : NAN;
	measured_loss(d);
	d->mloss = model_loss(&d->mi, d->D, 0, 0);
	d->mloss_lo = model_loss(&d->mi, d->D_lo, 0, 0);
	d->mloss_hi = model_loss(&d->mi, d->D_hi, 0, 0);
}

int diagnose_dev(const struct sweep_opts *op, const struct diag_opts *opt)
{
	struct sweep_opts o = *op;
	struct utsname u;
	struct diag *d;
	struct probe_result *r;
	struct txlat *tl = NULL;
	bool mtu_sweep = opt->mtu_sweep, no_txlat = opt->no_txlat, tsq_sweep = opt->tsq_sweep;
	double budget = opt->budget_s;
	char err[512];
	double t0 = opt->t0, tp;
	int ret, k;

	d = calloc(1, sizeof(*d));
	r = calloc(1, sizeof(*r));
	if (!d || !r) {
		free(d);
		free(r);
		return -ENOMEM;
	}
	ret = read_state(o.dev, d);
	if (ret) {
		et_err("diagnose %s: cannot read the device: %s", o.dev, strerror(-ret));
		goto out;
	}
	sweep_html_begin(&o);
	new_json_obj(et_opts.json);
	print_string(PRINT_ANY, "device", "ethtune diagnose %s", o.dev);
	print_string(PRINT_ANY, "driver", " (driver %s", d->driver[0] ? d->driver : "?");
	if (d->kind[0])
		print_string(PRINT_ANY, "kind", ", %s", d->kind);
	print_string(PRINT_ANY, "peer", ") via %s\n", o.peer);

	d->floor_us = NAN; /* stays unknown if the measurement fails */
	d->hoad = -1;
	timer_floor_us(200, &d->floor_us);
	for (k = 0; k < DP__N; k++)
		d->phase_s[k] = NAN;
	d->phase_s[DP_SETUP] = et_now_s() - t0;
	tp = et_now_s();

	/* 1. Tracing under request/response load: one small skb in flight at a time, so the ring
	 * never queues and xmit-to-free is the completion delay itself; also shows orphaning. */
	sweep_progress(&o, 1, 2 + MAX_ROUNDS, "request/response under txlat");
	if (!no_txlat)
		txlat_open(o.dev, NULL, &tl, d->tl_err, sizeof(d->tl_err));
	ret = sweep_probe(&o, 1, PROBE_RR, 1, r, err, sizeof(err));
	d->tl_ok = tl && !txlat_collect(tl, &d->tl, d->tl_err, sizeof(d->tl_err));
	/* the tracer stays loaded, detached, for the bulk flow below: a second load and verify
	 * costs seconds on a slow guest */
	if (ret)
		goto fail;
	d->phase_s[DP_TXLAT] = et_now_s() - tp;
	d->rtt_us = r->have_lat ? r->lat.p50 : -1;
	delay_from_txlat(d);

	/* 2. One and two flows, interleaved, until their intervals are narrow. A software
	 * device has no completion to judge: its finding needs no throughput. */
	if (!software_dev(d)) {
		tp = et_now_s();
		ret = measure_flows(&o, d, NARROW_CI, budget, err, sizeof(err));
		if (ret)
			goto fail;
		d->did_flows = true;
		d->phase_s[DP_FLOWS] = et_now_s() - tp;
	}

	/* 2b. One bulk flow under txlat: the frags the driver gets under load, and whether it
	 * linearizes them (the request/response skbs above are too small to show either). */
	if (d->did_flows && d->tl_ok) {
		char v[32], why[256];

		tp = et_now_s();
		if (!sysctl_get_kernel("net.core.high_order_alloc_disable", v, sizeof(v)))
			d->hoad = atoi(v);
		sweep_progress(&o, 2 + MAX_ROUNDS, 2 + MAX_ROUNDS, "one bulk flow under txlat");
		if (!txlat_reset(tl)) {
			ret = sweep_probe(&o, 1, PROBE_STREAM, 0, r, err, sizeof(err));
			d->tlb_ok = !txlat_collect(tl, &d->tlb, why, sizeof(why));
			if (ret)
				goto fail;
		}
		d->phase_s[DP_BULK] = et_now_s() - tp;
	}

	/* 3. Optional sweeps; the TSQ sweep also measures D where txlat cannot. */
	if (tsq_sweep || o.svg || (isnan(d->D) && !software_dev(d))) {
		tp = et_now_s();
		ret = sweep_tsq(&o, &d->tsq, err, sizeof(err));
		if (ret)
			goto fail;
		d->did_tsq = true;
		d->phase_s[DP_TSQ] = et_now_s() - tp;
		delay_from_sweep(d);
	}
	if (mtu_sweep) {
		if (!o.peer_dev)
			et_warn("diagnose: --mtu-sweep without --peer-dev: the peer keeps its MTU");
		tp = et_now_s();
		ret = sweep_mtu(&o, &d->mtus, err, sizeof(err));
		if (ret)
			goto fail;
		d->did_mtu = true;
		d->phase_s[DP_MTU] = et_now_s() - tp;
	}

	/* 4. Judge: the model at this device's rate (or, unknown, what two flows carry). */
	if (uname(&u))
		snprintf(u.release, sizeof(u.release), "6.16");
	if (d->did_flows)
		diag_judge(d,
			   d->speed > 0 ? d->speed
					: fmax(d->fl.c2.mean, d->fl.c1.mean) / GOODPUT_SHARE,
			   u.release);
	else
		diag_judge(d, d->speed > 0 ? d->speed : 10000, u.release);
	d->elapsed_s = et_now_s() - t0;
	diag_decide(o.dev, d);
	diag_print(d);
	if (o.svg) {
		struct svg_hist h = { "xmit-to-free latency (txlat)", "us" };
		struct svg_series *p = malloc(sizeof(*p));
		int b;

		/* the log2 bins in use, as txlat prints them */
		for (b = d->tl.free.lo; d->tl_ok && b <= d->tl.free.hi && h.n < SVG_MAX_BINS; b++) {
			uint64_t lo, hi;

			txlat_log2_bin_us(b, &lo, &hi);
			h.lo[h.n] = lo;
			h.hi[h.n] = hi;
			h.count[h.n++] = d->tl.free.bin[b];
		}
		if (p)
			sweep_tsq_plot(&d->tsq, p);
		if (!p || svg_write(o.svg, "ethtune diagnose", p, &h))
			et_warn("cannot write %s", o.svg);
		free(p);
	}
	delete_json_obj();
	ret = sweep_html_end(&o, HTML_DIAGNOSE);
	if (opt->prom) {
		struct prom *p = prom_new();

		if (p) {
			prom_labels(p, "device", o.dev, "driver", d->driver[0] ? d->driver : "?",
				    NULL);
			diag_prom(d, p);
		}
		ret = prom_finish(p, opt->prom, "diagnose") ?: ret;
	}
	goto out;
fail:
	delete_json_obj();
	et_err("diagnose %s: %s", o.dev, err);
out:
	txlat_close(tl);
	free(d);
	free(r);
	return ret < 0 ? ret : ret ? -EIO : 0;
}
