/* SVG plots: throughput against the TSQ limit with the fitted model, and a latency histogram. */
#include <errno.h>
#include <math.h>
#include <stdio.h>

#include "analysis/sweep.h"

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

static void plot_tsq(FILE *f, const struct tsq_sweep *s, double x0, double y0, double w, double h)
{
	double lmin = 1e18, lmax = 0, ymax = 0, l;
	unsigned int i;
	int k;

	for (i = 0; i < s->n; i++) {
		lmin = fmin(lmin, (double)s->p[i].limit);
		lmax = fmax(lmax, (double)s->p[i].limit);
		ymax = fmax(ymax, s->p[i].mbps);
	}
	if (s->fit_ok)
		ymax = fmax(ymax, s->fit.R / 1e6);
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
	fprintf(f,
		"<text x='%.0f' y='%.0f' font-size='12' text-anchor='middle'>"
		"tcp_limit_output_bytes</text>\n",
		x0 + w / 2, y0 + h + 34);
	fprintf(f,
		"<text x='%.0f' y='%.0f' font-size='12' transform='rotate(-90 %.0f %.0f)' "
		"text-anchor='middle'>Mbit/s (one flow)</text>\n",
		x0 - 50, y0 + h / 2, x0 - 50, y0 + h / 2);
	/* the measured points, joined (sorted by limit) */
	fprintf(f, "<polyline fill='none' stroke='#36c' stroke-width='1' points='");
	for (i = 0; i < s->n; i++)
		fprintf(f, "%.1f,%.1f ", xpos((double)s->p[i].limit, lmin, lmax, x0, w),
			y0 + h - h * s->p[i].mbps / ymax);
	fprintf(f, "'/>\n");
	if (!s->fit_ok)
		fprintf(f,
			"<text x='%.0f' y='%.0f' font-size='12' fill='#c33'>no model: %s</text>\n",
			x0 + 10, y0 + 16, s->fit_reason);
	if (s->fit_ok) {
		fprintf(f, "<polyline fill='none' stroke='#c33' stroke-width='2' points='");
		for (k = 0; k <= 200; k++) {
			double ll = lmin * pow(lmax / lmin, k / 200.0);
			double y = model_sw(ll, s->rho, s->fit.R, s->fit.D) / 1e6;

			fprintf(f, "%.1f,%.1f ", xpos(ll, lmin, lmax, x0, w),
				y0 + h - h * y / ymax);
		}
		fprintf(f, "'/>\n");
		fprintf(f,
			"<text x='%.0f' y='%.0f' font-size='12' fill='#c33'>model: R %.0f Mbit/s, "
			"D %.0f us, knee %.0f KiB</text>\n",
			x0 + 10, y0 + 16, s->fit.R / 1e6, s->fit.D * 1e6, s->fit.knee / 1024);
	}
	for (i = 0; i < s->n; i++)
		fprintf(f, "<circle cx='%.1f' cy='%.1f' r='4' fill='#236'/>\n",
			xpos((double)s->p[i].limit, lmin, lmax, x0, w),
			y0 + h - h * s->p[i].mbps / ymax);
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
	fprintf(f, "<text x='%.0f' y='%.0f' font-size='12'>xmit-to-free latency (txlat)</text>\n",
		x0, y0 - 6);
	for (i = 0; i < hs->n; i++) {
		double bh = h * (double)hs->count[i] / (double)max;

		fprintf(f, "<rect x='%.1f' y='%.1f' width='%.1f' height='%.1f' fill='#369'/>\n",
			x0 + i * bw + 1, y0 + h - bh, bw - 2, bh);
		fprintf(f,
			"<text x='%.1f' y='%.0f' font-size='10' text-anchor='middle'>%.0f</text>\n",
			x0 + i * bw + bw / 2, y0 + h + 12, hs->lo_us[i]);
	}
	fprintf(f, "<text x='%.0f' y='%.0f' font-size='11' text-anchor='middle'>us</text>\n",
		x0 + w / 2, y0 + h + 26);
}

int svg_write(const char *path, const char *title, const struct tsq_sweep *s,
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
		plot_tsq(f, s, ML, MT, W - ML - MR, H - MT - MB);
	if (h && h->n)
		plot_hist(f, h, ML, H + 30, W - ML - MR, 150);
	fprintf(f, "</svg>\n");
	return fclose(f) ? -errno : 0;
}
