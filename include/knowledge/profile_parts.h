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
/* s without its leading and trailing white space (the trailing cut in place) */
char *prof_trim(char *s);
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

/* ---- export.c: a profile's settings as the export formats carry them ---- */

/* What a setting sets: the profile's sections, and what --from-device adds. */
enum exp_obj {
	EO_COALESCE,
	EO_RING,
	EO_CHANNELS,
	EO_NAPI,
	EO_BQL,
	EO_LINK,    /* rtnetlink: mtu, txqueuelen, gso-max-size... (--from-device) */
	EO_FEATURE, /* ethtool -K short names: tso, gso... (--from-device) */
	EO_SYSCTL,
	EO_COUNT,
};

/* How a consumer spells a value. */
enum exp_kind {
	EK_NUM,	  /* the number as it is */
	EK_USEC,  /* systemd time span: "16us" (a bare number means seconds) */
	EK_SEC,	  /* systemd time span from seconds: "2s" */
	EK_YESNO, /* on/off as yes/no */
	EK_TF,	  /* on/off as true/false (NetworkManager keyfile) */
	EK_01,	  /* on/off as 1/0 (NetworkManager coalesce-adaptive-*) */
	EK_ONOFF, /* on/off as it is (ethtool's own words) */
	EK_ENUM,  /* an enum name as its index (sysfs: threaded off/on -> 0/1) */
	EK_TEXT,  /* any text (sysctl values) */
};

/* How one format carries one keyword: its own name for it (NULL: it cannot), the value's
 * spelling, the first consumer version that has it ("" unknown: present in the one tested),
 * and the smallest value the consumer takes. */
struct exp_fkey {
	const char *name;
	const char *since;
	unsigned char kind;
	unsigned int min;
};

struct exp_map {
	int obj; /* enum exp_obj */
	const char *key;
	struct exp_fkey f[EXP_NFMT];
};

/* The one table of keyword x format; a keyword absent here cannot be exported at all (the unit
 * test walks the nl parameter tables over it). "*" stands for every [sysctl] name. */
extern const struct exp_map exp_maps[];
extern const unsigned int exp_n_maps;
const struct exp_map *exp_map_find(int obj, const char *key);
const char *exp_obj_name(int obj);
/* The value as the format spells it ("16" -> "16us"); -EINVAL on a value of the wrong kind. */
int exp_value(const struct exp_fkey *k, int obj, const char *key, const char *val, char *out,
	      size_t len);
/* Dotted versions: "252.39-1" against "250"; <0, 0, >0 (an epoch "1:" is skipped). */
int exp_ver_cmp(const char *a, const char *b);

#define EXP_MAX_ITEMS (PROF_MAX_KV + 64)

struct exp_item {
	int obj; /* enum exp_obj */
	char key[64];
	char val[192];
	int fmt; /* the format carrying it in this export, -1 none */
};

/* What is exported: the settings and what the files match. */
struct exp_set {
	char name[64];	  /* profile name, or the device's */
	char source[600]; /* where the settings come from, for the files' first comment */
	char driver[32];  /* [match] driver (first item), "" none */
	bool pci;	  /* [match] pci: vendor, device (-1: any) */
	unsigned int vendor;
	int device;
	char dev[32];		/* --dev / --from-device, "" none */
	char link_file[512];	/* the .link udev applied to dev (ID_NET_LINK_FILE), "" unknown */
	char ver[EXP_NFMT][32]; /* the consumer version exported for ("" newest) */
	unsigned int n;
	struct exp_item it[EXP_MAX_ITEMS];
};

/* A growing text buffer; a writer appends with exp_printf() and the caller checks b->err. */
struct exp_buf {
	char *s;
	size_t len, cap;
	int err;
};
void exp_printf(struct exp_buf *b, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

/* A format's file: a name relative to --out (a directory for tuned's "NAME/tuned.conf"), its
 * text and mode, and the consumer's own check as a command line. */
struct exp_file {
	int fmt;
	char rel[256];
	unsigned int mode;
	struct exp_buf text;
	char check[600];
};

/* One writer per format (export_FMT.c): the items whose fmt is this one, into f. 0 or -errno
 * after one line. */
int exp_write_link(const struct exp_set *s, struct exp_file *f);
int exp_write_nm(const struct exp_set *s, struct exp_file *f);
int exp_write_tuned(const struct exp_set *s, struct exp_file *f);
int exp_write_ifupdown(const struct exp_set *s, struct exp_file *f);
int exp_write_udev(const struct exp_set *s, struct exp_file *f);
int exp_write_tmpfiles(const struct exp_set *s, struct exp_file *f);
int exp_write_sysctl(const struct exp_set *s, struct exp_file *f);

/* The sysfs file under /sys/class/net/DEV/ of a [napi] or [bql] keyword, NULL: none. */
const char *exp_sysfs_file(int obj, const char *key);
/* The file's first comment lines: what it was exported from, and how it is used (how may be
 * NULL). */
void exp_header(const struct exp_set *s, struct exp_file *f, const char *how);
/* The sysfs path of a NAPI or BQL file for the device (--dev) or, by glob, every device of the
 * driver (every TX queue for BQL). -EINVAL when there is neither. */
int exp_sysfs_glob(const struct exp_set *s, int obj, const char *file, char *out, size_t len);
/* The items of s carried by fmt, in order: i from 0, returns the next index or -1. */
int exp_next(const struct exp_set *s, int fmt, int obj, int i);
/* The export object of a profile section (PS_COALESCE -> EO_COALESCE), -1 for none. */
int exp_obj_of_sect(int sect);
/* The profile's name as a file name part: letters, digits, - _ . kept. */
void exp_safe_name(const char *name, char *out, size_t len);

/* ---- persist.c: what the host's configuration files would set on a device ---- */

enum { PERSIST_LINK = 1, PERSIST_NM, PERSIST_SYSCTL };

/* Each value, in ethtune's words, with the file that sets it (the one that wins). */
struct persist {
	unsigned int n;
	int cur_kind;
	struct {
		int obj, kind; /* enum exp_obj, PERSIST_* */
		char key[64];
		char val[192];
		char src[600];
	} e[256];
};
/* The .link udev applied to dev (ID_NET_LINK_FILE and its drop-ins), the NetworkManager
 * connection active on it, and sysctl.d; what cannot be read is left out. Paths are read under
 * $ETHTUNE_PERSIST_ROOT when it is set. */
void persist_load(const char *dev, struct persist *p);

#endif
