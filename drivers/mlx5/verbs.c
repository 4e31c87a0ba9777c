/* The libibverbs backend: the real rdma_ops table, thin wrappers over verbs inlines. */
#include <errno.h>
#include <infiniband/verbs.h>

#include "probe/rdma.h"

/* Inline verbs and macros need a real function to sit in the table. */
static const char *v_get_device_name(struct ibv_device *dev)
{
	return ibv_get_device_name(dev);
}

static struct ibv_device **v_get_device_list(int *n)
{
	return ibv_get_device_list(n);
}

static int v_query_device_ex(struct ibv_context *ctx, struct ibv_device_attr_ex *attr)
{
	int ret = ibv_query_device_ex(ctx, NULL, attr);

	return ret > 0 ? -ret : ret;
}

static int v_query_port(struct ibv_context *ctx, uint8_t port, struct ibv_port_attr *attr)
{
	int ret = ibv_query_port(ctx, port, attr);

	return ret > 0 ? -ret : ret;
}

static int v_query_gid_ex(struct ibv_context *ctx, uint32_t port, uint32_t idx,
			  struct ibv_gid_entry *e)
{
	int ret = ibv_query_gid_ex(ctx, port, idx, e, 0);

	return ret > 0 ? -ret : ret;
}

static struct ibv_mr *v_reg_mr(struct ibv_pd *pd, void *addr, size_t len, int access)
{
	return ibv_reg_mr(pd, addr, len, access);
}

static struct ibv_cq *v_create_cq(struct ibv_context *ctx, int cqe, struct ibv_comp_channel *ch)
{
	return ibv_create_cq(ctx, cqe, NULL, ch, 0);
}

static int v_modify_cq(struct ibv_cq *cq, uint16_t count, uint16_t period_us)
{
	struct ibv_modify_cq_attr a = {
		.attr_mask = IBV_CQ_ATTR_MODERATE,
		.moderate = { .cq_count = count, .cq_period = period_us },
	};
	int ret = ibv_modify_cq(cq, &a);

	return ret > 0 ? -ret : ret;
}

static int v_modify_qp(struct ibv_qp *qp, struct ibv_qp_attr *attr, int mask)
{
	int ret = ibv_modify_qp(qp, attr, mask);

	return ret > 0 ? -ret : ret;
}

static int v_post_send(struct ibv_qp *qp, struct ibv_send_wr *wr, struct ibv_send_wr **bad)
{
	int ret = ibv_post_send(qp, wr, bad);

	return ret > 0 ? -ret : ret;
}

static int v_post_recv(struct ibv_qp *qp, struct ibv_recv_wr *wr, struct ibv_recv_wr **bad)
{
	int ret = ibv_post_recv(qp, wr, bad);

	return ret > 0 ? -ret : ret;
}

static int v_poll_cq(struct ibv_cq *cq, int n, struct ibv_wc *wc)
{
	return ibv_poll_cq(cq, n, wc);
}

static int v_req_notify_cq(struct ibv_cq *cq, int solicited_only)
{
	int ret = ibv_req_notify_cq(cq, solicited_only);

	return ret > 0 ? -ret : ret;
}

static int v_get_cq_event(struct ibv_comp_channel *ch, struct ibv_cq **cq, void **cq_ctx)
{
	return ibv_get_cq_event(ch, cq, cq_ctx) ? -errno : 0;
}

static const struct rdma_ops verbs_ops = {
	.get_device_list = v_get_device_list,
	.free_device_list = ibv_free_device_list,
	.get_device_name = v_get_device_name,
	.open_device = ibv_open_device,
	.close_device = ibv_close_device,
	.query_device_ex = v_query_device_ex,
	.query_port = v_query_port,
	.query_gid_ex = v_query_gid_ex,
	.alloc_pd = ibv_alloc_pd,
	.dealloc_pd = ibv_dealloc_pd,
	.reg_mr = v_reg_mr,
	.dereg_mr = ibv_dereg_mr,
	.create_comp_channel = ibv_create_comp_channel,
	.destroy_comp_channel = ibv_destroy_comp_channel,
	.create_cq = v_create_cq,
	.destroy_cq = ibv_destroy_cq,
	.modify_cq = v_modify_cq,
	.create_qp = ibv_create_qp,
	.destroy_qp = ibv_destroy_qp,
	.modify_qp = v_modify_qp,
	.post_send = v_post_send,
	.post_recv = v_post_recv,
	.poll_cq = v_poll_cq,
	.req_notify_cq = v_req_notify_cq,
	.get_cq_event = v_get_cq_event,
	.ack_cq_events = ibv_ack_cq_events,
};

const struct rdma_ops *rdma_backend(void)
{
	return &verbs_ops;
}
