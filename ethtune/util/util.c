/* Small helpers shared by every command: errors, strict parsing, files, namespaces, privilege. */
#define _GNU_SOURCE
#include <ctype.h>
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <math.h>
#include <sched.h>
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include <net/if.h>
#include <sys/mman.h>
#include <sys/mount.h>
#include <sys/prctl.h>
#include <sys/stat.h>
#include <sys/utsname.h>
#include <sys/wait.h>
#include <linux/capability.h>
#include <sys/syscall.h>

#include "util/ethtune.h"
#include "util/stats.h"

struct et_opts et_opts;

static void vmsg(const char *prefix, const char *fmt, va_list ap)
{
	fflush(stdout);
	fprintf(stderr, "ethtune: %s", prefix);
	vfprintf(stderr, fmt, ap);
	fputc('\n', stderr);
}

void et_err(const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vmsg("", fmt, ap);
	va_end(ap);
}

void et_warn(const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vmsg("warning: ", fmt, ap);
	va_end(ap);
}

void et_info(const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	fflush(stdout);
	vfprintf(stderr, fmt, ap);
	fputc('\n', stderr);
	va_end(ap);
}

int parse_u64(const char *s, uint64_t *out)
{
	unsigned long long v;
	char *end;

	if (!s || !*s || !isdigit((unsigned char)*s))
		return -EINVAL;
	errno = 0;
	v = strtoull(s, &end, 0);
	if (errno == ERANGE)
		return -ERANGE;
	if (*end)
		return -EINVAL;
	*out = v;
	return 0;
}

int parse_u32(const char *s, uint32_t *out)
{
	uint64_t v;
	int ret = parse_u64(s, &v);

	if (ret)
		return ret;
	if (v > UINT32_MAX)
		return -ERANGE;
	*out = (uint32_t)v;
	return 0;
}

int parse_size(const char *s, uint64_t *out)
{
	char num[64], *end;
	double v;
	size_t n;
	uint64_t mult = 1;

	if (!s || !*s || !isdigit((unsigned char)*s) || strlen(s) >= sizeof(num))
		return -EINVAL;
	snprintf(num, sizeof(num), "%s", s);
	n = strlen(num);
	if (n > 1 && (num[n - 1] == 'B' || num[n - 1] == 'b'))
		num[--n] = '\0';
	if (n > 1 && (num[n - 1] == 'i'))
		num[--n] = '\0';
	switch (num[n - 1]) {
	case 'k':
	case 'K':
		mult = 1ULL << 10;
		num[--n] = '\0';
		break;
	case 'm':
	case 'M':
		mult = 1ULL << 20;
		num[--n] = '\0';
		break;
	case 'g':
	case 'G':
		mult = 1ULL << 30;
		num[--n] = '\0';
		break;
	}
	errno = 0;
	v = strtod(num, &end);
	if (*end || errno || v < 0 || !n)
		return -EINVAL;
	if (v * (double)mult > 1.8e19)
		return -ERANGE;
	*out = (uint64_t)llround(v * (double)mult);
	return 0;
}

int parse_rate(const char *s, double *bps)
{
	char *end;
	double v;

	if (!s || !*s || !isdigit((unsigned char)*s))
		return -EINVAL;
	errno = 0;
	v = strtod(s, &end);
	if (errno || v < 0)
		return -EINVAL;
	switch (*end) {
	case 'k':
	case 'K':
		v *= 1e3;
		end++;
		break;
	case 'm':
	case 'M':
		v *= 1e6;
		end++;
		break;
	case 'g':
	case 'G':
		v *= 1e9;
		end++;
		break;
	case 't':
	case 'T':
		v *= 1e12;
		end++;
		break;
	}
	if (*end == 'b' || *end == 'B')
		end++;
	if (!strcmp(end, "it") || !strcmp(end, "ps") || !strcmp(end, "it/s") || !strcmp(end, "/s"))
		end += strlen(end);
	if (*end)
		return -EINVAL;
	*bps = v;
	return 0;
}

int parse_on_off(const char *s, bool *out)
{
	if (!s)
		return -EINVAL;
	if (!strcmp(s, "on")) {
		*out = true;
		return 0;
	}
	if (!strcmp(s, "off")) {
		*out = false;
		return 0;
	}
	return -EINVAL;
}

