/* Netlink reply parsing from captured fixtures, including attributes from newer kernels. */
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>
#include <linux/if_link.h>
#include <linux/netlink.h>

#include "nl/devobj.h"
#include "nl/ethtool_attrs.h"
#include "nl/nl.h"

static size_t load(const char *name, char *buf, size_t cap)
{
	char path[256];
	FILE *f;
	size_t n;

	snprintf(path, sizeof(path), "tests/fixtures/%s", name);
	f = fopen(path, "rb");
	assert_non_null(f);
	n = fread(buf, 1, cap, f);
	fclose(f);
	return n;
}

struct obj_ctx {
	const struct et_object *obj;
	struct et_vals v;
};

static int obj_cb(const struct nlmsghdr *nlh, void *data)
{
	struct obj_ctx *c = data;

	return c->obj->reply_cb(nlh, &c->v) ? MNL_CB_ERROR : MNL_CB_OK;
}

static int replay(const char *file, const struct et_object *obj, struct et_vals *out)
{
	static char buf[8192];
	struct obj_ctx c = { .obj = obj };
	struct nl_sock ns = {};
	size_t n = load(file, buf, sizeof(buf));
	int ret = nl_parse_buf(&ns, buf, n, 0, obj_cb, &c);

	*out = c.v;
	return ret;
}

static void test_coalesce_eth0(void **state)
{
	struct et_vals v;

	/* reply then ACK: the parser stops at the ACK */
	assert_int_equal(replay("coalesce_eth0.nl", &et_coalesce, &v), MNL_CB_STOP);
	assert_true(vals_has(&v, ETHTOOL_A_COALESCE_TX_MAX_FRAMES));
	assert_int_equal(v.v[ETHTOOL_A_COALESCE_TX_MAX_FRAMES], 1);
	assert_int_equal(v.v[ETHTOOL_A_COALESCE_TX_USECS], 0);
	assert_true(vals_has(&v, ETHTOOL_A_COALESCE_USE_ADAPTIVE_RX));
	/* virtio_net does not report what it does not support */
	assert_false(vals_has(&v, ETHTOOL_A_COALESCE_USE_CQE_MODE_TX));
	assert_false(vals_has(&v, ETHTOOL_A_COALESCE_TX_USECS_IRQ));
}

static void test_coalesce_future_attrs(void **state)
{
	struct et_vals v;

	assert_int_equal(replay("coalesce_future.nl", &et_coalesce, &v), MNL_CB_STOP);
	assert_int_equal(v.v[ETHTOOL_A_COALESCE_TX_MAX_FRAMES], 1);
	assert_true(vals_has(&v, ET_A_COALESCE_TX_AGGR_MAX_BYTES));
	assert_int_equal(v.v[ET_A_COALESCE_TX_AGGR_MAX_BYTES], 4096);
	/* attributes no table knows are not stored anywhere */
	assert_false(vals_has(&v, 33));
	assert_false(vals_has(&v, 45));
	assert_false(vals_has(&v, 57));
	/* DIM profile nest: two entries */
	assert_true(vals_has(&v, ET_A_COALESCE_RX_PROFILE));
	assert_int_equal(v.profile[0].n, 2);
	assert_int_equal(v.profile[0].usec[0], 8);
	assert_int_equal(v.profile[0].pkts[0], 16);
	assert_int_equal(v.profile[0].usec[1], 64);
	assert_false(vals_has(&v, ET_A_COALESCE_TX_PROFILE));
}

static void test_rings_eth0(void **state)
{
	struct et_vals v;

	assert_int_equal(replay("rings_eth0.nl", &et_rings, &v), MNL_CB_STOP);
	assert_int_equal(v.v[ETHTOOL_A_RINGS_TX_MAX], 256);
	assert_int_equal(v.v[ETHTOOL_A_RINGS_TX], 256);
	assert_int_equal(v.v[ETHTOOL_A_RINGS_RX], 256);
	assert_false(vals_has(&v, ETHTOOL_A_RINGS_RX_MINI));
	assert_true(vals_has(&v, ET_A_RINGS_RX_PUSH)); /* a v6.2 attribute */
}

static void test_channels_eth0(void **state)
{
	struct et_vals v;

	assert_int_equal(replay("channels_eth0.nl", &et_channels, &v), MNL_CB_STOP);
	assert_int_equal(v.v[ETHTOOL_A_CHANNELS_COMBINED_MAX], 1);
	assert_int_equal(v.v[ETHTOOL_A_CHANNELS_COMBINED_COUNT], 1);
	assert_false(vals_has(&v, ETHTOOL_A_CHANNELS_RX_COUNT));
}

static int link_cb(const struct nlmsghdr *nlh, void *data)
{
	return link_parse_reply(nlh, data) ? MNL_CB_ERROR : MNL_CB_OK;
}

