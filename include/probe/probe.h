/* Probe engine: TCP stream/maerts/rr/crr against an "ethtune serve" peer, in-process API. */
#ifndef ETHTUNE_PROBE_H
#define ETHTUNE_PROBE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "util/stats.h"

#define PROBE_PROTO_VERSION    3
#define PROBE_DEFAULT_PORT     12866
#define PROBE_MAX_FLOWS	       256
#define PROBE_MAX_ITER	       30
#define PROBE_MAX_ETHTOOL      64 /* ethtool -S counters kept per result (those that changed) */
#define PROBE_MAX_MSG	       (16u << 20) /* 16 MiB per send/request */
#define PROBE_MAX_DURATION_S   86400
#define PROBE_MAX_BUF	       (1u << 30)
#define PROTO_MAX_MSG	       65536 /* control message body limit, bytes */
#define PROTO_HELLO_TIMEOUT_MS 5000  /* connect and hello */
#define PROTO_IDLE_TIMEOUT_MS  15000 /* server: silence between control messages */

enum probe_test { PROBE_STREAM, PROBE_MAERTS, PROBE_RR, PROBE_CRR };

/* Why the confidence loop ended. */
enum probe_stop {
	PROBE_STOP_FIXED,     /* no confidence requested: ran the minimum count */
	PROBE_STOP_CONFIDENT, /* interval narrower than the requested width */
	PROBE_STOP_MAX_ITER,  /* maximum count reached first */
};

/* How the bulk sender hands its data to the kernel (--send). */
enum probe_send {
	PROBE_SEND_COPY,     /* send(): copied from user memory */
	PROBE_SEND_ZEROCOPY, /* send(MSG_ZEROCOPY): pages pinned, completions on the error queue */
	PROBE_SEND_SENDFILE, /* sendfile() from a memfd: page-cache pages, no user copy */
	PROBE_SEND__N
};

#define PROBE_RCVLOWAT_AUTO    (-1)
#define PROBE_RCVLOWAT_DEFAULT (64u << 10)
#define PROBE_RX_POLL_AUTO     (-1)
#define PROBE_RX_POLL_DEFAULT  50u /* us */
#define PROBE_MAX_RX_POLL      100000u

struct probe_cfg {
	const char *peer; /* host or address */
	uint16_t port;	  /* control port of the peer */
	enum probe_test test;
	double duration_s, warmup_s;
	unsigned int flows;
	uint32_t msg_size;	 /* bytes per send (stream) or request/response (rr); 0: 128K / 1 */
	uint32_t recv_size;	 /* stream receiver's recv() size; 0: max(msg_size, 128K) */
	uint32_t sndbuf, rcvbuf; /* 0: autotuned; applied on both ends */
	bool nodelay;
	enum probe_send send; /* the bulk sender's path, on whichever end sends */
	bool skip_rx_copy;    /* the bulk receiver discards with MSG_TRUNC instead of copying */
	/* The bulk receiver's SO_RCVLOWAT: it wakes when this many bytes wait, not at every skb.
	 * PROBE_RCVLOWAT_AUTO: PROBE_RCVLOWAT_DEFAULT when rcvbuf is autotuned, else off (a
	 * locked small buffer would hold half its window unread); 0: off. */
	int64_t rcvlowat;
	/* The bulk receiver polls its socket this many us for SO_RCVLOWAT bytes before it sleeps
	 * in recv(): a receiver that sleeps costs the sender a wake-up each time.
	 * PROBE_RX_POLL_AUTO: PROBE_RX_POLL_DEFAULT for stream and maerts; 0: off. */
	int64_t rx_poll_us;
	bool no_sample; /* the bulk sender does not sample its queued bytes (SO_MEMINFO) */
	char cc[16];	/* "" : system default */
	int cpu_local, cpu_remote; /* -1: not pinned */
	unsigned int iter_min, iter_max;
	double conf_level, conf_width; /* e.g. 99 and 5 (%); level 0: no confidence loop */
	const char *bind_dev;	       /* SO_BINDTODEVICE; NULL none */
	const char *key_file;	       /* serve's shared secret; NULL: none (see auth.h) */
	/* Called about once a second during a run (may be NULL). */
	void (*progress)(void *arg, unsigned int iter, double elapsed_s, double total_s,
			 double value);
	void *progress_arg;
	/* When set, *end_window turning non-zero (another thread) ends the measurement window
	 * early, as if its time were up; may be NULL. */
	const int *end_window;
};

struct probe_tcpinfo {
	bool valid;
	uint32_t retrans;	    /* segments retransmitted in the window (all flows) */
	uint32_t rtt_us, rttvar_us; /* mean over flows at the end */
	uint32_t snd_cwnd, snd_mss;
	uint64_t delivery_rate;				      /* bytes/s, summed over flows */
	uint64_t busy_us, rwnd_limited_us, sndbuf_limited_us; /* in the window, summed */
	uint64_t bytes_sent; /* tcpi_bytes_sent in the window (retransmits included), summed */
	/* sk_wmem_alloc (SO_MEMINFO): truesize of this side's skbs below TCP, in the qdisc and
	 * the driver until freed; mean of samples 10-30 ms apart over the window, flows summed.
	 * Divided by the throughput it is the time a byte waits for its TX completion. */
	double wmem_alloc;
	uint32_t wmem_samples;
};

