/* ethtune compare: two matrix results cell by cell, Welch's t-test under Holm-Bonferroni. */
#include <errno.h>
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "analysis/compare.h"
#include "out/json_print.h"
#include "util/stats.h"

/* ---- comparing ---- */

void cmp_holm(const double *p, unsigned int n, double *adj)
{
	unsigned int *ord, i, j;
	double run = 0;

	if (!n)
		return;
	ord = malloc(n * sizeof(*ord));
	if (!ord) { /* Bonferroni: never below Holm's adjustment */
		for (i = 0; i < n; i++)
			adj[i] = fmin(1, p[i] * n);
		return;
	}
	for (i = 0; i < n; i++)
		ord[i] = i;
	/* insertion sort by p, stable: families are tens of cells */
	for (i = 1; i < n; i++) {
		unsigned int k = ord[i];

		for (j = i; j > 0 && p[ord[j - 1]] > p[k]; j--)
			ord[j] = ord[j - 1];
		ord[j] = k;
	}
	/* the (i+1)-th smallest p times the n - i hypotheses left, never below the one before */
	for (i = 0; i < n; i++) {
		double a = fmin(1, p[ord[i]] * (n - i));

		run = fmax(run, a);
		adj[ord[i]] = run;
	}
	free(ord);
}

static bool env_skipped(const char *key)
{
	static const char *const skip[] = { "date", "hostname" };
	unsigned int i;

	for (i = 0; i < sizeof(skip) / sizeof(skip[0]); i++) {
		size_t n = strlen(skip[i]);

		if (!strncmp(key, skip[i], n) && (!key[n] || key[n] == '.'))
			return true;
	}
	return false;
}

static bool env_equal(const struct cmp_env *a, const struct cmp_env *b)
{
	bool an = a->kind == CMP_ENV_INT || a->kind == CMP_ENV_REAL;
	bool bn = b->kind == CMP_ENV_INT || b->kind == CMP_ENV_REAL;

	if (an && bn)
		return a->num == b->num;
	return a->kind == b->kind && !strcmp(a->text, b->text);
}

static const struct cmp_env *env_find(const struct cmp_result *r, const char *key)
{
	unsigned int i;

	for (i = 0; i < r->nenv; i++)
		if (!strcmp(r->env[i].key, key))
			return &r->env[i];
	return NULL;
}

int cmp_env_diff(const struct cmp_result *b, const struct cmp_result *n, struct cmp_envdiff **d,
		 unsigned int *nd)
{
	unsigned int i;

	*nd = 0;
	*d = calloc(b->nenv + n->nenv + 1, sizeof(**d));
	if (!*d)
		return -ENOMEM;
	for (i = 0; i < b->nenv; i++) {
		const struct cmp_env *e = &b->env[i], *o;

		if (env_skipped(e->key))
			continue;
		o = env_find(n, e->key);
		if (!o || !env_equal(e, o))
			(*d)[(*nd)++] = (struct cmp_envdiff){ e->key, e, o };
	}
	for (i = 0; i < n->nenv; i++) {
		const struct cmp_env *e = &n->env[i];

		if (!env_skipped(e->key) && !env_find(b, e->key))
			(*d)[(*nd)++] = (struct cmp_envdiff){ e->key, NULL, e };
	}
	return 0;
}

/* +1 when more is better, -1 when less is, 0 when not known. Every unit ethtune matrix writes
 * is a rate. */
static int unit_better(const char *unit)
{
	static const char *const higher[] = { "Mbit/s", "trans/s" };
	unsigned int i;

	for (i = 0; i < sizeof(higher) / sizeof(higher[0]); i++)
		if (!strcmp(unit, higher[i]))
			return 1;
	return 0;
}

static void side_ci(const struct cmp_cell *c, struct et_ci *ci)
{
	stats_mean_ci(c->values, c->n, 95, ci);
	if (!c->n)
		ci->mean = ci->lo = ci->hi = NAN;
}

