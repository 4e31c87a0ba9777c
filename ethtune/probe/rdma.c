/* `ethtune rdma list|caps|probe`: verbs devices, their capabilities, and RC loopback CQ probes. */
#define _GNU_SOURCE
#include <arpa/inet.h>
#include <errno.h>
#include <net/if.h>
#include <poll.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "util/ethtune.h"
#include "util/stats.h"
#include "out/json_print.h"
#include "probe/probe.h"
#include "probe/rdma.h"

/* ---- GIDs ---- */

void rdma_gid_str(const union ibv_gid *g, char *buf, size_t len)
{
	if (!inet_ntop(AF_INET6, g->raw, buf, len))
		snprintf(buf, len, "?");
}

bool rdma_gid_is_zero(const union ibv_gid *g)
{
	static const uint8_t z[16];

	return !memcmp(g->raw, z, sizeof(z));
}

bool rdma_gid_is_v4mapped(const union ibv_gid *g)
{
	static const uint8_t pfx[12] = { 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0xff, 0xff };

	return !memcmp(g->raw, pfx, sizeof(pfx));
}

bool rdma_gid_is_linklocal(const union ibv_gid *g)
{
	return g->raw[0] == 0xfe && (g->raw[1] & 0xc0) == 0x80;
}

const char *rdma_gid_type_str(uint32_t type)
{
	switch (type) {
	case IBV_GID_TYPE_IB:
		return "IB";
	case IBV_GID_TYPE_ROCE_V1:
		return "RoCEv1";
	case IBV_GID_TYPE_ROCE_V2:
		return "RoCEv2";
	}
	return "unknown";
}

int rdma_pick_gid(const struct ibv_gid_entry *e, unsigned int n)
{
	/* RoCEv2 over IPv4 routes like any UDP packet (rxe speaks only RoCEv2). */
	static const struct {
		uint32_t type;
		int addr; /* 0 any, 1 v4-mapped, 2 link-local */
	} pref[] = {
		{ IBV_GID_TYPE_ROCE_V2, 1 }, { IBV_GID_TYPE_ROCE_V2, 2 },
		{ IBV_GID_TYPE_ROCE_V2, 0 }, { IBV_GID_TYPE_ROCE_V1, 0 },
		{ IBV_GID_TYPE_IB, 0 },
	};

	for (size_t p = 0; p < sizeof(pref) / sizeof(pref[0]); p++)
		for (unsigned int i = 0; i < n; i++) {
			if (e[i].gid_type != pref[p].type || rdma_gid_is_zero(&e[i].gid))
				continue;
			if (pref[p].addr == 1 && !rdma_gid_is_v4mapped(&e[i].gid))
				continue;
			if (pref[p].addr == 2 && !rdma_gid_is_linklocal(&e[i].gid))
				continue;
			return (int)i;
		}
	return -ENOENT;
}

/* ---- statistics ---- */

static int cmp_u64(const void *a, const void *b)
{
	uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;

	return x < y ? -1 : x > y;
}

/* Nearest-rank percentile of sorted samples, in us. */
static double pct(const uint64_t *s, size_t n, double q)
{
	return s[stats_rank(q, n) - 1] / 1000.0;
}

void rdma_lat_summary(uint64_t *ns, size_t n, struct stats_lat *out)
{
	double sum = 0;

	memset(out, 0, sizeof(*out));
	if (!n)
		return;
	qsort(ns, n, sizeof(*ns), cmp_u64);
	for (size_t i = 0; i < n; i++)
		sum += ns[i];
	out->min = ns[0] / 1000.0;
	out->max = ns[n - 1] / 1000.0;
	out->mean = sum / n / 1000.0;
	out->p50 = pct(ns, n, 0.50);
	out->p90 = pct(ns, n, 0.90);
	out->p99 = pct(ns, n, 0.99);
	out->p999 = pct(ns, n, 0.999);
}

/* ---- devices ---- */

struct rdma_devs {
	const struct rdma_ops *ops;
	struct ibv_device **list;
	int n;
};

/* 0 with the list (n may be 0), or -errno when the verbs library cannot list at all. */
static int devs_get(struct rdma_devs *d)
{
	d->ops = rdma_backend();
	d->list = NULL;
	d->n = 0;
	if (!d->ops || !d->ops->get_device_list)
		return -EOPNOTSUPP;
	errno = 0;
	d->list = d->ops->get_device_list(&d->n);
	if (!d->list) {
		d->n = 0;
		/* ENOSYS: no kernel RDMA support at all; same as no device for the user. */
		return errno == ENOSYS || errno == 0 ? 0 : -errno;
	}
	return 0;
}

static void devs_put(struct rdma_devs *d)
{
	if (d->list)
		d->ops->free_device_list(d->list);
	d->list = NULL;
}

static struct ibv_device *devs_find(struct rdma_devs *d, const char *name)
{
	for (int i = 0; i < d->n; i++)
		if (!strcmp(d->ops->get_device_name(d->list[i]), name))
			return d->list[i];
	return NULL;
}

