/* Profiles exported as a NetworkManager keyfile: [ethtool], [ethernet] mtu, [link]. */
#include <errno.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include "knowledge/profile.h"
#include "knowledge/profile_parts.h"

/* A UUID from the name, so that exporting again gives the same connection. */
static void name_uuid(const char *name, char *out, size_t len)
{
	uint64_t a = 0xcbf29ce484222325ULL, b = 0x84222325cbf29ce4ULL;
	const char *c;

	for (c = name; *c; c++) {
		a = (a ^ (unsigned char)*c) * 0x100000001b3ULL;
		b = (b ^ (unsigned char)*c) * 0x100000001b3ULL + 0x9e3779b97f4a7c15ULL;
	}
	snprintf(out, len, "%08x-%04x-4%03x-%04x-%012llx", (unsigned int)(a >> 32),
		 (unsigned int)(a >> 16) & 0xffff, (unsigned int)a & 0xfff,
		 0x8000 | ((unsigned int)(b >> 48) & 0x3fff),
		 (unsigned long long)(b & 0xffffffffffffULL));
}

/* The keyfile section of a name: "ethernet.mtu" -> ethernet, "coalesce-tx-usecs" -> ethtool. */
static bool in_section(const char *name, const char *sect, const char **key)
{
	const char *dot = strchr(name, '.');

	if (!dot) {
		*key = name;
		return !strcmp(sect, "ethtool");
	}
	*key = dot + 1;
	return strlen(sect) == (size_t)(dot - name) && !strncmp(name, sect, dot - name);
}

int exp_write_nm(const struct exp_set *s, struct exp_file *f)
{
	static const char *const sects[] = { "ethernet", "ethtool", "link" };
	char name[64], uuid[40], val[256];
	unsigned int j;
	int i;

	exp_safe_name(s->name, name, sizeof(name));
	snprintf(f->rel, sizeof(f->rel), "ethtune-%s.nmconnection", name);
	f->mode = 0600; /* NetworkManager ignores a keyfile others can read */
	name_uuid(name, uuid, sizeof(uuid));
	exp_header(s, f,
		   "for /etc/NetworkManager/system-connections/ (mode 0600), or merge its "
		   "[ethtool] lines into the connection active on the device");
	exp_printf(&f->text, "\n[connection]\nid=ethtune-%s\nuuid=%s\ntype=ethernet\n", name, uuid);
	if (s->dev[0])
		exp_printf(&f->text, "interface-name=%s\n", s->dev);
	for (j = 0; j < sizeof(sects) / sizeof(sects[0]); j++) {
		bool head = false;

		for (i = exp_next(s, EXP_NM, -1, 0); i >= 0; i = exp_next(s, EXP_NM, -1, i + 1)) {
			const struct exp_item *it = &s->it[i];
			const struct exp_fkey *k = &exp_map_find(it->obj, it->key)->f[EXP_NM];
			const char *key;
			int ret;

			if (!in_section(k->name, sects[j], &key))
				continue;
			ret = exp_value(k, it->obj, it->key, it->val, val, sizeof(val));
			if (ret)
				return ret;
			if (!head)
				exp_printf(&f->text, "\n[%s]\n", sects[j]);
			head = true;
			exp_printf(&f->text, "%s=%s\n", key, val);
		}
	}
	if (s->driver[0])
		exp_printf(&f->text, "\n[match]\ndriver=%s;\n", s->driver); /* a list */
	snprintf(f->check, sizeof(f->check),
		 "nmcli --offline connection modify connection.id ethtune-%s < FILE (every key "
		 "comes back: the reader drops what it cannot parse)",
		 name);
	return 0;
}
