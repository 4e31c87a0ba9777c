/* The matrix command: a declared grid of probes (JSON file), run in rounds, resumable. */
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>
#include <jansson.h>

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

/* A JSON scalar as the word a probe option or setting takes. */
static int word(json_t *v, char *buf, size_t len)
{
	if (json_is_string(v))
		snprintf(buf, len, "%s", json_string_value(v));
	else if (json_is_integer(v))
		snprintf(buf, len, "%lld", (long long)json_integer_value(v));
	else if (json_is_real(v))
		snprintf(buf, len, "%g", json_real_value(v));
	else if (json_is_boolean(v))
		snprintf(buf, len, "%s", json_is_true(v) ? "on" : "off");
	else
		return -EINVAL;
	return buf[0] && strlen(buf) < len - 1 ? 0 : -EINVAL;
}

static const char *const set_objs[] = { "coalesce", "ring", "channels", "feature", "priv-flag",
					"link",	    "napi", "bql",	"sysctl",  NULL };

/* "coalesce.tx-usecs" into a setting; 1 when key is not OBJECT.KEY of a known object. */
static int as_set(const char *key, const char *val, struct mx_set *s)
{
	const char *dot = strchr(key, '.');
	unsigned int i;

	if (!dot)
		return 1;
	for (i = 0; set_objs[i]; i++)
		if (strlen(set_objs[i]) == (size_t)(dot - key) &&
		    !strncmp(key, set_objs[i], dot - key))
			break;
	if (!set_objs[i] || !dot[1] || strlen(dot + 1) >= sizeof(s->key))
		return 1;
	snprintf(s->obj, sizeof(s->obj), "%s", set_objs[i]);
	snprintf(s->key, sizeof(s->key), "%s", dot + 1);
	snprintf(s->val, sizeof(s->val), "%s", val);
	return 0;
}

static int num(json_t *doc, const char *path, const char *key, double lo, double hi, double *out,
	       char *err, size_t errlen)
{
	json_t *v = json_object_get(doc, key);

	if (!v)
		return 0;
	if (!json_is_number(v) || json_number_value(v) < lo || json_number_value(v) > hi) {
		snprintf(err, errlen, "%s: \"%s\" needs a number from %g to %g", path, key, lo, hi);
		return -EINVAL;
	}
	*out = json_number_value(v);
	return 0;
}

