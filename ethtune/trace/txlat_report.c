/* txlat's report: latency per TX queue, socket ownership, BQL, IRQs, timer floor, tracing cost. */
#include <math.h>
#include <stdio.h>
#include <string.h>
#include <sys/wait.h>

#include "nl/devobj.h"
#include "out/json_print.h"
#include "out/prom.h"
#include "trace/txlat.h"
#include "trace/txlat_run.h"
#include "util/ethtune.h"

static void print_quantiles(const struct txlat_lat *l)
{
	if (!l->n) {
		print_na("mean-us", " mean %s");
		print_na("p50-us", " p50 %s");
		print_na("p90-us", " p90 %s");
		print_na("p99-us", " p99 %s");
		print_na("max-us", " max %s");
		return;
	}
	print_float(PRINT_ANY, "mean-us", " mean %.1f us", l->mean_us);
	print_float(PRINT_ANY, "p50-us", " p50 %.1f us", l->p50_us);
	print_float(PRINT_ANY, "p50-lo-us", " [%.1f,", l->p50_lo_us);
	print_float(PRINT_ANY, "p50-hi-us", " %.1f]", l->p50_hi_us);
	print_float(PRINT_ANY, "p90-us", " p90 %.1f us", l->p90_us);
	print_float(PRINT_ANY, "p99-us", " p99 %.1f us", l->p99_us);
	print_float(PRINT_ANY, "max-us", " max %.1f us", l->max_us);
}

static void print_queue(const struct txlat_queue *q, int idx, bool hist, bool lin, const char *key)
{
	const struct txlat_counts *c = &q->c;
	uint64_t freed = c->consumed + c->kfreed;

	open_json_object(key);
	if (idx < 0)
		print_string(PRINT_ANY, "queue", "  %-6s", "all");
	else if (idx == TXLAT_QUEUES - 1)
		print_string(PRINT_ANY, "queue", "  tx-%-3s", "31+");
	else
		print_int(PRINT_ANY, "queue", "  tx-%-3lld", idx);
	print_uint(PRINT_ANY, "xmit", " xmit %llu", c->xmit);
	print_uint(PRINT_ANY, "freed", " freed %llu", freed);
	print_uint(PRINT_JSON, "consumed", NULL, c->consumed);
	print_uint(PRINT_JSON, "kfreed", NULL, c->kfreed);
	print_uint(PRINT_JSON, "bytes", NULL, c->bytes);
	print_uint(PRINT_JSON, "gso-skbs", NULL, c->gso);
	print_uint(PRINT_JSON, "wire-packets", NULL, c->segs);
	print_uint(PRINT_JSON, "max-skb-bytes", NULL, c->max_len);
	print_uint(PRINT_JSON, "max-gso-segs", NULL, c->max_segs);
	print_quantiles(&q->free);
	print_nl();
	txlat_print_frags(c, lin, hist);
	if (hist)
		txlat_print_log2(&q->free, true);
	close_json_object();
}

static const char *const coal_keys[] = { "tx-usecs", "tx-frames", "tx-usecs-irq", "tx-frames-irq",
					 "adaptive-tx" };

/* The coalescing read at the run's end (txlat_run_trace()). */
static void print_coalesce(const struct txlat_run *r)
{
	const char *const *keys = coal_keys;
	const struct et_vals *v = &r->coal;
	bool ok = r->coal_ok;
	size_t i;

	open_json_object("coalesce");
	print_text("coalesce:");
	for (i = 0; i < sizeof(coal_keys) / sizeof(coal_keys[0]); i++) {
		const struct et_param *p = obj_param(&et_coalesce, keys[i]);
		char fmt[48], buf[32];

		snprintf(fmt, sizeof(fmt), " %s %%s", keys[i]);
		if (!ok || !p || !vals_has(v, p->attr)) {
			print_na(keys[i], fmt);
			continue;
		}
		obj_format_val(p, v->v[p->attr], buf, sizeof(buf));
		if (p->type == ET_BOOL) {
			print_on_off(PRINT_ANY, keys[i], fmt, v->v[p->attr]);
		} else {
			snprintf(fmt, sizeof(fmt), " %s %%llu", keys[i]);
			print_uint(PRINT_ANY, keys[i], fmt, v->v[p->attr]);
		}
	}
	print_nl();
	close_json_object();
}

