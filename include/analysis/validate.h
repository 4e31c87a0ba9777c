/* ethtune validate: a pass/fail TX-completion checklist for a driver release (KTAP). */
#ifndef ETHTUNE_VALIDATE_H
#define ETHTUNE_VALIDATE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "analysis/sweep.h"

/* The checklist, in the order the checks run and are reported: one line a check, X(ID, name)
 * for its number VC_ID and its entry val_check_name, which ethtune/analysis/validate/name.c
 * defines (struct val_entry, analysis/validate_check.h). A check listed here runs by default,
 * and --only and --skip take its name. */
#define VAL_CHECKS(X)                                                                              \
	X(ROUND_TRIP, round_trip)                                                                  \
	X(COALESCE, coalesce)                                                                      \
	X(TSQ, tsq)                                                                                \
	X(OWNERSHIP, ownership)                                                                    \
	X(BQL, bql)                                                                                \
	X(COUNTERS, counters)                                                                      \
	X(RECONFIG, reconfig)                                                                      \
	X(GSO, gso)                                                                                \
	X(LARGE_MTU, large_mtu)                                                                    \
	X(NOTHING_LEFT, nothing_left)

#define VAL_CHECK_ID(id, name) VC_##id,
enum val_check { VAL_CHECKS(VAL_CHECK_ID) VC__N };
#undef VAL_CHECK_ID

enum val_result { VR_PASS, VR_FAIL, VR_SKIP };

#define VAL_MAX_DIAG 48
#define VAL_MAX_NUM  16

/* A measured number or a bound: its kebab-case key (unit last) and value. */
struct val_num {
	char key[40];
	double v;
};

struct val_res {
	bool ran; /* selected (--only/--skip) */
	enum val_result res;
	bool warn;	  /* passed with a warning (--allow-orphan) */
	char reason[300]; /* why it failed or was skipped; what it showed when it passed */
	char diag[VAL_MAX_DIAG][240];
	unsigned int ndiag;
	struct val_num measured[VAL_MAX_NUM], bound[VAL_MAX_NUM];
	unsigned int nmeasured, nbound;
};

struct val_report {
	char dev[32], driver[32], kind[32], peer[64];
	struct val_res r[VC__N];
	unsigned int passed, failed, skipped;
	double elapsed_s;
};

/* counters and BQL are judged on one bulk flow this long at least, seconds (the issue's >= 10 s:
 * long enough for a 32-bit counter of a 10G device to wrap if the driver keeps one). */
#define VAL_LOAD_MIN_S 10

struct val_opts {
	struct sweep_opts o; /* dev, peer (NULL: no traffic), peer-dev, durations */
	unsigned int checks; /* bit per enum val_check */
	double budget_s;     /* for the TSQ rounds */
	double load_s;	     /* the bulk flow counters, BQL and ownership are judged on */
	bool allow_orphan;
	bool ktap;	  /* KTAP even under --json */
	const char *prom; /* --prom: the metrics to this file */
	double t0;
};

/* "round-trip", ...; NULL out of range. */
const char *val_check_name(unsigned int c);
/* The valid names, comma-separated, for a usage error. */
const char *val_check_names(void);
/* A comma-separated list of check names into a bit mask. 0, or -EINVAL with a line in err
 * naming the unknown check and listing the valid ones. */
int val_parse_list(const char *s, unsigned int *mask, char *err, size_t errlen);

/* Record a result (pure; the checks and unit tests use them). */
void val_diag(struct val_res *r, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
void val_set(struct val_res *r, enum val_result res, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));
void val_measured(struct val_res *r, const char *key, double v);
void val_bound(struct val_res *r, const char *key, double v);
/* Counts passed/failed/skipped from the selected checks. */
void val_count(struct val_report *rep);
/* The report through out/json_print: KTAP in text (and with ktap), one document in JSON. */
void val_print(const struct val_report *rep, bool json);
/* The report's metrics (--prom): per check passed, warning and skipped, the counts by result
 * and the run's length; labels device and driver set by the caller. 0 or -errno. */
struct prom;
int val_prom(const struct val_report *rep, struct prom *p);

/* round-trip's values for parameter p at cur (max: the device's maximum, where has_max): up to
 * two into v, the first other than cur, the second other than the first (it may be cur); 0
 * when p can take one value only. */
struct et_param;
unsigned int val_rt_values(const struct et_param *p, uint64_t cur, bool has_max, uint64_t max,
			   uint64_t *v);

/* coalesce's settings of the TX knob (VAL_COAL_US in analysis/validate/coalesce.c). */
#define VAL_COAL_POINTS 4
/* coalesce's measurements: the knob read back at each setting (the first the baseline, the knob
 * at its smallest value), the median xmit-to-free with its 95% interval, the serialization of
 * the traced skbs, and the host's timer floor. */
struct val_coal {
	unsigned int n;
	double got[VAL_COAL_POINTS], p50[VAL_COAL_POINTS], lo[VAL_COAL_POINTS], hi[VAL_COAL_POINTS],
		ser_us[VAL_COAL_POINTS];
	double floor_us;
	double rtt_us; /* request/response round trip at the baseline, median (<= 0 unknown) */
};
/* coalesce's verdict from m (pure; n == VAL_COAL_POINTS): each setting's median within the
 * baseline's upper end + the setting + floor + serialization, and growing with it; the
 * baseline itself before the round trip. */
void val_coal_judge(const struct val_coal *m, const char *knob, struct val_res *r);

/* gso's measurements: one flow under the limits in force (the first) and one with each lowered,
 * what txlat saw reach the driver and what the device counted meanwhile. */
enum val_gso_lowered { VAL_GSO_NONE, VAL_GSO_SIZE, VAL_GSO_SEGS_LOWERED };
struct val_gso_phase {
	char what[48];
	enum val_gso_lowered lowered;
	uint64_t size_limit, segs_limit; /* in force: gso(-ipv4)-max-size, gso-max-segs */
	uint64_t skbs, gso, segs, bytes, max_len, max_segs; /* traced at the driver's xmit */
	uint64_t dev_pkts, dev_bytes;			    /* the device's TX counters */
};
struct val_gso {
	unsigned int n;
	struct val_gso_phase p[3];
};
/* gso's verdict from m (pure): no skb above the limits in force, a lowered limit reached (else
 * inconclusive), and the device's packets either wire packets or super-packets. */
void val_gso_judge(const struct val_gso *m, struct val_res *r);

/* Run the selected checks on o->o.dev (namespace entered, device present), changing it only
 * temporarily, and fill rep. 0, or -errno after one line saying why the run could not go on
 * (the journal cannot be used or written: nothing is left changed; -EINTR: a signal, the
 * changes put back before). */
int validate_dev(const struct val_opts *o, struct val_report *rep);

#endif
