/* validate's view of the device: its snapshot, sysfs numbers, TX timeouts; the peer's side. */
#include <errno.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <net/if.h>
#include <linux/if_link.h>

#include "analysis/validate.h"
#include "analysis/validate_check.h"
#include "nl/devobj.h"
#include "util/ethtune.h"

const struct et_object *const val_objs[3] = { &et_coalesce, &et_rings, &et_channels };
const char *const val_obj_words[3] = { "coalesce", "ring", "channels" };

int val_peer_run(const struct val_ctx *c, int (*fn)(void *), void *ctx, size_t len)
{
	return netns_run_shared(c->o.peer_netns, fn, ctx, len);
}

uint64_t val_dev_u64(const char *dev, const char *rel)
{
	uint64_t v = 0;

	dev_sysfs_u64(dev, rel, &v);
	return v;
}

uint64_t val_tx_timeouts(const char *dev)
{
	char rel[64];
	uint64_t sum = 0, v;
	unsigned int q;

	for (q = 0; q < 4096; q++) {
		snprintf(rel, sizeof(rel), "queues/tx-%u/tx_timeout", q);
		if (dev_sysfs_u64(dev, rel, &v))
			break;
		sum += v;
	}
	return sum;
}

void val_snap_take(const char *dev, struct snap *s)
{
	struct nl_sock ns;
	struct et_link l;
	unsigned int i;

	memset(s, 0, sizeof(*s));
	if (nl_open_genl(&ns, "ethtool")) {
		s->ret[0] = s->ret[1] = s->ret[2] = s->fret = -EIO;
	} else {
		for (i = 0; i < 3; i++)
			s->ret[i] = obj_get(&ns, val_objs[i], dev, &s->v[i]);
		s->fret = features_get(&ns, dev, &s->feat);
		nl_close(&ns);
	}
	if (!link_get_dev(dev, &l))
		s->mtu = l.v.v[IFLA_MTU];
}

/* The peer's device (--peer-dev) in its namespace (--peer-netns, val_peer_run). */
struct peer_snap {
	const char *dev;
	struct snap s;
};

static int peer_snap_fn(void *ctx)
{
	struct peer_snap *p = ctx;

	if (!if_nametoindex(p->dev))
		return -ENODEV;
	val_snap_take(p->dev, &p->s);
	return 0;
}

int val_peer_snap_take(const struct val_ctx *c, struct snap *out)
{
	struct peer_snap *p = calloc(1, sizeof(*p)); /* a snapshot is too large for the stack */
	int ret;

	if (!p)
		return -ENOMEM;
	p->dev = c->o.peer_dev;
	ret = val_peer_run(c, peer_snap_fn, p, sizeof(*p));
	if (!ret)
		*out = p->s;
	free(p);
	return ret;
}
