/* HTML reports: a command's JSON document drawn as one page with inline SVG charts, no fetches. */
#include <errno.h>
#include <libgen.h>
#include <math.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "out/html.h"
#include "out/html_chart.h"
#include "out/json_print.h"
#include "util/ethtune.h"

/* The TSQ model's throughput (bit/s) at limit L, set by the layer that owns the model. */
static double (*tsq_model)(double L, double rho, double R, double D);

void html_set_tsq_model(double (*fn)(double L, double rho, double R, double D))
{
	tsq_model = fn;
}

static double num(const json_t *o, const char *key)
{
	const json_t *v = o ? json_object_get(o, key) : NULL;

	return json_is_number(v) ? json_number_value(v) : NAN;
}

static const char *str(const json_t *o, const char *key)
{
	const json_t *v = o ? json_object_get(o, key) : NULL;

	return json_is_string(v) ? json_string_value(v) : NULL;
}

/* ---- pieces of the page ---- */

static void page_open(FILE *f, const char *what, const json_t *doc)
{
	const char *dev = str(doc, "device"), *drv = str(doc, "driver");

	fputs("<!DOCTYPE html>\n<html lang='en'><head><meta charset='utf-8'>\n<title>ethtune ", f);
	html_esc(f, what);
	if (dev) {
		fputc(' ', f);
		html_esc(f, dev);
	}
	fputs("</title>\n<style>\nbody{font-family:sans-serif;margin:24px;max-width:1000px;"
	      "color:#222}\nh1{font-size:22px}h2{font-size:17px;margin-top:28px}\n"
	      "table{border-collapse:collapse;margin:8px 0}td,th{border:1px solid #ccc;"
	      "padding:3px 8px;font-size:13px;text-align:left;vertical-align:top}\n"
	      "th{background:#f2f2f2}.verdict{font-size:18px;padding:8px 12px;background:#eef4fb;"
	      "border-left:4px solid #2a6fb0}\n.regression,.fail{color:#b03a2e;font-weight:bold}"
	      ".improvement,.pass{color:#1e8449}.skip,.inconclusive{color:#7d6608}\n"
	      "figure{margin:12px 0}svg.chart{border:1px solid #ddd}\n"
	      "footer{margin-top:32px;font-size:12px;color:#777}\n</style></"
	      "head><body>\n<h1>ethtune ",
	      f);
	html_esc(f, what);
	if (dev) {
		fputs(": ", f);
		html_esc(f, dev);
	}
	if (drv) {
		fputs(" (", f);
		html_esc(f, drv);
		fputc(')', f);
	}
	fputs("</h1>\n", f);
}

static void page_close(FILE *f)
{
	char when[64] = "";
	time_t now = time(NULL);
	struct tm tm;

	if (gmtime_r(&now, &tm))
		strftime(when, sizeof(when), "%Y-%m-%d %H:%M:%S UTC", &tm);
	fprintf(f,
		"<footer>written by ethtune at %s; the same numbers are in its --json "
		"output</footer>\n</body></html>\n",
		when);
}

static void h2(FILE *f, const char *t)
{
	fputs("<h2>", f);
	html_esc(f, t);
	fputs("</h2>\n", f);
}

/* A JSON scalar as text. */
static void scalar(FILE *f, const json_t *v)
{
	char b[64];

	if (json_is_string(v))
		html_esc(f, json_string_value(v));
	else if (json_is_integer(v))
		fprintf(f, "%lld", (long long)json_integer_value(v));
	else if (json_is_real(v)) {
		snprintf(b, sizeof(b), "%.4g", json_real_value(v));
		fputs(b, f);
	} else if (json_is_boolean(v))
		fputs(json_is_true(v) ? "true" : "false", f);
	else
		fputs("n/a", f);
}

/* An object's scalar members as a key/value table. */
static void kv_table(FILE *f, const json_t *o)
{
	const char *k;
	json_t *v;
	bool any = false;

	json_object_foreach((json_t *)o, k, v)
	{
		if (json_is_object(v) || json_is_array(v))
			continue;
		if (!any)
			fputs("<table>\n", f);
		any = true;
		fputs("<tr><th>", f);
		html_esc(f, k);
		fputs("</th><td>", f);
		scalar(f, v);
		fputs("</td></tr>\n", f);
	}
	if (any)
		fputs("</table>\n", f);
}

