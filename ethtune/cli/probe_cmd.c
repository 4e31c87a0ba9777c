/* The probe command: options, effective configuration first, results in text or JSON. */
#include <errno.h>
#include <inttypes.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/utsname.h>
#include <time.h>
#include <unistd.h>

#include "cli/cli.h"
#include "cli/commands.h"
#include "nl/devobj.h"
#include "util/ethtune.h"
#include "out/json_print.h"
#include "probe/probe.h"

static int parse_double(const char *s, double *out)
{
	char *end;

	errno = 0;
	*out = strtod(s, &end);
	return (!*s || *end || errno || !isfinite(*out)) ? -EINVAL : 0;
}

/* "A,B" into two strings (either may be empty). */
static int split2(const char *s, char *a, char *b, size_t len)
{
	const char *c = strchr(s, ',');

	if (!c || (size_t)(c - s) >= len || strlen(c + 1) >= len)
		return -EINVAL;
	snprintf(a, len, "%.*s", (int)(c - s), s);
	snprintf(b, len, "%s", c + 1);
	return 0;
}

static int parse_buf(const char *s, uint32_t *out)
{
	uint64_t v;

	if (!strcmp(s, "auto")) {
		*out = 0;
		return 0;
	}
	if (parse_size(s, &v) || v > PROBE_MAX_BUF)
		return -EINVAL;
	*out = v;
	return 0;
}

static int parse_cpu(const char *s, int *out)
{
	uint32_t v;

	if (!*s || !strcmp(s, "any")) {
		*out = -1;
		return 0;
	}
	if (parse_u32(s, &v) || v > 4095)
		return -EINVAL;
	*out = v;
	return 0;
}

static void progress(void *arg, unsigned int iter, double el, double total, double v)
{
	const struct probe_cfg *c = arg;
	bool rr = c->test == PROBE_RR || c->test == PROBE_CRR;

	fprintf(stderr, "\r\033[K[%u/%u] %.0f/%.0f s  %.1f %s", iter, c->iter_max, el, total, v,
		rr ? "trans/s" : "Mbit/s");
	fflush(stderr);
}

static void print_config(const struct probe_cfg *c)
{
	open_json_object("config");
	{
		print_string(PRINT_ANY, "test", "probe %s", probe_test_name(c->test));
		char host[256];
		uint16_t port;

		if (probe_peer_split(c->peer, c->port, host, sizeof(host), &port))
			snprintf(host, sizeof(host), "%s", c->peer);
		print_string(PRINT_ANY, "peer", " to %s", host);
		print_uint(PRINT_ANY, "port", " port %u\n", port);
	}
	print_uint(PRINT_ANY, "flows", "  flows %u", c->flows);
	print_uint(PRINT_ANY, "msg-size", ", msg-size %u", c->msg_size);
	if (c->recv_size)
		print_uint(PRINT_ANY, "recv-size", ", recv-size %u", c->recv_size);
	else
		print_string(PRINT_ANY, "recv-size", ", recv-size %s", "auto");
	print_float(PRINT_ANY, "duration-s", ", duration %g s", c->duration_s);
	print_float(PRINT_ANY, "warmup-s", ", warmup %g s\n", c->warmup_s);
	if (c->sndbuf)
		print_uint(PRINT_ANY, "sndbuf", "  sndbuf %u", c->sndbuf);
	else
		print_string(PRINT_ANY, "sndbuf", "  sndbuf %s", "auto");
	if (c->rcvbuf)
		print_uint(PRINT_ANY, "rcvbuf", ", rcvbuf %u", c->rcvbuf);
	else
		print_string(PRINT_ANY, "rcvbuf", ", rcvbuf %s", "auto");
	print_on_off(PRINT_ANY, "nodelay", ", nodelay %s", c->nodelay);
	print_string(PRINT_ANY, "send", ", send %s", probe_send_name(c->send));
	print_on_off(PRINT_ANY, "skip-rx-copy", ", skip-rx-copy %s", c->skip_rx_copy);
	print_uint(PRINT_ANY, "rcvlowat", ", rcvlowat %" PRIu64, (uint64_t)probe_rcvlowat(c));
	print_uint(PRINT_ANY, "rx-poll-usecs", ", rx-poll-usecs %" PRIu64,
		   (uint64_t)probe_rx_poll_us(c));
	print_on_off(PRINT_ANY, "sample", ", sample %s", !c->no_sample);
	print_string(PRINT_ANY, "cc", ", cc %s", c->cc[0] ? c->cc : "default");
	print_int(PRINT_ANY, "cpu-local", ", cpu %d", c->cpu_local);
	print_int(PRINT_ANY, "cpu-remote", ",%d\n", c->cpu_remote);
	print_uint(PRINT_ANY, "iterations-min", "  iterations %u", c->iter_min);
	print_uint(PRINT_ANY, "iterations-max", "..%u", c->iter_max);
	if (c->conf_level) {
		print_float(PRINT_ANY, "confidence-level", ", confidence %g%%", c->conf_level);
		print_float(PRINT_ANY, "confidence-width", " within %g%%", c->conf_width);
	} else {
		print_text(", confidence off");
	}
	print_string(PRINT_ANY, "bind-dev", ", bind-dev %s\n", c->bind_dev ? c->bind_dev : "any");
	close_json_object();
	fflush(stdout);
}

