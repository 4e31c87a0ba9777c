#!/bin/bash
# ethtune validate on a host veth pair: KTAP that parses, what runs passes, software-device SKIPs with their reasons, a failing bound, a dying peer, stop signals and kill -9 restored, bad input.
# jobs: alone (its reconfig and counters checks hold a flow to bounds in time)
set -u
. "$(dirname "$0")/../lib/ktap.sh"
. "$(dirname "$0")/../lib/veth.sh"
E=${ETHTUNE:-build/ethtune}
A=et-vla-$$ B=et-vlb-$$ VA=vla$$ VB=vlb$$ IPA=198.18.12.1 IPB=198.18.12.2
T=$(mktemp -d /tmp/ethtune-val.XXXXXX)
export ETHTUNE_STATE_DIR=$T/state
mkdir -p "$ETHTUNE_STATE_DIR"
SPID=""
cleanup() {
	[ -n "$SPID" ] && kill $SPID 2>/dev/null && wait $SPID 2>/dev/null
	ip netns del $A 2>/dev/null; ip netns del $B 2>/dev/null; rm -rf "$T"
}
trap cleanup EXIT
ktap_header "validate on a veth pair"
veth_ns_or_exit validate $A $B $VA $VB $IPA $IPB 2
serve() {
	ip netns exec $B "$E" serve --bind $IPB >/dev/null 2>&1 &
	SPID=$!
	for i in $(seq 50); do ip netns exec $B ss -Hltn "sport = :12866" | grep -q . && return; sleep 0.1; done
}
serve
V() { ip netns exec $A "$E" "$@"; }
chan() { ip netns exec $A ethtool -l $VA | sed -n '/Current/,$p' | awk '/^RX:|^TX:/ { printf "%s%s ", $1, $2 }'; }
state() { V --json show $VA | python3 -c 'import json,sys; d=json.load(sys.stdin); print(json.dumps({k: d.get(k) for k in ("channels","features","link")}, sort_keys=True))'; }
journal_empty() { [ ! -s "$ETHTUNE_STATE_DIR/journal" ]; }
before=$(state) chan0=$(chan)

# ktap_parse FILE [RESULTS]: a KTAP document (version, plan, one result per test numbered 1..N,
# diagnostics "# "); RESULTS is "name=ok|not ok|skip ..." to hold for the named tests.
ktap_parse() {
	python3 - "$@" <<-'PY'
	import re, sys
	lines = open(sys.argv[1]).read().splitlines()
	assert lines[0] == "KTAP version 1", lines[:1]
	plan = [l for l in lines if re.fullmatch(r"1\.\.\d+", l)]
	assert len(plan) == 1, "one plan line"
	n, res = int(plan[0][3:]), {}
	for l in lines[1:]:
	    if l.startswith("#") or l == plan[0]:
	        continue
	    m = re.fullmatch(r"(ok|not ok) (\d+) ([a-z-]+)( # SKIP (.+))?", l)
	    assert m, "not KTAP: %r" % l
	    assert int(m.group(2)) == len(res) + 1, "numbered in order: %r" % l
	    res[m.group(3)] = ("skip", m.group(5)) if m.group(4) else (m.group(1), "")
	assert len(res) == n, "plan %d, %d results" % (n, len(res))
	for want in sys.argv[2:]:
	    name, r = want.split("=", 1)
	    assert res.get(name, ("absent",))[0] == r, "%s: %s, wanted %s" % (name, res.get(name), r)
	PY
}

# 1. With a peer: what a software device can show runs and passes, the rest SKIPs and says why.
start=$(date +%s.%N)
V validate $VA --peer $IPB >$T/full.ktap 2>$T/full.err; rc=$?
el=$(awk -v a="$start" -v b="$(date +%s.%N)" 'BEGIN { printf "%.1f", b - a }')
sed 's/^/# /' $T/full.ktap
ktap_check "validate with a peer exits 0" test $rc -eq 0
ktap_check "its KTAP parses; round-trip, counters, reconfig, gso and nothing-left pass; the rest SKIP" ktap_parse $T/full.ktap \
	round-trip="ok" counters="ok" reconfig="ok" gso="ok" nothing-left="ok" coalesce=skip tsq=skip ownership=skip bql=skip large-mtu=skip
