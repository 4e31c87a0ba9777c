/* ethtool netlink bitsets in their verbose form (names with values), used by features/privflags. */
#include <errno.h>
#include <string.h>
#include <linux/ethtool_netlink.h>

#include "nl/devobj.h"

static int find_or_add(struct et_bitset *fs, const char *name)
{
	unsigned int i;

	for (i = 0; i < fs->n; i++)
		if (!strcmp(fs->bit[i].name, name))
			return (int)i;
	if (fs->n >= ET_MAX_BITS)
		return -ENOSPC;
	memset(&fs->bit[fs->n], 0, sizeof(fs->bit[0]));
	strncpy(fs->bit[fs->n].name, name, sizeof(fs->bit[0].name) - 1);
	return (int)fs->n++;
}

struct bit_ctx {
	const char *name;
	bool value;
};

static int bit_attr_cb(const struct nlattr *a, void *data)
{
	struct bit_ctx *b = data;

	switch (mnl_attr_get_type(a)) {
	case ETHTOOL_A_BITSET_BIT_NAME:
		if (mnl_attr_validate(a, MNL_TYPE_NUL_STRING) >= 0)
			b->name = mnl_attr_get_str(a);
		break;
	case ETHTOOL_A_BITSET_BIT_VALUE:
		b->value = true;
		break;
	}
	return MNL_CB_OK;
}

struct bits_ctx {
	struct et_bitset *fs;
	enum et_bitset_part which;
	bool nomask;
};

static int bits_cb(const struct nlattr *a, void *data)
{
	struct bits_ctx *c = data;
	struct bit_ctx b = {};
	int i;

	if (mnl_attr_get_type(a) != ETHTOOL_A_BITSET_BITS_BIT)
		return MNL_CB_OK;
	mnl_attr_parse_nested(a, bit_attr_cb, &b);
	if (!b.name)
		return MNL_CB_OK;
	/* Without a mask every listed bit is set; with one, VALUE says whether it is. */
	i = find_or_add(c->fs, b.name);
	if (i < 0)
		return MNL_CB_OK;
	if (c->nomask)
		b.value = true;
	switch (c->which) {
	case BS_ACTIVE:
		c->fs->bit[i].active = b.value;
		break;
	case BS_CHANGEABLE:
		c->fs->bit[i].changeable = b.value;
		break;
	case BS_WANTED:
		c->fs->bit[i].wanted = b.value;
		break;
	}
	return MNL_CB_OK;
}

static int bitset_flags_cb(const struct nlattr *a, void *data)
{
	struct bits_ctx *c = data;

	if (mnl_attr_get_type(a) == ETHTOOL_A_BITSET_NOMASK)
		c->nomask = true;
	return MNL_CB_OK;
}

static int bitset_bits_cb(const struct nlattr *a, void *data)
{
	if (mnl_attr_get_type(a) == ETHTOOL_A_BITSET_BITS)
		mnl_attr_parse_nested(a, bits_cb, data);
	return MNL_CB_OK;
}

int features_parse_bitset(const struct nlattr *attr, struct et_bitset *fs,
			  enum et_bitset_part which)
{
	struct bits_ctx c = { .fs = fs, .which = which };

	if (mnl_attr_parse_nested(attr, bitset_flags_cb, &c) < 0)
		return -EBADMSG;
	if (mnl_attr_parse_nested(attr, bitset_bits_cb, &c) < 0)
		return -EBADMSG;
	return 0;
}

/* Append a bitset that changes only the named bits: each BIT with NAME and VALUE if on. */
void bitset_put_named(struct nlmsghdr *nlh, uint16_t type, const char *const *names,
		      const bool *vals, unsigned int n)
{
	struct nlattr *set = mnl_attr_nest_start(nlh, type);
	struct nlattr *bits = mnl_attr_nest_start(nlh, ETHTOOL_A_BITSET_BITS);
	unsigned int i;

	for (i = 0; i < n; i++) {
		struct nlattr *bit = mnl_attr_nest_start(nlh, ETHTOOL_A_BITSET_BITS_BIT);

		mnl_attr_put_strz(nlh, ETHTOOL_A_BITSET_BIT_NAME, names[i]);
		if (vals[i])
			mnl_attr_put(nlh, ETHTOOL_A_BITSET_BIT_VALUE, 0, NULL);
		mnl_attr_nest_end(nlh, bit);
	}
	mnl_attr_nest_end(nlh, bits);
	mnl_attr_nest_end(nlh, set);
}
