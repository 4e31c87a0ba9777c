/* Queue object (netdev queue-get): which NAPI serves each RX and TX queue. */
#include <linux/genetlink.h>

#include "nl/netdev.h"

struct queue_parse {
	struct nd_queue q;
	bool has_id, has_type, other_dev;
	int ifindex;
};

static int queue_attr_cb(const struct nlattr *attr, void *data)
{
	struct queue_parse *p = data;
	uint64_t v;

	if (mnl_attr_get_type(attr) > ND_A_QUEUE_NAPI_ID || netdev_attr_uint(attr, &v))
		return MNL_CB_OK;
	switch (mnl_attr_get_type(attr)) {
	case ND_A_QUEUE_ID:
		p->q.id = (uint32_t)v;
		p->has_id = true;
		break;
	case ND_A_QUEUE_IFINDEX:
		p->other_dev = p->ifindex && v != (uint64_t)p->ifindex;
		break;
	case ND_A_QUEUE_TYPE:
		p->q.type = (uint32_t)v;
		p->has_type = true;
		break;
	case ND_A_QUEUE_NAPI_ID:
		p->q.napi_id = (uint32_t)v;
		p->q.has_napi = true;
		break;
	}
	return MNL_CB_OK;
}

int queue_reply_cb(const struct nlmsghdr *nlh, void *data)
{
	struct nd_dev *d = data;
	struct queue_parse p = { .ifindex = d->ifindex };

	if (nlh->nlmsg_len < mnl_nlmsg_size(GENL_HDRLEN))
		return MNL_CB_ERROR;
	if (mnl_attr_parse(nlh, GENL_HDRLEN, queue_attr_cb, &p) < 0)
		return MNL_CB_ERROR;
	if (p.has_id && p.has_type && !p.other_dev && d->n_queue < ND_MAX_QUEUES)
		d->queue[d->n_queue++] = p.q;
	return MNL_CB_OK;
}

int queue_dump(struct nl_sock *ns, struct nd_dev *d)
{
	d->n_queue = 0;
	return netdev_dump(ns, ND_CMD_QUEUE_GET, ND_A_QUEUE_IFINDEX, d->ifindex, queue_reply_cb, d);
}

const struct nd_queue *nd_queue_find(const struct nd_dev *d, uint32_t type, uint32_t id)
{
	unsigned int i;

	for (i = 0; i < d->n_queue; i++)
		if (d->queue[i].type == type && d->queue[i].id == id)
			return &d->queue[i];
	return NULL;
}
