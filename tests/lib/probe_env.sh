# Two namespaces joined by a veth pair on 198.18.4.0/24, for probe tests and benches: source it.
# pe_setup TAG: creates $PE_A (198.18.4.1, dev $PE_VA) and $PE_B (198.18.4.2, dev $PE_VB);
# pe_serve NS [ARGS]: starts "ethtune serve" in NS, waits for it, sets PE_SERVE_PID.
E=${ETHTUNE:-build/ethtune}
. "$(dirname "${BASH_SOURCE[0]}")/veth.sh"
PE_IP_A=198.18.4.1
PE_IP_B=198.18.4.2
PE_PIDS=""

pe_setup() {
	local tag=$1
	PE_A=etp-$tag-$$-a
	PE_B=etp-$tag-$$-b
	PE_VA=etpa$$
	PE_VB=etpb$$
	veth_ns $PE_A $PE_B $PE_VA $PE_VB $PE_IP_A $PE_IP_B || return 1
}

pe_cleanup() {
	local p
	for p in $PE_PIDS; do kill "$p" 2>/dev/null; done
	for p in $PE_PIDS; do wait "$p" 2>/dev/null; done
	[ -n "${PE_A:-}" ] && ip netns del $PE_A 2>/dev/null
	[ -n "${PE_B:-}" ] && ip netns del $PE_B 2>/dev/null
	return 0
}

# pe_wait_port NS PORT: until something listens there (5 s).
pe_wait_port() {
	local i
	for i in $(seq 50); do
		ip netns exec "$1" ss -Hltn "sport = :$2" 2>/dev/null | grep -q . && return 0
		sleep 0.1
	done
	return 1
}

pe_serve() {	# serve listens on loopback unless told: on $PE_B it gets $PE_IP_B
	local ns=$1 b=(); shift
	case " $* " in *" --bind "*) ;; *) [ "$ns" = "${PE_B:-}" ] && b=(--bind $PE_IP_B) ;; esac
	${PE_SERVE_WRAP:-} "$E" --netns "$ns" serve "${b[@]}" "$@" >/dev/null 2>>"${PE_SERVE_LOG:-/dev/null}" &
	PE_SERVE_PID=$!
	PE_PIDS="$PE_PIDS $PE_SERVE_PID"
	pe_wait_port "$ns" "${PE_PORT:-12866}"
}

# pe_bg CMD...: start a helper process in the background and remember it for cleanup.
pe_bg() {
	"$@" &
	PE_PIDS="$PE_PIDS $!"
}
