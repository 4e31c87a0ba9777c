/* Unit tests for the Prometheus textfile writer: the exposition text, escaping, what it refuses. */
#include <errno.h>
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>
#include <cmocka.h>

#include "out/prom.h"

/* The text of p (caller frees), or NULL with the error in *err. */
static char *text(const struct prom *p, int *err)
{
	char *buf = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&buf, &len);

	assert_non_null(f);
	*err = prom_format(p, f);
	fclose(f);
	if (*err) {
		free(buf);
		return NULL;
	}
	return buf;
}

static void test_families(void **state)
{
	struct prom *p = prom_new();
	char *t;
	int err;

	assert_non_null(p);
	assert_int_equal(prom_labels(p, "device", "eth0", "driver", "ixgbe", NULL), 0);
	assert_int_equal(
		prom_sample(p, "ethtune_x_bytes", PROM_GAUGE, "Bytes.", 3, "queue", "0", NULL), 0);
	assert_int_equal(prom_sample(p, "ethtune_y_total", PROM_COUNTER, "A count.", 1e20, NULL),
			 0);
	assert_int_equal(
		prom_sample(p, "ethtune_x_bytes", PROM_GAUGE, "", 0.25, "queue", "1", NULL), 0);
	/* a missing value: no sample, no family */
	assert_int_equal(prom_sample(p, "ethtune_z_ratio", PROM_GAUGE, "Absent.", NAN, NULL), 0);
	t = text(p, &err);
	assert_int_equal(err, 0);
	assert_string_equal(t,
			    "# HELP ethtune_x_bytes Bytes.\n"
			    "# TYPE ethtune_x_bytes gauge\n"
			    "ethtune_x_bytes{device=\"eth0\",driver=\"ixgbe\",queue=\"0\"} 3\n"
			    "ethtune_x_bytes{device=\"eth0\",driver=\"ixgbe\",queue=\"1\"} 0.25\n"
			    "# HELP ethtune_y_total A count.\n"
			    "# TYPE ethtune_y_total counter\n"
			    "ethtune_y_total{device=\"eth0\",driver=\"ixgbe\"} 1e+20\n");
	free(t);
	prom_free(p);
}

static void test_escaping(void **state)
{
	struct prom *p = prom_new();
	char *t;
	int err;

	prom_sample(p, "ethtune_e", PROM_GAUGE, "Back\\slash and\nnewline \"quoted\".", 1, "check",
		    "a\"b\\c\nd", NULL);
	t = text(p, &err);
	assert_int_equal(err, 0);
	/* HELP escapes backslash and newline; a label value also the double quote */
	assert_string_equal(t, "# HELP ethtune_e Back\\\\slash and\\nnewline \"quoted\".\n"
			       "# TYPE ethtune_e gauge\n"
			       "ethtune_e{check=\"a\\\"b\\\\c\\nd\"} 1\n");
	free(t);
	prom_free(p);
}

static void test_values(void **state)
{
	char b[40];

	prom_format_value(5.12e-07, b, sizeof(b));
	assert_string_equal(b, "5.12e-07");
	prom_format_value(0.536870912, b, sizeof(b));
	assert_string_equal(b, "0.536870912");
	prom_format_value(18446744073709551615.0, b, sizeof(b));
	assert_true(strtod(b, NULL) == 18446744073709551615.0);
	prom_format_value(1234567, b, sizeof(b));
	assert_string_equal(b, "1234567");
	prom_format_value(-2, b, sizeof(b));
	assert_string_equal(b, "-2");
	prom_format_value(INFINITY, b, sizeof(b));
	assert_string_equal(b, "+Inf");
	prom_format_value(-INFINITY, b, sizeof(b));
	assert_string_equal(b, "-Inf");
	prom_format_value(NAN, b, sizeof(b));
	assert_string_equal(b, "NaN");
	prom_format_value(0.1 + 0.2, b, sizeof(b));
	assert_true(strtod(b, NULL) == 0.1 + 0.2);
}

/* What would make the collector refuse the file is refused here, and the error kept. */
static void test_refused(void **state)
{
	struct prom *p = prom_new();
	int err;

	assert_int_equal(prom_sample(p, "ethtune_a", PROM_GAUGE, "A.", 1, "q", "0", NULL), 0);
	assert_int_equal(prom_sample(p, "ethtune_a", PROM_GAUGE, "A.", 2, "q", "0", NULL), -EEXIST);
	assert_null(text(p, &err));
	assert_int_equal(err, -EEXIST);
	assert_int_equal(prom_write(p, "/nonexistent/x.prom"), -EEXIST);
	prom_free(p);

	p = prom_new();
	assert_int_equal(prom_sample(p, "9bad", PROM_GAUGE, "B.", 1, NULL), -EINVAL);
	prom_free(p);
	p = prom_new();
	assert_int_equal(prom_sample(p, "ethtune_b", PROM_GAUGE, "B.", 1, "bad-label", "x", NULL),
			 -EINVAL);
	prom_free(p);
	p = prom_new();
	assert_int_equal(prom_sample(p, "ethtune_b", PROM_GAUGE, "B.", 1, "__name", "x", NULL),
			 -EINVAL);
	prom_free(p);
	p = prom_new();
	assert_int_equal(prom_sample(p, "ethtune_b", PROM_GAUGE, "B.", 1, "q", NULL, NULL),
			 -EINVAL);
	prom_free(p);
	/* one family, one type */
	p = prom_new();
	assert_int_equal(prom_sample(p, "ethtune_c", PROM_GAUGE, "C.", 1, NULL), 0);
	assert_int_equal(prom_sample(p, "ethtune_c", PROM_COUNTER, "C.", 1, "q", "1", NULL),
			 -EINVAL);
	prom_free(p);
	/* a label twice (a common one repeated) */
	p = prom_new();
	prom_labels(p, "device", "eth0", NULL);
	assert_int_equal(prom_sample(p, "ethtune_d", PROM_GAUGE, "D.", 1, "device", "x", NULL),
			 -EINVAL);
	prom_free(p);
}