int read_file_str(const char *path, char *buf, size_t len)
{
	ssize_t n;
	int fd = open(path, O_RDONLY | O_CLOEXEC);

	if (fd < 0)
		return -errno;
	n = read(fd, buf, len - 1);
	if (n < 0) {
		int e = -errno;

		close(fd);
		return e;
	}
	close(fd);
	buf[n] = '\0';
	while (n > 0 && (buf[n - 1] == '\n' || buf[n - 1] == ' '))
		buf[--n] = '\0';
	return 0;
}

int read_file_u64(const char *path, uint64_t *out)
{
	char buf[64];
	int ret = read_file_str(path, buf, sizeof(buf));

	if (ret)
		return ret;
	return parse_u64(buf, out);
}

void dev_sysfs_path(char *buf, size_t len, const char *dev, const char *fmt, ...)
{
	int n = snprintf(buf, len, "/sys/class/net/%s/", dev);
	va_list ap;

	if (n < 0 || (size_t)n >= len)
		return;
	va_start(ap, fmt);
	vsnprintf(buf + n, len - n, fmt, ap);
	va_end(ap);
}

int dev_sysfs_u64(const char *dev, const char *rel, uint64_t *out)
{
	char path[400];

	dev_sysfs_path(path, sizeof(path), dev, "%s", rel);
	return read_file_u64(path, out);
}

void dev_bql_path(char *buf, size_t len, const char *dev, unsigned int q, const char *file)
{
	dev_sysfs_path(buf, len, dev, "queues/tx-%u/byte_queue_limits/%s", q, file);
}

int dev_bql_u64(const char *dev, unsigned int q, const char *file, uint64_t *out)
{
	char path[400];

	dev_bql_path(path, sizeof(path), dev, q, file);
	return read_file_u64(path, out);
}

bool dev_has_bql(const char *dev)
{
	char path[400];

	dev_bql_path(path, sizeof(path), dev, 0, "limit");
	return !access(path, F_OK);
}

int write_file_str(const char *path, const char *s)
{
	size_t len = strlen(s);
	ssize_t n;
	int fd = open(path, O_WRONLY | O_CLOEXEC);

	if (fd < 0)
		return -errno;
	n = write(fd, s, len);
	if (n < 0 || (size_t)n != len) {
		int e = n < 0 ? -errno : -EIO;

		close(fd);
		return e;
	}
	return close(fd) ? -errno : 0;
}

int write_file_atomic(const char *path, int (*fill)(FILE *f, void *ctx), void *ctx)
{
	char tmp[PATH_MAX];
	FILE *f;
	int ret;

	if (snprintf(tmp, sizeof(tmp), "%s.tmp", path) >= (int)sizeof(tmp))
		return -ENAMETOOLONG;
	f = fopen(tmp, "w");
	if (!f)
		return -errno;
	errno = 0;
	ret = fill(f, ctx);
	if (!ret && (fflush(f) || fsync(fileno(f))))
		ret = errno ? -errno : -EIO;
	if (fclose(f) && !ret)
		ret = -errno;
	if (!ret && rename(tmp, path))
		ret = -errno;
	if (ret)
		unlink(tmp);
	return ret;
}

#define NETNS_RUN_DIR "/run/netns"

static char netns_entered[NAME_MAX + 1]; /* "" until netns_switch() succeeds */
static bool netns_initial;		 /* netns_switch("") entered the initial namespace */
static int netns_orig_fd = -1;		 /* the namespace before the first switch */

const char *netns_current(void)
{
	return netns_entered[0] ? netns_entered : NULL;
}

/* As iproute2's netns_switch: join the namespace, then remount /sys so sysfs shows it. The
 * name "" is the initial namespace, where the kernel-wide sysctls live and where the journal's
 * entries without a namespace name were made: the one this process started in (when it was
 * that, the kernel-wide sysctls show), else init's. */
