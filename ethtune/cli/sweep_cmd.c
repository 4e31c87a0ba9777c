/* ethtune sweep tsq|mtu|coalesce: command line, output, exit codes. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli/cli.h"
#include "cli/commands.h"
#include "util/ethtune.h"
#include "out/json_print.h"
#include "analysis/sweep.h"
#include "out/html.h"

static int parse_values(const char *s, uint32_t *v, unsigned int max, unsigned int *n)
{
	char buf[512], *tok, *save;

	if (strlen(s) >= sizeof(buf))
		return -E2BIG;
	snprintf(buf, sizeof(buf), "%s", s);
	*n = 0;
	for (tok = strtok_r(buf, ",", &save); tok; tok = strtok_r(NULL, ",", &save)) {
		if (*n >= max || parse_u32(tok, &v[*n]))
			return -EINVAL;
		(*n)++;
	}
	return *n ? 0 : -EINVAL;
}

enum {
	O_PARAM = CLI_LONG,
	O_VALUES,
	O_ADAPTIVE_TX,
	O_CQE_MODE_TX,
	O_TXLAT,
	O_GSO_SEGS,
	O_GSO_SIZE
};

static const struct cli_opt sweep_opts[] = {
	{ "param", O_PARAM, required_argument, "KEY", "coalesce: a parameter to sweep" },
	{ "values", O_VALUES, required_argument, "V1,V2,...", "coalesce: the --param's values" },
	{ "adaptive-tx", O_ADAPTIVE_TX, required_argument, "on|off",
	  "coalesce: adaptive-tx at every point" },
	{ "cqe-mode-tx", O_CQE_MODE_TX, required_argument, "on|off",
	  "coalesce: cqe-mode-tx at every point" },
	{ "txlat", O_TXLAT, no_argument, NULL, "coalesce: also measure completion latency" },
	{ "gso-max-segs", O_GSO_SEGS, required_argument, "N1,N2,...",
	  "frags: also each gso-max-segs value (order-3 and order-0)" },
	{ "gso-max-size", O_GSO_SIZE, required_argument, "N1,N2,...",
	  "frags: also each gso-max-size value (order-3 and order-0)" },
	CLI_END,
};

const struct cli_cmd cli_sweep = {
	.name = "sweep",
	.fn = cmd_sweep,
	.synopsis = "tsq|mtu DEV --peer ADDR[:PORT] |\n"
		    "       frags DEV --peer ADDR [--gso-max-segs N,...] [--gso-max-size N,...] |\n"
		    "       coalesce DEV --peer ADDR --param KEY --values V1,V2,... [--param ...]",
	.opts = { sweep_common_opts, sweep_opts },
	.subcmds = "tsq mtu frags coalesce",
	.dev_arg = true,
};

struct sweep_args {
	struct sweep_opts o;
	struct coal_spec spec;
	struct frag_spec frag;
	const char *coal_only; /* the first coalesce-only option given */
	const char *frag_only; /* the first frags-only option given */
};

static int sweep_opt(void *ctx, int id, const char *arg, char *err, size_t errlen)
{
	struct sweep_args *a = ctx;
	struct coal_spec *spec = &a->spec;
	unsigned int k = spec->nparams - 1;
	int ret = sweep_common_opt(&a->o, id, arg, err, errlen);
	bool b;

	if (ret <= 0)
		return ret;
	if (id == O_GSO_SEGS || id == O_GSO_SIZE) {
		const char *key = id == O_GSO_SEGS ? "gso-max-segs" : "gso-max-size";
		struct frag_spec *f = &a->frag;
		uint32_t v[FRAG_MAX_GSO];
		unsigned int n, i;

		if (!a->frag_only)
			a->frag_only = id == O_GSO_SEGS ? "--gso-max-segs" : "--gso-max-size";
		if (parse_values(arg, v, FRAG_MAX_GSO - f->n, &n)) {
			snprintf(
				err, errlen,
				"--%s '%s' is not a list of numbers (at most %d gso values in all)",
				key, arg, FRAG_MAX_GSO);
			return -EINVAL;
		}
		for (i = 0; i < n; i++) {
			if (!v[i]) {
				snprintf(err, errlen, "--%s: 0 is not a limit", key);
				return -EINVAL;
			}
			f->g[f->n].key = key;
			f->g[f->n++].val = v[i];
		}
		return 0;
	}
	if (!a->coal_only)
		a->coal_only = id == O_PARAM	     ? "--param"
			       : id == O_VALUES	     ? "--values"
			       : id == O_ADAPTIVE_TX ? "--adaptive-tx"
			       : id == O_CQE_MODE_TX ? "--cqe-mode-tx"
						     : "--txlat";
	switch (id) {
	case O_TXLAT:
		spec->txlat = true;
		break;
	case O_PARAM:
		if (spec->nparams >= COAL_MAX_PARAMS) {
			snprintf(err, errlen, "at most %d --param", COAL_MAX_PARAMS);
			return -EINVAL;
		}
		spec->param[spec->nparams++] = arg;
		break;
	case O_VALUES:
		if (!spec->nparams || spec->nvals[k]) {
			snprintf(err, errlen, "--values must follow its --param");
			return -EINVAL;
		}
		if (parse_values(arg, spec->vals[k], 32, &spec->nvals[k])) {
			snprintf(err, errlen, "--values '%s' is not a list of up to 32 numbers",
				 arg);
			return -EINVAL;
		}
		break;
	case O_ADAPTIVE_TX:
	case O_CQE_MODE_TX:
		if (parse_on_off(arg, &b)) {
			snprintf(err, errlen, "--%s takes on or off",
				 id == O_ADAPTIVE_TX ? "adaptive-tx" : "cqe-mode-tx");
			return -EINVAL;
		}
		spec->fixed_key[spec->nfixed] = id == O_ADAPTIVE_TX ? "adaptive-tx" : "cqe-mode-tx";
		spec->fixed_val[spec->nfixed++] = arg;
		break;
	}
	return 0;
}

