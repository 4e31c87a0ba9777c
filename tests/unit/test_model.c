/* Unit tests for the TSQ throughput model: mlx4 2012 case, regimes, stop-and-wait fit. */
#include <errno.h>
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <cmocka.h>

#include <fcntl.h>
#include <stdio.h>
#include <unistd.h>

#include "cli/commands.h"
#include "analysis/model.h"

static void mlx4_in(struct model_in *in, double usecs)
{
	model_defaults(in);
	in->rate_bps = 10e9;
	in->tsq = 131072;
	in->tx_usecs = usecs;
}

/* ecfd2ce1a9d5: 128 us coalescing capped one flow to ~4 Gbit/s; 16 us restored it. */
static void test_mlx4_case(void **state)
{
	struct model_in in;
	struct model_out o;
	double max_us;

	mlx4_in(&in, 128);
	assert_int_equal(model_predict(&in, &o), 0);
	assert_int_equal(o.mss, 1448);
	assert_int_equal(o.segs, 45);
	assert_int_equal(o.skbs_in_flight, 2);
	assert_true(o.tput_bps > 3.6e9 && o.tput_bps < 4.8e9);
	assert_false(o.stalled);

	mlx4_in(&in, 16);
	assert_int_equal(model_predict(&in, &o), 0);
	assert_true(o.frac >= 0.95);

	mlx4_in(&in, 128);
	max_us = model_max_tx_usecs(&in, 0.95);
	assert_true(max_us >= 16 && max_us < 128);
}

static void test_monotone_in_delay(void **state)
{
	struct model_in in;
	struct model_out o;
	double prev = INFINITY, us;

	for (us = 0; us <= 2000; us += 25) {
		mlx4_in(&in, us);
		assert_int_equal(model_predict(&in, &o), 0);
		assert_true(o.tput_bps <= prev * 1.0001);
		prev = o.tput_bps;
	}
	mlx4_in(&in, 0);
	model_predict(&in, &o);
	assert_true(o.frac > 0.99);
}

/* ACKs back before completions: the one-skb exception keeps the flow at line rate. */
static void test_one_skb_exception(void **state)
{
	struct model_in in;
	struct model_out o;

	mlx4_in(&in, 500);
	in.rtt_us = 10;
	assert_int_equal(model_predict(&in, &o), 0);
	assert_true(o.frac > 0.95);
	in.one_skb_exception = false;
	assert_int_equal(model_predict(&in, &o), 0);
	assert_true(o.frac < 0.3);
	/* A long RTT leaves TSQ in charge again. */
	in.one_skb_exception = true;
	in.rtt_us = 5000;
	assert_int_equal(model_predict(&in, &o), 0);
	assert_true(o.frac < 0.3);
}

static void test_limit_eras(void **state)
{
	struct model_in in;
	struct model_out o;

	mlx4_in(&in, 128);
	in.tsq = 16 << 20;
	assert_int_equal(model_derive(&in, &o), 0);
	/* v3.19+: min(max(2*truesize, pacing >> 10), sysctl); pacing = 10G -> 1220703 B */
	assert_int_equal(o.limit, 1220703);
	in.pacing_bps = -1;
	assert_int_equal(model_derive(&in, &o), 0);
	assert_int_equal(o.limit, 16 << 20);
	in.tsq = 1024;
	in.pacing_bps = 0;
	assert_int_equal(model_derive(&in, &o), 0);
	assert_int_equal(o.limit, 1024);
	assert_int_equal(o.skbs_in_flight, 1);
	in.mtu = 100;
	assert_int_equal(model_derive(&in, &o), -EINVAL);
}

static void test_min_tsq(void **state)
{
	struct model_in in;
	uint64_t l;

	mlx4_in(&in, 128);
	in.pacing_bps = -1;
	l = model_min_tsq(&in, 0.95);
	/* stop-and-wait rule of thumb: 19 * R * D / 8 ~ 3.2 MB */
	assert_true(l > 2000000 && l < 4500000);
	in.pacing_bps = 0; /* the pacing term caps the limit at ~1.2 MB */
	assert_int_equal(model_min_tsq(&in, 0.95), 0);
}

