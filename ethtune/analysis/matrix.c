/* ethtune matrix: interleaved rounds over a grid of probes, written to one resumable file. */
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <jansson.h>

#include "analysis/matrix.h"
#include "out/json_print.h"
#include "probe/probe.h"
#include "state/devset.h"
#include "state/sysctl.h"
#include "util/ethtune.h"
#include "util/stats.h"

#define MX_LEVEL 95

void mx_cell_name(const struct mx_cell *c, char *buf, size_t len)
{
	size_t n = 0;
	unsigned int i;

	buf[0] = 0;
	for (i = 0; i < c->nparam && n < len; i++)
		n += snprintf(buf + n, len - n, "%s%s=%s", i ? " " : "", c->key[i], c->val[i]);
}

void mx_cell_ci(const struct mx_cell *c, double *mean, double *lo, double *hi)
{
	struct et_ci ci;

	if (!c->n) {
		*mean = *lo = *hi = NAN;
		return;
	}
	stats_mean_ci(c->v, c->n, MX_LEVEL, &ci);
	*mean = ci.mean;
	*lo = ci.lo;
	*hi = ci.hi;
}

const char *mx_unit(const struct mx_cell *c)
{
	return c->cfg.test == PROBE_RR || c->cfg.test == PROBE_CRR ? "trans/s" : "Mbit/s";
}

static bool narrow(const struct mx_run *m, const struct mx_cell *c)
{
	double mean, lo, hi;

	if (c->n < m->iter_min || c->n < 2)
		return false;
	mx_cell_ci(c, &mean, &lo, &hi);
	return mean > 0 && isfinite(lo) && (hi - lo) / mean * 100 <= m->width_pct;
}

void mx_identity(const struct mx_run *m, char *buf, size_t len)
{
	size_t n;
	unsigned int d, i;

	n = snprintf(buf, len, "%s|%s|%g|%g|%u-%u|%g|", m->name, m->test, m->duration_s,
		     m->warmup_s, m->iter_min, m->iter_max, m->width_pct);
	for (d = 0; d < m->ndims && n < len; d++) {
		n += snprintf(buf + n, len - n, "%s=", m->dim[d]);
		for (i = 0; i < m->ndimval[d] && n < len; i++)
			n += snprintf(buf + n, len - n, "%s%s", i ? "," : "", m->dimval[d][i]);
		n += n < len ? snprintf(buf + n, len - n, ";") : 0;
	}
	for (i = 0; i < m->nfixed_probe && n < len; i++)
		n += snprintf(buf + n, len - n, "|%s=%s", m->fixed_probe[i][0],
			      m->fixed_probe[i][1]);
	for (i = 0; i < m->nfixed && n < len; i++)
		n += snprintf(buf + n, len - n, "|%s.%s=%s", m->fixed[i].obj, m->fixed[i].key,
			      m->fixed[i].val);
}

static struct mx_cell *cell_by_params(struct mx_run *m, json_t *params)
{
	unsigned int i, k;

	for (i = 0; i < m->ncells; i++) {
		struct mx_cell *c = &m->cell[i];

		if (json_object_size(params) != c->nparam)
			continue;
		for (k = 0; k < c->nparam; k++) {
			const char *v = json_string_value(json_object_get(params, c->key[k]));

			if (!v || strcmp(v, c->val[k]))
				break;
		}
		if (k == c->nparam)
			return c;
	}
	return NULL;
}

int mx_resume(struct mx_run *m, char *err, size_t errlen)
{
	char id[4096];
	json_error_t je;
	json_t *doc, *cells, *cj;
	const char *fid;
	size_t i, j;
	FILE *f = fopen(m->out_path, "r");

	if (!f)
		return errno == ENOENT ? 0 : -errno;
	doc = json_loadf(f, 0, &je);
	fclose(f);
	if (!doc) {
		snprintf(err, errlen, "%s: not JSON (line %d: %s)", m->out_path, je.line, je.text);
		return -EINVAL;
	}
	mx_identity(m, id, sizeof(id));
	fid = json_string_value(json_object_get(json_object_get(doc, "matrix"), "identity"));
	cells = json_object_get(doc, "cells");
	if (!fid || !json_is_array(cells)) {
		snprintf(err, errlen, "%s: not an ethtune matrix result", m->out_path);
		json_decref(doc);
		return -EINVAL;
	}
	if (strcmp(fid, id)) {
		json_decref(doc);
		return -ESTALE;
	}
	if (json_is_true(json_object_get(doc, "complete"))) {
		json_decref(doc);
		return -EEXIST;
	}
	snprintf(m->started, sizeof(m->started), "%s",
		 json_string_value(json_object_get(doc, "started")) ?: "");
	json_array_foreach(cells, i, cj)
	{
		struct mx_cell *c = cell_by_params(m, json_object_get(cj, "params"));
		json_t *vals = json_object_get(cj, "values"), *v;

		if (!c)
			continue;
		c->n = 0;
		json_array_foreach(vals, j, v)
		{
			if (c->n < MX_MAX_VALUES && json_is_number(v)) {
				c->v[c->n++] = json_number_value(v);
				m->resumed++;
			}
		}
	}
	json_decref(doc);
	return 0;
}

