// SPDX-License-Identifier: GPL-2.0
/* txlat: time every skb of one device from the driver's xmit to its free, per TX queue. */
#include "vmlinux.h"
#include <bpf/bpf_helpers.h>
#include <bpf/bpf_core_read.h>
#include <bpf/bpf_tracing.h>
#include <bpf/bpf_endian.h>
#include "txlat.h"

#define ETH_P_IP   0x0800
#define ETH_P_IPV6 0x86DD
#define PROTO_TCP  6

/* another CPU's xmit may take a way while a free reads it: one access each, in order */
#define READ_ONCE(x)	 (*(volatile typeof(x) *)&(x))
#define WRITE_ONCE(x, v) (*(volatile typeof(x) *)&(x) = (v))

/* A field of a kernel object. BTF-typed programs (tp_btf, fentry) see a typed pointer and load
 * it directly: the verifier makes that a load that cannot fault. The raw and tracepoint
 * backends see a number, and each field costs a bpf_probe_read_kernel call. btf is a constant
 * in every caller, so only one side is compiled. */
#define RD(btf, p, ...) ((btf) ? ___arrow(p, __VA_ARGS__) : BPF_CORE_READ(p, __VA_ARGS__))

/* Set by user space before load. */
const volatile int targ_ifindex = 0;
const volatile __u32 targ_netns = 0; /* inode of the device's network namespace, 0 any */
const volatile __u64 addr_tcp_wfree = 0;
const volatile __u64 addr_sock_wfree = 0;
const volatile __u64 addr___sock_wfree = 0;

/* Set by user space at every attach: an entry timed before it is left from an earlier window
 * of tracing (its free went unseen while detached) and counts as an empty way. */
__u64 epoch_ns = 0;

/* skbs between xmit and free: a set-associative table keyed by the skb's address, TXLAT_WAYS
 * ways a set. An array lookup is inlined by the verifier, where a hash map's update and delete
 * cost a few hundred ns an skb, and the free path runs for every skb freed on the machine. A
 * full set gives up its oldest entry (counted): an skb freed by a path without a tracepoint
 * (kfree_skb_partial on a receiver) leaves one behind, and the oldest is that one first. */
struct {
	__uint(type, BPF_MAP_TYPE_ARRAY);
	__uint(max_entries, TXLAT_SETS);
	__type(key, __u32);
	__type(value, struct txlat_set);
} inflight SEC(".maps");

/* The skb's address as a number, the key of its entry. BTF-typed programs see a typed pointer,
 * on which the verifier allows no arithmetic but the difference of two pointers (for a
 * privileged program): the distance to the table, a constant while the programs are loaded. The
 * others have a number. */
static __always_inline __u64 skb_key(struct sk_buff *skb, bool btf)
{
	return btf ? (__u64)skb - (__u64)&inflight : (__u64)skb;
}

/* Fibonacci hashing of the address: slab objects share their low bits. */
static __always_inline struct txlat_set *set_of(__u64 key)
{
	__u32 k = (__u32)((key * 0x9E3779B97F4A7C15ULL) >> (64 - TXLAT_SET_BITS));

	return bpf_map_lookup_elem(&inflight, &k);
}

static __always_inline struct txlat_slot *slot_find(__u64 key)
{
	struct txlat_set *s = set_of(key);
	__u32 i;

	if (!s)
		return NULL;
#pragma unroll
	for (i = 0; i < TXLAT_WAYS; i++)
		if (s->w[i].skb == key)
			return s->w[i].e.ts >= epoch_ns ? &s->w[i] : NULL;
	return NULL;
}

struct {
	__uint(type, BPF_MAP_TYPE_PERCPU_ARRAY);
	__uint(max_entries, TXLAT_MAX_QUEUES);
	__type(key, __u32);
	__type(value, struct txlat_qstats);
} qstats SEC(".maps");

struct {
	__uint(type, BPF_MAP_TYPE_PERCPU_ARRAY);
	__uint(max_entries, (TXLAT_MAX_QUEUES * TXLAT_H_NKINDS));
	__type(key, __u32);
	__type(value, struct txlat_hist);
} hists SEC(".maps");

