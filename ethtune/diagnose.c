/* ethtune diagnose: one verdict on a device's TX completion, with evidence and a remedy. */
#define _GNU_SOURCE
#include <errno.h>
#include <stdarg.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <linux/if_link.h>
#include <linux/ethtool_netlink.h>

#include "commands.h"
#include "devobj.h"
#include "drvdb.h"
#include "ethtune.h"
#include "json_print.h"
#include "model.h"
#include "sweep.h"
#include "txlat_run.h"

enum verdict { V_PROMPT, V_SOFTWARE, V_DELAYED, V_ORPHAN, V_STALL, V_LARGE_MTU };

static const char *const verdict_names[] = {
	[V_PROMPT] = "prompt-completion",   [V_SOFTWARE] = "software-device",
	[V_DELAYED] = "delayed-completion", [V_ORPHAN] = "orphans-at-xmit",
	[V_STALL] = "completion-stalls",    [V_LARGE_MTU] = "large-mtu-collapse",
};

/* Devices whose "completion" is the receiver consuming the skb, not hardware. */
static bool software_kind(const char *kind, const char *driver)
{
	static const char *const sw[] = { "veth",   "tun",     "tap",	 "loopback",
					  "bridge", "macvlan", "ipvlan", "vxlan",
					  "dummy",  "geneve",  "netkit", NULL };
	unsigned int i;

	for (i = 0; sw[i]; i++)
		if (!strcmp(kind, sw[i]) || !strcmp(driver, sw[i]))
			return true;
	return false;
}

struct diag {
	char driver[32], kind[32];
	int speed;	   /* Mb/s, -1 unknown */
	double ser_us;	   /* serialization of an average skb at that speed */
	double d_txlat_us; /* xmit-to-free median beyond serialization (NaN: no txlat) */
	double floor_us;   /* median lateness of this host's timer wake-ups (NaN: unknown) */
	uint32_t mtu, max_mtu, gso;
	struct et_vals coal;
	bool have_coal;
	double one_flow, two_flows;
	struct txlat_sample tl;
	struct tsq_sweep tsq;
	struct mtu_sweep mtus;
	bool did_mtu;
	enum verdict v;
	const char *crosscheck; /* sweep D vs txlat D: "agree", "disagree", NULL not both */
	char evidence[6][256];
	unsigned int nev;
	char remedy[3][256];
	unsigned int nrem;
	double elapsed_s;
};

