/* validate reconfig: changes made under one flow, and the traffic back within TCP's bound. */
#include <errno.h>
#include <math.h>
#include <pthread.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <net/if.h>

#include "analysis/validate.h"
#include "analysis/validate_check.h"
#include "knowledge/drvdb.h"
#include "nl/devobj.h"
#include "nl/netdev.h"
#include "probe/probe.h"
#include "state/devset.h"
#include "state/journal.h"
#include "state/undo.h"
#include "util/ethtune.h"

/* reconfig: traffic has resumed after a change once the device transmitted, within one window
 * this long, at least this share of its rate before the change. A window of 200 ms at a quarter
 * of the rate is more than a congestion window's burst at any rate (a 5 ms round trip's window
 * is 2.5% of it), so a device that counts bytes it never sends cannot fake a resume for long. */
#define VAL_RC_WIN_S	    0.2
#define VAL_RC_RESUME_SHARE 0.25
/* reconfig: the flow moves once the device sent this many full frames: before the first change
 * since the flow started, after a step that took the carrier down within one VAL_RC_WIN_S window
 * (weaker than a quarter of the rate against a device that counts bytes it drops, but after an
 * RTO the rate is TCP's recovery, not the device's) */
#define VAL_RC_MOVING_BYTES (64 * 1514)
/* reconfig: the resume bound is the outage (the change's call and the carrier's return) again,
 * which TCP's exponential backoff may wait on top (its next retransmission after an outage of d
 * comes at most d + RTO later), two RTOs, and this for scheduling in an emulated guest. */
#define VAL_RC_SLACK_S 0.5
/* reconfig: the flow's steady time before each change and after it settled, seconds; the rate
 * before is measured over the first, carrier changes over the second. */
#define VAL_RC_HOLD_S 1.0
/* reconfig: a resume not seen this long after the change is reported as none (the probe itself
 * gives up after 10 s without progress). */
#define VAL_RC_RESUME_MAX_S 12.0

#define RC_STEPS 10

/* One change made while the flow runs, or the put-back of the one before it. */
struct rc_step {
	char what[80];
	const char *obj; /* devset object; NULL: put back the change of the step before */
	char key[24], val[32];
	bool down; /* the change takes the link down: no traffic until the next step */
	bool lost; /* the carrier went down: the flow lost what was in flight */
	int mark;  /* the journal before the change, for its put-back */
	/* measured; times in seconds since the thread started */
	bool ran;
	int ret;
	char err[240];
	double t0, t1, tres; /* asked, done (carrier back), traffic resumed (NAN: not seen) */
	double rate;	     /* device TX bytes/s before the change */
	uint64_t carrier_in, carrier_after; /* carrier changes during it; after, until the next */
};

struct rc_run {
	const char *dev;
	struct rc_step st[RC_STEPS];
	unsigned int n;
	int end;       /* set by the thread when done: ends the probe's window */
	int flow_over; /* set by the main thread when the probe returned */
	double t_start;
	bool moving; /* the flow moved before the first change */
	char fatal[512];
};

static double rc_now(const struct rc_run *x)
{
	return et_now_s() - x->t_start;
}

static bool rc_stop(const struct rc_run *x)
{
	return et_stop_signal() || __atomic_load_n(&x->flow_over, __ATOMIC_RELAXED);
}

/* From t1 on, the start of the first VAL_RC_WIN_S window in which the device transmitted
 * VAL_RC_RESUME_SHARE of rate, with its carrier on; NAN when none came within
 * VAL_RC_RESUME_MAX_S. Where the carrier went down (*lost, set here when it is seen down), the
 * flow lost what was in flight and took an RTO: its rate after that is its congestion control's
 * recovery (slower still where the device completes late, as TSQ waits on every completion), so
 * the window needs only VAL_RC_MOVING_BYTES, the device carrying the flow again. *t_up: when the
 * carrier last came back (t1 if it stayed on): a driver may drop it after the call returned (a
 * reset from a work item), and linkwatch tells operstate up to a second late, so the carrier itself
 * (sysfs) is read. */
