/* Unit tests of `ethtune rdma`: option parsing, GID choice, statistics, and list/caps/probe
 * against a fake verbs backend (an mlx5-like device with CQ moderation and an rxe-like one). */
// NEEDS: rdma
// LDFLAGS: -Wl,--wrap=rdma_backend,--wrap=mlx5dv_is_supported,--wrap=mlx5dv_query_device
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <sys/eventfd.h>
#include <arpa/inet.h>
#include <cmocka.h>
#include <jansson.h>
#include <infiniband/mlx5dv.h>

#include "cli/commands.h"
#include "util/ethtune.h"
#include "probe/rdma.h"

/* ---- fake backend ---- */

static struct ibv_device fdev[2];
static struct ibv_device *fdev_list[3];
static struct ibv_context fctx[2];
static int fake_ndev;
static bool fake_none_errno; /* get_device_list returns NULL with ENOSYS */

/* fake QP/CQ state for the probe */
static struct ibv_pd fpd;
static struct ibv_mr fmr;
static struct ibv_comp_channel fch;
static struct ibv_cq fcq[2];
static struct ibv_qp fqp[2];
static int nqp, ncq;
static uint64_t send_q[8192];
static unsigned int sq_head, sq_tail;
static unsigned int recv_posted, recv_done;
static unsigned int modify_calls;
static uint16_t last_count, last_period;
static int modify_ret;

static struct ibv_device **f_get_device_list(int *n)
{
	*n = fake_ndev;
	if (fake_none_errno) {
		errno = ENOSYS;
		return NULL;
	}
	return fdev_list;
}
static void f_free_device_list(struct ibv_device **l)
{
}
static const char *f_get_device_name(struct ibv_device *d)
{
	return d->name;
}
static struct ibv_context *f_open_device(struct ibv_device *d)
{
	struct ibv_context *c = &fctx[d == &fdev[0] ? 0 : 1];

	c->device = d;
	return c;
}
static int f_close_device(struct ibv_context *c)
{
	return 0;
}
static bool is_mlx5(const struct ibv_device *d)
{
	return !strncmp(d->name, "mlx5", 4);
}

static int f_query_device_ex(struct ibv_context *c, struct ibv_device_attr_ex *a)
{
	memset(a, 0, sizeof(*a));
	strcpy(a->orig_attr.fw_ver, is_mlx5(c->device) ? "16.35.2000" : "0.0.0");
	a->orig_attr.phys_port_cnt = 1;
	a->orig_attr.max_qp_wr = is_mlx5(c->device) ? 32768 : 1048576;
	a->orig_attr.max_cqe = is_mlx5(c->device) ? 4194303 : 32767;
	a->orig_attr.max_mr_size = ~0ull;
	if (is_mlx5(c->device)) { /* mlx5_ib: MLX5_MAX_CQ_COUNT, MLX5_MAX_CQ_PERIOD */
		a->cq_mod_caps.max_cq_count = 65535;
		a->cq_mod_caps.max_cq_period = 4095;
		a->hca_core_clock = 156250;
	}
	return 0;
}
static int f_query_port(struct ibv_context *c, uint8_t p, struct ibv_port_attr *a)
{
	memset(a, 0, sizeof(*a));
	a->state = IBV_PORT_ACTIVE;
	a->link_layer = IBV_LINK_LAYER_ETHERNET;
	a->active_mtu = IBV_MTU_1024;
	a->gid_tbl_len = 4;
	return 0;
}
static int f_query_gid_ex(struct ibv_context *c, uint32_t port, uint32_t idx,
			  struct ibv_gid_entry *e)
{
	memset(e, 0, sizeof(*e));
	e->gid_index = idx;
	e->port_num = port;
	e->gid_type = IBV_GID_TYPE_ROCE_V2;
	e->ndev_ifindex = 1; /* lo: always there */
	if (idx == 0)
		inet_pton(AF_INET6, "fe80::5054:ff:fe1a:0", e->gid.raw);
	else if (idx == 1)
		inet_pton(AF_INET6, "::ffff:198.18.10.1", e->gid.raw);
	else
		return -ENODATA;
	return 0;
}
static struct ibv_pd *f_alloc_pd(struct ibv_context *c)
{
	return &fpd;
}
static int f_dealloc_pd(struct ibv_pd *pd)
{
	return 0;
}
static struct ibv_mr *f_reg_mr(struct ibv_pd *pd, void *a, size_t l, int acc)
{
	return &fmr;
}
static int f_dereg_mr(struct ibv_mr *mr)
{
	return 0;
}
static struct ibv_comp_channel *f_create_comp_channel(struct ibv_context *c)
{
	fch.fd = eventfd(1, EFD_CLOEXEC); /* stays readable: every wait returns at once */
	return &fch;
}
static int f_destroy_comp_channel(struct ibv_comp_channel *ch)
{
	close(ch->fd);
	return 0;
}
static struct ibv_cq *f_create_cq(struct ibv_context *c, int cqe, struct ibv_comp_channel *ch)
{
	return &fcq[ncq++ % 2];
}
static int f_destroy_cq(struct ibv_cq *cq)
{
	return 0;
}
static int f_modify_cq(struct ibv_cq *cq, uint16_t count, uint16_t period)
{
	modify_calls++;
	last_count = count;
	last_period = period;
	return modify_ret;
}
static struct ibv_qp *f_create_qp(struct ibv_pd *pd, struct ibv_qp_init_attr *a)
{
	struct ibv_qp *q = &fqp[nqp++ % 2];

