#!/bin/bash
# show/set/restore on host devices in a namespace we create (lo, veth, tun); eth0 read-only.
set -u
. "$(dirname "$0")/../lib/ktap.sh"
E=${ETHTUNE:-build/ethtune}
NS=et-ssr-$$
# Device names of our own: a leftover namespace elsewhere may hold a "va" too.
VA=va$$ VB=vb$$
export ETHTUNE_STATE_DIR=$(mktemp -d /tmp/ethtune-ssr.XXXXXX)
cleanup() { ip netns del $NS 2>/dev/null; rm -rf "$ETHTUNE_STATE_DIR"; }
trap cleanup EXIT
ktap_header "show, set, restore on lo, veth and tun"

if [ "$(id -u)" -ne 0 ] || ! ip netns add $NS 2>/dev/null; then
	ktap_skip "namespace tests" "needs root and network namespaces"; ktap_finish; exit 0
fi
ip -n $NS link add ${VA} type veth peer name ${VB}
ip -n $NS tuntap add dev tun0 mode tun 2>/dev/null
ip -n $NS link set lo up

json_ok() { "$E" --netns $NS show "$1" --json | python3 -c 'import json,sys; d=json.load(sys.stdin); assert d["ifname"]==sys.argv[1]; assert "link" in d and "mtu" in d["link"]; assert "sysctl" in d' "$1"; }
schema_ok() { "$E" --netns $NS show "$1" --json | python3 "$(dirname "$0")/../lib/schema_check.py" show -; }
for dev in lo ${VA} tun0; do
	if ! ip -n $NS link show $dev >/dev/null 2>&1; then ktap_skip "show $dev" "no $dev"; continue; fi
	ktap_check "show $dev (text)" "$E" --netns $NS show $dev
	ktap_check "show $dev --json parses, has link and sysctl" json_ok $dev
	ktap_check "show $dev --json fits docs/schema/show.json" schema_ok $dev
done
# Text has n/a where JSON has nothing: veth reports no coalescing at all.
ktap_check "missing values: n/a in text" bash -c "'$E' --netns $NS show ${VA} | grep -q '^bus-info .*n/a'"
ktap_check "missing values: absent in JSON" bash -c "'$E' --netns $NS show ${VA} --json | python3 -c 'import json,sys; d=json.load(sys.stdin); assert \"coalesce\" not in d and \"bus-info\" not in d'"

# Snapshot of everything set can touch on ${VA}, to compare before and after.
snap() {
	ip -n $NS -d -j link show ${VA} | python3 -c 'import json,sys; d=json.load(sys.stdin)[0]; print({k:d.get(k) for k in ("mtu","txqlen","gso_max_size","gso_max_segs","gro_max_size")})'
	ip netns exec $NS ethtool -k ${VA} | grep -v "^Features"
	ip netns exec $NS ethtool -l ${VA} | tail -4
}
before=$(snap)

