/* txlat as a library: trace one device's xmit-to-free latency while the caller runs its load. */
#ifndef ETHTUNE_TRACE_TXLAT_H
#define ETHTUNE_TRACE_TXLAT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/*
 * Use: txlat_open() loads and attaches the BPF programs for DEV in the network namespace the
 * caller is in (the programs see every namespace; they keep only DEV's ifindex in this one, so
 * the caller may run its load from here or hand it to another namespace). The kernel
 * accumulates the histograms, so no thread is needed: open, run the load, txlat_stop(),
 * txlat_read(), txlat_close(). txlat_reset() starts a new window (attaching again after a
 * stop); txlat_read() reports the window since the last reset or the open. Nothing here
 * changes namespace, signal handlers or stdout.
 */

#define TXLAT_QUEUES	 32 /* TX queues; the last also counts every queue above it ("31+") */
#define TXLAT_NFRAGS	 48 /* frag-count slots: 0..46 frags, the last 47 or more */
#define TXLAT_NFRAG_BINS 20 /* bytes-per-frag log2 bins: [2^b, 2^(b+1)), the last open */
#define TXLAT_NFCLASSES	 4  /* frag classes of the free's latency: 0, 1-4, 5-16, 17+ */
#define TXLAT_LOG2_BINS	 64
/* Cumulative counts at powers of two of nanoseconds, 2^TXLAT_POW2_LO (512 ns) to
 * 2^(TXLAT_POW2_LO + TXLAT_POW2_BINS - 1) (0.54 s): edges of the fine buckets, so exact (the
 * Prometheus histogram of --prom) */
#define TXLAT_POW2_LO	9
#define TXLAT_POW2_BINS 21

struct txlat;	   /* an open tracer */
struct txlat_hist; /* the BPF programs' fine histogram of one latency (bpf/txlat.h) */
struct txlat_q;	   /* one queue's raw counters and histograms (bpf/txlat.h) */

struct txlat_opts {
	const char *backend; /* "btf", "raw" or "tracepoint"; NULL: the first that loads */
	bool bpf_stats;	     /* count the programs' own run time (needs CAP_SYS_ADMIN) */
};

/* One latency distribution. Quantiles are bucket middles capped at the largest sample; the
 * median's interval is the 95% order-statistic one, as bucket bounds. NaN when n is 0. */
struct txlat_lat {
	uint64_t n;
	double mean_us, p50_us, p50_lo_us, p50_hi_us, p90_us, p99_us, max_us;
	/* log2 microsecond bins: bin i holds [2^(i-1), 2^i - 1] us, bin 0 below 1 us; bins lo..hi
	 * are the span in use (hi < lo: none) */
	int lo, hi;
	uint64_t bin[TXLAT_LOG2_BINS];
	uint64_t sum_ns; /* of all samples */
	/* samples below 2^(TXLAT_POW2_LO + i) ns, each */
	uint64_t below_pow2[TXLAT_POW2_BINS];
};

struct txlat_counts {
	uint64_t xmit, bytes;	   /* skbs handed to the driver, their bytes */
	uint64_t consumed, kfreed; /* freed through consume_skb / kfree_skb */
	uint64_t reused, stale;	   /* address reused before a traced free; stale frees */
	uint64_t evicted; /* entries a later xmit took in a full set: freed untraced, or untimed */
	uint64_t tcp;	  /* TCP skbs (by header) */
	uint64_t tcp_no_sk;	      /* ...without a socket at xmit (orphaned before it) */
	uint64_t tcp_wfree;	      /* ...owned with tcp_wfree at xmit */
	uint64_t tcp_sock_wfree;      /* ...owned with sock_wfree (ACK/RST) */
	uint64_t tcp_other;	      /* ...owned with another destructor */
	uint64_t tcp_owned_free;      /* ...still owned at the free */
	uint64_t tcp_orphaned;	      /* ...owned at xmit, orphaned before the free */
	uint64_t wfree_early;	      /* tcp_wfree ran before the free (fentry only) */
	uint64_t peer;		      /* received by the peer (receiver-side devices) */
	uint64_t gso;		      /* GSO super-packets handed to the driver */
	uint64_t segs;		      /* the wire packets all skbs make (gso_segs, or 1) */
	uint64_t max_len;	      /* the longest skb handed to the driver, bytes */
	uint64_t max_segs;	      /* the most gso_segs of one */
	uint64_t lin_driver;	      /* linearized by the driver after xmit (pull_hooked) */
	uint64_t lin_stack;	      /* linearized by the stack before xmit (pull_hooked) */
	uint64_t frags[TXLAT_NFRAGS]; /* skbs by nr_frags at xmit */
	uint64_t frag_bytes[TXLAT_NFRAG_BINS];	/* skbs with frags by data_len / nr_frags */
	uint64_t fclass_n[TXLAT_NFCLASSES];	/* frees by the skb's frag class */
	double fclass_mean_us[TXLAT_NFCLASSES]; /* their mean xmit-to-free; NaN when none */
};