static const char *port_state_str(enum ibv_port_state s)
{
	static const char *const n[] = { "NOP", "DOWN", "INIT", "ARMED", "ACTIVE", "ACTIVE_DEFER" };

	return (unsigned int)s < sizeof(n) / sizeof(n[0]) ? n[s] : "unknown";
}

static const char *link_layer_str(uint8_t ll)
{
	switch (ll) {
	case IBV_LINK_LAYER_INFINIBAND:
		return "InfiniBand";
	case IBV_LINK_LAYER_ETHERNET:
		return "Ethernet";
	}
	return "unspecified";
}

static unsigned int mtu_bytes(enum ibv_mtu m)
{
	return m >= IBV_MTU_256 && m <= IBV_MTU_4096 ? 128u << m : 0;
}

/* Netdev of a GID entry, from its ifindex ("" when it has none). */
static void gid_netdev(const struct ibv_gid_entry *e, char *buf, size_t len)
{
	char name[IF_NAMESIZE];

	buf[0] = 0;
	if (e->ndev_ifindex && if_indextoname(e->ndev_ifindex, name))
		snprintf(buf, len, "%s", name);
}

/* All valid GID entries of one port (at most max). */
static unsigned int port_gids(const struct rdma_ops *ops, struct ibv_context *ctx, uint8_t port,
			      int tbl_len, struct ibv_gid_entry *e, unsigned int max)
{
	unsigned int n = 0;

	if (!ops->query_gid_ex)
		return 0;
	for (int i = 0; i < tbl_len && n < max; i++) {
		if (ops->query_gid_ex(ctx, port, i, &e[n]))
			continue;
		if (rdma_gid_is_zero(&e[n].gid))
			continue;
		n++;
	}
	return n;
}

#define MAX_GIDS 64

static void list_port(const struct rdma_ops *ops, struct ibv_context *ctx, const char *ibdev,
		      uint8_t port)
{
	struct ibv_gid_entry gids[MAX_GIDS];
	struct ibv_port_attr pa;
	char netdev[IF_NAMESIZE + 1] = "", g[INET6_ADDRSTRLEN], nd[IF_NAMESIZE + 1];
	unsigned int n;

	memset(&pa, 0, sizeof(pa));
	open_json_object(NULL);
	print_uint(PRINT_ANY, "port", "  port %u:", port);
	if (ops->query_port(ctx, port, &pa)) {
		print_na("state", " %s\n");
		close_json_object();
		return;
	}
	n = port_gids(ops, ctx, port, pa.gid_tbl_len, gids, MAX_GIDS);
	for (unsigned int i = 0; i < n && !netdev[0]; i++)
		gid_netdev(&gids[i], netdev, sizeof(netdev));
	if (!netdev[0])
		rdma_sysfs_port_netdev(ibdev, port, netdev, sizeof(netdev));

	print_string(PRINT_ANY, "state", " state %s", port_state_str(pa.state));
	print_string(PRINT_ANY, "link-layer", " link-layer %s", link_layer_str(pa.link_layer));
	if (netdev[0])
		print_string(PRINT_ANY, "netdev", " netdev %s", netdev);
	else
		print_na("netdev", " netdev %s");
	print_uint(PRINT_ANY, "active-mtu", " mtu %u", mtu_bytes(pa.active_mtu));
	if (pa.link_layer != IBV_LINK_LAYER_ETHERNET)
		print_uint(PRINT_ANY, "lid", " lid %u", pa.lid);
	print_nl();

	open_json_array(PRINT_JSON, "gids");
	for (unsigned int i = 0; i < n; i++) {
		rdma_gid_str(&gids[i].gid, g, sizeof(g));
		gid_netdev(&gids[i], nd, sizeof(nd));
		open_json_object(NULL);
		print_uint(PRINT_ANY, "index", "    gid %u", gids[i].gid_index);
		print_string(PRINT_ANY, "gid", " %s", g);
		print_string(PRINT_ANY, "type", " %s", rdma_gid_type_str(gids[i].gid_type));
		if (nd[0])
			print_string(PRINT_ANY, "netdev", " %s", nd);
		print_nl();
		close_json_object();
	}
	close_json_array(PRINT_JSON, NULL);
	close_json_object();
}

static int list_dev(const struct rdma_ops *ops, struct ibv_device *dev)
{
	const char *name = ops->get_device_name(dev);
	struct ibv_device_attr_ex a;
	struct ibv_context *ctx;
	const struct rdma_dv_ops *dv = rdma_dv_for(dev);
	int ret;

	open_json_object(NULL);
	print_string(PRINT_ANY, "ibdev", "%s:", name);
	print_string(PRINT_ANY, "direct-verbs", " dv %s", dv ? dv->name : "none");
	ctx = ops->open_device(dev);
	if (!ctx) {
		ret = -errno;
		print_string(PRINT_ANY, "error", " (cannot open: %s)\n", strerror(-ret));
		close_json_object();
		return ret;
	}
	memset(&a, 0, sizeof(a));
	ret = ops->query_device_ex(ctx, &a);
	if (ret) {
		print_string(PRINT_ANY, "error", " (query failed: %s)\n", strerror(-ret));
	} else {
		print_uint(PRINT_ANY, "ports", " ports %u", a.orig_attr.phys_port_cnt);
		print_string(PRINT_ANY, "fw-ver", " fw %s\n",
			     a.orig_attr.fw_ver[0] ? a.orig_attr.fw_ver : "-");
		open_json_array(PRINT_JSON, "port-list");
		for (uint8_t p = 1; p <= a.orig_attr.phys_port_cnt; p++)
			list_port(ops, ctx, name, p);
		close_json_array(PRINT_JSON, NULL);
	}
	ops->close_device(ctx);
	close_json_object();
	return ret;
}