ktap_check "SKIP reasons name the software device" bash -c "
	grep -q '^ok 2 coalesce # SKIP $VA is a software device (veth, drvdb): no TX completion of its own' $T/full.ktap &&
	grep -q '^ok 3 tsq # SKIP $VA is a software device (veth, drvdb): its skbs leave their socket' $T/full.ktap &&
	grep -q '^ok 4 ownership # SKIP $VA is a software device (veth, drvdb): its skbs are freed by the receiver' $T/full.ktap &&
	grep -q '^ok 5 bql # SKIP $VA is a software device (veth): none of its 2 TX queues has byte_queue_limits' $T/full.ktap &&
	grep -q '^ok 9 large-mtu # SKIP $VA is a software device (veth, drvdb): its skbs leave their socket' $T/full.ktap"
ktap_check "round-trip set veth's rx and tx channels to two values each and put them back" \
	grep -q "^# round-trip: channels rx (was 2): 1 reads 1, 2 reads 2; put back" $T/full.ktap
ktap_check "counters: agreement shown with its numbers and bound" \
	grep -q "^# counters: bound went-backwards 0, min-ratio 0.98, max-ratio" $T/full.ktap
ktap_check "reconfig: channels, MTU and link down/up under the flow, each resumed within its bound" bash -c "
	grep -q '^# reconfig: channels tx back to 2: .* resumed .* (bound ' $T/full.ktap &&
	grep -q '^# reconfig: link mtu 1500 -> 1400: .* resumed ' $T/full.ktap &&
	grep -q '^# reconfig: link up: [0-9.]* s outage, resumed ' $T/full.ktap &&
	grep -q '^# reconfig: bound late-or-stuck 0, carrier-flaps-after 0, tx-timeouts 0' $T/full.ktap"
ktap_diag "validate took $el s on the host veth pair"
ktap_check "channels and state as before, journal empty" bash -c "[ '$(chan)' = '$chan0' ] && [ '$(state)' = '$before' ] && [ ! -s $ETHTUNE_STATE_DIR/journal ]"

# 2. JSON: one document that fits docs/schema/validate.json.
V --json validate $VA --peer $IPB --only round-trip,counters,nothing-left --peer-dev $VB --peer-netns $B --html $T/v.html >$T/v.json 2>$T/v.err
ktap_schema "validate --json fits docs/schema/validate.json" validate $T/v.json
ktap_check "JSON: each check's result, reason, numbers and bound; the peer's RX agrees; the peer's device as before" python3 -c '
import json, sys; d = json.load(open(sys.argv[1])); c = {x["name"]: x for x in d["checks"]}
assert list(c) == ["round-trip", "counters", "nothing-left"], list(c)
m, b = c["counters"]["measured"], c["counters"]["bound"]
assert c["counters"]["result"] == "pass" and b["min-ratio"] <= m["ratio"] <= b["max-ratio"], c["counters"]
assert b["min-peer-ratio"] <= m["peer-ratio"] <= b["max-peer-ratio"], c["counters"]
assert "(and the peer" in c["nothing-left"]["reason"], c["nothing-left"]
assert d["passed"] == 3 and d["failed"] == 0' $T/v.json
ktap_check "validate --html: every check in the page's table, its chart drawn and labelled in Chromium" bash -c \
	"[ \$(grep -c \"<td class='pass'>pass\" $T/v.html) = 3 ] && timeout 120 /usr/bin/python3 tests/lib/html_check.py $T/v.html $T/v.png 1"
