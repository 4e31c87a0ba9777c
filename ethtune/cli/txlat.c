/* ethtune txlat: trace a device while a load runs; report latency, orphans, BQL and IRQs. */
#define _GNU_SOURCE
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <math.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include <net/if.h>
#include <sys/wait.h>

#include "cli/cli.h"
#include "cli/commands.h"
#include "nl/devobj.h"
#include "util/ethtune.h"
#include "out/json_print.h"
#include "trace/txlat.h"
#include "util/stats.h"

#define TXLAT_MAX_BQL	64
#define TXLAT_MAX_IRQS	256
#define SAMPLE_MS	100
#define TXLAT_MAX_FLOOR 1024
/* --duty: the programs attached for pct% of every period, the xmit hook leaving first. Each
 * attach and detach costs the load a few ms (the tracepoints' static keys are patched on every
 * CPU), so the default period keeps them under 1%. */
#define DUTY_PERIOD_S 1.0
#define DUTY_GRACE_S  0.05
#define DUTY_MAX_WIN  4096

struct bql_sample {
	unsigned int n;
	uint64_t inflight_sum, inflight_max, inflight_min, limit_min, limit_max, limit_last;
	bool ok;
};

/* The command's run: what it traces, and what it samples itself beside the programs. */
struct txlat_run {
	const char *dev;
	double duration_s;   /* 0: until the load ends */
	char **load_argv;    /* NULL: no load */
	const char *backend; /* NULL: first that loads */
	bool bpf_stats;	     /* the kernel's run-time statistics on while tracing */
	double elapsed_s;
	/* lateness of 20 us timer sleeps taken between samples, under the same load: what this
	 * host adds to anything that waits for a timer or an interrupt (a guest: ~100 us) */
	unsigned int nfloor;
	double floor_us[TXLAT_MAX_FLOOR];
	int load_status; /* wait status of the load, -1 none */
	unsigned int nbql;
	struct bql_sample bql[TXLAT_MAX_BQL];
	unsigned int nirq, ntxirq;
	int irq[TXLAT_MAX_IRQS];
	bool irq_tx[TXLAT_MAX_IRQS];
	uint64_t irq0, irq1, txirq0, txirq1;
	struct txlat_result res; /* what the programs saw */
	/* --duty: the device's TX bytes/s in each attached window and in the detached one after
	 * it, and the median of traced over untraced with its sign-test interval */
	unsigned int duty_pct; /* 100: attached throughout */
	double period_s;
	unsigned int nwin;
	double on_bps[DUTY_MAX_WIN], off_bps[DUTY_MAX_WIN];
	unsigned int npairs;
	double cost_ratio, cost_lo, cost_hi, cost_cov, on_med_bps, off_med_bps;
};

static volatile sig_atomic_t txlat_interrupted;

static void on_signal(int sig __attribute__((unused)))
{
	txlat_interrupted = 1;
}

/* IRQs of the device: /proc/interrupts names containing DEV, and the device's MSI vectors. */
static void irq_find(struct txlat_run *r)
{
	char path[512], line[4096];
	const char *dirs[] = { "device/msi_irqs", "device/../msi_irqs" };
	bool msi[4096] = {};
	FILE *f;
	size_t i;

	for (i = 0; i < 2; i++) {
		struct dirent *de;
		DIR *d;

		dev_sysfs_path(path, sizeof(path), r->dev, "%s", dirs[i]);
		d = opendir(path);
		if (!d)
			continue;
		while ((de = readdir(d))) {
			int n = atoi(de->d_name);

			if (n > 0 && n < 4096)
				msi[n] = true;
		}
		closedir(d);
	}
	f = fopen("/proc/interrupts", "r");
	if (!f)
		return;
	while (fgets(line, sizeof(line), f) && r->nirq < TXLAT_MAX_IRQS) {
		char *colon = strchr(line, ':'), *name;
		int n;

		if (!colon || sscanf(line, " %d:", &n) != 1)
			continue;
		name = strrchr(line, ' ');
		name = name ? name + 1 : line;
		name[strcspn(name, "\n")] = 0;
		if (!((n > 0 && n < 4096 && msi[n]) ||
		      (!strncmp(name, r->dev, strlen(r->dev)) &&
		       (name[strlen(r->dev)] == 0 || name[strlen(r->dev)] == '-'))))
			continue;
		r->irq[r->nirq] = n;
		r->irq_tx[r->nirq] = strcasestr(name, "tx") || strstr(name, "output");
		r->ntxirq += r->irq_tx[r->nirq];
		r->nirq++;
	}
	fclose(f);
}

