/* Profiles exported as a systemd .link file (or a drop-in for the .link a device has today). */
#include <errno.h>
#include <stdio.h>
#include <string.h>

#include "knowledge/profile.h"
#include "knowledge/profile_parts.h"

/* The lines of a .link's [Link] that name a device and set its address: a .link that matches
 * replaces the one that matched before, so ours repeats them. */
static const char *const naming_keys[] = {
	"NamePolicy", "Name", "AlternativeNamesPolicy", "AlternativeName", "MACAddressPolicy",
	"MACAddress", NULL
};

static const char *const default_links[] = { "/etc/systemd/network/99-default.link",
					     "/run/systemd/network/99-default.link",
					     "/usr/lib/systemd/network/99-default.link",
					     "/lib/systemd/network/99-default.link", NULL };

/* Copy the naming lines of file's [Link]; false when the file cannot be read. */
static bool copy_naming(struct exp_file *f, const char *file)
{
	char line[512];
	bool in_link = false;
	FILE *in = fopen(file, "r");
	unsigned int k;

	if (!in)
		return false;
	exp_printf(&f->text, "# naming as %s has it (this file replaces it)\n", file);
	while (fgets(line, sizeof(line), in)) {
		line[strcspn(line, "\n")] = '\0';
		if (line[0] == '[')
			in_link = !strcmp(line, "[Link]");
		else if (in_link)
			for (k = 0; naming_keys[k]; k++)
				if (!strncmp(line, naming_keys[k], strlen(naming_keys[k])) &&
				    line[strlen(naming_keys[k])] == '=')
					exp_printf(&f->text, "%s\n", line);
	}
	fclose(in);
	return true;
}

static bool is_default_link(const char *file)
{
	const char *b = strrchr(file, '/');

	return !strcmp(b ? b + 1 : file, "99-default.link");
}

int exp_write_link(const struct exp_set *s, struct exp_file *f)
{
	bool dropin = s->link_file[0] && !is_default_link(s->link_file);
	char name[64], val[256];
	int i;

	exp_safe_name(s->name, name, sizeof(name));
	if (dropin) {
		const char *b = strrchr(s->link_file, '/');

		if (snprintf(f->rel, sizeof(f->rel), "%s.d/ethtune.conf",
			     b ? b + 1 : s->link_file) >= (int)sizeof(f->rel))
			return -ENAMETOOLONG;
		exp_header(s, f,
			   "a drop-in: /etc/systemd/network/<that .link>.d/, read at the next "
			   "add event (udevadm trigger, reboot)");
	} else {
		snprintf(f->rel, sizeof(f->rel), "50-ethtune-%s.link", name);
		exp_header(s, f,
			   "for /etc/systemd/network/, read at the next add event (udevadm "
			   "trigger, reboot); times carry their unit: a bare number is seconds");
		exp_printf(&f->text, "\n[Match]\n");
		if (s->driver[0])
			exp_printf(&f->text, "Driver=%s\n", s->driver);
		if (s->pci) {
			exp_printf(&f->text, "Property=ID_VENDOR_ID=0x%04x", s->vendor);
			if (s->device >= 0)
				exp_printf(&f->text, " ID_MODEL_ID=0x%04x",
					   (unsigned int)s->device);
			exp_printf(&f->text, "\n");
		}
		if (!s->driver[0] && !s->pci)
			exp_printf(&f->text, "OriginalName=%s\n", s->dev);
	}
	exp_printf(&f->text, "\n[Link]\n");
	if (!dropin) {
		bool copied = s->link_file[0] && copy_naming(f, s->link_file);

		for (i = 0; !copied && default_links[i]; i++)
			copied = copy_naming(f, default_links[i]);
		if (!copied)
			exp_printf(&f->text, "# naming as systemd's 99-default.link has it\n"
					     "NamePolicy=keep kernel database onboard slot path\n"
					     "AlternativeNamesPolicy=database onboard slot path\n"
					     "MACAddressPolicy=persistent\n");
		exp_printf(&f->text, "# ethtune\n");
	}
	for (i = exp_next(s, EXP_LINK, -1, 0); i >= 0; i = exp_next(s, EXP_LINK, -1, i + 1)) {
		const struct exp_item *it = &s->it[i];
		const struct exp_fkey *k = &exp_map_find(it->obj, it->key)->f[EXP_LINK];
		const char *n = k->name;
		int ret = exp_value(k, it->obj, it->key, it->val, val, sizeof(val));

		if (ret)
			return ret;
		/* one ethtool keyword may be two .link keys (tso: TCP and TCP6) */
		while (*n) {
			size_t l = strcspn(n, ",");

			exp_printf(&f->text, "%.*s=%s\n", (int)l, n, val);
			n += l + (n[l] == ',');
		}
	}
	snprintf(f->check, sizeof(f->check),
		 "udevadm test-builtin --action=change net_setup_link /sys/class/net/%s (no "
		 "FILE:LINE: complaint)",
		 s->dev[0] ? s->dev : "DEV");
	return 0;
}
