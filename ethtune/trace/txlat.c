/* ethtune txlat: per-skb xmit-to-free latency per TX queue and socket-orphan detection, by BPF. */
#define _GNU_SOURCE
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <math.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include <net/if.h>
#include <sys/mount.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <linux/capability.h>
#include <linux/if_link.h>
#include <bpf/bpf.h>
#include <bpf/libbpf.h>

#include "cli/commands.h"
#include "nl/devobj.h"
#include "knowledge/drvdb.h"
#include "util/ethtune.h"
#include "util/stats.h"
#include "out/json_print.h"
#include "cli/showext.h"
#include "txlat.h"
#include "txlat.skel.h"

#define TXLAT_MAX_BQL	64
#define TXLAT_MAX_IRQS	256
#define SAMPLE_MS	100
#define TXLAT_MAX_FLOOR 1024
#define MIN(a, b)	((a) < (b) ? (a) : (b))

enum txlat_hook { HOOK_XMIT, HOOK_CONSUME, HOOK_KFREE, HOOK_WFREE, HOOK_PEER, NHOOKS };

/* A way to attach the same handlers. prog() returns NULL for a hook the backend lacks;
 * prepare is NULL when the backend needs nothing from the environment. */
struct txlat_ops {
	const char *name;
	int (*prepare)(char *why, size_t len);
	struct bpf_program *(*prog)(struct txlat_bpf *s, enum txlat_hook h);
};

static struct bpf_program *btf_prog(struct txlat_bpf *s, enum txlat_hook h)
{
	struct bpf_program *p[] = { s->progs.btf_xmit, s->progs.btf_consume, s->progs.btf_kfree,
				    s->progs.btf_wfree, s->progs.btf_peer };
	return p[h];
}

static struct bpf_program *raw_prog(struct txlat_bpf *s, enum txlat_hook h)
{
	struct bpf_program *p[] = { s->progs.raw_xmit, s->progs.raw_consume, s->progs.raw_kfree,
				    NULL, s->progs.raw_peer };
	return p[h];
}

static struct bpf_program *tp_prog(struct txlat_bpf *s, enum txlat_hook h)
{
	struct bpf_program *p[] = { s->progs.tp_xmit, s->progs.tp_consume, s->progs.tp_kfree, NULL,
				    s->progs.tp_peer };
	return p[h];
}

/* Perf tracepoints resolve their ids through tracefs: mount it when it is missing. */
static int tracefs_prepare(char *why, size_t len)
{
	if (!access("/sys/kernel/tracing/events/net", F_OK) ||
	    !access("/sys/kernel/debug/tracing/events/net", F_OK))
		return 0;
	if (mount("nodev", "/sys/kernel/tracing", "tracefs", 0, NULL) &&
	    access("/sys/kernel/tracing/events/net", F_OK)) {
		int err = -errno;

		snprintf(
			why, len,
			"backend 'tracepoint' needs tracefs, which is not mounted and could not be "
			"mounted (%s); run 'mount -t tracefs nodev /sys/kernel/tracing' or use "
			"--backend btf|raw",
			strerror(-err));
		return err ? err : -ENOENT;
	}
	return 0;
}

static const struct txlat_ops txlat_backends[] = {
	{ "btf", NULL, btf_prog },
	{ "raw", NULL, raw_prog },
	{ "tracepoint", tracefs_prepare, tp_prog },
};
#define N_BACKENDS (sizeof(txlat_backends) / sizeof(txlat_backends[0]))

struct txlat_q {
	struct txlat_qstats st;
	struct txlat_hist h[TXLAT_H_NKINDS];
};

struct bql_sample {
	unsigned int n;
	uint64_t inflight_sum, inflight_max, inflight_min, limit_min, limit_max, limit_last;
	bool ok;
};

struct txlat_run {
	const char *dev;
	int ifindex;
	uint32_t netns_ino;
	double duration_s;	/* 0: until the load ends */
	char **load_argv;	/* NULL: no load */
	const char *backend;	/* NULL: first that loads */
	const char *completion; /* driver, receiver (veth, loopback) or reader (tun) */
	bool peer;		/* time the peer's receive of the same skb */
	/* results */
	const struct txlat_ops *ops;
	bool wfree_hooked, ksyms_ok;
	double elapsed_s;
	/* lateness of 20 us timer sleeps taken between samples, under the same load: what this
	 * host adds to anything that waits for a timer or an interrupt (a guest: ~100 us) */
	unsigned int nfloor;
	double floor_us[TXLAT_MAX_FLOOR];
	int load_status; /* wait status of the load, -1 none */
	struct txlat_q q[TXLAT_MAX_QUEUES], total;
	unsigned int nbql;
	struct bql_sample bql[TXLAT_MAX_BQL];
	unsigned int nirq, ntxirq;
	int irq[TXLAT_MAX_IRQS];
	bool irq_tx[TXLAT_MAX_IRQS];
	uint64_t irq0, irq1, txirq0, txirq1;
	int64_t unmatched;
	uint64_t bpf_run_ns, bpf_runs; /* cost of the programs (BPF_ENABLE_STATS), 0 unknown */
	char why[256];		       /* why tracing could not start, "" if only errno says */
};

static volatile sig_atomic_t txlat_stop;

static void on_signal(int sig __attribute__((unused)))
{
	txlat_stop = 1;
}

static int libbpf_print_fn(enum libbpf_print_level level, const char *fmt, va_list ap)
{
	if (!et_opts.verbose || level == LIBBPF_DEBUG)
		return 0;
	return vfprintf(stderr, fmt, ap);
}

uint64_t txlat_hist_count(const struct txlat_hist *h)
{
	uint64_t n = 0;
	unsigned int i;

	for (i = 0; i < TXLAT_NBUCKETS; i++)
		n += h->slot[i];
	return n;
}

