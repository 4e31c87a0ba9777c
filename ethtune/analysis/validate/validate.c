/* ethtune validate: the device read at the start, each check on a settled link, then the end. */
#include <errno.h>
#include <fcntl.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <linux/if_link.h>

#include "analysis/validate.h"
#include "analysis/validate_check.h"
#include "knowledge/drvdb.h"
#include "nl/devobj.h"
#include "state/journal.h"
#include "state/undo.h"
#include "util/ethtune.h"

/* Before each check, the device's carrier (where it had one at the start) is awaited this long:
 * a previous check's change may reset the link after its call returned (e1000e, on a ring or
 * coalescing change: 2-4 s without carrier in the lab), and a flow started then fails on the
 * reset, not on what the next check measures. Beyond it, the check runs and reports what it
 * sees. */
#define VAL_SETTLE_MAX_S 15.0

/* The device at the start: its kind, MTU, driver, speed and coalescing, and whether drvdb knows
 * it as a software device. */
static int read_state(struct val_ctx *c)
{
	struct nl_sock eth;
	struct et_link l;
	struct et_drvinfo di;
	int ret;

	ret = link_get_dev(c->o.dev, &l);
	if (ret)
		return ret;
	snprintf(c->kind, sizeof(c->kind), "%s", !strcmp(c->o.dev, "lo") ? "loopback" : l.kind);
	c->mtu = (uint32_t)l.v.v[IFLA_MTU];
	ret = nl_open_genl(&eth, "ethtool");
	if (ret)
		return ret;
	drvinfo_get(&eth, c->o.dev, &di);
	snprintf(c->driver, sizeof(c->driver), "%s", di.ok ? di.driver : "");
	c->speed = di.ok ? di.speed : -1;
	c->have_coal = !obj_get(&eth, &et_coalesce, c->o.dev, &c->coal);
	nl_close(&eth);
	c->software = drvdb_software(c->driver, c->kind) != DRV_SW_NONE;
	return 0;
}

/* The device's carrier back, as it was at the start, before a check runs (VAL_SETTLE_MAX_S);
 * the wait, where there was one, is said in the check's report. */
static void settle_link(struct val_ctx *c, struct val_res *r)
{
	double t0 = et_now_s(), t = 0;
	uint64_t car = 0;

	if (!c->carrier0)
		return;
	while (!(dev_sysfs_u64(c->o.dev, "carrier", &car) == 0 && car) && !et_stop_signal()) {
		t = et_now_s() - t0;
		if (t >= VAL_SETTLE_MAX_S)
			break;
		et_sleep_s(0.1);
	}
	if (!car)
		val_diag(r, "%s still has no carrier %.0f s after the previous check", c->o.dev, t);
	else if (t > 0)
		val_diag(r, "waited %.1f s for %s's carrier (a change before reset the link)",
			 et_now_s() - t0, c->o.dev);
}

/* Whether check k applies here; where it does not, r says why (SKIP). */
static bool applies(struct val_ctx *c, const struct val_entry *k, struct val_res *r)
{
	if ((k->needs & VAL_NEEDS_PEER) && !c->o.peer) {
		val_set(r, VR_SKIP, "no --peer: this check needs traffic to an 'ethtune serve'");
		return false;
	}
	if (k->software && c->software) {
		val_set(r, VR_SKIP, "%s is a software device (%s, drvdb): %s", c->o.dev,
			c->driver[0] ? c->driver : c->kind, k->software);
		return false;
	}
	return true;
}

int validate_dev(const struct val_opts *vo, struct val_report *rep)
{
	struct val_ctx *c = calloc(1, sizeof(*c));
	unsigned int k;
	int ret, mark;

	if (!c)
		return -ENOMEM;
	c->vo = vo;
	c->o = vo->o;
	c->rep = rep;
	memset(rep, 0, sizeof(*rep));
	snprintf(rep->dev, sizeof(rep->dev), "%s", vo->o.dev);
	snprintf(rep->peer, sizeof(rep->peer), "%s", vo->o.peer ? vo->o.peer : "");
	ret = read_state(c);
	if (ret) {
		et_err("validate %s: cannot read the device: %s", vo->o.dev, strerror(-ret));
		free(c);
		return ret;
	}
	ret = journal_txn_begin(&mark);
	if (ret) {
		et_err("validate %s: cannot use the journal %s: %s", vo->o.dev, journal_path(),
		       journal_strerror(ret));
		free(c);
		return ret;
	}
	snprintf(rep->driver, sizeof(rep->driver), "%s", c->driver);
	snprintf(rep->kind, sizeof(rep->kind), "%s", c->kind);
	c->floor_us = NAN;
	timer_floor_us(200, &c->floor_us);
	val_snap_take(c->o.dev, &c->start);
	if (c->o.peer_dev)
		c->peer_ret = val_peer_snap_take(c, &c->peer_start);
	if (c->peer_ret == -ENODEV || c->peer_ret == -ENONET) {
		if (c->peer_ret == -ENONET)
			et_err("validate %s: --peer-netns: network namespace '%s' does not exist",
			       vo->o.dev, c->o.peer_netns);
		else
			et_err("validate %s: --peer-dev: no such device '%s' in %s%s", vo->o.dev,
			       c->o.peer_dev, c->o.peer_netns ? "network namespace " : "",
			       c->o.peer_netns ? c->o.peer_netns : "this network namespace");
		ret = c->peer_ret;
		free(c);
		return ret;
	}
	c->tx_timeouts = val_tx_timeouts(c->o.dev);
	c->carrier0 = val_dev_u64(c->o.dev, "carrier") == 1;
	c->kmsg = open("/dev/kmsg", O_RDONLY | O_NONBLOCK | O_CLOEXEC);
	if (c->kmsg >= 0)
		lseek(c->kmsg, 0, SEEK_END);
	ret = undo_temp_begin();
	for (k = 0; k < VC__N && !ret; k++) {
		const struct val_entry *chk = val_checks[k];

		if (!(vo->checks & (1u << k)) || (chk->needs & VAL_AT_END))
			continue;
		rep->r[k].ran = true;
		if (!vo->o.quiet && isatty(STDERR_FILENO))
			et_info("validate: %s", chk->name);
		settle_link(c, &rep->r[k]);
		if (applies(c, chk, &rep->r[k]))
			ret = chk->run(c, &rep->r[k]);
		if (!ret && et_stop_signal())
			ret = -EINTR;
	}
	c->undo_ret = undo_temp_end(); /* a pending signal ends the process here, all put back */
	for (k = 0; k < VC__N && !ret; k++) {
		if (!(vo->checks & (1u << k)) || !(val_checks[k]->needs & VAL_AT_END))
			continue;
		rep->r[k].ran = true;
		ret = val_checks[k]->run(c, &rep->r[k]);
	}
	if (c->kmsg >= 0)
		close(c->kmsg);
	if (c->fatal[0])
		et_err("validate %s: %s", vo->o.dev, c->fatal);
	else if (ret && ret != -EINTR)
		et_err("validate %s: %s", vo->o.dev, strerror(-ret));
	val_count(rep);
	rep->elapsed_s = et_now_s() - vo->t0;
	free(c->lr);
	free(c->tl);
	free(c);
	return ret;
}