static double rc_resume(const struct rc_run *x, double t1, double rate, bool *lost, double *t_up)
{
	enum { N = 128 };
	double ts[N], need;
	uint64_t by[N], car;
	unsigned int n = 0, k;
	bool down = false;

	*t_up = t1;
	while (!rc_stop(x)) {
		double t = rc_now(x);
		uint64_t b = val_dev_u64(x->dev, "statistics/tx_bytes");

		if (dev_sysfs_u64(x->dev, "carrier", &car) || !car) {
			down = *lost = true;
			n = 0;
		} else {
			if (down)
				*t_up = t;
			down = false;
			ts[n % N] = t;
			by[n % N] = b;
			n++;
		}
		need = *lost ? VAL_RC_MOVING_BYTES : VAL_RC_RESUME_SHARE * rate * VAL_RC_WIN_S;
		if (need < 1514)
			need = 1514;
		/* the newest sample at least one window old: what came since */
		for (k = 2; k <= n && k <= N; k++) {
			unsigned int j = (n - k) % N;

			if (t - ts[j] >= VAL_RC_WIN_S) {
				if ((double)(b - by[j]) >= need)
					return ts[j];
				break;
			}
		}
		if (t - *t_up > VAL_RC_RESUME_MAX_S)
			break;
		et_sleep_s(0.01);
	}
	return NAN;
}

static void *rc_thread(void *arg)
{
	struct rc_run *x = arg;
	struct rc_step *prev = NULL;
	uint64_t b0, b1, c0, cmid = 0;
	unsigned int i;
	double t;

	/* the flow first: moving before anything changes */
	b0 = val_dev_u64(x->dev, "statistics/tx_bytes");
	while (!rc_stop(x) && rc_now(x) < VAL_RC_RESUME_MAX_S && !x->moving) {
		et_sleep_s(0.05);
		x->moving = val_dev_u64(x->dev, "statistics/tx_bytes") - b0 > VAL_RC_MOVING_BYTES;
	}
	for (i = 0; i < x->n && x->moving && !rc_stop(x); i++) {
		struct rc_step *s = &x->st[i];

		t = rc_now(x);
		b0 = val_dev_u64(x->dev, "statistics/tx_bytes");
		et_sleep_s(VAL_RC_HOLD_S);
		b1 = val_dev_u64(x->dev, "statistics/tx_bytes");
		c0 = val_dev_u64(x->dev, "carrier_changes");
		if (prev)
			prev->carrier_after = c0 - cmid;
		s->rate = prev && prev->down ? prev->rate : (double)(b1 - b0) / (rc_now(x) - t);
		s->t0 = rc_now(x);
		s->ran = true;
		if (s->obj) {
			struct devset_kv kv = { s->key, s->val };

			s->ret = journal_txn_begin(&s->mark);
			if (!s->ret)
				s->ret = devset_set(x->dev, s->obj, &kv, 1, DEVSET_JOURNAL, s->err,
						    sizeof(s->err), NULL);
		} else {
			s->ret = undo_txn_rollback(prev->mark);
			if (s->ret)
				snprintf(s->err, sizeof(s->err), "%s", strerror(-s->ret));
		}
		if (s->ret && !strncmp(s->err, "cannot write the journal", 24)) {
			snprintf(x->fatal, sizeof(x->fatal), "%s", s->err);
			break;
		}
		s->t1 = rc_now(x);
		if (!s->down) {
			double up;

			s->lost = (prev && prev->down) ||
				  val_dev_u64(x->dev, "carrier_changes") != c0;
			s->tres = rc_resume(x, s->t1, s->rate, &s->lost, &up);
			s->t1 = up > s->t1 ? up : s->t1;
		} else {
			s->tres = NAN;
		}
		cmid = val_dev_u64(x->dev, "carrier_changes");
		s->carrier_in = cmid - c0;
		prev = s;
		if (s->ret && !s->obj)
			break; /* not put back: validate's end puts it back */
	}
	if (prev) {
		for (t = rc_now(x); !rc_stop(x) && rc_now(x) - t < VAL_RC_HOLD_S;)
			et_sleep_s(0.05);
		prev->carrier_after = val_dev_u64(x->dev, "carrier_changes") - cmid;
	}
	__atomic_store_n(&x->end, 1, __ATOMIC_RELAXED);
	return NULL;
}

