/* Profiles matched to a device: its driver, PCI ids, firmware and kernel, and the best match. */
#define _GNU_SOURCE
#include <errno.h>
#include <fnmatch.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <net/if.h>
#include <sys/utsname.h>

#include "knowledge/drvdb.h"
#include "knowledge/profile.h"
#include "knowledge/profile_parts.h"
#include "nl/devobj.h"
#include "nl/nl.h"
#include "out/json_print.h"
#include "util/ethtune.h"

struct pci_ctx {
	unsigned int ven, dev;
	bool hit;
};

static int pci_item(const char *item, void *ctx)
{
	struct pci_ctx *c = ctx;
	unsigned int v;
	int d;

	if (!prof_parse_pci_id(item, &v, &d) && v == c->ven && (d < 0 || (unsigned int)d == c->dev))
		c->hit = true;
	return 0;
}

struct drv_ctx {
	const char *driver;
	bool hit;
};

static int drv_item(const char *item, void *ctx)
{
	struct drv_ctx *c = ctx;
	const struct drv_info *a = drvdb_lookup(item), *b = drvdb_lookup(c->driver);

	if (!strcmp(item, c->driver) || (a && a == b))
		c->hit = true;
	return 0;
}

/* A "pci" or "subsystem" line: any vendor:device item of it must be this device's. */
static int pci_match(const char *v, const struct prof_dev *d, unsigned int vendor,
		     unsigned int device, int weight, int *score)
{
	struct pci_ctx c = { vendor, device, false };

	if (!v)
		return 0;
	if (!d->pci)
		return -1;
	prof_for_items(v, pci_item, &c);
	if (!c.hit)
		return -1;
	*score += weight;
	return 0;
}

int profile_match(const struct profile *p, const struct prof_dev *d)
{
	const char *v;
	int score = 0;

	v = profile_get(p, PS_MATCH, "driver");
	if (v) {
		struct drv_ctx c = { d->driver, false };

		prof_for_items(v, drv_item, &c);
		if (!c.hit)
			return -1;
		score += 1;
	}
	if (pci_match(profile_get(p, PS_MATCH, "pci"), d, d->vendor, d->device, 4, &score) ||
	    pci_match(profile_get(p, PS_MATCH, "subsystem"), d, d->sub_vendor, d->sub_device, 8,
		      &score))
		return -1;
	v = profile_get(p, PS_MATCH, "firmware");
	if (v) {
		if (fnmatch(v, d->fw, 0))
			return -1;
		score += 2;
	}
	v = profile_get(p, PS_MATCH, "kernel");
	if (v) {
		/* every item must hold: ">=5.4 <6.16" */
		if (prof_for_items(v, prof_kernel_item, (void *)d->kernel))
			return -1;
		score += 1;
	}
	return score;
}

static int read_hex(const char *dir, const char *file, unsigned int *out)
{
	char path[PATH_MAX + 32], buf[32];
	int ret;

	snprintf(path, sizeof(path), "%s/%s", dir, file);
	ret = read_file_str(path, buf, sizeof(buf));
	if (ret)
		return ret;
	*out = (unsigned int)strtoul(buf, NULL, 16);
	return 0;
}

/* The PCI function behind a netdev: its device, or the nearest PCI ancestor (virtio). */
static bool pci_dir(const char *dev, char *dir, size_t len)
{
	char path[PATH_MAX], real[PATH_MAX], sub[PATH_MAX + 16], bus[PATH_MAX];
	int depth;

	dev_sysfs_path(path, sizeof(path), dev, "device");
	if (!realpath(path, real))
		return false;
	for (depth = 0; depth < 4; depth++) {
		char *slash;

		snprintf(sub, sizeof(sub), "%s/subsystem", real);
		if (realpath(sub, bus) && !strcmp(strrchr(bus, '/') ?: bus, "/pci")) {
			snprintf(dir, len, "%s", real);
			return true;
		}
		slash = strrchr(real, '/');
		if (!slash || slash == real)
			break;
		*slash = '\0';
	}
	return false;
}

