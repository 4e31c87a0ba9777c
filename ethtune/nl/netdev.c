/* netdev generic netlink family: opening it, "uint" attributes, per-device dumps. */
#include <errno.h>
#include <string.h>
#include <linux/genetlink.h>

#include "nl/netdev.h"

int netdev_open(struct nl_sock *ns)
{
	return nl_open_genl(ns, "netdev");
}

int netdev_attr_uint(const struct nlattr *attr, uint64_t *out)
{
	/* The spec's "uint" is as wide as the value needs: 4 bytes, or 8 above 32 bits. */
	switch (mnl_attr_get_payload_len(attr)) {
	case 4:
		*out = mnl_attr_get_u32(attr);
		return 0;
	case 8:
		*out = mnl_attr_get_u64(attr);
		return 0;
	default:
		return -EINVAL;
	}
}

int netdev_dump(struct nl_sock *ns, uint8_t cmd, uint16_t ifindex_attr, int ifindex, mnl_cb_t cb,
		void *data)
{
	struct nlmsghdr *nlh = nl_msg_start(ns, cmd, NLM_F_DUMP);

	mnl_attr_put_u32(nlh, ifindex_attr, (uint32_t)ifindex);
	return nl_talk(ns, nlh, cb, data);
}

int netdev_get(int ifindex, struct nd_dev *d)
{
	struct nl_sock ns;
	int ret;

	memset(d, 0, sizeof(*d));
	d->ifindex = ifindex;
	ret = netdev_open(&ns);
	if (ret) {
		d->napi_ret = d->queue_ret = d->qstats_ret = ret;
		return ret;
	}
	/* Each operation came in its own kernel release: one missing leaves the others. */
	d->napi_ret = napi_dump(&ns, d);
	d->queue_ret = queue_dump(&ns, d);
	d->qstats_ret = qstats_dump(&ns, d);
	nl_close(&ns);
	return 0;
}
