/* netdev family dumps (napi, queue, qstats) replayed from captured fixtures and malformed ones. */
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>
#include <linux/genetlink.h>
#include <linux/netlink.h>

#include "nl/netdev.h"
#include "nl/nl.h"

static struct nd_dev d;

static int replay(const char *name, mnl_cb_t cb, int ifindex, struct nl_sock *ns)
{
	static char buf[16384];
	char path[256];
	FILE *f;
	size_t n;

	snprintf(path, sizeof(path), "tests/fixtures/%s", name);
	f = fopen(path, "rb");
	assert_non_null(f);
	n = fread(buf, 1, sizeof(buf), f);
	fclose(f);
	memset(&d, 0, sizeof(d));
	d.ifindex = ifindex;
	memset(ns, 0, sizeof(*ns));
	return nl_parse_buf(ns, buf, n, 0, cb, &d);
}

static void test_napi_eth0(void **state)
{
	struct nl_sock ns;
	const struct nd_napi *n;

	assert_int_equal(replay("netdev_eth0_napi.nl", napi_reply_cb, 4, &ns), MNL_CB_STOP);
	assert_int_equal(d.n_napi, 1);
	n = nd_napi_by_id(&d, 257);
	assert_non_null(n);
	assert_true(napi_has(n, ND_A_NAPI_DEFER_HARD_IRQS));
	assert_int_equal(n->a.v[ND_A_NAPI_GRO_FLUSH_TIMEOUT], 0);
	assert_int_equal(n->a.v[ND_A_NAPI_THREADED], 0);
	/* virtio_net on this host reports no irq; no thread, no pid */
	assert_false(napi_has(n, ND_A_NAPI_IRQ));
	assert_false(napi_has(n, ND_A_NAPI_PID));
	assert_null(nd_napi_by_id(&d, 258));
}

static void test_napi_veth_threaded(void **state)
{
	struct nl_sock ns;
	const struct nd_napi *n;

	assert_int_equal(replay("netdev_veth_napi.nl", napi_reply_cb, 3, &ns), MNL_CB_STOP);
	assert_int_equal(d.n_napi, 2);
	n = nd_napi_by_id(&d, 260);
	assert_non_null(n);
	assert_true(napi_has(n, ND_A_NAPI_PID));
	assert_int_equal(n->a.v[ND_A_NAPI_PID], 10837);
	assert_int_equal(n->a.v[ND_A_NAPI_DEFER_HARD_IRQS], 3);
	assert_int_equal(n->a.v[ND_A_NAPI_GRO_FLUSH_TIMEOUT], 20000);
	assert_int_equal(n->a.v[ND_A_NAPI_IRQ_SUSPEND_TIMEOUT], 0);
	assert_int_equal(n->a.v[ND_A_NAPI_THREADED], 1);
}

static void test_napi_other_ifindex(void **state)
{
	struct nl_sock ns;

	/* entries of another device (a kernel that ignored the filter) are not this device's */
	assert_int_equal(replay("netdev_veth_napi.nl", napi_reply_cb, 9, &ns), MNL_CB_STOP);
	assert_int_equal(d.n_napi, 0);
}

static void test_napi_future_attrs(void **state)
{
	struct nl_sock ns;
	const struct nd_napi *n;

	assert_int_equal(replay("netdev_napi_future.nl", napi_reply_cb, 3, &ns), MNL_CB_STOP);
	assert_int_equal(d.n_napi, 2);
	n = nd_napi_by_id(&d, 261);
	assert_non_null(n);
	/* an 8-byte uint keeps all 64 bits */
	assert_true(n->a.v[ND_A_NAPI_GRO_FLUSH_TIMEOUT] == 5000000000ULL);
	assert_int_equal(n->a.v[ND_A_NAPI_PID], 10836);
	/* attributes no kernel has yet are skipped, the known ones after them still read */
	assert_int_equal(n->a.present & ~((1u << (ND_A_NAPI_THREADED + 1)) - 1), 0);
	assert_int_equal(n->a.v[ND_A_NAPI_THREADED], 1);
}

static void test_queue_eth0(void **state)
{
	struct nl_sock ns;
	const struct nd_queue *q;

	assert_int_equal(replay("netdev_eth0_queue.nl", queue_reply_cb, 4, &ns), MNL_CB_STOP);
	assert_int_equal(d.n_queue, 2);
	q = nd_queue_find(&d, ND_QUEUE_TYPE_RX, 0);
	assert_non_null(q);
	assert_true(q->has_napi);
	assert_int_equal(q->napi_id, 257);
	/* this host's TX queue has no NAPI linked: show prints n/a */
	q = nd_queue_find(&d, ND_QUEUE_TYPE_TX, 0);
	assert_non_null(q);
	assert_false(q->has_napi);
	assert_null(nd_queue_find(&d, ND_QUEUE_TYPE_TX, 1));
}

