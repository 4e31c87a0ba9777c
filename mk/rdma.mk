# RDMA backend (ethtune rdma, drivers/mlx5 verbs and mlx5dv): libibverbs and libmlx5 from
# rdma-core (Debian: libibverbs-dev, ibverbs-providers). Found with pkg-config or, failing that,
# the headers; WITH_RDMA=0 (or 1) overrides. Without it the sources below are not compiled: the
# *_none.c files take their place (rdma_backend() is NULL, `ethtune rdma` names the packages)
# and unit tests with a "// NEEDS: rdma" line report a KTAP SKIP. A new file that needs verbs
# goes into RDMA_SRCS.
RDMA_SRCS	:= ethtune/probe/rdma.c drivers/mlx5/verbs.c drivers/mlx5/mlx5dv.c
RDMA_NONE_SRCS	:= ethtune/probe/rdma_none.c drivers/mlx5/verbs_none.c
RDMA_PKGS	:= libibverbs libmlx5
ifeq ($(origin WITH_RDMA),undefined)
WITH_RDMA	:= $(shell { $(PKG_CONFIG) --exists $(RDMA_PKGS) 2>/dev/null || \
			$(CC) -E -x c -include infiniband/verbs.h -include infiniband/mlx5dv.h \
			/dev/null >/dev/null 2>&1; } && echo 1 || echo 0)
endif

ifeq ($(WITH_RDMA),1)
TOOL_SRCS	:= $(filter-out $(RDMA_NONE_SRCS),$(TOOL_SRCS))
EXTRA_LDLIBS	+= $(shell $(PKG_CONFIG) --libs $(RDMA_PKGS) 2>/dev/null || echo -libverbs -lmlx5)
else
TOOL_SRCS	:= $(filter-out $(RDMA_SRCS),$(TOOL_SRCS))
UNIT_MISSING	+= rdma
endif
