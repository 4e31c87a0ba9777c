/* Queue statistics object (netdev qstats-get, scope queue): the TX counters per queue. */
#include <stdlib.h>
#include <net/if.h>
#include <linux/genetlink.h>

#include "nl/netdev.h"

const struct nd_stat_key qstats_tx_keys[] = {
	{ "tx-packets", ND_A_QSTATS_TX_PACKETS },
	{ "tx-bytes", ND_A_QSTATS_TX_BYTES },
	{ "tx-stop", ND_A_QSTATS_TX_STOP },
	{ "tx-wake", ND_A_QSTATS_TX_WAKE },
	{ "tx-hw-drops", ND_A_QSTATS_TX_HW_DROPS },
	{ "tx-hw-gso-packets", ND_A_QSTATS_TX_HW_GSO_PACKETS },
	{ "tx-hw-gso-bytes", ND_A_QSTATS_TX_HW_GSO_BYTES },
	{ "tx-hw-gso-wire-packets", ND_A_QSTATS_TX_HW_GSO_WIRE_PACKETS },
	{ "tx-hw-gso-wire-bytes", ND_A_QSTATS_TX_HW_GSO_WIRE_BYTES },
	{ "tx-csum-none", ND_A_QSTATS_TX_CSUM_NONE },
	{ "tx-needs-csum", ND_A_QSTATS_TX_NEEDS_CSUM },
};
const unsigned int n_qstats_tx_keys = sizeof(qstats_tx_keys) / sizeof(qstats_tx_keys[0]);

struct qstats_parse {
	struct nd_qstats s;
	bool has_id, has_type, other_dev;
	int ifindex;
};

static int qstats_attr_cb(const struct nlattr *attr, void *data)
{
	struct qstats_parse *p = data;
	uint16_t type = mnl_attr_get_type(attr);
	uint64_t v;

	/* counters of newer kernels (and the rx ones) are not kept */
	if (type > ND_A_QSTATS_MAX_KNOWN || netdev_attr_uint(attr, &v))
		return MNL_CB_OK;
	switch (type) {
	case ND_A_QSTATS_IFINDEX:
		p->other_dev = p->ifindex && v != (uint64_t)p->ifindex;
		return MNL_CB_OK;
	case ND_A_QSTATS_QUEUE_ID:
		p->s.id = (uint32_t)v;
		p->has_id = true;
		return MNL_CB_OK;
	case ND_A_QSTATS_QUEUE_TYPE:
		p->s.type = (uint32_t)v;
		p->has_type = true;
		return MNL_CB_OK;
	}
	p->s.v[type] = v;
	p->s.present |= 1ULL << type;
	return MNL_CB_OK;
}

int qstats_reply_cb(const struct nlmsghdr *nlh, void *data)
{
	struct nd_dev *d = data;
	struct qstats_parse p = { .ifindex = d->ifindex };

	if (nlh->nlmsg_len < mnl_nlmsg_size(GENL_HDRLEN))
		return MNL_CB_ERROR;
	if (mnl_attr_parse(nlh, GENL_HDRLEN, qstats_attr_cb, &p) < 0)
		return MNL_CB_ERROR;
	/* Without a queue id and type it is a device-scope total: not what was asked. */
	if (p.has_id && p.has_type && !p.other_dev && d->n_qstats < ND_MAX_QUEUES)
		d->qstats[d->n_qstats++] = p.s;
	return MNL_CB_OK;
}

int qstats_dump(struct nl_sock *ns, struct nd_dev *d)
{
	struct nlmsghdr *nlh = nl_msg_start(ns, ND_CMD_QSTATS_GET, NLM_F_DUMP);

	d->n_qstats = 0;
	mnl_attr_put_u32(nlh, ND_A_QSTATS_IFINDEX, (uint32_t)d->ifindex);
	mnl_attr_put_u32(nlh, ND_A_QSTATS_SCOPE, ND_QSTATS_SCOPE_QUEUE);
	return nl_talk(ns, nlh, qstats_reply_cb, d);
}

const struct nd_qstats *nd_qstats_find(const struct nd_dev *d, uint32_t type, uint32_t id)
{
	unsigned int i;

	for (i = 0; i < d->n_qstats; i++)
		if (d->qstats[i].type == type && d->qstats[i].id == id)
			return &d->qstats[i];
	return NULL;
}

void qstats_tx_sum(const char *dev, struct nd_tx_sum *s)
{
	static const uint16_t attr[4] = { ND_A_QSTATS_TX_PACKETS, ND_A_QSTATS_TX_BYTES,
					  ND_A_QSTATS_TX_STOP, ND_A_QSTATS_TX_WAKE };
	uint64_t *sum[4] = { &s->packets, &s->bytes, &s->stop, &s->wake };
	struct nd_dev *d;
	struct nl_sock ns;
	unsigned int i, k;

	for (k = 0; k < 4; k++)
		*sum[k] = UINT64_MAX;
	d = calloc(1, sizeof(*d));
	if (!d)
		return;
	d->ifindex = (int)if_nametoindex(dev);
	if (d->ifindex && !netdev_open(&ns)) {
		if (!qstats_dump(&ns, d))
			for (i = 0; i < d->n_qstats; i++) {
				if (d->qstats[i].type != ND_QUEUE_TYPE_TX)
					continue;
				for (k = 0; k < 4; k++) {
					if (!qstats_has(&d->qstats[i], attr[k]))
						continue;
					if (*sum[k] == UINT64_MAX)
						*sum[k] = 0;
					*sum[k] += d->qstats[i].v[attr[k]];
				}
			}
		nl_close(&ns);
	}
	free(d);
}
