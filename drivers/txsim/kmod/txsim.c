// SPDX-License-Identifier: GPL-2.0
/* txsim: wired pairs of Ethernet netdevs modelling a NIC whose TX completion behaviour we choose */
#include <linux/module.h>
#include <linux/netdevice.h>
#include <linux/if_vlan.h>
#include <linux/etherdevice.h>
#include <linux/ethtool.h>
#include <uapi/linux/ethtool_netlink.h>
#include <linux/hrtimer.h>
#include <linux/timer.h>
#include <linux/skbuff.h>
#include <linux/tcp.h>
#include <linux/udp.h>
#include <linux/slab.h>
#include <linux/rtnetlink.h>
#include <linux/version.h>

/*
 * Kernel API compatibility (6.1 to 7.x), at file scope so that function bodies stay the same:
 * timers renamed (timer_delete_sync 6.2, timer_container_of 6.16, hrtimer_setup 6.13, the old
 * names gone since), queues linked to their NAPI (6.8) and per-queue stats (netdev_stat_ops with
 * stop/wake, 6.10) where the kernel has them.
 */
#if LINUX_VERSION_CODE < KERNEL_VERSION(6, 2, 0)
#define timer_delete_sync del_timer_sync
#endif
#ifndef timer_container_of
#define timer_container_of from_timer
#endif
#if LINUX_VERSION_CODE < KERNEL_VERSION(6, 13, 0)
static inline void hrtimer_setup(struct hrtimer *t, enum hrtimer_restart (*fn)(struct hrtimer *),
				 clockid_t clock, enum hrtimer_mode mode)
{
	hrtimer_init(t, clock, mode);
	t->function = fn;
}
#endif
#if LINUX_VERSION_CODE >= KERNEL_VERSION(6, 8, 0)
#define TXSIM_QUEUE_NAPI 1
#endif
#if LINUX_VERSION_CODE >= KERNEL_VERSION(6, 10, 0)
#include <net/netdev_queues.h>
#define TXSIM_QSTATS 1
#endif

#define DRV_NAME "txsim"
#define TXSIM_RING_MIN 16
#define TXSIM_RING_MAX 8192
#define TXSIM_USECS_MAX 100000
#define TXSIM_SPEED_MAX 800000

static unsigned int delay_us = 100;
module_param(delay_us, uint, 0444);
MODULE_PARM_DESC(delay_us, "one-way wire delay in us for new devices (sysfs: txsim/delay_us)");
static unsigned int speed = 1000;
module_param(speed, uint, 0444);
MODULE_PARM_DESC(speed, "line rate in Mb/s for new devices (ethtool -s DEV speed N)");
static unsigned int fifo_bytes;
module_param(fifo_bytes, uint, 0444);
MODULE_PARM_DESC(fifo_bytes,
		 "on-NIC TX buffer: a frame completes once within this many bytes of the wire end");
static unsigned int rescan_ms = 100;
module_param(rescan_ms, uint, 0644);
MODULE_PARM_DESC(rescan_ms, "complete-on-next-xmit: period of the rescan that frees done skbs");
static unsigned int pairs = 1;
module_param(pairs, uint, 0444);
MODULE_PARM_DESC(pairs, "number of txsim pairs (txsim0/txsim1, txsim2/txsim3, ...)");

enum {
	TXSIM_PF_ORPHAN,	/* skb_orphan() in ndo_start_xmit (NIU, virtio_net w/o napi_tx) */
	TXSIM_PF_NEXT_XMIT,	/* free completed skbs only on the next xmit or a rescan timer */
	TXSIM_PF_NEVER_WAKE,	/* completions never restart a stopped queue; the TX watchdog does */
	TXSIM_PF_COUNT,
};
static const char txsim_pf_names[TXSIM_PF_COUNT][ETH_GSTRING_LEN] = {
	"orphan-at-xmit",
	"complete-on-next-xmit",
	"never-wake",
};

struct txsim_desc {
	struct sk_buff *skb;
	u64 t_xmit;		/* ns, when the driver got it */
	u64 t_done;		/* ns, hardware completion: DMA into the NIC buffer done */
	unsigned int segs;
	unsigned int frame_bytes; /* the frames' bytes as sent: every segment with its headers */
};

struct txsim_stats {
	u64 tx_packets;		/* segments completed */
	u64 tx_bytes;		/* frame bytes completed (headers of every segment, no framing) */
	u64 tx_skbs;		/* skbs completed */
	u64 tx_completion_irqs;
	u64 tx_ring_full;
	u64 tx_compl_lat_sum_ns;	/* xmit to skb free, summed over tx_skbs */
	u64 tx_compl_lat_max_ns;
	u64 tx_irq_delay_max_ns;	/* hardware completion to interrupt, max */
	u64 tx_skb_len_max;
	u64 tx_wire_bytes;	/* bytes serialized, with per-frame headers and framing */
	u64 tx_dropped;
	u64 tx_descs;		/* TX descriptors used: one for the linear part, one per page frag */
	u64 tx_linearized;	/* skbs the driver linearized (linearize_frags) */
	u64 rx_packets;
	u64 rx_bytes;
	u64 rx_dropped;
};

#define TXSIM_STAT(f) { #f, offsetof(struct txsim_stats, f) }
static const struct {
	char name[ETH_GSTRING_LEN];
	size_t off;
} txsim_stat_names[] = {
	TXSIM_STAT(tx_packets), TXSIM_STAT(tx_bytes), TXSIM_STAT(tx_skbs),
	TXSIM_STAT(tx_completion_irqs), TXSIM_STAT(tx_ring_full),
	TXSIM_STAT(tx_compl_lat_sum_ns), TXSIM_STAT(tx_compl_lat_max_ns),
	TXSIM_STAT(tx_irq_delay_max_ns), TXSIM_STAT(tx_skb_len_max), TXSIM_STAT(tx_wire_bytes),
	TXSIM_STAT(tx_dropped), TXSIM_STAT(tx_descs), TXSIM_STAT(tx_linearized),
	TXSIM_STAT(rx_packets), TXSIM_STAT(rx_bytes),
	TXSIM_STAT(rx_dropped),
};
#define TXSIM_NSTATS ARRAY_SIZE(txsim_stat_names)

struct txsim_priv {
	struct net_device *dev;
	struct net_device *peer;

