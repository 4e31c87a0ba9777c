/* Unit tests of drivers/mlx5: mlx5dv report (text and JSON), dv selection, show extras from a
 * sysfs fixture and the verbs backend table, with link-time seams for libibverbs/libmlx5. */
// clang-format off
// NEEDS: rdma
// LDFLAGS: -Wl,--wrap=ibv_get_device_list,--wrap=ibv_free_device_list,--wrap=ibv_get_device_name,--wrap=mlx5dv_is_supported,--wrap=mlx5dv_query_device,--wrap=mlx5_read_pflags
// clang-format on
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <sys/stat.h>
#include <cmocka.h>

#include "capture.h"
#include <jansson.h>
#include <infiniband/mlx5dv.h>

#include "util/ethtune.h"
#include "out/json_print.h"
#include "probe/rdma.h"

static struct ibv_device dev_mlx5, dev_rxe;
static struct ibv_device *dev_list[] = { &dev_mlx5, &dev_rxe, NULL };
static int freed;
static int query_ret;
static struct mlx5dv_context dv_answer;
static struct mlx5_pflags pf_answer;
static int pf_ret;

struct ibv_device **__wrap_ibv_get_device_list(int *n)
{
	*n = 2;
	return dev_list;
}
void __wrap_ibv_free_device_list(struct ibv_device **l)
{
	freed++;
}
const char *__wrap_ibv_get_device_name(struct ibv_device *d)
{
	return d->name;
}
bool __wrap_mlx5dv_is_supported(struct ibv_device *d)
{
	return d == &dev_mlx5;
}
int __wrap_mlx5dv_query_device(struct ibv_context *c, struct mlx5dv_context *dv)
{
	if (query_ret)
		return query_ret; /* libmlx5 returns a positive errno */
	*dv = dv_answer;
	return 0;
}
int __wrap_mlx5_read_pflags(const char *netdev, struct mlx5_pflags *pf)
{
	*pf = pf_answer;
	return pf_ret;
}

static void full_answer(void)
{
	memset(&dv_answer, 0, sizeof(dv_answer));
	dv_answer.version = 1;
	dv_answer.flags = MLX5DV_CONTEXT_FLAGS_CQE_V1 | MLX5DV_CONTEXT_FLAGS_CQE_128B_COMP |
			  MLX5DV_CONTEXT_FLAGS_REAL_TIME_TS;
	dv_answer.comp_mask = MLX5DV_CONTEXT_MASK_CQE_COMPRESION | MLX5DV_CONTEXT_MASK_SWP |
			      MLX5DV_CONTEXT_MASK_TUNNEL_OFFLOADS |
			      MLX5DV_CONTEXT_MASK_NUM_LAG_PORTS;
	dv_answer.cqe_comp_caps.max_num = 0; /* compression not offered */
	dv_answer.sw_parsing_caps.sw_parsing_offloads = MLX5DV_SW_PARSING | MLX5DV_SW_PARSING_LSO;
	dv_answer.tunnel_offloads_caps = MLX5DV_RAW_PACKET_CAP_TUNNELED_OFFLOAD_VXLAN |
					 MLX5DV_RAW_PACKET_CAP_TUNNELED_OFFLOAD_GENEVE;
	dv_answer.num_lag_ports = 2;
}

static void show_caps_json(void *arg)
{
	int *ret = arg;

	new_json_obj(1);
	*ret = mlx5dv_ops.show_caps((struct ibv_context *)&dev_mlx5);
	delete_json_obj();
}

static void show_caps_text(void *arg)
{
	int *ret = arg;

	new_json_obj(0);
	*ret = mlx5dv_ops.show_caps((struct ibv_context *)&dev_mlx5);
}

static void test_report_json(void **state)
{
	json_t *j, *dv;
	char *out;
	int ret = -1;

	full_answer();
	query_ret = 0;
	out = capture_stdout(show_caps_json, &ret);
	assert_int_equal(ret, 0);
	j = json_loads(out, 0, NULL);
	assert_non_null(j);
	dv = json_object_get(j, "mlx5dv");
	assert_int_equal(json_integer_value(json_object_get(dv, "cqe-version")), 1);
	assert_true(json_is_false(json_object_get(dv, "cqe-compression")));
	assert_int_equal(json_array_size(json_object_get(dv, "cqe-compression-formats")), 0);
	assert_int_equal(json_array_size(json_object_get(dv, "flags")), 3);
	assert_string_equal(json_string_value(json_array_get(json_object_get(dv, "flags"), 1)),
			    "cqe-128b-comp");
	assert_string_equal(json_string_value(json_array_get(json_object_get(dv, "sw-parsing"), 1)),
			    "lso");
	assert_string_equal(
		json_string_value(json_array_get(json_object_get(dv, "tunnel-offloads"), 1)),
		"geneve");
	assert_int_equal(json_integer_value(json_object_get(dv, "num-lag-ports")), 2);
	assert_null(json_object_get(dv, "striding-rq")); /* not in comp_mask: absent */
	json_decref(j);
	free(out);
}

