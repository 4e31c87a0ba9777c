/* Sweeps: single-flow probes across TSQ limits, MTUs and coalescing settings (temporary). */
#ifndef ETHTUNE_SWEEP_H
#define ETHTUNE_SWEEP_H

#include <stdbool.h>
#include <stdint.h>

#include "analysis/model.h"
#include "out/html.h"
#include "out/svg.h"
#include "probe/probe.h"
#include "util/stats.h"

#define SWEEP_MAX_POINTS 48

/* What every sweep needs: the device, the peer, the probe settings. */
struct sweep_opts {
	const char *dev;
	const char *peer;	/* ADDR[:PORT] of an `ethtune serve` */
	const char *peer_dev;	/* the device at the other end, to keep MTUs equal (optional) */
	const char *peer_netns; /* its namespace (optional) */
	double duration_s, warmup_s;
	char cc[16];	     /* congestion control for the probes ("" = chosen) */
	const char *svg;     /* write a plot here (optional) */
	const char *html;    /* write the HTML report here (optional) */
	bool quiet;	     /* no progress line */
	unsigned int points; /* coarse TSQ points (0 = default) */
	uint64_t tsq_min, tsq_max;
	uint64_t tsq_constrained; /* the "constrained" limit for coalescing sweeps */
	unsigned int reps;	  /* interleaved passes over the settings (0 = the command's) */
};

#define TSQ_MAX_REPS 5

struct tsq_point {
	uint64_t limit;
	double mbps;	   /* mean over the passes */
	double mbps_half;  /* 95% t half-width (infinite with one pass) */
	unsigned int nrep; /* passes measured, interleaved across points */
	double rep_mbps[TSQ_MAX_REPS], rep_wmem[TSQ_MAX_REPS];
	uint32_t retrans;
	double wmem;	     /* mean sk_wmem_alloc: bytes below TCP, NaN unmeasured */
	double residence_us; /* wmem / throughput: how long a byte waits for its free */
	uint64_t eff_limit;  /* the kernel's limit at this sysctl value (floors, paced flows) */
	bool below_floor;    /* the sysctl is below the kernel's floor: it does not act here */
};

struct tsq_sweep {
	char cc[16];
	char cc_reason[160];
	bool sysctl_effective; /* the kernel applies tcp_limit_output_bytes to this flow */
	unsigned int n;
	struct tsq_point p[SWEEP_MAX_POINTS];
	uint64_t tsq_before; /* the namespace's value before the sweep */
	double rho;
	bool fit_ok;
	char fit_reason[160]; /* why the fit failed its goodness-of-fit check */
	struct model_fit fit;
	double cap_current_mbps, cap_default_mbps; /* model at the current / 4 MiB default */
	/* Completion delay measured, not fitted: at the points TSQ throttles (under 90% of the
	 * best), the time a byte waits below TCP (sk_wmem_alloc / throughput, Little's law) less
	 * the serialization of one skb (min(gso_max_size, 64K)) at the line rate. Median and
	 * quartiles; n_res 0 when not measured. */
	unsigned int n_res;
	double d_res_us, d_res_lo_us, d_res_hi_us, ser_us, line_mbps;
	double elapsed_s;
};

#define MTU_REPS 3

struct mtu_point {
	uint32_t mtu;
	double mbps1, mbps2; /* one flow, two flows: means of MTU_REPS interleaved runs */
	struct et_ci c1, c2; /* their 95% t intervals */
};

struct mtu_sweep {
	unsigned int n;
	struct mtu_point p[16];
	/* The seed's shape: one flow at an MTU above MTU_JUMBO below MTU_COLLAPSE_SHARE of one
	 * flow at the first MTU and below two flows at the same MTU, each with the CI_LEVEL
	 * intervals apart (analysis/thresholds.h). */
	bool collapse;
	uint32_t collapse_mtu;
	unsigned int collapse_i;
	double elapsed_s;
};

