// SPDX-License-Identifier: GPL-2.0
/* Programs that return at once, on txlat's four tracepoints (its btf backend): the floor. */
#include "vmlinux.h"
#include <bpf/bpf_helpers.h>
#include <bpf/bpf_tracing.h>

SEC("tp_btf/net_dev_start_xmit")
int BPF_PROG(floor_xmit, struct sk_buff *skb, struct net_device *dev)
{
	return 0;
}

SEC("tp_btf/consume_skb")
int BPF_PROG(floor_consume, struct sk_buff *skb)
{
	return 0;
}

SEC("tp_btf/kfree_skb")
int BPF_PROG(floor_kfree, struct sk_buff *skb)
{
	return 0;
}

SEC("tp_btf/netif_receive_skb")
int BPF_PROG(floor_peer, struct sk_buff *skb)
{
	return 0;
}

char LICENSE[] SEC("license") = "GPL";
