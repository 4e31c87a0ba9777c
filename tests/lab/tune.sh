#!/bin/bash
# Lab acceptance of `ethtune tune` and `sweep coalesce`: txsim picks, profile round trip, real drivers.
set -u
ROOT=${ETHTUNE_ROOT:-$(cd "$(dirname "$0")/../.." && pwd)}
. "$ROOT/tests/lib/ktap.sh"
ET=${ETHTUNE:-$ROOT/${O:-build}/ethtune}
. "$ROOT/tests/lab/lib/host.sh"
lab_host_run "$0" "${LAB_TUNE_TIMEOUT:-600}" "tune: txsim recommendations, profile apply/verify, e1000e and virtio sweeps"

# ---- guest ----
. "$ROOT/tests/lab/lib/guest.sh"
T=$(mktemp -d)
export ETHTUNE_STATE_DIR=$T/state
ktap_header "tune in the guest ($(uname -r))"
jq_py() { python3 -c "import json,sys; j=json.load(open('$1')); print($2)"; }
A="ip netns exec $LAB_NS_A"
serve_b() { ip netns exec $LAB_NS_B "$ET" serve --bind 198.18.0.2 >/dev/null 2>&1 & sleep 0.5; }
VALUES=0,64,256,1024,4000
# 100 Mb/s keeps one flow within what an emulated CPU can push, so the wire is the limit.
SPEED=100
# TCP goodput of a full-size segment on the wire: 1448 payload / 1538 bytes.
GOODPUT=$(python3 -c "print($SPEED * 1448 / 1538)")

if ip link show txsim0 >/dev/null 2>&1; then
	for d in txsim0 txsim1; do echo 500 >/sys/class/net/$d/txsim/delay_us; ethtool -s $d speed $SPEED; done
	lab_split txsim0 txsim1 || { ktap_fail "txsim pair in two namespaces"; ktap_finish; exit 1; }
	$A tc qdisc replace dev txsim0 root pfifo_fast
	ip netns exec $LAB_NS_B tc qdisc replace dev txsim1 root pfifo_fast
	serve_b
	before=$($A ethtool -c txsim0)
	$A "$ET" --json tune txsim0 --peer 198.18.0.2 --objective throughput --param tx-usecs \
		--values $VALUES --duration 1 --warmup 0.3 --write-profile "$T/txsim.profile" \
		>"$T/thr.json" 2>"$T/thr.err"
	rc=$?
	jq_py "$T/thr.json" "'\\n'.join('%s %s: %.1f / %.1f Mbit/s, p99 %s us, irq/s %s' % (s['tx-usecs'], 'pareto' if s['pareto'] else '', s['mbps'], s['mbps-constrained'], s.get('rr-p99-us'), s.get('irq-per-s')) for s in j['coalesce-sweep']['points'])" 2>/dev/null | sed 's/^/# /'
	[ $rc -eq 0 ] || sed 's/^/# /' "$T/thr.err"
	pick=$(jq_py "$T/thr.json" "j['recommendation']['value']" 2>/dev/null)
	ktap_diag "throughput objective picked tx-usecs $pick (goodput at line rate $GOODPUT Mbit/s)"
	if python3 -c "