	q->qp_num = 100 + nqp;
	return q;
}
static int f_destroy_qp(struct ibv_qp *qp)
{
	return 0;
}
static int f_modify_qp(struct ibv_qp *qp, struct ibv_qp_attr *a, int mask)
{
	if (a->qp_state == IBV_QPS_RTR) { /* loopback: the GID chosen is the IPv4-mapped one */
		assert_true(a->ah_attr.is_global);
		assert_int_equal(a->ah_attr.grh.sgid_index, 1);
		assert_int_equal(a->dest_qp_num, qp == &fqp[0] ? fqp[1].qp_num : fqp[0].qp_num);
	}
	return 0;
}
static int f_post_send(struct ibv_qp *qp, struct ibv_send_wr *wr, struct ibv_send_wr **bad)
{
	assert_ptr_equal(qp, &fqp[0]);
	send_q[sq_tail++ % 8192] = wr->wr_id;
	return 0;
}
static int f_post_recv(struct ibv_qp *qp, struct ibv_recv_wr *wr, struct ibv_recv_wr **bad)
{
	recv_posted++;
	return 0;
}
static int f_poll_cq(struct ibv_cq *cq, int n, struct ibv_wc *wc)
{
	int k = 0;

	if (cq == &fcq[0]) { /* send CQ: everything posted has completed */
		while (k < n && sq_head != sq_tail) {
			memset(&wc[k], 0, sizeof(wc[k]));
			wc[k++].wr_id = send_q[sq_head++ % 8192];
		}
		recv_done += k;
		return k;
	}
	while (k < n && recv_done) {
		memset(&wc[k++], 0, sizeof(wc[0]));
		recv_done--;
	}
	return k;
}
static int f_req_notify_cq(struct ibv_cq *cq, int s)
{
	return 0;
}
static int f_get_cq_event(struct ibv_comp_channel *ch, struct ibv_cq **cq, void **ctx)
{
	*cq = &fcq[0];
	return 0;
}
static void f_ack_cq_events(struct ibv_cq *cq, unsigned int n)
{
}

static const struct rdma_ops fake_ops = {
	.get_device_list = f_get_device_list,
	.free_device_list = f_free_device_list,
	.get_device_name = f_get_device_name,
	.open_device = f_open_device,
	.close_device = f_close_device,
	.query_device_ex = f_query_device_ex,
	.query_port = f_query_port,
	.query_gid_ex = f_query_gid_ex,
	.alloc_pd = f_alloc_pd,
	.dealloc_pd = f_dealloc_pd,
	.reg_mr = f_reg_mr,
	.dereg_mr = f_dereg_mr,
	.create_comp_channel = f_create_comp_channel,
	.destroy_comp_channel = f_destroy_comp_channel,
	.create_cq = f_create_cq,
	.destroy_cq = f_destroy_cq,
	.modify_cq = f_modify_cq,
	.create_qp = f_create_qp,
	.destroy_qp = f_destroy_qp,
	.modify_qp = f_modify_qp,
	.post_send = f_post_send,
	.post_recv = f_post_recv,
	.poll_cq = f_poll_cq,
	.req_notify_cq = f_req_notify_cq,
	.get_cq_event = f_get_cq_event,
	.ack_cq_events = f_ack_cq_events,
};

const struct rdma_ops *__wrap_rdma_backend(void)
{
	return &fake_ops;
}

