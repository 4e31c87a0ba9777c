/* Per-driver additions to `ethtune show`: the knowledge base and the mlx5/RDMA backend. */
#include <string.h>

#include "knowledge/drvdb.h"
#include "probe/rdma_sysfs.h"
#include "cli/showext.h"

void show_driver_extras(const char *dev, const char *driver)
{
	drvdb_show(driver);
	/* mlx5 netdevs also get CQE mode, moderation flags and the RDMA device behind them. */
	if (!strcmp(driver, "mlx5_core"))
		mlx5_show_extra(dev);
}
