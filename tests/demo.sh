#!/bin/bash
# The main job against the built-in lab: diagnose txsim (a NIC with 2 ms TX coalescing) in the
# qemu guest; show/set/restore round trip on a veth pair on the host. --host: the host part only.
set -u
ROOT=${ETHTUNE_ROOT:-$(cd "$(dirname "$0")/.." && pwd)}
ET=${ETHTUNE:-$ROOT/${O:-build}/ethtune}

host_demo() {
	local NS=ethtune-demo before after
	ip netns del $NS 2>/dev/null
	ip netns add $NS || return 1
	trap 'ip netns del $NS 2>/dev/null' RETURN
	ip -n $NS link add et0 type veth peer name et1
	ip -n $NS link set et0 up; ip -n $NS link set et1 up
	echo "== ethtune show et0 (veth pair in namespace $NS)"
	"$ET" --netns $NS show et0 | head -30
	before=$("$ET" --netns $NS show et0 --json | grep -v inflight)
	echo "== ethtune set et0 mtu 9000 gso-max-size 32768 txqueuelen 100; feature tso off"
	"$ET" --netns $NS set et0 mtu 9000 gso-max-size 32768 txqueuelen 100 || return 1
	"$ET" --netns $NS set et0 feature tso off || return 1
	"$ET" restore --list
	echo "== ethtune restore"
	"$ET" restore || return 1
	after=$("$ET" --netns $NS show et0 --json | grep -v inflight)
	[ "$before" = "$after" ] && echo "== et0 is exactly as before" ||
		{ diff <(echo "$before") <(echo "$after"); return 1; }
}

guest_demo() {
	. "$ROOT/tests/lab/lib/guest.sh"
	for d in txsim0 txsim1; do echo 1000 >/sys/class/net/$d/txsim/delay_us; ethtool -s $d speed 1000; done
	lab_split txsim0 txsim1 || return 1
	ip netns exec $LAB_NS_A tc qdisc replace dev txsim0 root pfifo_fast
	ip netns exec $LAB_NS_B tc qdisc replace dev txsim1 root pfifo_fast
	ip netns exec $LAB_NS_B "$ET" serve --bind 198.18.0.2 >/dev/null 2>&1 &
	sleep 0.5
	echo "== txsim0: 1000 Mb/s, 1 ms wire delay each way, TX completion coalescing tx-usecs 2000"
	"$ET" --netns $LAB_NS_A set txsim0 coalesce tx-usecs 2000 tx-frames 0
	ip netns exec $LAB_NS_A ethtool -c txsim0 | grep -E "^tx-(usecs|frames):"
	echo "== ethtune diagnose txsim0 --peer 198.18.0.2"
	"$ET" --netns $LAB_NS_A diagnose txsim0 --peer 198.18.0.2 --peer-dev txsim1 \
		--peer-netns $LAB_NS_B --duration 1 --budget 30
	"$ET" restore
	lab_unsplit
	lab_txsim_reload
}

if [ -n "${LAB_GUEST:-}" ]; then guest_demo; exit; fi
[ "$(id -u)" -eq 0 ] || { echo "demo: run as root (it creates network namespaces)"; exit 1; }
host_demo || exit 1
[ "${1:-}" = --host ] && exit 0
if "$ROOT/tests/lab/vm.sh" setup >"$ROOT/${O:-build}/lab-demo-setup.log" 2>&1; then
	echo "== driver lab: booting the qemu guest (Debian kernel, txsim reference driver)"
	"$ROOT/tests/lab/vm.sh" run --timeout 600 -- env ETHTUNE="$ET" bash "$ROOT/tests/demo.sh"
else
	echo "demo: the driver lab could not be set up (see ${O:-build}/lab-demo-setup.log)"
	exit 1
fi