	spinlock_t lock;	/* ring, wire, coalescing state, stats */
	struct txsim_desc *ring;
	u32 ring_size;
	/* free-running indices: cons <= sig <= done <= prod */
	u32 prod;		/* next slot the driver fills */
	u32 done;		/* hardware finished (serialized) up to here */
	u32 sig;		/* completion interrupt reported up to here */
	u32 cons;		/* freed up to here */
	u32 pending;		/* done but not yet signalled */
	u64 first_pending_ns;
	u64 coal_deadline_ns;	/* when the armed coalescing timer is due */
	bool coal_armed;
	bool hw_on;
	u64 wire_free_ns;	/* when the line is idle again */
	struct sk_buff_head wire;	/* clones in flight to the peer, deliver time in cb */

	struct hrtimer t_done;	/* next serialization end */
	struct hrtimer t_coal;	/* coalescing timer */
	struct hrtimer t_wire;	/* next delivery to the peer */
	struct timer_list t_rescan;
	struct napi_struct tx_napi;

	struct napi_struct rx_napi;
	struct sk_buff_head rxq;	/* frames delivered by the peer; lock also guards rx_on */
	bool rx_on;
	u32 rx_ring;

	/* configuration */
	u32 speed;		/* Mb/s */
	u32 delay_us;
	u32 fifo_bytes;
	u32 stop_irq;		/* complete-on-next-xmit: a stopped queue raises the interrupt */
	u32 desc_ns;		/* cost of one TX descriptor: CPU to map and to unmap it, DMA fetch */
	u32 max_frags;		/* page frags one skb may have; more: the stack linearizes (0: any) */
	u32 linearize_frags;	/* the driver linearizes an skb with more frags (0: never) */
	u32 tx_usecs;
	u32 tx_frames;
	bool cqe_mode;
	u32 pflags;

	struct txsim_stats st;
	/* per-queue stats (netdev_stat_ops): never reset; the rx pair is written by the RX poll */
	u64 q_tx_packets, q_tx_bytes, q_tx_stop, q_tx_wake;
	u64 q_rx_packets, q_rx_bytes;
};

struct txsim_cb {
	u64 deliver_ns;
};
#define TXSIM_CB(skb) ((struct txsim_cb *)(skb)->cb)

static struct net_device **txsim_devs;
static unsigned int txsim_ndevs;

static u64 now_ns(void)
{
	return ktime_get_ns();
}

static void arm(struct hrtimer *t, u64 when_ns)
{
	hrtimer_start(t, ns_to_ktime(when_ns), HRTIMER_MODE_ABS);
}

/* The driver's CPU time for @n descriptors of @p's per-descriptor cost: spent, not slept, as a
 * driver spends it mapping frags and writing descriptors, or unmapping them on completion. */
static void txsim_desc_cost(const struct txsim_priv *p, unsigned int n)
{
	u64 end, ns = (u64)READ_ONCE(p->desc_ns) * n;

	if (!ns)
		return;
	end = now_ns() + ns;
	while (now_ns() < end)
		cpu_relax();
}

static unsigned int txsim_descs(const struct sk_buff *skb)
{
	return 1 + skb_shinfo(skb)->nr_frags;
}

/* Bytes on the wire for one skb: every segment repeats the headers and adds FCS, preamble, gap. */
static u64 wire_bytes(const struct sk_buff *skb, unsigned int *segsp)
{
	unsigned int segs = 1, hdr = 0;
	u64 b;

	if (skb_is_gso(skb)) {
		segs = skb_shinfo(skb)->gso_segs ?: 1;
		hdr = skb_transport_offset(skb);
		if (skb_shinfo(skb)->gso_type & (SKB_GSO_TCPV4 | SKB_GSO_TCPV6))
			hdr += tcp_hdrlen(skb);
		else
			hdr += sizeof(struct udphdr);
	}
	b = max_t(u64, skb->len, ETH_ZLEN) + (u64)(segs - 1) * hdr;
	*segsp = segs;
	return b + segs * (ETH_FCS_LEN + 8 + 12);
}

/* Moves freed-to-be descriptors up to @upto onto @list; caller holds lock and frees after. */
static unsigned int txsim_clean_locked(struct txsim_priv *p, u32 upto, struct sk_buff_head *list)
{
	unsigned int n = 0, bytes = 0;
	u64 now = now_ns();

	while (p->cons != upto) {
		struct txsim_desc *d = &p->ring[p->cons % p->ring_size];
		u64 lat = now - d->t_xmit;

		bytes += d->skb->len;
		p->st.tx_packets += d->segs;
		/* counted as drivers count wire packets and their bytes (qstats tx-bytes) */
		p->st.tx_bytes += d->frame_bytes;
		p->q_tx_packets += d->segs;
		p->q_tx_bytes += d->frame_bytes;
		p->st.tx_skbs++;
		p->st.tx_compl_lat_sum_ns += lat;
		if (lat > p->st.tx_compl_lat_max_ns)
			p->st.tx_compl_lat_max_ns = lat;
		__skb_queue_tail(list, d->skb);
		d->skb = NULL;
		p->cons++;
		n++;
	}
	if (n) {
		netdev_tx_completed_queue(netdev_get_tx_queue(p->dev, 0), n, bytes);
		if (netif_queue_stopped(p->dev) && p->hw_on &&
		    !(p->pflags & BIT(TXSIM_PF_NEVER_WAKE)) &&
		    p->prod - p->cons <= p->ring_size / 2) {
			netif_wake_queue(p->dev);
			p->q_tx_wake++;
		}
	}
	return n;
}

/* The simulated TX completion interrupt, raised at time @t (ns). */
static void txsim_irq_locked(struct txsim_priv *p, u64 t)
{
	u64 d = t - p->first_pending_ns;

	if (d > p->st.tx_irq_delay_max_ns)
		p->st.tx_irq_delay_max_ns = d;
	p->sig = p->done;
	p->pending = 0;
	p->coal_armed = false;
	/*
	 * complete-on-next-xmit: the interrupt is only used to restart a stopped queue (virtio_net
	 * without napi_tx), or not at all (stop_irq 0: qeth, whose full queue waits for the rescan)
	 */
	if ((p->pflags & BIT(TXSIM_PF_NEXT_XMIT)) &&
	    (!READ_ONCE(p->stop_irq) || !netif_xmit_stopped(netdev_get_tx_queue(p->dev, 0))))
		return;
	p->st.tx_completion_irqs++;
	napi_schedule(&p->tx_napi);
}

