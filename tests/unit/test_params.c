/* Parameter tables: unique ethtool keywords, exact matching, support and range checks. */
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>
#include <cmocka.h>

#include "nl/devobj.h"
#include "nl/ethtool_attrs.h"
#include "util/ethtune.h"

static void check_unique(const struct et_param *p, unsigned int n)
{
	unsigned int i, j;

	for (i = 0; i < n; i++) {
		assert_non_null(p[i].key);
		assert_true(p[i].attr > 0 && p[i].attr < ET_MAX_ATTR);
		for (j = i + 1; j < n; j++) {
			assert_string_not_equal(p[i].key, p[j].key);
			assert_int_not_equal(p[i].attr, p[j].attr);
		}
	}
}

static void test_tables_unique(void **state)
{
	check_unique(et_coalesce.params, et_coalesce.n_params);
	check_unique(et_rings.params, et_rings.n_params);
	check_unique(et_channels.params, et_channels.n_params);
	check_unique(link_params, n_link_params);
}

static void test_ethtool_keywords(void **state)
{
	/* ethtool -C / -G / -L spell them so; the same words are used in JSON and profiles. */
	static const char *const coal[] = { "tx-usecs",
					    "tx-frames",
					    "rx-usecs",
					    "rx-frames",
					    "adaptive-rx",
					    "adaptive-tx",
					    "cqe-mode-tx",
					    "tx-usecs-irq",
					    "tx-aggr-max-bytes",
					    "sample-interval",
					    "pkt-rate-low",
					    "tx-frames-high",
					    NULL };
	static const char *const ring[] = {
		"rx",	   "tx",      "rx-mini",	 "rx-jumbo",	   "rx-buf-len", "cqe-size",
		"tx-push", "rx-push", "tx-push-buf-len", "tcp-data-split", "hds-thresh", NULL
	};
	unsigned int i;

	for (i = 0; coal[i]; i++)
		assert_non_null(obj_param(&et_coalesce, coal[i]));
	for (i = 0; ring[i]; i++)
		assert_non_null(obj_param(&et_rings, ring[i]));
	assert_non_null(obj_param(&et_channels, "combined"));
	assert_ptr_equal(obj_by_name("ring"), &et_rings);
	assert_ptr_equal(obj_by_name("rings"), &et_rings);
	assert_null(obj_by_name("coal"));
	/* exact match only: no prefixes, no case folding */
	assert_null(obj_param(&et_coalesce, "tx-usec"));
	assert_null(obj_param(&et_coalesce, "TX-USECS"));
	assert_null(obj_param(&et_coalesce, "tx-usecsx"));
	assert_non_null(link_param("gso-max-size"));
	assert_non_null(link_param("txqueuelen"));
	assert_null(link_param("gso_max_size"));
}

static struct et_vals device_with(const unsigned int *attrs, const uint64_t *vals, unsigned int n)
{
	struct et_vals v;
	unsigned int i;

	memset(&v, 0, sizeof(v));
	for (i = 0; i < n; i++)
		vals_set(&v, attrs[i], vals[i]);
	return v;
}

static void test_parse_changes(void **state)
{
	unsigned int attrs[] = { ETHTOOL_A_COALESCE_TX_USECS, ETHTOOL_A_COALESCE_TX_MAX_FRAMES,
				 ETHTOOL_A_COALESCE_USE_ADAPTIVE_TX };
	uint64_t vals[] = { 16, 32, 0 };
	struct et_vals cur = device_with(attrs, vals, 3);
	struct et_change ch[8];
	unsigned int n;
	char err[256];
	char *ok[] = { "tx-usecs", "128", "tx-frames", "0x20", "adaptive-tx", "on" };
	char *unsup[] = { "rx-usecs", "8" };
	char *unknown[] = { "tx-usec", "8" };
	char *neg[] = { "tx-usecs", "-1" };
	char *big[] = { "tx-usecs", "4294967296" };
	char *odd[] = { "tx-usecs" };
	char *twice[] = { "tx-usecs", "1", "tx-usecs", "2" };
	char *badbool[] = { "adaptive-tx", "yes" };

	assert_int_equal(obj_parse_changes(&et_coalesce, &cur, 6, ok, ch, &n, err, sizeof(err)), 0);
	assert_int_equal(n, 3);
	assert_int_equal(ch[0].val, 128);
	assert_int_equal(ch[1].val, 32);
	assert_int_equal(ch[2].val, 1);

	assert_int_equal(obj_parse_changes(&et_coalesce, &cur, 2, unsup, ch, &n, err, sizeof(err)),
			 -EOPNOTSUPP);
	/* the message names the parameter and lists what is supported */
	assert_non_null(strstr(err, "rx-usecs"));
	assert_non_null(strstr(err, "tx-usecs, tx-frames"));
	assert_int_equal(
		obj_parse_changes(&et_coalesce, &cur, 2, unknown, ch, &n, err, sizeof(err)),
		-EINVAL);
	assert_non_null(strstr(err, "'tx-usec'"));
	assert_int_equal(obj_parse_changes(&et_coalesce, &cur, 2, neg, ch, &n, err, sizeof(err)),
			 -EINVAL);
	assert_int_equal(obj_parse_changes(&et_coalesce, &cur, 2, big, ch, &n, err, sizeof(err)),
			 -ERANGE);
	assert_int_equal(obj_parse_changes(&et_coalesce, &cur, 1, odd, ch, &n, err, sizeof(err)),
			 -EINVAL);
	assert_int_equal(obj_parse_changes(&et_coalesce, &cur, 4, twice, ch, &n, err, sizeof(err)),
			 -EINVAL);
	assert_int_equal(
		obj_parse_changes(&et_coalesce, &cur, 2, badbool, ch, &n, err, sizeof(err)),
		-EINVAL);
}

