/* Device objects: table-driven ethtool netlink / rtnetlink parameters with GET and SET. */
#ifndef ETHTUNE_DEVOBJ_H
#define ETHTUNE_DEVOBJ_H

#include <stdbool.h>
#include <stdint.h>
#include "nl/nl.h"

#define ET_MAX_ATTR 128

enum et_ptype {
	ET_U32,	 /* number */
	ET_BOOL, /* u8 on|off */
	ET_U8,	 /* small number */
	ET_ENUM, /* u8 with names (enum_names) */
	ET_U64,	 /* 64-bit number (netdev "uint": nanoseconds) */
};

struct et_param {
	const char *key;     /* ethtool keyword: CLI, JSON and profiles */
	uint16_t attr;	     /* netlink attribute of the value */
	uint8_t type;	     /* enum et_ptype */
	uint16_t max_attr;   /* attribute carrying the maximum (rings, channels), 0 none */
	const char *max_key; /* keyword of the maximum in output ("tx-max") */
	bool ro;	     /* reported but not settable */
	const char *const *enum_names; /* ET_ENUM: names indexed by value, NULL-terminated */
	uint64_t min;		       /* smallest accepted value */
	uint64_t max;		       /* largest accepted value, 0: the type's */
};

/* Values of one object as read from the kernel, indexed by attribute. */
struct et_vals {
	uint64_t v[ET_MAX_ATTR];
	uint64_t present[ET_MAX_ATTR / 64]; /* bit per attribute */
	/* Nested DIM profiles (coalesce rx/tx-profile): usec/pkts/comps per entry. */
	struct {
		unsigned int n;
		uint32_t usec[8], pkts[8], comps[8];
	} profile[2];
};

static inline bool vals_has(const struct et_vals *v, unsigned int attr)
{
	return attr < ET_MAX_ATTR && (v->present[attr / 64] & (1ULL << (attr % 64)));
}

static inline void vals_set(struct et_vals *v, unsigned int attr, uint64_t x)
{
	if (attr >= ET_MAX_ATTR)
		return;
	v->v[attr] = x;
	v->present[attr / 64] |= 1ULL << (attr % 64);
}

/* An ethtool netlink object with u32/u8 attributes (coalesce, rings, channels). */
struct et_object {
	const char *name;  /* "coalesce" */
	const char *title; /* "Coalesce parameters" */
	uint8_t get_cmd, set_cmd;
	uint16_t hdr_attr;
	const struct et_param *params;
	unsigned int n_params;
	/* GET reply callback: fills struct et_vals. */
	int (*reply_cb)(const struct nlmsghdr *nlh, void *vals);
	/* Extra text/JSON after the table (optional). */
	void (*show_extra)(const struct et_vals *vals);
};

extern const struct et_object et_coalesce;
extern const struct et_object et_rings;
extern const struct et_object et_channels;

/* Start an ethtool request cmd for dev in ns->buf: the request header nest hdr_attr with the
 * device name and, when non-zero, ETHTOOL_A_HEADER_FLAGS. */
struct nlmsghdr *ethnl_request(struct nl_sock *ns, uint8_t cmd, uint16_t hdr_attr, const char *dev,
			       uint32_t flags);

const struct et_object *obj_by_name(const char *name);
const struct et_param *obj_param(const struct et_object *obj, const char *key);

/* Generic reply parsing shared by the objects: known attributes stored, unknown ignored. */
int obj_parse_reply(const struct et_object *obj, const struct nlmsghdr *nlh, struct et_vals *v);

int obj_get(struct nl_sock *ns, const struct et_object *obj, const char *dev, struct et_vals *v);

/* A requested change: parameter and new value. */
struct et_change {
	const struct et_param *p;
	uint64_t val;
};

/* Parse "KEY VAL ..." against obj and the device's current values (supported, range).
 * On error writes one line to err and returns -errno; nothing is sent. */
int obj_parse_changes(const struct et_object *obj, const struct et_vals *cur, int argc, char **argv,
		      struct et_change *ch, unsigned int *n, char *err, size_t errlen);
int obj_set(struct nl_sock *ns, const struct et_object *obj, const char *dev,
	    const struct et_change *ch, unsigned int n);