int rdma_list(void)
{
	struct rdma_devs d;
	int ret, fails = 0;

	ret = devs_get(&d);
	if (ret) {
		et_err("cannot list RDMA devices: %s", strerror(-ret));
		return ret;
	}
	new_json_obj(et_opts.json);
	open_json_array(PRINT_JSON, "devices");
	if (!d.n)
		print_text("no RDMA devices\n");
	for (int i = 0; i < d.n; i++)
		fails += list_dev(d.ops, d.list[i]) != 0;
	close_json_array(PRINT_JSON, NULL);
	delete_json_obj();
	devs_put(&d);
	return fails ? -EIO : 0;
}

/* ---- caps ---- */

static void print_cq_moderation(const struct ibv_device_attr_ex *a)
{
	const struct ibv_cq_moderation_caps *m = &a->cq_mod_caps;
	bool ok = m->max_cq_count > 0 && m->max_cq_period > 0;

	print_bool(PRINT_JSON, "cq-moderation", NULL, ok);
	print_string(PRINT_FP, NULL, "  cq-moderation: %s\n",
		     ok ? "supported (ibv_modify_cq)"
			: "unsupported (device reports no CQ moderation)");
	print_uint(PRINT_ANY, "max-cq-count", "  max-cq-count: %u\n", m->max_cq_count);
	print_uint(PRINT_ANY, "max-cq-period-us", "  max-cq-period-us: %u\n", m->max_cq_period);
}

static int caps_dev(const struct rdma_ops *ops, struct ibv_device *dev)
{
	const char *name = ops->get_device_name(dev);
	const struct rdma_dv_ops *dv = rdma_dv_for(dev);
	struct ibv_device_attr_ex a;
	const struct ibv_device_attr *o = &a.orig_attr;
	struct ibv_context *ctx;
	int ret;

	ctx = ops->open_device(dev);
	if (!ctx) {
		ret = errno ? -errno : -ENODEV;
		et_err("%s: cannot open device: %s", name, strerror(-ret));
		return ret;
	}
	memset(&a, 0, sizeof(a));
	ret = ops->query_device_ex(ctx, &a);
	if (ret) {
		et_err("%s: ibv_query_device_ex failed: %s", name, strerror(-ret));
		ops->close_device(ctx);
		return ret;
	}
	open_json_object(NULL);
	print_string(PRINT_ANY, "ibdev", "%s capabilities:\n", name);
	print_string(PRINT_ANY, "fw-ver", "  fw-ver: %s\n", o->fw_ver);
	print_uint(PRINT_ANY, "phys-port-cnt", "  phys-port-cnt: %u\n", o->phys_port_cnt);
	print_uint(PRINT_ANY, "max-qp", "  max-qp: %u\n", o->max_qp);
	print_uint(PRINT_ANY, "max-qp-wr", "  max-qp-wr: %u\n", o->max_qp_wr);
	print_uint(PRINT_ANY, "max-sge", "  max-sge: %u\n", o->max_sge);
	print_uint(PRINT_ANY, "max-cq", "  max-cq: %u\n", o->max_cq);
	print_uint(PRINT_ANY, "max-cqe", "  max-cqe: %u\n", o->max_cqe);
	print_uint(PRINT_ANY, "max-mr", "  max-mr: %u\n", o->max_mr);
	print_uint(PRINT_ANY, "max-mr-size", "  max-mr-size: %llu\n",
		   (unsigned long long)o->max_mr_size);
	print_uint(PRINT_ANY, "max-srq", "  max-srq: %u\n", o->max_srq);
	print_uint(PRINT_ANY, "max-srq-wr", "  max-srq-wr: %u\n", o->max_srq_wr);
	print_cq_moderation(&a);
	if (a.completion_timestamp_mask)
		print_uint(PRINT_ANY, "completion-timestamp-mask",
			   "  completion-timestamp-mask: 0x%llx\n",
			   (unsigned long long)a.completion_timestamp_mask);
	else
		print_na("completion-timestamp-mask", "  completion-timestamp-mask: %s\n");
	if (a.hca_core_clock)
		print_uint(PRINT_ANY, "hca-core-clock-khz", "  hca-core-clock-khz: %llu\n",
			   (unsigned long long)a.hca_core_clock);
	else
		print_na("hca-core-clock-khz", "  hca-core-clock-khz: %s\n");
	print_uint(PRINT_ANY, "max-tso", "  max-tso: %u\n", a.tso_caps.max_tso);
	if (dv && dv->show_caps) {
		ret = dv->show_caps(ctx);
		if (ret)
			et_warn("%s: %s query failed: %s", name, dv->name, strerror(-ret));
		ret = 0;
	} else {
		print_string(PRINT_ANY, "direct-verbs", "  direct-verbs: %s\n", "none");
	}
	close_json_object();
	ops->close_device(ctx);
	return 0;
}

