/* Single-flow throughput under TSQ and delayed TX completion: event simulation and curve fit. */
#include <ctype.h>
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "util/ethtune.h"
#include "analysis/model.h"
#include "analysis/thresholds.h"

#define HDR_TCPIP   52	     /* IPv4 20 + TCP 20 + timestamps 12 */
#define WIRE_EXTRA  38	     /* Ethernet 14 + FCS 4 + preamble/SFD 8 + IFG 12 */
#define MAX_TCP_HDR 320	     /* headroom TCP reserves in a GSO skb (MAX_TCP_HEADER, approx.) */
#define SIM_SKBS    3000     /* skbs simulated; the first third is warm-up */
#define SIM_RTO_US  200000.0 /* TCP_RTO_MIN: what ends a stall when nothing completes */

void model_defaults(struct model_in *in)
{
	memset(in, 0, sizeof(*in));
	in->rate_bps = 10e9;
	in->tsq = TSQ_DEFAULT_BYTES;
	in->mtu = 1500;
	in->gso_size = 65536;
	in->rtt_us = -1;
	in->t_sw_us = 5;
	in->one_skb_exception = true;
	in->exception_skbs = 1;
	in->timer = MODEL_TIMER_RESTART;
	in->skb_overhead = 1024;
}

void model_from_dev(struct model_in *in, const struct model_dev *d)
{
	model_defaults(in);
	in->rate_bps = d->rate_mbps * 1e6;
	in->tsq = d->tsq;
	if (d->release)
		model_set_kernel(in, d->release, d->paced);
	if (d->mtu >= 576)
		in->mtu = d->mtu;
	if (d->gso_max_size >= in->mtu && d->gso_max_size <= 65536)
		in->gso_size = (uint32_t)d->gso_max_size;
	in->rtt_us = d->rtt_us > 0 ? d->rtt_us : -1;
	in->timer = d->cqe_tx ? MODEL_TIMER_RESTART : MODEL_TIMER_FIRST;
	if (d->next_xmit)
		in->timer = MODEL_TIMER_NEXT_XMIT;
}

static const char *const timer_names[] = {
	[MODEL_TIMER_RESTART] = "restart",
	[MODEL_TIMER_FIRST] = "first",
	[MODEL_TIMER_EQE] = "eqe",
	[MODEL_TIMER_NEXT_XMIT] = "next-xmit",
};

const char *model_timer_name(enum model_timer t)
{
	return (unsigned int)t < sizeof(timer_names) / sizeof(timer_names[0]) ? timer_names[t]
									      : "?";
}

int model_timer_parse(const char *s, enum model_timer *t)
{
	unsigned int i;

	for (i = 0; i < sizeof(timer_names) / sizeof(timer_names[0]); i++)
		if (!strcmp(s, timer_names[i])) {
			*t = i;
			return 0;
		}
	if (!strcmp(s, "cqe")) {
		*t = MODEL_TIMER_RESTART;
		return 0;
	}
	return -EINVAL;
}

int model_set_kernel(struct model_in *in, const char *release, bool paced)
{
	if (!kver_valid(release))
		return -EINVAL;
	if (!kver_at_least(release, 3, 6)) { /* no TSQ (46d3ceabd8d9, v3.6) */
		in->tsq = 1ULL << 40;
		in->pacing_bps = -1;
	} else if (!kver_at_least(release, 3, 12)) { /* v3.6 TSQ: the sysctl alone */
		in->pacing_bps = -1;
	} else if (paced && kver_at_least(release, 4, 20) && !kver_at_least(release, 6, 16)) {
		in->tsq = 1ULL << 40; /* c73e5807e4f6: paced flows ignore the sysctl */
		if (in->pacing_bps < 0)
			in->pacing_bps = 0;
	} else if (in->pacing_bps < 0) {
		in->pacing_bps = 0;
	}
	in->one_skb_exception = kver_at_least(release, 4, 10);
	in->exception_skbs = kver_at_least(release, 6, 7) ? 1 : 0;
	return 0;
}

/* tcp_small_queue_check(): max(2 * truesize, pacing >> 10) (sk_pacing_rate >> sk_pacing_shift),
 * then min with the sysctl L; without pacing (pacing_bps <= 0) the sysctl alone. */
static double tsq_limit(double L, double truesize, double pacing_bps)
{
	if (pacing_bps <= 0)
		return L;
	return fmin(fmax(2 * truesize, pacing_bps / 8 / 1024), L);
}

