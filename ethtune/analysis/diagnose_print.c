/* diagnose's report: the headline with its evidence, every finding, the rounds, what D costs. */
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "analysis/diagnose.h"
#include "analysis/model.h"
#include "out/json_print.h"
#include "out/prom.h"
#include "trace/txlat_run.h"
#include "util/ethtune.h"

static const char *const finding_names[] = {
	[F_SOFTWARE] = "software-device",     [F_ORPHAN] = "orphans-at-xmit",
	[F_STALL] = "completion-stalls",      [F_DELAYED] = "delayed-completion",
	[F_LARGE_MTU] = "large-mtu-collapse", [F_CPU] = "cpu-bound",
	[F_LINEARIZE] = "driver-linearizes",
};

const char *diag_finding_name(int k)
{
	return k >= 0 && k < F__N ? finding_names[k] : NULL;
}

const char *diag_headline(const struct diag *d)
{
	return d->headline == H_PROMPT	       ? "prompt-completion"
	       : d->headline == H_INCONCLUSIVE ? "inconclusive"
					       : finding_names[d->headline];
}

static void print_pct(const char *key, const char *fmt, double v)
{
	if (isnan(v))
		print_na(key, " %s");
	else
		print_float(PRINT_ANY, key, fmt, 100 * v);
}

/* Each round's rate, in the order measured: an interval too wide to decide shows here whether
 * the rounds spread or split into two modes. */
static void print_rounds(const char *key, const char *label, const double *v, unsigned int n)
{
	unsigned int i;

	print_text("%s", label);
	open_json_array(PRINT_JSON, key);
	for (i = 0; i < n; i++)
		print_float(PRINT_ANY, NULL, " %.0f", v[i]);
	close_json_array(PRINT_JSON, NULL);
}

/* One flow's cwnd at each round's end, and how its rate follows it. A missing cwnd leaves out
 * the list (text n/a), and a rho that cannot be had leaves out rho and p. */
static void print_cwnds(const struct flows *fl)
{
	unsigned int i;

	for (i = 0; i < fl->n && !isnan(fl->cwnd1[i]); i++)
		;
	if (i < fl->n || !fl->n) {
		print_na("one-flow-rounds-cwnd", "  one flow's cwnd at each round's end: %s\n");
		return;
	}
	print_rounds("one-flow-rounds-cwnd",
		     "  one flow's cwnd at each round's end, segments:", fl->cwnd1, fl->n);
	if (!isnan(fl->cwnd_rho)) {
		print_float(PRINT_ANY, "cwnd-rate-rho", "; its rate against it: Spearman rho %.2f",
			    fl->cwnd_rho);
		print_float(PRINT_ANY, "cwnd-rate-p", " (one-sided p %.3f)", fl->cwnd_p);
	}
	print_text("\n");
}

static void print_findings(const struct diag *d)
{
	unsigned int i;
	int k;

	open_json_array(PRINT_JSON, "findings");
	for (k = 0; k < F__N; k++) {
		const struct finding *f = &d->f[k];
		/* the headline's evidence is printed under it already */
		enum output_type t = k == d->headline ? PRINT_JSON : PRINT_ANY;

		if (!f->on)
			continue;
		open_json_object(NULL);
		print_string(t, "name", "other finding: %s", diag_finding_name(k));
		if (!isnan(f->loss)) {
			print_float(t, "loss-pct", ", one flow loses %.0f%%", 100 * f->loss);
			print_float(t, "loss-lo-pct", " [%.0f,", 100 * f->loss_lo);
			print_float(t, "loss-hi-pct", " %.0f]", 100 * f->loss_hi);
		}
		if (t == PRINT_ANY)
			print_text("\n");
		open_json_array(PRINT_JSON, "evidence");
		for (i = 0; i < f->nev; i++) {
			if (t == PRINT_ANY)
				print_text("  ");
			print_string(t, NULL, "%s\n", f->ev[i]);
		}
		close_json_array(PRINT_JSON, NULL);
		close_json_object();
	}
	close_json_array(PRINT_JSON, NULL);
}