/* TCP by the IP header (the socket may already be gone). */
static __always_inline bool skb_is_tcp(struct sk_buff *skb, bool btf)
{
	__u16 proto = RD(btf, skb, protocol);
	unsigned char *head = RD(btf, skb, head);
	__u16 nh = RD(btf, skb, network_header);
	__u8 p = 0;

	if (proto == bpf_htons(ETH_P_IP))
		bpf_probe_read_kernel(&p, 1, head + nh + 9);
	else if (proto == bpf_htons(ETH_P_IPV6))
		bpf_probe_read_kernel(&p, 1, head + nh + 6);
	return p == PROTO_TCP;
}

/* The device being traced: its ifindex, in its namespace. */
static __always_inline bool traced_dev(struct net_device *dev, bool btf)
{
	if (!dev || RD(btf, dev, ifindex) != targ_ifindex)
		return false;
	return !targ_netns || RD(btf, dev, nd_net.net, ns.inum) == targ_netns;
}

/* The skb's TX queue, the last counting for all above it. */
static __always_inline __u32 skb_txq(struct sk_buff *skb, bool btf)
{
	__u32 q = RD(btf, skb, queue_mapping);

	return q < TXLAT_MAX_QUEUES ? q : TXLAT_MAX_QUEUES - 1;
}

/* The shared info's nr_frags, gso_size and gso_segs: one copy of its first 8 bytes, where they
 * sit in every kernel since 4.x (a layout where they do not is read field by field). The shared
 * info is reached by arithmetic on head, so even BTF-typed programs copy it. */
_Static_assert(__BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__, "shinfo_read() assumes little-endian");

static __always_inline void shinfo_read(struct skb_shared_info *si, __u32 *nfr, __u32 *gso,
					__u32 *segs)
{
	__u32 onr = bpf_core_field_offset(struct skb_shared_info, nr_frags);
	__u32 ogs = bpf_core_field_offset(struct skb_shared_info, gso_size);
	__u32 ogg = bpf_core_field_offset(struct skb_shared_info, gso_segs);
	__u64 w = 0;

	if (onr > 7 || ogs > 6 || ogg > 6) {
		*nfr = BPF_CORE_READ(si, nr_frags);
		*gso = BPF_CORE_READ(si, gso_size);
		*segs = BPF_CORE_READ(si, gso_segs);
		return;
	}
	bpf_probe_read_kernel(&w, sizeof(w), si);
	*nfr = (w >> (onr * 8)) & 0xff;
	*gso = (w >> (ogs * 8)) & 0xffff;
	*segs = (w >> (ogg * 8)) & 0xffff;
}

static __always_inline void record(struct txlat_qstats *st, __u32 q, __u32 kind, __u64 ns)
{
	__u32 key = kind * TXLAT_MAX_QUEUES + q;
	struct txlat_hist *h = bpf_map_lookup_elem(&hists, &key);
	__u32 idx = txlat_bucket(ns);

	/* Hide the clamp inside txlat_bucket() from the compiler so that the verifier sees one. */
	asm volatile("" : "+r"(idx));
	if (!h || idx >= TXLAT_NBUCKETS || kind >= TXLAT_H_NKINDS)
		return;
	h->slot[idx]++;
	st->sum_ns[kind] += ns;
	if (ns > st->max_ns[kind])
		st->max_ns[kind] = ns;
}

/* The way for key: its own (an address xmitted again before a traced free), else an empty one,
 * else the oldest. The address is written last and cleared first, so that a reader that
 * finds it (slot_find) and finds it again after copying the entry copied a whole one. */
static __always_inline void set_insert(struct txlat_qstats *st, __u64 key,
				       const struct txlat_skb *e)
{
	struct txlat_set *s = set_of(key);
	__u64 oldest = ~0ULL;
	__u32 i, v = TXLAT_WAYS;

	if (!s)
		return;
#pragma unroll
	for (i = 0; i < TXLAT_WAYS; i++)
		if (s->w[i].skb == key && v == TXLAT_WAYS)
			v = i;
	if (v < TXLAT_WAYS) {
		if (s->w[v].e.ts >= epoch_ns)
			st->c[TXLAT_C_REXMIT]++;
	} else {
#pragma unroll
		for (i = 0; i < TXLAT_WAYS; i++)
			if ((!s->w[i].skb || s->w[i].e.ts < epoch_ns) && v == TXLAT_WAYS)
				v = i;
	}
	if (v == TXLAT_WAYS) {
#pragma unroll
		for (i = 0; i < TXLAT_WAYS; i++)
			if (s->w[i].e.ts < oldest) {
				oldest = s->w[i].e.ts;
				v = i;
			}
		st->c[TXLAT_C_EVICTED]++;
	}
	if (v >= TXLAT_WAYS)
		return;
	WRITE_ONCE(s->w[v].skb, 0);
	asm volatile("" ::: "memory");
	s->w[v].e = *e;
	asm volatile("" ::: "memory");
	WRITE_ONCE(s->w[v].skb, key);
}

