/* No libibverbs in this build (WITH_RDMA=0): the verbs backend is absent. */
#include <stddef.h>

#include "probe/rdma_sysfs.h"

const struct rdma_ops *rdma_backend(void)
{
	return NULL;
}
