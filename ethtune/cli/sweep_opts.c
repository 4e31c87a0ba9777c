/* The options sweep, diagnose and tune share, and their common checks before measuring. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <net/if.h>

#include "cli/cli.h"
#include "state/devset.h"
#include "util/ethtune.h"
#include "analysis/model.h"
#include "analysis/sweep.h"
#include "out/html.h"
#include "out/json_print.h"

enum {
	O_QUIET = CLI_LONG + 100,
	O_ALLOW_LINK_DOWN,
	O_PEER,
	O_PEER_DEV,
	O_PEER_NETNS,
	O_DURATION,
	O_WARMUP,
	O_CC,
	O_SVG,
	O_POINTS,
	O_MIN,
	O_MAX,
	O_TSQ_CONSTRAINED,
	O_REPS,
	O_HTML
};

const struct cli_opt sweep_common_opts[] = {
	{ "peer", O_PEER, required_argument, "ADDR[:PORT]",
	  "the 'ethtune serve' at the other end" },
	{ "peer-dev", O_PEER_DEV, required_argument, "DEV", "the peer's device (MTUs kept equal)" },
	{ "peer-netns", O_PEER_NETNS, required_argument, "NS", "the peer device's namespace" },
	{ "duration", O_DURATION, required_argument, "S", "seconds per probe (0.2-3600)" },
	{ "warmup", O_WARMUP, required_argument, "S", "warm-up seconds before each probe" },
	{ "cc", O_CC, required_argument, "NAME", "congestion control for the probes" },
	{ "svg", O_SVG, required_argument, "FILE", "write a plot of the TSQ sweep" },
	{ "html", O_HTML, required_argument, "FILE",
	  "also write the report as one self-contained HTML page (inline SVG charts)" },
	{ "points", O_POINTS, required_argument, "N", "coarse TSQ points" },
	{ "min", O_MIN, required_argument, "SIZE", "smallest TSQ limit (1K-2G)" },
	{ "max", O_MAX, required_argument, "SIZE", "largest TSQ limit (1K-2G)" },
	{ "tsq-constrained", O_TSQ_CONSTRAINED, required_argument, "SIZE",
	  "the constrained TSQ limit of coalescing sweeps" },
	{ "reps", O_REPS, required_argument, "N",
	  "interleaved passes over the settings (frags: the most)" },
	{ "quiet", O_QUIET, no_argument, NULL, "no progress line" },
	{ "allow-link-down", O_ALLOW_LINK_DOWN, no_argument, NULL,
	  "allow changes that take the link down" },
	CLI_END,
};

void sweep_cmd_defaults(struct sweep_opts *o)
{
	sweep_opts_init(o);
	o->duration_s = 1.5;
	o->warmup_s = 0.3;
}

int sweep_common_opt(struct sweep_opts *o, int id, const char *v, char *err, size_t errlen)
{
	uint64_t u;
	double d;
	char *end;

	switch (id) {
	case O_QUIET:
		o->quiet = true;
		return 0;
	case O_ALLOW_LINK_DOWN:
		devset_allow_link_down(true);
		return 0;
	case O_PEER:
		o->peer = v;
		return 0;
	case O_PEER_DEV:
		o->peer_dev = v;
		return 0;
	case O_PEER_NETNS:
		o->peer_netns = v;
		return 0;
	case O_SVG:
		o->svg = v;
		return 0;
	case O_HTML:
		o->html = v;
		return html_check_path(v, err, errlen);
	case O_CC:
		if (strlen(v) >= sizeof(o->cc)) {
			snprintf(err, errlen, "congestion control name '%s' is too long", v);
			return -EINVAL;
		}
		snprintf(o->cc, sizeof(o->cc), "%s", v);
		return 0;
	case O_DURATION:
	case O_WARMUP:
		d = strtod(v, &end);
		if (*end || d < 0 || d > 3600 || (id == O_DURATION && d < 0.2)) {
			snprintf(err, errlen, "--%s: '%s' is not a number of seconds (0.2-3600)",
				 id == O_DURATION ? "duration" : "warmup", v);
			return -EINVAL;
		}
		if (id == O_DURATION)
			o->duration_s = d;
		else
			o->warmup_s = d;
		return 0;
	case O_REPS:
		if (parse_u64(v, &u) || u < 1 || u > COAL_MAX_REPS) {
			snprintf(err, errlen, "--reps: '%s' is not 1-%d", v, COAL_MAX_REPS);
			return -EINVAL;
		}
		o->reps = (unsigned int)u;
		return 0;
	case O_POINTS:
		if (parse_u64(v, &u) || u < 3 || u > SWEEP_MAX_POINTS - 4) {
			snprintf(err, errlen, "--points: '%s' is not 3-%d", v,
				 SWEEP_MAX_POINTS - 4);
			return -EINVAL;
		}
		o->points = (unsigned int)u;
		return 0;
	case O_MIN:
	case O_MAX:
	case O_TSQ_CONSTRAINED:
		if (parse_size(v, &u) || u < 1024 || u > (1ULL << 31)) {
			snprintf(err, errlen, "--%s: '%s' is not a size from 1K to 2G",
				 id == O_MIN   ? "min"
				 : id == O_MAX ? "max"
					       : "tsq-constrained",
				 v);
			return -EINVAL;
		}
		if (id == O_MIN)
			o->tsq_min = u;
		else if (id == O_MAX)
			o->tsq_max = u;
		else
			o->tsq_constrained = u;
		return 0;
	}
	return 1; /* not a common option */
}

int sweep_cmd_dev(const struct cli_cmd *c, struct sweep_opts *o, int argc, char **argv, int first)
{
	if (argc > first + 1)
		return cli_usage_err(c, "unexpected argument '%s' (one device at a time)",
				     argv[first + 1]);
	o->dev = argc > first ? argv[first] : NULL;
	return 0;
}

/* Common checks of a sweep's device and peer; prints the error; exit code or 0. */
int sweep_prepare(struct sweep_opts *o, const char *cmd)
{
	if (!o->dev) {
		et_err("%s: missing device", cmd);
		return EXIT_USAGE;
	}
	if (!o->peer) {
		et_err("%s: missing --peer ADDR[:PORT] (an 'ethtune serve' at the other end)", cmd);
		return EXIT_USAGE;
	}
	if (o->tsq_min >= o->tsq_max) {
		et_err("%s: --min must be below --max", cmd);
		return EXIT_USAGE;
	}
	if (!have_cap_net_admin()) {
		et_err("%s: needs CAP_NET_ADMIN (it changes %s temporarily); run as root", cmd,
		       o->dev);
		return EXIT_FAIL;
	}
	if (enter_netns_opt())
		return EXIT_FAIL;
	if (!if_nametoindex(o->dev)) {
		report_missing_dev(o->dev);
		return EXIT_FAIL;
	}
	return 0;
}
