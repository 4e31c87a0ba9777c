/* Profiles applied: every setting checked against the device, then all set or none (journal). */
#include <errno.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <net/if.h>

#include "knowledge/profile.h"
#include "knowledge/profile_parts.h"
#include "nl/devobj.h"
#include "nl/netdev.h"
#include "nl/nl.h"
#include "out/json_print.h"
#include "state/devset.h"
#include "state/journal.h"
#include "state/sysctl.h"
#include "state/undo.h"
#include "util/ethtune.h"

/* The ethtune set object name for a section. */
static const char *sect_setname(int sect)
{
	static const char *const names[PS_COUNT] = {
		[PS_COALESCE] = "coalesce", [PS_RING] = "ring", [PS_CHANNELS] = "channels",
		[PS_NAPI] = "napi",	    [PS_BQL] = "bql",
	};

	return sect >= 0 && sect < PS_COUNT ? names[sect] : NULL;
}

/* "KEY VAL KEY VAL..." of one section, pointing into p. */
static unsigned int sect_args(struct profile *p, int sect, char **argv, unsigned int max)
{
	unsigned int i, n = 0;

	for (i = 0; i < p->n && n + 2 <= max; i++)
		if (p->kv[i].sect == sect) {
			argv[n++] = p->kv[i].key;
			argv[n++] = p->kv[i].val;
		}
	return n;
}

/* [napi] needs NAPIs (or, without napi-get, the device's sysfs files) and [bql] BQL. */
static int profile_validate_queues(struct profile *p, const char *dev, char *err, size_t errlen)
{
	static struct nd_dev nd;
	char path[256];

	if (profile_count(p, PS_NAPI)) {
		dev_sysfs_path(path, sizeof(path), dev, "gro_flush_timeout");
		netdev_get((int)if_nametoindex(dev), &nd);
		if ((!nd.napi_ret && !nd.n_napi) || (nd.napi_ret && access(path, W_OK))) {
			snprintf(err, errlen,
				 "%s has no NAPI instances but the profile sets [napi]", dev);
			return -EOPNOTSUPP;
		}
	}
	if (profile_count(p, PS_BQL) && !dev_has_bql(dev)) {
		snprintf(err, errlen, "%s has no byte queue limits but the profile sets [bql]",
			 dev);
		return -EOPNOTSUPP;
	}
	return 0;
}

/* Check every setting against the device before anything is changed. */
static int profile_validate_dev(struct profile *p, const char *dev, char *err, size_t errlen)
{
	static const int sects[] = { PS_COALESCE, PS_RING, PS_CHANNELS };
	struct nl_sock ns;
	unsigned int i;
	int ret;

	ret = nl_open_genl(&ns, "ethtool");
	if (ret) {
		snprintf(err, errlen, "cannot open ethtool netlink: %s", strerror(-ret));
		return ret;
	}
	for (i = 0; i < sizeof(sects) / sizeof(sects[0]); i++) {
		const struct et_object *obj = prof_sect_obj(sects[i]);
		struct et_change ch[PROF_MAX_KV];
		char *argv[2 * PROF_MAX_KV], msg[512];
		struct et_vals cur;
		unsigned int n = sect_args(p, sects[i], argv, 2 * PROF_MAX_KV), nch;

		if (!n)
			continue;
		memset(&cur, 0, sizeof(cur));
		ret = obj_get(&ns, obj, dev, &cur);
		if (ret) {
			snprintf(err, errlen,
				 "%s has no %s parameters (%s) but the profile sets %s", dev,
				 obj->name, nl_strerror(&ns, ret), argv[0]);
			goto out;
		}
		ret = obj_parse_changes(obj, &cur, n, argv, ch, &nch, msg, sizeof(msg));
		if (ret) {
			snprintf(err, errlen, "%s: %s", dev, msg);
			goto out;
		}
	}
	ret = profile_validate_queues(p, dev, err, errlen);
	if (ret)
		goto out;
	for (i = 0; i < p->n; i++) {
		char buf[256];

		if (p->kv[i].sect != PS_SYSCTL)
			continue;
		ret = sysctl_get(p->kv[i].key, buf, sizeof(buf));
		if (ret) {
			snprintf(err, errlen, "no sysctl %s in this namespace: %s", p->kv[i].key,
				 strerror(-ret));
			goto out;
		}
	}
	ret = 0;
out:
	nl_close(&ns);
	return ret;
}