bool __wrap_mlx5dv_is_supported(struct ibv_device *d)
{
	return is_mlx5(d);
}

int __wrap_mlx5dv_query_device(struct ibv_context *c, struct mlx5dv_context *dv)
{
	assert_true(dv->comp_mask & MLX5DV_CONTEXT_MASK_CQE_COMPRESION);
	memset(dv, 0, sizeof(*dv));
	dv->version = 1;
	dv->flags = MLX5DV_CONTEXT_FLAGS_CQE_V1 | MLX5DV_CONTEXT_FLAGS_MPW_ALLOWED |
		    MLX5DV_CONTEXT_FLAGS_ENHANCED_MPW;
	dv->comp_mask = MLX5DV_CONTEXT_MASK_CQE_COMPRESION | MLX5DV_CONTEXT_MASK_STRIDING_RQ;
	dv->cqe_comp_caps.max_num = 64;
	dv->cqe_comp_caps.supported_format =
		MLX5DV_CQE_RES_FORMAT_HASH | MLX5DV_CQE_RES_FORMAT_CSUM;
	dv->striding_rq_caps.min_single_stride_log_num_of_bytes = 6;
	dv->striding_rq_caps.max_single_stride_log_num_of_bytes = 13;
	dv->striding_rq_caps.min_single_wqe_log_num_of_strides = 9;
	dv->striding_rq_caps.max_single_wqe_log_num_of_strides = 16;
	dv->striding_rq_caps.supported_qpts = 1 << IBV_QPT_RAW_PACKET;
	return 0;
}

static int setup(void **state)
{
	memset(fdev, 0, sizeof(fdev));
	strcpy(fdev[0].name, "mlx5_0");
	strcpy(fdev[1].name, "rxe0");
	fdev_list[0] = &fdev[0];
	fdev_list[1] = &fdev[1];
	fdev_list[2] = NULL;
	fake_ndev = 2;
	fake_none_errno = false;
	nqp = ncq = 0;
	sq_head = sq_tail = recv_posted = recv_done = 0;
	modify_calls = 0;
	modify_ret = 0;
	et_opts.json = true;
	return 0;
}

/* Run `ethtune [--json] rdma ARGS...`; stdout parsed as JSON (NULL when empty). */
static json_t *run(int *rc, ...)
{
	char *argv[16] = { "rdma" };
	int argc = 1, saved;
	FILE *tmp = tmpfile();
	json_error_t jerr;
	json_t *j;
	va_list ap;
	const char *a;

	va_start(ap, rc);
	while ((a = va_arg(ap, const char *)))
		argv[argc++] = (char *)a;
	va_end(ap);
	argv[argc] = NULL;
	fflush(stdout);
	saved = dup(1);
	dup2(fileno(tmp), 1);
	*rc = cmd_rdma(argc, argv);
	fflush(stdout);
	dup2(saved, 1);
	close(saved);
	rewind(tmp);
	j = json_loadf(tmp, 0, &jerr);
	fclose(tmp);
	return j;
}

static json_t *dev_by_name(json_t *devs, const char *name)
{
	size_t i;
	json_t *d;

	json_array_foreach(devs, i, d) if (!strcmp(json_string_value(json_object_get(d, "ibdev")),
						   name)) return d;
	return NULL;
}

/* ---- tests ---- */

