/* ethtune tune: pick a TX completion setting by objective, from the command line. */
#include <errno.h>
#include <stdio.h>
#include <string.h>

#include "cli/cli.h"
#include "cli/commands.h"
#include "util/ethtune.h"
#include "analysis/sweep.h"
#include "analysis/tune.h"

enum { O_OBJECTIVE = CLI_LONG, O_PARAM, O_VALUES, O_WRITE_PROFILE, O_PROFILE_NAME, O_TXLAT };

static const struct cli_opt tune_opts[] = {
	{ "objective", O_OBJECTIVE, required_argument, "throughput|latency|cpu|balanced",
	  "what to optimise (default balanced)" },
	{ "param", O_PARAM, required_argument, "KEY",
	  "coalescing parameter (default: the driver's TX knob), or a NAPI one "
	  "(gro-flush-timeout, irq-suspend-timeout: NAPI deferral with defer-hard-irqs 2)" },
	{ "values", O_VALUES, required_argument, "V,...", "settings to compare" },
	{ "write-profile", O_WRITE_PROFILE, required_argument, "FILE",
	  "write the recommendation as a profile" },
	{ "profile-name", O_PROFILE_NAME, required_argument, "NAME",
	  "write it to profiles/NAME-OBJECTIVE.profile" },
	{ "txlat", O_TXLAT, no_argument, NULL, "also measure completion latency (txlat)" },
	CLI_END,
};

const struct cli_cmd cli_tune = {
	.name = "tune",
	.fn = cmd_tune,
	.synopsis = "DEV --peer ADDR[:PORT]",
	.opts = { tune_opts, sweep_common_opts },
	.dev_arg = true,
};

struct tune_args {
	struct sweep_opts o;
	struct tune_opts t;
};

static int parse_values(const char *values, struct tune_opts *t, char *err, size_t errlen)
{
	char *save, *tok, buf[512];

	snprintf(buf, sizeof(buf), "%s", values);
	t->nvalues = 0;
	for (tok = strtok_r(buf, ",", &save); tok && t->nvalues < 32;
	     tok = strtok_r(NULL, ",", &save))
		if (parse_u32(tok, &t->values[t->nvalues++])) {
			t->nvalues = 0;
			break;
		}
	if (!t->nvalues) {
		snprintf(err, errlen, "--values '%s' is not a list of numbers", values);
		return -EINVAL;
	}
	return 0;
}

static int tune_opt(void *ctx, int id, const char *arg, char *err, size_t errlen)
{
	struct tune_args *a = ctx;
	int ret = sweep_common_opt(&a->o, id, arg, err, errlen);

	if (ret <= 0)
		return ret;
	switch (id) {
	case O_OBJECTIVE:
		a->t.objective = tune_objective(arg);
		if (a->t.objective < 0) {
			snprintf(err, errlen,
				 "unknown objective '%s' (throughput, latency, cpu, balanced)",
				 arg);
			return -EINVAL;
		}
		break;
	case O_PARAM:
		a->t.param = arg;
		break;
	case O_VALUES:
		return parse_values(arg, &a->t, err, errlen);
	case O_WRITE_PROFILE:
		a->t.write_profile = arg;
		break;
	case O_PROFILE_NAME:
		a->t.profile_name = arg;
		break;
	case O_TXLAT:
		a->t.txlat = true;
		break;
	}
	return 0;
}

int cmd_tune(int argc, char **argv)
{
	struct tune_args a = { .t = { .objective = tune_objective("balanced") } };
	int rc, ret;

	sweep_cmd_defaults(&a.o);
	a.o.reps = 3; /* the settings tune compares are measured in 3 interleaved passes */
	if (cli_args(&cli_tune, &argc, argv, tune_opt, &a, &rc))
		return rc;
	rc = sweep_cmd_dev(&cli_tune, &a.o, argc, argv, 1);
	if (!rc)
		rc = sweep_prepare(&a.o, "tune");
	if (rc)
		return rc;
	ret = tune_dev(&a.o, &a.t);
	return !ret ? EXIT_OK : ret == -EINVAL ? EXIT_USAGE : EXIT_FAIL;
}