int netns_switch(const char *name)
{
	char path[PATH_MAX];
	int fd;

	if (!name || strchr(name, '/'))
		return -EINVAL;
	if (*name) {
		snprintf(path, sizeof(path), "%s/%s", NETNS_RUN_DIR, name);
		/* the namespace we started in, to come back to for "" (init's may be closed
		 * to us) */
		if (netns_orig_fd < 0 && !netns_entered[0] && !netns_initial)
			netns_orig_fd = open("/proc/self/ns/net", O_RDONLY | O_CLOEXEC);
		fd = open(path, O_RDONLY | O_CLOEXEC);
	} else {
		fd = netns_orig_fd >= 0 ? dup(netns_orig_fd) : -1;
		if (fd < 0)
			fd = open("/proc/1/ns/net", O_RDONLY | O_CLOEXEC);
	}
	if (fd < 0)
		return -errno;
	if (setns(fd, CLONE_NEWNET) < 0) {
		int e = -errno;

		close(fd);
		return e;
	}
	close(fd);
	snprintf(netns_entered, sizeof(netns_entered), "%s", name);
	netns_initial = !*name;
	if (unshare(CLONE_NEWNS) < 0)
		return -errno;
	if (mount("", "/", "none", MS_SLAVE | MS_REC, NULL) < 0)
		return -errno;
	umount2("/sys", MNT_DETACH);
	if (mount(name, "/sys", "sysfs", 0, NULL) < 0)
		return -errno;
	return 0;
}

/* Look for dev in every named namespace by asking each one's sysfs via /proc of a child. */
int netns_find_dev(const char *dev, char *buf, size_t len)
{
	DIR *d = opendir(NETNS_RUN_DIR);
	struct dirent *e;
	int self, ret = -ENOENT;

	if (!d)
		return -ENOENT;
	self = open("/proc/self/ns/net", O_RDONLY | O_CLOEXEC);
	if (self < 0) {
		closedir(d);
		return -errno;
	}
	while ((e = readdir(d))) {
		char path[PATH_MAX];
		int fd;

		if (e->d_name[0] == '.')
			continue;
		snprintf(path, sizeof(path), "%s/%s", NETNS_RUN_DIR, e->d_name);
		fd = open(path, O_RDONLY | O_CLOEXEC);
		if (fd < 0)
			continue;
		if (setns(fd, CLONE_NEWNET) == 0) {
			/* if_nametoindex asks the namespace we are in now, not sysfs. */
			if (if_nametoindex(dev)) {
				snprintf(buf, len, "%s", e->d_name);
				ret = 0;
			}
			setns(self, CLONE_NEWNET);
		}
		close(fd);
		if (!ret)
			break;
	}
	close(self);
	closedir(d);
	return ret;
}

/* The name under /run/netns of the namespace we are in, so that a journal entry made inside
 * `ip netns exec NS` names NS too. "" for the initial or an unnamed namespace. */
const char *netns_current_name(char *buf, size_t len)
{
	/* The name found first stays this process's: the namespace may be deleted (its name
	 * unlinked) while we still run in it, and our journal entries name it. */
	static char found[NAME_MAX + 1];
	struct stat self, st;
	struct dirent *e;
	DIR *d;

	buf[0] = '\0';
	if (netns_initial)
		return buf;
	if (netns_current()) {
		snprintf(buf, len, "%s", netns_current());
		return buf;
	}
	if (found[0]) {
		snprintf(buf, len, "%s", found);
		return buf;
	}
	if (stat("/proc/self/ns/net", &self) || !(d = opendir(NETNS_RUN_DIR)))
		return buf;
	while ((e = readdir(d))) {
		char path[PATH_MAX];

		if (e->d_name[0] == '.')
			continue;
		snprintf(path, sizeof(path), "%s/%s", NETNS_RUN_DIR, e->d_name);
		if (!stat(path, &st) && st.st_ino == self.st_ino && st.st_dev == self.st_dev) {
			snprintf(found, sizeof(found), "%s", e->d_name);
			snprintf(buf, len, "%s", e->d_name);
			break;
		}
	}
	closedir(d);
	return buf;
}

static volatile sig_atomic_t stop_sig;

static void on_stop_signal(int sig)
{
	stop_sig = sig;
}

void et_catch_stop_signals(void)
{
	struct sigaction sa = { .sa_handler = on_stop_signal };

	/* No SA_RESTART: a blocking call returns EINTR, so the caller gets to look at the flag. */
	sigemptyset(&sa.sa_mask);
	sigaction(SIGINT, &sa, NULL);
	sigaction(SIGTERM, &sa, NULL);
	sigaction(SIGHUP, &sa, NULL);
}

int et_stop_signal(void)
{
	return stop_sig;
}

void et_stop_reraise(void)
{
	int sig = stop_sig;

	if (!sig)
		return;
	signal(sig, SIG_DFL);
	raise(sig);
}

