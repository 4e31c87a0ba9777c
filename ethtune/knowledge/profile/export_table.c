/* The keyword x format table: each ethtune keyword as each consumer names and spells it. */
#include <string.h>

#include "knowledge/profile.h"
#include "knowledge/profile_parts.h"

static const char *const fmt_names[EXP_NFMT] = {
	[EXP_LINK] = "systemd-link", [EXP_NM] = "networkmanager", [EXP_TUNED] = "tuned",
	[EXP_IFUPDOWN] = "ifupdown", [EXP_UDEV] = "udev",	  [EXP_TMPFILES] = "tmpfiles",
	[EXP_SYSCTL] = "sysctl",
};

static const char *const obj_names[EO_COUNT] = {
	[EO_COALESCE] = "coalesce", [EO_RING] = "ring",	    [EO_CHANNELS] = "channels",
	[EO_NAPI] = "napi",	    [EO_BQL] = "bql",	    [EO_LINK] = "link",
	[EO_FEATURE] = "feature",   [EO_SYSCTL] = "sysctl",
};

const char *exp_fmt_name(int fmt)
{
	return fmt >= 0 && fmt < EXP_NFMT ? fmt_names[fmt] : "?";
}

int exp_fmt_by_name(const char *s)
{
	int i;

	for (i = 0; i < EXP_NFMT; i++)
		if (!strcmp(s, fmt_names[i]))
			return i;
	return -1;
}

const char *exp_obj_name(int obj)
{
	return obj >= 0 && obj < EO_COUNT ? obj_names[obj] : "?";
}

/*
 * The table. Versions are the consumer's own: systemd (udev) for .link, tmpfiles.d and
 * sysctl.d, NetworkManager, tuned, and for ifupdown and udev's RUN the ethtool (or iproute2)
 * that the line runs. A keyword a consumer lacks in the version tested here (Debian 12: udev
 * 252, NetworkManager 1.42, tuned 2.20, ethtool 6.1, iproute2 6.1) has no name.
 */
#define F(n, v, k)                                                                                 \
	{                                                                                          \
		.name = n, .since = v, .kind = k                                                   \
	}
#define FM(n, v, k, m)                                                                             \
	{                                                                                          \
		.name = n, .since = v, .kind = k, .min = m                                         \
	}
/* An ethtool -C keyword: .link name and kinds; NM, tuned, ifupdown and udev spell it as ethtool
 * does. */
#define CO(k, lname, lkind, lmin, nmkind, ekind)                                                   \
	{                                                                                          \
		EO_COALESCE, k,                                                                    \
		{                                                                                  \
			[EXP_LINK] = FM(lname, "250", lkind, lmin),                                \
			[EXP_NM] = F("coalesce-" k, "1.26", nmkind),                               \
			[EXP_TUNED] = F(k, "", ekind),                                             \
			[EXP_IFUPDOWN] = F("hardware-irq-coalesce-" k, "", ekind),                 \
			[EXP_UDEV] = F(k, "", ekind),                                              \
		}                                                                                  \
	}
/* One only ethtool itself knows (no .link, NM or tuned name). */
#define CO_ETHTOOL(k, ekind, ver)                                                                  \
	{                                                                                          \
		EO_COALESCE, k,                                                                    \
		{                                                                                  \
			[EXP_IFUPDOWN] = F("hardware-irq-coalesce-" k, ver, ekind),                \
			[EXP_UDEV] = F(k, ver, ekind),                                             \
		}                                                                                  \
	}
#define RING(k, lname, lver, nmname, ekind)                                                        \
	{                                                                                          \
		EO_RING, k,                                                                        \
		{                                                                                  \
			[EXP_LINK] = FM(lname, lver, EK_NUM, 1),                                   \
			[EXP_NM] = F(nmname, "1.26", EK_NUM), [EXP_TUNED] = F(k, "", ekind),       \
			[EXP_IFUPDOWN] = F("hardware-dma-ring-" k, "", ekind),                     \
			[EXP_UDEV] = F(k, "", ekind),                                              \
		}                                                                                  \
	}
