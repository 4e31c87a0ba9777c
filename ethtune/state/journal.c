/* Journal of old values: one JSON line each, fsync'd before a change; a store, no replay. */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <jansson.h>

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
	/* a second stop signal while another ethtune holds the lock must not fail the undo */
	for (;;) {
		int e;

		if (!flock(fd, LOCK_EX))
			break;
		if (errno == EINTR)
			continue;
		e = -errno;
		close(fd);
		return e;
	}
	return fd;
}

/* The line format is the one older versions wrote and read: they can restore these journals. */
static json_t *entry_to_json(const struct journal_entry *e)
{
	return json_pack("{s:s, s:s, s:s, s:s, s:s, s:b, s:i, s:I, s:I}", "netns", e->netns, "dev",
			 e->dev, "object", e->object, "key", e->key, "old", e->old, "temp", e->temp,
			 "pid", e->pid, "start", (json_int_t)e->start, "time", (json_int_t)e->time);
}

static int entry_from_json(json_t *j, struct journal_entry *e)
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
	e->start = st;
	return 0;
}

static int load_fd(int fd, struct journal_entry **out, int *n, off_t *good_end);

int journal_record(const struct journal_entry *in)
{
	struct journal_entry e = *in, *old = NULL;
	json_t *j;
	char *line;
	int fd, n, ret = 0;
	off_t end;
	ssize_t w;
	size_t len;

	if (!e.time)
		e.time = (long long)time(NULL);
	if (temp_mode && !e.temp) {
		e.temp = true;
		e.pid = temp_owner ? temp_owner : getpid();
	}
	if (e.pid && !e.start)
		e.start = proc_start(e.pid);
	fd = open_locked(O_RDWR | O_CREAT | O_APPEND);
	if (fd < 0)
		return fd;
	/* No change goes on top of a journal that could not be replayed, nor glued to a torn
	 * last line (which would make both unreadable): that line is cut off first. */
	ret = load_fd(fd, &old, &n, &end);
	free(old);
	if (!ret && lseek(fd, 0, SEEK_END) > end && ftruncate(fd, end) < 0)
		ret = -errno;
	if (ret) {
		close(fd);
		return ret;
	}
	j = entry_to_json(&e);
	line = json_dumps(j, JSON_COMPACT | JSON_PRESERVE_ORDER);
	json_decref(j);
	if (!line) {
		close(fd);
		return -ENOMEM;
	}
	len = strlen(line);
	line[len] = '\n';
	w = write(fd, line, len + 1);
	if (w != (ssize_t)(len + 1))
		ret = w < 0 ? -errno : -ENOSPC; /* a short write: the disk is full */
	else if (fsync(fd) < 0)
		ret = -errno;
	if (ret) /* best effort: a torn line left behind is cut off by the next record */
		(void)!ftruncate(fd, end);
	free(line);
	close(fd);
	return ret;
}

static int bad_line; /* the corrupt line the last load stopped at */

static int load_fd(int fd, struct journal_entry **out, int *n, off_t *good_end)
{
	FILE *f;
	char *line = NULL;
	size_t cap = 0;
	struct journal_entry *v = NULL;
	int cnt = 0, dupfd, lineno = 0, ret = 0;
	ssize_t len;

	*out = NULL;
	*n = 0;
	if (good_end)
		*good_end = 0;
	dupfd = dup(fd);
	if (dupfd < 0)
		return -errno;
	lseek(dupfd, 0, SEEK_SET);
	f = fdopen(dupfd, "r");
	if (!f) {
		close(dupfd);
		return -errno;
	}
	bad_line = 0;
	while ((len = getline(&line, &cap, f)) > 0) {
		json_t *j = json_loads(line, 0, NULL);
		struct journal_entry *nv;

		lineno++;
		/* A torn last line (no newline: a crash mid-write) is skipped; any other line that
		 * does not parse means the journal cannot be trusted to restore everything. */
		if (!j && line[len - 1] != '\n' && fgetc(f) == EOF)
			break;
		nv = j ? realloc(v, sizeof(*v) * (cnt + 1)) : NULL;
		if (j && !nv) {
			json_decref(j);
			ret = -ENOMEM;
			break;
		}
		if (nv)
			v = nv;
		if (!j || entry_from_json(j, &v[cnt])) {
			json_decref(j);
			bad_line = lineno;
			ret = -EBADMSG;
			break;
		}
		cnt++;
		json_decref(j);
		if (good_end)
			*good_end += len;
	}
	free(line);
	fclose(f);
	if (ret) {
		free(v);
		return ret;
	}
	*out = v;
	*n = cnt;
	return 0;
}

const char *journal_strerror(int err)
{
	static char buf[128];

	if (err != -EBADMSG)
		return strerror(-err);
	snprintf(buf, sizeof(buf), "line %d is corrupt (fix or move the file away)", bad_line);
	return buf;
}

int journal_load(struct journal_entry **out, int *n)
{
	int fd = open_locked(O_RDONLY), ret;

	*out = NULL;
	*n = 0;
	if (fd == -ENOENT)
		return 0;
	if (fd < 0)
		return fd;
	ret = load_fd(fd, out, n, NULL);
	close(fd);
	if (!ret && !*out)
		*out = calloc(1, sizeof(**out));
	return ret ? ret : *out ? 0 : -ENOMEM;
}

bool journal_owner_alive(const struct journal_entry *e)
{
	return e->pid > 0 && proc_start(e->pid) == e->start;
}

static int write_remaining(int fd, const struct journal_entry *v, int n, const bool *done)
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
		j = entry_to_json(&v[i]);
		json_dumpf(j, f, JSON_COMPACT | JSON_PRESERVE_ORDER);
		fputc('\n', f);
		json_decref(j);
	}
	fflush(f);
	fsync(fileno(f));
	fclose(f);
	return 0;
}

int journal_open(struct journal_view *v)
{
	int ret;

	v->n = 0;
	v->e = NULL;
	v->fd = open_locked(O_RDWR);
	if (v->fd == -ENOENT) {
		v->fd = -1;
		return 0;
	}
	if (v->fd < 0) {
		ret = v->fd;
		v->fd = -1;
		return ret;
	}
	ret = load_fd(v->fd, &v->e, &v->n, NULL);
	if (ret) {
		close(v->fd);
		v->fd = -1;
	}
	return ret;
}

int journal_close(struct journal_view *v, const bool *done)
{
	bool any = false;
	int i, ret = 0;

	for (i = 0; done && i < v->n; i++)
		any |= done[i];
	if (any && v->fd >= 0)
		ret = write_remaining(v->fd, v->e, v->n, done);
	if (v->fd >= 0)
		close(v->fd);
	free(v->e);
	v->fd = -1;
	v->e = NULL;
	v->n = 0;
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
	struct journal_view jv;
	bool *done;
	int i, ret;

	ret = journal_open(&jv);
	if (ret || jv.n <= mark)
		return ret ? ret : journal_close(&jv, NULL);
	done = calloc(jv.n, sizeof(bool));
	if (!done) {
		journal_close(&jv, NULL);
		return -ENOMEM;
	}
	for (i = mark; i < jv.n; i++)
		done[i] = true;
	ret = journal_close(&jv, done);
	free(done);
	return ret;
}

void journal_set_temp(bool temp, int owner)
{
	temp_mode = temp;
	temp_owner = owner;
}

int journal_temp_adopt(int owner)
{
	journal_set_temp(true, owner);
	return 0;
}

bool journal_temp_active(void)
{
	return temp_mode;
}
