/* Fuzz the netlink reply parsers (ethtool objects, features bitsets, rtnetlink link, netdev napi,
 * queue and qstats dumps) on a buffer. */
#include <stddef.h>
#include <stdint.h>
#include <string.h>
#include <libmnl/libmnl.h>
#include <linux/ethtool_netlink.h>
#include <linux/genetlink.h>

#include "nl/devobj.h"
#include "nl/netdev.h"
#include "nl/nl.h"

static const struct et_object *const objs[] = { &et_coalesce, &et_rings, &et_channels };

static int obj_cb(const struct nlmsghdr *nlh, void *data)
{
	struct et_vals v;

	memset(&v, 0, sizeof(v));
	return ((const struct et_object *)data)->reply_cb(nlh, &v) ? MNL_CB_ERROR : MNL_CB_OK;
}

static int link_cb(const struct nlmsghdr *nlh, void *data)
{
	struct et_link l;

	memset(&l, 0, sizeof(l));
	return link_parse_reply(nlh, &l) ? MNL_CB_ERROR : MNL_CB_OK;
}

static int feat_attr_cb(const struct nlattr *a, void *data)
{
	if (mnl_attr_get_type(a) == ETHTOOL_A_FEATURES_HW)
		features_parse_bitset(a, data, BS_CHANGEABLE);
	else if (mnl_attr_get_type(a) == ETHTOOL_A_FEATURES_ACTIVE)
		features_parse_bitset(a, data, BS_ACTIVE);
	else if (mnl_attr_get_type(a) == ETHTOOL_A_FEATURES_WANTED)
		features_parse_bitset(a, data, BS_WANTED);
	return MNL_CB_OK;
}

static int feat_cb(const struct nlmsghdr *nlh, void *data)
{
	static struct et_bitset fs;

	memset(&fs, 0, sizeof(fs));
	return mnl_attr_parse(nlh, GENL_HDRLEN, feat_attr_cb, &fs) < 0 ? MNL_CB_ERROR : MNL_CB_OK;
}

/* The first byte picks the parser (0xf0 and up: the netdev dumps, so that the seeds from before
 * them keep their parser); the rest is what the kernel would have sent. */
int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static char buf[65536] __attribute__((aligned(4)));
	struct nl_sock ns;
	static const mnl_cb_t netdev_cbs[] = { napi_reply_cb, queue_reply_cb, qstats_reply_cb };
	static struct nd_dev d;
	unsigned int which;

	if (size < 1 || size - 1 > sizeof(buf))
		return 0;
	which = data[0] < 0xf0 ? data[0] % 5u : 5 + (data[0] - 0xf0) % 3u;
	memcpy(buf, data + 1, size - 1);
	memset(&ns, 0, sizeof(ns));
	if (which >= 5) {
		memset(&d, 0, sizeof(d));
		d.ifindex = data[0] & 1 ? 3 : 0;
		nl_parse_buf(&ns, buf, size - 1, 0, netdev_cbs[which - 5], &d);
	} else if (which < 3)
		nl_parse_buf(&ns, buf, size - 1, 0, obj_cb, (void *)objs[which]);
	else if (which == 3)
		nl_parse_buf(&ns, buf, size - 1, 0, link_cb, NULL);
	else
		nl_parse_buf(&ns, buf, size - 1, 0, feat_cb, NULL);
	return 0;
}
