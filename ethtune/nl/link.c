/* Link object over rtnetlink: MTU, GSO/TSO/GRO limits, txqueuelen, qdisc; GET reply and SET. */
#include <errno.h>
#include <time.h>
#include <stdio.h>
#include <string.h>
#include <net/if.h>
#include <linux/if_link.h>
#include <linux/rtnetlink.h>

#include "nl/devobj.h"
#include "nl/ethtool_attrs.h"
#include "util/ethtune.h"

/* Settable ones carry their rtnetlink attribute; read-only limits are marked ro. */
const struct et_param link_params[] = {
	{ .key = "mtu", .attr = IFLA_MTU, .type = ET_U32, .min = 68 },
	{ .key = "min-mtu", .attr = IFLA_MIN_MTU, .type = ET_U32, .ro = true },
	{ .key = "max-mtu", .attr = IFLA_MAX_MTU, .type = ET_U32, .ro = true },
	{ .key = "gso-max-size", .attr = IFLA_GSO_MAX_SIZE, .type = ET_U32, .min = 1 },
	{ .key = "gso-max-segs", .attr = IFLA_GSO_MAX_SEGS, .type = ET_U32, .min = 1 },
	{ .key = "gso-ipv4-max-size", .attr = ET_IFLA_GSO_IPV4_MAX_SIZE, .type = ET_U32, .min = 1 },
	{ .key = "tso-max-size", .attr = ET_IFLA_TSO_MAX_SIZE, .type = ET_U32, .ro = true },
	{ .key = "tso-max-segs", .attr = ET_IFLA_TSO_MAX_SEGS, .type = ET_U32, .ro = true },
	{ .key = "gro-max-size", .attr = ET_IFLA_GRO_MAX_SIZE, .type = ET_U32 },
	{ .key = "gro-ipv4-max-size", .attr = ET_IFLA_GRO_IPV4_MAX_SIZE, .type = ET_U32 },
	{ .key = "txqueuelen", .attr = IFLA_TXQLEN, .type = ET_U32 },
	{ .key = "num-tx-queues", .attr = IFLA_NUM_TX_QUEUES, .type = ET_U32, .ro = true },
	{ .key = "num-rx-queues", .attr = IFLA_NUM_RX_QUEUES, .type = ET_U32, .ro = true },
	{ .key = "carrier", .attr = IFLA_CARRIER, .type = ET_U8, .ro = true },
};
const unsigned int n_link_params = sizeof(link_params) / sizeof(link_params[0]);

const struct et_param *link_param(const char *key)
{
	unsigned int i;

	for (i = 0; i < n_link_params; i++)
		if (!strcmp(link_params[i].key, key))
			return &link_params[i];
	return NULL;
}

static int linkinfo_cb(const struct nlattr *a, void *data)
{
	struct et_link *l = data;

	if (mnl_attr_get_type(a) == IFLA_INFO_KIND &&
	    mnl_attr_validate(a, MNL_TYPE_NUL_STRING) >= 0)
		snprintf(l->kind, sizeof(l->kind), "%s", mnl_attr_get_str(a));
	return MNL_CB_OK;
}

static const char *const operstates[] = { "UNKNOWN", "NOTPRESENT", "DOWN", "LOWERLAYERDOWN",
					  "TESTING", "DORMANT",	   "UP" };

static int link_attr_cb(const struct nlattr *a, void *data)
{
	struct et_link *l = data;
	uint16_t t = mnl_attr_get_type(a);
	unsigned int i;

	switch (t) {
	case IFLA_IFNAME:
		if (mnl_attr_validate(a, MNL_TYPE_NUL_STRING) >= 0)
			snprintf(l->name, sizeof(l->name), "%s", mnl_attr_get_str(a));
		return MNL_CB_OK;
	case IFLA_QDISC:
		if (mnl_attr_validate(a, MNL_TYPE_NUL_STRING) >= 0)
			snprintf(l->qdisc, sizeof(l->qdisc), "%s", mnl_attr_get_str(a));
		return MNL_CB_OK;
	case IFLA_PARENT_DEV_BUS_NAME:
		if (mnl_attr_validate(a, MNL_TYPE_NUL_STRING) >= 0)
			snprintf(l->parent_bus, sizeof(l->parent_bus), "%s", mnl_attr_get_str(a));
		return MNL_CB_OK;
	case IFLA_PARENT_DEV_NAME:
		if (mnl_attr_validate(a, MNL_TYPE_NUL_STRING) >= 0)
			snprintf(l->parent_dev, sizeof(l->parent_dev), "%s", mnl_attr_get_str(a));
		return MNL_CB_OK;
	case IFLA_OPERSTATE:
		if (mnl_attr_validate(a, MNL_TYPE_U8) >= 0 &&
		    mnl_attr_get_u8(a) < sizeof(operstates) / sizeof(operstates[0]))
			snprintf(l->operstate, sizeof(l->operstate), "%s",
				 operstates[mnl_attr_get_u8(a)]);
		return MNL_CB_OK;
	case IFLA_LINKINFO:
		mnl_attr_parse_nested(a, linkinfo_cb, l);
		return MNL_CB_OK;
	}
	for (i = 0; i < n_link_params; i++) {
		if (link_params[i].attr != t)
			continue;
		if (link_params[i].type == ET_U8) {
			if (mnl_attr_validate(a, MNL_TYPE_U8) >= 0)
				vals_set(&l->v, t, mnl_attr_get_u8(a));
		} else if (mnl_attr_validate(a, MNL_TYPE_U32) >= 0) {
			vals_set(&l->v, t, mnl_attr_get_u32(a));
		}
	}
	return MNL_CB_OK;
}

