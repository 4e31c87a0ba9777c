/* Journal of old values: written (fsync) before a change, replayed by restore and on exit. */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <jansson.h>

#include "state/devset.h"
#include "util/ethtune.h"
#include "state/journal.h"

static bool temp_mode;
static int temp_owner; /* pid that owns temporary entries; 0: this process */
static char journal_file[512];

const char *journal_path(void)
{
	const char *dir = getenv("ETHTUNE_STATE_DIR");

	if (!journal_file[0])
		snprintf(journal_file, sizeof(journal_file), "%s/journal",
			 dir && *dir ? dir : "/run/ethtune");
	return journal_file;
}

/* Start time of a process in clock ticks since boot: tells a live owner from a reused pid. */
static long long proc_start(int pid)
{
	char path[64], buf[1024], *p;
	long long start = -1;
	int i;

	snprintf(path, sizeof(path), "/proc/%d/stat", pid);
	if (read_file_str(path, buf, sizeof(buf)))
		return -1;
	p = strrchr(buf, ')');
	if (!p)
		return -1;
	/* Field 22 is starttime; after ')' comes field 3. */
	for (i = 3, p += 2; *p && i < 22; p++)
		if (*p == ' ')
			i++;
	if (i == 22)
		start = strtoll(p, NULL, 10);
	return start;
}

static int open_locked(int flags)
{
	const char *path = journal_path();
	char dir[512], *slash;
	int fd;

	snprintf(dir, sizeof(dir), "%s", path);
	slash = strrchr(dir, '/');
	if (slash && slash != dir) {
		*slash = '\0';
		mkdir(dir, 0700);
	}
	fd = open(path, flags | O_CLOEXEC, 0600);
	if (fd < 0)
		return -errno;
	if (flock(fd, LOCK_EX) < 0) {
		int e = -errno;

		close(fd);
		return e;
	}
	return fd;
}

static json_t *entry_to_json(const struct journal_entry *e)
{
	return json_pack("{s:s, s:s, s:s, s:s, s:s, s:b, s:i, s:I, s:I}", "netns", e->netns, "dev",
			 e->dev, "object", e->object, "key", e->key, "old", e->old, "temp", e->temp,
			 "pid", e->pid, "start", (json_int_t)(e->pid ? proc_start(e->pid) : 0),
			 "time", (json_int_t)e->time);
}

static int entry_from_json(json_t *j, struct journal_entry *e, long long *start)
{
	const char *ns, *dev, *obj, *key, *old;
	int temp = 0, pid = 0;
	json_int_t st = 0, t = 0;

	memset(e, 0, sizeof(*e));
	if (json_unpack(j, "{s:s, s:s, s:s, s:s, s:s, s?b, s?i, s?I, s?I}", "netns", &ns, "dev",
			&dev, "object", &obj, "key", &key, "old", &old, "temp", &temp, "pid", &pid,
			"start", &st, "time", &t))
		return -EBADMSG;
	snprintf(e->netns, sizeof(e->netns), "%s", ns);
	snprintf(e->dev, sizeof(e->dev), "%s", dev);
	snprintf(e->object, sizeof(e->object), "%s", obj);
	snprintf(e->key, sizeof(e->key), "%s", key);
	snprintf(e->old, sizeof(e->old), "%s", old);
	e->temp = temp;
	e->pid = pid;
	e->time = t;
	*start = st;
	return 0;
}

int journal_record(const struct journal_entry *in)
{
	struct journal_entry e = *in;
	json_t *j;
	char *line;
	int fd, ret = 0;
	size_t len;

	if (!e.time)
		e.time = (long long)time(NULL);
	if (temp_mode && !e.temp) {
		e.temp = true;
		e.pid = temp_owner ? temp_owner : getpid();
	}
	fd = open_locked(O_WRONLY | O_CREAT | O_APPEND);
	if (fd < 0)
		return fd;
	j = entry_to_json(&e);
	line = json_dumps(j, JSON_COMPACT | JSON_PRESERVE_ORDER);
	json_decref(j);
	if (!line) {
		close(fd);
		return -ENOMEM;
	}
	len = strlen(line);
	line[len] = '\n';
	if (write(fd, line, len + 1) != (ssize_t)(len + 1))
		ret = -EIO;
	else if (fsync(fd) < 0)
		ret = -errno;
	free(line);
	close(fd);
	return ret;
}

struct loaded {
	struct journal_entry e;
	long long start;
};

