/* ethtune validate: each check of the TX-completion checklist, its bound and its KTAP report. */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <pthread.h>
#include <sched.h>
#include <time.h>
#include <sys/utsname.h>
#include <sys/wait.h>
#include <net/if.h>
#include <linux/if_link.h>

#include "analysis/validate.h"
#include "analysis/diagnose.h"
#include "analysis/model.h"
#include "analysis/sweep.h"
#include "analysis/thresholds.h"
#include "knowledge/drvdb.h"
#include "nl/devobj.h"
#include "nl/ethtool_attrs.h"
#include "nl/netdev.h"
#include "out/json_print.h"
#include "probe/probe.h"
#include "state/devset.h"
#include "state/journal.h"
#include "state/undo.h"
#include "trace/txlat.h"
#include "util/ethtune.h"
#include "util/stats.h"

#define TSQ_SYSCTL "net.ipv4.tcp_limit_output_bytes"

static const char *const check_names[VC__N] = {
	[VC_ROUND_TRIP] = "round-trip",
	[VC_COALESCE] = "coalesce",
	[VC_TSQ] = "tsq",
	[VC_OWNERSHIP] = "ownership",
	[VC_BQL] = "bql",
	[VC_COUNTERS] = "counters",
	[VC_RECONFIG] = "reconfig",
	[VC_GSO] = "gso",
	[VC_LARGE_MTU] = "large-mtu",
	[VC_NOTHING_LEFT] = "nothing-left",
};

const char *val_check_name(unsigned int c)
{
	return c < VC__N ? check_names[c] : NULL;
}

const char *val_check_names(void)
{
	static char buf[160];
	unsigned int c;
	size_t n = 0;

	if (buf[0])
		return buf;
	for (c = 0; c < VC__N; c++)
		n += snprintf(buf + n, sizeof(buf) - n, "%s%s", c ? "," : "", check_names[c]);
	return buf;
}

int val_parse_list(const char *s, unsigned int *mask, char *err, size_t errlen)
{
	const char *p = s;

	*mask = 0;
	for (;;) {
		size_t len = strcspn(p, ",");
		unsigned int c;

		for (c = 0; c < VC__N; c++)
			if (strlen(check_names[c]) == len && !strncmp(p, check_names[c], len))
				break;
		if (c == VC__N) {
			snprintf(err, errlen, "unknown check '%.*s' (valid: %s)", (int)len, p,
				 val_check_names());
			return -EINVAL;
		}
		*mask |= 1u << c;
		if (!p[len])
			return 0;
		p += len + 1;
	}
}

void val_diag(struct val_res *r, const char *fmt, ...)
{
	va_list ap;

	if (r->ndiag >= VAL_MAX_DIAG)
		return;
	va_start(ap, fmt);
	vsnprintf(r->diag[r->ndiag++], sizeof(r->diag[0]), fmt, ap);
	va_end(ap);
}

void val_set(struct val_res *r, enum val_result res, const char *fmt, ...)
{
	va_list ap;

	r->res = res;
	va_start(ap, fmt);
	vsnprintf(r->reason, sizeof(r->reason), fmt, ap);
	va_end(ap);
}

static void val_num(struct val_num *v, unsigned int *n, const char *key, double x)
{
	unsigned int i;

	for (i = 0; i < *n; i++)
		if (!strcmp(v[i].key, key))
			break;
	if (i == VAL_MAX_NUM)
		return;
	snprintf(v[i].key, sizeof(v[i].key), "%s", key);
	v[i].v = x;
	if (i == *n)
		(*n)++;
}

void val_measured(struct val_res *r, const char *key, double v)
{
	val_num(r->measured, &r->nmeasured, key, v);
}

void val_bound(struct val_res *r, const char *key, double v)
{
	val_num(r->bound, &r->nbound, key, v);
}

void val_count(struct val_report *rep)
{
	unsigned int c;

	rep->passed = rep->failed = rep->skipped = 0;
	for (c = 0; c < VC__N; c++) {
		if (!rep->r[c].ran)
			continue;
		if (rep->r[c].res == VR_PASS)
			rep->passed++;
		else if (rep->r[c].res == VR_FAIL)
			rep->failed++;
		else
			rep->skipped++;
	}
}

static const char *result_name(enum val_result r)
{
	return r == VR_PASS ? "pass" : r == VR_FAIL ? "fail" : "skip";
}

/* "k v, k v" of n numbers, for a KTAP diagnostic line. */
static void nums_text(const struct val_num *v, unsigned int n, char *buf, size_t len)
{
	unsigned int i;
	size_t o = 0;

	buf[0] = 0;
	for (i = 0; i < n && o < len; i++)
		o += snprintf(buf + o, len - o,
			      v[i].v == floor(v[i].v) && fabs(v[i].v) < 1e15 ? "%s%s %.0f"
									     : "%s%s %.4g",
			      i ? ", " : "", v[i].key, v[i].v);
}

static void nums_json(const char *key, const struct val_num *v, unsigned int n)
{
	unsigned int i;

	open_json_object(key);
	for (i = 0; i < n; i++)
		print_float(PRINT_JSON, v[i].key, NULL, v[i].v);
	close_json_object();
}

void val_print(const struct val_report *rep, bool json)
{
	unsigned int c, n = 0, k = 0, i;
	char buf[600];

	for (c = 0; c < VC__N; c++)
		n += rep->r[c].ran;
	new_json_obj(json);
	print_text("KTAP version 1\n");
	print_string(PRINT_ANY, "device", "# ethtune validate %s", rep->dev);
	print_string(PRINT_ANY, "driver", " (driver %s", rep->driver[0] ? rep->driver : "?");
	if (rep->kind[0])
		print_string(PRINT_ANY, "kind", ", %s", rep->kind);
	if (rep->peer[0])
		print_string(PRINT_ANY, "peer", ") via %s\n", rep->peer);
	else
		print_text(") without a peer\n");
	print_text("1..%u\n", n);
	open_json_array(PRINT_JSON, "checks");
	for (c = 0; c < VC__N; c++) {
		const struct val_res *r = &rep->r[c];

		if (!r->ran)
			continue;
		k++;
		open_json_object(NULL);
		print_string(PRINT_JSON, "name", NULL, check_names[c]);
		print_uint(PRINT_JSON, "number", NULL, k);
		print_string(PRINT_JSON, "result", NULL, result_name(r->res));
		print_bool(PRINT_JSON, "warning", NULL, r->warn);
		print_string(PRINT_JSON, "reason", NULL, r->reason);
		open_json_array(PRINT_JSON, "diagnostics");
		for (i = 0; i < r->ndiag; i++) {
			print_text("# %s: ", check_names[c]);
			print_string(PRINT_ANY, NULL, "%s\n", r->diag[i]);
		}
		close_json_array(PRINT_JSON, NULL);
		nums_json("measured", r->measured, r->nmeasured);
		nums_json("bound", r->bound, r->nbound);
		close_json_object();
		if (r->res != VR_SKIP) {
			print_text("# %s: %s%s\n", check_names[c],
				   r->res == VR_FAIL ? "FAIL: "
				   : r->warn	     ? "WARNING: "
						     : "",
				   r->reason);
		}
		if (r->nmeasured) {
			nums_text(r->measured, r->nmeasured, buf, sizeof(buf));
			print_text("# %s: measured %s\n", check_names[c], buf);
		}
		if (r->nbound) {
			nums_text(r->bound, r->nbound, buf, sizeof(buf));
			print_text("# %s: bound %s\n", check_names[c], buf);
		}
		if (r->res == VR_SKIP)
			print_text("ok %u %s # SKIP %s\n", k, check_names[c], r->reason);
		else
			print_text("%s %u %s\n", r->res == VR_PASS ? "ok" : "not ok", k,
				   check_names[c]);
	}
	close_json_array(PRINT_JSON, NULL);
	print_uint(PRINT_ANY, "passed", "# %u passed", rep->passed);
	print_uint(PRINT_ANY, "failed", ", %u failed", rep->failed);
	print_uint(PRINT_ANY, "skipped", ", %u skipped", rep->skipped);
	print_float(PRINT_ANY, "elapsed-s", " in %.1f s\n", rep->elapsed_s);
	delete_json_obj();
}

/* ---- the run ---- */

struct snap {
	int ret[3];
	struct et_vals v[3]; /* coalesce, rings, channels */
	int fret;
	struct et_bitset feat;
	uint64_t mtu;
};

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
};

static const struct et_object *const objs[3] = { &et_coalesce, &et_rings, &et_channels };
static const char *const obj_words[3] = { "coalesce", "ring", "channels" };

static void snap_take(const char *dev, struct snap *s)
{
	struct nl_sock ns;
	struct et_link l;
	unsigned int i;

	memset(s, 0, sizeof(*s));
	if (nl_open_genl(&ns, "ethtool")) {
		s->ret[0] = s->ret[1] = s->ret[2] = s->fret = -EIO;
	} else {
		for (i = 0; i < 3; i++)
			s->ret[i] = obj_get(&ns, objs[i], dev, &s->v[i]);
		s->fret = features_get(&ns, dev, &s->feat);
		nl_close(&ns);
	}
	if (!link_get_dev(dev, &l))
		s->mtu = l.v.v[IFLA_MTU];
}

static int read_state(struct val_ctx *c)
{
	struct nl_sock eth;
	struct et_link l;
	struct et_drvinfo di;
	int ret;

	ret = link_get_dev(c->o.dev, &l);
	if (ret)
		return ret;
	snprintf(c->kind, sizeof(c->kind), "%s", !strcmp(c->o.dev, "lo") ? "loopback" : l.kind);
	c->mtu = (uint32_t)l.v.v[IFLA_MTU];
	ret = nl_open_genl(&eth, "ethtool");
	if (ret)
		return ret;
	drvinfo_get(&eth, c->o.dev, &di);
	snprintf(c->driver, sizeof(c->driver), "%s", di.ok ? di.driver : "");
	c->speed = di.ok ? di.speed : -1;
	c->have_coal = !obj_get(&eth, &et_coalesce, c->o.dev, &c->coal);
	nl_close(&eth);
	c->software = drvdb_software(c->driver, c->kind) != DRV_SW_NONE;
	return 0;
}

/* ---- traffic ---- */

static void load_sample(void *arg, unsigned int iter, double el, double total, double v)
{
	struct val_ctx *c = arg;
	struct bql_sum b;

	(void)iter;
	(void)el;
	(void)total;
	(void)v;
	if (c->nsamp >= sizeof(c->s_bytes) / sizeof(c->s_bytes[0]))
		return;
	if (dev_sysfs_u64(c->o.dev, "statistics/tx_bytes", &c->s_bytes[c->nsamp]) ||
	    dev_sysfs_u64(c->o.dev, "statistics/tx_packets", &c->s_pkts[c->nsamp]))
		return;
	bql_sum_read(c->o.dev, &b);
	c->s_bql[c->nsamp++] = b.limit;
}

/* One probe of test with flows against the peer; progress (may be NULL) samples during it. */
static int val_probe(struct val_ctx *c, unsigned int flows, enum probe_test test, double dur,
		     bool sample, struct probe_result *res, char *err, size_t errlen)
{
	struct probe_cfg cfg;
	char host[256];
	uint16_t port;
	int ret;

	if (et_stop_signal()) {
		snprintf(err, errlen, "interrupted");
		return -EINTR;
	}
	probe_cfg_init(&cfg);
	ret = probe_peer_split(c->o.peer, PROBE_DEFAULT_PORT, host, sizeof(host), &port);
	if (ret) {
		snprintf(err, errlen, "bad peer '%s'", c->o.peer);
		return ret;
	}
	cfg.peer = host;
	cfg.port = port;
	cfg.test = test;
	cfg.flows = flows;
	cfg.duration_s = dur;
	cfg.warmup_s = c->o.warmup_s;
	cfg.key_file = et_opts.key_file;
	cfg.end_window = c->end_window;
	if (test == PROBE_RR) {
		cfg.msg_size = 1;
		cfg.nodelay = true;
	}
	if (sample) {
		cfg.progress = load_sample;
		cfg.progress_arg = c;
	}
	ret = probe_cfg_check(&cfg, err, errlen);
	if (ret)
		return ret;
	memset(res, 0, sizeof(*res));
	ret = probe_run(&cfg, res);
	if (ret && !if_nametoindex(c->o.dev))
		snprintf(err, errlen,
			 "%s is gone (removed, or its namespace deleted, during the run)",
			 c->o.dev);
	else if (ret)
		snprintf(err, errlen, "the peer %s stopped answering: %.200s", c->o.peer,
			 res->err[0] ? res->err : strerror(-ret));
	return ret;
}

