/* netdev generic netlink (Documentation/netlink/specs/netdev.yaml): NAPI, queues, queue stats. */
#ifndef ETHTUNE_NETDEV_H
#define ETHTUNE_NETDEV_H

#include <stdbool.h>
#include <stdint.h>
#include "nl/devobj.h"
#include "nl/nl.h"

/* The uapi header is not on every build host: the spec's numbers, as the kernel has them. */
enum {
	ND_CMD_QUEUE_GET = 10,
	ND_CMD_NAPI_GET = 11,
	ND_CMD_QSTATS_GET = 12,
	ND_CMD_NAPI_SET = 14,
};

enum {
	ND_A_NAPI_IFINDEX = 1,
	ND_A_NAPI_ID,
	ND_A_NAPI_IRQ,
	ND_A_NAPI_PID,
	ND_A_NAPI_DEFER_HARD_IRQS,
	ND_A_NAPI_GRO_FLUSH_TIMEOUT,
	ND_A_NAPI_IRQ_SUSPEND_TIMEOUT,
	ND_A_NAPI_THREADED,
};

enum {
	ND_A_QUEUE_ID = 1,
	ND_A_QUEUE_IFINDEX,
	ND_A_QUEUE_TYPE,
	ND_A_QUEUE_NAPI_ID,
};

enum { ND_QUEUE_TYPE_RX, ND_QUEUE_TYPE_TX };
enum { ND_QSTATS_SCOPE_QUEUE = 1 };

enum {
	ND_A_QSTATS_IFINDEX = 1,
	ND_A_QSTATS_QUEUE_TYPE,
	ND_A_QSTATS_QUEUE_ID,
	ND_A_QSTATS_SCOPE,
	ND_A_QSTATS_TX_PACKETS = 10,
	ND_A_QSTATS_TX_BYTES = 11,
	ND_A_QSTATS_TX_HW_DROPS = 24,
	ND_A_QSTATS_TX_CSUM_NONE = 26,
	ND_A_QSTATS_TX_NEEDS_CSUM = 27,
	ND_A_QSTATS_TX_HW_GSO_PACKETS = 28,
	ND_A_QSTATS_TX_HW_GSO_BYTES = 29,
	ND_A_QSTATS_TX_HW_GSO_WIRE_PACKETS = 30,
	ND_A_QSTATS_TX_HW_GSO_WIRE_BYTES = 31,
	ND_A_QSTATS_TX_STOP = 33,
	ND_A_QSTATS_TX_WAKE = 34,
	ND_A_QSTATS_MAX_KNOWN = 34,
};

/* One NAPI instance as napi-get reports it; v is indexed by ND_A_NAPI_* (absent: not reported,
 * e.g. irq on a software device, pid without a thread). */
struct nd_napi {
	uint32_t id;
	struct {
		uint64_t v[ND_A_NAPI_THREADED + 1];
		uint32_t present;
	} a;
};

struct nd_queue {
	uint32_t id, type;
	bool has_napi;
	uint32_t napi_id;
};

/* Queue-scope statistics of one queue; v indexed by ND_A_QSTATS_*. */
struct nd_qstats {
	uint32_t id, type;
	uint64_t v[ND_A_QSTATS_MAX_KNOWN + 1];
	uint64_t present;
};

#define ND_MAX_NAPI   256
#define ND_MAX_QUEUES 512

/* What the kernel told of one device; each *_ret is 0 or why that dump failed (-EPROTONOSUPPORT:
 * no netdev family, -EOPNOTSUPP: the kernel has not that operation). */
struct nd_dev {
	int ifindex;
	int napi_ret, queue_ret, qstats_ret;
	unsigned int n_napi, n_queue, n_qstats;
	struct nd_napi napi[ND_MAX_NAPI];
	struct nd_queue queue[ND_MAX_QUEUES];
	struct nd_qstats qstats[ND_MAX_QUEUES];
};

static inline bool napi_has(const struct nd_napi *n, unsigned int attr)
{
	return attr <= ND_A_NAPI_THREADED && (n->a.present & (1u << attr));
}

static inline bool qstats_has(const struct nd_qstats *s, unsigned int attr)
{
	return attr <= ND_A_QSTATS_MAX_KNOWN && (s->present & (1ULL << attr));
}

/* Generic netlink socket on the netdev family; -EPROTONOSUPPORT when the kernel has none. */
int netdev_open(struct nl_sock *ns);
/* A "uint" attribute (4 or 8 bytes); -EINVAL on any other length. */
int netdev_attr_uint(const struct nlattr *attr, uint64_t *out);
/* Dump cmd filtered to ifindex (attribute ifindex_attr) through cb. */
int netdev_dump(struct nl_sock *ns, uint8_t cmd, uint16_t ifindex_attr, int ifindex, mnl_cb_t cb,
		void *data);

/* Reply callbacks (fixtures replay through them); data is the struct nd_dev being filled. */
int napi_reply_cb(const struct nlmsghdr *nlh, void *data);
int queue_reply_cb(const struct nlmsghdr *nlh, void *data);
int qstats_reply_cb(const struct nlmsghdr *nlh, void *data);

int napi_dump(struct nl_sock *ns, struct nd_dev *d);
int queue_dump(struct nl_sock *ns, struct nd_dev *d);
int qstats_dump(struct nl_sock *ns, struct nd_dev *d);
/* All three dumps for ifindex; d's *_ret say which ones the kernel answered. 0, or -errno when the
 * family itself cannot be opened. */
int netdev_get(int ifindex, struct nd_dev *d);

const struct nd_napi *nd_napi_by_id(const struct nd_dev *d, uint32_t id);
const struct nd_queue *nd_queue_find(const struct nd_dev *d, uint32_t type, uint32_t id);
const struct nd_qstats *nd_qstats_find(const struct nd_dev *d, uint32_t type, uint32_t id);
/* The TX queues' qstats of dev summed: packets, bytes, stops and wakes; each stays UINT64_MAX
 * where no queue reports it (no netdev family, a driver without queue stats). */
struct nd_tx_sum {
	uint64_t packets, bytes, stop, wake;
};
void qstats_tx_sum(const char *dev, struct nd_tx_sum *s);

/* napi-set parameters: keyword, attribute, and range (CLI, JSON and profiles use the keys). */
extern const struct et_param napi_params[];
extern const unsigned int n_napi_params;
const struct et_param *napi_param(const char *key);
/* Set parameters of NAPI id to the values given; one request. */
int napi_set(struct nl_sock *ns, uint32_t id, const struct et_change *ch, unsigned int n);

/* Queue-scope TX statistics: keyword and attribute, in the order show prints them. */
struct nd_stat_key {
	const char *key;
	uint16_t attr;
};
extern const struct nd_stat_key qstats_tx_keys[];
extern const unsigned int n_qstats_tx_keys;

#endif
