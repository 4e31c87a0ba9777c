/* Profiles exported: what each format carries (export_table.c), checked, and written whole. */
#include <ctype.h>
#include <errno.h>
#include <fcntl.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <net/if.h>
#include <sys/stat.h>

#include "knowledge/profile.h"
#include "knowledge/profile_parts.h"
#include "nl/devobj.h"
#include "nl/netdev.h"
#include "nl/nl.h"
#include "out/json_print.h"
#include "util/ethtune.h"

int exp_ver_cmp(const char *a, const char *b)
{
	const char *c;

	c = strchr(a, ':');
	if (c && c - a < 3)
		a = c + 1;
	return kver_cmp(a, b);
}

int exp_value(const struct exp_fkey *k, int obj, const char *key, const char *val, char *out,
	      size_t len)
{
	bool on = !strcmp(val, "on");
	uint64_t v;

	switch (k->kind) {
	case EK_NUM:
	case EK_USEC:
	case EK_SEC:
		if (parse_u64(val, &v))
			return -EINVAL;
		snprintf(out, len, "%llu%s", (unsigned long long)v,
			 k->kind == EK_USEC  ? "us"
			 : k->kind == EK_SEC ? "s"
					     : "");
		return 0;
	case EK_YESNO:
	case EK_TF:
	case EK_01:
	case EK_ONOFF:
		if (!on && strcmp(val, "off"))
			return -EINVAL;
		snprintf(out, len, "%s",
			 k->kind == EK_YESNO ? (on ? "yes" : "no")
			 : k->kind == EK_TF  ? (on ? "true" : "false")
			 : k->kind == EK_01  ? (on ? "1" : "0")
					     : val);
		return 0;
	case EK_ENUM: {
		const struct et_param *p = obj == EO_NAPI ? napi_param(key) : NULL;

		if (!p || obj_parse_val(p, val, &v))
			return -EINVAL;
		snprintf(out, len, "%llu", (unsigned long long)v);
		return 0;
	}
	default:
		snprintf(out, len, "%s", val);
		return 0;
	}
}

void exp_printf(struct exp_buf *b, const char *fmt, ...)
{
	va_list ap;
	int n;

	if (b->err)
		return;
	for (;;) {
		va_start(ap, fmt);
		n = vsnprintf(b->s ? b->s + b->len : NULL, b->s ? b->cap - b->len : 0, fmt, ap);
		va_end(ap);
		if (n < 0) {
			b->err = -EINVAL;
			return;
		}
		if (b->s && b->len + n < b->cap) {
			b->len += n;
			return;
		}
		{
			size_t cap = (b->cap ? b->cap * 2 : 4096) + n;
			char *s = realloc(b->s, cap);

			if (!s) {
				b->err = -ENOMEM;
				return;
			}
			b->s = s;
			b->cap = cap;
		}
	}
}

int exp_next(const struct exp_set *s, int fmt, int obj, int i)
{
	for (; i >= 0 && (unsigned int)i < s->n; i++)
		if (s->it[i].fmt == fmt && (obj < 0 || s->it[i].obj == obj))
			return i;
	return -1;
}

void exp_safe_name(const char *name, char *out, size_t len)
{
	size_t i;

	for (i = 0; name[i] && i + 1 < len; i++)
		out[i] = isalnum((unsigned char)name[i]) || strchr("-_.", name[i]) ? name[i] : '_';
	out[i] = '\0';
}

void exp_header(const struct exp_set *s, struct exp_file *f, const char *how)
{
	exp_printf(&f->text, "# ethtune profile export --to %s: %s\n", exp_fmt_name(f->fmt),
		   s->source);
	if (how)
		exp_printf(&f->text, "# %s\n", how);
}