/* Statistics of one matched cell, before the adjustment; tested when it joins the family. */
static void row_test(struct cmp_row *w)
{
	const struct cmp_cell *b = w->base, *n = w->new;

	side_ci(b, &w->b);
	side_ci(n, &w->n);
	w->p = w->p_adj = NAN;
	w->delta_pct =
		b->n && n->n && w->b.mean != 0 ? (w->n.mean - w->b.mean) / w->b.mean * 100 : NAN;
	w->verdict = CMP_INCONCLUSIVE;
	if (b->n < 2 || n->n < 2)
		snprintf(w->reason, sizeof(w->reason), "fewer than 2 values: base %u, new %u", b->n,
			 n->n);
	else if ((b->unit || n->unit) && (!b->unit || !n->unit || strcmp(b->unit, n->unit)))
		snprintf(w->reason, sizeof(w->reason), "units differ: %s, %s",
			 b->unit ? b->unit : "none", n->unit ? n->unit : "none");
	else if (!b->unit)
		snprintf(w->reason, sizeof(w->reason), "no unit: which way is better is not known");
	else if (!unit_better(b->unit))
		snprintf(w->reason, sizeof(w->reason), "unit %s: which way is better is not known",
			 b->unit);
	else if (!(w->b.mean > 0))
		snprintf(w->reason, sizeof(w->reason), "base mean is not positive");
	else {
		w->tested = true;
		w->p = stats_welch_p(b->values, b->n, n->values, n->n);
	}
}

static int host_compare(const struct cmp_result *b, const struct cmp_result *n, struct cmp_host *h)
{
	bool *used;
	unsigned int i, j;

	memset(h, 0, sizeof(*h));
	h->base = b;
	h->new = n;
	h->rows = calloc(b->ncells + 1, sizeof(*h->rows));
	h->un = calloc(b->ncells + n->ncells + 1, sizeof(*h->un));
	used = calloc(n->ncells + 1, sizeof(*used));
	if (!h->rows || !h->un || !used) {
		free(used);
		return -ENOMEM;
	}
	for (i = 0; i < b->ncells; i++) {
		for (j = 0; j < n->ncells; j++)
			if (!used[j] && cmp_params_equal(&b->cells[i], &n->cells[j]))
				break;
		if (j == n->ncells) {
			h->un[h->nun++] = (struct cmp_unmatched){ &b->cells[i], false };
			continue;
		}
		used[j] = true;
		h->rows[h->nrows].base = &b->cells[i];
		h->rows[h->nrows].new = &n->cells[j];
		row_test(&h->rows[h->nrows++]);
	}
	for (j = 0; j < n->ncells; j++)
		if (!used[j])
			h->un[h->nun++] = (struct cmp_unmatched){ &n->cells[j], true };
	free(used);
	return cmp_env_diff(b, n, &h->env, &h->nenv);
}

static void row_verdict(struct cmp_row *w, double alpha, double thr)
{
	double good;

	if (!w->tested)
		return;
	w->reason[0] = '\0';
	w->verdict = CMP_NO_CHANGE;
	if (!(w->p_adj <= alpha))
		return;
	good = w->delta_pct * unit_better(w->base->unit);
	if (good < -thr)
		w->verdict = CMP_REGRESSION;
	else if (good > thr)
		w->verdict = CMP_IMPROVEMENT;
	else
		snprintf(w->reason, sizeof(w->reason), "significant, within the %g%% threshold",
			 thr);
}

/* Holm over every tested cell of every host, then the verdicts and the counts. */
static int adjust(struct cmp_report *rep)
{
	struct cmp_row **fam;
	double *p, *adj;
	unsigned int i, j, m = 0;

	fam = calloc(rep->tested + 1, sizeof(*fam));
	p = calloc(rep->tested + 1, sizeof(*p));
	adj = calloc(rep->tested + 1, sizeof(*adj));
	if (!fam || !p || !adj) {
		free(fam);
		free(p);
		free(adj);
		return -ENOMEM;
	}
	for (i = 0; i < rep->nhosts; i++)
		for (j = 0; j < rep->hosts[i].nrows; j++)
			if (rep->hosts[i].rows[j].tested) {
				fam[m] = &rep->hosts[i].rows[j];
				p[m] = fam[m]->p;
				m++;
			}
	cmp_holm(p, m, adj);
	for (i = 0; i < m; i++)
		fam[i]->p_adj = adj[i];
	for (i = 0; i < rep->nhosts; i++) {
		rep->unmatched += rep->hosts[i].nun;
		for (j = 0; j < rep->hosts[i].nrows; j++) {
			struct cmp_row *w = &rep->hosts[i].rows[j];

			row_verdict(w, rep->alpha, rep->threshold_pct);
			rep->regressions += w->verdict == CMP_REGRESSION;
			rep->improvements += w->verdict == CMP_IMPROVEMENT;
			rep->unchanged += w->verdict == CMP_NO_CHANGE;
			rep->inconclusive += w->verdict == CMP_INCONCLUSIVE;
		}
	}
	free(fam);
	free(p);
	free(adj);
	return 0;
}