static void now_iso(char *buf, size_t len)
{
	time_t t = time(NULL);

	strftime(buf, len, "%Y-%m-%dT%H:%M:%SZ", gmtime(&t));
}

static void print_set(const struct mx_set *s)
{
	char key[2 * MX_WORD];

	snprintf(key, sizeof(key), "%s.%s", s->obj, s->key);
	print_string(PRINT_JSON, key, NULL, s->val);
}

void mx_print(const struct mx_run *m)
{
	char id[4096], name[512];
	unsigned int d, i, k, nmeas = 0;

	mx_identity(m, id, sizeof(id));
	print_string(PRINT_JSON, "host", NULL, m->host);
	open_json_object("matrix");
	print_string(PRINT_ANY, "name", "matrix %s", m->name);
	print_string(PRINT_ANY, "test", ": %s", m->test);
	if (m->ncells)
		print_string(PRINT_ANY, "unit", " (%s)", mx_unit(&m->cell[0]));
	print_float(PRINT_ANY, "duration-s", ", %g s", m->duration_s);
	print_float(PRINT_ANY, "warmup-s", " after %g s warmup", m->warmup_s);
	print_uint(PRINT_ANY, "iterations-min", ", %u", m->iter_min);
	print_uint(PRINT_ANY, "iterations-max", "-%u rounds", m->iter_max);
	print_float(PRINT_ANY, "width-pct", " until the 95%% interval is within %g%%",
		    m->width_pct);
	if (m->budget_s > 0)
		print_float(PRINT_ANY, "budget-s", " or %g s are spent", m->budget_s);
	print_nl();
	if (m->description[0])
		print_string(PRINT_ANY, "description", "  %s\n", m->description);
	if (m->file[0])
		print_string(PRINT_JSON, "file", NULL, m->file);
	print_string(PRINT_JSON, "identity", NULL, id);
	open_json_object("dimensions");
	for (d = 0; d < m->ndims; d++) {
		open_json_array(PRINT_JSON, m->dim[d]);
		for (i = 0; i < m->ndimval[d]; i++)
			print_string(PRINT_JSON, NULL, NULL, m->dimval[d][i]);
		close_json_array(PRINT_JSON, NULL);
	}
	close_json_object();
	open_json_object("fixed");
	for (i = 0; i < m->nfixed_probe; i++)
		print_string(PRINT_JSON, m->fixed_probe[i][0], NULL, m->fixed_probe[i][1]);
	for (i = 0; i < m->nfixed; i++)
		print_set(&m->fixed[i]);
	close_json_object();
	close_json_object();
	print_string(PRINT_JSON, "peer", NULL, m->peer);
	print_string(PRINT_JSON, "started", NULL, m->started);
	if (m->finished[0])
		print_string(PRINT_JSON, "finished", NULL, m->finished);
	print_bool(PRINT_JSON, "complete", NULL, m->complete);
	open_json_array(PRINT_JSON, "cells");
	for (i = 0; i < m->ncells; i++) {
		const struct mx_cell *c = &m->cell[i];
		double mean, lo, hi;

		nmeas += c->n;
		mx_cell_name(c, name, sizeof(name));
		mx_cell_ci(c, &mean, &lo, &hi);
		open_json_object(NULL);
		print_text("  %-40s", name);
		open_json_object("params");
		for (k = 0; k < c->nparam; k++)
			print_string(PRINT_JSON, c->key[k], NULL, c->val[k]);
		close_json_object();
		print_string(PRINT_JSON, "unit", NULL, mx_unit(c));
		open_json_array(PRINT_JSON, "values");
		for (k = 0; k < c->n; k++)
			print_float(PRINT_JSON, NULL, NULL, c->v[k]);
		close_json_array(PRINT_JSON, NULL);
		if (c->n)
			print_float(PRINT_ANY, "mean", " %10.1f", mean);
		else
			print_na("mean", " %10s");
		if (isfinite(lo) && isfinite(hi)) {
			print_float(PRINT_ANY, "ci-lo", " [%.1f,", lo);
			print_float(PRINT_ANY, "ci-hi", " %.1f]", hi);
		} else {
			print_na("ci-lo", " [%s,");
			print_na("ci-hi", " %s]");
		}
		print_uint(PRINT_ANY, "n", " n %u", c->n);
		if (c->stop)
			print_string(PRINT_ANY, "stop", " %s", c->stop);
		if (c->err[0])
			print_string(PRINT_ANY, "error", ": %s", c->err);
		print_nl();
		close_json_object();
	}
	close_json_array(PRINT_JSON, NULL);
	print_uint(PRINT_FP, NULL, "  %u measurements", nmeas);
	print_uint(PRINT_FP, NULL, " in %u cells", m->ncells);
	print_text("%s\n", m->complete ? "" : " (incomplete: run it again to resume)");
	if (is_json_context())
		probe_print_environment(m->env_dev[0] ? m->env_dev : m->dev, m->peer_version);
}