int exp_sysfs_glob(const struct exp_set *s, int obj, const char *file, char *out, size_t len)
{
	char base[128];

	if (s->dev[0])
		snprintf(base, sizeof(base), "/sys/class/net/%s", s->dev);
	else if (s->driver[0])
		snprintf(base, sizeof(base), "/sys/bus/*/drivers/%s/*/net/*", s->driver);
	else
		return -EINVAL;
	if (obj == EO_BQL)
		snprintf(out, len, "%s/queues/tx-*/byte_queue_limits/%s", base, file);
	else
		snprintf(out, len, "%s/%s", base, file);
	return 0;
}

/* ---- the settings: a profile's, or the device's ---- */

static int add_item(struct exp_set *s, int obj, const char *key, const char *val)
{
	struct exp_item *it;

	if (s->n >= EXP_MAX_ITEMS)
		return -ENOSPC;
	it = &s->it[s->n++];
	it->obj = obj;
	it->fmt = -1;
	snprintf(it->key, sizeof(it->key), "%s", key);
	snprintf(it->val, sizeof(it->val), "%s", val);
	return 0;
}

int exp_obj_of_sect(int sect)
{
	switch (sect) {
	case PS_COALESCE:
		return EO_COALESCE;
	case PS_RING:
		return EO_RING;
	case PS_CHANNELS:
		return EO_CHANNELS;
	case PS_NAPI:
		return EO_NAPI;
	case PS_BQL:
		return EO_BQL;
	case PS_SYSCTL:
		return EO_SYSCTL;
	default:
		return -1;
	}
}

static void set_from_profile(struct exp_set *s, const struct profile *p)
{
	const char *drv = profile_get(p, PS_MATCH, "driver");
	const char *pci = profile_get(p, PS_MATCH, "pci");
	unsigned int i;

	snprintf(s->name, sizeof(s->name), "%s", p->name);
	snprintf(s->source, sizeof(s->source), "profile %s (%s)", p->name, p->path);
	if (drv) /* the first of a list: the formats match one driver */
		snprintf(s->driver, sizeof(s->driver), "%.*s", (int)strcspn(drv, ", \t"), drv);
	if (pci) {
		char one[16];
		int d = -1;

		snprintf(one, sizeof(one), "%.*s", (int)strcspn(pci, ", \t"), pci);
		/* several ids: only what they share, the vendor, if that */
		s->pci = !prof_parse_pci_id(one, &s->vendor, &d);
		s->device = pci[strcspn(pci, ", \t")] ? -1 : d;
	}
	for (i = 0; i < p->n; i++) {
		int obj = exp_obj_of_sect(p->kv[i].sect);

		if (obj >= 0)
			add_item(s, obj, p->kv[i].key, p->kv[i].val);
	}
}