/* The bulk flow of load_s under txlat, sampling the device's counters and BQL limits. */
static int run_load(struct val_ctx *c)
{
	struct txlat *t = NULL;
	struct bql_sum b;

	if (c->load_done)
		return c->load_ret;
	c->load_done = true;
	c->lr = calloc(1, sizeof(*c->lr));
	c->tl = calloc(1, sizeof(*c->tl));
	if (!c->lr || !c->tl)
		return c->load_ret = -ENOMEM;
	bql_sum_read(c->o.dev, &b);
	c->n_txq = b.n_txq;
	c->n_bql = b.n_bql;
	c->bql_before = b.limit;
	c->bql_min = b.limit_min;
	c->stall_before = b.stall_cnt;
	c->have_stall = b.have_stall;
	c->have_bql = c->n_bql > 0;
	if (txlat_open(c->o.dev, NULL, &t, c->tl_err, sizeof(c->tl_err)))
		t = NULL;
	load_sample(c, 0, 0, 0, 0);
	c->load_ret = val_probe(c, 1, PROBE_STREAM, c->vo->load_s, true, c->lr, c->load_err,
				sizeof(c->load_err));
	load_sample(c, 0, 0, 0, 0);
	c->tl_ok = t && !txlat_collect(t, c->tl, c->tl_err, sizeof(c->tl_err));
	txlat_close(t);
	bql_sum_read(c->o.dev, &b);
	c->n_bql = b.n_bql;
	c->stall_after = b.stall_cnt;
	c->have_stall = b.have_stall;
	return c->load_ret;
}

/* What the bulk flow carried and retransmitted, into r's diagnostics (and its numbers, where
 * the check is judged on it); whether it loaded the device: at least VAL_LOAD_SHARE of the line
 * rate's goodput, else of tsq's one flow; true where neither is known. */
static bool load_loaded(struct val_ctx *c, struct val_res *r, bool judged)
{
	const struct probe_tcpinfo *ti = &c->lr->sender_ti;
	double mss = c->mtu > 52 ? c->mtu - 52 : 1448, ref = NAN, rtx = 0;
	const char *what = "";
	char of[96] = "";
	bool loaded;

	if (c->speed > 0) {
		ref = c->speed * GOODPUT_SHARE;
		what = "the line rate's goodput";
	} else if (c->tsq_one_mbps > 0) {
		ref = c->tsq_one_mbps;
		what = "tsq's one flow";
	}
	if (ti->bytes_sent)
		rtx = ti->retrans * mss / (double)ti->bytes_sent;
	loaded = isnan(ref) || c->lr->mbps >= VAL_LOAD_SHARE * ref;
	if (judged) {
		val_measured(r, "load-mbps", c->lr->mbps);
		val_measured(r, "load-retransmitted-share", rtx);
	}
	if (!isnan(ref)) {
		if (judged)
			val_bound(r, "min-load-mbps", VAL_LOAD_SHARE * ref);
		snprintf(of, sizeof(of), " (%.1f%% of %s %.0f)", 100 * c->lr->mbps / ref, what,
			 ref);
	}
	val_diag(r,
		 "the bulk flow carried %.1f MB in %.0f s, %.1f Mbit/s%s; %u segments "
		 "retransmitted (%.2f%% of what it sent)",
		 (double)ti->bytes_sent / 1e6, c->vo->load_s, c->lr->mbps, of, ti->retrans,
		 100 * rtx);
	if (!loaded)
		val_diag(r, "the bulk flow stayed below %.0f%% of %s: it did not load the device%s",
			 100 * VAL_LOAD_SHARE, what,
			 rtx >= VAL_LOAD_LOSSY ? ", and losses held it back" : "");
	return loaded;
}

/* The shared load for a check: 0 when it ran, 1 when it failed (r says why), -EINTR. */
static int load_or_fail(struct val_ctx *c, struct val_res *r)
{
	int ret = run_load(c);

	if (ret == -EINTR)
		return ret;
	if (ret) {
		val_set(r, VR_FAIL, "%s", c->load_err);
		return 1;
	}
	return 0;
}

static bool need_peer(struct val_ctx *c, struct val_res *r)
{
	if (c->o.peer)
		return true;
	val_set(r, VR_SKIP, "no --peer: this check needs traffic to an 'ethtune serve'");
	return false;
}

static bool not_software(struct val_ctx *c, struct val_res *r, const char *what)
{
	if (!c->software)
		return true;
	val_set(r, VR_SKIP, "%s is a software device (%s, drvdb): %s", c->o.dev,
		c->driver[0] ? c->driver : c->kind, what);
	return false;
}

/* ---- 1. round-trip ---- */

static struct val_res *rt_res; /* where devset's read-back warnings go */

static void rt_warn(const char *msg)
{
	if (rt_res)
		val_diag(rt_res, "%s", msg);
}

unsigned int val_rt_values(const struct et_param *p, uint64_t cur, bool has_max, uint64_t max,
			   uint64_t *v)
{
	uint64_t cand[4], lo = p->min ? p->min : 1;
	unsigned int n = 0, k = 0, i;

	switch (p->type) {
	case ET_BOOL:
		v[0] = !cur;
		v[1] = cur;
		return 2;
	case ET_ENUM:
		for (i = 1; p->enum_names && p->enum_names[i] && n < 2; i++)
			if (i != cur)
				v[n++] = i;
		if (n == 1)
			v[n++] = cur;
		return n;
	}
	if (has_max) {
		if (max < lo)
			return 0;
		cand[k++] = max;
		cand[k++] = lo + (max - lo) / 2;
		cand[k++] = lo;
	} else {
		cand[k++] = cur ? cur * 2 : 16;
		cand[k++] = cur ? cur / 2 : 64;
		if (p->type == ET_U8)
			for (i = 0; i < k; i++)
				cand[i] = cand[i] > 255 ? 255 : cand[i];
	}
	for (i = 0; i < k && n < 1; i++)
		if (cand[i] != cur)
			v[n++] = cand[i];
	if (!n)
		return 0;
	for (i = 0; i < k && n < 2; i++)
		if (cand[i] != v[0])
			v[n++] = cand[i];
	if (n < 2)
		v[n++] = cur;
	return n;
}

/* Set one parameter to its values, read each back, put it back; counts into the result. */
static int rt_param(struct val_ctx *c, struct val_res *r, unsigned int oi, const struct et_param *p,
		    const struct et_vals *cur, unsigned int *nset, unsigned int *nround,
		    unsigned int *nref, unsigned int *nbad)
{
	const struct et_object *obj = objs[oi];
	uint64_t v[2], max = p->max_attr ? cur->v[p->max_attr] : 0;
	char sv[32], got_s[32], cur_s[32], err[512];
	struct et_vals now;
	struct nl_sock ns;
	unsigned int n, i;
	char trail[160] = "";
	size_t tl = 0;
	int mark, ret;

	n = val_rt_values(p, cur->v[p->attr], p->max_attr && vals_has(cur, p->max_attr), max, v);
	obj_format_val(p, cur->v[p->attr], cur_s, sizeof(cur_s));
	if (!n) {
		val_diag(r, "%s %s: one value only (%s, max %llu), nothing to round-trip",
			 obj_words[oi], p->key, cur_s, (unsigned long long)max);
		return 0;
	}
	ret = journal_txn_begin(&mark);
	if (ret)
		return ret;
	for (i = 0; i < n; i++) {
		struct devset_kv kv = { p->key, sv };

		obj_format_val(p, v[i], sv, sizeof(sv));
		rt_res = r;
		ret = devset_set(c->o.dev, obj_words[oi], &kv, 1, DEVSET_JOURNAL, err, sizeof(err),
				 rt_warn);
		rt_res = NULL;
		if (ret && !strncmp(err, "cannot write the journal", 24)) {
			/* nothing may change that restore could not put back */
			snprintf(c->fatal, sizeof(c->fatal), "%s", err);
			undo_txn_rollback(mark);
			return ret;
		}
		if (ret == -EINTR || ret == -ENODEV) {
			val_diag(r, "%s %s -> %s: %s", obj_words[oi], p->key, sv, err);
			(*nbad)++;
			break;
		}
		if (ret) { /* the kernel's or the device's refusal: reported, not a failure */
			val_diag(r, "%s %s -> %s: refused: %s", obj_words[oi], p->key, sv, err);
			(*nref)++;
			continue;
		}
		(*nset)++;
		if (nl_open_genl(&ns, "ethtool"))
			continue;
		ret = obj_get(&ns, obj, c->o.dev, &now);
		nl_close(&ns);
		if (ret)
			continue;
		obj_format_val(p, now.v[p->attr], got_s, sizeof(got_s));
		tl += snprintf(trail + tl, sizeof(trail) - tl, "%s%s reads %s", tl ? ", " : "", sv,
			       got_s);
		if (now.v[p->attr] != v[i]) {
			const struct drv_param *dp = drvdb_param(drvdb_lookup(c->driver), p->key);

			val_diag(r, "%s %s -> %s: reads back %s (rounded%s%s)", obj_words[oi],
				 p->key, sv, got_s, dp && dp->gran ? "; drvdb: " : "",
				 dp && dp->gran ? dp->gran : "");
			(*nround)++;
		}
	}
	ret = undo_txn_rollback(mark);
	if (ret) {
		val_diag(r, "%s %s: not put back to %s: %s", obj_words[oi], p->key, cur_s,
			 strerror(-ret));
		(*nbad)++;
		return 0;
	}
	if (nl_open_genl(&ns, "ethtool"))
		return 0;
	ret = obj_get(&ns, obj, c->o.dev, &now);
	nl_close(&ns);
	if (!ret && now.v[p->attr] != cur->v[p->attr]) {
		obj_format_val(p, now.v[p->attr], got_s, sizeof(got_s));
		val_diag(r, "%s %s: reads %s after the restore, was %s", obj_words[oi], p->key,
			 got_s, cur_s);
		(*nbad)++;
	} else if (!ret) {
		val_diag(r, "%s %s (was %s): %s%sput back", obj_words[oi], p->key, cur_s, trail,
			 trail[0] ? "; " : "");
	}
	return 0;
}

static int check_round_trip(struct val_ctx *c, struct val_res *r)
{
	unsigned int oi, i, nparam = 0, nset = 0, nround = 0, nref = 0, nbad = 0;
	struct nl_sock ns;
	int ret = 0;

	for (oi = 0; oi < 3 && !ret; oi++) {
		const struct et_object *obj = objs[oi];
		struct et_vals cur;

		ret = nl_open_genl(&ns, "ethtool");
		if (ret)
			break;
		ret = obj_get(&ns, obj, c->o.dev, &cur);
		nl_close(&ns);
		if (ret) {
			val_diag(r, "%s: not reported by %s (%s)", obj_words[oi], c->o.dev,
				 strerror(-ret));
			ret = 0;
			continue;
		}
		for (i = 0; i < obj->n_params && !ret; i++) {
			const struct et_param *p = &obj->params[i];

			if (!vals_has(&cur, p->attr) || p->ro)
				continue;
			nparam++;
			ret = rt_param(c, r, oi, p, &cur, &nset, &nround, &nref, &nbad);
			if (!ret && et_stop_signal())
				ret = -EINTR;
		}
	}
	if (ret)
		return ret;
	val_measured(r, "parameters", nparam);
	val_measured(r, "values-set", nset);
	val_measured(r, "rounded", nround);
	val_measured(r, "refused", nref);
	val_measured(r, "not-restored", nbad);
	val_bound(r, "not-restored", 0);
	if (!nparam)
		val_set(r, VR_SKIP, "%s reports no settable coalesce, ring or channel parameter",
			c->o.dev);
	else if (nbad)
		val_set(r, VR_FAIL, "%u of %u parameters were not put back as they were", nbad,
			nparam);
	else
		val_set(r, VR_PASS,
			"%u parameters: %u values set and read back (%u rounded), %u "
			"refused by the device, every one put back",
			nparam, nset, nround, nref);
	return 0;
}

/* ---- 2. coalesce ---- */

void val_coal_judge(const struct val_coal *m, const char *knob, struct val_res *r)
{
	const unsigned int l = m->n - 1;
	double floor = isnan(m->floor_us) ? 0 : m->floor_us, grow, need, bound;
	unsigned int i, b = 0, nbad = 0;
	char key[40];

	val_diag(r,
		 "knob %s (drvdb), timer floor %.0f us, median xmit-to-free under "
		 "request/response (txlat)",
		 knob, m->floor_us);
	for (i = 0; i < m->n; i++) {
		snprintf(key, sizeof(key), "p50-at-%.0f-us", m->got[i]);
		val_measured(r, key, m->p50[i]);
		if (!i) {
			val_diag(r, "%s %.0f, the baseline: p50 %.1f us [%.1f, %.1f]", knob,
				 m->got[i], m->p50[i], m->lo[i], m->hi[i]);
			continue;
		}
		/* the setting on top of the baseline's path, the floor and serialization */
		bound = m->hi[0] + (m->got[i] - m->got[0]) + floor + m->ser_us[i];
		snprintf(key, sizeof(key), "max-at-%.0f-us", m->got[i]);
		val_bound(r, key, bound);
		val_diag(r, "%s %.0f: p50 %.1f us [%.1f, %.1f], bound %.1f", knob, m->got[i],
			 m->p50[i], m->lo[i], m->hi[i], bound);
		if (m->lo[i] > bound)
			nbad++;
	}
	/* the smaller settings sit within the path's own noise: the largest must stand above
	 * the lowest of them */
	for (i = 1; i < l; i++)
		if (m->p50[i] < m->p50[b])
			b = i;
	grow = m->p50[l] - m->p50[b];
	need = VAL_COAL_GROW * (m->got[l] - m->got[b]);
	val_measured(r, "growth-us", grow);
	val_bound(r, "min-growth-us", need);
	if (m->rtt_us > 0) {
		val_measured(r, "rtt-us", m->rtt_us);
		val_bound(r, "max-baseline-p50-lo-us", m->rtt_us);
	}
	if (m->rtt_us > 0 && m->lo[0] > m->rtt_us)
		val_set(r, VR_FAIL,
			"at %s %.0f the median completion %.0f us [%.0f, %.0f] comes after the "
			"round trip's %.0f us: completions wait for the next transmit or a timer",
			knob, m->got[0], m->p50[0], m->lo[0], m->hi[0], m->rtt_us);
	else if (nbad)
		val_set(r, VR_FAIL,
			"at %u of %u settings the median completion's whole interval lies beyond "
			"the baseline's plus the setting, floor and serialization",
			nbad, l);
	else if (grow < need || m->lo[l] <= m->hi[b])
		val_set(r, VR_FAIL,
			"the median completion grew %.0f us from %s %.0f to %.0f (intervals %s; "
			"at least %.0f us with the intervals apart): the setting does not govern "
			"completion",
			grow, knob, m->got[b], m->got[l],
			m->lo[l] <= m->hi[b] ? "overlap" : "apart", need);
	else
		val_set(r, VR_PASS,
			"completion within the baseline + setting + floor + serialization at %u "
			"settings, growing %.0f us from %s %.0f to %.0f",
			l, grow, knob, m->got[b], m->got[l]);
}

