/* HTML reports' charts: x-y series and interval bars as inline SVG, with axes and legends. */
#include <math.h>
#include <stdbool.h>
#include <stdio.h>
#include <string.h>

#include "out/html_chart.h"

/* chart width and height, and the plot's margins in it */
#define CW	760
#define CH	400
#define PL	80
#define PR	24
#define PT	44
#define PB	64
#define ROW_H	22
#define LABEL_W 300

static const char *const palette[MAX_SER] = { "#2a6fb0", "#c0392b", "#27864a",
					      "#8e44ad", "#d68910", "#566573" };

/* Text into HTML or SVG, escaped. */
void html_esc(FILE *f, const char *s)
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
	html_esc(f, title);
	fprintf(f, "'>\n<rect class='bg' width='%d' height='%d' fill='#fff'/>\n", w, h);
	fprintf(f, "<text class='title' x='%d' y='24' font-size='15'>", PL);
	html_esc(f, title);
	fputs("</text>\n", f);
}

static void axis_labels(FILE *f, double x0, double y0, double w, double h, const char *xl,
			const char *yl)
{
	fprintf(f,
		"<text class='axis-label x' x='%.0f' y='%.0f' font-size='12' "
		"text-anchor='middle'>",
		x0 + w / 2, y0 + h + 42);
	html_esc(f, xl);
	fprintf(f,
		"</text>\n<text class='axis-label y' x='%.0f' y='%.0f' font-size='12' "
		"text-anchor='middle' transform='rotate(-90 %.0f %.0f)'>",
		x0 - 58, y0 + h / 2, x0 - 58, y0 + h / 2);
	html_esc(f, yl);
	fputs("</text>\n", f);
}

void html_xy_draw(FILE *f, const struct xy_chart *c)
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
			html_esc(f, s->name);
			fputs("</text>\n", f);
		}
	}
	if (c->note[0]) {
		fprintf(f, "<text class='note' x='%.0f' y='%.0f' font-size='12' fill='#444'>",
			x0 + 8, y0 + 16);
		html_esc(f, c->note);
		fputs("</text>\n", f);
	}
#undef XP
#undef YP
	fputs("</svg></figure>\n", f);
}

void html_bars_draw(FILE *f, const struct bar_chart *c)
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
	html_esc(f, c->x_label);
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
		html_esc(f, r->label);
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
			html_esc(f, c->groups > 1 ? c->group[g] : r->label);
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
