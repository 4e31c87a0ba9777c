# ice default: dynamic TX ITR starting at 50 us (2 us granularity)
[profile]
name = ice
description = ice default: dynamic TX ITR starting at 50 us (2 us granularity)

[match]
driver = ice

[coalesce]
adaptive-tx = on
tx-usecs = 50

[provenance]
kind = documented
source = drivers/net/ethernet/intel/ice/ice_txrx.h ICE_DFLT_TX_ITR, ICE_ITR_GRAN_US
