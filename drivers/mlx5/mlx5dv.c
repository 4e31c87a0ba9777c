/* mlx5 direct verbs: the mlx5dv ops table and the report of mlx5dv_query_device(). */
#include <errno.h>
#include <string.h>
#include <infiniband/mlx5dv.h>

#include "util/ethtune.h"
#include "out/json_print.h"
#include "probe/rdma.h"

struct bitname {
	uint64_t bit;
	const char *name;
};

/* enum mlx5dv_context_flags (rdma-core mlx5dv.h). */
static const struct bitname ctx_flags[] = {
	{ MLX5DV_CONTEXT_FLAGS_CQE_V1, "cqe-v1" },
	{ MLX5DV_CONTEXT_FLAGS_MPW_ALLOWED, "mpw-allowed" },
	{ MLX5DV_CONTEXT_FLAGS_ENHANCED_MPW, "enhanced-mpw" },
	{ MLX5DV_CONTEXT_FLAGS_CQE_128B_COMP, "cqe-128b-comp" },
	{ MLX5DV_CONTEXT_FLAGS_CQE_128B_PAD, "cqe-128b-pad" },
	{ MLX5DV_CONTEXT_FLAGS_PACKET_BASED_CREDIT_MODE, "packet-based-credit-mode" },
	{ MLX5DV_CONTEXT_FLAGS_REAL_TIME_TS, "real-time-ts" },
	{ 0, NULL },
};

/* enum mlx5dv_cqe_comp_res_format */
static const struct bitname cqe_formats[] = {
	{ MLX5DV_CQE_RES_FORMAT_HASH, "hash" },
	{ MLX5DV_CQE_RES_FORMAT_CSUM, "csum" },
	{ MLX5DV_CQE_RES_FORMAT_CSUM_STRIDX, "csum-stridx" },
	{ 0, NULL },
};

/* enum mlx5dv_sw_parsing_offloads */
static const struct bitname swp_offloads[] = {
	{ MLX5DV_SW_PARSING, "sw-parsing" },
	{ MLX5DV_SW_PARSING_CSUM, "csum" },
	{ MLX5DV_SW_PARSING_LSO, "lso" },
	{ 0, NULL },
};

/* enum mlx5dv_tunnel_offloads */
static const struct bitname tunnel_offloads[] = {
	{ MLX5DV_RAW_PACKET_CAP_TUNNELED_OFFLOAD_VXLAN, "vxlan" },
	{ MLX5DV_RAW_PACKET_CAP_TUNNELED_OFFLOAD_GRE, "gre" },
	{ MLX5DV_RAW_PACKET_CAP_TUNNELED_OFFLOAD_GENEVE, "geneve" },
	{ MLX5DV_RAW_PACKET_CAP_TUNNELED_OFFLOAD_CW_MPLS_OVER_GRE, "mpls-over-gre" },
	{ MLX5DV_RAW_PACKET_CAP_TUNNELED_OFFLOAD_CW_MPLS_OVER_UDP, "mpls-over-udp" },
	{ 0, NULL },
};

/* Named bits as a JSON array of strings; in text "title: a b c" (or "none"). */
static void print_bits(const char *key, const char *title, uint64_t v, const struct bitname *t)
{
	bool any = false;

	print_text("  %s:", title);
	open_json_array(PRINT_JSON, key);
	for (; t->name; t++) {
		if (!(v & t->bit))
			continue;
		print_string(PRINT_ANY, NULL, " %s", t->name);
		any = true;
	}
	close_json_array(PRINT_JSON, NULL);
	print_text("%s\n", any ? "" : " none");
}