static void test_report_text(void **state)
{
	char *out;
	int ret = -1;

	full_answer();
	query_ret = 0;
	out = capture_stdout(show_caps_text, &ret);
	assert_int_equal(ret, 0);
	assert_non_null(strstr(out, "mlx5dv:\n"));
	assert_non_null(strstr(out, "  cqe-version: 1\n"));
	assert_non_null(strstr(out, "  flags: cqe-v1 cqe-128b-comp real-time-ts\n"));
	assert_non_null(strstr(out, "  cqe-compression: false\n"));
	assert_non_null(strstr(out, "  cqe-compression-formats: none\n"));
	assert_non_null(strstr(out, "  striding-rq: n/a\n"));
	assert_non_null(strstr(out, "  tunnel-offloads: vxlan geneve\n"));
	free(out);

	/* CQE version 0 devices (ConnectX-4 before CQE v1 firmware) */
	dv_answer.flags = 0;
	out = capture_stdout(show_caps_text, &ret);
	assert_non_null(strstr(out, "  cqe-version: 0\n"));
	assert_non_null(strstr(out, "  flags: none\n"));
	free(out);
}

static void test_query_error(void **state)
{
	char *out;
	int ret = 0;

	query_ret = EOPNOTSUPP;
	out = capture_stdout(show_caps_json, &ret);
	assert_int_equal(ret, -EOPNOTSUPP);
	free(out);
	query_ret = 0;
}

static void test_dv_for_and_backend(void **state)
{
	const struct rdma_ops *ops = rdma_backend();
	struct ibv_device **l;
	int n = 0;

	assert_ptr_equal(rdma_dv_for(&dev_mlx5), &mlx5dv_ops);
	assert_null(rdma_dv_for(&dev_rxe));
	/* every member the tool calls is present in the real table */
	assert_non_null(ops->get_device_list);
	assert_non_null(ops->query_device_ex);
	assert_non_null(ops->query_gid_ex);
	assert_non_null(ops->modify_cq);
	assert_non_null(ops->get_cq_event);
	l = ops->get_device_list(&n);
	assert_int_equal(n, 2);
	assert_string_equal(ops->get_device_name(l[1]), "rxe0");
	ops->free_device_list(l);
	assert_int_equal(freed, 1);
}

/* A sysfs fixture: mlx5 netdev eth2 with mlx5_0, an e1000e ee0 carrying rxe0. */
static char root[64];

static void mkfile(const char *rel, const char *content)
{
	char p[256], cmd[300];
	FILE *f;

	snprintf(p, sizeof(p), "%s/%s", root, rel);
	snprintf(cmd, sizeof(cmd), "mkdir -p \"$(dirname '%s')\"", p);
	assert_int_equal(system(cmd), 0);
	f = fopen(p, "w");
	assert_non_null(f);
	fputs(content, f);
	fclose(f);
}

static void mklink(const char *target, const char *rel)
{
	char p[256], cmd[600];

	snprintf(p, sizeof(p), "%s/%s", root, rel);
	snprintf(cmd, sizeof(cmd), "mkdir -p \"$(dirname '%s')\" && ln -s '%s' '%s'", p, target, p);
	assert_int_equal(system(cmd), 0);
}

static int fixture_up(void **state)
{
	strcpy(root, "/tmp/ethtune-mlx5-XXXXXX");
	assert_non_null(mkdtemp(root));
	mklink("../../bus/pci/drivers/mlx5_core", "class/net/eth2/device/driver");
	mkfile("class/net/eth2/device/infiniband/mlx5_0/.keep", "");
	mklink("../../bus/pci/drivers/e1000e", "class/net/ee0/device/driver");
	mkfile("class/infiniband/rxe0/parent", "ee0\n");
	mkfile("class/infiniband/rxe0/ports/1/gid_attrs/ndevs/1", "ee0\n");
	mkfile("class/infiniband/rxe0/ports/1/gid_attrs/ndevs/0", "ee0\n");
	rdma_sysfs_root = root;
	return 0;
}