static __always_inline int on_xmit(struct sk_buff *skb, struct net_device *dev, bool btf)
{
	struct txlat_skb e = {};
	struct skb_shared_info *si;
	struct txlat_qstats *st;
	__u64 key = skb_key(skb, btf), d;
	__u32 q, len, segs, gso, nfr;
	/* 64-bit indexes: a 32-bit one is bounds-checked in one register and zero-extended into
	 * another for the access, a copy 6.1's verifier does not carry the bound to */
	__u64 fi;

	if (!dev)
		dev = RD(btf, skb, dev);
	if (!traced_dev(dev, btf))
		return 0;
	q = skb_txq(skb, btf);
	st = bpf_map_lookup_elem(&qstats, &q);
	if (!st)
		return 0;
	e.ts = bpf_ktime_get_ns();
	e.head = (__u64)RD(btf, skb, head);
	e.queue = q;
	len = RD(btf, skb, len);
	st->c[TXLAT_C_XMIT]++;
	st->c[TXLAT_C_XMIT_BYTES] += len;
	if (len > st->max_len)
		st->max_len = len;
	/* what the stack built within gso_max_size/gso_max_segs, as the driver gets it */
	si = (struct skb_shared_info *)(e.head + RD(btf, skb, end));
	shinfo_read(si, &nfr, &gso, &segs);
	if (!gso)
		segs = 1;
	if (gso)
		st->c[TXLAT_C_GSO]++;
	st->c[TXLAT_C_SEGS] += segs;
	if (segs > st->max_segs)
		st->max_segs = segs;
	/* the pieces the driver maps: page frags, and their mean size (data_len per frag) */
	fi = nfr < TXLAT_FRAG_SLOTS ? nfr : TXLAT_FRAG_SLOTS - 1;
	asm volatile("" : "+r"(fi));
	if (fi < TXLAT_FRAG_SLOTS)
		st->c[TXLAT_C_FRAGS + fi]++;
	if (nfr) {
		fi = (__u64)txlat_log2(RD(btf, skb, data_len) / nfr);
		if (fi >= TXLAT_FRAG_BINS)
			fi = TXLAT_FRAG_BINS - 1;
		asm volatile("" : "+r"(fi));
		if (fi < TXLAT_FRAG_BINS)
			st->c[TXLAT_C_FRAG_BYTES + fi]++;
	}
	e.flags |= txlat_fclass(nfr) << TXLAT_F_FCLASS_SHIFT;
	/* tcp_wfree owns only TCP skbs: the header is read (a helper call) for the others alone */
	d = (__u64)RD(btf, skb, destructor);
	if ((d && d == addr_tcp_wfree) || skb_is_tcp(skb, btf)) {
		e.flags |= TXLAT_F_TCP;
		st->c[TXLAT_C_TCP]++;
		if (!RD(btf, skb, sk) || !d) {
			st->c[TXLAT_C_TCP_NOSK]++;
		} else if (d == addr_tcp_wfree) {
			st->c[TXLAT_C_TCP_WFREE]++;
			e.flags |= TXLAT_F_WFREE;
		} else if (d == addr_sock_wfree || d == addr___sock_wfree) {
			st->c[TXLAT_C_TCP_SOCKWFREE]++;
		} else {
			st->c[TXLAT_C_TCP_OTHER]++;
		}
	}
	set_insert(st, key, &e);
	return 0;
}

/* The free tracepoints fire before the skb is released (and before its destructor runs),
 * wherever the free happens: in the driver, in net_tx_action for dev_kfree_skb_irq, or from a
 * per-CPU defer list. */