int model_derive(const struct model_in *in, struct model_out *o)
{
	double pacing_bytes;
	uint64_t limit, w;
	uint32_t segs_size, segs_rate;

	memset(o, 0, sizeof(*o));
	if (!(in->rate_bps > 0) || in->mtu < 576 || in->mtu > 65535 || in->gso_size < in->mtu ||
	    in->tx_usecs < 0 || in->t_sw_us < 0 || !in->tsq)
		return -EINVAL;
	o->mss = in->mtu - HDR_TCPIP;
	/* tcp_tso_autosize(): about 1 ms of pacing rate per skb, at least 2 segments, at most
	 * what fits in gso_max_size. Pacing rate is taken as the line rate. */
	pacing_bytes = (in->pacing_bps > 0 ? in->pacing_bps : in->rate_bps) / 8 / 1024;
	segs_size = (in->gso_size - 1 - MAX_TCP_HDR) / o->mss;
	segs_rate = (uint32_t)(pacing_bytes / o->mss);
	if (segs_rate < 2)
		segs_rate = 2;
	o->segs = segs_size < segs_rate ? segs_size : segs_rate;
	if (!o->segs)
		o->segs = 1;
	o->skb_payload = o->segs * o->mss;
	o->skb_truesize = o->skb_payload + in->skb_overhead;
	o->rho = (double)o->skb_payload / o->skb_truesize;
	o->skb_wire_us = (double)o->segs * (in->mtu + WIRE_EXTRA) * 8 / in->rate_bps * 1e6;
	o->goodput_max_bps = in->rate_bps * o->mss / (in->mtu + WIRE_EXTRA);
	/* pacing_bps < 0: v3.6 TSQ, the sysctl alone; 0: paced at the line rate */
	limit = (uint64_t)tsq_limit((double)in->tsq, (double)o->skb_truesize,
				    in->pacing_bps < 0	 ? 0
				    : in->pacing_bps > 0 ? in->pacing_bps
							 : in->rate_bps);
	o->limit = limit;
	/* The check is "wmem > limit" before each skb: one more skb goes out than fits. */
	w = limit / o->skb_truesize + 1;
	o->skbs_in_flight = w > UINT32_MAX ? UINT32_MAX : (uint32_t)w;
	/* Batch stop-and-wait: the whole window serializes, then waits D = delay + software. */
	o->sw_bps = (double)o->skbs_in_flight * o->skb_payload * 8 /
		    (o->skbs_in_flight * o->skb_wire_us + in->tx_usecs + in->t_sw_us) * 1e6;
	if (o->sw_bps > o->goodput_max_bps)
		o->sw_bps = o->goodput_max_bps;
	return 0;
}

/* ---- discrete-event simulation ---- */

enum { EV_CQE, EV_IRQ, EV_ACK, EV_XMIT };

struct ev {
	double t;
	uint64_t seq;
	int type;
	uint32_t gen;
};

struct sim {
	const struct model_in *in;
	const struct model_out *o;
	struct ev *h;
	size_t n, cap;
	uint64_t seq;
	double busy_until, last_irq, timer_at;
	uint64_t wmem, pending_bytes;
	uint32_t pending, gen;
	long rtx;
	unsigned int sent;
	double wire_end[SIM_SKBS];
	bool stalled;
};

static int ev_less(const struct ev *a, const struct ev *b)
{
	return a->t < b->t || (a->t == b->t && a->seq < b->seq);
}

static int push(struct sim *s, double t, int type, uint32_t gen)
{
	size_t i;

	if (s->n == s->cap) {
		size_t nc = s->cap ? s->cap * 2 : 1024;
		struct ev *nh = realloc(s->h, nc * sizeof(*nh));

		if (!nh)
			return -ENOMEM;
		s->h = nh;
		s->cap = nc;
	}
	i = s->n++;
	s->h[i] = (struct ev){ t, s->seq++, type, gen };
	while (i && ev_less(&s->h[i], &s->h[(i - 1) / 2])) {
		struct ev tmp = s->h[i];

		s->h[i] = s->h[(i - 1) / 2];
		s->h[(i - 1) / 2] = tmp;
		i = (i - 1) / 2;
	}
	return 0;
}

static struct ev pop(struct sim *s)
{
	struct ev top = s->h[0];
	size_t i = 0;

	s->h[0] = s->h[--s->n];
	for (;;) {
		size_t l = 2 * i + 1, r = l + 1, m = i;
		struct ev tmp;

		if (l < s->n && ev_less(&s->h[l], &s->h[m]))
			m = l;
		if (r < s->n && ev_less(&s->h[r], &s->h[m]))
			m = r;
		if (m == i)
			break;
		tmp = s->h[i];
		s->h[i] = s->h[m];
		s->h[m] = tmp;
		i = m;
	}
	return top;
}