/* Value at quantile p (0..1): the middle of the bucket that holds it, in ns; 0 when empty. */
uint64_t txlat_hist_quantile(const struct txlat_hist *h, double p)
{
	uint64_t n = txlat_hist_count(h);
	unsigned int i;

	if (!n)
		return 0;
	/* __u64 and uint64_t are the same 64-bit unsigned counter */
	i = stats_bucket_of_rank((const uint64_t *)h->slot, TXLAT_NBUCKETS, stats_rank(p, n));
	if (i == TXLAT_NBUCKETS)
		return txlat_bucket_lo(TXLAT_NBUCKETS - 1);
	return txlat_bucket_lo(i) + txlat_bucket_width(i) / 2;
}

/* Distribution-free 95% interval of the median from order statistics: the samples of ranks
 * n/2 -+ 0.98 sqrt(n) (binomial, normal approximation), as bucket bounds; 0 when empty. */
void txlat_hist_median_ci(const struct txlat_hist *h, uint64_t *lo_ns, uint64_t *hi_ns)
{
	uint64_t n = txlat_hist_count(h), cum = 0, rlo, rhi;
	double half;
	unsigned int i;

	*lo_ns = *hi_ns = 0;
	if (!n)
		return;
	half = 0.98 * sqrt((double)n);
	rlo = n / 2.0 - half < 1 ? 1 : (uint64_t)floor(n / 2.0 - half);
	rhi = n / 2.0 + half + 1 > n ? n : (uint64_t)ceil(n / 2.0 + half + 1);
	for (i = 0; i < TXLAT_NBUCKETS; i++) {
		uint64_t before = cum;

		cum += h->slot[i];
		if (before < rlo && cum >= rlo)
			*lo_ns = txlat_bucket_lo(i);
		if (before < rhi && cum >= rhi) {
			*hi_ns = txlat_bucket_lo(i) + txlat_bucket_width(i);
			return;
		}
	}
	*hi_ns = txlat_bucket_lo(TXLAT_NBUCKETS - 1);
}

/* Capabilities the BPF programs need: CAP_SYS_ADMIN, or CAP_BPF with CAP_PERFMON. */
static bool have_bpf_caps(void)
{
	struct __user_cap_header_struct hdr = { _LINUX_CAPABILITY_VERSION_3, 0 };
	struct __user_cap_data_struct data[2] = {};
	uint64_t eff;

	if (syscall(SYS_capget, &hdr, data))
		return false;
	eff = data[0].effective | ((uint64_t)data[1].effective << 32);
	return (eff & (1ULL << 21)) || ((eff & (1ULL << 39)) && (eff & (1ULL << 38)));
}

/* Addresses of the socket write-memory destructors, to tell owned skbs from orphaned ones. */
static int read_ksyms(uint64_t *tcp_wfree, uint64_t *sock_wfree, uint64_t *__sock_wfree)
{
	FILE *f = fopen("/proc/kallsyms", "r");
	char line[256], name[128], type;
	unsigned long long a;

	*tcp_wfree = *sock_wfree = *__sock_wfree = 0;
	if (!f)
		return -errno;
	while (fgets(line, sizeof(line), f)) {
		if (sscanf(line, "%llx %c %127s", &a, &type, name) != 3 || strchr(line, '['))
			continue;
		if (!strcmp(name, "tcp_wfree"))
			*tcp_wfree = a;
		else if (!strcmp(name, "sock_wfree"))
			*sock_wfree = a;
		else if (!strcmp(name, "__sock_wfree"))
			*__sock_wfree = a;
	}
	fclose(f);
	return *tcp_wfree ? 0 : -ENOENT;
}

static void sum_q(struct txlat_q *dst, const struct txlat_q *src)
{
	unsigned int i, k;

	for (i = 0; i < TXLAT_C_NCTR; i++)
		dst->st.c[i] += src->st.c[i];
	for (k = 0; k < TXLAT_H_NKINDS; k++) {
		dst->st.sum_ns[k] += src->st.sum_ns[k];
		if (src->st.max_ns[k] > dst->st.max_ns[k])
			dst->st.max_ns[k] = src->st.max_ns[k];
		for (i = 0; i < TXLAT_NBUCKETS; i++)
			dst->h[k].slot[i] += src->h[k].slot[i];
	}
}

static int read_maps(struct txlat_bpf *s, struct txlat_run *r)
{
	int ncpu = libbpf_num_possible_cpus(), c, ret = 0;
	size_t hsz = sizeof(struct txlat_hist), ssz = sizeof(struct txlat_qstats);
	void *buf;
	__u32 q, k;

	if (ncpu <= 0)
		return ncpu ? ncpu : -EINVAL;
	buf = calloc(ncpu, hsz > ssz ? hsz : ssz);
	if (!buf)
		return -ENOMEM;
	for (q = 0; q < TXLAT_MAX_QUEUES; q++) {
		struct txlat_q *tq = &r->q[q];

		if (bpf_map_lookup_elem(bpf_map__fd(s->maps.qstats), &q, buf)) {
			ret = -errno;
			goto out;
		}
		for (c = 0; c < ncpu; c++) {
			struct txlat_qstats *st = (void *)((char *)buf + c * ssz);
			unsigned int i;

			for (i = 0; i < TXLAT_C_NCTR; i++)
				tq->st.c[i] += st->c[i];
			for (i = 0; i < TXLAT_H_NKINDS; i++)
				tq->st.sum_ns[i] += st->sum_ns[i];
			for (i = 0; i < TXLAT_H_NKINDS; i++)
				if (st->max_ns[i] > tq->st.max_ns[i])
					tq->st.max_ns[i] = st->max_ns[i];
		}
		for (k = 0; k < TXLAT_H_NKINDS; k++) {
			__u32 key = k * TXLAT_MAX_QUEUES + q;
			unsigned int i;

			if (bpf_map_lookup_elem(bpf_map__fd(s->maps.hists), &key, buf)) {
				ret = -errno;
				goto out;
			}
			for (c = 0; c < ncpu; c++) {
				struct txlat_hist *h = (void *)((char *)buf + c * hsz);

				for (i = 0; i < TXLAT_NBUCKETS; i++)
					tq->h[k].slot[i] += h->slot[i];
			}
		}
		sum_q(&r->total, tq);
	}
out:
	free(buf);
	return ret;
}

