# Guest-side helpers for lab tests (source inside the guest): namespaces around wired pairs, iperf3.
LAB_NS_A=lab-a
LAB_NS_B=lab-b
# Under TCG a python3 start costs the guest 0.4 s and importing jsonschema 2.5 s: the schema checks
# of a file run in one python3 at its end (tests/lib/ktap.sh), and JSON is read with jq.
KTAP_SCHEMA_BATCH=1
# and the host checks them (lab_relay), from what the guest leaves in $LAB_OUT/out
if [ -n "${LAB_OUT:-}" ]; then KTAP_SCHEMA_HOST=$LAB_OUT/out; fi

# lab_split DEV_A DEV_B [SUBNET]: DEV_A into netns lab-a as 198.18.SUBNET.1, DEV_B into lab-b as .2.
lab_split() {
	local a=$1 b=$2 n=${3:-0} i
	lab_unsplit
	ip netns add $LAB_NS_A && ip netns add $LAB_NS_B || return 1
	ip link set "$a" netns $LAB_NS_A && ip link set "$b" netns $LAB_NS_B || return 1
	ip -n $LAB_NS_A addr add 198.18.$n.1/24 dev "$a"
	ip -n $LAB_NS_B addr add 198.18.$n.2/24 dev "$b"
	ip -n $LAB_NS_A link set lo up; ip -n $LAB_NS_B link set lo up
	ip -n $LAB_NS_A link set "$a" up; ip -n $LAB_NS_B link set "$b" up
	for i in $(seq 50); do
		ip netns exec $LAB_NS_A busybox ping -c1 -W1 198.18.$n.2 >/dev/null 2>&1 && return 0
		sleep 0.2
	done
	echo "lab_split: no ping across $a/$b" >&2
	return 1
}

# lab_unsplit: deletes the namespaces; their devices return to the initial namespace, as the
# boot left them (ee0 up, rxe0 on it: tests/lab/lib/guest-setup.sh)
lab_unsplit() {
	local ns i moved=0
	for ns in $LAB_NS_A $LAB_NS_B; do
		ip netns pids $ns 2>/dev/null | xargs -r kill 2>/dev/null
		ip netns del $ns 2>/dev/null && moved=1
	done
	[ $moved -eq 1 ] || return 0
	# a deleted namespace's devices come back once its cleanup has run
	for i in $(seq 100); do
		[ -e /sys/class/net/ee0 ] && [ -e /sys/class/net/ee1 ] && [ -e /sys/class/net/vn0 ] &&
			[ -e /sys/class/net/vn1 ] && { [ ! -d /sys/module/txsim ] ||
			{ [ -e /sys/class/net/txsim0 ] && [ -e /sys/class/net/txsim1 ]; }; } && break
		sleep 0.1
	done
	bash "$(dirname "${BASH_SOURCE[0]}")/guest-setup.sh" >/dev/null 2>&1
	return 0
}

# lab_iperf SECONDS [iperf3 client options...]: one flow lab-a -> lab-b; prints Mbit/s received
# (TCP) or sent (UDP).
lab_iperf() {
	local t=$1 out bps; shift
	ip netns exec $LAB_NS_B iperf3 -s -1 -D -B 198.18.${LAB_SUBNET:-0}.2 >/dev/null 2>&1
	sleep 0.5
	out=$(ip netns exec $LAB_NS_A timeout $((t + 20)) iperf3 -c 198.18.${LAB_SUBNET:-0}.2 -t "$t" -J "$@" 2>&1)
	if bps=$(printf '%s' "$out" |
		 jq -e '.end | (.sum_received // .sum) | .bits_per_second' 2>/dev/null); then
		awk -v b="$bps" 'BEGIN { printf "%.1f\n", b / 1e6 }'
	else
		bps=$(printf '%s' "$out" | jq -r '.error // empty' 2>/dev/null | head -1)
		echo "iperf3 failed: ${bps:-$(printf '%s' "$out" | head -1)}" >&2
		return 1
	fi
}

# lab_dmesg_bad: prints kernel log lines that mean a driver bug (WARNING, BUG, leaks, lockdep).
lab_dmesg_bad() {
	dmesg | grep -E 'WARNING:|BUG:|BUG |kmemleak|Oops|general protection|unreferenced object|refcount_t|inconsistent lock|possible recursive locking|circular locking|unregister_netdevice: waiting' 
}

# lab_txsim_ko: path of the txsim.ko this boot loaded, the one built for the booted kernel (the
# host passes it as lab.txsim=, tests/lab/vm.sh)
lab_txsim_ko() {
	tr ' ' '\n' </proc/cmdline | sed -n 's/^lab\.txsim=//p'
}

# lab_txsim_reload: txsim0/txsim1 as the boot left them (the module's defaults: delay_us,
# fifo_bytes, speed, coalescing, rings, flags), for a file that changed them to put back
lab_txsim_reload() {
	rmmod txsim && insmod "$(lab_txsim_ko)"
}

# lab_stat DEV NAME [NETNS]: one ethtool -S counter
lab_stat() {
	if [ -n "${3:-}" ]; then ip netns exec "$3" ethtool -S "$1"; else ethtool -S "$1"; fi |
		awk -v k="$2:" '$1 == k {print $2}'
}
