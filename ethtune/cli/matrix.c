/* The matrix command: a declared grid of probes (JSON file), run in rounds, resumable. */
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "analysis/matrix.h"
#include "cli/cli.h"
#include "cli/commands.h"
#include "out/json_print.h"
#include "probe/probe.h"
#include "state/undo.h"
#include "util/ethtune.h"

enum { O_OUT = CLI_LONG, O_PEER, O_DEV, O_BUDGET, O_DURATION };

static const struct cli_opt matrix_opts[] = {
	{ "out", O_OUT, required_argument, "DIR",
	  "where the result file HOST.json goes (default .); an unfinished one there is resumed" },
	{ "peer", O_PEER, required_argument, "ADDR[:PORT]",
	  "the 'ethtune serve' to probe (overrides the file's peer)" },
	{ "dev", O_DEV, required_argument, "DEV",
	  "the device the settings go to and the environment shows (overrides the file's dev)" },
	{ "budget", O_BUDGET, required_argument, "S",
	  "seconds for the whole matrix (overrides the file's budget-s; 0 none)" },
	{ "duration", O_DURATION, required_argument, "S",
	  "measured seconds per probe (overrides the file's duration-s)" },
	CLI_END,
};

const struct cli_cmd cli_matrix = {
	.name = "matrix",
	.fn = cmd_matrix,
	.synopsis = "FILE [--out DIR] [--peer ADDR[:PORT]]",
	.opts = { matrix_opts },
};

struct matrix_args {
	const char *out, *peer, *dev;
	double budget_s, duration_s;
	bool have_budget;
};

static int matrix_opt(void *ctx, int id, const char *v, char *err, size_t errlen)
{
	struct matrix_args *a = ctx;
	char *end;

	switch (id) {
	case O_OUT:
		a->out = v;
		break;
	case O_PEER:
		a->peer = v;
		break;
	case O_DEV:
		a->dev = v;
		break;
	case O_BUDGET:
		a->budget_s = strtod(v, &end);
		if (!*v || *end || !isfinite(a->budget_s) || a->budget_s < 0 ||
		    a->budget_s > 86400) {
			snprintf(err, errlen, "--budget needs seconds (0-86400), not '%s'", v);
			return -EINVAL;
		}
		a->have_budget = true;
		break;
	case O_DURATION:
		a->duration_s = strtod(v, &end);
		if (!*v || *end || !isfinite(a->duration_s) || a->duration_s < 0.1 ||
		    a->duration_s > 3600) {
			snprintf(err, errlen, "--duration needs seconds (0.1-3600), not '%s'", v);
			return -EINVAL;
		}
		break;
	}
	return 0;
}

static void progress(const struct mx_run *m, const struct mx_cell *c, unsigned int round,
		     unsigned int done, unsigned int total)
{
	char name[256];

	(void)m;
	mx_cell_name(c, name, sizeof(name));
	fprintf(stderr, "\r\033[K[%u/%u] round %u, %s: %.1f", done, total, round, name,
		c->v[c->n - 1]);
	fflush(stderr);
}

int cmd_matrix(int argc, char **argv)
{
	struct matrix_args a = { .out = "." };
	struct mx_run *m;
	char err[600] = "", host[MX_WORD];
	int rc, ret, i;

	if (cli_args(&cli_matrix, &argc, argv, matrix_opt, &a, &rc))
		return rc;
	if (argc < 2)
		return cli_usage_err(&cli_matrix, "missing the matrix file");
	if (argc > 2)
		return cli_usage_err(&cli_matrix, "unexpected argument '%s'", argv[2]);
	m = calloc(1, sizeof(*m));
	if (!m)
		return EXIT_FAIL;
	ret = mx_load(argv[1], m, err, sizeof(err));
	if (ret) {
		et_err("matrix: %s", err);
		rc = EXIT_USAGE;
		goto out;
	}
	if (a.peer)
		snprintf(m->peer, sizeof(m->peer), "%s", a.peer);
	if (a.dev)
		m->dev = a.dev;
	if (a.have_budget)
		m->budget_s = a.budget_s;
	if (a.duration_s > 0)
		m->duration_s = a.duration_s;
	if (!m->peer[0]) {
		et_err("matrix: no peer: --peer ADDR[:PORT] or \"peer\" in %s", argv[1]);
		rc = EXIT_USAGE;
		goto out;
	}
	ret = mx_cells(m, probe_cmd_set, err, sizeof(err));
	if (ret) {
		et_err("matrix: %s", err);
		rc = ret == -ENOMEM ? EXIT_FAIL : EXIT_USAGE;
		goto out;
	}
	if (gethostname(host, sizeof(host)))
		snprintf(host, sizeof(host), "host");
	host[sizeof(host) - 1] = 0;
	for (i = 0; host[i]; i++)
		if (host[i] == '/')
			host[i] = '_';
	snprintf(m->host, sizeof(m->host), "%s", host);
	if (mkdir(a.out, 0755) && errno != EEXIST) {
		et_err("matrix: --out %s: %s", a.out, strerror(errno));
		rc = EXIT_FAIL;
		goto out;
	}
	snprintf(m->out_path, sizeof(m->out_path), "%s/%s.json", a.out, host);
	ret = mx_resume(m, err, sizeof(err));
	if (ret == -EEXIST || ret == -ESTALE) {
		et_err("matrix: %s holds %s; choose another --out", m->out_path,
		       ret == -EEXIST ? "a complete run of this matrix" : "another matrix's run");
		rc = EXIT_USAGE;
		goto out;
	}
	if (ret) {
		et_err("matrix: %s", err[0] ? err : strerror(-ret));
		rc = EXIT_FAIL;
		goto out;
	}
	if (et_opts.netns) {
		ret = netns_switch(et_opts.netns);
		if (ret) {
			et_err("namespace '%s': %s", et_opts.netns, strerror(-ret));
			rc = EXIT_FAIL;
			goto out;
		}
	}
	if (m->resumed && isatty(STDERR_FILENO))
		et_info("matrix: resuming %s: %u measurements there", m->out_path, m->resumed);
	ret = undo_temp_begin();
	if (ret) {
		et_err("matrix: cannot use the journal: %s", strerror(-ret));
		rc = EXIT_FAIL;
		goto out;
	}
	ret = mx_run(m, isatty(STDERR_FILENO) ? progress : NULL, err, sizeof(err));
	if (isatty(STDERR_FILENO))
		fprintf(stderr, "\r\033[K");
	/* the file is written; a pending signal ends the process here, all put back */
	if (undo_temp_end() && !ret)
		ret = -EIO, snprintf(err, sizeof(err), "a setting could not be put back");
	new_json_obj(et_opts.json);
	mx_print(m);
	delete_json_obj();
	if (ret) {
		et_err("matrix: %s", err[0] ? err : strerror(-ret));
		rc = EXIT_FAIL;
	} else {
		rc = EXIT_OK;
	}
out:
	free(m->cell);
	free(m);
	return rc;
}
