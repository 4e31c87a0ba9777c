/* Changing a device: check every keyword and value first, journal old values, apply, read back. */
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>
#include <net/if.h>
#include <linux/if_link.h>

#include "nl/ethtool_attrs.h"

#include "nl/devobj.h"
#include "nl/netdev.h"
#include "state/devset.h"
#include "util/ethtune.h"
#include "state/journal.h"

#define MAX_CHANGES 64

/* The old value, durably, before the change; one line in err (may be NULL) if that fails. */
static int journal_one(const char *dev, const char *object, const char *key, const char *old,
		       char *err, size_t errlen)
{
	struct journal_entry e = {};
	int ret;

	netns_current_name(e.netns, sizeof(e.netns));
	snprintf(e.dev, sizeof(e.dev), "%s", dev);
	snprintf(e.object, sizeof(e.object), "%s", object);
	snprintf(e.key, sizeof(e.key), "%s", key);
	snprintf(e.old, sizeof(e.old), "%s", old);
	ret = journal_record(&e);
	if (ret && err)
		snprintf(err, errlen, "cannot write the journal %s: %s; nothing changed",
			 journal_path(), journal_strerror(ret));
	return ret;
}

static bool allow_link_down;

void devset_allow_link_down(bool allow)
{
	allow_link_down = allow;
}

static void report(void (*warn)(const char *), const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));
static void report(void (*warn)(const char *), const char *fmt, ...)
{
	char msg[256];
	va_list ap;

	if (!warn)
		return;
	va_start(ap, fmt);
	vsnprintf(msg, sizeof(msg), fmt, ap);
	va_end(ap);
	warn(msg);
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
	if (journal && journal_one(dev, "link", "admin-state", "up", NULL, 0)) {
		ret = -EBUSY;
		goto out;
	}
	report(warn, "%s changes %s only with %s down: taking it down and up", dev, obj->name, dev);
	ret = link_admin(&rt, l.ifindex, false);
	if (!ret)
		ret = obj_set(ns, obj, dev, ch, n);
	r2 = link_admin(&rt, l.ifindex, true);
	if (!ret && r2)
		ret = r2;
	if (!r2 && link_wait_up(dev, 15))
		report(warn, "%s: no carrier 15 s after bringing it up", dev);
out:
	nl_close(&rt);
	return ret;
}

