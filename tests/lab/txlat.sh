#!/bin/bash
# Lab test of `ethtune txlat` in the qemu guest (Debian 6.1, CO-RE): txsim completion latency vs
# tx-usecs, agreement with txsim's own xmit-to-free counters, and orphan detection (txsim
# orphan-at-xmit, virtio_net napi_tx off/on). On the host it boots the lab and runs itself there.
set -u
ROOT=${ETHTUNE_ROOT:-$(cd "$(dirname "$0")/../.." && pwd)}
. "$ROOT/tests/lib/ktap.sh"
ET=${ETHTUNE:-$ROOT/${O:-build}/ethtune}

. "$ROOT/tests/lab/lib/host.sh"
lab_host_run "$0" "${LAB_TXLAT_TIMEOUT:-600}" "txlat: TX completion latency and orphaning in the driver lab"

# ---- guest ----
. "$ROOT/tests/lab/lib/guest.sh"
# LAB_* settings travel from the host into the guest.
SECS=${LAB_TXLAT_SECS:-4}
SPEED=${LAB_TXLAT_SPEED:-10000}	# Mb/s: fast enough that wire queueing stays small
TOL=${LAB_TXLAT_TOL:-0.15}
# iperf3 -b for the latency runs: the guest CPUs run under TCG; a flow that saturates them delays
# the completion timer and NAPI, which txlat then measures faithfully (see docs/txlat.md).
RATE=${LAB_TXLAT_RATE:-100M}
ONLY=${LAB_TXLAT_ONLY:-all}	# all, txsim or virtio
OUT=$(mktemp -d)
# JSON by jq and arithmetic by awk: a python3 start costs the guest 0.4 s under TCG
# calc FMT EXPR: EXPR printed with printf's FMT; holds EXPR: exits 0 when EXPR is true
calc() { awk "BEGIN { printf \"$1\\n\", ($2) }"; }
holds() { awk "BEGIN { exit !($1) }"; }
A="ip netns exec $LAB_NS_A"

# txlat_run NAME DEV SUBNET [IPERF-OPTS]: traces DEV in lab-a while iperf3 runs one flow to lab-b;
# a report it writes is checked against its schema.
txlat_run() {
	ip netns exec $LAB_NS_B iperf3 -s -1 -D -B "198.18.$3.2" >/dev/null 2>&1
	sleep 0.5
	"$ET" --netns $LAB_NS_A --json txlat "$2" \
		--load-cmd "timeout $((SECS + 20)) iperf3 -c 198.18.$3.2 -t $SECS ${4:-}" \
		>"$OUT/$1.json" 2>"$OUT/$1.err" || return
	ktap_schema "$1: txlat --json fits docs/schema/txlat.json" txlat "$OUT/$1.json"
}

ktap_header "txlat in the guest: $(uname -r)"
if [ -r /sys/kernel/btf/vmlinux ]; then ktap_ok "guest kernel has BTF"; else ktap_fail "guest kernel has BTF"; fi

if [ "$ONLY" = virtio ]; then
	:
elif ! ip link show txsim0 >/dev/null 2>&1; then
	ktap_fail "txsim tests: txsim.ko loaded"
elif ! lab_split txsim0 txsim1 0; then
	ktap_fail "txsim pair in two namespaces"
