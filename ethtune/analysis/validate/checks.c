/* validate's checklist: every check in the order it runs and is reported, and their names. */
#include <errno.h>
#include <stdio.h>
#include <string.h>

#include "analysis/validate.h"
#include "analysis/validate_check.h"

#define VAL_CHECK_DECL(id, name) extern const struct val_entry val_check_##name;
VAL_CHECKS(VAL_CHECK_DECL)
#undef VAL_CHECK_DECL

const struct val_entry *const val_checks[VC__N] = {
#define VAL_CHECK_ENTRY(id, name) [VC_##id] = &val_check_##name,
	VAL_CHECKS(VAL_CHECK_ENTRY)
#undef VAL_CHECK_ENTRY
};

const char *val_check_name(unsigned int c)
{
	return c < VC__N ? val_checks[c]->name : NULL;
}

const char *val_check_names(void)
{
	static char buf[256];
	unsigned int c;
	size_t n = 0;

	if (buf[0])
		return buf;
	for (c = 0; c < VC__N; c++)
		n += snprintf(buf + n, sizeof(buf) - n, "%s%s", c ? "," : "", val_checks[c]->name);
	return buf;
}

int val_parse_list(const char *s, unsigned int *mask, char *err, size_t errlen)
{
	const char *p = s;

	*mask = 0;
	for (;;) {
		size_t len = strcspn(p, ",");
		unsigned int c;

		for (c = 0; c < VC__N; c++)
			if (strlen(val_checks[c]->name) == len &&
			    !strncmp(p, val_checks[c]->name, len))
				break;
		if (c == VC__N) {
			snprintf(err, errlen, "unknown check '%.*s' (valid: %s)", (int)len, p,
				 val_check_names());
			return -EINVAL;
		}
		*mask |= 1u << c;
		if (!p[len])
			return 0;
		p += len + 1;
	}
}
