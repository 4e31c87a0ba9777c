/* What a device's persistent configuration sets: the .link udev applied, NM's connection, sysctl.d.
 */
#include <ctype.h>
#include <dirent.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <net/if.h>

#include "knowledge/profile.h"
#include "knowledge/profile_parts.h"
#include "util/ethtune.h"

/* Paths are read under $ETHTUNE_PERSIST_ROOT when set (tests build a host's /etc and /run). */
static void rooted(char *out, size_t len, const char *path)
{
	const char *r = getenv("ETHTUNE_PERSIST_ROOT");

	if (snprintf(out, len, "%s%s", r ? r : "", path) >= (int)len)
		out[0] = '\0'; /* too long: nothing is read */
}

static void add(struct persist *p, int obj, const char *key, const char *val, const char *src)
{
	unsigned int i;

	/* a later file (or line) of the same source replaces an earlier one */
	for (i = 0; i < p->n; i++)
		if (p->e[i].obj == obj && !strcmp(p->e[i].key, key) && p->e[i].kind == p->cur_kind)
			break;
	if (i == p->n) {
		if (p->n >= sizeof(p->e) / sizeof(p->e[0]))
			return;
		p->n++;
	}
	p->e[i].obj = obj;
	p->e[i].kind = p->cur_kind;
	snprintf(p->e[i].key, sizeof(p->e[i].key), "%s", key);
	snprintf(p->e[i].val, sizeof(p->e[i].val), "%s", val);
	snprintf(p->e[i].src, sizeof(p->e[i].src), "%s", src);
}

/* A systemd time span in microseconds: "16us", "1s 500ms"; a bare number is seconds. */
static int parse_timespan(const char *s, unsigned long long *usec)
{
	static const struct {
		const char *u;
		unsigned long long mul;
	} units[] = { { "usec", 1 },	       { "us", 1 },
		      { "msec", 1000 },	       { "ms", 1000 },
		      { "seconds", 1000000 },  { "second", 1000000 },
		      { "sec", 1000000 },      { "s", 1000000 },
		      { "minutes", 60000000 }, { "min", 60000000 },
		      { "m", 60000000 },       { "", 1000000 } };
	unsigned long long sum = 0;
	unsigned int i;

	while (*s) {
		char *end;
		unsigned long long v;

		while (isspace((unsigned char)*s))
			s++;
		if (!*s)
			break;
		if (!isdigit((unsigned char)*s))
			return -EINVAL;
		v = strtoull(s, &end, 10);
		s = end;
		for (i = 0; i < sizeof(units) / sizeof(units[0]); i++) {
			size_t l = strlen(units[i].u);

			if (!strncmp(s, units[i].u, l) && !isalpha((unsigned char)s[l])) {
				sum += v * units[i].mul;
				s += l;
				break;
			}
		}
		if (i == sizeof(units) / sizeof(units[0]))
			return -EINVAL;
	}
	*usec = sum;
	return 0;
}

/* A consumer's value back in ethtune's words ("16us" -> "16", "no" -> "off"); -EINVAL when it
 * is not one the consumer would take. */
static int value_back(const struct exp_fkey *k, const char *v, char *out, size_t len)
{
	unsigned long long u;

	switch (k->kind) {
	case EK_USEC:
	case EK_SEC:
		if (parse_timespan(v, &u))
			return -EINVAL;
		snprintf(out, len, "%llu", k->kind == EK_USEC ? u : (u + 999999) / 1000000);
		return 0;
	case EK_YESNO:
	case EK_TF:
	case EK_01:
	case EK_ONOFF: {
		bool on;

		if (!strcmp(v, "yes") || !strcmp(v, "true") || !strcmp(v, "1") || !strcmp(v, "on"))
			on = true;
		else if (!strcmp(v, "no") || !strcmp(v, "false") || !strcmp(v, "0") ||
			 !strcmp(v, "off"))
			on = false;
		else
			return -EINVAL;
		snprintf(out, len, "%s", on ? "on" : "off");
		return 0;
	}
	default:
		snprintf(out, len, "%s", v);
		return 0;
	}
}

