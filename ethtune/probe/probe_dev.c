/* Probe telemetry of a network device: sysfs statistics, /proc/interrupts, ethtool -S. */
#define _GNU_SOURCE
#include <ifaddrs.h>
#include <jansson.h>
#include <linux/ethtool.h>
#include <linux/sockios.h>
#include <net/if.h>
#include <netinet/in.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/socket.h>
#include <unistd.h>

#include "util/ethtune.h"
#include "nl/netdev.h"
#include "probe/probe_int.h"

/* ---- device telemetry: sysfs statistics, /proc/interrupts, ethtool -S ---- */

static const char *const stat_names[6] = { "rx_packets", "tx_packets", "rx_bytes",
					   "tx_bytes",	 "rx_dropped", "tx_dropped" };

static void ethtool_stats(const char *dev, struct dev_snap *s)
{
	struct ethtool_sset_info *si;
	struct ethtool_gstrings *gs = NULL;
	struct ethtool_stats *st = NULL;
	struct ifreq ifr = { 0 };
	unsigned int n;
	int fd = socket(AF_INET, SOCK_DGRAM | SOCK_CLOEXEC, 0);

	if (fd < 0)
		return;
	si = calloc(1, sizeof(*si) + sizeof(uint32_t));
	snprintf(ifr.ifr_name, IFNAMSIZ, "%s", dev);
	si->cmd = ETHTOOL_GSSET_INFO;
	si->sset_mask = 1ULL << ETH_SS_STATS;
	ifr.ifr_data = (void *)si;
	if (ioctl(fd, SIOCETHTOOL, &ifr) < 0 || !si->sset_mask || !si->data[0])
		goto out;
	n = si->data[0];
	if (n > 4096)
		goto out;
	gs = calloc(1, sizeof(*gs) + n * ETH_GSTRING_LEN);
	st = calloc(1, sizeof(*st) + n * sizeof(uint64_t));
	gs->cmd = ETHTOOL_GSTRINGS;
	gs->string_set = ETH_SS_STATS;
	gs->len = n;
	ifr.ifr_data = (void *)gs;
	if (ioctl(fd, SIOCETHTOOL, &ifr) < 0)
		goto out;
	st->cmd = ETHTOOL_GSTATS;
	st->n_stats = n;
	ifr.ifr_data = (void *)st;
	if (ioctl(fd, SIOCETHTOOL, &ifr) < 0)
		goto out;
	s->n_es = n;
	s->es_names = malloc(n * ETH_GSTRING_LEN);
	s->es = malloc(n * sizeof(uint64_t));
	memcpy(s->es_names, gs->data, n * ETH_GSTRING_LEN);
	memcpy(s->es, st->data, n * sizeof(uint64_t));
out:
	free(si);
	free(gs);
	free(st);
	close(fd);
}

/* The TX queues' qstats summed (netdev netlink): packets, bytes, stops and wakes. */
static void dev_qstats(const char *dev, struct dev_snap *s)
{
	struct nd_tx_sum q;

	qstats_tx_sum(dev, &q);
	s->q_packets = q.packets;
	s->q_bytes = q.bytes;
	s->tx_stop = q.stop;
	s->tx_wake = q.wake;
}

/* BQL sums for the snapshot; all ones where the device has no such file. */
static void bql_snap(const char *dev, struct dev_snap *s)
{
	struct bql_sum b;

	bql_sum_read(dev, &b);
	s->n_txq = b.n_txq;
	s->bql_limit = b.n_bql ? b.limit : UINT64_MAX;
	s->bql_inflight = b.have_inflight ? b.inflight : UINT64_MAX;
	s->stall_cnt = b.have_stall ? b.stall_cnt : UINT64_MAX;
	s->stall_max = b.have_stall ? b.stall_max : UINT64_MAX;
}

