#!/bin/bash
# Lab ground truth for `ethtune diagnose`: txsim with known completion behaviour, e1000e, virtio.
set -u
ROOT=${ETHTUNE_ROOT:-$(cd "$(dirname "$0")/../.." && pwd)}
. "$ROOT/tests/lib/ktap.sh"
ET=${ETHTUNE:-$ROOT/${O:-build}/ethtune}
. "$ROOT/tests/lab/lib/host.sh"
lab_host_run "$0" "${LAB_DIAG_TIMEOUT:-780}" "diagnose: verdicts against txsim, e1000e and virtio_net"

# ---- guest ----
. "$ROOT/tests/lab/lib/guest.sh"
T=$(mktemp -d)
ktap_header "diagnose in the guest ($(uname -r))"
DELAY=${DIAG_DELAY_US:-1000}	# one-way wire delay: RTT above the largest completion delay
jq_py() { python3 -c "import json,sys; j=json.load(open('$1')); print($2)"; }

serve_b() {	# one server in lab-b for all diagnose runs of a split
	ip netns exec $LAB_NS_B "$ET" serve --bind 198.18.0.2 >/dev/null 2>&1 &
	sleep 0.5
}
# diag NAME A B [ARGS]: diagnose on A (lab-a), peer B (lab-b); JSON in $T/NAME.json
diag() {
	local name=$1 a=$2 b=$3; shift 3
	local t0=$(date +%s)
	ip netns exec $LAB_NS_A "$ET" --json diagnose "$a" --peer 198.18.0.2 --peer-dev "$b" \
		--peer-netns $LAB_NS_B --points 6 --duration 1 --warmup 0.3 "$@" \
		>"$T/$name.json" 2>"$T/$name.err"
	local rc=$?
	ktap_diag "$name: verdict $(jq_py "$T/$name.json" "j.get('verdict')" 2>/dev/null), D txlat $(jq_py "$T/$name.json" "round(j.get('D-txlat-us', -1))" 2>/dev/null) us, D fit $(jq_py "$T/$name.json" "round(j.get('D-fit-us', -1))" 2>/dev/null) us, D sweep $(jq_py "$T/$name.json" "round(j['tsq-sweep']['residence'].get('D-us', -1))" 2>/dev/null) us, $(($(date +%s) - t0)) s"
	jq_py "$T/$name.json" "'\\n'.join(j.get('evidence', []) + j.get('remedy', []))" 2>/dev/null | sed 's/^/#   /'
	[ $rc -eq 0 ] || sed 's/^/#   /' "$T/$name.err"
	return $rc
}
verdict_is() { [ "$(jq_py "$T/$1.json" "j['verdict']" 2>/dev/null)" = "$2" ]; }
dtx() { jq_py "$T/$1.json" "j.get('D-txlat-us', -1)" 2>/dev/null; }