static void print_tcp(const struct txlat_result *r, const char *completion)
{
	const struct txlat_counts *c = &r->c;
	const char *verdict = r->verdict;

	open_json_object("tcp");
	print_uint(PRINT_ANY, "skbs", "tcp: %llu skbs;", c->tcp);
	if (!r->ksyms_ok) {
		print_text(" socket ownership n/a (no tcp_wfree address in /proc/kallsyms)\n");
		close_json_object();
		return;
	}
	print_uint(PRINT_ANY, "owned-at-xmit", " at xmit %llu owned (tcp_wfree),", c->tcp_wfree);
	print_uint(PRINT_ANY, "no-socket-at-xmit", " %llu without socket (orphaned before xmit),",
		   c->tcp_no_sk);
	print_uint(PRINT_ANY, "sock-wfree-at-xmit", " %llu sock_wfree (ACK/RST),",
		   c->tcp_sock_wfree);
	print_uint(PRINT_ANY, "other-owner-at-xmit", " %llu other\n", c->tcp_other);
	print_uint(PRINT_ANY, "owned-until-free",
		   "     at free %llu still owned (the free released "
		   "the socket's memory),",
		   c->tcp_owned_free);
	print_uint(PRINT_ANY, "orphaned-after-xmit", " %llu orphaned after xmit\n",
		   c->tcp_orphaned);
	if (r->wfree_hooked)
		print_uint(PRINT_ANY, "wfree-before-free",
			   "     tcp_wfree before the free (skb_orphan): %llu\n", c->wfree_early);
	else
		print_na("wfree-before-free",
			 "     tcp_wfree before the free: %s (no fentry on this "
			 "kernel; only skbs still owned at free are timed below)\n");
	open_json_object("wfree");
	print_uint(PRINT_ANY, "count", "     xmit -> tcp_wfree: %llu skbs,", r->wfree.n);
	print_quantiles(&r->wfree);
	print_nl();
	close_json_object();
	/* n/a is a missing value: absent in JSON. */
	if (!strcmp(verdict, "n/a"))
		print_na("verdict", "     verdict: %s");
	else
		print_string(PRINT_ANY, "verdict", "     verdict: %s", verdict);
	if (!strcmp(verdict, "orphaning"))
		print_text(!strcmp(completion, "driver")
				   ? " (the socket's memory is released before the TX completion: "
				     "TSQ does not see completion delay)\n"
				   : " (at the receiver or reader, not by a TX completion)\n");
	else if (!strcmp(verdict, "owned"))
		print_text(" (TSQ waits for this free)\n");
	else
		print_nl();
	close_json_object();
}

static void print_bql(const struct txlat_run *r)
{
	unsigned int q;
	bool any = false;

	open_json_array(PRINT_JSON, "bql");
	for (q = 0; q < r->nbql; q++) {
		const struct bql_sample *b = &r->bql[q];

		if (!b->ok || (!b->inflight_max && !b->limit_max && r->nbql > 1))
			continue;
		any = true;
		open_json_object(NULL);
		print_uint(PRINT_ANY, "queue", "bql tx-%llu:", q);
		print_uint(PRINT_ANY, "samples", " %llu samples,", b->n);
		print_uint(PRINT_ANY, "inflight-min", " inflight min %llu", b->inflight_min);
		print_uint(PRINT_ANY, "inflight-avg", " avg %llu", b->inflight_sum / b->n);
		print_uint(PRINT_ANY, "inflight-max", " max %llu;", b->inflight_max);
		print_uint(PRINT_ANY, "limit-min", " limit min %llu", b->limit_min);
		print_uint(PRINT_ANY, "limit-max", " max %llu", b->limit_max);
		print_uint(PRINT_ANY, "limit-last", " last %llu\n", b->limit_last);
		close_json_object();
	}
	close_json_array(PRINT_JSON, NULL);
	if (!any)
		print_na("bql", "bql: %s\n");
}

static void print_floor(const struct txlat_run *r)
{
	if (!r->nfloor) {
		print_na("timer-floor-us", "timer wake-up lateness: %s\n");
		return;
	}
	print_float(
		PRINT_ANY, "timer-floor-us",
		"timer wake-up lateness during the run: median %.1f us (added to any completion "
		"that waits for a timer or an interrupt here)\n",
		r->floor_us[r->nfloor / 2]);
}