static void print_devstats(const char *key, const char *label, const struct probe_devstats *d)
{
	unsigned int i;

	if (d->valid) {
		open_json_object(key);
		print_text("%s ", label);
		print_string(PRINT_ANY, "dev", "%s:", d->dev);
		print_uint(PRINT_ANY, "rx-packets", " rx %llu pkts",
			   (unsigned long long)d->rx_packets);
		print_uint(PRINT_ANY, "rx-bytes", " %llu bytes", (unsigned long long)d->rx_bytes);
		print_uint(PRINT_ANY, "tx-packets", ", tx %llu pkts",
			   (unsigned long long)d->tx_packets);
		print_uint(PRINT_ANY, "tx-bytes", " %llu bytes", (unsigned long long)d->tx_bytes);
		print_uint(PRINT_ANY, "rx-dropped", ", dropped rx %llu",
			   (unsigned long long)d->rx_dropped);
		print_uint(PRINT_ANY, "tx-dropped", " tx %llu", (unsigned long long)d->tx_dropped);
		print_uint(PRINT_ANY, "interrupts", ", interrupts %llu",
			   (unsigned long long)d->irqs);
		print_uint(PRINT_ANY, "irq-lines", " (%u irq lines)\n", d->irq_lines);
		print_uint(PRINT_ANY, "tx-queues", "  %u TX queues:", d->n_txq);
		if (d->have_bql) {
			print_uint(PRINT_ANY, "bql-limit", " BQL limit %llu",
				   (unsigned long long)d->bql_limit);
			print_uint(PRINT_ANY, "bql-inflight", " inflight %llu",
				   (unsigned long long)d->bql_inflight);
		} else {
			print_na("bql-limit", " BQL limit %s");
		}
		if (d->have_stall) {
			print_uint(PRINT_ANY, "bql-stall-cnt", ", stall-cnt +%llu",
				   (unsigned long long)d->bql_stall_cnt);
			print_uint(PRINT_ANY, "bql-stall-max-ms", " (stall-max %llu ms)",
				   (unsigned long long)d->bql_stall_max_ms);
		} else {
			print_na("bql-stall-cnt", ", stall-cnt %s");
		}
		if (d->have_qbytes) {
			print_uint(PRINT_ANY, "queue-tx-packets", ", queues tx %llu pkts",
				   (unsigned long long)d->q_packets);
			print_uint(PRINT_ANY, "queue-tx-bytes", " %llu bytes",
				   (unsigned long long)d->q_bytes);
		}
		if (d->have_qstats) {
			print_uint(PRINT_ANY, "tx-stop", ", tx-stop +%llu",
				   (unsigned long long)d->tx_stop);
			print_uint(PRINT_ANY, "tx-wake", " tx-wake +%llu",
				   (unsigned long long)d->tx_wake);
		} else {
			print_na("tx-stop", ", tx-stop %s");
		}
		if (d->have_tcpext)
			print_uint(PRINT_ANY, "spurious-rtx-host-queues",
				   ", TcpExt TCPSpuriousRtxHostQueues +%llu",
				   (unsigned long long)d->spurious_rtx_hostq);
		else
			print_na("spurious-rtx-host-queues",
				 ", TcpExt TCPSpuriousRtxHostQueues %s");
		print_nl();
		open_json_object("ethtool-stats");
		if (d->n_ethtool)
			print_text("  ethtool -S deltas:");
		for (i = 0; i < d->n_ethtool; i++) {
			print_text(" %s +%llu", d->ethtool_name[i],
				   (unsigned long long)d->ethtool_delta[i]);
			print_uint(PRINT_JSON, d->ethtool_name[i], NULL, d->ethtool_delta[i]);
		}
		if (d->n_ethtool)
			print_nl();
		close_json_object();
		close_json_object();
	}
}