/* A change and its put-back, as two steps. */
static void rc_add(struct rc_run *x, const char *obj, const char *key, const char *from,
		   const char *to, bool down)
{
	struct rc_step *s = &x->st[x->n], *b = &x->st[x->n + 1];

	if (x->n + 2 > RC_STEPS)
		return;
	s->obj = obj;
	snprintf(s->key, sizeof(s->key), "%s", key);
	snprintf(s->val, sizeof(s->val), "%s", to);
	s->down = down;
	if (down) {
		snprintf(s->what, sizeof(s->what), "link down");
		snprintf(b->what, sizeof(b->what), "link up");
	} else {
		snprintf(s->what, sizeof(s->what), "%s %s %s -> %s", obj, key, from, to);
		snprintf(b->what, sizeof(b->what), "%s %s back to %s", obj, key, from);
	}
	x->n += 2;
}

/* A parameter of snapshot object oi to its first other round-trip value, where it has one. */
static bool rc_param(struct val_ctx *c, struct rc_run *x, unsigned int oi, const char *key)
{
	const struct et_param *p = obj_param(val_objs[oi], key);
	const struct et_vals *cur = &c->start.v[oi];
	char from[32], to[32];
	uint64_t v[2], max;

	if (c->start.ret[oi] || !p || p->ro || !vals_has(cur, p->attr))
		return false;
	max = p->max_attr ? cur->v[p->max_attr] : 0;
	if (!val_rt_values(p, cur->v[p->attr], p->max_attr && vals_has(cur, p->max_attr), max, v))
		return false;
	obj_format_val(p, cur->v[p->attr], from, sizeof(from));
	obj_format_val(p, v[0], to, sizeof(to));
	rc_add(x, val_obj_words[oi], key, from, to, false);
	return true;
}

/* The changes this device offers: its TX completion knob, its TX ring, its channels, its MTU,
 * and the link down and up where that loses nothing a user configured. */
static void rc_plan(struct val_ctx *c, struct rc_run *x, struct val_res *r)
{
	const struct drv_param *dp;
	const char *knob =
		c->have_coal && !c->software ? drvdb_tx_knob(c->driver, &c->coal, &dp) : NULL;
	struct link_lost lost;
	char from[16], to[16];
	int ret;

	if (knob)
		rc_param(c, x, 0, knob);
	rc_param(c, x, 1, "tx");
	if (!rc_param(c, x, 2, "combined"))
		rc_param(c, x, 2, "tx");
	if (c->mtu >= 1280 + 100) {
		snprintf(from, sizeof(from), "%u", c->mtu);
		snprintf(to, sizeof(to), "%u", c->mtu - 100);
		rc_add(x, "link", "mtu", from, to, false);
	} else {
		val_diag(r, "mtu %u: no change below it keeps 1280 (IPv6's minimum)", c->mtu);
	}
	ret = link_down_losses((int)if_nametoindex(c->o.dev), &lost);
	if (ret)
		val_diag(r, "link down/up skipped: cannot read %s's routes and addresses: %s",
			 c->o.dev, strerror(-ret));
	else if (lost.routes || lost.addrs6)
		val_diag(r,
			 "link down/up skipped: it would delete %u routes and %u IPv6 addresses "
			 "configured on %s",
			 lost.routes, lost.addrs6, c->o.dev);
	else
		rc_add(x, "link", "admin-state", "up", "down", true);
}