int cmp_compare(const struct cmp_side *base, const struct cmp_side *new, double alpha,
		double threshold_pct, struct cmp_report *rep)
{
	bool *used;
	unsigned int i, j;
	int ret = 0;

	memset(rep, 0, sizeof(*rep));
	rep->base_path = base->path;
	rep->new_path = new->path;
	rep->alpha = alpha;
	rep->threshold_pct = threshold_pct;
	rep->hosts = calloc(base->n + 1, sizeof(*rep->hosts));
	rep->lone = calloc(base->n + new->n + 1, sizeof(*rep->lone));
	used = calloc(new->n + 1, sizeof(*used));
	if (!rep->hosts || !rep->lone || !used) {
		ret = -ENOMEM;
		goto out;
	}
	for (i = 0; i < base->n && !ret; i++) {
		/* two files: each other, whatever their hosts; otherwise by "host" */
		for (j = 0; j < new->n; j++)
			if (!used[j] &&
			    ((!base->dir && !new->dir) || !strcmp(base->r[i].host, new->r[j].host)))
				break;
		if (j == new->n) {
			rep->lone[rep->nlone++] = (struct cmp_lone){ &base->r[i], false };
			continue;
		}
		used[j] = true;
		ret = host_compare(&base->r[i], &new->r[j], &rep->hosts[rep->nhosts++]);
		for (j = 0; j < rep->hosts[rep->nhosts - 1].nrows; j++)
			rep->tested += rep->hosts[rep->nhosts - 1].rows[j].tested;
	}
	for (j = 0; j < new->n && !ret; j++)
		if (!used[j])
			rep->lone[rep->nlone++] = (struct cmp_lone){ &new->r[j], true };
	if (!ret)
		ret = adjust(rep);
out:
	free(used);
	if (ret)
		cmp_report_free(rep);
	return ret;
}

void cmp_report_free(struct cmp_report *rep)
{
	unsigned int i;

	for (i = 0; rep->hosts && i < rep->nhosts; i++) {
		free(rep->hosts[i].rows);
		free(rep->hosts[i].un);
		free(rep->hosts[i].env);
	}
	free(rep->hosts);
	free(rep->lone);
	memset(rep, 0, sizeof(*rep));
}

const char *cmp_verdict_name(enum cmp_verdict v)
{
	switch (v) {
	case CMP_NO_CHANGE:
		return "no change";
	case CMP_REGRESSION:
		return "regression";
	case CMP_IMPROVEMENT:
		return "improvement";
	case CMP_INCONCLUSIVE:
		return "inconclusive";
	}
	return "?";
}

/* ---- printing ---- */

/* A value in the table: one decimal, three digits below 10. */
static void fmt_num(char *buf, size_t len, double v)
{
	double a = fabs(v);

	snprintf(buf, len, a >= 10 ? "%.1f" : "%.3g", v);
}

/* "805.5 [790.2, 820.8]", "805.5 [n/a]" (n < 2) or "n/a" (no values). */
static void fmt_ci(char *buf, size_t len, const struct et_ci *c)
{
	char m[32], lo[32], hi[32];

	if (isnan(c->mean)) {
		snprintf(buf, len, "n/a");
		return;
	}
	fmt_num(m, sizeof(m), c->mean);
	if (!isfinite(c->lo) || !isfinite(c->hi)) {
		snprintf(buf, len, "%s [n/a]", m);
		return;
	}
	fmt_num(lo, sizeof(lo), c->lo);
	fmt_num(hi, sizeof(hi), c->hi);
	snprintf(buf, len, "%s [%s, %s]", m, lo, hi);
}

static void print_params_json(const struct cmp_cell *c)
{
	unsigned int i;

	open_json_object("params");
	for (i = 0; i < c->nparams; i++)
		print_string(PRINT_JSON, c->params[i].key, NULL, c->params[i].val);
	close_json_object();
}

static void print_side_json(const char *key, const struct et_ci *c)
{
	open_json_object(key);
	if (!isnan(c->mean))
		print_float(PRINT_JSON, "mean", NULL, c->mean);
	if (isfinite(c->lo) && isfinite(c->hi) && !isnan(c->mean)) {
		print_float(PRINT_JSON, "ci-lo", NULL, c->lo);
		print_float(PRINT_JSON, "ci-hi", NULL, c->hi);
	}
	print_uint(PRINT_JSON, "n", NULL, c->n);
	close_json_object();
}

