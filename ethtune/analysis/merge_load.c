/* profile merge's inputs: tune results (--json), read from folders of hosts, bad ones named. */
#define _GNU_SOURCE
#include <dirent.h>
#include <errno.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <jansson.h>

#include "analysis/merge.h"
#include "analysis/tune.h"
#include "util/ethtune.h"

static int why_set(char *why, size_t len, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));
static int why_set(char *why, size_t len, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(why, len, fmt, ap);
	va_end(ap);
	return -EINVAL;
}

/* An optional string member, copied ("" counts as absent): 0, -EINVAL (not a string), -ENOMEM. */
static int opt_str(json_t *o, const char *key, char **out, char *why, size_t len)
{
	json_t *v = json_object_get(o, key);

	*out = NULL;
	if (!v)
		return 0;
	if (!json_is_string(v))
		return why_set(why, len, "\"%s\" is not a string", key);
	if (!*json_string_value(v))
		return 0;
	*out = strdup(json_string_value(v));
	return *out ? 0 : -ENOMEM;
}

static double opt_num(json_t *o, const char *key)
{
	json_t *v = json_object_get(o, key);

	return json_is_number(v) ? json_number_value(v) : NAN;
}

/* A pass array into rep (at most COAL_MAX_REPS); its length, 0 when absent or not numbers. */
static unsigned int passes(json_t *o, const char *key, double *rep)
{
	json_t *a = json_object_get(o, key), *x;
	size_t i;

	if (!json_is_array(a) || json_array_size(a) > COAL_MAX_REPS)
		return 0;
	json_array_foreach(a, i, x)
	{
		if (!json_is_number(x))
			return 0;
		rep[i] = json_number_value(x);
	}
	return (unsigned int)json_array_size(a);
}

static int point(json_t *pt, unsigned int i, struct merge_host *h, char *why, size_t len)
{
	struct coal_point *p = &h->p[i];
	char key[48];
	json_t *v;
	unsigned int nm, nc, n50, k;

	if (!json_is_object(pt))
		return why_set(why, len, "coalesce-sweep point %u is not an object", i + 1);
	v = json_object_get(pt, h->param);
	if (!json_is_integer(v) || json_integer_value(v) < 0 || json_integer_value(v) > UINT32_MAX)
		return why_set(why, len, "coalesce-sweep point %u has no %s value", i + 1,
			       h->param);
	p->val[0] = p->got[0] = (uint32_t)json_integer_value(v);
	snprintf(key, sizeof(key), "%s-actual", h->param);
	v = json_object_get(pt, key);
	if (v && (!json_is_integer(v) || json_integer_value(v) < 0 ||
		  json_integer_value(v) > UINT32_MAX))
		return why_set(why, len, "coalesce-sweep point %u: %s is not a count", i + 1, key);
	if (v)
		p->got[0] = (uint32_t)json_integer_value(v);
	/* tune recommends what the device took where it took anything */
	h->value[i] = p->got[0] ? p->got[0] : p->val[0];
	p->mbps = opt_num(pt, "mbps");
	p->mbps_constrained = opt_num(pt, "mbps-constrained");
	if (isnan(p->mbps) || isnan(p->mbps_constrained))
		return why_set(why, len, "coalesce-sweep point %u has no mbps or mbps-constrained",
			       i + 1);
	p->rr_p50_us = opt_num(pt, "rr-p50-us");
	p->rr_p99_us = opt_num(pt, "rr-p99-us");
	p->irq_per_s = opt_num(pt, "irq-per-s");
	p->cpu_per_gbps = opt_num(pt, "cpu-per-gbps");
	p->compl_p50_us = opt_num(pt, "txlat-p50-us");
	p->orphan_frac = opt_num(pt, "orphan-fraction");
	p->rr_tps = NAN;
	/* The passes as tune judged them; a result without them (before ethtune kept them) is
	 * judged by its means alone, as tune judges a single pass. */
	nm = passes(pt, "pass-mbps", p->rep_mbps);
	nc = passes(pt, "pass-mbps-constrained", p->rep_mbpsc);
	n50 = passes(pt, "pass-rr-p50-us", p->rep_p50);
	p->nrep = nm < nc ? nm : nc;
	for (k = n50; k < COAL_MAX_REPS; k++)
		p->rep_p50[k] = NAN;
	return 0;
}