/* One TcpExt counter of this namespace (/proc/net/netstat: a names line, then a values line). */
static uint64_t tcpext(const char *name)
{
	char names[8192], vals[8192], *sn, *sv, *n, *v;
	uint64_t r = UINT64_MAX;
	FILE *f = fopen("/proc/net/netstat", "r");

	if (!f)
		return r;
	while (fgets(names, sizeof(names), f) && fgets(vals, sizeof(vals), f)) {
		if (strncmp(names, "TcpExt:", 7) || strncmp(vals, "TcpExt:", 7))
			continue;
		n = strtok_r(names + 7, " \n", &sn);
		v = strtok_r(vals + 7, " \n", &sv);
		for (; n && v; n = strtok_r(NULL, " \n", &sn), v = strtok_r(NULL, " \n", &sv))
			if (!strcmp(n, name)) {
				r = strtoull(v, NULL, 10);
				break;
			}
		break;
	}
	fclose(f);
	return r;
}

void dev_snap(const char *dev, struct dev_snap *s)
{
	char path[256], line[4096];
	unsigned int i;
	FILE *f;

	memset(s, 0, sizeof(*s));
	for (i = 0; i < 6; i++) {
		snprintf(path, sizeof(path), "statistics/%s", stat_names[i]);
		dev_sysfs_u64(dev, path, &s->st[i]);
	}
	f = fopen("/proc/interrupts", "r");
	if (f) {
		int ncpu = 0;

		if (fgets(line, sizeof(line), f))
			for (char *p = line; (p = strstr(p, "CPU")); p += 3)
				ncpu++;
		while (fgets(line, sizeof(line), f)) {
			char *p = strchr(line, ':'), *end;
			int c;

			if (!p || !strstr(p, dev))
				continue;
			/* the device name must be a whole word (eth0 is not eth0.1 or veth0) */
			end = strstr(p, dev);
			if ((end[-1] != ' ' && end[-1] != '\t') ||
			    (end[strlen(dev)] && !strchr(" \t\n-:@", end[strlen(dev)])))
				continue;
			s->irq_lines++;
			p++;
			for (c = 0; c < ncpu; c++)
				s->irqs += strtoull(p, &p, 10);
		}
		fclose(f);
	}
	ethtool_stats(dev, s);
	bql_snap(dev, s);
	dev_qstats(dev, s);
	s->spurious_rtx_hostq = tcpext("TCPSpuriousRtxHostQueues");
}

void dev_snap_free(struct dev_snap *s)
{
	free(s->es_names);
	free(s->es);
	s->es_names = NULL;
	s->es = NULL;
}

/* Interface that holds the local address of a connected socket. */
void local_dev(int fd, char *buf, size_t len)
{
	struct sockaddr_storage ss;
	socklen_t sl = sizeof(ss);
	struct ifaddrs *ifa, *i;

	buf[0] = 0;
	if (getsockname(fd, (struct sockaddr *)&ss, &sl) || getifaddrs(&ifa))
		return;
	if (ss.ss_family == AF_INET6 &&
	    IN6_IS_ADDR_V4MAPPED(&((struct sockaddr_in6 *)&ss)->sin6_addr)) {
		struct sockaddr_in v4 = { .sin_family = AF_INET };

		memcpy(&v4.sin_addr, &((struct sockaddr_in6 *)&ss)->sin6_addr.s6_addr[12], 4);
		memcpy(&ss, &v4, sizeof(v4));
	}
	for (i = ifa; i; i = i->ifa_next) {
		if (!i->ifa_addr || i->ifa_addr->sa_family != ss.ss_family)
			continue;
		if (ss.ss_family == AF_INET &&
		    ((struct sockaddr_in *)i->ifa_addr)->sin_addr.s_addr ==
			    ((struct sockaddr_in *)&ss)->sin_addr.s_addr)
			break;
		if (ss.ss_family == AF_INET6 &&
		    !memcmp(&((struct sockaddr_in6 *)i->ifa_addr)->sin6_addr,
			    &((struct sockaddr_in6 *)&ss)->sin6_addr, 16))
			break;
	}
	if (i)
		snprintf(buf, len, "%s", i->ifa_name);
	freeifaddrs(ifa);
}

