#!/bin/bash
# Lab: txsim features and robustness: rate, GSO/TSO/MTU limits, rings, coalescing, rmmod under traffic.
set -u
ROOT=${ETHTUNE_ROOT:-$(cd "$(dirname "$0")/../.." && pwd)}
. "$ROOT/tests/lib/ktap.sh"
ET=${ETHTUNE:-$ROOT/${O:-build}/ethtune}
. "$ROOT/tests/lab/lib/host.sh"
lab_host_run "$0" "${LAB_STRESS_TIMEOUT:-300}" "txsim features and stress"

# ---- guest ----
. "$ROOT/tests/lab/lib/guest.sh"
ktap_header "txsim features, changes under traffic, rmmod with traffic in flight"
if ! ip link show txsim0 >/dev/null 2>&1; then
	ktap_fail "txsim stress: txsim.ko loaded"; ktap_finish; exit 0
fi
KO=$(lab_txsim_ko)
dmesg -C
A="ip netns exec $LAB_NS_A"
B="ip netns exec $LAB_NS_B"
st() { lab_stat txsim0 "$1" $LAB_NS_A; }
reset() { $A sh -c 'echo 1 >/sys/class/net/txsim0/txsim/stats_reset'; }
check() {	# check DESC PYTHON-EXPR
	if python3 -c "import sys; sys.exit(0 if $2 else 1)"; then ktap_ok "$1"; else ktap_fail "$1"; fi
}
lab_split txsim0 txsim1 || { ktap_fail "txsim pair in two namespaces"; ktap_finish; exit 1; }

# --- features, each measured with a short flow ---
$A ethtool -s txsim0 speed 100
v=$(lab_iperf 2 -C cubic -Z) || v=0
check "speed 100: the flow runs at the line rate ($v Mbit/s in 60..100)" "60 <= $v <= 100"
$A ethtool -s txsim0 speed 1000

$A ip link set txsim0 gso_max_size 16384
reset; v=$(lab_iperf 2 -C cubic -Z) || v=0; m=$(st tx_skb_len_max)
check "gso_max_size 16384 honoured (largest skb $m, $v Mbit/s)" "0 < $m <= 16384 and $v > 0"
$A ip link set txsim0 gso_max_size 65536

$A ethtool -K txsim0 tso off >/dev/null
reset; v=$(lab_iperf 2 -C cubic -Z) || v=0; m=$(st tx_skb_len_max)
check "tso off: only MTU-sized frames ($m bytes, $v Mbit/s)" "0 < $m <= 1514 and $v > 0"
$A ethtool -K txsim0 sg off >/dev/null
reset; v=$(lab_iperf 2 -C cubic) || v=0; m=$(st tx_skb_len_max)
check "sg off: flow still runs ($m bytes, $v Mbit/s)" "0 < $m <= 1514 and $v > 0"
$A ethtool -K txsim0 sg on tso on >/dev/null

$A ip link set txsim0 mtu 65535; $B ip link set txsim1 mtu 65535
$A ethtool -K txsim0 tso off >/dev/null
reset; v=$(lab_iperf 2 -C cubic -Z) || v=0; m=$(st tx_skb_len_max)
check "mtu 65535 with tso off: frames above 9000 bytes ($m, $v Mbit/s)" "9000 < $m <= 65535 + 14 and $v > 0"
$A ethtool -K txsim0 tso on >/dev/null
$A ip link set txsim0 mtu 1500; $B ip link set txsim1 mtu 1500

# BQL and TSQ keep one TCP flow far from 16 descriptors: fill the ring with UDP, BQL out of the way
Q=/sys/class/net/txsim0/queues/tx-0/byte_queue_limits
lmin=$($A cat $Q/limit_min)
# (and at 10 Mb/s, since the emulated guest cannot send small frames faster than a 1G wire)
$A ethtool -G txsim0 tx 16
$A ethtool -s txsim0 speed 10
$A sh -c "echo 100000000 >$Q/limit_min"
reset; v=$(lab_iperf 2 -u -b 200M -l 1400) || v=0; f=$(st tx_ring_full)
check "tx ring 16: queue stops when full and wakes (tx_ring_full $f, UDP $v Mbit/s)" "$f > 0 and $v > 0"
$A sh -c "echo $lmin >$Q/limit_min"
$A ethtool -s txsim0 speed 1000
$A ethtool -G txsim0 tx 256

$A ethtool --set-priv-flags txsim0 complete-on-next-xmit on
reset; v=$(lab_iperf 2 -C cubic -Z) || v=0; i=$(st tx_completion_irqs)
check "complete-on-next-xmit: flow runs, few completion IRQs ($v Mbit/s, $i IRQs)" "$v > 0"
$A ethtool --set-priv-flags txsim0 complete-on-next-xmit off

