/* Tuning profiles: parse, match to a device, apply (journaled), verify (knowledge/profile/). */
#ifndef ETHTUNE_PROFILE_H
#define ETHTUNE_PROFILE_H

#include <stdbool.h>
#include <stddef.h>

enum prof_sect {
	PS_NONE = -1,
	PS_PROFILE,
	PS_MATCH,
	PS_COALESCE,
	PS_RING,
	PS_CHANNELS,
	PS_NAPI, /* napi-set keywords, applied to every NAPI of the device */
	PS_BQL,	 /* byte queue limits, applied to every TX queue */
	PS_SYSCTL,
	PS_PROVENANCE,
	PS_COUNT,
};

#define PROF_MAX_KV 96

struct prof_kv {
	int sect; /* enum prof_sect */
	int line;
	char key[64];
	char val[192];
};

struct profile {
	char name[64];
	char comment[160]; /* the writer's first line (without "# "); empty: the default */
	char path[512];
	unsigned int n;
	struct prof_kv kv[PROF_MAX_KV];
};

/* What a profile's [match] is compared with. */
struct prof_dev {
	char dev[32];
	char driver[32];
	char fw[64];
	char kernel[64]; /* uname -r */
	bool pci;	 /* ids below are valid */
	unsigned int vendor, device, sub_vendor, sub_device;
};

const char *prof_sect_name(int sect);
/* Parse text (a whole file). name: the profile's name unless [profile] name overrides; origin
 * names the file in errors. Checks section and key names against the tool's parameter tables,
 * values, [match] syntax, [provenance]. On error one line "origin:LINE: ..." in err, -EINVAL. */
int profile_parse(const char *text, const char *name, const char *origin, struct profile *p,
		  char *err, size_t errlen);
int profile_load(const char *path, struct profile *p, char *err, size_t errlen);
/* NAME (searched in the profile path) or a path to a .profile file. */
int profile_find(const char *name, struct profile *p, char *err, size_t errlen);
/* Search path: ./profiles, $ETHTUNE_PROFILE_DIR, /usr/local/share/ethtune/profiles (make
 * install), /usr/share/ethtune/profiles (the Debian package); the first hit per name wins.
 * Returns the number of directories written to dirs (at most max). */
#define PROFILE_DIRS_MAX 4
unsigned int profile_dirs(const char **dirs, unsigned int max);

const char *profile_get(const struct profile *p, int sect, const char *key);
unsigned int profile_count(const struct profile *p, int sect);

/* Building a profile (ethtune tune): start empty with a name, add entries (each checked as the
 * parser would; -EINVAL/-EEXIST/-ENOSPC with one line in err), then save. profile_save()
 * checks what it would write with the parser, then writes it atomically (temp file, fsync,
 * rename); -errno with one line in err. */
void profile_init(struct profile *p, const char *name);
int profile_add(struct profile *p, int sect, const char *key, const char *val, char *err,
		size_t errlen);
int profile_save(const struct profile *p, const char *path, char *err, size_t errlen);
/* The same with notes after the sections: comment lines ("# ...", each ending in a newline),
 * as profile merge writes each host's evidence. */
int profile_save_notes(const struct profile *p, const char *path, const char *notes, char *err,
		       size_t errlen);

/* -1: does not match; otherwise a specificity score (higher is more specific). */
int profile_match(const struct profile *p, const struct prof_dev *d);
/* Fill d from the device (ethtool drvinfo ioctl, sysfs PCI ids, uname). 0 or -errno. */
int prof_dev_get(const char *dev, struct prof_dev *d);

/* ethtune profile: each prints its report (text or JSON) and returns 0, or -errno after one
 * line saying why. */
int profile_print_list(void);
/* Show profile NAME (or path), or, check, load a file and print "FILE: ok". */
int profile_print(const char *arg, bool check);
/* Every profile that matches dev, and the best. -ENOENT: none matches. */
int profile_print_matches(const char *dev);
/* Apply name (NULL: the best match; force: even if it does not match) to dev, all or nothing;
 * dry: only print what would be applied. */
int profile_apply(const char *dev, const char *name, bool force, bool dry);
/* Compare dev's settings with the profile; *drift: how many differ or are unsupported. */
int profile_verify(const char *dev, const char *name, bool force, unsigned int *drift);

/* Export formats: the configuration files that persist a profile (docs/export.md). */
enum exp_fmt {
	EXP_LINK,     /* systemd .link (udev's net_setup_link) */
	EXP_NM,	      /* NetworkManager keyfile */
	EXP_TUNED,    /* tuned profile directory */
	EXP_IFUPDOWN, /* /etc/network/interfaces stanza (Debian ethtool's if-up hooks) */
	EXP_UDEV,     /* udev rules file */
	EXP_TMPFILES, /* tmpfiles.d */
	EXP_SYSCTL,   /* sysctl.d */
	EXP_NFMT,
};
const char *exp_fmt_name(int fmt);
/* The format named s ("systemd-link"), or -1. */
int exp_fmt_by_name(const char *s);

struct exp_opts {
	const char *name;     /* profile NAME or FILE; NULL with from_dev */
	const char *from_dev; /* --from-device: what DEV has now */
	const char *dev;      /* --dev: the device it is for (names, the .link it has today) */
	int fmt;	      /* enum exp_fmt */
	const char *out;      /* --out FILE or DIR; NULL: standard output */
	const char *version;  /* --for-version; NULL: the consumer installed here */
	bool split, allow_partial, dry;
};
/* Write p (or the device) in o->fmt: each setting the format cannot carry is listed on stderr
 * with the formats that can; with o->split those go to the files of other formats. Nothing is
 * written when a setting is left out without split or allow_partial (*dropped > 0, 0 returned)
 * or a value is out of the consumer's range (-ERANGE). Files are written whole or not at all.
 * 0 or -errno after one line saying why. */
int profile_export(const struct exp_opts *o, unsigned int *dropped);

#endif