/*
 * Hardware progress up to @now, event by event in time order: frames whose DMA is done complete,
 * and the coalescing rule raises interrupts. It runs from the timers and also whenever the
 * driver runs anyway (xmit, RX poll), so a late hrtimer (an emulated guest is often descheduled)
 * does not move any event later than it is due.
 */
static void txsim_progress_locked(struct txsim_priv *p, u64 now)
{
	bool was_armed = p->coal_armed;
	u64 old_deadline = p->coal_deadline_ns;

	if (!p->hw_on)
		return;
	for (;;) {
		u64 t_done = p->done != p->prod ? p->ring[p->done % p->ring_size].t_done : U64_MAX;
		u64 t_irq = p->coal_armed && p->pending ? p->coal_deadline_ns : U64_MAX;

		if (t_irq <= now && t_irq <= t_done) {	/* the coalescing timer is due first */
			txsim_irq_locked(p, t_irq);
			continue;
		}
		if (t_done > now)
			break;
		p->done++;
		if (!p->pending)
			p->first_pending_ns = t_done;
		p->pending++;
		if (!p->tx_usecs || (p->tx_frames && p->pending >= p->tx_frames)) {
			txsim_irq_locked(p, t_done);
		} else if (p->cqe_mode || !p->coal_armed) {
			/* CQE mode restarts the timer on every completion, EQE mode at the first */
			p->coal_armed = true;
			p->coal_deadline_ns = t_done + (u64)p->tx_usecs * NSEC_PER_USEC;
		}
	}
	if (p->coal_armed && (!was_armed || p->coal_deadline_ns != old_deadline))
		arm(&p->t_coal, p->coal_deadline_ns);
	else if (!p->coal_armed && was_armed)
		hrtimer_try_to_cancel(&p->t_coal);
}

static enum hrtimer_restart txsim_done_timer(struct hrtimer *t)
{
	struct txsim_priv *p = container_of(t, struct txsim_priv, t_done);
	unsigned long flags;

	spin_lock_irqsave(&p->lock, flags);
	txsim_progress_locked(p, now_ns());
	if (p->done != p->prod && p->hw_on)
		arm(&p->t_done, p->ring[p->done % p->ring_size].t_done);
	spin_unlock_irqrestore(&p->lock, flags);
	return HRTIMER_NORESTART;
}

static enum hrtimer_restart txsim_coal_timer(struct hrtimer *t)
{
	struct txsim_priv *p = container_of(t, struct txsim_priv, t_coal);
	unsigned long flags;

	spin_lock_irqsave(&p->lock, flags);
	txsim_progress_locked(p, now_ns());
	spin_unlock_irqrestore(&p->lock, flags);
	return HRTIMER_NORESTART;
}

/* Hands a frame to the receiving device's RX ring. */
static void txsim_rx_enqueue(struct txsim_priv *q, struct sk_buff *skb)
{
	unsigned long flags;
	bool ok;

	spin_lock_irqsave(&q->rxq.lock, flags);
	ok = q->rx_on && skb_queue_len(&q->rxq) < q->rx_ring;
	if (ok)
		__skb_queue_tail(&q->rxq, skb);
	else
		q->st.rx_dropped++;
	spin_unlock_irqrestore(&q->rxq.lock, flags);
	if (ok)
		napi_schedule(&q->rx_napi);
	else
		dev_kfree_skb_any(skb);
}

static enum hrtimer_restart txsim_wire_timer(struct hrtimer *t)
{
	struct txsim_priv *p = container_of(t, struct txsim_priv, t_wire);
	struct txsim_priv *q = netdev_priv(p->peer);
	struct sk_buff_head due;
	struct sk_buff *skb;
	unsigned long flags;
	u64 now;

	__skb_queue_head_init(&due);
	spin_lock_irqsave(&p->lock, flags);
	now = now_ns();
	while ((skb = skb_peek(&p->wire)) && TXSIM_CB(skb)->deliver_ns <= now) {
		__skb_unlink(skb, &p->wire);
		__skb_queue_tail(&due, skb);
	}
	if (skb)
		arm(&p->t_wire, TXSIM_CB(skb)->deliver_ns);
	spin_unlock_irqrestore(&p->lock, flags);
	while ((skb = __skb_dequeue(&due)))
		txsim_rx_enqueue(q, skb);
	return HRTIMER_NORESTART;
}

static int txsim_rx_poll(struct napi_struct *napi, int budget)
{
	struct txsim_priv *q = container_of(napi, struct txsim_priv, rx_napi);
	struct sk_buff *skb;
	int n = 0;

	if (q->done != q->prod || q->pending) {	/* our own TX progress, as in txsim_xmit() */
		spin_lock_irq(&q->lock);
		txsim_progress_locked(q, now_ns());
		spin_unlock_irq(&q->lock);
	}
	while (n < budget && (skb = skb_dequeue(&q->rxq))) {
		unsigned int segs;
		/* the frames' bytes as a NIC counts them: a super-packet's headers once per
		 * segment, as the sender's tx_bytes counts them */
		u64 len = wire_bytes(skb, &segs) - segs * (ETH_FCS_LEN + 8 + 12);

		n++;
		/* scrubs the clone for the receiving device and namespace; frees it on error */
		if (__dev_forward_skb(q->dev, skb))
			continue;
		/* only this poll writes the rx counters */
		WRITE_ONCE(q->st.rx_packets, q->st.rx_packets + segs);
		WRITE_ONCE(q->st.rx_bytes, q->st.rx_bytes + len);
		WRITE_ONCE(q->q_rx_packets, q->q_rx_packets + segs);
		WRITE_ONCE(q->q_rx_bytes, q->q_rx_bytes + len);
		netif_receive_skb(skb);
	}
	if (n < budget)
		napi_complete_done(napi, n);
	return n;
}

static int txsim_tx_poll(struct napi_struct *napi, int budget)
{
	struct txsim_priv *p = container_of(napi, struct txsim_priv, tx_napi);
	struct sk_buff_head list;
	struct sk_buff *skb;
	unsigned long flags;

	__skb_queue_head_init(&list);
	spin_lock_irqsave(&p->lock, flags);
	txsim_clean_locked(p, (p->pflags & BIT(TXSIM_PF_NEXT_XMIT)) ? p->done : p->sig, &list);
	spin_unlock_irqrestore(&p->lock, flags);
	while ((skb = __skb_dequeue(&list))) {
		txsim_desc_cost(p, txsim_descs(skb));	/* unmap */
		napi_consume_skb(skb, budget);
	}
	if (budget)
		napi_complete_done(napi, 0);
	return 0;
}

