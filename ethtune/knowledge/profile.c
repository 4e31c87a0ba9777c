/* ethtune profile: per-NIC-model tuning files, matched to a device, applied through the journal. */
#define _GNU_SOURCE
#include <ctype.h>
#include <dirent.h>
#include <errno.h>
#include <fnmatch.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <net/if.h>
#include <sys/utsname.h>
#include <unistd.h>

#include "nl/devobj.h"
#include "nl/netdev.h"
#include "state/devset.h"
#include "knowledge/drvdb.h"
#include "util/ethtune.h"
#include "state/journal.h"
#include "state/undo.h"
#include "out/json_print.h"
#include "nl/nl.h"
#include "knowledge/profile.h"

static const char *const sect_names[PS_COUNT] = {
	[PS_PROFILE] = "profile",	[PS_MATCH] = "match",
	[PS_COALESCE] = "coalesce",	[PS_RING] = "ring",
	[PS_CHANNELS] = "channels",	[PS_NAPI] = "napi",
	[PS_BQL] = "bql",		[PS_SYSCTL] = "sysctl",
	[PS_PROVENANCE] = "provenance",
};

static const char *const match_keys[] = {
	"driver", "pci", "subsystem", "firmware", "kernel", NULL
};
static const char *const prov_keys[] = { "kind", "source", "host", "date",   "objective",
					 "tool", "note",   "rule", "kernel", NULL };
static const char *const profile_keys[] = { "name", "description", NULL };

const char *prof_sect_name(int sect)
{
	return sect >= 0 && sect < PS_COUNT ? sect_names[sect] : "?";
}

static const struct et_object *sect_obj(int sect)
{
	switch (sect) {
	case PS_COALESCE:
		return &et_coalesce;
	case PS_RING:
		return &et_rings;
	case PS_CHANNELS:
		return &et_channels;
	default:
		return NULL;
	}
}

/* The ethtune set object name for a section. */
static const char *sect_setname(int sect)
{
	static const char *const names[PS_COUNT] = {
		[PS_COALESCE] = "coalesce", [PS_RING] = "ring", [PS_CHANNELS] = "channels",
		[PS_NAPI] = "napi",	    [PS_BQL] = "bql",
	};

	return sect >= 0 && sect < PS_COUNT ? names[sect] : NULL;
}

static bool in_list(const char *const *l, const char *s)
{
	for (; *l; l++)
		if (!strcmp(*l, s))
			return true;
	return false;
}

static char *trim(char *s)
{
	char *e;

	while (isspace((unsigned char)*s))
		s++;
	e = s + strlen(s);
	while (e > s && isspace((unsigned char)e[-1]))
		*--e = '\0';
	return s;
}

/* "15b3:1003" or "15b3:*"; vendor and device as hex. */
static int parse_pci_id(const char *s, unsigned int *ven, int *dev)
{
	char *end;
	unsigned long v;

	v = strtoul(s, &end, 16);
	if (end - s != 4 || *end != ':' || v > 0xffff)
		return -EINVAL;
	s = end + 1;
	if (!strcmp(s, "*")) {
		*ven = v;
		*dev = -1;
		return 0;
	}
	*ven = v;
	v = strtoul(s, &end, 16);
	if (end - s != 4 || *end || v > 0xffff)
		return -EINVAL;
	*dev = (int)v;
	return 0;
}

/* Calls fn for each comma/space separated item of a list value; stops at the first nonzero. */
static int for_items(const char *val, int (*fn)(const char *item, void *ctx), void *ctx)
{
	char buf[192], *save, *tok;
	int ret;

	snprintf(buf, sizeof(buf), "%s", val);
	for (tok = strtok_r(buf, ", \t", &save); tok; tok = strtok_r(NULL, ", \t", &save)) {
		ret = fn(tok, ctx);
		if (ret)
			return ret;
	}
	return 0;
}

static int check_pci_item(const char *item, void *ctx __attribute__((unused)))
{
	unsigned int v;
	int d;

	return parse_pci_id(item, &v, &d);
}

/* Kernel range item: ">=5.4", ">5.4", "<6.16", "<=6.15", "=6.1", "5.4-6.15". ctx: release to
 * test, or NULL to check syntax only. Returns 0 when satisfied, 1 when not, -EINVAL. */
static int kernel_item(const char *item, void *ctx)
{
	const char *rel = ctx, *v = item;
	int op = 0; /* 0 =, 1 >=, 2 >, 3 <=, 4 < */
	const char *dash;
	int c;

	if (!strncmp(v, ">=", 2))
		op = 1, v += 2;
	else if (!strncmp(v, "<=", 2))
		op = 3, v += 2;
	else if (*v == '>')
		op = 2, v++;
	else if (*v == '<')
		op = 4, v++;
	else if (*v == '=')
		v++;
	if (!isdigit((unsigned char)*v))
		return -EINVAL;
	dash = op == 0 ? strchr(v, '-') : NULL;
	if (dash) {
		if (!isdigit((unsigned char)dash[1]))
			return -EINVAL;
		if (!rel)
			return 0;
		return kver_cmp(rel, v) >= 0 && kver_cmp(rel, dash + 1) <= 0 ? 0 : 1;
	}
	{
		const char *p;

		for (p = v; *p; p++)
			if (!isdigit((unsigned char)*p) && *p != '.')
				return -EINVAL;
	}
	if (!rel)
		return 0;
	c = kver_cmp(rel, v);
	switch (op) {
	case 1:
		return c >= 0 ? 0 : 1;
	case 2:
		return c > 0 ? 0 : 1;
	case 3:
		return c <= 0 ? 0 : 1;
	case 4:
		return c < 0 ? 0 : 1;
	default:
		return c == 0 ? 0 : 1;
	}
}

