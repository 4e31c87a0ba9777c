/* RDMA over libibverbs/mlx5dv behind ops tables: device list, capabilities, CQ probes, mlx5. */
#ifndef ETHTUNE_RDMA_H
#define ETHTUNE_RDMA_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>
#include <infiniband/verbs.h>

#include "probe/rdma_sysfs.h"
#include "util/stats.h"

/*
 * Every libibverbs call the tool makes. A NULL member means "not available in this build";
 * callers check before use. The real table is drivers/mlx5/verbs.c; tests may substitute
 * their own by wrapping rdma_backend().
 */
struct rdma_ops {
	struct ibv_device **(*get_device_list)(int *n);
	void (*free_device_list)(struct ibv_device **list);
	const char *(*get_device_name)(struct ibv_device *dev);
	struct ibv_context *(*open_device)(struct ibv_device *dev);
	int (*close_device)(struct ibv_context *ctx);
	int (*query_device_ex)(struct ibv_context *ctx, struct ibv_device_attr_ex *attr);
	int (*query_port)(struct ibv_context *ctx, uint8_t port, struct ibv_port_attr *attr);
	/* One GID entry; -ENODATA for an empty slot. */
	int (*query_gid_ex)(struct ibv_context *ctx, uint32_t port, uint32_t idx,
			    struct ibv_gid_entry *e);

	/* Resources of the loopback probe. */
	struct ibv_pd *(*alloc_pd)(struct ibv_context *ctx);
	int (*dealloc_pd)(struct ibv_pd *pd);
	struct ibv_mr *(*reg_mr)(struct ibv_pd *pd, void *addr, size_t len, int access);
	int (*dereg_mr)(struct ibv_mr *mr);
	struct ibv_comp_channel *(*create_comp_channel)(struct ibv_context *ctx);
	int (*destroy_comp_channel)(struct ibv_comp_channel *ch);
	struct ibv_cq *(*create_cq)(struct ibv_context *ctx, int cqe, struct ibv_comp_channel *ch);
	int (*destroy_cq)(struct ibv_cq *cq);
	int (*modify_cq)(struct ibv_cq *cq, uint16_t count, uint16_t period_us);
	struct ibv_qp *(*create_qp)(struct ibv_pd *pd, struct ibv_qp_init_attr *attr);
	int (*destroy_qp)(struct ibv_qp *qp);
	int (*modify_qp)(struct ibv_qp *qp, struct ibv_qp_attr *attr, int mask);
	int (*post_send)(struct ibv_qp *qp, struct ibv_send_wr *wr, struct ibv_send_wr **bad);
	int (*post_recv)(struct ibv_qp *qp, struct ibv_recv_wr *wr, struct ibv_recv_wr **bad);
	int (*poll_cq)(struct ibv_cq *cq, int n, struct ibv_wc *wc);
	int (*req_notify_cq)(struct ibv_cq *cq, int solicited_only);
	int (*get_cq_event)(struct ibv_comp_channel *ch, struct ibv_cq **cq, void **cq_ctx);
	void (*ack_cq_events)(struct ibv_cq *cq, unsigned int n);
};

/*
 * Vendor direct verbs. rdma_dv_for() returns the table whose is_supported() accepts the device
 * (mlx5dv for mlx5), NULL for any other device (rxe, siw, ...).
 */
struct rdma_dv_ops {
	const char *name; /* "mlx5dv" */
	bool (*is_supported)(struct ibv_device *dev);
	/* Query and print the vendor capabilities under the current JSON object. 0 or -errno. */
	int (*show_caps)(struct ibv_context *ctx);
};
const struct rdma_dv_ops *rdma_dv_for(struct ibv_device *dev);
extern const struct rdma_dv_ops mlx5dv_ops;

/* mlx5dv: print a queried context (pure; unit-tested with a filled struct). */
struct mlx5dv_context;
void mlx5dv_report(const struct mlx5dv_context *c);

/* GID text (IPv6 notation) and whether it is an IPv4-mapped or link-local address. */
void rdma_gid_str(const union ibv_gid *g, char *buf, size_t len);
bool rdma_gid_is_v4mapped(const union ibv_gid *g);
bool rdma_gid_is_linklocal(const union ibv_gid *g);
bool rdma_gid_is_zero(const union ibv_gid *g);
const char *rdma_gid_type_str(uint32_t type);

/* Choose the GID index for a RoCE/IB loopback: RoCEv2 IPv4-mapped first, then RoCEv2
 * link-local, then any RoCEv2, RoCEv1, IB. Returns the index in entries[] or -ENOENT. */
int rdma_pick_gid(const struct ibv_gid_entry *e, unsigned int n);

/* Latency summary of n samples (ns, sorted in place). */
void rdma_lat_summary(uint64_t *ns, size_t n, struct stats_lat *out);

#endif