/* One result's description: JSON object key; text "BASE file (matrix, test, N cells)". */
static void print_result(const char *key, const char *label, const struct cmp_result *r)
{
	open_json_object(key);
	print_string(PRINT_ANY, "file", label, r->path);
	print_string(PRINT_JSON, "host", NULL, r->host);
	if (r->matrix)
		print_string(PRINT_ANY, "matrix", " (%s", r->matrix);
	else
		print_text(" (?");
	if (r->test)
		print_string(PRINT_ANY, "test", ", %s", r->test);
	else
		print_text(", ?");
	if (r->unit)
		print_string(PRINT_ANY, "unit", ", %s", r->unit);
	print_bool(PRINT_JSON, "complete", NULL, r->complete);
	print_uint(PRINT_ANY, "cells-done", ", %llu cells)", r->ncells);
	if (r->planned)
		print_uint(PRINT_JSON, "cells-planned", NULL, r->planned);
	close_json_object();
}

static void print_incomplete(const char *side, const struct cmp_result *r)
{
	if (r->complete)
		return;
	if (r->planned)
		print_text("  %s is incomplete: %u of %u cells\n", side, r->ncells, r->planned);
	else
		print_text("  %s is incomplete: %u cells\n", side, r->ncells);
}

/* An environment value: typed in JSON, its text in text; n/a (absent in JSON) when missing. */
static void print_env_val(const char *key, const char *fmt, const struct cmp_env *e)
{
	if (!e) {
		print_na(key, fmt);
		return;
	}
	print_string(PRINT_FP, NULL, fmt, e->text);
	switch (e->kind) {
	case CMP_ENV_INT:
		print_int(PRINT_JSON, key, NULL, strtoll(e->text, NULL, 10));
		break;
	case CMP_ENV_REAL:
		print_float(PRINT_JSON, key, NULL, e->num);
		break;
	case CMP_ENV_BOOL:
		print_bool(PRINT_JSON, key, NULL, e->num != 0);
		break;
	default:
		print_string(PRINT_JSON, key, NULL, e->text);
	}
}

static void print_rows(const struct cmp_host *h)
{
	int wp = 4, wb = 13, wn = 13;
	char ps[256], bs[128], ns[128];
	unsigned int i;

	for (i = 0; i < h->nrows; i++) {
		const struct cmp_row *w = &h->rows[i];

		cmp_params_str(w->base, ps, sizeof(ps));
		fmt_ci(bs, sizeof(bs), &w->b);
		fmt_ci(ns, sizeof(ns), &w->n);
		wp = (int)strlen(ps) > wp ? (int)strlen(ps) : wp;
		wb = (int)strlen(bs) > wb ? (int)strlen(bs) : wb;
		wn = (int)strlen(ns) > wn ? (int)strlen(ns) : wn;
	}
	if (h->nrows)
		print_text("  %-*s  %-*s  %-*s  %7s %8s %8s  %s\n", wp, "cell", wb, "base [95% CI]",
			   wn, "new [95% CI]", "delta", "p", "p-adj", "verdict");
	open_json_array(PRINT_JSON, "cells");
	for (i = 0; i < h->nrows; i++) {
		const struct cmp_row *w = &h->rows[i];

		open_json_object(NULL);
		cmp_params_str(w->base, ps, sizeof(ps));
		fmt_ci(bs, sizeof(bs), &w->b);
		fmt_ci(ns, sizeof(ns), &w->n);
		print_text("  %-*s  %-*s  %-*s", wp, ps, wb, bs, wn, ns);
		print_params_json(w->base);
		if (w->base->unit)
			print_string(PRINT_JSON, "unit", NULL, w->base->unit);
		print_side_json("base", &w->b);
		print_side_json("new", &w->n);
		if (isnan(w->delta_pct))
			print_na("delta-pct", "  %7s");
		else
			print_float(PRINT_ANY, "delta-pct", "  %+6.1f%%", w->delta_pct);
		if (isnan(w->p)) {
			print_na("p", " %8s");
			print_na("p-adjusted", " %8s");
		} else {
			print_float(PRINT_ANY, "p", " %8.2g", w->p);
			print_float(PRINT_ANY, "p-adjusted", " %8.2g", w->p_adj);
		}
		print_string(PRINT_ANY, "verdict", "  %s", cmp_verdict_name(w->verdict));
		if (w->reason[0])
			print_string(PRINT_ANY, "reason", " (%s)", w->reason);
		print_text("\n");
		close_json_object();
	}
	close_json_array(PRINT_JSON, NULL);
}

