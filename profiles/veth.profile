# veth: no TX completion to tune; the v6.16 default TSQ limit
[profile]
name = veth
description = veth: no TX completion to tune; the v6.16 default TSQ limit

[match]
driver = veth

[sysctl]
net.ipv4.tcp_limit_output_bytes = 4194304

[provenance]
kind = documented
source = 9ea3bfa61b09 (tcp_limit_output_bytes 4 MiB, v6.16); drivers/net/veth.c
