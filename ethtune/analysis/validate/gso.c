/* validate gso: no skb above the GSO limits in force, and a lowered limit binds at once. */
#include <errno.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <linux/if_link.h>

#include "analysis/validate.h"
#include "analysis/validate_check.h"
#include "nl/devobj.h"
#include "nl/ethtool_attrs.h"
#include "probe/probe.h"
#include "state/devset.h"
#include "state/journal.h"
#include "state/undo.h"
#include "trace/txlat.h"
#include "util/ethtune.h"

/* gso: the limits lowered one at a time while one flow runs: gso-max-size to the largest power
 * of two at most a quarter of the limit in force (64 KiB: 16 KiB, 11 segments at MTU 1500),
 * when that still holds this many MTU-sized segments, and gso-max-segs to VAL_GSO_SEGS. TCP
 * builds its skbs up to the limit (tcp_tso_autosize: a millisecond of the pacing rate, above
 * 16 KiB from 131 Mbit/s), so a limit binds when the largest skb reaches half of it (size) or
 * it (segments); one that does not shows nothing. */
#define VAL_GSO_SIZE_DIV 4
#define VAL_GSO_MIN_SEGS 3
#define VAL_GSO_SEGS	 4
/* gso: the device's TX packets are wire packets or super-packets, told apart by the mean size of
 * what it counted (its bytes over its packets, read together, so periodically refreshed
 * counters still agree) against the traced bytes per wire segment and per skb. Within this
 * factor of one: a segment's replicated headers add at most 134 bytes to 1448 (9%), and the
 * control connection's few packets less. Only where the skbs carry this many segments each on
 * average are the two apart (1.25 squared is 1.56). */
#define VAL_GSO_COUNT_TOL  1.25
#define VAL_GSO_APART_SEGS 1.6

/* What the device's TX packets count, from its mean packet against the traced skbs'. */
enum gso_count { GC_UNKNOWN, GC_WIRE, GC_SUPER, GC_NEITHER };
static const char *const gso_count_names[] = {
	[GC_UNKNOWN] = NULL,
	[GC_WIRE] = "wire packets",
	[GC_SUPER] = "super-packets",
	[GC_NEITHER] = "neither",
};

static enum gso_count gso_counts(const struct val_gso_phase *p)
{
	double dev, wire, super;

	if (!p->dev_pkts || !p->segs || !p->skbs)
		return GC_UNKNOWN;
	dev = (double)p->dev_bytes / (double)p->dev_pkts;
	wire = (double)p->bytes / (double)p->segs;
	super = (double)p->bytes / (double)p->skbs;
	if (dev >= wire / VAL_GSO_COUNT_TOL && dev <= wire * VAL_GSO_COUNT_TOL)
		return GC_WIRE;
	if (dev >= super / VAL_GSO_COUNT_TOL && dev <= super * VAL_GSO_COUNT_TOL)
		return GC_SUPER;
	return GC_NEITHER;
}

