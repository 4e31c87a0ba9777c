/* Unit tests for the SVG plot: the TSQ sweep filled into svg's own input type, and written. */
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <cmocka.h>

#include "analysis/sweep.h"
#include "out/svg.h"

static unsigned int count(const char *text, const char *what)
{
	unsigned int n = 0;

	for (; (text = strstr(text, what)); text++)
		n++;
	return n;
}

static char *write_read(const struct svg_series *p, const struct svg_hist *h)
{
	char path[] = "/tmp/ethtune-svg-XXXXXX", *buf = calloc(1, 1 << 20);
	int fd = mkstemp(path);
	FILE *f;

	assert_true(fd >= 0 && buf);
	close(fd);
	assert_int_equal(svg_write(path, "test plot", p, h), 0);
	f = fopen(path, "r");
	assert_non_null(f);
	assert_true(fread(buf, 1, (1 << 20) - 1, f) > 0);
	fclose(f);
	unlink(path);
	return buf;
}

static void test_tsq_plot(void **state)
{
	struct tsq_sweep *s = calloc(1, sizeof(*s));
	struct svg_series *p = calloc(1, sizeof(*p));
	struct svg_hist h = {
		"xmit-to-free latency (txlat)", "us", 2, { 10, 20 }, { 20, 30 }, { 5, 9 }
	};
	char *out;
	unsigned int i;

	s->n = 4;
	for (i = 0; i < s->n; i++) {
		s->p[i].limit = 16384ULL << (2 * i);
		s->p[i].mbps = 200.0 * (i + 1);
		s->p[i].mbps_half =
			i ? 10 : INFINITY; /* one pass at the first point: no interval */
	}
	s->rho = 0.985;
	s->fit_ok = true;
	s->fit.R = 1e9;
	s->fit.D = 200e-6;
	s->fit.knee = 65536;
	sweep_tsq_plot(s, p);
	assert_int_equal(p->n, 4);
	assert_true(p->p[1].lo == 390 && p->p[1].hi == 410);
	assert_int_equal(p->ncurve, SVG_MAX_CURVE);
	assert_true(p->y_top == 1000);
	assert_true(fabs(p->cx[0] - 16384) < 1e-6 &&
		    fabs(p->cx[SVG_MAX_CURVE - 1] - 1048576) < 1e-3);
	out = write_read(p, &h);
	assert_int_equal(count(out, "<polyline"), 2); /* the points and the model */
	assert_int_equal(count(out, "<circle"), 4);
	assert_non_null(strstr(out, "model: R 1000 Mbit/s, D 200 us, knee 64 KiB"));
	assert_non_null(strstr(out, "tcp_limit_output_bytes"));
	assert_non_null(strstr(out, "xmit-to-free latency (txlat)"));
	assert_int_equal(count(out, "stroke='#236'"), 3); /* intervals where they are finite */
	free(out);

	s->fit_ok = false;
	snprintf(s->fit_reason, sizeof(s->fit_reason), "fewer than 3 points");
	sweep_tsq_plot(s, p);
	assert_int_equal(p->ncurve, 0);
	out = write_read(p, NULL);
	assert_int_equal(count(out, "<polyline"), 1);
	assert_non_null(strstr(out, "no model: fewer than 3 points"));
	assert_null(strstr(out, "xmit-to-free"));
	free(out);
	free(p);
	free(s);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_tsq_plot),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
