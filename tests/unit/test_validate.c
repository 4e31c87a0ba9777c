/* validate's pure parts: --only/--skip lists, round-trip's values, the KTAP and JSON report. */
#include <errno.h>
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

#include "capture.h"

#include "analysis/validate.h"
#include "nl/devobj.h"

static void test_parse_list(void **state)
{
	unsigned int m;
	char err[300];

	(void)state;
	assert_int_equal(val_parse_list("round-trip", &m, err, sizeof(err)), 0);
	assert_int_equal(m, 1u << VC_ROUND_TRIP);
	assert_int_equal(val_parse_list("bql,counters,nothing-left", &m, err, sizeof(err)), 0);
	assert_int_equal(m, (1u << VC_BQL) | (1u << VC_COUNTERS) | (1u << VC_NOTHING_LEFT));
	/* a prefix, an empty name, a trailing comma and a misspelling are not names */
	assert_int_equal(val_parse_list("round", &m, err, sizeof(err)), -EINVAL);
	assert_string_equal(err, "unknown check 'round' (valid: round-trip,coalesce,tsq,ownership,"
				 "bql,counters,reconfig,gso,large-mtu,nothing-left)");
	assert_int_equal(val_parse_list("", &m, err, sizeof(err)), -EINVAL);
	assert_int_equal(val_parse_list("tsq,", &m, err, sizeof(err)), -EINVAL);
	assert_int_equal(val_parse_list("tsq,bql,TSQ", &m, err, sizeof(err)), -EINVAL);
	assert_non_null(strstr(err, "'TSQ'"));
	assert_string_equal(val_check_name(VC_NOTHING_LEFT), "nothing-left");
	assert_null(val_check_name(VC__N));
}

static void test_rt_values(void **state)
{
	const struct et_param *rx = obj_param(&et_channels, "rx");
	const struct et_param *us = obj_param(&et_coalesce, "tx-usecs");
	const struct et_param *ad = obj_param(&et_coalesce, "adaptive-tx");
	uint64_t v[2];

	(void)state;
	assert_non_null(rx);
	assert_non_null(us);
	assert_non_null(ad);
	/* veth's rx 2 of max 2: 1, then back to 2 */
	assert_int_equal(val_rt_values(rx, 2, true, 2, v), 2);
	assert_int_equal(v[0], 1);
	assert_int_equal(v[1], 2);
	/* at 1 of 8: the maximum, then the middle */
	assert_int_equal(val_rt_values(rx, 1, true, 8, v), 2);
	assert_int_equal(v[0], 8);
	assert_int_equal(v[1], 4);
	/* a maximum of 1 at 1: one value only; a maximum of 0: not settable */
	assert_int_equal(val_rt_values(rx, 1, true, 1, v), 0);
	assert_int_equal(val_rt_values(rx, 0, true, 0, v), 0);
	/* no maximum: twice and half the value, or 16 and 64 from 0 */
	assert_int_equal(val_rt_values(us, 50, false, 0, v), 2);
	assert_int_equal(v[0], 100);
	assert_int_equal(v[1], 25);
	assert_int_equal(val_rt_values(us, 0, false, 0, v), 2);
	assert_int_equal(v[0], 16);
	assert_int_equal(v[1], 64);
	/* a switch: the other position, then back */
	assert_int_equal(val_rt_values(ad, 1, false, 0, v), 2);
	assert_int_equal(v[0], 0);
	assert_int_equal(v[1], 1);
}

static struct val_report *sample(void)
{
	struct val_report *r = calloc(1, sizeof(*r));

	assert_non_null(r);
	snprintf(r->dev, sizeof(r->dev), "eth9");
	snprintf(r->driver, sizeof(r->driver), "txsim");
	snprintf(r->peer, sizeof(r->peer), "198.18.0.2");
	r->r[VC_ROUND_TRIP].ran = true;
	val_set(&r->r[VC_ROUND_TRIP], VR_PASS, "3 parameters");
	val_diag(&r->r[VC_ROUND_TRIP], "ring tx 256: set 4096 reads 4096; put back");
	r->r[VC_COALESCE].ran = true;
	val_set(&r->r[VC_COALESCE], VR_SKIP, "no TX completion knob known for driver txsim");
	r->r[VC_TSQ].ran = true;
	val_set(&r->r[VC_TSQ], VR_FAIL, "one flow below 90%% of the line rate");
	val_measured(&r->r[VC_TSQ], "one-flow-mbps", 412.5);
	val_measured(&r->r[VC_TSQ], "rounds", 6);
	val_measured(&r->r[VC_TSQ], "rounds", 7); /* the same key again replaces it */
	val_bound(&r->r[VC_TSQ], "min-one-flow-mbps", 846);
	r->r[VC_OWNERSHIP].ran = true;
	val_set(&r->r[VC_OWNERSHIP], VR_PASS, "orphaned");
	r->r[VC_OWNERSHIP].warn = true;
	val_count(r);
	return r;
}

