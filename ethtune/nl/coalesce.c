/* Coalesce object (ethtool -c/-C): parameter table, GET reply callback with DIM profiles. */
#include <stdio.h>
#include <linux/genetlink.h>

#include "nl/devobj.h"
#include "nl/ethtool_attrs.h"
#include "out/json_print.h"

#define C(k, a, t)                                                                                 \
	{                                                                                          \
		.key = k, .attr = a, .type = t                                                     \
	}

static const struct et_param coalesce_params[] = {
	C("adaptive-rx", ETHTOOL_A_COALESCE_USE_ADAPTIVE_RX, ET_BOOL),
	C("adaptive-tx", ETHTOOL_A_COALESCE_USE_ADAPTIVE_TX, ET_BOOL),
	C("stats-block-usecs", ETHTOOL_A_COALESCE_STATS_BLOCK_USECS, ET_U32),
	C("sample-interval", ETHTOOL_A_COALESCE_RATE_SAMPLE_INTERVAL, ET_U32),
	C("pkt-rate-low", ETHTOOL_A_COALESCE_PKT_RATE_LOW, ET_U32),
	C("pkt-rate-high", ETHTOOL_A_COALESCE_PKT_RATE_HIGH, ET_U32),
	C("rx-usecs", ETHTOOL_A_COALESCE_RX_USECS, ET_U32),
	C("rx-frames", ETHTOOL_A_COALESCE_RX_MAX_FRAMES, ET_U32),
	C("rx-usecs-irq", ETHTOOL_A_COALESCE_RX_USECS_IRQ, ET_U32),
	C("rx-frames-irq", ETHTOOL_A_COALESCE_RX_MAX_FRAMES_IRQ, ET_U32),
	C("tx-usecs", ETHTOOL_A_COALESCE_TX_USECS, ET_U32),
	C("tx-frames", ETHTOOL_A_COALESCE_TX_MAX_FRAMES, ET_U32),
	C("tx-usecs-irq", ETHTOOL_A_COALESCE_TX_USECS_IRQ, ET_U32),
	C("tx-frames-irq", ETHTOOL_A_COALESCE_TX_MAX_FRAMES_IRQ, ET_U32),
	C("rx-usecs-low", ETHTOOL_A_COALESCE_RX_USECS_LOW, ET_U32),
	C("rx-frames-low", ETHTOOL_A_COALESCE_RX_MAX_FRAMES_LOW, ET_U32),
	C("tx-usecs-low", ETHTOOL_A_COALESCE_TX_USECS_LOW, ET_U32),
	C("tx-frames-low", ETHTOOL_A_COALESCE_TX_MAX_FRAMES_LOW, ET_U32),
	C("rx-usecs-high", ETHTOOL_A_COALESCE_RX_USECS_HIGH, ET_U32),
	C("rx-frames-high", ETHTOOL_A_COALESCE_RX_MAX_FRAMES_HIGH, ET_U32),
	C("tx-usecs-high", ETHTOOL_A_COALESCE_TX_USECS_HIGH, ET_U32),
	C("tx-frames-high", ETHTOOL_A_COALESCE_TX_MAX_FRAMES_HIGH, ET_U32),
	C("cqe-mode-rx", ETHTOOL_A_COALESCE_USE_CQE_MODE_RX, ET_BOOL),
	C("cqe-mode-tx", ETHTOOL_A_COALESCE_USE_CQE_MODE_TX, ET_BOOL),
	C("tx-aggr-max-bytes", ET_A_COALESCE_TX_AGGR_MAX_BYTES, ET_U32),
	C("tx-aggr-max-frames", ET_A_COALESCE_TX_AGGR_MAX_FRAMES, ET_U32),
	C("tx-aggr-time-usecs", ET_A_COALESCE_TX_AGGR_TIME_USECS, ET_U32),
	C("rx-cqe-frames", ET_A_COALESCE_RX_CQE_FRAMES, ET_U32),
	C("rx-cqe-nsecs", ET_A_COALESCE_RX_CQE_NSECS, ET_U32),
};

struct prof_ctx {
	struct et_vals *v;
	int which;
};

