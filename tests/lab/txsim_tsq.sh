#!/bin/bash
# Lab ground truth: through txsim, slow TX completions make a single flow TSQ-bound; orphaning hides it.
# kernels: stable sid
#
# Setup (stated so the numbers can be compared): txsim pair at 1000 Mb/s, one-way wire delay
# LAB_TSQ_DELAY_US (1000 us) each way, NIC TX buffer txsim/fifo_bytes 262144 (frames complete once
# DMA'd into it), tx-frames 0 (only the timer moderates), pfifo_fast (no pacing qdisc), one
# iperf3 -Z flow with TCP_CONGESTION=reno (LAB_TSQ_CC; unpaced: on the 6.1 guest the sysctl
# applies to unpaced flows only). Reno rather than cubic: cubic's HyStart ends slow start early
# and a TSQ-throttled flow is not cwnd-limited, so its cwnd and pacing rate stop growing and even
# the 4 MiB point stays capped at max(2 * truesize, pacing_rate >> 10) per completion interval
# (measured 700-780 against 325-375 Mbit/s: a loss of only ~50 %); reno stays in slow start (no
# losses here), so 4 MiB is the unthrottled baseline. Each point is the best of LAB_TSQ_REPS (3)
# runs of LAB_TSQ_SECS (3) seconds, taken in interleaved rounds so that a stretch of host CPU
# contention does not hit one point only.
# A paced flow (root qdisc fq) follows the booted kernel's TSQ rule: before 6.16 paced flows ignore
# tcp_limit_output_bytes (64 KiB costs nothing), since 6.16 (c4221a8cc3a7) it applies to every
# flow (64 KiB loses at least half at tx-usecs 2000, as the unpaced flow does).
set -u
ROOT=${ETHTUNE_ROOT:-$(cd "$(dirname "$0")/../.." && pwd)}
. "$ROOT/tests/lib/ktap.sh"
ET=${ETHTUNE:-$ROOT/${O:-build}/ethtune}
. "$ROOT/tests/lab/lib/host.sh"
lab_host_run "$0" "${LAB_TSQ_TIMEOUT:-420}" "txsim TSQ ground truth"

# ---- guest ----
. "$ROOT/tests/lab/lib/guest.sh"
DELAY=${LAB_TSQ_DELAY_US:-1000}
FIFO=${LAB_TSQ_FIFO_BYTES:-262144}
CC=${LAB_TSQ_CC:-reno}
SECS=${LAB_TSQ_SECS:-3}
REPS=${LAB_TSQ_REPS:-3}
BIG=4194304 SMALL=65536
ktap_header "txsim TSQ: 1000 Mb/s, delay ${DELAY} us, fifo ${FIFO} B, $CC, iperf3 -Z, best of $REPS x ${SECS}s"
if ! ip link show txsim0 >/dev/null 2>&1; then
	ktap_fail "txsim TSQ ground truth: txsim.ko loaded"; ktap_finish; exit 0
fi
for d in txsim0 txsim1; do
	echo "$DELAY" >/sys/class/net/$d/txsim/delay_us
	echo "$FIFO" >/sys/class/net/$d/txsim/fifo_bytes
	ethtool -s $d speed 1000
done
if ! lab_split txsim0 txsim1; then
	ktap_fail "txsim pair in two namespaces"; ktap_finish; exit 1
fi
A="ip netns exec $LAB_NS_A"
$A tc qdisc replace dev txsim0 root pfifo_fast
ip netns exec $LAB_NS_B tc qdisc replace dev txsim1 root pfifo_fast

# one configuration: NAME USECS LIMIT [orphan|fq]
CONFS=("c_big 2000 $BIG" "c_small 2000 $SMALL" "n_big 0 $BIG" "n_small 0 $SMALL"
	"o_big 2000 $BIG orphan" "o_small 2000 $SMALL orphan" "f_big 2000 $BIG fq"
	"f_small 2000 $SMALL fq")
