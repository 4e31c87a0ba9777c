/* Changing a device: check every keyword and value first, journal old values, apply, read back. */
#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>
#include <net/if.h>
#include <linux/if_link.h>

#include "nl/ethtool_attrs.h"

#include "nl/devobj.h"
#include "nl/netdev.h"
#include "state/devset.h"
#include "state/devset_parts.h"
#include "util/ethtune.h"
#include "state/journal.h"

static bool allow_link_down;

void devset_allow_link_down(bool allow)
{
	allow_link_down = allow;
}

/* The change again with the interface down; the journal learns first that it was up. */
static int set_object_down(struct nl_sock *ns, const struct et_object *obj, const char *dev,
			   const struct et_change *ch, unsigned int n, bool journal,
			   void (*warn)(const char *))
{
	struct nl_sock rt;
	struct et_link l;
	int ret, r2;

	ret = nl_open_rtnl(&rt);
	if (ret)
		return -EBUSY;
	ret = link_get(&rt, dev, &l);
	if (ret || !(l.flags & IFF_UP)) {
		ret = -EBUSY; /* already down: the driver is busy for another reason */
		goto out;
	}
	if (journal && devset_journal_old(dev, "link", "admin-state", "up", NULL, 0)) {
		ret = -EBUSY;
		goto out;
	}
	devset_report(warn, "%s changes %s only with %s down: taking it down and up", dev,
		      obj->name, dev);
	ret = link_admin(&rt, l.ifindex, false);
	if (!ret)
		ret = obj_set(ns, obj, dev, ch, n);
	r2 = link_admin(&rt, l.ifindex, true);
	if (!ret && r2)
		ret = r2;
	if (!r2 && link_wait_up(dev, 15))
		devset_report(warn, "%s: no carrier 15 s after bringing it up", dev);
out:
	nl_close(&rt);
	return ret;
}

static int set_object(const char *dev, const struct et_object *obj, int argc, char **argv,
		      bool journal, char *err, size_t errlen, void (*warn)(const char *))
{
	struct et_change ch[DEVSET_MAX_CHANGES];
	struct et_vals cur, after;
	struct nl_sock ns;
	unsigned int n, i;
	int ret;

	if (argc > 2 * DEVSET_MAX_CHANGES) {
		snprintf(err, errlen, "too many %s parameters", obj->name);
		return -E2BIG;
	}
	ret = nl_open_genl(&ns, "ethtool");
	if (ret) {
		snprintf(err, errlen, "ethtool netlink unavailable: %s", strerror(-ret));
		return ret;
	}
	ret = obj_get(&ns, obj, dev, &cur);
	if (ret) {
		if (ret == -EOPNOTSUPP)
			snprintf(err, errlen, "%s does not support %s parameters", dev, obj->name);
		else
			snprintf(err, errlen, "cannot read %s of %s: %s", obj->name, dev,
				 nl_strerror(&ns, ret));
		goto out;
	}
	ret = obj_parse_changes(obj, &cur, argc, argv, ch, &n, err, errlen);
	if (ret)
		goto out;
	for (i = 0; journal && i < n; i++) {
		char old[32];

		obj_format_val(ch[i].p, cur.v[ch[i].p->attr], old, sizeof(old));
		ret = devset_journal_old(dev, obj->name, ch[i].p->key, old, err, errlen);
		if (ret)
			goto out;
	}
	ret = obj_set(&ns, obj, dev, ch, n);
	if (ret == -EBUSY && (allow_link_down || !journal))
		ret = set_object_down(&ns, obj, dev, ch, n, journal, warn);
	if (ret) {
		snprintf(err, errlen, "kernel rejected %s on %s: %s%s", obj->name, dev,
			 nl_strerror(&ns, ret),
			 ret == -EBUSY && journal && !allow_link_down
				 ? " (the driver changes this only with the interface down: "
				   "--allow-link-down)"
				 : "");
		goto out;
	}
	/* Drivers round or ignore values: read back and say so. */
	if (!obj_get(&ns, obj, dev, &after)) {
		for (i = 0; i < n; i++) {
			char want[32], got[32];

			if (after.v[ch[i].p->attr] == ch[i].val)
				continue;
			obj_format_val(ch[i].p, ch[i].val, want, sizeof(want));
			obj_format_val(ch[i].p, after.v[ch[i].p->attr], got, sizeof(got));
			devset_report(warn, "driver set %s to %s (asked %s)", ch[i].p->key, got,
				      want);
		}
	}
out:
	nl_close(&ns);
	return ret;
}

