# ixgbe default: dynamic ITR (rx-usecs 1) shared by paired RX/TX vectors
[profile]
name = ixgbe
description = ixgbe default: dynamic ITR (rx-usecs 1) shared by paired RX/TX vectors

[match]
driver = ixgbe

[coalesce]
rx-usecs = 1

[provenance]
kind = documented
source = drivers/net/ethernet/intel/ixgbe/ixgbe_main.c rx_itr_setting/tx_itr_setting = 1; ixgbe_ethtool.c
