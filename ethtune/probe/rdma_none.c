/* The rdma commands' engine in a build without rdma-core (WITH_RDMA=0): one line naming what
 * to install. */
#include <errno.h>

#include "probe/rdma_sysfs.h"
#include "util/ethtune.h"

static int no_rdma(void)
{
	et_err("rdma: this ethtune was built without RDMA support; install libibverbs-dev and "
	       "ibverbs-providers (rdma-core) and rebuild");
	return -EOPNOTSUPP;
}

int rdma_list(void)
{
	return no_rdma();
}

int rdma_caps(const char *ibdev __attribute__((unused)))
{
	return no_rdma();
}

int rdma_probe(const struct rdma_probe_opts *o __attribute__((unused)))
{
	return no_rdma();
}
