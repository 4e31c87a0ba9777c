/* Features object (ethtool -k/-K): verbose bitsets, ethtool's short names, checked SET. */
#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <linux/ethtool_netlink.h>
#include <linux/genetlink.h>

#include "nl/devobj.h"
#include "util/ethtune.h"
#include "out/json_print.h"

/* ethtool -K short names and the kernel features they stand for (TX-relevant ones first). */
struct feature_alias {
	const char *name, *longname;
	const char *const feats[6];
};

static const struct feature_alias aliases[] = {
	{ "sg", "scatter-gather", { "tx-scatter-gather", NULL } },
	{ "tso",
	  "tcp-segmentation-offload",
	  { "tx-tcp-segmentation", "tx-tcp-ecn-segmentation", "tx-tcp-mangleid-segmentation",
	    "tx-tcp6-segmentation", "tx-tcp-accecn-segmentation", NULL } },
	{ "gso", "generic-segmentation-offload", { "tx-generic-segmentation", NULL } },
	{ "gro", "generic-receive-offload", { "rx-gro", NULL } },
	{ "tx",
	  "tx-checksumming",
	  { "tx-checksum-ipv4", "tx-checksum-ip-generic", "tx-checksum-ipv6",
	    "tx-checksum-fcoe-crc", "tx-checksum-sctp", NULL } },
	{ "rx", "rx-checksumming", { "rx-checksum", NULL } },
	{ "lro", "large-receive-offload", { "rx-lro", NULL } },
};

const char *const *feature_alias(const char *name)
{
	size_t i;

	for (i = 0; i < sizeof(aliases) / sizeof(aliases[0]); i++)
		if (!strcmp(aliases[i].name, name) || !strcmp(aliases[i].longname, name))
			return aliases[i].feats;
	return NULL;
}

const char *feature_alias_at(unsigned int i)
{
	return i < sizeof(aliases) / sizeof(aliases[0]) ? aliases[i].name : NULL;
}

static int features_attr_cb(const struct nlattr *a, void *data)
{
	struct et_bitset *fs = data;

	switch (mnl_attr_get_type(a)) {
	case ETHTOOL_A_FEATURES_HW:
		features_parse_bitset(a, fs, BS_CHANGEABLE);
		break;
	case ETHTOOL_A_FEATURES_ACTIVE:
		features_parse_bitset(a, fs, BS_ACTIVE);
		break;
	case ETHTOOL_A_FEATURES_WANTED:
		features_parse_bitset(a, fs, BS_WANTED);
		break;
	}
	return MNL_CB_OK;
}

static int features_reply_cb(const struct nlmsghdr *nlh, void *data)
{
	return mnl_attr_parse(nlh, GENL_HDRLEN, features_attr_cb, data) < 0 ? MNL_CB_ERROR
									    : MNL_CB_OK;
}

int features_get(struct nl_sock *ns, const char *dev, struct et_bitset *fs)
{
	struct nlmsghdr *nlh =
		ethnl_request(ns, ETHTOOL_MSG_FEATURES_GET, ETHTOOL_A_FEATURES_HEADER, dev, 0);

	memset(fs, 0, sizeof(*fs));
	return nl_talk(ns, nlh, features_reply_cb, fs);
}

int features_set(struct nl_sock *ns, const char *dev, const char *const *names, const bool *vals,
		 unsigned int n)
{
	struct nlmsghdr *nlh =
		ethnl_request(ns, ETHTOOL_MSG_FEATURES_SET, ETHTOOL_A_FEATURES_HEADER, dev, 0);

	bitset_put_named(nlh, ETHTOOL_A_FEATURES_WANTED, names, vals, n);
	return nl_talk(ns, nlh, NULL, NULL);
}

static int find(const struct et_bitset *fs, const char *name)
{
	unsigned int i;

	for (i = 0; i < fs->n; i++)
		if (!strcmp(fs->bit[i].name, name))
			return (int)i;
	return -1;
}

void features_show(const struct et_bitset *fs)
{
	size_t i;
	unsigned int j;

	open_json_object("features");
	print_text("Features:\n");
	for (i = 0; i < sizeof(aliases) / sizeof(aliases[0]); i++) {
		const struct feature_alias *a = &aliases[i];
		bool any = false, on = false, fixed = true;
		char fmt[64];

		for (j = 0; a->feats[j]; j++) {
			int k = find(fs, a->feats[j]);

			if (k < 0)
				continue;
			any = true;
			on |= fs->bit[k].active;
			fixed &= !fs->bit[k].changeable;
		}
		snprintf(fmt, sizeof(fmt), "%-22s %%s%s\n", a->name,
			 any && fixed ? " [fixed]" : "");
		if (!any)
			print_na(a->name, fmt);
		else
			print_on_off(PRINT_ANY, a->name, fmt, on);
	}
	close_json_object();
	if (et_opts.verbose) {
		open_json_object("features-all");
		print_text("All features:\n");
		for (j = 0; j < fs->n; j++) {
			char fmt[80];

			snprintf(fmt, sizeof(fmt), "  %-32s %%s%s\n", fs->bit[j].name,
				 fs->bit[j].changeable ? "" : " [fixed]");
			print_on_off(PRINT_ANY, fs->bit[j].name, fmt, fs->bit[j].active);
		}
		close_json_object();
	}
	print_nl();
}