/* ---- charts from the documents' parts ---- */

/* tsq-sweep: one flow against tcp_limit_output_bytes, with the fitted model's curve. */
static void tsq_chart(FILE *f, const json_t *ts)
{
	const json_t *pts = json_object_get(ts, "points"), *fit = json_object_get(ts, "fit"), *p;
	struct xy_chart *c = calloc(1, sizeof(*c));
	double rho = num(ts, "rho"), R = num(fit, "r-mbps"), D = num(fit, "d-us"), lmin, lmax;
	size_t i;

	if (!c || !json_array_size(pts)) {
		free(c);
		return;
	}
	c->title = "single-flow throughput against the TSQ limit";
	c->x_label = "tcp_limit_output_bytes (log2)";
	c->y_label = "one flow, Mbit/s";
	c->x_log2 = c->x_bytes = true;
	c->ns = 1;
	c->s[0].name = "measured (95% interval)";
	c->s[0].line = c->s[0].dots = true;
	json_array_foreach(pts, i, p)
	{
		struct series *s = &c->s[0];
		double m = num(p, "mbps"), hw = num(p, "half-mbps");

		if (s->n >= MAX_PTS)
			break;
		s->x[s->n] = num(p, "limit");
		s->y[s->n] = m;
		s->lo[s->n] = isfinite(hw) ? m - hw : NAN;
		s->hi[s->n] = isfinite(hw) ? m + hw : NAN;
		s->n++;
	}
	lmin = lmax = c->s[0].x[0];
	for (i = 0; i < c->s[0].n; i++) {
		lmin = fmin(lmin, c->s[0].x[i]);
		lmax = fmax(lmax, c->s[0].x[i]);
	}
	if (!isfinite(rho))
		rho = 1;
	if (tsq_model && isfinite(R) && isfinite(D) && lmax > lmin) {
		struct series *s = &c->s[c->ns++];

		s->name = "fitted model";
		s->line = true;
		for (i = 0; i < 120; i++) {
			double l = lmin * pow(lmax / lmin, i / 119.0);

			s->x[s->n] = l;
			s->y[s->n] = tsq_model(l, rho, R * 1e6, D * 1e-6) / 1e6;
			s->lo[s->n] = s->hi[s->n] = NAN;
			s->n++;
		}
		snprintf(c->note, sizeof(c->note), "model: R %.0f Mbit/s, D %.0f us", R, D);
	} else if (str(ts, "fit-failed")) {
		snprintf(c->note, sizeof(c->note), "no model: %s", str(ts, "fit-failed"));
	}
	html_xy_draw(f, c);
	free(c);
}

/* mtu-sweep: one and two flows against the MTU. */
static void mtu_chart(FILE *f, const json_t *ms)
{
	const json_t *pts = json_object_get(ms, "points"), *p;
	struct xy_chart *c = calloc(1, sizeof(*c));
	static const char *const key[2][2] = { { "one-flow-mbps", "one-flow-half-mbps" },
					       { "two-flows-mbps", "two-flows-half-mbps" } };
	size_t i;
	int k;

	if (!c || !json_array_size(pts)) {
		free(c);
		return;
	}
	c->title = "throughput against the MTU";
	c->x_label = "MTU, bytes";
	c->y_label = "Mbit/s";
	c->ns = 2;
	c->s[0].name = "one flow";
	c->s[1].name = "two flows";
	for (k = 0; k < 2; k++) {
		struct series *s = &c->s[k];

		s->line = s->dots = true;
		json_array_foreach(pts, i, p)
		{
			double m = num(p, key[k][0]), hw = num(p, key[k][1]);

			if (s->n >= MAX_PTS)
				break;
			s->x[s->n] = num(p, "mtu");
			s->y[s->n] = m;
			s->lo[s->n] = isfinite(hw) ? m - hw : NAN;
			s->hi[s->n] = isfinite(hw) ? m + hw : NAN;
			s->n++;
		}
	}
	if (json_is_true(json_object_get(ms, "large-mtu-collapse")))
		snprintf(c->note, sizeof(c->note), "one flow collapses at MTU %.0f",
			 num(ms, "collapse-mtu"));
	html_xy_draw(f, c);
	free(c);
}

