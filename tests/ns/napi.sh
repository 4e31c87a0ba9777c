#!/bin/bash
# netdev NAPI/queue view and napi/bql set on a GRO veth and an ifb in a namespace we create.
set -u
ROOT=$(cd "$(dirname "$0")/../.." && pwd)
. "$ROOT/tests/lib/ktap.sh"
E=${ETHTUNE:-$ROOT/build/ethtune}
NS=et-napi-$$ VA=na$$ VB=nb$$ IFB=nq$$
export ETHTUNE_STATE_DIR=$(mktemp -d /tmp/ethtune-napi.XXXXXX)
T=$ETHTUNE_STATE_DIR
cleanup() {
	[ -n "${HOLD:-}" ] && kill -9 "$HOLD" 2>/dev/null
	ip netns del $NS 2>/dev/null
	rm -rf "$T"
}
trap cleanup EXIT
ktap_header "napi: show and set NAPI parameters and BQL, restore, kill -9, bad input"

if [ "$(id -u)" -ne 0 ] || ! ip netns add $NS 2>/dev/null; then
	ktap_skip "napi tests" "needs root and network namespaces"; ktap_finish; exit 0
fi
ip -n $NS link add $VA numtxqueues 2 numrxqueues 2 type veth peer name $VB numtxqueues 2 \
	numrxqueues 2
ip -n $NS link set $VA up; ip -n $NS link set $VB up
ip netns exec $NS ethtool -K $VA gro on >/dev/null 2>&1
ip netns exec $NS ethtool -K $VB gro on >/dev/null 2>&1
SYS=/sys/class/net/$VA
in_ns() { ip netns exec $NS "$@"; }
et() { "$E" --netns $NS "$@"; }

# NAPI parameters of every NAPI of $VA as JSON lines sorted by id, and the sysfs defaults
snap() {
	et --json show $VA | python3 -c '
import json, sys
d = json.load(sys.stdin)
keys = ("defer-hard-irqs", "gro-flush-timeout", "irq-suspend-timeout", "threaded")
for n in sorted(d.get("napi", []), key=lambda n: n["napi-id"]):
    print(n["napi-id"], *[n.get(k) for k in keys])
print("sysfs", *[d.get("napi-sysfs", {}).get(k) for k in keys])'
}

et --json show $VA >$T/show.json 2>$T/err || { ktap_fail "show $VA"; cat $T/err; }
nnapi=$(python3 -c 'import json,sys; print(len(json.load(open(sys.argv[1])).get("napi", [])))' \
	$T/show.json)
ktap_schema "show $VA --json fits docs/schema/show.json" show $T/show.json
ntx=$(in_ns sh -c "ls -d $SYS/queues/tx-*" | wc -l)
ktap_check "show lists every TX queue sysfs has ($ntx)" python3 -c '
import json, sys
q = [t["queue"] for t in json.load(open(sys.argv[1]))["tx-queues"]]
assert q == list(range(int(sys.argv[2]))), q' $T/show.json $ntx

if [ "$nnapi" -eq 0 ]; then
	ktap_skip "NAPI view and napi set" "$VA has no NAPI with GRO on on this kernel"
	ktap_finish; exit $?
fi
ktap_ok "GRO veth has $nnapi NAPI(s)"
linked=$(python3 -c 'import json,sys; print(sum("napi-id" in t for t in
	json.load(open(sys.argv[1]))["tx-queues"]))' $T/show.json)
if [ "$linked" -gt 0 ]; then
	ktap_check "each TX queue's NAPI is one of the device's" python3 -c '
import json, sys
d = json.load(open(sys.argv[1])); ids = {n["napi-id"] for n in d["napi"]}
assert all(t["napi-id"] in ids for t in d["tx-queues"] if "napi-id" in t)' $T/show.json
else
	ktap_skip "each TX queue's NAPI is one of the device's" "veth links no NAPI to its TX queues"
	ktap_check "a TX queue without NAPI: n/a in text, no failure" bash -c \
		"'$E' --netns $NS show $VA | grep -q '^  tx-0: napi n/a'"
fi

