#!/bin/bash
# Ground-truth matrix for `ethtune diagnose`: every case of known behaviour, diagnosed 3 times.
# timeout: 5000
set -u
ROOT=${ETHTUNE_ROOT:-$(cd "$(dirname "$0")/../.." && pwd)}
. "$ROOT/tests/lib/ktap.sh"
ET=${ETHTUNE:-$ROOT/${O:-build}/ethtune}
. "$ROOT/tests/lab/lib/host.sh"
lab_host_run "$0" "${LAB_DIAG_TIMEOUT:-2400}" "diagnose: ground-truth matrix on txsim, e1000e and virtio_net"

# ---- guest ----
. "$ROOT/tests/lab/lib/guest.sh"
export ETHTUNE_STATE_DIR=$(mktemp -d)
T=$(mktemp -d)
ktap_header "diagnose ground truth in the guest ($(uname -r))"
REPS=${LAB_DIAG_REPS:-3}
# txsim: 1 Gb/s, 2.5 ms one-way wire delay (the round trip exceeds every completion delay, so
# ACKs do not overtake completions), completion at the end of serialization, pfifo_fast (on
# 6.1 the TSQ sysctl applies to unpaced flows only). See docs/lab.md for why.
WIRE_US=${LAB_DIAG_WIRE_US:-2500}
jq_py() { python3 -c "import json,sys; j=json.load(open('$1')); print($2)"; }

SERVES=0
serve_b() {	# the peer's server; its log is shown when a run fails
	SERVES=$((SERVES + 1))
	ip netns exec $LAB_NS_B "$ET" serve --bind 198.18.0.2 >/dev/null 2>"$T/serve.$SERVES.log" &
	sleep 0.5
}

# run NAME DEV PEERDEV: one diagnose; JSON in $T/NAME.json; a diagnostic line with the numbers
run() {
	local name=$1 a=$2 b=$3 t0=$(date +%s) rc
	ip netns exec $LAB_NS_A "$ET" --json diagnose "$a" --peer 198.18.0.2 --peer-dev "$b" \
		--peer-netns $LAB_NS_B --duration 1 --warmup 0.3 --budget 30 \
		>"$T/$name.json" 2>"$T/$name.err"
	rc=$?
	if [ $rc -ne 0 ]; then
		sed 's/^/#   /' "$T/$name.err"
		tail -n 3 "$T/serve.$SERVES.log" 2>/dev/null | sed 's/^/#   peer: /'
		return $rc
	fi
	ktap_schema "$name: diagnose --json fits docs/schema/diagnose.json" diagnose "$T/$name.json"
	ktap_diag "$name: $(jq_py "$T/$name.json" "'%s, D %.0f [%.0f, %.0f] us, one flow %.0f [%.0f, %.0f], two %.0f, %d rounds, measured loss %.0f%%, model %.0f%%' % (j['verdict'], j.get('d-us', -1), j.get('d-lo-us', -1), j.get('d-hi-us', -1), j.get('probe', {}).get('one-flow-mbps', -1), j.get('probe', {}).get('one-flow-lo-mbps', -1), j.get('probe', {}).get('one-flow-hi-mbps', -1), j.get('probe', {}).get('two-flows-mbps', -1), j.get('probe', {}).get('rounds', 0), j.get('measured-loss-pct', -1), j.get('model-loss-pct', -1))" 2>&1), $(($(date +%s) - t0)) s"
	jq_py "$T/$name.json" "'\\n'.join(j.get('inconclusive-reason', '').split('\\n'))" 2>/dev/null | grep . | sed 's/^/#   inconclusive: /'
}