/* Load and attach one backend; 0 or -errno (the skeleton is destroyed on failure). */
static int txlat_attach(struct txlat_run *r, const struct txlat_ops *ops, bool wfree,
			struct txlat_bpf **out)
{
	uint64_t tw, sw, __sw;
	struct txlat_bpf *s;
	struct bpf_program *p;
	int h, ret;

	if (ops->prepare) {
		ret = ops->prepare(r->why, sizeof(r->why));
		if (ret)
			return ret;
	}
	s = txlat_bpf__open();
	if (!s)
		return errno ? -errno : -EINVAL;
	r->ksyms_ok = !read_ksyms(&tw, &sw, &__sw);
	s->rodata->targ_ifindex = r->ifindex;
	s->rodata->targ_netns = r->netns_ino;
	s->rodata->addr_tcp_wfree = tw;
	s->rodata->addr_sock_wfree = sw;
	s->rodata->addr___sock_wfree = __sw;
	for (p = bpf_object__next_program(s->obj, NULL); p; p = bpf_object__next_program(s->obj, p))
		bpf_program__set_autoload(p, false);
	for (h = 0; h < NHOOKS; h++) {
		p = ops->prog(s, h);
		if (p && (h != HOOK_WFREE || wfree) && (h != HOOK_PEER || r->peer))
			bpf_program__set_autoload(p, true);
	}
	ret = txlat_bpf__load(s);
	if (!ret)
		ret = txlat_bpf__attach(s);
	if (ret) {
		ret = ret < 0 ? ret : -errno;
		txlat_bpf__destroy(s);
		return ret;
	}
	r->ops = ops;
	r->wfree_hooked = wfree && ops->prog(s, HOOK_WFREE);
	*out = s;
	return 0;
}

/* Try the requested backend, or each in turn (with tcp_wfree timing first, then without). The
 * error reported is the first backend's without fentry: fentry fails on kernels without
 * trampolines, which says nothing about the rest. */
static int txlat_open(struct txlat_run *r, struct txlat_bpf **out)
{
	struct txlat_bpf *probe = txlat_bpf__open();
	int ret = -ENOENT, first = 0;
	size_t i;

	if (!probe)
		return errno ? -errno : -EINVAL;
	for (i = 0; i < N_BACKENDS; i++) {
		const struct txlat_ops *ops = &txlat_backends[i];

		if (r->backend && strcmp(r->backend, ops->name))
			continue;
		if (ops->prog(probe, HOOK_WFREE)) {
			ret = txlat_attach(r, ops, true, out);
			if (!ret)
				break;
			if (et_opts.verbose)
				et_info("txlat: backend %s with fentry/tcp_wfree: %s (trying "
					"without)",
					ops->name, strerror(-ret));
		}
		ret = txlat_attach(r, ops, false, out);
		if (!ret)
			break;
		if (et_opts.verbose)
			et_info("txlat: backend %s: %s", ops->name, strerror(-ret));
		first = first ? first : ret;
		if (ret == -EPERM || r->backend)
			break;
	}
	txlat_bpf__destroy(probe);
	return ret ? (first ? first : ret) : 0;
}

/* IRQs of the device: /proc/interrupts names containing DEV, and the device's MSI vectors. */
static void irq_find(struct txlat_run *r)
{
	char path[512], line[4096];
	const char *dirs[] = { "device/msi_irqs", "device/../msi_irqs" };
	bool msi[4096] = {};
	FILE *f;
	size_t i;

	for (i = 0; i < 2; i++) {
		struct dirent *de;
		DIR *d;

		snprintf(path, sizeof(path), "/sys/class/net/%s/%s", r->dev, dirs[i]);
		d = opendir(path);
		if (!d)
			continue;
		while ((de = readdir(d))) {
			int n = atoi(de->d_name);

			if (n > 0 && n < 4096)
				msi[n] = true;
		}
		closedir(d);
	}
	f = fopen("/proc/interrupts", "r");
	if (!f)
		return;
	while (fgets(line, sizeof(line), f) && r->nirq < TXLAT_MAX_IRQS) {
		char *colon = strchr(line, ':'), *name;
		int n;

		if (!colon || sscanf(line, " %d:", &n) != 1)
			continue;
		name = strrchr(line, ' ');
		name = name ? name + 1 : line;
		name[strcspn(name, "\n")] = 0;
		if (!((n > 0 && n < 4096 && msi[n]) ||
		      (!strncmp(name, r->dev, strlen(r->dev)) &&
		       (name[strlen(r->dev)] == 0 || name[strlen(r->dev)] == '-'))))
			continue;
		r->irq[r->nirq] = n;
		r->irq_tx[r->nirq] = strcasestr(name, "tx") || strstr(name, "output");
		r->ntxirq += r->irq_tx[r->nirq];
		r->nirq++;
	}
	fclose(f);
}