# sysfs and show agree: the device's sysfs defaults, and every NAPI after a sysfs write
agree() { # agree DEFER GRO THREADED(0|1)
	in_ns sh -c "echo $1 >$SYS/napi_defer_hard_irqs; echo $2 >$SYS/gro_flush_timeout;
		echo $3 >$SYS/threaded" || return 1
	et --json show $VA | python3 -c '
import json, sys
d = json.load(sys.stdin); defer, gro, thr = int(sys.argv[1]), int(sys.argv[2]), sys.argv[3]
s = d["napi-sysfs"]
assert (s["defer-hard-irqs"], s["gro-flush-timeout"], s["threaded"]) == (defer, gro, thr), s
for n in d["napi"]:
    assert (n["defer-hard-irqs"], n["gro-flush-timeout"], n["threaded"]) == (defer, gro, thr), n
    # a threaded NAPI has its poll thread
    assert ("pid" in n) == (thr == "on"), n' $1 $2 "$([ $3 = 1 ] && echo on || echo off)"
}
before=$(snap)
ktap_check "show agrees with sysfs (defer 3, gro-flush-timeout 20000, threaded)" agree 3 20000 1
ktap_check "show agrees with sysfs (all back to 0)" agree 0 0 0
pid_ok() { # every pid show reports is a kernel thread named after the NAPI
	et --json show $VA | python3 -c '
import json, sys
for n in json.load(sys.stdin)["napi"]:
    if "pid" in n:
        c = open("/proc/%d/comm" % n["pid"]).read().strip()
        assert c == "napi/%s-%d" % (sys.argv[1], n["napi-id"]), c' $VA
}

# set napi all, then restore
SET="defer-hard-irqs 5 gro-flush-timeout 40000 irq-suspend-timeout 2000000 threaded on"
ktap_check "set napi all $SET" et set $VA napi all $SET
all_set() {
	et --json show $VA | python3 -c '
import json, sys
keys = ("defer-hard-irqs", "gro-flush-timeout", "irq-suspend-timeout", "threaded")
for n in json.load(sys.stdin)["napi"]:
    assert tuple(n[k] for k in keys) == (5, 40000, 2000000, "on"), n
    assert "pid" in n, n
    # the CPU the thread last ran on is one the machine has
    assert 0 <= n["thread-cpu"] < int(sys.argv[1]), n' $(nproc --all)
}
ktap_check "every NAPI reads back the values, with a poll thread and its CPU" all_set
ktap_check "the pid show reports is the NAPI's thread" pid_ok
ktap_check "restore --list has one entry per NAPI and key" bash -c \
	"[ \$('$E' restore --list | grep -c ' napi ') -eq $((nnapi * 4)) ]"
ktap_check "restore" et restore $VA
after=$(snap)
[ "$before" = "$after" ] && ktap_ok "napi set + restore: every NAPI as before" ||
	{
		ktap_fail "napi set + restore: every NAPI as before"
		diff <(echo "$before") <(echo "$after") | sed 's/^/# /'
	}

# one NAPI
first=$(echo "$before" | head -1 | cut -d' ' -f1)
ktap_check "set napi $first defer-hard-irqs 9" et set $VA napi $first defer-hard-irqs 9
one_changed() {
	snap | python3 -c '
import sys
first = sys.argv[1]
for l in sys.stdin:
    f = l.split()
    if f[0] == first: assert f[1] == "9", l
    elif f[0] != "sysfs": assert f[1] == "0", l' $first
}
ktap_check "only NAPI $first changed" one_changed
ktap_check "restore $VA" et restore $VA
[ "$(snap)" = "$before" ] && ktap_ok "one NAPI restored" || ktap_fail "one NAPI restored"

# kill -9 while a temporary change is held: the next restore puts it back (ethtune itself in the
# background, not a subshell running et(): kill -9 of that would leave ethtune holding the change)
"$E" --netns $NS set $VA napi all gro-flush-timeout 77777 --for 60 >/dev/null 2>&1 &
HOLD=$!
held=0
for i in $(seq 50); do
	snap >$T/snap; head -1 $T/snap | grep -q ' 77777 ' && { held=1; break; }
	sleep 0.1
done
kill -9 $HOLD; wait $HOLD 2>/dev/null; HOLD=
[ $held = 1 ] && ktap_ok "set --for holds gro-flush-timeout 77777" ||
	ktap_fail "set --for holds gro-flush-timeout 77777"