static void ev(struct diag *d, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static void ev(struct diag *d, const char *fmt, ...)
{
	va_list ap;

	if (d->nev >= 6)
		return;
	va_start(ap, fmt);
	vsnprintf(d->evidence[d->nev++], sizeof(d->evidence[0]), fmt, ap);
	va_end(ap);
}

static void rem(struct diag *d, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static void rem(struct diag *d, const char *fmt, ...)
{
	va_list ap;

	if (d->nrem >= 3)
		return;
	va_start(ap, fmt);
	vsnprintf(d->remedy[d->nrem++], sizeof(d->remedy[0]), fmt, ap);
	va_end(ap);
}

static int read_state(const char *dev, struct diag *d)
{
	struct nl_sock eth;
	struct et_link l;
	struct et_drvinfo di;
	int ret;

	ret = link_get_dev(dev, &l);
	if (ret)
		return ret;
	snprintf(d->kind, sizeof(d->kind), "%s", l.kind);
	d->mtu = (uint32_t)l.v.v[IFLA_MTU];
	d->max_mtu = (uint32_t)l.v.v[IFLA_MAX_MTU];
	d->gso = (uint32_t)l.v.v[IFLA_GSO_MAX_SIZE];
	ret = nl_open_genl(&eth, "ethtool");
	if (ret)
		return ret;
	drvinfo_get(&eth, dev, &di);
	snprintf(d->driver, sizeof(d->driver), "%s", di.ok ? di.driver : "");
	d->speed = di.speed;
	d->have_coal = !obj_get(&eth, &et_coalesce, dev, &d->coal);
	nl_close(&eth);
	if (!strcmp(dev, "lo"))
		snprintf(d->kind, sizeof(d->kind), "loopback");
	return 0;
}

/* The coalescing knob that sets this driver's TX completion delay. */
static const char *tx_knob(const struct diag *d)
{
	const struct drv_info *di = drvdb_lookup(d->driver);
	unsigned int i;

	if (d->have_coal && vals_has(&d->coal, ETHTOOL_A_COALESCE_TX_USECS))
		return "tx-usecs";
	for (i = 0; di && i < di->n_params; i++)
		if (obj_param(&et_coalesce, di->params[i].key))
			return di->params[i].key;
	return NULL;
}

static void remedy_from_db(struct diag *d, const char *word)
{
	const struct drv_info *di = drvdb_lookup(d->driver);
	unsigned int i;

	for (i = 0; di && i < di->n_paths; i++)
		if (strcasestr(di->paths[i].what, word)) {
			rem(d, "%s (%s)", di->paths[i].remedy, di->paths[i].source);
			return;
		}
}

/* Completion delay beyond serialization, as txlat measured it (the direct measurement). */
static void txlat_delay(struct diag *d)
{
	double avg = d->tl.xmit ? (double)d->tl.bytes / (double)d->tl.xmit : 0;

	d->ser_us = d->speed > 0 && avg > 0 ? avg * 8 / d->speed : 0;
	d->d_txlat_us = d->tl.ok && !isnan(d->tl.p50_us) ? fmax(0, d->tl.p50_us - d->ser_us) : NAN;
}

/* 100 us sits between the coalescing that keeps one flow at line rate (16 us on mlx4 since
 * ecfd2ce1a9d5) and the one that capped it at 4 Gbit/s (128 us). */
#define DELAYED_US 100.0

/* The sweep measures the delay TSQ waits for (residence below TCP) under bulk load; txlat
 * times one skb under request/response. Say whether the two agree; the fitted D only where it
 * is all there is, with why its plateau may not be the line rate. */
static void crosscheck(struct diag *d, double R_mbps)
{
	const struct tsq_sweep *s = &d->tsq;
	double line = s->line_mbps > 0 ? s->line_mbps * s->rho : 0;

	if (s->n_res && !isnan(d->d_txlat_us)) {
		bool agree = fabs(s->d_res_us - d->d_txlat_us) <= fmax(0.25 * d->d_txlat_us, 100);

		d->crosscheck = agree ? "agree" : "disagree";
		ev(d,
		   "cross-check: under bulk load a byte waits %.0f us beyond serialization for its "
		   "free [%.0f, %.0f] (sweep, sk_wmem_alloc / throughput); txlat %.0f us: %s",
		   s->d_res_us, s->d_res_lo_us, s->d_res_hi_us, d->d_txlat_us,
		   agree ? "they agree" : "they disagree");
		return;
	}
	if (!s->fit_ok || isnan(d->d_txlat_us) || s->n_res)
		return;
	d->crosscheck =
		d->d_txlat_us >= s->fit.D_lo * 1e6 * 0.8 && d->d_txlat_us <= s->fit.D_hi * 1e6 * 1.2
			? "agree"
			: "disagree";
	if (!strcmp(d->crosscheck, "agree"))
		return;
	if (line > 0 && R_mbps < 0.8 * line)
		ev(d,
		   "cross-check: the sweep's plateau %.0f Mbit/s is below the line rate %.0f: "
		   "the kernel's own TSQ floor max(2*truesize, pacing_rate>>10) caps the window "
		   "above the sysctl, so its fitted D %.0f us is not the completion delay",
		   R_mbps, line, s->fit.D * 1e6);
	else
		ev(d,
		   "cross-check: the sweep's fitted D %.0f us [%.0f, %.0f] disagrees with "
		   "txlat's %.0f us; txlat's is used",
		   s->fit.D * 1e6, s->fit.D_lo * 1e6, s->fit.D_hi * 1e6, d->d_txlat_us);
}

static void decide(const char *dev, struct diag *d)
{
	const struct tsq_sweep *s = &d->tsq;
	double R = s->fit_ok ? s->fit.R / 1e6 : fmax(d->one_flow, 0);
	double D_fit = s->fit_ok ? s->fit.D * 1e6 : NAN;
	double D_us = !isnan(d->d_txlat_us) ? d->d_txlat_us : s->n_res ? s->d_res_us : D_fit;
	double coal_us = d->have_coal && vals_has(&d->coal, ETHTOOL_A_COALESCE_TX_USECS)
				 ? (double)d->coal.v[ETHTOOL_A_COALESCE_TX_USECS]
				 : 0;
	bool sw = software_kind(d->kind, d->driver);

	/* A software device's "completion" is its receiver: nothing below applies to it. */
	if (sw) {
		d->v = V_SOFTWARE;
		ev(d,
		   "%s is a software device (%s): its \"completion\" is the receiver consuming the "
		   "skb",
		   dev, d->kind[0] ? d->kind : d->driver);
		if (d->tl.ok && d->tl.tcp_skbs)
			ev(d, "%.0f%% of TCP skbs left their socket before the free (txlat: %s)",
			   100 * d->tl.orphan_frac, d->tl.free_is[0] ? d->tl.free_is : "receiver");
		if (s->fit_ok)
			ev(d, "fit: R %.0f Mbit/s, D %.1f us; cap at the 4 MiB default %.0f Mbit/s",
			   R, D_fit, s->cap_default_mbps);
		return;
	}
	if (d->tl.ok && d->tl.tcp_skbs > 100 && d->tl.orphan_frac > 0.5) {
		d->v = V_ORPHAN;
		ev(d, "%.0f%% of %llu TCP skbs were not owned by their socket when freed (txlat)",
		   100 * d->tl.orphan_frac, (unsigned long long)d->tl.tcp_skbs);
		ev(d,
		   "TSQ and BQL cannot see this device's queue: single flows are not throttled by "
		   "completions, and bufferbloat moves into the driver");
		remedy_from_db(d, "orphan");
		if (!d->nrem)
			rem(d, "make the driver keep skbs owned until completion (napi_tx / a TX "
			       "completion interrupt)");
		return;
	}
	if (d->did_mtu && d->mtus.collapse) {
		d->v = V_LARGE_MTU;
		ev(d,
		   "one flow collapses from mtu %u while two flows recover (HiperSockets "
		   "pattern)",
		   d->mtus.collapse_mtu);
		rem(d, "use an MTU below %u, or make completions independent of the next transmit",
		    d->mtus.collapse_mtu);
		remedy_from_db(d, "next");
		return;
	}
	/* Completions far later than the coalescing timer allows: they wait for something else
	 * (the next transmit, a long rescan timer). */
	if (!isnan(d->d_txlat_us) && d->d_txlat_us >= 2000 &&
	    d->d_txlat_us > 3 * (coal_us + DELAYED_US)) {
		d->v = V_STALL;
		ev(d,
		   "completion delay %.0f us (txlat p50 %.0f us, p90 %.0f us) with tx-usecs %.0f: "
		   "completions wait for something else",
		   d->d_txlat_us, d->tl.p50_us, d->tl.p90_us, coal_us);
		ev(d, "one flow %.1f Mbit/s, two flows %.1f Mbit/s", d->one_flow, d->two_flows);
		rem(d, "completion happens only on the next transmit or a long timer: enable a TX "
		       "completion interrupt or shorten the timer");
		remedy_from_db(d, "next");
		return;
	}
	if (!d->tl.ok && d->two_flows > 2 * d->one_flow &&
	    d->one_flow < 0.5 * fmax(R, d->two_flows)) {
		d->v = V_STALL;
		ev(d,
		   "one flow %.1f Mbit/s, two flows %.1f Mbit/s: a second flow's transmits free "
		   "the first flow's skbs",
		   d->one_flow, d->two_flows);
		rem(d, "completion happens only on the next transmit or a long timer: enable a TX "
		       "completion interrupt or shorten the timer");
		remedy_from_db(d, "next");
		return;
	}
	/* The part of a measured delay this host's own timers/interrupts add to any completion
	 * (an emulated guest's: ~80 us) is not the driver's coalescing. */
	if (!isnan(d->d_txlat_us) && !isnan(d->floor_us)) {
		D_us = fmax(0, D_us - d->floor_us);
		if (d->floor_us >= 10)
			ev(d,
			   "this host's timer wake-ups are late by %.0f us (median), part of every "
			   "measured completion delay; %.0f us remain",
			   d->floor_us, D_us);
	}
	if (!isnan(D_us) && D_us >= DELAYED_US) {
		struct model_in in;
		struct model_out mo;
		const char *knob = tx_knob(d);
		double us;

		d->v = V_DELAYED;
		if (!isnan(d->d_txlat_us))
			ev(d,
			   "completion delay D %.0f us beyond %.0f us of serialization (txlat p50 "
			   "%.0f us, p99 %.0f us)",
			   d->d_txlat_us, d->ser_us, d->tl.p50_us, d->tl.p99_us);
		if (s->fit_ok)
			ev(d,
			   "TSQ sweep fit: D %.0f us [%.0f, %.0f], plateau %.0f Mbit/s, knee %.0f "
			   "KiB",
			   D_fit, s->fit.D_lo * 1e6, s->fit.D_hi * 1e6, R, s->fit.knee / 1024);
		crosscheck(d, R);
		model_defaults(&in);
		in.rate_bps = d->speed > 0 ? d->speed * 1e6 : s->fit.R;
		in.tsq = s->tsq_before ? s->tsq_before : 4194304;
		in.mtu = d->mtu >= 576 ? d->mtu : 1500;
		in.gso_size = d->gso >= in.mtu && d->gso <= 65536 ? d->gso : 65536;
		in.tx_usecs = D_us;
		if (!model_predict(&in, &mo))
			ev(d,
			   "model: one flow capped at %.0f Mbit/s at tcp_limit_output_bytes %llu",
			   mo.tput_bps / 1e6, (unsigned long long)in.tsq);
		us = model_max_tx_usecs(&in, 0.95);
		if (knob && us >= 0)
			rem(d,
			    "ethtune set %s coalesce %s %.0f (largest delay that keeps 95%% of "
			    "line "
			    "rate at the current TSQ limit, by the model)",
			    dev, knob, floor(us));
		if (s->fit_ok)
			rem(d, "or raise net.ipv4.tcp_limit_output_bytes to at least %.0f",
			    ceil(s->fit.knee));
		return;
	}
	d->v = V_PROMPT;
	if (!isnan(d->d_txlat_us))
		ev(d, "completion delay %.0f us beyond serialization (txlat p50 %.0f us)",
		   d->d_txlat_us, d->tl.p50_us);
	if (s->fit_ok)
		ev(d,
		   "TSQ sweep fit: D %.1f us; one flow reaches %.0f%% of the plateau at the "
		   "current limit",
		   D_fit, R > 0 ? 100 * s->cap_current_mbps / R : 0);
	crosscheck(d, R);
}

static void print_diag(const char *dev, const struct diag *d)
{
	unsigned int i;

	print_string(PRINT_ANY, "verdict", "\nverdict: %s\n", verdict_names[d->v]);
	if (!isnan(d->d_txlat_us))
		print_float(PRINT_ANY, "D-txlat-us", "  D (txlat, beyond serialization) %.0f us\n",
			    d->d_txlat_us);
	if (d->tsq.fit_ok)
		print_float(PRINT_ANY, "D-fit-us", "  D (TSQ sweep fit) %.0f us\n",
			    d->tsq.fit.D * 1e6);
	print_float(PRINT_ANY, "serialization-us", "  serialization of an average skb %.0f us\n",
		    d->ser_us);
	if (d->crosscheck)
		print_string(PRINT_ANY, "D-crosscheck", "  D from the sweep and from txlat: %s\n",
			     d->crosscheck);
	if (!isnan(d->floor_us))
		print_float(PRINT_ANY, "timer-floor-us",
			    "  timer wake-up floor of this host %.0f us\n", d->floor_us);
	open_json_array(PRINT_JSON, "evidence");
	for (i = 0; i < d->nev; i++) {
		print_text("  evidence: ");
		print_string(PRINT_ANY, NULL, "%s\n", d->evidence[i]);
	}
	close_json_array(PRINT_JSON, NULL);
	open_json_array(PRINT_JSON, "remedy");
	for (i = 0; i < d->nrem; i++) {
		print_text("  remedy: ");
		print_string(PRINT_ANY, NULL, "%s\n", d->remedy[i]);
	}
	close_json_array(PRINT_JSON, NULL);
	print_float(PRINT_ANY, "elapsed-s", "diagnose took %.1f s\n", d->elapsed_s);
}

int cmd_diagnose(int argc, char **argv)
{
	struct sweep_opts o;
	struct diag *d;
	struct probe_result *r;
	bool mtu_sweep = false, no_txlat = false;
	char err[512];
	double t0 = et_now_s();
	int i, used, ret;

	sweep_opts_init(&o);
	o.duration_s = 1.5;
	o.warmup_s = 0.3;
	o.points = 7;
	o.tsq_min = 4096;
	for (i = 1; i < argc; i += used) {
		ret = sweep_parse_common(&o, argc, argv, i, &used, err, sizeof(err));
		if (ret < 0) {
			et_err("diagnose: %s", err);
			return EXIT_USAGE;
		}
		if (ret)
			continue;
		used = 1;
		if (!strcmp(argv[i], "--mtu-sweep"))
			mtu_sweep = true;
		else if (!strcmp(argv[i], "--no-txlat"))
			no_txlat = true;
		else if (argv[i][0] != '-' && !o.dev)
			o.dev = argv[i];
		else {
			et_err("diagnose: unknown option '%s'", argv[i]);
			return EXIT_USAGE;
		}
	}
	ret = sweep_prepare(&o, "diagnose");
	if (ret)
		return ret;
	d = calloc(1, sizeof(*d));
	r = calloc(1, sizeof(*r));
	if (!d || !r) {
		free(d);
		free(r);
		return EXIT_FAIL;
	}
	ret = read_state(o.dev, d);
	if (ret) {
		et_err("diagnose %s: cannot read the device: %s", o.dev, strerror(-ret));
		goto out;
	}
	new_json_obj(et_opts.json);
	print_string(PRINT_ANY, "device", "ethtune diagnose %s", o.dev);
	print_string(PRINT_ANY, "driver", " (driver %s", d->driver[0] ? d->driver : "?");
	print_string(PRINT_ANY, "kind", "%s", d->kind[0] ? ", " : "");
	print_text("%s", d->kind);
	print_string(PRINT_ANY, "peer", ") via %s\n", o.peer);
	if (d->have_coal)
		obj_show(&et_coalesce, &d->coal);

	d->floor_us = NAN; /* stays unknown if the measurement fails */
	timer_floor_us(200, &d->floor_us);

	/* 1. Tracing under request/response load: one small skb in flight at a time, so the ring
	 * never queues and xmit-to-free is the completion delay itself; also shows orphaning. */
	sweep_progress(&o, 1, 4, "request/response under txlat");
	if (!no_txlat)
		txlat_sample_start(o.dev, o.duration_s + o.warmup_s + 0.5, &d->tl);
	ret = sweep_probe(&o, 1, PROBE_RR, 1, r, err, sizeof(err));
	if (!no_txlat)
		txlat_sample_finish(&d->tl);
	if (ret)
		goto fail;
	sweep_progress(&o, 2, 4, "one flow");
	ret = sweep_probe(&o, 1, PROBE_STREAM, 0, r, err, sizeof(err));
	if (ret)
		goto fail;
	d->one_flow = r->mbps;
	sweep_progress(&o, 3, 4, "two flows");
	ret = sweep_probe(&o, 2, PROBE_STREAM, 0, r, err, sizeof(err));
	if (ret)
		goto fail;
	d->two_flows = r->mbps;
	open_json_object("probe");
	print_float(PRINT_ANY, "one-flow-mbps", "one flow %.1f Mbit/s", d->one_flow);
	print_float(PRINT_ANY, "two-flows-mbps", ", two flows %.1f Mbit/s\n", d->two_flows);
	close_json_object();
	open_json_object("txlat");
	if (d->tl.ok) {
		print_float(PRINT_ANY, "p50-us", "txlat: xmit-to-free p50 %.1f us", d->tl.p50_us);
		print_float(PRINT_ANY, "p99-us", ", p99 %.1f us", d->tl.p99_us);
		print_float(PRINT_ANY, "orphan-fraction", ", orphaned %.2f", d->tl.orphan_frac);
		print_string(PRINT_ANY, "free-is", " (%s)\n", d->tl.free_is);
	} else {
		print_text("txlat: n/a%s%s\n", d->tl.err[0] ? " - " : "",
			   no_txlat ? "disabled" : d->tl.err);
	}
	close_json_object();

	/* 2. TSQ sweep and model fit. */
	ret = sweep_tsq(&o, &d->tsq, err, sizeof(err));
	if (ret)
		goto fail;
	sweep_tsq_print(&d->tsq);

	/* 3. MTU sweep where large MTUs exist and the peer's MTU can follow. */
	/* Large MTUs are worth a sweep when asked, or when the device runs one now or a second
	 * flow does much better than one (the HiperSockets signature). */
	if (mtu_sweep || (d->max_mtu > 9000 && o.peer_dev &&
			  (d->mtu > 9000 || d->two_flows > 1.5 * d->one_flow))) {
		if (!o.peer_dev)
			et_warn("diagnose: --mtu-sweep without --peer-dev: the peer keeps its MTU");
		ret = sweep_mtu(&o, &d->mtus, err, sizeof(err));
		if (ret)
			goto fail;
		d->did_mtu = true;
		sweep_mtu_print(&d->mtus);
	}
	d->elapsed_s = et_now_s() - t0;
	txlat_delay(d);
	decide(o.dev, d);
	print_diag(o.dev, d);
	if (o.svg) {
		struct svg_hist h = { .n = d->tl.nhist };

		memcpy(h.lo_us, d->tl.hist_lo, sizeof(h.lo_us));
		memcpy(h.hi_us, d->tl.hist_hi, sizeof(h.hi_us));
		memcpy(h.count, d->tl.hist_count, sizeof(h.count));
		if (svg_write(o.svg, "ethtune diagnose", &d->tsq, &h))
			et_warn("cannot write %s", o.svg);
	}
	delete_json_obj();
	ret = 0;
	goto out;
fail:
	delete_json_obj();
	et_err("diagnose %s: %s", o.dev, err);
out:
	free(d);
	free(r);
	return ret ? EXIT_FAIL : EXIT_OK;
}
