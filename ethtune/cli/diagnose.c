/* ethtune diagnose: findings on a device's TX completion, from the command line. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>

#include "cli/cli.h"
#include "cli/commands.h"
#include "util/ethtune.h"
#include "analysis/diagnose.h"
#include "analysis/sweep.h"
#include "out/prom.h"

enum { O_MTU_SWEEP = CLI_LONG, O_TSQ_SWEEP, O_NO_TXLAT, O_BUDGET, O_PROM };

static const struct cli_opt diagnose_opts[] = {
	{ "budget", O_BUDGET, required_argument, "S",
	  "seconds for the flow measurement (1-3600, default 40)" },
	{ "tsq-sweep", O_TSQ_SWEEP, no_argument, NULL, "also sweep the TSQ limit" },
	{ "mtu-sweep", O_MTU_SWEEP, no_argument, NULL, "also sweep the MTU" },
	{ "no-txlat", O_NO_TXLAT, no_argument, NULL, "do not trace completions with txlat" },
	{ "prom", O_PROM, required_argument, "FILE",
	  "also write the findings as metrics for node_exporter's textfile collector (FILE ends "
	  "in .prom)" },
	CLI_END,
};

const struct cli_cmd cli_diagnose = {
	.name = "diagnose",
	.fn = cmd_diagnose,
	.synopsis = "DEV --peer ADDR[:PORT]",
	.opts = { diagnose_opts, sweep_common_opts },
	.dev_arg = true,
};

struct diagnose_args {
	struct sweep_opts o;
	struct diag_opts d;
};

static int diagnose_opt(void *ctx, int id, const char *arg, char *err, size_t errlen)
{
	struct diagnose_args *a = ctx;
	char *end;
	int ret = sweep_common_opt(&a->o, id, arg, err, errlen);

	if (ret <= 0)
		return ret;
	switch (id) {
	case O_MTU_SWEEP:
		a->d.mtu_sweep = true;
		break;
	case O_TSQ_SWEEP:
		a->d.tsq_sweep = true;
		break;
	case O_NO_TXLAT:
		a->d.no_txlat = true;
		break;
	case O_PROM:
		a->d.prom = arg;
		return prom_check_path(arg, err, errlen);
	case O_BUDGET:
		a->d.budget_s = strtod(arg, &end);
		if (*end || a->d.budget_s < 1 || a->d.budget_s > 3600) {
			snprintf(err, errlen, "--budget needs seconds (1-3600)");
			return -EINVAL;
		}
		break;
	}
	return 0;
}

int cmd_diagnose(int argc, char **argv)
{
	struct diagnose_args a = { .d = { .budget_s = 40, .t0 = et_now_s() } };
	int rc;

	sweep_cmd_defaults(&a.o);
	a.o.points = 7;
	a.o.tsq_min = 4096;
	if (cli_args(&cli_diagnose, &argc, argv, diagnose_opt, &a, &rc))
		return rc;
	rc = sweep_cmd_dev(&cli_diagnose, &a.o, argc, argv, 1);
	if (!rc)
		rc = sweep_prepare(&a.o, "diagnose");
	if (rc)
		return rc;
	return diagnose_dev(&a.o, &a.d) ? EXIT_FAIL : EXIT_OK;
}