static int set_object(const char *dev, const struct et_object *obj, int argc, char **argv,
		      bool journal, char *err, size_t errlen, void (*warn)(const char *))
{
	struct et_change ch[MAX_CHANGES];
	struct et_vals cur, after;
	struct nl_sock ns;
	unsigned int n, i;
	int ret;

	if (argc > 2 * MAX_CHANGES) {
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
		ret = journal_one(dev, obj->name, ch[i].p->key, old, err, errlen);
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
			report(warn, "driver set %s to %s (asked %s)", ch[i].p->key, got, want);
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
		ret = journal_one(dev, "feature", names[i], fs.bit[k].wanted ? "on" : "off", err,
				  errlen);
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
					report(warn,
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
			ret = journal_one(dev, "priv-flag", argv[a],
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
					report(warn, "priv-flag %s is %s (asked %s)", argv[a],
					       after.bit[i].active ? "on" : "off", argv[a + 1]);
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
	struct et_change ch[MAX_CHANGES];
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
	if (argc > 2 * MAX_CHANGES) {
		snprintf(err, errlen, "at most %d link settings at once", MAX_CHANGES);
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
		ret = journal_one(dev, "link", ch[i].p->key, old, err, errlen);
		if (ret)
			goto out;
	}
	if (journal && admin >= 0) {
		ret = journal_one(dev, "link", "admin-state", (l.flags & IFF_UP) ? "up" : "down",
				  err, errlen);
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
				report(warn, "%s is %s (asked %s)", ch[i].p->key, got, want);
			}
out:
	nl_close(&rt);
	return ret;
}

/* A parameter of one target (a NAPI or a TX queue), the value asked and the one it had. */
struct target_change {
	const struct et_param *p;
	const char *file;  /* sysfs: the file (device's NAPI default or the queue's BQL) */
	bool all;	   /* every NAPI or queue of the device */
	uint32_t id;	   /* NAPI id or TX queue index */
	uint64_t val, old; /* old: of the sysfs file */
};

/* "KEY" or "ID/KEY": the key names the parameter, a prefix its target (restore, profiles). */
static const char *split_target(const char *key, const char *prefix, bool *has, uint32_t *id,
				char *err, size_t errlen, const char *what)
{
	const char *slash = strchr(key, '/');
	char num[16];
	size_t plen = strlen(prefix);

	*has = false;
	if (!slash)
		return key;
	if ((size_t)(slash - key) <= plen || (size_t)(slash - key) - plen >= sizeof(num) ||
	    strncmp(key, prefix, plen)) {
		snprintf(err, errlen, "invalid %s target in '%s'", what, key);
		return NULL;
	}
	memcpy(num, key + plen, (size_t)(slash - key) - plen);
	num[(slash - key) - plen] = '\0';
	if (parse_u32(num, id)) {
		snprintf(err, errlen, "invalid %s target in '%s'", what, key);
		return NULL;
	}
	*has = true;
	return slash + 1;
}

/* Parse [SELECTOR] KEY VAL... against table; the selector (all or prefix+number) is the target of
 * every key without one of its own. One line in err on the first thing wrong. */
static int parse_targets(const char *what, const char *prefix, const struct et_param *table,
			 unsigned int n_table, const char *keys, int argc, char **argv,
			 struct target_change *tc, unsigned int *n, char *err, size_t errlen)
{
	bool all = true, has;
	uint32_t id = 0, tid;
	int a;

	*n = 0;
	if (argc % 2) {
		const char *sel = argv[0];

		if (strcmp(sel, "all")) {
			size_t plen = strlen(prefix);

			if (strncmp(sel, prefix, plen) || parse_u32(sel + plen, &id)) {
				snprintf(err, errlen, "invalid %s target '%s' (expected %s or all)",
					 what, sel, prefix[0] ? "tx-N" : "a NAPI id");
				return -EINVAL;
			}
			all = false;
		}
		argc--;
		argv++;
	}
	if (!argc) {
		snprintf(err, errlen, "%s needs KEY VALUE pairs (%s)", what, keys);
		return -EINVAL;
	}
	if (argc > 2 * MAX_CHANGES) {
		snprintf(err, errlen, "too many %s parameters", what);
		return -E2BIG;
	}
	for (a = 0; a < argc; a += 2) {
		const char *key = split_target(argv[a], prefix, &has, &tid, err, errlen, what);
		const struct et_param *p = NULL;
		uint64_t v;
		unsigned int i;
		int ret;

		if (!key)
			return -EINVAL;
		for (i = 0; i < n_table; i++)
			if (!strcmp(table[i].key, key))
				p = &table[i];
		if (!p) {
			snprintf(err, errlen, "unknown %s parameter '%s' (expected %s)", what, key,
				 keys);
			return -EINVAL;
		}
		ret = obj_parse_val(p, argv[a + 1], &v);
		if (ret) {
			snprintf(err, errlen, "invalid value '%s' for %s%s", argv[a + 1], p->key,
				 p->type == ET_ENUM  ? " (expected on or off)"
				 : p->type == ET_U64 ? " (expected a number of nanoseconds)"
						     : " (expected a number up to 4294967295)");
			return -EINVAL;
		}
		if (p->max && v > p->max) {
			snprintf(err, errlen, "%s %llu is above the maximum %llu", p->key,
				 (unsigned long long)v, (unsigned long long)p->max);
			return -ERANGE;
		}
		tc[*n] = (struct target_change){
			.p = p, .all = has ? false : all, .id = has ? tid : id, .val = v
		};
		for (i = 0; i < *n; i++)
			/* all and one target of the same key overlap as well */
			if (tc[i].p == p && (tc[i].all || tc[*n].all || tc[i].id == tc[*n].id)) {
				snprintf(err, errlen, "%s given twice", p->key);
				return -EINVAL;
			}
		(*n)++;
	}
	return 0;
}

/* Per-device sysfs files of the NAPI parameters (the kernel's interface before napi-set). */
static const char *napi_sysfs_file(const struct et_param *p)
{
	if (!strcmp(p->key, "defer-hard-irqs"))
		return "napi_defer_hard_irqs";
	if (!strcmp(p->key, "gro-flush-timeout"))
		return "gro_flush_timeout";
	if (!strcmp(p->key, "threaded"))
		return "threaded";
	return NULL;
}

static int sysfs_path_read(const char *path, uint64_t *v)
{
	return read_file_u64(path, v);
}

static int sysfs_path_write(const char *path, uint64_t v)
{
	char buf[32];

	snprintf(buf, sizeof(buf), "%llu", (unsigned long long)v);
	return write_file_str(path, buf);
}

/* One NAPI's part of a change: its parameters in one napi-set. */
static unsigned int napi_changes_of(const struct target_change *tc, unsigned int n, uint32_t id,
				    const struct nd_napi *old, struct et_change *ch, bool restore)
{
	unsigned int i, k = 0;

	for (i = 0; i < n; i++) {
		if (tc[i].file || (!tc[i].all && tc[i].id != id))
			continue;
		ch[k].p = tc[i].p;
		ch[k++].val = restore ? old->a.v[tc[i].p->attr] : tc[i].val;
	}
	return k;
}

static void napi_list(const struct nd_dev *d, char *buf, size_t len)
{
	unsigned int i;
	size_t off = 0;

	buf[0] = '\0';
	for (i = 0; i < d->n_napi && i < 16; i++)
		off += snprintf(buf + off, off < len ? len - off : 0, "%s%u", i ? ", " : "",
				d->napi[i].id);
	if (d->n_napi > 16)
		snprintf(buf + off, off < len ? len - off : 0, ", ...");
}

/* NAPI parameters: per NAPI through napi-set where the kernel has it (all NAPIs or one), else the
 * device's sysfs files for the whole device. Every value is checked before anything changes; a
 * NAPI that refuses puts back the NAPIs already changed. */
static int set_napi(const char *dev, int argc, char **argv, bool journal, char *err, size_t errlen,
		    void (*warn)(const char *))
{
	static const char keys[] =
		"defer-hard-irqs, gro-flush-timeout, irq-suspend-timeout or threaded";
	static struct nd_dev d, after;
	struct target_change tc[MAX_CHANGES];
	struct et_change ch[MAX_CHANGES];
	char path[256], list[160];
	struct nl_sock ns;
	bool family, napi_get, napi_setop = false;
	unsigned int n, i, k, done = 0, sys_done = 0;
	int ret;

	ret = parse_targets("napi", "", napi_params, n_napi_params, keys, argc, argv, tc, &n, err,
			    errlen);
	if (ret)
		return ret;
	memset(&d, 0, sizeof(d));
	d.ifindex = (int)if_nametoindex(dev);
	ret = netdev_open(&ns);
	family = !ret;
	if (ret && ret != -EPROTONOSUPPORT) {
		snprintf(err, errlen, "netdev netlink unavailable: %s", strerror(-ret));
		return ret;
	}
	d.napi_ret = family ? napi_dump(&ns, &d) : ret;
	if (d.napi_ret && d.napi_ret != -EOPNOTSUPP && d.napi_ret != -EPROTONOSUPPORT) {
		snprintf(err, errlen, "cannot read the NAPIs of %s: %s", dev,
			 nl_strerror(&ns, d.napi_ret));
		ret = d.napi_ret;
		goto out;
	}
	napi_get = !d.napi_ret;
	/* Whether the kernel has napi-set: a request with the id alone changes nothing. */
	if (napi_get && d.n_napi) {
		struct nlmsghdr *nlh = nl_msg_start(&ns, ND_CMD_NAPI_SET, 0);

		mnl_attr_put_u32(nlh, ND_A_NAPI_ID, d.napi[0].id);
		ret = nl_talk(&ns, nlh, NULL, NULL);
		if (ret && ret != -EOPNOTSUPP) {
			snprintf(err, errlen, "napi-set on %s: %s", dev, nl_strerror(&ns, ret));
			goto out;
		}
		napi_setop = !ret;
	}
	napi_list(&d, list, sizeof(list));
	for (i = 0; i < n; i++) {
		const char *file = napi_sysfs_file(tc[i].p);
		bool reported = napi_setop;

		if (!tc[i].all && !napi_get) {
			snprintf(err, errlen, "NAPI %u: %s (napi all uses %s's sysfs files)",
				 tc[i].id,
				 family ? "this kernel has no napi-get"
					: "this kernel has no netdev netlink family",
				 dev);
			ret = -EOPNOTSUPP;
			goto out;
		}
		if (!tc[i].all && !nd_napi_by_id(&d, tc[i].id)) {
			snprintf(err, errlen, "no NAPI %u on %s (%s%s)", tc[i].id, dev,
				 d.n_napi ? "its NAPIs: " : "it has none", list);
			ret = -ENOENT;
			goto out;
		}
		if (napi_get && !d.n_napi) {
			snprintf(err, errlen, "%s has no NAPI instances", dev);
			ret = -ENOENT;
			goto out;
		}
		/* per NAPI only where napi-get reported the old value of every target */
		for (k = 0; reported && k < d.n_napi; k++)
			if ((tc[i].all || d.napi[k].id == tc[i].id) &&
			    !napi_has(&d.napi[k], tc[i].p->attr))
				reported = false;
		if (reported)
			continue;
		if (!tc[i].all) {
			snprintf(err, errlen, "NAPI %u: this kernel cannot set %s per NAPI",
				 tc[i].id, tc[i].p->key);
			ret = -EOPNOTSUPP;
			goto out;
		}
		if (file)
			dev_sysfs_path(path, sizeof(path), dev, "%s", file);
		if (!file || access(path, W_OK)) {
			snprintf(err, errlen,
				 "%s cannot be set on %s: the kernel has neither napi-set for it "
				 "nor a sysfs file",
				 tc[i].p->key, dev);
			ret = -EOPNOTSUPP;
			goto out;
		}
		tc[i].file = file;
		ret = sysfs_path_read(path, &tc[i].old);
		if (ret) {
			snprintf(err, errlen, "cannot read %s: %s", path, strerror(-ret));
			goto out;
		}
	}
	for (i = 0; journal && i < n; i++) {
		char old[32], key[64];

		if (tc[i].file) {
			obj_format_val(tc[i].p, tc[i].old, old, sizeof(old));
			ret = journal_one(dev, "napi", tc[i].p->key, old, err, errlen);
			if (ret)
				goto out;
			continue;
		}
		for (k = 0; k < d.n_napi; k++) {
			if (!tc[i].all && d.napi[k].id != tc[i].id)
				continue;
			obj_format_val(tc[i].p, d.napi[k].a.v[tc[i].p->attr], old, sizeof(old));
			snprintf(key, sizeof(key), "%u/%s", d.napi[k].id, tc[i].p->key);
			ret = journal_one(dev, "napi", key, old, err, errlen);
			if (ret)
				goto out;
		}
	}
	for (done = 0; done < d.n_napi; done++) {
		unsigned int nch =
			napi_changes_of(tc, n, d.napi[done].id, &d.napi[done], ch, false);

		if (!nch)
			continue;
		ret = napi_set(&ns, d.napi[done].id, ch, nch);
		if (ret) {
			snprintf(err, errlen, "kernel rejected napi %s on %s NAPI %u: %s",
				 ch[0].p->key, dev, d.napi[done].id, nl_strerror(&ns, ret));
			goto undo;
		}
	}
	for (sys_done = 0; sys_done < n; sys_done++) {
		if (!tc[sys_done].file)
			continue;
		dev_sysfs_path(path, sizeof(path), dev, "%s", tc[sys_done].file);
		ret = sysfs_path_write(path, tc[sys_done].val);
		if (ret) {
			snprintf(err, errlen, "kernel rejected napi %s %llu on %s: %s",
				 tc[sys_done].p->key, (unsigned long long)tc[sys_done].val, dev,
				 strerror(-ret));
			goto undo;
		}
	}
	/* Read back: drivers and the kernel may hold another value than asked. */
	after.ifindex = d.ifindex;
	if (napi_setop && !napi_dump(&ns, &after)) {
		for (i = 0; i < n; i++)
			for (k = 0; !tc[i].file && k < after.n_napi; k++) {
				char want[32], got[32];

				if ((!tc[i].all && after.napi[k].id != tc[i].id) ||
				    !napi_has(&after.napi[k], tc[i].p->attr) ||
				    after.napi[k].a.v[tc[i].p->attr] == tc[i].val)
					continue;
				obj_format_val(tc[i].p, tc[i].val, want, sizeof(want));
				obj_format_val(tc[i].p, after.napi[k].a.v[tc[i].p->attr], got,
					       sizeof(got));
				report(warn, "NAPI %u: %s is %s (asked %s)", after.napi[k].id,
				       tc[i].p->key, got, want);
			}
	}
	ret = 0;
	goto out;
undo:
	for (i = 0; i < sys_done; i++) {
		if (!tc[i].file)
			continue;
		dev_sysfs_path(path, sizeof(path), dev, "%s", tc[i].file);
		sysfs_path_write(path, tc[i].old);
	}
	for (k = 0; k < done; k++) {
		unsigned int nch = napi_changes_of(tc, n, d.napi[k].id, &d.napi[k], ch, true);

		if (nch)
			napi_set(&ns, d.napi[k].id, ch, nch);
	}
out:
	if (family)
		nl_close(&ns);
	return ret;
}

/* Byte queue limits of a TX queue (sysfs queues/tx-N/byte_queue_limits/): keyword and file. */
static const struct et_param bql_params[] = {
	{ .key = "stall-thrs", .type = ET_U32 },
	{ .key = "limit-min", .type = ET_U32 },
	{ .key = "limit-max", .type = ET_U32 },
};
static const char *const bql_files[] = { "stall_thrs", "limit_min", "limit_max" };

/* The byte_queue_limits file of a BQL parameter. */
static const char *bql_file(const struct et_param *p)
{
	return bql_files[p - bql_params];
}

const struct et_param *devset_bql_param(const char *key)
{
	unsigned int i;

	for (i = 0; i < sizeof(bql_params) / sizeof(bql_params[0]); i++)
		if (!strcmp(bql_params[i].key, key))
			return &bql_params[i];
	return NULL;
}

/* BQL of one TX queue or all of them; every queue's old value journaled first, a queue that
 * refuses puts back the ones already written. */
static int set_bql(const char *dev, int argc, char **argv, bool journal, char *err, size_t errlen,
		   void (*warn)(const char *))
{
	static const char keys[] = "stall-thrs, limit-min or limit-max";
	struct target_change tc[MAX_CHANGES];
	/* one write per queue and key, in order, with the value it had */
	static struct {
		const struct et_param *p;
		uint32_t q;
		uint64_t val, old;
	} w[ND_MAX_QUEUES];
	unsigned int n, nq, nw = 0, i, q, done;
	char path[256];
	int ret;

	ret = parse_targets("bql", "tx-", bql_params, 3, keys, argc, argv, tc, &n, err, errlen);
	if (ret)
		return ret;
	nq = sysfs_tx_queues(dev, ND_MAX_QUEUES);
	if (!nq || !dev_has_bql(dev)) {
		snprintf(err, errlen, "%s has no byte queue limits (BQL)", dev);
		return -EOPNOTSUPP;
	}
	for (i = 0; i < n; i++) {
		if (!tc[i].all && tc[i].id >= nq) {
			char have[32] = "";

			if (nq > 1)
				snprintf(have, sizeof(have), " to tx-%u", nq - 1);
			snprintf(err, errlen, "no TX queue tx-%u on %s (it has tx-0%s)", tc[i].id,
				 dev, have);
			return -ENOENT;
		}
		for (q = 0; q < nq; q++) {
			if (!tc[i].all && q != tc[i].id)
				continue;
			if (nw >= ND_MAX_QUEUES) {
				snprintf(err, errlen, "too many bql changes at once");
				return -E2BIG;
			}
			dev_bql_path(path, sizeof(path), dev, q, bql_file(tc[i].p));
			ret = read_file_u64(path, &w[nw].old);
			if (ret) {
				snprintf(err, errlen, "cannot read %s: %s", path, strerror(-ret));
				return ret;
			}
			w[nw].p = tc[i].p;
			w[nw].q = q;
			w[nw++].val = tc[i].val;
		}
	}
	for (i = 0; journal && i < nw; i++) {
		char key[64], old[32];

		snprintf(key, sizeof(key), "tx-%u/%s", w[i].q, w[i].p->key);
		snprintf(old, sizeof(old), "%llu", (unsigned long long)w[i].old);
		ret = journal_one(dev, "bql", key, old, err, errlen);
		if (ret)
			return ret;
	}
	for (done = 0; done < nw; done++) {
		dev_bql_path(path, sizeof(path), dev, w[done].q, bql_file(w[done].p));
		ret = sysfs_path_write(path, w[done].val);
		if (ret) {
			snprintf(err, errlen, "kernel rejected bql %s %llu on %s tx-%u: %s%s",
				 w[done].p->key, (unsigned long long)w[done].val, dev, w[done].q,
				 strerror(-ret),
				 ret == -ERANGE && !strcmp(w[done].p->key, "stall-thrs")
					 ? " (stall-thrs is 0 or 4 to 128 jiffies, in ms)"
					 : "");
			while (done--) {
				dev_bql_path(path, sizeof(path), dev, w[done].q,
					     bql_file(w[done].p));
				sysfs_path_write(path, w[done].old);
			}
			return ret;
		}
	}
	/* stall-thrs is kept in jiffies: a value between ticks reads back rounded */
	for (i = 0; i < nw; i++) {
		uint64_t v;

		if (!dev_bql_u64(dev, w[i].q, bql_file(w[i].p), &v) && v != w[i].val)
			report(warn, "tx-%u: bql %s is %llu (asked %llu)", w[i].q, w[i].p->key,
			       (unsigned long long)v, (unsigned long long)w[i].val);
	}
	return 0;
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
		return set_napi(dev, argc, argv, journal, err, errlen, warn);
	if (!strcmp(object, "bql"))
		return set_bql(dev, argc, argv, journal, err, errlen, warn);
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
	char *pairs[2 * MAX_CHANGES + 1];
	unsigned int i;

	if (n > MAX_CHANGES) {
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

static int sysctl_path(const char *name, char *path, size_t len)
{
	size_t i;

	if (strncmp(name, "net.", 4) || strlen(name) > 200 || strstr(name, "..") ||
	    strchr(name, '/'))
		return -EINVAL;
	snprintf(path, len, "/proc/sys/%s", name);
	for (i = 10; path[i]; i++)
		if (path[i] == '.')
			path[i] = '/';
	return 0;
}

int devset_sysctl_raw(const char *name, const char *val, char *err, size_t errlen)
{
	char path[256];
	int ret = sysctl_path(name, path, sizeof(path));

	if (ret) {
		snprintf(err, errlen, "not a network sysctl: '%s'", name);
		return ret;
	}
	ret = write_file_str(path, val);
	if (ret)
		snprintf(err, errlen, "cannot set %s to %s: %s", name, val, strerror(-ret));
	return ret;
}

/* A kernel-wide sysctl set from the initial namespace, journaled as made there. */
struct sysctl_kernel_ctx {
	const char *name, *val;
	bool temp;
	int owner;
	char err[300];
};

static int sysctl_kernel_child(void *arg)
{
	struct sysctl_kernel_ctx *c = arg;

	journal_set_temp(c->temp, c->owner);
	return sysctl_set(c->name, c->val, c->err, sizeof(c->err));
}

int sysctl_set_kernel(const char *name, const char *val, char *err, size_t errlen)
{
	struct sysctl_kernel_ctx c = { name, val, journal_temp_active(), getpid() };
	char cur[64];
	int ret;

	if (!netns_current_name(cur, sizeof(cur))[0])
		return sysctl_set(name, val, err, errlen);
	/* the child writes the journal and the reason */
	ret = netns_run_shared("", sysctl_kernel_child, &c, sizeof(c));
	if (ret)
		snprintf(err, errlen, "%s",
			 c.err[0] ? c.err : "cannot enter the initial network namespace");
	return ret;
}

struct sysctl_read_ctx {
	char path[256];
	char val[128];
};

static int sysctl_read_child(void *arg)
{
	struct sysctl_read_ctx *c = arg;

	return read_file_str(c->path, c->val, sizeof(c->val));
}

int sysctl_get_kernel(const char *name, char *buf, size_t len)
{
	struct sysctl_read_ctx c = { "" };
	int ret = sysctl_path(name, c.path, sizeof(c.path));

	if (ret)
		return ret;
	ret = read_file_str(c.path, buf, len);
	if (ret != -ENOENT)
		return ret;
	/* not shown in this namespace: read the initial one's */
	ret = netns_run_shared("", sysctl_read_child, &c, sizeof(c));
	if (!ret)
		snprintf(buf, len, "%s", c.val);
	return ret;
}

int sysctl_set(const char *name, const char *val, char *err, size_t errlen)
{
	char path[256], old[128];
	int ret = sysctl_path(name, path, sizeof(path));

	if (ret) {
		snprintf(err, errlen, "not a network sysctl: '%s'", name);
		return ret;
	}
	ret = read_file_str(path, old, sizeof(old));
	if (ret) {
		snprintf(err, errlen, "no sysctl %s: %s", name, strerror(-ret));
		return ret;
	}
	ret = journal_one("", "sysctl", name, old, err, errlen);
	if (ret)
		return ret;
	return devset_sysctl_raw(name, val, err, errlen);
}