/* What dev has now: ethtool objects, link limits, offloads, NAPI and BQL files. */
static int set_from_device(struct exp_set *s, const char *dev)
{
	static const struct {
		int obj;
		const struct et_object *o;
	} objs[] = { { EO_COALESCE, &et_coalesce },
		     { EO_RING, &et_rings },
		     { EO_CHANNELS, &et_channels } };
	static const char *const link_keys[] = { "mtu", "txqueuelen", "gso-max-size",
						 "gso-max-segs" };
	static const char *const feats[] = { "sg", "tso", "gso", "gro", "tx", "rx", "lro" };
	static struct et_bitset fs;
	struct prof_dev d;
	struct et_link l;
	struct nl_sock ns;
	char buf[64];
	unsigned int i, k;
	uint64_t v;
	int ret;

	ret = prof_dev_get(dev, &d);
	if (ret) {
		et_err("%s: cannot read driver information: %s", dev, strerror(-ret));
		return ret;
	}
	snprintf(s->name, sizeof(s->name), "%s", d.driver[0] ? d.driver : dev);
	snprintf(s->source, sizeof(s->source), "the settings %s has now", dev);
	snprintf(s->driver, sizeof(s->driver), "%s", d.driver);
	s->pci = d.pci;
	s->vendor = d.vendor;
	s->device = (int)d.device;
	ret = nl_open_genl(&ns, "ethtool");
	if (ret) {
		et_err("cannot open ethtool netlink: %s", strerror(-ret));
		return ret;
	}
	for (i = 0; i < sizeof(objs) / sizeof(objs[0]); i++) {
		struct et_vals cur;

		memset(&cur, 0, sizeof(cur));
		if (obj_get(&ns, objs[i].o, dev, &cur))
			continue;
		for (k = 0; k < objs[i].o->n_params; k++) {
			const struct et_param *p = &objs[i].o->params[k];

			if (p->ro || !vals_has(&cur, p->attr))
				continue;
			obj_format_val(p, cur.v[p->attr], buf, sizeof(buf));
			add_item(s, objs[i].obj, p->key, buf);
		}
	}
	if (!features_get(&ns, dev, &fs))
		for (i = 0; i < sizeof(feats) / sizeof(feats[0]); i++) {
			const char *const *kn = feature_alias(feats[i]);
			bool any = false, on = false, changeable = false;

			for (; kn && *kn; kn++)
				for (k = 0; k < fs.n; k++)
					if (!strcmp(fs.bit[k].name, *kn)) {
						any = true;
						on |= fs.bit[k].active;
						changeable |= fs.bit[k].changeable;
					}
			if (any && changeable)
				add_item(s, EO_FEATURE, feats[i], on ? "on" : "off");
		}
	nl_close(&ns);
	if (!link_get_dev(dev, &l))
		for (i = 0; i < sizeof(link_keys) / sizeof(link_keys[0]); i++) {
			const struct et_param *p = link_param(link_keys[i]);

			if (p && vals_has(&l.v, p->attr)) {
				snprintf(buf, sizeof(buf), "%llu",
					 (unsigned long long)l.v.v[p->attr]);
				add_item(s, EO_LINK, p->key, buf);
			}
		}
	for (i = 0; i < n_napi_params; i++) {
		const char *file = exp_sysfs_file(EO_NAPI, napi_params[i].key);

		if (file && !dev_sysfs_u64(dev, file, &v)) {
			obj_format_val(&napi_params[i], v, buf, sizeof(buf));
			add_item(s, EO_NAPI, napi_params[i].key, buf);
		}
	}
	{
		static const char *const bql[] = { "stall-thrs", "limit-min", "limit-max" };

		for (i = 0; i < 3; i++)
			if (!dev_bql_u64(dev, 0, exp_sysfs_file(EO_BQL, bql[i]), &v)) {
				snprintf(buf, sizeof(buf), "%llu", (unsigned long long)v);
				add_item(s, EO_BQL, bql[i], buf);
			}
	}
	return 0;
}

/* The .link file udev applied to dev, from udev's database. */
static void udev_link_file(const char *dev, char *out, size_t len)
{
	char path[64], line[600], ns[64];
	unsigned int idx = if_nametoindex(dev);
	FILE *f;

	out[0] = '\0';
	/* udev's database is the initial namespace's: an index elsewhere is another device */
	if (netns_current() || netns_current_name(ns, sizeof(ns))[0])
		return;
	snprintf(path, sizeof(path), "/run/udev/data/n%u", idx);
	f = idx ? fopen(path, "r") : NULL;
	if (!f)
		return;
	while (fgets(line, sizeof(line), f))
		if (!strncmp(line, "E:ID_NET_LINK_FILE=", 19)) {
			line[strcspn(line, "\n")] = '\0';
			if (snprintf(out, len, "%s", line + 19) >= (int)len)
				out[0] = '\0'; /* a path too long to read again */
		}
	fclose(f);
}

/* ---- versions: what is installed here ---- */

/* The Debian package whose version a format's names depend on. */
static const char *const fmt_pkg[EXP_NFMT] = {
	[EXP_LINK] = "udev",	    [EXP_NM] = "network-manager", [EXP_TUNED] = "tuned",
	[EXP_IFUPDOWN] = "ethtool", [EXP_UDEV] = "ethtool",	  [EXP_TMPFILES] = "systemd",
	[EXP_SYSCTL] = "systemd",
};

