/* validate nothing-left: after the run, the device and its peer as at the start, dmesg clean. */
#include <errno.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <net/if.h>
#include <linux/if_link.h>

#include "analysis/validate.h"
#include "analysis/validate_check.h"
#include "nl/devobj.h"
#include "util/ethtune.h"

/* New kernel log lines since the start that name a WARNING, a BUG or a TX timeout. */
static unsigned int kmsg_bad(struct val_ctx *c, struct val_res *r)
{
	char rec[8192];
	unsigned int n = 0;
	ssize_t len;

	if (c->kmsg < 0)
		return 0;
	while ((len = read(c->kmsg, rec, sizeof(rec) - 1)) > 0 || (len < 0 && errno == EPIPE)) {
		char *msg;

		if (len <= 0)
			continue; /* overwritten records: go on with the next */
		rec[len] = 0;
		msg = strchr(rec, ';');
		msg = msg ? msg + 1 : rec;
		msg[strcspn(msg, "\n")] = 0;
		if (strstr(msg, "WARNING:") || strstr(msg, "BUG:") || strstr(msg, "BUG ") ||
		    strstr(msg, "NETDEV WATCHDOG") || strstr(msg, "transmit queue")) {
			if (n < 5)
				val_diag(r, "dmesg: %.200s", msg);
			n++;
		}
	}
	return n;
}

/* Differences between two snapshots of a device, each a diagnostic line; how many. */
static unsigned int snap_diff(const struct snap *a, const struct snap *b, const char *who,
			      struct val_res *r)
{
	unsigned int i, j, diff = 0;

	for (i = 0; i < 3; i++) {
		const struct et_object *obj = val_objs[i];

		if (b->ret[i] != a->ret[i]) {
			val_diag(r, "%s %s: read %s at the start, %s now", who, val_obj_words[i],
				 a->ret[i] ? "failed" : "fine", b->ret[i] ? "fails" : "fine");
			diff++;
			continue;
		}
		if (b->ret[i])
			continue;
		for (j = 0; j < obj->n_params; j++) {
			const struct et_param *p = &obj->params[j];
			bool x = vals_has(&a->v[i], p->attr), y = vals_has(&b->v[i], p->attr);

			if (x == y && (!x || a->v[i].v[p->attr] == b->v[i].v[p->attr]))
				continue;
			val_diag(r, "%s %s %s: %llu at the start, %llu now", who, val_obj_words[i],
				 p->key, (unsigned long long)a->v[i].v[p->attr],
				 (unsigned long long)b->v[i].v[p->attr]);
			diff++;
		}
	}
	if (!b->fret && !a->fret)
		for (i = 0; i < b->feat.n; i++)
			for (j = 0; j < a->feat.n; j++)
				if (!strcmp(b->feat.bit[i].name, a->feat.bit[j].name) &&
				    b->feat.bit[i].active != a->feat.bit[j].active) {
					val_diag(r, "%s feature %s: %s at the start, %s now", who,
						 b->feat.bit[i].name,
						 a->feat.bit[j].active ? "on" : "off",
						 b->feat.bit[i].active ? "on" : "off");
					diff++;
				}
	if (b->mtu != a->mtu) {
		val_diag(r, "%s mtu: %llu at the start, %llu now", who, (unsigned long long)a->mtu,
			 (unsigned long long)b->mtu);
		diff++;
	}
	return diff;
}

/* Bound: no difference, no TX timeout counted, no new WARNING, BUG, NETDEV WATCHDOG or transmit
 * queue timeout line: a release must leave the device as it found it and must not warn or time
 * out a queue under these changes. */
static int check_nothing_left(struct val_ctx *c, struct val_res *r)
{
	struct snap *now = malloc(sizeof(*now));
	uint64_t to;
	unsigned int diff, bad;
	char who[48];

	if (!now)
		return -ENOMEM;
	val_snap_take(c->o.dev, now);
	diff = snap_diff(&c->start, now, c->o.dev, r);
	if (c->o.peer_dev && !c->peer_ret && !val_peer_snap_take(c, now)) {
		snprintf(who, sizeof(who), "peer %s", c->o.peer_dev);
		diff += snap_diff(&c->peer_start, now, who, r);
	} else if (c->o.peer_dev) {
		val_diag(r, "the peer's device %s could not be read: its part skipped",
			 c->o.peer_dev);
	}
	free(now);
	if (c->kmsg < 0)
		val_diag(r, "dmesg part skipped: /dev/kmsg is not readable");
	bad = kmsg_bad(c, r);
	to = val_tx_timeouts(c->o.dev) - c->tx_timeouts;
	val_measured(r, "differences", diff);
	val_measured(r, "dmesg-lines", bad);
	val_measured(r, "tx-timeouts", (double)to);
	val_bound(r, "differences", 0);
	val_bound(r, "dmesg-lines", 0);
	val_bound(r, "tx-timeouts", 0);
	if (c->undo_ret)
		val_set(r, VR_FAIL, "some temporary changes could not be put back (%s)",
			strerror(-c->undo_ret));
	else if (diff)
		val_set(r, VR_FAIL, "%u values differ from the start", diff);
	else if (to)
		val_set(r, VR_FAIL, "%llu TX timeouts during the run (queues/tx-*/tx_timeout)%s",
			(unsigned long long)to, bad ? "; dmesg lines above" : "");
	else if (bad)
		val_set(r, VR_FAIL, "%u new WARNING, BUG or TX timeout lines in dmesg", bad);
	else
		val_set(r, VR_PASS,
			"coalesce, rings, channels, features and MTU as at the start%s%s",
			c->o.peer_dev && !c->peer_ret ? " (and the peer's)" : "",
			c->kmsg < 0 ? ""
				    : "; no WARNING, BUG or TX timeout in dmesg, no TX timeout "
				      "counted");
	return 0;
}

const struct val_entry val_check_nothing_left = {
	.name = "nothing-left",
	.needs = VAL_AT_END,
	.run = check_nothing_left,
};
