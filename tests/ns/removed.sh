#!/bin/bash
# The device or its namespace removed mid-run: one clear error, no hang, and a journal that restore and restore --forget still read.
set -u
. "$(dirname "$0")/../lib/ktap.sh"
. "$(dirname "$0")/../lib/probe_env.sh"
export ETHTUNE_STATE_DIR=$(mktemp -d /tmp/ethtune-rm.XXXXXX)
T=$ETHTUNE_STATE_DIR/t
trap 'pe_cleanup; rm -rf "$ETHTUNE_STATE_DIR"' EXIT
ktap_header "device or namespace removed mid-run"

if [ "$(id -u)" -ne 0 ] || ! pe_setup rm 2>/dev/null; then
	ktap_skip "removal tests" "needs root and network namespaces"; ktap_finish; exit 0
fi
mkdir -p "$T"
NA=$PE_A NB=$PE_B VA=$PE_VA VB=$PE_VB IPA=$PE_IP_A IPB=$PE_IP_B
pair() {	# the veth pair again, after a test removed it
	ip link add $VA netns $NA type veth peer name $VB netns $NB
	ip -n $NA addr add $IPA/24 dev $VA; ip -n $NB addr add $IPB/24 dev $VB
	ip -n $NA link set $VA up; ip -n $NB link set $VB up
}
pe_serve $PE_B
journal_reads() { "$E" restore --list >/dev/null 2>"$T/list.err"; }

# 1. The device goes mid-sweep: the sweep names it, within the probe's timeouts.
ip netns exec $NA "$E" sweep mtu $VA --peer $IPB --peer-dev $VB --peer-netns $NB --duration 0.3 \
	--warmup 0 --quiet --reps 1 >/dev/null 2>"$T/err" &
pid=$!
sleep 2
ip -n $NA link del $VA
t0=$(date +%s)
for w in $(seq 600); do kill -0 $pid 2>/dev/null || break; sleep 0.1; done
kill -0 $pid 2>/dev/null && { kill -9 $pid; echo "hung" >>"$T/err"; }
wait $pid; rc=$?
el=$(($(date +%s) - t0))
sed 's/^/#   /' "$T/err"
if [ $rc -eq 1 ] && grep -q "^ethtune: sweep mtu $VA: $VA is gone" "$T/err"; then
	ktap_ok "device removed mid-sweep: exit 1 naming it, after $el s"
else
	ktap_fail "device removed mid-sweep: exit 1 naming it (rc $rc, $el s)"
fi
ktap_check "the journal still reads (restore --list)" journal_reads
"$E" restore >/dev/null 2>"$T/r.err"; rc=$?
if [ $rc -eq 1 ] && grep -q "kept entries that could not be restored" "$T/r.err"; then
	ktap_ok "restore keeps the gone device's entries and says so"
else
	ktap_fail "restore keeps the gone device's entries and says so (rc $rc)"
	sed 's/^/#   /' "$T/r.err"
fi
"$E" restore --forget >/dev/null 2>"$T/f.err"; rc=$?
if [ $rc -eq 0 ] && grep -q "forgot $VA link mtu (was 1500)" "$T/f.err" && [ ! -s "$ETHTUNE_STATE_DIR/journal" ]; then
	ktap_ok "restore --forget drops them, naming each"
else
	ktap_fail "restore --forget drops them, naming each (rc $rc)"; sed 's/^/#   /' "$T/f.err"
fi

# 2. The device goes while a temporary change is held: the undo says why, restore --forget clears.
pair
ip netns exec $NA "$E" set $VA mtu 1400 --for 3 >/dev/null 2>"$T/err" &
pid=$!
sleep 1
ip -n $NA link del $VA
wait $pid; rc=$?
sed 's/^/#   /' "$T/err"
[ $rc -ne 0 ] && grep -q "$VA" "$T/err" && ktap_ok "device removed during set --for: non-zero, naming it" ||
	ktap_fail "device removed during set --for: non-zero, naming it (rc $rc)"
ktap_check "the journal still reads" journal_reads
ktap_check "restore --forget empties it" bash -c "'$E' restore --forget 2>/dev/null && [ ! -s '$ETHTUNE_STATE_DIR/journal' ]"

# 3. The namespace is deleted mid-sweep: the running sweep holds it, finishes and restores.
pair
orig=$(ip netns exec $NA sysctl -n net.ipv4.tcp_limit_output_bytes)
ip netns exec $NA "$E" sweep tsq $VA --peer $IPB --duration 0.3 --warmup 0 --quiet --reps 1 \
	--points 3 >/dev/null 2>"$T/err" &
pid=$!
sleep 0.5
ip netns del $NA
wait $pid; rc=$?
sed 's/^/#   /' "$T/err"
[ $rc -eq 0 ] && ktap_ok "namespace deleted mid-sweep: the sweep still ends well" ||
	ktap_fail "namespace deleted mid-sweep: the sweep still ends well (rc $rc)"
[ ! -s "$ETHTUNE_STATE_DIR/journal" ] && ktap_ok "and leaves no journal entry" || {
	ktap_fail "and leaves no journal entry"; sed 's/^/#   /' "$ETHTUNE_STATE_DIR/journal"; }

# 4. A journal entry of a deleted namespace: restore says so and keeps it; --forget drops it.
ip netns add $NA
ip netns exec $NA "$E" set lo mtu 60000 >/dev/null 2>&1
ip netns del $NA
"$E" restore >/dev/null 2>"$T/r.err"; rc=$?
[ $rc -eq 1 ] && grep -q "namespace '$NA' is gone" "$T/r.err" &&
	ktap_ok "restore of a deleted namespace's entry: exit 1 naming the namespace" ||
	{ ktap_fail "restore of a deleted namespace's entry: exit 1 naming the namespace (rc $rc)"; sed 's/^/#   /' "$T/r.err"; }
ktap_check "restore --forget drops it" bash -c "'$E' restore --forget 2>/dev/null && [ ! -s '$ETHTUNE_STATE_DIR/journal' ]"
ktap_finish