void val_gso_judge(const struct val_gso *m, struct val_res *r)
{
	const struct val_gso_phase *p0 = &m->p[0];
	enum gso_count counts = GC_UNKNOWN;
	unsigned int i, bound = 0, lowered = 0;

	if (!m->n || !p0->skbs) {
		val_set(r, VR_SKIP, "txlat traced no skb at the driver's xmit");
		return;
	}
	val_measured(r, "max-skb-bytes", (double)p0->max_len);
	val_measured(r, "max-gso-segs", (double)p0->max_segs);
	val_bound(r, "gso-max-size", (double)p0->size_limit);
	val_bound(r, "gso-max-segs", (double)p0->segs_limit);
	if (!p0->gso) {
		val_set(r, VR_SKIP,
			"none of %llu skbs reached the driver as a GSO super-packet: the stack "
			"segments before it (TSO off?)",
			(unsigned long long)p0->skbs);
		return;
	}
	for (i = 0; i < m->n; i++) {
		const struct val_gso_phase *p = &m->p[i];
		double per = p->skbs ? (double)p->segs / (double)p->skbs : 0;
		enum gso_count k = gso_counts(p);

		val_diag(r,
			 "%s: %llu skbs (%llu GSO) made %llu wire packets, the largest %llu bytes "
			 "and %llu segments (limits %llu bytes, %llu segments); the device counted "
			 "%llu packets, %llu bytes",
			 p->what, (unsigned long long)p->skbs, (unsigned long long)p->gso,
			 (unsigned long long)p->segs, (unsigned long long)p->max_len,
			 (unsigned long long)p->max_segs, (unsigned long long)p->size_limit,
			 (unsigned long long)p->segs_limit, (unsigned long long)p->dev_pkts,
			 (unsigned long long)p->dev_bytes);
		if (p->max_len > p->size_limit) {
			val_set(r, VR_FAIL,
				"%s: an skb of %llu bytes reached the driver, above %llu", p->what,
				(unsigned long long)p->max_len, (unsigned long long)p->size_limit);
			return;
		}
		if (p->max_segs > p->segs_limit) {
			val_set(r, VR_FAIL,
				"%s: an skb of %llu segments reached the driver, above %llu",
				p->what, (unsigned long long)p->max_segs,
				(unsigned long long)p->segs_limit);
			return;
		}
		if (p->lowered != VAL_GSO_NONE) {
			bool b = p->lowered == VAL_GSO_SIZE ? p->max_len * 2 > p->size_limit
							    : p->max_segs == p->segs_limit;

			lowered++;
			bound += b;
			if (!b)
				val_diag(r, "%s: the flow did not reach the limit", p->what);
		}
		/* wire against super-packets only where the two are apart */
		if (k == GC_UNKNOWN || per < VAL_GSO_APART_SEGS)
			continue;
		if (k == GC_NEITHER) {
			val_set(r, VR_FAIL,
				"%s: the device counted %llu packets of %.0f bytes on average for "
				"%llu "
				"wire packets (%.0f bytes) in %llu skbs (%.0f bytes)",
				p->what, (unsigned long long)p->dev_pkts,
				(double)p->dev_bytes / (double)p->dev_pkts,
				(unsigned long long)p->segs, (double)p->bytes / (double)p->segs,
				(unsigned long long)p->skbs, (double)p->bytes / (double)p->skbs);
			return;
		}
		if (counts != GC_UNKNOWN && counts != k) {
			val_set(r, VR_FAIL, "the device counted %s in one flow and %s in another",
				gso_count_names[counts], gso_count_names[k]);
			return;
		}
		counts = k;
	}
	if (lowered && !bound) {
		val_set(r, VR_SKIP,
			"inconclusive: no lowered limit was reached, so none showed it is honoured "
			"(the largest skb %llu bytes, %llu segments)",
			(unsigned long long)p0->max_len, (unsigned long long)p0->max_segs);
		return;
	}
	if (counts != GC_UNKNOWN)
		val_diag(r, "the device's TX packets are %s", gso_count_names[counts]);
	val_set(r, VR_PASS,
		"no skb above the limits in %u flows (%u of %u lowered limits reached); TX packets "
		"counted as %s",
		m->n, bound, lowered,
		counts != GC_UNKNOWN ? gso_count_names[counts]
				     : "n/a (too few segments per skb to tell)");
}

/* The limits in force on the device (of its link as read): the larger of gso-max-size and
 * gso-ipv4-max-size (the one an IPv4 flow gets, since 6.3), gso-max-segs, and tso-max-size (0
 * where not reported); -EOPNOTSUPP on a kernel that reports no GSO limits. gso_limits() reads
 * the link first. */
int val_gso_link_limits(const struct et_link *l, uint64_t *size, uint64_t *segs, uint64_t *tso_size)
{
	if (!vals_has(&l->v, IFLA_GSO_MAX_SIZE) || !vals_has(&l->v, IFLA_GSO_MAX_SEGS))
		return -EOPNOTSUPP;
	*size = l->v.v[IFLA_GSO_MAX_SIZE];
	if (vals_has(&l->v, ET_IFLA_GSO_IPV4_MAX_SIZE) && l->v.v[ET_IFLA_GSO_IPV4_MAX_SIZE] > *size)
		*size = l->v.v[ET_IFLA_GSO_IPV4_MAX_SIZE];
	*segs = l->v.v[IFLA_GSO_MAX_SEGS];
	*tso_size = vals_has(&l->v, ET_IFLA_TSO_MAX_SIZE) ? l->v.v[ET_IFLA_TSO_MAX_SIZE] : 0;
	return 0;
}

static int gso_limits(const char *dev, uint64_t *size, uint64_t *segs, uint64_t *tso_size)
{
	struct et_link l;
	int ret = link_get_dev(dev, &l);

	return ret ? ret : val_gso_link_limits(&l, size, segs, tso_size);
}

/* One flow with key lowered to val (key NULL: as it is), traced at the driver's xmit. 0, or 1
 * when the check ended (r says why), or -EINTR / a fatal journal error. */
static int gso_phase(struct val_ctx *c, struct val_res *r, const char *key, uint64_t val,
		     struct val_gso_phase *p)
{
	struct probe_result *res = calloc(1, sizeof(*res));
	struct txlat_result *tr = calloc(1, sizeof(*tr));
	uint64_t p0 = 0, b0 = 0, p1 = 0, b1 = 0, tso;
	struct txlat *t = NULL;
	char v[24], err[300] = "";
	int mark = -1, ret = 0;

