#!/bin/bash
# The main job against the built-in lab: show a device, change it, restore it, show the diff.
set -eu
cd "$(dirname "$0")/../.."
E=build/ethtune
NS=ethtune-demo
[ "$(id -u)" -eq 0 ] || { echo "demo: run as root (it creates a network namespace)"; exit 1; }
ip netns del $NS 2>/dev/null || true
ip netns add $NS
trap 'ip netns del $NS 2>/dev/null' EXIT
ip -n $NS link add et0 type veth peer name et1
ip -n $NS addr add 198.18.0.1/24 dev et0
ip -n $NS link set et0 up
ip -n $NS link set et1 up
echo "== ethtune show et0 (veth pair in namespace $NS)"
$E --netns $NS show et0
before=$($E --netns $NS show et0 --json)
echo "== ethtune set et0 mtu 9000 gso-max-size 32768 txqueuelen 100; feature tso off"
$E --netns $NS set et0 mtu 9000 gso-max-size 32768 txqueuelen 100
$E --netns $NS set et0 feature tso off
$E restore --list
echo "== ethtune restore"
$E restore
after=$($E --netns $NS show et0 --json)
if [ "$(echo "$before" | grep -v inflight)" = "$(echo "$after" | grep -v inflight)" ]; then
	echo "== et0 is exactly as before"
else
	diff <(echo "$before") <(echo "$after"); exit 1
fi