/* The installed version of pkg from dpkg's status file; "" when not installed (or no dpkg). */
static void installed_version(const char *pkg, char *out, size_t len)
{
	const char *status = getenv("ETHTUNE_DPKG_STATUS");
	char line[512];
	bool in = false, installed = false;
	FILE *f = fopen(status && *status ? status : "/var/lib/dpkg/status", "r");

	out[0] = '\0';
	if (!f)
		return;
	while (fgets(line, sizeof(line), f)) {
		line[strcspn(line, "\n")] = '\0';
		if (!line[0]) {
			if (in && installed)
				break;
			in = installed = false;
			out[0] = '\0';
		} else if (!strncmp(line, "Package: ", 9)) {
			in = !strcmp(line + 9, pkg);
		} else if (in && !strncmp(line, "Status: ", 8)) {
			installed = strstr(line, " installed") != NULL;
		} else if (in && !strncmp(line, "Version: ", 9)) {
			if (snprintf(out, len, "%s", line + 9) >= (int)len)
				out[0] = '\0';
		}
	}
	if (!(in && installed))
		out[0] = '\0';
	fclose(f);
}

/* fmt carries m in version ver ("" newest). */
static bool carries(const struct exp_map *m, int fmt, const char *ver)
{
	const struct exp_fkey *k = &m->f[fmt];

	return k->name && (!ver[0] || !k->since[0] || exp_ver_cmp(ver, k->since) >= 0);
}

/* ", fmt" for each format that can carry m, with the version it needs where the one exported
 * for is older ("networkmanager 1.46"). */
static void carriers(const struct exp_set *s, const struct exp_map *m, char *out, size_t len)
{
	size_t off = 0;
	int f;

	out[0] = '\0';
	for (f = 0; m && f < EXP_NFMT; f++) {
		bool now = carries(m, f, s->ver[f]);

		if (m->f[f].name && off < len)
			off += snprintf(out + off, len - off, "%s%s%s%s", off ? ", " : "",
					exp_fmt_name(f), now ? "" : " ", now ? "" : m->f[f].since);
	}
	if (!off)
		snprintf(out, len, "no format");
}

/* With --split, what the main format cannot carry goes to the first of these that can. */
static const int split_order[] = { EXP_TMPFILES, EXP_SYSCTL, EXP_UDEV };

static void assign(struct exp_set *s, int main_fmt, bool split)
{
	unsigned int i, j;

	for (i = 0; i < s->n; i++) {
		const struct exp_map *m = exp_map_find(s->it[i].obj, s->it[i].key);

		s->it[i].fmt = -1;
		if (!m)
			continue;
		if (carries(m, main_fmt, s->ver[main_fmt])) {
			s->it[i].fmt = main_fmt;
			continue;
		}
		for (j = 0; split && j < sizeof(split_order) / sizeof(split_order[0]); j++)
			if (split_order[j] != main_fmt &&
			    carries(m, split_order[j], s->ver[split_order[j]])) {
				s->it[i].fmt = split_order[j];
				break;
			}
	}
}

/* Every carried value spelt as its consumer wants it, and within the consumer's range. */
static int check_values(const struct exp_set *s)
{
	unsigned int i;

	for (i = 0; i < s->n; i++) {
		const struct exp_item *it = &s->it[i];
		const struct exp_map *m;
		const struct exp_fkey *k;
		char out[256];
		uint64_t v;

		if (it->fmt < 0)
			continue;
		m = exp_map_find(it->obj, it->key);
		k = &m->f[it->fmt];
		if (exp_value(k, it->obj, it->key, it->val, out, sizeof(out))) {
			et_err("%s: %s %s: '%s' is not a value %s takes", exp_fmt_name(it->fmt),
			       exp_obj_name(it->obj), it->key, it->val, k->name);
			return -EINVAL;
		}
		if (k->min && !parse_u64(it->val, &v) && v < k->min) {
			et_err("%s: %s %s %s is below %s's minimum for %s=, %u%s; nothing written",
			       exp_fmt_name(it->fmt), exp_obj_name(it->obj), it->key, it->val,
			       it->fmt == EXP_LINK ? "udev" : exp_fmt_name(it->fmt), k->name,
			       k->min,
			       k->kind == EK_USEC  ? "us"
			       : k->kind == EK_SEC ? "s"
						   : "");
			return -ERANGE;
		}
	}
	return 0;
}

