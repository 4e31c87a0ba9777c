/* Profiles exported as an ifupdown stanza: the ethtool package's options, up lines for the rest. */
#include <errno.h>
#include <stdio.h>
#include <string.h>

#include "knowledge/profile.h"
#include "knowledge/profile_parts.h"
#include "util/ethtune.h"

int exp_write_ifupdown(const struct exp_set *s, struct exp_file *f)
{
	static const int objs[] = { EO_COALESCE, EO_RING, EO_FEATURE };
	char name[64], val[256];
	unsigned int j;
	int i, ret;

	if (!s->dev[0]) {
		et_err("ifupdown: a stanza names its interface: give --dev DEV");
		return -EINVAL;
	}
	exp_safe_name(s->name, name, sizeof(name));
	snprintf(f->rel, sizeof(f->rel), "ethtune-%s", name);
	exp_header(s, f,
		   "for /etc/network/interfaces.d/, or merge its lines into the device's stanza; "
		   "the hardware-* and offload-* options need the ethtool package's if-up hook");
	exp_printf(&f->text, "\niface %s inet manual\n", s->dev);
	/* the ethtool hook's own options: hardware-irq-coalesce-KEY, hardware-dma-ring-KEY,
	 * offload-KEY */
	for (j = 0; j < sizeof(objs) / sizeof(objs[0]); j++)
		for (i = exp_next(s, EXP_IFUPDOWN, objs[j], 0); i >= 0;
		     i = exp_next(s, EXP_IFUPDOWN, objs[j], i + 1)) {
			const struct exp_item *it = &s->it[i];
			const struct exp_fkey *k = &exp_map_find(it->obj, it->key)->f[EXP_IFUPDOWN];

			ret = exp_value(k, it->obj, it->key, it->val, val, sizeof(val));
			if (ret)
				return ret;
			exp_printf(&f->text, "\t%s %s\n", k->name, val);
		}
	if (exp_next(s, EXP_IFUPDOWN, EO_CHANNELS, 0) >= 0) {
		exp_printf(&f->text, "\tup /sbin/ethtool -L $IFACE");
		for (i = exp_next(s, EXP_IFUPDOWN, EO_CHANNELS, 0); i >= 0;
		     i = exp_next(s, EXP_IFUPDOWN, EO_CHANNELS, i + 1))
			exp_printf(&f->text, " %s %s", s->it[i].key, s->it[i].val);
		exp_printf(&f->text, "\n");
	}
	if (exp_next(s, EXP_IFUPDOWN, EO_LINK, 0) >= 0) {
		exp_printf(&f->text, "\tup /sbin/ip link set dev $IFACE");
		for (i = exp_next(s, EXP_IFUPDOWN, EO_LINK, 0); i >= 0;
		     i = exp_next(s, EXP_IFUPDOWN, EO_LINK, i + 1))
			exp_printf(&f->text, " %s %s",
				   exp_map_find(EO_LINK, s->it[i].key)->f[EXP_IFUPDOWN].name,
				   s->it[i].val);
		exp_printf(&f->text, "\n");
	}
	for (i = 0; i < (int)s->n; i++) {
		const struct exp_item *it = &s->it[i];
		const struct exp_fkey *k;

		if (it->fmt != EXP_IFUPDOWN || (it->obj != EO_NAPI && it->obj != EO_BQL))
			continue;
		k = &exp_map_find(it->obj, it->key)->f[EXP_IFUPDOWN];
		ret = exp_value(k, it->obj, it->key, it->val, val, sizeof(val));
		if (ret)
			return ret;
		if (it->obj == EO_NAPI)
			exp_printf(&f->text, "\tup echo %s > /sys/class/net/$IFACE/%s\n", val,
				   k->name);
		else
			exp_printf(
				&f->text,
				"\tup for q in /sys/class/net/$IFACE/queues/tx-*/byte_queue_limits;"
				" do echo %s > $q/%s; done\n",
				val, k->name);
	}
	snprintf(f->check, sizeof(f->check), "ifquery -i FILE %s", s->dev);
	return 0;
}