int prof_dev_get(const char *dev, struct prof_dev *d)
{
	struct et_drvinfo di;
	struct nl_sock ns;
	struct utsname u;
	int ret;

	memset(d, 0, sizeof(*d));
	snprintf(d->dev, sizeof(d->dev), "%s", dev);
	ret = nl_open_genl(&ns, "ethtool");
	if (ret)
		return ret;
	ret = drvinfo_get(&ns, dev, &di);
	nl_close(&ns);
	if (ret == -ENODEV)
		return ret;
	/* Devices without driver info (lo) match only pci-less, driver-less profiles: none. */
	snprintf(d->driver, sizeof(d->driver), "%s", ret ? "" : di.driver);
	snprintf(d->fw, sizeof(d->fw), "%s", ret ? "" : di.fw);
	if (!uname(&u))
		snprintf(d->kernel, sizeof(d->kernel), "%.63s", u.release);
	{
		char dir[PATH_MAX];

		d->pci = pci_dir(dev, dir, sizeof(dir)) && !read_hex(dir, "vendor", &d->vendor) &&
			 !read_hex(dir, "device", &d->device);
		if (d->pci) {
			read_hex(dir, "subsystem_vendor", &d->sub_vendor);
			read_hex(dir, "subsystem_device", &d->sub_device);
		}
	}
	return 0;
}

struct best_ctx {
	const struct prof_dev *d;
	struct profile *best;
	int score;
	int n;
	bool show;
};

static int best_cb(struct profile *p, void *ctx)
{
	struct best_ctx *c = ctx;
	int s = profile_match(p, c->d);

	if (s < 0)
		return 0;
	c->n++;
	if (c->show) {
		open_json_object(NULL);
		print_string(PRINT_ANY, "name", "%-24s ", p->name);
		print_int(PRINT_ANY, "score", "score %lld ", s);
		print_string(PRINT_ANY, "kind", "%s", prof_kind(p));
		print_string(PRINT_ANY, "path", "  (%s)\n", p->path);
		close_json_object();
	}
	if (s > c->score) {
		c->score = s;
		*c->best = *p;
	}
	return 0;
}

static void describe_dev(const struct prof_dev *d, char *buf, size_t len)
{
	if (d->pci)
		snprintf(buf, len,
			 "driver %s, pci %04x:%04x, subsystem %04x:%04x, firmware '%s', "
			 "kernel %s",
			 d->driver, d->vendor, d->device, d->sub_vendor, d->sub_device, d->fw,
			 d->kernel);
	else
		snprintf(buf, len, "driver %s, no PCI ids, firmware '%s', kernel %s",
			 d->driver[0] ? d->driver : "unknown", d->fw, d->kernel);
}

int prof_pick(const char *dev, const char *name, bool force, struct profile *p, struct prof_dev *d)
{
	char err[600], desc[256];
	int ret;

	ret = prof_dev_get(dev, d);
	if (ret) {
		et_err("%s: cannot read driver information: %s", dev, strerror(-ret));
		return ret;
	}
	describe_dev(d, desc, sizeof(desc));
	if (name) {
		ret = profile_find(name, p, err, sizeof(err));
		if (ret) {
			et_err("%s", err);
			return ret;
		}
		if (!force && profile_match(p, d) < 0) {
			et_err("profile %s does not match %s (%s); --force to use it anyway",
			       p->name, dev, desc);
			return -ENOENT;
		}
		return 0;
	} else {
		struct best_ctx c = { d, p, -1, 0, false };

		prof_each(best_cb, &c, false);
		if (c.score < 0) {
			et_err("no profile matches %s (%s)", dev, desc);
			return -ENOENT;
		}
	}
	return 0;
}

int prof_device_ready(const char *dev)
{
	if (enter_netns_opt())
		return -EINVAL;
	if (strlen(dev) >= IFNAMSIZ || !if_nametoindex(dev)) {
		report_missing_dev(dev);
		return -ENODEV;
	}
	return 0;
}

int profile_print_matches(const char *dev)
{
	struct profile *best = malloc(sizeof(*best));
	struct prof_dev d;
	struct best_ctx c;
	char desc[256];
	int ret;

	if (!best)
		return -ENOMEM;
	ret = prof_device_ready(dev);
	if (ret) {
		free(best);
		return ret;
	}
	ret = prof_dev_get(dev, &d);
	if (ret) {
		et_err("%s: cannot read driver information: %s", dev, strerror(-ret));
		free(best);
		return ret;
	}
	describe_dev(&d, desc, sizeof(desc));
	c = (struct best_ctx){ &d, best, -1, 0, true };
	new_json_obj(et_opts.json);
	print_string(PRINT_ANY, "dev", "%s: ", dev);
	print_string(PRINT_ANY, "device", "%s\n", desc);
	open_json_array(PRINT_JSON, "matches");
	prof_each(best_cb, &c, false);
	close_json_array(PRINT_JSON, NULL);
	if (c.n)
		print_string(PRINT_ANY, "best", "best: %s\n", best->name);
	delete_json_obj();
	free(best);
	if (!c.n) {
		et_err("no profile matches %s (%s)", dev, desc);
		return -ENOENT;
	}
	return 0;
}
