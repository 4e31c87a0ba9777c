/* ethtune model: the TSQ/completion model's prediction for given settings, from the command line.
 */
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli/cli.h"
#include "cli/commands.h"
#include "util/ethtune.h"
#include "out/json_print.h"
#include "analysis/model.h"

enum {
	O_RATE = CLI_LONG,
	O_TSQ,
	O_TX_USECS,
	O_TX_FRAMES,
	O_MTU,
	O_GSO_SIZE,
	O_RTT,
	O_T_SW,
	O_TIMER,
	O_PACING,
	O_NO_EXCEPTION,
	O_KERNEL,
	O_PACED,
	O_TARGET,
};

static const struct cli_opt model_opts[] = {
	{ "rate", O_RATE, required_argument, "RATE", "line rate (default 10G)" },
	{ "tsq", O_TSQ, required_argument, "BYTES", "tcp_limit_output_bytes (required)" },
	{ "tx-usecs", O_TX_USECS, required_argument, "US", "TX completion delay (required)" },
	{ "tx-frames", O_TX_FRAMES, required_argument, "N", "TX completion frame count" },
	{ "mtu", O_MTU, required_argument, "N", "MTU" },
	{ "gso-size", O_GSO_SIZE, required_argument, "BYTES", "GSO skb size" },
	{ "rtt", O_RTT, required_argument, "US", "round-trip time (ACKs modelled)" },
	{ "t-sw", O_T_SW, required_argument, "US", "software path time per skb" },
	{ "timer", O_TIMER, required_argument, "restart|first|eqe|next-xmit",
	  "completion timer behaviour" },
	{ "pacing", O_PACING, required_argument, "RATE|off", "pacing rate, or no pacing term" },
	{ "no-exception", O_NO_EXCEPTION, no_argument, NULL,
	  "no rtx-queue exception to the TSQ limit" },
	{ "kernel", O_KERNEL, required_argument, "VER", "model this kernel release's TSQ" },
	{ "paced", O_PACED, no_argument, NULL, "flow is paced (with --kernel)" },
	{ "target", O_TARGET, required_argument, "FRACTION",
	  "fraction of line rate to reach (default 0.95)" },
	CLI_END,
};

const struct cli_cmd cli_model = {
	.name = "model",
	.fn = cmd_model,
	.synopsis = "--tsq BYTES --tx-usecs US",
	.opts = { model_opts },
};

struct model_args {
	struct model_in in;
	const char *kernel;
	bool paced;
	double target;
};

static int model_opt_num(const char *opt, const char *s, double *v, char *err, size_t errlen)
{
	char *end;

	*v = strtod(s, &end);
	if (!*s || *end || !isfinite(*v) || *v < 0) {
		snprintf(err, errlen, "%s: '%s' is not a non-negative number", opt, s);
		return -EINVAL;
	}
	return 0;
}

static int model_opt(void *ctx, int id, const char *val, char *err, size_t errlen)
{
	struct model_args *m = ctx;
	struct model_in *in = &m->in;
	uint64_t u;
	double v;

	switch (id) {
	case O_NO_EXCEPTION:
		in->one_skb_exception = false;
		return 0;
	case O_PACED:
		m->paced = true;
		return 0;
	case O_KERNEL:
		m->kernel = val;
		return 0;
	case O_RATE:
		if (parse_rate(val, &in->rate_bps) || !(in->rate_bps > 0))
			goto bad;
		return 0;
	case O_TSQ:
		if (parse_size(val, &u) || !u) {
			snprintf(err, errlen,
				 "--tsq: '%s' is not a size in bytes (e.g. 131072, 128K)", val);
			return -EINVAL;
		}
		in->tsq = u;
		return 0;
	case O_MTU:
	case O_GSO_SIZE:
		if (parse_size(val, &u) || u > 65535 * 8) {
			snprintf(err, errlen, "--%s: '%s' is not a valid size",
				 id == O_MTU ? "mtu" : "gso-size", val);
			return -EINVAL;
		}
		if (id == O_MTU)
			in->mtu = u;
		else
			in->gso_size = u;
		return 0;
	case O_TX_FRAMES:
		if (parse_u32(val, &in->tx_frames)) {
			snprintf(err, errlen, "--tx-frames: '%s' is not a number", val);
			return -EINVAL;
		}
		return 0;
	case O_TX_USECS:
		return model_opt_num("--tx-usecs", val, &in->tx_usecs, err, errlen);
	case O_RTT:
		return model_opt_num("--rtt", val, &in->rtt_us, err, errlen);
	case O_T_SW:
		return model_opt_num("--t-sw", val, &in->t_sw_us, err, errlen);
	case O_TARGET:
		if (model_opt_num("--target", val, &v, err, errlen))
			return -EINVAL;
		if (v <= 0 || v >= 1) {
			snprintf(err, errlen, "--target: '%s' must be a fraction between 0 and 1",
				 val);
			return -EINVAL;
		}
		m->target = v;
		return 0;
	case O_PACING:
		if (!strcmp(val, "off"))
			in->pacing_bps = -1;
		else if (parse_rate(val, &in->pacing_bps) || !(in->pacing_bps > 0)) {
			snprintf(err, errlen, "--pacing: '%s' is not a rate or 'off'", val);
			return -EINVAL;
		}
		return 0;
	case O_TIMER:
		if (model_timer_parse(val, &in->timer)) {
			snprintf(err, errlen,
				 "--timer: '%s' is not one of restart, first, eqe, next-xmit", val);
			return -EINVAL;
		}
		return 0;
	}
	return -EINVAL;
bad:
	snprintf(err, errlen, "--rate: '%s' is not a rate (e.g. 10G, 25000M)", val);
	return -EINVAL;
}

