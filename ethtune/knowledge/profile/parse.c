/* Profiles read: the INI text parsed and every key and value checked, files found by name. */
#include <ctype.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "knowledge/profile.h"
#include "knowledge/profile_parts.h"
#include "nl/devobj.h"
#include "nl/netdev.h"
#include "state/devset.h"
#include "util/ethtune.h"

static const char *const sect_names[PS_COUNT] = {
	[PS_PROFILE] = "profile", [PS_MATCH] = "match",	      [PS_COALESCE] = "coalesce",
	[PS_RING] = "ring",	  [PS_CHANNELS] = "channels", [PS_NAPI] = "napi",
	[PS_BQL] = "bql",	  [PS_SYSCTL] = "sysctl",     [PS_PROVENANCE] = "provenance",
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

const struct et_object *prof_sect_obj(int sect)
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

static bool in_list(const char *const *l, const char *s)
{
	for (; *l; l++)
		if (!strcmp(*l, s))
			return true;
	return false;
}

/* s without its leading and trailing white space (the trailing cut in place) */
char *prof_trim(char *s)
{
	char *e;

	while (isspace((unsigned char)*s))
		s++;
	e = s + strlen(s);
	while (e > s && isspace((unsigned char)e[-1]))
		*--e = '\0';
	return s;
}

int prof_parse_pci_id(const char *s, unsigned int *ven, int *dev)
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

int prof_for_items(const char *val, int (*fn)(const char *item, void *ctx), void *ctx)
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

	return prof_parse_pci_id(item, &v, &d);
}

int prof_kernel_item(const char *item, void *ctx)
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

int prof_check_value(int sect, const char *key, const char *val, char *msg, size_t len)
{
	const struct et_object *obj = prof_sect_obj(sect);
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
		    prof_for_items(val, check_pci_item, NULL)) {
			snprintf(msg, len,
				 "%s '%s': expected VENDOR:DEVICE in hex (15b3:1003, 8086:*)", key,
				 val);
			return -EINVAL;
		}
		if (!strcmp(key, "kernel") && prof_for_items(val, prof_kernel_item, NULL)) {
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
		l = prof_trim(buf);
		if (!*l || *l == '#' || *l == ';')
			continue;
		if (*l == '[') {
			char *e = strchr(l, ']');

			if (!e || *prof_trim(e + 1)) {
				snprintf(err, errlen, "%s:%d: malformed section header '%s'",
					 origin, line, l);
				return -EINVAL;
			}
			*e = '\0';
			l = prof_trim(l + 1);
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
		key = prof_trim(l);
		val = prof_trim(eq + 1);
		/* trailing comment: " # ..." */
		for (i = 0; val[i]; i++)
			if (val[i] == '#' && i && isspace((unsigned char)val[i - 1])) {
				val[i] = '\0';
				val = prof_trim(val);
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
		if (prof_check_value(sect, key, val, msg, sizeof(msg))) {
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
	if (n < max)
		dirs[n++] = "/usr/share/ethtune/profiles";
	return n;
}

int profile_find(const char *name, struct profile *p, char *err, size_t errlen)
{
	const char *dirs[PROFILE_DIRS_MAX];
	unsigned int n = profile_dirs(dirs, PROFILE_DIRS_MAX), i;
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
		 "/usr/local/share/ethtune/profiles, /usr/share/ethtune/profiles)",
		 name);
	return -ENOENT;
}