$A ethtool -C txsim0 tx-usecs 300 tx-frames 0 cqe-mode-tx on
reset; v=$(lab_iperf 2 -C cubic -Z) || v=0; d=$(st tx_irq_delay_max_ns)
check "cqe-mode-tx: flow runs ($v Mbit/s, max IRQ delay $((d / 1000)) us)" "$v > 0 and $d >= 300000"
$A ethtool -C txsim0 tx-usecs 16 tx-frames 32 cqe-mode-tx off

bql=$($A cat /sys/class/net/txsim0/queues/tx-0/byte_queue_limits/inflight 2>/dev/null)
check "BQL: nothing in flight once idle (inflight ${bql:-?})" "'${bql:-x}' == '0'"

# --- changes under traffic ---
$B iperf3 -s -1 -D -B 198.18.0.2 >/dev/null 2>&1; sleep 0.5
$A iperf3 -c 198.18.0.2 -t 20 -C cubic -Z >/tmp/stress-iperf.log 2>&1 &
ipid=$!
sleep 2
for r in 1 2 3; do
	for n in 64 1024 16 256; do $A ethtool -G txsim0 tx $n rx $((n * 4)); sleep 0.2; done
	for c in "0 1 off" "2000 0 on" "50 64 off" "16 32 off"; do
		set -- $c; $A ethtool -C txsim0 tx-usecs $1 tx-frames $2 cqe-mode-tx $3; sleep 0.2
	done
	for m in 9000 65535 1500; do $A ip link set txsim0 mtu $m; $B ip link set txsim1 mtu $m; sleep 0.2; done
	for p in "orphan-at-xmit on" "complete-on-next-xmit on" "orphan-at-xmit off" "complete-on-next-xmit off"; do
		$A ethtool --set-priv-flags txsim0 $p; sleep 0.2
	done
	$A ethtool -K txsim0 tso off >/dev/null; sleep 0.2; $A ethtool -K txsim0 tso on >/dev/null
	$A ethtool -s txsim0 speed 100; sleep 0.2; $A ethtool -s txsim0 speed 1000
done
wait $ipid
rc=$?
[ $rc -eq 0 ] && ktap_ok "flow survives ring resize, coalescing, MTU, flag and feature changes" ||
	{ ktap_fail "flow survives ring resize, coalescing, MTU, flag and feature changes (iperf3 status $rc)"; tail -5 /tmp/stress-iperf.log | sed 's/^/# /'; }
bad=$(lab_dmesg_bad)
[ -z "$bad" ] && ktap_ok "no WARNING/BUG after changes under traffic" ||
	{ ktap_fail "no WARNING/BUG after changes under traffic"; printf '%s\n' "$bad" | head -20 | sed 's/^/# /'; }

# --- rmmod with traffic in flight (both ends in namespaces, skbs held by slow completions) ---
$A ethtool -C txsim0 tx-usecs 5000 tx-frames 0
$B iperf3 -s -1 -D -B 198.18.0.2 >/dev/null 2>&1; sleep 0.5
$A iperf3 -c 198.18.0.2 -t 30 -C cubic -Z >/tmp/stress-iperf2.log 2>&1 &
ipid=$!
sleep 3
inflight=$($A cat /sys/class/net/txsim0/queues/tx-0/byte_queue_limits/inflight 2>/dev/null)
ktap_diag "rmmod with ${inflight:-?} bytes in flight in the ring"
if timeout 60 rmmod txsim; then ktap_ok "rmmod txsim with traffic in flight"; else ktap_fail "rmmod txsim with traffic in flight"; fi
kill $ipid 2>/dev/null; wait $ipid 2>/dev/null
lab_unsplit
if insmod "$KO" && ip link show txsim0 >/dev/null 2>&1 && ip link show txsim1 >/dev/null 2>&1; then
	ktap_ok "insmod again: txsim0/txsim1 back with defaults"
else
	ktap_fail "insmod again: txsim0/txsim1 back with defaults"
fi
# and once more while idle but up, with coalescing holding skbs
ip link set txsim0 up; ip link set txsim1 up
timeout 60 rmmod txsim && insmod "$KO" && ktap_ok "rmmod/insmod with both ends up" || ktap_fail "rmmod/insmod with both ends up"
sleep 1
bad=$(lab_dmesg_bad)
[ -z "$bad" ] && ktap_ok "no WARNING/BUG/refcount leak after rmmod" ||
	{ ktap_fail "no WARNING/BUG/refcount leak after rmmod"; printf '%s\n' "$bad" | head -20 | sed 's/^/# /'; }
ktap_finish
