#!/bin/bash
# Host tests of ethtune txlat on a veth pair in namespaces of its own: the report runs, labels the
# free as receiver-side, every backend loads, and bad input fails with one clear line.
set -u
cd "$(dirname "$0")/../.."
. tests/lib/ktap.sh
. tests/lib/veth.sh
ETHTUNE=${ETHTUNE:-$PWD/build/ethtune}
A=txlns-a B=txlns-b PORT=5393
ktap_header "txlat on a host veth pair"

cleanup() {
	ip netns pids $B 2>/dev/null | xargs -r kill 2>/dev/null
	ip netns del $A 2>/dev/null
	ip netns del $B 2>/dev/null
}
if [ "$(id -u)" -ne 0 ]; then ktap_skip "txlat host tests" "needs root"; ktap_finish; exit; fi
if [ ! -r /sys/kernel/btf/vmlinux ]; then ktap_skip "txlat host tests" "kernel has no BTF"; ktap_finish; exit; fi
trap cleanup EXIT
cleanup
veth_ns_or_exit "txlat host tests" $A $B txlns0 txlns1 198.18.79.1/30 198.18.79.2/30
ip netns exec $B iperf3 -s -p $PORT >/dev/null 2>&1 &
sleep 0.5
LOAD="iperf3 -c 198.18.79.2 -p $PORT -t 2"
OUT=$(mktemp -d)

# jq-like checks on the JSON report: jcheck FILE PYTHON-EXPR (d is the document).
jcheck() { python3 -c "import json,sys; d=json.load(open(sys.argv[1])); sys.exit(0 if ($2) else 1)" "$1"; }

"$ETHTUNE" --netns $A --json txlat txlns0 --load-cmd "$LOAD" >"$OUT/r.json" 2>"$OUT/r.err"
rc=$?
if [ $rc -eq 0 ] && jcheck "$OUT/r.json" 'd["queues"][0]["xmit"] > 100'; then
	ktap_ok "JSON report with skbs traced under load"
else
	ktap_fail "JSON report with skbs traced under load (status $rc)"; sed 's/^/# /' "$OUT/r.err" "$OUT/r.json" | head -20
fi
if jcheck "$OUT/r.json" 'd["free-is"] == "receiver" and d["kind"] == "veth"'; then
	ktap_ok "veth free labelled receiver-side"
else
	ktap_fail "veth free labelled receiver-side"
fi
if jcheck "$OUT/r.json" 'd["peer-rx"]["count"] >= 0.9 * d["queues"][0]["xmit"] and d["peer-rx"]["p50-us"] > 0'; then
	ktap_ok "veth: every skb timed to the peer's receive"
else
	ktap_fail "veth: every skb timed to the peer's receive"
fi
if jcheck "$OUT/r.json" 'd["queues"][0]["freed"] > 0 and 0 < d["queues"][0]["p50-us"] <= d["queues"][0]["p99-us"] <= d["queues"][0]["max-us"]'; then
	ktap_ok "percentiles ordered (p50 <= p99 <= max)"
else
	ktap_fail "percentiles ordered (p50 <= p99 <= max)"
fi
if jcheck "$OUT/r.json" 'd["tcp"]["owned-at-xmit"] > 0 and d["tcp"]["verdict"] in ("orphaning", "owned")'; then
	ktap_ok "TCP ownership counted"
else
	ktap_fail "TCP ownership counted"
fi
python3 -c "import json,sys; d=json.load(open(sys.argv[1])); q=d['queues'][0]; print('# veth: xmit %d freed %d p50 %.1f us p99 %.1f us; tcp %s' % (q['xmit'], q['freed'], q['p50-us'], q['p99-us'], d['tcp']['verdict']))" "$OUT/r.json" 2>/dev/null
ktap_schema "txlat --json fits docs/schema/txlat.json" txlat "$OUT/r.json"

"$ETHTUNE" --netns $A txlat txlns0 --duration 2 --load-cmd "$LOAD" >"$OUT/t.txt" 2>&1
if grep -q 'receiver-side' "$OUT/t.txt" && grep -q '^  tx-0 ' "$OUT/t.txt"; then
	ktap_ok "text report says receiver-side"