/* Known consumer bugs that would undo what the file says. */
static void consumer_warnings(const struct exp_set *s)
{
	/* the version is the one exported for: installed here, or --for-version */
	if (exp_next(s, EXP_TUNED, EO_COALESCE, 0) >= 0 && s->ver[EXP_TUNED][0] &&
	    exp_ver_cmp(s->ver[EXP_TUNED], "2.25") < 0)
		et_warn("tuned %s rejects the whole coalesce= line on a host whose ethtool -c "
			"prints "
			"a 'CQE mode' line (ethtool >= 5.15; tuned issue 726, fixed in 2.25): none "
			"of "
			"its settings would be applied; carry coalescing in a .link or udev file "
			"(--to systemd-link or udev) or use tuned >= 2.25",
			s->ver[EXP_TUNED]);
}

/* Whether any file would be written. */
static bool nf_any(const struct exp_set *s)
{
	unsigned int i;

	for (i = 0; i < s->n; i++)
		if (s->it[i].fmt >= 0)
			return true;
	return false;
}

/* ---- files ---- */

static int (*const writers[EXP_NFMT])(const struct exp_set *, struct exp_file *) = {
	[EXP_LINK] = exp_write_link,	 [EXP_NM] = exp_write_nm,
	[EXP_TUNED] = exp_write_tuned,	 [EXP_IFUPDOWN] = exp_write_ifupdown,
	[EXP_UDEV] = exp_write_udev,	 [EXP_TMPFILES] = exp_write_tmpfiles,
	[EXP_SYSCTL] = exp_write_sysctl,
};

static bool is_dir(const char *p)
{
	struct stat st;

	return !stat(p, &st) && S_ISDIR(st.st_mode);
}

/* Write each file to a temporary name beside its place, then rename them all: whole files or
 * none. */