/* The keys of a coalescing point that are the settings tried (not the measures). */
static bool is_measure(const char *k)
{
	static const char *const m[] = { "mbps",	 "mbps-constrained", "rr-p50-us",
					 "rr-p99-us",	 "irq-per-s",	     "cpu-per-gbps",
					 "txlat-p50-us", "orphan-fraction",  "pareto" };
	size_t i;

	for (i = 0; i < sizeof(m) / sizeof(m[0]); i++)
		if (!strcmp(k, m[i]))
			return true;
	return !strncmp(k, "got-", 4);
}

/* coalesce-sweep: throughput against request/response p99 latency, the Pareto front joined,
 * the recommended setting ringed. */
static void pareto_chart(FILE *f, const json_t *cs, const json_t *rec)
{
	const json_t *pts = json_object_get(cs, "points"), *p;
	struct xy_chart *c = calloc(1, sizeof(*c));
	const char *param = str(rec, "param");
	double want = num(rec, "value");
	struct series *all, *front;
	size_t i;

	if (!c || !json_array_size(pts)) {
		free(c);
		return;
	}
	c->title = "coalescing settings: throughput against latency (Pareto front joined)";
	c->x_label = "request/response p99, us";
	c->y_label = "one flow, Mbit/s";
	c->ns = 2;
	all = &c->s[0];
	front = &c->s[1];
	all->name = "setting tried";
	all->dots = true;
	all->color = "#aab7b8";
	front->name = "Pareto front";
	front->line = front->dots = true;
	front->color = "#2a6fb0";
	json_array_foreach(pts, i, p)
	{
		double x = num(p, "rr-p99-us"), y = num(p, "mbps");
		struct series *s = json_is_true(json_object_get(p, "pareto")) ? front : all;

		if (s->n >= MAX_PTS)
			break;
		s->x[s->n] = x;
		s->y[s->n] = y;
		s->lo[s->n] = s->hi[s->n] = NAN;
		s->mark[s->n] = param && isfinite(want) && num(p, param) == want;
		if (s->mark[s->n]) {
			snprintf(c->note, sizeof(c->note), "recommended (ringed): %s %.0f", param,
				 want);
		}
		s->n++;
	}
	/* the front joined in latency order */
	for (i = 1; i < front->n; i++) {
		size_t j = i;

		while (j > 0 && front->x[j - 1] > front->x[j]) {
			double tx = front->x[j], ty = front->y[j];
			bool tm = front->mark[j];

			front->x[j] = front->x[j - 1];
			front->y[j] = front->y[j - 1];
			front->mark[j] = front->mark[j - 1];
			front->x[j - 1] = tx;
			front->y[j - 1] = ty;
			front->mark[j - 1] = tm;
			j--;
		}
	}
	html_xy_draw(f, c);
	free(c);
}

/* The settings and measures of each coalescing point, as a table. */
static void coalesce_table(FILE *f, const json_t *cs)
{
	const json_t *pts = json_object_get(cs, "points"), *p, *p0 = json_array_get(pts, 0);
	const char *k;
	json_t *v;
	size_t i;

	if (!p0)
		return;
	fputs("<table class='points'>\n<tr>", f);
	json_object_foreach((json_t *)p0, k, v)
	{
		fputs("<th>", f);
		html_esc(f, k);
		fputs("</th>", f);
	}
	fputs("</tr>\n", f);
	json_array_foreach(pts, i, p)
	{
		fputs("<tr>", f);
		json_object_foreach((json_t *)p0, k, v)
		{
			fputs(is_measure(k) ? "<td>" : "<td><b>", f);
			scalar(f, json_object_get(p, k));
			fputs(is_measure(k) ? "</td>" : "</b></td>", f);
		}
		fputs("</tr>\n", f);
	}
	fputs("</table>\n", f);
}

