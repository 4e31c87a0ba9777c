/* What devset's parts share (devset.c, devset_queues.c, sysctl.c): the journal entry, notes. */
#ifndef ETHTUNE_DEVSET_PARTS_H
#define ETHTUNE_DEVSET_PARTS_H

#include <stdbool.h>
#include <stddef.h>

/* The most parameters one change sets. */
#define DEVSET_MAX_CHANGES 64

/* The old value of object's key on dev ("" and "sysctl" for a sysctl), durably, before the change
 * is made; 0, or -errno with one line in err (may be NULL). */
int devset_journal_old(const char *dev, const char *object, const char *key, const char *old,
		       char *err, size_t errlen);
/* One line through warn (may be NULL): what a change did besides what was asked. */
void devset_report(void (*warn)(const char *), const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));
/* `ethtune set DEV napi ...` and `... bql ...`: [SELECTOR] KEY VAL pairs (devset_apply()). */
int devset_set_napi(const char *dev, int argc, char **argv, bool journal, char *err, size_t errlen,
		    void (*warn)(const char *));
int devset_set_bql(const char *dev, int argc, char **argv, bool journal, char *err, size_t errlen,
		   void (*warn)(const char *));

#endif