/* "2026-12-08T01:02:03Z" (fraction of a second ignored): 0, or -EINVAL. */
static int rfc3339(const char *s, time_t *t)
{
	struct tm tm = {};
	char *end;

	end = strptime(s, "%Y-%m-%dT%H:%M:%S", &tm);
	if (!end)
		return -EINVAL;
	if (*end == '.')
		for (end++; *end >= '0' && *end <= '9'; end++)
			;
	if (strcmp(end, "Z"))
		return -EINVAL;
	*t = timegm(&tm);
	return 0;
}

static int hex4(json_t *doc, const char *key, unsigned int *out, bool *have, char *why, size_t len)
{
	json_t *v = json_object_get(doc, key);
	char *end;

	if (!v) {
		*have = false;
		return 0;
	}
	if (!json_is_string(v) || strlen(json_string_value(v)) != 4)
		return why_set(why, len, "\"%s\" is not 4 hex digits", key);
	*out = (unsigned int)strtoul(json_string_value(v), &end, 16);
	if (*end)
		return why_set(why, len, "\"%s\" is not 4 hex digits", key);
	*have = true;
	return 0;
}

/* What a document that is not a tune result is, as far as it says. */
static const char *what_else(json_t *doc)
{
	if (json_object_get(doc, "cells"))
		return "an ethtune matrix result";
	if (json_object_get(doc, "coalesce-sweep"))
		return "an ethtune sweep coalesce result";
	if (json_object_get(doc, "tsq-sweep") || json_object_get(doc, "mtu-sweep"))
		return "an ethtune sweep result";
	if (json_object_get(doc, "findings") || json_object_get(doc, "verdict"))
		return "an ethtune diagnose result";
	return "another command's result";
}