	if (!res || !tr) {
		ret = -ENOMEM;
		goto out;
	}
	if (key) {
		ret = journal_txn_begin(&mark);
		if (ret)
			goto out;
		snprintf(v, sizeof(v), "%llu", (unsigned long long)val);
		ret = devset_set(c->o.dev, "link", &(struct devset_kv){ key, v }, 1, DEVSET_JOURNAL,
				 err, sizeof(err), NULL);
		if (ret) {
			if (!strncmp(err, "cannot write the journal", 24)) {
				snprintf(c->fatal, sizeof(c->fatal), "%s", err);
				goto out;
			}
			val_set(r, VR_FAIL, "%s refused %s %s: %s", c->o.dev, key, v, err);
			ret = 1;
			goto out;
		}
	}
	ret = gso_limits(c->o.dev, &p->size_limit, &p->segs_limit, &tso);
	if (ret) {
		val_set(r, VR_FAIL, "cannot read %s's GSO limits back: %s", c->o.dev,
			strerror(-ret));
		ret = 1;
		goto out;
	}
	ret = txlat_open(c->o.dev, NULL, &t, err, sizeof(err));
	if (ret) {
		val_set(r, VR_SKIP, "txlat unavailable: %s", err);
		ret = 1;
		goto out;
	}
	dev_sysfs_u64(c->o.dev, "statistics/tx_packets", &p0);
	dev_sysfs_u64(c->o.dev, "statistics/tx_bytes", &b0);
	ret = val_probe(c, 1, PROBE_STREAM, c->o.duration_s, false, res, err, sizeof(err));
	dev_sysfs_u64(c->o.dev, "statistics/tx_packets", &p1);
	dev_sysfs_u64(c->o.dev, "statistics/tx_bytes", &b1);
	if (ret) {
		if (ret != -EINTR)
			val_set(r, VR_FAIL, "%s", err);
		ret = ret == -EINTR ? ret : 1;
		goto out;
	}
	ret = txlat_collect(t, tr, err, sizeof(err));
	if (ret) {
		val_set(r, VR_SKIP, "txlat: %s", err);
		ret = 1;
		goto out;
	}
	p->skbs = tr->c.xmit;
	p->gso = tr->c.gso;
	p->segs = tr->c.segs;
	p->bytes = tr->c.bytes;
	p->max_len = tr->c.max_len;
	p->max_segs = tr->c.max_segs;
	p->dev_pkts = p1 - p0;
	p->dev_bytes = b1 - b0;
out:
	txlat_close(t);
	if (mark >= 0 && undo_txn_rollback(mark)) {
		val_set(r, VR_FAIL, "%s %s could not be put back", c->o.dev, key);
		ret = ret < 0 ? ret : 1;
	}
	free(res);
	free(tr);
	return ret;
}

static int check_gso(struct val_ctx *c, struct val_res *r)
{
	struct val_gso m = { 0 };
	uint64_t size, segs, tso, low;
	int ret;

	ret = gso_limits(c->o.dev, &size, &segs, &tso);
	if (ret) {
		val_set(r, VR_SKIP, "%s reports no GSO limits: %s", c->o.dev, strerror(-ret));
		return 0;
	}
	if (tso)
		val_diag(r, "tso-max-size %llu: gso-max-size cannot be set above it",
			 (unsigned long long)tso);
	snprintf(m.p[0].what, sizeof(m.p[0].what), "as set (gso-max-size %llu, gso-max-segs %llu)",
		 (unsigned long long)size, (unsigned long long)segs);
	ret = gso_phase(c, r, NULL, 0, &m.p[m.n]);
	if (ret)
		return ret < 0 ? ret : 0;
	m.n++;
	if (!m.p[0].gso) {
		val_gso_judge(&m, r);
		return 0;
	}
	for (low = 1; low * 2 <= size / VAL_GSO_SIZE_DIV; low *= 2)
		;
	if (low >= (uint64_t)VAL_GSO_MIN_SEGS * c->mtu) {
		m.p[m.n].lowered = VAL_GSO_SIZE;
		snprintf(m.p[m.n].what, sizeof(m.p[0].what), "gso-max-size %llu",
			 (unsigned long long)low);
		ret = gso_phase(c, r, "gso-max-size", low, &m.p[m.n]);
		if (ret)
			return ret < 0 ? ret : 0;
		m.n++;
	} else {
		val_diag(r,
			 "gso-max-size not lowered: %llu bytes hold fewer than %d segments at MTU "
			 "%u",
			 (unsigned long long)low, VAL_GSO_MIN_SEGS, c->mtu);
	}
	if (segs > VAL_GSO_SEGS) {
		m.p[m.n].lowered = VAL_GSO_SEGS_LOWERED;
		snprintf(m.p[m.n].what, sizeof(m.p[0].what), "gso-max-segs %d", VAL_GSO_SEGS);
		ret = gso_phase(c, r, "gso-max-segs", VAL_GSO_SEGS, &m.p[m.n]);
		if (ret)
			return ret < 0 ? ret : 0;
		m.n++;
	}
	val_gso_judge(&m, r);
	return 0;
}

const struct val_entry val_check_gso = {
	.name = "gso",
	.needs = VAL_NEEDS_PEER | VAL_NEEDS_TXLAT,
	.run = check_gso,
};
