#!/usr/bin/env python3
"""Reads `ethtool -c` or `ethtool -g` text (stdin) into ethtune keywords: `ethtool_read.py c|g [KEY]`."""
import re
import sys

C_NUM = {  # ethtool -c label -> ethtune keyword
    "stats-block-usecs": "stats-block-usecs", "sample-interval": "sample-interval",
    "pkt-rate-low": "pkt-rate-low", "pkt-rate-high": "pkt-rate-high",
    "rx-usecs": "rx-usecs", "rx-frames": "rx-frames", "rx-usecs-irq": "rx-usecs-irq",
    "rx-frames-irq": "rx-frames-irq", "tx-usecs": "tx-usecs", "tx-frames": "tx-frames",
    "tx-usecs-irq": "tx-usecs-irq", "tx-frames-irq": "tx-frames-irq",
    "rx-usecs-low": "rx-usecs-low", "rx-frame-low": "rx-frames-low",
    "tx-usecs-low": "tx-usecs-low", "tx-frame-low": "tx-frames-low",
    "rx-usecs-high": "rx-usecs-high", "rx-frame-high": "rx-frames-high",
    "tx-usecs-high": "tx-usecs-high", "tx-frame-high": "tx-frames-high",
}
G_CUR = {"RX": "rx", "RX Mini": "rx-mini", "RX Jumbo": "rx-jumbo", "TX": "tx",
         "RX Buf Len": "rx-buf-len", "CQE Size": "cqe-size", "TX Push": "tx-push",
         "RX Push": "rx-push", "TCP data split": "tcp-data-split"}


def val(v):
    v = v.strip()
    return {"on": "1", "off": "0"}.get(v, v)


def parse_c(text):
    d = {}
    for line in text.splitlines():
        m = re.match(r"^([a-z-]+):\s+(\S+)\s*$", line)
        if m and m.group(1) in C_NUM:
            d[C_NUM[m.group(1)]] = val(m.group(2))
        m = re.match(r"^Adaptive RX:\s+(\S+)\s+TX:\s+(\S+)", line)
        if m:
            d["adaptive-rx"], d["adaptive-tx"] = val(m.group(1)), val(m.group(2))
        m = re.match(r"^CQE mode RX:\s+(\S+)\s+TX:\s+(\S+)", line)
        if m:
            d["cqe-mode-rx"], d["cqe-mode-tx"] = val(m.group(1)), val(m.group(2))
    return d


def parse_g(text):
    d, cur = {}, False
    for line in text.splitlines():
        if line.startswith("Current hardware settings"):
            cur = True
            continue
        m = re.match(r"^([A-Za-z ]+):\s*(\S+)\s*$", line)
        if cur and m and m.group(1) in G_CUR:
            d[G_CUR[m.group(1)]] = val(m.group(2))
    return d


d = (parse_c if sys.argv[1] == "c" else parse_g)(sys.stdin.read())
if len(sys.argv) > 2:
    print(d.get(sys.argv[2], "n/a"))
else:
    for k in sorted(d):
        print("%s %s" % (k, d[k]))