static bool acks_modelled(const struct sim *s)
{
	return s->in->rtt_us >= 0 && s->in->one_skb_exception;
}

static void reap(struct sim *s, double t)
{
	s->wmem -= s->pending_bytes;
	s->pending_bytes = 0;
	s->pending = 0;
	s->last_irq = t;
	s->gen++; /* any armed timer is now stale */
}

/* tcp_write_xmit(): send while TSQ allows (or the one-skb exception applies). */
static int xmit(struct sim *s, double t)
{
	while (s->sent < SIM_SKBS) {
		double start;

		if (s->wmem > s->o->limit &&
		    !(acks_modelled(s) && s->rtx <= (long)s->in->exception_skbs))
			break;
		/* A driver that reaps its ring in ndo_start_xmit frees what has completed. */
		if (s->in->timer == MODEL_TIMER_NEXT_XMIT && s->pending)
			reap(s, t);
		start = t > s->busy_until ? t : s->busy_until;
		s->busy_until = start + s->o->skb_wire_us;
		s->wire_end[s->sent++] = s->busy_until;
		s->wmem += s->o->skb_truesize;
		s->rtx++;
		if (push(s, s->busy_until, EV_CQE, 0))
			return -ENOMEM;
		if (acks_modelled(s) && push(s, s->busy_until + s->in->rtt_us, EV_ACK, 0))
			return -ENOMEM;
	}
	return 0;
}

static int on_cqe(struct sim *s, double t)
{
	const struct model_in *in = s->in;
	bool first = !s->pending;

	s->pending++;
	s->pending_bytes += s->o->skb_truesize;
	if (in->timer == MODEL_TIMER_NEXT_XMIT) {
		if (first && in->tx_usecs > 0)
			return push(s, t + in->tx_usecs, EV_IRQ, s->gen);
		return 0;
	}
	if ((in->tx_frames && s->pending >= in->tx_frames) || in->tx_usecs <= 0)
		return push(s, t, EV_IRQ, s->gen);
	switch (in->timer) {
	case MODEL_TIMER_RESTART:
		s->gen++;
		return push(s, t + in->tx_usecs, EV_IRQ, s->gen);
	case MODEL_TIMER_FIRST:
		return first ? push(s, t + in->tx_usecs, EV_IRQ, s->gen) : 0;
	case MODEL_TIMER_EQE:
		if (!first)
			return 0;
		return push(s, fmax(t, s->last_irq + in->tx_usecs), EV_IRQ, s->gen);
	default:
		return 0;
	}
}

static int simulate(const struct model_in *in, struct model_out *o)
{
	struct sim *s = calloc(1, sizeof(*s));
	unsigned int k1 = SIM_SKBS / 3, k2 = SIM_SKBS - 1;
	double t = 0;
	int ret;

	if (!s)
		return -ENOMEM;
	s->in = in;
	s->o = o;
	s->last_irq = -1e18;
	ret = xmit(s, 0);
	while (!ret && s->sent < SIM_SKBS) {
		struct ev e;

		if (!s->n) {
			/* Nothing will ever complete: TCP's retransmit timer is the only way out;
			 * the retransmission goes through the driver and reaps its ring. */
			s->stalled = true;
			t += SIM_RTO_US;
			if (!s->pending)
				break;
			reap(s, t);
			ret = xmit(s, t);
			continue;
		}
		e = pop(s);
		t = e.t;
		switch (e.type) {
		case EV_CQE:
			ret = on_cqe(s, t);
			break;
		case EV_IRQ:
			if (e.gen != s->gen || !s->pending)
				break;
			reap(s, t);
			ret = push(s, t + in->t_sw_us, EV_XMIT, 0);
			break;
		case EV_ACK:
			s->rtx--;
			ret = push(s, t + in->t_sw_us, EV_XMIT, 0);
			break;
		case EV_XMIT:
			ret = xmit(s, t);
			break;
		}
	}
	if (!ret && s->sent == SIM_SKBS)
		o->tput_bps = (double)(k2 - k1) * o->skb_payload * 8 /
			      (s->wire_end[k2] - s->wire_end[k1]) * 1e6;
	o->stalled = s->stalled;
	if (o->tput_bps > o->goodput_max_bps)
		o->tput_bps = o->goodput_max_bps;
	o->frac = o->tput_bps / o->goodput_max_bps;
	free(s->h);
	free(s);
	return ret;
}

