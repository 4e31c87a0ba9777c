/* Shared declarations of ethtune: commands, errors, options common to every module. */
#ifndef ETHTUNE_H
#define ETHTUNE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>
#include <stdint.h>

#define ETHTUNE_VERSION "0.1.0"

/* Exit codes chosen only by command handlers. */
enum {
	EXIT_OK = 0,
	EXIT_FAIL = 1,	/* operation failed (device, kernel, peer) */
	EXIT_USAGE = 2, /* bad command line */
};

/* Global options parsed before the command, as the user gave them (never changed later). */
struct et_opts {
	bool json;
	const char *netns; /* --netns; the namespace we are in is netns_current() */
	bool verbose;
	const char *key_file; /* --key-file: serve's shared secret, for serve and its clients */
};
extern struct et_opts et_opts;

/* One clear line on stderr: "ethtune: <msg>". */
void et_err(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
void et_warn(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
void et_info(const char *fmt, ...) __attribute__((format(printf, 1, 2)));

/* Enter network namespace NAME (from /run/netns) and remount /sys for it. 0 or -errno. */
int netns_switch(const char *name);
/* The namespace netns_switch() last entered in this process; NULL while it is still in the one
 * it started in. */
const char *netns_current(void);
/* Name (under /run/netns) of the namespace this process is in; "" if initial or unnamed. */
const char *netns_current_name(char *buf, size_t len);

/* Stop signals (SIGINT, SIGTERM, SIGHUP). The handler et_catch_stop_signals() installs only
 * records the signal: long loops poll et_stop_signal() and end with -EINTR, temporary changes
 * are undone outside the handler, and et_stop_reraise() then ends the process with the signal
 * (exit status 128 + signal, as if it had not been caught). */
void et_catch_stop_signals(void);
int et_stop_signal(void); /* the pending stop signal, 0 if none */
void et_stop_reraise(void);
/* Run fn(ctx) in a child process inside namespace name (netns_current() is name there). 0 or fn's
 * -errno; -ENONET when the child cannot enter the namespace, -EIO when it dies. */
int netns_run(const char *name, int (*fn)(void *ctx), void *ctx);
/* netns_run() with ctx, len bytes, in memory shared with the child both ways, so that what fn
 * writes there comes back; name NULL: fn runs here. fn's 0 or -errno. */
int netns_run_shared(const char *name, int (*fn)(void *ctx), void *ctx, size_t len);
/* Find the named namespace holding device dev (buf gets the name). 0 or -ENOENT. */
int netns_find_dev(const char *dev, char *buf, size_t len);

/* Enter the --netns namespace, if any; one clear line on failure. 0 or -errno. */
int enter_netns_opt(void);
/* One clear line for an unknown device: says which named namespace holds it, if one does.
 * Returns -ENODEV (-EINVAL for a name too long). */
int report_missing_dev(const char *dev);
/* TX queues of dev as sysfs lists them (queues/tx-0, tx-1, ...), at most max. */
unsigned int sysfs_tx_queues(const char *dev, unsigned int max);
/* BQL over a device's TX queues (queues/tx-N/byte_queue_limits/): limit, limit_min and inflight
 * summed over the queues that have the file, stall_cnt summed, stall_max (ms) the maximum. */
struct bql_sum {
	unsigned int n_txq, n_bql;	/* TX queues; those with byte_queue_limits */
	bool have_inflight, have_stall; /* stall_* exist since 6.9 */
	uint64_t limit, limit_min, inflight, stall_cnt, stall_max;
};
void bql_sum_read(const char *dev, struct bql_sum *b);

/* Strict number parsing: whole string, range-checked. 0 or -EINVAL/-ERANGE. */
int parse_u32(const char *s, uint32_t *out);
int parse_u64(const char *s, uint64_t *out);
/* Sizes with K/M/G (binary) suffixes, rates with k/M/G (decimal bits) suffixes. */
int parse_size(const char *s, uint64_t *out);
int parse_rate(const char *s, double *bits_per_s);
int parse_on_off(const char *s, bool *out);

/* Read or write a small sysfs/procfs file. 0 or -errno. */
int read_file_str(const char *path, char *buf, size_t len);
int read_file_u64(const char *path, uint64_t *out);
/* buf: the device's sysfs directory, /sys/class/net/DEV/, followed by fmt's path within it. */
void dev_sysfs_path(char *buf, size_t len, const char *dev, const char *fmt, ...)
	__attribute__((format(printf, 4, 5)));
/* A number from a device's sysfs directory: /sys/class/net/DEV/REL (e.g. statistics/tx_bytes),
 * in the namespace whose sysfs is mounted. 0 or -errno. */
int dev_sysfs_u64(const char *dev, const char *rel, uint64_t *out);
/* The path of one file of TX queue q's byte_queue_limits (limit, inflight, stall_cnt...). */
void dev_bql_path(char *buf, size_t len, const char *dev, unsigned int q, const char *file);
/* That file's number. 0 or -errno (-ENOENT: the queue does not exist or has no BQL). */
int dev_bql_u64(const char *dev, unsigned int q, const char *file, uint64_t *out);
/* Whether dev's first TX queue has byte queue limits (a driver without BQL has no directory). */
bool dev_has_bql(const char *dev);
int write_file_str(const char *path, const char *s);
/* path whole or not at all: fill writes to path.tmp, which is fsync'd and renamed over path;
 * fill returns 0 or -errno. 0 or -errno (path.tmp is removed on failure). */
int write_file_atomic(const char *path, int (*fill)(FILE *f, void *ctx), void *ctx);

/* Capabilities: true when the process has CAP_NET_ADMIN. */
bool have_cap_net_admin(void);

/* qsort comparator for doubles, ascending. */
int cmp_double(const void *a, const void *b);
/* The monotonic clock (CLOCK_MONOTONIC): the one time base of every measurement. */
uint64_t et_now_ns(void);
int64_t et_now_ms(void);
double et_now_s(void);
/* Sleep s seconds (a signal may end it early). */
void et_sleep_s(double s);

/* Kernel releases ("6.1.0-13-amd64", "6.16"): compare the first three numbers, a missing one
 * counting 0; <0, 0 or >0. */
int kver_cmp(const char *a, const char *b);
/* True when release starts "MAJOR.MINOR". */
bool kver_valid(const char *release);
/* release >= major.minor. */
bool kver_at_least(const char *release, int major, int minor);
/* The running kernel (uname -r) >= major.minor; false when it cannot be read. */
bool kernel_at_least(int major, int minor);
/* Median lateness, in us, of this host's timer wake-ups (n sleeps of 20 us, no timer slack): the
 * floor under any completion that waits for a timer or an interrupt here. 0 or -errno. */
int timer_floor_us(unsigned int n, double *floor_us);

#endif
