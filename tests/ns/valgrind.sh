#!/bin/bash
# valgrind memcheck on show, set and restore (text and JSON) of a veth in a namespace: no error, no definite leak.
# san: no: valgrind runs the native build (an ASan build does not run under it)
set -u
. "$(dirname "$0")/../lib/ktap.sh"
E=${ETHTUNE:-build/ethtune}
NS=et-vg-$$
VA=vg$$ VB=vh$$
export ETHTUNE_STATE_DIR=$(mktemp -d /tmp/ethtune-vg.XXXXXX)
cleanup() { ip netns del $NS 2>/dev/null; rm -rf "$ETHTUNE_STATE_DIR"; }
trap cleanup EXIT
ktap_header "valgrind memcheck on show, set and restore"

if ! command -v valgrind >/dev/null; then
	ktap_skip "valgrind" "valgrind is not installed"; ktap_finish; exit 0
fi
if [ "$(id -u)" -ne 0 ] || ! ip netns add $NS 2>/dev/null; then
	ktap_skip "valgrind" "needs root and network namespaces"; ktap_finish; exit 0
fi
case $E in *build/san/*) ktap_skip "valgrind" "an ASan build does not run under valgrind"; ktap_finish; exit 0 ;; esac
ip -n $NS link add $VA type veth peer name $VB
ip -n $NS link set $VA up

# vg DESC ARGS...: ethtune under memcheck; the log is shown when it finds something
vg() {
	local desc=$1 log=$ETHTUNE_STATE_DIR/vg.log rc
	shift
	valgrind -q --error-exitcode=99 --leak-check=full --show-leak-kinds=definite --errors-for-leak-kinds=definite \
		--log-file="$log" "$E" "$@" >/dev/null 2>&1
	rc=$?
	if [ $rc -ne 99 ] && [ ! -s "$log" ]; then
		ktap_ok "$desc: clean (exit $rc)"
	else
		ktap_fail "$desc: memcheck found errors (exit $rc)"
		head -40 "$log" | sed 's/^/# /'
	fi
}
before=$(ip -n $NS -d link show $VA | head -1)
vg "show" --netns $NS show $VA
vg "show --json" --netns $NS --json show $VA
vg "show lo" --netns $NS show lo
vg "set several link values" --netns $NS set $VA mtu 4000 txqueuelen 500 gso-max-size 30000
vg "set feature" --netns $NS set $VA feature tso off
vg "set channels" --netns $NS set $VA channels tx 1
vg "set, a value out of range" --netns $NS set $VA mtu 99999999
vg "set --for (a temporary change)" --netns $NS set $VA mtu 2000 --for 1
vg "restore --list" restore --list
vg "restore --list --json" --json restore --list
vg "restore" restore
after=$(ip -n $NS -d link show $VA | head -1)
[ "$before" = "$after" ] && ktap_ok "device as before" || ktap_fail "device as before"
ktap_finish