static void txsim_rescan(struct timer_list *t)
{
	struct txsim_priv *p = timer_container_of(p, t, t_rescan);
	struct sk_buff_head list;
	struct sk_buff *skb;
	unsigned long flags;
	bool again;

	__skb_queue_head_init(&list);
	spin_lock_irqsave(&p->lock, flags);
	txsim_clean_locked(p, p->done, &list);
	again = p->hw_on && (p->pflags & BIT(TXSIM_PF_NEXT_XMIT));
	spin_unlock_irqrestore(&p->lock, flags);
	while ((skb = __skb_dequeue(&list))) {
		txsim_desc_cost(p, txsim_descs(skb));
		dev_consume_skb_any(skb);
	}
	if (again)
		mod_timer(&p->t_rescan, jiffies + msecs_to_jiffies(rescan_ms ?: 1));
}

static netdev_tx_t txsim_xmit(struct sk_buff *skb, struct net_device *dev)
{
	struct txsim_priv *p = netdev_priv(dev);
	struct sk_buff_head list;
	struct sk_buff *clone, *f;
	struct txsim_desc *d;
	unsigned long flags;
	unsigned int segs, ndesc, lin = READ_ONCE(p->linearize_frags);
	u64 now, wb, start, fifo_ns;

	__skb_queue_head_init(&list);
	if (p->pflags & BIT(TXSIM_PF_ORPHAN))
		skb_orphan(skb);
	/* the pathology of drivers with a descriptor limit (bnx2x at 10 frags or more): copy */
	if (lin && skb_shinfo(skb)->nr_frags > lin) {
		if (skb_linearize(skb)) {
			dev_kfree_skb_any(skb);
			spin_lock_irqsave(&p->lock, flags);
			p->st.tx_dropped++;
			spin_unlock_irqrestore(&p->lock, flags);
			return NETDEV_TX_OK;
		}
		lin = UINT_MAX;
	}
	ndesc = txsim_descs(skb);
	txsim_desc_cost(p, ndesc);	/* map and write the descriptors */
	skb_tx_timestamp(skb);
	/* the peer receives a clone; the original stays in the ring until its completion */
	clone = skb_clone(skb, GFP_ATOMIC);

	spin_lock_irqsave(&p->lock, flags);
	if (p->pflags & BIT(TXSIM_PF_NEXT_XMIT))
		txsim_clean_locked(p, p->done, &list);
	if (unlikely(p->prod - p->cons >= p->ring_size || !p->hw_on)) {
		netif_stop_queue(dev);
		p->st.tx_ring_full++;
		p->q_tx_stop++;
		spin_unlock_irqrestore(&p->lock, flags);
		kfree_skb(clone);
		while ((f = __skb_dequeue(&list))) {
			txsim_desc_cost(p, txsim_descs(f));
			dev_consume_skb_any(f);
		}
		return NETDEV_TX_BUSY;
	}
	now = now_ns();
	wb = wire_bytes(skb, &segs);
	start = max(now, p->wire_free_ns);
	/* the NIC fetches each descriptor before the frame goes out */
	p->wire_free_ns = start + div_u64(wb * 8 * 1000, p->speed) +
			  (u64)READ_ONCE(p->desc_ns) * ndesc;
	p->st.tx_wire_bytes += wb;
	p->st.tx_descs += ndesc;
	if (lin == UINT_MAX)
		p->st.tx_linearized++;
	if (skb->len > p->st.tx_skb_len_max)
		p->st.tx_skb_len_max = skb->len;

	d = &p->ring[p->prod % p->ring_size];
	d->skb = skb;
	d->t_xmit = now;
	/* DMA completion: when the frame has entered the on-NIC buffer in front of the wire */
	fifo_ns = div_u64((u64)READ_ONCE(p->fifo_bytes) * 8000, p->speed);
	d->t_done = p->wire_free_ns - min_t(u64, p->wire_free_ns - now, fifo_ns);
	if (p->prod != p->cons) {	/* completions stay in ring order */
		struct txsim_desc *prev = &p->ring[(p->prod - 1) % p->ring_size];

		d->t_done = max(d->t_done, prev->t_done);
	}
	d->segs = segs;
	d->frame_bytes = wb - segs * (ETH_FCS_LEN + 8 + 12);
	netdev_tx_sent_queue(netdev_get_tx_queue(dev, 0), skb->len);	/* before any completion */
	p->prod++;
	/*
	 * Catch up on hardware progress whenever the driver runs, so a late timer (an emulated
	 * guest is often descheduled) never delays a completion past the time it is due.
	 */
	txsim_progress_locked(p, now);
	if (p->done != p->prod && !hrtimer_active(&p->t_done))
		arm(&p->t_done, p->ring[p->done % p->ring_size].t_done);
	/*
	 * An interrupt that is due now is served right here (the NAPI it scheduled finds nothing)
	 * rather than after a softirq round trip, which under emulation adds a millisecond.
	 */
	if (!(p->pflags & BIT(TXSIM_PF_NEXT_XMIT)))
		txsim_clean_locked(p, p->sig, &list);
	if (p->prod - p->cons >= p->ring_size) {
		netif_stop_queue(dev);
		p->st.tx_ring_full++;
		p->q_tx_stop++;
	}

	if (likely(clone)) {
		/* the peer has the frame once its last bit is serialized and crossed the wire */
		TXSIM_CB(clone)->deliver_ns = p->wire_free_ns +
					      (u64)READ_ONCE(p->delay_us) * NSEC_PER_USEC;
		if (skb_queue_empty(&p->wire))
			arm(&p->t_wire, TXSIM_CB(clone)->deliver_ns);
		__skb_queue_tail(&p->wire, clone);
	} else {
		p->st.tx_dropped++;
	}
	spin_unlock_irqrestore(&p->lock, flags);
	while ((f = __skb_dequeue(&list))) {
		txsim_desc_cost(p, txsim_descs(f));
		dev_consume_skb_any(f);
	}
	return NETDEV_TX_OK;
}