import json,sys; r=json.load(open('$T/thr.json'))['recommendation']
sys.exit(0 if r['mbps'] >= 0.95 * $GOODPUT and r['mbps-constrained'] >= 0.95 * $GOODPUT else 1)" 2>/dev/null; then
		ktap_ok "throughput: tx-usecs $pick reaches 95% of line rate at the default TSQ and at 128 KiB"
	else
		ktap_fail "throughput: tx-usecs $pick reaches 95% of line rate at the default TSQ and at 128 KiB"
	fi
	after=$($A ethtool -c txsim0)
	[ "$before" = "$after" ] && ktap_ok "tune restored txsim0's coalescing" || ktap_fail "tune restored txsim0's coalescing"
	$A "$ET" --json tune txsim0 --peer 198.18.0.2 --objective latency --param tx-usecs \
		--values $VALUES --duration 1 --warmup 0.3 >"$T/lat.json" 2>"$T/lat.err"
	lpick=$(jq_py "$T/lat.json" "j['recommendation']['value']" 2>/dev/null)
	[ "$lpick" = 0 ] && ktap_ok "latency: picks the smallest delay" ||
		{ ktap_fail "latency: picks the smallest delay (got '$lpick')"; sed 's/^/# /' "$T/lat.err"; }
	if [ -s "$T/txsim.profile" ]; then
		sed 's/^/#   /' "$T/txsim.profile"
		ktap_check "the written profile passes the parser" "$ET" profile check "$T/txsim.profile"
		ktap_check "the written profile applies" $A "$ET" profile apply txsim0 "$T/txsim.profile"
		ktap_check "and verifies with no drift" $A "$ET" profile verify txsim0 "$T/txsim.profile"
		ktap_check "restore undoes the profile" "$ET" restore
		after=$($A ethtool -c txsim0)
		[ "$before" = "$after" ] && ktap_ok "txsim0 as before the profile" || ktap_fail "txsim0 as before the profile"
	else
		ktap_fail "tune wrote a profile"
	fi
	lab_unsplit
else
	ktap_skip "txsim tune" "txsim.ko not loaded"
fi

# Real drivers: sweep the first numeric coalesce parameter each one reports, then check restore.
for pair in "ee0 ee1 e1000e" "vn0 vn1 virtio_net"; do
	set -- $pair
	if ! ip link show $1 >/dev/null 2>&1; then ktap_skip "$3 sweep" "no $1"; continue; fi
	lab_split $1 $2 || { ktap_fail "$3 pair in two namespaces"; continue; }
	serve_b
	param=$($A "$ET" --json show $1 | python3 -c "
import json,sys; c=json.load(sys.stdin).get('coalesce', {})
ks=[k for k in ('tx-usecs','rx-usecs','tx-frames','rx-frames') if isinstance(c.get(k), int) and not isinstance(c.get(k), bool)]
print('%s %d' % (ks[0], c[ks[0]]) if ks else '')")
	if [ -z "$param" ]; then ktap_skip "$3 sweep" "$1 reports no numeric coalesce parameter"; lab_unsplit; continue; fi
	set -- $1 $2 $3 $param
	before=$($A ethtool -c $1)
	alt=$([ "$5" = 1 ] && echo 0 || echo 1); [ "$4" = rx-usecs ] && alt=$([ "$5" = 3 ] && echo 50 || echo 3)
	$A "$ET" --json sweep coalesce $1 --peer 198.18.0.2 --param $4 --values $5,$alt --duration 1 \
		--warmup 0.3 >"$T/$3.json" 2>"$T/$3.err"
	rc=$?
	if [ $rc -eq 0 ]; then
		ktap_ok "$3: sweep over $4 $5,$alt ran ($(jq_py "$T/$3.json" "len(j['coalesce-sweep']['points'])") points)"
	elif [ "$(wc -l <"$T/$3.err")" -eq 1 ] && grep -q "kernel" "$T/$3.err"; then
		ktap_ok "$3: the driver refused $4 $alt with the kernel's reason: $(cat "$T/$3.err")"
	else
		ktap_fail "$3: sweep over $4 ran"; sed 's/^/# /' "$T/$3.err"
	fi
	after=$($A ethtool -c $1)
	[ "$before" = "$after" ] && ktap_ok "$3: coalescing restored after the sweep" ||
		{ ktap_fail "$3: coalescing restored after the sweep"; diff <(echo "$before") <(echo "$after") | sed 's/^/# /'; }
	lab_unsplit
done
bad=$(lab_dmesg_bad)
[ -z "$bad" ] && ktap_ok "no WARNING/BUG in dmesg" || { ktap_fail "no WARNING/BUG in dmesg"; printf '%s\n' "$bad" | head -20 | sed 's/^/# /'; }
ktap_finish