#define CHAN(k, lname)                                                                             \
	{                                                                                          \
		EO_CHANNELS, k,                                                                    \
		{                                                                                  \
			[EXP_LINK] = FM(lname, "239", EK_NUM, 1),                                  \
			[EXP_NM] = F("channels-" k, "1.46", EK_NUM),                               \
			[EXP_TUNED] = F(k, "", EK_NUM), [EXP_IFUPDOWN] = F(k, "", EK_NUM),         \
			[EXP_UDEV] = F(k, "", EK_NUM),                                             \
		}                                                                                  \
	}
/* A NAPI or BQL keyword: its sysfs file, written by tuned's [sysfs], an ifupdown up line,
 * a udev ATTR (NAPI only) and tmpfiles.d. */
#define SYSFS(o, k, file, kind, udev)                                                              \
	{                                                                                          \
		o, k,                                                                              \
		{                                                                                  \
			[EXP_TUNED] = F(file, "", kind), [EXP_IFUPDOWN] = F(file, "", kind),       \
			[EXP_UDEV] = F(udev, "", kind), [EXP_TMPFILES] = F(file, "", kind),        \
		}                                                                                  \
	}
#define FEAT(k, lname, lver)                                                                       \
	{                                                                                          \
		EO_FEATURE, k,                                                                     \
		{                                                                                  \
			[EXP_LINK] = F(lname, lver, EK_YESNO),                                     \
			[EXP_NM] = F("feature-" k, "1.14", EK_TF),                                 \
			[EXP_TUNED] = F(k, "", EK_ONOFF),                                          \
			[EXP_IFUPDOWN] = F("offload-" k, "", EK_ONOFF),                            \
			[EXP_UDEV] = F(k, "", EK_ONOFF),                                           \
		}                                                                                  \
	}