static void test_next_xmit_stall(void **state)
{
	struct model_in in;
	struct model_out o;

	mlx4_in(&in, 0);
	in.timer = MODEL_TIMER_NEXT_XMIT;
	assert_int_equal(model_predict(&in, &o), 0);
	assert_true(o.stalled);
	assert_true(o.tput_bps < 50e6);
	in.tx_usecs = 10; /* a fallback timer rescues it */
	assert_int_equal(model_predict(&in, &o), 0);
	assert_false(o.stalled);
	assert_true(o.frac > 0.9);
}

static void test_timer_names(void **state)
{
	enum model_timer t;

	assert_int_equal(model_timer_parse("eqe", &t), 0);
	assert_int_equal(t, MODEL_TIMER_EQE);
	assert_int_equal(model_timer_parse("cqe", &t), 0);
	assert_int_equal(t, MODEL_TIMER_RESTART);
	assert_int_equal(model_timer_parse("bogus", &t), -EINVAL);
	assert_string_equal(model_timer_name(MODEL_TIMER_NEXT_XMIT), "next-xmit");
}

static void test_kernel_eras(void **state)
{
	struct model_in in;
	struct model_out o;

	mlx4_in(&in, 128);
	assert_int_equal(model_set_kernel(&in, "3.6.11", false), 0);
	assert_true(in.pacing_bps < 0);
	assert_false(in.one_skb_exception);
	assert_int_equal(model_predict(&in, &o), 0);
	assert_true(o.tput_bps > 3.6e9 && o.tput_bps < 4.8e9); /* the 2012 report */

	mlx4_in(&in, 128);
	assert_int_equal(model_set_kernel(&in, "2.6.32", false), 0); /* before TSQ */
	assert_int_equal(model_predict(&in, &o), 0);
	assert_true(o.frac > 0.99);

	mlx4_in(&in, 128);
	in.rtt_us = 20;
	assert_int_equal(model_set_kernel(&in, "5.10.0-20-amd64", false), 0);
	assert_true(in.one_skb_exception);
	assert_int_equal(in.exception_skbs, 0);
	assert_int_equal(model_predict(&in, &o), 0);
	{
		double x510 = o.tput_bps;

		assert_int_equal(model_set_kernel(&in, "6.8", false), 0);
		assert_int_equal(in.exception_skbs, 1);
		assert_int_equal(model_predict(&in, &o), 0);
		assert_true(o.tput_bps > x510); /* one skb more per ACK */
	}

	mlx4_in(&in, 128);
	assert_int_equal(model_set_kernel(&in, "6.1", true), 0); /* bbr/fq ignore the sysctl */
	assert_int_equal(model_derive(&in, &o), 0);
	assert_true(o.limit > 1000000);
	mlx4_in(&in, 128);
	assert_int_equal(model_set_kernel(&in, "6.16", true), 0);
	assert_int_equal(model_derive(&in, &o), 0);
	assert_int_equal(o.limit, 131072);
	assert_int_equal(model_set_kernel(&in, "six", false), -EINVAL);
	assert_int_equal(model_set_kernel(&in, NULL, false), -EINVAL);
}

/* A device as diagnose and validate read it: unknowns keep the defaults, and the timer follows
 * CQE mode and next-xmit reaping. */
static void test_from_dev(void **state)
{
	struct model_dev d = {
		.rate_mbps = 25000, .tsq = 65536, .mtu = 400, .gso_max_size = 131072
	};
	struct model_in in, ref;
	struct model_out o;

	model_from_dev(&in, &d);
	assert_true(in.rate_bps == 25e9);
	assert_int_equal(in.tsq, 65536);
	assert_int_equal(in.mtu, 1500);	      /* below IPv4's minimum: unknown */
	assert_int_equal(in.gso_size, 65536); /* BIG TCP: the classic skb */
	assert_true(in.rtt_us < 0);
	assert_int_equal(in.timer, MODEL_TIMER_FIRST);

	d.mtu = 9000;
	d.gso_max_size = 16384;
	d.rtt_us = 30;
	d.cqe_tx = true;
	model_from_dev(&in, &d);
	assert_int_equal(in.mtu, 9000);
	assert_int_equal(in.gso_size, 16384);
	assert_true(in.rtt_us == 30);
	assert_int_equal(in.timer, MODEL_TIMER_RESTART);
	d.next_xmit = true;
	model_from_dev(&in, &d);
	assert_int_equal(in.timer, MODEL_TIMER_NEXT_XMIT);

	/* the kernel's rules as model_set_kernel() gives them, the paced flag passed on */
	d.release = "6.1.0-13-amd64";
	d.paced = true;
	model_from_dev(&in, &d);
	ref = in;
	assert_int_equal(model_set_kernel(&ref, "6.1.0-13-amd64", true), 0);
	assert_int_equal(in.exception_skbs, ref.exception_skbs);
	assert_true(in.pacing_bps == ref.pacing_bps);
	assert_int_equal(model_derive(&in, &o), 0);
	assert_true(o.limit > 65536); /* paced before 6.16: the 64 KiB sysctl is ignored */
}

