# mlx5 default TX moderation: EQE mode, 16 us / 32 CQEs
[profile]
name = mlx5_core
description = mlx5 default TX moderation: EQE mode, 16 us / 32 CQEs

[match]
driver = mlx5_core

[coalesce]
tx-usecs = 16
tx-frames = 32
cqe-mode-tx = off

[provenance]
kind = documented
source = 48bfc39791b8 net/mlx5e: Set EQE based as default TX interrupt moderation mode; MLX5E_PARAMS_DEFAULT_TX_CQ_MODERATION_*