int rdma_caps(const char *ibdev)
{
	struct rdma_devs d;
	int ret, fails = 0;

	ret = devs_get(&d);
	if (ret) {
		et_err("cannot list RDMA devices: %s", strerror(-ret));
		return ret;
	}
	if (ibdev && !devs_find(&d, ibdev)) {
		et_err("no RDMA device '%s'%s", ibdev,
		       d.n ? " (see 'ethtune rdma list')" : ": this host has no RDMA devices");
		devs_put(&d);
		return -ENODEV;
	}
	new_json_obj(et_opts.json);
	open_json_array(PRINT_JSON, "devices");
	if (!d.n)
		print_text("no RDMA devices\n");
	for (int i = 0; i < d.n; i++) {
		if (ibdev && strcmp(d.ops->get_device_name(d.list[i]), ibdev))
			continue;
		fails += caps_dev(d.ops, d.list[i]) != 0;
	}
	close_json_array(PRINT_JSON, NULL);
	delete_json_obj();
	devs_put(&d);
	return fails ? -EIO : 0;
}

/* ---- probe: two RC QPs on one port, A sends to B; A's send CQ is the one measured ---- */

struct lb {
	const struct rdma_ops *ops;
	const char *name;
	struct ibv_context *ctx;
	struct ibv_device_attr_ex attr;
	struct ibv_port_attr pattr;
	struct ibv_gid_entry gid;
	uint8_t port;
	struct ibv_pd *pd;
	struct ibv_mr *mr;
	char *buf;
	struct ibv_comp_channel *ch;
	struct ibv_cq *scq, *rcq;
	struct ibv_qp *a, *b;
	uint32_t rq_depth;
	char err[200];
};

#define LB_ERR(lb, ...) snprintf((lb)->err, sizeof((lb)->err), __VA_ARGS__)

static int lb_pick_port(struct lb *lb, const struct rdma_probe_opts *o)
{
	uint8_t first = o->port ? o->port : 1,
		last = o->port ? o->port : lb->attr.orig_attr.phys_port_cnt;

	for (uint8_t p = first; p <= last; p++) {
		memset(&lb->pattr, 0, sizeof(lb->pattr));
		if (lb->ops->query_port(lb->ctx, p, &lb->pattr))
			continue;
		if (lb->pattr.state == IBV_PORT_ACTIVE) {
			lb->port = p;
			return 0;
		}
	}
	LB_ERR(lb, "%s: no ACTIVE port%s (is the netdev up?)", lb->name,
	       o->port ? " at --port" : "");
	return -ENETDOWN;
}

static int lb_pick_gid(struct lb *lb, const struct rdma_probe_opts *o)
{
	struct ibv_gid_entry gids[MAX_GIDS];
	unsigned int n =
		port_gids(lb->ops, lb->ctx, lb->port, lb->pattr.gid_tbl_len, gids, MAX_GIDS);
	int i;

	if (o->gid_index >= 0) {
		for (unsigned int k = 0; k < n; k++)
			if (gids[k].gid_index == (uint32_t)o->gid_index) {
				lb->gid = gids[k];
				return 0;
			}
		LB_ERR(lb, "%s port %u: GID index %d is empty", lb->name, lb->port, o->gid_index);
		return -ENOENT;
	}
	i = rdma_pick_gid(gids, n);
	if (i < 0) {
		if (lb->pattr.link_layer != IBV_LINK_LAYER_ETHERNET) {
			memset(&lb->gid, 0, sizeof(lb->gid));
			lb->gid.gid_type = IBV_GID_TYPE_IB;
			return 0; /* InfiniBand: LID routing needs no GID */
		}
		LB_ERR(lb,
		       "%s port %u: no usable GID (give the netdev an IPv4 address or enable IPv6)",
		       lb->name, lb->port);
		return -ENOENT;
	}
	lb->gid = gids[i];
	return 0;
}

static struct ibv_qp *lb_qp(struct lb *lb, struct ibv_cq *scq, struct ibv_cq *rcq, uint32_t sq,
			    uint32_t rq)
{
	struct ibv_qp_init_attr ia = {
		.send_cq = scq,
		.recv_cq = rcq,
		.cap = { .max_send_wr = sq,
			 .max_recv_wr = rq,
			 .max_send_sge = 1,
			 .max_recv_sge = 1 },
		.qp_type = IBV_QPT_RC,
		.sq_sig_all = 1,
	};

	return lb->ops->create_qp(lb->pd, &ia);
}