int model_predict(const struct model_in *in, struct model_out *out)
{
	int ret = model_derive(in, out);

	if (ret)
		return ret;
	ret = simulate(in, out);
	if (ret)
		return ret;
	if (out->stalled)
		out->limited_by = "stall";
	else if (out->frac >= MODEL_LINE_RATE_SHARE)
		out->limited_by = "line-rate";
	else if (in->rtt_us >= 0 && in->one_skb_exception &&
		 out->tput_bps > out->sw_bps * (1 + MODEL_BATCH_TOL))
		out->limited_by = "ack-clock";
	else if (fabs(out->tput_bps / out->sw_bps - 1) < MODEL_BATCH_TOL)
		out->limited_by = "tx-completion (batch)";
	else
		out->limited_by = "tx-completion";
	return 0;
}

double model_max_tx_usecs(const struct model_in *in, double frac)
{
	struct model_in m = *in;
	struct model_out o;
	double lo = 0, hi = 1e5;

	m.tx_usecs = 0;
	if (model_predict(&m, &o) || o.frac < frac)
		return -1;
	m.tx_usecs = hi;
	if (!model_predict(&m, &o) && o.frac >= frac)
		return hi;
	/* Throughput falls with the delay: bisect to 0.5 us. */
	while (hi - lo > 0.5) {
		m.tx_usecs = (lo + hi) / 2;
		if (!model_predict(&m, &o) && o.frac >= frac)
			lo = m.tx_usecs;
		else
			hi = m.tx_usecs;
	}
	return floor(lo * 2) / 2;
}

uint64_t model_min_tsq(const struct model_in *in, double frac)
{
	struct model_in m = *in;
	struct model_out o;
	uint64_t lo = 1, hi = 1ULL << 30;

	m.tsq = hi;
	if (model_predict(&m, &o) || o.frac < frac)
		return 0;
	while (hi - lo > 1024 && hi - lo > lo / 64) {
		m.tsq = lo + (hi - lo) / 2;
		if (!model_predict(&m, &o) && o.frac >= frac)
			hi = m.tsq;
		else
			lo = m.tsq;
	}
	return hi;
}

/* ---- stop-and-wait curve and its fit ---- */

double model_sw(double L, double rho, double R, double D)
{
	double bits = 8 * rho * L;

	if (bits <= 0 || R <= 0)
		return 0;
	return bits / (bits / R + (D > 0 ? D : 0));
}

double model_window(double L, double truesize, double pacing_bps)
{
	if (truesize <= 0 || L <= 0)
		return 0;
	return (floor(tsq_limit(L, truesize, pacing_bps) / truesize) + 1) * truesize;
}

double model_knee(double R, double D, double rho, double frac)
{
	if (rho <= 0 || frac <= 0 || frac >= 1)
		return 0;
	return frac / (1 - frac) * R * D / 8 / rho;
}

#define GOLD 0.6180339887498949

static double sse(const double *L, const double *X, unsigned int n, double rho, double R, double D)
{
	double s = 0;
	unsigned int i;

	for (i = 0; i < n; i++) {
		double r = X[i] - model_sw(L[i], rho, R, D);

		s += r * r;
	}
	return s;
}

/* Best R for a fixed D: golden section over log R (SSE is unimodal in R for fixed D). */
static double best_R(const double *L, const double *X, unsigned int n, double rho, double D,
		     double xmax, double *out_sse)
{
	double a = log(xmax * 0.5), b = log(xmax * 100), c, d, fc, fd;
	int it;

	c = b - GOLD * (b - a);
	d = a + GOLD * (b - a);
	fc = sse(L, X, n, rho, exp(c), D);
	fd = sse(L, X, n, rho, exp(d), D);
	for (it = 0; it < 80; it++) {
		if (fc < fd) {
			b = d;
			d = c;
			fd = fc;
			c = b - GOLD * (b - a);
			fc = sse(L, X, n, rho, exp(c), D);
		} else {
			a = c;
			c = d;
			fc = fd;
			d = a + GOLD * (b - a);
			fd = sse(L, X, n, rho, exp(d), D);
		}
	}
	c = exp((a + b) / 2);
	if (out_sse)
		*out_sse = sse(L, X, n, rho, c, D);
	return c;
}