/* The prediction, with what it was computed from and the largest tx-usecs / smallest TSQ limit
 * that still reach the target. */
static void model_print(const struct model_in *in, const struct model_out *o, const char *kernel,
			double target, double max_us, uint64_t min_tsq)
{
	new_json_obj(et_opts.json);
	open_json_object("input");
	print_float(PRINT_JSON, "rate-bps", NULL, in->rate_bps);
	print_float(PRINT_FP, NULL, "rate %.4g Gbit/s", in->rate_bps / 1e9);
	if (in->tsq >= 1ULL << 40)
		print_string(PRINT_ANY, "tsq", ", tcp_limit_output_bytes %s", "ignored");
	else
		print_uint(PRINT_ANY, "tsq", ", tcp_limit_output_bytes %llu", in->tsq);
	print_float(PRINT_ANY, "tx-usecs", ", tx-usecs %g", in->tx_usecs);
	print_uint(PRINT_ANY, "tx-frames", ", tx-frames %llu", in->tx_frames);
	print_uint(PRINT_ANY, "mtu", ", mtu %llu", in->mtu);
	print_uint(PRINT_ANY, "gso-size", ", gso-size %llu\n", in->gso_size);
	if (in->rtt_us >= 0)
		print_float(PRINT_ANY, "rtt-us", "rtt %g us", in->rtt_us);
	else
		print_na("rtt-us", "rtt %s (ACKs not modelled)");
	print_float(PRINT_ANY, "t-sw-us", ", software path %g us", in->t_sw_us);
	if (in->pacing_bps < 0)
		print_string(PRINT_ANY, "pacing", ", pacing term %s", "off");
	else
		print_float(PRINT_ANY, "pacing-bps", ", pacing %.4g Gbit/s",
			    (in->pacing_bps > 0 ? in->pacing_bps : in->rate_bps) /
				    (is_json_context() ? 1 : 1e9));
	print_string(PRINT_ANY, "timer", "\ncompletion timer %s", model_timer_name(in->timer));
	if (kernel)
		print_string(PRINT_ANY, "kernel", ", kernel %s", kernel);
	if (in->one_skb_exception && in->rtt_us >= 0)
		print_uint(PRINT_ANY, "rtx-exception-skbs",
			   ", TSQ bypassed at <= %llu skbs unacked\n", in->exception_skbs);
	else
		print_na("rtx-exception-skbs", ", rtx-queue exception %s\n");
	close_json_object();

	open_json_object("derived");
	print_uint(PRINT_ANY, "mss", "mss %llu", o->mss);
	print_uint(PRINT_ANY, "skb-segs", ", skb %llu segs", o->segs);
	print_uint(PRINT_ANY, "skb-payload", " = %llu B payload", o->skb_payload);
	print_uint(PRINT_ANY, "skb-truesize", ", truesize %llu", o->skb_truesize);
	print_float(PRINT_ANY, "rho", " (rho %.3f)", o->rho);
	print_float(PRINT_ANY, "skb-wire-us", ", %.1f us on the wire\n", o->skb_wire_us);
	if (o->limit >= 1ULL << 40)
		print_string(PRINT_ANY, "tsq-limit", "TSQ limit %s", "none");
	else
		print_uint(PRINT_ANY, "tsq-limit", "TSQ limit %llu B", o->limit);
	print_uint(PRINT_ANY, "skbs-in-flight", " -> %llu skbs in flight before throttling\n",
		   o->skbs_in_flight);
	close_json_object();

	print_float(PRINT_JSON, "goodput-max-bps", NULL, o->goodput_max_bps);
	print_float(PRINT_FP, NULL, "max goodput at line rate %.2f Gbit/s\n",
		    o->goodput_max_bps / 1e9);
	print_float(PRINT_JSON, "throughput-bps", NULL, o->tput_bps);
	print_float(PRINT_FP, NULL, "predicted single-flow goodput %.3g Gbit/s", o->tput_bps / 1e9);
	print_float(PRINT_ANY, "fraction", " (%.0f%% of max)\n",
		    o->frac * (is_json_context() ? 1 : 100));
	print_string(PRINT_ANY, "limited-by", "limited by: %s\n", o->limited_by);
	print_float(PRINT_JSON, "stop-and-wait-bps", NULL, o->sw_bps);
	print_float(PRINT_FP, NULL, "closed-form stop-and-wait %.2f Gbit/s\n", o->sw_bps / 1e9);
	print_bool(PRINT_ANY, "stalled",
		   o->stalled ? "stalled: completions never come without a "
				"retransmit timeout\n"
			      : NULL,
		   o->stalled);
	print_float(PRINT_ANY, "target", "target %.0f%%", target * (is_json_context() ? 1 : 100));
	if (max_us < 0)
		print_na("max-tx-usecs", ": largest tx-usecs %s (not reachable even at 0)\n");
	else if (max_us >= 1e5) {
		print_float(PRINT_JSON, "max-tx-usecs", NULL, max_us);
		print_bool(PRINT_ANY, "max-tx-usecs-unbounded",
			   ": any tx-usecs (>= 100000 us still reaches it)\n", true);
	} else
		print_float(PRINT_ANY, "max-tx-usecs", ": largest tx-usecs %.1f\n", max_us);
	if (min_tsq)
		print_uint(PRINT_ANY, "min-tsq",
			   "smallest tcp_limit_output_bytes for the target at "
			   "this tx-usecs: %llu\n",
			   min_tsq);
	else if (in->tsq >= 1ULL << 40)
		print_na("min-tsq", "smallest tcp_limit_output_bytes: %s (this kernel/flow ignores "
				    "the sysctl)\n");
	else
		print_na("min-tsq",
			 "smallest tcp_limit_output_bytes for the target: %s (the pacing "
			 "term caps the TSQ limit)\n");
	delete_json_obj();
}

