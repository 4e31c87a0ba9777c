# e1000e driver default: dynamic conservative ITR (rx-usecs 3); TX follows it
[profile]
name = e1000e
description = e1000e driver default: dynamic conservative ITR (rx-usecs 3); TX follows it

[match]
driver = e1000e

[coalesce]
rx-usecs = 3

[provenance]
kind = documented
source = drivers/net/ethernet/intel/e1000e/param.c InterruptThrottleRate default 3; ethtool.c
