#!/bin/bash
# The probe's sender and receiver paths side by side, interleaved in one run on a veth pair:
# send() copy, MSG_ZEROCOPY, sendfile, and MSG_TRUNC on the receiver; medians of throughput and
# of each end's CPU per Gbit/s, and each mode's throughput ratio to copy. BENCH_ROUNDS, BENCH_SECONDS.
set -u
. "$(dirname "$0")/../lib/probe_env.sh"
trap pe_cleanup EXIT
ROUNDS=${BENCH_ROUNDS:-5}
T=${BENCH_SECONDS:-3}
MSG=${BENCH_MSG:-128K}
. "$(dirname "$0")/lib/env.sh"
if [ "$(id -u)" -ne 0 ] || ! pe_setup modes; then echo "# SKIP: needs root and namespaces"; exit 0; fi
PE_SERVE_WRAP="${RXPIN[*]}" pe_serve $PE_B || { echo "# SKIP: serve did not start"; exit 0; }
MODES="copy zerocopy sendfile skip-rx-copy"
declare -A V L R
one() {	# one MODE: "Mbit/s local-%/Gbit remote-%/Gbit"
	local a=(--send copy)
	case $1 in skip-rx-copy) a=(--skip-rx-copy) ;; copy) ;; *) a=(--send $1) ;; esac
	"${TXPIN[@]}" "$E" --netns $PE_A --json probe --peer $PE_IP_B --duration $T --warmup 1 \
		--msg-size $MSG --cc $CC "${a[@]}" |
		python3 -c 'import json,sys; r=json.load(sys.stdin)["result"]; c=r["cpu"]
print(r["throughput-mbps"], c.get("local-process-pct-per-gbit", 0), c.get("remote-process-pct-per-gbit", 0))' 2>/dev/null ||
		echo "0 0 0"
}
median() { printf '%s\n' "$@" | sort -g | awk '{a[NR]=$1} END {print a[int((NR+1)/2)]}'; }
for i in $(seq $ROUNDS); do
	# each round in another order (rotated), so a drift does not favour one mode
	set -- $MODES
	for k in $(seq $(( (i - 1) % 4 ))); do set -- "${@:2}" "$1"; done
	for m in "$@"; do
		read -r v l r < <(one $m)
		V[$m]="${V[$m]:-} $v"; L[$m]="${L[$m]:-} $l"; R[$m]="${R[$m]:-} $r"
	done
done
base=$(median ${V[copy]})
echo "# probe modes: $ROUNDS rotated rounds of $T s, stream $MSG on a veth pair" \
	"($PLACEMENT); medians"
for m in $MODES; do
	v=$(median ${V[$m]})
	printf '%-13s %10.1f Mbit/s  ratio to copy %s  CPU per Gbit/s: sender %5.1f%%, receiver %5.1f%%\n' \
		"$m" "$v" "$(awk -v x="$v" -v y="$base" 'BEGIN { if (y > 0) printf "%.2f", x / y; else print "n/a" }')" \
		"$(median ${L[$m]})" "$(median ${R[$m]})"
	echo "#   rounds:${V[$m]}"
done
