/* A device's state as `ethtune show` prints it: objects, queues, NAPI, sysctls, driver. */
#include <dirent.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <net/if.h>
#include <linux/if_link.h>

#include "knowledge/drvdb.h"
#include "nl/devobj.h"
#include "nl/netdev.h"
#include "out/json_print.h"
#include "probe/rdma_sysfs.h"
#include "state/show.h"
#include "state/sysctl.h"
#include "util/ethtune.h"

static const char *const tsq_sysctls[][2] = {
	{ "net.ipv4.tcp_limit_output_bytes", "tcp_limit_output_bytes" },
	{ "net.ipv4.tcp_wmem", "tcp_wmem" },
	{ "net.ipv4.tcp_rmem", "tcp_rmem" },
	{ "net.ipv4.tcp_congestion_control", "tcp_congestion_control" },
	{ "net.ipv4.tcp_autocorking", "tcp_autocorking" },
	{ "net.core.default_qdisc", "default_qdisc" },
	/* kernel-wide, shown in the initial namespace only (the last KERNEL_SYSCTLS): the
	 * socket's page frags (order-0 at 1) and the frags an skb may carry */
	{ "net.core.high_order_alloc_disable", "high_order_alloc_disable" },
	{ "net.core.max_skb_frags", "max_skb_frags" },
};

#define KERNEL_SYSCTLS 2
#define NS_SYSCTLS     (sizeof(tsq_sysctls) / sizeof(tsq_sysctls[0]) - KERNEL_SYSCTLS)

static void show_sysctls(void)
{
	size_t i;

	open_json_object("sysctl");
	print_text("TSQ sysctls (this namespace) and page-frag ones (kernel-wide):\n");
	for (i = 0; i < sizeof(tsq_sysctls) / sizeof(tsq_sysctls[0]); i++) {
		char buf[128], fmt[64];
		char *p;

		snprintf(fmt, sizeof(fmt), "%-24s %%s\n", tsq_sysctls[i][1]);
		/* the frag ones are kernel-wide: read from the initial namespace where hidden */
		if ((i < NS_SYSCTLS ? sysctl_get(tsq_sysctls[i][0], buf, sizeof(buf))
				    : sysctl_get_kernel(tsq_sysctls[i][0], buf, sizeof(buf)))) {
			print_na(tsq_sysctls[i][0], fmt);
			continue;
		}
		for (p = buf; *p; p++)
			if (*p == '\t')
				*p = ' ';
		/* Single numbers are numbers in JSON; triples and names stay strings. */
		if (buf[0] >= '0' && buf[0] <= '9' && !strchr(buf, ' ')) {
			snprintf(fmt, sizeof(fmt), "%-24s %%llu\n", tsq_sysctls[i][1]);
			print_uint(PRINT_ANY, tsq_sysctls[i][0], fmt, strtoull(buf, NULL, 10));
		} else {
			print_string(PRINT_ANY, tsq_sysctls[i][0], fmt, buf);
		}
	}
	close_json_object();
	print_nl();
}

/* sysfs file names under byte_queue_limits/ and their JSON keys */
static const char *const bql_files[][2] = {
	{ "limit", "limit" },		{ "limit_min", "limit-min" },
	{ "limit_max", "limit-max" },	{ "inflight", "inflight" },
	{ "stall_thrs", "stall-thrs" }, { "stall_cnt", "stall-cnt" },
	{ "stall_max", "stall-max" },	{ NULL, NULL },
};

static void show_bql(const char *dev, unsigned int ntx)
{
	unsigned int q, i;

	open_json_array(PRINT_JSON, "bql");
	print_text("TX queues and BQL:\n");
	for (q = 0; q < ntx && q < 256; q++) {
		uint64_t v;

		print_text("  tx-%u:", q);
		open_json_object(NULL);
		print_uint(PRINT_JSON, "queue", NULL, q);
		for (i = 0; bql_files[i][0]; i++) {
			char fmt[48];

			/* text uses set's keywords too (ethtune set DEV bql stall-thrs N) */
			snprintf(fmt, sizeof(fmt), " %s %%s", bql_files[i][1]);
			if (dev_bql_u64(dev, q, bql_files[i][0], &v)) {
				print_na(bql_files[i][1], fmt);
				continue;
			}
			snprintf(fmt, sizeof(fmt), " %s %%llu", bql_files[i][1]);
			print_uint(PRINT_ANY, bql_files[i][1], fmt, v);
		}
		close_json_object();
		print_text("\n");
	}
	close_json_array(PRINT_JSON, NULL);
	print_nl();
}

/* Per-device NAPI defaults in sysfs (the kernel's fallback when it has no per-NAPI napi-set):
 * file name and the napi-set keyword it stands for. */
