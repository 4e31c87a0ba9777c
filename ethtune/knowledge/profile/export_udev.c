/* Profiles exported as a udev rule: NAPI and txqueuelen as ATTR, ethtool and ip as RUN. */
#include <errno.h>
#include <stdio.h>
#include <string.h>

#include "knowledge/profile.h"
#include "knowledge/profile_parts.h"

/* RUN+="/sbin/ethtool -C $name KEY VAL..." for one ethtool object. */
static int run_line(const struct exp_set *s, struct exp_file *f, int obj, const char *cmd)
{
	char val[256];
	bool first = true;
	int i, ret;

	for (i = exp_next(s, EXP_UDEV, obj, 0); i >= 0; i = exp_next(s, EXP_UDEV, obj, i + 1)) {
		const struct exp_item *it = &s->it[i];
		const struct exp_fkey *k = &exp_map_find(it->obj, it->key)->f[EXP_UDEV];

		ret = exp_value(k, it->obj, it->key, it->val, val, sizeof(val));
		if (ret)
			return ret;
		exp_printf(&f->text, "%s%s %s", first ? cmd : " ", k->name, val);
		first = false;
	}
	if (!first)
		exp_printf(&f->text, "\", \\\n");
	return 0;
}

int exp_write_udev(const struct exp_set *s, struct exp_file *f)
{
	char name[64], val[256];
	int i, ret = 0;

	exp_safe_name(s->name, name, sizeof(name));
	/* after 80-net-setup-link.rules, whose net_setup_link sets ID_NET_DRIVER */
	snprintf(f->rel, sizeof(f->rel), "81-ethtune-%s.rules", name);
	exp_header(s, f,
		   "for /etc/udev/rules.d/, applied when the device is added (udevadm "
		   "trigger --action=add, reboot, driver reload)");
	exp_printf(&f->text, "ACTION==\"add\", SUBSYSTEM==\"net\", \\\n");
	/* the driver as ethtool names it, as profiles do: a device without a bus parent (txsim,
	 * veth) has no DRIVERS to match */
	if (s->driver[0])
		exp_printf(&f->text, "  ENV{ID_NET_DRIVER}==\"%s\", \\\n", s->driver);
	if (s->pci) {
		exp_printf(&f->text, "  ATTRS{vendor}==\"0x%04x\", \\\n", s->vendor);
		if (s->device >= 0)
			exp_printf(&f->text, "  ATTRS{device}==\"0x%04x\", \\\n",
				   (unsigned int)s->device);
	}
	if (!s->driver[0] && !s->pci)
		exp_printf(&f->text, "  KERNEL==\"%s\", \\\n", s->dev);
	for (i = 0; i < (int)s->n; i++) {
		const struct exp_item *it = &s->it[i];
		const struct exp_fkey *k;

		if (it->fmt != EXP_UDEV ||
		    !(it->obj == EO_NAPI ||
		      (it->obj == EO_LINK &&
		       (!strcmp(it->key, "mtu") || !strcmp(it->key, "txqueuelen")))))
			continue;
		k = &exp_map_find(it->obj, it->key)->f[EXP_UDEV];
		ret = exp_value(k, it->obj, it->key, it->val, val, sizeof(val));
		if (ret)
			return ret;
		exp_printf(&f->text, "  ATTR{%s}=\"%s\", \\\n", k->name, val);
	}
	ret = ret ?: run_line(s, f, EO_COALESCE, "  RUN+=\"/sbin/ethtool -C $name ");
	ret = ret ?: run_line(s, f, EO_RING, "  RUN+=\"/sbin/ethtool -G $name ");
	ret = ret ?: run_line(s, f, EO_CHANNELS, "  RUN+=\"/sbin/ethtool -L $name ");
	ret = ret ?: run_line(s, f, EO_FEATURE, "  RUN+=\"/sbin/ethtool -K $name ");
	if (ret)
		return ret;
	{
		bool first = true;

		for (i = exp_next(s, EXP_UDEV, EO_LINK, 0); i >= 0;
		     i = exp_next(s, EXP_UDEV, EO_LINK, i + 1)) {
			if (!strcmp(s->it[i].key, "mtu") || !strcmp(s->it[i].key, "txqueuelen"))
				continue;
			exp_printf(&f->text, "%s%s %s",
				   first ? "  RUN+=\"/sbin/ip link set dev $name " : " ",
				   exp_map_find(EO_LINK, s->it[i].key)->f[EXP_UDEV].name,
				   s->it[i].val);
			first = false;
		}
		if (!first)
			exp_printf(&f->text, "\", \\\n");
	}
	/* the last line ends the rule: drop its ", \" continuation */
	if (!f->text.err && f->text.len >= 4 && !strcmp(f->text.s + f->text.len - 4, ", \\\n")) {
		f->text.len -= 4;
		f->text.s[f->text.len] = '\0';
		exp_printf(&f->text, "\n");
	}
	snprintf(f->check, sizeof(f->check),
		 "udevadm test --action=add /sys/class/net/%s (no FILE:LINE: complaint)",
		 s->dev[0] ? s->dev : "DEV");
	return 0;
}