static void print_results(const struct probe_cfg *c, const struct probe_result *r)
{
	bool rr = c->test == PROBE_RR || c->test == PROBE_CRR, bulk = !rr;
	const char *unit = rr ? "trans/s" : "Mbit/s";
	unsigned int i;

	open_json_object("result");
	open_json_array(PRINT_JSON, "iterations");
	for (i = 0; i < r->n_iter; i++) {
		print_text("iteration %u: %.2f %s\n", i + 1, r->iter_value[i], unit);
		print_float(PRINT_JSON, NULL, NULL, r->iter_value[i]);
	}
	close_json_array(PRINT_JSON, NULL);
	if (!rr) {
		print_float(PRINT_ANY, "throughput-mbps", "throughput: %.2f Mbit/s", r->mbps);
		print_uint(PRINT_FP, NULL, " (%u flows summed)\n", c->flows);
		open_json_array(PRINT_JSON, "flow-mbps");
		for (i = 0; i < c->flows; i++) {
			if (c->flows > 1 && (et_opts.verbose || c->flows <= 8))
				print_text("  flow %u: %.2f Mbit/s\n", i, r->flow_mbps[i]);
			print_float(PRINT_JSON, NULL, NULL, r->flow_mbps[i]);
		}
		close_json_array(PRINT_JSON, NULL);
	} else {
		print_float(PRINT_ANY, "transactions-per-s", "transactions: %.1f/s", r->tps);
		print_uint(PRINT_FP, NULL, " (%u flows summed)\n", c->flows);
		open_json_array(PRINT_JSON, "flow-tps");
		for (i = 0; i < c->flows; i++)
			print_float(PRINT_JSON, NULL, NULL, r->flow_tps[i]);
		close_json_array(PRINT_JSON, NULL);
	}
	if (r->have_lat) {
		open_json_object("latency");
		probe_print_lat(&r->lat, false);
		print_uint(PRINT_ANY, "samples", " (%llu samples)\n",
			   (unsigned long long)r->lat_samples);
		close_json_object();
	}
	open_json_object("confidence");
	print_string(PRINT_ANY, "stop-reason", "stopped: %s", probe_stop_name(r->stop));
	print_uint(PRINT_ANY, "iterations", " after %u iteration(s)", r->n_iter);
	if (c->conf_level || r->stop != PROBE_STOP_FIXED) {
		double lvl = c->conf_level ? c->conf_level : 99;
		double w = c->conf_level ? c->conf_width : 5;

		print_float(PRINT_ANY, "level", "; %g%% interval", lvl);
		if (isfinite(r->ci_width_pct))
			print_float(PRINT_ANY, "width-pct", " %.2f%% wide", r->ci_width_pct);
		else
			print_na("width-pct", " %s wide");
		print_float(PRINT_ANY, "wanted-width-pct", " (wanted %g%%)", w);
		if (isfinite(r->ci_half))
			print_float(PRINT_ANY, "half-width", ", mean +- %.2f", r->ci_half);
	}
	print_nl();
	close_json_object();
	if (r->sender_ti.valid) {
		const struct probe_tcpinfo *t = &r->sender_ti;
		double el = (c->test == PROBE_MAERTS ? r->remote.elapsed_s : r->local.elapsed_s) *
			    1e6 * c->flows;

		open_json_object("sender-tcp-info");
		print_uint(PRINT_ANY, "retransmits", "sender tcp_info: retrans %u", t->retrans);
		print_uint(PRINT_ANY, "rtt-us", ", rtt %u us", t->rtt_us);
		print_uint(PRINT_ANY, "rttvar-us", ", rttvar %u us", t->rttvar_us);
		print_uint(PRINT_ANY, "snd-cwnd", ", cwnd %u", t->snd_cwnd);
		print_uint(PRINT_JSON, "snd-mss", NULL, t->snd_mss);
		print_float(PRINT_ANY, "delivery-rate-mbps", ", delivery-rate %.0f Mbit/s",
			    t->delivery_rate * 8 / 1e6);
		print_uint(PRINT_ANY, "bytes-sent", ", bytes-sent %llu\n",
			   (unsigned long long)t->bytes_sent);
		print_uint(PRINT_ANY, "busy-us", "  busy %llu us", (unsigned long long)t->busy_us);
		print_uint(PRINT_ANY, "rwnd-limited-us", ", rwnd-limited %llu us",
			   (unsigned long long)t->rwnd_limited_us);
		if (el > 0)
			print_float(PRINT_ANY, "rwnd-limited-pct", " (%.1f%%)",
				    100 * t->rwnd_limited_us / el);
		print_uint(PRINT_ANY, "sndbuf-limited-us", ", sndbuf-limited %llu us",
			   (unsigned long long)t->sndbuf_limited_us);
		if (el > 0)
			print_float(PRINT_ANY, "sndbuf-limited-pct", " (%.1f%%)",
				    100 * t->sndbuf_limited_us / el);
		print_nl();
		if (t->wmem_samples && r->mbps > 0) {
			print_float(PRINT_ANY, "wmem-alloc",
				    "  below TCP (sk_wmem_alloc) %.0f bytes", t->wmem_alloc);
			print_float(PRINT_ANY, "host-residence-us",
				    ": a byte waits %.0f us in the host until its skb is freed\n",
				    t->wmem_alloc * 8 / r->mbps);
		}
		close_json_object();
	}
	open_json_object("socket-buffers-end");
	print_uint(PRINT_ANY, "local-sndbuf", "socket buffers at end: local sndbuf %u",
		   r->local.sndbuf_end);
	print_uint(PRINT_ANY, "local-rcvbuf", " rcvbuf %u", r->local.rcvbuf_end);
	print_uint(PRINT_ANY, "local-rcvlowat", " rcvlowat %u", r->local.rcvlowat_end);
	print_uint(PRINT_ANY, "remote-sndbuf", ", remote sndbuf %u", r->remote.sndbuf_end);
	print_uint(PRINT_ANY, "remote-rcvbuf", " rcvbuf %u", r->remote.rcvbuf_end);
	print_uint(PRINT_ANY, "remote-rcvlowat", " rcvlowat %u\n", r->remote.rcvlowat_end);
	close_json_object();
	open_json_object("cpu");
	print_float(PRINT_ANY, "local-util-pct", "cpu: local %.1f%%", r->local.cpu_util);
	print_float(PRINT_ANY, "local-process-pct", " (process %.1f%% of a CPU,",
		    r->local.proc_cpu);
	print_float(PRINT_ANY, "local-control-pct", " its control thread %.2f%%)",
		    r->local.ctl_cpu);
	print_float(PRINT_ANY, "remote-util-pct", ", remote %.1f%%", r->remote.cpu_util);
	print_float(PRINT_ANY, "remote-process-pct", " (process %.1f%% of a CPU",
		    r->remote.proc_cpu);
	if (isnan(r->remote.ctl_cpu))
		print_text(")\n");
	else
		print_float(PRINT_ANY, "remote-control-pct", ", its control thread %.2f%%)\n",
			    r->remote.ctl_cpu);
	if (bulk) {
		/* the bulk receiver's wait for data by polling (--rx-poll-usecs): part of its
		 * process's time above, spent where a sleeping receiver would be idle */
		print_float(PRINT_ANY, "local-poll-pct", "  receiver polling: local %.1f%%",
			    r->local.poll_cpu);
		print_float(PRINT_ANY, "remote-poll-pct", ", remote %.1f%% of a CPU\n",
			    r->remote.poll_cpu);
	}
	if (bulk && r->mbps > 0) {
		/* what each end's process spends per Gbit/s carried, its polling left out: the
		 * modes' cost */
		print_float(PRINT_ANY, "local-process-pct-per-gbit",
			    "  per Gbit/s, polling left out: local %.1f%% of a CPU",
			    (r->local.proc_cpu - r->local.poll_cpu) * 1000 / r->mbps);
		print_float(PRINT_ANY, "remote-process-pct-per-gbit", ", remote %.1f%%\n",
			    (r->remote.proc_cpu - r->remote.poll_cpu) * 1000 / r->mbps);
	}
	close_json_object();
	if (bulk && c->send == PROBE_SEND_ZEROCOPY) {
		const struct probe_side *tx = c->test == PROBE_STREAM ? &r->local : &r->remote;

		open_json_object("zerocopy");
		print_uint(PRINT_ANY, "sends", "zerocopy: %llu sends", tx->zc_sends);
		print_uint(PRINT_ANY, "done", ", %llu completed", tx->zc_done);
		print_uint(PRINT_ANY, "copied", ", %llu of them copied by the kernel",
			   tx->zc_copied);
		print_text("%s\n", tx->zc_done && tx->zc_copied == tx->zc_done
					   ? " (no zero-copy path to this receiver: a local or "
					     "virtual device)"
					   : "");
		close_json_object();
	}
	print_devstats("device-counters", "device", &r->dev);
	print_devstats("remote-device-counters", "peer device", &r->remote_dev);
	close_json_object();
}

