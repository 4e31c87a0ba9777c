/* SVG plots: a measured series on a log2 size axis with a curve through it, and a histogram. */
#ifndef ETHTUNE_SVG_H
#define ETHTUNE_SVG_H

#include <stdint.h>

#define SVG_MAX_POINTS 64
#define SVG_MAX_CURVE  201
#define SVG_MAX_BINS   64

/* One measured point: x a size in bytes (the axis is log2), y with its interval [lo, hi]
 * (not finite: none drawn). */
struct svg_point {
	double x, y, lo, hi;
};

/* Measured points (sorted by x), a curve (a model) and one line of label over the plot. */
struct svg_series {
	const char *x_label, *y_label;
	unsigned int n;
	struct svg_point p[SVG_MAX_POINTS];
	double y_top; /* the y axis reaches at least this (0: the points alone decide) */
	unsigned int ncurve;
	double cx[SVG_MAX_CURVE], cy[SVG_MAX_CURVE];
	char label[200];
};

/* Histogram bins [lo, hi) with their counts. */
struct svg_hist {
	const char *title, *x_label;
	unsigned int n;
	double lo[SVG_MAX_BINS], hi[SVG_MAX_BINS];
	uint64_t count[SVG_MAX_BINS];
};

/* Write the plot to path: the series (NULL or empty: none) above the histogram (likewise).
 * 0 or -errno. */
int svg_write(const char *path, const char *title, const struct svg_series *s,
	      const struct svg_hist *h);

#endif
