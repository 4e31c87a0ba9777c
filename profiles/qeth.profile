# qeth HiperSockets (IQD) TX completion IRQ coalescing: 25 us / 1 buffer
[profile]
name = qeth
description = qeth HiperSockets (IQD) TX completion IRQ coalescing: 25 us / 1 buffer

[match]
driver = qeth_l2, qeth_l3

[coalesce]
tx-usecs = 25
tx-frames = 1

[provenance]
kind = documented
source = drivers/s390/net/qeth_core.h QETH_TX_COALESCE_USECS, QETH_TX_MAX_COALESCED_FRAMES; seeds/002
