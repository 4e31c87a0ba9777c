#!/bin/bash
# `ethtune diagnose` ground truth on txsim: each modelled completion behaviour, once on each kernel.
# kernels: stable sid
# timeout: 3300
set -u
ROOT=${ETHTUNE_ROOT:-$(cd "$(dirname "$0")/../.." && pwd)}
. "$ROOT/tests/lib/ktap.sh"
ET=${ETHTUNE:-$ROOT/${O:-build}/ethtune}
. "$ROOT/tests/lab/lib/host.sh"
lab_host_run "$0" "${LAB_DIAG_TIMEOUT:-1600}" "diagnose: ground-truth matrix on txsim"

# ---- guest ----
. "$ROOT/tests/lab/lib/guest.sh"
# Once a case on each kernel: every verdict is still checked twice a CI run, on 6.1 and on 7.2,
# and the second stable round cost 5 of CI's 60 minutes. LAB_DIAG_REPS=N is the campaign.
DIAG_STABLE_REPS=1
. "$ROOT/tests/lab/lib/diagnose.sh"
ktap_header "diagnose: ground-truth matrix on txsim in the guest ($(uname -r))"
# txsim: 1 Gb/s (sid: prompt cases at MTU 1500 at 500 Mb/s, below), 2.5 ms one-way wire delay (the round trip exceeds every completion delay, so
# ACKs do not overtake completions), completion at the end of serialization, pfifo_fast (on
# 6.1 the TSQ sysctl applies to unpaced flows only). See docs/lab.md for why.
WIRE_US=${LAB_DIAG_WIRE_US:-2500}
# Where the truth is a prompt device (prompt, netem, orphan), the line rate must be one the
# guest's CPUs fill with one flow: 6.1 carries ~930 Mbit/s at 1 Gb/s under TCG, 7.2 only ~550
# (its prompt case lost 40% to the emulated CPU, which no completion setting explains), so on
# sid those cases run at 500 Mb/s. The delay cases stay at 1 Gb/s, where the delay's cost is
# larger than the CPU's (at 500 Mb/s sid's 2 ms case lost 29% and diagnose's model only 5%).
SPEED=${LAB_DIAG_SPEED:-1000}
PROMPT_SPEED=$SPEED
[ "${LAB_KERNEL:-stable}" = sid ] && PROMPT_SPEED=${LAB_DIAG_PROMPT_SPEED:-500}

case_usecs() {	# NAME: the tx-usecs of a delayN[-mtu9000] case
	local d=${1#delay}
	echo "${d%-mtu9000}"
}

txsim_case() {	# NAME: put txsim0 into the case's configuration; a -mtu9000 suffix raises both MTUs
	local A="ip netns exec $LAB_NS_A" B="ip netns exec $LAB_NS_B" base=${1%-mtu9000}
	$A ethtool -C txsim0 tx-usecs 0 tx-frames 0 cqe-mode-tx off
	$A ethtool --set-priv-flags txsim0 orphan-at-xmit off complete-on-next-xmit off
	$A ip link set txsim0 mtu 1500; $B ip link set txsim1 mtu 1500
	$A tc qdisc replace dev txsim0 root pfifo_fast
	case $1 in
	prompt|netem|orphan) $A ethtool -s txsim0 speed "$PROMPT_SPEED"; $B ethtool -s txsim1 speed "$PROMPT_SPEED" ;;
	*) $A ethtool -s txsim0 speed "$SPEED"; $B ethtool -s txsim1 speed "$SPEED" ;;
	esac
	case $base in
	prompt) ;;
	netem) $A tc qdisc replace dev txsim0 root netem delay 2ms limit 100000 ;;
	delay[0-9]*) $A ethtool -C txsim0 tx-usecs "$(case_usecs "$1")" ;;
	orphan) $A ethtool -C txsim0 tx-usecs 2000
		$A ethtool --set-priv-flags txsim0 orphan-at-xmit on ;;
	next-xmit) $A ethtool -C txsim0 tx-usecs 16 tx-frames 32
		$A ethtool --set-priv-flags txsim0 complete-on-next-xmit on ;;
	cqe) $A ethtool -C txsim0 tx-usecs 600 cqe-mode-tx on ;;
	esac
	if [ "$base" != "$1" ]; then
		$A ip link set txsim0 mtu 9000; $B ip link set txsim1 mtu 9000
	fi
}