static int write_files(struct exp_file *fs, unsigned int n, const char *out)
{
	char path[EXP_NFMT][900], tmp[EXP_NFMT][920], dir[sizeof(path[0])];
	bool made[EXP_NFMT] = {};
	unsigned int i;
	int ret = 0;

	for (i = 0; i < n && !ret; i++) {
		char *slash;
		int fd;

		if ((is_dir(out) ? snprintf(path[i], sizeof(path[i]), "%s/%s", out, fs[i].rel)
				 : snprintf(path[i], sizeof(path[i]), "%s", out)) >=
		    (int)sizeof(path[i])) {
			et_err("--out %s: path too long; nothing written", out);
			ret = -ENAMETOOLONG;
			break;
		}
		memcpy(dir, path[i], sizeof(dir)); /* the same size */
		slash = strrchr(dir, '/');
		if (slash && is_dir(out) && strchr(fs[i].rel, '/')) {
			*slash = '\0';
			if (!is_dir(dir)) {
				if (mkdir(dir, 0755)) {
					ret = -errno;
					et_err("cannot create %s: %s; nothing written", dir,
					       strerror(errno));
					break;
				}
				made[i] = true;
			}
		}
		if (snprintf(tmp[i], sizeof(tmp[i]), "%s.tmp%d", path[i], (int)getpid()) >=
		    (int)sizeof(tmp[i])) {
			et_err("--out %s: path too long; nothing written", out);
			ret = -ENAMETOOLONG;
			break;
		}
		fd = open(tmp[i], O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, fs[i].mode);
		if (fd < 0) {
			ret = -errno;
			et_err("cannot write %s: %s; nothing written", path[i], strerror(errno));
			break;
		}
		if (fchmod(fd, fs[i].mode) ||
		    write(fd, fs[i].text.s, fs[i].text.len) != (ssize_t)fs[i].text.len ||
		    fsync(fd)) {
			ret = errno ? -errno : -EIO;
			et_err("cannot write %s: %s; nothing written", path[i], strerror(-ret));
			close(fd);
			unlink(tmp[i]);
			break;
		}
		close(fd);
	}
	if (ret) {
		while (i-- > 0) {
			unlink(tmp[i]);
			if (made[i]) {
				memcpy(dir, path[i], sizeof(dir));
				*strrchr(dir, '/') = '\0';
				rmdir(dir);
			}
		}
		return ret;
	}
	for (i = 0; i < n; i++)
		if (rename(tmp[i], path[i])) {
			ret = -errno;
			et_err("cannot rename %s to %s: %s", tmp[i], path[i], strerror(errno));
			for (; i < n; i++)
				unlink(tmp[i]);
			return ret;
		}
	for (i = 0; i < n; i++) {
		open_json_object(NULL);
		print_string(PRINT_ANY, "format", "%s: ", exp_fmt_name(fs[i].fmt));
		print_string(PRINT_ANY, "path", "wrote %s\n", path[i]);
		print_string(PRINT_ANY, "check", "  check: %s\n", fs[i].check);
		close_json_object();
	}
	return 0;
}

static void print_files(struct exp_file *fs, unsigned int n, bool dry, const char *out)
{
	unsigned int i;

	for (i = 0; i < n; i++) {
		char path[900];

		if (out && is_dir(out))
			snprintf(path, sizeof(path), "%s/%s", out, fs[i].rel);
		else
			snprintf(path, sizeof(path), "%s", out ? out : fs[i].rel);
		open_json_object(NULL);
		print_string(PRINT_ANY, "format",
			     dry     ? "# %s: "
			     : n > 1 ? "# %s: "
				     : NULL,
			     exp_fmt_name(fs[i].fmt));
		print_string(PRINT_ANY, "path",
			     dry     ? "would write %s\n"
			     : n > 1 ? "%s\n"
				     : NULL,
			     path);
		print_string(PRINT_ANY, "text", "%s", fs[i].text.s);
		print_string(PRINT_ANY, "check", dry ? "# check: %s\n" : NULL, fs[i].check);
		close_json_object();
	}
}

/* The one line that lists what is left out, with who could carry it. */
static unsigned int report_dropped(const struct exp_set *s, int main_fmt, bool split, bool allow)
{
	char line[2048], who[160];
	size_t off = 0;
	unsigned int i, n = 0;

	for (i = 0; i < s->n; i++) {
		const struct exp_item *it = &s->it[i];
		const struct exp_map *m;

		if (it->fmt >= 0)
			continue;
		m = exp_map_find(it->obj, it->key);
		carriers(s, m, who, sizeof(who));
		if (off < sizeof(line))
			off += snprintf(line + off, sizeof(line) - off, "%s%s %s (%s)",
					n ? ", " : "", exp_obj_name(it->obj), it->key, who);
		n++;
	}
	if (!n)
		return 0;
	if (allow)
		et_warn("%s%s leaves out %s", exp_fmt_name(main_fmt), split ? " with --split" : "",
			line);
	else
		et_err("%s%s cannot carry %s; nothing written (%s--allow-partial writes the rest)",
		       exp_fmt_name(main_fmt), split ? " with --split" : "", line,
		       split ? "" : "--split carries them in other files, ");
	return n;
}

