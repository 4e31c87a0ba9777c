/* validate's checks: the entry each check defines, the run they share and its shared parts. */
#ifndef ETHTUNE_VALIDATE_CHECK_H
#define ETHTUNE_VALIDATE_CHECK_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "analysis/sweep.h"
#include "analysis/validate.h"
#include "nl/devobj.h"
#include "probe/probe.h"
#include "trace/txlat.h"

/*
 * A check is one file, ethtune/analysis/validate/NAME.c, and one line in VAL_CHECKS
 * (analysis/validate.h). The file holds the check's function, its bounds with the reason for
 * each, and its entry: `const struct val_entry val_check_NAME`. The run (validate.c) gives every
 * check a settled link, SKIPs it where it cannot apply (needs, software), and otherwise calls
 * run() with the check's result to fill (val_set(), val_diag(), val_measured(), val_bound()).
 */

/* What a check needs. The run SKIPs a check that needs a peer when there is none; the others
 * say what the check reads, and the check itself decides what their absence means. */
enum {
	VAL_NEEDS_PEER = 1 << 0,   /* traffic to an 'ethtune serve' (--peer) */
	VAL_NEEDS_LOAD = 1 << 1,   /* judged on the shared bulk flow (load.c), run once for all */
	VAL_NEEDS_TXLAT = 1 << 2,  /* traces with txlat (BPF) */
	VAL_NEEDS_BQL = 1 << 3,	   /* reads byte_queue_limits (sysfs) */
	VAL_NEEDS_NETDEV = 1 << 4, /* reads the netdev family's qstats where the kernel has them */
	VAL_AT_END = 1 << 5,	   /* runs after every temporary change was put back */
};

struct val_ctx;

struct val_entry {
	const char *name;     /* as --only, --skip and the report spell it */
	unsigned int needs;   /* VAL_NEEDS_*, VAL_AT_END */
	const char *software; /* SKIP on a software device (drvdb_software()), this the reason */
	/* 0 with r filled; -errno ends the run (-EINTR, or c->fatal says why) */
	int (*run)(struct val_ctx *c, struct val_res *r);
};

/* The checklist, in VAL_CHECKS's order (checks.c). */
extern const struct val_entry *const val_checks[VC__N];

/* A device's settings, taken at the start and compared at the end (nothing-left). */
struct snap {
	int ret[3];
	struct et_vals v[3]; /* val_objs: coalesce, rings, channels */
	int fret;
	struct et_bitset feat;
	uint64_t mtu;
};

/* The run: the device as read at the start, and what checks share. */
struct val_ctx {
	const struct val_opts *vo;
	struct sweep_opts o;
	struct val_report *rep;
	char driver[32], kind[32];
	int speed;
	uint32_t mtu;
	bool software;
	bool have_coal;
	struct et_vals coal;
	double floor_us;
	struct snap start, peer_start;
	int peer_ret; /* reading the peer's device at the start: 0 or -errno */
	int kmsg;     /* /dev/kmsg at its end when the run started, -1 unreadable */
	/* the bulk flow counters, BQL and ownership are judged on */
	bool load_done;
	int load_ret;
	char load_err[300];
	struct probe_result *lr;
	bool tl_ok;
	char tl_err[256];
	struct txlat_result *tl;
	unsigned int nsamp;
	uint64_t s_bytes[64], s_pkts[64], s_bql[64];
	bool have_bql;
	unsigned int n_txq, n_bql;
	uint64_t bql_before, bql_min, stall_before, stall_after;
	bool have_stall;
	char fatal[512];       /* why the run cannot go on (the journal cannot be written) */
	const int *end_window; /* the probe's window ends early when it turns non-zero */
	uint64_t tx_timeouts;  /* the TX queues' tx_timeout (sysfs) summed at the start */
	bool carrier0;	       /* the device had carrier at the start */
	double tsq_one_mbps;   /* tsq's one flow (mean), 0 where tsq did not measure */
	int undo_ret;	       /* putting the temporary changes back: 0 or -errno (at the end) */
};

/* ---- the device (device.c) ---- */

/* The objects a snapshot holds, and round-trip and reconfig change, with set's words for them. */
extern const struct et_object *const val_objs[3];
extern const char *const val_obj_words[3];
/* fn(ctx) in the peer's namespace (--peer-netns; in ours without it). fn's 0 or -errno. */
int val_peer_run(const struct val_ctx *c, int (*fn)(void *), void *ctx, size_t len);
/* A number from the device's sysfs directory (rel: "carrier"), 0 where it cannot be read. */
uint64_t val_dev_u64(const char *dev, const char *rel);
/* The TX queues' queues/tx-N/tx_timeout (sysfs), summed. */
uint64_t val_tx_timeouts(const char *dev);
/* A snapshot of dev's settings; of the peer's device (--peer-dev) in its namespace: 0 or -errno
 * (-ENODEV: no such device there). The run takes them at the start, nothing-left at the end. */
void val_snap_take(const char *dev, struct snap *s);
int val_peer_snap_take(const struct val_ctx *c, struct snap *out);

/* ---- traffic (load.c) ---- */

/* One probe of test with flows against the peer for dur seconds; sample: take the device's
 * counters and BQL limits at each progress report (the bulk flow). 0, or -errno with err. */
int val_probe(struct val_ctx *c, unsigned int flows, enum probe_test test, double dur, bool sample,
	      struct probe_result *res, char *err, size_t errlen);
/* The shared bulk flow for a check: 0 when it ran, 1 when it failed (r says why), -EINTR. */
int val_load(struct val_ctx *c, struct val_res *r);
/* What the bulk flow carried and retransmitted, into r's diagnostics (and its numbers where
 * judged); whether it loaded the device (VAL_LOAD_SHARE). */
bool val_load_loaded(struct val_ctx *c, struct val_res *r, bool judged);

/* ---- what checks share with each other ---- */

/* tsq's measure into r: one flow against VAL_TSQ_FLOWS at this kernel's default
 * tcp_limit_output_bytes (tsq.c; large-mtu runs it at the largest MTU). 0 or -EINTR. */
int val_tsq_measure(struct val_ctx *c, struct val_res *r);
/* Why TSQ cannot hold a flow back on a software device (tsq, large-mtu). */
#define VAL_TSQ_SOFTWARE                                                                           \
	"its skbs leave their socket when handed to the peer, so TSQ never holds a flow back "     \
	"on it"
/* The GSO limits in force on a link as read (gso.c): 0, or -EOPNOTSUPP on a kernel without. */
int val_gso_link_limits(const struct et_link *l, uint64_t *size, uint64_t *segs,
			uint64_t *tso_size);

#endif
