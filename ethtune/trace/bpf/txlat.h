/* txlat: map layouts and latency buckets shared by the BPF programs and ethtune/txlat.c. */
#ifndef ETHTUNE_TXLAT_H
#define ETHTUNE_TXLAT_H

/* TX queues beyond the last are counted in the last one (reported as "31+"). */
#define TXLAT_MAX_QUEUES 32
/* the table of skbs in flight: 2^TXLAT_SET_BITS sets of TXLAT_WAYS (64 Ki entries) */
#define TXLAT_SET_BITS 14
#define TXLAT_SETS     (1U << TXLAT_SET_BITS)
#define TXLAT_WAYS     4

/* Log-linear buckets of nanoseconds: values below 16 exactly, then every power of two split
 * into 16 linear steps (relative width <= 6.25%), up to 2^43 ns. */
#define TXLAT_SUB_BITS 4
#define TXLAT_SUB      (1 << TXLAT_SUB_BITS)
#define TXLAT_NBUCKETS 640

/* Which latency a histogram holds. */
enum txlat_hist_kind {
	TXLAT_H_FREE,  /* driver xmit -> skb free (consume_skb / kfree_skb) */
	TXLAT_H_WFREE, /* driver xmit -> tcp_wfree (socket write memory released) */
	TXLAT_H_PEER,  /* driver xmit -> the same skb received by the peer (veth, loopback) */
	TXLAT_H_NKINDS,
};

/* Frags per skb at xmit: counts for 0..TXLAT_FRAG_SLOTS-2 frags, the last slot for that many
 * or more (CONFIG_MAX_SKB_FRAGS goes to 45); bytes per frag in log2 bins ([2^b, 2^(b+1)), the
 * last open); the free's latency summed per class of frag count: 0 (linear), 1-4, 5-16, 17 or
 * more (the classic MAX_SKB_FRAGS and beyond). */
#define TXLAT_FRAG_SLOTS 48
#define TXLAT_FRAG_BINS	 20
#define TXLAT_FCLASSES	 4

static __always_inline __u32 txlat_fclass(__u32 nr_frags)
{
	return nr_frags == 0 ? 0 : nr_frags <= 4 ? 1 : nr_frags <= 16 ? 2 : 3;
}

/* Per-queue counters (per CPU in the kernel, summed by user space). */
enum txlat_ctr {
	TXLAT_C_XMIT, /* skbs handed to the driver */
	TXLAT_C_XMIT_BYTES,
	TXLAT_C_REXMIT,	  /* xmit of a tracked address: requeue, or a free we did not see */
	TXLAT_C_CONSUMED, /* freed through consume_skb */
	TXLAT_C_KFREED,	  /* freed through kfree_skb (drops, and drivers using dev_kfree_skb_any) */
	TXLAT_C_STALE,	  /* free of a reused skb address whose data differs: not counted */
	TXLAT_C_TCP,	  /* TCP skbs (by header) */
	TXLAT_C_TCP_NOSK, /* ...with no owning socket at xmit: orphaned before the driver */
	TXLAT_C_TCP_WFREE,	/* ...owned with destructor tcp_wfree at xmit (TSQ sees the free) */
	TXLAT_C_TCP_SOCKWFREE,	/* ...owned with sock_wfree/__sock_wfree (pure ACKs, RST) */
	TXLAT_C_TCP_OTHER,	/* ...owned with another destructor */
	TXLAT_C_TCP_OWNED_FREE, /* tcp_wfree at xmit and still at free: released by the free */
	TXLAT_C_TCP_ORPHANED,	/* tcp_wfree at xmit, gone at free: orphaned after xmit */
	TXLAT_C_WFREE_EARLY,	/* tcp_wfree ran before the free (fentry) */
	TXLAT_C_PEER,	    /* received by the peer (netif_receive_skb), receiver-side devices */
	TXLAT_C_GSO,	    /* GSO super-packets handed to the driver (gso_size set) */
	TXLAT_C_SEGS,	    /* the wire packets they make: gso_segs of a GSO skb, 1 of another */
	TXLAT_C_LIN_DRIVER, /* skbs the driver linearized after xmit (fentry __pskb_pull_tail) */
	TXLAT_C_LIN_STACK,  /* skbs for the device the stack linearized before xmit */
	TXLAT_C_EVICTED,    /* entries given up to a new xmit in a full set: not timed */
	/* TXLAT_FRAG_SLOTS counters: skbs by nr_frags at xmit */
	TXLAT_C_FRAGS,
	/* TXLAT_FRAG_BINS counters: skbs with frags by log2 of data_len / nr_frags */
	TXLAT_C_FRAG_BYTES = TXLAT_C_FRAGS + TXLAT_FRAG_SLOTS,
	/* TXLAT_FCLASSES counters each: frees by the skb's frag class, their xmit-to-free ns */
	TXLAT_C_FCLASS_N = TXLAT_C_FRAG_BYTES + TXLAT_FRAG_BINS,
	TXLAT_C_FCLASS_NS = TXLAT_C_FCLASS_N + TXLAT_FCLASSES,
	TXLAT_C_NCTR = TXLAT_C_FCLASS_NS + TXLAT_FCLASSES,
};

