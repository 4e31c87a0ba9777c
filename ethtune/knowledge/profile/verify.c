/* Profiles verified: each setting against what the device has now and what its config persists. */
#include <ctype.h>
#include <errno.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <net/if.h>

#include "knowledge/profile.h"
#include "knowledge/profile_parts.h"
#include "nl/devobj.h"
#include "nl/netdev.h"
#include "nl/nl.h"
#include "out/json_print.h"
#include "state/devset.h"
#include "state/sysctl.h"
#include "util/ethtune.h"

/* Collapse whitespace runs to one space and trim: "4096\t16384" equals "4096 16384". */
static void norm_ws(char *s)
{
	char *r = s, *w = s;

	while (*r) {
		if (isspace((unsigned char)*r)) {
			while (isspace((unsigned char)*r))
				r++;
			if (w != s && *r)
				*w++ = ' ';
		} else {
			*w++ = *r++;
		}
	}
	*w = '\0';
}

/* Values the host's persistent configuration sets for the row's keyword (persist.c): each one
 * that disagrees with the profile or with the device is reported, and one that disagrees with
 * the profile is drift too (the next boot or hotplug would bring it back). */
static unsigned int verify_persisted(const struct persist *pers, int sect, const char *key,
				     const char *want, const char *have)
{
	int obj = exp_obj_of_sect(sect);
	unsigned int i, bad = 0;
	bool open = false;

	for (i = 0; pers && i < pers->n; i++) {
		char pv[192], w[192];
		bool same_w, same_h;

		if (pers->e[i].obj != obj || strcmp(pers->e[i].key, key))
			continue;
		snprintf(pv, sizeof(pv), "%s", pers->e[i].val);
		snprintf(w, sizeof(w), "%s", want);
		norm_ws(pv);
		norm_ws(w);
		same_w = !strcmp(pv, w);
		same_h = have && !strcmp(pv, have);
		if (!open)
			open_json_array(PRINT_JSON, "persisted");
		open = true;
		open_json_object(NULL);
		print_string(PRINT_JSON, "value", NULL, pers->e[i].val);
		print_string(PRINT_JSON, "file", NULL, pers->e[i].src);
		close_json_object();
		if (same_w && same_h)
			continue;
		print_text("    persisted %s %s (%s), running %s, profile %s\n", key,
			   pers->e[i].val, pers->e[i].src, have ? have : "n/a", want);
		bad += !same_w;
	}
	if (open)
		close_json_array(PRINT_JSON, NULL);
	return bad;
}

/* One row of profile verify: what the profile wants and what the device has (NULL: it cannot
 * say), the status, "ok", "drift" or "unsupported", and what persists; returns the row's drift
 * (0, or 1 and more where the persisted configuration disagrees). */
static unsigned int verify_row(const char *object, const char *key, const char *want,
			       const char *have, bool same, const struct persist *pers, int sect)
{
	const char *st = !have ? "unsupported" : same ? "ok" : "drift";
	unsigned int bad;

	open_json_object(NULL);
	print_string(PRINT_ANY, "object", "  %-9s", object);
	print_string(PRINT_ANY, "key", " %-22s", key);
	print_string(PRINT_ANY, "want", " want %-8s", want);
	if (have)
		print_string(PRINT_ANY, "have", " have %-8s", have);
	else
		print_na("have", " have %-8s");
	print_string(PRINT_ANY, "status", " %s\n", st);
	bad = verify_persisted(pers, sect, key, want, have);
	close_json_object();
	return (strcmp(st, "ok") != 0) + bad;
}

/* The value every NAPI of dev has for key (netdev napi-get, else the device's sysfs file);
 * have is the first that differs from want. False when nothing reports it. */
static bool verify_napi(const char *dev, const char *key, const char *val, char *have, size_t len,
			bool *match)
{
	static const char *const files[][2] = { { "defer-hard-irqs", "napi_defer_hard_irqs" },
						{ "gro-flush-timeout", "gro_flush_timeout" },
						{ "threaded", "threaded" } };
	static struct nd_dev nd;
	const struct et_param *prm = napi_param(key);
	uint64_t want = 0, v;
	unsigned int k, seen = 0;

	obj_parse_val(prm, val, &want);
	*match = true;
	if (!netdev_get((int)if_nametoindex(dev), &nd) && !nd.napi_ret) {
		for (k = 0; k < nd.n_napi; k++) {
			if (!napi_has(&nd.napi[k], prm->attr))
				continue;
			v = nd.napi[k].a.v[prm->attr];
			if (!seen++ || (*match && v != want))
				obj_format_val(prm, v, have, len);
			*match &= v == want;
		}
		if (seen)
			return true;
	}
	for (k = 0; k < sizeof(files) / sizeof(files[0]); k++) {
		if (strcmp(files[k][0], key))
			continue;
		if (dev_sysfs_u64(dev, files[k][1], &v))
			return false;
		obj_format_val(prm, v, have, len);
		*match = v == want;
		return true;
	}
	return false;
}

