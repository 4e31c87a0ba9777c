/* What devset's parts share: the old value journaled before a change, and notes on what it did. */
#include <stdarg.h>
#include <stdio.h>

#include "state/devset_parts.h"
#include "state/journal.h"
#include "util/ethtune.h"

int devset_journal_old(const char *dev, const char *object, const char *key, const char *old,
		       char *err, size_t errlen)
{
	struct journal_entry e = {};
	int ret;

	netns_current_name(e.netns, sizeof(e.netns));
	snprintf(e.dev, sizeof(e.dev), "%s", dev);
	snprintf(e.object, sizeof(e.object), "%s", object);
	snprintf(e.key, sizeof(e.key), "%s", key);
	snprintf(e.old, sizeof(e.old), "%s", old);
	ret = journal_record(&e);
	if (ret && err)
		snprintf(err, errlen, "cannot write the journal %s: %s; nothing changed",
			 journal_path(), journal_strerror(ret));
	return ret;
}

void devset_report(void (*warn)(const char *), const char *fmt, ...)
{
	char msg[256];
	va_list ap;

	if (!warn)
		return;
	va_start(ap, fmt);
	vsnprintf(msg, sizeof(msg), fmt, ap);
	va_end(ap);
	warn(msg);
}
