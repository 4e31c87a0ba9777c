/* Profiles in the search path: each one walked (to list or to match), all listed, or one shown. */
#include <dirent.h>
#include <errno.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "knowledge/profile.h"
#include "knowledge/profile_parts.h"
#include "out/json_print.h"
#include "util/ethtune.h"

static int cmp_str(const void *a, const void *b)
{
	return strcmp(*(char *const *)a, *(char *const *)b);
}

int prof_each(prof_cb cb, void *ctx, bool warn)
{
	const char *dirs[PROFILE_DIRS_MAX];
	unsigned int nd = profile_dirs(dirs, PROFILE_DIRS_MAX), i;
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

const char *prof_kind(const struct profile *p)
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
		open_json_object(prof_sect_name(s));
		print_text("[%s]\n", prof_sect_name(s));
		for (i = 0; i < p->n; i++) {
			if (p->kv[i].sect != s)
				continue;
			print_text("  %s = ", p->kv[i].key);
			print_string(PRINT_ANY, p->kv[i].key, "%s\n", p->kv[i].val);
		}
		close_json_object();
	}
}

int profile_print_list(void)
{
	int n = 0;

	new_json_obj(et_opts.json);
	open_json_array(PRINT_JSON, "profiles");
	prof_each(list_cb, &n, true);
	close_json_array(PRINT_JSON, NULL);
	if (!n)
		print_text("no profiles found (./profiles, $ETHTUNE_PROFILE_DIR, "
			   "/usr/local/share/ethtune/profiles, /usr/share/ethtune/profiles)\n");
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