static const char *const napi_sysfs[][2] = {
	{ "napi_defer_hard_irqs", "defer-hard-irqs" },
	{ "gro_flush_timeout", "gro-flush-timeout" },
	{ "threaded", "threaded" },
};

static int napi_sysfs_get(const char *dev, unsigned int i, uint64_t *v)
{
	return dev_sysfs_u64(dev, napi_sysfs[i][0], v);
}

/* One napi-set parameter: netlink value, else (no napi-get at all) the device's sysfs file. */
static void show_napi_param(const char *dev, const struct nd_napi *n, bool sysfs,
			    const struct et_param *p)
{
	char fmt[48], buf[32];
	uint64_t v;
	unsigned int i;
	bool have = n && napi_has(n, p->attr);

	if (have)
		v = n->a.v[p->attr];
	for (i = 0; !have && sysfs && i < sizeof(napi_sysfs) / sizeof(napi_sysfs[0]); i++)
		if (!strcmp(napi_sysfs[i][1], p->key))
			have = !napi_sysfs_get(dev, i, &v);
	snprintf(fmt, sizeof(fmt), " %s %%s", p->key);
	if (!have) {
		print_na(p->key, fmt);
		return;
	}
	if (p->type == ET_ENUM) {
		obj_format_val(p, v, buf, sizeof(buf));
		print_string(PRINT_ANY, p->key, fmt, buf);
		return;
	}
	snprintf(fmt, sizeof(fmt), " %s %%llu", p->key);
	print_uint(PRINT_ANY, p->key, fmt, v);
}

/* The CPU a thread last ran on: /proc/PID/stat's processor, the 39th field (after the command
 * name in parentheses, which may hold anything). -1 when it cannot be read. */
static int thread_cpu(uint64_t pid)
{
	char path[64], buf[1024], *p, *save = NULL;
	int field;

	snprintf(path, sizeof(path), "/proc/%llu/stat", (unsigned long long)pid);
	if (read_file_str(path, buf, sizeof(buf)))
		return -1;
	p = strrchr(buf, ')');
	if (!p)
		return -1;
	for (field = 3, p = strtok_r(p + 1, " ", &save); p; p = strtok_r(NULL, " ", &save), field++)
		if (field == 39)
			return atoi(p);
	return -1;
}

/* IRQ, its affinity and the CPUs it is delivered to, the poll thread and the napi-set values. */
static void show_napi_fields(const char *dev, const struct nd_napi *n, bool sysfs)
{
	char path[64], buf[256];
	unsigned int i;

	if (n && napi_has(n, ND_A_NAPI_IRQ)) {
		uint64_t irq = n->a.v[ND_A_NAPI_IRQ];

		print_uint(PRINT_ANY, "irq", " irq %llu", irq);
		snprintf(path, sizeof(path), "/proc/irq/%llu/smp_affinity_list",
			 (unsigned long long)irq);
		if (read_file_str(path, buf, sizeof(buf)))
			print_na("irq-affinity", " affinity %s");
		else
			print_string(PRINT_ANY, "irq-affinity", " affinity %s", buf);
		/* where the interrupt controller actually delivers it, not the last CPU it ran */
		snprintf(path, sizeof(path), "/proc/irq/%llu/effective_affinity_list",
			 (unsigned long long)irq);
		if (read_file_str(path, buf, sizeof(buf)))
			print_na("irq-effective-affinity", " effective %s");
		else
			print_string(PRINT_ANY, "irq-effective-affinity", " effective %s", buf);
	} else {
		print_na("irq", " irq %s");
		print_na("irq-affinity", " affinity %s");
		print_na("irq-effective-affinity", " effective %s");
	}
	if (n && napi_has(n, ND_A_NAPI_PID)) {
		int cpu = thread_cpu(n->a.v[ND_A_NAPI_PID]);

		print_uint(PRINT_ANY, "pid", " pid %llu", n->a.v[ND_A_NAPI_PID]);
		if (cpu >= 0)
			print_uint(PRINT_ANY, "thread-cpu", " cpu %llu", (uint64_t)cpu);
		else
			print_na("thread-cpu", " cpu %s");
	} else {
		print_na("pid", " pid %s");
		print_na("thread-cpu", " cpu %s");
	}
	for (i = 0; i < n_napi_params; i++)
		show_napi_param(dev, n, sysfs, &napi_params[i]);
}