else
	ktap_fail "text report says receiver-side"; sed 's/^/# /' "$OUT/t.txt" | head -20
fi

# software GSO: with TSO off the stack segments before the driver; each segment is a new skb
# that must be timed and still owned by the socket (tcp_wfree copied from the GSO skb)
ip netns exec $A ethtool -K txlns0 tso off gso on >/dev/null 2>&1
"$ETHTUNE" --netns $A --json txlat txlns0 --load-cmd "$LOAD" >"$OUT/g.json" 2>"$OUT/g.err"
ip netns exec $A ethtool -K txlns0 tso on >/dev/null 2>&1
if jcheck "$OUT/g.json" 'd["queues"][0]["bytes"] / d["queues"][0]["xmit"] <= 1514 and d["tcp"]["owned-at-xmit"] >= 0.99 * (d["tcp"]["skbs"] - d["tcp"]["sock-wfree-at-xmit"]) and d["peer-rx"]["count"] >= 0.9 * d["queues"][0]["xmit"]'; then
	ktap_ok "software GSO segments timed one by one, owned by tcp_wfree"
else
	ktap_fail "software GSO segments timed one by one, owned by tcp_wfree"; sed 's/^/# /' "$OUT/g.err" | head -5
fi
python3 -c "import json,sys; d=json.load(open(sys.argv[1])); q=d['queues'][0]; print('# gso: %d skbs of %.0f bytes; tcp owned %d of %d' % (q['xmit'], q['bytes']/q['xmit'], d['tcp']['owned-at-xmit'], d['tcp']['skbs']))" "$OUT/g.json" 2>/dev/null
ktap_schema "txlat --json (software GSO) fits docs/schema/txlat.json" txlat "$OUT/g.json"

# --load runs ethtune's own probe against an "ethtune serve" in the peer namespace
ip netns exec $B "$ETHTUNE" serve --bind 198.18.79.2 --port $((PORT + 1)) >/dev/null 2>&1 &
sleep 0.5
"$ETHTUNE" --netns $A --json txlat txlns0 --load "--peer 198.18.79.2:$((PORT + 1)) --duration 2 --warmup 0" \
	>"$OUT/p.json" 2>"$OUT/p.err"
if jcheck "$OUT/p.json" 'd["load-exit"] == 0 and d["queues"][0]["xmit"] > 100'; then
	ktap_ok "--load runs ethtune probe through the device"
else
	ktap_fail "--load runs ethtune probe through the device"; sed 's/^/# /' "$OUT/p.err" | head -5
fi
ktap_schema "txlat --load --json fits docs/schema/txlat.json" txlat "$OUT/p.json"

# --duty: the programs come and go every period (500 ms here), the xmit hook leaving 50 ms before
# the rest, so that what was timed is still seen received; the windows between measure the cost
"$ETHTUNE" --netns $A --json txlat txlns0 --duty 50 --period 500 \
	--load "--peer 198.18.79.2:$((PORT + 1)) --duration 5 --warmup 0" >"$OUT/d.json" 2>"$OUT/d.err"
if jcheck "$OUT/d.json" 'd["duty"]["pct"] == 50 and d["duty"]["windows"] >= 6 and
	0.3 <= d["duty"]["traced-s"] / d["duty"]["elapsed-s"] <= 0.8 and
	d["peer-rx"]["count"] >= 0.9 * d["queues"][0]["xmit"] > 0 and d["duty"]["pairs"] >= 4 and
	d["duty"]["ratio-lo"] <= d["duty"]["ratio"] <= d["duty"]["ratio-hi"]'; then
	ktap_ok "--duty 50: windows traced, every timed skb seen received, cost measured"
else
	ktap_fail "--duty 50: windows traced, every timed skb seen received, cost measured"
	sed 's/^/# /' "$OUT/d.err" | head -5
fi
python3 -c "import json,sys; d=json.load(open(sys.argv[1]))['duty']; print('# duty 50: %d windows, %.1f of %.1f s traced, TX ratio %.3f [%.3f, %.3f]' % (d['windows'], d['traced-s'], d['elapsed-s'], d['ratio'], d['ratio-lo'], d['ratio-hi']))" "$OUT/d.json" 2>/dev/null
ktap_schema "txlat --duty --json fits docs/schema/txlat.json" txlat "$OUT/d.json"