/* Feature names: ethtool -K short names expand to their changeable kernel features. */
static int set_features(const char *dev, int argc, char **argv, bool journal, char *err,
			size_t errlen, void (*warn)(const char *))
{
	static struct et_bitset fs, after;
	const char *names[ET_MAX_BITS];
	bool vals[ET_MAX_BITS];
	unsigned int n = 0, i, k;
	struct nl_sock ns;
	int a, ret;

	if (argc == 0 || argc % 2) {
		snprintf(err, errlen, "feature needs NAME on|off pairs");
		return -EINVAL;
	}
	ret = nl_open_genl(&ns, "ethtool");
	if (ret) {
		snprintf(err, errlen, "ethtool netlink unavailable: %s", strerror(-ret));
		return ret;
	}
	ret = features_get(&ns, dev, &fs);
	if (ret) {
		snprintf(err, errlen, "cannot read features of %s: %s", dev, nl_strerror(&ns, ret));
		goto out;
	}
	for (a = 0; a < argc; a += 2) {
		const char *const *alias = feature_alias(argv[a]);
		const char *single[2] = { argv[a], NULL };
		const char *const *list = alias ? alias : single;
		bool on, any = false, known = false;

		if (parse_on_off(argv[a + 1], &on)) {
			snprintf(err, errlen,
				 "invalid value '%s' for feature %s (expected on or off)",
				 argv[a + 1], argv[a]);
			ret = -EINVAL;
			goto out;
		}
		for (k = 0; list[k]; k++) {
			for (i = 0; i < fs.n; i++) {
				if (strcmp(fs.bit[i].name, list[k]))
					continue;
				known = true;
				if (!fs.bit[i].changeable || n >= ET_MAX_BITS)
					continue;
				names[n] = fs.bit[i].name;
				vals[n++] = on;
				any = true;
			}
		}
		if (!known) {
			snprintf(err, errlen, "unknown feature '%s' (see ethtune -v show %s)",
				 argv[a], dev);
			ret = -EINVAL;
			goto out;
		}
		if (!any) {
			snprintf(err, errlen, "feature %s is fixed on %s and cannot be changed",
				 argv[a], dev);
			ret = -EOPNOTSUPP;
			goto out;
		}
	}
	for (i = 0; journal && i < n; i++) {
		for (k = 0; k < fs.n; k++)
			if (!strcmp(fs.bit[k].name, names[i]))
				break;
		/* The wanted state is what the user configured; active may differ by deps. */
		ret = devset_journal_old(dev, "feature", names[i], fs.bit[k].wanted ? "on" : "off",
					 err, errlen);
		if (ret)
			goto out;
	}
	ret = features_set(&ns, dev, names, vals, n);
	if (ret) {
		snprintf(err, errlen, "kernel rejected features on %s: %s", dev,
			 nl_strerror(&ns, ret));
		goto out;
	}
	if (!features_get(&ns, dev, &after)) {
		for (i = 0; i < n; i++)
			for (k = 0; k < after.n; k++)
				if (!strcmp(after.bit[k].name, names[i]) &&
				    after.bit[k].active != vals[i])
					devset_report(
						warn,
						"feature %s is %s (asked %s): it depends on other "
						"features",
						names[i], after.bit[k].active ? "on" : "off",
						vals[i] ? "on" : "off");
	}
out:
	nl_close(&ns);
	return ret;
}

