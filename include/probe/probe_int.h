/* Probe internals shared by the client (probe.c) and the peer daemon (serve.c). */
#ifndef ETHTUNE_PROBE_INT_H
#define ETHTUNE_PROBE_INT_H

#include <pthread.h>
#include <sys/socket.h>

#include "probe/probe.h"

#define DATA_COOKIE_LEN	  8  /* magic u32 + flow index u32, sent first on a data connection */
#define DATA_IO_TIMEOUT_S 20 /* a data socket blocked this long fails the run */
#define STALL_TIMEOUT_S	  10 /* no flow moved for this long during a test: peer silent */
/* After the window a flow has this long to end by itself (a receiver reads up to the sender's
 * FIN); then its socket is shut down. A flow stalled by losses waits for TCP's backed-off
 * retransmissions, seconds apart, and would hold up the control exchange past the peer's wait
 * for 'stop' (PROTO_IDLE_TIMEOUT_MS). */
#define FINISH_GRACE_S 3
#define RECV_BUF_MIN   (128u << 10)
enum { ZC_SENDS, ZC_DONE, ZC_COPIED };

struct eng_flow {
	int fd;
	unsigned int idx;
	struct eng *e;
	pthread_t th;
	bool started;
	uint64_t bytes, trans; /* updated by the worker only, read relaxed by the main thread */
	uint64_t bytes_a, trans_a, bytes_b, trans_b;
	uint64_t poll_ns, poll_a; /* the bulk receiver's time polling for data (rx_poll_us) */
	uint64_t zc[3]; /* MSG_ZEROCOPY sends, completions, copied (ZC_*); the worker's own */
	struct tcp_info_snap {
		uint32_t total_retrans;
		uint64_t busy, rwnd, sndbuf, bytes_sent;
	} ti_a;
	struct stats_hist *hist; /* rr/crr client */
	int err;		 /* -errno from the worker */
	const char *err_what;	 /* the call that failed */
	bool aborted;		 /* shut down after the window (eng_finish): its error is ours */
} __attribute__((aligned(64)));

/* Socket options of a data socket. */
struct eng_sockopts {
	uint32_t sndbuf, rcvbuf;
	bool nodelay;
	char cc[16];
	const char *bind_dev;
};

/* The sender's sk_wmem_alloc is sampled at random gaps between these (uniform): a time average
 * (what Little's law needs for the bytes' wait below TCP) that no periodic completion timer can
 * alias with. At 2 ms apart the control thread's wake-ups cost one veth flow 10% on two CPUs
 * (bench sampler.sh, 0.902); 50 samples a second cost what tests/bench/sampler.sh shows. */
#define WMEM_GAP_MIN_MS 10
#define WMEM_GAP_MAX_MS 30

struct eng {
	enum probe_test test;
	bool client; /* the side that opened the connections */
	unsigned int flows;
	uint32_t msg_size;
	uint32_t recv_size; /* 0: max(msg_size, RECV_BUF_MIN) */
	enum probe_send send;
	bool skip_rx_copy;
	uint32_t rcvlowat; /* the bulk receiver's SO_RCVLOWAT, at most its recv() size; 0: off */
	uint32_t rx_poll_us; /* the bulk receiver's poll for data before recv() sleeps; 0: off */
	bool no_sample;	   /* no SO_MEMINFO sampling on the sender (WMEM_GAP_*_MS apart) */
	int cpu;
	double duration_s, warmup_s;
	struct eng_sockopts so;
	int lfd;		      /* crr server: listening socket */
	uint32_t cookie;	      /* crr: the session's cookie, which opens each request */
	struct sockaddr_storage peer; /* crr client: where to connect */
	socklen_t peer_len;
	int stop, measuring;	    /* read relaxed by workers */
	uint64_t seen_sum, seen_ns; /* last change of the flows' counters (stall detection) */
	bool ctl_ends_window;	    /* serve: a message from the client ends the window early */
	const int *end_window;	    /* client: non-zero ends the window early (probe_cfg) */
	/* Called at the window start (0) and end (1), e.g. for device counters. */
	void (*mark)(void *arg, int phase);
	void *mark_arg;
	void (*progress)(void *arg, double elapsed_s, double total_s, double value);
	void *progress_arg;
	struct eng_flow *fl;
	struct probe_side res;
	const struct probe_devstats *devstats; /* serve: sent with the result when valid */
	struct stats_hist hist;		       /* merged at the end (rr/crr client) */
	double wmem_sum;		       /* sender: sk_wmem_alloc samples in the window */
	uint32_t wmem_n;
	uint64_t wmem_next_ns, wmem_rng; /* the next sample's time; its random gap's state */
};

/* True when this side sends the bulk data of a stream/maerts test. */
static inline bool eng_is_sender(const struct eng *e)
{
	return (e->test == PROBE_STREAM && e->client) || (e->test == PROBE_MAERTS && !e->client);
}

int eng_init(struct eng *e);
void eng_free(struct eng *e);
/* Apply options to a data socket (before connect/listen). One line in err. */
int eng_sockopts(int fd, const struct eng_sockopts *so, char *err, size_t errlen);
/* Start the workers. */
int eng_start(struct eng *e, char *err, size_t errlen);
/* Sleep through warmup and the measured window; returns early with -ECONNABORTED when
 * ctl_fd becomes readable or -EIO when a worker failed. Fills e->res. */
int eng_window(struct eng *e, int ctl_fd, char *err, size_t errlen);
/* Stop and join the workers; first worker error as -errno with err set. */
int eng_finish(struct eng *e, char *err, size_t errlen);
/* Abort: stop everything now (shut the data sockets down). */
void eng_abort(struct eng *e);

/* Device telemetry (probe_dev.c). */
struct dev_snap {
	uint64_t st[6], irqs;
	/* BQL sums over TX queues; -1 (all ones) where the files are absent */
	uint64_t bql_limit, bql_inflight, stall_cnt, stall_max;
	unsigned int n_txq;
	uint64_t q_packets, q_bytes, tx_stop, tx_wake; /* TX queues' qstats; ~0 unknown */
	uint64_t spurious_rtx_hostq;		       /* ~0 unknown */
	unsigned int irq_lines, n_es;
	char (*es_names)[32];
	uint64_t *es;
};
void dev_snap(const char *dev, struct dev_snap *s);
void dev_snap_free(struct dev_snap *s);
void dev_delta(struct probe_devstats *d, const char *dev, const struct dev_snap *a,
	       const struct dev_snap *b);
/* Name of the interface holding the local address of a connected socket ("" if none). */
void local_dev(int fd, char *buf, size_t len);
struct json_t *devstats_json(const struct probe_devstats *d);
void devstats_parse(struct json_t *o, const char *dev, struct probe_devstats *d);

/* The side's measurement as a "result" message body, and back. */
struct json_t *eng_result_msg(const struct eng *e);
void eng_result_parse(struct json_t *m, struct probe_side *s);

#endif
