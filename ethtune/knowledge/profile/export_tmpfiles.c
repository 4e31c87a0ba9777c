/* Profiles exported as a tmpfiles.d file: NAPI and BQL sysfs values written at boot. */
#include <errno.h>
#include <stdio.h>
#include <string.h>

#include "knowledge/profile.h"
#include "knowledge/profile_parts.h"
#include "util/ethtune.h"

int exp_write_tmpfiles(const struct exp_set *s, struct exp_file *f)
{
	char name[64], path[256], val[256];
	int i, ret;

	exp_safe_name(s->name, name, sizeof(name));
	snprintf(f->rel, sizeof(f->rel), "ethtune-%s.conf", name);
	exp_header(s, f,
		   "for /etc/tmpfiles.d/: written at boot (systemd-tmpfiles-setup) to the devices "
		   "there by then; systemd-tmpfiles --create FILE after a device is re-created");
	for (i = exp_next(s, EXP_TMPFILES, -1, 0); i >= 0;
	     i = exp_next(s, EXP_TMPFILES, -1, i + 1)) {
		const struct exp_item *it = &s->it[i];
		const struct exp_fkey *k = &exp_map_find(it->obj, it->key)->f[EXP_TMPFILES];

		if (exp_sysfs_glob(s, it->obj, k->name, path, sizeof(path))) {
			et_err("tmpfiles: a path needs the device or its driver: give --dev");
			return -EINVAL;
		}
		ret = exp_value(k, it->obj, it->key, it->val, val, sizeof(val));
		if (ret)
			return ret;
		exp_printf(&f->text, "w %s - - - - %s\n", path, val);
	}
	snprintf(f->check, sizeof(f->check),
		 "systemd-tmpfiles --create --prefix=/nonexistent FILE (parses every line, "
		 "writes nothing)");
	return 0;
}
