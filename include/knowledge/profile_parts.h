/* What the parts of profiles share (ethtune/knowledge/profile/: parse, write, match, apply...). */
#ifndef ETHTUNE_PROFILE_PARTS_H
#define ETHTUNE_PROFILE_PARTS_H

#include <stdbool.h>
#include <stddef.h>

#include "knowledge/profile.h"

struct et_object;

/* ---- parse.c: the format ---- */

/* The ethtool object a section sets (coalesce, ring, channels); NULL for the others. */
const struct et_object *prof_sect_obj(int sect);
/* Check one entry as the parser does: its key in the section, its value. 0, or -EINVAL/-ERANGE
 * with one line in msg. */
int prof_check_value(int sect, const char *key, const char *val, char *msg, size_t len);
/* Calls fn for each comma/space separated item of a list value; stops at the first nonzero. */
int prof_for_items(const char *val, int (*fn)(const char *item, void *ctx), void *ctx);
/* "15b3:1003" or "15b3:*"; vendor and device as hex (*dev -1: any). 0 or -EINVAL. */
int prof_parse_pci_id(const char *s, unsigned int *ven, int *dev);
/* Kernel range item: ">=5.4", ">5.4", "<6.16", "<=6.15", "=6.1", "5.4-6.15". ctx: release to
 * test, or NULL to check syntax only. Returns 0 when satisfied, 1 when not, -EINVAL. */
int prof_kernel_item(const char *item, void *ctx);

/* ---- profile.c: the search path ---- */

typedef int (*prof_cb)(struct profile *p, void *ctx);
/* Every loadable profile in the search path, first directory wins per name. Broken files are
 * reported with one warning line each (warn) and skipped. cb's first nonzero ends it. */
int prof_each(prof_cb cb, void *ctx, bool warn);
/* [provenance] kind: "measured", "documented", or "?". */
const char *prof_kind(const struct profile *p);

/* ---- match.c: which profile for which device ---- */

/* The device named by the command line is there, in --netns's namespace (entered); else one
 * line and -errno. */
int prof_device_ready(const char *dev);
/* Profile name for dev (force: even if it does not match), or the best match (name NULL) into
 * p, and the device as matched into d. 0, or -errno after one line saying why. */
int prof_pick(const char *dev, const char *name, bool force, struct profile *p, struct prof_dev *d);

#endif