for b in raw tracepoint; do
	# tracefs may get mounted by the tool: do it in a private mount namespace
	unshare -m "$ETHTUNE" --netns $A --json txlat txlns0 --backend $b --load-cmd "$LOAD" \
		>"$OUT/$b.json" 2>"$OUT/$b.err"
	if jcheck "$OUT/$b.json" "d['backend'] == '$b' and d['queues'][0]['freed'] > 0"; then
		ktap_ok "backend $b traces"
		ktap_schema "backend $b: --json fits docs/schema/txlat.json" txlat "$OUT/$b.json"
	elif grep -q "tracefs" "$OUT/$b.err"; then
		ktap_ok "backend $b: clear tracefs message"; sed 's/^/#   /' "$OUT/$b.err"
	else
		ktap_fail "backend $b traces"; sed 's/^/# /' "$OUT/$b.err" | head -5
	fi
done

# the datagrams flow until txlat is done (30 s at most): a fixed count could end before a slow
# start (ASan: loading and attaching the BPF programs) begins to trace
ip netns exec $A python3 -c 'import socket, time
s = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
end = time.time() + 30
while time.time() < end:
    s.sendto(b"x" * 100, ("127.0.0.1", 9)); time.sleep(0.004)' &
udppid=$!
"$ETHTUNE" --netns $A --json txlat lo --duration 1 >"$OUT/lo.json" 2>"$OUT/lo.err"
kill $udppid; wait $udppid 2>/dev/null
if jcheck "$OUT/lo.json" 'd["free-is"] == "receiver" and d["peer-rx"]["count"] > 0'; then
	ktap_ok "loopback free labelled receiver-side"
else
	ktap_fail "loopback free labelled receiver-side"; sed 's/^/# /' "$OUT/lo.err"
fi
ktap_schema "txlat lo --json fits docs/schema/txlat.json" txlat "$OUT/lo.json"

expect() {	# expect DESC STATUS GREP CMD...: exit status and a stderr line naming the problem
	local d=$1 want=$2 pat=$3 out rc; shift 3
	out=$("$@" 2>&1 >/dev/null); rc=$?
	if [ $rc -eq "$want" ] && printf '%s' "$out" | grep -q -- "$pat" && [ "$(printf '%s\n' "$out" | wc -l)" -eq 1 ]; then
		ktap_ok "$d"; printf '%s\n' "$out" | sed 's/^/#   /'
	else
		ktap_fail "$d (status $rc, want $want)"; printf '%s\n' "$out" | sed 's/^/# /'
	fi
}
expect "unknown device" 1 "txlns-nodev" "$ETHTUNE" --netns $A txlat txlns-nodev --duration 1
expect "device in another namespace" 1 "txlns0" "$ETHTUNE" txlat txlns0 --duration 1
expect "missing device" 2 "missing device" "$ETHTUNE" txlat
expect "bad duration" 2 "duration" "$ETHTUNE" txlat lo --duration -3
expect "unknown backend" 2 "backend" "$ETHTUNE" txlat lo --backend foo
expect "bad duty" 2 "duty" "$ETHTUNE" txlat lo --duty 5
expect "bad period" 2 "period" "$ETHTUNE" txlat lo --duty 50 --period 10
expect "unknown option" 2 "--frobnicate" "$ETHTUNE" txlat lo --frobnicate
if command -v setpriv >/dev/null; then
	expect "no privilege (capabilities dropped)" 1 "root" \
		setpriv --bounding-set -all --inh-caps -all "$ETHTUNE" txlat lo --duration 1
elif command -v capsh >/dev/null; then
	expect "no privilege (capabilities dropped)" 1 "root" \
		capsh --drop=cap_sys_admin,cap_bpf,cap_perfmon -- -c "$ETHTUNE txlat lo --duration 1"
else
	ktap_skip "no privilege" "neither setpriv nor capsh"
fi
if id nobody >/dev/null 2>&1 && command -v setpriv >/dev/null; then
	expect "no privilege (user nobody)" 1 "root" \
		setpriv --reuid nobody --regid nogroup --clear-groups "$ETHTUNE" txlat lo --duration 1
fi
rm -rf "$OUT"
ktap_finish