static void test_window(void **state)
{
	/* 128 KiB, 66184 B skbs: two skbs in flight, as model_derive() says */
	assert_true(model_window(131072, 66184, 10e9) == 2 * 66184.0);
	/* a sysctl below one skb still lets one skb out (the check precedes the charge) */
	assert_true(model_window(1024, 66184, 10e9) == 66184.0);
	/* pacing cap: 10G -> 1220703 B, however large the sysctl */
	assert_true(model_window(64 << 20, 66184, 10e9) == model_window(1220703, 66184, 10e9));
	/* v3.6: the sysctl alone */
	assert_true(model_window(64 << 20, 66184, 0) > 60e6);
	assert_true(model_window(0, 66184, 0) == 0);
}

static void test_sw_and_knee(void **state)
{
	double R = 9.4e9, D = 150e-6, rho = 0.98, k = model_knee(R, D, rho, 0.95);

	assert_true(fabs(model_sw(k, rho, R, D) / R - 0.95) < 1e-9);
	assert_true(model_sw(1e12, rho, R, D) / R > 0.999);
	assert_true(fabs(model_sw(65536, rho, R, 0) - R) < 1);
	assert_true(model_sw(0, rho, R, D) == 0);
}

static double gauss(unsigned int *seed)
{
	double u1 = (rand_r(seed) + 1.0) / (RAND_MAX + 2.0), u2 = rand_r(seed) / (RAND_MAX + 1.0);

	return sqrt(-2 * log(u1)) * cos(2 * M_PI * u2);
}

static void synth(double R, double D, double rho, double noise, unsigned int seed, double *L,
		  double *X, unsigned int *n)
{
	double l;

	*n = 0;
	for (l = 2048; l <= 16 << 20; l *= 1.6) {
		L[*n] = l;
		X[*n] = model_sw(l, rho, R, D) * (1 + noise * gauss(&seed));
		(*n)++;
	}
}

static void test_fit_exact(void **state)
{
	double L[64], X[64];
	unsigned int n;
	struct model_fit f;

	synth(9.4e9, 150e-6, 0.98, 0, 1, L, X, &n);
	assert_int_equal(model_fit(L, X, n, 0.98, 0, 0.95, 1, &f), 0);
	assert_true(fabs(f.R / 9.4e9 - 1) < 0.005);
	assert_true(fabs(f.D / 150e-6 - 1) < 0.01);
	assert_true(fabs(f.knee / model_knee(9.4e9, 150e-6, 0.98, 0.95) - 1) < 0.02);
	assert_true(f.rmse < 1e6);
}

static void test_fit_noisy(void **state)
{
	static const double Rs[] = { 9.4e9, 940e6, 25e9 }, Ds[] = { 150e-6, 2e-3, 30e-6 };
	double L[64], X[64];
	unsigned int n, i, covered = 0;
	struct model_fit f;

	for (i = 0; i < 3; i++) {
		synth(Rs[i], Ds[i], 0.97, 0.03, 7 + i, L, X, &n);
		assert_int_equal(model_fit(L, X, n, 0.97, 200, 0.95, 42, &f), 0);
		assert_true(fabs(f.R / Rs[i] - 1) < 0.05);
		assert_true(fabs(f.D / Ds[i] - 1) < 0.25);
		assert_true(f.D_lo <= f.D && f.D <= f.D_hi && f.D_lo < f.D_hi);
		assert_true(f.R_lo <= f.R && f.R <= f.R_hi);
		covered += f.D_lo <= Ds[i] && Ds[i] <= f.D_hi;
		assert_int_equal(f.nboot, 200);
	}
	assert_true(covered >= 2);
}