declare -A BEST LAT
run_conf() {	# run_conf NAME USECS LIMIT [orphan|fq]: one iperf3 run, keeps the best
	local name=$1 usecs=$2 limit=$3 pf=${4:-} v
	$A tc qdisc replace dev txsim0 root "$([ "$pf" = fq ] && echo fq || echo pfifo_fast)"
	$A ethtool -C txsim0 tx-usecs "$usecs" tx-frames 0
	$A ethtool --set-priv-flags txsim0 orphan-at-xmit "$([ "$pf" = orphan ] && echo on || echo off)"
	$A sysctl -qw net.ipv4.tcp_limit_output_bytes="$limit"
	$A sh -c 'echo 1 >/sys/class/net/txsim0/txsim/stats_reset'
	v=$(lab_iperf "$SECS" -C "$CC" -Z) || v=0
	if awk "BEGIN { exit !($v > ${BEST[$name]:-0}) }"; then
		BEST[$name]=$v
		LAT[$name]=$($A ethtool -S txsim0 | awk '/ tx_skbs:/{n=$2} /tx_compl_lat_sum_ns:/{s=$2}
			END{if (n) printf "%.0f", s / n / 1000; else print "-"}')
	fi
	BEST[$name]=${BEST[$name]:-0}
}
for r in $(seq "$REPS"); do
	for c in "${CONFS[@]}"; do run_conf $c; done
done
for c in "${CONFS[@]}"; do
	set -- $c
	case ${4:-} in orphan) m=", orphan-at-xmit" ;; fq) m=", root fq (paced)" ;; *) m="" ;; esac
	ktap_diag "$1: tx-usecs $2, tcp_limit_output_bytes $3$m: ${BEST[$1]} Mbit/s (mean xmit-to-free ${LAT[$1]:--} us)"
done
c_big=${BEST[c_big]} c_small=${BEST[c_small]} n_big=${BEST[n_big]} n_small=${BEST[n_small]}
o_big=${BEST[o_big]} o_small=${BEST[o_small]} f_big=${BEST[f_big]} f_small=${BEST[f_small]}
check() {	# check DESC PYTHON-EXPR
	if python3 -c "import sys; sys.exit(0 if $2 else 1)"; then ktap_ok "$1"; else ktap_fail "$1"; fi
}
check "every flow moved data" \
	"min($c_big, $c_small, $n_big, $n_small, $o_big, $o_small, $f_big, $f_small) > 0"
check "tx-usecs 2000: 64 KiB TSQ limit loses at least half ($c_small vs $c_big Mbit/s)" \
	"$c_small <= 0.5 * $c_big"
check "tx-usecs 0: 64 KiB TSQ limit keeps throughput ($n_small vs $n_big Mbit/s, >= 75%)" \
	"$n_small >= 0.75 * $n_big"
check "orphan-at-xmit, tx-usecs 2000: insensitive to the limit ($o_small vs $o_big Mbit/s, >= 75%)" \
	"$o_small >= 0.75 * $o_big"
check "orphan-at-xmit beats normal completion at 64 KiB ($o_small vs $c_small Mbit/s)" \
	"$o_small > $c_small"
if [ "$(uname -r | awk -F'[.-]' '{print $1 * 1000 + $2}')" -ge 6016 ]; then
	check "paced (fq), tx-usecs 2000: since 6.16 the 64 KiB limit applies, loses at least half ($f_small vs $f_big Mbit/s)" \
		"$f_small <= 0.5 * $f_big"
else
	check "paced (fq), tx-usecs 2000: before 6.16 the 64 KiB limit is ignored ($f_small vs $f_big Mbit/s, >= 75%)" \
		"$f_small >= 0.75 * $f_big"
fi

# restore what we changed (the namespaces and their sysctls go away with lab_unsplit)
$A ethtool -C txsim0 tx-usecs 16 tx-frames 32
$A ethtool --set-priv-flags txsim0 orphan-at-xmit off
$A tc qdisc replace dev txsim0 root pfifo_fast
lab_unsplit
for d in txsim0 txsim1; do
	echo 100 >/sys/class/net/$d/txsim/delay_us
	echo 0 >/sys/class/net/$d/txsim/fifo_bytes
done
bad=$(lab_dmesg_bad)
if [ -z "$bad" ]; then ktap_ok "no WARNING/BUG in the guest's dmesg"; else
	ktap_fail "no WARNING/BUG in the guest's dmesg"; printf '%s\n' "$bad" | head -20 | sed 's/^/# /'; fi
ktap_finish