/* The value every TX queue of dev has for a BQL key; have is the first that differs. */
static bool verify_bql(const char *dev, const char *key, const char *val, char *have, size_t len,
		       bool *match)
{
	uint64_t want = 0, v;
	unsigned int q;
	char file[32], *c;

	obj_parse_val(devset_bql_param(key), val, &want);
	snprintf(file, sizeof(file), "%s", key);
	for (c = file; *c; c++)
		if (*c == '-')
			*c = '_';
	*match = true;
	for (q = 0; q < 4096; q++) {
		if (dev_bql_u64(dev, q, file, &v))
			break;
		if (!q || (*match && v != want))
			snprintf(have, len, "%llu", (unsigned long long)v);
		*match &= v == want;
	}
	return q > 0;
}

int profile_verify(const char *dev, const char *name, bool force, unsigned int *ndrift)
{
	static const int sects[] = { PS_COALESCE, PS_RING, PS_CHANNELS };
	struct profile *p = malloc(sizeof(*p));
	struct persist *pers = malloc(sizeof(*pers));
	struct prof_dev d;
	struct nl_sock ns;
	unsigned int i, drift = 0, checked = 0;
	int ret;

	if (!p || !pers) {
		free(p);
		free(pers);
		return -ENOMEM;
	}
	if (prof_device_ready(dev) || prof_pick(dev, name, force, p, &d)) {
		free(p);
		free(pers);
		return -EIO;
	}
	ret = nl_open_genl(&ns, "ethtool");
	if (ret) {
		et_err("cannot open ethtool netlink: %s", strerror(-ret));
		free(p);
		free(pers);
		return ret;
	}
	persist_load(dev, pers);
	new_json_obj(et_opts.json);
	print_string(PRINT_ANY, "profile", "profile %s", p->name);
	print_string(PRINT_ANY, "dev", " on %s\n", dev);
	open_json_array(PRINT_JSON, "settings");
	for (i = 0; i < sizeof(sects) / sizeof(sects[0]); i++) {
		const struct et_object *obj = prof_sect_obj(sects[i]);
		struct et_vals cur;
		bool have_obj;
		unsigned int k;

		if (!profile_count(p, sects[i]))
			continue;
		memset(&cur, 0, sizeof(cur));
		have_obj = !obj_get(&ns, obj, dev, &cur);
		for (k = 0; k < p->n; k++) {
			const struct prof_kv *kv = &p->kv[k];
			const struct et_param *prm;
			char have[64];
			uint64_t want = 0;
			bool known;

			if (kv->sect != sects[i])
				continue;
			prm = obj_param(obj, kv->key);
			obj_parse_val(prm, kv->val, &want);
			known = have_obj && vals_has(&cur, prm->attr);
			if (known)
				obj_format_val(prm, cur.v[prm->attr], have, sizeof(have));
			drift += verify_row(obj->name, kv->key, kv->val, known ? have : NULL,
					    known && cur.v[prm->attr] == want, pers, sects[i]);
			checked++;
		}
	}
	for (i = 0; i < p->n; i++) {
		const struct prof_kv *kv = &p->kv[i];
		char have[64];
		bool known, match;

		if (kv->sect != PS_NAPI && kv->sect != PS_BQL)
			continue;
		known = (kv->sect == PS_NAPI ? verify_napi : verify_bql)(
			dev, kv->key, kv->val, have, sizeof(have), &match);
		drift += verify_row(prof_sect_name(kv->sect), kv->key, kv->val, known ? have : NULL,
				    known && match, pers, kv->sect);
		checked++;
	}
	for (i = 0; i < p->n; i++) {
		char have[256], want[sizeof(p->kv[i].val)];

		if (p->kv[i].sect != PS_SYSCTL)
			continue;
		if (!sysctl_get(p->kv[i].key, have, sizeof(have))) {
			snprintf(want, sizeof(want), "%s", p->kv[i].val);
			norm_ws(have);
			norm_ws(want);
			drift += verify_row("sysctl", p->kv[i].key, p->kv[i].val, have,
					    !strcmp(have, want), pers, PS_SYSCTL);
		} else {
			drift += verify_row("sysctl", p->kv[i].key, p->kv[i].val, NULL, false, pers,
					    PS_SYSCTL);
		}
		checked++;
	}
	close_json_array(PRINT_JSON, NULL);
	print_uint(PRINT_ANY, "checked", "%llu settings checked", checked);
	print_uint(PRINT_ANY, "drift", ", %llu drifted\n", drift);
	delete_json_obj();
	nl_close(&ns);
	free(p);
	free(pers);
	*ndrift = drift;
	return 0;
}
