/* ethtune profile merge: tune results of many hosts grouped by NIC model, the setting every host
 * accepts by tune's own rule, outliers tested and left out, one measured profile per model. */
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "analysis/compare.h"
#include "analysis/merge.h"
#include "analysis/thresholds.h"
#include "analysis/tune.h"
#include "util/ethtune.h"
#include "util/stats.h"

static bool by_irq_objective(int obj)
{
	return !strcmp(tune_objective_name(obj), "throughput") ||
	       !strcmp(tune_objective_name(obj), "balanced");
}

static int host_idx(const struct merge_host *h, uint32_t v)
{
	unsigned int i;

	for (i = 0; i < h->n; i++)
		if (h->value[i] == v)
			return (int)i;
	return -1;
}

static bool host_accepts(const struct merge_host *h, uint32_t v)
{
	int i = host_idx(h, v);

	return i >= 0 && (h->accept >> i & 1);
}

/* tune's rule on the host's own sweep: what it accepts, and what it picks. */
static void host_rule(struct merge_host *h, struct coal_sweep *s)
{
	bool ok[COAL_MAX_POINTS];
	unsigned int ex, i;

	memset(s, 0, sizeof(*s));
	s->nparams = 1;
	snprintf(s->param[0], sizeof(s->param[0]), "%s", h->param);
	s->n = h->n;
	memcpy(s->p, h->p, h->n * sizeof(*h->p));
	h->pick = tune_pick(s, h->objective, &ex, &h->fallback);
	tune_accept(s, h->objective, ok, &ex);
	h->accept = 0;
	for (i = 0; i < h->n; i++)
		if (ok[i])
			h->accept |= 1ull << i;
	/* where tune fell back (no setting met its rule) the host accepts only what it picked */
	if (h->fallback && h->pick >= 0)
		h->accept = 1ull << h->pick;
	h->at = -1;
	h->share = h->pval = h->p_adj = NAN;
}

/* The setting that every one of hs[0..n) accepts, chosen among those by the objective's cost
 * as tune chooses (its mean over the hosts; the delay where a host cannot count interrupts).
 * false when no setting is accepted by all. */
static bool decide(struct merge_host *const *hs, unsigned int n, uint32_t *value, bool *irq,
		   double *cost)
{
	const struct merge_host *h0 = n ? hs[0] : NULL;
	int obj = h0 ? h0->objective : 0;
	bool found = false;
	unsigned int i, j;

	*irq = h0 && by_irq_objective(obj);
	for (i = 0; h0 && i < h0->n; i++) {
		uint32_t v = h0->value[i];

		for (j = 0; j < n && host_accepts(hs[j], v); j++)
			;
		for (j = j < n ? n : 0; j < n; j++) /* a common one: are its interrupts counted? */
			if (isnan(hs[j]->p[host_idx(hs[j], v)].irq_per_s))
				*irq = false;
	}
	for (i = 0; h0 && i < h0->n; i++) {
		uint32_t v = h0->value[i];
		double c = 0;

		for (j = 0; j < n && host_accepts(hs[j], v); j++)
			c += tune_cost(&hs[j]->p[host_idx(hs[j], v)], obj) / n;
		if (j < n)
			continue;
		if (by_irq_objective(obj) && !*irq)
			c = -(double)v; /* the largest delay, as tune where it cannot count them */
		else if (!by_irq_objective(obj) && !strcmp(tune_objective_name(obj), "latency"))
			c = v;
		if (!found || c < *cost) {
			*cost = c;
			*value = v;
		}
		found = true;
	}
	return found;
}

unsigned int merge_outliers(struct merge_host **h, unsigned int n, uint32_t value, double alpha)
{
	double *x = malloc((n + 1) * sizeof(*x)), *p = malloc((n + 1) * sizeof(*p));
	double *adj = malloc((n + 1) * sizeof(*adj)), mean = 0, s2 = 0;
	unsigned int *who = malloc((n + 1) * sizeof(*who)), i, k = 0, out = 0;

	for (i = 0; i < n; i++) {
		h[i]->at = host_idx(h[i], value);
		h[i]->share = h[i]->pval = h[i]->p_adj = NAN;
		h[i]->outlier = false;
	}
	if (!x || !p || !adj || !who)
		goto done;
	for (i = 0; i < n; i++)
		if (h[i]->at >= 0 && isfinite(h[i]->p[h[i]->at].mbps)) {
			x[k] = h[i]->p[h[i]->at].mbps;
			who[k++] = i;
		}
	if (k < 3) /* a host against at least two others */
		goto done;
	for (i = 0; i < k; i++)
		mean += x[i] / k;
	for (i = 0; i < k; i++)
		s2 += (x[i] - mean) * (x[i] - mean);
	for (i = 0; i < k; i++) {
		/* the others' mean and spread without host i, from the sums over all */
		double d = x[i] - mean, md = -d / (k - 1);
		double var = (s2 - d * d - (k - 1) * md * md) / (k - 2);
		double m = mean + md;

		p[i] = stats_pred_below_p(x[i], m, var > 0 ? sqrt(var) : 0, k - 1);
		h[who[i]]->share = m > 0 ? x[i] / m : NAN;
		h[who[i]]->pval = p[i];
	}
	cmp_holm(p, k, adj);
	for (i = 0; i < k; i++) {
		struct merge_host *w = h[who[i]];

		w->p_adj = adj[i];
		w->outlier = adj[i] < alpha && w->share < 1 - MERGE_MIN_EFFECT;
		out += w->outlier;
	}
done:
	free(x);
	free(p);
	free(adj);
	free(who);
	return out;
}