/* txlat's log2 histogram of xmit-to-free. */
static void hist_chart(FILE *f, const json_t *hist, const char *title)
{
	struct bar_chart *c = calloc(1, sizeof(*c));
	const json_t *b;
	size_t i;

	if (!c || !json_array_size(hist)) {
		free(c);
		return;
	}
	c->title = title;
	c->x_label = "skbs (count)";
	c->groups = 1;
	json_array_foreach(hist, i, b)
	{
		struct bar *r = &c->b[c->n];

		if (c->n >= MAX_BARS)
			break;
		snprintf(r->label, sizeof(r->label), "%.0f - %.0f us", num(b, "lo-us"),
			 num(b, "hi-us"));
		r->v[0] = num(b, "count");
		r->lo[0] = r->hi[0] = NAN;
		r->color[0] = "#2a6fb0";
		c->n++;
	}
	html_bars_draw(f, c);
	free(c);
}

/* ---- the pages ---- */

static void bar_set(struct bar *r, const char *label, double v, double lo, double hi,
		    const char *color)
{
	snprintf(r->label, sizeof(r->label), "%s", label);
	r->v[0] = v;
	r->lo[0] = lo;
	r->hi[0] = hi;
	r->color[0] = color;
}

static void diagnose_page(FILE *f, const json_t *doc)
{
	const json_t *fs = json_object_get(doc, "findings"),
		     *acts = json_object_get(doc, "actions");
	const json_t *pr = json_object_get(doc, "probe"), *tl = json_object_get(doc, "txlat"), *x;
	const char *why = str(doc, "inconclusive-reason");
	struct bar_chart *c = calloc(1, sizeof(*c));
	size_t i, j;

	fputs("<p class='verdict'>verdict: <b>", f);
	html_esc(f, str(doc, "verdict") ? str(doc, "verdict") : "n/a");
	fputs("</b>", f);
	if (why) {
		fputs("<br>", f);
		html_esc(f, why);
	}
	fputs("</p>\n", f);
	if (json_array_size(fs)) {
		h2(f, "findings");
		fputs("<table>\n<tr><th>finding</th><th>one flow "
		      "loses</th><th>evidence</th></tr>\n",
		      f);
		json_array_foreach(fs, i, x)
		{
			const json_t *e;

			fputs("<tr><td>", f);
			html_esc(f, str(x, "name"));
			if (isfinite(num(x, "loss-pct")))
				fprintf(f, "</td><td>%.0f%% [%.0f, %.0f]</td><td><ul>",
					num(x, "loss-pct"), num(x, "loss-lo-pct"),
					num(x, "loss-hi-pct"));
			else
				fputs("</td><td>n/a</td><td><ul>", f);
			json_array_foreach(json_object_get(x, "evidence"), j, e)
			{
				fputs("<li>", f);
				html_esc(f, json_string_value(e));
				fputs("</li>", f);
			}
			fputs("</ul></td></tr>\n", f);
		}
		fputs("</table>\n", f);
	}
	if (json_array_size(acts)) {
		h2(f, "what to do");
		fputs("<ul>\n", f);
		json_array_foreach(acts, i, x)
		{
			fputs("<li><code>", f);
			html_esc(f, str(x, "command"));
			fputs("</code>: ", f);
			html_esc(f, str(x, "predicted"));
			fputs("</li>\n", f);
		}
		fputs("</ul>\n", f);
	}
	if (c && pr) {
		double m1 = num(pr, "one-flow-mbps"), m2 = num(pr, "two-flows-mbps");

		c->title = "one flow against two flows and the line (95% intervals)";
		c->x_label = "Mbit/s";
		c->groups = 1;
		if (isfinite(m1))
			bar_set(&c->b[c->n++], "one flow", m1, num(pr, "one-flow-lo-mbps"),
				num(pr, "one-flow-hi-mbps"), "#c0392b");
		if (isfinite(m2))
			bar_set(&c->b[c->n++], "two flows", m2, num(pr, "two-flows-lo-mbps"),
				num(pr, "two-flows-hi-mbps"), "#2a6fb0");
		if (isfinite(num(pr, "line-goodput-mbps")))
			bar_set(&c->b[c->n++], "line rate's goodput", num(pr, "line-goodput-mbps"),
				NAN, NAN, "#566573");
		h2(f, "throughput");
		html_bars_draw(f, c);
		kv_table(f, pr);
	}
	free(c);
	h2(f, "completion delay");
	fputs("<table>\n", f);
	fprintf(f, "<tr><th>D (completion delay)</th><td>%.0f us [%.0f, %.0f]</td></tr>\n",
		num(doc, "d-us"), num(doc, "d-lo-us"), num(doc, "d-hi-us"));
	fputs("<tr><th>measured by</th><td>", f);
	html_esc(f, str(doc, "d-source") ? str(doc, "d-source") : "n/a");
	fprintf(f, "</td></tr>\n<tr><th>the knob allows</th><td>%.0f us (", num(doc, "allowed-us"));
	html_esc(f, str(doc, "knob") ? str(doc, "knob") : "n/a");
	fprintf(f, "), timer floor %.0f us, serialization %.1f us</td></tr>\n",
		num(doc, "timer-floor-us"), num(doc, "serialization-us"));
	fprintf(f, "<tr><th>model: one flow loses</th><td>%.0f%% [%.0f, %.0f]</td></tr>\n",
		num(doc, "model-loss-pct"), num(doc, "model-loss-lo-pct"),
		num(doc, "model-loss-hi-pct"));
	fprintf(f, "<tr><th>measured: one flow loses</th><td>%.0f%% [%.0f, %.0f] against ",
		num(doc, "measured-loss-pct"), num(doc, "measured-loss-lo-pct"),
		num(doc, "measured-loss-hi-pct"));
	html_esc(f, str(doc, "reference") ? str(doc, "reference") : "n/a");
	fputs("</td></tr>\n</table>\n", f);
	if (tl && json_object_get(tl, "histogram"))
		hist_chart(f, json_object_get(tl, "histogram"),
			   "xmit-to-free latency under request/response (txlat, log2 bins)");
	else if (str(tl, "error")) {
		fputs("<p>txlat: n/a - ", f);
		html_esc(f, str(tl, "error"));
		fputs("</p>\n", f);
	}
	if (json_object_get(doc, "tsq-sweep")) {
		h2(f, "TSQ sweep");
		tsq_chart(f, json_object_get(doc, "tsq-sweep"));
	}
	if (json_object_get(doc, "mtu-sweep")) {
		h2(f, "MTU sweep");
		mtu_chart(f, json_object_get(doc, "mtu-sweep"));
	}
}