# check NAME ALLOWED [DELAY_US | LO-HI]: every repetition's headline is in ALLOWED
# (|-separated); with DELAY_US, D is within 20% of it; with LO-HI, a range the truth is only
# known to lie in, D's 95% interval reaches into it (a wait spread over the range gives a median
# whose interval is as wide as the spread; a prompt device's interval stays far below it)
check() {
	local name=$1 allowed=$2 us=${3:-} r v d dlo dhi lo hi want="" bad="" cond
	case $us in
	*-*) lo=${us%-*} hi=${us#*-} want=", D's interval reaches [$lo, $hi] us" ;;
	?*) lo=$((us * 8 / 10)) hi=$((us * 12 / 10)) want=", D within 20% of $us us" ;;
	esac
	for r in $(seq "$REPS"); do
		v=$(jq_py "$T/$name.$r.json" "j['verdict']" 2>/dev/null)
		case "|$allowed|" in *"|$v|"*) ;; *) bad="$bad run $r: $v;" ;; esac
		if [ -n "$us" ]; then
			d=$(jq_py "$T/$name.$r.json" "j.get('d-us', -1)" 2>/dev/null)
			dlo=$(jq_py "$T/$name.$r.json" "j.get('d-lo-us', -1)" 2>/dev/null)
			dhi=$(jq_py "$T/$name.$r.json" "j.get('d-hi-us', -1)" 2>/dev/null)
			case $us in
			*-*) cond="${dlo:--1} >= 0 and ${dlo:--1} <= $hi and ${dhi:--1} >= $lo" ;;
			*) cond="$lo <= ${d:--1} <= $hi" ;;
			esac
			python3 -c "import sys; sys.exit(0 if $cond else 1)" ||
				bad="$bad run $r: D $d [$dlo, $dhi] us;"
		fi
	done
	[ -z "$bad" ] && ktap_ok "$name: $allowed in $REPS of $REPS runs$want" ||
		ktap_fail "$name: $allowed in $REPS of $REPS runs$want ($bad)"
}

# check_none NAME FORBIDDEN: no repetition's headline is in FORBIDDEN (|-separated)
check_none() {
	local name=$1 forbidden=$2 r v bad=""
	for r in $(seq "$REPS"); do
		v=$(jq_py "$T/$name.$r.json" "j['verdict']" 2>/dev/null)
		case "|$forbidden|" in *"|$v|"*) bad="$bad run $r: $v;" ;; esac
		[ -n "$v" ] || bad="$bad run $r: no verdict;"
	done
	[ -z "$bad" ] && ktap_ok "$name: no completion finding ($forbidden) in $REPS runs" ||
		ktap_fail "$name: no completion finding ($forbidden) in $REPS runs ($bad)"
}

txsim_case() {	# NAME: put txsim0 into the case's configuration
	local A="ip netns exec $LAB_NS_A" B="ip netns exec $LAB_NS_B"
	$A ethtool -C txsim0 tx-usecs 0 tx-frames 0 cqe-mode-tx off
	$A ethtool --set-priv-flags txsim0 orphan-at-xmit off complete-on-next-xmit off
	$A ip link set txsim0 mtu 1500; $B ip link set txsim1 mtu 1500
	$A tc qdisc replace dev txsim0 root pfifo_fast
	case $1 in
	prompt) ;;
	netem) $A tc qdisc replace dev txsim0 root netem delay 2ms limit 100000 ;;
	delay2000) $A ethtool -C txsim0 tx-usecs 2000 ;;
	delay4000) $A ethtool -C txsim0 tx-usecs 4000 ;;
	delay2000-mtu9000|delay4000-mtu9000)
		$A ethtool -C txsim0 tx-usecs ${1:5:4}
		$A ip link set txsim0 mtu 9000; $B ip link set txsim1 mtu 9000 ;;
	orphan) $A ethtool -C txsim0 tx-usecs 2000
		$A ethtool --set-priv-flags txsim0 orphan-at-xmit on ;;
	next-xmit) $A ethtool -C txsim0 tx-usecs 16 tx-frames 32
		$A ethtool --set-priv-flags txsim0 complete-on-next-xmit on ;;
	cqe) $A ethtool -C txsim0 tx-usecs 600 cqe-mode-tx on ;;
	esac
}

# LAB_DIAG_TXSIM_CASES picks cases while developing (empty: none); CI runs them all.
TXSIM_CASES=${LAB_DIAG_TXSIM_CASES-prompt delay2000 delay4000 delay2000-mtu9000 delay4000-mtu9000 orphan next-xmit cqe netem}
if [ -z "$TXSIM_CASES" ]; then
	:
