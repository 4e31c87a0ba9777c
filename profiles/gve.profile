# gve DQO default TX interrupt rate limit 50 us (GQI format has no TX coalescing)
[profile]
name = gve
description = gve DQO default TX interrupt rate limit 50 us (GQI format has no TX coalescing)

[match]
driver = gve

[coalesce]
tx-usecs = 50

[provenance]
kind = documented
source = drivers/net/ethernet/google/gve/gve_dqo.h GVE_TX_IRQ_RATELIMIT_US_DQO
