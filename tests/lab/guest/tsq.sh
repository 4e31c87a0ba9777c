#!/bin/bash
# Guest side of txsim_tsq.sh: TSQ ground truth through txsim (cubic, unpaced; pfifo_fast qdisc).
. "$(dirname "$0")/../../lib/ktap.sh"
. "$(dirname "$0")/../lib/guest.sh"
DELAY=${TSQ_DELAY_US:-500}	# one-way wire delay, each direction
SECS=${TSQ_SECS:-4}
REPS=${TSQ_REPS:-2}
BIG=4194304 SMALL=65536
ktap_header "txsim TSQ ground truth: 1000 Mb/s, wire delay ${DELAY} us, cubic (unpaced), iperf3 -Z single flow"
if ! ip link show txsim0 >/dev/null 2>&1; then
	ktap_skip "txsim present" "txsim.ko not loaded"; ktap_finish; exit
fi
for d in txsim0 txsim1; do
	echo "$DELAY" >/sys/class/net/$d/txsim/delay_us
	ethtool -s $d speed 1000
done
lab_split txsim0 txsim1 || { ktap_fail "txsim pair in two namespaces"; ktap_finish; exit; }
A="ip netns exec $LAB_NS_A"
$A tc qdisc replace dev txsim0 root pfifo_fast	# fq would pace the flow; TSQ then ignores the sysctl on 6.1
ip netns exec $LAB_NS_B tc qdisc replace dev txsim1 root pfifo_fast

# measure LABEL USECS LIMIT [PRIVFLAG]: best of $REPS runs, Mbit/s on stdout
measure() {
	local usecs=$2 limit=$3 pf=${4:-} best=0 r v
	$A ethtool -C txsim0 tx-usecs "$usecs" tx-frames 0
	$A ethtool --set-priv-flags txsim0 orphan-at-xmit "$([ "$pf" = orphan ] && echo on || echo off)"
	$A sysctl -qw net.ipv4.tcp_limit_output_bytes="$limit"
	for r in $(seq "$REPS"); do
		v=$(lab_iperf "$SECS" -C cubic -Z) || v=0
		best=$(python3 -c "print(max($best, $v))")
	done
	ktap_diag "$1: tx-usecs $usecs, tcp_limit_output_bytes $limit${pf:+, $pf}: $best Mbit/s (best of $REPS x ${SECS}s)"
	echo "$best"
}
ratio_ok() { python3 -c "import sys; sys.exit(0 if $1 else 1)"; }

c_big=$(measure coalesced 2000 $BIG)
c_small=$(measure coalesced 2000 $SMALL)
n_big=$(measure immediate 0 $BIG)
n_small=$(measure immediate 0 $SMALL)
o_big=$(measure orphan 2000 $BIG orphan)
o_small=$(measure orphan 2000 $SMALL orphan)
ratio_ok "$c_big > 0 and $n_big > 0 and $o_big > 0" && ktap_ok "all flows moved data" || ktap_fail "all flows moved data"
ratio_ok "$c_small <= 0.5 * $c_big" &&
	ktap_ok "tx-usecs 2000: 64 KiB limit loses at least half ($c_small vs $c_big Mbit/s)" ||
	ktap_fail "tx-usecs 2000: 64 KiB limit loses at least half ($c_small vs $c_big Mbit/s)"
ratio_ok "$n_small >= 0.75 * $n_big" &&
	ktap_ok "tx-usecs 0: 64 KiB limit keeps throughput ($n_small vs $n_big Mbit/s)" ||
	ktap_fail "tx-usecs 0: 64 KiB limit keeps throughput ($n_small vs $n_big Mbit/s)"
ratio_ok "$o_small >= 0.75 * $o_big" &&
	ktap_ok "orphan-at-xmit: insensitive to the limit ($o_small vs $o_big Mbit/s)" ||
	ktap_fail "orphan-at-xmit: insensitive to the limit ($o_small vs $o_big Mbit/s)"
$A ethtool -S txsim0 | grep -E 'tx_completion_irqs|tx_compl_lat|tx_irq_delay|tx_skb_len_max' | sed 's/^ */# txsim0 /'
$A ethtool -C txsim0 tx-usecs 16 tx-frames 32
$A ethtool --set-priv-flags txsim0 orphan-at-xmit off
lab_unsplit
bad=$(lab_dmesg_bad)
[ -z "$bad" ] && ktap_ok "no WARNING/BUG in dmesg" || { ktap_fail "no WARNING/BUG in dmesg"; printf '%s\n' "$bad" | head -20 | sed 's/^/# /'; }
ktap_finish