/* The windows of --duty, and what tracing cost the device's TX rate in them. */
static void print_duty(const struct txlat_run *r)
{
	if (r->duty_pct >= 100)
		return;
	open_json_object("duty");
	print_uint(PRINT_ANY, "pct", "duty: attached %u%%", r->duty_pct);
	print_float(PRINT_ANY, "period-ms", " of every %.0f ms", r->period_s * 1000);
	print_float(PRINT_ANY, "traced-s", " (%.1f s", r->res.traced_s);
	print_float(PRINT_ANY, "elapsed-s", " of %.1f s)", r->elapsed_s);
	print_uint(PRINT_ANY, "windows", ", %u windows\n", r->nwin);
	if (!r->npairs) {
		print_na("ratio", "cost: %s (fewer than 4 window pairs: trace longer)\n");
		close_json_object();
		return;
	}
	print_float(PRINT_ANY, "tx-mbps-on", "cost: TX %.0f Mbit/s attached", r->on_med_bps * 8e-6);
	print_float(PRINT_ANY, "tx-mbps-off", ", %.0f detached", r->off_med_bps * 8e-6);
	print_float(PRINT_ANY, "ratio", "; ratio %.3f", r->cost_ratio);
	print_float(PRINT_ANY, "ratio-lo", " [%.3f,", r->cost_lo);
	print_float(PRINT_ANY, "ratio-hi", " %.3f]", r->cost_hi);
	print_uint(PRINT_ANY, "pairs",
		   " (median of %u windows against the mean of their neighbours,", r->npairs);
	print_float(PRINT_ANY, "coverage-pct", " sign-test %.1f%% interval)\n", r->cost_cov);
	close_json_object();
}

static void print_irqs(const struct txlat_run *r)
{
	open_json_object("interrupts");
	if (!r->nirq || r->elapsed_s <= 0) {
		print_na("irq-per-s",
			 "interrupts: %s (no IRQ of this device in /proc/interrupts)\n");
		close_json_object();
		return;
	}
	print_float(PRINT_ANY, "irq-per-s", "interrupts: %.0f/s",
		    (r->irq1 - r->irq0) / r->elapsed_s);
	if (r->ntxirq)
		print_float(PRINT_ANY, "tx-irq-per-s", " (tx-named vectors %.0f/s)",
			    (r->txirq1 - r->txirq0) / r->elapsed_s);
	else
		print_na("tx-irq-per-s", " (tx %s: no tx-named vector)");
	print_uint(PRINT_ANY, "vectors", ", %llu vectors\n", r->nirq);
	close_json_object();
}

static void print_peer(const struct txlat_result *r)
{
	const struct txlat_lat *h = &r->peer_rx;

	open_json_object("peer-rx");
	print_uint(PRINT_ANY, "count", "xmit -> peer receive (netif_receive_skb): %llu skbs,",
		   h->n);
	print_quantiles(h);
	print_nl();
	if (et_opts.verbose)
		txlat_print_log2(h, true);
	close_json_object();
}