/* What the measured D would cost one flow at the common TSQ limits and line rates. */
static void print_cost(const struct diag *d)
{
	static const uint64_t tsq[] = { 128ULL << 10, 1ULL << 20, TSQ_DEFAULT_BYTES };
	static const double gbps[] = { 1, 10, 25, 100 };
	unsigned int i, j;

	if (isnan(d->D))
		return;
	print_text("what D %.0f us costs one flow (model, this kernel's TSQ rules, %s timer):\n",
		   d->D, model_timer_name(d->mi.timer));
	print_text("  %10s %9s %9s %9s\n", "line rate", "128 KiB", "1 MiB", "4 MiB");
	open_json_array(PRINT_JSON, "cost");
	for (i = 0; i < sizeof(gbps) / sizeof(gbps[0]); i++) {
		print_text("  %5.0f Gb/s", gbps[i]);
		for (j = 0; j < sizeof(tsq) / sizeof(tsq[0]); j++) {
			double l = model_loss(&d->mi, d->D, gbps[i] * 1e9, tsq[j]);

			open_json_object(NULL);
			print_float(PRINT_JSON, "rate-gbps", NULL, gbps[i]);
			print_uint(PRINT_JSON, "tsq", NULL, tsq[j]);
			print_pct("loss-pct", "  %6.0f%% ", l);
			close_json_object();
		}
		print_text("\n");
	}
	close_json_array(PRINT_JSON, NULL);
	if (d->mi.tsq >= (1ULL << 40))
		print_text("  (this kernel ignores tcp_limit_output_bytes for paced flows: the "
			   "columns are the same)\n");
}

static const char *const phase_names[DP__N] = {
	[DP_SETUP] = "setup",	  [DP_TXLAT] = "request-response", [DP_FLOWS] = "flows",
	[DP_BULK] = "bulk-txlat", [DP_TSQ] = "tsq-sweep",	   [DP_MTU] = "mtu-sweep",
};