struct txlat_queue {
	struct txlat_counts c;
	struct txlat_lat free; /* xmit -> free */
};

struct txlat_result {
	char dev[16], driver[32], kind[32];
	char backend[16];    /* the backend that attached */
	const char *free_is; /* what the free is: "driver", "receiver" or "reader" */
	bool peer;	     /* xmit -> peer receive was timed (receiver-side devices) */
	bool wfree_hooked;   /* xmit -> tcp_wfree timed by fentry */
	bool pull_hooked;    /* linearizations counted by fentry (lin_driver, lin_stack) */
	bool ksyms_ok;	     /* destructor addresses known: socket ownership counted */
	double elapsed_s;    /* of the window */
	double traced_s;     /* of it, with the programs attached (less with pauses) */
	unsigned int active; /* queues that sent */
	struct txlat_queue q[TXLAT_QUEUES];
	struct txlat_counts c;		       /* all queues */
	struct txlat_lat free, wfree, peer_rx; /* all queues: xmit -> free, tcp_wfree, peer */
	int64_t not_seen_freed;		       /* xmit less frees, reuses and stale frees */
	uint64_t tcp_orphans;	       /* TCP skbs not owned at the free (0 without ksyms_ok) */
	double orphan_frac;	       /* tcp_orphans of TCP skbs; 0 without TCP */
	const char *verdict;	       /* "orphaning", "owned" or "n/a" (no TCP ownership seen) */
	uint64_t bpf_runs, bpf_run_ns; /* the programs' cost in the window, 0 unknown */
};

/* 0 or -errno; on failure why says what is wrong in one line (-ENODEV: no such device here,
 * -EPERM: privileges, others: BTF, backend, kernel). */
int txlat_open(const char *dev, const struct txlat_opts *o, struct txlat **out, char *why,
	       size_t len);
/* Detach the programs: the counts stop, and a read after it is consistent. Idempotent. */
void txlat_stop(struct txlat *t);
/* Start a new window now (attaching again if stopped). 0 or -errno. */
int txlat_reset(struct txlat *t);
/* Within a window: detach (the xmit hook grace_s before the others, so that the skbs it timed
 * can still be seen freed), then attach again (the xmit hook last, entries from before the
 * pause forgotten). The counts add up over the attached time. 0 or -errno. */
void txlat_pause(struct txlat *t, double grace_s);
int txlat_resume(struct txlat *t);
/* The window so far. 0 or -errno. */
int txlat_read(struct txlat *t, struct txlat_result *r);
/* Stop and read: 0 when the window holds traced skbs (frees or TCP skbs), else -ENODATA or
 * -errno, with why. */
int txlat_collect(struct txlat *t, struct txlat_result *r, char *why, size_t len);
void txlat_close(struct txlat *t);
/* The names of the backends, in the order they are tried, NULL-terminated. */
const char *const *txlat_backend_names(void);

/* Pure parts (exposed for unit tests). */
uint64_t txlat_hist_count(const struct txlat_hist *h);
uint64_t txlat_hist_quantile(const struct txlat_hist *h, double p);
void txlat_hist_median_ci(const struct txlat_hist *h, uint64_t *lo_ns, uint64_t *hi_ns);
/* The distribution of h whose largest sample is max_ns and whose samples sum to sum_ns. */
/* The range of log2 bin b of struct txlat_lat, in us: [2^(b-1), 2^b - 1], bin 0 [0, 0]. */
void txlat_log2_bin_us(int b, uint64_t *lo_us, uint64_t *hi_us);
/* l's log2 bins as the JSON array "histogram" (non-empty range), and as bars when text. */
void txlat_print_log2(const struct txlat_lat *l, bool text);
/* "0", "1-4", "5-16", "17+": the frag class k of fclass_n and fclass_mean_us. */
const char *txlat_fclass_name(unsigned int k);
/* c's frags per skb at xmit, mean; NaN without skbs. */
double txlat_frags_mean(const struct txlat_counts *c);
/* c's frags per skb, bytes per frag, xmit-to-free by frag class and, when lin (pull_hooked),
 * the linearized skbs: a "frags" JSON object, and one text line when text. */
void txlat_print_frags(const struct txlat_counts *c, bool lin, bool text);
void txlat_lat_from_hist(const struct txlat_hist *h, uint64_t max_ns, uint64_t sum_ns,
			 struct txlat_lat *l);
/* now becomes the window since base: counts, sums and histograms less base's; the largest
 * sample is exact when it grew, else bounded by base's and the window's top bucket; the
 * longest skb and most segments likewise exact when they grew, else base's (an upper bound). */
void txlat_q_window(struct txlat_q *now, const struct txlat_q *base);
/* Counts, latencies, totals, orphans and verdict of r from raw queues q[TXLAT_QUEUES]; the
 * other fields of r (ksyms_ok first) are set beforehand. */
void txlat_result_compute(const struct txlat_q *q, struct txlat_result *r);

#endif