/* A device with a frag limit takes no skb beyond it: without SG for this skb, the stack
 * linearizes it (validate_xmit_skb) before the driver's xmit; TSO stays. */
static netdev_features_t txsim_features_check(struct sk_buff *skb, struct net_device *dev,
					      netdev_features_t features)
{
	const struct txsim_priv *p = netdev_priv(dev);
	u32 max = READ_ONCE(p->max_frags);

	features = vlan_features_check(skb, features);
	if (max && skb_shinfo(skb)->nr_frags > max)
		features &= ~NETIF_F_SG;
	return features;
}

/* Hardware start/stop; the caller has stopped the stack's transmit path. */
static void txsim_hw_stop(struct txsim_priv *p)
{
	struct sk_buff_head list;
	unsigned long flags;

	__skb_queue_head_init(&list);
	spin_lock_irqsave(&p->lock, flags);
	p->hw_on = false;
	spin_unlock_irqrestore(&p->lock, flags);
	hrtimer_cancel(&p->t_done);
	hrtimer_cancel(&p->t_wire);
	hrtimer_cancel(&p->t_coal);
	timer_delete_sync(&p->t_rescan);
	napi_disable(&p->tx_napi);

	spin_lock_irqsave(&p->lock, flags);
	while (p->cons != p->prod) {	/* frames not yet completed are dropped, as on a reset */
		struct txsim_desc *d = &p->ring[p->cons % p->ring_size];

		__skb_queue_tail(&list, d->skb);
		d->skb = NULL;
		p->cons++;
	}
	skb_queue_splice_tail_init(&p->wire, &list);
	p->prod = p->done = p->sig = p->cons = 0;
	p->pending = 0;
	p->coal_armed = false;
	spin_unlock_irqrestore(&p->lock, flags);
	netdev_tx_reset_queue(netdev_get_tx_queue(p->dev, 0));
	__skb_queue_purge(&list);
}

static void txsim_hw_start(struct txsim_priv *p)
{
	unsigned long flags;

	napi_enable(&p->tx_napi);
	spin_lock_irqsave(&p->lock, flags);
	p->hw_on = true;
	p->wire_free_ns = now_ns();
	spin_unlock_irqrestore(&p->lock, flags);
	if (p->pflags & BIT(TXSIM_PF_NEXT_XMIT))
		mod_timer(&p->t_rescan, jiffies + msecs_to_jiffies(rescan_ms ?: 1));
}

#ifdef TXSIM_QUEUE_NAPI
/*
 * The queues name their NAPI (netdev netlink queue-get: napi-id): TX queue 0 the TX NAPI, RX
 * queue 0 the RX NAPI. Under RTNL (ndo_open, ndo_stop).
 */
static void txsim_link_queues(struct txsim_priv *p, bool on)
{
	netif_queue_set_napi(p->dev, 0, NETDEV_QUEUE_TYPE_TX, on ? &p->tx_napi : NULL);
	netif_queue_set_napi(p->dev, 0, NETDEV_QUEUE_TYPE_RX, on ? &p->rx_napi : NULL);
}

/* a NAPI added with netif_napi_add_tx() stays out of the NAPI hash and so gets no id to show */
#define txsim_napi_add_tx netif_napi_add
#else
static void txsim_link_queues(struct txsim_priv *p, bool on)
{
}

#define txsim_napi_add_tx netif_napi_add_tx
#endif

static int txsim_open(struct net_device *dev)
{
	struct txsim_priv *p = netdev_priv(dev);

	napi_enable(&p->rx_napi);
	spin_lock_irq(&p->rxq.lock);
	p->rx_on = true;
	spin_unlock_irq(&p->rxq.lock);
	txsim_hw_start(p);
	txsim_link_queues(p, true);
	netif_start_queue(dev);
	if (netif_running(p->peer)) {
		netif_carrier_on(dev);
		netif_carrier_on(p->peer);
	}
	return 0;
}

static int txsim_stop(struct net_device *dev)
{
	struct txsim_priv *p = netdev_priv(dev);

	netif_carrier_off(dev);
	netif_carrier_off(p->peer);
	netif_tx_disable(dev);
	txsim_link_queues(p, false);
	txsim_hw_stop(p);
	spin_lock_irq(&p->rxq.lock);
	p->rx_on = false;
	spin_unlock_irq(&p->rxq.lock);
	napi_disable(&p->rx_napi);
	skb_queue_purge(&p->rxq);
	return 0;
}

static int txsim_change_mtu(struct net_device *dev, int mtu)
{
	WRITE_ONCE(dev->mtu, mtu);
	return 0;
}

static void txsim_get_stats64(struct net_device *dev, struct rtnl_link_stats64 *s)
{
	struct txsim_priv *p = netdev_priv(dev);
	unsigned long flags;

	spin_lock_irqsave(&p->lock, flags);
	s->tx_packets = p->st.tx_packets;
	s->tx_bytes = p->st.tx_bytes;
	s->tx_dropped = p->st.tx_dropped;
	s->rx_packets = p->st.rx_packets;
	s->rx_bytes = p->st.rx_bytes;
	s->rx_dropped = p->st.rx_dropped;
	spin_unlock_irqrestore(&p->lock, flags);
}

/*
 * The TX watchdog: a queue stopped for watchdog_timeo (5 s). Like a driver's reset task it
 * restarts the queue; the core has already counted it (queues/tx-0/tx_timeout) and logged
 * "NETDEV WATCHDOG". Only never-wake leaves a queue stopped that long.
 */
static void txsim_tx_timeout(struct net_device *dev, unsigned int txqueue)
{
	struct txsim_priv *p = netdev_priv(dev);
	unsigned long flags;

	spin_lock_irqsave(&p->lock, flags);
	if (p->hw_on && netif_queue_stopped(dev)) {
		netif_wake_queue(dev);
		p->q_tx_wake++;
	}
	spin_unlock_irqrestore(&p->lock, flags);
}

static const struct net_device_ops txsim_netdev_ops = {
	.ndo_open = txsim_open,
	.ndo_stop = txsim_stop,
	.ndo_start_xmit = txsim_xmit,
	.ndo_features_check = txsim_features_check,
	.ndo_tx_timeout = txsim_tx_timeout,
	.ndo_change_mtu = txsim_change_mtu,
	.ndo_get_stats64 = txsim_get_stats64,
	.ndo_set_mac_address = eth_mac_addr,
	.ndo_validate_addr = eth_validate_addr,
};