static int parse_doc(json_t *doc, time_t mtime, struct merge_host *h, char *why, size_t len)
{
	json_t *v, *sw, *pts;
	bool pci = true, have = false;
	const char *obj;
	unsigned int i;
	int ret;

	if (!json_is_object(doc))
		return why_set(why, len, "not a JSON object");
	v = json_object_get(doc, "schema-version");
	if (!json_is_integer(v))
		return why_set(why, len, "no \"schema-version\" (not an ethtune result)");
	if (json_integer_value(v) != MERGE_RESULT_VERSION)
		return why_set(why, len, "schema-version %lld (this ethtune reads %d)",
			       (long long)json_integer_value(v), MERGE_RESULT_VERSION);
	sw = json_object_get(doc, "coalesce-sweep");
	v = json_object_get(doc, "objective");
	if (!json_is_object(sw) || !json_is_string(v) || !json_object_get(doc, "recommendation"))
		return why_set(why, len, "%s, not an ethtune tune result", what_else(doc));
	obj = json_string_value(v);
	h->objective = tune_objective(obj);
	if (h->objective < 0)
		return why_set(why, len, "unknown objective '%s'", obj);
	ret = opt_str(doc, "param", &h->param, why, len);
	if (!ret)
		ret = opt_str(doc, "device", &h->dev, why, len);
	if (!ret)
		ret = opt_str(doc, "driver", &h->driver, why, len);
	if (!ret)
		ret = opt_str(doc, "host", &h->host, why, len);
	if (!ret)
		ret = opt_str(doc, "kernel", &h->kernel, why, len);
	if (!ret)
		ret = opt_str(doc, "ethtune-version", &h->version, why, len);
	if (!ret)
		ret = opt_str(doc, "date", &h->date, why, len);
	if (!ret)
		ret = opt_str(doc, "firmware-version", &h->fw, why, len);
	if (!ret)
		ret = opt_str(doc, "driver-version", &h->drv_version, why, len);
	if (!ret)
		ret = opt_str(doc, "bus-info", &h->bus, why, len);
	if (!ret)
		ret = opt_str(sw, "fixed", &h->fixed, why, len);
	if (ret)
		return ret;
	if (!h->param || !h->dev || !h->driver)
		return why_set(why, len, "no \"%s\"",
			       !h->param ? "param"
			       : !h->dev ? "device"
					 : "driver");
	if (!h->host)
		return why_set(why, len,
			       "no \"host\": written by an ethtune before tune recorded "
			       "where it ran; run tune again");
	if (strlen(h->param) > 31)
		return why_set(why, len, "\"param\" '%.40s' is too long", h->param);
	if (h->date && rfc3339(h->date, &h->when))
		return why_set(why, len, "\"date\" '%.40s' is not RFC 3339 UTC", h->date);
	h->dated = h->date;
	if (!h->dated)
		h->when = mtime;
	{
		static const char *const keys[4] = { "vendor-id", "device-id",
						     "subsystem-vendor-id", "subsystem-device-id" };
		unsigned int *ids[4] = { &h->vendor, &h->device, &h->sub_vendor, &h->sub_device };

		/* a device is a PCI model when all four ids are there */
		for (i = 0; i < 4; i++) {
			ret = hex4(doc, keys[i], ids[i], &have, why, len);
			if (ret)
				return ret;
			pci &= have;
		}
	}
	h->pci = pci;
	pts = json_object_get(sw, "points");
	if (!json_is_array(pts) || !json_array_size(pts))
		return why_set(why, len, "no measured settings (coalesce-sweep points)");
	if (json_array_size(pts) > COAL_MAX_POINTS)
		return why_set(why, len, "%zu settings (at most %d)", json_array_size(pts),
			       COAL_MAX_POINTS);
	h->n = (unsigned int)json_array_size(pts);
	h->p = calloc(h->n, sizeof(*h->p));
	h->value = calloc(h->n, sizeof(*h->value));
	if (!h->p || !h->value)
		return -ENOMEM;
	for (i = 0; i < h->n; i++) {
		ret = point(json_array_get(pts, i), i, h, why, len);
		if (ret)
			return ret;
	}
	for (i = 0; i < h->n; i++) {
		unsigned int j;

		for (j = 0; j < i; j++)
			if (h->value[i] == h->value[j])
				return why_set(why, len, "%s %u measured twice", h->param,
					       h->value[i]);
	}
	return 0;
}

int merge_parse(const char *name, const char *text, time_t mtime, struct merge_host *h, char *why,
		size_t whylen)
{
	json_error_t je;
	json_t *doc = json_loads(text, JSON_REJECT_DUPLICATES, &je);
	int ret;

	memset(h, 0, sizeof(*h));
	if (!doc)
		return why_set(why, whylen, "not JSON (line %d: %s)", je.line, je.text);
	ret = parse_doc(doc, mtime, h, why, whylen);
	json_decref(doc);
	if (!ret) {
		h->path = strdup(name);
		if (!h->path)
			ret = -ENOMEM;
	}
	if (ret == -ENOMEM)
		snprintf(why, whylen, "%s", strerror(ENOMEM));
	if (ret)
		merge_host_free(h);
	return ret;
}

void merge_host_free(struct merge_host *h)
{
	free(h->path);
	free(h->host);
	free(h->dev);
	free(h->driver);
	free(h->kernel);
	free(h->version);
	free(h->date);
	free(h->fw);
	free(h->drv_version);
	free(h->bus);
	free(h->param);
	free(h->fixed);
	free(h->p);
	free(h->value);
	memset(h, 0, sizeof(*h));
}

