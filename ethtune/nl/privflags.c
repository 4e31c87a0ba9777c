/* Private flags object (ethtool --show/--set-priv-flags): verbose bitset GET and SET. */
#include <stdio.h>
#include <string.h>
#include <linux/ethtool_netlink.h>
#include <linux/genetlink.h>

#include "nl/devobj.h"
#include "out/json_print.h"

static int privflags_attr_cb(const struct nlattr *a, void *data)
{
	if (mnl_attr_get_type(a) == ETHTOOL_A_PRIVFLAGS_FLAGS)
		features_parse_bitset(a, data, BS_ACTIVE);
	return MNL_CB_OK;
}

static int privflags_reply_cb(const struct nlmsghdr *nlh, void *data)
{
	return mnl_attr_parse(nlh, GENL_HDRLEN, privflags_attr_cb, data) < 0 ? MNL_CB_ERROR
									     : MNL_CB_OK;
}

int privflags_get(struct nl_sock *ns, const char *dev, struct et_bitset *pf)
{
	struct nlmsghdr *nlh =
		ethnl_request(ns, ETHTOOL_MSG_PRIVFLAGS_GET, ETHTOOL_A_PRIVFLAGS_HEADER, dev, 0);
	unsigned int i;
	int ret;

	memset(pf, 0, sizeof(*pf));
	ret = nl_talk(ns, nlh, privflags_reply_cb, pf);
	for (i = 0; i < pf->n; i++)
		pf->bit[i].changeable = true;
	return ret;
}

int privflags_set(struct nl_sock *ns, const char *dev, const char *name, bool val)
{
	struct nlmsghdr *nlh =
		ethnl_request(ns, ETHTOOL_MSG_PRIVFLAGS_SET, ETHTOOL_A_PRIVFLAGS_HEADER, dev, 0);

	bitset_put_named(nlh, ETHTOOL_A_PRIVFLAGS_FLAGS, &name, &val, 1);
	return nl_talk(ns, nlh, NULL, NULL);
}

void privflags_show(const struct et_bitset *pf)
{
	unsigned int i;

	open_json_object("priv-flags");
	print_text("Private flags:%s\n", pf->n ? "" : " none");
	for (i = 0; i < pf->n; i++) {
		char fmt[80];

		snprintf(fmt, sizeof(fmt), "%-22s %%s\n", pf->bit[i].name);
		print_on_off(PRINT_ANY, pf->bit[i].name, fmt, pf->bit[i].active);
	}
	close_json_object();
	print_nl();
}