static int check_value(int sect, const char *key, const char *val, char *msg, size_t len)
{
	const struct et_object *obj = sect_obj(sect);
	const struct et_param *p;
	uint64_t v;
	const char *c;

	if (obj) {
		p = obj_param(obj, key);
		if (!p || p->ro) {
			snprintf(msg, len, "unknown %s parameter '%s'", obj->name, key);
			return -EINVAL;
		}
		if (obj_parse_val(p, val, &v)) {
			snprintf(msg, len, "invalid value '%s' for %s%s", val, key,
				 p->type == ET_BOOL   ? " (expected on or off)"
				 : p->type == ET_ENUM ? ""
						      : " (expected a number)");
			return -EINVAL;
		}
		if (v < p->min) {
			snprintf(msg, len, "%s %s is below the minimum %llu", key, val,
				 (unsigned long long)p->min);
			return -ERANGE;
		}
		return 0;
	}
	switch (sect) {
	case PS_NAPI:
	case PS_BQL:
		/* the keywords of ethtune set DEV napi|bql, for every NAPI or TX queue */
		p = sect == PS_NAPI ? napi_param(key) : devset_bql_param(key);
		if (!p) {
			snprintf(msg, len, "unknown %s parameter '%s'", prof_sect_name(sect), key);
			return -EINVAL;
		}
		if (obj_parse_val(p, val, &v)) {
			snprintf(msg, len, "invalid value '%s' for %s%s", val, key,
				 p->type == ET_ENUM ? " (expected on or off)"
						    : " (expected a number)");
			return -EINVAL;
		}
		if (p->max && v > p->max) {
			snprintf(msg, len, "%s %s is above the maximum %llu", key, val,
				 (unsigned long long)p->max);
			return -ERANGE;
		}
		return 0;
	case PS_PROFILE:
		if (!in_list(profile_keys, key))
			goto unknown;
		return 0;
	case PS_SYSCTL:
		if (strncmp(key, "net.", 4) || strstr(key, "..") || key[strlen(key) - 1] == '.')
			goto bad_sysctl;
		for (c = key; *c; c++)
			if (!isalnum((unsigned char)*c) && *c != '.' && *c != '_' && *c != '-')
				goto bad_sysctl;
		for (c = val; *c; c++)
			if (!isprint((unsigned char)*c))
				break;
		if (*c) {
			snprintf(msg, len, "invalid value for %s", key);
			return -EINVAL;
		}
		return 0;
	case PS_MATCH:
		if (!in_list(match_keys, key))
			goto unknown;
		if ((!strcmp(key, "pci") || !strcmp(key, "subsystem")) &&
		    for_items(val, check_pci_item, NULL)) {
			snprintf(msg, len,
				 "%s '%s': expected VENDOR:DEVICE in hex (15b3:1003, 8086:*)", key,
				 val);
			return -EINVAL;
		}
		if (!strcmp(key, "kernel") && for_items(val, kernel_item, NULL)) {
			snprintf(msg, len,
				 "kernel '%s': expected a range like '>=5.4 <6.16' or "
				 "'5.4-6.15'",
				 val);
			return -EINVAL;
		}
		return 0;
	case PS_PROVENANCE:
		if (!in_list(prov_keys, key))
			goto unknown;
		if (!strcmp(key, "kind") && strcmp(val, "measured") && strcmp(val, "documented")) {
			snprintf(msg, len, "kind '%s': expected measured or documented", val);
			return -EINVAL;
		}
		if (!strcmp(key, "objective") && strcmp(val, "throughput") &&
		    strcmp(val, "latency") && strcmp(val, "cpu") && strcmp(val, "balanced") &&
		    strcmp(val, "none")) {
			snprintf(msg, len,
				 "objective '%s': expected throughput, latency, cpu, balanced "
				 "or none",
				 val);
			return -EINVAL;
		}
		return 0;
	}
unknown:
	snprintf(msg, len, "unknown key '%s' in [%s]", key, prof_sect_name(sect));
	return -EINVAL;
bad_sysctl:
	snprintf(msg, len, "'%s' is not a network sysctl name (net.ipv4.tcp_limit_output_bytes)",
		 key);
	return -EINVAL;
}

static bool valid_name(const char *s)
{
	if (!*s || strlen(s) > 60)
		return false;
	for (; *s; s++)
		if (!isalnum((unsigned char)*s) && *s != '-' && *s != '_' && *s != '.')
			return false;
	return true;
}

const char *profile_get(const struct profile *p, int sect, const char *key)
{
	unsigned int i;

	for (i = 0; i < p->n; i++)
		if (p->kv[i].sect == sect && !strcmp(p->kv[i].key, key))
			return p->kv[i].val;
	return NULL;
}

unsigned int profile_count(const struct profile *p, int sect)
{
	unsigned int i, n = 0;

	for (i = 0; i < p->n; i++)
		n += p->kv[i].sect == sect;
	return n;
}

