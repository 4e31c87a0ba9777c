/* txlat's run: a device traced while a load runs; its IRQs, BQL, timer floor and tracing's cost. */
#define _GNU_SOURCE
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <math.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <sys/wait.h>

#include "nl/devobj.h"
#include "trace/txlat.h"
#include "trace/txlat_run.h"
#include "util/ethtune.h"
#include "util/stats.h"

#define SAMPLE_MS 100
/* --duty: the programs attached for pct% of every period, the xmit hook leaving first. Each
 * attach and detach costs the load a few ms (the tracepoints' static keys are patched on every
 * CPU), so the default period keeps them under 1%. */
#define DUTY_PERIOD_S 1.0
#define DUTY_GRACE_S  0.05

void txlat_run_init(struct txlat_run *r, const char *dev)
{
	memset(r, 0, sizeof(*r));
	r->dev = dev;
	r->duty_pct = 100;
	r->period_s = DUTY_PERIOD_S;
}

static volatile sig_atomic_t txlat_interrupted;

static void on_signal(int sig __attribute__((unused)))
{
	txlat_interrupted = 1;
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

		dev_sysfs_path(path, sizeof(path), r->dev, "%s", dirs[i]);
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
		uint64_t in, lim;

		if (dev_bql_u64(r->dev, q, "inflight", &in) ||
		    dev_bql_u64(r->dev, q, "limit", &lim))
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

/* What tracing costs the load, from its own windows: each attached window's TX rate against
 * the mean of the detached windows on either side, so that drift slower than a period
 * cancels. The first and last windows are left out (the load starting and ending). */
static void duty_cost(struct txlat_run *r)
{
	static double ratio[DUTY_MAX_WIN], on[DUTY_MAX_WIN], off[DUTY_MAX_WIN];
	unsigned int i, n = 0;
	double lo, hi;

	r->npairs = 0;
	for (i = 1; i + 1 < r->nwin; i++) {
		double ref = (r->off_bps[i - 1] + r->off_bps[i]) / 2;

		if (!(r->on_bps[i] > 0) || !(r->off_bps[i - 1] > 0) || !(r->off_bps[i] > 0))
			continue;
		on[n] = r->on_bps[i];
		off[n] = ref;
		ratio[n++] = r->on_bps[i] / ref;
	}
	if (n < 4)
		return;
	r->npairs = n;
	r->cost_cov = stats_median_sign_ci(ratio, n, &r->cost_ratio, &r->cost_lo, &r->cost_hi);
	stats_median_sign_ci(on, n, &r->on_med_bps, &lo, &hi);
	stats_median_sign_ci(off, n, &r->off_med_bps, &lo, &hi);
}

/* The coalescing in force at the end of the run: what the report and the metrics show. */
static void coalesce_read(struct txlat_run *r)
{
	struct nl_sock eth;

	r->coal_ok = !nl_open_genl(&eth, "ethtool");
	if (r->coal_ok) {
		r->coal_ok = !obj_get(&eth, &et_coalesce, r->dev, &r->coal);
		nl_close(&eth);
	}
}

int txlat_run_trace(struct txlat_run *r, char *why, size_t len)
{
	struct txlat_opts opts = { .backend = r->backend, .bpf_stats = r->bpf_stats };
	struct sigaction sa = { .sa_handler = on_signal };
	double on_s = r->period_s * r->duty_pct / 100.0, grace = fmin(DUTY_GRACE_S, on_s / 4);
	bool duty = r->duty_pct < 100, on = true;
	double t0, end, next_sample, flip, wt;
	uint64_t wb = 0;
	struct txlat *t;
	pid_t child = -1;
	int ret;

	r->nbql = sysfs_tx_queues(r->dev, TXLAT_MAX_BQL);
	ret = txlat_open(r->dev, &opts, &t, why, len);
	if (ret)
		return ret;
	sigaction(SIGINT, &sa, NULL);
	sigaction(SIGTERM, &sa, NULL);
	irq_find(r);
	irq_count(r, &r->irq0, &r->txirq0);
	t0 = et_now_s();
	end = r->duration_s > 0 ? t0 + r->duration_s : 0;
	next_sample = t0;
	wt = t0;
	dev_sysfs_u64(r->dev, "statistics/tx_bytes", &wb);
	flip = duty ? t0 + on_s : 0;
	r->load_status = -1;
	if (r->load_argv) {
		child = start_load(r->load_argv);
		if (child < 0) {
			ret = -errno;
			txlat_close(t);
			return ret;
		}
	}
	while (!txlat_interrupted) {
		double now = et_now_s(), next;
		int st;

		if (now >= next_sample) {
			bql_sample(r);
			if (child > 0 && waitpid(child, &st, WNOHANG) == child) {
				r->load_status = st;
				child = -1;
				if (!end)
					break;
			}
			if (end && et_now_s() >= end)
				break;
			if (r->nfloor < TXLAT_MAX_FLOOR &&
			    !timer_floor_us(5, &r->floor_us[r->nfloor]))
				r->nfloor++;
			next_sample = now + SAMPLE_MS / 1000.0;
		}
		if (duty && et_now_s() >= flip) {
			uint64_t b = 0;
			double w;

			if (on) {
				txlat_pause(t, grace);
			} else {
				ret = txlat_resume(t);
				if (ret) {
					snprintf(why, len, "cannot attach again to %s: %s", r->dev,
						 strerror(-ret));
					break;
				}
			}
			dev_sysfs_u64(r->dev, "statistics/tx_bytes", &b);
			w = et_now_s();
			if (r->nwin < DUTY_MAX_WIN) {
				/* an off window closes the pair its on window opened */
				if (on)
					r->on_bps[r->nwin] = (b - wb) / (w - wt);
				else
					r->off_bps[r->nwin++] = (b - wb) / (w - wt);
			}
			wb = b;
			wt = w;
			on = !on;
			flip = w + (on ? on_s : r->period_s - on_s);
		}
		next = duty && flip < next_sample ? flip : next_sample;
		now = et_now_s();
		if (next > now)
			et_sleep_s(next - now);
	}
	r->elapsed_s = et_now_s() - t0;
	qsort(r->floor_us, r->nfloor, sizeof(r->floor_us[0]), cmp_double);
	irq_count(r, &r->irq1, &r->txirq1);
	/* Stop tracing before reading, so that the counts are consistent. */
	txlat_stop(t);
	if (!ret) {
		ret = txlat_read(t, &r->res);
		if (ret)
			snprintf(why, len, "cannot read the counts of %s: %s", r->dev,
				 strerror(-ret));
	}
	txlat_close(t);
	duty_cost(r);
	coalesce_read(r);
	if (child > 0) {
		kill(child, SIGTERM);
		waitpid(child, &r->load_status, 0);
	}
	return ret;
}