/* Add the change from a to b to d. */
void dev_delta(struct probe_devstats *d, const char *dev, const struct dev_snap *a,
	       const struct dev_snap *b)
{
	unsigned int i, j;

	d->valid = true;
	snprintf(d->dev, sizeof(d->dev), "%s", dev);
	d->rx_packets += b->st[0] - a->st[0];
	d->tx_packets += b->st[1] - a->st[1];
	d->rx_bytes += b->st[2] - a->st[2];
	d->tx_bytes += b->st[3] - a->st[3];
	d->rx_dropped += b->st[4] - a->st[4];
	d->tx_dropped += b->st[5] - a->st[5];
	d->irqs += b->irqs - a->irqs;
	d->irq_lines = b->irq_lines;
	d->n_txq = b->n_txq;
	if (b->bql_limit != UINT64_MAX) {
		d->have_bql = true;
		d->bql_limit = b->bql_limit;
		d->bql_inflight = b->bql_inflight != UINT64_MAX ? b->bql_inflight : 0;
	}
	if (a->stall_cnt != UINT64_MAX && b->stall_cnt != UINT64_MAX) {
		d->have_stall = true;
		d->bql_stall_cnt += b->stall_cnt - a->stall_cnt;
		if (b->stall_max != UINT64_MAX && b->stall_max > d->bql_stall_max_ms)
			d->bql_stall_max_ms = b->stall_max;
	}
	if (a->q_bytes != UINT64_MAX && b->q_bytes != UINT64_MAX) {
		d->have_qbytes = true;
		d->q_bytes += b->q_bytes - a->q_bytes;
		d->q_packets += b->q_packets - a->q_packets;
	}
	if (a->tx_stop != UINT64_MAX && b->tx_stop != UINT64_MAX) {
		d->have_qstats = true;
		d->tx_stop += b->tx_stop - a->tx_stop;
		d->tx_wake += b->tx_wake - a->tx_wake;
	}
	if (a->spurious_rtx_hostq != UINT64_MAX && b->spurious_rtx_hostq != UINT64_MAX) {
		d->have_tcpext = true;
		d->spurious_rtx_hostq += b->spurious_rtx_hostq - a->spurious_rtx_hostq;
	}
	for (i = 0; i < b->n_es && i < a->n_es; i++) {
		uint64_t delta = b->es[i] - a->es[i];

		if (!delta)
			continue;
		for (j = 0; j < d->n_ethtool; j++)
			if (!strncmp(d->ethtool_name[j], b->es_names[i], 31))
				break;
		if (j == d->n_ethtool) {
			if (j >= PROBE_MAX_ETHTOOL)
				continue;
			snprintf(d->ethtool_name[j], 32, "%.31s", b->es_names[i]);
			d->n_ethtool++;
		}
		d->ethtool_delta[j] += delta;
	}
}

static const char *const dev_keys[] = { "rx-packets", "tx-packets", "rx-bytes", "tx-bytes",
					"rx-dropped", "tx-dropped", "irqs",	"irq-lines" };