static int set_privflag(const char *dev, int argc, char **argv, bool journal, char *err,
			size_t errlen, void (*warn)(const char *))
{
	static struct et_bitset pf, after;
	struct nl_sock ns;
	unsigned int i;
	int a, ret;

	if (argc == 0 || argc % 2) {
		snprintf(err, errlen, "priv-flag needs NAME on|off pairs");
		return -EINVAL;
	}
	ret = nl_open_genl(&ns, "ethtool");
	if (ret) {
		snprintf(err, errlen, "ethtool netlink unavailable: %s", strerror(-ret));
		return ret;
	}
	ret = privflags_get(&ns, dev, &pf);
	if (ret == -EOPNOTSUPP || (!ret && !pf.n)) {
		snprintf(err, errlen, "%s has no private flags", dev);
		ret = -EOPNOTSUPP;
		goto out;
	}
	if (ret) {
		snprintf(err, errlen, "cannot read private flags of %s: %s", dev,
			 nl_strerror(&ns, ret));
		goto out;
	}
	/* Check all pairs before changing anything. */
	for (a = 0; a < argc; a += 2) {
		bool on, found = false;
		char list[512] = "";
		size_t off = 0;

		for (i = 0; i < pf.n; i++) {
			found |= !strcmp(pf.bit[i].name, argv[a]);
			off += snprintf(list + off, off < sizeof(list) ? sizeof(list) - off : 0,
					"%s%s", i ? ", " : "", pf.bit[i].name);
		}
		if (!found) {
			snprintf(err, errlen, "%s has no private flag '%s' (supported: %s)", dev,
				 argv[a], list);
			ret = -EINVAL;
			goto out;
		}
		if (parse_on_off(argv[a + 1], &on)) {
			snprintf(err, errlen,
				 "invalid value '%s' for priv-flag %s (expected on or off)",
				 argv[a + 1], argv[a]);
			ret = -EINVAL;
			goto out;
		}
	}
	for (a = 0; a < argc; a += 2) {
		bool on;

		parse_on_off(argv[a + 1], &on);
		for (i = 0; i < pf.n; i++)
			if (!strcmp(pf.bit[i].name, argv[a]))
				break;
		if (journal) {
			ret = devset_journal_old(dev, "priv-flag", argv[a],
						 pf.bit[i].active ? "on" : "off", err, errlen);
			if (ret)
				goto out;
		}
		ret = privflags_set(&ns, dev, argv[a], on);
		if (ret) {
			snprintf(err, errlen, "kernel rejected priv-flag %s on %s: %s", argv[a],
				 dev, nl_strerror(&ns, ret));
			goto out;
		}
	}
	if (!privflags_get(&ns, dev, &after))
		for (a = 0; a < argc; a += 2)
			for (i = 0; i < after.n; i++)
				if (!strcmp(after.bit[i].name, argv[a]) &&
				    after.bit[i].active != !strcmp(argv[a + 1], "on"))
					devset_report(warn, "priv-flag %s is %s (asked %s)",
						      argv[a], after.bit[i].active ? "on" : "off",
						      argv[a + 1]);
out:
	nl_close(&ns);
	return ret;
}

/* Puts the link attributes of ch back to what l read before the change. */
static void link_undo(struct nl_sock *rt, const struct et_link *l, struct et_change *ch,
		      unsigned int n)
{
	unsigned int i;

	for (i = 0; i < n; i++)
		ch[i].val = l->v.v[ch[i].p->attr];
	link_set(rt, l->ifindex, ch, n);
}

