/* ethtune profile merge: many hosts' tune results into one measured profile per NIC model. */
#ifndef ETHTUNE_MERGE_H
#define ETHTUNE_MERGE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <time.h>

#include "analysis/sweep.h"

/* The tune results this reads ("schema-version"). */
#define MERGE_RESULT_VERSION 1

enum merge_split { MERGE_SPLIT_NONE, MERGE_SPLIT_FIRMWARE, MERGE_SPLIT_KERNEL };

struct merge_opts {
	char *const *paths; /* DIRs (their *.json, and their subfolders') or files */
	unsigned int npaths;
	const char *out; /* --out DIR: one profile per model; NULL: none written */
	int split;	 /* enum merge_split */
	unsigned int min_hosts;
	double alpha;
	bool allow_partial; /* write the profiles even when an input was skipped */
	const char *html;   /* --html FILE: the report as a page too */
};

/* One tune result: where and by what it was measured, and its sweep. Strings are owned. */
struct merge_host {
	char *path, *host, *dev, *driver, *kernel, *version, *date, *fw, *drv_version, *bus;
	char *param, *fixed;
	int objective;
	bool pci;
	unsigned int vendor, device, sub_vendor, sub_device;
	time_t when;	/* date, else the file's mtime */
	bool dated;	/* when is the result's own date */
	unsigned int n; /* settings measured */
	struct coal_point *p;
	uint32_t *value; /* each setting as tune would set it (the value the device took) */
	/* analysis */
	char key[320];	 /* the model (and --split-by) it belongs to */
	bool superseded; /* a newer result of the same host and device is used */
	int pick;	 /* tune's own pick (index), -1: none */
	bool fallback;	 /* ... made by tune's fallback rule */
	uint64_t accept; /* the settings tune's rule accepts (bit i: p[i]); the pick on fallback */
	/* the outlier test at the model's setting: mean and share of the others' mean, p-values */
	int at; /* index of the model's setting, -1: not measured */
	double share, pval, p_adj;
	bool outlier;
};

enum merge_verdict { MV_PROFILE, MV_FEW_HOSTS, MV_NO_COMMON };

/* The hosts of one model that want one setting (their own pick). */
struct merge_want {
	bool none; /* the rule picked nothing */
	uint32_t value;
	unsigned int n;
};

/* A split that firmware or kernel explains: each version's hosts agree on their own setting. */
struct merge_part {
	const char *what; /* the firmware or kernel version */
	uint32_t value;
	unsigned int n;
};

struct merge_model {
	struct merge_host **h; /* its results (superseded ones left out) */
	unsigned int n, noutliers;
	char name[64];
	enum merge_verdict verdict;
	bool have_value;
	uint32_t value;		 /* the setting (MV_PROFILE) */
	bool cost_irq;		 /* chosen by the mean interrupt rate (else by the delay, or CPU) */
	double cost;		 /* its mean cost over the hosts */
	double mean_mbps;	 /* the non-outlier hosts' mean throughput at it */
	struct merge_want *want; /* MV_NO_COMMON: who wants what */
	unsigned int nwant;
	const char *explained_by; /* "firmware" or "kernel": the split it explains, else NULL */
	struct merge_part *part;
	unsigned int npart;
	char profile[600]; /* the file written, "" none */
};

struct merge_skip {
	char *path, *why;
};

/* Two results of one host and device: the one used and the one left out. */
struct merge_dup {
	const struct merge_host *used, *dropped;
};

struct merge_run {
	struct merge_host *h;
	unsigned int nh, cap;
	struct merge_skip *skip;
	unsigned int nskip, nfiles;
	struct merge_dup *dup;
	unsigned int ndup;
	struct merge_model *m;
	unsigned int nm;
	unsigned int written;
	bool write_held; /* inputs were skipped and not --allow-partial: nothing written */
};

/* ---- merge_load.c ---- */

/* One tune result from text (name: for messages, mtime: its file's). 0, -EINVAL with the
 * reason (no file name) in why, or -ENOMEM. */
int merge_parse(const char *name, const char *text, time_t mtime, struct merge_host *h, char *why,
		size_t whylen);
void merge_host_free(struct merge_host *h);
/* Every *.json of each path (a directory, and its subdirectories one level down; or a file):
 * the tune results into r->h, the others into r->skip. 0, or -errno after one line (a path that
 * cannot be read). */
int merge_load(const struct merge_opts *o, struct merge_run *r);

/* ---- merge.c ---- */

/* The outlier test of one model's hosts at setting value: each host's mean one-flow throughput
 * there against the other hosts' means (stats_pred_below_p), Holm-Bonferroni over the hosts
 * tested at alpha, an outlier only MERGE_MIN_EFFECT below the others' mean. Sets each host's
 * at, share, p, p_adj and outlier; returns the outliers. */
unsigned int merge_outliers(struct merge_host **h, unsigned int n, uint32_t value, double alpha);
/* Load, pair duplicates, group, decide, print (text or JSON), write the profiles. 0 or -errno
 * after one line. */
int merge_run(const struct merge_opts *o, struct merge_run *r);
void merge_run_free(struct merge_run *r);

/* ---- merge_print.c ---- */

/* The report (text, or one JSON document) and, with o->out and unless r->write_held, each
 * model's profile, written whole. 0, or -EIO when a profile could not be written. */
int merge_print(const struct merge_opts *o, struct merge_run *r);

#endif
