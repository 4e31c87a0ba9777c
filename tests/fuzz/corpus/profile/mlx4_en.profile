# mlx4 TX coalescing 16 us / 16 frames (the 128 us default capped one flow at ~4 Gbit/s)
[profile]
name = mlx4_en
description = mlx4 TX coalescing 16 us / 16 frames (the 128 us default capped one flow at ~4 Gbit/s)

[match]
driver = mlx4_en

[coalesce]
tx-usecs = 16
tx-frames = 16

[provenance]
kind = documented
source = ecfd2ce1a9d5 mlx4: change TX coalescing defaults