static void show_qstats(const struct nd_qstats *s)
{
	unsigned int i;

	for (i = 0; i < n_qstats_tx_keys; i++) {
		const struct nd_stat_key *k = &qstats_tx_keys[i];
		char fmt[48];

		snprintf(fmt, sizeof(fmt), " %s %%s", k->key);
		if (!s || !qstats_has(s, k->attr)) {
			print_na(k->key, fmt);
			continue;
		}
		snprintf(fmt, sizeof(fmt), " %s %%llu", k->key);
		print_uint(PRINT_ANY, k->key, fmt, s->v[k->attr]);
	}
}

static const char *nd_why(int ret)
{
	return ret == -EPROTONOSUPPORT ? "no netdev netlink family"
	       : ret == -EOPNOTSUPP    ? "not supported by this kernel or device"
				       : strerror(-ret);
}

/* TX queues with their NAPI (netdev queue-get/napi-get), and every NAPI of the device; queues
 * from sysfs and per-device sysfs values where the kernel has no such operation. */
static void show_napi(const char *dev, int ifindex, unsigned int ntx)
{
	static struct nd_dev nd;
	bool nl_queues, sysfs;
	unsigned int q, i;

	netdev_get(ifindex, &nd);
	nl_queues = !nd.queue_ret && nd.n_queue;
	sysfs = nd.napi_ret != 0;
	/* a kernel without queue-get: the queues sysfs lists */
	if (!nl_queues)
		ntx = sysfs_tx_queues(dev, ND_MAX_QUEUES);
	open_json_array(PRINT_JSON, "tx-queues");
	print_text("TX queues and NAPI:\n");
	if (nd.queue_ret)
		print_text("  (queue-get: %s)\n", nd_why(nd.queue_ret));
	if (nd.qstats_ret)
		print_text("  (qstats-get: %s)\n", nd_why(nd.qstats_ret));
	for (q = 0; q < ntx; q++) {
		const struct nd_queue *nq = nd_queue_find(&nd, ND_QUEUE_TYPE_TX, q);
		const struct nd_napi *n = NULL;

		if (nl_queues && !nq)
			continue;
		print_text("  tx-%u:", q);
		open_json_object(NULL);
		print_uint(PRINT_JSON, "queue", NULL, q);
		if (nq && nq->has_napi) {
			print_uint(PRINT_ANY, "napi-id", " napi %llu", nq->napi_id);
			n = nd_napi_by_id(&nd, nq->napi_id);
		} else {
			print_na("napi-id", " napi %s");
		}
		show_napi_fields(dev, n, sysfs);
		print_text("\n       ");
		show_qstats(nd_qstats_find(&nd, ND_QUEUE_TYPE_TX, q));
		close_json_object();
		print_text("\n");
	}
	close_json_array(PRINT_JSON, NULL);
	/* without napi-get the list is unknown, not empty: absent in JSON */
	if (nd.napi_ret)
		print_text("NAPI instances: n/a (napi-get: %s)\n", nd_why(nd.napi_ret));
	else if (!nd.n_napi)
		print_text("NAPI instances: none\n");
	else
		print_text("NAPI instances:\n");
	if (!nd.napi_ret)
		open_json_array(PRINT_JSON, "napi");
	for (i = 0; i < nd.n_napi; i++) {
		open_json_object(NULL);
		print_uint(PRINT_ANY, "napi-id", "  napi %llu:", nd.napi[i].id);
		show_napi_fields(dev, &nd.napi[i], false);
		close_json_object();
		print_text("\n");
	}
	if (!nd.napi_ret)
		close_json_array(PRINT_JSON, NULL);
	open_json_object("napi-sysfs");
	print_text("NAPI defaults (sysfs, whole device):");
	for (i = 0; i < sizeof(napi_sysfs) / sizeof(napi_sysfs[0]); i++) {
		const struct et_param *p = napi_param(napi_sysfs[i][1]);
		char fmt[48], buf[32];
		uint64_t v;

		snprintf(fmt, sizeof(fmt), " %s %%s", p->key);
		if (napi_sysfs_get(dev, i, &v)) {
			print_na(p->key, fmt);
		} else if (p->type == ET_ENUM) {
			obj_format_val(p, v, buf, sizeof(buf));
			print_string(PRINT_ANY, p->key, fmt, buf);
		} else {
			snprintf(fmt, sizeof(fmt), " %s %%llu", p->key);
			print_uint(PRINT_ANY, p->key, fmt, v);
		}
	}
	close_json_object();
	print_text("\n");
	print_nl();
}