static __always_inline int on_free(struct sk_buff *skb, __u32 ctr, bool btf)
{
	__u64 key = skb_key(skb, btf), ns, head, ts;
	struct txlat_qstats *st;
	struct txlat_slot *w;
	__u32 q, flags, cls;

	/* Runs for every skb freed on the machine: a miss must stay cheap. */
	w = slot_find(key);
	if (!w)
		return 0;
	ts = w->e.ts;
	q = w->e.queue;
	flags = w->e.flags;
	head = w->e.head;
	asm volatile("" ::: "memory");
	if (READ_ONCE(w->skb) != key) /* taken by an xmit meanwhile */
		return 0;
	WRITE_ONCE(w->skb, 0);
	ns = bpf_ktime_get_ns() - ts;
	if (q >= TXLAT_MAX_QUEUES)
		return 0;
	st = bpf_map_lookup_elem(&qstats, &q);
	if (!st)
		return 0;
	if ((__u64)RD(btf, skb, head) != head) {
		st->c[TXLAT_C_STALE]++;
		return 0;
	}
	if (ctr < TXLAT_C_NCTR)
		st->c[ctr]++;
	record(st, q, TXLAT_H_FREE, ns);
	cls = (flags >> TXLAT_F_FCLASS_SHIFT) & (TXLAT_FCLASSES - 1);
	st->c[TXLAT_C_FCLASS_N + cls]++;
	st->c[TXLAT_C_FCLASS_NS + cls] += ns;
	if (flags & TXLAT_F_WFREE) {
		if ((__u64)RD(btf, skb, destructor) == addr_tcp_wfree) {
			st->c[TXLAT_C_TCP_OWNED_FREE]++;
			if (!(flags & TXLAT_F_WFREE_DONE))
				record(st, q, TXLAT_H_WFREE, ns);
		} else {
			st->c[TXLAT_C_TCP_ORPHANED]++;
		}
	}
	return 0;
}

/* A later event of a traced skb, timed from its xmit once per skb: it counts only when the skb
 * carries every flag in need and not yet done. */
static __always_inline int record_once(struct sk_buff *skb, bool btf, __u32 need, __u32 done,
				       __u32 ctr, __u32 kind)
{
	__u64 key = skb_key(skb, btf);
	struct txlat_qstats *st;
	struct txlat_slot *w;
	struct txlat_skb *e;
	__u32 q;

	w = slot_find(key);
	if (!w)
		return 0;
	e = &w->e;
	if ((e->flags & need) != need || (e->flags & done))
		return 0;
	e->flags |= done;
	q = e->queue;
	if (q >= TXLAT_MAX_QUEUES)
		return 0;
	st = bpf_map_lookup_elem(&qstats, &q);
	if (!st)
		return 0;
	st->c[ctr]++;
	record(st, q, kind, bpf_ktime_get_ns() - e->ts);
	return 0;
}

/* tcp_wfree before the free means the skb was orphaned (skb_orphan) after xmit. */
static __always_inline int on_wfree(struct sk_buff *skb)
{
	return record_once(skb, true, TXLAT_F_WFREE, TXLAT_F_WFREE_DONE, TXLAT_C_WFREE_EARLY,
			   TXLAT_H_WFREE);
}

/* veth and loopback hand the skb itself to the receiving stack: time its arrival there (the
 * peer's ip_rcv orphans it right after), since the receiver often frees it untraced. */
static __always_inline int on_peer_rx(struct sk_buff *skb, bool btf)
{
	return record_once(skb, btf, 0, TXLAT_F_PEER_DONE, TXLAT_C_PEER, TXLAT_H_PEER);
}

/* A whole-skb pull (skb_linearize: __pskb_pull_tail of all of data_len): by the driver when
 * the skb is between its xmit and its free, by the stack (validate_xmit_skb: the device takes
 * no frags, or not this many) when it is headed for the device but not yet handed to it. */
