# stmmac default: TX interrupt every 25 descriptors, 1 ms TX coalesce timer
[profile]
name = stmmac
description = stmmac default: TX interrupt every 25 descriptors, 1 ms TX coalesce timer

[match]
driver = stmmac, st_gmac, st_mac100, st_xgmac

[coalesce]
tx-usecs = 1000
tx-frames = 25

[provenance]
kind = documented
source = drivers/net/ethernet/stmicro/stmmac/common.h STMMAC_COAL_TX_TIMER, STMMAC_TX_FRAMES