struct capture_arg {
	const struct val_report *rep;
	bool json;
};

static void print_fn(void *a)
{
	const struct capture_arg *c = a;

	val_print(c->rep, c->json);
}

static char *capture(const struct val_report *rep, bool json)
{
	struct capture_arg c = { rep, json };

	return capture_stdout(print_fn, &c);
}

static void test_ktap(void **state)
{
	struct val_report *r = sample();
	char *s;

	(void)state;
	assert_int_equal(r->passed, 2);
	assert_int_equal(r->failed, 1);
	assert_int_equal(r->skipped, 1);
	s = capture(r, false);
	/* version first, the plan counts the selected checks, numbered in order */
	assert_int_equal(
		strncmp(s,
			"KTAP version 1\n# ethtune validate eth9 (driver txsim) via "
			"198.18.0.2\n1..4\n",
			strlen("KTAP version 1\n# ethtune validate eth9 (driver txsim) via "
			       "198.18.0.2\n1..4\n")),
		0);
	assert_non_null(strstr(s, "# round-trip: ring tx 256: set 4096 reads 4096; put back\n"
				  "# round-trip: 3 parameters\nok 1 round-trip\n"));
	assert_non_null(strstr(s, "\nok 2 coalesce # SKIP no TX completion knob known for driver "
				  "txsim\n"));
	assert_non_null(strstr(s, "# tsq: FAIL: one flow below 90% of the line rate\n"
				  "# tsq: measured one-flow-mbps 412.5, rounds 7\n"
				  "# tsq: bound min-one-flow-mbps 846\nnot ok 3 tsq\n"));
	assert_non_null(strstr(s, "# ownership: WARNING: orphaned\nok 4 ownership\n"));
	assert_non_null(strstr(s, "# 2 passed, 1 failed, 1 skipped"));
	assert_null(strstr(s, "counters"));
	free(s);
	free(r);
}

static void test_json(void **state)
{
	struct val_report *r = sample();
	char *s;

	(void)state;
	s = capture(r, true);
	assert_non_null(strstr(s, "\"schema-version\": 1"));
	assert_non_null(strstr(s, "\"name\": \"tsq\""));
	assert_non_null(strstr(s, "\"result\": \"fail\""));
	assert_non_null(strstr(s, "\"result\": \"skip\""));
	assert_non_null(strstr(s, "\"min-one-flow-mbps\": 846"));
	assert_non_null(strstr(s, "\"warning\": true"));
	assert_null(strstr(s, "KTAP"));
	free(s);
	free(r);
}

/* coalesce's verdict from what txsim showed in the lab guest (docs/validate.md). */
static struct val_coal coal(const double *p50, const double *lo, const double *hi)
{
	struct val_coal m = { .n = VAL_COAL_POINTS, .floor_us = 75 };
	const double got[VAL_COAL_POINTS] = { 0, 25, 100, 400 };
	unsigned int i;

	for (i = 0; i < VAL_COAL_POINTS; i++) {
		m.got[i] = got[i];
		m.p50[i] = p50[i];
		m.lo[i] = lo[i];
		m.hi[i] = hi[i];
		m.ser_us[i] = 0.5;
	}
	return m;
}