bool have_cap_net_admin(void)
{
	struct __user_cap_header_struct hdr = { .version = _LINUX_CAPABILITY_VERSION_3 };
	struct __user_cap_data_struct data[2] = {};

	if (syscall(SYS_capget, &hdr, data) < 0)
		return false;
	return data[CAP_NET_ADMIN / 32].effective & (1U << (CAP_NET_ADMIN % 32));
}

uint64_t et_now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000ULL + ts.tv_nsec;
}

int64_t et_now_ms(void)
{
	return (int64_t)(et_now_ns() / 1000000);
}

double et_now_s(void)
{
	return et_now_ns() / 1e9;
}

void et_sleep_s(double s)
{
	struct timespec ts = { (time_t)s, (long)((s - (double)(time_t)s) * 1e9) };

	nanosleep(&ts, NULL);
}

int kver_cmp(const char *a, const char *b)
{
	int i;

	for (i = 0; i < 3; i++) {
		long x = 0, y = 0;

		if (isdigit((unsigned char)*a))
			x = strtol(a, (char **)&a, 10);
		if (isdigit((unsigned char)*b))
			y = strtol(b, (char **)&b, 10);
		if (x != y)
			return x < y ? -1 : 1;
		if (*a == '.')
			a++;
		else
			a = "";
		if (*b == '.')
			b++;
		else
			b = "";
	}
	return 0;
}

bool kver_valid(const char *release)
{
	const char *s = release;

	if (!s || !isdigit((unsigned char)*s))
		return false;
	while (isdigit((unsigned char)*s))
		s++;
	return *s == '.' && isdigit((unsigned char)s[1]);
}

bool kver_at_least(const char *release, int major, int minor)
{
	char v[32];

	snprintf(v, sizeof(v), "%d.%d", major, minor);
	return kver_cmp(release, v) >= 0;
}

bool kernel_at_least(int major, int minor)
{
	struct utsname u;

	if (uname(&u) || !kver_valid(u.release))
		return false;
	return kver_at_least(u.release, major, minor);
}

int netns_run(const char *name, int (*fn)(void *ctx), void *ctx)
{
	pid_t pid;
	int st;

	fflush(NULL);
	pid = fork();
	if (pid < 0)
		return -errno;
	if (pid == 0) {
		int ret;

		if (netns_switch(name))
			_exit(ENONET);
		ret = fn(ctx);
		_exit(ret < 0 && -ret < 256 ? -ret : ret ? EIO : 0);
	}
	/* A stop signal must not leave the child running on its own: it may be making (and
	 * journaling) a change while we go on to undo ours. */
	while (waitpid(pid, &st, 0) < 0)
		if (errno != EINTR)
			return -errno;
	if (!WIFEXITED(st))
		return -EIO;
	return -WEXITSTATUS(st);
}

int netns_run_shared(const char *name, int (*fn)(void *ctx), void *ctx, size_t len)
{
	void *m;
	int ret;

	if (!name)
		return fn(ctx);
	m = mmap(NULL, len, PROT_READ | PROT_WRITE, MAP_SHARED | MAP_ANONYMOUS, -1, 0);
	if (m == MAP_FAILED)
		return -errno;
	memcpy(m, ctx, len);
	ret = netns_run(name, fn, m);
	memcpy(ctx, m, len);
	munmap(m, len);
	return ret;
}

int cmp_double(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;

	return (x > y) - (x < y);
}

int timer_floor_us(unsigned int n, double *floor_us)
{
	const struct timespec req = { .tv_nsec = 20000 };
	int slack = prctl(PR_GET_TIMERSLACK);
	double *late;
	unsigned int i;

	if (!n)
		return -EINVAL;
	late = calloc(n, sizeof(*late));
	if (!late)
		return -ENOMEM;
	/* the default 50 us slack would be measured instead of the platform */
	prctl(PR_SET_TIMERSLACK, 1UL);
	for (i = 0; i < n; i++) {
		double t0 = et_now_s();

		nanosleep(&req, NULL);
		late[i] = fmax(0, (et_now_s() - t0) * 1e6 - 20);
	}
	if (slack > 0)
		prctl(PR_SET_TIMERSLACK, (unsigned long)slack);
	qsort(late, n, sizeof(*late), cmp_double);
	*floor_us = stats_quantile_sorted(late, n, 0.5);
	free(late);
	return 0;
}
