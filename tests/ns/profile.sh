#!/bin/bash
# ethtune profile on a veth pair in a namespace we create: match, apply, verify, restore, bad input.
set -u
ROOT=${ETHTUNE_ROOT:-$(cd "$(dirname "$0")/../.." && pwd)}
. "$ROOT/tests/lib/ktap.sh"
ET=${ETHTUNE:-$ROOT/build/ethtune}
NS=etprof$$
TMP=$(mktemp -d /tmp/ethtune-profile.XXXXXX)
export ETHTUNE_PROFILE_DIR=$TMP/profiles ETHTUNE_STATE_DIR=$TMP/state
mkdir -p "$ETHTUNE_PROFILE_DIR" "$ETHTUNE_STATE_DIR"
cd "$ROOT"

ktap_header "profile: veth apply/verify/restore round trip"
cleanup() { ip netns del "$NS" 2>/dev/null; rm -rf "$TMP"; }
trap cleanup EXIT

# Shipped profiles parse (no device needed).
ok=1
for f in profiles/*.profile; do "$ET" profile check "$f" >/dev/null || ok=0; done
[ $ok = 1 ] && ktap_ok "shipped profiles parse" || ktap_fail "shipped profiles parse"

if [ "$(id -u)" != 0 ] || ! ip netns add "$NS" 2>/dev/null; then
	ktap_skip "veth round trip" "needs root and network namespaces"
	ktap_finish; exit $?
fi
ip -n "$NS" link add vpa numtxqueues 4 numrxqueues 4 type veth peer name vpb \
	numtxqueues 4 numrxqueues 4
ip -n "$NS" link set vpa up; ip -n "$NS" link set vpb up
chan() { ip netns exec "$NS" ethtool -l vpa | awk '/Current/{c=1} c&&/^RX:/{r=$2} c&&/^TX:/{t=$2} END{print r"/"t}'; }
tlob() { ip netns exec "$NS" cat /proc/sys/net/ipv4/tcp_limit_output_bytes; }
if ! ip netns exec "$NS" ethtool -L vpa rx 1 tx 1 2>/dev/null; then
	ktap_skip "veth round trip" "veth here does not support ethtool -L"
	ktap_finish; exit $?
fi
CH0=$(chan); TL0=$(tlob)
ktap_diag "initial channels $CH0, tcp_limit_output_bytes $TL0"

cat >"$ETHTUNE_PROFILE_DIR/veth-test.profile" <<P
# test profile for the namespace veth
[match]
driver = veth
kernel = >=4.0   # more specific than the shipped veth profile
[channels]
rx = 2
tx = 3
[sysctl]
net.ipv4.tcp_limit_output_bytes = 262144
[provenance]
kind = measured
host = ns-test
date = 2026-11-30
objective = throughput
P
bad() { # bad NAME BODY: a profile that must be refused with nothing applied
	printf '%s\n' "$2" >"$ETHTUNE_PROFILE_DIR/$1.profile"
}
bad bad-key "[match]
driver = veth
[channels]
rx = 2
[coalesce]
tx-usec = 16
[provenance]
kind = documented
source = test"
bad bad-lacks "[match]
driver = veth
[channels]
rx = 2
[coalesce]
tx-usecs = 16
[provenance]
kind = documented
source = test"
bad bad-range "[match]
driver = veth
[sysctl]
net.ipv4.tcp_limit_output_bytes = 131072
[channels]
rx = 99
[provenance]
kind = documented
source = test"
bad bad-nomatch "[match]
[channels]
rx = 2
[provenance]
kind = documented
source = test"
bad bad-other "[match]
driver = e1000e
[channels]
rx = 2
[provenance]
kind = documented
source = test"
bad bad-sysctl "[match]
driver = veth
[channels]
rx = 2
[sysctl]
net.ipv4.no_such_sysctl = 1
[provenance]
kind = documented
source = test"
# veth queues carry no byte queue limits: a [bql] section cannot apply
bad bad-bql "[match]
driver = veth
[channels]
rx = 2
[bql]
limit-min = 1000
[provenance]
kind = documented
source = test"

out=$("$ET" --netns "$NS" profile match vpa 2>&1)
echo "$out" | grep -q "best: veth-test" && ktap_ok "match picks the most specific profile" ||
	{ ktap_fail "match picks the most specific profile"; echo "$out" | sed 's/^/# /'; }
ktap_check_fail "verify reports drift before apply" "$ET" --netns "$NS" profile verify vpa veth-test
ktap_check "apply veth-test" "$ET" --netns "$NS" profile apply vpa veth-test
[ "$(chan)" = "2/3" ] && ktap_ok "channels applied (2/3)" || ktap_fail "channels applied: $(chan)"
[ "$(tlob)" = 262144 ] && ktap_ok "sysctl applied in the namespace" || ktap_fail "sysctl: $(tlob)"
[ "$(cat /proc/sys/net/ipv4/tcp_limit_output_bytes)" != 262144 ] && ktap_ok "host sysctl untouched" ||
	ktap_fail "host sysctl changed"
ktap_check "verify: no drift after apply" "$ET" --netns "$NS" profile verify vpa veth-test
out=$("$ET" --json --netns "$NS" profile verify vpa veth-test 2>&1)
echo "$out" | grep -q '"drift": 0' && ktap_ok "verify --json" || ktap_fail "verify --json"
printf '%s\n' "$out" >"$TMP/verify.json"
ktap_schema "verify --json fits docs/schema/profile.json" profile "$TMP/verify.json"
"$ET" --json --netns "$NS" profile match vpa >"$TMP/match.json" 2>/dev/null
ktap_schema "match --json fits docs/schema/profile.json" profile "$TMP/match.json"
"$ET" --json --netns "$NS" profile apply vpa veth-test --dry-run >"$TMP/apply.json" 2>/dev/null
ktap_schema "apply --dry-run --json fits docs/schema/profile.json" profile "$TMP/apply.json"
ip netns exec "$NS" ethtool -L vpa rx 1
ktap_check_fail "verify detects drift made behind its back" "$ET" --netns "$NS" profile verify vpa veth-test
# journal entries carry their namespace; restore enters it itself
ktap_check "restore" "$ET" restore
[ "$(chan)" = "$CH0" ] && ktap_ok "channels restored ($CH0)" || ktap_fail "channels restored: $(chan)"
[ "$(tlob)" = "$TL0" ] && ktap_ok "sysctl restored ($TL0)" || ktap_fail "sysctl restored: $(tlob)"

for p in bad-key bad-lacks bad-range bad-nomatch bad-other bad-sysctl bad-bql; do
	err=$("$ET" --netns "$NS" profile apply vpa $p 2>&1 >/dev/null); rc=$?
	lines=$(printf '%s\n' "$err" | grep -c .)
	if [ $rc -ne 0 ] && [ "$lines" = 1 ] && [ "$(chan)" = "$CH0" ] && [ "$(tlob)" = "$TL0" ]; then
		ktap_ok "refused $p, nothing applied"; ktap_diag "  $err"
	else
		ktap_fail "refused $p, nothing applied (rc $rc, $lines lines, chan $(chan), tlob $(tlob))"
		printf '%s\n' "$err" | sed 's/^/# /'
	fi
done
ktap_check "apply --force of a non-matching profile" "$ET" --netns "$NS" profile apply vpa bad-other --force
[ "$(chan)" = "2/1" ] && ktap_ok "forced profile applied (2/1)" || ktap_fail "forced profile: $(chan)"
"$ET" restore >/dev/null 2>&1
ktap_check "apply without NAME uses the best match" "$ET" --netns "$NS" profile apply vpa
[ "$(chan)" = "2/3" ] && ktap_ok "best match applied (2/3)" || ktap_fail "best match: $(chan)"
"$ET" restore >/dev/null 2>&1
[ "$(chan)" = "$CH0" ] && [ "$(tlob)" = "$TL0" ] && ktap_ok "restored again" || ktap_fail "restored again"
ktap_check_fail "no such profile" "$ET" --netns "$NS" profile apply vpa nosuch
ktap_check_fail "no such device" "$ET" --netns "$NS" profile verify nodev0 veth-test
"$ET" restore >/dev/null 2>&1
ktap_finish