int cmd_model(int argc, char **argv)
{
	struct model_args m = { .target = 0.95 };
	struct model_in in;
	struct model_out o;
	const char *kernel;
	double target, max_us;
	uint64_t min_tsq;
	int ret, rc;

	model_defaults(&m.in);
	m.in.tsq = 0;
	m.in.tx_usecs = -1;
	if (cli_args(&cli_model, &argc, argv, model_opt, &m, &rc))
		return rc;
	if (argc > 1)
		return cli_usage_err(&cli_model, "unexpected argument '%s'", argv[1]);
	if (!m.in.tsq || m.in.tx_usecs < 0)
		return cli_usage_err(&cli_model,
				     "needs --tsq and --tx-usecs (and --rate, default 10G)");
	if (m.paced && !m.kernel)
		return cli_usage_err(
			&cli_model,
			"--paced needs --kernel VER (it only matters from 2018 to v6.16)");
	if (m.kernel && model_set_kernel(&m.in, m.kernel, m.paced))
		return cli_usage_err(&cli_model,
				     "--kernel: '%s' is not a kernel release (e.g. 6.1, 3.6.11)",
				     m.kernel);
	in = m.in;
	kernel = m.kernel;
	target = m.target;
	if (in.mtu < 576 || in.gso_size < in.mtu)
		return cli_usage_err(&cli_model,
				     "--mtu %u / --gso-size %u: need 576 <= mtu <= gso-size",
				     in.mtu, in.gso_size);
	ret = model_predict(&in, &o);
	if (ret) {
		et_err("model: %s", strerror(-ret));
		return EXIT_FAIL;
	}
	max_us = model_max_tx_usecs(&in, target);
	min_tsq = in.tsq >= 1ULL << 40 ? 0 : model_min_tsq(&in, target);

	model_print(&in, &o, kernel, target, max_us, min_tsq);
	return EXIT_OK;
}