enum {
	O_PEER = CLI_LONG,
	O_PORT,
	O_TEST,
	O_DURATION,
	O_WARMUP,
	O_FLOWS,
	O_MSG_SIZE,
	O_RECV_SIZE,
	O_SNDBUF,
	O_RCVBUF,
	O_NODELAY,
	O_CC,
	O_CPU,
	O_ITERATIONS,
	O_CONFIDENCE,
	O_BIND_DEV,
	O_SEND,
	O_SKIP_RX_COPY,
	O_RCVLOWAT,
	O_RX_POLL,
	O_NO_SAMPLE
};

static const struct cli_opt probe_opts[] = {
	{ "peer", O_PEER, required_argument, "ADDR[:PORT]", "the 'ethtune serve' to test against" },
	{ "port", O_PORT, required_argument, "P", "its control port (default 12866)" },
	{ "test", O_TEST, required_argument, "stream|maerts|rr|crr", "test (default stream)" },
	{ "duration", O_DURATION, required_argument, "S", "measured seconds" },
	{ "warmup", O_WARMUP, required_argument, "S", "seconds before measuring (default 1)" },
	{ "flows", O_FLOWS, required_argument, "N", "parallel connections" },
	{ "msg-size", O_MSG_SIZE, required_argument, "B", "bytes per send (1..16M)" },
	{ "recv-size", O_RECV_SIZE, required_argument, "B", "bytes per receive (1..16M)" },
	{ "sndbuf", O_SNDBUF, required_argument, "B", "SO_SNDBUF, both ends" },
	{ "rcvbuf", O_RCVBUF, required_argument, "B", "SO_RCVBUF, both ends" },
	{ "nodelay", O_NODELAY, no_argument, NULL, "TCP_NODELAY" },
	{ "send", O_SEND, required_argument, "copy|zerocopy|sendfile",
	  "the bulk sender's path (default copy)" },
	{ "skip-rx-copy", O_SKIP_RX_COPY, no_argument, NULL,
	  "the bulk receiver discards data (MSG_TRUNC) instead of copying it" },
	{ "rcvlowat", O_RCVLOWAT, required_argument, "B",
	  "the bulk receiver wakes when B bytes wait (SO_RCVLOWAT; default 64K, 0 with --rcvbuf)" },
	{ "rx-poll-usecs", O_RX_POLL, required_argument, "US",
	  "the bulk receiver polls up to US for its rcvlowat bytes before it sleeps "
	  "(default 50, 0 off)" },
	{ "no-sample", O_NO_SAMPLE, no_argument, NULL,
	  "the bulk sender does not sample its queued bytes (to measure what sampling costs)" },
	{ "cc", O_CC, required_argument, "NAME", "congestion control" },
	{ "cpu", O_CPU, required_argument, "L,R", "pin the local and remote ends to CPUs" },
	{ "iterations", O_ITERATIONS, required_argument, "MIN,MAX",
	  "repeat until the confidence interval is narrow" },
	{ "confidence", O_CONFIDENCE, required_argument, "LEVEL,WIDTH",
	  "confidence level and interval width (%)" },
	{ "bind-dev", O_BIND_DEV, required_argument, "DEV", "send through this device" },
	CLI_END,
};