/* A prompt device: flat curve, D ~ 0. */
static void test_fit_flat(void **state)
{
	double L[] = { 4096, 16384, 65536, 262144, 1048576 },
	       X[] = { 9.4e9, 9.41e9, 9.39e9, 9.4e9, 9.4e9 };
	struct model_fit f;

	assert_int_equal(model_fit(L, X, 5, 0.98, 50, 0.95, 3, &f), 0);
	assert_true(f.D < 2e-6);
	assert_true(fabs(f.R / 9.4e9 - 1) < 0.01);
}

static void test_fit_bad_input(void **state)
{
	double L[] = { 1, 2, 3 }, X[] = { 1, 2, 3 }, Xn[] = { 1, NAN, 3 };
	struct model_fit f;

	assert_int_equal(model_fit(L, X, 2, 0.98, 0, 0.95, 0, &f), -EINVAL);
	assert_int_equal(model_fit(L, X, 3, 0, 0, 0.95, 0, &f), -EINVAL);
	assert_int_equal(model_fit(L, Xn, 3, 0.9, 0, 0.95, 0, &f), -EINVAL);
	assert_int_equal(model_fit(NULL, X, 3, 0.9, 0, 0.95, 0, &f), -EINVAL);
}

/* Run `ethtune model ARGS` with its output discarded; returns its exit code. */
static int run_model(const char *const *args)
{
	char *argv[32];
	int argc = 0, fd, saved, saved2, rc;

	argv[argc++] = "model";
	while (*args && argc < 31)
		argv[argc++] = (char *)*args++;
	argv[argc] = NULL;
	fflush(stdout);
	fflush(stderr);
	saved = dup(1);
	saved2 = dup(2);
	fd = open("/dev/null", O_WRONLY);
	dup2(fd, 1);
	dup2(fd, 2);
	close(fd);
	rc = cmd_model(argc, argv);
	fflush(stdout);
	fflush(stderr);
	dup2(saved, 1);
	dup2(saved2, 2);
	close(saved);
	close(saved2);
	return rc;
}

static void test_cli(void **state)
{
	static const char *const ok1[] = { "--rate",	 "10G", "--tsq", "131072",
					   "--tx-usecs", "128", NULL };
	static const char *const ok2[] = { "--rate",	 "25Gbit", "--tsq",    "1M",
					   "--tx-usecs", "50",	   "--mtu",    "9000",
					   "--gso-size", "65536",  "--rtt",    "40",
					   "--timer",	 "eqe",	   "--pacing", "off",
					   NULL };
	static const char *const no_tsq[] = { "--tx-usecs", "1", NULL };
	static const char *const bad_rate[] = { "--rate",     "fast", "--tsq", "1",
						"--tx-usecs", "1",    NULL };
	static const char *const bad_timer[] = { "--tsq",   "1", "--tx-usecs", "1",
						 "--timer", "x", NULL };
	static const char *const bad_opt[] = {
		"--tsq", "1", "--tx-usecs", "1", "--bogus", "1", NULL
	};
	static const char *const bad_mtu[] = { "--tsq", "1K",  "--tx-usecs", "1",
					       "--mtu", "100", NULL };
	static const char *const neg[] = { "--tsq", "1K", "--tx-usecs", "-5", NULL };
	static const char *const novalue[] = { "--tsq", NULL };

	assert_int_equal(run_model(ok1), 0);
	assert_int_equal(run_model(ok2), 0);
	assert_int_equal(run_model(no_tsq), 2);
	assert_int_equal(run_model(bad_rate), 2);
	assert_int_equal(run_model(bad_timer), 2);
	assert_int_equal(run_model(bad_opt), 2);
	assert_int_equal(run_model(bad_mtu), 2);
	assert_int_equal(run_model(neg), 2);
	assert_int_equal(run_model(novalue), 2);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_mlx4_case),
		cmocka_unit_test(test_monotone_in_delay),
		cmocka_unit_test(test_one_skb_exception),
		cmocka_unit_test(test_limit_eras),
		cmocka_unit_test(test_min_tsq),
		cmocka_unit_test(test_next_xmit_stall),
		cmocka_unit_test(test_timer_names),
		cmocka_unit_test(test_sw_and_knee),
		cmocka_unit_test(test_fit_exact),
		cmocka_unit_test(test_fit_noisy),
		cmocka_unit_test(test_fit_flat),
		cmocka_unit_test(test_fit_bad_input),
		cmocka_unit_test(test_cli),
		cmocka_unit_test(test_window),
		cmocka_unit_test(test_kernel_eras),
		cmocka_unit_test(test_from_dev),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