int profile_parse(const char *text, const char *name, const char *origin, struct profile *p,
		  char *err, size_t errlen)
{
	const char *s = text, *kind, *nm;
	int sect = PS_NONE, line = 0;
	char msg[300];

	memset(p, 0, sizeof(*p));
	snprintf(p->name, sizeof(p->name), "%s", name ? name : "");
	while (*s) {
		char buf[512], *l, *eq, *key, *val;
		size_t n = strcspn(s, "\n");
		int i;

		line++;
		if (n >= sizeof(buf)) {
			snprintf(err, errlen, "%s:%d: line too long", origin, line);
			return -EINVAL;
		}
		memcpy(buf, s, n);
		buf[n] = '\0';
		s += n + (s[n] == '\n');
		l = trim(buf);
		if (!*l || *l == '#' || *l == ';')
			continue;
		if (*l == '[') {
			char *e = strchr(l, ']');

			if (!e || *trim(e + 1)) {
				snprintf(err, errlen, "%s:%d: malformed section header '%s'",
					 origin, line, l);
				return -EINVAL;
			}
			*e = '\0';
			l = trim(l + 1);
			for (i = 0, sect = PS_NONE; i < PS_COUNT; i++)
				if (!strcmp(l, sect_names[i]))
					sect = i;
			if (sect == PS_NONE) {
				snprintf(err, errlen,
					 "%s:%d: unknown section [%s] (expected profile, "
					 "match, coalesce, ring, channels, napi, bql, sysctl, "
					 "provenance)",
					 origin, line, l);
				return -EINVAL;
			}
			continue;
		}
		eq = strchr(l, '=');
		if (!eq) {
			snprintf(err, errlen, "%s:%d: expected 'key = value', got '%s'", origin,
				 line, l);
			return -EINVAL;
		}
		*eq = '\0';
		key = trim(l);
		val = trim(eq + 1);
		/* trailing comment: " # ..." */
		for (i = 0; val[i]; i++)
			if (val[i] == '#' && i && isspace((unsigned char)val[i - 1])) {
				val[i] = '\0';
				val = trim(val);
				break;
			}
		if (sect == PS_NONE) {
			snprintf(err, errlen, "%s:%d: '%s' outside any section", origin, line, key);
			return -EINVAL;
		}
		if (!*key || !*val) {
			snprintf(err, errlen, "%s:%d: empty %s", origin, line,
				 *key ? "value" : "key");
			return -EINVAL;
		}
		if (strlen(key) >= sizeof(p->kv[0].key) || strlen(val) >= sizeof(p->kv[0].val)) {
			snprintf(err, errlen, "%s:%d: key or value too long", origin, line);
			return -EINVAL;
		}
		if (check_value(sect, key, val, msg, sizeof(msg))) {
			snprintf(err, errlen, "%s:%d: %s", origin, line, msg);
			return -EINVAL;
		}
		if (profile_get(p, sect, key)) {
			snprintf(err, errlen, "%s:%d: %s given twice in [%s]", origin, line, key,
				 prof_sect_name(sect));
			return -EINVAL;
		}
		if (p->n >= PROF_MAX_KV) {
			snprintf(err, errlen, "%s:%d: too many entries", origin, line);
			return -EINVAL;
		}
		p->kv[p->n].sect = sect;
		p->kv[p->n].line = line;
		snprintf(p->kv[p->n].key, sizeof(p->kv[0].key), "%s", key);
		snprintf(p->kv[p->n].val, sizeof(p->kv[0].val), "%s", val);
		p->n++;
	}
	nm = profile_get(p, PS_PROFILE, "name");
	if (nm) {
		if (!valid_name(nm)) {
			snprintf(err, errlen,
				 "%s: invalid profile name '%s' (letters, digits, - _ .)", origin,
				 nm);
			return -EINVAL;
		}
		memmove(p->name, nm, strlen(nm) + 1);
	}
	if (!p->name[0]) {
		snprintf(err, errlen, "%s: profile has no name", origin);
		return -EINVAL;
	}
	if (!profile_get(p, PS_MATCH, "driver") && !profile_get(p, PS_MATCH, "pci")) {
		snprintf(err, errlen,
			 "%s: [match] needs driver or pci; this profile would match "
			 "nothing",
			 origin);
		return -EINVAL;
	}
	if (!profile_count(p, PS_COALESCE) && !profile_count(p, PS_RING) &&
	    !profile_count(p, PS_CHANNELS) && !profile_count(p, PS_NAPI) &&
	    !profile_count(p, PS_BQL) && !profile_count(p, PS_SYSCTL)) {
		snprintf(err, errlen,
			 "%s: no settings ([coalesce], [ring], [channels], [napi], [bql] or "
			 "[sysctl])",
			 origin);
		return -EINVAL;
	}
	kind = profile_get(p, PS_PROVENANCE, "kind");
	if (!kind) {
		snprintf(err, errlen, "%s: [provenance] needs kind = measured or documented",
			 origin);
		return -EINVAL;
	}
	if (!strcmp(kind, "documented") && !profile_get(p, PS_PROVENANCE, "source")) {
		snprintf(err, errlen, "%s: documented profile needs [provenance] source", origin);
		return -EINVAL;
	}
	if (!strcmp(kind, "measured") &&
	    (!profile_get(p, PS_PROVENANCE, "host") || !profile_get(p, PS_PROVENANCE, "date") ||
	     !profile_get(p, PS_PROVENANCE, "objective"))) {
		snprintf(err, errlen,
			 "%s: measured profile needs [provenance] host, date and "
			 "objective",
			 origin);
		return -EINVAL;
	}
	return 0;
}

