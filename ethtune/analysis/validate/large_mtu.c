/* validate large-mtu: tsq's measure with both ends at the largest MTU they take. */
#include <errno.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <linux/if_link.h>

#include "analysis/validate.h"
#include "analysis/validate_check.h"
#include "nl/devobj.h"
#include "state/devset.h"
#include "state/journal.h"
#include "state/undo.h"
#include "util/ethtune.h"

/* The peer's device in its namespace (val_peer_run): its largest MTU, or a change of its MTU
 * through the journal. */
struct peer_mtu {
	const char *dev;
	char val[16]; /* "": read only */
	uint64_t max_mtu;
	char err[300];
};

static int peer_mtu_fn(void *ctx)
{
	struct peer_mtu *m = ctx;
	struct devset_kv kv = { "mtu", m->val };
	struct et_link l;
	int ret;

	if (!m->val[0]) {
		ret = link_get_dev(m->dev, &l);
		if (!ret)
			m->max_mtu = vals_has(&l.v, IFLA_MAX_MTU) ? l.v.v[IFLA_MAX_MTU] : 0;
		return ret;
	}
	ret = devset_set(m->dev, "link", &kv, 1, DEVSET_JOURNAL, m->err, sizeof(m->err), NULL);
	if (!ret)
		link_wait_up(m->dev, 15);
	return ret;
}

static int peer_mtu(const struct val_ctx *c, const char *val, uint64_t *max_mtu, char *err,
		    size_t len)
{
	struct peer_mtu m = { .dev = c->o.peer_dev };
	int ret;

	snprintf(m.val, sizeof(m.val), "%s", val ? val : "");
	ret = val_peer_run(c, peer_mtu_fn, &m, sizeof(m));
	if (max_mtu)
		*max_mtu = m.max_mtu;
	if (err)
		snprintf(err, len, "%s", m.err[0] ? m.err : strerror(-ret));
	return ret;
}

/* Bound: tsq's, at the largest MTU both devices take (at most 65535: IPv4's total length caps a
 * packet). The HiperSockets case: above 15000 one flow fell to a few Mbit/s while the device
 * could carry more; a large frame holds a larger share of TSQ's budget in the ring, so a late
 * completion costs one flow more there than at 1500. */
static int check_large_mtu(struct val_ctx *c, struct val_res *r)
{
	uint64_t ours = 0, theirs = 0, target;
	struct devset_kv kv;
	struct et_link l;
	char v[16], err[300] = "";
	int mark, ret;

	if (!c->o.peer_dev) {
		val_set(r, VR_SKIP,
			"no --peer-dev: the peer's device must take the large MTU too (with "
			"--peer-netns where it is in another namespace)");
		return 0;
	}
	if (!link_get_dev(c->o.dev, &l) && vals_has(&l.v, IFLA_MAX_MTU))
		ours = l.v.v[IFLA_MAX_MTU];
	ret = peer_mtu(c, NULL, &theirs, err, sizeof(err));
	if (ret) {
		val_set(r, VR_FAIL, "cannot read the peer's device %s: %s", c->o.peer_dev, err);
		return 0;
	}
	/* IPv4's total length caps a packet, so an MTU above 65535 carries nothing more */
	target = ours < theirs ? ours : theirs;
	target = target > 65535 ? 65535 : target;
	val_measured(r, "max-mtu", (double)ours);
	val_measured(r, "peer-max-mtu", (double)theirs);
	val_measured(r, "mtu", (double)target);
	if (target <= c->mtu) {
		val_set(r, VR_SKIP, "MTU %u is already the largest both devices take (%llu, %llu)",
			c->mtu, (unsigned long long)ours, (unsigned long long)theirs);
		return 0;
	}
	ret = journal_txn_begin(&mark);
	if (ret)
		return ret;
	snprintf(v, sizeof(v), "%llu", (unsigned long long)target);
	/* the peer first, so that it takes every frame we send at the new size */
	ret = peer_mtu(c, v, NULL, err, sizeof(err));
	if (ret) {
		val_set(r, VR_FAIL, "the peer's %s refused MTU %s: %s", c->o.peer_dev, v, err);
		goto out;
	}
	kv = (struct devset_kv){ "mtu", v };
	ret = devset_set(c->o.dev, "link", &kv, 1, DEVSET_JOURNAL, err, sizeof(err), NULL);
	if (ret) {
		val_set(r, VR_FAIL, "%s refused its own max-mtu %s: %s", c->o.dev, v, err);
		goto out;
	}
	link_wait_up(c->o.dev, 15);
	err[0] = 0;
	val_diag(r, "MTU %s on %s and the peer's %s (was %u), put back after", v, c->o.dev,
		 c->o.peer_dev, c->mtu);
	ret = val_tsq_measure(c, r);
out:
	if (undo_txn_rollback(mark))
		val_set(r, VR_FAIL, "the MTU could not be put back");
	if (ret && !strncmp(err, "cannot write the journal", 24))
		snprintf(c->fatal, sizeof(c->fatal), "%s", err);
	link_wait_up(c->o.dev, 15);
	return ret == -EINTR || c->fatal[0] ? ret : 0;
}

const struct val_entry val_check_large_mtu = {
	.name = "large-mtu",
	.needs = VAL_NEEDS_PEER | VAL_NEEDS_TXLAT,
	.software = VAL_TSQ_SOFTWARE,
	.run = check_large_mtu,
};