static int lb_connect(struct lb *lb, struct ibv_qp *qp, uint32_t dest_qpn)
{
	struct ibv_qp_attr a;
	bool global =
		lb->pattr.link_layer == IBV_LINK_LAYER_ETHERNET || !rdma_gid_is_zero(&lb->gid.gid);
	int ret;

	memset(&a, 0, sizeof(a));
	a.qp_state = IBV_QPS_INIT;
	a.port_num = lb->port;
	ret = lb->ops->modify_qp(
		qp, &a, IBV_QP_STATE | IBV_QP_PKEY_INDEX | IBV_QP_PORT | IBV_QP_ACCESS_FLAGS);
	if (ret) {
		LB_ERR(lb, "%s: QP to INIT failed: %s", lb->name, strerror(-ret));
		return ret;
	}
	memset(&a, 0, sizeof(a));
	a.qp_state = IBV_QPS_RTR;
	a.path_mtu = lb->pattr.active_mtu;
	a.dest_qp_num = dest_qpn;
	a.max_dest_rd_atomic = 1;
	a.min_rnr_timer = 1; /* 0.01 ms: a missing receive shows up as latency, not a stall */
	a.ah_attr.port_num = lb->port;
	a.ah_attr.dlid = lb->pattr.lid;
	a.ah_attr.is_global = global;
	if (global) {
		a.ah_attr.grh.dgid = lb->gid.gid;
		a.ah_attr.grh.sgid_index = lb->gid.gid_index;
		a.ah_attr.grh.hop_limit = 64;
	}
	ret = lb->ops->modify_qp(qp, &a,
				 IBV_QP_STATE | IBV_QP_AV | IBV_QP_PATH_MTU | IBV_QP_DEST_QPN |
					 IBV_QP_RQ_PSN | IBV_QP_MAX_DEST_RD_ATOMIC |
					 IBV_QP_MIN_RNR_TIMER);
	if (ret) {
		LB_ERR(lb, "%s: QP to RTR failed (GID %u): %s", lb->name, lb->gid.gid_index,
		       strerror(-ret));
		return ret;
	}
	memset(&a, 0, sizeof(a));
	a.qp_state = IBV_QPS_RTS;
	a.timeout = 14;
	a.retry_cnt = 7;
	a.rnr_retry = 7;
	a.max_rd_atomic = 1;
	ret = lb->ops->modify_qp(qp, &a,
				 IBV_QP_STATE | IBV_QP_TIMEOUT | IBV_QP_RETRY_CNT |
					 IBV_QP_RNR_RETRY | IBV_QP_SQ_PSN |
					 IBV_QP_MAX_QP_RD_ATOMIC);
	if (ret)
		LB_ERR(lb, "%s: QP to RTS failed: %s", lb->name, strerror(-ret));
	return ret;
}

static void lb_close(struct lb *lb)
{
	const struct rdma_ops *ops = lb->ops;

	if (lb->a)
		ops->destroy_qp(lb->a);
	if (lb->b)
		ops->destroy_qp(lb->b);
	if (lb->scq)
		ops->destroy_cq(lb->scq);
	if (lb->rcq)
		ops->destroy_cq(lb->rcq);
	if (lb->ch)
		ops->destroy_comp_channel(lb->ch);
	if (lb->mr)
		ops->dereg_mr(lb->mr);
	if (lb->pd)
		ops->dealloc_pd(lb->pd);
	free(lb->buf);
	if (lb->ctx)
		ops->close_device(lb->ctx);
	lb->a = lb->b = NULL;
	lb->scq = lb->rcq = NULL;
	lb->ch = NULL;
	lb->mr = NULL;
	lb->pd = NULL;
	lb->buf = NULL;
	lb->ctx = NULL;
}

static int lb_post_recv(struct lb *lb, uint32_t n, uint32_t msg)
{
	struct ibv_sge sge = { .addr = (uintptr_t)lb->buf + msg,
			       .length = msg,
			       .lkey = lb->mr->lkey };
	struct ibv_recv_wr wr = { .sg_list = &sge, .num_sge = 1 }, *bad;

	for (uint32_t i = 0; i < n; i++) {
		int ret = lb->ops->post_recv(lb->b, &wr, &bad);

		if (ret) {
			LB_ERR(lb, "%s: post_recv failed: %s", lb->name, strerror(-ret));
			return ret;
		}
	}
	return 0;
}