int profile_load(const char *path, struct profile *p, char *err, size_t errlen)
{
	char *text, name[64];
	const char *base = strrchr(path, '/');
	FILE *f = fopen(path, "r");
	long len;
	size_t n;
	int ret;

	if (!f) {
		ret = -errno;
		snprintf(err, errlen, "cannot read profile %s: %s", path, strerror(errno));
		return ret;
	}
	fseek(f, 0, SEEK_END);
	len = ftell(f);
	rewind(f);
	if (len < 0 || len > 1 << 20) {
		fclose(f);
		snprintf(err, errlen, "profile %s is too large", path);
		return -EFBIG;
	}
	text = malloc(len + 1);
	if (!text) {
		fclose(f);
		return -ENOMEM;
	}
	n = fread(text, 1, len, f);
	text[n] = '\0';
	fclose(f);
	base = base ? base + 1 : path;
	snprintf(name, sizeof(name), "%s", base);
	if (strlen(name) > 8 && !strcmp(name + strlen(name) - 8, ".profile"))
		name[strlen(name) - 8] = '\0';
	ret = profile_parse(text, name, path, p, err, errlen);
	free(text);
	if (!ret)
		snprintf(p->path, sizeof(p->path), "%s", path);
	return ret;
}

unsigned int profile_dirs(const char **dirs, unsigned int max)
{
	const char *env = getenv("ETHTUNE_PROFILE_DIR");
	unsigned int n = 0;

	if (n < max)
		dirs[n++] = "./profiles";
	if (env && *env && n < max)
		dirs[n++] = env;
	if (n < max)
		dirs[n++] = "/usr/local/share/ethtune/profiles";
	return n;
}

int profile_find(const char *name, struct profile *p, char *err, size_t errlen)
{
	const char *dirs[4];
	unsigned int n = profile_dirs(dirs, 4), i;
	char path[600];

	if (strchr(name, '/'))
		return profile_load(name, p, err, errlen);
	if (!valid_name(name)) {
		snprintf(err, errlen, "invalid profile name '%s'", name);
		return -EINVAL;
	}
	for (i = 0; i < n; i++) {
		snprintf(path, sizeof(path), "%s/%s.profile", dirs[i], name);
		if (!access(path, R_OK))
			return profile_load(path, p, err, errlen);
	}
	snprintf(err, errlen,
		 "no profile '%s' (searched ./profiles, $ETHTUNE_PROFILE_DIR, "
		 "/usr/local/share/ethtune/profiles)",
		 name);
	return -ENOENT;
}

/* ---- writing ---- */

void profile_init(struct profile *p, const char *name)
{
	memset(p, 0, sizeof(*p));
	snprintf(p->name, sizeof(p->name), "%s", name ? name : "");
}

int profile_add(struct profile *p, int sect, const char *key, const char *val, char *err,
		size_t errlen)
{
	char msg[300];
	int ret;

	if (sect < 0 || sect >= PS_COUNT || !key || !val || !*key || !*val) {
		snprintf(err, errlen, "invalid profile entry");
		return -EINVAL;
	}
	if (strlen(key) >= sizeof(p->kv[0].key) || strlen(val) >= sizeof(p->kv[0].val) ||
	    strpbrk(key, "\n=#[") || strpbrk(val, "\n#")) {
		snprintf(err, errlen, "invalid profile entry '%s = %s'", key, val);
		return -EINVAL;
	}
	ret = check_value(sect, key, val, msg, sizeof(msg));
	if (ret) {
		snprintf(err, errlen, "%s", msg);
		return ret;
	}
	if (profile_get(p, sect, key)) {
		snprintf(err, errlen, "%s given twice in [%s]", key, prof_sect_name(sect));
		return -EEXIST;
	}
	if (p->n >= PROF_MAX_KV) {
		snprintf(err, errlen, "too many profile entries");
		return -ENOSPC;
	}
	p->kv[p->n].sect = sect;
	p->kv[p->n].line = 0;
	snprintf(p->kv[p->n].key, sizeof(p->kv[0].key), "%s", key);
	snprintf(p->kv[p->n].val, sizeof(p->kv[0].val), "%s", val);
	p->n++;
	return 0;
}

/* The text of p as profile_parse() reads it; -ENOSPC when len is too small. */
static int profile_format(const struct profile *p, char *buf, size_t len)
{
	size_t off = 0;
	int s;
	unsigned int i;

#define OUT(...)                                                                                   \
	do {                                                                                       \
		int n_ = snprintf(buf + off, off < len ? len - off : 0, __VA_ARGS__);              \
		off += n_ > 0 ? (size_t)n_ : 0;                                                    \
	} while (0)
	if (p->comment[0])
		OUT("# %s\n", p->comment);
	else
		OUT("# ethtune profile %s (format: profiles/README.md)\n", p->name);
	for (s = 0; s < PS_COUNT; s++) {
		bool named = s == PS_PROFILE && !profile_get(p, PS_PROFILE, "name") && p->name[0];

		if (!profile_count(p, s) && !named)
			continue;
		OUT("\n[%s]\n", sect_names[s]);
		if (named)
			OUT("name = %s\n", p->name);
		for (i = 0; i < p->n; i++)
			if (p->kv[i].sect == s)
				OUT("%s = %s\n", p->kv[i].key, p->kv[i].val);
	}
#undef OUT
	return off < len ? 0 : -ENOSPC;
}