static int load_fd(int fd, struct loaded **out, int *n)
{
	FILE *f;
	char *line = NULL;
	size_t cap = 0;
	struct loaded *v = NULL;
	int cnt = 0, dupfd;

	*out = NULL;
	*n = 0;
	dupfd = dup(fd);
	if (dupfd < 0)
		return -errno;
	lseek(dupfd, 0, SEEK_SET);
	f = fdopen(dupfd, "r");
	if (!f) {
		close(dupfd);
		return -errno;
	}
	while (getline(&line, &cap, f) > 0) {
		json_t *j = json_loads(line, 0, NULL);
		struct loaded *nv;

		if (!j)
			continue; /* a torn last line from a crash is skipped */
		nv = realloc(v, sizeof(*v) * (cnt + 1));
		if (!nv) {
			json_decref(j);
			break;
		}
		v = nv;
		if (!entry_from_json(j, &v[cnt].e, &v[cnt].start))
			cnt++;
		json_decref(j);
	}
	free(line);
	fclose(f);
	*out = v;
	*n = cnt;
	return 0;
}

/* Open the journal locked and load it: the descriptor, -ENOENT when there is none (*v NULL,
 * *n 0), or -errno. */
static int open_load(int flags, struct loaded **v, int *n)
{
	int fd = open_locked(flags), ret;

	*v = NULL;
	*n = 0;
	if (fd < 0)
		return fd;
	ret = load_fd(fd, v, n);
	if (ret) {
		close(fd);
		return ret;
	}
	return fd;
}

int journal_load(struct journal_entry **out, int *n)
{
	struct loaded *v;
	int fd = open_load(O_RDONLY, &v, n), i;

	*out = NULL;
	if (fd == -ENOENT)
		return 0;
	if (fd < 0)
		return fd;
	close(fd);
	*out = calloc(*n ? *n : 1, sizeof(**out));
	for (i = 0; i < *n && *out; i++)
		(*out)[i] = v[i].e;
	free(v);
	return *out ? 0 : -ENOMEM;
}

static bool owner_alive(const struct loaded *l)
{
	return l->e.pid > 0 && proc_start(l->e.pid) == l->start;
}

/* Entries restored by one request: same namespace, device and object (sysctls one by one). */
static bool same_group(const struct journal_entry *a, const struct journal_entry *b)
{
	return !strcmp(a->netns, b->netns) && !strcmp(a->dev, b->dev) &&
	       !strcmp(a->object, b->object) &&
	       (strcmp(a->object, "sysctl") || !strcmp(a->key, b->key));
}

/* Apply one group (same netns, dev, object): the oldest value per key, in one request. */
static int restore_group(struct loaded *v, int n, int first, bool *sel, char *err, size_t errlen)
{
	const struct journal_entry *g = &v[first].e;
	char *args[2 + 2 * 64];
	int argc = 0, i, k, ret;

	if (!strcmp(g->object, "sysctl")) {
		for (i = 0; i < n; i++)
			if (sel[i] && same_group(&v[i].e, g))
				break;
		ret = devset_sysctl_raw(v[i].e.key, v[i].e.old, err, errlen);
		return ret;
	}
	if (strcmp(g->object, "link"))
		args[argc++] = (char *)g->object;
	for (i = 0; i < n && argc < (int)(sizeof(args) / sizeof(args[0])) - 2; i++) {
		const struct journal_entry *e = &v[i].e;
		bool seen = false;

		if (!sel[i] || !same_group(e, g))
			continue;
		for (k = (strcmp(g->object, "link") ? 1 : 0); k < argc; k += 2)
			if (!strcmp(args[k], e->key))
				seen = true;
		if (seen)
			continue; /* keep the oldest value: what the user had */
		args[argc++] = (char *)e->key;
		args[argc++] = (char *)e->old;
	}
	args[argc] = NULL;
	ret = devset_apply_raw(g->dev, argc, args, err, errlen);
	if (!ret || ret == -ENODEV)
		return ret;
	/* One value the device refuses must not hold back the others: one request per key. A key
	 * the device does not support cannot have been changed, so there is nothing to undo. */
	k = strcmp(g->object, "link") ? 1 : 0;
	if (argc - k <= 2)
		return ret;
	ret = 0;
	for (i = k; i + 1 < argc; i += 2) {
		char *one[4], e1[256];
		int o = 0, r;

		if (k)
			one[o++] = args[0];
		one[o++] = args[i];
		one[o++] = args[i + 1];
		one[o] = NULL;
		r = devset_apply_raw(g->dev, o, one, e1, sizeof(e1));
		if (r == -EOPNOTSUPP) {
			et_warn("restore %s: %s", g->dev, e1);
		} else if (r) {
			snprintf(err, errlen, "%s", e1);
			ret = r;
		}
	}
	return ret;
}

