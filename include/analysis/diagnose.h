/* diagnose's findings and the data they are decided from (exposed for unit tests). */
#ifndef ETHTUNE_DIAGNOSE_H
#define ETHTUNE_DIAGNOSE_H

#include <stdbool.h>
#include <stdint.h>

#include "nl/devobj.h"
#include "knowledge/drvdb.h"
#include "analysis/model.h"
#include "probe/probe.h"
#include "analysis/sweep.h"
#include "trace/txlat.h"
#include "analysis/thresholds.h"

#define MAX_ROUNDS 12
#define MAX_EV	   6
#define MAX_ACT	   4

enum finding_kind {
	F_SOFTWARE,
	F_ORPHAN,
	F_STALL,
	F_DELAYED,
	F_LARGE_MTU,
	F_CPU,
	F_LINEARIZE, /* the driver linearizes skbs: no throughput loss of its own, a copy each */
	F__N
};

#define H_PROMPT       F__N
#define H_INCONCLUSIVE (F__N + 1)

struct finding {
	bool on;
	double loss, loss_lo, loss_hi; /* share of one flow's attainable throughput; NaN n/a */
	char ev[MAX_EV][256];
	unsigned int nev;
};

struct action {
	char cmd[200];
	char effect[200];
};

/* Interleaved one-flow / two-flow rounds. */
struct flows {
	unsigned int n;
	double one[MAX_ROUNDS], two[MAX_ROUNDS], wait_us[MAX_ROUNDS];
	/* one flow's cwnd at each round's end (segments, NaN unknown), and Spearman's rho of the
	 * round's rate against it with its one-sided p: under a completion delay that TSQ waits
	 * for, a flow is not cwnd-limited, its cwnd stays where slow start left it, and its rate
	 * follows that cwnd (docs/lab.md) */
	double cwnd1[MAX_ROUNDS], cwnd_rho, cwnd_p;
	struct et_ci c1, c2;
	double welch_p;	 /* one vs two flows */
	double wait_med; /* median time a byte waits below TCP in one flow, us (NaN unmeasured) */
	double proc_cpu; /* sending process, % of one CPU, mean */
	double sys_cpu;	 /* whole host, %, mean */
	/* Evidence over the one-flow rounds: the device's queue stops and wakes (qstats), BQL's
	 * stall detector, TcpExt TCPSpuriousRtxHostQueues, tcp_info's sndbuf-limited time */
	bool have_qstats, have_stall, have_tcpext;
	uint64_t tx_stop, tx_wake, stall_cnt, stall_max_ms, spurious_rtx;
	uint64_t sndbuf_limited_us, busy_us;
};

/* diagnose's phases, in the order they run (their wall times are reported). */
enum diag_phase { DP_SETUP, DP_TXLAT, DP_FLOWS, DP_BULK, DP_TSQ, DP_MTU, DP__N };

struct diag {
	char driver[32], kind[32];
	int speed; /* Mb/s, -1 unknown */
	uint32_t mtu, max_mtu, gso;
	struct et_vals coal;
	bool have_coal;
	const struct drv_info *di;
	const char *knob; /* the coalescing keyword that governs TX completion (drvdb) */
	const struct drv_param *knob_dp;
	double allowed_us; /* the longest completion delay the setting allows; NaN unknown */
	uint64_t tsq_now;  /* tcp_limit_output_bytes now */
	bool paced;	   /* the probes' flows are paced (bbr or fq) */
	double floor_us;   /* timer wake-up lateness of this host (NaN unknown) */
	double rtt_us;	   /* request/response round trip, p50 */
	/* txlat under request/response: tl holds traced skbs when tl_ok, else tl_err says why
	 * ("" when txlat was off) */
	struct txlat_result tl;
	bool tl_ok;
	/* txlat over one bulk flow (the skbs' frags and linearization under load); tlb_ok when
	 * it traced skbs, hoad: net.core.high_order_alloc_disable then (-1 unknown) */
	struct txlat_result tlb;
	bool tlb_ok;
	int hoad;
	char tl_err[256];
	double ser_us;	      /* serialization of the traced skbs at the line rate */
	double D, D_lo, D_hi; /* completion delay beyond serialization, us; NaN unknown */
	const char *d_src;    /* where D came from */
	double line_mbps;     /* goodput at the line rate (model), NaN unknown */
	double ref_mbps;      /* what one flow is measured against */
	const char *ref_what; /* "line rate" or "two flows" */
	struct flows fl;
	bool did_flows;
	double loss, loss_lo, loss_hi; /* measured, one flow against ref */
	struct model_in mi;
	double mloss, mloss_lo, mloss_hi; /* the model's, at D, D_lo, D_hi */
	bool did_tsq, did_mtu;
	struct tsq_sweep tsq;
	struct mtu_sweep mtus;
	struct finding f[F__N];
	int headline;
	char why[768]; /* inconclusive: why, and what run would decide */
	struct action act[MAX_ACT];
	unsigned int nact;
	double elapsed_s;
	double phase_s[DP__N]; /* wall time of each phase; NaN: not run */
};

/* Are a probe's flows over a device with this root qdisc paced: fq there, or bbr the host's
 * congestion control (TSQ then follows the pacing rate, and before 6.16 ignores the sysctl)? */
bool diag_paced(const char *root_qdisc);
/* The model of this device at rate_mbps under the rules of kernel release, the line rate's
 * goodput, the measured loss and the model's loss at D and its interval (needs d->fl). */
void diag_judge(struct diag *d, double rate_mbps, const char *release);
/* Findings, headline and actions from what d holds (no measurement; dev for the actions). */
void diag_decide(const char *dev, struct diag *d);
/* "delayed-completion", "prompt-completion", "inconclusive", ... */
const char *diag_headline(const struct diag *d);
/* A finding's name ("orphans-at-xmit"), NULL out of range. */
const char *diag_finding_name(int k);
/* d's report through out/json_print: text, or the members of the current JSON object. */
void diag_print(const struct diag *d);
/* d's metrics (--prom): the headline as a state set, each finding, D with its interval, what
 * the setting allows, the flows and losses, the request/response xmit-to-free histogram;
 * labels device and driver set by the caller. 0 or -errno. */
struct prom;
int diag_prom(const struct diag *d, struct prom *p);

/* What ethtune diagnose measures beyond the flows (the command's options). */
struct diag_opts {
	bool tsq_sweep, mtu_sweep, no_txlat;
	double budget_s;  /* for the interleaved flow measurement */
	double t0;	  /* when the command started (et_now_s()), for elapsed-s */
	const char *prom; /* --prom: the metrics to this file */
};
struct sweep_opts;
/* Measure o->dev against o->peer, judge and print the findings (sweep_prepare() done). 0, or
 * -errno after one line saying why. */
int diagnose_dev(const struct sweep_opts *o, const struct diag_opts *opt);

#endif