static void test_histogram(void **state)
{
	static const double le[] = { 1e-06, 2e-06, 4e-06 };
	static const uint64_t cum[] = { 1, 1, 5 }, bad[] = { 2, 1, 5 };
	struct prom *p = prom_new();
	char *t;
	int err;

	prom_labels(p, "device", "eth0", NULL);
	assert_int_equal(prom_histogram(p, "ethtune_h_seconds", "H.", le, cum, 3, 7, 2.5e-05,
					"queue", "0", NULL),
			 0);
	t = text(p, &err);
	assert_int_equal(err, 0);
	assert_string_equal(t,
			    "# HELP ethtune_h_seconds H.\n"
			    "# TYPE ethtune_h_seconds histogram\n"
			    "ethtune_h_seconds_bucket{device=\"eth0\",queue=\"0\",le=\"1e-06\"} 1\n"
			    "ethtune_h_seconds_bucket{device=\"eth0\",queue=\"0\",le=\"2e-06\"} 1\n"
			    "ethtune_h_seconds_bucket{device=\"eth0\",queue=\"0\",le=\"4e-06\"} 5\n"
			    "ethtune_h_seconds_bucket{device=\"eth0\",queue=\"0\",le=\"+Inf\"} 7\n"
			    "ethtune_h_seconds_sum{device=\"eth0\",queue=\"0\"} 2.5e-05\n"
			    "ethtune_h_seconds_count{device=\"eth0\",queue=\"0\"} 7\n");
	free(t);
	/* not cumulative, above the count, bounds not increasing, or le given as a label */
	assert_int_equal(
		prom_histogram(p, "ethtune_h_seconds", "H.", le, bad, 3, 7, 0, "queue", "1", NULL),
		-EINVAL);
	prom_free(p);
	p = prom_new();
	assert_int_equal(prom_histogram(p, "ethtune_h_seconds", "H.", le, cum, 3, 4, 0, NULL),
			 -EINVAL);
	prom_free(p);
	p = prom_new();
	assert_int_equal(prom_histogram(p, "ethtune_h_seconds", "H.", (const double[]){ 2, 1, 3 },
					cum, 3, 7, 0, NULL),
			 -EINVAL);
	prom_free(p);
	p = prom_new();
	assert_int_equal(
		prom_histogram(p, "ethtune_h_seconds", "H.", le, cum, 3, 7, 0, "le", "x", NULL),
		-EINVAL);
	prom_free(p);
}

static void test_paths(void **state)
{
	char dir[] = "/tmp/ethtune-prom-XXXXXX", path[256], why[256];
	struct prom *p = prom_new();
	struct stat st;
	FILE *f;
	char buf[320];
	size_t n;

	assert_non_null(mkdtemp(dir));
	snprintf(path, sizeof(path), "%s/x.txt", dir);
	assert_int_equal(prom_check_path(path, why, sizeof(why)), -EINVAL);
	assert_non_null(strstr(why, "must end in .prom"));
	assert_int_equal(prom_check_path(".prom", why, sizeof(why)), -EINVAL);
	snprintf(path, sizeof(path), "%s/nosuch/x.prom", dir);
	assert_int_equal(prom_check_path(path, why, sizeof(why)), -ENOENT);
	snprintf(path, sizeof(path), "%s/x.prom", dir);
	assert_int_equal(prom_check_path(path, why, sizeof(why)), 0);
	/* written whole, no temporary left */
	prom_sample(p, "ethtune_w", PROM_GAUGE, "W.", 42, NULL);
	assert_int_equal(prom_write(p, path), 0);
	f = fopen(path, "r");
	assert_non_null(f);
	n = fread(buf, 1, sizeof(buf) - 1, f);
	buf[n] = 0;
	fclose(f);
	assert_string_equal(buf, "# HELP ethtune_w W.\n# TYPE ethtune_w gauge\nethtune_w 42\n");
	snprintf(buf, sizeof(buf), "%s.tmp", path);
	assert_int_equal(stat(buf, &st), -1);
	/* a directory by that name is refused */
	assert_int_equal(unlink(path), 0);
	assert_int_equal(mkdir(path, 0700), 0);
	assert_int_equal(prom_check_path(path, why, sizeof(why)), -EINVAL);
	assert_non_null(strstr(why, "not a regular file"));
	rmdir(path);
	rmdir(dir);
	prom_free(p);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_families),  cmocka_unit_test(test_escaping),
		cmocka_unit_test(test_values),	  cmocka_unit_test(test_refused),
		cmocka_unit_test(test_histogram), cmocka_unit_test(test_paths),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