const struct exp_map exp_maps[] = {
	CO("adaptive-rx", "UseAdaptiveRxCoalesce", EK_YESNO, 0, EK_01, EK_ONOFF),
	CO("adaptive-tx", "UseAdaptiveTxCoalesce", EK_YESNO, 0, EK_01, EK_ONOFF),
	/* udev ignores a zero for these two ("Invalid ... value") */
	CO("stats-block-usecs", "StatisticsBlockCoalesceSec", EK_USEC, 1, EK_NUM, EK_NUM),
	CO("sample-interval", "CoalescePacketRateSampleIntervalSec", EK_SEC, 1, EK_NUM, EK_NUM),
	CO("pkt-rate-low", "CoalescePacketRateLow", EK_NUM, 0, EK_NUM, EK_NUM),
	CO("pkt-rate-high", "CoalescePacketRateHigh", EK_NUM, 0, EK_NUM, EK_NUM),
	CO("rx-usecs", "RxCoalesceSec", EK_USEC, 0, EK_NUM, EK_NUM),
	CO("rx-frames", "RxMaxCoalescedFrames", EK_NUM, 0, EK_NUM, EK_NUM),
	CO("rx-usecs-irq", "RxCoalesceIrqSec", EK_USEC, 0, EK_NUM, EK_NUM),
	CO("rx-frames-irq", "RxMaxCoalescedIrqFrames", EK_NUM, 0, EK_NUM, EK_NUM),
	CO("tx-usecs", "TxCoalesceSec", EK_USEC, 0, EK_NUM, EK_NUM),
	CO("tx-frames", "TxMaxCoalescedFrames", EK_NUM, 0, EK_NUM, EK_NUM),
	CO("tx-usecs-irq", "TxCoalesceIrqSec", EK_USEC, 0, EK_NUM, EK_NUM),
	CO("tx-frames-irq", "TxMaxCoalescedIrqFrames", EK_NUM, 0, EK_NUM, EK_NUM),
	CO("rx-usecs-low", "RxCoalesceLowSec", EK_USEC, 0, EK_NUM, EK_NUM),
	CO("rx-frames-low", "RxMaxCoalescedLowFrames", EK_NUM, 0, EK_NUM, EK_NUM),
	CO("tx-usecs-low", "TxCoalesceLowSec", EK_USEC, 0, EK_NUM, EK_NUM),
	CO("tx-frames-low", "TxMaxCoalescedLowFrames", EK_NUM, 0, EK_NUM, EK_NUM),
	CO("rx-usecs-high", "RxCoalesceHighSec", EK_USEC, 0, EK_NUM, EK_NUM),
	CO("rx-frames-high", "RxMaxCoalescedHighFrames", EK_NUM, 0, EK_NUM, EK_NUM),
	CO("tx-usecs-high", "TxCoalesceHighSec", EK_USEC, 0, EK_NUM, EK_NUM),
	CO("tx-frames-high", "TxMaxCoalescedHighFrames", EK_NUM, 0, EK_NUM, EK_NUM),
	CO_ETHTOOL("cqe-mode-rx", EK_ONOFF, "5.15"),
	CO_ETHTOOL("cqe-mode-tx", EK_ONOFF, "5.15"),
	/* ethtool 6.1 does not parse these: nothing here carries them */
	{ EO_COALESCE, "tx-aggr-max-bytes", {} },
	{ EO_COALESCE, "tx-aggr-max-frames", {} },
	{ EO_COALESCE, "tx-aggr-time-usecs", {} },
	{ EO_COALESCE, "rx-cqe-frames", {} },
	{ EO_COALESCE, "rx-cqe-nsecs", {} },

	RING("rx", "RxBufferSize", "244", "ring-rx", EK_NUM),
	RING("rx-mini", "RxMiniBufferSize", "250", "ring-rx-mini", EK_NUM),
	RING("rx-jumbo", "RxJumboBufferSize", "250", "ring-rx-jumbo", EK_NUM),
	RING("tx", "TxBufferSize", "244", "ring-tx", EK_NUM),
	/* ethtool -G only */
	{ EO_RING,
	  "rx-buf-len",
	  { [EXP_IFUPDOWN] = F("hardware-dma-ring-rx-buf-len", "5.17", EK_NUM),
	    [EXP_UDEV] = F("rx-buf-len", "5.17", EK_NUM) } },
	{ EO_RING,
	  "cqe-size",
	  { [EXP_IFUPDOWN] = F("hardware-dma-ring-cqe-size", "5.17", EK_NUM),
	    [EXP_UDEV] = F("cqe-size", "5.17", EK_NUM) } },
	{ EO_RING,
	  "tx-push",
	  { [EXP_IFUPDOWN] = F("hardware-dma-ring-tx-push", "5.17", EK_ONOFF),
	    [EXP_UDEV] = F("tx-push", "5.17", EK_ONOFF) } },
	{ EO_RING, "rx-push", {} },
	{ EO_RING, "tx-push-buf-len", {} },
	{ EO_RING, "tcp-data-split", {} },
	{ EO_RING, "hds-thresh", {} },

	CHAN("rx", "RxChannels"),
	CHAN("tx", "TxChannels"),
	CHAN("other", "OtherChannels"),
	CHAN("combined", "CombinedChannels"),

	SYSFS(EO_NAPI, "defer-hard-irqs", "napi_defer_hard_irqs", EK_NUM, "napi_defer_hard_irqs"),
	SYSFS(EO_NAPI, "gro-flush-timeout", "gro_flush_timeout", EK_NUM, "gro_flush_timeout"),
	SYSFS(EO_NAPI, "threaded", "threaded", EK_ENUM, "threaded"),
	/* napi-set only (netlink): no file to write, no tool of these consumers to run */
	{ EO_NAPI, "irq-suspend-timeout", {} },
	SYSFS(EO_BQL, "stall-thrs", "stall_thrs", EK_NUM, NULL),
	SYSFS(EO_BQL, "limit-min", "limit_min", EK_NUM, NULL),
	SYSFS(EO_BQL, "limit-max", "limit_max", EK_NUM, NULL),

	{ EO_LINK,
	  "mtu",
	  { [EXP_LINK] = FM("MTUBytes", "", EK_NUM, 68),
	    [EXP_NM] = F("ethernet.mtu", "", EK_NUM),
	    [EXP_TUNED] = F("mtu", "", EK_NUM),
	    [EXP_IFUPDOWN] = F("mtu", "", EK_NUM),
	    [EXP_UDEV] = F("mtu", "", EK_NUM) } },
	{ EO_LINK,
	  "txqueuelen",
	  { [EXP_LINK] = F("TransmitQueueLength", "244", EK_NUM),
	    [EXP_NM] = F("link.tx-queue-length", "1.44", EK_NUM),
	    [EXP_TUNED] = F("txqueuelen", "", EK_NUM),
	    [EXP_IFUPDOWN] = F("txqueuelen", "", EK_NUM),
	    [EXP_UDEV] = F("tx_queue_len", "", EK_NUM) } },
	{ EO_LINK,
	  "gso-max-size",
	  { [EXP_LINK] = FM("GenericSegmentOffloadMaxBytes", "248", EK_NUM, 1),
	    [EXP_NM] = F("link.gso-max-size", "1.44", EK_NUM),
	    [EXP_IFUPDOWN] = F("gso_max_size", "", EK_NUM),
	    [EXP_UDEV] = F("gso_max_size", "", EK_NUM) } },
	{ EO_LINK,
	  "gso-max-segs",
	  { [EXP_LINK] = FM("GenericSegmentOffloadMaxSegments", "248", EK_NUM, 1),
	    [EXP_NM] = F("link.gso-max-segments", "1.44", EK_NUM),
	    [EXP_IFUPDOWN] = F("gso_max_segs", "", EK_NUM),
	    [EXP_UDEV] = F("gso_max_segs", "", EK_NUM) } },
	{ EO_LINK,
	  "gro-max-size",
	  { [EXP_NM] = F("link.gro-max-size", "1.44", EK_NUM),
	    [EXP_IFUPDOWN] = F("gro_max_size", "", EK_NUM),
	    [EXP_UDEV] = F("gro_max_size", "", EK_NUM) } },
	/* iproute2 6.1 has no name for these */
	{ EO_LINK, "gso-ipv4-max-size", {} },
	{ EO_LINK, "gro-ipv4-max-size", {} },

	FEAT("sg", NULL, ""),
	FEAT("tso", "TCPSegmentationOffload,TCP6SegmentationOffload", "232"),
	FEAT("gso", "GenericSegmentationOffload", "232"),
	FEAT("gro", "GenericReceiveOffload", "232"),
	FEAT("tx", "TransmitChecksumOffload", "245"),
	FEAT("rx", "ReceiveChecksumOffload", "245"),
	FEAT("lro", "LargeReceiveOffload", "232"),

	{ EO_SYSCTL,
	  "*",
	  { [EXP_TUNED] = F("*", "", EK_TEXT), [EXP_SYSCTL] = F("*", "", EK_TEXT) } },
};
const unsigned int exp_n_maps = sizeof(exp_maps) / sizeof(exp_maps[0]);

const struct exp_map *exp_map_find(int obj, const char *key)
{
	unsigned int i;

	for (i = 0; i < exp_n_maps; i++)
		if (exp_maps[i].obj == obj && (!strcmp(exp_maps[i].key, key) ||
					       (obj == EO_SYSCTL && !strcmp(exp_maps[i].key, "*"))))
			return &exp_maps[i];
	return NULL;
}

const char *exp_sysfs_file(int obj, const char *key)
{
	const struct exp_map *m = exp_map_find(obj, key);

	return m && (obj == EO_NAPI || obj == EO_BQL) ? m->f[EXP_TMPFILES].name : NULL;
}