static void irq_count(struct txlat_run *r, uint64_t *all, uint64_t *tx)
{
	char line[4096];
	FILE *f;

	*all = *tx = 0;
	if (!r->nirq)
		return;
	f = fopen("/proc/interrupts", "r");
	if (!f)
		return;
	while (fgets(line, sizeof(line), f)) {
		char *p, *end;
		unsigned int i;
		uint64_t sum = 0;
		int n;

		if (sscanf(line, " %d:", &n) != 1)
			continue;
		for (i = 0; i < r->nirq && r->irq[i] != n; i++)
			;
		if (i == r->nirq)
			continue;
		p = strchr(line, ':') + 1;
		for (;;) {
			unsigned long long v = strtoull(p, &end, 10);

			if (end == p)
				break;
			sum += v;
			p = end;
		}
		*all += sum;
		if (r->irq_tx[i])
			*tx += sum;
	}
	fclose(f);
}

static void bql_sample(struct txlat_run *r)
{
	unsigned int q;

	for (q = 0; q < r->nbql; q++) {
		struct bql_sample *b = &r->bql[q];
		char path[256];
		uint64_t in, lim;

		snprintf(path, sizeof(path),
			 "/sys/class/net/%s/queues/tx-%u/byte_queue_limits/inflight", r->dev, q);
		if (read_file_u64(path, &in))
			continue;
		snprintf(path, sizeof(path),
			 "/sys/class/net/%s/queues/tx-%u/byte_queue_limits/limit", r->dev, q);
		if (read_file_u64(path, &lim))
			continue;
		if (!b->n) {
			b->inflight_min = in;
			b->limit_min = lim;
		}
		b->ok = true;
		b->n++;
		b->inflight_sum += in;
		b->inflight_max = in > b->inflight_max ? in : b->inflight_max;
		b->inflight_min = in < b->inflight_min ? in : b->inflight_min;
		b->limit_max = lim > b->limit_max ? lim : b->limit_max;
		b->limit_min = lim < b->limit_min ? lim : b->limit_min;
		b->limit_last = lim;
	}
}

static void bql_count_queues(struct txlat_run *r)
{
	char path[256];

	for (r->nbql = 0; r->nbql < TXLAT_MAX_BQL; r->nbql++) {
		snprintf(path, sizeof(path), "/sys/class/net/%s/queues/tx-%u", r->dev, r->nbql);
		if (access(path, F_OK))
			break;
	}
}

static pid_t start_load(char **argv)
{
	pid_t pid = fork();

	if (pid)
		return pid;
	/* The report owns stdout; the load's own output goes to stderr with -v, else away. */
	if (et_opts.verbose) {
		dup2(2, 1);
	} else {
		int fd = open("/dev/null", O_WRONLY);

		if (fd >= 0)
			dup2(fd, 1);
	}
	signal(SIGINT, SIG_DFL);
	signal(SIGTERM, SIG_DFL);
	execvp(argv[0], argv);
	fprintf(stderr, "ethtune: txlat: cannot run load '%s': %s\n", argv[0], strerror(errno));
	_exit(127);
}

/* What the programs cost: their run time and runs, as the kernel counted them. */
static void bpf_cost(struct txlat_bpf *s, struct txlat_run *r)
{
	struct bpf_program *p;

	for (p = bpf_object__next_program(s->obj, NULL); p;
	     p = bpf_object__next_program(s->obj, p)) {
		struct bpf_prog_info info = {};
		__u32 len = sizeof(info);

		if (bpf_program__fd(p) < 0 ||
		    bpf_obj_get_info_by_fd(bpf_program__fd(p), &info, &len))
			continue;
		r->bpf_run_ns += info.run_time_ns;
		r->bpf_runs += info.run_cnt;
	}
}

/* Trace while the load (if any) runs and for duration_s; samples BQL and IRQs meanwhile. */
static int txlat_trace(struct txlat_run *r)
{
	struct txlat_bpf *s = NULL;
	struct sigaction sa = { .sa_handler = on_signal };
	pid_t child = -1;
	double t0, end;
	int ret, stats_fd;

	ret = txlat_open(r, &s);
	if (ret)
		return ret;
	/* Run-time accounting of BPF programs, while stats_fd is open (needs CAP_SYS_ADMIN). */
	stats_fd = bpf_enable_stats(BPF_STATS_RUN_TIME);
	sigaction(SIGINT, &sa, NULL);
	sigaction(SIGTERM, &sa, NULL);
	irq_find(r);
	irq_count(r, &r->irq0, &r->txirq0);
	t0 = et_now_s();
	end = r->duration_s > 0 ? t0 + r->duration_s : 0;
	r->load_status = -1;
	if (r->load_argv) {
		child = start_load(r->load_argv);
		if (child < 0) {
			ret = -errno;
			txlat_bpf__destroy(s);
			return ret;
		}
	}
	while (!txlat_stop) {
		struct timespec ts = { 0, SAMPLE_MS * 1000000L };
		int st;

		bql_sample(r);
		if (child > 0 && waitpid(child, &st, WNOHANG) == child) {
			r->load_status = st;
			child = -1;
			if (!end)
				break;
		}
		if (end && et_now_s() >= end)
			break;
		if (r->nfloor < TXLAT_MAX_FLOOR && !timer_floor_us(5, &r->floor_us[r->nfloor]))
			r->nfloor++;
		nanosleep(&ts, NULL);
	}
	r->elapsed_s = et_now_s() - t0;
	qsort(r->floor_us, r->nfloor, sizeof(r->floor_us[0]), cmp_double);
	irq_count(r, &r->irq1, &r->txirq1);
	/* Stop tracing before reading, so that the counts are consistent. */
	txlat_bpf__detach(s);
	if (stats_fd >= 0) {
		bpf_cost(s, r);
		close(stats_fd);
	}
	ret = read_maps(s, r);
	txlat_bpf__destroy(s);
	if (child > 0) {
		kill(child, SIGTERM);
		waitpid(child, &r->load_status, 0);
	}
	return ret;
}

