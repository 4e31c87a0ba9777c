# ena default TX interrupt moderation interval 64 us
[profile]
name = ena
description = ena default TX interrupt moderation interval 64 us

[match]
driver = ena

[coalesce]
tx-usecs = 64

[provenance]
kind = documented
source = drivers/net/ethernet/amazon/ena/ena_com.h ENA_INTR_INITIAL_TX_INTERVAL_USECS
