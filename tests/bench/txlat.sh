#!/bin/bash
# Bench: single-flow throughput on a veth pair with txlat tracing on vs off, side by side; ratio
# (rounds, and --duty windows within one flow).
# Runs ethtune's probe when it exists, else iperf3. Rounds alternate off/on to cancel drift.
set -u
cd "$(dirname "$0")/../.."
. tests/lib/ktap.sh
. tests/lib/veth.sh
ETHTUNE=${ETHTUNE:-$PWD/build/ethtune}
ROUNDS=${TXLAT_BENCH_ROUNDS:-12}	# 12 pairs: the sign-test interval of their median covers 96.1%
SECS=${TXLAT_BENCH_SECS:-3}
. tests/bench/lib/env.sh
A=txlbench-a B=txlbench-b PORT=5391
ktap_header "txlat bench: veth throughput, tracing on vs off"

cleanup() {
	ip netns pids $B 2>/dev/null | xargs -r kill 2>/dev/null
	ip netns del $A 2>/dev/null
	ip netns del $B 2>/dev/null
}
if [ "$(id -u)" -ne 0 ]; then ktap_skip "txlat overhead" "needs root"; ktap_finish; exit; fi
trap cleanup EXIT
cleanup
veth_ns_or_exit "txlat overhead" $A $B txbench0 txbench1 198.18.78.1/30 198.18.78.2/30

if "$ETHTUNE" help 2>/dev/null | grep -q "ethtune probe"; then
	ip netns exec $B "${RXPIN[@]}" "$ETHTUNE" serve --bind 198.18.78.2 --port $PORT >/dev/null 2>&1 &
	LOAD="${TXPIN[*]} $ETHTUNE --json probe --peer 198.18.78.2:$PORT --duration $SECS --warmup 1"
	LOAD="$LOAD --cc $CC"
	TOOL=probe
else
	ip netns exec $B "${RXPIN[@]}" iperf3 -s -p $PORT >/dev/null 2>&1 &
	LOAD="${TXPIN[*]} iperf3 -J -c 198.18.78.2 -p $PORT -t $SECS -C $CC"
	TOOL=iperf3
fi
sleep 0.5
OUT=$(mktemp -d)
ktap_diag "placement: $PLACEMENT"

# Gbit/s from the load's JSON (iperf3: received sum; probe: result.throughput-mbps).
gbps() {
	python3 - "$1" <<'PY'
import json, sys
try:
    d = json.load(open(sys.argv[1]))
except Exception:
    print("nan"); sys.exit()
if "end" in d:
    print(d["end"]["sum_received"]["bits_per_second"] / 1e9); sys.exit()
try:
    print(d["result"]["throughput-mbps"] / 1e3)
except Exception:
    print("nan")
PY
}

run_off() { ip netns exec $A $LOAD >"$OUT/$1.json" 2>/dev/null; }
run_on() {	# run_on NAME [TXLAT-OPTS]
	"$ETHTUNE" --netns $A --json txlat txbench0 "${@:2}" --load-cmd "$LOAD > $OUT/$1.json" \
		>"$OUT/$1.txlat.json" 2>"$OUT/$1.err"
}
offs=() ons=()
for i in $(seq 1 "$ROUNDS"); do
	if [ $((i % 2)) -eq 1 ]; then run_off off$i; run_on on$i; else run_on on$i; run_off off$i; fi
	offs+=("$(gbps "$OUT/off$i.json")") ons+=("$(gbps "$OUT/on$i.json")")
	ktap_diag "round $i: off $(printf %.2f "${offs[-1]}") Gbit/s, on $(printf %.2f "${ons[-1]}") Gbit/s"
done
if ! [ -s "$OUT/on1.txlat.json" ]; then
	ktap_fail "txlat ran during the load"; sed 's/^/# /' "$OUT/on1.err"
else
	ktap_ok "txlat ran during the load ($TOOL)"
fi
# rounds run off/on back to back: the median of their ratios cancels slow drift best
read -r ratio lo hi cov n where moff mon <<<"$(python3 tests/bench/lib/paired.py "${offs[*]}" "${ons[*]}" 0.98)"
echo "# txlat bench: median off $moff Gbit/s, on $mon Gbit/s;" \
	"ratio on/off $ratio [$lo, $hi] (median of $n paired rounds, sign-test ${cov}% interval);" \
	"bound >= 0.98: $where"
if [ "$ratio" = nan ]; then ktap_fail "throughput measured"; else ktap_ok "throughput ratio on/off $ratio"; fi
# the same cost inside one flow: txlat --duty attaches and detaches the programs every second and
# compares each attached window's TX rate with the detached windows either side, so host drift
# slower than a second cancels (the rounds above see it whole). At 50% that is the cost of tracing
# (and of one attach and detach a window); at 15% the whole run's cost follows from the traced
# share of the time.
DUTY_SECS=${TXLAT_BENCH_DUTY_SECS:-30}
LOADD="${LOAD/--duration $SECS/--duration $DUTY_SECS}"
LOADD="${LOADD/-t $SECS/-t $DUTY_SECS}"
for d in 50 15; do
	"$ETHTUNE" --netns $A --json txlat txbench0 --duty $d --load-cmd "$LOADD > $OUT/duty$d.load.json" \
		>"$OUT/duty$d.json" 2>"$OUT/duty$d.err"
	line=$(python3 - "$OUT/duty$d.json" $d <<'PY'
import json, sys
try:
    u = json.load(open(sys.argv[1]))["duty"]
    r, lo, hi = u["ratio"], u["ratio-lo"], u["ratio-hi"]
except Exception:
    print("nan"); sys.exit()
f = u["traced-s"] / u["elapsed-s"]
run = lambda x: 1 - f * (1 - x)
where = "above" if run(lo) >= 0.98 else "below" if run(hi) < 0.98 else "straddles"
print("%.3f [%.3f, %.3f] (median of %d windows, sign-test %.1f%% interval); attached %.0f%% of %.1f s,"
      " so the whole run at %s%%: %.3f [%.3f, %.3f]; bound >= 0.98: %s" % (r, lo, hi, u["pairs"],
      u["coverage-pct"], 100 * f, u["elapsed-s"], sys.argv[2], run(r), run(lo), run(hi), where))
PY
)
	if [ "$line" = nan ]; then
		ktap_fail "txlat --duty $d measured its windows"; sed 's/^/# /' "$OUT/duty$d.err" | head -5
	else
		ktap_ok "txlat --duty $d measured its windows"
		echo "# txlat bench: --duty $d, attached window / detached neighbours: $line"
	fi
done
# the programs' own cost as the kernel accounts it, in runs of their own: the run-time statistics
# add a clock read to every program run, which the rounds above must not pay
for i in 1 2 3; do run_on stats$i --bpf-stats; done
cost=$(python3 - "$OUT" <<'PY'
import json, sys, glob
c = []
for f in sorted(glob.glob(sys.argv[1] + "/stats*.txlat.json")):
    try:
        b = json.load(open(f))["bpf"]
        c.append((b["cpu-pct"], b["ns-per-run"], b["runs"]))
    except Exception:
        pass
if c:
    c.sort()
    m = c[len(c) // 2]
    print("%.2f%% of one CPU, %.0f ns per run, %d runs (median of %d runs with --bpf-stats)" % (m + (len(c),)))
PY
)
[ -n "$cost" ] && echo "# txlat bench: BPF cost $cost"
rm -rf "$OUT"
ktap_finish
