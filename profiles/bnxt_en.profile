# bnxt_en default TX coalescing: 28 us / 30 records, 2/2 while an IRQ is pending
[profile]
name = bnxt_en
description = bnxt_en default TX coalescing: 28 us / 30 records, 2/2 while an IRQ is pending

[match]
driver = bnxt_en

[coalesce]
tx-usecs = 28
tx-frames = 30
tx-usecs-irq = 2
tx-frames-irq = 2

[provenance]
kind = documented
source = drivers/net/ethernet/broadcom/bnxt/bnxt.c bnxt_init_dflt_coal