static void sweep_page(FILE *f, const json_t *doc)
{
	const json_t *ts = json_object_get(doc, "tsq-sweep"), *cs;

	if (ts) {
		h2(f, "TSQ sweep");
		tsq_chart(f, ts);
		kv_table(f, json_object_get(ts, "fit"));
	}
	if (json_object_get(doc, "mtu-sweep")) {
		h2(f, "MTU sweep");
		mtu_chart(f, json_object_get(doc, "mtu-sweep"));
	}
	cs = json_object_get(doc, "coalesce-sweep");
	if (cs) {
		h2(f, "coalescing sweep");
		pareto_chart(f, cs, NULL);
		coalesce_table(f, cs);
	}
}

static void tune_page(FILE *f, const json_t *doc)
{
	const json_t *rec = json_object_get(doc, "recommendation");
	const json_t *cs = json_object_get(doc, "coalesce-sweep");

	fputs("<p class='verdict'>", f);
	if (rec && str(rec, "param"))
		fprintf(f, "recommended: <b>%s %.0f</b> (", str(rec, "param"), num(rec, "value"));
	else
		fputs("no recommendation (", f);
	html_esc(f, str(rec, "rule") ? str(rec, "rule") : str(doc, "objective"));
	fputs(")</p>\n", f);
	if (rec)
		kv_table(f, rec);
	if (cs) {
		h2(f, "settings tried");
		pareto_chart(f, cs, rec);
		coalesce_table(f, cs);
	}
	if (str(doc, "profile")) {
		fputs("<p>profile written: <code>", f);
		html_esc(f, str(doc, "profile"));
		fputs("</code></p>\n", f);
	}
}

