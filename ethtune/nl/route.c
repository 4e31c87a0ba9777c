/* What a link down would take from a device: routes and IPv6 addresses a user configured. */
#include <errno.h>
#include <string.h>
#include <sys/socket.h>
#include <linux/if_addr.h>
#include <linux/rtnetlink.h>
#include <libmnl/libmnl.h>

#include "nl/devobj.h"
#include "nl/nl.h"

/* A route through the device that the kernel does not make again when the link comes up: not
 * from an address (proto kernel), nor from router advertisements, nor a local/broadcast one. */
int link_lost_route_cb(const struct nlmsghdr *nlh, void *data)
{
	const struct rtmsg *rtm = mnl_nlmsg_get_payload(nlh);
	struct link_lost_ctx *x = data;
	const struct nlattr *a;

	if (nlh->nlmsg_type != RTM_NEWROUTE)
		return MNL_CB_OK;
	if (rtm->rtm_protocol == RTPROT_KERNEL || rtm->rtm_protocol == RTPROT_RA ||
	    rtm->rtm_type != RTN_UNICAST || rtm->rtm_table == RT_TABLE_LOCAL)
		return MNL_CB_OK;
	mnl_attr_for_each(a, nlh, sizeof(*rtm))
		if (mnl_attr_get_type(a) == RTA_OIF && mnl_attr_get_payload_len(a) >= 4 &&
		    (int)mnl_attr_get_u32(a) == x->ifindex)
			x->l->routes++;
	return MNL_CB_OK;
}

/* An IPv6 address a user gave the device (permanent, not link-scope): gone on link down unless
 * keep_addr_on_down is set, which we do not rely on. */
int link_lost_addr_cb(const struct nlmsghdr *nlh, void *data)
{
	const struct ifaddrmsg *ifa = mnl_nlmsg_get_payload(nlh);
	struct link_lost_ctx *x = data;
	uint32_t flags = ifa->ifa_flags;
	const struct nlattr *a;

	if (nlh->nlmsg_type != RTM_NEWADDR || (int)ifa->ifa_index != x->ifindex ||
	    ifa->ifa_family != AF_INET6 || ifa->ifa_scope == RT_SCOPE_LINK)
		return MNL_CB_OK;
	mnl_attr_for_each(a, nlh, sizeof(*ifa))
		if (mnl_attr_get_type(a) == IFA_FLAGS && mnl_attr_get_payload_len(a) >= 4)
			flags = mnl_attr_get_u32(a);
	if (flags & IFA_F_PERMANENT)
		x->l->addrs6++;
	return MNL_CB_OK;
}

static int dump(struct nl_sock *rt, uint16_t type, unsigned char family, mnl_cb_t cb,
		struct link_lost_ctx *x)
{
	struct nlmsghdr *nlh = nl_msg_start(rt, type, NLM_F_DUMP);

	if (type == RTM_GETROUTE) {
		struct rtmsg *rtm = mnl_nlmsg_put_extra_header(nlh, sizeof(*rtm));

		rtm->rtm_family = family;
	} else {
		struct ifaddrmsg *ifa = mnl_nlmsg_put_extra_header(nlh, sizeof(*ifa));

		ifa->ifa_family = family;
	}
	return nl_talk(rt, nlh, cb, x);
}

int link_down_losses(int ifindex, struct link_lost *l)
{
	struct link_lost_ctx x = { .ifindex = ifindex, .l = l };
	struct nl_sock rt;
	int ret;

	memset(l, 0, sizeof(*l));
	ret = nl_open_rtnl(&rt);
	if (ret)
		return ret;
	ret = dump(&rt, RTM_GETROUTE, AF_INET, link_lost_route_cb, &x);
	if (!ret)
		ret = dump(&rt, RTM_GETROUTE, AF_INET6, link_lost_route_cb, &x);
	if (!ret)
		ret = dump(&rt, RTM_GETADDR, AF_INET6, link_lost_addr_cb, &x);
	if (ret == -EAFNOSUPPORT) /* a kernel without IPv6 */
		ret = 0;
	nl_close(&rt);
	return ret;
}
