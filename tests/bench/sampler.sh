#!/bin/bash
# Bench: what the probe's own sampling costs: single-flow throughput on a veth pair with the
# sender's SO_MEMINFO sampling on (default) and off (--no-sample), interleaved ABBA; ratio.
set -u
cd "$(dirname "$0")/../.."
. tests/lib/ktap.sh
export ETHTUNE=${ETHTUNE:-$PWD/build/ethtune}
. tests/lib/probe_env.sh
ROUNDS=${SAMPLER_BENCH_ROUNDS:-8}
SECS=${SAMPLER_BENCH_SECS:-3}
ktap_header "sampler bench: veth throughput, probe sampling on vs off"
if [ "$(id -u)" -ne 0 ]; then ktap_skip "sampler overhead" "needs root"; ktap_finish; exit; fi
trap pe_cleanup EXIT
pe_setup smp || { ktap_fail "veth setup"; ktap_finish; exit 1; }
pe_serve $PE_B
OUT=$(mktemp -d)
probe() {	# probe NAME [OPTS]: Gbit/s of one flow
	"$E" --netns $PE_A --json probe --peer $PE_IP_B --duration $SECS \
		--warmup 1 --msg-size 128K "${@:2}" >"$OUT/$1.json" 2>/dev/null
	python3 -c 'import json,sys; print(json.load(open(sys.argv[1]))["result"]["throughput-mbps"] / 1e3)' \
		"$OUT/$1.json" 2>/dev/null || echo nan
}
ons=() offs=()
for i in $(seq 1 "$ROUNDS"); do
	if [ $((i % 2)) -eq 1 ]; then
		ons+=("$(probe on$i)") offs+=("$(probe off$i --no-sample)")
	else
		offs+=("$(probe off$i --no-sample)") ons+=("$(probe on$i)")
	fi
	ktap_diag "round $i: sampling on ${ons[-1]} Gbit/s, off ${offs[-1]} Gbit/s"
done
read -r ratio lo hi cov n where moff mon <<<"$(python3 tests/bench/lib/paired.py "${offs[*]}" "${ons[*]}" 0.99)"
echo "# sampler bench: median off $moff Gbit/s, on $mon Gbit/s;" \
	"ratio on/off $ratio [$lo, $hi] (median of $n paired rounds, sign-test ${cov}% interval);" \
	"bound >= 0.99: $where"
if [ "$ratio" = nan ]; then ktap_fail "throughput measured"; else ktap_ok "sampling ratio on/off $ratio"; fi
# the switch does what it says: the queued-bytes figure in an on-run, none in an off-run
if grep -q '"wmem-alloc"' "$OUT/on1.json" && ! grep -q '"wmem-alloc"' "$OUT/off1.json"; then
	ktap_ok "--no-sample turns the sampling off (wmem-alloc only in on-runs)"
else
	ktap_fail "--no-sample turns the sampling off (wmem-alloc only in on-runs)"
fi
rm -rf "$OUT"
ktap_finish