elif ip link show txsim0 >/dev/null 2>&1; then
	for d in txsim0 txsim1; do
		echo "$WIRE_US" >/sys/class/net/$d/txsim/delay_us
		echo 0 >/sys/class/net/$d/txsim/fifo_bytes
		ethtool -s $d speed 1000
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
		for c in $TXSIM_CASES; do
			case $c in
			prompt) check txsim-prompt "prompt-completion" ;;
			delay*) check "txsim-$c" "delayed-completion" "${c:5:4}" ;;
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

wait_peer() {	# until a ping crosses again (a driver may reset its link on a change)
	local i
	for i in $(seq 50); do
		ip netns exec $LAB_NS_A busybox ping -c1 -W1 198.18.0.2 >/dev/null 2>&1 && break
		sleep 0.2
	done
	sleep 1
}
ee_itr() { ip netns exec $LAB_NS_A ethtool -C ee0 rx-usecs "$1"; wait_peer; }

# Real drivers at their defaults and in a deliberately bad setting.
if lab_split ee0 ee1; then
	serve_b
	wait_peer # qemu's e1000e may still reset its link just after it came up
	# the default first: after an ITR change qemu's e1000e takes a while to settle
	for r in $(seq "$REPS"); do
		run "e1000e-default.$r" ee0 ee1 || ktap_diag "e1000e-default.$r: diagnose failed"
	done
	ee_itr 8000
	for r in $(seq "$REPS"); do
		run "e1000e-itr8000.$r" ee0 ee1 || ktap_diag "e1000e-itr8000.$r: diagnose failed"
	done
	ee_itr 3
	lab_unsplit
	check e1000e-default "prompt-completion"
	# rx-usecs 8000 is e1000e's ITR, which gates its TX cleanup: one skb alone waits for the
	# next of interrupts 8 ms apart, a median of 4-5 ms (a quarter to all of the interval). Under bulk load qemu's e1000e is bimodal from run to run: one
	# flow either stays near line rate (the model's 35% cost is not seen: inconclusive, the
	# data cannot decide) or is capped the way the model says (measured 64%, model 64%:
	# delayed-completion). Both are right; prompt-completion never is (D is 4 ms).
	check e1000e-itr8000 "delayed-completion|inconclusive" 2000-8800
else
	ktap_fail "e1000e pair in two namespaces"
fi

vn_mode() {	# tx-frames 0|1 switches napi_tx, which virtio_net takes only with the link down
	local A="ip netns exec $LAB_NS_A"
	$A ip link set vn0 down
	$A ethtool -C vn0 tx-frames "$1"
	$A ip link set vn0 up
	for i in $(seq 50); do
		$A busybox ping -c1 -W1 198.18.0.2 >/dev/null 2>&1 && return 0
		sleep 0.2
	done
}
if lab_split vn0 vn1; then
	serve_b
	for r in $(seq "$REPS"); do
		vn_mode 1
		run "virtio-default.$r" vn0 vn1 || ktap_diag "virtio-default.$r: diagnose failed"
		vn_mode 0
		run "virtio-orphan.$r" vn0 vn1 || ktap_diag "virtio-orphan.$r: diagnose failed"
	done
	vn_mode 1
	lab_unsplit
	# One flow through an emulated virtio_net runs on one vCPU and two flows on both, so one flow
	# may stay measurably below two without any completion cause (cpu-bound, or inconclusive
	# where the sender's CPU does not read as saturated). A completion finding would be wrong.
	check_none virtio-default "delayed-completion|completion-stalls|orphans-at-xmit|software-device"
	check virtio-orphan "orphans-at-xmit"
else
	ktap_fail "virtio_net pair in two namespaces"
fi
bad=$(lab_dmesg_bad)
[ -z "$bad" ] && ktap_ok "no WARNING/BUG in dmesg" || { ktap_fail "no WARNING/BUG in dmesg"; printf '%s\n' "$bad" | head -20 | sed 's/^/# /'; }
ktap_finish