int profile_save(const struct profile *p, const char *path, char *err, size_t errlen)
{
	char *buf = malloc(65536), tmp[600];
	struct profile *chk = malloc(sizeof(*chk));
	FILE *f;
	int ret;

	if (!buf || !chk) {
		free(buf);
		free(chk);
		return -ENOMEM;
	}
	ret = profile_format(p, buf, 65536);
	if (!ret)
		ret = profile_parse(buf, p->name, path, chk, err, errlen);
	if (ret)
		goto out;
	snprintf(tmp, sizeof(tmp), "%s.tmp%d", path, (int)getpid());
	f = fopen(tmp, "w");
	if (!f) {
		ret = -errno;
		snprintf(err, errlen, "cannot write %s: %s", tmp, strerror(errno));
		goto out;
	}
	fputs(buf, f);
	if (fflush(f) || fsync(fileno(f))) {
		ret = -errno;
		fclose(f);
		unlink(tmp);
		snprintf(err, errlen, "cannot write %s: %s", tmp, strerror(-ret));
		goto out;
	}
	fclose(f);
	if (rename(tmp, path)) {
		ret = -errno;
		unlink(tmp);
		snprintf(err, errlen, "cannot rename %s to %s: %s", tmp, path, strerror(-ret));
	}
out:
	free(buf);
	free(chk);
	return ret;
}

/* ---- matching ---- */

struct pci_ctx {
	unsigned int ven, dev;
	bool hit;
};

