# RDMA backend (drivers/mlx5): libibverbs and mlx5dv from rdma-core (libibverbs-dev, ibverbs-providers).
EXTRA_LDLIBS	+= -libverbs -lmlx5
