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
#include "out/json_print.h"
#include "util/ethtune.h"

#define CW	 760 /* chart width and height, and the plot's margins in it */
#define CH	 400
#define PL	 80
#define PR	 24
#define PT	 44
#define PB	 64
#define MAX_SER	 6
#define MAX_PTS	 256
#define MAX_BARS 96
#define ROW_H	 22
#define LABEL_W	 300

/* One series of an x-y chart: points with intervals [lo, hi] (NAN: none), joined or not. */
struct series {
	const char *name, *color;
	bool line, dots;
	unsigned int n;
	double x[MAX_PTS], y[MAX_PTS], lo[MAX_PTS], hi[MAX_PTS];
	bool mark[MAX_PTS]; /* drawn larger, ringed: the recommendation, the Pareto front */
};

struct xy_chart {
	const char *title, *x_label, *y_label;
	bool x_log2, x_bytes; /* log2 axis; tick labels in K/M */
	double y_floor;	      /* the y axis reaches at least this (0: the data decide) */
	unsigned int ns;
	struct series s[MAX_SER];
	char note[240];
};

/* Horizontal bars with intervals, in up to two groups per row (base and new). */
struct bar {
	char label[160];
	double v[2], lo[2], hi[2];
	const char *color[2];
};

struct bar_chart {
	const char *title, *x_label, *group[2];
	unsigned int n, groups;
	struct bar b[MAX_BARS];
};

/* The TSQ model's throughput (bit/s) at limit L, set by the layer that owns the model. */
static double (*tsq_model)(double L, double rho, double R, double D);

void html_set_tsq_model(double (*fn)(double L, double rho, double R, double D))
{
	tsq_model = fn;
}

static const char *const palette[MAX_SER] = { "#2a6fb0", "#c0392b", "#27864a",
					      "#8e44ad", "#d68910", "#566573" };