/* restore_group() in the group's own namespace (run by netns_run()). */
struct restore_ctx {
	struct loaded *v;
	int n, first;
	bool *sel;
};

static int restore_in_netns(void *ctx)
{
	struct restore_ctx *c = ctx;
	const struct journal_entry *g = &c->v[c->first].e;
	char err[512];
	int ret;

	ret = restore_group(c->v, c->n, c->first, c->sel, err, sizeof(err));
	if (ret)
		fprintf(stderr, "ethtune: restore %s %s: %s\n", g->dev, g->object, err);
	return ret;
}

/* Restore the selected entries of this namespace in this process; others in a child that
 * enters their namespace. Returns the number that could not be restored. */
static int restore_selected(struct loaded *v, int n, bool *sel, bool *done, int *failed_missing)
{
	int i, j, bad = 0;
	char err[512], cur[64];

	netns_current_name(cur, sizeof(cur));
	/* Newest groups first, so a later change is undone before the one it built on. */
	for (i = n - 1; i >= 0; i--) {
		bool group_done = false;
		int ret;

		if (!sel[i] || done[i])
			continue;
		for (j = 0; j < n; j++)
			if (done[j] && same_group(&v[j].e, &v[i].e))
				group_done = true;
		if (group_done)
			continue;
		if (!strcmp(v[i].e.netns, cur)) {
			ret = restore_group(v, n, i, sel, err, sizeof(err));
		} else {
			struct restore_ctx rc = { v, n, i, sel };

			ret = netns_run(v[i].e.netns, restore_in_netns, &rc);
			if (ret == -ENONET)
				fprintf(stderr,
					"ethtune: restore %s %s: network namespace '%s' is gone\n",
					v[i].e.dev, v[i].e.object, v[i].e.netns);
			ret = ret == -ENONET || ret == -ENODEV ? -ENODEV : ret ? -EIO : 0;
			err[0] = '\0';
		}
		if (ret == -ENODEV) {
			if (err[0])
				et_warn("restore %s: device is gone; keeping its journal entries",
					v[i].e.dev[0] ? v[i].e.dev : v[i].e.key);
			(*failed_missing)++;
			bad++;
			continue;
		}
		if (ret) {
			if (err[0])
				et_err("restore %s %s: %s", v[i].e.dev, v[i].e.object, err);
			bad++;
			continue;
		}
		for (j = 0; j < n; j++)
			if (sel[j] && same_group(&v[j].e, &v[i].e))
				done[j] = true;
	}
	return bad;
}

static int write_remaining(int fd, struct loaded *v, int n, const bool *done)
{
	FILE *f;
	int i, dupfd;

	if (ftruncate(fd, 0) < 0 || lseek(fd, 0, SEEK_SET) < 0)
		return -errno;
	dupfd = dup(fd);
	if (dupfd < 0)
		return -errno;
	f = fdopen(dupfd, "w");
	if (!f) {
		close(dupfd);
		return -errno;
	}
	for (i = 0; i < n; i++) {
		json_t *j;

		if (done[i])
			continue;
		j = json_pack("{s:s, s:s, s:s, s:s, s:s, s:b, s:i, s:I, s:I}", "netns",
			      v[i].e.netns, "dev", v[i].e.dev, "object", v[i].e.object, "key",
			      v[i].e.key, "old", v[i].e.old, "temp", v[i].e.temp, "pid", v[i].e.pid,
			      "start", (json_int_t)v[i].start, "time", (json_int_t)v[i].e.time);
		json_dumpf(j, f, JSON_COMPACT | JSON_PRESERVE_ORDER);
		fputc('\n', f);
		json_decref(j);
	}
	fflush(f);
	fsync(fileno(f));
	fclose(f);
	return 0;
}

static int rollback_from = -1; /* mode 3: entries from this index on */
static const char *ns_filter;  /* mode 0: only entries of this namespace (NULL: all) */

/* mode: 0 = dev filter (NULL: all), 1 = orphaned temp entries, 2 = this process's temps,
 * 3 = entries recorded since a transaction mark. */
