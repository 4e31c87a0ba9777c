/* NAPI object (netdev napi-get/napi-set): parameter table, GET reply callback, SET request. */
#include <errno.h>
#include <string.h>
#include <linux/genetlink.h>

#include "nl/netdev.h"

static const char *const threaded_names[] = { "off", "on", "busy-poll", NULL };

/* The kernel's napi-set policy: defer-hard-irqs is at most S32_MAX, threaded an enum. */
const struct et_param napi_params[] = {
	{ .key = "defer-hard-irqs",
	  .attr = ND_A_NAPI_DEFER_HARD_IRQS,
	  .type = ET_U32,
	  .max = 2147483647 },
	{ .key = "gro-flush-timeout", .attr = ND_A_NAPI_GRO_FLUSH_TIMEOUT, .type = ET_U64 },
	{ .key = "irq-suspend-timeout", .attr = ND_A_NAPI_IRQ_SUSPEND_TIMEOUT, .type = ET_U64 },
	{ .key = "threaded",
	  .attr = ND_A_NAPI_THREADED,
	  .type = ET_ENUM,
	  .enum_names = threaded_names },
};
const unsigned int n_napi_params = sizeof(napi_params) / sizeof(napi_params[0]);

const struct et_param *napi_param(const char *key)
{
	unsigned int i;

	for (i = 0; i < n_napi_params; i++)
		if (!strcmp(napi_params[i].key, key))
			return &napi_params[i];
	return NULL;
}

static int napi_attr_cb(const struct nlattr *attr, void *data)
{
	struct nd_napi *n = data;
	uint16_t type = mnl_attr_get_type(attr);
	uint64_t v;

	/* Attributes of newer kernels are skipped, not errors. */
	if (type < ND_A_NAPI_IFINDEX || type > ND_A_NAPI_THREADED)
		return MNL_CB_OK;
	if (netdev_attr_uint(attr, &v))
		return MNL_CB_OK;
	n->a.v[type] = v;
	n->a.present |= 1u << type;
	return MNL_CB_OK;
}

int napi_reply_cb(const struct nlmsghdr *nlh, void *data)
{
	struct nd_dev *d = data;
	struct nd_napi n = {};

	if (nlh->nlmsg_len < mnl_nlmsg_size(GENL_HDRLEN))
		return MNL_CB_ERROR;
	if (mnl_attr_parse(nlh, GENL_HDRLEN, napi_attr_cb, &n) < 0)
		return MNL_CB_ERROR;
	/* A dump filtered by ifindex; an entry without an id or of another device is no NAPI. */
	if (!napi_has(&n, ND_A_NAPI_ID) ||
	    (napi_has(&n, ND_A_NAPI_IFINDEX) && d->ifindex &&
	     n.a.v[ND_A_NAPI_IFINDEX] != (uint64_t)d->ifindex) ||
	    d->n_napi >= ND_MAX_NAPI)
		return MNL_CB_OK;
	n.id = (uint32_t)n.a.v[ND_A_NAPI_ID];
	d->napi[d->n_napi++] = n;
	return MNL_CB_OK;
}

int napi_dump(struct nl_sock *ns, struct nd_dev *d)
{
	d->n_napi = 0;
	return netdev_dump(ns, ND_CMD_NAPI_GET, ND_A_NAPI_IFINDEX, d->ifindex, napi_reply_cb, d);
}

const struct nd_napi *nd_napi_by_id(const struct nd_dev *d, uint32_t id)
{
	unsigned int i;

	for (i = 0; i < d->n_napi; i++)
		if (d->napi[i].id == id)
			return &d->napi[i];
	return NULL;
}

int napi_set(struct nl_sock *ns, uint32_t id, const struct et_change *ch, unsigned int n)
{
	struct nlmsghdr *nlh = nl_msg_start(ns, ND_CMD_NAPI_SET, 0);
	unsigned int i;

	mnl_attr_put_u32(nlh, ND_A_NAPI_ID, id);
	for (i = 0; i < n; i++) {
		/* u32 in the policy for these two, "uint" (4 or 8 bytes) for the timeouts */
		if (ch[i].p->type == ET_U64 && ch[i].val > UINT32_MAX)
			mnl_attr_put_u64(nlh, ch[i].p->attr, ch[i].val);
		else
			mnl_attr_put_u32(nlh, ch[i].p->attr, (uint32_t)ch[i].val);
	}
	return nl_talk(ns, nlh, NULL, NULL);
}