static void test_ring_maximum(void **state)
{
	unsigned int attrs[] = { ETHTOOL_A_RINGS_TX, ETHTOOL_A_RINGS_TX_MAX,
				 ETHTOOL_A_RINGS_TCP_DATA_SPLIT };
	uint64_t vals[] = { 256, 4096, 0 };
	struct et_vals cur = device_with(attrs, vals, 3);
	struct et_change ch[4];
	unsigned int n;
	char err[256];
	char *over[] = { "tx", "8192" };
	char *zero[] = { "tx", "0" };
	char *max[] = { "tx", "4096" };
	char *split[] = { "tcp-data-split", "on" };
	char *splitbad[] = { "tcp-data-split", "maybe" };
	char *rx[] = { "rx", "64" };
	char *ro[] = { "tx-max", "64" };

	assert_int_equal(obj_parse_changes(&et_rings, &cur, 2, over, ch, &n, err, sizeof(err)),
			 -ERANGE);
	assert_non_null(strstr(err, "4096"));
	assert_int_equal(obj_parse_changes(&et_rings, &cur, 2, zero, ch, &n, err, sizeof(err)),
			 -ERANGE);
	assert_int_equal(obj_parse_changes(&et_rings, &cur, 2, max, ch, &n, err, sizeof(err)), 0);
	assert_int_equal(obj_parse_changes(&et_rings, &cur, 2, split, ch, &n, err, sizeof(err)), 0);
	assert_int_equal(ch[0].val, 2);
	assert_int_equal(obj_parse_changes(&et_rings, &cur, 2, splitbad, ch, &n, err, sizeof(err)),
			 -EINVAL);
	assert_int_equal(obj_parse_changes(&et_rings, &cur, 2, rx, ch, &n, err, sizeof(err)),
			 -EOPNOTSUPP);
	assert_int_equal(obj_parse_changes(&et_rings, &cur, 2, ro, ch, &n, err, sizeof(err)),
			 -EINVAL);
}

static void test_format_roundtrip(void **state)
{
	const struct et_param *p = obj_param(&et_coalesce, "adaptive-tx");
	const struct et_param *s = obj_param(&et_rings, "tcp-data-split");
	char buf[16];
	uint64_t v;

	obj_format_val(p, 1, buf, sizeof(buf));
	assert_string_equal(buf, "on");
	assert_int_equal(obj_parse_val(p, buf, &v), 0);
	assert_int_equal(v, 1);
	obj_format_val(s, 1, buf, sizeof(buf));
	assert_string_equal(buf, "off");
	obj_format_val(obj_param(&et_coalesce, "tx-usecs"), 128, buf, sizeof(buf));
	assert_string_equal(buf, "128");
}

static void test_number_parsing(void **state)
{
	uint32_t u;
	uint64_t s;
	double r;

	assert_int_equal(parse_u32("4294967295", &u), 0);
	assert_int_equal(parse_u32("4294967296", &u), -ERANGE);
	assert_int_equal(parse_u32("12ab", &u), -EINVAL);
	assert_int_equal(parse_u32("", &u), -EINVAL);
	assert_int_equal(parse_u32(" 1", &u), -EINVAL);
	assert_int_equal(parse_size("64K", &s), 0);
	assert_int_equal(s, 65536);
	assert_int_equal(parse_size("4MiB", &s), 0);
	assert_int_equal(s, 4194304);
	assert_int_equal(parse_size("x", &s), -EINVAL);
	assert_int_equal(parse_rate("10G", &r), 0);
	assert_true(r == 10e9);
	assert_int_equal(parse_rate("100Mbit", &r), 0);
	assert_true(r == 100e6);
	assert_int_equal(parse_rate("fast", &r), -EINVAL);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_tables_unique),	 cmocka_unit_test(test_ethtool_keywords),
		cmocka_unit_test(test_parse_changes),	 cmocka_unit_test(test_ring_maximum),
		cmocka_unit_test(test_format_roundtrip), cmocka_unit_test(test_number_parsing),
	};

	return cmocka_run_group_tests_name("params", tests, NULL, NULL);
}
