/* ethtune compare: two ethtune matrix results, cell by cell; exit 1 on a significant regression. */
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli/cli.h"
#include "cli/commands.h"
#include "util/ethtune.h"
#include "analysis/compare.h"
#include "out/html.h"
#include "out/json_print.h"

enum {
	O_THRESHOLD = CLI_LONG,
	O_ALPHA,
	O_HTML,
};

struct compare_args {
	struct cmp_opts o;
	const char *html;
};

static const struct cli_opt compare_opts[] = {
	{ "threshold", O_THRESHOLD, required_argument, "PCT",
	  "smallest change of the mean that counts, percent (default 5)" },
	{ "alpha", O_ALPHA, required_argument, "A",
	  "family-wise significance level over all cells (default 0.05)" },
	{ "html", O_HTML, required_argument, "FILE",
	  "also write the report as one self-contained HTML page (inline SVG charts)" },
	CLI_END,
};

const struct cli_cmd cli_compare = {
	.name = "compare",
	.fn = cmd_compare,
	.synopsis = "BASE NEW",
	.opts = { compare_opts },
};

static int compare_opt(void *ctx, int id, const char *val, char *err, size_t errlen)
{
	struct compare_args *a = ctx;
	struct cmp_opts *o = &a->o;
	char *end;
	double v;

	v = strtod(val, &end);
	switch (id) {
	case O_THRESHOLD:
		if (!*val || *end || !isfinite(v) || v < 0 || v > 1000) {
			snprintf(err, errlen,
				 "--threshold: '%s' is not a percentage from 0 to 1000", val);
			return -EINVAL;
		}
		o->threshold_pct = v;
		return 0;
	case O_ALPHA:
		if (!*val || *end || !(v > 0 && v < 1)) {
			snprintf(err, errlen, "--alpha: '%s' is not a level between 0 and 1", val);
			return -EINVAL;
		}
		o->alpha = v;
		return 0;
	case O_HTML:
		a->html = val;
		return html_check_path(val, err, errlen);
	}
	return -EINVAL;
}

int cmd_compare(int argc, char **argv)
{
	struct compare_args a = {
		.o.alpha = CMP_ALPHA_DEFAULT,
		.o.threshold_pct = CMP_THRESHOLD_DEFAULT,
	};
	unsigned int regressions;
	char err[600];
	int ret, rc;

	if (cli_args(&cli_compare, &argc, argv, compare_opt, &a, &rc))
		return rc;
	if (argc < 3)
		return cli_usage_err(
			&cli_compare,
			"needs BASE and NEW (ethtune matrix result files or directories)");
	if (argc > 3)
		return cli_usage_err(&cli_compare, "unexpected argument '%s'", argv[3]);
	a.o.json = et_opts.json;
	if (a.html)
		json_record();
	ret = cmp_run(argv[1], argv[2], &a.o, &regressions, err, sizeof(err));
	if (!ret && a.html) {
		ret = html_report_recorded(a.html, HTML_COMPARE);
		if (ret) {
			et_err("compare: cannot write %s: %s", a.html, strerror(-ret));
			return EXIT_FAIL;
		}
	}
	if (ret == -ENOMEM) {
		et_err("compare: %s", err);
		return EXIT_FAIL;
	}
	if (ret) { /* unreadable or not a result: bad input */
		et_err("compare: %s", err);
		return EXIT_USAGE;
	}
	return regressions ? EXIT_FAIL : EXIT_OK;
}