/* After the flow: no bytes left in flight on any TX queue (BQL) within 2.5 s, and (qstats) as
 * many wakes as stops since before it. 0, or a line in why. */
static int rc_queues_left(struct val_ctx *c, const struct nd_tx_sum *q0, struct val_res *r,
			  char *why, size_t len)
{
	struct nd_tx_sum q1;
	struct bql_sum b;
	double t;

	for (t = 0; t < 2.5; t += 0.1) {
		et_sleep_s(0.1);
		bql_sum_read(c->o.dev, &b);
		if (!b.have_inflight || !b.inflight)
			break;
	}
	if (b.have_inflight) {
		val_measured(r, "inflight-bytes-after", (double)b.inflight);
		val_bound(r, "inflight-bytes-after", 0);
		if (b.inflight) {
			snprintf(why, len,
				 "%llu bytes still in flight on the TX queues %.1f s after the "
				 "flow: a queue left stopped or its completions lost",
				 (unsigned long long)b.inflight, t);
			return 1;
		}
	}
	qstats_tx_sum(c->o.dev, &q1);
	if (q0->stop == UINT64_MAX || q1.stop == UINT64_MAX || q1.wake == UINT64_MAX) {
		val_diag(r, "no per-queue tx-stop/tx-wake (qstats): their balance not checked");
		return 0;
	}
	val_measured(r, "tx-stop", (double)(q1.stop - q0->stop));
	val_measured(r, "tx-wake", (double)(q1.wake - q0->wake));
	if (q1.stop - q0->stop != q1.wake - q0->wake) {
		/* with nothing left in flight every queue ran on: the counts, not the queues, are
		 * off (virtio_net on 7.2 counts a stop in virtnet_tx_pause even where xmit had
		 * stopped the queue already, and one wake at the resume: drvdb) */
		snprintf(why, len, "the TX queues were stopped %llu times and woken %llu times%s",
			 (unsigned long long)(q1.stop - q0->stop),
			 (unsigned long long)(q1.wake - q0->wake),
			 b.have_inflight
				 ? ", with no bytes left in flight: the queues ran on, their "
				   "tx-stop/tx-wake counts disagree"
				 : "");
		return 1;
	}
	return 0;
}