void mlx5dv_report(const struct mlx5dv_context *c)
{
	open_json_object("mlx5dv");
	print_text("mlx5dv:\n");
	/* CQE version 1 is what the kernel driver negotiates on current firmware. */
	print_uint(PRINT_ANY, "cqe-version", "  cqe-version: %u\n",
		   (c->flags & MLX5DV_CONTEXT_FLAGS_CQE_V1) ? 1 : 0);
	print_uint(PRINT_ANY, "version", "  dv-version: %u\n", c->version);
	print_bits("flags", "flags", c->flags, ctx_flags);

	if (c->comp_mask & MLX5DV_CONTEXT_MASK_CQE_COMPRESION) {
		print_bool(PRINT_ANY, "cqe-compression", "  cqe-compression: %s\n",
			   c->cqe_comp_caps.max_num > 0);
		print_uint(PRINT_ANY, "cqe-compression-max-num", "  cqe-compression-max-num: %u\n",
			   c->cqe_comp_caps.max_num);
		print_bits("cqe-compression-formats", "cqe-compression-formats",
			   c->cqe_comp_caps.supported_format, cqe_formats);
	} else {
		print_na("cqe-compression", "  cqe-compression: %s\n");
	}

	if (c->comp_mask & MLX5DV_CONTEXT_MASK_STRIDING_RQ) {
		const struct mlx5dv_striding_rq_caps *s = &c->striding_rq_caps;
		bool on = s->supported_qpts != 0;

		print_bool(PRINT_ANY, "striding-rq", "  striding-rq: %s\n", on);
		if (on) {
			print_uint(PRINT_ANY, "striding-rq-min-stride-bytes",
				   "  striding-rq-stride-bytes: %u",
				   1u << s->min_single_stride_log_num_of_bytes);
			print_uint(PRINT_ANY, "striding-rq-max-stride-bytes", "-%u\n",
				   1u << s->max_single_stride_log_num_of_bytes);
			print_uint(PRINT_ANY, "striding-rq-min-strides",
				   "  striding-rq-strides: %u",
				   1u << s->min_single_wqe_log_num_of_strides);
			print_uint(PRINT_ANY, "striding-rq-max-strides", "-%u\n",
				   1u << s->max_single_wqe_log_num_of_strides);
		}
	} else {
		print_na("striding-rq", "  striding-rq: %s\n");
	}

	if (c->comp_mask & MLX5DV_CONTEXT_MASK_SWP)
		print_bits("sw-parsing", "sw-parsing", c->sw_parsing_caps.sw_parsing_offloads,
			   swp_offloads);
	if (c->comp_mask & MLX5DV_CONTEXT_MASK_TUNNEL_OFFLOADS)
		print_bits("tunnel-offloads", "tunnel-offloads", c->tunnel_offloads_caps,
			   tunnel_offloads);
	if (c->comp_mask & MLX5DV_CONTEXT_MASK_DYN_BFREGS)
		print_uint(PRINT_ANY, "max-dynamic-bfregs", "  max-dynamic-bfregs: %u\n",
			   c->max_dynamic_bfregs);
	if (c->comp_mask & MLX5DV_CONTEXT_MASK_NUM_LAG_PORTS)
		print_uint(PRINT_ANY, "num-lag-ports", "  num-lag-ports: %u\n", c->num_lag_ports);
	if (c->comp_mask & MLX5DV_CONTEXT_MASK_WR_MEMCPY_LENGTH)
		print_uint(PRINT_ANY, "max-wr-memcpy-length", "  max-wr-memcpy-length: %u\n",
			   c->max_wr_memcpy_length);
	close_json_object();
}

static int mlx5_show_caps(struct ibv_context *ctx)
{
	struct mlx5dv_context c;
	int ret;

	memset(&c, 0, sizeof(c));
	c.comp_mask = MLX5DV_CONTEXT_MASK_CQE_COMPRESION | MLX5DV_CONTEXT_MASK_SWP |
		      MLX5DV_CONTEXT_MASK_STRIDING_RQ | MLX5DV_CONTEXT_MASK_TUNNEL_OFFLOADS |
		      MLX5DV_CONTEXT_MASK_DYN_BFREGS | MLX5DV_CONTEXT_MASK_NUM_LAG_PORTS |
		      MLX5DV_CONTEXT_MASK_WR_MEMCPY_LENGTH;
	ret = mlx5dv_query_device(ctx, &c);
	if (ret)
		return ret > 0 ? -ret : ret;
	mlx5dv_report(&c);
	return 0;
}

static bool mlx5_is_supported(struct ibv_device *dev)
{
	return mlx5dv_is_supported(dev);
}

const struct rdma_dv_ops mlx5dv_ops = {
	.name = "mlx5dv",
	.is_supported = mlx5_is_supported,
	.show_caps = mlx5_show_caps,
};

static const struct rdma_dv_ops *const dv_tables[] = { &mlx5dv_ops };

const struct rdma_dv_ops *rdma_dv_for(struct ibv_device *dev)
{
	size_t i;

	for (i = 0; i < sizeof(dv_tables) / sizeof(dv_tables[0]); i++)
		if (dv_tables[i]->is_supported && dv_tables[i]->is_supported(dev))
			return dv_tables[i];
	return NULL;
}
