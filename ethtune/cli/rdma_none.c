/* `ethtune rdma` in a build without rdma-core (WITH_RDMA=0): one line naming what to install. */
#include "cli/commands.h"
#include "util/ethtune.h"

int cmd_rdma(int argc, char **argv)
{
	et_err("rdma: this ethtune was built without RDMA support; install libibverbs-dev and "
	       "ibverbs-providers (rdma-core) and rebuild");
	return EXIT_FAIL;
}