static int lb_open(struct lb *lb, struct ibv_device *dev, const struct rdma_probe_opts *o)
{
	const struct rdma_ops *ops = lb->ops;
	uint32_t sq = o->depth;
	int ret;

	lb->ctx = ops->open_device(dev);
	if (!lb->ctx) {
		LB_ERR(lb, "%s: cannot open device: %s", lb->name,
		       strerror(errno ? errno : ENODEV));
		return -ENODEV;
	}
	ret = ops->query_device_ex(lb->ctx, &lb->attr);
	if (ret) {
		LB_ERR(lb, "%s: ibv_query_device_ex failed: %s", lb->name, strerror(-ret));
		return ret;
	}
	if (sq > (uint32_t)lb->attr.orig_attr.max_qp_wr) {
		LB_ERR(lb, "%s: --depth %u exceeds max-qp-wr %d", lb->name, sq,
		       lb->attr.orig_attr.max_qp_wr);
		return -ERANGE;
	}
	ret = lb_pick_port(lb, o);
	if (!ret)
		ret = lb_pick_gid(lb, o);
	if (ret)
		return ret;
	if (o->msg_size > lb->attr.orig_attr.max_mr_size / 2) {
		LB_ERR(lb, "%s: --msg-size %u too large", lb->name, o->msg_size);
		return -ERANGE;
	}
	lb->rq_depth = 2 * sq + 16;
	if (lb->rq_depth > (uint32_t)lb->attr.orig_attr.max_qp_wr)
		lb->rq_depth = lb->attr.orig_attr.max_qp_wr;
	lb->buf = calloc(2, o->msg_size);
	lb->pd = ops->alloc_pd(lb->ctx);
	if (!lb->buf || !lb->pd) {
		LB_ERR(lb, "%s: cannot allocate a protection domain", lb->name);
		return -ENOMEM;
	}
	lb->mr = ops->reg_mr(lb->pd, lb->buf, 2 * (size_t)o->msg_size, IBV_ACCESS_LOCAL_WRITE);
	if (!lb->mr) {
		ret = errno ? -errno : -ENOMEM;
		LB_ERR(lb, "%s: ibv_reg_mr failed: %s%s", lb->name, strerror(-ret),
		       ret == -ENOMEM || ret == -EPERM ? " (RLIMIT_MEMLOCK?)" : "");
		return ret;
	}
	lb->ch = ops->create_comp_channel(lb->ctx);
	lb->scq = ops->create_cq(lb->ctx, sq + 1, lb->ch);
	lb->rcq = ops->create_cq(lb->ctx, lb->rq_depth + 2, NULL);
	if (!lb->ch || !lb->scq || !lb->rcq) {
		LB_ERR(lb, "%s: cannot create completion queues: %s", lb->name, strerror(errno));
		return -ENOMEM;
	}
	lb->a = lb_qp(lb, lb->scq, lb->rcq, sq, 1);
	lb->b = lb_qp(lb, lb->rcq, lb->rcq, 1, lb->rq_depth);
	if (!lb->a || !lb->b) {
		LB_ERR(lb, "%s: cannot create RC queue pairs: %s", lb->name, strerror(errno));
		return -ENOMEM;
	}
	ret = lb_connect(lb, lb->a, lb->b->qp_num);
	if (!ret)
		ret = lb_connect(lb, lb->b, lb->a->qp_num);
	if (!ret)
		ret = lb_post_recv(lb, lb->rq_depth, o->msg_size);
	return ret;
}

struct lb_result {
	uint64_t n;
	double secs;
	uint64_t events; /* completion events taken (event mode) */
	struct stats_lat lat;
};

/* Drain B's receive CQ and give the receives back. */
static int lb_reap_recv(struct lb *lb, uint32_t msg)
{
	struct ibv_wc wc[32];
	int n;

	while ((n = lb->ops->poll_cq(lb->rcq, 32, wc)) > 0) {
		for (int i = 0; i < n; i++)
			if (wc[i].status != IBV_WC_SUCCESS) {
				LB_ERR(lb, "%s: receive completion error %s", lb->name,
				       ibv_wc_status_str(wc[i].status));
				return -EIO;
			}
		if (lb_post_recv(lb, n, msg))
			return -EIO;
	}
	return n < 0 ? -EIO : 0;
}

/* Wait for a completion event on A's send CQ and re-arm it. */
static int lb_wait_event(struct lb *lb)
{
	struct pollfd pfd = { .fd = lb->ch->fd, .events = POLLIN };
	struct ibv_cq *cq;
	void *cqctx;
	int ret;

	ret = poll(&pfd, 1, 5000);
	if (ret <= 0) {
		LB_ERR(lb, "%s: no completion event within 5 s", lb->name);
		return ret ? -errno : -ETIMEDOUT;
	}
	ret = lb->ops->get_cq_event(lb->ch, &cq, &cqctx);
	if (ret) {
		LB_ERR(lb, "%s: ibv_get_cq_event failed: %s", lb->name, strerror(-ret));
		return ret;
	}
	lb->ops->ack_cq_events(cq, 1);
	ret = lb->ops->req_notify_cq(lb->scq, 0);
	if (ret)
		LB_ERR(lb, "%s: ibv_req_notify_cq failed: %s", lb->name, strerror(-ret));
	return ret;
}

/* Post n sends, depth at a time, and time each from post to its completion. */
static int lb_run(struct lb *lb, const struct rdma_probe_opts *o, uint64_t n, uint64_t *lat,
		  struct lb_result *r)
{
	struct ibv_sge sge = { .addr = (uintptr_t)lb->buf,
			       .length = o->msg_size,
			       .lkey = lb->mr->lkey };
	struct ibv_send_wr wr = { .sg_list = &sge,
				  .num_sge = 1,
				  .opcode = IBV_WR_SEND,
				  .send_flags = IBV_SEND_SIGNALED },
			   *bad;
	uint64_t *t_post = calloc(o->depth, sizeof(*t_post));
	uint64_t posted = 0, done = 0, t0;
	struct ibv_wc wc[64];
	int ret = 0;