#define COAL_MAX_PARAMS 2
#define COAL_MAX_POINTS 64
#define COAL_MAX_REPS	5

struct coal_point {
	uint32_t val[COAL_MAX_PARAMS]; /* requested */
	uint32_t got[COAL_MAX_PARAMS]; /* read back (drivers round) */
	double mbps;		       /* one flow at the current TSQ limit */
	double mbps_constrained;       /* one flow at tsq_constrained */
	double rr_tps, rr_p50_us, rr_p99_us;
	/* Each pass's values (passes interleaved across settings); the fields above are means. */
	unsigned int nrep;
	double rep_mbps[COAL_MAX_REPS], rep_mbpsc[COAL_MAX_REPS], rep_p50[COAL_MAX_REPS];
	double cpu_per_gbps; /* sender CPUs busy per Gbit/s */
	double irq_per_s;    /* completion interrupts per second (NaN unknown) */
	double compl_p50_us; /* txlat median (NaN unmeasured) */
	double orphan_frac;  /* TCP skbs not owned by their socket when freed (NaN unmeasured) */
	bool pareto;
};

struct coal_sweep {
	unsigned int nparams;
	char param[COAL_MAX_PARAMS][32];
	char fixed[96]; /* e.g. "adaptive-tx off" applied to every point */
	bool napi;	/* the parameters are NAPI deferral's (napi-set), not coalescing's */
	uint64_t tsq_current, tsq_constrained;
	unsigned int n;
	struct coal_point p[COAL_MAX_POINTS];
	double elapsed_s;
};

struct coal_spec {
	unsigned int nparams;
	const char *param[COAL_MAX_PARAMS];
	unsigned int nvals[COAL_MAX_PARAMS];
	uint32_t vals[COAL_MAX_PARAMS][32];
	const char *fixed_key[2], *fixed_val[2];
	unsigned int nfixed;
	bool txlat; /* also measure completion latency with txlat */
	/* NAPI deferral as software completion coalescing: the parameters are napi-set keywords
	 * (gro-flush-timeout, defer-hard-irqs, irq-suspend-timeout), applied to every NAPI */
	bool napi;
};

/* sweep frags: one flow with order-3 page frags (high_order_alloc_disable 0) against order-0
 * (1) in interleaved passes, traced with txlat for the frags per skb; optionally crossed with
 * gso-max-segs and gso-max-size values of the device (each a group of both). The passes go on
 * until every comparison is significant: a look after FRAG_REPS_MIN passes and after every
 * FRAG_LOOK_STEP more, and one at the last (FRAG_REPS_MAX, or --reps), each testing at Pocock's
 * level for that many looks, so that looking again does not raise the 5% chance of a false
 * finding. */
#define FRAG_REPS_MIN	4
#define FRAG_REPS_MAX	10
#define FRAG_LOOK_STEP	2
#define FRAG_MAX_LOOKS	((FRAG_REPS_MAX - FRAG_REPS_MIN) / FRAG_LOOK_STEP + 1)
#define FRAG_MAX_GSO	3
#define FRAG_MAX_POINTS (2 * (1 + FRAG_MAX_GSO))

struct frag_spec {
	unsigned int n;
	struct {
		const char *key; /* "gso-max-segs" or "gso-max-size" */
		uint32_t val;
	} g[FRAG_MAX_GSO];
};

struct frag_point {
	unsigned int n;
	double rep_mbps[FRAG_REPS_MAX], rep_cpu[FRAG_REPS_MAX], rep_frags[FRAG_REPS_MAX];
	double rep_bytes[FRAG_REPS_MAX], rep_p50[FRAG_REPS_MAX];
	struct et_ci mbps, cpu, frags;	     /* cpu: the sender's process, % of a CPU per Gbit/s */
	double bytes_per_frag, compl_p50_us; /* means; NaN without txlat */
};

