/* Rings object (ethtool -g/-G): parameter table with maxima and the GET reply callback. */
#include <linux/ethtool_netlink.h>

#include "nl/devobj.h"
#include "nl/ethtool_attrs.h"

static const char *const data_split_names[] = { "auto", "off", "on", NULL };

static const struct et_param rings_params[] = {
	{ .key = "rx",
	  .attr = ETHTOOL_A_RINGS_RX,
	  .type = ET_U32,
	  .max_attr = ETHTOOL_A_RINGS_RX_MAX,
	  .max_key = "rx-max",
	  .min = 1 },
	{ .key = "rx-mini",
	  .attr = ETHTOOL_A_RINGS_RX_MINI,
	  .type = ET_U32,
	  .max_attr = ETHTOOL_A_RINGS_RX_MINI_MAX,
	  .max_key = "rx-mini-max" },
	{ .key = "rx-jumbo",
	  .attr = ETHTOOL_A_RINGS_RX_JUMBO,
	  .type = ET_U32,
	  .max_attr = ETHTOOL_A_RINGS_RX_JUMBO_MAX,
	  .max_key = "rx-jumbo-max" },
	{ .key = "tx",
	  .attr = ETHTOOL_A_RINGS_TX,
	  .type = ET_U32,
	  .max_attr = ETHTOOL_A_RINGS_TX_MAX,
	  .max_key = "tx-max",
	  .min = 1 },
	{ .key = "rx-buf-len", .attr = ETHTOOL_A_RINGS_RX_BUF_LEN, .type = ET_U32 },
	{ .key = "cqe-size", .attr = ETHTOOL_A_RINGS_CQE_SIZE, .type = ET_U32 },
	{ .key = "tx-push", .attr = ETHTOOL_A_RINGS_TX_PUSH, .type = ET_BOOL },
	{ .key = "rx-push", .attr = ET_A_RINGS_RX_PUSH, .type = ET_BOOL },
	{ .key = "tx-push-buf-len",
	  .attr = ET_A_RINGS_TX_PUSH_BUF_LEN,
	  .type = ET_U32,
	  .max_attr = ET_A_RINGS_TX_PUSH_BUF_LEN_MAX,
	  .max_key = "tx-push-buf-len-max" },
	{ .key = "tcp-data-split",
	  .attr = ETHTOOL_A_RINGS_TCP_DATA_SPLIT,
	  .type = ET_ENUM,
	  .enum_names = data_split_names },
	{ .key = "hds-thresh",
	  .attr = ET_A_RINGS_HDS_THRESH,
	  .type = ET_U32,
	  .max_attr = ET_A_RINGS_HDS_THRESH_MAX,
	  .max_key = "hds-thresh-max" },
};

static int rings_reply_cb(const struct nlmsghdr *nlh, void *vals)
{
	return obj_parse_reply(&et_rings, nlh, vals);
}

const struct et_object et_rings = {
	.name = "rings",
	.title = "Ring parameters",
	.get_cmd = ETHTOOL_MSG_RINGS_GET,
	.set_cmd = ETHTOOL_MSG_RINGS_SET,
	.hdr_attr = ETHTOOL_A_RINGS_HEADER,
	.params = rings_params,
	.n_params = sizeof(rings_params) / sizeof(rings_params[0]),
	.reply_cb = rings_reply_cb,
};