void txlat_run_print(const struct txlat_run *r)
{
	const struct txlat_result *t = &r->res;
	const char *driver = t->driver, *kind = t->kind, *completion = t->free_is;
	const struct txlat_counts *c = &t->c;
	unsigned int q, active = t->active;

	print_string(PRINT_ANY, "device", "txlat %s:", r->dev);
	print_string(PRINT_ANY, "driver", " driver %s", driver[0] ? driver : "?");
	if (kind[0])
		print_string(PRINT_ANY, "kind", " (%s)", kind);
	print_float(PRINT_ANY, "elapsed-s", ", %.2f s", r->elapsed_s);
	print_string(PRINT_ANY, "backend", ", backend %s\n", t->backend);
	print_string(PRINT_ANY, "free-is", "free: %s", completion);
	if (!strcmp(completion, "receiver"))
		print_text("-side: %s hands each skb to its peer, so the \"free\" is the receiver "
			   "consuming it, not a TX completion\n",
			   driver[0] ? driver
			   : kind[0] ? kind
				     : "loopback");
	else if (!strcmp(completion, "reader"))
		print_text(": the skb is freed when the reader of the tun/tap device takes it\n");
	else
		print_text(" TX completion (includes deferral to net_tx_action or defer lists)\n");
	print_coalesce(r);
	if (r->load_argv) {
		if (r->load_status < 0)
			print_na("load-exit", "load: exit %s\n");
		else if (WIFEXITED(r->load_status))
			print_int(PRINT_ANY, "load-exit", "load: exit %lld\n",
				  WEXITSTATUS(r->load_status));
		else
			print_int(PRINT_ANY, "load-signal", "load: killed by signal %lld\n",
				  WTERMSIG(r->load_status));
	}
	print_text("xmit -> free latency per TX queue:\n");
	open_json_array(PRINT_JSON, "queues");
	for (q = 0; q < TXLAT_QUEUES; q++)
		if (t->q[q].c.xmit)
			print_queue(&t->q[q], q, active == 1 || et_opts.verbose, t->pull_hooked,
				    NULL);
	close_json_array(PRINT_JSON, NULL);
	if (!active)
		print_text("  (no skb was sent on %s while tracing)\n", r->dev);
	if (active > 1)
		print_queue(&(struct txlat_queue){ t->c, t->free }, -1, true, t->pull_hooked,
			    "all");
	print_int(PRINT_ANY, "not-seen-freed",
		  "not seen freed: %lld (in flight at stop, or freed without a tracepoint)",
		  t->not_seen_freed);
	print_uint(PRINT_ANY, "kfreed", "; via kfree_skb %llu", c->kfreed);
	print_uint(PRINT_ANY, "reused", "; address reused before a traced free %llu", c->reused);
	print_uint(PRINT_ANY, "stale", "; stale %llu", c->stale);
	print_uint(PRINT_ANY, "evicted", "; evicted untimed %llu\n", c->evicted);
	if (t->peer)
		print_peer(t);
	print_tcp(t, completion);
	print_bql(r);
	print_irqs(r);
	print_floor(r);
	print_duty(r);
	open_json_object("bpf");
	if (t->bpf_runs && r->elapsed_s > 0) {
		print_uint(PRINT_ANY, "runs", "bpf: %llu program runs", t->bpf_runs);
		print_float(PRINT_ANY, "ns-per-run", ", %.0f ns each",
			    (double)t->bpf_run_ns / t->bpf_runs);
		print_float(PRINT_ANY, "cpu-pct", ", %.3f%% of one CPU\n",
			    t->bpf_run_ns / r->elapsed_s / 1e7);
	} else {
		print_na("runs", "bpf: cost %s (--bpf-stats measures it)\n");
	}
	close_json_object();
}

int txlat_prom_hist(struct prom *p, const char *name, const char *help, const struct txlat_lat *l,
		    const char *queue)
{
	double le[TXLAT_POW2_BINS];
	unsigned int i;

	if (!l->n)
		return 0;
	for (i = 0; i < TXLAT_POW2_BINS; i++)
		le[i] = ldexp(1, TXLAT_POW2_LO + i) / 1e9;
	if (queue)
		return prom_histogram(p, name, help, le, l->below_pow2, TXLAT_POW2_BINS, l->n,
				      l->sum_ns / 1e9, "queue", queue, NULL);
	return prom_histogram(p, name, help, le, l->below_pow2, TXLAT_POW2_BINS, l->n,
			      l->sum_ns / 1e9, NULL);
}

/* The queue's label: its number as the JSON's "queue", "31+" for the last (queues above it). */
static const char *queue_label(unsigned int q, char *buf, size_t len)
{
	if (q == TXLAT_QUEUES - 1)
		snprintf(buf, len, "%u+", q);
	else
		snprintf(buf, len, "%u", q);
	return buf;
}