static int check_reconfig(struct val_ctx *c, struct val_res *r)
{
	struct probe_result *pr;
	struct rc_run *x;
	struct nd_tx_sum q0;
	pthread_t th;
	char err[512], why[300] = "";
	unsigned int i, refused = 0, late = 0, flaps = 0, ran = 0;
	uint64_t to0, to1;
	double rto;
	int ret;

	x = calloc(1, sizeof(*x));
	pr = calloc(1, sizeof(*pr));
	if (!x || !pr) {
		free(x);
		free(pr);
		return -ENOMEM;
	}
	x->dev = c->o.dev;
	rc_plan(c, x, r);
	qstats_tx_sum(c->o.dev, &q0);
	to0 = val_tx_timeouts(c->o.dev);
	x->t_start = et_now_s();
	if (pthread_create(&th, NULL, rc_thread, x)) {
		free(x);
		free(pr);
		return -EAGAIN;
	}
	c->end_window = &x->end;
	ret = val_probe(c, 1, PROBE_STREAM, 2 * VAL_RC_RESUME_MAX_S * (x->n + 1), false, pr, err,
			sizeof(err));
	c->end_window = NULL;
	__atomic_store_n(&x->flow_over, 1, __ATOMIC_RELAXED);
	pthread_join(th, NULL);
	if (x->fatal[0]) {
		snprintf(c->fatal, sizeof(c->fatal), "%s", x->fatal);
		ret = -EIO;
		goto out;
	}
	if (ret == -EINTR)
		goto out;
	to1 = val_tx_timeouts(c->o.dev);
	rto = pr->sender_ti.rtt_us ? (pr->sender_ti.rtt_us + 4.0 * pr->sender_ti.rttvar_us) / 1e6
				   : 0;
	rto = rto < 0.2 ? 0.2 : rto; /* TCP_RTO_MIN */
	for (i = 0; i < x->n; i++) {
		const struct rc_step *s = &x->st[i];
		double out0, outage, wait, bound;

		if (!s->ran) {
			val_diag(r, "%s: not reached (the flow %s)", s->what,
				 ret	     ? "failed"
				 : x->moving ? "ended first"
					     : "never moved");
			late++;
			continue;
		}
		ran++;
		if (s->ret && s->obj) {
			val_diag(r, "%s: refused: %s", s->what, s->err);
			refused++;
		} else if (s->ret) {
			val_diag(r, "%s: not put back: %s", s->what, s->err);
			late++;
		}
		if (s->carrier_after) {
			val_diag(r, "%s: the carrier changed %llu times after it settled", s->what,
				 (unsigned long long)s->carrier_after);
			flaps++;
		}
		if (s->down) {
			val_diag(r, "%s: carrier changes %llu", s->what,
				 (unsigned long long)s->carrier_in);
			continue;
		}
		out0 = i && x->st[i - 1].down ? x->st[i - 1].t0 : s->t0;
		outage = s->t1 - out0;
		bound = outage + 2 * rto + VAL_RC_SLACK_S;
		wait = s->tres - s->t1;
		if (isnan(wait)) {
			val_diag(r, "%s: %.2f s outage; traffic did not resume within %.0f s",
				 s->what, outage, VAL_RC_RESUME_MAX_S);
			late++;
			continue;
		}
		if (wait < 0)
			wait = 0;
		val_diag(r,
			 "%s: %.2f s outage, resumed %.2f s after it (bound %.2f s); carrier "
			 "changes %llu during it%s",
			 s->what, outage, wait, bound, (unsigned long long)s->carrier_in,
			 s->lost ? " (the carrier went down, so the flow lost what was in flight: "
				   "resumed is moving again, as its rate after is TCP's recovery)"
				 : "");
		if (wait > bound)
			late++;
	}
	val_measured(r, "changes", ran);
	val_measured(r, "late-or-stuck", late);
	val_measured(r, "carrier-flaps-after", flaps);
	val_measured(r, "tx-timeouts", (double)(to1 - to0));
	val_measured(r, "rto-s", rto);
	val_bound(r, "late-or-stuck", 0);
	val_bound(r, "carrier-flaps-after", 0);
	val_bound(r, "tx-timeouts", 0);
	if (!x->n) {
		val_set(r, VR_SKIP, "%s offers no change to make under traffic", c->o.dev);
	} else if (ret) {
		val_set(r, VR_FAIL, "%s", err);
	} else if (late) {
		val_set(r, VR_FAIL, "%u of %u changes: traffic late, stuck or not put back", late,
			x->n);
	} else if (flaps) {
		val_set(r, VR_FAIL, "the carrier flapped after %u changes had settled", flaps);
	} else if (to1 != to0) {
		val_set(r, VR_FAIL, "%llu TX timeouts (queues/tx-*/tx_timeout)",
			(unsigned long long)(to1 - to0));
	} else if (rc_queues_left(c, &q0, r, why, sizeof(why))) {
		val_set(r, VR_FAIL, "%s", why);
	} else {
		val_set(r, VR_PASS,
			"%u changes under one flow (%u refused), each resumed within its bound; "
			"no carrier flap after, no TX timeout, no queue left stopped",
			ran, refused);
	}
out:
	free(x);
	free(pr);
	return ret == -EINTR || c->fatal[0] ? ret : 0;
}

const struct val_entry val_check_reconfig = {
	.name = "reconfig",
	.needs = VAL_NEEDS_PEER | VAL_NEEDS_BQL | VAL_NEEDS_NETDEV,
	.run = check_reconfig,
};