static int load_spec(const char *path, struct mx_run *m, char *err, size_t errlen)
{
	static const char *const keys[] = {
		"name",		  "description", "peer",     "dev",
		"test",		  "duration-s",	 "warmup-s", "iterations-min",
		"iterations-max", "width-pct",	 "budget-s", "fixed",
		"dimensions",	  NULL
	};
	json_error_t je;
	json_t *doc, *v, *dims, *fixed;
	const char *k, *s;
	double imin = 3, imax = 10;
	unsigned int i;
	size_t j;
	int ret = -EINVAL;
	FILE *f = fopen(path, "r");

	if (!f) {
		snprintf(err, errlen, "%s: %s", path, strerror(errno));
		return -errno;
	}
	doc = json_loadf(f, JSON_REJECT_DUPLICATES, &je);
	fclose(f);
	if (!doc) {
		snprintf(err, errlen, "%s: not JSON: %s (line %d)", path, je.text, je.line);
		return -EINVAL;
	}
	if (!json_is_object(doc)) {
		snprintf(err, errlen, "%s: not a JSON object", path);
		goto out;
	}
	json_object_foreach(doc, k, v)
	{
		for (i = 0; keys[i] && strcmp(keys[i], k); i++)
			;
		if (!keys[i]) {
			snprintf(err, errlen, "%s: unknown key \"%s\"", path, k);
			goto out;
		}
	}
	s = json_string_value(json_object_get(doc, "name"));
	if (!s || !*s || strlen(s) >= sizeof(m->name) ||
	    strspn(s, "abcdefghijklmnopqrstuvwxyz"
		      "ABCDEFGHIJKLMNOPQRSTUVWXYZ"
		      "0123456789._-") != strlen(s)) {
		snprintf(err, errlen, "%s: \"name\" needs a word of letters, digits, . _ -", path);
		goto out;
	}
	snprintf(m->name, sizeof(m->name), "%s", s);
	snprintf(m->file, sizeof(m->file), "%s", path);
	snprintf(m->description, sizeof(m->description), "%s",
		 json_string_value(json_object_get(doc, "description")) ?: "");
	snprintf(m->peer, sizeof(m->peer), "%s",
		 json_string_value(json_object_get(doc, "peer")) ?: "");
	snprintf(m->devname, sizeof(m->devname), "%s",
		 json_string_value(json_object_get(doc, "dev")) ?: "");
	m->dev = m->devname[0] ? m->devname : NULL;
	snprintf(m->test, sizeof(m->test), "%s",
		 json_string_value(json_object_get(doc, "test")) ?: "stream");
	m->duration_s = 2;
	m->warmup_s = 1;
	m->width_pct = 5;
	if (num(doc, path, "duration-s", 0.1, 3600, &m->duration_s, err, errlen) ||
	    num(doc, path, "warmup-s", 0, 600, &m->warmup_s, err, errlen) ||
	    num(doc, path, "iterations-min", 1, MX_MAX_VALUES, &imin, err, errlen) ||
	    num(doc, path, "iterations-max", 1, MX_MAX_VALUES, &imax, err, errlen) ||
	    num(doc, path, "width-pct", 0.1, 100, &m->width_pct, err, errlen) ||
	    num(doc, path, "budget-s", 0, 86400, &m->budget_s, err, errlen))
		goto out;
	m->iter_min = (unsigned int)imin;
	m->iter_max = (unsigned int)imax;
	if (m->iter_min > m->iter_max) {
		snprintf(err, errlen, "%s: iterations-min %u is above iterations-max %u", path,
			 m->iter_min, m->iter_max);
		goto out;
	}
	fixed = json_object_get(doc, "fixed");
	if (fixed && !json_is_object(fixed)) {
		snprintf(err, errlen, "%s: \"fixed\" needs an object of option: value", path);
		goto out;
	}
	json_object_foreach(fixed, k, v)
	{
		char w[MX_WORD];

		if (word(v, w, sizeof(w))) {
			snprintf(err, errlen, "%s: fixed \"%s\" needs a string, number or boolean",
				 path, k);
			goto out;
		}
		if (m->nfixed + m->nfixed_probe >= MX_MAX_SETS) {
			snprintf(err, errlen, "%s: more than %d fixed values", path, MX_MAX_SETS);
			goto out;
		}
		if (!as_set(k, w, &m->fixed[m->nfixed])) {
			m->nfixed++;
		} else {
			snprintf(m->fixed_probe[m->nfixed_probe][0], MX_WORD, "%s", k);
			snprintf(m->fixed_probe[m->nfixed_probe][1], MX_WORD, "%s", w);
			m->nfixed_probe++;
		}
	}
	dims = json_object_get(doc, "dimensions");
	if (!json_is_object(dims) || !json_object_size(dims)) {
		snprintf(err, errlen, "%s: \"dimensions\" needs an object of option: [values]",
			 path);
		goto out;
	}
	json_object_foreach(dims, k, v)
	{
		json_t *x;

		if (m->ndims >= MX_MAX_DIMS || strlen(k) >= MX_WORD) {
			snprintf(err, errlen, "%s: more than %d dimensions", path, MX_MAX_DIMS);
			goto out;
		}
		if (!json_is_array(v) || !json_array_size(v) || json_array_size(v) > MX_MAX_VALS) {
			snprintf(err, errlen, "%s: dimension \"%s\" needs 1 to %d values", path, k,
				 MX_MAX_VALS);
			goto out;
		}
		snprintf(m->dim[m->ndims], MX_WORD, "%s", k);
		json_array_foreach(v, j, x)
		{
			if (word(x, m->dimval[m->ndims][j], MX_WORD)) {
				snprintf(
					err, errlen,
					"%s: dimension \"%s\": value %zu needs a string, number or "
					"boolean",
					path, k, j + 1);
				goto out;
			}
		}
		m->ndimval[m->ndims++] = json_array_size(v);
	}
	ret = 0;
out:
	json_decref(doc);
	return ret;
}