static void irq_count(struct txlat_run *r, uint64_t *all, uint64_t *tx)
{
	char line[4096];
	FILE *f;

	*all = *tx = 0;
	if (!r->nirq)
		return;
	f = fopen("/proc/interrupts", "r");
	if (!f)
		return;
	while (fgets(line, sizeof(line), f)) {
		char *p, *end;
		unsigned int i;
		uint64_t sum = 0;
		int n;

		if (sscanf(line, " %d:", &n) != 1)
			continue;
		for (i = 0; i < r->nirq && r->irq[i] != n; i++)
			;
		if (i == r->nirq)
			continue;
		p = strchr(line, ':') + 1;
		for (;;) {
			unsigned long long v = strtoull(p, &end, 10);

			if (end == p)
				break;
			sum += v;
			p = end;
		}
		*all += sum;
		if (r->irq_tx[i])
			*tx += sum;
	}
	fclose(f);
}

static void bql_sample(struct txlat_run *r)
{
	unsigned int q;

	for (q = 0; q < r->nbql; q++) {
		struct bql_sample *b = &r->bql[q];
		uint64_t in, lim;

		if (dev_bql_u64(r->dev, q, "inflight", &in) ||
		    dev_bql_u64(r->dev, q, "limit", &lim))
			continue;
		if (!b->n) {
			b->inflight_min = in;
			b->limit_min = lim;
		}
		b->ok = true;
		b->n++;
		b->inflight_sum += in;
		b->inflight_max = in > b->inflight_max ? in : b->inflight_max;
		b->inflight_min = in < b->inflight_min ? in : b->inflight_min;
		b->limit_max = lim > b->limit_max ? lim : b->limit_max;
		b->limit_min = lim < b->limit_min ? lim : b->limit_min;
		b->limit_last = lim;
	}
}

static void bql_count_queues(struct txlat_run *r)
{
	r->nbql = sysfs_tx_queues(r->dev, TXLAT_MAX_BQL);
}

static pid_t start_load(char **argv)
{
	pid_t pid = fork();

	if (pid)
		return pid;
	/* The report owns stdout; the load's own output goes to stderr with -v, else away. */
	if (et_opts.verbose) {
		dup2(2, 1);
	} else {
		int fd = open("/dev/null", O_WRONLY);

		if (fd >= 0)
			dup2(fd, 1);
	}
	signal(SIGINT, SIG_DFL);
	signal(SIGTERM, SIG_DFL);
	execvp(argv[0], argv);
	fprintf(stderr, "ethtune: txlat: cannot run load '%s': %s\n", argv[0], strerror(errno));
	_exit(127);
}

/* What tracing costs the load, from its own windows: each attached window's TX rate against
 * the mean of the detached windows on either side, so that drift slower than a period
 * cancels. The first and last windows are left out (the load starting and ending). */
static void duty_cost(struct txlat_run *r)
{
	static double ratio[DUTY_MAX_WIN], on[DUTY_MAX_WIN], off[DUTY_MAX_WIN];
	unsigned int i, n = 0;
	double lo, hi;

	r->npairs = 0;
	for (i = 1; i + 1 < r->nwin; i++) {
		double ref = (r->off_bps[i - 1] + r->off_bps[i]) / 2;

		if (!(r->on_bps[i] > 0) || !(r->off_bps[i - 1] > 0) || !(r->off_bps[i] > 0))
			continue;
		on[n] = r->on_bps[i];
		off[n] = ref;
		ratio[n++] = r->on_bps[i] / ref;
	}
	if (n < 4)
		return;
	r->npairs = n;
	r->cost_cov = stats_median_sign_ci(ratio, n, &r->cost_ratio, &r->cost_lo, &r->cost_hi);
	stats_median_sign_ci(on, n, &r->on_med_bps, &lo, &hi);
	stats_median_sign_ci(off, n, &r->off_med_bps, &lo, &hi);
}

