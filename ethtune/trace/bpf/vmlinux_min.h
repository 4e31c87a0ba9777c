/* txlat: the few kernel types the BPF programs read, for builds without the build host's BTF.
 * CO-RE relocates every field by name against the running kernel, so only names must match. */
#ifndef __VMLINUX_H__
#define __VMLINUX_H__

#include <linux/types.h>
#include <linux/bpf.h>

typedef _Bool bool;
enum { false = 0, true = 1 };

#pragma clang attribute push(__attribute__((preserve_access_index)), apply_to = record)

struct ns_common {
	unsigned int inum;
};

struct net {
	struct ns_common ns;
};

typedef struct {
	struct net *net;
} possible_net_t;

struct net_device {
	int ifindex;
	possible_net_t nd_net;
};

struct sock;

typedef struct {
	int counter;
} atomic_t;

typedef struct {
	atomic_t refs;
} refcount_t;

struct sk_buff {
	struct net_device *dev;
	struct sock *sk;
	void (*destructor)(struct sk_buff *skb);
	unsigned int len;
	unsigned int data_len;
	__u16 queue_mapping;
	__be16 protocol;
	__u16 network_header;
	unsigned int end; /* sk_buff_data_t: an offset from head on 64-bit */
	unsigned char *head;
	refcount_t users;
};

struct skb_shared_info {
	__u8 nr_frags;
	unsigned short gso_size;
	unsigned short gso_segs;
};

struct trace_event_raw_net_dev_start_xmit {
	const void *skbaddr;
};

struct trace_event_raw_consume_skb {
	void *skbaddr;
};

struct trace_event_raw_kfree_skb {
	void *skbaddr;
};

struct trace_event_raw_net_dev_template {
	void *skbaddr;
};

#pragma clang attribute pop

#endif