static void validate_page(FILE *f, const json_t *doc)
{
	const json_t *checks = json_object_get(doc, "checks"), *x;
	struct bar_chart *c = calloc(1, sizeof(*c));
	size_t i;

	fprintf(f, "<p class='verdict'>%.0f passed, %.0f failed, %.0f skipped in %.0f s</p>\n",
		num(doc, "passed"), num(doc, "failed"), num(doc, "skipped"), num(doc, "elapsed-s"));
	if (c) {
		c->title = "checks by result";
		c->x_label = "checks";
		c->groups = 1;
		bar_set(&c->b[c->n++], "passed", num(doc, "passed"), NAN, NAN, "#27864a");
		bar_set(&c->b[c->n++], "failed", num(doc, "failed"), NAN, NAN, "#c0392b");
		bar_set(&c->b[c->n++], "skipped", num(doc, "skipped"), NAN, NAN, "#d68910");
		html_bars_draw(f, c);
		free(c);
	}
	h2(f, "checks");
	fputs("<table>\n<tr><th>#</th><th>check</th><th>result</th><th>reason</th>"
	      "<th>measured</th><th>bound</th></tr>\n",
	      f);
	json_array_foreach(checks, i, x)
	{
		const char *res = str(x, "result") ? str(x, "result") : "n/a";

		fprintf(f, "<tr><td>%.0f</td><td>", num(x, "number"));
		html_esc(f, str(x, "name"));
		fputs("</td><td class='", f);
		html_esc(f, res);
		fputs("'>", f);
		html_esc(f, res);
		fputs("</td><td>", f);
		html_esc(f, str(x, "reason"));
		fputs("</td><td>", f);
		kv_table(f, json_object_get(x, "measured"));
		fputs("</td><td>", f);
		kv_table(f, json_object_get(x, "bound"));
		fputs("</td></tr>\n", f);
	}
	fputs("</table>\n", f);
}

/* A cell's parameters in one line: "msg-size=256 rcvbuf=8192". */
static void params_line(char *b, size_t len, const json_t *params)
{
	const char *k;
	json_t *v;
	size_t o = 0;

	b[0] = 0;
	json_object_foreach((json_t *)params, k, v)
	{
		char val[64];

		if (json_is_string(v))
			snprintf(val, sizeof(val), "%s", json_string_value(v));
		else if (json_is_number(v))
			snprintf(val, sizeof(val), "%g", json_number_value(v));
		else if (json_is_boolean(v))
			snprintf(val, sizeof(val), "%s", json_is_true(v) ? "on" : "off");
		else
			continue;
		if (o < len)
			o += (size_t)snprintf(b + o, len - o, "%s%s=%s", o ? " " : "", k, val);
	}
	if (!b[0])
		snprintf(b, len, "(one cell)");
}