/* Trace while the load (if any) runs and for duration_s; samples BQL and IRQs meanwhile. With a
 * duty below 100% the programs come and go every DUTY_PERIOD_S, and each window's TX bytes
 * are counted. */
static int txlat_trace(struct txlat_run *r, char *why, size_t len)
{
	struct txlat_opts opts = { .backend = r->backend, .bpf_stats = r->bpf_stats };
	struct sigaction sa = { .sa_handler = on_signal };
	double on_s = r->period_s * r->duty_pct / 100.0, grace = fmin(DUTY_GRACE_S, on_s / 4);
	bool duty = r->duty_pct < 100, on = true;
	double t0, end, next_sample, flip, wt;
	uint64_t wb = 0;
	struct txlat *t;
	pid_t child = -1;
	int ret;

	ret = txlat_open(r->dev, &opts, &t, why, len);
	if (ret)
		return ret;
	sigaction(SIGINT, &sa, NULL);
	sigaction(SIGTERM, &sa, NULL);
	irq_find(r);
	irq_count(r, &r->irq0, &r->txirq0);
	t0 = et_now_s();
	end = r->duration_s > 0 ? t0 + r->duration_s : 0;
	next_sample = t0;
	wt = t0;
	dev_sysfs_u64(r->dev, "statistics/tx_bytes", &wb);
	flip = duty ? t0 + on_s : 0;
	r->load_status = -1;
	if (r->load_argv) {
		child = start_load(r->load_argv);
		if (child < 0) {
			ret = -errno;
			txlat_close(t);
			return ret;
		}
	}
	while (!txlat_interrupted) {
		double now = et_now_s(), next;
		int st;

		if (now >= next_sample) {
			bql_sample(r);
			if (child > 0 && waitpid(child, &st, WNOHANG) == child) {
				r->load_status = st;
				child = -1;
				if (!end)
					break;
			}
			if (end && et_now_s() >= end)
				break;
			if (r->nfloor < TXLAT_MAX_FLOOR &&
			    !timer_floor_us(5, &r->floor_us[r->nfloor]))
				r->nfloor++;
			next_sample = now + SAMPLE_MS / 1000.0;
		}
		if (duty && et_now_s() >= flip) {
			uint64_t b = 0;
			double w;

			if (on) {
				txlat_pause(t, grace);
			} else {
				ret = txlat_resume(t);
				if (ret) {
					snprintf(why, len, "cannot attach again to %s: %s", r->dev,
						 strerror(-ret));
					break;
				}
			}
			dev_sysfs_u64(r->dev, "statistics/tx_bytes", &b);
			w = et_now_s();
			if (r->nwin < DUTY_MAX_WIN) {
				/* an off window closes the pair its on window opened */
				if (on)
					r->on_bps[r->nwin] = (b - wb) / (w - wt);
				else
					r->off_bps[r->nwin++] = (b - wb) / (w - wt);
			}
			wb = b;
			wt = w;
			on = !on;
			flip = w + (on ? on_s : r->period_s - on_s);
		}
		next = duty && flip < next_sample ? flip : next_sample;
		now = et_now_s();
		if (next > now)
			et_sleep_s(next - now);
	}
	r->elapsed_s = et_now_s() - t0;
	qsort(r->floor_us, r->nfloor, sizeof(r->floor_us[0]), cmp_double);
	irq_count(r, &r->irq1, &r->txirq1);
	/* Stop tracing before reading, so that the counts are consistent. */
	txlat_stop(t);
	if (!ret) {
		ret = txlat_read(t, &r->res);
		if (ret)
			snprintf(why, len, "cannot read the counts of %s: %s", r->dev,
				 strerror(-ret));
	}
	txlat_close(t);
	duty_cost(r);
	if (child > 0) {
		kill(child, SIGTERM);
		waitpid(child, &r->load_status, 0);
	}
	return ret;
}

