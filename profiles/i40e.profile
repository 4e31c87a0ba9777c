# i40e default: dynamic TX ITR starting at 50 us (2 us granularity)
[profile]
name = i40e
description = i40e default: dynamic TX ITR starting at 50 us (2 us granularity)

[match]
driver = i40e

[coalesce]
adaptive-tx = on
tx-usecs = 50

[provenance]
kind = documented
source = drivers/net/ethernet/intel/i40e/i40e_txrx.h I40E_ITR_20K, I40E_ITR_DYNAMIC