static void compare_page(FILE *f, const json_t *doc)
{
	const json_t *hosts = json_object_get(doc, "hosts"), *t = json_object_get(doc, "test"), *h;
	size_t i, j;

	fputs("<p class='verdict'>", f);
	fprintf(f,
		"%.0f regressions, %.0f improvements, %.0f unchanged, %.0f inconclusive, %.0f "
		"unmatched",
		num(doc, "regressions"), num(doc, "improvements"), num(doc, "unchanged"),
		num(doc, "inconclusive"), num(doc, "unmatched"));
	fputs("<br>BASE <code>", f);
	html_esc(f, str(doc, "base-path"));
	fputs("</code>, NEW <code>", f);
	html_esc(f, str(doc, "new-path"));
	fputs("</code></p>\n<p>test: ", f);
	html_esc(f, str(t, "name"));
	fprintf(f,
		" (Welch's t-test per cell, Holm-Bonferroni over %.0f cells, alpha %g; "
		"threshold %g%%)</p>\n",
		num(t, "cells"), num(t, "alpha"), num(t, "threshold-pct"));
	json_array_foreach(hosts, i, h)
	{
		const json_t *cells = json_object_get(h, "cells"), *x, *env;
		struct bar_chart *c = calloc(1, sizeof(*c));
		char title[200];

		snprintf(title, sizeof(title), "host %s", str(h, "host") ? str(h, "host") : "?");
		h2(f, title);
		if (c) {
			const char *unit = NULL;

			c->title = "each cell, base and new, with 95% intervals";
			c->groups = 2;
			c->group[0] = "base";
			c->group[1] = "new";
			json_array_foreach(cells, j, x)
			{
				const json_t *b = json_object_get(x, "base"),
					     *n = json_object_get(x, "new");
				const char *v = str(x, "verdict");
				struct bar *r = &c->b[c->n];

				if (c->n >= MAX_BARS)
					break;
				unit = unit ? unit : str(x, "unit");
				params_line(r->label, sizeof(r->label),
					    json_object_get(x, "params"));
				r->v[0] = num(b, "mean");
				r->lo[0] = num(b, "ci-lo");
				r->hi[0] = num(b, "ci-hi");
				r->color[0] = "#aab7b8";
				r->v[1] = num(n, "mean");
				r->lo[1] = num(n, "ci-lo");
				r->hi[1] = num(n, "ci-hi");
				r->color[1] = v && !strcmp(v, "regression")    ? "#c0392b"
					      : v && !strcmp(v, "improvement") ? "#27864a"
									       : "#2a6fb0";
				c->n++;
			}
			c->x_label = unit ? unit : "value";
			html_bars_draw(f, c);
			free(c);
		}
		fputs("<table>\n<tr><th>cell</th><th>base</th><th>new</th><th>delta</th>"
		      "<th>p (Holm)</th><th>verdict</th></tr>\n",
		      f);
		json_array_foreach(cells, j, x)
		{
			const json_t *b = json_object_get(x, "base"),
				     *n = json_object_get(x, "new");
			const char *v = str(x, "verdict") ? str(x, "verdict") : "n/a";
			char pl[160];

			params_line(pl, sizeof(pl), json_object_get(x, "params"));
			fputs("<tr><td>", f);
			html_esc(f, pl);
			fprintf(f,
				"</td><td>%.4g [%.4g, %.4g] (n %.0f)</td><td>%.4g [%.4g, %.4g] "
				"(n %.0f)</td><td>%+.1f%%</td><td>%.3g</td><td class='",
				num(b, "mean"), num(b, "ci-lo"), num(b, "ci-hi"), num(b, "n"),
				num(n, "mean"), num(n, "ci-lo"), num(n, "ci-hi"), num(n, "n"),
				num(x, "delta-pct"), num(x, "p-adjusted"));
			html_esc(f, v);
			fputs("'>", f);
			html_esc(f, v);
			if (str(x, "reason")) {
				fputs(": ", f);
				html_esc(f, str(x, "reason"));
			}
			fputs("</td></tr>\n", f);
		}
		fputs("</table>\n", f);
		env = json_object_get(h, "environment-diff");
		h2(f, "what changed between the runs (environment diff)");
		if (!json_array_size(env)) {
			fputs("<p>the two environment snapshots agree</p>\n", f);
			continue;
		}
		fputs("<table class='env-diff'>\n<tr><th>key</th><th>base</th><th>new</th></tr>\n",
		      f);
		json_array_foreach(env, j, x)
		{
			fputs("<tr><td>", f);
			html_esc(f, str(x, "key"));
			fputs("</td><td>", f);
			scalar(f, json_object_get(x, "base"));
			fputs("</td><td>", f);
			scalar(f, json_object_get(x, "new"));
			fputs("</td></tr>\n", f);
		}
		fputs("</table>\n", f);
	}
}

/* profile merge: each model's lowest host at the setting tested, as a share of the other hosts'
 * mean (outliers apart), and the models' verdicts. */