else
	$A ethtool -s txsim0 speed "$SPEED"
	base="" bqlavg=()
	for us in 0 250 1000 4000; do
		$A ethtool -C txsim0 tx-usecs $us tx-frames 8192
		s0=$($A ethtool -S txsim0 | awk '/ tx_skbs:/ {s=$2} / tx_compl_lat_sum_ns:/ {l=$2} END {print s, l}')
		txlat_run us$us txsim0 0 "-b $RATE"
		s1=$($A ethtool -S txsim0 | awk '/ tx_skbs:/ {s=$2} / tx_compl_lat_sum_ns:/ {l=$2} END {print s, l}')
		if ! jq -e '.queues[0].freed' "$OUT/us$us.json" >/dev/null 2>&1; then
			ktap_fail "txsim tx-usecs $us: report"; sed 's/^/# /' "$OUT/us$us.err"; continue
		fi
		# modelled serialization of the mean skb at SPEED: TSO headers repeated per 1448-byte
		# segment plus FCS, preamble and gap
		vals=$(jq -r '.queues[0] | [."p50-us", ."mean-us", .freed,
			.bytes / .xmit * (1 + 90 / 1448) * 8 / '"$SPEED"'] | @tsv' "$OUT/us$us.json" |
			awk '{ printf "%.1f %.1f %d %.1f\n", $1, $2, $3, $4 }')
		read -r p50 mean n ser <<<"$vals"
		want=$(calc %.1f "$us + $ser")
		ktap_diag "tx-usecs $us: $n skbs, median $p50 us, mean $mean us; expected tx-usecs + serialization = $want us"
		drv=$(echo "$s0 $s1" | awk '{ n = $3 - $1; printf "%.1f\n", ($4 - $2) / (n > 1 ? n : 1) / 1000 }')
		# BQL, sampled by txlat every 100 ms of the run: txsim calls netdev_tx_sent_queue and
		# netdev_tx_completed_queue, so its queue has a limit and bytes in flight
		read -r bs blim bavg <<<"$(jq -r '[.bql[]? | select(.queue == 0)][0] // {} |
			[.samples // 0, ."limit-max" // 0, ."inflight-avg" // 0] | @tsv' "$OUT/us$us.json")"
		bqlavg[$us]=$bavg
		# Little's law, for the record: bytes in flight = TX rate x txsim's mean xmit -> clean
		ktap_diag "tx-usecs $us: bql $bs samples, limit max $blim, in flight avg $bavg bytes;" \
			"rate x txsim's mean delay $(jq -r '.queues[0].bytes / ."elapsed-s" * '"$drv"' / 1e6 |
			floor' "$OUT/us$us.json") bytes"
		if holds "$bs >= 10 && $blim > 0"; then
			ktap_ok "txsim tx-usecs $us: txlat sampled BQL during the run"
		else
			ktap_fail "txsim tx-usecs $us: txlat sampled BQL during the run"
		fi
		if [ "$us" -eq 0 ]; then
			# txlat times from the xmit tracepoint to the free, txsim from its own xmit to
			# its clean: the difference between the two points is this platform's, measured
			# here without coalescing and taken out of the comparison below
			off=$(calc %.1f "$mean - $drv")
			ktap_diag "tx-usecs 0: txlat mean $mean us, txsim's own mean $drv us: offset $off us"
			# no coalescing: what the platform adds to serialization (TCG timers, NAPI)
			base=$p50
			slack=$(calc %.1f "$p50 - $ser > 0 ? $p50 - $ser : 0")
			ktap_diag "tx-usecs 0: platform baseline median $base us, $slack us beyond serialization (late timers)"
			continue
		fi
		# What the platform adds without coalescing (the baseline) is at most what it adds
		# with it: part of it (a late NAPI, a softirq hop) is absorbed by the wait itself. CI
		# on 2026-12-02 measured medians 352, 500, 1147 and 3736 us at tx-usecs 0, 250, 1000
		# and 4000: the baseline added in full would be 602, 1352, 4352. So the median lies
		# between tx-usecs + serialization (all absorbed) and tx-usecs + baseline (all added),
		# each within TOL; a setting the device ignored, or one it doubled, falls outside.
		lo=$(calc %.1f "(1 - $TOL) * $want")
		hi=$(calc %.1f "(1 + $TOL) * ($us + $base)")
		if holds "$lo <= $p50 && $p50 <= $hi"; then
			ktap_ok "txsim tx-usecs $us: median $p50 us between tx-usecs + serialization and tx-usecs + baseline, within $TOL ([$lo, $hi] us)"
		else
			ktap_fail "txsim tx-usecs $us: median $p50 us between tx-usecs + serialization and tx-usecs + baseline, within $TOL ([$lo, $hi] us)"
		fi
		# The issue's criterion: the median, less what this platform's timers add to anything
		# that waits for them (txlat measures that lateness during the same run), within
		# TOL of tx-usecs + serialization.
		fl=$(jq -r '."timer-floor-us" // -1' "$OUT/us$us.json")
		ktap_diag "tx-usecs $us: timer wake-up lateness during the run $fl us"
		# The baseline holds a timer hop and a softirq hop; where what stays of it beyond the
		# floor exceeds the tolerance itself, this platform cannot show the criterion: a miss
		# there is the platform's (skip), a hit still counts. CI on 2026-12-06 measured the
		# same median at tx-usecs 1000 in two runs (1146.9 us, 1085.4 less the floor against
		# 1036) while the tx-usecs 0 baseline moved from 198 to 251 us beyond serialization.
		rest=$(calc %.1f "$slack - ($fl > 0 ? $fl : 0) > 0 ? $slack - ($fl > 0 ? $fl : 0) : 0")
		if holds "$fl >= 0 && ($p50 - $fl - $want) ^ 2 <= ($TOL * $want) ^ 2"; then
			ktap_ok "txsim tx-usecs $us: median less the timer floor within $TOL of tx-usecs + serialization ($p50 - $fl vs $want us)"
		elif ! holds "$fl >= 0 && $rest <= $TOL * $want"; then
			ktap_skip "txsim tx-usecs $us: median less the timer floor within $TOL of tx-usecs + serialization" "this guest adds $slack us to every completion, $rest us beyond its $fl us timer floor: more than $TOL of $want us"
		else
			ktap_fail "txsim tx-usecs $us: median less the timer floor within $TOL of tx-usecs + serialization ($p50 - $fl vs $want us)"
		fi
		# txsim times xmit -> clean itself: txlat's mean, less the offset between the two
		# measuring points, must agree with it (10%)
		ktap_diag "tx-usecs $us: txsim's own mean xmit -> clean $drv us, txlat's $mean us less the offset ${off:-0} us"
		if holds "($mean - (${off:-0}) - $drv) ^ 2 <= (0.10 * $drv) ^ 2 && $drv >= 0"; then
			ktap_ok "txsim tx-usecs $us: mean agrees with txsim's counters"
		else
			ktap_fail "txsim tx-usecs $us: mean agrees with txsim's counters"
		fi
		if [ "$(jq -r '.tcp.verdict' "$OUT/us$us.json")" = owned ]; then
			ktap_ok "txsim tx-usecs $us: skbs owned until the completion"
		else
			ktap_fail "txsim tx-usecs $us: skbs owned until the completion"
		fi
	done
	# At one rate the bytes in flight follow the completion delay: 16 times the tx-usecs held
	# 6 times the bytes in flight on 2026-12-06 (BQL's averages 7721 and 47996 bytes, txsim's
	# mean delays 863 and 3495 us); twice is the least that passes
	ktap_diag "bql in flight avg: tx-usecs 250 ${bqlavg[250]:-?}, 4000 ${bqlavg[4000]:-?} bytes"
	if holds "${bqlavg[4000]:-0} > 2 * ${bqlavg[250]:-0} && ${bqlavg[250]:-0} > 0"; then
		ktap_ok "txsim: BQL's bytes in flight grow with tx-usecs (250 -> 4000)"
	else
		ktap_fail "txsim: BQL's bytes in flight grow with tx-usecs (250 -> 4000)"
	fi
	$A ethtool -C txsim0 tx-usecs 16 tx-frames 32
	$A ethtool --set-priv-flags txsim0 orphan-at-xmit on
	txlat_run orphan txsim0 0
	$A ethtool --set-priv-flags txsim0 orphan-at-xmit off
	v=$(jq -r '.tcp.verdict' "$OUT/orphan.json" 2>/dev/null)
	ktap_diag "txsim orphan-at-xmit: $(jq -c '.tcp' "$OUT/orphan.json" 2>/dev/null)"
	if [ "$v" = orphaning ]; then ktap_ok "txsim orphan-at-xmit reported as orphaning"
	else ktap_fail "txsim orphan-at-xmit reported as orphaning (got '$v')"; sed 's/^/# /' "$OUT/orphan.err"; fi
	if [ "$(jq -r '."free-is"' "$OUT/orphan.json" 2>/dev/null)" = driver ]; then
		ktap_ok "txsim free labelled as a driver completion"
	else
		ktap_fail "txsim free labelled as a driver completion"
	fi
	$A ethtool -s txsim0 speed 1000
	lab_unsplit
fi

# virtio_net: ethtool -C tx-frames 0 turns napi_tx off (skb_orphan in start_xmit); 1 turns it on.
if [ "$ONLY" = txsim ]; then
	:
elif ! ip link show vn0 >/dev/null 2>&1; then
	ktap_skip "virtio_net tests" "no vn0/vn1 in the guest"
elif ! lab_split vn0 vn1 1; then
	ktap_fail "virtio_net pair in two namespaces"
else
	orig=$($A ethtool -c vn0 | awk '/^tx-frames:/ {print $2}')
	for f in 0 1; do
		ip -n $LAB_NS_A link set vn0 down
		$A ethtool -C vn0 tx-frames $f || ktap_diag "ethtool -C vn0 tx-frames $f failed"
		ip -n $LAB_NS_A link set vn0 up
		for i in $(seq 50); do $A ping -c1 -W1 198.18.1.2 >/dev/null 2>&1 && break; sleep 0.2; done
		txlat_run vn$f vn0 1
		v=$(jq -r '.tcp.verdict' "$OUT/vn$f.json" 2>/dev/null)
		ktap_diag "virtio_net tx-frames $f: $(jq -c '.tcp' "$OUT/vn$f.json" 2>/dev/null);" \
			"irqs $(jq -c '.interrupts' "$OUT/vn$f.json" 2>/dev/null)"
		want=$([ $f -eq 0 ] && echo orphaning || echo owned)
		if [ "$v" = "$want" ]; then ktap_ok "virtio_net tx-frames $f reported as $want"
		else ktap_fail "virtio_net tx-frames $f reported as $want (got '$v')"; sed 's/^/# /' "$OUT/vn$f.err"; fi
	done
	ip -n $LAB_NS_A link set vn0 down
	$A ethtool -C vn0 tx-frames "${orig:-1}" 2>/dev/null
	ip -n $LAB_NS_A link set vn0 up
	lab_unsplit
fi
rm -rf "$OUT"
ktap_finish