static int skip_add(struct merge_run *r, const char *path, const char *why)
{
	struct merge_skip *s = realloc(r->skip, (r->nskip + 1) * sizeof(*s));

	if (!s)
		return -ENOMEM;
	r->skip = s;
	s[r->nskip].path = strdup(path);
	s[r->nskip].why = strdup(why);
	if (!s[r->nskip].path || !s[r->nskip].why) {
		free(s[r->nskip].path);
		free(s[r->nskip].why);
		return -ENOMEM;
	}
	r->nskip++;
	return 0;
}

/* One file: a tune result into r->h, anything else into r->skip. 0 or -ENOMEM. */
static int load_file(struct merge_run *r, const char *path)
{
	char why[300], *text = NULL;
	struct stat st;
	size_t n = 0;
	FILE *f;
	int ret;

	r->nfiles++;
	f = fopen(path, "r");
	if (!f)
		return skip_add(r, path, strerror(errno));
	if (fstat(fileno(f), &st) || !S_ISREG(st.st_mode) || st.st_size > (64 << 20)) {
		fclose(f);
		return skip_add(r, path, "not a regular file of at most 64 MiB");
	}
	text = malloc((size_t)st.st_size + 1);
	if (text)
		n = fread(text, 1, (size_t)st.st_size, f);
	fclose(f);
	if (!text)
		return -ENOMEM;
	text[n] = '\0';
	if (r->nh == r->cap) {
		unsigned int nc = r->cap ? 2 * r->cap : 64;
		struct merge_host *nh = realloc(r->h, nc * sizeof(*nh));

		if (!nh) {
			free(text);
			return -ENOMEM;
		}
		r->h = nh;
		r->cap = nc;
	}
	ret = strlen(text) != n
		      ? why_set(why, sizeof(why), "not JSON (a NUL byte)")
		      : merge_parse(path, text, st.st_mtime, &r->h[r->nh], why, sizeof(why));
	free(text);
	if (ret == -ENOMEM)
		return ret;
	if (ret)
		return skip_add(r, path, why);
	r->nh++;
	return 0;
}

static int json_name(const struct dirent *d)
{
	size_t n = strlen(d->d_name);

	return d->d_name[0] != '.' && n > 5 && !strcmp(d->d_name + n - 5, ".json");
}

static int any_name(const struct dirent *d)
{
	return d->d_name[0] != '.';
}

/* dir's *.json, and with depth its subdirectories' (results/HOST/X.json), sorted by name. */
static int load_dir(struct merge_run *r, const char *dir, bool depth)
{
	struct dirent **ents;
	int n, i, ret = 0;

	n = scandir(dir, &ents, depth ? any_name : json_name, alphasort);
	if (n < 0) {
		ret = -errno;
		et_err("profile merge: %s: %s", dir, strerror(-ret));
		return ret;
	}
	for (i = 0; i < n; i++) {
		char path[4096];
		struct stat st;

		snprintf(path, sizeof(path), "%s/%s", dir, ents[i]->d_name);
		if (!ret && !stat(path, &st)) {
			if (S_ISDIR(st.st_mode) && depth)
				ret = load_dir(r, path, false);
			else if (S_ISREG(st.st_mode) && json_name(ents[i]))
				ret = load_file(r, path);
		}
		free(ents[i]);
	}
	free(ents);
	return ret;
}

int merge_load(const struct merge_opts *o, struct merge_run *r)
{
	unsigned int i;
	int ret = 0;

	for (i = 0; i < o->npaths && !ret; i++) {
		char path[4096];
		size_t len;
		struct stat st;

		snprintf(path, sizeof(path), "%s", o->paths[i]);
		len = strlen(path);
		while (len > 1 && path[len - 1] == '/')
			path[--len] = '\0';
		if (stat(path, &st)) {
			ret = -errno;
			et_err("profile merge: %s: %s", path, strerror(-ret));
		} else if (S_ISDIR(st.st_mode)) {
			ret = load_dir(r, path, true);
		} else {
			ret = load_file(r, path);
		}
	}
	if (ret == -ENOMEM)
		et_err("profile merge: %s", strerror(ENOMEM));
	return ret;
}