readback() {	# readback KEY IPKEY VALUE: set through ethtune, read through ip
	"$E" --netns $NS set ${VA} "$1" "$3" || return 1
	v=$(ip -n $NS -d -j link show ${VA} | python3 -c "import json,sys; print(json.load(sys.stdin)[0]['$2'])")
	[ "$v" = "$3" ] || { echo "ip says $2=$v, wanted $3"; return 1; }
}
ktap_check "set mtu 9000, ip reads it back" readback mtu mtu 9000
ktap_check "set gso-max-size 32768, ip reads it back" readback gso-max-size gso_max_size 32768
ktap_check "set gso-max-segs 100, ip reads it back" readback gso-max-segs gso_max_segs 100
ktap_check "set txqueuelen 500, ip reads it back" readback txqueuelen txqlen 500
ktap_check "set several link values in one request" "$E" --netns $NS set ${VA} mtu 4000 gso-max-size 16384
feat() { ip netns exec $NS ethtool -k ${VA} | grep -q "^	*$1: $2"; }
ktap_check "set feature tso off" bash -c "'$E' --netns $NS set ${VA} feature tso off && ip netns exec $NS ethtool -k ${VA} | grep -q '^	tx-tcp-segmentation: off'"
ktap_check "set feature gro on (ethtool -K name)" bash -c "'$E' --netns $NS set ${VA} feature gro on && ip netns exec $NS ethtool -k ${VA} | grep -q '^generic-receive-offload: on'"
ktap_check "set feature by kernel name" bash -c "'$E' --netns $NS set ${VA} feature tx-scatter-gather off && ip netns exec $NS ethtool -k ${VA} | grep -q '^	tx-scatter-gather: off'"
ktap_check "set channels tx 2" bash -c "'$E' --netns $NS set ${VA} channels tx 2 && ip netns exec $NS ethtool -l ${VA} | tail -3 | grep -q 'TX:.*2'"
ktap_check "restore --list shows the journal" bash -c "'$E' restore --list | grep -q 'mtu .*was 1500'"
ktap_check "restore --netns NS puts everything of NS back" "$E" --netns $NS restore
after=$(snap)
if [ "$before" = "$after" ]; then ktap_ok "device exactly as before"; else ktap_fail "device exactly as before"; diff <(echo "$before") <(echo "$after") | sed 's/^/# /'; fi

# The administrative state is a journaled change like the others.
ip -n $NS link set ${VA} up
ktap_check "set admin-state down" bash -c "'$E' --netns $NS set ${VA} admin-state down && ! ip -n $NS link show ${VA} | grep -q '[<,]UP[,>]'"
ktap_check "admin-state is journaled as up" bash -c "'$E' restore --list | grep -q 'admin-state .*was up'"
ktap_check "restore brings it up" bash -c "'$E' --netns $NS restore && ip -n $NS link show ${VA} | grep -q '[<,]UP[,>]'"
ktap_check "admin-state sideways is refused in one line" bash -c "! '$E' --netns $NS set ${VA} admin-state sideways 2>$ETHTUNE_STATE_DIR/e && [ \$(wc -l <$ETHTUNE_STATE_DIR/e) = 1 ] && grep -q 'invalid value .sideways. for admin-state' $ETHTUNE_STATE_DIR/e"
ip -n $NS link set ${VA} down

# A change made inside `ip netns exec` is journaled under that namespace's name.
ip netns exec $NS "$E" set ${VA} txqueuelen 77
ktap_check "set inside ip netns exec names the namespace" bash -c "'$E' restore --list | grep -q '^$NS .*txqueuelen'"
ktap_check "restore from the initial namespace finds it" "$E" restore
ktap_check "txqueuelen back to 1000" bash -c "ip -n $NS link show ${VA} | grep -q 'qlen 1000'"

# kill -9 during a temporary change, then 'ethtune restore'.
"$E" --netns $NS set ${VA} mtu 2000 --for 60 2>/dev/null &
pid=$!
for i in $(seq 50); do ip -n $NS link show ${VA} | grep -q "mtu 2000" && break; sleep 0.1; done
kill -9 $pid; wait $pid 2>/dev/null
ktap_check "kill -9 left the change in place" bash -c "ip -n $NS link show ${VA} | grep -q 'mtu 2000'"
ktap_check "journal holds the temporary entry" bash -c "'$E' restore --list | grep -q temporary"
ktap_check "restore after kill -9" "$E" restore
ktap_check "mtu back to 1500 after kill -9 + restore" bash -c "ip -n $NS link show ${VA} | grep -q 'mtu 1500'"

# kill -9 again: this time the next run of any command undoes it.
"$E" --netns $NS set ${VA} txqueuelen 77 --for 60 2>/dev/null &
pid=$!
for i in $(seq 50); do ip -n $NS link show ${VA} | grep -q "qlen 77" && break; sleep 0.1; done
kill -9 $pid; wait $pid 2>/dev/null
"$E" --netns $NS show ${VA} >/dev/null
ktap_check "next run undoes a killed temporary change" bash -c "ip -n $NS link show ${VA} | grep -q 'qlen 1000'"

