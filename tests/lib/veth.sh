# A veth pair between two network namespaces that one test or bench makes for itself: source it.
# veth_ns NS-A NS-B DEV-A DEV-B IP-A IP-B [QUEUES]: both namespaces with loopback up, the pair
# (QUEUES TX and RX queues on DEV-A, else one), IP-A and IP-B on its ends (/24 unless given a
# prefix), both ends up. Returns 0; 1 without root: the test skips; 2 where root cannot make
# them (a namespace, the pair, an address): the test fails. The caller deletes the namespaces.
veth_ns() {
	local a=$1 b=$2 da=$3 db=$4 ia=$5 ib=$6 q=()
	[ -n "${7:-}" ] && q=(numtxqueues "$7" numrxqueues "$7")
	[[ $ia == */* ]] || ia=$ia/24
	[[ $ib == */* ]] || ib=$ib/24
	[ "$(id -u)" -eq 0 ] || return 1
	ip netns add "$a" && ip netns add "$b" || return 2
	ip -n "$a" link add "$da" "${q[@]}" type veth peer name "$db" netns "$b" &&
		ip -n "$a" addr add "$ia" dev "$da" && ip -n "$b" addr add "$ib" dev "$db" &&
		ip -n "$a" link set lo up && ip -n "$b" link set lo up &&
		ip -n "$a" link set "$da" up && ip -n "$b" link set "$db" up || return 2
}

# veth_ns_or_exit NAME ARGS...: veth_ns ARGS, and where the pair cannot be had the test ends
# here with KTAP NAME: a skip without root, a failure otherwise.
veth_ns_or_exit() {
	local name=$1 rc
	shift
	veth_ns "$@"
	rc=$?
	[ $rc -eq 0 ] && return 0
	if [ $rc -eq 1 ]; then
		ktap_skip "$name" "needs root"
		ktap_finish
		exit 0
	fi
	ktap_fail "$name: a veth pair between two namespaces"
	ktap_finish
	exit 1
}