static int write_file(const struct mx_run *m, char *err, size_t errlen)
{
	int ret;

	new_json_obj(1);
	mx_print(m);
	ret = delete_json_obj_to(m->out_path);
	if (ret)
		snprintf(err, errlen, "cannot write %.200s: %s", m->out_path, strerror(-ret));
	return ret;
}

/* Put the cell's settings in place where they differ from what is: journaled, temporary. */
static int apply_sets(struct mx_run *m, const struct mx_cell *c, struct mx_set *cur,
		      unsigned int *ncur, char *err, size_t errlen)
{
	unsigned int i, k;
	int ret;

	for (i = 0; i < c->nset; i++) {
		const struct mx_set *s = &c->set[i];
		char e[300] = "";

		for (k = 0; k < *ncur; k++)
			if (!strcmp(cur[k].obj, s->obj) && !strcmp(cur[k].key, s->key))
				break;
		if (k < *ncur && !strcmp(cur[k].val, s->val))
			continue;
		if (!strcmp(s->obj, "sysctl")) {
			ret = sysctl_set(s->key, s->val, e, sizeof(e));
		} else if (!m->dev) {
			snprintf(e, sizeof(e), "needs a device (--dev)");
			ret = -EINVAL;
		} else {
			struct devset_kv kv = { s->key, s->val };

			ret = devset_set(m->dev, s->obj, &kv, 1, DEVSET_JOURNAL, e, sizeof(e),
					 NULL);
		}
		if (ret) {
			snprintf(err, errlen, "%s.%s %s: %s", s->obj, s->key, s->val, e);
			return ret;
		}
		if (k == *ncur && *ncur < MX_MAX_SETS * 2)
			(*ncur)++;
		cur[k] = *s;
	}
	return 0;
}

int mx_run(struct mx_run *m,
	   void (*progress)(const struct mx_run *m, const struct mx_cell *c, unsigned int round,
			    unsigned int done, unsigned int total),
	   char *err, size_t errlen)
{
	struct mx_set cur[MX_MAX_SETS * 2];
	struct probe_result *res = calloc(1, sizeof(*res));
	unsigned int ncur = 0, round, i, done = m->resumed, total = m->ncells * m->iter_max;
	double t0 = et_now_s();
	bool unwritable = false; /* the result file failed: no final write over it */
	int ret = 0;

	if (!res)
		return -ENOMEM;
	if (!m->started[0])
		now_iso(m->started, sizeof(m->started));
	for (round = 0; round < m->iter_max && !ret; round++) {
		bool any = false;

		for (i = 0; i < m->ncells && !ret; i++) {
			/* ABBA across rounds: a drift moves every cell alike */
			struct mx_cell *c = &m->cell[round % 2 ? m->ncells - 1 - i : i];

			if (c->n > round || narrow(m, c) || c->n >= m->iter_max || c->stop)
				continue;
			if (m->budget_s > 0 && et_now_s() - t0 > m->budget_s) {
				c->stop = "budget";
				continue;
			}
			any = true;
			ret = apply_sets(m, c, cur, &ncur, err, errlen);
			if (ret) {
				c->stop = "failed";
				snprintf(c->err, sizeof(c->err), "%s", err);
				break;
			}
			memset(res, 0, sizeof(*res));
			ret = probe_run(&c->cfg, res);
			if (ret == -EINTR || et_stop_signal()) {
				ret = -EINTR;
				break;
			}
			if (ret) {
				c->stop = "failed";
				snprintf(c->err, sizeof(c->err), "%.190s", res->err);
				snprintf(err, errlen, "%s", res->err);
				break;
			}
			c->v[c->n++] = res->value;
			if (res->dev.dev[0])
				snprintf(m->env_dev, sizeof(m->env_dev), "%s", res->dev.dev);
			snprintf(m->peer_version, sizeof(m->peer_version), "%s", res->peer_version);
			done++;
			if (progress)
				progress(m, c, round + 1, done, total);
			ret = write_file(m, err, errlen);
			unwritable = ret != 0;
		}
		if (!any && !ret)
			break;
	}
	for (i = 0; i < m->ncells; i++) {
		struct mx_cell *c = &m->cell[i];

		if (c->stop)
			continue;
		if (ret == -EINTR)
			c->stop = "interrupted";
		else if (narrow(m, c))
			c->stop = "converged";
		else if (c->n >= m->iter_max)
			c->stop = "max-iterations";
	}
	/* a spent budget ends the run without an error: as complete as it will be; a failure or
	 * an interrupt leaves it to be resumed */
	m->complete = !ret;
	if (m->complete)
		now_iso(m->finished, sizeof(m->finished));
	if (!unwritable) {
		char e2[300];
		int wret = write_file(m, e2, sizeof(e2));

		if (wret && !ret) {
			snprintf(err, errlen, "%s", e2);
			ret = wret;
		}
	}
	free(res);
	return ret;
}