/* Text into HTML or SVG, escaped. */
static void esc(FILE *f, const char *s)
{
	for (; s && *s; s++) {
		switch (*s) {
		case '<':
			fputs("&lt;", f);
			break;
		case '>':
			fputs("&gt;", f);
			break;
		case '&':
			fputs("&amp;", f);
			break;
		case '"':
			fputs("&quot;", f);
			break;
		case '\'':
			fputs("&#39;", f);
			break;
		default:
			fputc(*s, f);
		}
	}
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

/* A step of 1, 2 or 5 times a power of ten giving about n ticks over span. */
static double nice_step(double span, int n)
{
	double raw = span / n, p = pow(10, floor(log10(raw))), m = raw / p;

	return p * (m < 1.5 ? 1 : m < 3.5 ? 2 : m < 7.5 ? 5 : 10);
}

static void fmt_tick(char *b, size_t len, double v, bool bytes)
{
	if (bytes && v >= 1 << 20)
		snprintf(b, len, "%gM", v / (1 << 20));
	else if (bytes && v >= 1024)
		snprintf(b, len, "%gK", v / 1024);
	else
		snprintf(b, len, "%g", fabs(v) < 1e-9 ? 0 : v);
}

static void svg_open(FILE *f, const char *title, int w, int h)
{
	fprintf(f,
		"<figure><svg class='chart' xmlns='http://www.w3.org/2000/svg' width='%d' "
		"height='%d' viewBox='0 0 %d %d' role='img' aria-label='",
		w, h, w, h);
	esc(f, title);
	fprintf(f, "'>\n<rect class='bg' width='%d' height='%d' fill='#fff'/>\n", w, h);
	fprintf(f, "<text class='title' x='%d' y='24' font-size='15'>", PL);
	esc(f, title);
	fputs("</text>\n", f);
}

static void axis_labels(FILE *f, double x0, double y0, double w, double h, const char *xl,
			const char *yl)
{
	fprintf(f,
		"<text class='axis-label x' x='%.0f' y='%.0f' font-size='12' "
		"text-anchor='middle'>",
		x0 + w / 2, y0 + h + 42);
	esc(f, xl);
	fprintf(f,
		"</text>\n<text class='axis-label y' x='%.0f' y='%.0f' font-size='12' "
		"text-anchor='middle' transform='rotate(-90 %.0f %.0f)'>",
		x0 - 58, y0 + h / 2, x0 - 58, y0 + h / 2);
	esc(f, yl);
	fputs("</text>\n", f);
}

static void xy_draw(FILE *f, const struct xy_chart *c)
{
	double xmin = INFINITY, xmax = -INFINITY, ymax = c->y_floor, x0 = PL, y0 = PT;
	double w = CW - PL - PR, h = CH - PT - PB, step, t;
	unsigned int i, k, total = 0;
	char b[32];

	for (k = 0; k < c->ns; k++)
		for (i = 0; i < c->s[k].n; i++) {
			const struct series *s = &c->s[k];

			if (!isfinite(s->x[i]) || !isfinite(s->y[i]) || (c->x_log2 && s->x[i] <= 0))
				continue;
			xmin = fmin(xmin, s->x[i]);
			xmax = fmax(xmax, s->x[i]);
			ymax = fmax(ymax, isfinite(s->hi[i]) ? s->hi[i] : s->y[i]);
			total++;
		}
	if (!total)
		return;
	if (xmax <= xmin) {
		xmin = c->x_log2 ? xmin / 2 : xmin - 1;
		xmax = c->x_log2 ? xmax * 2 : xmax + 1;
	}
	if (c->x_log2) {
		xmin = log2(xmin);
		xmax = log2(xmax);
	}
	ymax = ymax > 0 ? ymax * 1.08 : 1;
#define XP(v) (x0 + w * ((c->x_log2 ? log2(v) : (v)) - xmin) / (xmax - xmin))
#define YP(v) (y0 + h - h * fmax(0, fmin((v), ymax)) / ymax)
	svg_open(f, c->title, CW, CH);
	fprintf(f,
		"<rect class='frame' x='%.0f' y='%.0f' width='%.0f' height='%.0f' "
		"fill='none' stroke='#999'/>\n",
		x0, y0, w, h);
	step = nice_step(ymax, 5);
	for (t = 0; t <= ymax; t += step) {
		fmt_tick(b, sizeof(b), t, false);
		fprintf(f,
			"<line class='grid' x1='%.0f' x2='%.0f' y1='%.1f' y2='%.1f' "
			"stroke='#eee'/>\n<text class='tick y' x='%.0f' y='%.1f' font-size='11' "
			"text-anchor='end'>%s</text>\n",
			x0, x0 + w, YP(t), YP(t), x0 - 6, YP(t) + 4, b);
	}
	if (c->x_log2) {
		int e0 = (int)ceil(xmin - 1e-9), e1 = (int)floor(xmax + 1e-9), e;
		int every = (e1 - e0) / 8 + 1;

		for (e = e0; e <= e1; e += every) {
			fmt_tick(b, sizeof(b), pow(2, e), c->x_bytes);
			fprintf(f,
				"<text class='tick x' x='%.1f' y='%.0f' font-size='11' "
				"text-anchor='middle'>%s</text>\n",
				XP(pow(2, e)), y0 + h + 18, b);
		}
	} else {
		step = nice_step(xmax - xmin, 6);
		for (t = ceil(xmin / step) * step; t <= xmax + 1e-9; t += step) {
			fmt_tick(b, sizeof(b), t, c->x_bytes);
			fprintf(f,
				"<text class='tick x' x='%.1f' y='%.0f' font-size='11' "
				"text-anchor='middle'>%s</text>\n",
				XP(t), y0 + h + 18, b);
		}
	}
	axis_labels(f, x0, y0, w, h, c->x_label, c->y_label);
	for (k = 0; k < c->ns; k++) {
		const struct series *s = &c->s[k];
		const char *col = s->color ? s->color : palette[k % MAX_SER];

		if (s->line && s->n > 1) {
			fprintf(f,
				"<polyline class='data line' fill='none' stroke='%s' "
				"stroke-width='%d' points='",
				col, s->dots ? 1 : 2);
			for (i = 0; i < s->n; i++)
				if (isfinite(s->x[i]) && isfinite(s->y[i]))
					fprintf(f, "%.1f,%.1f ", XP(s->x[i]), YP(s->y[i]));
			fputs("'/>\n", f);
		}
		for (i = 0; s->dots && i < s->n; i++) {
			if (!isfinite(s->x[i]) || !isfinite(s->y[i]))
				continue;
			if (isfinite(s->lo[i]) && isfinite(s->hi[i]))
				fprintf(f,
					"<line class='data interval' x1='%.1f' x2='%.1f' "
					"y1='%.1f' y2='%.1f' stroke='%s'/>\n",
					XP(s->x[i]), XP(s->x[i]), YP(s->lo[i]), YP(s->hi[i]), col);
			fprintf(f,
				"<circle class='data point' cx='%.1f' cy='%.1f' r='%d' "
				"fill='%s'%s/>\n",
				XP(s->x[i]), YP(s->y[i]), s->mark[i] ? 6 : 4, col,
				s->mark[i] ? " stroke='#000' stroke-width='2'" : "");
		}
		/* the legend, one entry per named series */
		if (s->name) {
			fprintf(f,
				"<rect x='%.0f' y='%d' width='12' height='12' fill='%s'/>"
				"<text class='legend' x='%.0f' y='%d' font-size='12'>",
				x0 + w - 230, PT + 8 + 18 * k, col, x0 + w - 212, PT + 18 + 18 * k);
			esc(f, s->name);
			fputs("</text>\n", f);
		}
	}
	if (c->note[0]) {
		fprintf(f, "<text class='note' x='%.0f' y='%.0f' font-size='12' fill='#444'>",
			x0 + 8, y0 + 16);
		esc(f, c->note);
		fputs("</text>\n", f);
	}
#undef XP
#undef YP
	fputs("</svg></figure>\n", f);
}

static void bars_draw(FILE *f, const struct bar_chart *c)
{
	double vmax = 0, x0 = LABEL_W, y0 = PT, w = CW - LABEL_W - PR, h, step, t;
	unsigned int i, g;
	int height;
	char b[32];

	for (i = 0; i < c->n; i++)
		for (g = 0; g < c->groups; g++)
			vmax = fmax(vmax, isfinite(c->b[i].hi[g]) ? c->b[i].hi[g] : c->b[i].v[g]);
	if (!c->n || !(vmax > 0))
		return;
	vmax *= 1.08;
	h = (double)c->n * ROW_H * c->groups + 8;
	height = (int)h + PT + PB;
#define VP(v) (x0 + w * fmax(0, fmin((v), vmax)) / vmax)
	svg_open(f, c->title, CW, height);
	fprintf(f,
		"<rect class='frame' x='%.0f' y='%.0f' width='%.0f' height='%.0f' "
		"fill='none' stroke='#999'/>\n",
		x0, y0, w, h);
	step = nice_step(vmax, 5);
	for (t = 0; t <= vmax; t += step) {
		fmt_tick(b, sizeof(b), t, false);
		fprintf(f,
			"<line class='grid' x1='%.1f' x2='%.1f' y1='%.0f' y2='%.0f' "
			"stroke='#eee'/>\n<text class='tick x' x='%.1f' y='%.0f' font-size='11' "
			"text-anchor='middle'>%s</text>\n",
			VP(t), VP(t), y0, y0 + h, VP(t), y0 + h + 18, b);
	}
	fprintf(f,
		"<text class='axis-label x' x='%.0f' y='%.0f' font-size='12' "
		"text-anchor='middle'>",
		x0 + w / 2, y0 + h + 42);
	esc(f, c->x_label);
	fprintf(f,
		"</text>\n<text class='axis-label y' x='12' y='%.0f' font-size='12' "
		"transform='rotate(-90 12 %.0f)' text-anchor='middle'>%s</text>\n",
		y0 + h / 2, y0 + h / 2, c->groups > 1 ? "cell (base above new)" : "measure");
	for (i = 0; i < c->n; i++) {
		const struct bar *r = &c->b[i];
		double ry = y0 + 4 + (double)i * ROW_H * c->groups;

		fprintf(f,
			"<text class='bar-label' x='%.0f' y='%.0f' font-size='11' "
			"text-anchor='end'>",
			x0 - 6, ry + ROW_H * c->groups / 2.0 + 4);
		esc(f, r->label);
		fputs("</text>\n", f);
		for (g = 0; g < c->groups; g++) {
			double by = ry + g * ROW_H + 3, bh = ROW_H - 6;

			if (!isfinite(r->v[g]))
				continue;
			fprintf(f,
				"<rect class='data bar' x='%.0f' y='%.1f' width='%.1f' "
				"height='%.0f' fill='%s'><title>",
				x0, by, VP(r->v[g]) - x0, bh,
				r->color[g] ? r->color[g] : palette[g]);
			esc(f, c->groups > 1 ? c->group[g] : r->label);
			fprintf(f, ": %g</title></rect>\n", r->v[g]);
			if (isfinite(r->lo[g]) && isfinite(r->hi[g]))
				fprintf(f,
					"<path class='data interval' d='M%.1f %.1fv%.0fM%.1f "
					"%.1fH%.1fM%.1f %.1fv%.0f' stroke='#111' fill='none'/>\n",
					VP(r->lo[g]), by + 2, bh - 4, VP(r->lo[g]), by + bh / 2,
					VP(r->hi[g]), VP(r->hi[g]), by + 2, bh - 4);
		}
	}
	for (g = 0; c->groups > 1 && g < c->groups; g++)
		fprintf(f,
			"<rect x='%.0f' y='%d' width='12' height='12' fill='%s'/><text "
			"class='legend' x='%.0f' y='%d' font-size='12'>%s</text>\n",
			x0 + w - 150 + 75 * g, 14, g ? "#2a6fb0" : "#aab7b8", x0 + w - 134 + 75 * g,
			24, c->group[g]);
#undef VP
	fputs("</svg></figure>\n", f);
}

/* ---- pieces of the page ---- */

static void page_open(FILE *f, const char *what, const json_t *doc)
{
	const char *dev = str(doc, "device"), *drv = str(doc, "driver");

	fputs("<!DOCTYPE html>\n<html lang='en'><head><meta charset='utf-8'>\n<title>ethtune ", f);
	esc(f, what);
	if (dev) {
		fputc(' ', f);
		esc(f, dev);
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
	esc(f, what);
	if (dev) {
		fputs(": ", f);
		esc(f, dev);
	}
	if (drv) {
		fputs(" (", f);
		esc(f, drv);
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
	esc(f, t);
	fputs("</h2>\n", f);
}

/* A JSON scalar as text. */
static void scalar(FILE *f, const json_t *v)
{
	char b[64];

	if (json_is_string(v))
		esc(f, json_string_value(v));
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
		esc(f, k);
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
	xy_draw(f, c);
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
	xy_draw(f, c);
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
	xy_draw(f, c);
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
		esc(f, k);
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
	bars_draw(f, c);
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
	esc(f, str(doc, "verdict") ? str(doc, "verdict") : "n/a");
	fputs("</b>", f);
	if (why) {
		fputs("<br>", f);
		esc(f, why);
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
			esc(f, str(x, "name"));
			if (isfinite(num(x, "loss-pct")))
				fprintf(f, "</td><td>%.0f%% [%.0f, %.0f]</td><td><ul>",
					num(x, "loss-pct"), num(x, "loss-lo-pct"),
					num(x, "loss-hi-pct"));
			else
				fputs("</td><td>n/a</td><td><ul>", f);
			json_array_foreach(json_object_get(x, "evidence"), j, e)
			{
				fputs("<li>", f);
				esc(f, json_string_value(e));
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
			esc(f, str(x, "command"));
			fputs("</code>: ", f);
			esc(f, str(x, "predicted"));
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
		bars_draw(f, c);
		kv_table(f, pr);
	}
	free(c);
	h2(f, "completion delay");
	fputs("<table>\n", f);
	fprintf(f, "<tr><th>D (completion delay)</th><td>%.0f us [%.0f, %.0f]</td></tr>\n",
		num(doc, "d-us"), num(doc, "d-lo-us"), num(doc, "d-hi-us"));
	fputs("<tr><th>measured by</th><td>", f);
	esc(f, str(doc, "d-source") ? str(doc, "d-source") : "n/a");
	fprintf(f, "</td></tr>\n<tr><th>the knob allows</th><td>%.0f us (", num(doc, "allowed-us"));
	esc(f, str(doc, "knob") ? str(doc, "knob") : "n/a");
	fprintf(f, "), timer floor %.0f us, serialization %.1f us</td></tr>\n",
		num(doc, "timer-floor-us"), num(doc, "serialization-us"));
	fprintf(f, "<tr><th>model: one flow loses</th><td>%.0f%% [%.0f, %.0f]</td></tr>\n",
		num(doc, "model-loss-pct"), num(doc, "model-loss-lo-pct"),
		num(doc, "model-loss-hi-pct"));
	fprintf(f, "<tr><th>measured: one flow loses</th><td>%.0f%% [%.0f, %.0f] against ",
		num(doc, "measured-loss-pct"), num(doc, "measured-loss-lo-pct"),
		num(doc, "measured-loss-hi-pct"));
	esc(f, str(doc, "reference") ? str(doc, "reference") : "n/a");
	fputs("</td></tr>\n</table>\n", f);
	if (tl && json_object_get(tl, "histogram"))
		hist_chart(f, json_object_get(tl, "histogram"),
			   "xmit-to-free latency under request/response (txlat, log2 bins)");
	else if (str(tl, "error")) {
		fputs("<p>txlat: n/a - ", f);
		esc(f, str(tl, "error"));
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
	esc(f, str(rec, "rule") ? str(rec, "rule") : str(doc, "objective"));
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
		esc(f, str(doc, "profile"));
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
		bars_draw(f, c);
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
		esc(f, str(x, "name"));
		fputs("</td><td class='", f);
		esc(f, res);
		fputs("'>", f);
		esc(f, res);
		fputs("</td><td>", f);
		esc(f, str(x, "reason"));
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
	esc(f, str(doc, "base-path"));
	fputs("</code>, NEW <code>", f);
	esc(f, str(doc, "new-path"));
	fputs("</code></p>\n<p>test: ", f);
	esc(f, str(t, "name"));
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
			bars_draw(f, c);
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
			esc(f, pl);
			fprintf(f,
				"</td><td>%.4g [%.4g, %.4g] (n %.0f)</td><td>%.4g [%.4g, %.4g] "
				"(n %.0f)</td><td>%+.1f%%</td><td>%.3g</td><td class='",
				num(b, "mean"), num(b, "ci-lo"), num(b, "ci-hi"), num(b, "n"),
				num(n, "mean"), num(n, "ci-lo"), num(n, "ci-hi"), num(n, "n"),
				num(x, "delta-pct"), num(x, "p-adjusted"));
			esc(f, v);
			fputs("'>", f);
			esc(f, v);
			if (str(x, "reason")) {
				fputs(": ", f);
				esc(f, str(x, "reason"));
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
			esc(f, str(x, "key"));
			fputs("</td><td>", f);
			scalar(f, json_object_get(x, "base"));
			fputs("</td><td>", f);
			scalar(f, json_object_get(x, "new"));
			fputs("</td></tr>\n", f);
		}
		fputs("</table>\n", f);
	}
}

static const char *const kind_names[] = {
	[HTML_COMPARE] = "compare", [HTML_DIAGNOSE] = "diagnose", [HTML_SWEEP] = "sweep",
	[HTML_TUNE] = "tune",	    [HTML_VALIDATE] = "validate",
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
