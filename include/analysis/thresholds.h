/* The thresholds behind every verdict of the analyses, each with its reason and source. */
#ifndef ETHTUNE_THRESHOLDS_H
#define ETHTUNE_THRESHOLDS_H

/*
 * Changing a value here changes what diagnose finds, what tune picks and what the sweeps call
 * a fit; tests/unit/test_diagnose.c and the lab checks (tests/lab/diagnose.sh, tune.sh) are
 * calibrated against them. Comments elsewhere name these, not their numbers.
 */

/* ---- statistics every analysis shares ---- */

/* Confidence level (percent) of every interval of a mean (docs/design.md: every figure a
 * decision uses carries an interval). */
#define CI_LEVEL 95
/* Welch's t-test and Spearman's rho: a difference or a rise with a p-value below this is taken as
 * real (the usual 5%). */
#define SIG_P 0.05
/* Repeated measurements stop once a mean's CI_LEVEL interval is this share of it (relative
 * half-width): narrow enough to tell the MATERIAL share apart (diagnose's rounds, TSQ passes). */
#define NARROW_CI 0.05
/* Fewest rounds (diagnose) or passes (TSQ sweep) before an interval is trusted: with fewer
 * the t quantile is too wide (t(0.975, 1) = 12.7) for the stop rule to mean anything. */
#define MIN_ROUNDS 3

/* ---- orphaned skbs (txlat's socket-ownership counts) ---- */

/* Fewest TCP skbs seen before their orphaned share is judged: below it the Wilson interval is
 * wider than +-10 points. */
#define ORPHAN_MIN_SKBS 100
/* A device orphans at xmit when more than this share of skbs (diagnose: the Wilson lower bound)
 * left their socket before the free: a majority, not the odd ACK or control skb. */
#define ORPHAN_MAJORITY 0.5

/* ---- diagnose ---- */

/*
 * A finding is material when it costs one flow at least this share of what the device can
 * carry (its line rate, or two flows where the line rate is unknown), with the whole
 * confidence interval beyond it. It is a statement about impact, not about the size of a
 * delay: a delay is judged by the model at this device's rate and this kernel's TSQ rules.
 */
#define MATERIAL 0.10
/* Completions "far later than the setting allows": beyond this many times the setting plus
 * the host's timer floor and the skb's serialization (docs/design.md: the floor is allowed on
 * top of the setting, so only a wait for something else, the next transmit or a rescan timer,
 * goes beyond). */
#define LATE_FACTOR 4.0
/* The completion delay explains the loss (all of it is charged to the delay) when the model's
 * upper bound reaches this share of the measured loss; below it the rest is looked for
 * elsewhere (the CPU). */
#define EXPLAINS_SHARE 0.5
/* The driver linearizes (diagnose's driver-linearizes finding) when the Wilson lower bound of
 * its linearized share of skbs under one bulk flow reaches this: a pattern, not one odd skb.
 * Each such skb costs a copy of its frags; the finding names it, the CPU finding weighs it. */
#define LINEARIZE_SHARE 0.01
/* The sender's CPU is saturated at this percent of one CPU (process) or of the host. */
#define CPU_BUSY_PCT 90
/* TCP goodput per unit of line rate where the model cannot derive it: about 1448 payload bytes
 * of 1538 on the wire at MTU 1500 with timestamps (as tests/lab/tune.sh computes it). */
#define GOODPUT_SHARE 0.94

/* ---- TSQ sweep ---- */

/* Goodput per wire byte assumed when the model cannot derive it from MTU and GSO size. */
#define RHO_UNKNOWN 0.9
/* A point is throttled by TSQ when it is below this share of the best point and of what the
 * line carries: the residence time there is the delay TSQ waits for. */
#define THROTTLED_SHARE 0.9
/* The knee of the TSQ curve: the smallest limit that reaches this share of the plateau
 * (docs/model.md: L* for 95% of R); the sweep refines around it and the fit reports it. */
#define KNEE_SHARE 0.95
/* A stop-and-wait fit describes the points when its rmse is at most this share of the plateau. */
#define FIT_RMSE_SHARE 0.1
/* Bootstrap of the fit: resamples, and the confidence of D's and R's intervals (CI_LEVEL). */
#define FIT_BOOT 200
#define FIT_CONF 0.95

/* ---- MTU sweep ---- */

/* The large-MTU collapse (seeds: one flow at a jumbo MTU far below the small MTU): above this
 * MTU, one flow below this share of the first MTU's, intervals apart. */
#define MTU_JUMBO	   9000
#define MTU_COLLAPSE_SHARE 0.5

/* ---- tune (the objectives; tune's rule strings say the same in words) ---- */

/* throughput, balanced: settings within this share of the best one-flow throughput at both TSQ
 * limits are as good (the same share as NARROW_CI: closer is within the measurements' doubt). */
#define TUNE_THROUGHPUT_NEAR 0.05
/* latency: within this share of the lowest median RR latency a setting is as good, and the
 * smaller delay wins. */
#define TUNE_LATENCY_NEAR 0.10
/* tune: Welch's test may excuse a shortfall beyond the band (noise), but not one beyond twice
 * the band: then the loss is larger than any noise the band was sized for. */
#define TUNE_NEAR_SLACK 2
/* cpu: settings at or above this share of the best throughput compete on CPU per Gbit/s. */
#define TUNE_CPU_MIN_SHARE 0.9
/* balanced: RR p99 at most this many times the best setting's. */
#define TUNE_P99_FACTOR 2

/* ---- model: what limits a flow (model_predict's limited-by) ---- */

/* line-rate: the flow reaches this share of what the wire carries. */
#define MODEL_LINE_RATE_SHARE 0.95
/* ack-clock vs batch: throughput above the stop-and-wait bound by more than this share is
 * clocked by ACKs; within it, it is the batch bound itself. */
#define MODEL_BATCH_TOL 0.05

/* ---- tune ---- */

/* NAPI deferral swept as software completion coalescing keeps the interrupt masked for this many
 * polls that find work, so gro-flush-timeout (or irq-suspend-timeout) is what sets the delay; a
 * few polls are what the kernel's napi documentation suggests for busy queues. A string: it is a
 * napi-set value. */
#define TUNE_NAPI_DEFER_IRQS "2"

/* ---- profile merge (tune results of a fleet) ---- */

/* A host flagged by the outlier test is an outlier only this far below the other hosts' mean
 * throughput at the chosen setting: over hundreds of hosts a few percent is significant and
 * still no reason to distrust a host (twice TUNE_THROUGHPUT_NEAR: beyond what the rule itself
 * calls "as good"). */
#define MERGE_MIN_EFFECT 0.10
/* The outlier test's family-wise level over a model's hosts (Holm-Bonferroni). */
#define MERGE_ALPHA_DEFAULT 0.05
/* Fewest hosts (outliers left out) a merged profile needs: one host is tune's own profile, and
 * of two that disagree neither can be called the odd one; three is also the fewest the outlier
 * test can judge (a host against two others). */
#define MERGE_MIN_HOSTS_DEFAULT 3

/* ---- validate ---- */

/* Each check's bounds stand, with their reasons, in the check's own file
 * (ethtune/analysis/validate/NAME.c; docs/validate.md: one row per check, its bound and why);
 * the bulk flow's in load.c, the wait for the carrier in validate.c. */

#endif