const struct cli_cmd cli_probe = {
	.name = "probe",
	.fn = cmd_probe,
	.synopsis = "--peer ADDR[:PORT]",
	.opts = { probe_opts },
};

static int probe_opt(void *ctx, int id, const char *v, char *err, size_t errlen)
{
	struct probe_cfg *cfg = ctx;
	const char *what = NULL;
	char a[32], b[32];
	uint64_t u64;
	uint32_t u32;
	size_t i;

	switch (id) {
	case O_PEER:
		cfg->peer = v;
		break;
	case O_PORT:
		if (parse_u32(v, &u32) || !u32 || u32 > 65535)
			what = "port";
		else
			cfg->port = u32;
		break;
	case O_TEST:
		if (probe_test_parse(v, &cfg->test))
			what = "test (stream|maerts|rr|crr)";
		break;
	case O_DURATION:
		if (parse_double(v, &cfg->duration_s))
			what = "seconds";
		break;
	case O_WARMUP:
		if (parse_double(v, &cfg->warmup_s))
			what = "seconds";
		break;
	case O_FLOWS:
		if (parse_u32(v, &cfg->flows))
			what = "count";
		break;
	case O_MSG_SIZE:
	case O_RECV_SIZE:
		if (parse_size(v, &u64) || u64 > PROBE_MAX_MSG || !u64)
			what = "size (1..16M)";
		else
			*(id == O_MSG_SIZE ? &cfg->msg_size : &cfg->recv_size) = u64;
		break;
	case O_SNDBUF:
		if (parse_buf(v, &cfg->sndbuf))
			what = "size";
		break;
	case O_RCVBUF:
		if (parse_buf(v, &cfg->rcvbuf))
			what = "size";
		break;
	case O_NODELAY:
		cfg->nodelay = true;
		break;
	case O_SEND:
		if (probe_send_parse(v, &cfg->send))
			what = "sender path (copy|zerocopy|sendfile)";
		break;
	case O_SKIP_RX_COPY:
		cfg->skip_rx_copy = true;
		break;
	case O_RCVLOWAT:
		if (parse_size(v, &u64) || u64 > PROBE_MAX_MSG)
			what = "size (0..16M)";
		else
			cfg->rcvlowat = u64;
		break;
	case O_RX_POLL:
		if (parse_u64(v, &u64) || u64 > PROBE_MAX_RX_POLL)
			what = "time in us (0..100000)";
		else
			cfg->rx_poll_us = (int64_t)u64;
		break;
	case O_NO_SAMPLE:
		cfg->no_sample = true;
		break;
	case O_CC:
		if (strlen(v) >= sizeof(cfg->cc))
			what = "congestion control";
		else
			snprintf(cfg->cc, sizeof(cfg->cc), "%s", v);
		break;
	case O_CPU:
		if (split2(v, a, b, sizeof(a)) || parse_cpu(a, &cfg->cpu_local) ||
		    parse_cpu(b, &cfg->cpu_remote))
			what = "CPU pair L,R";
		break;
	case O_ITERATIONS:
		if (split2(v, a, b, sizeof(a)) || parse_u32(a, &cfg->iter_min) ||
		    parse_u32(b, &cfg->iter_max))
			what = "MIN,MAX";
		break;
	case O_CONFIDENCE:
		if (split2(v, a, b, sizeof(a)) || parse_double(a, &cfg->conf_level) ||
		    parse_double(b, &cfg->conf_width) || cfg->conf_level <= 0)
			what = "LEVEL,WIDTH";
		break;
	case O_BIND_DEV:
		cfg->bind_dev = v;
		break;
	}
	if (!what)
		return 0;
	for (i = 0; probe_opts[i].id != id; i++)
		;
	snprintf(err, errlen, "%s '%s' is not valid for --%s", what, v, probe_opts[i].name);
	return -EINVAL;
}

