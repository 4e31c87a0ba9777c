/* tune's pick: the objective rules, orphaning settings left out, the fallback that names one. */
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>
#include <cmocka.h>

#include "analysis/sweep.h"
#include "analysis/tune.h"

/* A setting measured in three passes with the given per-pass means (no RR, no txlat). */
static void point(struct coal_sweep *s, uint32_t val, double mbps, double mbpsc, double p99)
{
	struct coal_point *p = &s->p[s->n++];
	unsigned int i;

	memset(p, 0, sizeof(*p));
	p->val[0] = val;
	p->nrep = 3;
	for (i = 0; i < 3; i++) {
		/* a little spread so that Welch's test has a variance to work with */
		p->rep_mbps[i] = mbps * (1 + 0.01 * ((double)i - 1));
		p->rep_mbpsc[i] = mbpsc * (1 + 0.01 * ((double)i - 1));
		p->rep_p50[i] = NAN;
	}
	p->mbps = mbps;
	p->mbps_constrained = mbpsc;
	p->rr_p50_us = NAN;
	p->rr_p99_us = p99;
	p->irq_per_s = NAN;
	p->cpu_per_gbps = NAN;
	p->compl_p50_us = NAN;
	p->orphan_frac = NAN;
}

static struct coal_sweep sw;

static int setup(void **state)
{
	(void)state;
	memset(&sw, 0, sizeof(sw));
	sw.nparams = 1;
	strcpy(sw.param[0], "gro-flush-timeout");
	return 0;
}

/* Within 5% at both limits, the largest delay wins (no interrupt count: a software device). */
static void test_rule(void **state)
{
	unsigned int ex;
	bool fb;

	(void)state;
	point(&sw, 0, 1000, 900, NAN);
	point(&sw, 50000, 990, 890, NAN);
	point(&sw, 200000, 700, 500, NAN);
	assert_int_equal(tune_pick(&sw, tune_objective("throughput"), &ex, &fb), 1);
	assert_false(fb);
	assert_int_equal(ex, 0);
}

/* What the rule accepts is what the pick chooses from: the settings within 5% at both limits,
 * and the pick is the first of the least cost among them (profile merge intersects these). */
static void test_accept(void **state)
{
	bool ok[COAL_MAX_POINTS];
	unsigned int ex;
	bool fb;

	(void)state;
	point(&sw, 0, 1000, 900, NAN);
	point(&sw, 50000, 990, 890, NAN);
	point(&sw, 200000, 700, 500, NAN);
	assert_int_equal(tune_accept(&sw, tune_objective("throughput"), ok, &ex), 2);
	assert_true(ok[0] && ok[1] && !ok[2]);
	assert_int_equal(ex, 0);
	/* no interrupt count: the cost is the delay, the largest the cheapest */
	assert_true(tune_cost(&sw.p[1], tune_objective("throughput")) <
		    tune_cost(&sw.p[0], tune_objective("throughput")));
	assert_int_equal(tune_pick(&sw, tune_objective("throughput"), &ex, &fb), 1);
	/* counted interrupts are the cost where there are counts */
	sw.p[0].irq_per_s = 1000;
	sw.p[1].irq_per_s = 5000;
	assert_int_equal(tune_pick(&sw, tune_objective("throughput"), &ex, &fb), 0);
	assert_string_equal(tune_objective_name(tune_objective("latency")), "latency");
}

/* The CI case of newkernel.sh: one setting best at the current limit, the other at the
 * constrained one, each more than 10% behind on the other: no setting meets the rule, and the
 * pick is the one whose worse share is larger, said as a fallback. */
static void test_fallback(void **state)
{
	unsigned int ex;
	bool fb;

	(void)state;
	point(&sw, 0, 947, 1000, NAN);	   /* worse share 947/1074 = 0.88 */
	point(&sw, 50000, 1074, 800, NAN); /* worse share 0.80 */
	assert_int_equal(tune_pick(&sw, tune_objective("throughput"), &ex, &fb), 0);
	assert_true(fb);
	assert_int_equal(tune_pick(&sw, tune_objective("balanced"), &ex, &fb), 0);
	assert_true(fb);
}

/* balanced: a p99 beyond twice the best rules a setting out; in the fallback it weighs as its
 * share of the bound. */
static void test_balanced_p99(void **state)
{
	unsigned int ex;
	bool fb;

	(void)state;
	point(&sw, 0, 1000, 1000, 100);
	point(&sw, 50000, 1000, 1000, 300);
	assert_int_equal(tune_pick(&sw, tune_objective("balanced"), &ex, &fb), 0);
	assert_false(fb);
	assert_int_equal(tune_pick(&sw, tune_objective("throughput"), &ex, &fb), 1);
	assert_false(fb);
}

/* An orphaning setting is left out while another keeps skbs owned, also from the fallback. */
static void test_orphan_excluded(void **state)
{
	unsigned int ex;
	bool fb;

	(void)state;
	point(&sw, 0, 500, 400, NAN);
	point(&sw, 1, 2000, 2000, NAN);
	sw.p[1].orphan_frac = 0.99;
	assert_int_equal(tune_pick(&sw, tune_objective("throughput"), &ex, &fb), 0);
	assert_int_equal(ex, 1);
	assert_false(fb);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_setup(test_rule, setup),
		cmocka_unit_test_setup(test_fallback, setup),
		cmocka_unit_test_setup(test_accept, setup),
		cmocka_unit_test_setup(test_balanced_p99, setup),
		cmocka_unit_test_setup(test_orphan_excluded, setup),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