static void test_coal_judge(void **state)
{
	/* normal: a ~340 us path, 400 us stands ~340 us above the rest */
	const double p50[] = { 335.9, 352.3, 368.6, 671.7 }, lo[] = { 311.3, 311.3, 311.3, 622.6 },
		     hi[] = { 376.8, 393.2, 409.6, 720.9 };
	/* complete-on-next-xmit: ~8 ms at every setting */
	const double np50[] = { 7995.4, 7733.2, 8650.8, 8650.8 },
		     nlo[] = { 7602.2, 7340.0, 7864.3, 7864.3 },
		     nhi[] = { 8388.6, 8388.6, 9437.2, 9437.2 };
	/* a knob that adds far more than itself: 2 ms at 25 us */
	const double lp50[] = { 335.9, 2000, 2100, 2500 }, llo[] = { 311.3, 1900, 2000, 2400 },
		     lhi[] = { 376.8, 2100, 2200, 2600 };
	/* the baseline's interval is wide, the smallest setting's narrow: growth from the lowest */
	const double wp50[] = { 516.1, 352.3, 303.1, 639.0 },
		     wlo[] = { 344.1, 294.9, 278.5, 622.6 }, whi[] = { 688.1, 426.0, 327.7, 655.4 };
	struct val_res r;
	struct val_coal m;
	unsigned int i;

	(void)state;
	memset(&r, 0, sizeof(r));
	m = coal(p50, lo, hi);
	m.rtt_us = 5600;
	val_coal_judge(&m, "tx-usecs", &r);
	assert_int_equal(r.res, VR_PASS);
	for (i = 0; i < r.nbound && strcmp(r.bound[i].key, "max-at-400-us"); i++)
		;
	assert_true(i < r.nbound);
	/* the baseline's upper end + the setting + floor + serialization */
	assert_true(fabs(r.bound[i].v - (376.8 + 400 + 75 + 0.5)) < 1e-9);

	memset(&r, 0, sizeof(r));
	m = coal(np50, nlo, nhi);
	val_coal_judge(&m, "tx-usecs", &r);
	assert_int_equal(r.res, VR_FAIL);
	assert_non_null(strstr(r.reason, "does not govern completion"));
	assert_non_null(strstr(r.reason, "overlap"));
	/* next-xmit again, noise making 400 us look grown; the round trip (2.5 ms each way)
	 * comes before the completion at 0 */
	{
		const double gp50[] = { 11272.2, 7471.1, 7733.2, 7995.4 },
			     glo[] = { 9437.2, 6815.7, 7340.0, 7864.3 },
			     ghi[] = { 12582.9, 7602.2, 8126.5, 8388.6 };

		memset(&r, 0, sizeof(r));
		m = coal(gp50, glo, ghi);
		val_coal_judge(&m, "tx-usecs", &r);
		assert_int_equal(r.res, VR_PASS); /* without the round trip it cannot tell */
		memset(&r, 0, sizeof(r));
		m.rtt_us = 5600;
		val_coal_judge(&m, "tx-usecs", &r);
		assert_int_equal(r.res, VR_FAIL);
		assert_non_null(strstr(r.reason, "comes after the round trip's 5600 us"));
	}

	memset(&r, 0, sizeof(r));
	m = coal(lp50, llo, lhi);
	val_coal_judge(&m, "tx-usecs", &r);
	assert_int_equal(r.res, VR_FAIL);
	assert_non_null(strstr(r.reason, "at 3 of 3 settings"));

	memset(&r, 0, sizeof(r));
	m = coal(wp50, wlo, whi);
	val_coal_judge(&m, "tx-usecs", &r);
	assert_int_equal(r.res, VR_PASS);
	assert_non_null(strstr(r.reason, "from tx-usecs 100 to 400"));
}

/* A phase of gso: n skbs of len bytes and segs segments each, the device counting dev_per
 * of them as one packet (1: super-packets, segs: wire packets). */
static struct val_gso_phase gso_ph(enum val_gso_lowered low, uint64_t size_limit,
				   uint64_t segs_limit, uint64_t n, uint64_t len, uint64_t segs,
				   uint64_t dev_per)
{
	struct val_gso_phase p = { .lowered = low,
				   .size_limit = size_limit,
				   .segs_limit = segs_limit };

	snprintf(p.what, sizeof(p.what), "phase %d", (int)low);
	p.skbs = n;
	p.gso = segs > 1 ? n : 0;
	p.segs = n * segs;
	p.bytes = n * len;
	p.max_len = len;
	p.max_segs = segs;
	p.dev_pkts = n * dev_per;
	p.dev_bytes = n * len + n * (dev_per - 1) * 66; /* wire bytes carry replicated headers */
	return p;
}