struct txlat_qstats {
	__u64 c[TXLAT_C_NCTR];
	__u64 max_ns[TXLAT_H_NKINDS];
	__u64 sum_ns[TXLAT_H_NKINDS];
	__u64 max_len;	/* the longest skb handed to the driver, bytes */
	__u64 max_segs; /* the most gso_segs of one */
};

struct txlat_hist {
	__u64 slot[TXLAT_NBUCKETS];
};

/* One queue's counters and histograms summed over CPUs (user space only). */
struct txlat_q {
	struct txlat_qstats st;
	struct txlat_hist h[TXLAT_H_NKINDS];
};

/* State of one skb between xmit and free, keyed by its address. */
#define TXLAT_F_TCP	     1
#define TXLAT_F_WFREE	     2 /* destructor tcp_wfree at xmit */
#define TXLAT_F_WFREE_DONE   4 /* tcp_wfree already ran */
#define TXLAT_F_PEER_DONE    8 /* the peer received it */
#define TXLAT_F_FCLASS_SHIFT 8 /* bits 8-9: txlat_fclass() of the skb at xmit */
struct txlat_skb {
	__u64 ts;
	__u64 head; /* skb->head at xmit: tells a reused skb address from the same skb */
	__u32 queue;
	__u32 flags;
};

/* A set of the in-flight table (txlat.bpf.c): its ways, each an skb's address (0: free) and
 * what its xmit saw. */
struct txlat_slot {
	__u64 skb;
	struct txlat_skb e;
};

struct txlat_set {
	struct txlat_slot w[TXLAT_WAYS];
};

static __always_inline __u32 txlat_log2(__u64 v)
{
	__u32 r, shift;

	r = (v > 0xFFFFFFFFULL) << 5;
	v >>= r;
	shift = (v > 0xFFFF) << 4;
	v >>= shift;
	r |= shift;
	shift = (v > 0xFF) << 3;
	v >>= shift;
	r |= shift;
	shift = (v > 0xF) << 2;
	v >>= shift;
	r |= shift;
	shift = (v > 0x3) << 1;
	v >>= shift;
	r |= shift;
	r |= (__u32)(v >> 1);
	return r;
}

static __always_inline __u32 txlat_bucket(__u64 ns)
{
	__u32 msb, idx;

	if (ns < TXLAT_SUB)
		return (__u32)ns;
	msb = txlat_log2(ns);
	idx = (msb - TXLAT_SUB_BITS + 1) * TXLAT_SUB +
	      (__u32)((ns >> (msb - TXLAT_SUB_BITS)) & (TXLAT_SUB - 1));
	return idx < TXLAT_NBUCKETS ? idx : TXLAT_NBUCKETS - 1;
}

/* Smallest value of bucket idx and its width, in ns. */
static inline __u64 txlat_bucket_lo(__u32 idx)
{
	__u32 oct = idx / TXLAT_SUB, sub = idx % TXLAT_SUB;

	if (oct == 0)
		return idx;
	return (__u64)(TXLAT_SUB + sub) << (oct - 1);
}

static inline __u64 txlat_bucket_width(__u32 idx)
{
	__u32 oct = idx / TXLAT_SUB;

	return oct == 0 ? 1 : 1ULL << (oct - 1);
}

#endif