/* Link parameters (mtu, gso-*, txqueuelen) in one RTM_NEWLINK; rolled back if it fails. */
static int set_link(const char *dev, int argc, char **argv, bool journal, char *err, size_t errlen,
		    void (*warn)(const char *))
{
	struct et_change ch[DEVSET_MAX_CHANGES];
	struct et_link l, after;
	struct nl_sock rt;
	unsigned int n = 0, i;
	int a, ret, admin = -1; /* admin-state asked: 0 down, 1 up */

	for (a = 0; a < argc; a += 2) {
		if (!link_param(argv[a]) && strcmp(argv[a], "admin-state")) {
			/* one object per command: coalesce, ring, ... cannot follow mtu */
			snprintf(err, errlen,
				 "unknown link setting '%s' (link settings come in KEY "
				 "VALUE pairs)",
				 argv[a]);
			return -EINVAL;
		}
		if (a + 1 == argc) {
			snprintf(err, errlen, "%s needs a value", argv[a]);
			return -EINVAL;
		}
	}
	if (argc > 2 * DEVSET_MAX_CHANGES) {
		snprintf(err, errlen, "at most %d link settings at once", DEVSET_MAX_CHANGES);
		return -EINVAL;
	}
	ret = nl_open_rtnl(&rt);
	if (ret) {
		snprintf(err, errlen, "rtnetlink unavailable: %s", strerror(-ret));
		return ret;
	}
	ret = link_get(&rt, dev, &l);
	if (ret) {
		snprintf(err, errlen, "cannot read link %s: %s", dev, nl_strerror(&rt, ret));
		goto out;
	}
	for (a = 0; a < argc; a += 2) {
		const struct et_param *p = link_param(argv[a]);
		uint64_t v;

		if (!strcmp(argv[a], "admin-state")) {
			if (strcmp(argv[a + 1], "up") && strcmp(argv[a + 1], "down")) {
				snprintf(err, errlen,
					 "invalid value '%s' for admin-state (up|down)",
					 argv[a + 1]);
				ret = -EINVAL;
				goto out;
			}
			admin = !strcmp(argv[a + 1], "up");
			continue;
		}
		if (!p || p->ro) {
			snprintf(err, errlen, "unknown parameter '%s'", argv[a]);
			ret = -EINVAL;
			goto out;
		}
		if (!vals_has(&l.v, p->attr)) {
			snprintf(err, errlen, "%s is not supported by this kernel or device",
				 p->key);
			ret = -EOPNOTSUPP;
			goto out;
		}
		ret = obj_parse_val(p, argv[a + 1], &v);
		if (ret) {
			snprintf(err, errlen, "invalid value '%s' for %s (expected a number)",
				 argv[a + 1], p->key);
			goto out;
		}
		ret = -ERANGE;
		if (v < p->min) {
			snprintf(err, errlen, "%s %llu is below the minimum %llu", p->key,
				 (unsigned long long)v, (unsigned long long)p->min);
			goto out;
		}
		if (p->attr == IFLA_MTU && vals_has(&l.v, IFLA_MAX_MTU) && l.v.v[IFLA_MAX_MTU] &&
		    (v > l.v.v[IFLA_MAX_MTU] || v < l.v.v[IFLA_MIN_MTU])) {
			snprintf(err, errlen, "mtu %llu is outside %s's range %llu-%llu",
				 (unsigned long long)v, dev,
				 (unsigned long long)l.v.v[IFLA_MIN_MTU],
				 (unsigned long long)l.v.v[IFLA_MAX_MTU]);
			goto out;
		}
		if ((p->attr == IFLA_GSO_MAX_SIZE || p->attr == ET_IFLA_GSO_IPV4_MAX_SIZE) &&
		    vals_has(&l.v, ET_IFLA_TSO_MAX_SIZE) && v > l.v.v[ET_IFLA_TSO_MAX_SIZE]) {
			snprintf(err, errlen, "%s %llu is above %s's tso-max-size %llu", p->key,
				 (unsigned long long)v, dev,
				 (unsigned long long)l.v.v[ET_IFLA_TSO_MAX_SIZE]);
			goto out;
		}
		if (p->attr == IFLA_GSO_MAX_SEGS && vals_has(&l.v, ET_IFLA_TSO_MAX_SEGS) &&
		    v > l.v.v[ET_IFLA_TSO_MAX_SEGS]) {
			snprintf(err, errlen, "gso-max-segs %llu is above %s's tso-max-segs %llu",
				 (unsigned long long)v, dev,
				 (unsigned long long)l.v.v[ET_IFLA_TSO_MAX_SEGS]);
			goto out;
		}
		for (i = 0; i < n; i++)
			if (ch[i].p == p) {
				snprintf(err, errlen, "%s given twice", p->key);
				ret = -EINVAL;
				goto out;
			}
		ch[n].p = p;
		ch[n++].val = v;
		ret = 0;
	}
	for (i = 0; journal && i < n; i++) {
		char old[32];

		snprintf(old, sizeof(old), "%llu", (unsigned long long)l.v.v[ch[i].p->attr]);
		ret = devset_journal_old(dev, "link", ch[i].p->key, old, err, errlen);
		if (ret)
			goto out;
	}
	if (journal && admin >= 0) {
		ret = devset_journal_old(dev, "link", "admin-state",
					 (l.flags & IFF_UP) ? "up" : "down", err, errlen);
		if (ret)
			goto out;
	}
	ret = n ? link_set(&rt, l.ifindex, ch, n) : 0;
	if (ret) {
		snprintf(err, errlen, "kernel rejected %s on %s: %s", argv[0], dev,
			 nl_strerror(&rt, ret));
		/* The kernel applies link attributes one by one: undo any that took. */
		if (n > 1)
			link_undo(&rt, &l, ch, n);
		goto out;
	}
	/* The state last, so that a refusal can still undo the attributes that took. */
	if (admin >= 0 && !!(l.flags & IFF_UP) != admin) {
		ret = link_admin(&rt, l.ifindex, admin);
		if (ret) {
			snprintf(err, errlen, "cannot set %s %s: %s", dev, admin ? "up" : "down",
				 nl_strerror(&rt, ret));
			if (n)
				link_undo(&rt, &l, ch, n);
			goto out;
		}
	}
	if (!link_get(&rt, dev, &after))
		for (i = 0; i < n; i++)
			if (after.v.v[ch[i].p->attr] != ch[i].val) {
				char want[24], got[24];

				snprintf(want, sizeof(want), "%llu", (unsigned long long)ch[i].val);
				snprintf(got, sizeof(got), "%llu",
					 (unsigned long long)after.v.v[ch[i].p->attr]);
				devset_report(warn, "%s is %s (asked %s)", ch[i].p->key, got, want);
			}
out:
	nl_close(&rt);
	return ret;
}