/* ---- report ---- */

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

static void print_coalesce(const char *dev)
{
	static const char *const keys[] = { "tx-usecs", "tx-frames", "tx-usecs-irq",
					    "tx-frames-irq", "adaptive-tx" };
	struct et_vals v;
	struct nl_sock eth;
	bool ok;
	size_t i;

	ok = !nl_open_genl(&eth, "ethtool");
	if (ok) {
		ok = !obj_get(&eth, &et_coalesce, dev, &v);
		nl_close(&eth);
	}
	open_json_object("coalesce");
	print_text("coalesce:");
	for (i = 0; i < sizeof(keys) / sizeof(keys[0]); i++) {
		const struct et_param *p = obj_param(&et_coalesce, keys[i]);
		char fmt[48], buf[32];

		snprintf(fmt, sizeof(fmt), " %s %%s", keys[i]);
		if (!ok || !p || !vals_has(&v, p->attr)) {
			print_na(keys[i], fmt);
			continue;
		}
		obj_format_val(p, v.v[p->attr], buf, sizeof(buf));
		if (p->type == ET_BOOL) {
			print_on_off(PRINT_ANY, keys[i], fmt, v.v[p->attr]);
		} else {
			snprintf(fmt, sizeof(fmt), " %s %%llu", keys[i]);
			print_uint(PRINT_ANY, keys[i], fmt, v.v[p->attr]);
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

static void txlat_report(const struct txlat_run *r)
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
	print_coalesce(r->dev);
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

/* Split a load string on blanks into a NULL-terminated argv after the given prefix. */
static char **split_args(const char *prefix0, const char *prefix1, const char *s)
{
	char *copy = strdup(s), *tok, *save = NULL;
	char **argv = calloc(strlen(s) / 2 + 4, sizeof(char *));
	int n = 0;

	if (!copy || !argv) {
		free(copy);
		free(argv);
		return NULL;
	}
	if (prefix0)
		argv[n++] = (char *)prefix0;
	if (prefix1)
		argv[n++] = (char *)prefix1;
	for (tok = strtok_r(copy, " \t", &save); tok; tok = strtok_r(NULL, " \t", &save))
		argv[n++] = tok;
	argv[n] = NULL;
	return argv;
}

enum { O_DURATION = CLI_LONG, O_LOAD, O_LOAD_CMD, O_BACKEND, O_BPF_STATS, O_DUTY, O_PERIOD };

static const struct cli_opt txlat_opts[] = {
	{ "duration", O_DURATION, required_argument, "S",
	  "trace this long (default 5 s, or while the load runs)" },
	{ "load", O_LOAD, required_argument, "PROBE-ARGS",
	  "run 'ethtune probe PROBE-ARGS' while tracing" },
	{ "load-cmd", O_LOAD_CMD, required_argument, "CMD", "run 'sh -c CMD' while tracing" },
	{ "backend", O_BACKEND, required_argument, "btf|raw|tracepoint", "BPF attach backend" },
	{ "bpf-stats", O_BPF_STATS, no_argument, NULL,
	  "measure the programs' own cost (BPF run-time statistics: kernel-wide, "
	  "a clock read more in every program run while on)" },
	{ "duty", O_DUTY, required_argument, "PCT",
	  "attach the programs for PCT% of every period (default 100): the cost falls with it, "
	  "and the windows between measure it" },
	{ "period", O_PERIOD, required_argument, "MS",
	  "--duty's period (default 1000 ms; each attach and detach costs the load a few ms)" },
	CLI_END,
};

const struct cli_cmd cli_txlat = {
	.name = "txlat",
	.fn = cmd_txlat,
	.synopsis = "DEV",
	.opts = { txlat_opts },
	.dev_arg = true,
};

struct txlat_args {
	struct txlat_run *r;
	double dur;
	bool no_exe;
};

static bool backend_known(const char *name)
{
	const char *const *b;

	for (b = txlat_backend_names(); *b; b++)
		if (!strcmp(*b, name))
			return true;
	return false;
}

static int txlat_opt(void *ctx, int id, const char *arg, char *err, size_t errlen)
{
	static char exe[4096];
	struct txlat_args *t = ctx;
	uint32_t u;
	char *end;
	ssize_t n;

	switch (id) {
	case O_DURATION:
		t->dur = strtod(arg, &end);
		if (*end || end == arg || !(t->dur > 0) || t->dur > 86400) {
			snprintf(err, errlen, "invalid --duration '%s' (seconds, > 0)", arg);
			return -EINVAL;
		}
		return 0;
	case O_BPF_STATS:
		t->r->bpf_stats = true;
		return 0;
	case O_DUTY:
		if (parse_u32(arg, &u) || u < 10 || u > 100) {
			snprintf(err, errlen, "invalid --duty '%s' (percent, 10 to 100)", arg);
			return -EINVAL;
		}
		t->r->duty_pct = u;
		return 0;
	case O_PERIOD:
		if (parse_u32(arg, &u) || u < 200 || u > 60000) {
			snprintf(err, errlen, "invalid --period '%s' (ms, 200 to 60000)", arg);
			return -EINVAL;
		}
		t->r->period_s = u / 1000.0;
		return 0;
	case O_BACKEND:
		t->r->backend = arg;
		if (!backend_known(arg)) {
			snprintf(err, errlen, "unknown --backend '%s' (btf, raw, tracepoint)", arg);
			return -EINVAL;
		}
		return 0;
	}
	if (t->r->load_argv) {
		snprintf(err, errlen, "only one --load or --load-cmd");
		return -EINVAL;
	}
	if (id == O_LOAD) {
		n = readlink("/proc/self/exe", exe, sizeof(exe) - 1);
		if (n <= 0) {
			t->no_exe = true;
			return 0;
		}
		exe[n] = 0;
		t->r->load_argv = split_args(exe, "probe", arg);
	} else {
		/* the command line as given, to a shell */
		t->r->load_argv = calloc(4, sizeof(char *));
		if (t->r->load_argv) {
			t->r->load_argv[0] = "/bin/sh";
			t->r->load_argv[1] = "-c";
			t->r->load_argv[2] = (char *)arg;
		}
	}
	if (!t->r->load_argv) {
		snprintf(err, errlen, "out of memory");
		return -ENOMEM;
	}
	return 0;
}

int cmd_txlat(int argc, char **argv)
{
	static struct txlat_run r;
	struct txlat_args t = { .r = &r, .dur = -1 };
	char why[256];
	int ret;

	memset(&r, 0, sizeof(r));
	r.duty_pct = 100;
	r.period_s = DUTY_PERIOD_S;
	if (cli_args(&cli_txlat, &argc, argv, txlat_opt, &t, &ret))
		return ret;
	if (t.no_exe) {
		et_err("txlat: cannot find the ethtune binary for --load");
		return EXIT_FAIL;
	}
	if (argc < 2)
		return cli_usage_err(&cli_txlat, "missing device");
	if (argc > 2) {
		et_err("txlat: unexpected argument '%s' (one device at a time)", argv[2]);
		return EXIT_USAGE;
	}
	r.dev = argv[1];
	r.duration_s = t.dur > 0 ? t.dur : (r.load_argv ? 0 : 5);
	if (enter_netns_opt())
		return EXIT_FAIL;
	if (strlen(r.dev) >= IFNAMSIZ || !if_nametoindex(r.dev)) {
		report_missing_dev(r.dev);
		return EXIT_FAIL;
	}
	bql_count_queues(&r);
	ret = txlat_trace(&r, why, sizeof(why));
	if (ret) {
		et_err("txlat: %s", why);
		return EXIT_FAIL;
	}
	new_json_obj(et_opts.json);
	txlat_report(&r);
	delete_json_obj();
	return EXIT_OK;
}
