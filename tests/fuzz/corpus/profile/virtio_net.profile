# virtio_net default: napi_tx on (tx-frames 1), TX completions visible to TSQ/BQL
[profile]
name = virtio_net
description = virtio_net default: napi_tx on (tx-frames 1), TX completions visible to TSQ/BQL

[match]
driver = virtio_net

[coalesce]
tx-frames = 1

[provenance]
kind = documented
source = 31c03aef9bc2 virtio_net: enable napi_tx by default; 0c465be183c7 (tx-frames 0|1)
