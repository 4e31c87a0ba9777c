#!/bin/sh
# Reads `ethtool -c` or `ethtool -g` text (stdin) into ethtune keywords: `ethtool_read.sh c|g [KEY]`.
# awk, not python3: the lab's guests read these hundreds of times, and under TCG a python3 start
# costs 0.4 s. Without KEY, every "keyword value" it found, sorted; with KEY, its value or n/a.
LC_ALL=C awk -v mode="$1" -v key="${2:-}" '
function val(v) { return v == "on" ? "1" : v == "off" ? "0" : v }
BEGIN {
	n = split("stats-block-usecs sample-interval pkt-rate-low pkt-rate-high rx-usecs rx-frames " \
		  "rx-usecs-irq rx-frames-irq tx-usecs tx-frames tx-usecs-irq tx-frames-irq " \
		  "rx-usecs-low tx-usecs-low rx-usecs-high tx-usecs-high", a, " ")
	for (i = 1; i <= n; i++)
		C[a[i]] = a[i]
	# ethtool -c says "frame" where the keyword says "frames"
	C["rx-frame-low"] = "rx-frames-low"; C["tx-frame-low"] = "tx-frames-low"
	C["rx-frame-high"] = "rx-frames-high"; C["tx-frame-high"] = "tx-frames-high"
	G["RX"] = "rx"; G["RX Mini"] = "rx-mini"; G["RX Jumbo"] = "rx-jumbo"; G["TX"] = "tx"
	G["RX Buf Len"] = "rx-buf-len"; G["CQE Size"] = "cqe-size"; G["TX Push"] = "tx-push"
	G["RX Push"] = "rx-push"; G["TCP data split"] = "tcp-data-split"
}
mode == "c" && /^[a-z-]+:[ \t]+[^ \t]+[ \t]*$/ {
	k = $1; sub(/:$/, "", k)
	if (k in C) d[C[k]] = val($2)
}
mode == "c" && /^Adaptive RX:[ \t]+[^ \t]+[ \t]+TX:[ \t]+[^ \t]+/ { d["adaptive-rx"] = val($3); d["adaptive-tx"] = val($5) }
mode == "c" && /^CQE mode RX:[ \t]+[^ \t]+[ \t]+TX:[ \t]+[^ \t]+/ { d["cqe-mode-rx"] = val($4); d["cqe-mode-tx"] = val($6) }
mode == "g" && /^Current hardware settings/ { cur = 1; next }
mode == "g" && cur && /^[A-Za-z ]+:[ \t]*[^ \t]+[ \t]*$/ {
	i = index($0, ":"); k = substr($0, 1, i - 1); v = substr($0, i + 1)
	gsub(/^[ \t]+|[ \t]+$/, "", v)
	if (k in G) d[G[k]] = val(v)
}
END {
	if (key != "") {
		print (key in d) ? d[key] : "n/a"
		exit
	}
	for (k in d)
		print k " " d[k] | "sort"
}'