void diag_print(const struct diag *d)
{
	const char *h = diag_headline(d);
	unsigned int i;
	int k;

	print_string(PRINT_ANY, "verdict", "\nheadline: %s", h);
	if (d->headline < F__N && !isnan(d->f[d->headline].loss))
		print_text(": one flow loses %.0f%% [%.0f, %.0f] of %s",
			   100 * d->f[d->headline].loss, 100 * d->f[d->headline].loss_lo,
			   100 * d->f[d->headline].loss_hi, d->ref_what);
	print_text("\n");
	if (d->headline < F__N) {
		for (i = 0; i < d->f[d->headline].nev; i++)
			print_text("  %s\n", d->f[d->headline].ev[i]);
	} else if (d->headline == H_INCONCLUSIVE) {
		print_string(PRINT_ANY, "inconclusive-reason", "  %s\n", d->why);
	} else if (!isnan(d->D)) {
		print_text(
			"  completion delay %.0f us costs one flow %.0f%% at %.0f Mbit/s (model); "
			"measured one flow %.0f Mbit/s against %s %.0f\n",
			d->D, 100 * d->mloss, d->mi.rate_bps / 1e6, d->fl.c1.mean, d->ref_what,
			d->ref_mbps);
	}
	open_json_array(PRINT_JSON, "actions");
	for (i = 0; i < d->nact; i++) {
		open_json_object(NULL);
		print_string(PRINT_ANY, "command", "  action: %s\n", d->act[i].cmd);
		print_string(PRINT_ANY, "predicted", "          %s\n", d->act[i].effect);
		close_json_object();
	}
	close_json_array(PRINT_JSON, NULL);
	print_findings(d);

	print_text("\n");
	if (isnan(d->D)) {
		print_na("d-us", "completion delay D %s\n");
	} else {
		print_float(PRINT_ANY, "d-us", "completion delay D %.0f us", d->D);
		print_float(PRINT_ANY, "d-lo-us", " [%.0f,", d->D_lo);
		print_float(PRINT_ANY, "d-hi-us", " %.0f]", d->D_hi);
		print_string(PRINT_ANY, "d-source", " (%s)\n", d->d_src);
		if (d->tl_ok)
			print_float(PRINT_JSON, "d-txlat-us", NULL, d->D);
	}
	print_float(PRINT_ANY, "serialization-us", "  serialization of the traced skbs %.1f us\n",
		    d->ser_us);
	if (!isnan(d->allowed_us))
		print_float(PRINT_ANY, "allowed-us", "  the device's setting allows %.0f us",
			    d->allowed_us);
	if (d->knob) {
		print_string(PRINT_ANY, "knob", " (%s, from the driver knowledge)\n", d->knob);
	}
	if (!isnan(d->floor_us))
		print_float(PRINT_ANY, "timer-floor-us",
			    "  timer wake-up floor of this host %.0f us\n", d->floor_us);
	if (d->did_flows) {
		const struct flows *fl = &d->fl;

		open_json_object("probe");
		print_float(PRINT_ANY, "one-flow-mbps", "one flow %.1f Mbit/s", fl->c1.mean);
		print_float(PRINT_ANY, "one-flow-lo-mbps", " [%.1f,", fl->c1.lo);
		print_float(PRINT_ANY, "one-flow-hi-mbps", " %.1f]", fl->c1.hi);
		print_float(PRINT_ANY, "two-flows-mbps", ", two flows %.1f", fl->c2.mean);
		print_float(PRINT_ANY, "two-flows-lo-mbps", " [%.1f,", fl->c2.lo);
		print_float(PRINT_ANY, "two-flows-hi-mbps", " %.1f]", fl->c2.hi);
		print_uint(PRINT_ANY, "rounds", " (95%% t intervals, %u interleaved rounds;",
			   fl->n);
		print_float(PRINT_ANY, "welch-p", " Welch p %.3f)\n", fl->welch_p);
		print_rounds("one-flow-rounds-mbps", "  rounds, Mbit/s: one flow", fl->one, fl->n);
		print_rounds("two-flows-rounds-mbps", "; two flows", fl->two, fl->n);
		print_text("\n");
		print_cwnds(fl);
		if (!isnan(d->line_mbps))
			print_float(PRINT_ANY, "line-goodput-mbps",
				    "  goodput at the line rate %.0f Mbit/s\n", d->line_mbps);
		if (!isnan(fl->wait_med))
			print_float(
				PRINT_ANY, "bulk-wait-us",
				"  under one bulk flow a byte waits %.0f us below TCP (median)\n",
				fl->wait_med);
		print_float(PRINT_ANY, "sender-cpu-pct", "  sender CPU %.0f%% of one CPU",
			    fl->proc_cpu);
		print_float(PRINT_ANY, "host-cpu-pct", ", host %.0f%%\n", fl->sys_cpu);
		print_text("  one-flow rounds:");
		if (fl->have_qstats) {
			print_uint(PRINT_ANY, "tx-stop", " tx-stop %llu", fl->tx_stop);
			print_uint(PRINT_ANY, "tx-wake", " tx-wake %llu", fl->tx_wake);
		} else {
			print_na("tx-stop", " tx-stop %s");
		}
		if (fl->have_stall)
			print_uint(PRINT_ANY, "bql-stall-cnt", ", BQL stall-cnt %llu",
				   fl->stall_cnt);
		else
			print_na("bql-stall-cnt", ", BQL stall-cnt %s");
		if (fl->have_tcpext)
			print_uint(PRINT_ANY, "spurious-rtx-host-queues",
				   ", TCPSpuriousRtxHostQueues %llu", fl->spurious_rtx);
		print_uint(PRINT_ANY, "sndbuf-limited-us", ", sndbuf-limited %llu us",
			   fl->sndbuf_limited_us);
		print_uint(PRINT_ANY, "busy-us", " of %llu busy\n", fl->busy_us);
		close_json_object();
		print_pct("measured-loss-pct", "measured: one flow loses %.0f%%", d->loss);
		print_pct("measured-loss-lo-pct", " [%.0f,", d->loss_lo);
		print_pct("measured-loss-hi-pct", " %.0f]", d->loss_hi);
		print_string(PRINT_ANY, "reference", " against %s\n", d->ref_what);
		print_pct("model-loss-pct", "model: D costs one flow %.0f%%", d->mloss);
		print_pct("model-loss-lo-pct", " [%.0f,", d->mloss_lo);
		print_pct("model-loss-hi-pct", " %.0f] here\n", d->mloss_hi);
	}
	open_json_object("txlat");
	if (d->tl_ok) {
		print_float(PRINT_ANY, "p50-us", "txlat: xmit-to-free p50 %.1f us",
			    d->tl.free.p50_us);
		print_float(PRINT_ANY, "p99-us", ", p99 %.1f us", d->tl.free.p99_us);
		print_float(PRINT_ANY, "orphan-fraction", ", orphaned %.2f", d->tl.orphan_frac);
		print_string(PRINT_ANY, "free-is", " (%s)\n", d->tl.free_is);
		txlat_print_log2(&d->tl.free, false);
	} else {
		print_string(PRINT_ANY, "error", "txlat: n/a - %s\n",
			     d->tl_err[0] ? d->tl_err : "disabled");
	}
	close_json_object();
	if (d->tlb_ok) {
		const struct txlat_counts *c = &d->tlb.c;

		open_json_object("bulk-txlat");
		print_uint(PRINT_ANY, "skbs", "txlat under one bulk flow: %llu skbs", c->xmit);
		print_uint(PRINT_JSON, "gso-skbs", NULL, c->gso);
		print_uint(PRINT_ANY, "max-skb-bytes", ", largest %llu bytes\n", c->max_len);
		txlat_print_frags(c, d->tlb.pull_hooked, true);
		close_json_object();
	}
	print_cost(d);
	if (d->did_tsq)
		sweep_tsq_print(&d->tsq);
	if (d->did_mtu)
		sweep_mtu_print(&d->mtus);
	print_float(PRINT_ANY, "elapsed-s", "diagnose took %.1f s", d->elapsed_s);
	open_json_object("phase-s");
	for (k = 0; k < DP__N; k++) {
		print_text("%s%s ", k ? ", " : " (", phase_names[k]);
		if (isnan(d->phase_s[k]))
			print_na(phase_names[k], "%s");
		else
			print_float(PRINT_ANY, phase_names[k], "%.1f", d->phase_s[k]);
	}
	print_text(")\n");
	close_json_object();
}