/* ---- report ---- */

static void print_us(const char *key, const char *fmt, uint64_t ns)
{
	print_float(PRINT_ANY, key, fmt, ns / 1000.0);
}

static void print_quantiles(const struct txlat_hist *h, uint64_t max_ns, uint64_t sum_ns)
{
	uint64_t n = txlat_hist_count(h), lo, hi;

	if (!n) {
		print_na("mean_us", " mean %s");
		print_na("p50_us", " p50 %s");
		print_na("p90_us", " p90 %s");
		print_na("p99_us", " p99 %s");
		print_na("max_us", " max %s");
		return;
	}
	print_us("mean_us", " mean %.1f us", sum_ns / n);
	/* A bucket's middle may lie above the largest sample in it. */
	print_us("p50_us", " p50 %.1f us", MIN(txlat_hist_quantile(h, 0.50), max_ns));
	txlat_hist_median_ci(h, &lo, &hi);
	print_us("p50_lo_us", " [%.1f,", lo);
	print_us("p50_hi_us", " %.1f]", MIN(hi, max_ns));
	print_us("p90_us", " p90 %.1f us", MIN(txlat_hist_quantile(h, 0.90), max_ns));
	print_us("p99_us", " p99 %.1f us", MIN(txlat_hist_quantile(h, 0.99), max_ns));
	print_us("max_us", " max %.1f us", max_ns);
}

/* log2 microsecond buckets, summed from the fine buckets. */
static void print_log2(const struct txlat_hist *h)
{
	uint64_t b[64] = {}, top = 0;
	int i, lo = 64, hi = -1;

	for (i = 0; i < TXLAT_NBUCKETS; i++) {
		uint64_t us = txlat_bucket_lo(i) / 1000;
		int l = us ? 64 - __builtin_clzll(us) : 0; /* 0: <1us, l: [2^(l-1), 2^l) */

		if (!h->slot[i])
			continue;
		b[l] += h->slot[i];
		lo = l < lo ? l : lo;
		hi = l > hi ? l : hi;
	}
	for (i = lo; i <= hi; i++)
		top = b[i] > top ? b[i] : top;
	open_json_array(PRINT_JSON, "histogram");
	if (hi >= 0)
		print_text("  %10s : %-10s\n", "usecs", "count");
	for (i = lo; i <= hi && hi >= 0; i++) {
		uint64_t from = i ? 1ULL << (i - 1) : 0, to = (1ULL << i) - 1;
		char bar[41];
		int n = top ? (int)(b[i] * 40 / top) : 0;

		memset(bar, '*', n);
		bar[n] = 0;
		open_json_object(NULL);
		print_uint(PRINT_JSON, "lo_us", NULL, from);
		print_uint(PRINT_JSON, "hi_us", NULL, to);
		print_uint(PRINT_JSON, "count", NULL, b[i]);
		close_json_object();
		print_text("  %8llu -> %-8llu : %-10llu |%-40s|\n", (unsigned long long)from,
			   (unsigned long long)to, (unsigned long long)b[i], bar);
	}
	close_json_array(PRINT_JSON, NULL);
}

static void print_queue(const struct txlat_q *q, int idx, bool hist, const char *key)
{
	const __u64 *c = q->st.c;
	uint64_t freed = c[TXLAT_C_CONSUMED] + c[TXLAT_C_KFREED];

	open_json_object(key);
	if (idx < 0)
		print_string(PRINT_ANY, "queue", "  %-6s", "all");
	else if (idx == TXLAT_MAX_QUEUES - 1)
		print_string(PRINT_ANY, "queue", "  tx-%-3s", "31+");
	else
		print_int(PRINT_ANY, "queue", "  tx-%-3lld", idx);
	print_uint(PRINT_ANY, "xmit", " xmit %llu", c[TXLAT_C_XMIT]);
	print_uint(PRINT_ANY, "freed", " freed %llu", freed);
	print_uint(PRINT_JSON, "consumed", NULL, c[TXLAT_C_CONSUMED]);
	print_uint(PRINT_JSON, "kfreed", NULL, c[TXLAT_C_KFREED]);
	print_uint(PRINT_JSON, "bytes", NULL, c[TXLAT_C_XMIT_BYTES]);
	print_quantiles(&q->h[TXLAT_H_FREE], q->st.max_ns[TXLAT_H_FREE],
			q->st.sum_ns[TXLAT_H_FREE]);
	print_nl();
	if (hist)
		print_log2(&q->h[TXLAT_H_FREE]);
	close_json_object();
}

static const char *completion_kind(const char *kind, const char *driver, const char *dev)
{
	char path[128];
	uint64_t type = 0;

	snprintf(path, sizeof(path), "/sys/class/net/%s/type", dev);
	if (!read_file_u64(path, &type) && type == 772) /* ARPHRD_LOOPBACK */
		kind = "loopback";
	switch (drvdb_software(driver, kind)) {
	case DRV_SW_RECEIVER:
		return "receiver";
	case DRV_SW_READER:
		return "reader";
	default:
		return "driver";
	}
}