int profile_export(const struct exp_opts *o, unsigned int *dropped)
{
	struct exp_set *s = calloc(1, sizeof(*s));
	struct profile *p = malloc(sizeof(*p));
	struct exp_file fs[EXP_NFMT];
	unsigned int nf = 0, i;
	char err[600];
	int ret, f;

	*dropped = 0;
	memset(fs, 0, sizeof(fs));
	if (!s || !p) {
		ret = -ENOMEM;
		goto out;
	}
	if ((o->from_dev || o->dev) && enter_netns_opt()) {
		ret = -EINVAL;
		goto out;
	}
	if (o->dev && (strlen(o->dev) >= IFNAMSIZ || !if_nametoindex(o->dev))) {
		ret = report_missing_dev(o->dev);
		goto out;
	}
	if (o->from_dev) {
		if (strlen(o->from_dev) >= IFNAMSIZ || !if_nametoindex(o->from_dev)) {
			ret = report_missing_dev(o->from_dev);
			goto out;
		}
		ret = set_from_device(s, o->from_dev);
		if (ret)
			goto out;
	} else {
		ret = profile_find(o->name, p, err, sizeof(err));
		if (ret) {
			et_err("%s", err);
			goto out;
		}
		set_from_profile(s, p);
	}
	snprintf(s->dev, sizeof(s->dev), "%s", o->dev ? o->dev : o->from_dev ? o->from_dev : "");
	if (s->dev[0])
		udev_link_file(s->dev, s->link_file, sizeof(s->link_file));
	for (f = 0; f < EXP_NFMT; f++)
		installed_version(fmt_pkg[f], s->ver[f], sizeof(s->ver[f]));
	if (o->version)
		snprintf(s->ver[o->fmt], sizeof(s->ver[o->fmt]), "%s", o->version);
	assign(s, o->fmt, o->split);
	if (!o->split && exp_next(s, o->fmt, -1, 0) < 0) {
		et_err("%s carries none of the settings of %s (--split writes them to the formats "
		       "that do)",
		       exp_fmt_name(o->fmt), s->source);
		ret = -EINVAL;
		goto out;
	}
	ret = check_values(s);
	if (ret)
		goto out;
	*dropped = report_dropped(s, o->fmt, o->split, o->allow_partial);
	if (*dropped && !o->allow_partial)
		goto out;
	if (!nf_any(s)) {
		et_err("no format carries any setting of %s", s->source);
		ret = -EINVAL;
		goto out;
	}
	consumer_warnings(s);
	/* the main format first, then the others that carry something */
	for (i = 0; i <= EXP_NFMT; i++) {
		f = i == 0 ? o->fmt : (int)i - 1;
		if ((i && f == o->fmt) || exp_next(s, f, -1, 0) < 0)
			continue;
		fs[nf].fmt = f;
		fs[nf].mode = 0644;
		ret = writers[f](s, &fs[nf]);
		if (!ret && fs[nf].text.err)
			ret = fs[nf].text.err;
		nf++;
		if (ret)
			goto out;
	}
	if (o->out && !o->dry && (nf > 1 || o->fmt == EXP_TUNED) && !is_dir(o->out)) {
		et_err("--out %s: %s; nothing written", o->out,
		       nf > 1 ? "with --split the files go to a directory, and this is not one"
			      : "a tuned profile is a directory, and this is not one");
		ret = -ENOTDIR;
		goto out;
	}
	new_json_obj(et_opts.json);
	print_string(PRINT_JSON, "source", NULL, s->source);
	print_string(PRINT_JSON, "to", NULL, exp_fmt_name(o->fmt));
	print_uint(PRINT_JSON, "left-out", NULL, *dropped);
	open_json_array(PRINT_JSON, "files");
	if (o->out && !o->dry)
		ret = write_files(fs, nf, o->out);
	else
		print_files(fs, nf, o->dry, o->out);
	close_json_array(PRINT_JSON, NULL);
	delete_json_obj();
out:
	for (i = 0; i < EXP_NFMT; i++)
		free(fs[i].text.s);
	free(s);
	free(p);
	return ret;
}
