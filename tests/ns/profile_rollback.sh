#!/bin/bash
# A profile the kernel rejects half-way leaves nothing applied: the journal rolls it back.
set -u
. "$(dirname "$0")/../lib/ktap.sh"
E=${ETHTUNE:-build/ethtune}
NS=et-prb-$$
export ETHTUNE_STATE_DIR=$(mktemp -d /tmp/ethtune-prb.XXXXXX)
cleanup() { ip netns del $NS 2>/dev/null; rm -rf "$ETHTUNE_STATE_DIR"; }
trap cleanup EXIT
ktap_header "profile apply is all or nothing"
if [ "$(id -u)" -ne 0 ] || ! ip netns add $NS 2>/dev/null; then
	ktap_skip "profile rollback" "needs root and network namespaces"; ktap_finish; exit 0
fi
ip -n $NS link add rba type veth peer name rbb
cat > "$ETHTUNE_STATE_DIR/half.profile" <<'P'
[match]
driver = veth
[channels]
tx = 2
[sysctl]
net.ipv4.tcp_autocorking = 7
[provenance]
kind = documented
source = tests/ns/profile_rollback.sh
P
snap() { ip netns exec $NS ethtool -l rba | tail -4; ip netns exec $NS sysctl -n net.ipv4.tcp_autocorking; }
before=$(snap)
ktap_check_fail "kernel rejects the sysctl after channels were applied" "$E" --netns $NS profile apply rba "$ETHTUNE_STATE_DIR/half.profile"
err=$("$E" --netns $NS profile apply rba "$ETHTUNE_STATE_DIR/half.profile" 2>&1 >/dev/null)
ktap_check "the error says nothing was applied" bash -c "echo '$err' | grep -q 'nothing applied'"
after=$(snap)
if [ "$before" = "$after" ]; then ktap_ok "channels rolled back"; else ktap_fail "channels rolled back"; diff <(echo "$before") <(echo "$after") | sed 's/^/# /'; fi
ktap_check "journal empty after the rollback" bash -c "'$E' restore --list | grep -q empty"
ktap_finish
