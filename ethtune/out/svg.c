/* SVG plots of what the analyses fill in (include/out/svg.h): a series with a curve, a histogram.
 */
#include <errno.h>
#include <math.h>
#include <stdio.h>

#include "out/svg.h"

#define W  720
#define H  420
#define ML 70
#define MR 20
#define MT 40
#define MB 50

static double xpos(double l, double lmin, double lmax, double x0, double w)
{
	return x0 + w * (log2(l) - log2(lmin)) / (log2(lmax) - log2(lmin));
}

static void plot_series(FILE *f, const struct svg_series *s, double x0, double y0, double w,
			double h)
{
	double lmin = 1e18, lmax = 0, ymax = 0, l;
	unsigned int i;
	int k;

	for (i = 0; i < s->n; i++) {
		lmin = fmin(lmin, s->p[i].x);
		lmax = fmax(lmax, s->p[i].x);
		ymax = fmax(ymax, s->p[i].y);
	}
	ymax = fmax(ymax, s->y_top);
	if (!s->n || lmax <= lmin || ymax <= 0)
		return;
	ymax *= 1.1;
	fprintf(f,
		"<rect x='%.0f' y='%.0f' width='%.0f' height='%.0f' fill='none' stroke='#888'/>\n",
		x0, y0, w, h);
	for (k = 0; k <= 4; k++) {
		double y = y0 + h - h * k / 4.0;

		fprintf(f, "<line x1='%.0f' x2='%.0f' y1='%.1f' y2='%.1f' stroke='#eee'/>\n", x0,
			x0 + w, y, y);
		fprintf(f, "<text x='%.0f' y='%.1f' font-size='11' text-anchor='end'>%.0f</text>\n",
			x0 - 6, y + 4, ymax * k / 4.0);
	}
	for (l = pow(2, ceil(log2(lmin))); l <= lmax * 1.001; l *= 4) {
		double x = xpos(l, lmin, lmax, x0, w);

		fprintf(f, "<text x='%.1f' y='%.0f' font-size='11' text-anchor='middle'>", x,
			y0 + h + 16);
		if (l >= 1 << 20)
			fprintf(f, "%.0fM</text>\n", l / (1 << 20));
		else
			fprintf(f, "%.0fK</text>\n", l / 1024);
	}
	fprintf(f, "<text x='%.0f' y='%.0f' font-size='12' text-anchor='middle'>%s</text>\n",
		x0 + w / 2, y0 + h + 34, s->x_label);
	fprintf(f,
		"<text x='%.0f' y='%.0f' font-size='12' transform='rotate(-90 %.0f %.0f)' "
		"text-anchor='middle'>%s</text>\n",
		x0 - 50, y0 + h / 2, x0 - 50, y0 + h / 2, s->y_label);
	/* the measured points, joined */
	fprintf(f, "<polyline fill='none' stroke='#36c' stroke-width='1' points='");
	for (i = 0; i < s->n; i++)
		fprintf(f, "%.1f,%.1f ", xpos(s->p[i].x, lmin, lmax, x0, w),
			y0 + h - h * s->p[i].y / ymax);
	fprintf(f, "'/>\n");
	if (s->ncurve) {
		fprintf(f, "<polyline fill='none' stroke='#c33' stroke-width='2' points='");
		for (i = 0; i < s->ncurve; i++)
			fprintf(f, "%.1f,%.1f ", xpos(s->cx[i], lmin, lmax, x0, w),
				y0 + h - h * s->cy[i] / ymax);
		fprintf(f, "'/>\n");
	}
	if (s->label[0])
		fprintf(f, "<text x='%.0f' y='%.0f' font-size='12' fill='#c33'>%s</text>\n",
			x0 + 10, y0 + 16, s->label);
	for (i = 0; i < s->n; i++) {
		double x = xpos(s->p[i].x, lmin, lmax, x0, w);

		if (isfinite(s->p[i].lo) && isfinite(s->p[i].hi))
			fprintf(f,
				"<line x1='%.1f' x2='%.1f' y1='%.1f' y2='%.1f' stroke='#236'/>\n",
				x, x, y0 + h - h * fmax(0, s->p[i].lo) / ymax,
				y0 + h - h * fmin(ymax, s->p[i].hi) / ymax);
		fprintf(f, "<circle cx='%.1f' cy='%.1f' r='4' fill='#236'/>\n", x,
			y0 + h - h * s->p[i].y / ymax);
	}
}

static void plot_hist(FILE *f, const struct svg_hist *hs, double x0, double y0, double w, double h)
{
	uint64_t max = 0;
	unsigned int i;
	double bw;

	for (i = 0; i < hs->n; i++)
		if (hs->count[i] > max)
			max = hs->count[i];
	if (!hs->n || !max)
		return;
	bw = w / hs->n;
	fprintf(f, "<text x='%.0f' y='%.0f' font-size='12'>%s</text>\n", x0, y0 - 6, hs->title);
	for (i = 0; i < hs->n; i++) {
		double bh = h * (double)hs->count[i] / (double)max;

		fprintf(f, "<rect x='%.1f' y='%.1f' width='%.1f' height='%.1f' fill='#369'/>\n",
			x0 + i * bw + 1, y0 + h - bh, bw - 2, bh);
		fprintf(f,
			"<text x='%.1f' y='%.0f' font-size='10' text-anchor='middle'>%.0f</text>\n",
			x0 + i * bw + bw / 2, y0 + h + 12, hs->lo[i]);
	}
	fprintf(f, "<text x='%.0f' y='%.0f' font-size='11' text-anchor='middle'>%s</text>\n",
		x0 + w / 2, y0 + h + 26, hs->x_label);
}

int svg_write(const char *path, const char *title, const struct svg_series *s,
	      const struct svg_hist *h)
{
	int height = H + (h && h->n ? 220 : 0);
	FILE *f = fopen(path, "w");

	if (!f)
		return -errno;
	fprintf(f,
		"<svg xmlns='http://www.w3.org/2000/svg' width='%d' height='%d' "
		"font-family='sans-serif'>\n<rect width='100%%' height='100%%' fill='white'/>\n",
		W, height);
	fprintf(f, "<text x='%d' y='24' font-size='15'>%s</text>\n", ML, title);
	if (s && s->n)
		plot_series(f, s, ML, MT, W - ML - MR, H - MT - MB);
	if (h && h->n)
		plot_hist(f, h, ML, H + 30, W - ML - MR, 150);
	fprintf(f, "</svg>\n");
	return fclose(f) ? -errno : 0;
}