static int irqmod_cb(const struct nlattr *attr, void *data)
{
	struct prof_ctx *c = data;
	unsigned int i = c->v->profile[c->which].n;

	if (mnl_attr_validate(attr, MNL_TYPE_U32) < 0)
		return MNL_CB_OK;
	switch (mnl_attr_get_type(attr)) {
	case ET_A_IRQ_MODERATION_USEC:
		c->v->profile[c->which].usec[i] = mnl_attr_get_u32(attr);
		break;
	case ET_A_IRQ_MODERATION_PKTS:
		c->v->profile[c->which].pkts[i] = mnl_attr_get_u32(attr);
		break;
	case ET_A_IRQ_MODERATION_COMPS:
		c->v->profile[c->which].comps[i] = mnl_attr_get_u32(attr);
		break;
	}
	return MNL_CB_OK;
}

static int profile_cb(const struct nlattr *attr, void *data)
{
	struct prof_ctx *c = data;

	if (mnl_attr_get_type(attr) != ET_A_PROFILE_IRQ_MODERATION ||
	    c->v->profile[c->which].n >= 8)
		return MNL_CB_OK;
	mnl_attr_parse_nested(attr, irqmod_cb, c);
	c->v->profile[c->which].n++;
	return MNL_CB_OK;
}

static int top_cb(const struct nlattr *attr, void *data)
{
	struct prof_ctx *c = data;
	uint16_t t = mnl_attr_get_type(attr);

	if (t != ET_A_COALESCE_RX_PROFILE && t != ET_A_COALESCE_TX_PROFILE)
		return MNL_CB_OK;
	c->which = t == ET_A_COALESCE_TX_PROFILE;
	c->v->profile[c->which].n = 0;
	vals_set(c->v, t, 1);
	mnl_attr_parse_nested(attr, profile_cb, c);
	return MNL_CB_OK;
}

/* GET reply: the table's scalars, then the nested DIM profiles (v6.10+). */
static int coalesce_reply_cb(const struct nlmsghdr *nlh, void *data)
{
	struct prof_ctx c = { .v = data };
	int ret = obj_parse_reply(&et_coalesce, nlh, data);

	if (ret)
		return ret;
	mnl_attr_parse(nlh, GENL_HDRLEN, top_cb, &c);
	return 0;
}

static void coalesce_show_extra(const struct et_vals *v)
{
	static const char *const names[2] = { "rx-profile", "tx-profile" };
	static const unsigned int attrs[2] = { ET_A_COALESCE_RX_PROFILE, ET_A_COALESCE_TX_PROFILE };
	unsigned int w, i;

	for (w = 0; w < 2; w++) {
		if (!vals_has(v, attrs[w])) {
			print_na(names[w], w == 0 ? "rx-profile             %s\n"
						  : "tx-profile             %s\n");
			continue;
		}
		print_text("%-22s ", names[w]);
		open_json_array(PRINT_JSON, names[w]);
		for (i = 0; i < v->profile[w].n; i++) {
			open_json_object(NULL);
			print_uint(PRINT_ANY, "usec", "{usec %llu,", v->profile[w].usec[i]);
			print_uint(PRINT_ANY, "pkts", " pkts %llu,", v->profile[w].pkts[i]);
			print_uint(PRINT_ANY, "comps", " comps %llu}", v->profile[w].comps[i]);
			close_json_object();
			print_text(i + 1 < v->profile[w].n ? " " : "");
		}
		close_json_array(PRINT_JSON, NULL);
		print_text("\n");
	}
}

const struct et_object et_coalesce = {
	.name = "coalesce",
	.title = "Coalesce parameters",
	.get_cmd = ETHTOOL_MSG_COALESCE_GET,
	.set_cmd = ETHTOOL_MSG_COALESCE_SET,
	.hdr_attr = ETHTOOL_A_COALESCE_HEADER,
	.params = coalesce_params,
	.n_params = sizeof(coalesce_params) / sizeof(coalesce_params[0]),
	.reply_cb = coalesce_reply_cb,
	.show_extra = coalesce_show_extra,
};
