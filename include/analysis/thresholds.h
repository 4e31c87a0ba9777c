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

/* ---- validate (docs/validate.md: one row per check, its bound and why) ---- */

/* coalesce: the TX knob's settings tried, microseconds: 0 (no coalescing: the driver's own
 * completion path, the baseline) and three settings above an emulated guest's timer floor
 * (60-90 us, docs/design.md) so that growth shows above it, the largest far below a round trip
 * a user would notice. A driver whose smallest value is above 0 starts there. */
#define VAL_COAL_US                                                                                \
	{                                                                                          \
		0, 25, 100, 400                                                                    \
	}
#define VAL_COAL_POINTS 4
/* coalesce: at the baseline (no coalescing) the median completion's interval starts before the
 * request/response round trip's median: with one skb in flight the next transmit comes only
 * after the response, so a completion later than that waits for it or for a rescan timer
 * (diagnose's completion-stalls). No constant: the bound is the measured round trip. */
/* coalesce: at the largest setting the median completion must stand above the lowest median of
 * the smaller settings by at least this share of their difference, the intervals apart. A
 * quarter: the traced skbs mix requests with ACKs, and in the lab's emulated guest (TCG)
 * txsim's 400 us added ~200 us to a ~540 us path; a knob that does not govern completion adds
 * nothing. */
#define VAL_COAL_GROW 0.25
/* tsq: one flow at the kernel's default tcp_limit_output_bytes reaches this share of the line
 * rate (or of VAL_TSQ_FLOWS flows): what diagnose calls no material loss (1 - MATERIAL). */
#define VAL_TSQ_SHARE (1 - MATERIAL)
/* tsq: rounds of one flow and the reference flows (ABBA) at most. --budget is what ends them
 * (a round of two 1.5 s probes takes ~3.5 s, so the default 30 s gives ~8, as diagnose's
 * measure_flows); this only sizes the arrays, so a larger budget buys a narrower interval
 * (txsim at tx-usecs 4000, MTU 65535, under TCG: 8 rounds left one flow at [594, 851] Mbit/s
 * against an 846 bound, 1 run in 3). */
#define VAL_TSQ_ROUNDS 32
/* tsq: the reference that tells whether the line can be filled here is this many flows, each
 * with its own TSQ budget: a delay that throttles every flow alike (txsim at tx-usecs 4000 on
 * 7.2: one flow 493 Mbit/s, two flows 461, both held by TSQ's ~1 ms of pacing rate per flow)
 * keeps two flows off the line as well and would pass for a host that cannot fill it; four
 * flows carry four budgets. */
#define VAL_TSQ_FLOWS 4
/* counters and BQL are judged on one bulk flow this long at least, seconds (the issue's >= 10 s:
 * long enough for a 32-bit counter of a 10G device to wrap if the driver keeps one). */
#define VAL_LOAD_MIN_S 10
/* The bulk flow loaded the device when it carried at least this share of the line rate's
 * goodput (else of tsq's one flow): a quarter, as reconfig's resume. Below it BQL's limit is
 * not judged on it (SKIP inconclusive): a flow held back by losses elsewhere (qemu 7.2's e1000e
 * sent TSO as IP fragments, whose reassembly the peer dropped: 3-4 Mbit/s in 3 of 4 runs on a
 * 1 Gb/s line) queues nothing for BQL to size. */
#define VAL_LOAD_SHARE 0.25
/* ... and a flow that retransmitted this share of its segments is said to be held by losses */
#define VAL_LOAD_LOSSY 0.01
/* counters: the device's TX bytes against what TCP sent (tcpi_bytes_sent) carry the headers of
 * each segment on top: Ethernet 14 + IPv4 20 + TCP 20 + timestamps 12 bytes per MSS. */
#define VAL_HDR_BYTES 66
/* counters: the two are read at slightly different instants (a 2% slack is 4 ms of the window
 * at any rate, ten times the wake-up floor of an emulated guest). The test-only environment
 * variable ETHTUNE_TEST_COUNTERS_SLACK replaces it (a negative value makes the bound
 * impossible, so that tests/ns/validate.sh can see the check fail). */
#define VAL_COUNTERS_SLACK 0.02
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
/* Before each check, the device's carrier (where it had one at the start) is awaited this long:
 * a previous check's change may reset the link after its call returned (e1000e, on a ring or
 * coalescing change: 2-4 s without carrier in the lab), and a flow started then fails on the
 * reset, not on what the next check measures. Beyond it, the check runs and reports what it
 * sees. */
#define VAL_SETTLE_MAX_S 15.0
/* gso: the limits lowered one at a time while one flow runs: gso-max-size to the largest power
 * of two at most a quarter of the limit in force (64 KiB: 16 KiB, 11 segments at MTU 1500),
 * when that still holds this many MTU-sized segments, and gso-max-segs to VAL_GSO_SEGS. TCP
 * builds its skbs up to the limit (tcp_tso_autosize: a millisecond of the pacing rate, above
 * 16 KiB from 131 Mbit/s), so a limit binds when the largest skb reaches half of it (size) or
 * it (segments); one that does not shows nothing. */
#define VAL_GSO_SIZE_DIV 4
#define VAL_GSO_MIN_SEGS 3
#define VAL_GSO_SEGS	 4
/* gso: the device's TX packets are wire packets or super-packets, told apart by the mean size of
 * what it counted (its bytes over its packets, read together, so periodically refreshed
 * counters still agree) against the traced bytes per wire segment and per skb. Within this
 * factor of one: a segment's replicated headers add at most 134 bytes to 1448 (9%), and the
 * control connection's few packets less. Only where the skbs carry this many segments each on
 * average are the two apart (1.25 squared is 1.56). */
#define VAL_GSO_COUNT_TOL  1.25
#define VAL_GSO_APART_SEGS 1.6

#endif
