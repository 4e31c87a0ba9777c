/* Reading txlat's JSON report: one queue or an "all" row, orphan fraction, histogram. */
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <string.h>
#include <cmocka.h>

#include "trace/txlat_run.h"

static void test_single_queue(void **state)
{
	const char *j =
		"{\"free-is\":\"driver completion\",\"queues\":[{\"queue\":0,\"xmit\":5000,"
		"\"freed\":4990,\"p50-us\":2036.5,\"p90-us\":2100,\"p99-us\":2400,\"max-us\":9000,"
		"\"histogram\":[{\"lo-us\":1024,\"hi-us\":2047,\"count\":10},{\"lo-us\":2048,"
		"\"hi-us\":4095,\"count\":4980}]}],\"tcp\":{\"skbs\":1873,\"owned-at-xmit\":1868,"
		"\"no-socket-at-xmit\":0,\"orphaned-after-xmit\":1853,\"verdict\":\"orphaning\"}}";
	struct txlat_sample s = {};

	assert_int_equal(txlat_sample_parse(j, &s), 0);
	assert_true(s.ok);
	assert_true(fabs(s.p50_us - 2036.5) < 1e-9);
	assert_int_equal(s.xmit, 5000);
	assert_int_equal(s.nhist, 2);
	assert_int_equal(s.hist_count[1], 4980);
	assert_true(fabs(s.orphan_frac - 1853.0 / 1873) < 1e-9);
	assert_string_equal(s.verdict, "orphaning");
	assert_string_equal(s.free_is, "driver completion");
}

static void test_all_row_wins(void **state)
{
	const char *j =
		"{\"all\":{\"xmit\":10,\"p50-us\":7},\"queues\":[{\"xmit\":99,\"p50-us\":1}]}";
	struct txlat_sample s = {};

	assert_int_equal(txlat_sample_parse(j, &s), 0);
	assert_true(s.p50_us == 7);
	assert_int_equal(s.tcp_skbs, 0);
	assert_true(s.orphan_frac == 0);
}

static void test_garbage(void **state)
{
	struct txlat_sample s = {};

	assert_int_not_equal(txlat_sample_parse("not json", &s), 0);
	assert_int_not_equal(txlat_sample_parse("{\"tcp\":{}}", &s), 0);
	assert_false(s.ok);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_single_queue),
		cmocka_unit_test(test_all_row_wins),
		cmocka_unit_test(test_garbage),
	};

	return cmocka_run_group_tests_name("txlat_run", tests, NULL, NULL);
}