ktap_check "--ktap under --json prints KTAP" bash -c "ip netns exec $A '$E' --json validate $VA --only nothing-left --ktap | head -1 | grep -qx 'KTAP version 1'"

# 3. No peer: only the checks that need no traffic run.
V validate $VA >$T/nopeer.ktap 2>&1; rc=$?
ktap_check "without --peer exits 0; traffic checks SKIP with the reason" bash -c "[ $rc -eq 0 ] &&
	[ \$(grep -c '# SKIP no --peer: this check needs traffic' $T/nopeer.ktap) -eq 8 ]"
ktap_check "without --peer round-trip and nothing-left run and pass" ktap_parse $T/nopeer.ktap \
	round-trip="ok" nothing-left="ok" counters=skip

# 4. A check fails: the test-only hook makes the counters' bound impossible (docs/validate.md).
ETHTUNE_TEST_COUNTERS_SLACK=-1 V validate $VA --peer $IPB --only counters,nothing-left >$T/fail.ktap 2>&1; rc=$?
sed 's/^/# /' $T/fail.ktap | grep counters
ktap_check "an impossible counters bound: exit 1, not ok with the measured ratio and the bound" bash -c "[ $rc -eq 1 ] &&
	grep -q '^# counters: FAIL: the device counted [0-9]* TX bytes for [0-9]* bytes TCP sent (ratio' $T/fail.ktap &&
	grep -q '^# counters: bound went-backwards 0, min-ratio 2, max-ratio' $T/fail.ktap"
ktap_check "the failing run's KTAP parses" ktap_parse $T/fail.ktap counters="not ok" nothing-left="ok"

# 5. The peer dies midway: the checks that need it fail with a clear line; the device is restored.
V validate $VA --peer $IPB --skip bql >$T/dead.ktap 2>&1 &
vp=$!
sleep 2; kill $SPID; wait $SPID 2>/dev/null; SPID=""
wait $vp; rc=$?
ktap_check "a peer killed midway: exit 1, counters not ok naming the peer" bash -c "[ $rc -eq 1 ] &&
	grep -q '^# counters: FAIL: the peer $IPB stopped answering' $T/dead.ktap && grep -q '^not ok [0-9] counters' $T/dead.ktap"
ktap_check "after the dead peer nothing-left passes and the journal is empty" bash -c "
	grep -q '^ok [0-9] nothing-left' $T/dead.ktap && [ ! -s $ETHTUNE_STATE_DIR/journal ] && [ '$(chan)' = '$chan0' ]"
serve

# 5b. reconfig leaves a link alone whose down would delete what a user configured, and kill -9
# in the middle of its changes is put back by the next run.
ip -n $A route add 198.18.99.0/24 dev $VA
V validate $VA --peer $IPB --only reconfig >$T/route.ktap 2>&1; rc=$?
ktap_check "a static route on the device: no link down/up, the reason named, the route kept" bash -c "[ $rc -eq 0 ] &&
	grep -q '^# reconfig: link down/up skipped: it would delete 1 routes and 0 IPv6 addresses configured on $VA' $T/route.ktap &&
	! grep -q '^# reconfig: link up' $T/route.ktap &&
	ip -n $A route show 198.18.99.0/24 | grep -q 'dev $VA'"
ip -n $A route del 198.18.99.0/24 dev $VA
link0=$(ip -n $A -o link show $VA | grep -o 'mtu [0-9]*\|state [A-Z]*' | tr '\n' ' ')
bad=""
for at in 1.3 3.6 4.8 6.2; do	# channels, MTU changed; a hold; the link down (on an idle host)
	ip netns exec $A "$E" validate $VA --peer $IPB --only reconfig >/dev/null 2>&1 &
	p=$!
	sleep $at; kill -9 $p 2>/dev/null; wait $p 2>/dev/null
	V restore >/dev/null 2>&1
	now=$(ip -n $A -o link show $VA | grep -o 'mtu [0-9]*\|state [A-Z]*' | tr '\n' ' ')
	[ "$(chan)" = "$chan0" ] && journal_empty && [ "$now" = "$link0" ] || bad="$bad at$at:$(chan)/$now"
