#!/bin/bash
# Bench: what the probe's own sampling costs: single-flow throughput on a veth pair with the
# sender's SO_MEMINFO sampling on (default) and off (--no-sample), interleaved ABBA; ratio, and
# the sampler's own CPU: what the control thread spends more with it on.
set -u
cd "$(dirname "$0")/../.."
. tests/lib/ktap.sh
export ETHTUNE=${ETHTUNE:-$PWD/build/ethtune}
. tests/lib/probe_env.sh
ROUNDS=${SAMPLER_BENCH_ROUNDS:-8}
SECS=${SAMPLER_BENCH_SECS:-3}
. tests/bench/lib/env.sh
ktap_header "sampler bench: veth throughput, probe sampling on vs off"
if [ "$(id -u)" -ne 0 ]; then ktap_skip "sampler overhead" "needs root"; ktap_finish; exit; fi
trap pe_cleanup EXIT
pe_setup smp || { ktap_fail "veth setup"; ktap_finish; exit 1; }
PE_SERVE_WRAP="${RXPIN[*]}" pe_serve $PE_B
ktap_diag "placement: $PLACEMENT"
OUT=$(mktemp -d)
probe() {	# probe NAME [OPTS]: Gbit/s of one flow, and its control thread's % of a CPU
	"${TXPIN[@]}" "$E" --netns $PE_A --json probe --peer $PE_IP_B --duration $SECS \
		--warmup 1 --msg-size 128K --cc $CC "${@:2}" >"$OUT/$1.json" 2>/dev/null
	python3 -c 'import json,sys; r = json.load(open(sys.argv[1]))["result"]; print(r["throughput-mbps"] / 1e3, r["cpu"]["local-control-pct"])' \
		"$OUT/$1.json" 2>/dev/null || echo nan nan
}
ons=() offs=() con=() coff=()
for i in $(seq 1 "$ROUNDS"); do
	if [ $((i % 2)) -eq 1 ]; then
		read -r g c <<<"$(probe on$i)"; ons+=("$g") con+=("$c")
		read -r g c <<<"$(probe off$i --no-sample)"; offs+=("$g") coff+=("$c")
	else
		read -r g c <<<"$(probe off$i --no-sample)"; offs+=("$g") coff+=("$c")
		read -r g c <<<"$(probe on$i)"; ons+=("$g") con+=("$c")
	fi
	ktap_diag "round $i: sampling on ${ons[-1]} Gbit/s (control thread ${con[-1]}% of a CPU)," \
		"off ${offs[-1]} Gbit/s (${coff[-1]}%)"
done
read -r ratio lo hi cov n where moff mon <<<"$(python3 tests/bench/lib/paired.py "${offs[*]}" "${ons[*]}" 0.99)"
echo "# sampler bench: median off $moff Gbit/s, on $mon Gbit/s;" \
	"ratio on/off $ratio [$lo, $hi] (median of $n paired rounds, sign-test ${cov}% interval);" \
	"bound >= 0.99: $where"
# The sampler's cost is its own CPU time (SO_MEMINFO reads the socket's counters without its
# lock): at most that share of the busiest CPU's time, so of the throughput of a flow that CPU
# limits; a figure the host's noise does not blur, unlike the ratio above
read -r d dlo dhi dcov dn dwhere _ _ <<<"$(python3 tests/bench/lib/paired.py --diff "${coff[*]}" "${con[*]}" 1)"
echo "# sampler bench: its own CPU, on - off: $d [$dlo, $dhi] % of a CPU (median of $dn paired" \
	"rounds, sign-test ${dcov}% interval), a bound on its share of the throughput; bound < 1%: $dwhere"
if [ "$ratio" = nan ]; then ktap_fail "throughput measured"; else ktap_ok "sampling ratio on/off $ratio"; fi
if [ "$d" = nan ]; then ktap_fail "control thread CPU measured"; else ktap_ok "sampler CPU $d% of a CPU"; fi
# the switch does what it says: the queued-bytes figure in an on-run, none in an off-run
if grep -q '"wmem-alloc"' "$OUT/on1.json" && ! grep -q '"wmem-alloc"' "$OUT/off1.json"; then
	ktap_ok "--no-sample turns the sampling off (wmem-alloc only in on-runs)"
else
	ktap_fail "--no-sample turns the sampling off (wmem-alloc only in on-runs)"
fi
rm -rf "$OUT"
ktap_finish
