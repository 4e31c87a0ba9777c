/* devset's queue objects: NAPI (napi-set, else the device's sysfs) and BQL, per target or all. */
#include <errno.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>
#include <net/if.h>

#include "nl/devobj.h"
#include "nl/netdev.h"
#include "state/devset.h"
#include "state/devset_parts.h"
#include "util/ethtune.h"

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
	if (argc > 2 * DEVSET_MAX_CHANGES) {
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
int devset_set_napi(const char *dev, int argc, char **argv, bool journal, char *err, size_t errlen,
		    void (*warn)(const char *))
{
	static const char keys[] =
		"defer-hard-irqs, gro-flush-timeout, irq-suspend-timeout or threaded";
	static struct nd_dev d, after;
	struct target_change tc[DEVSET_MAX_CHANGES];
	struct et_change ch[DEVSET_MAX_CHANGES];
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
			ret = devset_journal_old(dev, "napi", tc[i].p->key, old, err, errlen);
			if (ret)
				goto out;
			continue;
		}
		for (k = 0; k < d.n_napi; k++) {
			if (!tc[i].all && d.napi[k].id != tc[i].id)
				continue;
			obj_format_val(tc[i].p, d.napi[k].a.v[tc[i].p->attr], old, sizeof(old));
			snprintf(key, sizeof(key), "%u/%s", d.napi[k].id, tc[i].p->key);
			ret = devset_journal_old(dev, "napi", key, old, err, errlen);
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
				devset_report(warn, "NAPI %u: %s is %s (asked %s)",
					      after.napi[k].id, tc[i].p->key, got, want);
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

const struct et_param *devset_bql_param_at(unsigned int i)
{
	return i < sizeof(bql_params) / sizeof(bql_params[0]) ? &bql_params[i] : NULL;
}

/* BQL of one TX queue or all of them; every queue's old value journaled first, a queue that
 * refuses puts back the ones already written. */
int devset_set_bql(const char *dev, int argc, char **argv, bool journal, char *err, size_t errlen,
		   void (*warn)(const char *))
{
	static const char keys[] = "stall-thrs, limit-min or limit-max";
	struct target_change tc[DEVSET_MAX_CHANGES];
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
		ret = devset_journal_old(dev, "bql", key, old, err, errlen);
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
			devset_report(warn, "tx-%u: bql %s is %llu (asked %llu)", w[i].q,
				      w[i].p->key, (unsigned long long)v,
				      (unsigned long long)w[i].val);
	}
	return 0;
}