static int pci_item(const char *item, void *ctx)
{
	struct pci_ctx *c = ctx;
	unsigned int v;
	int d;

	if (!parse_pci_id(item, &v, &d) && v == c->ven && (d < 0 || (unsigned int)d == c->dev))
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
	for_items(v, pci_item, &c);
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

		for_items(v, drv_item, &c);
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
		if (for_items(v, kernel_item, (void *)d->kernel))
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

/* ---- listing ---- */

typedef int (*prof_cb)(struct profile *p, void *ctx);

static int cmp_str(const void *a, const void *b)
{
	return strcmp(*(char *const *)a, *(char *const *)b);
}

/* Every loadable profile in the search path, first directory wins per name. Broken files are
 * reported with one warning line each and skipped. */
static int profile_each(prof_cb cb, void *ctx, bool warn)
{
	const char *dirs[4];
	unsigned int nd = profile_dirs(dirs, 4), i;
	char seen[256][64];
	unsigned int nseen = 0;
	struct profile *p = malloc(sizeof(*p));
	int ret = 0;

	if (!p)
		return -ENOMEM;
	for (i = 0; i < nd && !ret; i++) {
		DIR *d = opendir(dirs[i]);
		struct dirent *e;
		char *names[512];
		unsigned int nn = 0, j, k;

		if (!d)
			continue;
		while ((e = readdir(d)) && nn < 512) {
			size_t l = strlen(e->d_name);

			if (l > 8 && !strcmp(e->d_name + l - 8, ".profile"))
				names[nn++] = strdup(e->d_name);
		}
		closedir(d);
		qsort(names, nn, sizeof(names[0]), cmp_str);
		for (j = 0; j < nn; j++) {
			char path[600], err[512];
			bool dup = false;

			snprintf(path, sizeof(path), "%s/%s", dirs[i], names[j]);
			if (ret)
				break;
			if (profile_load(path, p, err, sizeof(err))) {
				if (warn)
					et_warn("%s", err);
				continue;
			}
			for (k = 0; k < nseen; k++)
				dup |= !strcmp(seen[k], p->name);
			if (dup)
				continue;
			if (nseen < 256)
				snprintf(seen[nseen++], sizeof(seen[0]), "%s", p->name);
			ret = cb(p, ctx);
		}
		for (j = 0; j < nn; j++)
			free(names[j]);
	}
	free(p);
	return ret;
}

static const char *prof_kind(const struct profile *p)
{
	const char *k = profile_get(p, PS_PROVENANCE, "kind");

	return k ? k : "?";
}

static int list_cb(struct profile *p, void *ctx)
{
	const char *drv = profile_get(p, PS_MATCH, "driver"),
		   *pci = profile_get(p, PS_MATCH, "pci");

	open_json_object(NULL);
	print_string(PRINT_ANY, "name", "%-24s ", p->name);
	print_string(PRINT_ANY, "driver", "%-14s ", drv ? drv : "-");
	if (pci)
		print_string(PRINT_ANY, "pci", "pci %s ", pci);
	print_string(PRINT_ANY, "kind", "%s", prof_kind(p));
	print_bool(PRINT_ANY, "unmeasured",
		   strcmp(prof_kind(p), "measured") ? ", unmeasured" : NULL,
		   strcmp(prof_kind(p), "measured") != 0);
	print_string(PRINT_ANY, "path", "  (%s)\n", p->path);
	close_json_object();
	(*(int *)ctx)++;
	return 0;
}

static void show_profile(const struct profile *p)
{
	int s;
	unsigned int i;

	print_string(PRINT_ANY, "name", "profile %s", p->name);
	print_string(PRINT_ANY, "path", " (%s)\n", p->path);
	print_bool(PRINT_ANY, "unmeasured",
		   strcmp(prof_kind(p), "measured")
			   ? "  unmeasured: documented defaults, not measured by ethtune\n"
			   : NULL,
		   strcmp(prof_kind(p), "measured") != 0);
	for (s = 0; s < PS_COUNT; s++) {
		if (!profile_count(p, s))
			continue;
		open_json_object(sect_names[s]);
		print_text("[%s]\n", sect_names[s]);
		for (i = 0; i < p->n; i++) {
			if (p->kv[i].sect != s)
				continue;
			print_text("  %s = ", p->kv[i].key);
			print_string(PRINT_ANY, p->kv[i].key, "%s\n", p->kv[i].val);
		}
		close_json_object();
	}
}

/* ---- apply / verify ---- */

/* "KEY VAL KEY VAL..." of one section, pointing into p. */
static unsigned int sect_args(struct profile *p, int sect, char **argv, unsigned int max)
{
	unsigned int i, n = 0;

	for (i = 0; i < p->n && n + 2 <= max; i++)
		if (p->kv[i].sect == sect) {
			argv[n++] = p->kv[i].key;
			argv[n++] = p->kv[i].val;
		}
	return n;
}

/* [napi] needs NAPIs (or, without napi-get, the device's sysfs files) and [bql] BQL. */
static int profile_validate_queues(struct profile *p, const char *dev, char *err, size_t errlen)
{
	static struct nd_dev nd;
	char path[256];

	if (profile_count(p, PS_NAPI)) {
		dev_sysfs_path(path, sizeof(path), dev, "gro_flush_timeout");
		netdev_get((int)if_nametoindex(dev), &nd);
		if ((!nd.napi_ret && !nd.n_napi) || (nd.napi_ret && access(path, W_OK))) {
			snprintf(err, errlen, "%s has no NAPI instances but the profile sets [napi]",
				 dev);
			return -EOPNOTSUPP;
		}
	}
	if (profile_count(p, PS_BQL) && !dev_has_bql(dev)) {
		snprintf(err, errlen, "%s has no byte queue limits but the profile sets [bql]", dev);
		return -EOPNOTSUPP;
	}
	return 0;
}

/* Check every setting against the device before anything is changed. */
static int profile_validate_dev(struct profile *p, const char *dev, char *err, size_t errlen)
{
	static const int sects[] = { PS_COALESCE, PS_RING, PS_CHANNELS };
	struct nl_sock ns;
	unsigned int i;
	int ret;

	ret = nl_open_genl(&ns, "ethtool");
	if (ret) {
		snprintf(err, errlen, "cannot open ethtool netlink: %s", strerror(-ret));
		return ret;
	}
	for (i = 0; i < sizeof(sects) / sizeof(sects[0]); i++) {
		const struct et_object *obj = sect_obj(sects[i]);
		struct et_change ch[PROF_MAX_KV];
		char *argv[2 * PROF_MAX_KV], msg[512];
		struct et_vals cur;
		unsigned int n = sect_args(p, sects[i], argv, 2 * PROF_MAX_KV), nch;

		if (!n)
			continue;
		memset(&cur, 0, sizeof(cur));
		ret = obj_get(&ns, obj, dev, &cur);
		if (ret) {
			snprintf(err, errlen,
				 "%s has no %s parameters (%s) but the profile sets %s", dev,
				 obj->name, nl_strerror(&ns, ret), argv[0]);
			goto out;
		}
		ret = obj_parse_changes(obj, &cur, n, argv, ch, &nch, msg, sizeof(msg));
		if (ret) {
			snprintf(err, errlen, "%s: %s", dev, msg);
			goto out;
		}
	}
	ret = profile_validate_queues(p, dev, err, errlen);
	if (ret)
		goto out;
	for (i = 0; i < p->n; i++) {
		char buf[256];

		if (p->kv[i].sect != PS_SYSCTL)
			continue;
		ret = sysctl_get(p->kv[i].key, buf, sizeof(buf));
		if (ret) {
			snprintf(err, errlen, "no sysctl %s in this namespace: %s", p->kv[i].key,
				 strerror(-ret));
			goto out;
		}
	}
	ret = 0;
out:
	nl_close(&ns);
	return ret;
}

static void warn_line(const char *msg)
{
	et_warn("%s", msg);
}

/* Resolve NAME or the best match for the device. */
static int pick_profile(const char *dev, const char *name, bool force, struct profile *p,
			struct prof_dev *d);

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

static int pick_profile(const char *dev, const char *name, bool force, struct profile *p,
			struct prof_dev *d)
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

		profile_each(best_cb, &c, false);
		if (c.score < 0) {
			et_err("no profile matches %s (%s)", dev, desc);
			return -ENOENT;
		}
	}
	return 0;
}

static int device_ready(const char *dev)
{
	if (enter_netns_opt())
		return -EINVAL;
	if (strlen(dev) >= IFNAMSIZ || !if_nametoindex(dev)) {
		report_missing_dev(dev);
		return -ENODEV;
	}
	return 0;
}