	memset(r, 0, sizeof(*r));
	if (!t_post)
		return -ENOMEM;
	if (!o->poll && (ret = lb->ops->req_notify_cq(lb->scq, 0))) {
		LB_ERR(lb, "%s: ibv_req_notify_cq failed: %s", lb->name, strerror(-ret));
		goto out;
	}
	t0 = et_now_ns();
	while (done < n) {
		while (posted < n && posted - done < o->depth) {
			wr.wr_id = posted;
			t_post[posted % o->depth] = et_now_ns();
			ret = lb->ops->post_send(lb->a, &wr, &bad);
			if (ret) {
				LB_ERR(lb, "%s: post_send failed: %s", lb->name, strerror(-ret));
				goto out;
			}
			posted++;
		}
		if (!o->poll) {
			ret = lb_wait_event(lb);
			if (ret)
				goto out;
			r->events++;
		}
		for (;;) {
			int k = lb->ops->poll_cq(lb->scq, 64, wc);
			uint64_t t = et_now_ns();

			if (k < 0) {
				ret = -EIO;
				LB_ERR(lb, "%s: ibv_poll_cq failed", lb->name);
				goto out;
			}
			for (int i = 0; i < k; i++) {
				if (wc[i].status != IBV_WC_SUCCESS) {
					LB_ERR(lb, "%s: send completion error: %s", lb->name,
					       ibv_wc_status_str(wc[i].status));
					ret = -EIO;
					goto out;
				}
				if (lat)
					lat[done] = t - t_post[wc[i].wr_id % o->depth];
				done++;
			}
			if (k < 64)
				break;
		}
		ret = lb_reap_recv(lb, o->msg_size);
		if (ret)
			goto out;
	}
	r->n = n;
	r->secs = (et_now_ns() - t0) / 1e9;
	if (lat)
		rdma_lat_summary(lat, n, &r->lat);
out:
	free(t_post);
	return ret;
}

struct modset {
	int count, period; /* -1: device default, not modified */
};

static void print_result(const struct modset *m, const struct lb_result *r, bool poll_mode)
{
	open_json_object(NULL);
	if (m->count < 0) {
		print_string(PRINT_JSON, "cq-moderation", NULL, "default");
		print_text("  %8s %8s", "default", "");
	} else {
		print_uint(PRINT_ANY, "cq-count", "  %8u", m->count);
		print_uint(PRINT_ANY, "cq-period-us", " %8u", m->period);
	}
	print_uint(PRINT_ANY, "completions", " %9llu", (unsigned long long)r->n);
	print_float(PRINT_ANY, "msgs-per-s", " %11.0f", r->n / (r->secs > 0 ? r->secs : 1e-9));
	if (poll_mode)
		print_text(" %7s", "-");
	else
		print_float(PRINT_ANY, "completions-per-event", " %7.2f",
			    r->events ? (double)r->n / r->events : 0);
	open_json_object("latency");
	probe_print_lat(&r->lat, true);
	close_json_object();
	close_json_object();
}

/* Sweep points, clipped to what the device reports. */
static unsigned int sweep_points(const struct ibv_cq_moderation_caps *c, struct modset *m)
{
	static const struct modset pts[] = { { 1, 0 },	 { 1, 8 },   { 4, 4 },	 { 8, 8 },
					     { 16, 16 }, { 32, 16 }, { 64, 32 }, { 128, 64 } };
	unsigned int n = 0;

	for (size_t i = 0; i < sizeof(pts) / sizeof(pts[0]); i++)
		if (pts[i].count <= c->max_cq_count && pts[i].period <= c->max_cq_period)
			m[n++] = pts[i];
	return n;
}

