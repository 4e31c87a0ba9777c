/* HTML reports' charts: x-y series and interval bars as inline SVG (out/html.c draws pages). */
#ifndef ETHTUNE_HTML_CHART_H
#define ETHTUNE_HTML_CHART_H

#include <stdbool.h>
#include <stdio.h>

#define MAX_SER	 6
#define MAX_PTS	 256
#define MAX_BARS 96

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

/* Text into HTML or SVG, escaped. */
void html_esc(FILE *f, const char *s);
/* c as one SVG chart: axes (log2 or linear x), each series' points, intervals and lines. */
void html_xy_draw(FILE *f, const struct xy_chart *c);
/* c as one SVG chart: a row per bar, a bar per group with its interval. */
void html_bars_draw(FILE *f, const struct bar_chart *c);

#endif