static void test_queue_veth(void **state)
{
	struct nl_sock ns;

	assert_int_equal(replay("netdev_veth_queue.nl", queue_reply_cb, 3, &ns), MNL_CB_STOP);
	assert_int_equal(d.n_queue, 4);
	assert_non_null(nd_queue_find(&d, ND_QUEUE_TYPE_TX, 1));
	assert_false(nd_queue_find(&d, ND_QUEUE_TYPE_TX, 1)->has_napi);
}

static void test_qstats_eth0(void **state)
{
	struct nl_sock ns;
	const struct nd_qstats *s;

	assert_int_equal(replay("netdev_eth0_qstats.nl", qstats_reply_cb, 4, &ns), MNL_CB_STOP);
	assert_int_equal(d.n_qstats, 2);
	s = nd_qstats_find(&d, ND_QUEUE_TYPE_TX, 0);
	assert_non_null(s);
	assert_true(qstats_has(s, ND_A_QSTATS_TX_PACKETS));
	assert_int_equal(s->v[ND_A_QSTATS_TX_PACKETS], 3615);
	assert_int_equal(s->v[ND_A_QSTATS_TX_BYTES], 265055);
	assert_true(qstats_has(s, ND_A_QSTATS_TX_STOP));
	assert_true(qstats_has(s, ND_A_QSTATS_TX_WAKE));
	/* virtio_net counts no GSO or checksum offload per queue */
	assert_false(qstats_has(s, ND_A_QSTATS_TX_HW_GSO_PACKETS));
	assert_false(qstats_has(s, ND_A_QSTATS_TX_NEEDS_CSUM));
	/* the RX queue's counters are not TX ones */
	s = nd_qstats_find(&d, ND_QUEUE_TYPE_RX, 0);
	assert_non_null(s);
	assert_false(qstats_has(s, ND_A_QSTATS_TX_PACKETS));
}

static void test_qstats_veth_eopnotsupp(void **state)
{
	struct nl_sock ns;

	/* a dump the device cannot make ends in DONE carrying the error */
	assert_int_equal(replay("netdev_veth_qstats.nl", qstats_reply_cb, 3, &ns), -EOPNOTSUPP);
	assert_int_equal(d.n_qstats, 0);
}

static void test_uint_widths(void **state)
{
	char buf[64] = {};
	struct nlattr *a = (struct nlattr *)buf;
	uint64_t v = 0;

	a->nla_type = 1;
	a->nla_len = 6; /* 2 bytes: not a uint */
	assert_int_equal(netdev_attr_uint(a, &v), -EINVAL);
	a->nla_len = 8;
	memcpy(buf + 4, &(uint32_t){ 77 }, 4);
	assert_int_equal(netdev_attr_uint(a, &v), 0);
	assert_int_equal(v, 77);
	a->nla_len = 12;
	memcpy(buf + 4, &(uint64_t){ 1ULL << 40 }, 8);
	assert_int_equal(netdev_attr_uint(a, &v), 0);
	assert_true(v == 1ULL << 40);
}

static void test_napi_params(void **state)
{
	const struct et_param *p = napi_param("defer-hard-irqs");
	uint64_t v;

	assert_non_null(p);
	assert_int_equal(p->max, 2147483647);
	assert_non_null(napi_param("gro-flush-timeout"));
	assert_non_null(napi_param("irq-suspend-timeout"));
	/* keywords are exact */
	assert_null(napi_param("gro_flush_timeout"));
	assert_null(napi_param("defer"));
	p = napi_param("threaded");
	assert_int_equal(obj_parse_val(p, "on", &v), 0);
	assert_int_equal(v, 1);
	assert_int_equal(obj_parse_val(p, "off", &v), 0);
	assert_int_equal(v, 0);
	assert_int_not_equal(obj_parse_val(p, "yes", &v), 0);
	p = napi_param("gro-flush-timeout");
	assert_int_equal(obj_parse_val(p, "5000000000", &v), 0);
	assert_true(v == 5000000000ULL);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_napi_eth0),
		cmocka_unit_test(test_napi_veth_threaded),
		cmocka_unit_test(test_napi_other_ifindex),
		cmocka_unit_test(test_napi_future_attrs),
		cmocka_unit_test(test_queue_eth0),
		cmocka_unit_test(test_queue_veth),
		cmocka_unit_test(test_qstats_eth0),
		cmocka_unit_test(test_qstats_veth_eopnotsupp),
		cmocka_unit_test(test_uint_widths),
		cmocka_unit_test(test_napi_params),
	};

	return cmocka_run_group_tests_name("netdev", tests, NULL, NULL);
}
