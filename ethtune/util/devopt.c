/* What every command that takes a device shares: entering --netns and a missing-device line. */
#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>
#include <net/if.h>

#include "util/ethtune.h"

/* Unknown device: say whether it lives in another named namespace. */
int report_missing_dev(const char *dev)
{
	char where[64];

	if (strlen(dev) >= IFNAMSIZ) {
		et_err("invalid device name '%s' (longer than %d characters)", dev, IFNAMSIZ - 1);
		return -EINVAL;
	}
	if (!netns_find_dev(dev, where, sizeof(where)) &&
	    (!et_opts.netns || strcmp(where, et_opts.netns)))
		et_err("device '%s' is not in %s%s%s; it is in network namespace '%s' (use --netns "
		       "%s)",
		       dev, et_opts.netns ? "network namespace '" : "this network namespace",
		       et_opts.netns ? et_opts.netns : "", et_opts.netns ? "'" : "", where, where);
	else
		et_err("no such device '%s'%s%s", dev,
		       et_opts.netns ? " in network namespace " : "",
		       et_opts.netns ? et_opts.netns : "");
	return -ENODEV;
}

unsigned int sysfs_tx_queues(const char *dev, unsigned int max)
{
	char path[256];
	unsigned int n;

	for (n = 0; n < max; n++) {
		dev_sysfs_path(path, sizeof(path), dev, "queues/tx-%u", n);
		if (access(path, F_OK))
			break;
	}
	return n;
}

void bql_sum_read(const char *dev, struct bql_sum *b)
{
	static const char *const files[] = { "limit", "limit_min", "inflight", "stall_cnt",
					     "stall_max" };
	unsigned int q, i;
	uint64_t v[5];
	bool ok[5];

	memset(b, 0, sizeof(*b));
	b->n_txq = sysfs_tx_queues(dev, 4096);
	for (q = 0; q < b->n_txq; q++) {
		/* a queue without limit has no byte_queue_limits at all: read no further */
		for (i = 0; i < 5 && (i == 0 || ok[0]); i++)
			ok[i] = !dev_bql_u64(dev, q, files[i], &v[i]);
		if (!ok[0])
			continue;
		b->n_bql++;
		b->limit += v[0];
		b->limit_min += ok[1] ? v[1] : 0;
		if (ok[2]) {
			b->have_inflight = true;
			b->inflight += v[2];
		}
		if (ok[3]) {
			b->have_stall = true;
			b->stall_cnt += v[3];
		}
		if (ok[4] && v[4] > b->stall_max)
			b->stall_max = v[4];
	}
}

int enter_netns_opt(void)
{
	int ret;

	if (!et_opts.netns)
		return 0;
	ret = netns_switch(et_opts.netns);
	if (ret == -ENOENT)
		et_err("network namespace '%s' does not exist", et_opts.netns);
	else if (ret == -EPERM)
		et_err("cannot enter network namespace '%s': permission denied (needs "
		       "CAP_SYS_ADMIN)",
		       et_opts.netns);
	else if (ret)
		et_err("cannot enter network namespace '%s': %s", et_opts.netns, strerror(-ret));
	return ret;
}