static void test_parse(void **state)
{
	struct rdma_probe_opts o;
	char err[200];
	char *ok[] = { "rxe0", "--msg-size",  "4K", "--depth", "16", "--cq-count",
		       "8",    "--cq-period", "16", "--iters", "500" };
	char *sweep[] = { "rxe0", "--sweep", "--poll" };
	char *lone_count[] = { "rxe0", "--cq-count", "8" };
	char *sweep_and_count[] = { "rxe0", "--sweep", "--cq-count", "8", "--cq-period", "8" };
	char *bad_depth[] = { "rxe0", "--depth", "0" };
	char *bad_num[] = { "rxe0", "--depth", "x1" };
	char *no_dev[] = { "--sweep" };
	char *two_dev[] = { "rxe0", "rxe1" };
	char *unknown[] = { "rxe0", "--bogus", "1" };
	char *missing[] = { "rxe0", "--depth" };

	assert_int_equal(rdma_probe_parse(11, ok, &o, err, sizeof(err)), 0);
	assert_string_equal(o.ibdev, "rxe0");
	assert_int_equal(o.msg_size, 4096);
	assert_int_equal(o.depth, 16);
	assert_int_equal(o.cq_count, 8);
	assert_int_equal(o.cq_period, 16);
	assert_int_equal(o.iters, 500);
	assert_int_equal(o.gid_index, -1);
	assert_int_equal(rdma_probe_parse(3, sweep, &o, err, sizeof(err)), 0);
	assert_true(o.sweep && o.poll);
	assert_int_equal(o.cq_count, -1);
	assert_int_equal(rdma_probe_parse(3, lone_count, &o, err, sizeof(err)), -EINVAL);
	assert_non_null(strstr(err, "go together"));
	assert_int_equal(rdma_probe_parse(6, sweep_and_count, &o, err, sizeof(err)), -EINVAL);
	assert_int_equal(rdma_probe_parse(3, bad_depth, &o, err, sizeof(err)), -ERANGE);
	assert_non_null(strstr(err, "--depth"));
	assert_int_equal(rdma_probe_parse(3, bad_num, &o, err, sizeof(err)), -EINVAL);
	assert_int_equal(rdma_probe_parse(1, no_dev, &o, err, sizeof(err)), -EINVAL);
	assert_int_equal(rdma_probe_parse(2, two_dev, &o, err, sizeof(err)), -EINVAL);
	assert_int_equal(rdma_probe_parse(3, unknown, &o, err, sizeof(err)), -EINVAL);
	assert_non_null(strstr(err, "--bogus"));
	assert_int_equal(rdma_probe_parse(2, missing, &o, err, sizeof(err)), -EINVAL);
	{
		char *never[] = { "rxe0", "--depth", "4", "--cq-count", "8", "--cq-period", "0" };

		assert_int_equal(rdma_probe_parse(7, never, &o, err, sizeof(err)), -EINVAL);
		assert_non_null(strstr(err, "needs a --cq-period"));
		never[2] = "8";
		assert_int_equal(rdma_probe_parse(7, never, &o, err, sizeof(err)), 0);
	}
}

static void gid(struct ibv_gid_entry *e, unsigned int idx, uint32_t type, const char *s)
{
	memset(e, 0, sizeof(*e));
	e->gid_index = idx;
	e->gid_type = type;
	inet_pton(AF_INET6, s, e->gid.raw);
}

static void test_pick_gid(void **state)
{
	struct ibv_gid_entry e[4];
	char buf[64];

	gid(&e[0], 0, IBV_GID_TYPE_ROCE_V1, "fe80::1");
	gid(&e[1], 1, IBV_GID_TYPE_ROCE_V2, "fe80::1");
	gid(&e[2], 2, IBV_GID_TYPE_ROCE_V1, "::ffff:198.18.0.1");
	gid(&e[3], 3, IBV_GID_TYPE_ROCE_V2, "::ffff:198.18.0.1");
	assert_int_equal(rdma_pick_gid(e, 4), 3); /* RoCEv2 IPv4-mapped first */
	assert_int_equal(rdma_pick_gid(e, 3), 1); /* then RoCEv2 link-local */
	assert_int_equal(rdma_pick_gid(e, 1), 0); /* then RoCEv1 */
	assert_int_equal(rdma_pick_gid(e, 0), -ENOENT);
	assert_true(rdma_gid_is_v4mapped(&e[3].gid));
	assert_false(rdma_gid_is_v4mapped(&e[1].gid));
	assert_true(rdma_gid_is_linklocal(&e[1].gid));
	rdma_gid_str(&e[3].gid, buf, sizeof(buf));
	assert_string_equal(buf, "::ffff:198.18.0.1");
	assert_string_equal(rdma_gid_type_str(IBV_GID_TYPE_ROCE_V2), "RoCEv2");
}

static void test_lat_summary(void **state)
{
	uint64_t ns[1000];
	struct stats_lat l;

	for (int i = 0; i < 1000; i++)
		ns[i] = (uint64_t)(1000 - i) * 1000; /* 1..1000 us, reversed */
	rdma_lat_summary(ns, 1000, &l);
	assert_float_equal(l.min, 1.0, 1e-9);
	assert_float_equal(l.p50, 500.0, 1e-9);
	assert_float_equal(l.p90, 900.0, 1e-9);
	assert_float_equal(l.p99, 990.0, 1e-9);
	assert_float_equal(l.p999, 999.0, 1e-9);
	assert_float_equal(l.max, 1000.0, 1e-9);
	assert_float_equal(l.mean, 500.5, 1e-9);
	rdma_lat_summary(ns, 0, &l);
	assert_float_equal(l.max, 0, 0);
}