static void show_link(const struct et_link *l)
{
	unsigned int i;

	open_json_object("link");
	print_text("Link:\n");
	for (i = 0; i < n_link_params; i++) {
		const struct et_param *p = &link_params[i];
		char fmt[48];

		if (p->attr == IFLA_CARRIER)
			continue;
		snprintf(fmt, sizeof(fmt), "%-22s %%s\n", p->key);
		if (!vals_has(&l->v, p->attr)) {
			print_na(p->key, fmt);
			continue;
		}
		snprintf(fmt, sizeof(fmt), "%-22s %%llu\n", p->key);
		print_uint(PRINT_ANY, p->key, fmt, l->v.v[p->attr]);
	}
	if (l->qdisc[0])
		print_string(PRINT_ANY, "qdisc", "qdisc                  %s\n", l->qdisc);
	else
		print_na("qdisc", "qdisc                  %s\n");
	close_json_object();
	print_nl();
}

static void show_ident(const char *dev, const struct et_link *l, const struct et_drvinfo *d)
{
	print_string(PRINT_ANY, "ifname", "Device %s", dev);
	print_uint(PRINT_ANY, "ifindex", " (ifindex %llu", (uint64_t)l->ifindex);
	if (et_opts.netns)
		print_string(PRINT_ANY, "netns", ", netns %s", et_opts.netns);
	print_text(")\n");
#define STR(k, fmt, v)                                                                             \
	do {                                                                                       \
		if ((v) && *(v))                                                                   \
			print_string(PRINT_ANY, k, fmt, v);                                        \
		else                                                                               \
			print_na(k, fmt);                                                          \
	} while (0)
	STR("driver", "driver                 %s\n", d->ok ? d->driver : NULL);
	STR("version", "version                %s\n", d->ok ? d->version : NULL);
	STR("firmware-version", "firmware-version       %s\n", d->ok ? d->fw : NULL);
	STR("bus-info", "bus-info               %s\n", d->ok ? d->bus : NULL);
	STR("kind", "kind                   %s\n", l->kind);
	STR("operstate", "operstate              %s\n", l->operstate);
#undef STR
	if (d->link >= 0)
		print_bool(PRINT_ANY, "link-detected", "link-detected          %s\n", d->link);
	else
		print_na("link-detected", "link-detected          %s\n");
	if (d->speed >= 0)
		print_uint(PRINT_ANY, "speed", "speed                  %llu Mb/s\n",
			   (uint64_t)d->speed);
	else
		print_na("speed", "speed                  %s\n");
	if (d->duplex >= 0)
		print_string(PRINT_ANY, "duplex", "duplex                 %s\n",
			     d->duplex ? "full" : "half");
	else
		print_na("duplex", "duplex                 %s\n");
	print_nl();
}

static void show_object(struct nl_sock *eth, const struct et_object *obj, const char *dev)
{
	struct et_vals v;
	int ret = obj_get(eth, obj, dev, &v);

	if (ret == -EOPNOTSUPP) {
		/* Text says so; JSON leaves the object out, as for any missing value. */
		print_text("%s: not supported by this device\n\n", obj->title);
		return;
	}
	if (ret) {
		et_warn("%s of %s: %s", obj->name, dev, nl_strerror(eth, ret));
		return;
	}
	obj_show(obj, &v);
}

/* What ethtune knows about this driver, under the current JSON object. */
static void show_driver_extras(const char *dev, const char *driver)
{
	drvdb_show(driver);
	/* mlx5 netdevs also get CQE mode, moderation flags and the RDMA device behind them. */
	if (!strcmp(driver, "mlx5_core"))
		mlx5_show_extra(dev);
}

int show_device(const char *dev)
{
	struct nl_sock eth;
	struct et_link l;
	struct et_drvinfo d;
	static struct et_bitset bs;
	int ret;

	ret = link_get_dev(dev, &l);
	if (ret)
		return ret;
	ret = nl_open_genl(&eth, "ethtool");
	if (ret)
		return ret;
	drvinfo_get(&eth, dev, &d);
	show_ident(dev, &l, &d);
	show_link(&l);
	show_object(&eth, &et_coalesce, dev);
	show_object(&eth, &et_rings, dev);
	show_object(&eth, &et_channels, dev);
	if (!features_get(&eth, dev, &bs))
		features_show(&bs);
	if (!privflags_get(&eth, dev, &bs))
		privflags_show(&bs);
	else
		print_text("Private flags: n/a\n\n");
	nl_close(&eth);
	if (vals_has(&l.v, IFLA_NUM_TX_QUEUES))
		show_bql(dev, (unsigned int)l.v.v[IFLA_NUM_TX_QUEUES]);
	show_napi(dev, l.ifindex,
		  vals_has(&l.v, IFLA_NUM_TX_QUEUES) ? (unsigned int)l.v.v[IFLA_NUM_TX_QUEUES] : 0);
	show_sysctls();
	if (d.ok)
		show_driver_extras(dev, d.driver);
	return 0;
}