int cmd_sweep(int argc, char **argv)
{
	static struct sweep_args a;
	struct sweep_opts *op = &a.o;
	struct coal_spec *sp = &a.spec;
	const char *what;
	char err[512];
	int i, ret;

	memset(&a, 0, sizeof(a));
	sweep_opts_init(op);
	if (cli_args(&cli_sweep, &argc, argv, sweep_opt, &a, &ret))
		return ret;
	if (argc < 3)
		return cli_usage_err(&cli_sweep,
				     "needs tsq|mtu|frags|coalesce DEV --peer ADDR[:PORT]");
	what = argv[1];
	if (strcmp(what, "tsq") && strcmp(what, "mtu") && strcmp(what, "frags") &&
	    strcmp(what, "coalesce")) {
		et_err("sweep: unknown sweep '%s' (tsq, mtu, frags or coalesce)", what);
		return EXIT_USAGE;
	}
	if (strcmp(what, "coalesce") && a.coal_only)
		return cli_usage_err(&cli_sweep, "%s: unknown option '%s'", what, a.coal_only);
	if (strcmp(what, "frags") && a.frag_only)
		return cli_usage_err(&cli_sweep, "%s: unknown option '%s'", what, a.frag_only);
	if (!strcmp(what, "frags") && op->reps == 1)
		return cli_usage_err(&cli_sweep,
				     "frags: --reps 1 leaves no pair of runs to compare "
				     "(2-%d passes)",
				     COAL_MAX_REPS);
	ret = sweep_cmd_dev(&cli_sweep, op, argc, argv, 2);
	if (ret)
		return ret;
	if (!strcmp(what, "coalesce")) {
		if (!sp->nparams) {
			et_err("sweep coalesce: needs --param KEY --values V1,V2,...");
			return EXIT_USAGE;
		}
		for (i = 0; i < (int)sp->nparams; i++)
			if (!sp->nvals[i]) {
				et_err("sweep coalesce: --param %s has no --values", sp->param[i]);
				return EXIT_USAGE;
			}
	}
	ret = sweep_prepare(op, "sweep");
	if (ret)
		return ret;
	sweep_html_begin(op);
	new_json_obj(et_opts.json);
	print_string(PRINT_ANY, "device", "ethtune sweep %s", op->dev);
	print_string(PRINT_ANY, "peer", " via %s\n", op->peer);
	if (!strcmp(what, "tsq")) {
		struct tsq_sweep *s = calloc(1, sizeof(*s));

		ret = s ? sweep_tsq(op, s, err, sizeof(err)) : -ENOMEM;
		if (!ret) {
			sweep_tsq_print(s);
			if (op->svg) {
				struct svg_series *p = malloc(sizeof(*p));

				if (p)
					sweep_tsq_plot(s, p);
				if (!p || svg_write(op->svg, "single-flow throughput vs TSQ limit",
						    p, NULL))
					et_warn("cannot write %s", op->svg);
				free(p);
			}
		}
		free(s);
	} else if (!strcmp(what, "frags")) {
		struct frag_sweep *s = calloc(1, sizeof(*s));

		ret = s ? sweep_frags(op, &a.frag, s, err, sizeof(err)) : -ENOMEM;
		if (!ret)
			sweep_frags_print(s);
		free(s);
	} else if (!strcmp(what, "mtu")) {
		struct mtu_sweep *s = calloc(1, sizeof(*s));

		ret = s ? sweep_mtu(op, s, err, sizeof(err)) : -ENOMEM;
		if (!ret)
			sweep_mtu_print(s);
		free(s);
	} else {
		struct coal_sweep *s = calloc(1, sizeof(*s));

		ret = s ? sweep_coalesce(op, sp, s, err, sizeof(err)) : -ENOMEM;
		if (!ret)
			sweep_coalesce_print(s);
		free(s);
	}
	delete_json_obj();
	if (ret) {
		et_err("sweep %s %s: %s", what, op->dev, err);
		return ret == -EINVAL ? EXIT_USAGE : EXIT_FAIL;
	}
	return sweep_html_end(op, HTML_SWEEP) ? EXIT_FAIL : EXIT_OK;
}