int rdma_probe(const struct rdma_probe_opts *op)
{
	struct rdma_probe_opts o = *op;
	struct rdma_devs d;
	struct ibv_device *dev;
	struct lb lb;
	struct modset sets[16] = { { -1, -1 } };
	unsigned int nsets = 1;
	const struct ibv_cq_moderation_caps *mc;
	bool mod_ok;
	char g[INET6_ADDRSTRLEN];
	uint64_t *lat = NULL;
	int ret, rc = -EIO, mod_err = 0;

	ret = devs_get(&d);
	if (ret) {
		et_err("cannot list RDMA devices: %s", strerror(-ret));
		return ret;
	}
	dev = devs_find(&d, o.ibdev);
	if (!dev) {
		if (d.n)
			et_err("no RDMA device '%s' (see 'ethtune rdma list')", o.ibdev);
		else
			et_err("no RDMA device '%s': this host has no RDMA devices "
			       "(load rdma_rxe and 'rdma link add rxe0 type rxe netdev DEV')",
			       o.ibdev);
		devs_put(&d);
		return -ENODEV;
	}
	memset(&lb, 0, sizeof(lb));
	lb.ops = d.ops;
	lb.name = o.ibdev;
	ret = lb_open(&lb, dev, &o);
	if (ret) {
		et_err("%s", lb.err);
		goto out;
	}

	/* CQ moderation: what the device offers, and what ibv_modify_cq really accepts. */
	mc = &lb.attr.cq_mod_caps;
	mod_ok = mc->max_cq_count > 0 && mc->max_cq_period > 0 && lb.ops->modify_cq;
	/* A device without moderation caps: ask verbs anyway, so the report carries its answer.
	 * A device with them keeps its default CQ untouched for the first measurement. */
	if (!mod_ok && (o.sweep || o.cq_count >= 0))
		mod_err = lb.ops->modify_cq ? lb.ops->modify_cq(lb.scq, 1, 0) : -EOPNOTSUPP;
	if (o.cq_count >= 0) {
		if (!mod_ok) {
			et_err("%s: CQ moderation is not supported (max-cq-count %u%s%s)", o.ibdev,
			       mc->max_cq_count, mod_err ? ", ibv_modify_cq: " : "",
			       mod_err ? strerror(-mod_err) : "");
			goto out;
		}
		if (o.cq_count > mc->max_cq_count || o.cq_period > mc->max_cq_period) {
			et_err("%s: --cq-count %d --cq-period %d exceed the device's %u/%u",
			       o.ibdev, o.cq_count, o.cq_period, mc->max_cq_count,
			       mc->max_cq_period);
			goto out;
		}
		sets[0].count = o.cq_count;
		sets[0].period = o.cq_period;
	} else if (o.sweep && mod_ok) {
		nsets = sweep_points(mc, sets);
	}

	lat = calloc(o.iters, sizeof(*lat));
	if (!lat) {
		et_err("out of memory for %u samples", o.iters);
		goto out;
	}
	new_json_obj(et_opts.json);
	rdma_gid_str(&lb.gid.gid, g, sizeof(g));
	print_string(PRINT_ANY, "ibdev", "probe %s", o.ibdev);
	print_uint(PRINT_ANY, "port", " port %u", lb.port);
	print_uint(PRINT_ANY, "gid-index", " gid %u", lb.gid.gid_index);
	print_string(PRINT_ANY, "gid", " %s", g);
	print_string(PRINT_ANY, "gid-type", " %s\n", rdma_gid_type_str(lb.gid.gid_type));
	print_string(PRINT_ANY, "qp-type", "  %s loopback", "RC");
	print_uint(PRINT_ANY, "msg-size", " msg-size %u", o.msg_size);
	print_uint(PRINT_ANY, "depth", " depth %u", o.depth);
	print_uint(PRINT_ANY, "iters", " iters %u", o.iters);
	print_string(PRINT_ANY, "mode", " mode %s\n", o.poll ? "poll" : "event");
	open_json_object("cq-moderation");
	print_bool(PRINT_JSON, "supported", NULL, mod_ok);
	print_string(PRINT_FP, NULL, "  cq-moderation: %s", mod_ok ? "supported" : "unsupported");
	print_uint(PRINT_ANY, "max-cq-count", " (max-cq-count %u", mc->max_cq_count);
	print_uint(PRINT_ANY, "max-cq-period-us", ", max-cq-period-us %u", mc->max_cq_period);
	if (mod_err)
		print_string(PRINT_ANY, "modify-cq-error", "; ibv_modify_cq: %s",
			     strerror(-mod_err));
	print_text(")\n");
	close_json_object();
	if (o.sweep && !mod_ok)
		print_string(PRINT_ANY, "note", "  note: %s\n",
			     "CQ moderation is not supported by this device: --sweep measures the "
			     "default only");
	if (o.poll && (o.sweep || o.cq_count >= 0))
		print_string(PRINT_ANY, "note-poll", "  note: %s\n",
			     "--poll reads CQEs as they land; moderation delays only events");

	print_text("  %8s %8s %9s %11s %7s %8s %8s %8s %8s %9s\n", "cq-count", "period", "compl",
		   "msgs/s", "c/event", "p50-us", "p90-us", "p99-us", "p99.9-us", "max-us");
	open_json_array(PRINT_JSON, "results");
	for (unsigned int i = 0; i < nsets; i++) {
		struct lb_result r;

		if (sets[i].count >= 0) {
			ret = lb.ops->modify_cq(lb.scq, sets[i].count, sets[i].period);
			if (ret) {
				close_json_array(PRINT_JSON, NULL);
				delete_json_obj();
				et_err("%s: ibv_modify_cq cq-count %d cq-period %d failed: %s",
				       o.ibdev, sets[i].count, sets[i].period, strerror(-ret));
				goto out;
			}
		}
		/* Warm caches and the QP first; not measured. */
		ret = lb_run(&lb, &o, o.iters / 10 + 1, NULL, &r);
		if (!ret)
			ret = lb_run(&lb, &o, o.iters, lat, &r);
		if (ret) {
			close_json_array(PRINT_JSON, NULL);
			delete_json_obj();
			et_err("%s", lb.err);
			goto out;
		}
		print_result(&sets[i], &r, o.poll);
	}
	close_json_array(PRINT_JSON, NULL);
	delete_json_obj();
	rc = 0;
out:
	free(lat);
	lb_close(&lb);
	devs_put(&d);
	return rc;
}