#ifdef TXSIM_QSTATS
/* Per-queue stats (netdev netlink qstats-get): one queue each way, always live. */
static void txsim_get_queue_stats_rx(struct net_device *dev, int idx,
				     struct netdev_queue_stats_rx *rx)
{
	struct txsim_priv *p = netdev_priv(dev);

	rx->packets = READ_ONCE(p->q_rx_packets);
	rx->bytes = READ_ONCE(p->q_rx_bytes);
}

static void txsim_get_queue_stats_tx(struct net_device *dev, int idx,
				     struct netdev_queue_stats_tx *tx)
{
	struct txsim_priv *p = netdev_priv(dev);
	unsigned long flags;

	spin_lock_irqsave(&p->lock, flags);
	tx->packets = p->q_tx_packets;
	tx->bytes = p->q_tx_bytes;
	tx->stop = p->q_tx_stop;
	tx->wake = p->q_tx_wake;
	spin_unlock_irqrestore(&p->lock, flags);
}

/* Nothing is counted outside the one live queue of each direction: the base is zero. */
static void txsim_get_base_stats(struct net_device *dev, struct netdev_queue_stats_rx *rx,
				 struct netdev_queue_stats_tx *tx)
{
	rx->packets = 0;
	rx->bytes = 0;
	tx->packets = 0;
	tx->bytes = 0;
	tx->stop = 0;
	tx->wake = 0;
}

static const struct netdev_stat_ops txsim_stat_ops = {
	.get_queue_stats_rx = txsim_get_queue_stats_rx,
	.get_queue_stats_tx = txsim_get_queue_stats_tx,
	.get_base_stats = txsim_get_base_stats,
};

static void txsim_set_stat_ops(struct net_device *dev)
{
	dev->stat_ops = &txsim_stat_ops;
}
#else
static void txsim_set_stat_ops(struct net_device *dev)
{
}
#endif

/* ---- ethtool ---- */

static void txsim_get_drvinfo(struct net_device *dev, struct ethtool_drvinfo *info)
{
	strscpy(info->driver, DRV_NAME, sizeof(info->driver));
	strscpy(info->bus_info, "virtual", sizeof(info->bus_info));
	info->n_priv_flags = TXSIM_PF_COUNT;
	info->n_stats = TXSIM_NSTATS;
}

static int txsim_get_link_ksettings(struct net_device *dev, struct ethtool_link_ksettings *ks)
{
	struct txsim_priv *p = netdev_priv(dev);

	ethtool_link_ksettings_zero_link_mode(ks, supported);
	ethtool_link_ksettings_zero_link_mode(ks, advertising);
	ks->base.speed = p->speed;
	ks->base.duplex = DUPLEX_FULL;
	ks->base.port = PORT_OTHER;
	ks->base.autoneg = AUTONEG_DISABLE;
	return 0;
}

static int txsim_set_link_ksettings(struct net_device *dev,
				    const struct ethtool_link_ksettings *ks)
{
	struct txsim_priv *p = netdev_priv(dev);
	unsigned long flags;

	if (ks->base.autoneg == AUTONEG_ENABLE || ks->base.duplex == DUPLEX_HALF)
		return -EINVAL;
	if (!ks->base.speed || ks->base.speed == SPEED_UNKNOWN || ks->base.speed > TXSIM_SPEED_MAX)
		return -EINVAL;
	spin_lock_irqsave(&p->lock, flags);
	p->speed = ks->base.speed;
	spin_unlock_irqrestore(&p->lock, flags);
	return 0;
}

static void txsim_get_ringparam(struct net_device *dev, struct ethtool_ringparam *r,
				struct kernel_ethtool_ringparam *kr, struct netlink_ext_ack *ext)
{
	struct txsim_priv *p = netdev_priv(dev);

	r->tx_max_pending = TXSIM_RING_MAX;
	r->rx_max_pending = TXSIM_RING_MAX;
	r->tx_pending = p->ring_size;
	r->rx_pending = p->rx_ring;
}

static int txsim_set_ringparam(struct net_device *dev, struct ethtool_ringparam *r,
			       struct kernel_ethtool_ringparam *kr, struct netlink_ext_ack *ext)
{
	struct txsim_priv *p = netdev_priv(dev);
	struct txsim_desc *ring, *old;
	bool running = netif_running(dev);

	if (r->tx_pending < TXSIM_RING_MIN || r->rx_pending < TXSIM_RING_MIN) {
		NL_SET_ERR_MSG_MOD(ext, "ring size below 16");
		return -EINVAL;
	}
	WRITE_ONCE(p->rx_ring, r->rx_pending);
	if (r->tx_pending == p->ring_size)
		return 0;
	ring = kvcalloc(r->tx_pending, sizeof(*ring), GFP_KERNEL);
	if (!ring)
		return -ENOMEM;
	/* like a real NIC: quiesce, drop what is in flight, swap the ring, restart */
	if (running) {
		netif_tx_disable(dev);
		txsim_hw_stop(p);
	}
	spin_lock_irq(&p->lock);
	old = p->ring;
	p->ring = ring;
	p->ring_size = r->tx_pending;
	spin_unlock_irq(&p->lock);
	kvfree(old);
	if (running) {
		txsim_hw_start(p);
		netif_tx_wake_all_queues(dev);
	}
	return 0;
}

static int txsim_get_coalesce(struct net_device *dev, struct ethtool_coalesce *c,
			      struct kernel_ethtool_coalesce *kc, struct netlink_ext_ack *ext)
{
	struct txsim_priv *p = netdev_priv(dev);

	c->tx_coalesce_usecs = p->tx_usecs;
	c->tx_max_coalesced_frames = p->tx_frames;
	kc->use_cqe_mode_tx = p->cqe_mode;
	return 0;
}

static int txsim_set_coalesce(struct net_device *dev, struct ethtool_coalesce *c,
			      struct kernel_ethtool_coalesce *kc, struct netlink_ext_ack *ext)
{
	struct txsim_priv *p = netdev_priv(dev);
	unsigned long flags;

