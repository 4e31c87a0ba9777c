/* txlat's run: trace a device while a load runs, and sample beside the programs what they miss. */
#ifndef ETHTUNE_TRACE_TXLAT_RUN_H
#define ETHTUNE_TRACE_TXLAT_RUN_H

#include <stdbool.h>
#include <stdint.h>

#include "nl/devobj.h"
#include "trace/txlat.h"

#define TXLAT_MAX_BQL	64
#define TXLAT_MAX_IRQS	256
#define TXLAT_MAX_FLOOR 1024
#define DUTY_MAX_WIN	4096

/* One TX queue's BQL, sampled every SAMPLE_MS of the run. */
struct bql_sample {
	unsigned int n;
	uint64_t inflight_sum, inflight_max, inflight_min, limit_min, limit_max, limit_last;
	bool ok;
};

/* The run: what it traces, and what it samples itself beside the programs. */
struct txlat_run {
	const char *dev;
	double duration_s;   /* 0: until the load ends */
	char **load_argv;    /* NULL: no load */
	const char *backend; /* NULL: first that loads */
	bool bpf_stats;	     /* the kernel's run-time statistics on while tracing */
	double elapsed_s;
	/* lateness of 20 us timer sleeps taken between samples, under the same load: what this
	 * host adds to anything that waits for a timer or an interrupt (a guest: ~100 us) */
	unsigned int nfloor;
	double floor_us[TXLAT_MAX_FLOOR];
	int load_status; /* wait status of the load, -1 none */
	unsigned int nbql;
	struct bql_sample bql[TXLAT_MAX_BQL];
	unsigned int nirq, ntxirq;
	int irq[TXLAT_MAX_IRQS];
	bool irq_tx[TXLAT_MAX_IRQS];
	uint64_t irq0, irq1, txirq0, txirq1;
	struct txlat_result res; /* what the programs saw */
	/* the device's coalescing at the end of the run (coal_ok: it could be read) */
	struct et_vals coal;
	bool coal_ok;
	/* --duty: the device's TX bytes/s in each attached window and in the detached one after
	 * it, and the median of traced over untraced with its sign-test interval */
	unsigned int duty_pct; /* 100: attached throughout */
	double period_s;
	unsigned int nwin;
	double on_bps[DUTY_MAX_WIN], off_bps[DUTY_MAX_WIN];
	unsigned int npairs;
	double cost_ratio, cost_lo, cost_hi, cost_cov, on_med_bps, off_med_bps;
};

/* r for dev with the defaults: attached throughout (duty 100%), the duty period, no load. */
void txlat_run_init(struct txlat_run *r, const char *dev);
/* Trace r->dev while the load (if any) runs and for duration_s, sampling BQL, the device's
 * IRQs and the timer floor meanwhile; with a duty below 100% the programs come and go every
 * period and each window's TX bytes are counted (what tracing costs). The load runs as a child
 * (its stdout to stderr with -v, else away); SIGINT and SIGTERM end the run and are reported as
 * its end, not as the process's. 0, or -errno with one line in why. */
int txlat_run_trace(struct txlat_run *r, char *why, size_t len);
/* r's report through out/json_print: text, or the members of the current JSON object. */
void txlat_run_print(const struct txlat_run *r);
/* r's metrics (--prom): per TX queue the xmit-to-free histogram (seconds) and counts, the
 * coalescing in force, the timer floor, the duty's traced time; labels device and driver set
 * by the caller (prom_labels()). 0 or -errno. */
struct prom;
int txlat_run_prom(const struct txlat_run *r, struct prom *p);
/* l as the histogram family name (seconds; its cumulative counts at powers of two of
 * nanoseconds, exact), with a label queue unless NULL; nothing when l holds no sample. 0 or
 * -errno. */
int txlat_prom_hist(struct prom *p, const char *name, const char *help, const struct txlat_lat *l,
		    const char *queue);

#endif