struct probe_devstats {
	char dev[32];
	bool valid;
	double elapsed_s;
	uint64_t rx_packets, tx_packets, rx_bytes, tx_bytes, rx_dropped, tx_dropped;
	uint64_t irqs; /* /proc/interrupts lines naming the device */
	unsigned int irq_lines;
	/* BQL over the TX queues (sysfs byte_queue_limits): the limits and bytes in flight summed
	 * at the window's end, and stall_cnt's change (the stall detector, 6.9+) */
	bool have_bql, have_stall;
	unsigned int n_txq;
	uint64_t bql_limit, bql_inflight, bql_stall_cnt, bql_stall_max_ms;
	/* Queues stopped and woken (netdev qstats tx-stop/tx-wake, summed over queues) */
	bool have_qstats, have_qbytes;
	uint64_t tx_stop, tx_wake;
	uint64_t q_packets, q_bytes; /* the TX queues' own packet and byte counts (qstats) */
	/* TcpExt of the side's namespace: retransmits held back because the original skb was
	 * still below TCP (not yet completed) */
	bool have_tcpext;
	uint64_t spurious_rtx_hostq;
	unsigned int n_ethtool; /* ethtool -S counters that changed */
	char ethtool_name[PROBE_MAX_ETHTOOL][32];
	uint64_t ethtool_delta[PROBE_MAX_ETHTOOL];
};

struct probe_side { /* what one end measured in one iteration */
	double elapsed_s;
	double cpu_util; /* system-wide busy %, all CPUs */
	double proc_cpu; /* this process, % of one CPU */
	/* its control thread, % of one CPU: the waiting, the sampling (SO_MEMINFO) and the
	 * progress line, the measurement's own cost */
	double ctl_cpu;
	uint32_t sndbuf_end, rcvbuf_end; /* SO_SNDBUF/SO_RCVBUF of flow 0 at the end */
	uint32_t rcvlowat_end; /* its SO_RCVLOWAT as the kernel capped it (1: wakes per skb) */
	double poll_cpu; /* its bulk receiver's polling for data (--rx-poll-usecs), % of one CPU */
	uint64_t bytes[PROBE_MAX_FLOWS]; /* received (stream/maerts receiver) in the window */
	uint64_t trans[PROBE_MAX_FLOWS]; /* transactions (rr/crr client) in the window */
	/* MSG_ZEROCOPY sender, over the run (warmup included, read when its workers ended):
	 * sends, their completions, and the completions whose data the kernel copied after all
	 * (SO_EE_CODE_ZEROCOPY_COPIED) */
	uint64_t zc_sends, zc_done, zc_copied;
	struct probe_tcpinfo ti;
};

struct probe_result {
	unsigned int n_iter;
	double iter_value[PROBE_MAX_ITER]; /* Mbit/s (stream/maerts) or transactions/s */
	/* Mean over iterations; flows summed. */
	double mbps, tps, value;
	double flow_mbps[PROBE_MAX_FLOWS], flow_tps[PROBE_MAX_FLOWS];
	/* RR latency over all iterations and flows, microseconds. */
	bool have_lat;
	struct stats_lat lat;
	uint64_t lat_samples;
	/* Confidence loop. */
	enum probe_stop stop;
	double ci_half;	     /* half-width at conf_level, same unit as value */
	double ci_width_pct; /* full width as % of the mean (netperf -I semantics) */
	/* Last iteration's ends: cpu, buffers, sender tcp_info. */
	struct probe_side local, remote;
	struct probe_tcpinfo sender_ti;
	struct probe_devstats dev;	  /* summed over iterations */
	struct probe_devstats remote_dev; /* the peer's device, summed over iterations */
	char peer_version[32];
	char err[256]; /* one line when probe_run fails */
};

/* Defaults: stream, 10 s, warmup 1 s, 1 flow, msg_size 0, 1 iteration. */
void probe_cfg_init(struct probe_cfg *cfg);
/* Check ranges; one line in err. 0 or -EINVAL. */
/* The message size a run uses: msg_size, else 128 KiB for stream/maerts, 1 for rr/crr. */
uint32_t probe_msg_size(const struct probe_cfg *cfg);
/* The bulk receiver's SO_RCVLOWAT a run uses (PROBE_RCVLOWAT_AUTO resolved); 0 for rr/crr. */
int64_t probe_rcvlowat(const struct probe_cfg *cfg);
/* cfg->rx_poll_us with PROBE_RX_POLL_AUTO resolved for its test. */
int64_t probe_rx_poll_us(const struct probe_cfg *cfg);
int probe_cfg_check(const struct probe_cfg *cfg, char *err, size_t errlen);
/* Run the whole measurement against an "ethtune serve" peer, including the confidence loop
 * (iter_max > 1 without a level implies 99,5; a level with iter_max 1 implies 3..10).
 * Prints nothing; 0, or -errno with res->err set to one line naming the peer.
 * Enter a namespace (netns_switch) before calling, while the process is single-threaded.
 * Ignores SIGPIPE for the process. May be called repeatedly (sweeps). */