static void print_coalesce(const char *dev)
{
	static const char *const keys[] = { "tx-usecs", "tx-frames", "tx-usecs-irq",
					    "tx-frames-irq", "adaptive-tx" };
	struct et_vals v;
	struct nl_sock eth;
	bool ok;
	size_t i;

	ok = !nl_open_genl(&eth, "ethtool");
	if (ok) {
		ok = !obj_get(&eth, &et_coalesce, dev, &v);
		nl_close(&eth);
	}
	open_json_object("coalesce");
	print_text("coalesce:");
	for (i = 0; i < sizeof(keys) / sizeof(keys[0]); i++) {
		const struct et_param *p = obj_param(&et_coalesce, keys[i]);
		char fmt[48], buf[32];

		snprintf(fmt, sizeof(fmt), " %s %%s", keys[i]);
		if (!ok || !p || !vals_has(&v, p->attr)) {
			print_na(keys[i], fmt);
			continue;
		}
		obj_format_val(p, v.v[p->attr], buf, sizeof(buf));
		if (p->type == ET_BOOL) {
			print_on_off(PRINT_ANY, keys[i], fmt, v.v[p->attr]);
		} else {
			snprintf(fmt, sizeof(fmt), " %s %%llu", keys[i]);
			print_uint(PRINT_ANY, keys[i], fmt, v.v[p->attr]);
		}
	}
	print_nl();
	close_json_object();
}

static void print_tcp(const struct txlat_run *r, const char *completion)
{
	const __u64 *c = r->total.st.c;
	uint64_t orphaned = c[TXLAT_C_TCP_NOSK] + c[TXLAT_C_TCP_ORPHANED];
	uint64_t owned = c[TXLAT_C_TCP_OWNED_FREE];
	const char *verdict;

	open_json_object("tcp");
	print_uint(PRINT_ANY, "skbs", "tcp: %llu skbs;", c[TXLAT_C_TCP]);
	if (!r->ksyms_ok) {
		print_text(" socket ownership n/a (no tcp_wfree address in /proc/kallsyms)\n");
		close_json_object();
		return;
	}
	print_uint(PRINT_ANY, "owned_at_xmit", " at xmit %llu owned (tcp_wfree),",
		   c[TXLAT_C_TCP_WFREE]);
	print_uint(PRINT_ANY, "no_socket_at_xmit", " %llu without socket (orphaned before xmit),",
		   c[TXLAT_C_TCP_NOSK]);
	print_uint(PRINT_ANY, "sock_wfree_at_xmit", " %llu sock_wfree (ACK/RST),",
		   c[TXLAT_C_TCP_SOCKWFREE]);
	print_uint(PRINT_ANY, "other_owner_at_xmit", " %llu other\n", c[TXLAT_C_TCP_OTHER]);
	print_uint(PRINT_ANY, "owned_until_free",
		   "     at free %llu still owned (the free released "
		   "the socket's memory),",
		   owned);
	print_uint(PRINT_ANY, "orphaned_after_xmit", " %llu orphaned after xmit\n",
		   c[TXLAT_C_TCP_ORPHANED]);
	if (r->wfree_hooked)
		print_uint(PRINT_ANY, "wfree_before_free",
			   "     tcp_wfree before the free (skb_orphan): %llu\n",
			   c[TXLAT_C_WFREE_EARLY]);
	else
		print_na("wfree_before_free",
			 "     tcp_wfree before the free: %s (no fentry on this "
			 "kernel; only skbs still owned at free are timed below)\n");
	open_json_object("wfree");
	print_uint(PRINT_ANY, "count", "     xmit -> tcp_wfree: %llu skbs,",
		   txlat_hist_count(&r->total.h[TXLAT_H_WFREE]));
	print_quantiles(&r->total.h[TXLAT_H_WFREE], r->total.st.max_ns[TXLAT_H_WFREE],
			r->total.st.sum_ns[TXLAT_H_WFREE]);
	print_nl();
	close_json_object();
	if (!owned && !orphaned)
		verdict = "n/a";
	else if (orphaned * 2 > owned + orphaned)
		verdict = "orphaning";
	else
		verdict = "owned";
	print_string(PRINT_ANY, "verdict", "     verdict: %s", verdict);
	if (!strcmp(verdict, "orphaning"))
		print_text(!strcmp(completion, "driver")
				   ? " (the socket's memory is released before the TX completion: "
				     "TSQ does not see completion delay)\n"
				   : " (at the receiver or reader, not by a TX completion)\n");
	else if (!strcmp(verdict, "owned"))
		print_text(" (TSQ waits for this free)\n");
	else
		print_nl();
	close_json_object();
}

static void print_bql(const struct txlat_run *r)
{
	unsigned int q;
	bool any = false;

	open_json_array(PRINT_JSON, "bql");
	for (q = 0; q < r->nbql; q++) {
		const struct bql_sample *b = &r->bql[q];

		if (!b->ok || (!b->inflight_max && !b->limit_max && r->nbql > 1))
			continue;
		any = true;
		open_json_object(NULL);
		print_uint(PRINT_ANY, "queue", "bql tx-%llu:", q);
		print_uint(PRINT_ANY, "samples", " %llu samples,", b->n);
		print_uint(PRINT_ANY, "inflight_min", " inflight min %llu", b->inflight_min);
		print_uint(PRINT_ANY, "inflight_avg", " avg %llu", b->inflight_sum / b->n);
		print_uint(PRINT_ANY, "inflight_max", " max %llu;", b->inflight_max);
		print_uint(PRINT_ANY, "limit_min", " limit min %llu", b->limit_min);
		print_uint(PRINT_ANY, "limit_max", " max %llu", b->limit_max);
		print_uint(PRINT_ANY, "limit_last", " last %llu\n", b->limit_last);
		close_json_object();
	}
	close_json_array(PRINT_JSON, NULL);
	if (!any)
		print_na("bql", "bql: %s\n");
}

static void print_floor(const struct txlat_run *r)
{
	if (!r->nfloor) {
		print_na("timer-floor-us", "timer wake-up lateness: %s\n");
		return;
	}
	print_float(
		PRINT_ANY, "timer-floor-us",
		"timer wake-up lateness during the run: median %.1f us (added to any completion "
		"that waits for a timer or an interrupt here)\n",
		r->floor_us[r->nfloor / 2]);
}