# SIGTERM and SIGINT restore at once.
"$E" --netns $NS set ${VA} mtu 3000 --for 60 2>/dev/null &
pid=$!
for i in $(seq 50); do ip -n $NS link show ${VA} | grep -q "mtu 3000" && break; sleep 0.1; done
kill -TERM $pid; wait $pid 2>/dev/null
ktap_check "SIGTERM restores a temporary change" bash -c "ip -n $NS link show ${VA} | grep -q 'mtu 1500'"

# Bad input: one clear line, non-zero exit, nothing changed.
before=$(snap)
one_line() {	# one_line PATTERN CMD...: fails non-zero with exactly one stderr line matching PATTERN
	local pat=$1 err rc; shift
	err=$("$@" 2>&1 >/dev/null); rc=$?
	[ $rc -ne 0 ] || { echo "exit 0"; return 1; }
	[ "$(printf '%s\n' "$err" | wc -l)" -eq 1 ] || { echo "not one line: $err"; return 1; }
	printf '%s\n' "$err" | grep -q -- "$pat" || { echo "no '$pat' in: $err"; return 1; }
	echo "# $err"
}
ktap_check "unknown device" one_line "no such device 'nosuch0'" "$E" --netns $NS set nosuch0 mtu 1500
ktap_check "device in another namespace" one_line "in network namespace '$NS'" "$E" show ${VA}
ktap_check "namespace that does not exist" one_line "namespace 'nons-$$' does not exist" "$E" --netns nons-$$ show ${VA}
ktap_check "unknown keyword" one_line "unknown channels parameter 'txx'" "$E" --netns $NS set ${VA} channels txx 1
ktap_check "unknown setting" one_line "unknown setting 'mut'" "$E" --netns $NS set ${VA} mut 1500
ktap_check "non-numeric value" one_line "invalid value 'abc' for mtu" "$E" --netns $NS set ${VA} mtu abc
ktap_check "out-of-range value" one_line "outside ${VA}'s range" "$E" --netns $NS set ${VA} mtu 70000
ktap_check "value above the device maximum" one_line "above the device maximum" "$E" --netns $NS set ${VA} channels tx 99
ktap_check "gso-max-size above tso-max-size" one_line "tso-max-size" "$E" --netns $NS set ${VA} gso-max-size 4000000000
ktap_check "unsupported object names it" one_line "${VA} does not support coalesce" "$E" --netns $NS set ${VA} coalesce tx-usecs 16
ktap_check "unknown feature" one_line "unknown feature 'tsox'" "$E" --netns $NS set ${VA} feature tsox off
ktap_check "fixed feature" one_line "is fixed" "$E" --netns $NS set ${VA} feature lro on
ktap_check "no private flags" one_line "has no private flags" "$E" --netns $NS set ${VA} priv-flag foo on
ktap_check "kernel rejection prints extack" one_line "kernel: " "$E" --netns $NS set ${VA} channels rx 0 tx 0
ktap_check "half-applied link change is rolled back" one_line "." "$E" --netns $NS set ${VA} mtu 9000 gso-max-size 0
if command -v setpriv >/dev/null; then
	ktap_check "no CAP_NET_ADMIN" one_line "CAP_NET_ADMIN" setpriv --inh-caps=-all --bounding-set=-net_admin --reuid=65534 "$E" set lo mtu 1500
else
	ktap_skip "no CAP_NET_ADMIN" "setpriv missing"
fi
after=$(snap)
if [ "$before" = "$after" ]; then ktap_ok "bad input changed nothing"; else ktap_fail "bad input changed nothing"; diff <(echo "$before") <(echo "$after") | sed 's/^/# /'; fi
ktap_check "rejected changes leave nothing in the journal" bash -c "'$E' restore --list | grep -q empty"
ktap_finish