void obj_show(const struct et_object *obj, const struct et_vals *v);
/* Value as the text the CLI accepts ("16", "on", "auto"). */
void obj_format_val(const struct et_param *p, uint64_t v, char *buf, size_t len);
int obj_parse_val(const struct et_param *p, const char *s, uint64_t *out);

/* Named boolean sets: features and private flags. */
#define ET_MAX_BITS 256
struct et_bitset {
	unsigned int n;
	struct {
		char name[48];
		bool active; /* current value */
		bool changeable;
		bool wanted; /* requested (features only) */
	} bit[ET_MAX_BITS];
};

int features_get(struct nl_sock *ns, const char *dev, struct et_bitset *fs);
/* Which flag of the bits a verbose bitset attribute fills. */
enum et_bitset_part { BS_ACTIVE, BS_CHANGEABLE, BS_WANTED };
int features_parse_bitset(const struct nlattr *attr, struct et_bitset *fs,
			  enum et_bitset_part which);
/* Put a verbose bitset attribute type setting the named bits to vals. */
void bitset_put_named(struct nlmsghdr *nlh, uint16_t type, const char *const *names,
		      const bool *vals, unsigned int n);
/* Set named features (ethtool -K names or kernel names) to values. */
int features_set(struct nl_sock *ns, const char *dev, const char *const *names, const bool *vals,
		 unsigned int n);
/* Expand an ethtool -K short name ("tso", "sg") to kernel feature names; NULL if not one. */
const char *const *feature_alias(const char *name);
/* The i-th short name feature_alias() knows ("sg", "tso"...), NULL past the last. */
const char *feature_alias_at(unsigned int i);
void features_show(const struct et_bitset *fs);

int privflags_get(struct nl_sock *ns, const char *dev, struct et_bitset *pf);
int privflags_set(struct nl_sock *ns, const char *dev, const char *name, bool val);
void privflags_show(const struct et_bitset *pf);

/* rtnetlink link attributes (mtu, gso/tso limits, txqueuelen, qdisc, queues). */
struct et_link {
	int ifindex;
	char name[32];
	char qdisc[32];
	char kind[32]; /* IFLA_INFO_KIND: veth, tun, ... */
	char parent_bus[32], parent_dev[64];
	char operstate[16];
	unsigned int flags; /* ifi_flags: IFF_UP is the administrative state */
	struct et_vals v;   /* indexed by link_params[].attr */
};
extern const struct et_param link_params[];
extern const unsigned int n_link_params;
const struct et_param *link_param(const char *key);
int link_get(struct nl_sock *rt, const char *dev, struct et_link *l);
int link_set(struct nl_sock *rt, int ifindex, const struct et_change *ch, unsigned int n);
int link_parse_reply(const struct nlmsghdr *nlh, struct et_link *l);
/* link_get on its own rtnetlink socket. 0 or -errno. */
int link_get_dev(const char *dev, struct et_link *l);
/* Administrative state up or down (ip link set DEV up|down). 0 or -errno. */
int link_admin(struct nl_sock *rt, int ifindex, bool up);
/* Wait up to timeout_s for operstate up (or unknown: no carrier reporting); 0 or -ETIMEDOUT. */
int link_wait_up(const char *dev, double timeout_s);

/* What taking ifindex down would delete for good (the kernel makes the rest again when it comes
 * up): routes through it a user or a daemon added, and its permanent IPv6 addresses. */
struct link_lost {
	unsigned int routes, addrs6;
};
int link_down_losses(int ifindex, struct link_lost *l);
/* Its reply callbacks (RTM_NEWROUTE, RTM_NEWADDR), data a struct link_lost_ctx. */
struct link_lost_ctx {
	int ifindex;
	struct link_lost *l;
};
int link_lost_route_cb(const struct nlmsghdr *nlh, void *data);
int link_lost_addr_cb(const struct nlmsghdr *nlh, void *data);

/* Driver info (ioctl, no netlink exists) and link speed/state (ethtool netlink). */
struct et_drvinfo {
	char driver[32], version[32], fw[32], bus[32];
	bool ok;
	int speed;  /* Mb/s, -1 unknown */
	int duplex; /* 0 half, 1 full, -1 unknown */
	int link;   /* 0/1, -1 unknown */
};
int drvinfo_get(struct nl_sock *ethnl, const char *dev, struct et_drvinfo *d);

#endif
