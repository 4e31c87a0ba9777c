/* Profiles exported as a tuned profile: [net] ethtool options, [sysfs] NAPI and BQL, [sysctl]. */
#include <errno.h>
#include <stdio.h>
#include <string.h>

#include "knowledge/profile.h"
#include "knowledge/profile_parts.h"
#include "util/ethtune.h"

/* "coalesce=tx-usecs 16 tx-frames 32": the [net] option of one ethtool object. */
static int net_option(const struct exp_set *s, struct exp_file *f, int obj, const char *opt)
{
	char val[256];
	bool first = true;
	int i;

	for (i = exp_next(s, EXP_TUNED, obj, 0); i >= 0; i = exp_next(s, EXP_TUNED, obj, i + 1)) {
		const struct exp_item *it = &s->it[i];
		const struct exp_fkey *k = &exp_map_find(it->obj, it->key)->f[EXP_TUNED];
		int ret = exp_value(k, it->obj, it->key, it->val, val, sizeof(val));

		if (ret)
			return ret;
		if (opt)
			exp_printf(&f->text, "%s%s %s", first ? opt : " ", k->name, val);
		else /* one option a keyword: mtu=, txqueuelen= */
			exp_printf(&f->text, "%s=%s\n", k->name, val);
		first = false;
	}
	if (opt && !first)
		exp_printf(&f->text, "\n");
	return 0;
}

int exp_write_tuned(const struct exp_set *s, struct exp_file *f)
{
	char name[64], path[256], val[256];
	int i, ret = 0;

	exp_safe_name(s->name, name, sizeof(name));
	snprintf(f->rel, sizeof(f->rel), "ethtune-%s/tuned.conf", name);
	exp_header(s, f, "a profile directory for /etc/tuned/ (tuned-adm profile NAME)");
	exp_printf(&f->text, "\n[main]\nsummary=ethtune profile %s\n", s->name);
	if (exp_next(s, EXP_TUNED, EO_COALESCE, 0) >= 0 ||
	    exp_next(s, EXP_TUNED, EO_RING, 0) >= 0 ||
	    exp_next(s, EXP_TUNED, EO_CHANNELS, 0) >= 0 ||
	    exp_next(s, EXP_TUNED, EO_FEATURE, 0) >= 0 || exp_next(s, EXP_TUNED, EO_LINK, 0) >= 0) {
		exp_printf(&f->text, "\n[net]\n");
		if (s->dev[0])
			exp_printf(&f->text, "devices=%s\n", s->dev);
		else if (s->driver[0]) /* udev's properties of the device, one a line */
			exp_printf(&f->text, "devices_udev_regex=^ID_NET_DRIVER=%s$\n", s->driver);
		ret = ret ?: net_option(s, f, EO_COALESCE, "coalesce=");
		ret = ret ?: net_option(s, f, EO_RING, "ring=");
		ret = ret ?: net_option(s, f, EO_CHANNELS, "channels=");
		ret = ret ?: net_option(s, f, EO_FEATURE, "features=");
		ret = ret ?: net_option(s, f, EO_LINK, NULL);
		if (ret)
			return ret;
	}
	if (exp_next(s, EXP_TUNED, EO_NAPI, 0) >= 0 || exp_next(s, EXP_TUNED, EO_BQL, 0) >= 0) {
		exp_printf(&f->text, "\n[sysfs]\n");
		for (i = 0; i < (int)s->n; i++) {
			const struct exp_item *it = &s->it[i];
			const struct exp_fkey *k;

			if (it->fmt != EXP_TUNED || (it->obj != EO_NAPI && it->obj != EO_BQL))
				continue;
			k = &exp_map_find(it->obj, it->key)->f[EXP_TUNED];
			if (exp_sysfs_glob(s, it->obj, k->name, path, sizeof(path))) {
				et_err("tuned: [sysfs] needs the device or its driver: give --dev");
				return -EINVAL;
			}
			ret = exp_value(k, it->obj, it->key, it->val, val, sizeof(val));
			if (ret)
				return ret;
			exp_printf(&f->text, "%s=%s\n", path, val);
		}
	}
	if (exp_next(s, EXP_TUNED, EO_SYSCTL, 0) >= 0) {
		exp_printf(&f->text, "\n[sysctl]\n");
		for (i = exp_next(s, EXP_TUNED, EO_SYSCTL, 0); i >= 0;
		     i = exp_next(s, EXP_TUNED, EO_SYSCTL, i + 1))
			exp_printf(&f->text, "%s=%s\n", s->it[i].key, s->it[i].val);
	}
	snprintf(f->check, sizeof(f->check),
		 "tuned's profile loader and [net] parser on the directory (tests/ns/export.sh); "
		 "tuned-adm profile ethtune-%s && tuned-adm verify on the host",
		 name);
	return 0;
}