/* One object's parameters, as NAME VALUE pairs. */
static int set_pairs(const char *dev, const char *object, int argc, char **argv, bool journal,
		     char *err, size_t errlen, void (*warn)(const char *))
{
	const struct et_object *obj = obj_by_name(object);

	if (obj)
		return set_object(dev, obj, argc, argv, journal, err, errlen, warn);
	if (!strcmp(object, "feature"))
		return set_features(dev, argc, argv, journal, err, errlen, warn);
	if (!strcmp(object, "priv-flag"))
		return set_privflag(dev, argc, argv, journal, err, errlen, warn);
	if (!strcmp(object, "link"))
		return set_link(dev, argc, argv, journal, err, errlen, warn);
	if (!strcmp(object, "napi"))
		return devset_set_napi(dev, argc, argv, journal, err, errlen, warn);
	if (!strcmp(object, "bql"))
		return devset_set_bql(dev, argc, argv, journal, err, errlen, warn);
	snprintf(err, errlen, "unknown object '%s'", object);
	return -EINVAL;
}

/* A change the kernel refused left the device as it was: its journal entries must not stay
 * behind, or a later restore would try to put back a value that was never changed. */
static int apply(const char *dev, const char *object, int argc, char **argv, bool journal,
		 char *err, size_t errlen, void (*warn)(const char *))
{
	int mark = -1, ret;

	err[0] = '\0';
	if (strlen(dev) >= IFNAMSIZ || !if_nametoindex(dev)) {
		snprintf(err, errlen, "no such device '%s'", dev);
		return -ENODEV;
	}
	if (journal && journal_txn_begin(&mark))
		mark = -1;
	ret = set_pairs(dev, object, argc, argv, journal, err, errlen, warn);
	if (ret && mark >= 0)
		journal_txn_drop(mark);
	return ret;
}

int devset_set(const char *dev, const char *object, const struct devset_kv *kv, unsigned int n,
	       unsigned int flags, char *err, size_t errlen, void (*warn)(const char *msg))
{
	char *pairs[2 * DEVSET_MAX_CHANGES + 1];
	unsigned int i;

	if (n > DEVSET_MAX_CHANGES) {
		snprintf(err, errlen, "too many %s parameters", object);
		return -E2BIG;
	}
	for (i = 0; i < n; i++) {
		pairs[2 * i] = (char *)kv[i].key;
		pairs[2 * i + 1] = (char *)kv[i].val;
	}
	pairs[2 * n] = NULL;
	return apply(dev, object, 2 * n, pairs, flags & DEVSET_JOURNAL, err, errlen, warn);
}

/* `ethtune set` words: an object and its pairs, or link keywords on their own. */
int devset_apply(const char *dev, int argc, char **argv, char *err, size_t errlen,
		 void (*warn)(const char *msg))
{
	const char *w;

	err[0] = '\0';
	if (argc < 1) {
		snprintf(err, errlen, "nothing to set");
		return -EINVAL;
	}
	w = argv[0];
	if (obj_by_name(w) || !strcmp(w, "link") || !strcmp(w, "napi") || !strcmp(w, "bql"))
		return apply(dev, w, argc - 1, argv + 1, true, err, errlen, warn);
	if (!strcmp(w, "feature") || !strcmp(w, "features"))
		return apply(dev, "feature", argc - 1, argv + 1, true, err, errlen, warn);
	if (!strcmp(w, "priv-flag") || !strcmp(w, "priv-flags"))
		return apply(dev, "priv-flag", argc - 1, argv + 1, true, err, errlen, warn);
	if (link_param(w) || !strcmp(w, "admin-state"))
		return apply(dev, "link", argc, argv, true, err, errlen, warn);
	if (strlen(dev) >= IFNAMSIZ || !if_nametoindex(dev)) {
		snprintf(err, errlen, "no such device '%s'", dev);
		return -ENODEV;
	}
	snprintf(err, errlen,
		 "unknown setting '%s' (expected coalesce, ring, channels, feature, priv-flag, "
		 "napi, "
		 "bql, mtu, gso-max-size, gso-max-segs, gso-ipv4-max-size, txqueuelen or "
		 "admin-state)",
		 argv[0]);
	return -EINVAL;
}