static int check_coalesce(struct val_ctx *c, struct val_res *r)
{
	static const uint32_t us[VAL_COAL_POINTS] = VAL_COAL_US;
	const struct drv_param *dp = NULL;
	const struct et_param *p, *ad;
	struct val_coal m = { .floor_us = c->floor_us };
	struct probe_result *pr = NULL;
	struct txlat_result *tr = NULL;
	struct txlat *t = NULL;
	char err[512], why[256], key[40];
	const char *knob;
	unsigned int i, k;
	int mark, ret = 0;

	if (!need_peer(c, r) ||
	    !not_software(c, r, "no TX completion of its own, so no knob to time"))
		return 0;
	if (!c->have_coal) {
		val_set(r, VR_SKIP, "%s reports no coalesce parameters", c->o.dev);
		return 0;
	}
	knob = drvdb_tx_knob(c->driver, &c->coal, &dp);
	if (!knob) {
		val_set(r, VR_SKIP, "no TX completion knob known for driver %s (drvdb)",
			c->driver[0] ? c->driver : "?");
		return 0;
	}
	if (dp && dp->rate_limit) {
		val_set(r, VR_SKIP,
			"the TX knob %s caps the interrupt rate (drvdb): with one skb in flight no "
			"interrupt waits for it, so this check's request/response cannot time it",
			knob);
		return 0;
	}
	if (dp && dp->unit && strcmp(dp->unit, "us")) {
		val_set(r, VR_SKIP, "the TX knob %s counts %s, not microseconds", knob, dp->unit);
		return 0;
	}
	p = obj_param(&et_coalesce, knob);
	ad = obj_param(&et_coalesce, "adaptive-tx");
	if (!p || p->type != ET_U32) {
		val_set(r, VR_SKIP, "the TX knob %s is not a number of this kernel's coalesce",
			knob);
		return 0;
	}
	if (txlat_open(c->o.dev, NULL, &t, why, sizeof(why))) {
		val_set(r, VR_SKIP, "txlat unavailable: %s", why);
		return 0;
	}
	pr = calloc(1, sizeof(*pr));
	tr = calloc(1, sizeof(*tr));
	if (!pr || !tr || journal_txn_begin(&mark)) {
		ret = -ENOMEM;
		goto out;
	}
	/* Two passes, the second in reverse order (ABBA): a drift of the path during the check
	 * (an emulated guest's often is) then moves every setting's mean alike, and does not
	 * make the last setting look grown. Each setting: the mean of its two medians, the union
	 * of their intervals. */
	for (k = 0; k < 2 * VAL_COAL_POINTS; k++) {
		struct devset_kv kv[2] = { { knob, key }, { "adaptive-tx", "off" } };
		unsigned int nkv = ad && vals_has(&c->coal, ad->attr) ? 2 : 1;
		uint32_t want;
		struct nl_sock ns;
		struct et_vals now;
		double ser, avg, lo, hi;

		i = k < VAL_COAL_POINTS ? k : 2 * VAL_COAL_POINTS - 1 - k;
		want = us[i] < p->min ? (uint32_t)p->min : us[i];

		snprintf(key, sizeof(key), "%u", want);
		ret = devset_set(c->o.dev, "coalesce", kv, nkv, DEVSET_JOURNAL, err, sizeof(err),
				 NULL);
		if (ret) {
			val_set(r, VR_FAIL, "%s %u refused: %s", knob, want, err);
			ret = ret == -EINTR ? ret : 0;
			goto restore;
		}
		m.got[i] = want;
		if (!nl_open_genl(&ns, "ethtool")) {
			if (!obj_get(&ns, &et_coalesce, c->o.dev, &now))
				m.got[i] = (double)now.v[p->attr];
			nl_close(&ns);
		}
		txlat_reset(t);
		ret = val_probe(c, 1, PROBE_RR, c->o.duration_s, false, pr, err, sizeof(err));
		if (ret) {
			val_set(r, VR_FAIL, "%s", err);
			ret = ret == -EINTR ? ret : 0;
			goto restore;
		}
		if (txlat_collect(t, tr, why, sizeof(why)) || isnan(tr->free.p50_us)) {
			val_set(r, VR_SKIP, "txlat saw no completions at %s %u: %s", knob, want,
				why);
			goto restore;
		}
		avg = tr->c.xmit ? (double)tr->c.bytes / (double)tr->c.xmit : 0;
		ser = c->speed > 0 ? avg * 8 / c->speed : 0;
		lo = isnan(tr->free.p50_lo_us) ? tr->free.p50_us : tr->free.p50_lo_us;
		hi = isnan(tr->free.p50_hi_us) ? tr->free.p50_us : tr->free.p50_hi_us;
		if (k < VAL_COAL_POINTS) {
			m.p50[i] = tr->free.p50_us;
			m.lo[i] = lo;
			m.hi[i] = hi;
			m.ser_us[i] = ser;
		} else {
			m.p50[i] = (m.p50[i] + tr->free.p50_us) / 2;
			m.lo[i] = lo < m.lo[i] ? lo : m.lo[i];
			m.hi[i] = hi > m.hi[i] ? hi : m.hi[i];
			m.ser_us[i] = (m.ser_us[i] + ser) / 2;
			m.n++;
		}
		if (!k)
			m.rtt_us = pr->have_lat ? pr->lat.p50 : 0;
	}
	val_coal_judge(&m, knob, r);
restore:
	if (undo_txn_rollback(mark))
		val_set(r, VR_FAIL, "the coalesce settings could not be put back");
out:
	txlat_close(t);
	free(pr);
	free(tr);
	return ret;
}

/* ---- 3. tsq ---- */

/* The running kernel's default tcp_limit_output_bytes: what a new network namespace starts with
 * (1 MiB on 6.1, 4 MiB on newer kernels), read by a child in one of its own. */
static int kernel_tsq_default(uint64_t *v)
{
	int fd[2], st, ret = -EIO;
	char buf[32] = "";
	ssize_t n;
	pid_t pid;

	if (pipe(fd))
		return -errno;
	fflush(NULL);
	pid = fork();
	if (pid < 0) {
		ret = -errno;
		close(fd[0]);
		close(fd[1]);
		return ret;
	}
	if (!pid) {
		close(fd[0]);
		if (unshare(CLONE_NEWNET) ||
		    read_file_str("/proc/sys/net/ipv4/tcp_limit_output_bytes", buf, sizeof(buf)))
			_exit(1);
		_exit(write(fd[1], buf, strlen(buf)) > 0 ? 0 : 1);
	}
	close(fd[1]);
	n = read(fd[0], buf, sizeof(buf) - 1);
	close(fd[0]);
	while (waitpid(pid, &st, 0) < 0 && errno == EINTR)
		;
	if (n > 0) {
		buf[n] = 0;
		buf[strcspn(buf, "\n")] = 0;
		ret = parse_u64(buf, v);
	}
	return ret;
}

#define TSQ_SOFTWARE                                                                               \
	"its skbs leave their socket when handed to the peer, so TSQ never holds a flow back "     \
	"on it"

static int link_gso_limits(const struct et_link *l, uint64_t *size, uint64_t *segs,
			   uint64_t *tso_size);
static int gso_limits(const char *dev, uint64_t *size, uint64_t *segs, uint64_t *tso_size);

/* One flow is significantly below VAL_TSQ_FLOWS flows: does the completion delay explain it?
 * D is the median xmit-to-free under request/response (txlat: one skb in flight), as diagnose
 * measures it; the model (docs/model.md) gives what D costs one flow at the flows' rate under
 * this kernel's TSQ rules, this MTU and this device's completion timer. Below MATERIAL at D's
 * upper end the loss is not TSQ's wait on completions (a guest's CPUs, the receiver, the path),
 * as diagnose would call it inconclusive. 1 explained, or D not measured (the comparison
 * stands); 0 not explained; -EINTR. */
static int tsq_explained(struct val_ctx *c, struct val_res *r, double rate_mbps, uint64_t tsq)
{
	const struct drv_info *di = drvdb_lookup(c->driver);
	struct probe_result *pr = calloc(1, sizeof(*pr));
	struct txlat_result *tr = calloc(1, sizeof(*tr));
	uint64_t gso = 0, segs, tso;
	struct txlat *t = NULL;
	struct model_dev md = {};
	struct model_in in;
	struct model_out mo;
	struct utsname u;
	struct et_link l;
	char err[512], why[256] = "";
	double d, d_hi, loss = NAN, loss_hi = NAN;
	bool have_link;
	int ret = 1;

	if (!pr || !tr) {
		ret = -ENOMEM;
		goto out;
	}
	if (txlat_open(c->o.dev, NULL, &t, why, sizeof(why)))
		goto unmeasured;
	ret = val_probe(c, 1, PROBE_RR, c->o.duration_s, false, pr, err, sizeof(err));
	if (ret == -EINTR)
		goto out;
	ret = 1;
	if (txlat_collect(t, tr, why, sizeof(why)) || isnan(tr->free.p50_us)) {
		if (!why[0])
			snprintf(why, sizeof(why), "no completion traced");
		goto unmeasured;
	}
	d = tr->free.p50_us;
	d_hi = isnan(tr->free.p50_hi_us) ? d : tr->free.p50_hi_us;
	md.rate_mbps = rate_mbps;
	md.tsq = tsq;
	/* one read of the link: its MTU, GSO limit and root qdisc */
	have_link = !link_get_dev(c->o.dev, &l);
	if (!uname(&u)) {
		md.release = u.release;
		md.paced = diag_paced(have_link ? l.qdisc : NULL);
	}
	if (have_link && vals_has(&l.v, IFLA_MTU))
		md.mtu = (uint32_t)l.v.v[IFLA_MTU];
	if (have_link && !link_gso_limits(&l, &gso, &segs, &tso))
		md.gso_max_size = gso;
	md.rtt_us = pr->sender_ti.rtt_us;
	md.cqe_tx = vals_has(&c->coal, ETHTOOL_A_COALESCE_USE_CQE_MODE_TX) &&
		    c->coal.v[ETHTOOL_A_COALESCE_USE_CQE_MODE_TX];
	md.next_xmit = di && di->completion == DRV_COMPL_NEXT_XMIT;
	model_from_dev(&in, &md);
	in.tx_usecs = d;
	if (!model_predict(&in, &mo))
		loss = fmax(0, 1 - mo.frac);
	in.tx_usecs = d_hi;
	if (!model_predict(&in, &mo))
		loss_hi = fmax(0, 1 - mo.frac);
	val_measured(r, "completion-delay-us", d);
	if (!isnan(loss_hi)) {
		val_measured(r, "model-loss", loss);
		val_measured(r, "model-loss-hi", loss_hi);
		val_bound(r, "min-model-loss-hi", MATERIAL);
	}
	val_diag(r,
		 "completion delay D %.0f us [%.0f, %.0f] (txlat, median xmit-to-free under "
		 "request/response): the model says it costs one flow %.0f%% [-, %.0f] at %.0f "
		 "Mbit/s, tcp_limit_output_bytes %llu, MTU %u (%s timer)",
		 d, isnan(tr->free.p50_lo_us) ? d : tr->free.p50_lo_us, d_hi, 100 * loss,
		 100 * loss_hi, rate_mbps, (unsigned long long)tsq, in.mtu,
		 model_timer_name(in.timer));
	ret = isnan(loss_hi) || loss_hi >= MATERIAL;
	goto out;
unmeasured:
	val_diag(r, "the completion delay could not be measured (%s): the comparison stands", why);
out:
	txlat_close(t);
	free(pr);
	free(tr);
	return ret;
}

/* One flow against VAL_TSQ_FLOWS at this kernel's default tcp_limit_output_bytes, interleaved
 * ABBA rounds until both intervals are narrow or the budget is spent, and the verdict into r
 * (tsq, and large-mtu at the largest MTU). 0 or -EINTR. */