static void merge_page(FILE *f, const json_t *doc)
{
	const json_t *models = json_object_get(doc, "models"), *m, *r;
	struct bar_chart *c = calloc(1, sizeof(*c));
	size_t i, j;

	fprintf(f,
		"<p class='verdict'>%.0f model(s), %.0f with a profile, %.0f written<br>%.0f tune "
		"result(s) of %.0f file(s), %.0f skipped, %.0f older result(s) left out</p>\n",
		num(doc, "model-count"), num(doc, "profiles"), num(doc, "written"),
		num(doc, "tune-results"), num(doc, "files"), num(doc, "skipped-count"),
		num(doc, "older-count"));
	fprintf(f,
		"<p>outlier test: a host's one-flow Mbit/s against the other hosts' means "
		"(leave-one-out t-test, one-sided), Holm-Bonferroni at %g, at least %g%% below; "
		"--min-hosts %.0f</p>\n",
		num(doc, "alpha"), num(doc, "min-effect-pct"), num(doc, "min-hosts"));
	json_array_foreach(models, i, m)
	{
		double lo[2] = { INFINITY, INFINITY };
		struct bar *b;

		if (!c || c->n >= MAX_BARS)
			break;
		json_array_foreach(json_object_get(m, "results"), j, r)
		{
			double sh = num(r, "share");
			int out = json_is_true(json_object_get(r, "outlier"));

			if (isfinite(sh))
				lo[out] = fmin(lo[out], sh);
		}
		if (!isfinite(lo[0]) && !isfinite(lo[1]))
			continue;
		b = &c->b[c->n++];
		snprintf(b->label, sizeof(b->label), "%s", str(m, "name") ? str(m, "name") : "?");
		for (j = 0; j < 2; j++) {
			b->v[j] = isfinite(lo[j]) ? lo[j] : NAN;
			b->lo[j] = b->hi[j] = NAN;
			b->color[j] = j ? "#2a6fb0" : "#aab7b8";
		}
	}
	if (c && c->n) {
		c->title = "each model's lowest host, of the others' mean";
		c->groups = 2;
		c->group[0] = "hosts";
		c->group[1] = "outliers";
		c->x_label = "share of the other hosts' mean one-flow Mbit/s";
		html_bars_draw(f, c);
	}
	free(c);
	fputs("<table><tr><th>model</th><th>verdict</th><th>setting</th><th>hosts</th>"
	      "<th>outliers</th><th>profile</th></tr>\n",
	      f);
	json_array_foreach(models, i, m)
	{
		fputs("<tr><td>", f);
		html_esc(f, str(m, "name"));
		fputs("</td><td>", f);
		html_esc(f, str(m, "verdict"));
		if (str(m, "explained-by")) {
			fputs(" (", f);
			html_esc(f, str(m, "explained-by"));
			fputs(" explains it)", f);
		}
		fputs("</td><td>", f);
		if (isfinite(num(m, "value"))) {
			html_esc(f, str(m, "param"));
			fprintf(f, " %.0f", num(m, "value"));
		} else {
			html_esc(f, str(m, "reason"));
		}
		fprintf(f, "</td><td>%.0f</td><td>%.0f</td><td>", num(m, "hosts"),
			num(m, "outliers"));
		html_esc(f, str(m, "profile") ? str(m, "profile") : "");
		fputs("</td></tr>\n", f);
	}
	fputs("</table>\n", f);
}

static const char *const kind_names[] = {
	[HTML_COMPARE] = "compare", [HTML_DIAGNOSE] = "diagnose", [HTML_SWEEP] = "sweep",
	[HTML_TUNE] = "tune",	    [HTML_VALIDATE] = "validate", [HTML_MERGE] = "profile merge",
};

struct page {
	enum html_kind kind;
	const json_t *doc;
};

static int html_report_fp(FILE *f, enum html_kind kind, const json_t *doc)
{
	if (!json_is_object(doc))
		return -EINVAL;
	page_open(f, kind_names[kind], doc);
	switch (kind) {
	case HTML_COMPARE:
		compare_page(f, doc);
		break;
	case HTML_DIAGNOSE:
		diagnose_page(f, doc);
		break;
	case HTML_SWEEP:
		sweep_page(f, doc);
		break;
	case HTML_TUNE:
		tune_page(f, doc);
		break;
	case HTML_VALIDATE:
		validate_page(f, doc);
		break;
	case HTML_MERGE:
		merge_page(f, doc);
		break;
	}
	page_close(f);
	return ferror(f) ? -EIO : 0;
}

int html_check_path(const char *path, char *why, size_t len)
{
	char *d = strdup(path);
	int ret = 0;

	if (!d)
		return -ENOMEM;
	if (!access(path, F_OK) ? access(path, W_OK) : access(dirname(d), W_OK | X_OK)) {
		ret = -errno;
		snprintf(why, len, "--html %s: %s", path, strerror(errno));
	}
	free(d);
	return ret;
}

static int fill_page(FILE *f, void *ctx)
{
	const struct page *pg = ctx;

	return html_report_fp(f, pg->kind, pg->doc);
}

int html_report(const char *path, enum html_kind kind, const json_t *doc)
{
	struct page pg = { kind, doc };

	return write_file_atomic(path, fill_page, &pg);
}

int html_report_recorded(const char *path, enum html_kind kind)
{
	json_t *doc = json_take_recorded();
	int ret = doc ? html_report(path, kind, doc) : -ENODATA;

	json_decref(doc);
	return ret;
}