/* Counters as a flat object of counts for the result message ("es:" prefixes ethtool -S). */
json_t *devstats_json(const struct probe_devstats *d)
{
	const uint64_t v[8] = { d->rx_packets, d->tx_packets, d->rx_bytes, d->tx_bytes,
				d->rx_dropped, d->tx_dropped, d->irqs,	   d->irq_lines };
	json_t *o = json_object();
	char k[40];
	unsigned int i;

	for (i = 0; i < 8; i++)
		json_object_set_new(o, dev_keys[i], json_integer((json_int_t)v[i]));
	json_object_set_new(o, "txq", json_integer(d->n_txq));
	if (d->have_bql) {
		json_object_set_new(o, "bql-limit", json_integer((json_int_t)d->bql_limit));
		json_object_set_new(o, "bql-inflight", json_integer((json_int_t)d->bql_inflight));
	}
	if (d->have_stall) {
		json_object_set_new(o, "bql-stall-cnt", json_integer((json_int_t)d->bql_stall_cnt));
		json_object_set_new(o, "bql-stall-max-ms",
				    json_integer((json_int_t)d->bql_stall_max_ms));
	}
	if (d->have_qbytes) {
		json_object_set_new(o, "q-bytes", json_integer((json_int_t)d->q_bytes));
		json_object_set_new(o, "q-packets", json_integer((json_int_t)d->q_packets));
	}
	if (d->have_qstats) {
		json_object_set_new(o, "tx-stop", json_integer((json_int_t)d->tx_stop));
		json_object_set_new(o, "tx-wake", json_integer((json_int_t)d->tx_wake));
	}
	if (d->have_tcpext)
		json_object_set_new(o, "spurious-rtx-hostq",
				    json_integer((json_int_t)d->spurious_rtx_hostq));
	for (i = 0; i < d->n_ethtool; i++) {
		snprintf(k, sizeof(k), "es:%.28s", d->ethtool_name[i]);
		json_object_set_new(o, k, json_integer((json_int_t)d->ethtool_delta[i]));
	}
	return o;
}

void devstats_parse(json_t *o, const char *dev, struct probe_devstats *d)
{
	uint64_t *v[8] = { &d->rx_packets, &d->tx_packets, &d->rx_bytes, &d->tx_bytes,
			   &d->rx_dropped, &d->tx_dropped, &d->irqs };
	const char *k;
	json_t *x;
	unsigned int i, j;

	if (!o || !dev)
		return;
	d->valid = true;
	snprintf(d->dev, sizeof(d->dev), "%s", dev);
	for (i = 0; i < 7; i++)
		*v[i] += json_integer_value(json_object_get(o, dev_keys[i]));
	d->irq_lines = json_integer_value(json_object_get(o, "irq-lines"));
	d->n_txq = json_integer_value(json_object_get(o, "txq"));
	if ((x = json_object_get(o, "bql-limit"))) {
		d->have_bql = true;
		d->bql_limit = json_integer_value(x);
		d->bql_inflight = json_integer_value(json_object_get(o, "bql-inflight"));
	}
	if ((x = json_object_get(o, "bql-stall-cnt"))) {
		uint64_t m = json_integer_value(json_object_get(o, "bql-stall-max-ms"));

		d->have_stall = true;
		d->bql_stall_cnt += json_integer_value(x);
		if (m > d->bql_stall_max_ms)
			d->bql_stall_max_ms = m;
	}
	if ((x = json_object_get(o, "q-bytes"))) {
		d->have_qbytes = true;
		d->q_bytes += json_integer_value(x);
		d->q_packets += json_integer_value(json_object_get(o, "q-packets"));
	}
	if ((x = json_object_get(o, "tx-stop"))) {
		d->have_qstats = true;
		d->tx_stop += json_integer_value(x);
		d->tx_wake += json_integer_value(json_object_get(o, "tx-wake"));
	}
	if ((x = json_object_get(o, "spurious-rtx-hostq"))) {
		d->have_tcpext = true;
		d->spurious_rtx_hostq += json_integer_value(x);
	}
	json_object_foreach(o, k, x)
	{
		if (strncmp(k, "es:", 3))
			continue;
		for (j = 0; j < d->n_ethtool; j++)
			if (!strcmp(d->ethtool_name[j], k + 3))
				break;
		if (j == d->n_ethtool) {
			if (j >= PROBE_MAX_ETHTOOL)
				continue;
			snprintf(d->ethtool_name[j], 32, "%.31s", k + 3);
			d->n_ethtool++;
		}
		d->ethtool_delta[j] += json_integer_value(x);
	}
}