done
ktap_check "kill -9 during reconfig: the next restore puts channels, MTU and link back${bad:+ ($bad)}" test -z "$bad"

# 6. Stop signals at random moments (every other one in the first 20 ms, where round-trip makes
# its changes): the channels come back, nothing stays journaled. kill -9: the next ethtune puts it back.
export SIG_ERR=$T/sig.err
bad="" rcs=""
for i in $(seq 12); do
	sig=$([ $((i % 2)) -eq 0 ] && echo INT || echo TERM)
	at=$(python3 -c "import random; print(round(random.uniform(0, 0.02 if $i % 2 else 0.2), 4))")
	rc=$(python3 - "$at" "$sig" ip netns exec $A "$E" validate $VA --only round-trip,nothing-left <<-'PY'
	import os, signal, subprocess, sys, time
	at, sig, cmd = float(sys.argv[1]), getattr(signal, "SIG" + sys.argv[2]), sys.argv[3:]
	p = subprocess.Popen(cmd, stdout=subprocess.DEVNULL, stderr=open(os.environ["SIG_ERR"], "w"))
	time.sleep(at)
	if p.poll() is None:
	    p.send_signal(sig)
	try:
	    rc = p.wait(timeout=20)
	except subprocess.TimeoutExpired:
	    p.kill(); p.wait(); print("hung"); sys.exit(0)
	print(128 - rc if rc < 0 else rc)
	PY
	)
	rcs="$rcs $rc"
	case $rc in 0 | 130 | 143) ;; *) bad="$bad $sig@$at:rc=$rc" ;; esac
	[ "$(chan)" = "$chan0" ] && journal_empty || bad="$bad $sig@$at:left($(chan))"
done
ktap_diag "exit statuses of the signalled runs:$rcs"
ktap_check "12 stop signals at random moments: restored each time${bad:+ ($bad)}" test -z "$bad"
bad=""
for i in $(seq 6); do
	ip netns exec $A "$E" validate $VA --only round-trip >/dev/null 2>&1 &
	p=$!
	sleep "$(python3 -c "import random; print(round(random.uniform(0, 0.03), 4))")"
	kill -9 $p 2>/dev/null; wait $p 2>/dev/null
	V restore >/dev/null 2>&1
	[ "$(chan)" = "$chan0" ] && journal_empty || bad="$bad trial$i:$(chan)"
done
ktap_check "kill -9 at random moments: the next restore puts the channels back${bad:+ ($bad)}" test -z "$bad"

# 7. Bad input: one line, exit 2, nothing changed.
one_line() { local pat=$1 err rc; shift; err=$("$@" 2>&1 >/dev/null); rc=$?
	[ $rc -eq 2 ] && [ "$(printf '%s\n' "$err" | wc -l)" -eq 1 ] && printf '%s\n' "$err" | grep -qF -- "$pat" || { echo "rc=$rc: $err"; return 1; }; echo "# $err"; }
ktap_check "--only with an unknown check lists the valid names" one_line \
	"unknown check 'rings' (valid: round-trip,coalesce,tsq,ownership,bql,counters,reconfig,gso,large-mtu,nothing-left)" V validate $VA --only rings
ktap_check "--skip with an unknown check lists the valid names" one_line "unknown check 'bogus'" V validate $VA --skip tsq,bogus
ktap_check "--only and --skip that leave nothing" one_line "leave no check to run" V validate $VA --only tsq --skip tsq
ktap_check "--budget out of range" one_line "--budget needs seconds (1-3600)" V validate $VA --budget 0
ktap_check "state unchanged by the bad input, journal empty" bash -c "[ '$(state)' = '$before' ] && [ ! -s $ETHTUNE_STATE_DIR/journal ]"
ktap_finish
