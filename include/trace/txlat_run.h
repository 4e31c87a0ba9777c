/* Running `ethtune txlat` beside a probe and reading its JSON: completion latency and orphans. */
#ifndef ETHTUNE_TXLAT_RUN_H
#define ETHTUNE_TXLAT_RUN_H

#include <stdbool.h>
#include <stdint.h>
#include <sys/types.h>

struct txlat_sample {
	pid_t pid;
	char out[256];		      /* temp file with the child's JSON */
	char ready[280], script[280]; /* attach marker and the load script that writes it */
	bool ok;		      /* the child ran and its report parsed */
	double p50_us, p90_us, p99_us, max_us;
	double p50_lo_us, p50_hi_us; /* 95% order-statistic interval of the median */
	uint64_t freed, xmit, bytes;
	uint64_t tcp_skbs, owned_at_xmit, orphan_before_xmit, orphaned_after_xmit;
	double orphan_frac; /* TCP skbs not owned by their socket at free */
	char free_is[96];   /* the report's word on what the "free" means */
	char verdict[96];
	unsigned int nhist;
	double hist_lo[64], hist_hi[64];
	uint64_t hist_count[64];
	char err[160];
};

/* Start tracing dev for seconds in a child (this binary's txlat command) and return once its
 * programs are attached (or it failed, or 30 s passed), so traffic started next is all seen.
 * Never fails hard: s->ok says whether a report came back, s->err why not. */
void txlat_sample_start(const char *dev, double seconds, struct txlat_sample *s);
void txlat_sample_finish(struct txlat_sample *s);
/* Parse a txlat JSON report (exposed for unit tests). 0 or -EBADMSG. */
int txlat_sample_parse(const char *json, struct txlat_sample *s);

#endif