/* The row whose name in fmt is name (a .link name may be one of "A,B"). */
static const struct exp_map *map_by_name(int fmt, const char *name)
{
	unsigned int i;

	for (i = 0; i < exp_n_maps; i++) {
		const char *n = exp_maps[i].f[fmt].name;
		size_t l = strlen(name);

		if (exp_maps[i].obj == EO_SYSCTL || !n)
			continue;
		for (; *n; n += strcspn(n, ",") + (n[strcspn(n, ",")] == ',')) {
			if (strcspn(n, ",") == l && !strncmp(n, name, l))
				return &exp_maps[i];
		}
	}
	return NULL;
}

/* The INI sections of file that fmt names (sect: "Link", or NULL for NetworkManager's
 * "section.key" names), each key mapped back to a keyword. */
static void read_ini(struct persist *p, const char *file, int fmt, const char *sect)
{
	char line[600], cur[64] = "";
	FILE *f = fopen(file, "r");

	if (!f)
		return;
	while (fgets(line, sizeof(line), f)) {
		char *l = prof_trim(line), *eq, name[160], val[192];
		const struct exp_map *m;

		if (!*l || *l == '#' || *l == ';')
			continue;
		if (*l == '[') {
			snprintf(cur, sizeof(cur), "%.*s", (int)strcspn(l + 1, "]"), l + 1);
			continue;
		}
		eq = strchr(l, '=');
		if (!eq)
			continue;
		*eq = '\0';
		if (sect) {
			if (strcmp(cur, sect))
				continue;
			snprintf(name, sizeof(name), "%s", prof_trim(l));
		} else {
			snprintf(name, sizeof(name), "%s%s%s", strcmp(cur, "ethtool") ? cur : "",
				 strcmp(cur, "ethtool") ? "." : "", prof_trim(l));
		}
		m = map_by_name(fmt, name);
		if (!m)
			continue;
		if (value_back(&m->f[fmt], prof_trim(eq + 1), val, sizeof(val)))
			snprintf(val, sizeof(val), "'%s' (not a value it takes)",
				 prof_trim(eq + 1));
		add(p, m->obj, m->key, val, file);
	}
	fclose(f);
}

/* The .link udev applied to dev and its drop-ins, from udev's database. */
static void read_link(struct persist *p, const char *dev)
{
	char path[600], line[1200], file[600] = "", dropins[1200] = "";
	unsigned int idx = if_nametoindex(dev);
	FILE *f;

	snprintf(line, sizeof(line), "/run/udev/data/n%u", idx);
	rooted(path, sizeof(path), line);
	f = idx ? fopen(path, "r") : NULL;
	if (!f)
		return;
	while (fgets(line, sizeof(line), f)) {
		line[strcspn(line, "\n")] = '\0';
		if (!strncmp(line, "E:ID_NET_LINK_FILE=", 19) &&
		    snprintf(file, sizeof(file), "%s", line + 19) >= (int)sizeof(file))
			file[0] = '\0';
		else if (!strncmp(line, "E:ID_NET_LINK_FILE_DROPINS=", 27) &&
			 snprintf(dropins, sizeof(dropins), "%s", line + 27) >=
				 (int)sizeof(dropins))
			dropins[0] = '\0';
	}
	fclose(f);
	if (!file[0])
		return;
	p->cur_kind = PERSIST_LINK;
	rooted(path, sizeof(path), file);
	read_ini(p, path, EXP_LINK, "Link");
	/* drop-ins in their order, each overriding the file */
	for (char *d = dropins, *save, *tok; (tok = strtok_r(d, ":", &save)); d = NULL) {
		rooted(path, sizeof(path), tok);
		read_ini(p, path, EXP_LINK, "Link");
	}
}

