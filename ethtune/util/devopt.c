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
		snprintf(path, sizeof(path), "/sys/class/net/%s/queues/tx-%u", dev, n);
		if (access(path, F_OK))
			break;
	}
	return n;
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