static void test_gso_judge(void **state)
{
	struct val_res r;
	struct val_gso m;

	(void)state;
	/* within the limits, both lowered limits reached, wire packets counted */
	memset(&r, 0, sizeof(r));
	m = (struct val_gso){ 3,
			      { gso_ph(VAL_GSO_NONE, 65536, 65535, 1000, 64074, 44, 44),
				gso_ph(VAL_GSO_SIZE, 16384, 65535, 4000, 15994, 11, 11),
				gso_ph(VAL_GSO_SEGS_LOWERED, 65536, 4, 9000, 5858, 4, 4) } };
	val_gso_judge(&m, &r);
	assert_int_equal(r.res, VR_PASS);
	assert_non_null(strstr(r.reason, "2 of 2 lowered limits reached"));
	assert_non_null(strstr(r.reason, "counted as wire packets"));

	/* a device counting super-packets (veth, virtio_net) passes too, and says so */
	memset(&r, 0, sizeof(r));
	m.p[0] = gso_ph(VAL_GSO_NONE, 65536, 65535, 1000, 64074, 44, 1);
	m.p[1] = gso_ph(VAL_GSO_SIZE, 16384, 65535, 4000, 15994, 11, 1);
	m.p[2] = gso_ph(VAL_GSO_SEGS_LOWERED, 65536, 4, 9000, 5858, 4, 1);
	val_gso_judge(&m, &r);
	assert_int_equal(r.res, VR_PASS);
	assert_non_null(strstr(r.reason, "counted as super-packets"));

	/* an skb above the lowered size */
	memset(&r, 0, sizeof(r));
	m.p[1] = gso_ph(VAL_GSO_SIZE, 16384, 65535, 4000, 20000, 14, 1);
	val_gso_judge(&m, &r);
	assert_int_equal(r.res, VR_FAIL);
	assert_non_null(strstr(r.reason, "an skb of 20000 bytes reached the driver, above 16384"));

	/* more segments than gso-max-segs */
	memset(&r, 0, sizeof(r));
	m.p[1] = gso_ph(VAL_GSO_SIZE, 16384, 65535, 4000, 15994, 11, 1);
	m.p[2] = gso_ph(VAL_GSO_SEGS_LOWERED, 65536, 4, 9000, 8754, 6, 1);
	val_gso_judge(&m, &r);
	assert_int_equal(r.res, VR_FAIL);
	assert_non_null(strstr(r.reason, "6 segments"));

	/* counted as neither: half the wire packets */
	memset(&r, 0, sizeof(r));
	m.p[2] = gso_ph(VAL_GSO_SEGS_LOWERED, 65536, 4, 9000, 5858, 4, 1);
	m.p[0].dev_pkts = 1000 * 22;
	val_gso_judge(&m, &r);
	assert_int_equal(r.res, VR_FAIL);
	assert_non_null(strstr(r.reason, "22000 packets"));

	/* wire packets in one flow, super-packets in another */
	memset(&r, 0, sizeof(r));
	m.p[0] = gso_ph(VAL_GSO_NONE, 65536, 65535, 1000, 64074, 44, 44);
	val_gso_judge(&m, &r);
	assert_int_equal(r.res, VR_FAIL);
	assert_non_null(strstr(r.reason, "wire packets in one flow and super-packets"));

	/* no lowered limit reached: inconclusive, not a pass */
	memset(&r, 0, sizeof(r));
	m.p[0] = gso_ph(VAL_GSO_NONE, 65536, 65535, 1000, 5858, 4, 1);
	m.p[1] = gso_ph(VAL_GSO_SIZE, 16384, 65535, 4000, 5858, 4, 1);
	m.p[2] = gso_ph(VAL_GSO_SEGS_LOWERED, 65536, 4, 9000, 2962, 2, 1);
	val_gso_judge(&m, &r);
	assert_int_equal(r.res, VR_SKIP);
	assert_non_null(strstr(r.reason, "inconclusive"));

	/* no super-packet reaches the driver */
	memset(&r, 0, sizeof(r));
	m.n = 1;
	m.p[0] = gso_ph(VAL_GSO_NONE, 65536, 65535, 1000, 1514, 1, 1);
	val_gso_judge(&m, &r);
	assert_int_equal(r.res, VR_SKIP);
	assert_non_null(strstr(r.reason, "TSO off?"));
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_parse_list), cmocka_unit_test(test_rt_values),
		cmocka_unit_test(test_ktap),	   cmocka_unit_test(test_json),
		cmocka_unit_test(test_coal_judge), cmocka_unit_test(test_gso_judge),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