	if (c->tx_coalesce_usecs > TXSIM_USECS_MAX) {
		NL_SET_ERR_MSG_MOD(ext, "tx-usecs above 100000");
		return -ERANGE;
	}
	if (c->tx_max_coalesced_frames > TXSIM_RING_MAX) {
		NL_SET_ERR_MSG_MOD(ext, "tx-frames above 8192");
		return -ERANGE;
	}
	spin_lock_irqsave(&p->lock, flags);
	p->tx_usecs = c->tx_coalesce_usecs;
	p->tx_frames = c->tx_max_coalesced_frames;
	p->cqe_mode = kc->use_cqe_mode_tx;
	/* pending completions follow the new rule at once */
	if (p->pending && p->hw_on &&
	    (!p->tx_usecs || (p->tx_frames && p->pending >= p->tx_frames)))
		txsim_irq_locked(p, now_ns());
	spin_unlock_irqrestore(&p->lock, flags);
	return 0;
}

static u32 txsim_get_priv_flags(struct net_device *dev)
{
	struct txsim_priv *p = netdev_priv(dev);

	return p->pflags;
}

static int txsim_set_priv_flags(struct net_device *dev, u32 flags)
{
	struct txsim_priv *p = netdev_priv(dev);
	bool was_next = p->pflags & BIT(TXSIM_PF_NEXT_XMIT);
	unsigned long irqf;

	if (flags & ~(BIT(TXSIM_PF_COUNT) - 1))
		return -EINVAL;
	spin_lock_irqsave(&p->lock, irqf);
	p->pflags = flags;
	if (was_next && !(flags & BIT(TXSIM_PF_NEXT_XMIT)) && p->hw_on) {
		/* back to normal: completed skbs waiting for an xmit are freed now */
		p->sig = p->done;
		napi_schedule(&p->tx_napi);
	}
	if (!(flags & BIT(TXSIM_PF_NEVER_WAKE)) && p->hw_on && netif_queue_stopped(dev) &&
	    p->prod - p->cons <= p->ring_size / 2) {
		/* back to normal: the wake the completions withheld */
		netif_wake_queue(dev);
		p->q_tx_wake++;
	}
	spin_unlock_irqrestore(&p->lock, irqf);
	if (!was_next && (flags & BIT(TXSIM_PF_NEXT_XMIT)) && netif_running(dev))
		mod_timer(&p->t_rescan, jiffies + msecs_to_jiffies(rescan_ms ?: 1));
	return 0;
}

static int txsim_get_sset_count(struct net_device *dev, int sset)
{
	switch (sset) {
	case ETH_SS_STATS:
		return TXSIM_NSTATS;
	case ETH_SS_PRIV_FLAGS:
		return TXSIM_PF_COUNT;
	default:
		return -EOPNOTSUPP;
	}
}

static void txsim_get_strings(struct net_device *dev, u32 sset, u8 *buf)
{
	unsigned int i;

	switch (sset) {
	case ETH_SS_STATS:
		for (i = 0; i < TXSIM_NSTATS; i++)
			memcpy(buf + i * ETH_GSTRING_LEN, txsim_stat_names[i].name,
			       ETH_GSTRING_LEN);
		break;
	case ETH_SS_PRIV_FLAGS:
		memcpy(buf, txsim_pf_names, sizeof(txsim_pf_names));
		break;
	}
}

static void txsim_get_ethtool_stats(struct net_device *dev, struct ethtool_stats *es, u64 *data)
{
	struct txsim_priv *p = netdev_priv(dev);
	unsigned long flags;
	unsigned int i;

	spin_lock_irqsave(&p->lock, flags);
	for (i = 0; i < TXSIM_NSTATS; i++)
		data[i] = *(u64 *)((char *)&p->st + txsim_stat_names[i].off);
	spin_unlock_irqrestore(&p->lock, flags);
}

/*
 * The netlink core checks a coalescing attribute against BIT(attr - ETHTOOL_A_COALESCE_RX_USECS);
 * on 6.1 that bit for USE_CQE_MODE_TX is the one named ETHTOOL_COALESCE_USE_CQE_RX, so derive it
 * from the attribute to get cqe-mode-tx (and not cqe-mode-rx) on every kernel.
 */
#define TXSIM_COALESCE_CQE_TX BIT(ETHTOOL_A_COALESCE_USE_CQE_MODE_TX - ETHTOOL_A_COALESCE_RX_USECS)

static const struct ethtool_ops txsim_ethtool_ops = {
	.supported_coalesce_params = ETHTOOL_COALESCE_TX_USECS | ETHTOOL_COALESCE_TX_MAX_FRAMES |
				     TXSIM_COALESCE_CQE_TX,
	.get_drvinfo = txsim_get_drvinfo,
	.get_link = ethtool_op_get_link,
	.get_link_ksettings = txsim_get_link_ksettings,
	.set_link_ksettings = txsim_set_link_ksettings,
	.get_ringparam = txsim_get_ringparam,
	.set_ringparam = txsim_set_ringparam,
	.get_coalesce = txsim_get_coalesce,
	.set_coalesce = txsim_set_coalesce,
	.get_priv_flags = txsim_get_priv_flags,
	.set_priv_flags = txsim_set_priv_flags,
	.get_sset_count = txsim_get_sset_count,
	.get_strings = txsim_get_strings,
	.get_ethtool_stats = txsim_get_ethtool_stats,
	.get_ts_info = ethtool_op_get_ts_info,
};

/* ---- sysfs: /sys/class/net/DEV/txsim/{delay_us,fifo_bytes,stop_irq,desc_ns,max_frags,
 * linearize_frags,stats_reset} ---- */

/* A read-write unsigned knob of the device, range-checked on store. */
#define TXSIM_UINT_ATTR(name, max)                                                              \
	static ssize_t name##_show(struct device *d, struct device_attribute *attr, char *buf)  \
	{                                                                                       \
		struct txsim_priv *p = netdev_priv(to_net_dev(d));                              \
                                                                                                \
		return sysfs_emit(buf, "%u\n", READ_ONCE(p->name));                             \
	}                                                                                       \
	static ssize_t name##_store(struct device *d, struct device_attribute *attr,           \
				    const char *buf, size_t len)                                \
	{                                                                                       \
		struct txsim_priv *p = netdev_priv(to_net_dev(d));                              \
		unsigned int v;                                                                 \
		int err = kstrtouint(buf, 0, &v);                                               \
                                                                                                \
		if (err)                                                                        \
			return err;                                                             \
		if (v > (max))                                                                  \
			return -ERANGE;                                                         \
		WRITE_ONCE(p->name, v);                                                         \
		return len;                                                                     \
	}                                                                                       \
	static DEVICE_ATTR_RW(name)