/* ---- grouping ---- */

static const char *kernel_numbers(const char *rel, char *buf, size_t len)
{
	size_t n = rel ? strspn(rel, "0123456789.") : 0;

	snprintf(buf, len, "%.*s", (int)(n < len ? n : len - 1), rel ? rel : "");
	return buf;
}

static void host_key(struct merge_host *h, int split)
{
	char ids[40] = "", kv[64];

	if (h->pci)
		snprintf(ids, sizeof(ids), "%04x:%04x/%04x:%04x", h->vendor, h->device,
			 h->sub_vendor, h->sub_device);
	snprintf(h->key, sizeof(h->key), "%s|%s|%s|%s|%s|%s", h->driver, ids,
		 tune_objective_name(h->objective), h->param, h->fixed ? h->fixed : "",
		 split == MERGE_SPLIT_FIRMWARE ? (h->fw ? h->fw : "")
		 : split == MERGE_SPLIT_KERNEL ? kernel_numbers(h->kernel, kv, sizeof(kv))
					       : "");
}

static int by_key(const void *a, const void *b)
{
	const struct merge_host *x = *(struct merge_host *const *)a,
				*y = *(struct merge_host *const *)b;
	int c = strcmp(x->key, y->key);

	return c ? c : strcmp(x->host, y->host);
}

/* host and device, then the newer first (its date, else mtime), then the path */
static int by_host_dev(const void *a, const void *b)
{
	const struct merge_host *x = *(struct merge_host *const *)a,
				*y = *(struct merge_host *const *)b;
	int c = strcmp(x->host, y->host);

	if (!c)
		c = strcmp(x->dev, y->dev);
	if (!c && x->dated && y->dated && x->when != y->when)
		return x->when > y->when ? -1 : 1;
	if (!c && x->when != y->when)
		return x->when > y->when ? -1 : 1;
	return c ? c : strcmp(y->path, x->path);
}

/* The newer of two results of one host and device is used, the other said and left out. */
static int pair_duplicates(struct merge_run *r, struct merge_host **all)
{
	unsigned int i, used = 0;

	qsort(all, r->nh, sizeof(*all), by_host_dev);
	for (i = 1; i < r->nh; i++) {
		struct merge_dup *d;

		if (strcmp(all[i]->host, all[used]->host) || strcmp(all[i]->dev, all[used]->dev)) {
			used = i;
			continue;
		}
		all[i]->superseded = true;
		d = realloc(r->dup, (r->ndup + 1) * sizeof(*d));
		if (!d)
			return -ENOMEM;
		r->dup = d;
		d[r->ndup].used = all[used];
		d[r->ndup++].dropped = all[i];
	}
	return 0;
}

/* A profile name from the model: letters, digits, - _ . and at most 60 of them. */
static void model_name(struct merge_model *m, int split)
{
	const struct merge_host *h = m->h[0];
	char raw[320], kv[64], *c;
	unsigned long hash = 5381;
	int k;

	k = snprintf(raw, sizeof(raw), "%s", h->driver);
	if (h->pci)
		k += snprintf(raw + k, sizeof(raw) - k, "-%04x-%04x-%04x-%04x", h->vendor,
			      h->device, h->sub_vendor, h->sub_device);
	if (split == MERGE_SPLIT_FIRMWARE)
		k += snprintf(raw + k, sizeof(raw) - k, "-fw-%s", h->fw ? h->fw : "none");
	else if (split == MERGE_SPLIT_KERNEL)
		k += snprintf(raw + k, sizeof(raw) - k, "-kernel-%s",
			      kernel_numbers(h->kernel, kv, sizeof(kv)));
	snprintf(raw + k, sizeof(raw) - k, "-%s-%s", h->param, tune_objective_name(h->objective));
	for (c = raw; *c; c++) {
		hash = hash * 33 + (unsigned char)*c;
		if (!(*c >= 'a' && *c <= 'z') && !(*c >= 'A' && *c <= 'Z') &&
		    !(*c >= '0' && *c <= '9') && *c != '-' && *c != '_' && *c != '.')
			*c = '_';
	}
	if (strlen(raw) <= 60)
		snprintf(m->name, sizeof(m->name), "%s", raw);
	else /* too long: its head and a hash of the whole */
		snprintf(m->name, sizeof(m->name), "%.51s-%08lx", raw, hash & 0xffffffffUL);
}