static __always_inline int on_pull(struct sk_buff *skb, int delta)
{
	const bool btf = true;
	__u32 dl = RD(btf, skb, data_len), q, ctr;
	__u64 key = skb_key(skb, btf);
	struct txlat_qstats *st;
	struct txlat_slot *w;

	if (!dl || delta != (int)dl)
		return 0;
	w = slot_find(key);
	if (w) {
		q = w->e.queue;
		ctr = TXLAT_C_LIN_DRIVER;
		if (q >= TXLAT_MAX_QUEUES)
			return 0;
	} else {
		if (!traced_dev(RD(btf, skb, dev), btf))
			return 0;
		q = skb_txq(skb, btf);
		ctr = TXLAT_C_LIN_STACK;
	}
	st = bpf_map_lookup_elem(&qstats, &q);
	if (st)
		st->c[ctr]++;
	return 0;
}

/* Backend "btf": BTF-typed tracepoints and fentry (kernel >= 5.5 with BTF). */
SEC("tp_btf/net_dev_start_xmit")
int BPF_PROG(btf_xmit, struct sk_buff *skb, struct net_device *dev)
{
	return on_xmit(skb, dev, true);
}

SEC("tp_btf/consume_skb")
int BPF_PROG(btf_consume, struct sk_buff *skb)
{
	return on_free(skb, TXLAT_C_CONSUMED, true);
}

SEC("tp_btf/kfree_skb")
int BPF_PROG(btf_kfree, struct sk_buff *skb)
{
	return on_free(skb, TXLAT_C_KFREED, true);
}

SEC("tp_btf/netif_receive_skb")
int BPF_PROG(btf_peer, struct sk_buff *skb)
{
	return on_peer_rx(skb, true);
}

SEC("fentry/tcp_wfree")
int BPF_PROG(btf_wfree, struct sk_buff *skb)
{
	return on_wfree(skb);
}

/* A NAPI driver's free: judged at its entry. Since the kernel defers a free to the skb's
 * allocating CPU (skb_attempt_defer_free from napi_consume_skb), the destructor runs here and
 * the free that consume_skb traces comes later, without it: the socket looked released before
 * the free, and the time was the defer list's. An skb still shared is not freed here. */
SEC("fentry/napi_consume_skb")
int BPF_PROG(btf_ncs, struct sk_buff *skb, int budget)
{
	if (!skb || skb->users.refs.counter != 1)
		return 0;
	return on_free(skb, TXLAT_C_CONSUMED, true);
}

SEC("fentry/__pskb_pull_tail")
int BPF_PROG(btf_pull, struct sk_buff *skb, int delta)
{
	return on_pull(skb, delta);
}

/* Backend "raw": raw tracepoints, no trampolines needed. */
SEC("raw_tp/net_dev_start_xmit")
int BPF_PROG(raw_xmit, struct sk_buff *skb, struct net_device *dev)
{
	return on_xmit(skb, dev, false);
}

SEC("raw_tp/consume_skb")
int BPF_PROG(raw_consume, struct sk_buff *skb)
{
	return on_free(skb, TXLAT_C_CONSUMED, false);
}

SEC("raw_tp/kfree_skb")
int BPF_PROG(raw_kfree, struct sk_buff *skb)
{
	return on_free(skb, TXLAT_C_KFREED, false);
}

SEC("raw_tp/netif_receive_skb")
int BPF_PROG(raw_peer, struct sk_buff *skb)
{
	return on_peer_rx(skb, false);
}

/* Backend "tracepoint": perf tracepoints, which need tracefs to resolve their ids. */
SEC("tp/net/net_dev_start_xmit")
int tp_xmit(struct trace_event_raw_net_dev_start_xmit *ctx)
{
	return on_xmit((struct sk_buff *)ctx->skbaddr, NULL, false);
}

SEC("tp/skb/consume_skb")
int tp_consume(struct trace_event_raw_consume_skb *ctx)
{
	return on_free((struct sk_buff *)ctx->skbaddr, TXLAT_C_CONSUMED, false);
}

SEC("tp/skb/kfree_skb")
int tp_kfree(struct trace_event_raw_kfree_skb *ctx)
{
	return on_free((struct sk_buff *)ctx->skbaddr, TXLAT_C_KFREED, false);
}

SEC("tp/net/netif_receive_skb")
int tp_peer(struct trace_event_raw_net_dev_template *ctx)
{
	return on_peer_rx((struct sk_buff *)ctx->skbaddr, false);
}

char LICENSE[] SEC("license") = "GPL";