/* Profile least squares: coarse scan of D, then golden section around the best cell. */
static void fit_once(const double *L, const double *X, unsigned int n, double rho, double *R,
		     double *D)
{
	double xmax = 0, dmax = 0, best = INFINITY, bd = 0, a, b, c, d, fc, fd, step;
	unsigned int i;
	int k, it;

	for (i = 0; i < n; i++) {
		if (X[i] > xmax)
			xmax = X[i];
		if (X[i] > 0 && 8 * rho * L[i] / X[i] > dmax)
			dmax = 8 * rho * L[i] / X[i];
	}
	if (xmax <= 0) {
		*R = 0;
		*D = 0;
		return;
	}
	dmax *= 1.5;
	step = dmax / 64;
	for (k = 0; k <= 64; k++) {
		double f;

		best_R(L, X, n, rho, k * step, xmax, &f);
		if (f < best) {
			best = f;
			bd = k * step;
		}
	}
	a = fmax(0, bd - step);
	b = bd + step;
	c = b - GOLD * (b - a);
	d = a + GOLD * (b - a);
	best_R(L, X, n, rho, c, xmax, &fc);
	best_R(L, X, n, rho, d, xmax, &fd);
	for (it = 0; it < 50; it++) {
		if (fc < fd) {
			b = d;
			d = c;
			fd = fc;
			c = b - GOLD * (b - a);
			best_R(L, X, n, rho, c, xmax, &fc);
		} else {
			a = c;
			c = d;
			fc = fd;
			d = a + GOLD * (b - a);
			best_R(L, X, n, rho, d, xmax, &fd);
		}
	}
	*D = (a + b) / 2;
	if (bd == 0 && best <= fmin(fc, fd))
		*D = 0;
	*R = best_R(L, X, n, rho, *D, xmax, NULL);
}

static uint64_t xs_next(uint64_t *s)
{
	*s ^= *s << 13;
	*s ^= *s >> 7;
	*s ^= *s << 17;
	return *s;
}

int model_fit(const double *L, const double *X, unsigned int n, double rho, unsigned int nboot,
	      double conf, unsigned int seed, struct model_fit *f)
{
	double *res, *xb, *bD, *bR;
	uint64_t rng = 0x9E3779B97F4A7C15ULL ^ seed;
	unsigned int i, b;

	memset(f, 0, sizeof(*f));
	if (!L || !X || n < 3 || !(rho > 0) || rho > 1 || conf <= 0 || conf >= 1)
		return -EINVAL;
	for (i = 0; i < n; i++)
		if (!(L[i] > 0) || !(X[i] >= 0) || !isfinite(X[i]))
			return -EINVAL;
	fit_once(L, X, n, rho, &f->R, &f->D);
	f->n = n;
	f->rmse = sqrt(sse(L, X, n, rho, f->R, f->D) / n);
	f->knee = model_knee(f->R, f->D, rho, KNEE_SHARE);
	f->D_lo = f->D_hi = f->D;
	f->R_lo = f->R_hi = f->R;
	if (!nboot)
		return 0;
	res = calloc(n, sizeof(*res));
	xb = calloc(n, sizeof(*xb));
	bD = calloc(nboot, sizeof(*bD));
	bR = calloc(nboot, sizeof(*bR));
	if (!res || !xb || !bD || !bR) {
		free(res), free(xb), free(bD), free(bR);
		return -ENOMEM;
	}
	for (i = 0; i < n; i++)
		res[i] = X[i] - model_sw(L[i], rho, f->R, f->D);
	/* Residual bootstrap: keep the design (the L_i), resample the errors. */
	for (b = 0; b < nboot; b++) {
		for (i = 0; i < n; i++)
			xb[i] = fmax(0, model_sw(L[i], rho, f->R, f->D) + res[xs_next(&rng) % n]);
		fit_once(L, xb, n, rho, &bR[b], &bD[b]);
	}
	qsort(bD, nboot, sizeof(*bD), cmp_double);
	qsort(bR, nboot, sizeof(*bR), cmp_double);
	i = (unsigned int)floor((1 - conf) / 2 * (nboot - 1) + 0.5);
	f->D_lo = bD[i];
	f->D_hi = bD[nboot - 1 - i];
	f->R_lo = bR[i];
	f->R_hi = bR[nboot - 1 - i];
	f->nboot = nboot;
	free(res), free(xb), free(bD), free(bR);
	return 0;
}

double model_loss(const struct model_in *base, double us, double rate_bps, uint64_t tsq)
{
	struct model_in in = *base;
	struct model_out mo;

	if (isnan(us))
		return NAN;
	if (rate_bps > 0)
		in.rate_bps = rate_bps;
	if (tsq && in.tsq < (1ULL << 40))
		in.tsq = tsq;
	in.tx_usecs = us;
	if (model_predict(&in, &mo))
		return NAN;
	return fmax(0, 1 - mo.frac);
}