static void test_link_eth0(void **state)
{
	static char buf[8192];
	struct et_link l = {};
	struct nl_sock ns = {};
	size_t n = load("link_eth0.nl", buf, sizeof(buf));

	assert_int_equal(nl_parse_buf(&ns, buf, n, 0, link_cb, &l), MNL_CB_STOP);
	assert_string_equal(l.name, "eth0");
	assert_string_equal(l.qdisc, "pfifo_fast");
	assert_int_equal(l.v.v[IFLA_MTU], 1400);
	assert_int_equal(l.v.v[IFLA_GSO_MAX_SIZE], 65536);
	assert_int_equal(l.v.v[ET_IFLA_TSO_MAX_SIZE], 65536);
	assert_true(vals_has(&l.v, ET_IFLA_GSO_IPV4_MAX_SIZE));
	assert_int_equal(l.v.v[IFLA_NUM_TX_QUEUES], 1);
}

static int feat_cb(const struct nlmsghdr *nlh, void *data);

static void test_features_eth0(void **state)
{
	static char buf[8192];
	static struct et_bitset fs;
	struct nl_sock ns = {};
	size_t n = load("features_eth0.nl", buf, sizeof(buf));
	unsigned int i;
	int found = 0;

	memset(&fs, 0, sizeof(fs));
	assert_int_equal(nl_parse_buf(&ns, buf, n, 0, feat_cb, &fs), MNL_CB_STOP);
	for (i = 0; i < fs.n; i++) {
		if (!strcmp(fs.bit[i].name, "tx-tcp-segmentation")) {
			assert_true(fs.bit[i].active);
			assert_true(fs.bit[i].changeable);
			found++;
		}
		if (!strcmp(fs.bit[i].name, "rx-checksum")) {
			assert_true(fs.bit[i].active);
			assert_false(fs.bit[i].changeable); /* [fixed] in ethtool -k */
			found++;
		}
	}
	assert_int_equal(found, 2);
	assert_non_null(feature_alias("tso"));
	assert_non_null(feature_alias("tcp-segmentation-offload"));
	assert_null(feature_alias("ts"));
}

static void test_error_extack(void **state)
{
	/* An error reply with NLMSGERR_ATTR_MSG, as the kernel sends with NETLINK_EXT_ACK. */
	char buf[256] = {};
	struct nlmsghdr *nlh = (void *)buf;
	struct nlmsgerr *err = (void *)(buf + sizeof(*nlh));
	struct nlattr *a = (void *)(buf + sizeof(*nlh) + sizeof(*err));
	const char msg[] = "requested channel counts are too low";
	struct nl_sock ns = {};

	a->nla_type = NLMSGERR_ATTR_MSG;
	a->nla_len = sizeof(*a) + sizeof(msg);
	memcpy(a + 1, msg, sizeof(msg));
	nlh->nlmsg_type = NLMSG_ERROR;
	nlh->nlmsg_flags = NLM_F_CAPPED | NLM_F_ACK_TLVS;
	nlh->nlmsg_len = sizeof(*nlh) + sizeof(*err) + ((a->nla_len + 3) & ~3);
	err->error = -EINVAL;
	err->msg.nlmsg_len = sizeof(struct nlmsghdr);
	assert_int_equal(nl_parse_buf(&ns, buf, nlh->nlmsg_len, 0, NULL, NULL), -EINVAL);
	assert_string_equal(ns.extack, msg);
	assert_non_null(strstr(nl_strerror(&ns, -EINVAL), msg));
}

static void test_privflags_eopnotsupp(void **state)
{
	char buf[64];
	struct nl_sock ns = {};
	size_t n = load("privflags_eopnotsupp.nl", buf, sizeof(buf));

	assert_int_equal(nl_parse_buf(&ns, buf, n, 0, NULL, NULL), -EOPNOTSUPP);
}

static void test_truncated_reply(void **state)
{
	static char buf[8192];
	struct et_vals v = {};
	size_t n = load("coalesce_eth0.nl", buf, sizeof(buf));
	struct nl_sock ns = {};
	struct obj_ctx c = { .obj = &et_coalesce };

	/* a cut-off message is not parsed past its end */
	assert_true(nl_parse_buf(&ns, buf, 30, 0, obj_cb, &c) == MNL_CB_OK);
	(void)n;
	(void)v;
}

/* Reuse the tool's own features reply parsing through the bitset parser. */
#include <linux/ethtool_netlink.h>
#include <linux/genetlink.h>
static int feat_attr_cb(const struct nlattr *a, void *data)
{
	switch (mnl_attr_get_type(a)) {
	case ETHTOOL_A_FEATURES_HW:
		features_parse_bitset(a, data, BS_CHANGEABLE);
		break;
	case ETHTOOL_A_FEATURES_ACTIVE:
		features_parse_bitset(a, data, BS_ACTIVE);
		break;
	}
	return MNL_CB_OK;
}

static int feat_cb(const struct nlmsghdr *nlh, void *data)
{
	mnl_attr_parse(nlh, GENL_HDRLEN, feat_attr_cb, data);
	return MNL_CB_OK;
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_coalesce_eth0),
		cmocka_unit_test(test_coalesce_future_attrs),
		cmocka_unit_test(test_rings_eth0),
		cmocka_unit_test(test_channels_eth0),
		cmocka_unit_test(test_link_eth0),
		cmocka_unit_test(test_features_eth0),
		cmocka_unit_test(test_error_extack),
		cmocka_unit_test(test_privflags_eopnotsupp),
		cmocka_unit_test(test_truncated_reply),
	};

	return cmocka_run_group_tests_name("nlparse", tests, NULL, NULL);
}
