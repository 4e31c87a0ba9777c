/* ethtune validate: the TX-completion checklist of a driver release, from the command line. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <net/if.h>

#include "out/html.h"
#include "out/prom.h"
#include "cli/cli.h"
#include "cli/commands.h"
#include "util/ethtune.h"
#include "analysis/validate.h"
#include "analysis/thresholds.h"

enum {
	O_PEER = CLI_LONG,
	O_PEER_DEV,
	O_PEER_NETNS,
	O_KTAP,
	O_ONLY,
	O_SKIP,
	O_BUDGET,
	O_ALLOW_ORPHAN,
	O_DURATION,
	O_LOAD,
	O_QUIET,
	O_HTML,
	O_PROM,
};

static const struct cli_opt validate_opts[] = {
	{ "peer", O_PEER, required_argument, "ADDR[:PORT]",
	  "the 'ethtune serve' at the other end (without it only checks that need no traffic "
	  "run)" },
	{ "peer-dev", O_PEER_DEV, required_argument, "DEV", "the peer's device" },
	{ "peer-netns", O_PEER_NETNS, required_argument, "NS", "the peer device's namespace" },
	{ "ktap", O_KTAP, no_argument, NULL, "KTAP output (the default; also under --json)" },
	{ "only", O_ONLY, required_argument, "CHECK,...", "run only these checks" },
	{ "skip", O_SKIP, required_argument, "CHECK,...", "leave these checks out" },
	{ "budget", O_BUDGET, required_argument, "S",
	  "seconds for the TSQ rounds (1-3600, default 30)" },
	{ "allow-orphan", O_ALLOW_ORPHAN, no_argument, NULL,
	  "orphaned skbs are a warning, not a failure" },
	{ "duration", O_DURATION, required_argument, "S",
	  "seconds per probe of the coalesce, TSQ and GSO checks (0.2-3600, default 1.5)" },
	{ "load", O_LOAD, required_argument, "S",
	  "seconds of the bulk flow counters, BQL and ownership are judged on (10-3600)" },
	{ "quiet", O_QUIET, no_argument, NULL, "no progress lines" },
	{ "html", O_HTML, required_argument, "FILE",
	  "also write the report as one self-contained HTML page (inline SVG charts)" },
	{ "prom", O_PROM, required_argument, "FILE",
	  "also write the results as metrics for node_exporter's textfile collector (FILE ends "
	  "in .prom)" },
	CLI_END,
};

const struct cli_cmd cli_validate = {
	.name = "validate",
	.fn = cmd_validate,
	.synopsis = "DEV [--peer ADDR[:PORT]]",
	.opts = { validate_opts },
	.dev_arg = true,
};

struct validate_args {
	struct val_opts v;
	unsigned int only, skip;
};

static int seconds(const char *arg, double min, double *out, const char *name, char *err,
		   size_t errlen)
{
	char *end;
	double d = strtod(arg, &end);

	if (!*arg || *end || !(d >= min && d <= 3600)) {
		snprintf(err, errlen, "--%s needs seconds (%g-3600)", name, min);
		return -EINVAL;
	}
	*out = d;
	return 0;
}

static int validate_opt(void *ctx, int id, const char *arg, char *err, size_t errlen)
{
	struct validate_args *a = ctx;

	switch (id) {
	case O_PEER:
		a->v.o.peer = arg;
		return 0;
	case O_PEER_DEV:
		a->v.o.peer_dev = arg;
		return 0;
	case O_PEER_NETNS:
		a->v.o.peer_netns = arg;
		return 0;
	case O_KTAP:
		a->v.ktap = true;
		return 0;
	case O_ONLY:
		return val_parse_list(arg, &a->only, err, errlen);
	case O_SKIP:
		return val_parse_list(arg, &a->skip, err, errlen);
	case O_BUDGET:
		return seconds(arg, 1, &a->v.budget_s, "budget", err, errlen);
	case O_DURATION:
		return seconds(arg, 0.2, &a->v.o.duration_s, "duration", err, errlen);
	case O_LOAD:
		return seconds(arg, VAL_LOAD_MIN_S, &a->v.load_s, "load", err, errlen);
	case O_ALLOW_ORPHAN:
		a->v.allow_orphan = true;
		return 0;
	case O_QUIET:
		a->v.o.quiet = true;
		return 0;
	case O_HTML:
		a->v.o.html = arg;
		return html_check_path(arg, err, errlen);
	case O_PROM:
		a->v.prom = arg;
		return prom_check_path(arg, err, errlen);
	}
	return -EINVAL;
}

int cmd_validate(int argc, char **argv)
{
	struct validate_args a = { .v = { .budget_s = 30, .load_s = VAL_LOAD_MIN_S } };
	int rc, ret;
	struct val_report *rep;

	a.v.t0 = et_now_s();
	sweep_cmd_defaults(&a.v.o);
	if (cli_args(&cli_validate, &argc, argv, validate_opt, &a, &rc))
		return rc;
	rc = sweep_cmd_dev(&cli_validate, &a.v.o, argc, argv, 1);
	if (rc)
		return rc;
	if (!a.v.o.dev)
		return cli_usage_err(&cli_validate, "missing device");
	a.v.checks = (a.only ? a.only : (1u << VC__N) - 1) & ~a.skip;
	if (!a.v.checks)
		return cli_usage_err(&cli_validate, "--only and --skip leave no check to run");
	if (!have_cap_net_admin()) {
		et_err("validate: needs CAP_NET_ADMIN (it changes %s temporarily); run as root",
		       a.v.o.dev);
		return EXIT_FAIL;
	}
	if (enter_netns_opt())
		return EXIT_FAIL;
	if (!if_nametoindex(a.v.o.dev)) {
		report_missing_dev(a.v.o.dev);
		return EXIT_FAIL;
	}
	rep = calloc(1, sizeof(*rep));
	if (!rep)
		return EXIT_FAIL;
	ret = validate_dev(&a.v, rep);
	if (ret) { /* validate_dev said why */
		free(rep);
		return EXIT_FAIL;
	}
	sweep_html_begin(&a.v.o);
	val_print(rep, et_opts.json && !a.v.ktap);
	ret = sweep_html_end(&a.v.o, HTML_VALIDATE);
	if (a.v.prom) {
		struct prom *p = prom_new();

		if (p) {
			prom_labels(p, "device", rep->dev, "driver",
				    rep->driver[0] ? rep->driver : "?", NULL);
			val_prom(rep, p);
		}
		ret = prom_finish(p, a.v.prom, "validate") ?: ret;
	}
	rc = rep->failed || ret ? EXIT_FAIL : EXIT_OK;
	free(rep);
	return rc;
}