static int by_want(const void *a, const void *b)
{
	const struct merge_want *x = a, *y = b;

	if (x->n != y->n)
		return x->n > y->n ? -1 : 1;
	if (x->none != y->none)
		return x->none ? 1 : -1;
	return x->value < y->value ? -1 : x->value > y->value;
}

/* Who wants what: the non-outlier hosts by their own pick, most wanted first. */
static int wants(struct merge_model *m)
{
	unsigned int i, j;

	m->want = calloc(m->n + 1, sizeof(*m->want));
	if (!m->want)
		return -ENOMEM;
	for (i = 0; i < m->n; i++) {
		const struct merge_host *h = m->h[i];
		bool none = h->pick < 0;
		uint32_t v = none ? 0 : h->value[h->pick];

		if (h->outlier)
			continue;
		for (j = 0; j < m->nwant; j++)
			if (m->want[j].none == none && m->want[j].value == v)
				break;
		if (j == m->nwant)
			m->want[m->nwant++] = (struct merge_want){ none, v, 0 };
		m->want[j].n++;
	}
	qsort(m->want, m->nwant, sizeof(*m->want), by_want);
	return 0;
}

static int by_part(const void *a, const void *b)
{
	return strcmp(((const struct merge_part *)a)->what, ((const struct merge_part *)b)->what);
}

static const char *attr_of(const struct merge_host *h, bool fw)
{
	return fw ? (h->fw ? h->fw : "n/a") : (h->kernel ? h->kernel : "n/a");
}

/* Does firmware (fw) or the kernel explain a model without a common setting: two versions or
 * more, and the hosts of each version agree on one? Fills m->part. */
static int explain(struct merge_model *m, bool fw)
{
	struct merge_host **g = calloc(m->n + 1, sizeof(*g));
	unsigned int i, j, ng;
	bool all = true;
	int ret = 0;

	m->npart = 0;
	if (!g)
		return -ENOMEM;
	free(m->part);
	m->part = calloc(m->n + 1, sizeof(*m->part));
	if (!m->part) {
		free(g);
		return -ENOMEM;
	}
	for (i = 0; i < m->n && all; i++) {
		const char *a = attr_of(m->h[i], fw);
		bool irq;
		double cost;

		if (m->h[i]->outlier)
			continue;
		for (j = 0; j < m->npart && strcmp(m->part[j].what, a); j++)
			;
		if (j < m->npart)
			continue;
		for (j = 0, ng = 0; j < m->n; j++)
			if (!m->h[j]->outlier && !strcmp(attr_of(m->h[j], fw), a))
				g[ng++] = m->h[j];
		m->part[m->npart] = (struct merge_part){ a, 0, ng };
		all = decide(g, ng, &m->part[m->npart].value, &irq, &cost);
		m->npart++;
	}
	if (all && m->npart >= 2) {
		m->explained_by = fw ? "firmware" : "kernel";
		qsort(m->part, m->npart, sizeof(*m->part), by_part);
	} else
		m->npart = 0;
	free(g);
	return ret;
}

/* The setting most of hs[0..n) pick themselves (the smaller on a tie); false: none picks. */
static bool plurality(struct merge_host *const *hs, unsigned int n, uint32_t *v)
{
	unsigned int i, j, best = 0;

	for (i = 0; i < n; i++) {
		uint32_t x;
		unsigned int c = 0;

		if (hs[i]->pick < 0)
			continue;
		x = hs[i]->value[hs[i]->pick];
		for (j = 0; j < n; j++)
			c += hs[j]->pick >= 0 && hs[j]->value[hs[j]->pick] == x;
		if (c > best || (c == best && x < *v)) {
			best = c;
			*v = x;
		}
	}
	return best > 0;
}