/* The probe configuration of one cell; 0 or -EINVAL with a line naming what is wrong. */
static int cell_cfg(struct mx_run *m, struct mx_cell *c, char *err, size_t errlen)
{
	struct probe_cfg *cfg = &c->cfg;
	char e[256];
	unsigned int i;

	probe_cfg_init(cfg);
	if (probe_cmd_set(cfg, "peer", m->peer, e, sizeof(e)) ||
	    probe_cmd_set(cfg, "test", m->test, e, sizeof(e)))
		goto bad;
	cfg->duration_s = m->duration_s;
	cfg->warmup_s = m->warmup_s;
	for (i = 0; i < m->nfixed_probe; i++)
		if (probe_cmd_set(cfg, m->fixed_probe[i][0], m->fixed_probe[i][1], e, sizeof(e)))
			goto bad;
	for (i = 0; i < m->nfixed; i++)
		c->set[c->nset++] = m->fixed[i];
	for (i = 0; i < c->nparam; i++) {
		if (!as_set(c->key[i], c->val[i], &c->set[c->nset])) {
			if (++c->nset >= MX_MAX_SETS) {
				snprintf(e, sizeof(e), "more than %d settings", MX_MAX_SETS);
				goto bad;
			}
		} else if (probe_cmd_set(cfg, c->key[i], c->val[i], e, sizeof(e))) {
			goto bad;
		}
	}
	cfg->iter_min = cfg->iter_max = 1;
	cfg->conf_level = 0;
	cfg->key_file = et_opts.key_file;
	cfg->msg_size = probe_msg_size(cfg);
	if (probe_cfg_check(cfg, e, sizeof(e)))
		goto bad;
	return 0;
bad:
	mx_cell_name(c, err, errlen);
	snprintf(err + strlen(err), errlen - strlen(err), "%s%s", c->nparam ? ": " : "", e);
	return -EINVAL;
}

static int build_cells(struct mx_run *m, char *err, size_t errlen)
{
	unsigned int idx[MX_MAX_DIMS] = { 0 }, n = 1, i, d;

	for (d = 0; d < m->ndims; d++) {
		n *= m->ndimval[d];
		if (n > MX_MAX_CELLS) {
			snprintf(err, errlen, "%s: more than %d cells", m->file, MX_MAX_CELLS);
			return -EINVAL;
		}
	}
	m->cell = calloc(n, sizeof(*m->cell));
	if (!m->cell)
		return -ENOMEM;
	m->ncells = n;
	for (i = 0; i < n; i++) {
		struct mx_cell *c = &m->cell[i];
		unsigned int r = i;
		int ret;

		/* the last dimension varies fastest */
		for (d = m->ndims; d-- > 0;) {
			idx[d] = r % m->ndimval[d];
			r /= m->ndimval[d];
		}
		c->nparam = m->ndims;
		for (d = 0; d < m->ndims; d++) {
			snprintf(c->key[d], MX_WORD, "%s", m->dim[d]);
			snprintf(c->val[d], MX_WORD, "%s", m->dimval[d][idx[d]]);
		}
		ret = cell_cfg(m, c, err, errlen);
		if (ret)
			return ret;
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
	ret = load_spec(argv[1], m, err, sizeof(err));
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
	ret = build_cells(m, err, sizeof(err));
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
