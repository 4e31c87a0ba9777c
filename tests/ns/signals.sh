#!/bin/bash
# Stop signals (INT, TERM, HUP) at random moments during set, set --for and sweeps: no hang, no half-applied or unjournaled change.
# san: also: the campaign's trials (10 an operation) are the native run's; under ASan 4
set -u
. "$(dirname "$0")/../lib/ktap.sh"
. "$(dirname "$0")/../lib/probe_env.sh"
TRIALS=${SIG_TRIALS:-10}	# SIG_OPS picks operations while developing
export ETHTUNE_STATE_DIR=$(mktemp -d /tmp/ethtune-sig.XXXXXX)
export SIG_ERR=$ETHTUNE_STATE_DIR/err
trap 'pe_cleanup; rm -rf "$ETHTUNE_STATE_DIR"' EXIT
ktap_header "stop signals at random moments: restored, never half-applied"

if [ "$(id -u)" -ne 0 ] || ! pe_setup sig 2>/dev/null; then
	ktap_skip "signal tests" "needs root and network namespaces"; ktap_finish; exit 0
fi
NA=$PE_A NB=$PE_B VA=$PE_VA VB=$PE_VB IPB=$PE_IP_B
pe_serve $PE_B

# Everything these commands can change, read by ip and sysctl rather than by ethtune.
snap() {
	ip -n $NA -d -j link show $VA | python3 -c 'import json,sys; d=json.load(sys.stdin)[0]; print({k:d.get(k) for k in ("mtu","txqlen","gso_max_size")})'
	ip -n $NB -j link show $VB | python3 -c 'import json,sys; print(json.load(sys.stdin)[0]["mtu"])'
	ip netns exec $NA sysctl -n net.ipv4.tcp_limit_output_bytes
}
journal_empty() { [ ! -s "$ETHTUNE_STATE_DIR/journal" ]; }

P="--peer $IPB --duration 0.2 --warmup 0 --quiet --reps 1"
NEW="mtu 1400 txqueuelen 500 gso-max-size 30000"
op_cmd() {
	case $1 in
	set) echo "set $VA $NEW" ;;
	set-for) echo "set $VA $NEW --for 2" ;;
	sweep-tsq) echo "sweep tsq $VA $P --points 3" ;;
	sweep-mtu) echo "sweep mtu $VA $P --peer-dev $VB --peer-netns $NB" ;;
	esac
}

# sig_at AT SIG CMD...: run CMD, send it SIG AT seconds after it starts (to the tenth of a
# millisecond, which the shell's sleep cannot do); prints its exit status, 128 + n for a death
# by signal n, or "hung" when it has not ended 20 s after the signal (it is then killed).
# AT -1: no signal; prints how long the run took.
sig_at() {
	python3 - "$@" <<-'PY'
	import os, signal, subprocess, sys, time
	at, sig, cmd = float(sys.argv[1]), getattr(signal, "SIG" + sys.argv[2]), sys.argv[3:]
	t0 = time.monotonic()
	p = subprocess.Popen(cmd, stdout=subprocess.DEVNULL, stderr=open(os.environ["SIG_ERR"], "w"))
	if at < 0:  # calibration: how long one undisturbed run takes
	    p.wait(); print(round(time.monotonic() - t0, 4)); sys.exit(0)
	time.sleep(at)
	if p.poll() is None:
	    p.send_signal(sig)
	try:
	    rc = p.wait(timeout=20)
	except subprocess.TimeoutExpired:
	    p.kill(); p.wait(); print("hung"); sys.exit(0)
	print(128 - rc if rc < 0 else rc)
	PY
}

orig=$(snap)
"$E" --netns $NA set $VA $NEW >/dev/null 2>&1
changed=$(snap)
"$E" restore >/dev/null 2>&1
sigs=(INT TERM HUP)
for op in ${SIG_OPS:-set set-for sweep-tsq sweep-mtu}; do
	# one undisturbed run: the signals fall anywhere in it
	span=$(sig_at -1 INT ip netns exec $NA "$E" $(op_cmd $op))
	"$E" restore >/dev/null 2>&1
	ok=0 bad="" mid=0
	for i in $(seq "$TRIALS"); do
		sig=${sigs[$((i % 3))]}
		# every other signal falls in the first 20 ms, where the changes are made
		at=$(python3 -c "import random; print(round(random.uniform(0, $span * 1.05 if $i % 2 else min($span, 0.02)), 4))")
		rc=$(sig_at "$at" $sig ip netns exec $NA "$E" $(op_cmd $op))
		if [ "$rc" = hung ]; then
			bad="$bad $i:$sig@${at}s:hung;"
			"$E" restore >/dev/null 2>&1
			continue
		fi
		now=$(snap)
		why=
		# the command either ended first (0) or died of the signal, having undone its
		# temporary changes; never an error from a half-done request
		case $rc in
		0) ;;
		$((128 + $(kill -l $sig)))) mid=$((mid + 1)) ;;
		*) why="exit $rc: $(head -c 200 "$ETHTUNE_STATE_DIR/err")" ;;
		esac
		if [ $op = set ]; then
			# a permanent set is all or nothing, and journaled before it is made: the
			# journal may hold the old values of a change the signal stopped short of
			# (the write-ahead entry of a change not made); restore empties it either way
			[ "$now" = "$changed" ] || [ "$now" = "$orig" ] || why="$why half-applied"
			"$E" restore >/dev/null 2>&1
			[ "$(snap)" = "$orig" ] || why="$why restore did not put it back"
		else
			[ "$now" = "$orig" ] || why="$why not restored"
		fi
		journal_empty || why="$why journal left: $(head -c 120 "$ETHTUNE_STATE_DIR/journal")"
		if [ -z "$why" ]; then
			ok=$((ok + 1))
		else
			bad="$bad $i:$sig@${at}s:$why;"
			"$E" restore >/dev/null 2>&1
		fi
	done
	ktap_diag "$op: one run takes $span s; $mid of $TRIALS died of the signal; $ok exact${bad:+ (not:$bad)}"
	[ $ok -eq "$TRIALS" ] && ktap_ok "$op: a stop signal at a random moment, $ok/$TRIALS exact" ||
		ktap_fail "$op: a stop signal at a random moment, $ok/$TRIALS exact"
done
now=$(snap)
[ "$now" = "$orig" ] && ktap_ok "devices and sysctl as before" || ktap_fail "devices and sysctl as before"
ktap_finish