# The MTU 9000 pair is prompt (at 1 Gb/s, which one flow fills at this MTU) against tx-usecs
# 4000. One flow at MTU 9000 under a 2 ms completion delay runs some rounds near the line rate:
# on 7.2 rounds of 350 and of 930 Mbit/s in one run (3 runs of 7 rounds: 347-945; at 3000 us
# 185-930, at 4000 148-713), so 7 rounds' interval could not always show the loss and diagnose
# said inconclusive (1 of 14 sid runs, one flow 721 [539, 904] against 990): right for its data,
# wrong as a case. 6.1 the same, once the rounds were printed (2026-12-07): 1 of 8 runs
# inconclusive, rounds 794, 970, 975, 358, 721, 359, 898; the other 7 one flow 352-513, their
# rounds 213-974. Prompt at MTU 9000: one flow 966-978 of 981-985 in 3 sid runs, 975-983 in 8 of
# 8 runs on 6.1; tx-usecs 4000 on 6.1: see docs/lab.md.
MTU9000_CASES="prompt-mtu9000 delay4000-mtu9000"
# At MTU 1500 7.2 is wide at 2 ms too, more rarely: CI on 2026-12-07 had delay2000
# inconclusive, one flow 721 [522, 921] against 941 after 7 rounds (4 runs after it: 396-463,
# interval tops 462-579). So sid's shorter delay is 3000 us: 16 of 16 runs delayed-completion,
# one flow 235-453, interval tops 280-672, all below the 847 that a 10% loss needs.
# 6.1 runs 3000 too since 2026-12-07: its 2 ms case's D check is at the emulator's timer
# lateness. The xmit-to-free median is 2000 us plus the guest timer's lateness, 160 us or 290 us
# in every earlier run (txlat's buckets), and one CI run had 2424 [2228, 2490], beyond the 2400
# that 20% allows (its 4000 us cases read 4325 in the same run, as some runs before). At 3000 us
# 20% is 600 us. 6.1 at 3000: 14 of 14 runs delayed-completion, D 3080-3211 (8 with 1 s rounds,
# 6 with 0.5 s, interval tops 215-395 at 0.5 s).
DELAY_CASES="delay3000 delay4000"
# LAB_DIAG_TXSIM_CASES picks cases while developing (empty: none); CI runs them all.
TXSIM_CASES=${LAB_DIAG_TXSIM_CASES-prompt $DELAY_CASES $MTU9000_CASES orphan next-xmit cqe netem}
if [ -z "$TXSIM_CASES" ]; then
	:
elif ip link show txsim0 >/dev/null 2>&1; then
	for d in txsim0 txsim1; do
		echo "$WIRE_US" >/sys/class/net/$d/txsim/delay_us
		echo 0 >/sys/class/net/$d/txsim/fifo_bytes
		ethtool -s $d speed "$SPEED"
	done
	if lab_split txsim0 txsim1; then
		ip netns exec $LAB_NS_A tc qdisc replace dev txsim0 root pfifo_fast
		ip netns exec $LAB_NS_B tc qdisc replace dev txsim1 root pfifo_fast
		serve_b
		# Interleaved: each repetition goes through every case once.
		for r in $(seq "$REPS"); do
			for c in $TXSIM_CASES; do
				txsim_case "$c"
				run "txsim-$c.$r" txsim0 txsim1 || ktap_diag "txsim-$c.$r: diagnose failed"
			done
		done
		txsim_case prompt
		lab_unsplit
		lab_txsim_reload
		for c in $TXSIM_CASES; do
			case $c in
			prompt*) check "txsim-$c" "prompt-completion" ;;
			delay*) check "txsim-$c" "delayed-completion" "$(case_usecs "$c")" ;;
			orphan) check txsim-orphan "orphans-at-xmit" ;;
			next-xmit) check txsim-next-xmit "completion-stalls" ;;
			cqe) check txsim-cqe "delayed-completion" ;;
			# a delay that is not in the driver: netem holds each skb 2 ms, but orphans
			# it on enqueue (skb_orphan_partial), so TSQ does not wait for it and one
			# flow keeps line rate; the driver completes promptly
			netem) check txsim-netem "prompt-completion" ;;
			esac
		done
	else
		ktap_fail "txsim pair in two namespaces"
	fi
else
	ktap_fail "txsim0 exists (txsim.ko loaded)"
fi
check_finding_none driver-linearizes "txsim linearizes nothing unless linearize_frags is set"
diag_finish
