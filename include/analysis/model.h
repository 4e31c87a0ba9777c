/* TSQ / TX-completion throughput model: event simulation for "what if", stop-and-wait fit for
 * sweeps. */
#ifndef ETHTUNE_MODEL_H
#define ETHTUNE_MODEL_H

#include <stdbool.h>
#include <stdint.h>

/* net.ipv4.tcp_limit_output_bytes by default since v6.16; 1 MiB from 2018, 256 KiB in v4.2. */
#define TSQ_DEFAULT_BYTES (4ULL << 20)

/* How the device turns TX completions into an interrupt (see docs/model.md). */
enum model_timer {
	MODEL_TIMER_RESTART,   /* timer re-armed by every completion (CQE mode; mlx4 2012 fits) */
	MODEL_TIMER_FIRST,     /* timer armed by the first completion after an interrupt */
	MODEL_TIMER_EQE,       /* timer runs from the previous interrupt (mlx5 EQE mode) */
	MODEL_TIMER_NEXT_XMIT, /* reaped by the next transmit; tx-usecs is a fallback timer */
};

struct model_in {
	double rate_bps;	/* line rate, bit/s */
	uint64_t tsq;		/* net.ipv4.tcp_limit_output_bytes */
	double tx_usecs;	/* completion coalescing delay, us */
	uint32_t tx_frames;	/* completions per interrupt, 0: timer only */
	uint32_t mtu;		/* default 1500 */
	uint32_t gso_size;	/* gso_max_size, bytes (default 65536) */
	double rtt_us;		/* end of serialization -> ACK back, us; < 0: ACKs not modelled */
	double t_sw_us;		/* interrupt/ACK -> next skb on the ring (NAPI, TSQ tasklet), us */
	double pacing_bps;	/* sk_pacing_rate, bit/s: 0 = line rate, < 0 = limit is the
				 * sysctl alone (v3.6-v3.11 TSQ) */
	bool one_skb_exception; /* send anyway when the rtx queue is short (needs ACKs: rtt_us) */
	uint8_t exception_skbs; /* ... at most this many skbs: 1 (v6.7+), 0 (v4.10-v6.6) */
	enum model_timer timer;
	uint32_t skb_overhead; /* truesize - payload per skb, bytes */
};

struct model_out {
	uint32_t mss, segs, skb_payload, skb_truesize;
	uint64_t limit; /* effective TSQ limit after max(2*truesize, pacing>>10) and min(sysctl) */
	uint32_t skbs_in_flight; /* skbs the socket can hold before it is throttled */
	double rho;		 /* payload / truesize */
	double skb_wire_us;	 /* serialization of one skb incl. headers, preamble, IFG */
	double goodput_max_bps;	 /* TCP payload rate at line rate */
	double tput_bps;	 /* predicted single-flow goodput (simulation) */
	double sw_bps;		 /* closed-form stop-and-wait (batch) estimate */
	double frac;		 /* tput / goodput_max */
	bool stalled;		 /* no completion ever arrives (next-xmit, no fallback, no ACKs) */
	const char *limited_by;	 /* "line-rate", "tx-completion (batch)", "tx-completion",
				  * "ack-clock", "stall" */
};

void model_defaults(struct model_in *in);

/* One device and its host as a caller read them. rate_mbps and tsq are taken as given; the
 * rest, where 0 (or NULL), is not known and leaves the model's default. */
struct model_dev {
	double rate_mbps;    /* the rate to judge at */
	uint64_t tsq;	     /* net.ipv4.tcp_limit_output_bytes */
	const char *release; /* the running kernel's: its TSQ rules (model_set_kernel) */
	bool paced;	     /* bbr, or a root fq qdisc */
	uint32_t mtu;
	uint64_t gso_max_size; /* above 64 KiB (BIG TCP) the classic skb is modelled */
	double rtt_us;
	bool cqe_tx;	/* use-cqe-mode-tx: every completion restarts the timer */
	bool next_xmit; /* the driver reaps completions on its next transmit */
};
/* The model's input for a device: model_defaults() with what d knows, the timer first-armed
 * unless d says otherwise. tx_usecs is the caller's to set. */
void model_from_dev(struct model_in *in, const struct model_dev *d);
/* Static quantities only (skb size, limit, in-flight). 0 or -EINVAL. */
int model_derive(const struct model_in *in, struct model_out *out);
/* Derive and simulate one flow. 0 or -EINVAL. */
int model_predict(const struct model_in *in, struct model_out *out);
/* Largest tx-usecs (us, resolution 0.5) that keeps >= frac of goodput_max; -1 if even 0 does
 * not, >= 1e5 treated as unbounded (returns 1e5). */
double model_max_tx_usecs(const struct model_in *in, double frac);
/* Smallest tcp_limit_output_bytes that keeps >= frac of goodput_max (bytes); 0 if none <= 1 GiB. */
uint64_t model_min_tsq(const struct model_in *in, double frac);
const char *model_timer_name(enum model_timer t);
/* Set the kernel-era fields from a release ("3.6", "6.1.0-13-amd64"): TSQ present (v3.6),
 * pacing term (v3.12), sysctl ignored by paced flows (paced: bbr or fq, 2018 to v6.16),
 * rtx-queue exception (empty: v4.10, one skb: v6.7). Boundaries are approximate; see
 * docs/model.md. 0 or -EINVAL. */
int model_set_kernel(struct model_in *in, const char *release, bool paced);
int model_timer_parse(const char *s, enum model_timer *t);

/* Stop-and-wait throughput curve used by sweeps: W = rho*L payload bytes in flight per cycle,
 * X(L) = 8W / (8W/R + D); R (bit/s) is the plateau, D (s) the effective completion delay. */
double model_sw(double L, double rho, double R, double D);
/* Bytes (truesize) a socket holds when throttled at sysctl value L: the kernel limit
 * min(max(2*truesize, pacing_bps/8/1024), L) (pacing_bps <= 0: L alone, pre-3.12), rounded up
 * to whole skbs plus the one that passes the "wmem > limit" check. Sweeps should fit against
 * this rather than the raw sysctl: below one skb and above ~1 ms of pacing rate the sysctl
 * stops mattering. */
double model_window(double L, double truesize, double pacing_bps);
/* Smallest L reaching frac of R: L* = frac/(1-frac) * R*D/8 / rho. */
double model_knee(double R, double D, double rho, double frac);

struct model_fit {
	double R, D;	   /* bit/s, s */
	double D_lo, D_hi; /* bootstrap percentile interval (conf), s */
	double R_lo, R_hi;
	double rmse; /* bit/s */
	double knee; /* L* for KNEE_SHARE of R (analysis/thresholds.h), bytes */
	unsigned int n, nboot;
};

/* Least-squares fit of (L_i bytes, X_i bit/s) to model_sw: D by golden section, R by golden
 * section for each D; interval for D (and R) from nboot residual-bootstrap refits at level
 * conf (0.95). seed makes it reproducible. n >= 3. 0 or -EINVAL. */
int model_fit(const double *L, const double *X, unsigned int n, double rho, unsigned int nboot,
	      double conf, unsigned int seed, struct model_fit *f);

/* Share of one flow's attainable goodput the model says a completion delay of us costs, at
 * rate_bps and tsq where given (0: base's). NaN where the model cannot say. */
double model_loss(const struct model_in *base, double us, double rate_bps, uint64_t tsq);

#endif