static int fixture_down(void **state)
{
	char cmd[128];

	snprintf(cmd, sizeof(cmd), "rm -rf '%s'", root);
	assert_int_equal(system(cmd), 0);
	rdma_sysfs_root = "/sys";
	return 0;
}

static void set_pf(const char *names, const char *on)
{
	char buf[256], *tok, *save;

	memset(&pf_answer, 0, sizeof(pf_answer));
	snprintf(buf, sizeof(buf), "%s", names);
	for (tok = strtok_r(buf, " ", &save); tok; tok = strtok_r(NULL, " ", &save)) {
		snprintf(pf_answer.name[pf_answer.n], sizeof(pf_answer.name[0]), "%s", tok);
		pf_answer.on[pf_answer.n] = on[pf_answer.n] == '1';
		pf_answer.n++;
	}
}

static void show_extra_json(void *arg)
{
	int *ret = arg;

	new_json_obj(1);
	*ret = mlx5_show_extra(ret[1] ? "ee0" : "eth2");
	delete_json_obj();
}

static void show_extra_text(void *arg)
{
	int *ret = arg;

	new_json_obj(0);
	*ret = mlx5_show_extra("eth2");
}

static void test_show_extra(void **state)
{
	int ret[2] = { -1, 0 };
	json_t *j, *m;
	char *out, buf[32];

	/* 6.x mlx5e order: rx_cqe_moder tx_cqe_moder rx_cqe_compress rx_striding_rq ... */
	set_pf("rx_cqe_moder tx_cqe_moder rx_cqe_compress rx_striding_rq", "1001");
	pf_ret = 0;
	out = capture_stdout(show_extra_json, ret);
	assert_int_equal(ret[0], 0);
	j = json_loads(out, 0, NULL);
	m = json_object_get(j, "mlx5");
	assert_non_null(m);
	assert_string_equal(json_string_value(json_object_get(m, "tx-cq-period-mode")), "eqe");
	assert_string_equal(json_string_value(json_object_get(m, "rx-cq-period-mode")), "cqe");
	assert_true(json_is_false(json_object_get(m, "rx-cqe-compress")));
	assert_int_equal(json_integer_value(json_object_get(m, "default-tx-usecs")), 16);
	assert_int_equal(json_integer_value(json_object_get(m, "default-tx-frames")), 32);
	assert_string_equal(json_string_value(json_object_get(m, "rdma-device")), "mlx5_0");
	json_decref(j);
	free(out);

	/* TX CQE mode on: the text warns about the TSQ stall */
	set_pf("rx_cqe_moder tx_cqe_moder rx_cqe_compress", "110");
	out = capture_stdout(show_extra_text, ret);
	assert_non_null(strstr(out, "  tx-cq-period-mode: cqe\n"));
	assert_non_null(strstr(out, "48bfc39791b8"));
	free(out);

	/* flags unreadable: modes n/a in text, absent in JSON */
	pf_ret = -EOPNOTSUPP;
	out = capture_stdout(show_extra_text, ret);
	assert_non_null(strstr(out, "  tx-cq-period-mode: n/a\n"));
	assert_non_null(strstr(out, "private flags unreadable"));
	free(out);
	pf_ret = 0;

	/* not mlx5: nothing printed, -ENODEV */
	ret[1] = 1;
	out = capture_stdout(show_extra_json, ret);
	assert_int_equal(ret[0], -ENODEV);
	free(out);
	assert_false(mlx5_is_netdev("ee0"));
	assert_true(mlx5_is_netdev("eth2"));
	assert_false(mlx5_is_netdev("nosuch"));

	/* the rdma device sitting on a netdev, and the netdev of a port */
	assert_int_equal(rdma_netdev_ibdev("ee0", buf, sizeof(buf)), 0);
	assert_string_equal(buf, "rxe0");
	assert_int_equal(rdma_netdev_ibdev("vn0", buf, sizeof(buf)), -ENOENT);
	assert_int_equal(rdma_sysfs_port_netdev("rxe0", 1, buf, sizeof(buf)), 0);
	assert_string_equal(buf, "ee0");
	assert_int_equal(rdma_sysfs_port_netdev("rxe0", 2, buf, sizeof(buf)), -ENOENT);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_report_json),
		cmocka_unit_test(test_report_text),
		cmocka_unit_test(test_query_error),
		cmocka_unit_test(test_dv_for_and_backend),
		cmocka_unit_test_setup_teardown(test_show_extra, fixture_up, fixture_down),
	};

	strcpy(dev_mlx5.name, "mlx5_0");
	strcpy(dev_rxe.name, "rxe0");
	return cmocka_run_group_tests(tests, NULL, NULL);
}
