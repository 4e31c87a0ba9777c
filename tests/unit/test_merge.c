/* profile merge: a tune result read (and bad ones refused with their reason), the outlier test. */
#include <errno.h>
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>

#include "analysis/merge.h"

static const char *const good =
	"{\"schema-version\": 1, \"device\": \"eth1\", \"driver\": \"ice\", \"objective\": "
	"\"balanced\", \"param\": \"tx-usecs\", \"host\": \"h1\", \"date\": "
	"\"2026-12-08T01:02:03Z\", \"vendor-id\": \"8086\", \"device-id\": \"1592\", "
	"\"subsystem-vendor-id\": \"8086\", \"subsystem-device-id\": \"0002\", "
	"\"coalesce-sweep\": {\"tsq-current\": 1, \"tsq-constrained\": 1, \"points\": ["
	"{\"tx-usecs\": 16, \"tx-usecs-actual\": 14, \"mbps\": 900, \"mbps-constrained\": 800, "
	"\"pareto\": true, \"pass-mbps\": [890, 910], \"pass-mbps-constrained\": [800, 800]},"
	"{\"tx-usecs\": 64, \"mbps\": 950, \"mbps-constrained\": 850, \"pareto\": true}]},"
	"\"recommendation\": {\"rule\": \"r\"}}";

static void test_parse(void **state)
{
	struct merge_host h;
	char why[300];

	(void)state;
	assert_int_equal(merge_parse("f", good, 0, &h, why, sizeof(why)), 0);
	assert_string_equal(h.host, "h1");
	assert_true(h.pci && h.vendor == 0x8086 && h.device == 0x1592 && h.sub_device == 2);
	assert_true(h.dated && h.when == 1796691723);
	assert_int_equal(h.n, 2);
	/* a setting is what the device took; the passes as tune kept them */
	assert_int_equal(h.value[0], 14);
	assert_int_equal(h.value[1], 64);
	assert_int_equal(h.p[0].nrep, 2);
	assert_int_equal(h.p[1].nrep, 0);
	assert_true(isnan(h.p[1].irq_per_s));
	merge_host_free(&h);
}

/* each bad input: refused with its reason, nothing kept */
static void test_bad(void **state)
{
	static const struct {
		const char *text, *why;
	} bad[] = {
		{ "{\"schema-version\": 1, \"dev", "not JSON" },
		{ "{\"schema-version\": 2}", "schema-version 2 (this ethtune reads 1)" },
		{ "{\"schema-version\": 1, \"cells\": []}", "an ethtune matrix result" },
		{ "{\"schema-version\": 1, \"coalesce-sweep\": {}}", "an ethtune sweep coalesce" },
		{ "[1]", "not a JSON object" },
	};
	struct merge_host h;
	char why[300], *t;
	unsigned int i;

	(void)state;
	for (i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		assert_int_equal(merge_parse("f", bad[i].text, 0, &h, why, sizeof(why)), -EINVAL);
		assert_non_null(strstr(why, bad[i].why));
	}
	/* no host: a result of an ethtune before provenance */
	t = strdup(good);
	memcpy(strstr(t, "\"host\""), "\"hozt\"", 6);
	assert_int_equal(merge_parse("f", t, 0, &h, why, sizeof(why)), -EINVAL);
	assert_non_null(strstr(why, "no \"host\""));
	free(t);
}

/* ten hosts at 1000 +- 1%, one at 600: that one alone; at 950 (5% down) nobody */
static void test_outliers(void **state)
{
	struct merge_host hs[10], *hp[10];
	struct coal_point pt[10];
	uint32_t val[10];
	unsigned int i;

	(void)state;
	memset(hs, 0, sizeof(hs));
	memset(pt, 0, sizeof(pt));
	for (i = 0; i < 10; i++) {
		hp[i] = &hs[i];
		hs[i].n = 1;
		hs[i].p = &pt[i];
		hs[i].value = &val[i];
		val[i] = 64;
		pt[i].mbps = 1000 * (1 + 0.01 * ((double)(i % 3) - 1));
	}
	pt[7].mbps = 600;
	assert_int_equal(merge_outliers(hp, 10, 64, 0.05), 1);
	assert_true(hs[7].outlier && hs[7].p_adj < 0.05 && fabs(hs[7].share - 0.6) < 0.01);
	for (i = 0; i < 10; i++)
		assert_true(i == 7 || !hs[i].outlier);
	/* significant but small: not an outlier (MERGE_MIN_EFFECT) */
	pt[7].mbps = 950;
	assert_int_equal(merge_outliers(hp, 10, 64, 0.05), 0);
	assert_true(hs[7].p_adj < 0.05);
	/* a setting a host did not measure: it is not tested */
	assert_int_equal(merge_outliers(hp, 10, 16, 0.05), 0);
	assert_int_equal(hs[0].at, -1);
	/* two others are the fewest a host is judged against */
	pt[2].mbps = 600;
	assert_int_equal(merge_outliers(hp, 2, 64, 0.05), 0);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_parse),
		cmocka_unit_test(test_bad),
		cmocka_unit_test(test_outliers),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
