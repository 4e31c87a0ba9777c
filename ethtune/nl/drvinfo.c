/* Driver identity (SIOCETHTOOL: no netlink message exists) and link speed/state (netlink). */
#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>
#include <net/if.h>
#include <sys/ioctl.h>
#include <sys/socket.h>
#include <linux/ethtool.h>
#include <linux/ethtool_netlink.h>
#include <linux/genetlink.h>
#include <linux/sockios.h>

#include "nl/devobj.h"

static int drvinfo_ioctl(const char *dev, struct et_drvinfo *d)
{
	struct ethtool_drvinfo info = { .cmd = ETHTOOL_GDRVINFO };
	struct ifreq ifr = {};
	int fd, ret = 0;

	fd = socket(AF_INET, SOCK_DGRAM | SOCK_CLOEXEC, 0);
	if (fd < 0)
		return -errno;
	snprintf(ifr.ifr_name, sizeof(ifr.ifr_name), "%s", dev);
	ifr.ifr_data = (void *)&info;
	if (ioctl(fd, SIOCETHTOOL, &ifr) < 0)
		ret = -errno;
	close(fd);
	if (ret)
		return ret;
	snprintf(d->driver, sizeof(d->driver), "%s", info.driver);
	snprintf(d->version, sizeof(d->version), "%s", info.version);
	snprintf(d->fw, sizeof(d->fw), "%s", info.fw_version);
	snprintf(d->bus, sizeof(d->bus), "%s", info.bus_info);
	d->ok = true;
	return 0;
}

static int linkmodes_attr_cb(const struct nlattr *a, void *data)
{
	struct et_drvinfo *d = data;

	switch (mnl_attr_get_type(a)) {
	case ETHTOOL_A_LINKMODES_SPEED:
		if (mnl_attr_validate(a, MNL_TYPE_U32) >= 0 && mnl_attr_get_u32(a) != (uint32_t)-1)
			d->speed = (int)mnl_attr_get_u32(a);
		break;
	case ETHTOOL_A_LINKMODES_DUPLEX:
		if (mnl_attr_validate(a, MNL_TYPE_U8) >= 0 && mnl_attr_get_u8(a) <= 1)
			d->duplex = mnl_attr_get_u8(a);
		break;
	}
	return MNL_CB_OK;
}

static int linkstate_attr_cb(const struct nlattr *a, void *data)
{
	struct et_drvinfo *d = data;

	if (mnl_attr_get_type(a) == ETHTOOL_A_LINKSTATE_LINK &&
	    mnl_attr_validate(a, MNL_TYPE_U8) >= 0)
		d->link = mnl_attr_get_u8(a);
	return MNL_CB_OK;
}

static int linkmodes_cb(const struct nlmsghdr *nlh, void *data)
{
	mnl_attr_parse(nlh, GENL_HDRLEN, linkmodes_attr_cb, data);
	return MNL_CB_OK;
}

static int linkstate_cb(const struct nlmsghdr *nlh, void *data)
{
	mnl_attr_parse(nlh, GENL_HDRLEN, linkstate_attr_cb, data);
	return MNL_CB_OK;
}

static int simple_get(struct nl_sock *ns, uint8_t cmd, uint16_t hdr_attr, const char *dev,
		      mnl_cb_t cb, void *data)
{
	struct nlmsghdr *nlh = ethnl_request(ns, cmd, hdr_attr, dev, ETHTOOL_FLAG_COMPACT_BITSETS);

	return nl_talk(ns, nlh, cb, data);
}

int drvinfo_get(struct nl_sock *ethnl, const char *dev, struct et_drvinfo *d)
{
	int ret;

	memset(d, 0, sizeof(*d));
	d->speed = d->duplex = d->link = -1;
	ret = drvinfo_ioctl(dev, d);
	/* Speed and link are optional: many virtual devices answer EOPNOTSUPP. */
	simple_get(ethnl, ETHTOOL_MSG_LINKMODES_GET, ETHTOOL_A_LINKMODES_HEADER, dev, linkmodes_cb,
		   d);
	simple_get(ethnl, ETHTOOL_MSG_LINKSTATE_GET, ETHTOOL_A_LINKSTATE_HEADER, dev, linkstate_cb,
		   d);
	return ret;
}