static int model_decide(struct merge_model *m, const struct merge_opts *o)
{
	struct merge_host **nh = calloc(m->n + 1, sizeof(*nh));
	bool *prev = calloc(m->n + 1, sizeof(*prev));
	unsigned int i, k, iter;
	bool have = false, irq = false;
	double cost = 0;
	uint32_t v = 0;
	int ret = 0;

	if (!nh || !prev) {
		free(nh);
		free(prev);
		return -ENOMEM;
	}
	m->verdict = MV_FEW_HOSTS;
	if (m->n < o->min_hosts)
		goto out;
	/* The outliers are tested at the setting the others decide, which they change: until the
	 * outliers stay the same (a few rounds at most). Without a common setting the test runs
	 * at the one most hosts pick. */
	for (iter = 0; iter < 4; iter++) {
		bool same = true;

		for (i = 0, k = 0; i < m->n; i++) {
			prev[i] = m->h[i]->outlier;
			if (!m->h[i]->outlier)
				nh[k++] = m->h[i];
		}
		have = decide(nh, k, &v, &irq, &cost) || plurality(nh, k, &v);
		if (!have) { /* no host picks anything: nothing to test at */
			for (i = 0; i < m->n; i++)
				m->h[i]->outlier = false;
			break;
		}
		merge_outliers(m->h, m->n, v, o->alpha);
		for (i = 0; i < m->n; i++)
			same &= prev[i] == m->h[i]->outlier;
		if (same)
			break;
	}
	for (i = 0, k = 0; i < m->n; i++)
		if (!m->h[i]->outlier)
			nh[k++] = m->h[i];
	m->noutliers = m->n - k;
	if (k < o->min_hosts)
		goto out;
	m->have_value = decide(nh, k, &m->value, &m->cost_irq, &m->cost);
	if (m->have_value) {
		m->verdict = MV_PROFILE;
		m->mean_mbps = 0;
		for (i = 0; i < k; i++)
			m->mean_mbps += nh[i]->p[host_idx(nh[i], m->value)].mbps / k;
		goto out;
	}
	m->verdict = MV_NO_COMMON;
	ret = wants(m);
	if (!ret && o->split != MERGE_SPLIT_FIRMWARE)
		ret = explain(m, true);
	if (!ret && !m->explained_by && o->split != MERGE_SPLIT_KERNEL)
		ret = explain(m, false);
out:
	free(nh);
	free(prev);
	return ret;
}

static int group(struct merge_run *r, const struct merge_opts *o, struct merge_host **all)
{
	struct coal_sweep *s = malloc(sizeof(*s));
	unsigned int i, n = 0, start;

	if (!s)
		return -ENOMEM;
	for (i = 0; i < r->nh; i++)
		if (!all[i]->superseded) {
			host_key(all[i], o->split);
			host_rule(all[i], s);
			all[n++] = all[i];
		}
	free(s);
	qsort(all, n, sizeof(*all), by_key);
	r->m = calloc(n + 1, sizeof(*r->m));
	if (!r->m)
		return -ENOMEM;
	for (start = 0; start < n; start = i) {
		struct merge_model *m = &r->m[r->nm++];

		for (i = start; i < n && !strcmp(all[i]->key, all[start]->key); i++)
			;
		m->h = all + start;
		m->n = i - start;
		model_name(m, o->split);
	}
	return 0;
}

void merge_run_free(struct merge_run *r)
{
	unsigned int i;

	for (i = 0; i < r->nh; i++)
		merge_host_free(&r->h[i]);
	free(r->h);
	for (i = 0; i < r->nskip; i++) {
		free(r->skip[i].path);
		free(r->skip[i].why);
	}
	free(r->skip);
	free(r->dup);
	for (i = 0; i < r->nm; i++) {
		free(r->m[i].want);
		free(r->m[i].part);
	}
	if (r->nm)
		free(r->m[0].h); /* the models share one array of the hosts */
	free(r->m);
	memset(r, 0, sizeof(*r));
}

int merge_run(const struct merge_opts *o, struct merge_run *r)
{
	struct merge_host **all;
	unsigned int i;
	int ret;

	memset(r, 0, sizeof(*r));
	ret = merge_load(o, r);
	if (ret)
		return ret;
	if (!r->nfiles) {
		et_err("profile merge: no result files (*.json) in %s%s", o->paths[0],
		       o->npaths > 1 ? " or the other paths" : "");
		return -ENOENT;
	}
	all = calloc(r->nh + 1, sizeof(*all));
	if (!all)
		return -ENOMEM;
	for (i = 0; i < r->nh; i++)
		all[i] = &r->h[i];
	ret = pair_duplicates(r, all);
	if (!ret)
		ret = group(r, o, all);
	if (!r->nm)
		free(all);
	for (i = 0; !ret && i < r->nm; i++)
		ret = model_decide(&r->m[i], o);
	if (ret) {
		et_err("profile merge: %s", strerror(-ret));
		return ret;
	}
	r->write_held = r->nskip && !o->allow_partial;
	return merge_print(o, r);
}
