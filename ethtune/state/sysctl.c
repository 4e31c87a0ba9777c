/* Sysctls: read and set, journaled, in this namespace or (kernel-wide ones) the initial one. */
#include <errno.h>
#include <stdbool.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "state/devset_parts.h"
#include "state/journal.h"
#include "state/sysctl.h"
#include "util/ethtune.h"

static int sysctl_path(const char *name, char *path, size_t len)
{
	size_t i;

	if (strncmp(name, "net.", 4) || strlen(name) > 200 || strstr(name, "..") ||
	    strchr(name, '/'))
		return -EINVAL;
	snprintf(path, len, "/proc/sys/%s", name);
	for (i = 10; path[i]; i++)
		if (path[i] == '.')
			path[i] = '/';
	return 0;
}

int sysctl_get(const char *name, char *buf, size_t len)
{
	char path[256];
	size_t i;

	if (strlen(name) > 200 || strstr(name, ".."))
		return -EINVAL;
	snprintf(path, sizeof(path), "/proc/sys/%s", name);
	for (i = 10; path[i]; i++)
		if (path[i] == '.')
			path[i] = '/';
	return read_file_str(path, buf, len);
}

int devset_sysctl_raw(const char *name, const char *val, char *err, size_t errlen)
{
	char path[256];
	int ret = sysctl_path(name, path, sizeof(path));

	if (ret) {
		snprintf(err, errlen, "not a network sysctl: '%s'", name);
		return ret;
	}
	ret = write_file_str(path, val);
	if (ret)
		snprintf(err, errlen, "cannot set %s to %s: %s", name, val, strerror(-ret));
	return ret;
}

/* A kernel-wide sysctl set from the initial namespace, journaled as made there. */
struct sysctl_kernel_ctx {
	const char *name, *val;
	bool temp;
	int owner;
	char err[300];
};

static int sysctl_kernel_child(void *arg)
{
	struct sysctl_kernel_ctx *c = arg;

	journal_set_temp(c->temp, c->owner);
	return sysctl_set(c->name, c->val, c->err, sizeof(c->err));
}

int sysctl_set_kernel(const char *name, const char *val, char *err, size_t errlen)
{
	struct sysctl_kernel_ctx c = { name, val, journal_temp_active(), getpid() };
	char cur[64];
	int ret;

	if (!netns_current_name(cur, sizeof(cur))[0])
		return sysctl_set(name, val, err, errlen);
	/* the child writes the journal and the reason */
	ret = netns_run_shared("", sysctl_kernel_child, &c, sizeof(c));
	if (ret)
		snprintf(err, errlen, "%s",
			 c.err[0] ? c.err : "cannot enter the initial network namespace");
	return ret;
}

struct sysctl_read_ctx {
	char path[256];
	char val[128];
};

static int sysctl_read_child(void *arg)
{
	struct sysctl_read_ctx *c = arg;

	return read_file_str(c->path, c->val, sizeof(c->val));
}

int sysctl_get_kernel(const char *name, char *buf, size_t len)
{
	struct sysctl_read_ctx c = { "" };
	int ret = sysctl_path(name, c.path, sizeof(c.path));

	if (ret)
		return ret;
	ret = read_file_str(c.path, buf, len);
	if (ret != -ENOENT)
		return ret;
	/* not shown in this namespace: read the initial one's */
	ret = netns_run_shared("", sysctl_read_child, &c, sizeof(c));
	if (!ret)
		snprintf(buf, len, "%s", c.val);
	return ret;
}

int sysctl_set(const char *name, const char *val, char *err, size_t errlen)
{
	char path[256], old[128];
	int ret = sysctl_path(name, path, sizeof(path));

	if (ret) {
		snprintf(err, errlen, "not a network sysctl: '%s'", name);
		return ret;
	}
	ret = read_file_str(path, old, sizeof(old));
	if (ret) {
		snprintf(err, errlen, "no sysctl %s: %s", name, strerror(-ret));
		return ret;
	}
	ret = devset_journal_old("", "sysctl", name, old, err, errlen);
	if (ret)
		return ret;
	return devset_sysctl_raw(name, val, err, errlen);
}