static void print_host(const struct cmp_host *h)
{
	char ps[256];
	unsigned int i;

	open_json_object(NULL);
	print_string(PRINT_ANY, "host", "\nhost %s", h->base->host);
	if (strcmp(h->base->host, h->new->host))
		print_text(" -> %s", h->new->host);
	print_text(":\n");
	print_result("base", "  BASE %s", h->base);
	print_text("\n");
	print_result("new", "  NEW  %s", h->new);
	print_text("\n");
	print_incomplete("BASE", h->base);
	print_incomplete("NEW", h->new);
	print_rows(h);

	open_json_array(PRINT_JSON, "unmatched");
	for (i = 0; i < h->nun; i++) {
		open_json_object(NULL);
		cmp_params_str(h->un[i].cell, ps, sizeof(ps));
		print_string(PRINT_JSON, "side", NULL, h->un[i].in_new ? "new" : "base");
		print_text("  only in %s: %s\n", h->un[i].in_new ? "NEW" : "BASE", ps);
		print_params_json(h->un[i].cell);
		close_json_object();
	}
	close_json_array(PRINT_JSON, NULL);

	if (h->nenv)
		print_text("environment (BASE -> NEW):\n");
	else
		print_text("environment: no difference\n");
	open_json_array(PRINT_JSON, "environment-diff");
	for (i = 0; i < h->nenv; i++) {
		open_json_object(NULL);
		print_string(PRINT_ANY, "key", "  %s: ", h->env[i].key);
		print_env_val("base", "%s", h->env[i].b);
		print_env_val("new", " -> %s\n", h->env[i].n);
		close_json_object();
	}
	close_json_array(PRINT_JSON, NULL);
	close_json_object();
}

void cmp_print(const struct cmp_report *rep, bool json)
{
	unsigned int i;

	new_json_obj(json);
	print_string(PRINT_ANY, "base-path", "compare: BASE %s", rep->base_path);
	print_string(PRINT_ANY, "new-path", ", NEW %s\n", rep->new_path);
	open_json_object("test");
	print_string(PRINT_JSON, "name", NULL, "welch-holm");
	print_uint(PRINT_ANY, "cells",
		   "test: Welch's t-test per cell, Holm-Bonferroni over %llu "
		   "cells",
		   rep->tested);
	print_float(PRINT_ANY, "alpha", ", alpha %g", rep->alpha);
	print_float(PRINT_ANY, "threshold-pct", ", threshold %g%%\n", rep->threshold_pct);
	close_json_object();

	open_json_array(PRINT_JSON, "hosts");
	for (i = 0; i < rep->nhosts; i++)
		print_host(&rep->hosts[i]);
	close_json_array(PRINT_JSON, NULL);

	if (rep->nlone)
		print_text("\n");
	open_json_array(PRINT_JSON, "unmatched-hosts");
	for (i = 0; i < rep->nlone; i++) {
		open_json_object(NULL);
		print_string(PRINT_ANY, "host", "host %s", rep->lone[i].r->host);
		print_string(PRINT_JSON, "side", NULL, rep->lone[i].in_new ? "new" : "base");
		print_text(": only in %s", rep->lone[i].in_new ? "NEW" : "BASE");
		print_string(PRINT_ANY, "file", " (%s), not compared\n", rep->lone[i].r->path);
		close_json_object();
	}
	close_json_array(PRINT_JSON, NULL);

	print_uint(PRINT_ANY, "regressions", "\nsummary: %llu regressions", rep->regressions);
	print_uint(PRINT_ANY, "improvements", ", %llu improvements", rep->improvements);
	print_uint(PRINT_ANY, "unchanged", ", %llu no change", rep->unchanged);
	print_uint(PRINT_ANY, "inconclusive", ", %llu inconclusive", rep->inconclusive);
	print_uint(PRINT_ANY, "unmatched", ", %llu unmatched\n", rep->unmatched);
	delete_json_obj();
}

int cmp_run(const char *base, const char *new, const struct cmp_opts *o, unsigned int *regressions,
	    char *err, size_t errlen)
{
	struct cmp_side b, n;
	struct cmp_report rep;
	int ret;

	*regressions = 0;
	ret = cmp_load(base, &b, err, errlen);
	if (ret)
		return ret;
	ret = cmp_load(new, &n, err, errlen);
	if (ret) {
		cmp_side_free(&b);
		return ret;
	}
	ret = cmp_compare(&b, &n, o->alpha, o->threshold_pct, &rep);
	if (ret) {
		snprintf(err, errlen, "%s", strerror(-ret));
	} else {
		cmp_print(&rep, o->json);
		*regressions = rep.regressions;
		cmp_report_free(&rep);
	}
	cmp_side_free(&b);
	cmp_side_free(&n);
	return ret;
}
