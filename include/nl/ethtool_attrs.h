/* ethtool netlink attributes newer than the build host's UAPI headers (values are kernel ABI). */
#ifndef ETHTUNE_ETHTOOL_ATTRS_H
#define ETHTUNE_ETHTOOL_ATTRS_H

#include <linux/ethtool_netlink.h>

/* coalesce, after ETHTOOL_A_COALESCE_USE_CQE_MODE_RX (25) */
enum {
	ET_A_COALESCE_TX_AGGR_MAX_BYTES = 26,  /* v6.2 */
	ET_A_COALESCE_TX_AGGR_MAX_FRAMES = 27, /* v6.2 */
	ET_A_COALESCE_TX_AGGR_TIME_USECS = 28, /* v6.2 */
	ET_A_COALESCE_RX_PROFILE = 29,	       /* v6.10, nest of ET_A_PROFILE_* */
	ET_A_COALESCE_TX_PROFILE = 30,	       /* v6.10 */
	ET_A_COALESCE_RX_CQE_FRAMES = 31,      /* v6.19+ */
	ET_A_COALESCE_RX_CQE_NSECS = 32,
};

enum {
	ET_A_PROFILE_IRQ_MODERATION = 1, /* nest of ET_A_IRQ_MODERATION_* */
};

enum {
	ET_A_IRQ_MODERATION_USEC = 1,
	ET_A_IRQ_MODERATION_PKTS = 2,
	ET_A_IRQ_MODERATION_COMPS = 3,
};

/* rings, after ETHTOOL_A_RINGS_TX_PUSH (13) */
enum {
	ET_A_RINGS_RX_PUSH = 14,	     /* v6.2 */
	ET_A_RINGS_TX_PUSH_BUF_LEN = 15,     /* v6.4 */
	ET_A_RINGS_TX_PUSH_BUF_LEN_MAX = 16, /* v6.4 */
	ET_A_RINGS_HDS_THRESH = 17,	     /* v6.14 */
	ET_A_RINGS_HDS_THRESH_MAX = 18,	     /* v6.14 */
};

/* rtnetlink link attributes newer than some UAPI headers */
enum {
	ET_IFLA_GRO_MAX_SIZE = 58,
	ET_IFLA_TSO_MAX_SIZE = 59,
	ET_IFLA_TSO_MAX_SEGS = 60,
	ET_IFLA_ALLMULTI = 61,
	ET_IFLA_DEVLINK_PORT = 62,
	ET_IFLA_GSO_IPV4_MAX_SIZE = 63,
	ET_IFLA_GRO_IPV4_MAX_SIZE = 64,
};

#endif