int txlat_run_prom(const struct txlat_run *r, struct prom *p)
{
	const struct txlat_result *t = &r->res;
	const struct et_param *cp;
	unsigned int q;
	char ql[16];
	int ret = 0;

	for (q = 0; q < TXLAT_QUEUES && !ret; q++) {
		const struct txlat_queue *tq = &t->q[q];

		if (!tq->c.xmit)
			continue;
		queue_label(q, ql, sizeof(ql));
		ret = txlat_prom_hist(p, "ethtune_txlat_completion_seconds",
				      "Time from the driver's xmit of an skb to its free (TX "
				      "completion), skbs of the last run by TX queue.",
				      &tq->free, ql);
		prom_sample(p, "ethtune_txlat_xmit_skbs", PROM_GAUGE,
			    "Skbs handed to the driver in the last run, by TX queue.",
			    (double)tq->c.xmit, "queue", ql, NULL);
		prom_sample(p, "ethtune_txlat_xmit_bytes", PROM_GAUGE,
			    "Bytes of the skbs handed to the driver in the last run, by TX queue.",
			    (double)tq->c.bytes, "queue", ql, NULL);
		prom_sample(
			p, "ethtune_txlat_freed_skbs", PROM_GAUGE,
			"Skbs seen freed (consume_skb or kfree_skb) in the last run, by TX queue.",
			(double)(tq->c.consumed + tq->c.kfreed), "queue", ql, NULL);
	}
	prom_sample(p, "ethtune_txlat_not_seen_freed_skbs", PROM_GAUGE,
		    "Skbs handed to the driver whose free was not seen in the last run (in flight "
		    "at its end, or freed without a tracepoint).",
		    (double)t->not_seen_freed, NULL);
	prom_sample(p, "ethtune_txlat_tcp_skbs", PROM_GAUGE,
		    "TCP skbs handed to the driver in the last run.", (double)t->c.tcp, NULL);
	if (t->ksyms_ok && t->c.tcp)
		prom_sample(p, "ethtune_txlat_tcp_orphaned_ratio", PROM_GAUGE,
			    "Share of the last run's TCP skbs not owned by their socket when freed "
			    "(TSQ does not wait for their completion).",
			    t->orphan_frac, NULL);
	for (q = 0; q < r->nbql; q++) {
		const struct bql_sample *b = &r->bql[q];

		/* the queues the JSON's "bql" lists */
		if (!b->ok || (!b->inflight_max && !b->limit_max && r->nbql > 1))
			continue;
		queue_label(q, ql, sizeof(ql));
		prom_sample(p, "ethtune_txlat_bql_limit_bytes", PROM_GAUGE,
			    "BQL limit of a TX queue at the last sample of the last run.",
			    (double)b->limit_last, "queue", ql, NULL);
		prom_sample(p, "ethtune_txlat_bql_inflight_max_bytes", PROM_GAUGE,
			    "Largest BQL inflight of a TX queue sampled in the last run.",
			    (double)b->inflight_max, "queue", ql, NULL);
	}
	cp = obj_param(&et_coalesce, "tx-usecs");
	if (r->coal_ok && cp && vals_has(&r->coal, cp->attr))
		prom_sample(p, "ethtune_coalesce_tx_usecs_seconds", PROM_GAUGE,
			    "The device's tx-usecs coalescing setting at the end of the last txlat "
			    "run, in seconds.",
			    r->coal.v[cp->attr] / 1e6, NULL);
	cp = obj_param(&et_coalesce, "tx-frames");
	if (r->coal_ok && cp && vals_has(&r->coal, cp->attr))
		prom_sample(
			p, "ethtune_coalesce_tx_frames", PROM_GAUGE,
			"The device's tx-frames coalescing setting at the end of the last txlat "
			"run.",
			(double)r->coal.v[cp->attr], NULL);
	cp = obj_param(&et_coalesce, "adaptive-tx");
	if (r->coal_ok && cp && vals_has(&r->coal, cp->attr))
		prom_sample(
			p, "ethtune_coalesce_adaptive_tx", PROM_GAUGE,
			"The device's adaptive-tx coalescing (1 on, 0 off) at the end of the last "
			"txlat run.",
			r->coal.v[cp->attr] ? 1 : 0, NULL);
	if (r->nirq && r->elapsed_s > 0)
		prom_sample(p, "ethtune_txlat_interrupts_per_second", PROM_GAUGE,
			    "Interrupts of the device per second during the last run.",
			    (r->irq1 - r->irq0) / r->elapsed_s, NULL);
	if (r->nfloor)
		prom_sample(p, "ethtune_txlat_timer_floor_seconds", PROM_GAUGE,
			    "Median lateness of 20 us timer sleeps during the last run (what this "
			    "host adds to a completion that waits for a timer or an interrupt).",
			    r->floor_us[r->nfloor / 2] / 1e6, NULL);
	prom_sample(p, "ethtune_txlat_elapsed_seconds", PROM_GAUGE, "Length of the last run.",
		    r->elapsed_s, NULL);
	prom_sample(p, "ethtune_txlat_traced_seconds", PROM_GAUGE,
		    "Time of the last run with the programs attached (less than its length under "
		    "--duty).",
		    t->traced_s, NULL);
	if (r->duty_pct < 100 && r->npairs)
		prom_sample(p, "ethtune_txlat_duty_cost_ratio", PROM_GAUGE,
			    "TX rate attached over detached in the last --duty run (median over "
			    "windows): what tracing cost while attached.",
			    r->cost_ratio, NULL);
	return ret;
}