static int tsq_measure(struct val_ctx *c, struct val_res *r)
{
	double one[VAL_TSQ_ROUNDS], many[VAL_TSQ_ROUNDS], scaled[VAL_TSQ_ROUNDS], t0 = et_now_s();
	struct probe_result *pr;
	struct et_ci c1, c2;
	char err[512], buf[32], v[32], was[32] = "";
	unsigned int n = 0, k, i;
	uint64_t def;
	double line, ref, p;
	bool vs_line;
	int mark, ret = 0, explained = 1;

	pr = calloc(1, sizeof(*pr));
	if (!pr || journal_txn_begin(&mark)) {
		free(pr);
		return -ENOMEM;
	}
	if (kernel_tsq_default(&def))
		def = TSQ_DEFAULT_BYTES;
	snprintf(v, sizeof(v), "%llu", (unsigned long long)def);
	if (sysctl_get(TSQ_SYSCTL, buf, sizeof(buf)) || strcmp(buf, v)) {
		snprintf(was, sizeof(was), "%s", buf);
		ret = sysctl_set(TSQ_SYSCTL, v, err, sizeof(err));
		if (ret) {
			val_set(r, VR_FAIL, "cannot set %s to the default: %s", TSQ_SYSCTL, err);
			goto out;
		}
	}
	while (n < VAL_TSQ_ROUNDS) {
		for (k = 0; k < 2; k++) {
			unsigned int flows = (n % 2 == 0) == (k == 0) ? 1 : VAL_TSQ_FLOWS;

			ret = val_probe(c, flows, PROBE_STREAM, c->o.duration_s, false, pr, err,
					sizeof(err));
			if (ret)
				break;
			(flows == 1 ? one : many)[n] = pr->mbps;
		}
		if (ret) {
			val_set(r, VR_FAIL, "%s", err);
			ret = ret == -EINTR ? ret : 0;
			goto out;
		}
		n++;
		if (n < MIN_ROUNDS)
			continue;
		stats_mean_ci(one, n, CI_LEVEL, &c1);
		stats_mean_ci(many, n, CI_LEVEL, &c2);
		if (c1.half <= NARROW_CI * c1.mean && c2.half <= NARROW_CI * c2.mean)
			break;
		if (et_now_s() - t0 > c->vo->budget_s)
			break;
	}
	stats_mean_ci(one, n, CI_LEVEL, &c1);
	stats_mean_ci(many, n, CI_LEVEL, &c2);
	line = c->speed > 0 ? c->speed * GOODPUT_SHARE : NAN;
	/* The line rate where the reference flows fill it; else the host cannot, and they are what
	 * the device carries here. */
	vs_line = !isnan(line) && c2.mean >= VAL_TSQ_SHARE * line;
	ref = vs_line ? line : c2.mean;
	if (r == &c->rep->r[VC_TSQ])
		c->tsq_one_mbps = c1.mean;
	val_measured(r, "one-flow-mbps", c1.mean);
	val_measured(r, "one-flow-lo-mbps", c1.lo);
	val_measured(r, "one-flow-hi-mbps", c1.hi);
	val_measured(r, "flows-mbps", c2.mean);
	val_measured(r, "flows", VAL_TSQ_FLOWS);
	val_measured(r, "rounds", n);
	val_bound(r, "min-one-flow-mbps", VAL_TSQ_SHARE * ref);
	val_bound(r, "share", VAL_TSQ_SHARE);
	if (sysctl_get("net.ipv4.tcp_congestion_control", buf, sizeof(buf)))
		snprintf(buf, sizeof(buf), "?");
	val_diag(
		r,
		"tcp_limit_output_bytes %llu (this kernel's default%s%s%s), congestion control %s, "
		"%u interleaved ABBA rounds of %.1f s",
		(unsigned long long)def, was[0] ? "; the namespace had " : "", was,
		was[0] ? ", put back after" : "", buf, n, c->o.duration_s);
	if (vs_line) {
		val_diag(r,
			 "test: one flow's 95%% Student-t interval [%.0f, %.0f] against %.0f%% of "
			 "the line rate's goodput %.0f Mbit/s",
			 c1.lo, c1.hi, 100 * VAL_TSQ_SHARE, line);
		if (c1.hi < VAL_TSQ_SHARE * ref)
			explained = tsq_explained(c, r, line, def);
		if (explained < 0) {
			ret = explained;
			goto out;
		}
		if (c1.hi < VAL_TSQ_SHARE * ref && !explained)
			val_set(r, VR_SKIP,
				"inconclusive: one flow %.0f Mbit/s [%.0f, %.0f] stays below "
				"%.0f%% "
				"of the line rate's %.0f (Student t, 95%%), but the completion "
				"delay "
				"explains less than %.0f%% of it (model): not TSQ waiting on "
				"completions; the CPUs, the receiver or the path (ethtune "
				"diagnose)",
				c1.mean, c1.lo, c1.hi, 100 * VAL_TSQ_SHARE, line, 100 * MATERIAL);
		else if (c1.hi < VAL_TSQ_SHARE * ref)
			val_set(r, VR_FAIL,
				"one flow %.0f Mbit/s [%.0f, %.0f] stays below %.0f%% of the line "
				"rate's %.0f (Student t, 95%%)",
				c1.mean, c1.lo, c1.hi, 100 * VAL_TSQ_SHARE, line);
		else if (c1.lo >= VAL_TSQ_SHARE * ref)
			val_set(r, VR_PASS,
				"one flow %.0f Mbit/s [%.0f, %.0f] reaches %.0f%% of the "
				"line rate's %.0f (Student t, 95%%)",
				c1.mean, c1.lo, c1.hi, 100 * VAL_TSQ_SHARE, line);
		else
			val_set(r, VR_SKIP,
				"inconclusive: one flow's interval [%.0f, %.0f] Mbit/s holds "
				"%.0f%% of the line rate's %.0f after %u rounds (a larger "
				"--budget or a quieter host may decide it)",
				c1.lo, c1.hi, 100 * VAL_TSQ_SHARE, line, n);
	} else {
		for (i = 0; i < n; i++)
			scaled[i] = VAL_TSQ_SHARE * many[i];
		p = stats_welch_p(one, n, scaled, n);
		val_measured(r, "welch-p", p);
		val_bound(r, "welch-p", SIG_P);
		val_diag(r,
			 "test: Welch's t-test, one flow against %.0f%% of %u flows %.0f Mbit/s "
			 "[%.0f, %.0f] (line rate %s)",
			 100 * VAL_TSQ_SHARE, VAL_TSQ_FLOWS, c2.mean, c2.lo, c2.hi,
			 isnan(line) ? "unknown" : "not reached by them");
		/* each way needs its own evidence; neither is inconclusive, not a pass. Below the
		 * flows, the completion delay must explain it: where the line is not the reference,
		 * four flows may have what one lacks besides a TSQ budget (both vCPUs) */
		if (c1.mean < VAL_TSQ_SHARE * c2.mean && p < SIG_P)
			explained = tsq_explained(c, r, c2.mean, def);
		if (explained < 0) {
			ret = explained;
			goto out;
		}
		if (c1.mean < VAL_TSQ_SHARE * c2.mean && p < SIG_P && !explained)
			val_set(r, VR_SKIP,
				"inconclusive: one flow %.0f Mbit/s is below %.0f%% of %u flows' "
				"%.0f "
				"(Welch p %.3f), but the completion delay explains less than "
				"%.0f%% "
				"of it (model): not TSQ waiting on completions; the CPUs, the "
				"receiver or the path (ethtune diagnose)",
				c1.mean, 100 * VAL_TSQ_SHARE, VAL_TSQ_FLOWS, c2.mean, p,
				100 * MATERIAL);
		else if (c1.mean < VAL_TSQ_SHARE * c2.mean && p < SIG_P)
			val_set(r, VR_FAIL,
				"one flow %.0f Mbit/s is below %.0f%% of %u flows' %.0f (Welch p "
				"%.3f < %.2f)",
				c1.mean, 100 * VAL_TSQ_SHARE, VAL_TSQ_FLOWS, c2.mean, p, SIG_P);
		else if (p < SIG_P)
			val_set(r, VR_PASS,
				"one flow %.0f Mbit/s is above %.0f%% of %u flows' %.0f (Welch p "
				"%.3f < %.2f)",
				c1.mean, 100 * VAL_TSQ_SHARE, VAL_TSQ_FLOWS, c2.mean, p, SIG_P);
		else
			val_set(r, VR_SKIP,
				"inconclusive: one flow %.0f Mbit/s against %.0f%% of %u flows' "
				"%.0f after %u rounds (Welch p %.3f: neither below nor above; a "
				"larger --budget or a quieter host may decide it)",
				c1.mean, 100 * VAL_TSQ_SHARE, VAL_TSQ_FLOWS, c2.mean, n, p);
	}
out:
	if (undo_txn_rollback(mark))
		val_set(r, VR_FAIL, "%s could not be put back", TSQ_SYSCTL);
	free(pr);
	return ret;
}

static int check_tsq(struct val_ctx *c, struct val_res *r)
{
	if (!need_peer(c, r) || !not_software(c, r, TSQ_SOFTWARE))
		return 0;
	return tsq_measure(c, r);
}

/* ---- 4. ownership ---- */

static int check_ownership(struct val_ctx *c, struct val_res *r)
{
	const struct txlat_result *t;
	double lo, hi;
	int ret;

	if (!need_peer(c, r) ||
	    !not_software(c, r,
			  "its skbs are freed by the receiver, never owned until a "
			  "driver's completion"))
		return 0;
	ret = load_or_fail(c, r);
	if (ret)
		return ret < 0 ? ret : 0;
	load_loaded(c, r, false); /* ownership is per skb: a light flow still tells */
	if (!c->tl_ok) {
		val_set(r, VR_SKIP, "txlat unavailable: %s", c->tl_err);
		return 0;
	}
	t = c->tl; /* run_load() made it */
	if (!t->ksyms_ok) {
		val_set(r, VR_SKIP, "txlat could not count socket ownership (kernel symbols)");
		return 0;
	}
	if (t->c.tcp < ORPHAN_MIN_SKBS) {
		val_set(r, VR_SKIP, "txlat traced %llu TCP skbs, fewer than %d",
			(unsigned long long)t->c.tcp, ORPHAN_MIN_SKBS);
		return 0;
	}
	stats_wilson(t->tcp_orphans, t->c.tcp, &lo, &hi);
	val_measured(r, "orphan-fraction", t->orphan_frac);
	val_measured(r, "orphan-lo-fraction", lo);
	val_measured(r, "orphan-hi-fraction", hi);
	val_measured(r, "tcp-skbs", (double)t->c.tcp);
	val_bound(r, "max-orphan-lo-fraction", ORPHAN_MAJORITY);
	if (lo > ORPHAN_MAJORITY) {
		val_set(r, c->vo->allow_orphan ? VR_PASS : VR_FAIL,
			"%.0f%% [%.0f, %.0f] of %llu TCP skbs were not owned by their socket when "
			"freed (Wilson 95%%): TSQ and BQL cannot see the queue",
			100 * t->orphan_frac, 100 * lo, 100 * hi, (unsigned long long)t->c.tcp);
		r->warn = c->vo->allow_orphan;
	} else {
		val_set(r, VR_PASS,
			"%.0f%% [%.0f, %.0f] of %llu TCP skbs orphaned before the free (Wilson "
			"95%%)",
			100 * t->orphan_frac, 100 * lo, 100 * hi, (unsigned long long)t->c.tcp);
	}
	return 0;
}

/* ---- 5. bql ---- */

static int check_bql(struct val_ctx *c, struct val_res *r)
{
	struct bql_sum b;
	unsigned int nq, nb, i;
	uint64_t lo = UINT64_MAX, hi = 0;
	bool adapted, loaded;
	int ret;

	if (!need_peer(c, r))
		return 0;
	bql_sum_read(c->o.dev, &b);
	nq = b.n_txq;
	nb = b.n_bql;
	if (!nb && c->software) {
		val_set(r, VR_SKIP,
			"%s is a software device (%s): none of its %u TX queues has "
			"byte_queue_limits",
			c->o.dev, c->driver[0] ? c->driver : c->kind, nq);
		return 0;
	}
	val_measured(r, "tx-queues", nq);
	val_measured(r, "bql-queues", nb);
	val_bound(r, "min-bql-queues", nq);
	if (nb < nq) {
		const struct drv_info *di = drvdb_lookup(c->driver);

		if (di && !di->bql)
			val_diag(r, "drvdb: %s does not call netdev_tx_completed_queue()",
				 c->driver);
		val_set(r, VR_FAIL, "%u of %u TX queues have no byte_queue_limits", nq - nb, nq);
		return 0;
	}
	ret = load_or_fail(c, r);
	if (ret)
		return ret < 0 ? ret : 0;
	loaded = load_loaded(c, r, true);
	for (i = 0; i < c->nsamp; i++) {
		lo = c->s_bql[i] < lo ? c->s_bql[i] : lo;
		hi = c->s_bql[i] > hi ? c->s_bql[i] : hi;
	}
	adapted = c->nsamp && (hi != lo || hi != c->bql_before || hi > c->bql_min);
	val_measured(r, "limit-before-bytes", (double)c->bql_before);
	val_measured(r, "limit-lo-bytes", c->nsamp ? (double)lo : NAN);
	val_measured(r, "limit-hi-bytes", (double)hi);
	val_measured(r, "limit-min-bytes", (double)c->bql_min);
	val_diag(r, "limit summed over %u queues, %u samples during a %.0f s flow", nb, c->nsamp,
		 c->vo->load_s);
	if (c->have_stall) {
		val_measured(r, "stall-cnt", (double)(c->stall_after - c->stall_before));
		val_bound(r, "max-stall-cnt", 0);
	} else {
		val_diag(r, "stall detector part skipped: no stall_cnt (kernel before 6.9)");
	}
	if (c->have_stall && c->stall_after != c->stall_before)
		val_set(r, VR_FAIL, "the stall detector counted %llu stalls in a normal flow",
			(unsigned long long)(c->stall_after - c->stall_before));
	else if (!loaded)
		val_set(r, VR_SKIP,
			"inconclusive: the bulk flow carried %.1f Mbit/s, too little load to judge "
			"the limit by (it read %llu-%llu bytes)",
			c->lr->mbps, (unsigned long long)lo, (unsigned long long)hi);
	else if (!adapted)
		val_set(r, VR_FAIL, "the limit stayed at %llu bytes (limit_min %llu) under load",
			(unsigned long long)hi, (unsigned long long)c->bql_min);
	else
		val_set(r, VR_PASS,
			"BQL on all %u TX queues, the limit moved %llu-%llu bytes under "
			"load%s",
			nq, (unsigned long long)lo, (unsigned long long)hi,
			c->have_stall ? ", no stall" : "");
	return 0;
}