ktap_check "after kill -9 the journal still holds the old values" bash -c \
	"[ \$('$E' restore --list | grep -c '/gro-flush-timeout .*(temporary)') -eq $nnapi ]"
ktap_check "ethtune restore after kill -9" et restore
[ "$(snap)" = "$before" ] && ktap_ok "kill -9 during set --for, restore: as before" ||
	{ ktap_fail "kill -9 during set --for, restore: as before"; snap | sed 's/^/# /'; }

# bad input on a device that has NAPIs: one line, non-zero, nothing changed
bad() { # bad RC MESSAGE ARGS...
	local rc=$1 msg=$2 got; shift 2
	et set $VA "$@" >/dev/null 2>$T/err; got=$?
	[ $got -eq $rc ] && [ "$(cat $T/err)" = "$msg" ] && [ "$(snap)" = "$before" ] &&
		[ -z "$("$E" restore --list | grep ' napi ')" ]
}
order=$(et --json show $VA | python3 -c '
import json, sys
print(", ".join(str(n["napi-id"]) for n in json.load(sys.stdin)["napi"]))')
ktap_check "napi 999999: no such NAPI, nothing changed" bad 1 \
	"ethtune: set $VA: no NAPI 999999 on $VA (its NAPIs: $order)" napi 999999 threaded on
ktap_check "napi defer-hard-irqs out of range, nothing changed" bad 2 \
	"ethtune: set $VA: defer-hard-irqs 2147483648 is above the maximum 2147483647" \
	napi all defer-hard-irqs 2147483648
ktap_check "napi with a bad value after a good one: nothing changed" bad 2 \
	"ethtune: set $VA: invalid value 'sometimes' for threaded (expected on or off)" \
	napi all defer-hard-irqs 1 threaded sometimes

# profiles: [napi] applies to every NAPI, verify, restore
export ETHTUNE_PROFILE_DIR=$T/profiles
mkdir -p $ETHTUNE_PROFILE_DIR
cat >$ETHTUNE_PROFILE_DIR/napi-test.profile <<P
[match]
driver = veth
[napi]
gro-flush-timeout = 30000
defer-hard-irqs = 4
[provenance]
kind = documented
source = tests/ns/napi.sh
P
ktap_check_fail "profile verify reports drift before apply" et profile verify $VA napi-test
ktap_check "profile apply [napi]" et profile apply $VA napi-test
ktap_check "profile verify: no drift" et profile verify $VA napi-test
ktap_check "restore after profile" et restore $VA
[ "$(snap)" = "$before" ] && ktap_ok "profile restored" || ktap_fail "profile restored"

# BQL on an ifb (veth has none): set, show agrees with sysfs, restore
if ! ip -n $NS link add $IFB type ifb 2>/dev/null; then
	ktap_skip "bql set" "no ifb device here"; ktap_finish; exit $?
fi
ip -n $NS link set $IFB up
BQ=/sys/class/net/$IFB/queues/tx-0/byte_queue_limits
bql_snap() { in_ns cat $BQ/stall_thrs $BQ/limit_min $BQ/limit_max | paste -sd' '; }
bql_before=$(bql_snap)
ktap_check "set $IFB bql stall-thrs 20 limit-min 1000 limit-max 100000" \
	et set $IFB bql stall-thrs 20 limit-min 1000 limit-max 100000
bql_agree() {
	et --json show $IFB | python3 -c '
import json, sys
b = json.load(sys.stdin)["bql"][0]
got = "%d %d %d" % (b["stall-thrs"], b["limit-min"], b["limit-max"])
assert got == sys.argv[1], (got, sys.argv[1])' "$(bql_snap)"
}
bql_is() { [ "$(bql_snap)" = "$1" ]; }
ktap_check "sysfs reads the BQL values back" bql_is "20 1000 100000"
ktap_check "show's BQL agrees with sysfs" bql_agree
ktap_check_fail "bql stall-thrs 1 is refused" et set $IFB bql tx-0 stall-thrs 1
ktap_check "restore $IFB" et restore $IFB
[ "$(bql_snap)" = "$bql_before" ] && ktap_ok "bql restored" ||
	ktap_fail "bql restored ($(bql_snap), was $bql_before)"
ktap_finish