static int restore_common(const char *dev, int mode, int *restored, int *kept)
{
	struct loaded *v;
	bool *sel, *done;
	int fd, n, i, missing = 0, bad;
	bool any_done = false;

	if (restored)
		*restored = 0;
	if (kept)
		*kept = 0;
	fd = open_load(O_RDWR, &v, &n);
	if (fd == -ENOENT)
		return 0;
	if (fd < 0)
		return fd;
	if (!n) {
		free(v);
		close(fd);
		return 0;
	}
	sel = calloc(n, sizeof(bool));
	done = calloc(n, sizeof(bool));
	for (i = 0; i < n && sel && done; i++) {
		if (mode == 1)
			sel[i] = v[i].e.temp && !owner_alive(&v[i]);
		else if (mode == 2)
			sel[i] = v[i].e.temp && v[i].e.pid == getpid();
		else if (mode == 3)
			sel[i] = i >= rollback_from;
		else
			sel[i] = (!dev || !strcmp(v[i].e.dev, dev)) &&
				 (!ns_filter || !strcmp(v[i].e.netns, ns_filter));
	}
	bad = sel && done ? restore_selected(v, n, sel, done, &missing) : -ENOMEM;
	for (i = 0; i < n && done && sel; i++) {
		any_done |= done[i];
		if (done[i] && restored)
			(*restored)++;
		if (sel[i] && !done[i] && kept)
			(*kept)++;
	}
	if (done && any_done)
		write_remaining(fd, v, n, done);
	free(sel);
	free(done);
	free(v);
	close(fd);
	if (bad < 0)
		return bad;
	return bad > missing ? -EIO : 0;
}

int journal_restore(const char *dev, bool only_orphans, int *restored, int *kept)
{
	return restore_common(dev, only_orphans ? 1 : 0, restored, kept);
}

int journal_restore_ns(const char *netns, const char *dev, int *restored, int *kept)
{
	int ret;

	ns_filter = netns;
	ret = restore_common(dev, 0, restored, kept);
	ns_filter = NULL;
	return ret;
}

int journal_txn_begin(int *mark)
{
	struct journal_entry *v;
	int n, ret = journal_load(&v, &n);

	if (ret)
		return ret;
	free(v);
	*mark = n;
	return 0;
}

int journal_txn_drop(int mark)
{
	struct loaded *v;
	bool *done;
	int fd, n, i, ret;

	fd = open_load(O_RDWR, &v, &n);
	if (fd == -ENOENT)
		return 0;
	if (fd < 0)
		return fd;
	if (n <= mark) {
		free(v);
		close(fd);
		return 0;
	}
	done = calloc(n, sizeof(bool));
	if (!done) {
		free(v);
		close(fd);
		return -ENOMEM;
	}
	for (i = mark; i < n; i++)
		done[i] = true;
	ret = write_remaining(fd, v, n, done);
	free(done);
	free(v);
	close(fd);
	return ret;
}

int journal_txn_rollback(int mark)
{
	int restored, kept, ret;

	rollback_from = mark;
	ret = restore_common(NULL, 3, &restored, &kept);
	rollback_from = -1;
	return ret ? ret : kept ? -EIO : 0;
}

static void temp_restore_atexit(void)
{
	if (temp_mode)
		journal_temp_end();
}

static void temp_signal(int sig)
{
	journal_temp_end();
	signal(sig, SIG_DFL);
	raise(sig);
}

int journal_temp_begin(void)
{
	struct sigaction sa = { .sa_handler = temp_signal };
	static bool registered;

	if (!registered) {
		atexit(temp_restore_atexit);
		registered = true;
	}
	sigemptyset(&sa.sa_mask);
	sigaction(SIGINT, &sa, NULL);
	sigaction(SIGTERM, &sa, NULL);
	sigaction(SIGHUP, &sa, NULL);
	temp_mode = true;
	return 0;
}

int journal_temp_end(void)
{
	int restored, kept, ret;

	if (!temp_mode)
		return 0;
	temp_mode = false;
	ret = restore_common(NULL, 2, &restored, &kept);
	if (kept)
		et_warn("%d temporary change(s) could not be restored; see 'ethtune restore "
			"--list'",
			kept);
	return ret;
}

int journal_temp_adopt(int owner)
{
	temp_mode = true;
	temp_owner = owner;
	return 0;
}
