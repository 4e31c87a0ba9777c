/* ethtune sweep tsq|mtu|coalesce: command line, output, exit codes. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli/commands.h"
#include "util/ethtune.h"
#include "out/json_print.h"
#include "analysis/sweep.h"

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

static const char usage[] =
	"usage: ethtune sweep tsq|mtu DEV --peer ADDR[:PORT] [--duration S] [--warmup S] [--cc "
	"CC]\n"
	"                 [--min SIZE] [--max SIZE] [--points N] [--peer-dev DEV] [--peer-netns "
	"NS]\n"
	"                 [--svg FILE]\n"
	"       ethtune sweep coalesce DEV --peer ADDR --param KEY --values V1,V2,... [--param "
	"KEY\n"
	"                 --values ...] [--adaptive-tx on|off] [--cqe-mode-tx on|off]\n"
	"                 [--tsq-constrained SIZE] [--txlat]";

int cmd_sweep(int argc, char **argv)
{
	struct sweep_opts o;
	struct coal_spec spec = {};
	const char *what;
	char err[512];
	int i, ret, used;

	if (argc < 3) {
		et_err("sweep: %s", usage);
		return EXIT_USAGE;
	}
	what = argv[1];
	if (strcmp(what, "tsq") && strcmp(what, "mtu") && strcmp(what, "coalesce")) {
		et_err("sweep: unknown sweep '%s' (tsq, mtu or coalesce)", what);
		return EXIT_USAGE;
	}
	sweep_opts_init(&o);
	for (i = 2; i < argc; i += used) {
		ret = sweep_parse_common(&o, argc, argv, i, &used, err, sizeof(err));
		if (ret < 0) {
			et_err("sweep %s: %s", what, err);
			return EXIT_USAGE;
		}
		if (ret)
			continue;
		used = 2;
		if (!strcmp(what, "coalesce") && !strcmp(argv[i], "--txlat")) {
			spec.txlat = true;
			used = 1;
		} else if (!strcmp(what, "coalesce") && !strcmp(argv[i], "--param") &&
			   i + 1 < argc) {
			if (spec.nparams >= COAL_MAX_PARAMS) {
				et_err("sweep coalesce: at most %d --param", COAL_MAX_PARAMS);
				return EXIT_USAGE;
			}
			spec.param[spec.nparams++] = argv[i + 1];
		} else if (!strcmp(what, "coalesce") && !strcmp(argv[i], "--values") &&
			   i + 1 < argc) {
			unsigned int k = spec.nparams - 1;

			if (!spec.nparams || spec.nvals[k]) {
				et_err("sweep coalesce: --values must follow its --param");
				return EXIT_USAGE;
			}
			if (parse_values(argv[i + 1], spec.vals[k], 32, &spec.nvals[k])) {
				et_err("sweep coalesce: --values '%s' is not a list of up to 32 "
				       "numbers",
				       argv[i + 1]);
				return EXIT_USAGE;
			}
		} else if (!strcmp(what, "coalesce") &&
			   (!strcmp(argv[i], "--adaptive-tx") ||
			    !strcmp(argv[i], "--cqe-mode-tx")) &&
			   i + 1 < argc) {
			bool b;

			if (parse_on_off(argv[i + 1], &b)) {
				et_err("sweep coalesce: %s takes on or off", argv[i]);
				return EXIT_USAGE;
			}
			spec.fixed_key[spec.nfixed] = argv[i] + 2;
			spec.fixed_val[spec.nfixed++] = argv[i + 1];
		} else if (argv[i][0] != '-' && !o.dev) {
			o.dev = argv[i];
			used = 1;
		} else {
			et_err("sweep %s: unknown or incomplete option '%s'", what, argv[i]);
			return EXIT_USAGE;
		}
	}
	if (!strcmp(what, "coalesce")) {
		if (!spec.nparams) {
			et_err("sweep coalesce: needs --param KEY --values V1,V2,...");
			return EXIT_USAGE;
		}
		for (i = 0; i < (int)spec.nparams; i++)
			if (!spec.nvals[i]) {
				et_err("sweep coalesce: --param %s has no --values", spec.param[i]);
				return EXIT_USAGE;
			}
	}
	ret = sweep_prepare(&o, "sweep");
	if (ret)
		return ret;
	new_json_obj(et_opts.json);
	print_string(PRINT_ANY, "device", "ethtune sweep %s", o.dev);
	print_string(PRINT_ANY, "peer", " via %s\n", o.peer);
	if (!strcmp(what, "tsq")) {
		struct tsq_sweep *s = calloc(1, sizeof(*s));

		ret = s ? sweep_tsq(&o, s, err, sizeof(err)) : -ENOMEM;
		if (!ret) {
			sweep_tsq_print(s);
			if (o.svg) {
				struct svg_series *p = malloc(sizeof(*p));

				if (p)
					sweep_tsq_plot(s, p);
				if (!p || svg_write(o.svg, "single-flow throughput vs TSQ limit", p,
						    NULL))
					et_warn("cannot write %s", o.svg);
				free(p);
			}
		}
		free(s);
	} else if (!strcmp(what, "mtu")) {
		struct mtu_sweep *s = calloc(1, sizeof(*s));

		ret = s ? sweep_mtu(&o, s, err, sizeof(err)) : -ENOMEM;
		if (!ret)
			sweep_mtu_print(s);
		free(s);
	} else {
		struct coal_sweep *s = calloc(1, sizeof(*s));

		ret = s ? sweep_coalesce(&o, &spec, s, err, sizeof(err)) : -ENOMEM;
		if (!ret)
			sweep_coalesce_print(s);
		free(s);
	}
	delete_json_obj();
	if (ret) {
		et_err("sweep %s %s: %s", what, o.dev, err);
		return ret == -EINVAL ? EXIT_USAGE : EXIT_FAIL;
	}
	return EXIT_OK;
}