static void print_irqs(const struct txlat_run *r)
{
	open_json_object("interrupts");
	if (!r->nirq || r->elapsed_s <= 0) {
		print_na("per_s", "interrupts: %s (no IRQ of this device in /proc/interrupts)\n");
		close_json_object();
		return;
	}
	print_float(PRINT_ANY, "per_s", "interrupts: %.0f/s", (r->irq1 - r->irq0) / r->elapsed_s);
	if (r->ntxirq)
		print_float(PRINT_ANY, "tx_per_s", " (tx-named vectors %.0f/s)",
			    (r->txirq1 - r->txirq0) / r->elapsed_s);
	else
		print_na("tx_per_s", " (tx %s: no tx-named vector)");
	print_uint(PRINT_ANY, "vectors", ", %llu vectors\n", r->nirq);
	close_json_object();
}

static void print_peer(const struct txlat_run *r)
{
	const struct txlat_hist *h = &r->total.h[TXLAT_H_PEER];

	open_json_object("peer_rx");
	print_uint(PRINT_ANY, "count", "xmit -> peer receive (netif_receive_skb): %llu skbs,",
		   txlat_hist_count(h));
	print_quantiles(h, r->total.st.max_ns[TXLAT_H_PEER], r->total.st.sum_ns[TXLAT_H_PEER]);
	print_nl();
	if (et_opts.verbose)
		print_log2(h);
	close_json_object();
}

static void txlat_report(struct txlat_run *r, const char *driver, const char *kind)
{
	const char *completion = r->completion;
	const __u64 *c = r->total.st.c;
	unsigned int q, active = 0;
	int64_t unmatched;

	print_string(PRINT_ANY, "device", "txlat %s:", r->dev);
	print_string(PRINT_ANY, "driver", " driver %s", driver[0] ? driver : "?");
	if (kind[0])
		print_string(PRINT_ANY, "kind", " (%s)", kind);
	print_float(PRINT_ANY, "duration_s", ", %.2f s", r->elapsed_s);
	print_string(PRINT_ANY, "backend", ", backend %s\n", r->ops->name);
	print_string(PRINT_ANY, "free_is", "free: %s", completion);
	if (!strcmp(completion, "receiver"))
		print_text("-side: %s hands each skb to its peer, so the \"free\" is the receiver "
			   "consuming it, not a TX completion\n",
			   driver[0] ? driver
			   : kind[0] ? kind
				     : "loopback");
	else if (!strcmp(completion, "reader"))
		print_text(": the skb is freed when the reader of the tun/tap device takes it\n");
	else
		print_text(" TX completion (includes deferral to net_tx_action or defer lists)\n");
	print_coalesce(r->dev);
	if (r->load_argv) {
		if (r->load_status < 0)
			print_na("load_exit", "load: exit %s\n");
		else if (WIFEXITED(r->load_status))
			print_int(PRINT_ANY, "load_exit", "load: exit %lld\n",
				  WEXITSTATUS(r->load_status));
		else
			print_int(PRINT_ANY, "load_signal", "load: killed by signal %lld\n",
				  WTERMSIG(r->load_status));
	}
	for (q = 0; q < TXLAT_MAX_QUEUES; q++)
		active += r->q[q].st.c[TXLAT_C_XMIT] > 0;
	print_text("xmit -> free latency per TX queue:\n");
	open_json_array(PRINT_JSON, "queues");
	for (q = 0; q < TXLAT_MAX_QUEUES; q++)
		if (r->q[q].st.c[TXLAT_C_XMIT])
			print_queue(&r->q[q], q, active == 1 || et_opts.verbose, NULL);
	close_json_array(PRINT_JSON, NULL);
	if (!active)
		print_text("  (no skb was sent on %s while tracing)\n", r->dev);
	if (active > 1)
		print_queue(&r->total, -1, true, "all");
	unmatched = (int64_t)c[TXLAT_C_XMIT] - c[TXLAT_C_REXMIT] - c[TXLAT_C_CONSUMED] -
		    c[TXLAT_C_KFREED] - c[TXLAT_C_STALE];
	r->unmatched = unmatched;
	print_int(PRINT_ANY, "not_seen_freed",
		  "not seen freed: %lld (in flight at stop, or freed without a tracepoint)",
		  unmatched);
	print_uint(PRINT_ANY, "kfreed", "; via kfree_skb %llu", c[TXLAT_C_KFREED]);
	print_uint(PRINT_ANY, "reused", "; address reused before a traced free %llu",
		   c[TXLAT_C_REXMIT]);
	print_uint(PRINT_ANY, "stale", "; stale %llu\n", c[TXLAT_C_STALE]);
	if (r->peer)
		print_peer(r);
	print_tcp(r, completion);
	print_bql(r);
	print_irqs(r);
	print_floor(r);
	open_json_object("bpf");
	if (r->bpf_runs && r->elapsed_s > 0) {
		print_uint(PRINT_ANY, "runs", "bpf: %llu program runs", r->bpf_runs);
		print_float(PRINT_ANY, "ns_per_run", ", %.0f ns each",
			    (double)r->bpf_run_ns / r->bpf_runs);
		print_float(PRINT_ANY, "cpu_pct", ", %.3f%% of one CPU\n",
			    r->bpf_run_ns / r->elapsed_s / 1e7);
	} else {
		print_na("runs", "bpf: cost %s (no BPF run-time statistics)\n");
	}
	close_json_object();
}

/* One line: what is wrong, then the usage. */
static int txlat_usage(const char *what, const char *arg)
{
	et_err("txlat: %s%s%s (usage: ethtune txlat DEV [--duration S] [--load 'PROBE-ARGS' | "
	       "--load-cmd 'CMD'] [--backend btf|raw|tracepoint])",
	       what, arg ? " " : "", arg ? arg : "");
	return EXIT_USAGE;
}