/* The connection NetworkManager has active on dev (its device state file names it). */
static void read_nm(struct persist *p, const char *dev)
{
	static const char *const dirs[] = { "/etc/NetworkManager/system-connections",
					    "/run/NetworkManager/system-connections",
					    "/usr/lib/NetworkManager/system-connections", NULL };
	char path[600], line[600], uuid[64] = "";
	unsigned int idx = if_nametoindex(dev), i;
	FILE *f;

	snprintf(line, sizeof(line), "/run/NetworkManager/devices/%u", idx);
	rooted(path, sizeof(path), line);
	f = idx ? fopen(path, "r") : NULL;
	if (!f)
		return;
	while (fgets(line, sizeof(line), f))
		if (!strncmp(line, "connection-uuid=", 16))
			snprintf(uuid, sizeof(uuid), "%.*s", (int)strcspn(line + 16, "\n"),
				 line + 16);
	fclose(f);
	if (!uuid[0])
		return;
	p->cur_kind = PERSIST_NM;
	for (i = 0; dirs[i]; i++) {
		DIR *d;
		struct dirent *e;

		rooted(path, sizeof(path), dirs[i]);
		d = opendir(path);
		if (!d)
			continue;
		while ((e = readdir(d))) {
			char file[900];
			bool hit = false;

			if (e->d_name[0] == '.')
				continue;
			snprintf(file, sizeof(file), "%s/%s", path, e->d_name);
			f = fopen(file, "r");
			if (!f)
				continue;
			while (fgets(line, sizeof(line), f))
				if (!strncmp(line, "uuid=", 5) &&
				    !strncmp(line + 5, uuid, strlen(uuid)))
					hit = true;
			fclose(f);
			if (hit) {
				read_ini(p, file, EXP_NM, NULL);
				closedir(d);
				return;
			}
		}
		closedir(d);
	}
}

static int cmp_name(const void *a, const void *b)
{
	const char *x = strrchr(*(char *const *)a, '/'), *y = strrchr(*(char *const *)b, '/');

	return strcmp(x, y);
}

/* sysctl.d as systemd-sysctl reads it: each file name once (the first directory wins), in the
 * order of the names; a later line wins. */
static void read_sysctl(struct persist *p)
{
	static const char *const dirs[] = { "/etc/sysctl.d",	       "/run/sysctl.d",
					    "/usr/local/lib/sysctl.d", "/usr/lib/sysctl.d",
					    "/lib/sysctl.d",	       NULL };
	char *files[256], path[600], line[600];
	unsigned int n = 0, i, k;

	p->cur_kind = PERSIST_SYSCTL;
	for (i = 0; dirs[i]; i++) {
		DIR *d;
		struct dirent *e;

		rooted(path, sizeof(path), dirs[i]);
		d = opendir(path);
		while (d && (e = readdir(d)) && n < 256) {
			size_t l = strlen(e->d_name);
			bool dup = false;

			if (l < 6 || strcmp(e->d_name + l - 5, ".conf"))
				continue;
			for (k = 0; k < n; k++)
				dup |= !strcmp(strrchr(files[k], '/') + 1, e->d_name);
			if (dup)
				continue;
			files[n] = malloc(strlen(path) + l + 2);
			if (files[n])
				sprintf(files[n++], "%s/%s", path, e->d_name);
		}
		if (d)
			closedir(d);
	}
	qsort(files, n, sizeof(files[0]), cmp_name);
	for (i = 0; i < n; i++) {
		FILE *f = fopen(files[i], "r");

		while (f && fgets(line, sizeof(line), f)) {
			char *l = prof_trim(line), *eq = strchr(l, '='), *key, *c;

			if (!*l || *l == '#' || *l == ';' || !eq)
				continue;
			*eq = '\0';
			key = prof_trim(l);
			if (*key == '-')
				key++;
			for (c = key; *c; c++)
				if (*c == '/')
					*c = '.';
			add(p, EO_SYSCTL, key, prof_trim(eq + 1), files[i]);
		}
		if (f)
			fclose(f);
		free(files[i]);
	}
}

void persist_load(const char *dev, struct persist *p)
{
	char ns[64];

	memset(p, 0, sizeof(*p));
	/* udev, NetworkManager and sysctl.d configure the initial namespace: a device or sysctl in
	 * another one has none of it (unless a test hands us a host to read) */
	if ((netns_current() || netns_current_name(ns, sizeof(ns))[0]) &&
	    !getenv("ETHTUNE_PERSIST_ROOT"))
		return;
	read_link(p, dev);
	read_nm(p, dev);
	read_sysctl(p);
}