/* One comparison of two points by the paired t-test over the passes: p-values, and the cheaper
 * one where significant (0: the first, 1: the second, -1: neither), by what. */
struct frag_cmp {
	double p_mbps, p_cpu, p_frags; /* p_frags NaN: no txlat */
	int cheaper;
	const char *cheaper_by;
};

struct frag_sweep {
	unsigned int before;	       /* high_order_alloc_disable before (put back) */
	bool have_txlat;	       /* frags per skb measured */
	unsigned int ngroups;	       /* 1 + the gso values: group 0 is the device as it was */
	uint64_t gso_size0, gso_segs0; /* the device's own, put back */
	struct frag_spec spec;
	/* point 2g + k: group g, high_order_alloc_disable k (0 order-3, 1 order-0) */
	struct frag_point p[FRAG_MAX_POINTS];
	struct frag_cmp order[1 + FRAG_MAX_GSO]; /* per group: order-3 against order-0 */
	struct frag_cmp gso[1 + FRAG_MAX_GSO];	 /* group g >= 1 against 0, both at order-3 */
	unsigned int passes;			 /* interleaved passes run */
	unsigned int max_passes;		 /* FRAG_REPS_MAX, or --reps */
	unsigned int looks;			 /* planned looks at the data: 1..FRAG_MAX_LOOKS */
	double sig_p; /* each look's level: Pocock's for that many, 5% overall */
	double elapsed_s;
};

/* The kernel-wide sysctl is set from the initial namespace, journaled and put back; gso values
 * the device refuses fail the sweep before it measures, with the kernel's message. */
int sweep_frags(const struct sweep_opts *o, const struct frag_spec *spec, struct frag_sweep *s,
		char *err, size_t errlen);
void sweep_frags_print(const struct frag_sweep *s);

/* Only parameters the device reports are accepted (checked before anything changes). */
int sweep_coalesce(const struct sweep_opts *o, const struct coal_spec *spec, struct coal_sweep *s,
		   char *err, size_t errlen);
void sweep_coalesce_print(const struct coal_sweep *s);
/* Mark the Pareto front: throughput (constrained) up, RR p99 down, interrupts/CPU down. */
void coal_pareto(struct coal_sweep *s);

void sweep_opts_init(struct sweep_opts *o);

/* All of these change things only temporarily (undo_temp_begin) and restore at the end. */
int sweep_tsq(const struct sweep_opts *o, struct tsq_sweep *s, char *err, size_t errlen);
int sweep_mtu(const struct sweep_opts *o, struct mtu_sweep *s, char *err, size_t errlen);

void sweep_tsq_print(const struct tsq_sweep *s);
void sweep_mtu_print(const struct mtu_sweep *s);

/* One single-flow (or n-flow) stream probe; Mbit/s in *mbps. */
int sweep_probe(const struct sweep_opts *o, unsigned int flows, enum probe_test test, uint32_t msg,
		struct probe_result *res, char *err, size_t errlen);

/* Does this kernel apply tcp_limit_output_bytes to flows with congestion control cc on dev?
 * Picks a CC for the sweep when cc is empty; reason says why. */
bool tsq_sysctl_effective(const char *dev, char *cc, size_t cclen, char *reason, size_t rlen);

/* Progress on a terminal: "\r[3/14] what" on stderr; done clears the line. */
void sweep_progress(const struct sweep_opts *o, unsigned int i, unsigned int n, const char *what);
void sweep_progress_done(const struct sweep_opts *o);

/* The TSQ sweep as a plot: each point's throughput with its interval, the fitted model. */
void sweep_tsq_plot(const struct tsq_sweep *s, struct svg_series *p);

/* --html: record the document about to start (json_record()), and after it ends draw the page
 * of kind from it; end: 0, or -errno after saying what failed. */
void sweep_html_begin(const struct sweep_opts *o);
int sweep_html_end(const struct sweep_opts *o, enum html_kind kind);

#endif