int probe_run(const struct probe_cfg *cfg, struct probe_result *res);

/* The "environment" object of a JSON document (nothing in text): date, versions, kernel, host,
 * the sysctls that govern a TCP measurement and, where dev is set, the device as show reports
 * it; peer_version may be "". */
void probe_print_environment(const char *dev, const char *peer_version);

/* "host:port", "[v6]:port", "v6" or "host" into host and port (default defport). */
int probe_peer_split(const char *s, uint16_t defport, char *host, size_t hl, uint16_t *port);
/* The names of the tests and of the send paths, in enum order, NULL-terminated. */
extern const char *const probe_test_names[];
extern const char *const probe_send_names[];
const char *probe_test_name(enum probe_test t);
const char *probe_send_name(enum probe_send s);
/* 0, or -EINVAL for a name that is not copy, zerocopy or sendfile. */
int probe_send_parse(const char *s, enum probe_send *out);
int probe_test_parse(const char *s, enum probe_test *t);
/* What serve grants one client: longer, wider or more frequent requests are refused. */
struct serve_limits {
	uint32_t max_duration_s; /* per run, warmup included */
	uint32_t max_flows;
	uint32_t max_msg_size;	 /* bytes per send or request */
	uint32_t max_per_minute; /* sessions from one client address; 0: no limit */
};
void serve_limits_init(struct serve_limits *l);
/* ethtune serve: listen on bind_addr ("any": every address) and port, one session at a time,
 * each in a child, until SIGTERM or SIGINT, or (once) the first session ends. With key_file,
 * every client must prove it holds the key. Drops root for an unprivileged user keeping only
 * CAP_NET_ADMIN. 0, or -errno: cannot start (the line is printed), or (once) the session
 * failed. */
int serve_run(const char *bind_addr, uint32_t port, bool once, const char *key_file,
	      const struct serve_limits *lim);
const char *probe_stop_name(enum probe_stop s);

/* --- Control protocol (proto.c): 4-byte big-endian length, then a JSON object. --- */
struct json_t;
enum proto_type {
	PM_HELLO,
	PM_ERROR,
	PM_SETUP,
	PM_SETUP_OK,
	PM_READY,
	PM_START,
	PM_STOP,
	PM_RESULT,
	PM_BYE,
	PM_AUTH,
	PM__COUNT
};
const char *proto_type_name(enum proto_type t);
/* Protocol version we speak (PROBE_PROTO_VERSION unless ETHTUNE_TEST_PROTO_VERSION is set). */
int proto_version(void);
/* Parse and strictly validate one message body: JSON object with "v" == our version, a known
 * "type", only known keys, each with its type and range. On success *out is the object and the
 * type is returned; on failure -EPROTO (or -EBADMSG) and one line in err. */
int proto_parse(const char *buf, size_t len, struct json_t **out, char *err, size_t errlen);
/* Send one message (steals msg). 0 or -errno. */
int proto_send(int fd, struct json_t *msg);
/* Receive one message within timeout_ms; type must be want (PM__COUNT: any) or PM_ERROR
 * (reported in err). The type (>= 0) with *out, or -errno: -ETIMEDOUT, -ECONNRESET (peer closed),
 * -EPROTO, -EMSGSIZE, -EREMOTEIO (peer sent an error). err gets one line. */
int proto_recv(int fd, int timeout_ms, enum proto_type want, struct json_t **out, char *err,
	       size_t errlen);
/* One message read in pieces from a non-blocking socket, as data arrives (serve's handshakes,
 * many at once). Zeroed to start; proto_rx_take() or proto_rx_free() makes it ready again. */
struct proto_rx {
	uint32_t got; /* bytes of header and body so far */
	uint32_t len; /* the body's, once the header is in */
	unsigned char hdr[4];
	char *body;
};
/* Read what has arrived: 1 when the message is whole, 0 when more is to come, or -errno with one
 * line in err: -ECONNRESET (closed), -EMSGSIZE (a length over PROTO_MAX_MSG), -EPROTO (0). */
int proto_rx_read(int fd, struct proto_rx *rx, char *err, size_t errlen);
/* The whole message, checked and returned as proto_recv() does. */
int proto_rx_take(struct proto_rx *rx, enum proto_type want, struct json_t **out, char *err,
		  size_t errlen);
void proto_rx_free(struct proto_rx *rx);
struct json_t *proto_msg(enum proto_type t);
/* One request and its reply: proto_send(msg), then proto_recv(want). err is empty when the send
 * failed (the -errno says why). */
int proto_call(int fd, struct json_t *msg, int timeout_ms, enum proto_type want,
	       struct json_t **out, char *err, size_t errlen);

/* The keys of a latency summary into the open JSON object, with its text: one line
 * "latency us: min .. max" (no newline), or columns p50 p90 p99 p99.9 max ending the line. */
void probe_print_lat(const struct stats_lat *l, bool columns);

#endif