static void test_list_none(void **state)
{
	json_t *j;
	int rc;

	fake_ndev = 0;
	fake_none_errno = true; /* no kernel RDMA at all: still "no devices", exit 0 */
	j = run(&rc, "list", NULL);
	assert_int_equal(rc, EXIT_OK);
	assert_non_null(j);
	assert_int_equal(json_array_size(json_object_get(j, "devices")), 0);
	json_decref(j);
	j = run(&rc, "probe", "rxe0", NULL);
	assert_int_equal(rc, EXIT_FAIL);
	assert_null(j);
	j = run(&rc, "caps", "mlx5_0", NULL);
	assert_int_equal(rc, EXIT_FAIL);
	json_decref(j);
	j = run(&rc, "bogus", NULL);
	assert_int_equal(rc, EXIT_USAGE);
	j = run(&rc, "probe", NULL);
	assert_int_equal(rc, EXIT_USAGE);
}

static void test_list(void **state)
{
	json_t *j, *d, *p, *g;
	int rc;

	j = run(&rc, "list", NULL);
	assert_int_equal(rc, EXIT_OK);
	assert_non_null(j);
	assert_int_equal(json_array_size(json_object_get(j, "devices")), 2);
	d = dev_by_name(json_object_get(j, "devices"), "mlx5_0");
	assert_non_null(d);
	assert_string_equal(json_string_value(json_object_get(d, "direct-verbs")), "mlx5dv");
	p = json_array_get(json_object_get(d, "port-list"), 0);
	assert_int_equal(json_integer_value(json_object_get(p, "port")), 1);
	assert_string_equal(json_string_value(json_object_get(p, "state")), "ACTIVE");
	assert_string_equal(json_string_value(json_object_get(p, "link-layer")), "Ethernet");
	assert_string_equal(json_string_value(json_object_get(p, "netdev")), "lo");
	assert_int_equal(json_integer_value(json_object_get(p, "active-mtu")), 1024);
	assert_int_equal(json_array_size(json_object_get(p, "gids")), 2);
	g = json_array_get(json_object_get(p, "gids"), 1);
	assert_string_equal(json_string_value(json_object_get(g, "gid")), "::ffff:198.18.10.1");
	assert_string_equal(json_string_value(json_object_get(g, "type")), "RoCEv2");
	d = dev_by_name(json_object_get(j, "devices"), "rxe0");
	assert_string_equal(json_string_value(json_object_get(d, "direct-verbs")), "none");
	json_decref(j);
}

static void test_caps(void **state)
{
	json_t *j, *d, *dv, *fl;
	int rc;

	j = run(&rc, "caps", NULL);
	assert_int_equal(rc, EXIT_OK);
	assert_non_null(j);
	d = dev_by_name(json_object_get(j, "devices"), "mlx5_0");
	assert_true(json_is_true(json_object_get(d, "cq-moderation")));
	assert_int_equal(json_integer_value(json_object_get(d, "max-cq-count")), 65535);
	assert_int_equal(json_integer_value(json_object_get(d, "max-cq-period-us")), 4095);
	assert_int_equal(json_integer_value(json_object_get(d, "max-cqe")), 4194303);
	assert_int_equal(json_integer_value(json_object_get(d, "hca-core-clock-khz")), 156250);
	dv = json_object_get(d, "mlx5dv");
	assert_non_null(dv);
	assert_int_equal(json_integer_value(json_object_get(dv, "cqe-version")), 1);
	assert_true(json_is_true(json_object_get(dv, "cqe-compression")));
	assert_int_equal(json_integer_value(json_object_get(dv, "cqe-compression-max-num")), 64);
	fl = json_object_get(dv, "cqe-compression-formats");
	assert_int_equal(json_array_size(fl), 2);
	assert_string_equal(json_string_value(json_array_get(fl, 1)), "csum");
	fl = json_object_get(dv, "flags");
	assert_int_equal(json_array_size(fl), 3);
	assert_string_equal(json_string_value(json_array_get(fl, 0)), "cqe-v1");
	assert_string_equal(json_string_value(json_array_get(fl, 2)), "enhanced-mpw");
	assert_true(json_is_true(json_object_get(dv, "striding-rq")));
	assert_int_equal(json_integer_value(json_object_get(dv, "striding-rq-max-stride-bytes")),
			 8192);
	/* not asked for in comp_mask answer: absent, not zero */
	assert_null(json_object_get(dv, "sw-parsing"));

	d = dev_by_name(json_object_get(j, "devices"), "rxe0");
	assert_true(json_is_false(json_object_get(d, "cq-moderation")));
	assert_null(json_object_get(d, "mlx5dv"));
	assert_null(json_object_get(d, "hca-core-clock-khz")); /* n/a: absent in JSON */
	json_decref(j);

	j = run(&rc, "caps", "rxe0", NULL);
	assert_int_equal(rc, EXIT_OK);
	assert_int_equal(json_array_size(json_object_get(j, "devices")), 1);
	json_decref(j);
	j = run(&rc, "caps", "nosuch0", NULL);
	assert_int_equal(rc, EXIT_FAIL);
	json_decref(j);
}