static void warn_line(const char *msg)
{
	et_warn("%s", msg);
}

int profile_apply(const char *dev, const char *name, bool force, bool dry)
{
	static const int sects[] = { PS_COALESCE, PS_RING, PS_CHANNELS, PS_NAPI, PS_BQL };
	struct profile *p = malloc(sizeof(*p));
	struct prof_dev d;
	char err[768];
	unsigned int i, applied = 0;
	int ret, mark = 0;

	if (!p)
		return -ENOMEM;
	if (!dry && !have_cap_net_admin()) {
		et_err("profile apply: changing %s needs CAP_NET_ADMIN (run as root)", dev);
		ret = -EIO;
		goto out;
	}
	if (prof_device_ready(dev) || prof_pick(dev, name, force, p, &d)) {
		ret = -EIO;
		goto out;
	}
	if (profile_validate_dev(p, dev, err, sizeof(err))) {
		et_err("profile %s: %s; nothing applied", p->name, err);
		ret = -EIO;
		goto out;
	}
	if (!dry && journal_txn_begin(&mark)) {
		et_err("profile apply: cannot read the journal %s", journal_path());
		ret = -EIO;
		goto out;
	}
	new_json_obj(et_opts.json);
	print_text("%s profile ", dry ? "would apply" : "applying");
	print_string(PRINT_ANY, "profile", "%s", p->name);
	print_string(PRINT_ANY, "dev", " to %s\n", dev);
	print_bool(PRINT_JSON, "dry-run", NULL, dry);
	print_string(PRINT_JSON, "path", NULL, p->path);
	open_json_array(PRINT_JSON, "applied");
	for (i = 0; i < sizeof(sects) / sizeof(sects[0]); i++) {
		char *argv[2 * PROF_MAX_KV + 1];
		unsigned int n, k;

		argv[0] = (char *)sect_setname(sects[i]);
		n = sect_args(p, sects[i], argv + 1, 2 * PROF_MAX_KV);
		if (!n)
			continue;
		if (!dry) {
			ret = devset_apply(dev, n + 1, argv, err, sizeof(err), warn_line);
			if (ret)
				goto fail;
		}
		for (k = 1; k < n; k += 2) {
			open_json_object(NULL);
			print_string(PRINT_ANY, "object", "  %s ", argv[0]);
			print_string(PRINT_ANY, "key", "%s ", argv[k]);
			print_string(PRINT_ANY, "value", "%s\n", argv[k + 1]);
			close_json_object();
			applied++;
		}
	}
	for (i = 0; i < p->n; i++) {
		if (p->kv[i].sect != PS_SYSCTL)
			continue;
		if (!dry) {
			ret = sysctl_set(p->kv[i].key, p->kv[i].val, err, sizeof(err));
			if (ret)
				goto fail;
		}
		open_json_object(NULL);
		print_string(PRINT_ANY, "object", "  %s ", "sysctl");
		print_string(PRINT_ANY, "key", "%s ", p->kv[i].key);
		print_string(PRINT_ANY, "value", "%s\n", p->kv[i].val);
		close_json_object();
		applied++;
	}
	close_json_array(PRINT_JSON, NULL);
	delete_json_obj();
	ret = 0;
	goto out;
fail:
	close_json_array(PRINT_JSON, NULL);
	delete_json_obj();
	/* All or nothing: put back what this apply changed before the failure. */
	if (undo_txn_rollback(mark))
		et_err("profile %s on %s: %s (%u settings applied before could not all be rolled "
		       "back; 'ethtune restore %s' undoes them)",
		       p->name, dev, err, applied, dev);
	else
		et_err("profile %s on %s: %s; nothing applied", p->name, dev, err);
	ret = -EIO;
out:
	free(p);
	return ret;
}