int link_parse_reply(const struct nlmsghdr *nlh, struct et_link *l)
{
	const struct ifinfomsg *ifm = mnl_nlmsg_get_payload(nlh);

	if (nlh->nlmsg_type != RTM_NEWLINK || nlh->nlmsg_len < mnl_nlmsg_size(sizeof(*ifm)))
		return -EBADMSG;
	l->ifindex = ifm->ifi_index;
	l->flags = ifm->ifi_flags;
	return mnl_attr_parse(nlh, sizeof(*ifm), link_attr_cb, l) < 0 ? -EBADMSG : 0;
}

static int link_reply_cb(const struct nlmsghdr *nlh, void *data)
{
	return link_parse_reply(nlh, data) ? MNL_CB_ERROR : MNL_CB_OK;
}

int link_get(struct nl_sock *rt, const char *dev, struct et_link *l)
{
	struct nlmsghdr *nlh = nl_msg_start(rt, RTM_GETLINK, 0);
	struct ifinfomsg *ifm = mnl_nlmsg_put_extra_header(nlh, sizeof(*ifm));

	memset(l, 0, sizeof(*l));
	ifm->ifi_family = AF_UNSPEC;
	if (strlen(dev) >= IFNAMSIZ)
		return -ENODEV;
	mnl_attr_put_strz(nlh, IFLA_IFNAME, dev);
	mnl_attr_put_u32(nlh, IFLA_EXT_MASK, RTEXT_FILTER_SKIP_STATS);
	return nl_talk(rt, nlh, link_reply_cb, l);
}

/* One RTM_NEWLINK carrying every change; the kernel applies them in order. */
int link_set(struct nl_sock *rt, int ifindex, const struct et_change *ch, unsigned int n)
{
	struct nlmsghdr *nlh = nl_msg_start(rt, RTM_NEWLINK, 0);
	struct ifinfomsg *ifm = mnl_nlmsg_put_extra_header(nlh, sizeof(*ifm));
	unsigned int i;

	ifm->ifi_family = AF_UNSPEC;
	ifm->ifi_index = ifindex;
	for (i = 0; i < n; i++)
		mnl_attr_put_u32(nlh, ch[i].p->attr, (uint32_t)ch[i].val);
	return nl_talk(rt, nlh, NULL, NULL);
}

int link_get_dev(const char *dev, struct et_link *l)
{
	struct nl_sock rt;
	int ret;

	memset(l, 0, sizeof(*l));
	ret = nl_open_rtnl(&rt);
	if (ret)
		return ret;
	ret = link_get(&rt, dev, l);
	nl_close(&rt);
	return ret;
}

int link_admin(struct nl_sock *rt, int ifindex, bool up)
{
	struct nlmsghdr *nlh = nl_msg_start(rt, RTM_NEWLINK, 0);
	struct ifinfomsg *ifm = mnl_nlmsg_put_extra_header(nlh, sizeof(*ifm));

	ifm->ifi_family = AF_UNSPEC;
	ifm->ifi_index = ifindex;
	ifm->ifi_flags = up ? IFF_UP : 0;
	ifm->ifi_change = IFF_UP;
	return nl_talk(rt, nlh, NULL, NULL);
}

int link_wait_up(const char *dev, double timeout_s)
{
	double end = et_now_s() + timeout_s;
	struct et_link l;

	for (;;) {
		if (link_get_dev(dev, &l))
			return -ENODEV;
		if (!strcmp(l.operstate, "UP") || !strcmp(l.operstate, "UNKNOWN"))
			return 0;
		if (et_now_s() > end)
			return -ETIMEDOUT;
		nanosleep(&(struct timespec){ 0, 100 * 1000000L }, NULL);
	}
}