int probe_cmd_set(struct probe_cfg *cfg, const char *name, const char *value, char *err,
		  size_t errlen)
{
	static const char *const dims[] = {
		"test",		"duration", "warmup",	     "flows",	"msg-size",
		"recv-size",	"sndbuf",   "rcvbuf",	     "nodelay", "cc",
		"cpu",		"bind-dev", "peer",	     "port",	"send",
		"skip-rx-copy", "rcvlowat", "rx-poll-usecs", NULL
	};
	size_t i, k;

	for (k = 0; dims[k] && strcmp(dims[k], name); k++)
		;
	for (i = 0; probe_opts[i].name && strcmp(probe_opts[i].name, name); i++)
		;
	if (!dims[k] || !probe_opts[i].name) {
		snprintf(err, errlen, "'%s' is not a probe option a matrix can set", name);
		return -EINVAL;
	}
	if (probe_opts[i].has_arg == no_argument) {
		if (!strcmp(value, "on") || !strcmp(value, "true"))
			return probe_opt(cfg, probe_opts[i].id, NULL, err, errlen);
		if (strcmp(value, "off") && strcmp(value, "false")) {
			snprintf(err, errlen, "%s takes on or off, not '%s'", name, value);
			return -EINVAL;
		}
		if (probe_opts[i].id == O_NODELAY)
			cfg->nodelay = false;
		else
			cfg->skip_rx_copy = false;
		return 0;
	}
	return probe_opt(cfg, probe_opts[i].id, value, err, errlen);
}