if ip link show txsim0 >/dev/null 2>&1; then
	for d in txsim0 txsim1; do echo "$DELAY" >/sys/class/net/$d/txsim/delay_us; ethtool -s $d speed 1000; done
	lab_split txsim0 txsim1 || { ktap_fail "txsim pair in two namespaces"; ktap_finish; exit 1; }
	A="ip netns exec $LAB_NS_A"
	$A tc qdisc replace dev txsim0 root pfifo_fast	# unpaced: on 6.1 TSQ ignores paced flows
	ip netns exec $LAB_NS_B tc qdisc replace dev txsim1 root pfifo_fast
	serve_b
	for us in 0 500 2000; do
		$A ethtool -C txsim0 tx-usecs $us tx-frames 0
		diag "txsim-$us" txsim0 txsim1 || ktap_fail "txsim tx-usecs $us: diagnose ran"
	done
	# D at tx-usecs 0 (measured under request/response, so no ring queueing): what this guest's
	# emulated timers add to every completion. Checks subtract it; one that cannot stand out
	# from it is skipped, with the numbers.
	base=$(dtx txsim-0)
	ktap_diag "baseline completion delay of this guest (tx-usecs 0): $base us"
	lt() { python3 -c "import sys; sys.exit(0 if 0 <= $1 < $2 else 1)"; }
	# diagnose subtracts the timer wake-up floor it measures itself; prompt is only reachable
	# where what remains of this guest's delay is below its 100 us threshold.
	floor=$(jq_py "$T/txsim-0.json" "j.get('timer-floor-us', 0)")
	ktap_diag "timer wake-up floor measured by diagnose: $floor us"
	if lt "$(python3 -c "print(max(0, $base - $floor))")" 100; then
		verdict_is txsim-0 prompt-completion && ktap_ok "txsim tx-usecs 0: prompt-completion" ||
			ktap_fail "txsim tx-usecs 0: prompt-completion"
	else
		ktap_skip "txsim tx-usecs 0: prompt-completion" "this guest adds $base us to every completion, $floor us of it timer floor; prompt is not reachable here"
	fi
	for us in 500 2000; do
		# the sweep's own D (time a byte waits below TCP for its free) against txlat's
		cc=$(jq_py "$T/txsim-$us.json" "'%s %.0f' % (j.get('D-crosscheck'), j['tsq-sweep']['residence'].get('D-us', -1))" 2>/dev/null)
		[ "${cc% *}" = agree ] && ktap_ok "txsim tx-usecs $us: sweep-measured D ${cc#* } us agrees with txlat's" ||
			ktap_fail "txsim tx-usecs $us: sweep-measured D agrees with txlat's (got '$cc')"
		if lt "$base" $((us / 2)); then
			verdict_is "txsim-$us" delayed-completion && ktap_ok "txsim tx-usecs $us: delayed-completion" ||
				ktap_fail "txsim tx-usecs $us: delayed-completion"
		else
			ktap_skip "txsim tx-usecs $us: delayed-completion" "this guest adds $base us to every completion, not small against $us us"
		fi
		d=$(dtx txsim-$us)
		if lt "$base" $us; then
			python3 -c "import sys; sys.exit(0 if abs(($d - $base) - $us) <= 0.2 * $us else 1)" &&
				ktap_ok "txsim tx-usecs $us: D $d us is $us us over the baseline within 20%" ||
				ktap_fail "txsim tx-usecs $us: D $d us is $us us over the baseline within 20%"
		else
			ktap_skip "txsim tx-usecs $us: D within 20%" "this guest adds $base us to every completion, more than $us us (measured D $d us)"
		fi
	done
	$A ethtool -C txsim0 tx-usecs 500 tx-frames 0
	$A ethtool --set-priv-flags txsim0 orphan-at-xmit on
	diag txsim-orphan txsim0 txsim1 && verdict_is txsim-orphan orphans-at-xmit &&
		ktap_ok "txsim orphan-at-xmit: orphans-at-xmit" || ktap_fail "txsim orphan-at-xmit: orphans-at-xmit"
	$A ethtool --set-priv-flags txsim0 orphan-at-xmit off
	$A ethtool --set-priv-flags txsim0 complete-on-next-xmit on
	$A ip link set txsim0 mtu 32000; ip netns exec $LAB_NS_B ip link set txsim1 mtu 32000
	if diag txsim-nextxmit txsim0 txsim1 --mtu-sweep; then
		v=$(jq_py "$T/txsim-nextxmit.json" "j['verdict']")
		if lt "$base" 500; then
			case $v in completion-stalls|large-mtu-collapse) ktap_ok "txsim complete-on-next-xmit at mtu 32000: $v" ;;
			*) ktap_fail "txsim complete-on-next-xmit at mtu 32000: stall or large-MTU verdict (got $v)" ;; esac
		else
			ktap_skip "txsim complete-on-next-xmit at mtu 32000: stall or large-MTU verdict" "got $v; this guest adds $base us to every completion"
		fi
		# Two flows can only recover what one flow lost. On 6.1 one flow does not fall to the
		# seed's few Mbit/s (its own ACK-clocked and loss-probe transmits free its skbs), but
		# it stays well under line rate; a second flow's transmits free the first's skbs (1.4x: two
		# flows in 1 s runs of an emulated CPU are noisy).
		read -r one two <<<"$(jq_py "$T/txsim-nextxmit.json" "'%.0f %.0f' % (j['probe']['one-flow-mbps'], j['probe']['two-flows-mbps'])")"
		if lt "$one" 750; then
			lt "$((7 * one / 5))" "$two" && ktap_ok "complete-on-next-xmit: two flows recover ($one -> $two Mbit/s of 1000)" ||
				ktap_fail "complete-on-next-xmit: two flows recover ($one -> $two Mbit/s of 1000)"
		else
			ktap_skip "complete-on-next-xmit: two flows recover" "one flow did not lose throughput here ($one Mbit/s, two flows $two)"
		fi
	else
		ktap_fail "txsim complete-on-next-xmit: diagnose ran"
	fi
	$A ethtool --set-priv-flags txsim0 complete-on-next-xmit off
	lab_unsplit
else
	ktap_skip "txsim verdicts" "txsim.ko not loaded"
fi

for pair in "ee0 ee1 e1000e" "vn0 vn1 virtio_net"; do
	set -- $pair
	if ! ip link show $1 >/dev/null 2>&1; then ktap_skip "$3 verdict" "no $1"; continue; fi
	lab_split $1 $2 || { ktap_fail "$3 pair in two namespaces"; continue; }
	serve_b
	if diag "$3" $1 $2 && jq_py "$T/$3.json" "j['verdict'] and len(j['evidence']) > 0" | grep -q True; then
		ktap_ok "$3 gets a verdict with evidence ($(jq_py "$T/$3.json" "j['verdict']"))"
	else
		ktap_fail "$3 gets a verdict with evidence"
	fi
	lab_unsplit
done
bad=$(lab_dmesg_bad)
[ -z "$bad" ] && ktap_ok "no WARNING/BUG in dmesg" || { ktap_fail "no WARNING/BUG in dmesg"; printf '%s\n' "$bad" | head -20 | sed 's/^/# /'; }
ktap_finish