int diag_prom(const struct diag *d, struct prom *p)
{
	int k;

	/* the headline as a state set: every possible one, 1 for this run's */
	for (k = 0; k <= H_INCONCLUSIVE; k++)
		prom_sample(p, "ethtune_diagnose_verdict", PROM_GAUGE,
			    "1 for the headline of the last diagnose run, 0 for the others.",
			    k == d->headline, "verdict",
			    k == H_PROMPT	  ? "prompt-completion"
			    : k == H_INCONCLUSIVE ? "inconclusive"
						  : finding_names[k],
			    NULL);
	for (k = 0; k < F__N; k++)
		prom_sample(p, "ethtune_diagnose_finding", PROM_GAUGE,
			    "1 when the last diagnose run found this, else 0.", d->f[k].on,
			    "finding", finding_names[k], NULL);
	prom_sample(p, "ethtune_diagnose_completion_delay_seconds", PROM_GAUGE,
		    "Completion delay D beyond serialization measured by the last diagnose run.",
		    d->D / 1e6, NULL);
	prom_sample(p, "ethtune_diagnose_completion_delay_low_seconds", PROM_GAUGE,
		    "Low end of D's 95% interval in the last diagnose run.", d->D_lo / 1e6, NULL);
	prom_sample(p, "ethtune_diagnose_completion_delay_high_seconds", PROM_GAUGE,
		    "High end of D's 95% interval in the last diagnose run.", d->D_hi / 1e6, NULL);
	prom_sample(p, "ethtune_diagnose_allowed_delay_seconds", PROM_GAUGE,
		    "The longest completion delay the device's coalescing setting allows (the "
		    "driver knowledge's TX knob) in the last diagnose run.",
		    d->allowed_us / 1e6, NULL);
	prom_sample(p, "ethtune_diagnose_serialization_seconds", PROM_GAUGE,
		    "Serialization of the traced skbs at the line rate in the last diagnose run.",
		    d->ser_us / 1e6, NULL);
	prom_sample(p, "ethtune_diagnose_timer_floor_seconds", PROM_GAUGE,
		    "Timer wake-up lateness of this host measured by the last diagnose run.",
		    d->floor_us / 1e6, NULL);
	if (d->did_flows) {
		prom_sample(p, "ethtune_diagnose_one_flow_bits_per_second", PROM_GAUGE,
			    "One flow's mean rate over the last diagnose run's rounds.",
			    d->fl.c1.mean * 1e6, NULL);
		prom_sample(p, "ethtune_diagnose_two_flows_bits_per_second", PROM_GAUGE,
			    "Two flows' mean rate over the last diagnose run's rounds.",
			    d->fl.c2.mean * 1e6, NULL);
		prom_sample(p, "ethtune_diagnose_measured_loss_ratio", PROM_GAUGE,
			    "Share of the reference rate one flow lost in the last diagnose run.",
			    d->loss, NULL);
		prom_sample(p, "ethtune_diagnose_model_loss_ratio", PROM_GAUGE,
			    "Share of one flow's rate the model says D costs, last diagnose run.",
			    d->mloss, NULL);
	}
	if (d->tl_ok) {
		txlat_prom_hist(p, "ethtune_diagnose_completion_seconds",
				"Time from the driver's xmit of an skb to its free under "
				"request/response in the last diagnose run.",
				&d->tl.free, NULL);
		if (d->tl.ksyms_ok && d->tl.c.tcp)
			prom_sample(p, "ethtune_diagnose_tcp_orphaned_ratio", PROM_GAUGE,
				    "Share of TCP skbs not owned by their socket when freed, last "
				    "diagnose run.",
				    d->tl.orphan_frac, NULL);
	}
	return prom_sample(p, "ethtune_diagnose_elapsed_seconds", PROM_GAUGE,
			   "Length of the last diagnose run.", d->elapsed_s, NULL);
}
