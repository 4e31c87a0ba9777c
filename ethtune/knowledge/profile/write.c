/* Profiles written: built entry by entry, checked by the parser, saved atomically. */
#include <errno.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "knowledge/profile.h"
#include "knowledge/profile_parts.h"

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
	ret = prof_check_value(sect, key, val, msg, sizeof(msg));
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
		OUT("\n[%s]\n", prof_sect_name(s));
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
	return profile_save_notes(p, path, NULL, err, errlen);
}

int profile_save_notes(const struct profile *p, const char *path, const char *notes, char *err,
		       size_t errlen)
{
	size_t len = 65536 + (notes ? strlen(notes) + 2 : 0);
	char *buf = malloc(len), tmp[600];
	struct profile *chk = malloc(sizeof(*chk));
	const char *l;
	FILE *f;
	int ret;

	if (!buf || !chk) {
		free(buf);
		free(chk);
		return -ENOMEM;
	}
	ret = profile_format(p, buf, 65536);
	/* notes: comment lines after the sections, each "# ..." */
	for (l = notes; !ret && l && *l; l += strcspn(l, "\n") + (l[strcspn(l, "\n")] == '\n'))
		if (l[0] != '#') {
			snprintf(err, errlen, "a profile note is not a comment line");
			ret = -EINVAL;
		}
	if (!ret && notes && *notes) {
		strcat(buf, "\n");
		strcat(buf, notes);
		if (buf[strlen(buf) - 1] != '\n')
			strcat(buf, "\n");
	}
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