int cmd_probe(int argc, char **argv)
{
	struct probe_cfg cfg;
	struct probe_result *res;
	char err[256];
	bool tty;
	int r;

	probe_cfg_init(&cfg);
	cfg.warmup_s = 1;
	if (cli_args(&cli_probe, &argc, argv, probe_opt, &cfg, &r))
		return r;
	if (argc > 1)
		return cli_usage_err(&cli_probe, "unexpected argument '%s'", argv[1]);
	if (et_opts.netns) {
		r = netns_switch(et_opts.netns);
		if (r) {
			et_err("namespace '%s': %s", et_opts.netns, strerror(-r));
			return EXIT_FAIL;
		}
	}
	if (!cfg.peer) {
		et_err("probe: --peer ADDR[:PORT] is required");
		return EXIT_USAGE;
	}
	if (probe_cfg_check(&cfg, err, sizeof(err))) {
		et_err("%s", err);
		return EXIT_USAGE;
	}
	/* Apply netperf's defaults for the loop now, so the configuration shown is the one run. */
	if (cfg.iter_max > 1 && !cfg.conf_level) {
		cfg.conf_level = 99;
		cfg.conf_width = 5;
	}
	if (cfg.conf_level && cfg.iter_max == 1) {
		cfg.iter_min = 3;
		cfg.iter_max = 10;
	}
	cfg.msg_size = probe_msg_size(&cfg);
	res = calloc(1, sizeof(*res));
	if (!res)
		return EXIT_FAIL;
	tty = isatty(STDERR_FILENO);
	if (tty) {
		cfg.progress = progress;
		cfg.progress_arg = &cfg;
	}
	new_json_obj(et_opts.json);
	print_config(&cfg);
	r = probe_run(&cfg, res);
	if (tty)
		fprintf(stderr, "\r\033[K");
	if (r) {
		delete_json_obj();
		et_err("%s", res->err);
		free(res);
		return r == -EINVAL ? EXIT_USAGE : EXIT_FAIL;
	}
	if (!res->dev.dev[0] && cfg.bind_dev)
		snprintf(res->dev.dev, sizeof(res->dev.dev), "%s", cfg.bind_dev);
	print_results(&cfg, res);
	if (is_json_context())
		probe_print_environment(res->dev.dev, res->peer_version);
	else if (et_opts.verbose && res->peer_version[0])
		printf("peer runs ethtune %s\n", res->peer_version);
	delete_json_obj();
	free(res);
	return EXIT_OK;
}