/* ---- 6. counters ---- */

static int check_counters(struct val_ctx *c, struct val_res *r)
{
	const char *env = getenv("ETHTUNE_TEST_COUNTERS_SLACK");
	double slack = env ? strtod(env, NULL) : VAL_COUNTERS_SLACK, ratio, hdr, mss;
	unsigned int i, back = 0;
	uint64_t dev, sent;
	int ret;

	if (!need_peer(c, r))
		return 0;
	ret = load_or_fail(c, r);
	if (ret)
		return ret < 0 ? ret : 0;
	load_loaded(c, r, false); /* counts agree at any rate: it only tells */
	for (i = 1; i < c->nsamp; i++)
		if (c->s_bytes[i] < c->s_bytes[i - 1] || c->s_pkts[i] < c->s_pkts[i - 1])
			back++;
	val_measured(r, "samples", c->nsamp);
	val_measured(r, "went-backwards", back);
	val_bound(r, "went-backwards", 0);
	if (c->nsamp < 2) {
		val_set(r, VR_SKIP, "the device's TX counters could not be read during the flow");
		return 0;
	}
	if (back) {
		val_set(r, VR_FAIL, "tx_bytes or tx_packets went backwards %u times in %u samples",
			back, c->nsamp);
		return 0;
	}
	if (!c->lr->dev.valid || !c->lr->sender_ti.bytes_sent) {
		val_set(r, VR_SKIP, "the probe read no device counters or tcpi_bytes_sent");
		return 0;
	}
	dev = c->lr->dev.tx_bytes;
	sent = c->lr->sender_ti.bytes_sent;
	mss = c->mtu > 52 ? c->mtu - 52 : 1448;
	hdr = VAL_HDR_BYTES / mss;
	ratio = (double)dev / (double)sent;
	val_measured(r, "device-tx-bytes", (double)dev);
	val_measured(r, "tcp-bytes-sent", (double)sent);
	val_measured(r, "ratio", ratio);
	val_bound(r, "min-ratio", 1 - slack);
	val_bound(r, "max-ratio", 1 + hdr + slack);
	val_diag(r,
		 "one flow of %.0f s: tx_bytes against tcpi_bytes_sent, headers %.1f%% at MTU %u, "
		 "slack %.1f%%",
		 c->vo->load_s, 100 * hdr, c->mtu, 100 * slack);
	if (ratio < 1 - slack || ratio > 1 + hdr + slack)
		val_set(r, VR_FAIL,
			"the device counted %llu TX bytes for %llu bytes TCP sent (ratio %.4f, "
			"bound %.4f-%.4f)",
			(unsigned long long)dev, (unsigned long long)sent, ratio, 1 - slack,
			1 + hdr + slack);
	else
		val_set(r, VR_PASS,
			"monotonic over %u samples; %llu TX bytes for %llu sent by TCP "
			"(ratio %.4f)",
			c->nsamp, (unsigned long long)dev, (unsigned long long)sent, ratio);
	if (c->lr->dev.have_qbytes && dev) {
		/* the queues' own counts (qstats) against the device's */
		double qr = (double)c->lr->dev.q_bytes / (double)dev;

		val_measured(r, "queue-ratio", qr);
		val_bound(r, "min-queue-ratio", 1 - slack);
		val_bound(r, "max-queue-ratio", 1 + slack);
		val_diag(r, "the TX queues (qstats tx-bytes) counted %llu bytes",
			 (unsigned long long)c->lr->dev.q_bytes);
		if (r->res == VR_PASS && (qr < 1 - slack || qr > 1 + slack))
			val_set(r, VR_FAIL,
				"the TX queues counted %llu bytes for the device's %llu (ratio "
				"%.4f, bound %.4f-%.4f)",
				(unsigned long long)c->lr->dev.q_bytes, (unsigned long long)dev, qr,
				1 - slack, 1 + slack);
	}
	if (c->lr->dev.have_qstats) {
		/* each queue may have been stopped at the window's start or its end: one wake or
		 * one stop more */
		int64_t d = (int64_t)c->lr->dev.tx_stop - (int64_t)c->lr->dev.tx_wake;
		unsigned int nq = c->n_txq ? c->n_txq : 1;

		val_measured(r, "tx-stop", (double)c->lr->dev.tx_stop);
		val_measured(r, "tx-wake", (double)c->lr->dev.tx_wake);
		val_bound(r, "max-stop-wake-difference", nq);
		if (r->res == VR_PASS && (d < -(int64_t)nq || d > (int64_t)nq))
			val_set(r, VR_FAIL,
				"the TX queues were stopped %llu times and woken %llu times in the "
				"flow (they may differ by one per queue: %u)",
				(unsigned long long)c->lr->dev.tx_stop,
				(unsigned long long)c->lr->dev.tx_wake, nq);
	}
	if (c->lr->remote_dev.valid) {
		/* The peer's RX against what TCP sent, as our TX is: the two ends may count
		 * differently, each a wire frame's headers or one super-packet's: qemu's e1000e
		 * counts a TSO send once (our TX / TCP 1.001) and its peer the frames (RX /
		 * TX 1.027 on 6.1), which a bound on RX / TX alone called a fault */
		const struct probe_devstats *pd = &c->lr->remote_dev;
		double pr = (double)pd->rx_bytes / (double)sent;

		val_measured(r, "peer-rx-bytes", (double)pd->rx_bytes);
		val_measured(r, "peer-ratio", pr);
		val_bound(r, "min-peer-ratio", 1 - slack);
		val_bound(r, "max-peer-ratio", 1 + hdr + slack);
		val_diag(r,
			 "the peer's %s received %llu bytes (its RX against TCP's bytes sent %.4f, "
			 "against our TX %.4f)",
			 pd->dev, (unsigned long long)pd->rx_bytes, pr,
			 (double)pd->rx_bytes / (double)dev);
		if (r->res == VR_PASS && (pr < 1 - slack || pr > 1 + hdr + slack))
			val_set(r, VR_FAIL,
				"the peer's %s counted %llu RX bytes for %llu sent by TCP "
				"(ratio %.4f, bound %.4f-%.4f)",
				pd->dev, (unsigned long long)pd->rx_bytes, (unsigned long long)sent,
				pr, 1 - slack, 1 + hdr + slack);
	}
	return 0;
}

/* ---- 7. reconfig ---- */

#define RC_STEPS 10

/* One change made while the flow runs, or the put-back of the one before it. */
struct rc_step {
	char what[80];
	const char *obj; /* devset object; NULL: put back the change of the step before */
	char key[24], val[32];
	bool down; /* the change takes the link down: no traffic until the next step */
	bool lost; /* the carrier went down: the flow lost what was in flight */
	int mark;  /* the journal before the change, for its put-back */
	/* measured; times in seconds since the thread started */
	bool ran;
	int ret;
	char err[240];
	double t0, t1, tres; /* asked, done (carrier back), traffic resumed (NAN: not seen) */
	double rate;	     /* device TX bytes/s before the change */
	uint64_t carrier_in, carrier_after; /* carrier changes during it; after, until the next */
};

struct rc_run {
	const char *dev;
	struct rc_step st[RC_STEPS];
	unsigned int n;
	int end;       /* set by the thread when done: ends the probe's window */
	int flow_over; /* set by the main thread when the probe returned */
	double t_start;
	bool moving; /* the flow moved before the first change */
	char fatal[512];
};

static double rc_now(const struct rc_run *x)
{
	return et_now_s() - x->t_start;
}

static uint64_t rc_u64(const char *dev, const char *rel)
{
	uint64_t v = 0;

	dev_sysfs_u64(dev, rel, &v);
	return v;
}

static bool rc_stop(const struct rc_run *x)
{
	return et_stop_signal() || __atomic_load_n(&x->flow_over, __ATOMIC_RELAXED);
}

/* From t1 on, the start of the first VAL_RC_WIN_S window in which the device transmitted
 * VAL_RC_RESUME_SHARE of rate, with its carrier on; NAN when none came within
 * VAL_RC_RESUME_MAX_S. Where the carrier went down (*lost, set here when it is seen down), the
 * flow lost what was in flight and took an RTO: its rate after that is its congestion control's
 * recovery (slower still where the device completes late, as TSQ waits on every completion), so
 * the window needs only VAL_RC_MOVING_BYTES, the device carrying the flow again. *t_up: when the
 * carrier last came back (t1 if it stayed on): a driver may drop it after the call returned (a
 * reset from a work item), and linkwatch tells operstate up to a second late, so the carrier itself
 * (sysfs) is read. */
static double rc_resume(const struct rc_run *x, double t1, double rate, bool *lost, double *t_up)
{
	enum { N = 128 };
	double ts[N], need;
	uint64_t by[N], car;
	unsigned int n = 0, k;
	bool down = false;

	*t_up = t1;
	while (!rc_stop(x)) {
		double t = rc_now(x);
		uint64_t b = rc_u64(x->dev, "statistics/tx_bytes");

		if (dev_sysfs_u64(x->dev, "carrier", &car) || !car) {
			down = *lost = true;
			n = 0;
		} else {
			if (down)
				*t_up = t;
			down = false;
			ts[n % N] = t;
			by[n % N] = b;
			n++;
		}
		need = *lost ? VAL_RC_MOVING_BYTES : VAL_RC_RESUME_SHARE * rate * VAL_RC_WIN_S;
		if (need < 1514)
			need = 1514;
		/* the newest sample at least one window old: what came since */
		for (k = 2; k <= n && k <= N; k++) {
			unsigned int j = (n - k) % N;

			if (t - ts[j] >= VAL_RC_WIN_S) {
				if ((double)(b - by[j]) >= need)
					return ts[j];
				break;
			}
		}
		if (t - *t_up > VAL_RC_RESUME_MAX_S)
			break;
		et_sleep_s(0.01);
	}
	return NAN;
}

static void *rc_thread(void *arg)
{
	struct rc_run *x = arg;
	struct rc_step *prev = NULL;
	uint64_t b0, b1, c0, cmid = 0;
	unsigned int i;
	double t;

	/* the flow first: moving before anything changes */
	b0 = rc_u64(x->dev, "statistics/tx_bytes");
	while (!rc_stop(x) && rc_now(x) < VAL_RC_RESUME_MAX_S && !x->moving) {
		et_sleep_s(0.05);
		x->moving = rc_u64(x->dev, "statistics/tx_bytes") - b0 > VAL_RC_MOVING_BYTES;
	}
	for (i = 0; i < x->n && x->moving && !rc_stop(x); i++) {
		struct rc_step *s = &x->st[i];

		t = rc_now(x);
		b0 = rc_u64(x->dev, "statistics/tx_bytes");
		et_sleep_s(VAL_RC_HOLD_S);
		b1 = rc_u64(x->dev, "statistics/tx_bytes");
		c0 = rc_u64(x->dev, "carrier_changes");
		if (prev)
			prev->carrier_after = c0 - cmid;
		s->rate = prev && prev->down ? prev->rate : (double)(b1 - b0) / (rc_now(x) - t);
		s->t0 = rc_now(x);
		s->ran = true;
		if (s->obj) {
			struct devset_kv kv = { s->key, s->val };

			s->ret = journal_txn_begin(&s->mark);
			if (!s->ret)
				s->ret = devset_set(x->dev, s->obj, &kv, 1, DEVSET_JOURNAL, s->err,
						    sizeof(s->err), NULL);
		} else {
			s->ret = undo_txn_rollback(prev->mark);
			if (s->ret)
				snprintf(s->err, sizeof(s->err), "%s", strerror(-s->ret));
		}
		if (s->ret && !strncmp(s->err, "cannot write the journal", 24)) {
			snprintf(x->fatal, sizeof(x->fatal), "%s", s->err);
			break;
		}
		s->t1 = rc_now(x);
		if (!s->down) {
			double up;

			s->lost = (prev && prev->down) || rc_u64(x->dev, "carrier_changes") != c0;
			s->tres = rc_resume(x, s->t1, s->rate, &s->lost, &up);
			s->t1 = up > s->t1 ? up : s->t1;
		} else {
			s->tres = NAN;
		}
		cmid = rc_u64(x->dev, "carrier_changes");
		s->carrier_in = cmid - c0;
		prev = s;
		if (s->ret && !s->obj)
			break; /* not put back: validate's end puts it back */
	}
	if (prev) {
		for (t = rc_now(x); !rc_stop(x) && rc_now(x) - t < VAL_RC_HOLD_S;)
			et_sleep_s(0.05);
		prev->carrier_after = rc_u64(x->dev, "carrier_changes") - cmid;
	}
	__atomic_store_n(&x->end, 1, __ATOMIC_RELAXED);
	return NULL;
}