TXSIM_UINT_ATTR(delay_us, 1000000);
TXSIM_UINT_ATTR(fifo_bytes, 64 << 20);
TXSIM_UINT_ATTR(stop_irq, 1);
TXSIM_UINT_ATTR(desc_ns, 1000000);
TXSIM_UINT_ATTR(max_frags, MAX_SKB_FRAGS);
TXSIM_UINT_ATTR(linearize_frags, MAX_SKB_FRAGS);

static ssize_t stats_reset_store(struct device *d, struct device_attribute *attr,
				 const char *buf, size_t len)
{
	struct txsim_priv *p = netdev_priv(to_net_dev(d));
	unsigned long flags;

	spin_lock_irqsave(&p->lock, flags);
	memset(&p->st, 0, sizeof(p->st));
	spin_unlock_irqrestore(&p->lock, flags);
	return len;
}
static DEVICE_ATTR_WO(stats_reset);

static struct attribute *txsim_attrs[] = {
	&dev_attr_delay_us.attr,
	&dev_attr_fifo_bytes.attr,
	&dev_attr_stop_irq.attr,
	&dev_attr_desc_ns.attr,
	&dev_attr_max_frags.attr,
	&dev_attr_linearize_frags.attr,
	&dev_attr_stats_reset.attr,
	NULL,
};
static const struct attribute_group txsim_attr_group = {
	.name = "txsim",
	.attrs = txsim_attrs,
};

/* ---- module ---- */

static void txsim_setup(struct net_device *dev)
{
	ether_setup(dev);
	dev->netdev_ops = &txsim_netdev_ops;
	dev->ethtool_ops = &txsim_ethtool_ops;
	txsim_set_stat_ops(dev);
	dev->min_mtu = ETH_MIN_MTU;
	dev->max_mtu = 65535;
	dev->hw_features = NETIF_F_SG | NETIF_F_HW_CSUM | NETIF_F_RXCSUM | NETIF_F_TSO |
			   NETIF_F_TSO6 | NETIF_F_TSO_ECN;
	dev->features = dev->hw_features | NETIF_F_HIGHDMA;
	dev->sysfs_groups[0] = &txsim_attr_group;
}

static struct net_device *txsim_alloc(void)
{
	struct net_device *dev;
	struct txsim_priv *p;

	dev = alloc_netdev(sizeof(*p), "txsim%d", NET_NAME_ENUM, txsim_setup);
	if (!dev)
		return NULL;
	p = netdev_priv(dev);
	p->dev = dev;
	p->ring_size = 256;
	p->ring = kvcalloc(p->ring_size, sizeof(*p->ring), GFP_KERNEL);
	if (!p->ring) {
		free_netdev(dev);
		return NULL;
	}
	spin_lock_init(&p->lock);
	skb_queue_head_init(&p->wire);
	skb_queue_head_init(&p->rxq);
	hrtimer_setup(&p->t_done, txsim_done_timer, CLOCK_MONOTONIC, HRTIMER_MODE_ABS);
	hrtimer_setup(&p->t_coal, txsim_coal_timer, CLOCK_MONOTONIC, HRTIMER_MODE_ABS);
	hrtimer_setup(&p->t_wire, txsim_wire_timer, CLOCK_MONOTONIC, HRTIMER_MODE_ABS);
	timer_setup(&p->t_rescan, txsim_rescan, 0);
	/*
	 * RX first: the device's NAPI list must stay sorted by id, newest first (netdev netlink's
	 * napi dump relies on it), and ids follow napi_enable(), RX before TX in txsim_open()
	 */
	netif_napi_add(dev, &p->rx_napi, txsim_rx_poll);
	txsim_napi_add_tx(dev, &p->tx_napi, txsim_tx_poll);
	p->rx_ring = 1024;
	p->speed = speed ?: 1000;
	p->delay_us = delay_us;
	p->fifo_bytes = fifo_bytes;
	p->stop_irq = 1;
	p->tx_usecs = 16;	/* mlx5-like defaults */
	p->tx_frames = 32;
	eth_hw_addr_random(dev);
	return dev;
}

static void txsim_free(struct net_device *dev)
{
	struct txsim_priv *p = netdev_priv(dev);

	netif_napi_del(&p->tx_napi);
	netif_napi_del(&p->rx_napi);
	kvfree(p->ring);
	free_netdev(dev);
}

static void txsim_destroy_all(void)
{
	LIST_HEAD(list);
	unsigned int i;

	rtnl_lock();
	for (i = 0; i < txsim_ndevs; i++)
		if (txsim_devs[i]->reg_state == NETREG_REGISTERED)
			unregister_netdevice_queue(txsim_devs[i], &list);
	unregister_netdevice_many(&list);
	rtnl_unlock();
	for (i = 0; i < txsim_ndevs; i++)
		txsim_free(txsim_devs[i]);
	kfree(txsim_devs);
}

static int __init txsim_init(void)
{
	unsigned int i;
	int err = 0;

	if (!pairs || pairs > 64)
		return -EINVAL;
	txsim_devs = kcalloc(2 * pairs, sizeof(*txsim_devs), GFP_KERNEL);
	if (!txsim_devs)
		return -ENOMEM;
	for (i = 0; i < 2 * pairs; i++) {
		txsim_devs[i] = txsim_alloc();
		if (!txsim_devs[i]) {
			err = -ENOMEM;
			break;
		}
		txsim_ndevs++;
	}
	if (!err) {
		for (i = 0; i < txsim_ndevs; i++) {
			struct txsim_priv *p = netdev_priv(txsim_devs[i]);

			p->peer = txsim_devs[i ^ 1];
		}
		for (i = 0; i < txsim_ndevs && !err; i++) {
			err = register_netdev(txsim_devs[i]);
			if (!err)
				netif_carrier_off(txsim_devs[i]);
		}
	}
	if (err)
		txsim_destroy_all();
	return err;
}

static void __exit txsim_exit(void)
{
	txsim_destroy_all();
}

module_init(txsim_init);
module_exit(txsim_exit);
MODULE_LICENSE("GPL");
MODULE_DESCRIPTION("Reference NIC pair with configurable TX completion behaviour");
