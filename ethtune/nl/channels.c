/* Channels object (ethtool -l/-L): parameter table with maxima and the GET reply callback. */
#include <linux/ethtool_netlink.h>

#include "nl/devobj.h"

static const struct et_param channels_params[] = {
	{ .key = "rx",
	  .attr = ETHTOOL_A_CHANNELS_RX_COUNT,
	  .type = ET_U32,
	  .max_attr = ETHTOOL_A_CHANNELS_RX_MAX,
	  .max_key = "rx-max" },
	{ .key = "tx",
	  .attr = ETHTOOL_A_CHANNELS_TX_COUNT,
	  .type = ET_U32,
	  .max_attr = ETHTOOL_A_CHANNELS_TX_MAX,
	  .max_key = "tx-max" },
	{ .key = "other",
	  .attr = ETHTOOL_A_CHANNELS_OTHER_COUNT,
	  .type = ET_U32,
	  .max_attr = ETHTOOL_A_CHANNELS_OTHER_MAX,
	  .max_key = "other-max" },
	{ .key = "combined",
	  .attr = ETHTOOL_A_CHANNELS_COMBINED_COUNT,
	  .type = ET_U32,
	  .max_attr = ETHTOOL_A_CHANNELS_COMBINED_MAX,
	  .max_key = "combined-max" },
};

static int channels_reply_cb(const struct nlmsghdr *nlh, void *vals)
{
	return obj_parse_reply(&et_channels, nlh, vals);
}

const struct et_object et_channels = {
	.name = "channels",
	.title = "Channel parameters",
	.get_cmd = ETHTOOL_MSG_CHANNELS_GET,
	.set_cmd = ETHTOOL_MSG_CHANNELS_SET,
	.hdr_attr = ETHTOOL_A_CHANNELS_HEADER,
	.params = channels_params,
	.n_params = sizeof(channels_params) / sizeof(channels_params[0]),
	.reply_cb = channels_reply_cb,
};
