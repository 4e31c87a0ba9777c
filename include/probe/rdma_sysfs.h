/* RDMA and mlx5 without libibverbs: sysfs lookups, `show` extras, the rdma commands' entries. */
#ifndef ETHTUNE_RDMA_SYSFS_H
#define ETHTUNE_RDMA_SYSFS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* The verbs backend of this build (drivers/mlx5/verbs.c); NULL in a build without rdma-core
 * (WITH_RDMA=0, drivers/mlx5/verbs_none.c). The table itself is in probe/rdma.h. */
struct rdma_ops;
const struct rdma_ops *rdma_backend(void);

/* Root of sysfs for RDMA and mlx5 lookups ("/sys"); tests point it at a fixture tree. */
extern const char *rdma_sysfs_root;

/* Netdev behind port of ibdev from sysfs gid_attrs/ndevs (first non-empty); 0 or -ENOENT. */
int rdma_sysfs_port_netdev(const char *ibdev, unsigned int port, char *buf, size_t len);
/* RDMA device sitting on netdev (mlx5: device/infiniband/; rxe, siw: the parent file). */
int rdma_netdev_ibdev(const char *netdev, char *buf, size_t len);

/*
 * drivers/mlx5 knowledge for `ethtune show`: when netdev is driven by mlx5_core, prints the
 * TX/RX completion mode (CQE/EQE), the moderation private flags and the RDMA device behind it
 * under the current JSON object ("mlx5" object) and returns 0; -ENODEV for other drivers.
 */
int mlx5_show_extra(const char *netdev);
bool mlx5_is_netdev(const char *netdev);

/* Private flags of netdev through the ethtool ioctl (drivers/mlx5/pflags.c). */
#define MLX5_MAX_PFLAGS 32
struct mlx5_pflags {
	unsigned int n;
	char name[MLX5_MAX_PFLAGS][32];
	bool on[MLX5_MAX_PFLAGS];
};
int mlx5_read_pflags(const char *netdev, struct mlx5_pflags *pf);

/* Options of `ethtune rdma probe`. */
struct rdma_probe_opts {
	const char *ibdev;
	uint32_t port;	   /* 0: first active port */
	int gid_index;	   /* -1: automatic */
	uint32_t msg_size; /* bytes per send */
	uint32_t depth;	   /* sends in flight */
	uint32_t iters;	   /* completions measured per setting */
	int cq_count;	   /* -1: leave CQ moderation alone */
	int cq_period;	   /* microseconds, -1: leave alone */
	bool sweep;	   /* vary CQ moderation */
	bool poll;	   /* busy-poll the CQ instead of waiting for events */
};

/* ethtune rdma list | caps [IBDEV] | probe: print the report; 0, or -errno after one line
 * (-ENODEV: no such device; -EIO: some device or measurement failed). */
int rdma_list(void);
int rdma_caps(const char *ibdev);
int rdma_probe(const struct rdma_probe_opts *o);

#endif
