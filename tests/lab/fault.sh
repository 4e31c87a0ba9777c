#!/bin/bash
# Fault campaign on txsim: kill -9 at a random moment during set, sweep tsq, sweep coalesce, tune
# and profile apply; after `ethtune restore` (or the next run) every setting is as it was.
# CI runs LAB_FAULT_TRIALS=10 per operation; a campaign (100 each) is run by hand.
# timeout: 3600
set -u
ROOT=${ETHTUNE_ROOT:-$(cd "$(dirname "$0")/../.." && pwd)}
. "$ROOT/tests/lib/ktap.sh"
ET=${ETHTUNE:-$ROOT/${O:-build}/ethtune}
. "$ROOT/tests/lab/lib/host.sh"
lab_host_run "$0" "${LAB_FAULT_TIMEOUT:-3300}" "fault campaign: kill -9 mid-change on txsim"

# ---- guest ----
. "$ROOT/tests/lab/lib/guest.sh"
T=$(mktemp -d)
export ETHTUNE_STATE_DIR=$T/state
TRIALS=${LAB_FAULT_TRIALS:-10}
ktap_header "fault campaign in the guest ($(uname -r)), $TRIALS trials per operation"
A="ip netns exec $LAB_NS_A"
P="--peer 198.18.0.2 --duration 0.2 --warmup 0 --quiet"
lab_split txsim0 txsim1 || { ktap_fail "txsim pair in two namespaces"; ktap_finish; exit 1; }
ip netns exec $LAB_NS_B "$ET" serve --bind 198.18.0.2 >/dev/null 2>"$T/serve.log" &
sleep 0.5

# What must come back, read by ethtool, ip and sysctl rather than by ethtune itself (in one
# entry into the namespace: under TCG each costs the guest a process start).
snap() {
	$A sh -c 'ethtool -c txsim0; ethtool -g txsim0; ethtool -l txsim0 2>/dev/null
		ethtool -k txsim0 | grep -v fixed
		ip -d link show txsim0 | grep -o "mtu [0-9]*\|qlen [0-9]*\|gso_max_[a-z]* [0-9]*"
		sysctl -n net.ipv4.tcp_limit_output_bytes
		tc qdisc show dev txsim0 | cut -d" " -f1-5'
}

op_cmd() {	# op_cmd OP TRIAL: the command line of one trial
	case $1 in
	set)
		case $(($2 % 5)) in
		0) echo "set txsim0 coalesce tx-usecs $((RANDOM % 4000))" ;;
		1) echo "set txsim0 ring tx $((64 << (RANDOM % 4)))" ;;
		2) echo "set txsim0 mtu $((1280 + RANDOM % 8000))" ;;
		3) echo "set txsim0 feature tso off" ;;
		4) echo "set txsim0 gso-max-size $((16384 + RANDOM % 49152))" ;;
		esac ;;
	sweep-tsq) echo "sweep tsq txsim0 $P --points 4 --reps 1" ;;
	sweep-coalesce) echo "sweep coalesce txsim0 $P --param tx-usecs --values 0,500,2000 --reps 1" ;;
	tune) echo "tune txsim0 $P --objective throughput --param tx-usecs --values 0,500 --reps 1" ;;
	profile) echo "profile apply txsim0 txsim" ;;
	esac
}

orig=$(snap)
mid=0
for op in set sweep-tsq sweep-coalesce tune profile; do
	# how long one undisturbed run takes: the kills fall anywhere in it
	t0=$(date +%s.%N)
	$A "$ET" $(op_cmd $op 0) >/dev/null 2>"$T/cal.err"
	span=$(awk -v t="$(date +%s.%N)" -v t0="$t0" \
		'BEGIN { d = t - t0; printf "%.2f\n", (d > 0.05 ? d : 0.05) }')
	$A "$ET" restore >/dev/null 2>&1
	case $span in
	[0-9]*.[0-9][0-9]) ;;
	*) ktap_fail "$op: one undisturbed run timed (got '$span')"; continue ;;
	esac
	ok=0 bad="" dirty=0
	for i in $(seq "$TRIALS"); do
		# uniform in [0, span] (awk, not python3: a python3 start costs the guest 0.4 s)
		at=$(awk -v r=$RANDOM -v s="$span" 'BEGIN { printf "%.3f\n", r / 32767 * s }')
		setsid $A "$ET" $(op_cmd $op $i) >/dev/null 2>&1 &
		pid=$!
		sleep "$at"
		kill -9 -- -$pid 2>/dev/null || kill -9 $pid 2>/dev/null
		wait $pid 2>/dev/null
		# a kill that left journal entries behind came mid-change (the case under test)
		[ -s "$ETHTUNE_STATE_DIR/journal" ] && dirty=$((dirty + 1))
		# permanent changes come back with restore; temporary ones also with the next run
		if [ $op = set ] || [ $op = profile ] || [ $((i % 2)) = 0 ]; then
			$A "$ET" restore >/dev/null 2>"$T/restore.err"
		else
			$A "$ET" show txsim0 >/dev/null 2>"$T/restore.err"
		fi
		if [ "$(snap)" = "$orig" ]; then
			ok=$((ok + 1))
		else
			bad="$bad $i@${at}s"
			diff <(echo "$orig") <(snap) | head -5 | sed 's/^/#   /'
			$A "$ET" restore >/dev/null 2>&1
		fi
	done
	ktap_diag "$op: one run takes $span s; $dirty of $TRIALS kills left a journal; $ok restored exactly${bad:+ (not:$bad)}"
	mid=$((mid + dirty))
	[ $ok -eq "$TRIALS" ] && ktap_ok "$op: kill -9 at a random moment, restored $ok/$TRIALS" ||
		ktap_fail "$op: kill -9 at a random moment, restored $ok/$TRIALS"
done
# the campaign tests something only where kills came mid-change (CI: 33 to 37 of 50)
[ $mid -gt 0 ] && ktap_ok "kills came mid-change: $mid of $((5 * TRIALS)) left a journal" ||
	ktap_fail "kills came mid-change: $mid of $((5 * TRIALS)) left a journal"
lab_unsplit
ktap_finish