/* A change and its put-back, as two steps. */
static void rc_add(struct rc_run *x, const char *obj, const char *key, const char *from,
		   const char *to, bool down)
{
	struct rc_step *s = &x->st[x->n], *b = &x->st[x->n + 1];

	if (x->n + 2 > RC_STEPS)
		return;
	s->obj = obj;
	snprintf(s->key, sizeof(s->key), "%s", key);
	snprintf(s->val, sizeof(s->val), "%s", to);
	s->down = down;
	if (down) {
		snprintf(s->what, sizeof(s->what), "link down");
		snprintf(b->what, sizeof(b->what), "link up");
	} else {
		snprintf(s->what, sizeof(s->what), "%s %s %s -> %s", obj, key, from, to);
		snprintf(b->what, sizeof(b->what), "%s %s back to %s", obj, key, from);
	}
	x->n += 2;
}

/* A parameter of snapshot object oi to its first other round-trip value, where it has one. */
static bool rc_param(struct val_ctx *c, struct rc_run *x, unsigned int oi, const char *key)
{
	const struct et_param *p = obj_param(objs[oi], key);
	const struct et_vals *cur = &c->start.v[oi];
	char from[32], to[32];
	uint64_t v[2], max;

	if (c->start.ret[oi] || !p || p->ro || !vals_has(cur, p->attr))
		return false;
	max = p->max_attr ? cur->v[p->max_attr] : 0;
	if (!val_rt_values(p, cur->v[p->attr], p->max_attr && vals_has(cur, p->max_attr), max, v))
		return false;
	obj_format_val(p, cur->v[p->attr], from, sizeof(from));
	obj_format_val(p, v[0], to, sizeof(to));
	rc_add(x, obj_words[oi], key, from, to, false);
	return true;
}

/* The changes this device offers: its TX completion knob, its TX ring, its channels, its MTU,
 * and the link down and up where that loses nothing a user configured. */
static void rc_plan(struct val_ctx *c, struct rc_run *x, struct val_res *r)
{
	const struct drv_param *dp;
	const char *knob =
		c->have_coal && !c->software ? drvdb_tx_knob(c->driver, &c->coal, &dp) : NULL;
	struct link_lost lost;
	char from[16], to[16];
	int ret;

	if (knob)
		rc_param(c, x, 0, knob);
	rc_param(c, x, 1, "tx");
	if (!rc_param(c, x, 2, "combined"))
		rc_param(c, x, 2, "tx");
	if (c->mtu >= 1280 + 100) {
		snprintf(from, sizeof(from), "%u", c->mtu);
		snprintf(to, sizeof(to), "%u", c->mtu - 100);
		rc_add(x, "link", "mtu", from, to, false);
	} else {
		val_diag(r, "mtu %u: no change below it keeps 1280 (IPv6's minimum)", c->mtu);
	}
	ret = link_down_losses((int)if_nametoindex(c->o.dev), &lost);
	if (ret)
		val_diag(r, "link down/up skipped: cannot read %s's routes and addresses: %s",
			 c->o.dev, strerror(-ret));
	else if (lost.routes || lost.addrs6)
		val_diag(r,
			 "link down/up skipped: it would delete %u routes and %u IPv6 addresses "
			 "configured on %s",
			 lost.routes, lost.addrs6, c->o.dev);
	else
		rc_add(x, "link", "admin-state", "up", "down", true);
}

static uint64_t rc_tx_timeouts(const char *dev)
{
	char rel[64];
	uint64_t sum = 0, v;
	unsigned int q;

	for (q = 0; q < 4096; q++) {
		snprintf(rel, sizeof(rel), "queues/tx-%u/tx_timeout", q);
		if (dev_sysfs_u64(dev, rel, &v))
			break;
		sum += v;
	}
	return sum;
}

/* After the flow: no bytes left in flight on any TX queue (BQL) within 2.5 s, and (qstats) as
 * many wakes as stops since before it. 0, or a line in why. */
static int rc_queues_left(struct val_ctx *c, const struct nd_tx_sum *q0, struct val_res *r,
			  char *why, size_t len)
{
	struct nd_tx_sum q1;
	struct bql_sum b;
	double t;

	for (t = 0; t < 2.5; t += 0.1) {
		et_sleep_s(0.1);
		bql_sum_read(c->o.dev, &b);
		if (!b.have_inflight || !b.inflight)
			break;
	}
	if (b.have_inflight) {
		val_measured(r, "inflight-bytes-after", (double)b.inflight);
		val_bound(r, "inflight-bytes-after", 0);
		if (b.inflight) {
			snprintf(why, len,
				 "%llu bytes still in flight on the TX queues %.1f s after the "
				 "flow: a queue left stopped or its completions lost",
				 (unsigned long long)b.inflight, t);
			return 1;
		}
	}
	qstats_tx_sum(c->o.dev, &q1);
	if (q0->stop == UINT64_MAX || q1.stop == UINT64_MAX || q1.wake == UINT64_MAX) {
		val_diag(r, "no per-queue tx-stop/tx-wake (qstats): their balance not checked");
		return 0;
	}
	val_measured(r, "tx-stop", (double)(q1.stop - q0->stop));
	val_measured(r, "tx-wake", (double)(q1.wake - q0->wake));
	if (q1.stop - q0->stop != q1.wake - q0->wake) {
		/* with nothing left in flight every queue ran on: the counts, not the queues, are
		 * off (virtio_net on 7.2 counts a stop in virtnet_tx_pause even where xmit had
		 * stopped the queue already, and one wake at the resume: drvdb) */
		snprintf(why, len, "the TX queues were stopped %llu times and woken %llu times%s",
			 (unsigned long long)(q1.stop - q0->stop),
			 (unsigned long long)(q1.wake - q0->wake),
			 b.have_inflight
				 ? ", with no bytes left in flight: the queues ran on, their "
				   "tx-stop/tx-wake counts disagree"
				 : "");
		return 1;
	}
	return 0;
}

static int check_reconfig(struct val_ctx *c, struct val_res *r)
{
	struct probe_result *pr;
	struct rc_run *x;
	struct nd_tx_sum q0;
	pthread_t th;
	char err[512], why[300] = "";
	unsigned int i, refused = 0, late = 0, flaps = 0, ran = 0;
	uint64_t to0, to1;
	double rto;
	int ret;

	if (!need_peer(c, r))
		return 0;
	x = calloc(1, sizeof(*x));
	pr = calloc(1, sizeof(*pr));
	if (!x || !pr) {
		free(x);
		free(pr);
		return -ENOMEM;
	}
	x->dev = c->o.dev;
	rc_plan(c, x, r);
	qstats_tx_sum(c->o.dev, &q0);
	to0 = rc_tx_timeouts(c->o.dev);
	x->t_start = et_now_s();
	if (pthread_create(&th, NULL, rc_thread, x)) {
		free(x);
		free(pr);
		return -EAGAIN;
	}
	c->end_window = &x->end;
	ret = val_probe(c, 1, PROBE_STREAM, 2 * VAL_RC_RESUME_MAX_S * (x->n + 1), false, pr, err,
			sizeof(err));
	c->end_window = NULL;
	__atomic_store_n(&x->flow_over, 1, __ATOMIC_RELAXED);
	pthread_join(th, NULL);
	if (x->fatal[0]) {
		snprintf(c->fatal, sizeof(c->fatal), "%s", x->fatal);
		ret = -EIO;
		goto out;
	}
	if (ret == -EINTR)
		goto out;
	to1 = rc_tx_timeouts(c->o.dev);
	rto = pr->sender_ti.rtt_us ? (pr->sender_ti.rtt_us + 4.0 * pr->sender_ti.rttvar_us) / 1e6
				   : 0;
	rto = rto < 0.2 ? 0.2 : rto; /* TCP_RTO_MIN */
	for (i = 0; i < x->n; i++) {
		const struct rc_step *s = &x->st[i];
		double out0, outage, wait, bound;

		if (!s->ran) {
			val_diag(r, "%s: not reached (the flow %s)", s->what,
				 ret	     ? "failed"
				 : x->moving ? "ended first"
					     : "never moved");
			late++;
			continue;
		}
		ran++;
		if (s->ret && s->obj) {
			val_diag(r, "%s: refused: %s", s->what, s->err);
			refused++;
		} else if (s->ret) {
			val_diag(r, "%s: not put back: %s", s->what, s->err);
			late++;
		}
		if (s->carrier_after) {
			val_diag(r, "%s: the carrier changed %llu times after it settled", s->what,
				 (unsigned long long)s->carrier_after);
			flaps++;
		}
		if (s->down) {
			val_diag(r, "%s: carrier changes %llu", s->what,
				 (unsigned long long)s->carrier_in);
			continue;
		}
		out0 = i && x->st[i - 1].down ? x->st[i - 1].t0 : s->t0;
		outage = s->t1 - out0;
		bound = outage + 2 * rto + VAL_RC_SLACK_S;
		wait = s->tres - s->t1;
		if (isnan(wait)) {
			val_diag(r, "%s: %.2f s outage; traffic did not resume within %.0f s",
				 s->what, outage, VAL_RC_RESUME_MAX_S);
			late++;
			continue;
		}
		if (wait < 0)
			wait = 0;
		val_diag(r,
			 "%s: %.2f s outage, resumed %.2f s after it (bound %.2f s); carrier "
			 "changes %llu during it%s",
			 s->what, outage, wait, bound, (unsigned long long)s->carrier_in,
			 s->lost ? " (the carrier went down, so the flow lost what was in flight: "
				   "resumed is moving again, as its rate after is TCP's recovery)"
				 : "");
		if (wait > bound)
			late++;
	}
	val_measured(r, "changes", ran);
	val_measured(r, "late-or-stuck", late);
	val_measured(r, "carrier-flaps-after", flaps);
	val_measured(r, "tx-timeouts", (double)(to1 - to0));
	val_measured(r, "rto-s", rto);
	val_bound(r, "late-or-stuck", 0);
	val_bound(r, "carrier-flaps-after", 0);
	val_bound(r, "tx-timeouts", 0);
	if (!x->n) {
		val_set(r, VR_SKIP, "%s offers no change to make under traffic", c->o.dev);
	} else if (ret) {
		val_set(r, VR_FAIL, "%s", err);
	} else if (late) {
		val_set(r, VR_FAIL, "%u of %u changes: traffic late, stuck or not put back", late,
			x->n);
	} else if (flaps) {
		val_set(r, VR_FAIL, "the carrier flapped after %u changes had settled", flaps);
	} else if (to1 != to0) {
		val_set(r, VR_FAIL, "%llu TX timeouts (queues/tx-*/tx_timeout)",
			(unsigned long long)(to1 - to0));
	} else if (rc_queues_left(c, &q0, r, why, sizeof(why))) {
		val_set(r, VR_FAIL, "%s", why);
	} else {
		val_set(r, VR_PASS,
			"%u changes under one flow (%u refused), each resumed within its bound; "
			"no carrier flap after, no TX timeout, no queue left stopped",
			ran, refused);
	}
out:
	free(x);
	free(pr);
	return ret == -EINTR || c->fatal[0] ? ret : 0;
}

/* ---- 8. gso ---- */

/* What the device's TX packets count, from its mean packet against the traced skbs'. */
enum gso_count { GC_UNKNOWN, GC_WIRE, GC_SUPER, GC_NEITHER };
static const char *const gso_count_names[] = {
	[GC_UNKNOWN] = NULL,
	[GC_WIRE] = "wire packets",
	[GC_SUPER] = "super-packets",
	[GC_NEITHER] = "neither",
};

static enum gso_count gso_counts(const struct val_gso_phase *p)
{
	double dev, wire, super;

	if (!p->dev_pkts || !p->segs || !p->skbs)
		return GC_UNKNOWN;
	dev = (double)p->dev_bytes / (double)p->dev_pkts;
	wire = (double)p->bytes / (double)p->segs;
	super = (double)p->bytes / (double)p->skbs;
	if (dev >= wire / VAL_GSO_COUNT_TOL && dev <= wire * VAL_GSO_COUNT_TOL)
		return GC_WIRE;
	if (dev >= super / VAL_GSO_COUNT_TOL && dev <= super * VAL_GSO_COUNT_TOL)
		return GC_SUPER;
	return GC_NEITHER;
}