int profile_apply(const char *dev, const char *name, bool force, bool dry)
{
	static const int sects[] = { PS_COALESCE, PS_RING, PS_CHANNELS, PS_NAPI, PS_BQL };
	struct profile *p = malloc(sizeof(*p));
	struct prof_dev d;
	char err[768];
	unsigned int i, applied = 0;
	int ret, mark = 0;

	if (!p)
		return -ENOMEM;
	if (!dry && !have_cap_net_admin()) {
		et_err("profile apply: changing %s needs CAP_NET_ADMIN (run as root)", dev);
		ret = -EIO;
		goto out;
	}
	if (device_ready(dev) || pick_profile(dev, name, force, p, &d)) {
		ret = -EIO;
		goto out;
	}
	if (profile_validate_dev(p, dev, err, sizeof(err))) {
		et_err("profile %s: %s; nothing applied", p->name, err);
		ret = -EIO;
		goto out;
	}
	if (!dry && journal_txn_begin(&mark)) {
		et_err("profile apply: cannot read the journal %s", journal_path());
		ret = -EIO;
		goto out;
	}
	new_json_obj(et_opts.json);
	print_text("%s profile ", dry ? "would apply" : "applying");
	print_string(PRINT_ANY, "profile", "%s", p->name);
	print_string(PRINT_ANY, "dev", " to %s\n", dev);
	print_bool(PRINT_JSON, "dry-run", NULL, dry);
	print_string(PRINT_JSON, "path", NULL, p->path);
	open_json_array(PRINT_JSON, "applied");
	for (i = 0; i < sizeof(sects) / sizeof(sects[0]); i++) {
		char *argv[2 * PROF_MAX_KV + 1];
		unsigned int n, k;

		argv[0] = (char *)sect_setname(sects[i]);
		n = sect_args(p, sects[i], argv + 1, 2 * PROF_MAX_KV);
		if (!n)
			continue;
		if (!dry) {
			ret = devset_apply(dev, n + 1, argv, err, sizeof(err), warn_line);
			if (ret)
				goto fail;
		}
		for (k = 1; k < n; k += 2) {
			open_json_object(NULL);
			print_string(PRINT_ANY, "object", "  %s ", argv[0]);
			print_string(PRINT_ANY, "key", "%s ", argv[k]);
			print_string(PRINT_ANY, "value", "%s\n", argv[k + 1]);
			close_json_object();
			applied++;
		}
	}
	for (i = 0; i < p->n; i++) {
		if (p->kv[i].sect != PS_SYSCTL)
			continue;
		if (!dry) {
			ret = sysctl_set(p->kv[i].key, p->kv[i].val, err, sizeof(err));
			if (ret)
				goto fail;
		}
		open_json_object(NULL);
		print_string(PRINT_ANY, "object", "  %s ", "sysctl");
		print_string(PRINT_ANY, "key", "%s ", p->kv[i].key);
		print_string(PRINT_ANY, "value", "%s\n", p->kv[i].val);
		close_json_object();
		applied++;
	}
	close_json_array(PRINT_JSON, NULL);
	delete_json_obj();
	ret = 0;
	goto out;
fail:
	close_json_array(PRINT_JSON, NULL);
	delete_json_obj();
	/* All or nothing: put back what this apply changed before the failure. */
	if (undo_txn_rollback(mark))
		et_err("profile %s on %s: %s (%u settings applied before could not all be rolled "
		       "back; 'ethtune restore %s' undoes them)",
		       p->name, dev, err, applied, dev);
	else
		et_err("profile %s on %s: %s; nothing applied", p->name, dev, err);
	ret = -EIO;
out:
	free(p);
	return ret;
}

/* Collapse whitespace runs to one space and trim: "4096\t16384" equals "4096 16384". */
static void norm_ws(char *s)
{
	char *r = s, *w = s;

	while (*r) {
		if (isspace((unsigned char)*r)) {
			while (isspace((unsigned char)*r))
				r++;
			if (w != s && *r)
				*w++ = ' ';
		} else {
			*w++ = *r++;
		}
	}
	*w = '\0';
}

/* One row of profile verify: what the profile wants and what the device has (NULL: it cannot
 * say); the status, "ok", "drift" or "unsupported". */
static const char *verify_row(const char *object, const char *key, const char *want,
			      const char *have, bool same)
{
	const char *st = !have ? "unsupported" : same ? "ok" : "drift";

	open_json_object(NULL);
	print_string(PRINT_ANY, "object", "  %-9s", object);
	print_string(PRINT_ANY, "key", " %-22s", key);
	print_string(PRINT_ANY, "want", " want %-8s", want);
	if (have)
		print_string(PRINT_ANY, "have", " have %-8s", have);
	else
		print_na("have", " have %-8s");
	print_string(PRINT_ANY, "status", " %s\n", st);
	close_json_object();
	return st;
}

/* The value every NAPI of dev has for key (netdev napi-get, else the device's sysfs file);
 * have is the first that differs from want. False when nothing reports it. */
static bool verify_napi(const char *dev, const char *key, const char *val, char *have, size_t len,
			bool *match)
{
	static const char *const files[][2] = { { "defer-hard-irqs", "napi_defer_hard_irqs" },
						{ "gro-flush-timeout", "gro_flush_timeout" },
						{ "threaded", "threaded" } };
	static struct nd_dev nd;
	const struct et_param *prm = napi_param(key);
	uint64_t want = 0, v;
	unsigned int k, seen = 0;

	obj_parse_val(prm, val, &want);
	*match = true;
	if (!netdev_get((int)if_nametoindex(dev), &nd) && !nd.napi_ret) {
		for (k = 0; k < nd.n_napi; k++) {
			if (!napi_has(&nd.napi[k], prm->attr))
				continue;
			v = nd.napi[k].a.v[prm->attr];
			if (!seen++ || (*match && v != want))
				obj_format_val(prm, v, have, len);
			*match &= v == want;
		}
		if (seen)
			return true;
	}
	for (k = 0; k < sizeof(files) / sizeof(files[0]); k++) {
		if (strcmp(files[k][0], key))
			continue;
		if (dev_sysfs_u64(dev, files[k][1], &v))
			return false;
		obj_format_val(prm, v, have, len);
		*match = v == want;
		return true;
	}
	return false;
}

