/* Unit tests for the driver knowledge table: lookups, required facts, sources, output. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>
#include <cmocka.h>

#include "knowledge/drvdb.h"
#include "out/json_print.h"

static void test_lookup(void **state)
{
	static const char *const need[] = { "e1000e", "virtio_net", "mlx5_core", "mlx4_en", "ice",
					    "i40e",   "ixgbe",	    "bnxt_en",	 "ena",	    "gve",
					    "qeth",   "stmmac",	    "txsim",	 "veth" };
	unsigned int i;

	for (i = 0; i < sizeof(need) / sizeof(need[0]); i++)
		assert_non_null(drvdb_lookup(need[i]));
	assert_string_equal(drvdb_lookup("qeth_l3")->driver, "qeth");
	assert_string_equal(drvdb_lookup("st_gmac")->driver, "stmmac");
	assert_string_equal(drvdb_lookup("mlx5e")->driver, "mlx5_core");
	assert_null(drvdb_lookup("nosuchdrv"));
	assert_null(drvdb_lookup(NULL));
}

/* Every entry and fact carries a source; names are unique. */
static void test_sources(void **state)
{
	unsigned int i, j;

	assert_true(drvdb_count() >= 14);
	for (i = 0; i < drvdb_count(); i++) {
		const struct drv_info *d = drvdb_at(i);

		assert_non_null(d->summary);
		assert_non_null(d->readme);
		for (j = 0; j < d->n_params; j++) {
			assert_non_null(d->params[j].key);
			assert_non_null(d->params[j].role);
			assert_non_null(d->params[j].source);
		}
		for (j = 0; j < d->n_paths; j++) {
			assert_non_null(d->paths[j].what);
			assert_non_null(d->paths[j].remedy);
			assert_non_null(d->paths[j].source);
		}
		for (j = i + 1; j < drvdb_count(); j++)
			assert_string_not_equal(d->driver, drvdb_at(j)->driver);
	}
	assert_null(drvdb_at(drvdb_count()));
}

static void test_facts(void **state)
{
	const struct drv_info *d;

	d = drvdb_lookup("mlx4_en");
	assert_string_equal(drvdb_param(d, "tx-usecs")->dflt, "16 (was 128)");
	assert_non_null(strstr(drvdb_param(d, "tx-usecs")->source, "ecfd2ce1a9d5"));
	d = drvdb_lookup("mlx5_core");
	assert_string_equal(drvdb_param(d, "tx-usecs")->dflt, "16 (16 in CQE mode)");
	assert_string_equal(drvdb_param(d, "tx-frames")->dflt, "32");
	assert_non_null(strstr(drvdb_param(d, "cqe-mode-tx")->source, "48bfc39791b8"));
	d = drvdb_lookup("e1000e");
	assert_int_equal(d->completion, DRV_COMPL_SHARED);
	assert_non_null(strstr(drvdb_param(d, "tx-usecs")->role, "not supported"));
	d = drvdb_lookup("virtio_net");
	assert_non_null(strstr(drvdb_param(d, "tx-frames")->role, "orphan"));
	assert_non_null(strstr(drvdb_param(drvdb_lookup("ice"), "tx-usecs")->gran, "2 us"));
	assert_null(drvdb_param(d, "nope"));
	assert_string_equal(drvdb_completion_name(DRV_COMPL_NEXT_XMIT), "next-xmit");
}

/* One software-device test: by link kind, by driver name, by the knowledge entry. */
static void test_software(void **state)
{
	assert_int_equal(drvdb_software("veth", ""), DRV_SW_RECEIVER);
	assert_int_equal(drvdb_software("", "netkit"), DRV_SW_RECEIVER);
	assert_int_equal(drvdb_software(NULL, "loopback"), DRV_SW_RECEIVER);
	assert_int_equal(drvdb_software("tun", "tun"), DRV_SW_READER);
	assert_int_equal(drvdb_software("bridge", "bridge"), DRV_SW_LOWER);
	assert_int_equal(drvdb_software("", "macvlan"), DRV_SW_LOWER);
	assert_int_equal(drvdb_software("e1000e", ""), DRV_SW_NONE);
	assert_int_equal(drvdb_software("txsim", NULL), DRV_SW_NONE);
	assert_int_equal(drvdb_software(NULL, NULL), DRV_SW_NONE);
}

static void test_show_json(void **state)
{
	char buf[65536];
	FILE *f = fopen("/dev/null", "w");
	int fd_save;

	(void)f;
	fflush(stdout);
	fd_save = dup(1);
	assert_non_null(freopen("/tmp/ethtune-test-drvdb.json", "w", stdout));
	new_json_obj(1);
	drvdb_show("mlx4_en");
	drvdb_show("unknown0");
	delete_json_obj();
	fflush(stdout);
	dup2(fd_save, 1);
	f = fopen("/tmp/ethtune-test-drvdb.json", "r");
	assert_non_null(f);
	buf[fread(buf, 1, sizeof(buf) - 1, f)] = 0;
	fclose(f);
	unlink("/tmp/ethtune-test-drvdb.json");
	assert_non_null(strstr(buf, "\"driver-knowledge\""));
	assert_non_null(strstr(buf, "\"unknown0\""));
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_lookup),	  cmocka_unit_test(test_sources),
		cmocka_unit_test(test_facts),	  cmocka_unit_test(test_software),
		cmocka_unit_test(test_show_json),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
