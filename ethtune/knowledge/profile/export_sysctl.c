/* Profiles exported as a sysctl.d file: the profile's [sysctl]. */
#include <errno.h>
#include <stdio.h>
#include <string.h>

#include "knowledge/profile.h"
#include "knowledge/profile_parts.h"

int exp_write_sysctl(const struct exp_set *s, struct exp_file *f)
{
	char name[64];
	int i;

	exp_safe_name(s->name, name, sizeof(name));
	snprintf(f->rel, sizeof(f->rel), "90-ethtune-%s.conf", name);
	exp_header(s, f,
		   "for /etc/sysctl.d/: applied at boot in the initial network namespace "
		   "(a profile applied with --netns sets them in that namespace)");
	for (i = exp_next(s, EXP_SYSCTL, EO_SYSCTL, 0); i >= 0;
	     i = exp_next(s, EXP_SYSCTL, EO_SYSCTL, i + 1))
		exp_printf(&f->text, "%s = %s\n", s->it[i].key, s->it[i].val);
	snprintf(f->check, sizeof(f->check),
		 "systemd-sysctl FILE in a network namespace of its own (no 'Couldn't write')");
	return 0;
}