void val_gso_judge(const struct val_gso *m, struct val_res *r)
{
	const struct val_gso_phase *p0 = &m->p[0];
	enum gso_count counts = GC_UNKNOWN;
	unsigned int i, bound = 0, lowered = 0;

	if (!m->n || !p0->skbs) {
		val_set(r, VR_SKIP, "txlat traced no skb at the driver's xmit");
		return;
	}
	val_measured(r, "max-skb-bytes", (double)p0->max_len);
	val_measured(r, "max-gso-segs", (double)p0->max_segs);
	val_bound(r, "gso-max-size", (double)p0->size_limit);
	val_bound(r, "gso-max-segs", (double)p0->segs_limit);
	if (!p0->gso) {
		val_set(r, VR_SKIP,
			"none of %llu skbs reached the driver as a GSO super-packet: the stack "
			"segments before it (TSO off?)",
			(unsigned long long)p0->skbs);
		return;
	}
	for (i = 0; i < m->n; i++) {
		const struct val_gso_phase *p = &m->p[i];
		double per = p->skbs ? (double)p->segs / (double)p->skbs : 0;
		enum gso_count k = gso_counts(p);

		val_diag(r,
			 "%s: %llu skbs (%llu GSO) made %llu wire packets, the largest %llu bytes "
			 "and %llu segments (limits %llu bytes, %llu segments); the device counted "
			 "%llu packets, %llu bytes",
			 p->what, (unsigned long long)p->skbs, (unsigned long long)p->gso,
			 (unsigned long long)p->segs, (unsigned long long)p->max_len,
			 (unsigned long long)p->max_segs, (unsigned long long)p->size_limit,
			 (unsigned long long)p->segs_limit, (unsigned long long)p->dev_pkts,
			 (unsigned long long)p->dev_bytes);
		if (p->max_len > p->size_limit) {
			val_set(r, VR_FAIL,
				"%s: an skb of %llu bytes reached the driver, above %llu", p->what,
				(unsigned long long)p->max_len, (unsigned long long)p->size_limit);
			return;
		}
		if (p->max_segs > p->segs_limit) {
			val_set(r, VR_FAIL,
				"%s: an skb of %llu segments reached the driver, above %llu",
				p->what, (unsigned long long)p->max_segs,
				(unsigned long long)p->segs_limit);
			return;
		}
		if (p->lowered != VAL_GSO_NONE) {
			bool b = p->lowered == VAL_GSO_SIZE ? p->max_len * 2 > p->size_limit
							    : p->max_segs == p->segs_limit;

			lowered++;
			bound += b;
			if (!b)
				val_diag(r, "%s: the flow did not reach the limit", p->what);
		}
		/* wire against super-packets only where the two are apart */
		if (k == GC_UNKNOWN || per < VAL_GSO_APART_SEGS)
			continue;
		if (k == GC_NEITHER) {
			val_set(r, VR_FAIL,
				"%s: the device counted %llu packets of %.0f bytes on average for "
				"%llu "
				"wire packets (%.0f bytes) in %llu skbs (%.0f bytes)",
				p->what, (unsigned long long)p->dev_pkts,
				(double)p->dev_bytes / (double)p->dev_pkts,
				(unsigned long long)p->segs, (double)p->bytes / (double)p->segs,
				(unsigned long long)p->skbs, (double)p->bytes / (double)p->skbs);
			return;
		}
		if (counts != GC_UNKNOWN && counts != k) {
			val_set(r, VR_FAIL, "the device counted %s in one flow and %s in another",
				gso_count_names[counts], gso_count_names[k]);
			return;
		}
		counts = k;
	}
	if (lowered && !bound) {
		val_set(r, VR_SKIP,
			"inconclusive: no lowered limit was reached, so none showed it is honoured "
			"(the largest skb %llu bytes, %llu segments)",
			(unsigned long long)p0->max_len, (unsigned long long)p0->max_segs);
		return;
	}
	if (counts != GC_UNKNOWN)
		val_diag(r, "the device's TX packets are %s", gso_count_names[counts]);
	val_set(r, VR_PASS,
		"no skb above the limits in %u flows (%u of %u lowered limits reached); TX packets "
		"counted as %s",
		m->n, bound, lowered,
		counts != GC_UNKNOWN ? gso_count_names[counts]
				     : "n/a (too few segments per skb to tell)");
}

/* The limits in force on the device (of its link as read): the larger of gso-max-size and
 * gso-ipv4-max-size (the one an IPv4 flow gets, since 6.3), gso-max-segs, and tso-max-size (0
 * where not reported); -EOPNOTSUPP on a kernel that reports no GSO limits. gso_limits() reads
 * the link first. */
static int link_gso_limits(const struct et_link *l, uint64_t *size, uint64_t *segs,
			   uint64_t *tso_size)
{
	if (!vals_has(&l->v, IFLA_GSO_MAX_SIZE) || !vals_has(&l->v, IFLA_GSO_MAX_SEGS))
		return -EOPNOTSUPP;
	*size = l->v.v[IFLA_GSO_MAX_SIZE];
	if (vals_has(&l->v, ET_IFLA_GSO_IPV4_MAX_SIZE) && l->v.v[ET_IFLA_GSO_IPV4_MAX_SIZE] > *size)
		*size = l->v.v[ET_IFLA_GSO_IPV4_MAX_SIZE];
	*segs = l->v.v[IFLA_GSO_MAX_SEGS];
	*tso_size = vals_has(&l->v, ET_IFLA_TSO_MAX_SIZE) ? l->v.v[ET_IFLA_TSO_MAX_SIZE] : 0;
	return 0;
}

static int gso_limits(const char *dev, uint64_t *size, uint64_t *segs, uint64_t *tso_size)
{
	struct et_link l;
	int ret = link_get_dev(dev, &l);

	return ret ? ret : link_gso_limits(&l, size, segs, tso_size);
}

/* One flow with key lowered to val (key NULL: as it is), traced at the driver's xmit. 0, or 1
 * when the check ended (r says why), or -EINTR / a fatal journal error. */
static int gso_phase(struct val_ctx *c, struct val_res *r, const char *key, uint64_t val,
		     struct val_gso_phase *p)
{
	struct probe_result *res = calloc(1, sizeof(*res));
	struct txlat_result *tr = calloc(1, sizeof(*tr));
	uint64_t p0 = 0, b0 = 0, p1 = 0, b1 = 0, tso;
	struct txlat *t = NULL;
	char v[24], err[300] = "";
	int mark = -1, ret = 0;

	if (!res || !tr) {
		ret = -ENOMEM;
		goto out;
	}
	if (key) {
		ret = journal_txn_begin(&mark);
		if (ret)
			goto out;
		snprintf(v, sizeof(v), "%llu", (unsigned long long)val);
		ret = devset_set(c->o.dev, "link", &(struct devset_kv){ key, v }, 1, DEVSET_JOURNAL,
				 err, sizeof(err), NULL);
		if (ret) {
			if (!strncmp(err, "cannot write the journal", 24)) {
				snprintf(c->fatal, sizeof(c->fatal), "%s", err);
				goto out;
			}
			val_set(r, VR_FAIL, "%s refused %s %s: %s", c->o.dev, key, v, err);
			ret = 1;
			goto out;
		}
	}
	ret = gso_limits(c->o.dev, &p->size_limit, &p->segs_limit, &tso);
	if (ret) {
		val_set(r, VR_FAIL, "cannot read %s's GSO limits back: %s", c->o.dev,
			strerror(-ret));
		ret = 1;
		goto out;
	}
	ret = txlat_open(c->o.dev, NULL, &t, err, sizeof(err));
	if (ret) {
		val_set(r, VR_SKIP, "txlat unavailable: %s", err);
		ret = 1;
		goto out;
	}
	dev_sysfs_u64(c->o.dev, "statistics/tx_packets", &p0);
	dev_sysfs_u64(c->o.dev, "statistics/tx_bytes", &b0);
	ret = val_probe(c, 1, PROBE_STREAM, c->o.duration_s, false, res, err, sizeof(err));
	dev_sysfs_u64(c->o.dev, "statistics/tx_packets", &p1);
	dev_sysfs_u64(c->o.dev, "statistics/tx_bytes", &b1);
	if (ret) {
		if (ret != -EINTR)
			val_set(r, VR_FAIL, "%s", err);
		ret = ret == -EINTR ? ret : 1;
		goto out;
	}
	ret = txlat_collect(t, tr, err, sizeof(err));
	if (ret) {
		val_set(r, VR_SKIP, "txlat: %s", err);
		ret = 1;
		goto out;
	}
	p->skbs = tr->c.xmit;
	p->gso = tr->c.gso;
	p->segs = tr->c.segs;
	p->bytes = tr->c.bytes;
	p->max_len = tr->c.max_len;
	p->max_segs = tr->c.max_segs;
	p->dev_pkts = p1 - p0;
	p->dev_bytes = b1 - b0;
out:
	txlat_close(t);
	if (mark >= 0 && undo_txn_rollback(mark)) {
		val_set(r, VR_FAIL, "%s %s could not be put back", c->o.dev, key);
		ret = ret < 0 ? ret : 1;
	}
	free(res);
	free(tr);
	return ret;
}

static int check_gso(struct val_ctx *c, struct val_res *r)
{
	struct val_gso m = { 0 };
	uint64_t size, segs, tso, low;
	int ret;

	if (!need_peer(c, r))
		return 0;
	ret = gso_limits(c->o.dev, &size, &segs, &tso);
	if (ret) {
		val_set(r, VR_SKIP, "%s reports no GSO limits: %s", c->o.dev, strerror(-ret));
		return 0;
	}
	if (tso)
		val_diag(r, "tso-max-size %llu: gso-max-size cannot be set above it",
			 (unsigned long long)tso);
	snprintf(m.p[0].what, sizeof(m.p[0].what), "as set (gso-max-size %llu, gso-max-segs %llu)",
		 (unsigned long long)size, (unsigned long long)segs);
	ret = gso_phase(c, r, NULL, 0, &m.p[m.n]);
	if (ret)
		return ret < 0 ? ret : 0;
	m.n++;
	if (!m.p[0].gso) {
		val_gso_judge(&m, r);
		return 0;
	}
	for (low = 1; low * 2 <= size / VAL_GSO_SIZE_DIV; low *= 2)
		;
	if (low >= (uint64_t)VAL_GSO_MIN_SEGS * c->mtu) {
		m.p[m.n].lowered = VAL_GSO_SIZE;
		snprintf(m.p[m.n].what, sizeof(m.p[0].what), "gso-max-size %llu",
			 (unsigned long long)low);
		ret = gso_phase(c, r, "gso-max-size", low, &m.p[m.n]);
		if (ret)
			return ret < 0 ? ret : 0;
		m.n++;
	} else {
		val_diag(r,
			 "gso-max-size not lowered: %llu bytes hold fewer than %d segments at MTU "
			 "%u",
			 (unsigned long long)low, VAL_GSO_MIN_SEGS, c->mtu);
	}
	if (segs > VAL_GSO_SEGS) {
		m.p[m.n].lowered = VAL_GSO_SEGS_LOWERED;
		snprintf(m.p[m.n].what, sizeof(m.p[0].what), "gso-max-segs %d", VAL_GSO_SEGS);
		ret = gso_phase(c, r, "gso-max-segs", VAL_GSO_SEGS, &m.p[m.n]);
		if (ret)
			return ret < 0 ? ret : 0;
		m.n++;
	}
	val_gso_judge(&m, r);
	return 0;
}

/* ---- 9. large-mtu ---- */

/* fn(ctx) in the peer's namespace (--peer-netns; in ours without it). fn's 0 or -errno. */
static int peer_run(const struct val_ctx *c, int (*fn)(void *), void *ctx, size_t len)
{
	return netns_run_shared(c->o.peer_netns, fn, ctx, len);
}

/* The peer's device in its namespace (peer_run): its largest MTU, or a change of its MTU through
 * the journal. */
struct peer_mtu {
	const char *dev;
	char val[16]; /* "": read only */
	uint64_t max_mtu;
	char err[300];
};

static int peer_mtu_fn(void *ctx)
{
	struct peer_mtu *m = ctx;
	struct devset_kv kv = { "mtu", m->val };
	struct et_link l;
	int ret;

	if (!m->val[0]) {
		ret = link_get_dev(m->dev, &l);
		if (!ret)
			m->max_mtu = vals_has(&l.v, IFLA_MAX_MTU) ? l.v.v[IFLA_MAX_MTU] : 0;
		return ret;
	}
	ret = devset_set(m->dev, "link", &kv, 1, DEVSET_JOURNAL, m->err, sizeof(m->err), NULL);
	if (!ret)
		link_wait_up(m->dev, 15);
	return ret;
}

static int peer_mtu(const struct val_ctx *c, const char *val, uint64_t *max_mtu, char *err,
		    size_t len)
{
	struct peer_mtu m = { .dev = c->o.peer_dev };
	int ret;

	snprintf(m.val, sizeof(m.val), "%s", val ? val : "");
	ret = peer_run(c, peer_mtu_fn, &m, sizeof(m));
	if (max_mtu)
		*max_mtu = m.max_mtu;
	if (err)
		snprintf(err, len, "%s", m.err[0] ? m.err : strerror(-ret));
	return ret;
}