static void test_probe_sweep_mlx5(void **state)
{
	json_t *j, *res, *r;
	int rc;

	j = run(&rc, "probe", "mlx5_0", "--sweep", "--depth", "8", "--iters", "200", NULL);
	assert_int_equal(rc, EXIT_OK);
	assert_non_null(j);
	assert_true(
		json_is_true(json_object_get(json_object_get(j, "cq-moderation"), "supported")));
	assert_string_equal(json_string_value(json_object_get(j, "gid")), "::ffff:198.18.10.1");
	res = json_object_get(j, "results");
	assert_int_equal(json_array_size(res), 8); /* every sweep point fits 65535/4095 */
	assert_int_equal(modify_calls, 8);
	assert_int_equal(last_count, 128);
	assert_int_equal(last_period, 64);
	r = json_array_get(res, 0);
	assert_int_equal(json_integer_value(json_object_get(r, "cq-count")), 1);
	assert_int_equal(json_integer_value(json_object_get(r, "completions")), 200);
	assert_non_null(json_object_get(json_object_get(r, "latency"), "p99-us"));
	assert_true(json_real_value(json_object_get(r, "completions-per-event")) >= 1.0);
	assert_int_equal(sq_head, sq_tail);
	assert_true(recv_posted >= 200);
	json_decref(j);
}

static void test_probe_unsupported(void **state)
{
	json_t *j, *m;
	int rc;

	/* rxe: no moderation caps; ibv_modify_cq answers EOPNOTSUPP; sweep measures default. */
	modify_ret = -EOPNOTSUPP;
	j = run(&rc, "probe", "rxe0", "--sweep", "--iters", "100", NULL);
	assert_int_equal(rc, EXIT_OK);
	m = json_object_get(j, "cq-moderation");
	assert_true(json_is_false(json_object_get(m, "supported")));
	assert_string_equal(json_string_value(json_object_get(m, "modify-cq-error")),
			    strerror(EOPNOTSUPP));
	assert_non_null(json_object_get(j, "note"));
	assert_int_equal(json_array_size(json_object_get(j, "results")), 1);
	assert_string_equal(
		json_string_value(json_object_get(json_array_get(json_object_get(j, "results"), 0),
						  "cq-moderation")),
		"default");
	json_decref(j);

	/* asking for a setting the device cannot do fails plainly */
	j = run(&rc, "probe", "rxe0", "--cq-count", "8", "--cq-period", "8", NULL);
	assert_int_equal(rc, EXIT_FAIL);
	assert_null(j);
	/* beyond the device's maxima */
	modify_ret = 0;
	j = run(&rc, "probe", "mlx5_0", "--cq-count", "8", "--cq-period", "5000", NULL);
	assert_int_equal(rc, EXIT_FAIL);
	j = run(&rc, "probe", "mlx5_0", "--cq-count", "8", "--cq-period", "16", "--iters", "50",
		"--poll", NULL);
	assert_int_equal(rc, EXIT_OK);
	assert_int_equal(last_count, 8);
	assert_int_equal(last_period, 16);
	json_decref(j);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_setup(test_parse, setup),
		cmocka_unit_test_setup(test_pick_gid, setup),
		cmocka_unit_test_setup(test_lat_summary, setup),
		cmocka_unit_test_setup(test_list_none, setup),
		cmocka_unit_test_setup(test_list, setup),
		cmocka_unit_test_setup(test_caps, setup),
		cmocka_unit_test_setup(test_probe_sweep_mlx5, setup),
		cmocka_unit_test_setup(test_probe_unsupported, setup),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