/* The value every TX queue of dev has for a BQL key; have is the first that differs. */
static bool verify_bql(const char *dev, const char *key, const char *val, char *have, size_t len,
		       bool *match)
{
	uint64_t want = 0, v;
	unsigned int q;
	char file[32], *c;

	obj_parse_val(devset_bql_param(key), val, &want);
	snprintf(file, sizeof(file), "%s", key);
	for (c = file; *c; c++)
		if (*c == '-')
			*c = '_';
	*match = true;
	for (q = 0; q < 4096; q++) {
		if (dev_bql_u64(dev, q, file, &v))
			break;
		if (!q || (*match && v != want))
			snprintf(have, len, "%llu", (unsigned long long)v);
		*match &= v == want;
	}
	return q > 0;
}

int profile_verify(const char *dev, const char *name, bool force, unsigned int *ndrift)
{
	static const int sects[] = { PS_COALESCE, PS_RING, PS_CHANNELS };
	struct profile *p = malloc(sizeof(*p));
	struct prof_dev d;
	struct nl_sock ns;
	unsigned int i, drift = 0, checked = 0;
	int ret;

	if (!p)
		return -ENOMEM;
	if (device_ready(dev) || pick_profile(dev, name, force, p, &d)) {
		free(p);
		return -EIO;
	}
	ret = nl_open_genl(&ns, "ethtool");
	if (ret) {
		et_err("cannot open ethtool netlink: %s", strerror(-ret));
		free(p);
		return ret;
	}
	new_json_obj(et_opts.json);
	print_string(PRINT_ANY, "profile", "profile %s", p->name);
	print_string(PRINT_ANY, "dev", " on %s\n", dev);
	open_json_array(PRINT_JSON, "settings");
	for (i = 0; i < sizeof(sects) / sizeof(sects[0]); i++) {
		const struct et_object *obj = sect_obj(sects[i]);
		struct et_vals cur;
		bool have_obj;
		unsigned int k;

		if (!profile_count(p, sects[i]))
			continue;
		memset(&cur, 0, sizeof(cur));
		have_obj = !obj_get(&ns, obj, dev, &cur);
		for (k = 0; k < p->n; k++) {
			const struct prof_kv *kv = &p->kv[k];
			const struct et_param *prm;
			char have[64];
			uint64_t want = 0;
			const char *st;
			bool known;

			if (kv->sect != sects[i])
				continue;
			prm = obj_param(obj, kv->key);
			obj_parse_val(prm, kv->val, &want);
			known = have_obj && vals_has(&cur, prm->attr);
			if (known)
				obj_format_val(prm, cur.v[prm->attr], have, sizeof(have));
			st = verify_row(obj->name, kv->key, kv->val, known ? have : NULL,
					known && cur.v[prm->attr] == want);
			drift += strcmp(st, "ok") != 0;
			checked++;
		}
	}
	for (i = 0; i < p->n; i++) {
		const struct prof_kv *kv = &p->kv[i];
		char have[64];
		bool known, match;
		const char *st;

		if (kv->sect != PS_NAPI && kv->sect != PS_BQL)
			continue;
		known = (kv->sect == PS_NAPI ? verify_napi : verify_bql)(
			dev, kv->key, kv->val, have, sizeof(have), &match);
		st = verify_row(prof_sect_name(kv->sect), kv->key, kv->val, known ? have : NULL,
				known && match);
		drift += strcmp(st, "ok") != 0;
		checked++;
	}
	for (i = 0; i < p->n; i++) {
		char have[256], want[sizeof(p->kv[i].val)];
		const char *st;

		if (p->kv[i].sect != PS_SYSCTL)
			continue;
		if (!sysctl_get(p->kv[i].key, have, sizeof(have))) {
			snprintf(want, sizeof(want), "%s", p->kv[i].val);
			norm_ws(have);
			norm_ws(want);
			st = verify_row("sysctl", p->kv[i].key, p->kv[i].val, have,
					!strcmp(have, want));
		} else {
			st = verify_row("sysctl", p->kv[i].key, p->kv[i].val, NULL, false);
		}
		drift += strcmp(st, "ok") != 0;
		checked++;
	}
	close_json_array(PRINT_JSON, NULL);
	print_uint(PRINT_ANY, "checked", "%llu settings checked", checked);
	print_uint(PRINT_ANY, "drift", ", %llu drifted\n", drift);
	delete_json_obj();
	nl_close(&ns);
	free(p);
	*ndrift = drift;
	return 0;
}

int profile_print_list(void)
{
	int n = 0;

	new_json_obj(et_opts.json);
	open_json_array(PRINT_JSON, "profiles");
	profile_each(list_cb, &n, true);
	close_json_array(PRINT_JSON, NULL);
	if (!n)
		print_text("no profiles found (./profiles, $ETHTUNE_PROFILE_DIR, "
			   "/usr/local/share/ethtune/profiles)\n");
	delete_json_obj();
	return 0;
}

int profile_print(const char *arg, bool check)
{
	struct profile *p = malloc(sizeof(*p));
	char err[600];
	int ret;

	if (!p)
		return -ENOMEM;
	ret = !check ? profile_find(arg, p, err, sizeof(err))
		     : profile_load(arg, p, err, sizeof(err));
	if (ret)
		et_err("%s", err);
	else if (!check) {
		new_json_obj(et_opts.json);
		show_profile(p);
		delete_json_obj();
	} else {
		print_text("%s: ok (profile %s)\n", arg, p->name);
	}
	free(p);
	return ret;
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
	ret = device_ready(dev);
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
	profile_each(best_cb, &c, false);
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