static int check_large_mtu(struct val_ctx *c, struct val_res *r)
{
	uint64_t ours = 0, theirs = 0, target;
	struct devset_kv kv;
	struct et_link l;
	char v[16], err[300] = "";
	int mark, ret;

	if (!need_peer(c, r) || !not_software(c, r, TSQ_SOFTWARE))
		return 0;
	if (!c->o.peer_dev) {
		val_set(r, VR_SKIP,
			"no --peer-dev: the peer's device must take the large MTU too (with "
			"--peer-netns where it is in another namespace)");
		return 0;
	}
	if (!link_get_dev(c->o.dev, &l) && vals_has(&l.v, IFLA_MAX_MTU))
		ours = l.v.v[IFLA_MAX_MTU];
	ret = peer_mtu(c, NULL, &theirs, err, sizeof(err));
	if (ret) {
		val_set(r, VR_FAIL, "cannot read the peer's device %s: %s", c->o.peer_dev, err);
		return 0;
	}
	/* IPv4's total length caps a packet, so an MTU above 65535 carries nothing more */
	target = ours < theirs ? ours : theirs;
	target = target > 65535 ? 65535 : target;
	val_measured(r, "max-mtu", (double)ours);
	val_measured(r, "peer-max-mtu", (double)theirs);
	val_measured(r, "mtu", (double)target);
	if (target <= c->mtu) {
		val_set(r, VR_SKIP, "MTU %u is already the largest both devices take (%llu, %llu)",
			c->mtu, (unsigned long long)ours, (unsigned long long)theirs);
		return 0;
	}
	ret = journal_txn_begin(&mark);
	if (ret)
		return ret;
	snprintf(v, sizeof(v), "%llu", (unsigned long long)target);
	/* the peer first, so that it takes every frame we send at the new size */
	ret = peer_mtu(c, v, NULL, err, sizeof(err));
	if (ret) {
		val_set(r, VR_FAIL, "the peer's %s refused MTU %s: %s", c->o.peer_dev, v, err);
		goto out;
	}
	kv = (struct devset_kv){ "mtu", v };
	ret = devset_set(c->o.dev, "link", &kv, 1, DEVSET_JOURNAL, err, sizeof(err), NULL);
	if (ret) {
		val_set(r, VR_FAIL, "%s refused its own max-mtu %s: %s", c->o.dev, v, err);
		goto out;
	}
	link_wait_up(c->o.dev, 15);
	err[0] = 0;
	val_diag(r, "MTU %s on %s and the peer's %s (was %u), put back after", v, c->o.dev,
		 c->o.peer_dev, c->mtu);
	ret = tsq_measure(c, r);
out:
	if (undo_txn_rollback(mark))
		val_set(r, VR_FAIL, "the MTU could not be put back");
	if (ret && !strncmp(err, "cannot write the journal", 24))
		snprintf(c->fatal, sizeof(c->fatal), "%s", err);
	link_wait_up(c->o.dev, 15);
	return ret == -EINTR || c->fatal[0] ? ret : 0;
}

/* ---- 10. nothing-left ---- */

/* New kernel log lines since the start that name a WARNING, a BUG or a TX timeout. */
static unsigned int kmsg_bad(struct val_ctx *c, struct val_res *r)
{
	char rec[8192];
	unsigned int n = 0;
	ssize_t len;

	if (c->kmsg < 0)
		return 0;
	while ((len = read(c->kmsg, rec, sizeof(rec) - 1)) > 0 || (len < 0 && errno == EPIPE)) {
		char *msg;

		if (len <= 0)
			continue; /* overwritten records: go on with the next */
		rec[len] = 0;
		msg = strchr(rec, ';');
		msg = msg ? msg + 1 : rec;
		msg[strcspn(msg, "\n")] = 0;
		if (strstr(msg, "WARNING:") || strstr(msg, "BUG:") || strstr(msg, "BUG ") ||
		    strstr(msg, "NETDEV WATCHDOG") || strstr(msg, "transmit queue")) {
			if (n < 5)
				val_diag(r, "dmesg: %.200s", msg);
			n++;
		}
	}
	return n;
}

/* Differences between two snapshots of a device, each a diagnostic line; how many. */
static unsigned int snap_diff(const struct snap *a, const struct snap *b, const char *who,
			      struct val_res *r)
{
	unsigned int i, j, diff = 0;

	for (i = 0; i < 3; i++) {
		const struct et_object *obj = objs[i];

		if (b->ret[i] != a->ret[i]) {
			val_diag(r, "%s %s: read %s at the start, %s now", who, obj_words[i],
				 a->ret[i] ? "failed" : "fine", b->ret[i] ? "fails" : "fine");
			diff++;
			continue;
		}
		if (b->ret[i])
			continue;
		for (j = 0; j < obj->n_params; j++) {
			const struct et_param *p = &obj->params[j];
			bool x = vals_has(&a->v[i], p->attr), y = vals_has(&b->v[i], p->attr);

			if (x == y && (!x || a->v[i].v[p->attr] == b->v[i].v[p->attr]))
				continue;
			val_diag(r, "%s %s %s: %llu at the start, %llu now", who, obj_words[i],
				 p->key, (unsigned long long)a->v[i].v[p->attr],
				 (unsigned long long)b->v[i].v[p->attr]);
			diff++;
		}
	}
	if (!b->fret && !a->fret)
		for (i = 0; i < b->feat.n; i++)
			for (j = 0; j < a->feat.n; j++)
				if (!strcmp(b->feat.bit[i].name, a->feat.bit[j].name) &&
				    b->feat.bit[i].active != a->feat.bit[j].active) {
					val_diag(r, "%s feature %s: %s at the start, %s now", who,
						 b->feat.bit[i].name,
						 a->feat.bit[j].active ? "on" : "off",
						 b->feat.bit[i].active ? "on" : "off");
					diff++;
				}
	if (b->mtu != a->mtu) {
		val_diag(r, "%s mtu: %llu at the start, %llu now", who, (unsigned long long)a->mtu,
			 (unsigned long long)b->mtu);
		diff++;
	}
	return diff;
}

/* The peer's device (--peer-dev) in its namespace (--peer-netns, peer_run). */
struct peer_snap {
	const char *dev;
	struct snap s;
};

static int peer_snap_fn(void *ctx)
{
	struct peer_snap *p = ctx;

	if (!if_nametoindex(p->dev))
		return -ENODEV;
	snap_take(p->dev, &p->s);
	return 0;
}

static int peer_snap_take(const struct val_ctx *c, struct snap *out)
{
	struct peer_snap *p = calloc(1, sizeof(*p)); /* a snapshot is too large for the stack */
	int ret;

	if (!p)
		return -ENOMEM;
	p->dev = c->o.peer_dev;
	ret = peer_run(c, peer_snap_fn, p, sizeof(*p));
	if (!ret)
		*out = p->s;
	free(p);
	return ret;
}

static int check_nothing_left(struct val_ctx *c, struct val_res *r, int undo_ret)
{
	struct snap *now = malloc(sizeof(*now));
	uint64_t to;
	unsigned int diff, bad;
	char who[48];

	if (!now)
		return -ENOMEM;
	snap_take(c->o.dev, now);
	diff = snap_diff(&c->start, now, c->o.dev, r);
	if (c->o.peer_dev && !c->peer_ret && !peer_snap_take(c, now)) {
		snprintf(who, sizeof(who), "peer %s", c->o.peer_dev);
		diff += snap_diff(&c->peer_start, now, who, r);
	} else if (c->o.peer_dev) {
		val_diag(r, "the peer's device %s could not be read: its part skipped",
			 c->o.peer_dev);
	}
	free(now);
	if (c->kmsg < 0)
		val_diag(r, "dmesg part skipped: /dev/kmsg is not readable");
	bad = kmsg_bad(c, r);
	to = rc_tx_timeouts(c->o.dev) - c->tx_timeouts;
	val_measured(r, "differences", diff);
	val_measured(r, "dmesg-lines", bad);
	val_measured(r, "tx-timeouts", (double)to);
	val_bound(r, "differences", 0);
	val_bound(r, "dmesg-lines", 0);
	val_bound(r, "tx-timeouts", 0);
	if (undo_ret)
		val_set(r, VR_FAIL, "some temporary changes could not be put back (%s)",
			strerror(-undo_ret));
	else if (diff)
		val_set(r, VR_FAIL, "%u values differ from the start", diff);
	else if (to)
		val_set(r, VR_FAIL, "%llu TX timeouts during the run (queues/tx-*/tx_timeout)%s",
			(unsigned long long)to, bad ? "; dmesg lines above" : "");
	else if (bad)
		val_set(r, VR_FAIL, "%u new WARNING, BUG or TX timeout lines in dmesg", bad);
	else
		val_set(r, VR_PASS,
			"coalesce, rings, channels, features and MTU as at the start%s%s",
			c->o.peer_dev && !c->peer_ret ? " (and the peer's)" : "",
			c->kmsg < 0 ? ""
				    : "; no WARNING, BUG or TX timeout in dmesg, no TX timeout "
				      "counted");
	return 0;
}

/* The device's carrier back, as it was at the start, before a check runs (VAL_SETTLE_MAX_S);
 * the wait, where there was one, is said in the check's report. */
static void settle_link(struct val_ctx *c, struct val_res *r)
{
	double t0 = et_now_s(), t = 0;
	uint64_t car = 0;

	if (!c->carrier0)
		return;
	while (!(dev_sysfs_u64(c->o.dev, "carrier", &car) == 0 && car) && !et_stop_signal()) {
		t = et_now_s() - t0;
		if (t >= VAL_SETTLE_MAX_S)
			break;
		et_sleep_s(0.1);
	}
	if (!car)
		val_diag(r, "%s still has no carrier %.0f s after the previous check", c->o.dev, t);
	else if (t > 0)
		val_diag(r, "waited %.1f s for %s's carrier (a change before reset the link)",
			 et_now_s() - t0, c->o.dev);
}

int validate_dev(const struct val_opts *vo, struct val_report *rep)
{
	static int (*const fn[])(struct val_ctx *, struct val_res *) = {
		[VC_ROUND_TRIP] = check_round_trip,
		[VC_COALESCE] = check_coalesce,
		[VC_TSQ] = check_tsq,
		[VC_OWNERSHIP] = check_ownership,
		[VC_BQL] = check_bql,
		[VC_COUNTERS] = check_counters,
		[VC_RECONFIG] = check_reconfig,
		[VC_GSO] = check_gso,
		[VC_LARGE_MTU] = check_large_mtu,
	};
	struct val_ctx *c = calloc(1, sizeof(*c));
	unsigned int k;
	int ret, uret, mark;

	if (!c)
		return -ENOMEM;
	c->vo = vo;
	c->o = vo->o;
	c->rep = rep;
	memset(rep, 0, sizeof(*rep));
	snprintf(rep->dev, sizeof(rep->dev), "%s", vo->o.dev);
	snprintf(rep->peer, sizeof(rep->peer), "%s", vo->o.peer ? vo->o.peer : "");
	ret = read_state(c);
	if (ret) {
		et_err("validate %s: cannot read the device: %s", vo->o.dev, strerror(-ret));
		free(c);
		return ret;
	}
	ret = journal_txn_begin(&mark);
	if (ret) {
		et_err("validate %s: cannot use the journal %s: %s", vo->o.dev, journal_path(),
		       journal_strerror(ret));
		free(c);
		return ret;
	}
	snprintf(rep->driver, sizeof(rep->driver), "%s", c->driver);
	snprintf(rep->kind, sizeof(rep->kind), "%s", c->kind);
	c->floor_us = NAN;
	timer_floor_us(200, &c->floor_us);
	snap_take(c->o.dev, &c->start);
	if (c->o.peer_dev)
		c->peer_ret = peer_snap_take(c, &c->peer_start);
	if (c->peer_ret == -ENODEV || c->peer_ret == -ENONET) {
		if (c->peer_ret == -ENONET)
			et_err("validate %s: --peer-netns: network namespace '%s' does not exist",
			       vo->o.dev, c->o.peer_netns);
		else
			et_err("validate %s: --peer-dev: no such device '%s' in %s%s", vo->o.dev,
			       c->o.peer_dev, c->o.peer_netns ? "network namespace " : "",
			       c->o.peer_netns ? c->o.peer_netns : "this network namespace");
		ret = c->peer_ret;
		free(c);
		return ret;
	}
	c->tx_timeouts = rc_tx_timeouts(c->o.dev);
	c->carrier0 = rc_u64(c->o.dev, "carrier") == 1;
	c->kmsg = open("/dev/kmsg", O_RDONLY | O_NONBLOCK | O_CLOEXEC);
	if (c->kmsg >= 0)
		lseek(c->kmsg, 0, SEEK_END);
	ret = undo_temp_begin();
	for (k = 0; k < VC_NOTHING_LEFT && !ret; k++) {
		if (!(vo->checks & (1u << k)))
			continue;
		rep->r[k].ran = true;
		if (!vo->o.quiet && isatty(STDERR_FILENO))
			et_info("validate: %s", check_names[k]);
		settle_link(c, &rep->r[k]);
		ret = fn[k](c, &rep->r[k]);
		if (!ret && et_stop_signal())
			ret = -EINTR;
	}
	uret = undo_temp_end(); /* a pending signal ends the process here, all put back */
	if (!ret && (vo->checks & (1u << VC_NOTHING_LEFT))) {
		rep->r[VC_NOTHING_LEFT].ran = true;
		check_nothing_left(c, &rep->r[VC_NOTHING_LEFT], uret);
	}
	if (c->kmsg >= 0)
		close(c->kmsg);
	if (c->fatal[0])
		et_err("validate %s: %s", vo->o.dev, c->fatal);
	else if (ret && ret != -EINTR)
		et_err("validate %s: %s", vo->o.dev, strerror(-ret));
	val_count(rep);
	rep->elapsed_s = et_now_s() - vo->t0;
	free(c->lr);
	free(c->tl);
	free(c);
	return ret;
}
