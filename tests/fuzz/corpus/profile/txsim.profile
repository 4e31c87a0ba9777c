# txsim: prompt completions for single-flow throughput (model: <= 55 us at 10G, 128 KiB TSQ)
[profile]
name = txsim
description = txsim: prompt completions for single-flow throughput (model: <= 55 us at 10G, 128 KiB TSQ)

[match]
driver = txsim

[coalesce]
tx-usecs = 16
tx-frames = 32
cqe-mode-tx = off

[provenance]
kind = documented
source = docs/model.md (ethtune model --rate 10G --tsq 131072 --tx-usecs 128); drivers/txsim