/* Split a load string on blanks into a NULL-terminated argv after the given prefix. */
static char **split_args(const char *prefix0, const char *prefix1, const char *s)
{
	char *copy = strdup(s), *tok, *save = NULL;
	char **argv = calloc(strlen(s) / 2 + 4, sizeof(char *));
	int n = 0;

	if (!copy || !argv) {
		free(copy);
		free(argv);
		return NULL;
	}
	if (prefix0)
		argv[n++] = (char *)prefix0;
	if (prefix1)
		argv[n++] = (char *)prefix1;
	for (tok = strtok_r(copy, " \t", &save); tok; tok = strtok_r(NULL, " \t", &save))
		argv[n++] = tok;
	argv[n] = NULL;
	return argv;
}

int cmd_txlat(int argc, char **argv)
{
	static struct txlat_run r;
	char exe[4096];
	struct et_drvinfo d = {};
	struct et_link l = {};
	struct nl_sock ns;
	struct stat sb;
	double dur = -1;
	int i, ret;

	memset(&r, 0, sizeof(r));
	for (i = 1; i < argc; i++) {
		const char *a = argv[i];

		if (!strcmp(a, "--duration") || !strcmp(a, "--load") || !strcmp(a, "--load-cmd") ||
		    !strcmp(a, "--backend")) {
			if (i + 1 >= argc) {
				et_err("txlat: %s needs a value", a);
				return EXIT_USAGE;
			}
			if (!strcmp(a, "--duration")) {
				char *end;

				dur = strtod(argv[++i], &end);
				if (*end || end == argv[i] || !(dur > 0) || dur > 86400) {
					et_err("txlat: invalid --duration '%s' (seconds, > 0)",
					       argv[i]);
					return EXIT_USAGE;
				}
			} else if (!strcmp(a, "--backend")) {
				size_t b;

				r.backend = argv[++i];
				for (b = 0; b < N_BACKENDS; b++)
					if (!strcmp(r.backend, txlat_backends[b].name))
						break;
				if (b == N_BACKENDS) {
					et_err("txlat: unknown --backend '%s' (btf, raw, "
					       "tracepoint)",
					       r.backend);
					return EXIT_USAGE;
				}
			} else if (r.load_argv) {
				et_err("txlat: only one --load or --load-cmd");
				return EXIT_USAGE;
			} else if (!strcmp(a, "--load")) {
				ssize_t n = readlink("/proc/self/exe", exe, sizeof(exe) - 1);

				if (n <= 0) {
					et_err("txlat: cannot find the ethtune binary for --load");
					return EXIT_FAIL;
				}
				exe[n] = 0;
				r.load_argv = split_args(exe, "probe", argv[++i]);
			} else {
				r.load_argv = split_args("/bin/sh", "-c", "");
				if (r.load_argv)
					r.load_argv[2] = argv[++i];
			}
		} else if (a[0] == '-') {
			return txlat_usage("unknown option", a);
		} else if (r.dev) {
			et_err("txlat: unexpected argument '%s' (one device at a time)", a);
			return EXIT_USAGE;
		} else {
			r.dev = a;
		}
	}
	if (!r.dev) {
		return txlat_usage("missing device", NULL);
	}
	r.duration_s = dur > 0 ? dur : (r.load_argv ? 0 : 5);
	if (enter_netns_opt())
		return EXIT_FAIL;
	if (strlen(r.dev) >= IFNAMSIZ || !(r.ifindex = if_nametoindex(r.dev))) {
		report_missing_dev(r.dev);
		return EXIT_FAIL;
	}
	if (!have_bpf_caps()) {
		et_err("txlat: loading BPF programs needs root (CAP_BPF and CAP_PERFMON, or "
		       "CAP_SYS_ADMIN)");
		return EXIT_FAIL;
	}
	if (access("/sys/kernel/btf/vmlinux", R_OK)) {
		et_err("txlat: this kernel has no BTF (/sys/kernel/btf/vmlinux: %s); txlat needs "
		       "CONFIG_DEBUG_INFO_BTF=y to relocate its BPF programs",
		       strerror(errno));
		return EXIT_FAIL;
	}
	if (stat("/proc/self/ns/net", &sb)) {
		et_err("txlat: cannot identify this network namespace: %s", strerror(errno));
		return EXIT_FAIL;
	}
	r.netns_ino = (uint32_t)sb.st_ino;
	libbpf_set_print(libbpf_print_fn);

	link_get_dev(r.dev, &l);
	if (!nl_open_genl(&ns, "ethtool")) {
		drvinfo_get(&ns, r.dev, &d);
		nl_close(&ns);
	}
	bql_count_queues(&r);
	r.completion = completion_kind(l.kind, d.driver, r.dev);
	r.peer = !strcmp(r.completion, "receiver");
	ret = txlat_trace(&r);
	if (ret == -EPERM || ret == -EACCES) {
		et_err("txlat: the kernel refused the BPF programs (%s); needs root (CAP_BPF and "
		       "CAP_PERFMON, or CAP_SYS_ADMIN)",
		       strerror(-ret));
		return EXIT_FAIL;
	}
	if (ret && r.why[0]) {
		et_err("txlat: %s", r.why);
		return EXIT_FAIL;
	}
	if (ret) {
		et_err("txlat: cannot trace %s: %s%s", r.dev, strerror(-ret),
		       et_opts.verbose ? "" : " (-v shows why)");
		return EXIT_FAIL;
	}
	new_json_obj(et_opts.json);
	txlat_report(&r, d.driver, l.kind);
	delete_json_obj();
	return EXIT_OK;
}
