#!/bin/bash
# Bench: the floor under txlat's cost: one flow on a veth pair with programs that return at once
# on txlat's four tracepoints against none, interleaved ABBA; ratio. The floor is the kernel's
# dispatch to a program per event, which no work saved inside txlat's programs can take away.
set -u
cd "$(dirname "$0")/../.."
. tests/lib/ktap.sh
export ETHTUNE=${ETHTUNE:-$PWD/build/ethtune}
. tests/lib/probe_env.sh
ROUNDS=${FLOOR_BENCH_ROUNDS:-20}	# 20 pairs: the sign-test interval of their median covers 95.9%
SECS=${FLOOR_BENCH_SECS:-3}
# FLOOR_HOOKS: some of floor_xmit floor_consume floor_kfree floor_peer (empty: all four), to
# see what each tracepoint's dispatch costs on its own
HOOKS=${FLOOR_HOOKS:-}
. tests/bench/lib/env.sh
ktap_header "txlat floor bench: veth throughput, empty programs on txlat's tracepoints vs none"
if [ "$(id -u)" -ne 0 ]; then ktap_skip "txlat floor" "needs root"; ktap_finish; exit; fi
if [ ! -f build/bpf/vmlinux.h ] || ! command -v clang >/dev/null; then
	ktap_skip "txlat floor" "no BPF build (build/bpf/vmlinux.h) or no clang"; ktap_finish; exit
fi
W=$(mktemp -d)
trap 'pe_cleanup; rm -rf "$W"' EXIT
if ! clang -O2 -g -target bpf -I build/bpf -c tests/bench/lib/empty.bpf.c -o "$W/empty.bpf.o" ||
   ! cc -O2 -Wall tests/bench/lib/bpf_attach.c -o "$W/bpf_attach" -lbpf; then
	ktap_fail "the empty programs and their loader build"; ktap_finish; exit 1
fi
pe_setup flr || { ktap_fail "veth setup"; ktap_finish; exit 1; }
PE_SERVE_WRAP="${RXPIN[*]}" pe_serve $PE_B
ktap_diag "placement: $PLACEMENT; programs: ${HOOKS:-all four}"
probe() {	# probe NAME: Gbit/s of one flow
	"${TXPIN[@]}" "$E" --netns $PE_A --json probe --peer $PE_IP_B --duration $SECS \
		--warmup 1 --msg-size 128K --cc $CC >"$W/$1.json" 2>/dev/null
	python3 -c 'import json,sys
print(json.load(open(sys.argv[1]))["result"]["throughput-mbps"] / 1e3)' "$W/$1.json" 2>/dev/null ||
		echo nan
}
floor() {	# floor NAME: probe with the empty programs attached (a line in $W/attached when
	# they were: this runs in a command substitution, so a variable would not come back)
	local lp i
	: >"$W/attach.out"
	# shellcheck disable=SC2086 # a list of names
	"$W/bpf_attach" "$W/empty.bpf.o" $HOOKS >"$W/attach.out" 2>"$W/attach.err" &
	lp=$!
	for i in $(seq 50); do grep -q attached "$W/attach.out" && break; sleep 0.1; done
	grep -q attached "$W/attach.out" && echo "$1" >>"$W/attached"
	probe "$1"
	kill $lp 2>/dev/null; wait $lp 2>/dev/null
}
offs=() ons=()
for i in $(seq 1 "$ROUNDS"); do
	if [ $((i % 2)) -eq 1 ]; then
		offs+=("$(probe off$i)"); ons+=("$(floor on$i)")
	else
		ons+=("$(floor on$i)"); offs+=("$(probe off$i)")
	fi
	ktap_diag "round $i: none $(printf %.2f "${offs[-1]}") Gbit/s," \
		"empty programs $(printf %.2f "${ons[-1]}") Gbit/s"
done
attached=0
[ -f "$W/attached" ] && attached=$(wc -l <"$W/attached")
ktap_check "the empty programs were attached in every round ($attached of $ROUNDS)" \
	test "$attached" -eq "$ROUNDS"
[ "$attached" -eq "$ROUNDS" ] || sed 's/^/# /' "$W/attach.err"
read -r ratio lo hi cov n where moff mon \
	<<<"$(python3 tests/bench/lib/paired.py "${offs[*]}" "${ons[*]}" 0.98)"
echo "# txlat floor bench: median none $moff Gbit/s, empty programs $mon Gbit/s;" \
	"ratio $ratio [$lo, $hi] (median of $n paired rounds, sign-test ${cov}% interval);" \
	"against txlat's bound 0.98: $where"
if [ "$ratio" = nan ]; then
	ktap_fail "throughput measured"
else
	ktap_ok "throughput ratio empty/none $ratio"
fi
ktap_finish
