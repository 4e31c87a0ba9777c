#!/bin/bash
# ethtune matrix on a host veth pair: the grid runs in rounds, settings put back, an interrupted run resumes, the seeds' matrices run, bad input.
set -u
. "$(dirname "$0")/../lib/ktap.sh"
. "$(dirname "$0")/../lib/veth.sh"
E=${ETHTUNE:-build/ethtune}
ROOT=$(cd "$(dirname "$0")/../.." && pwd)
A=et-mxa-$$ B=et-mxb-$$ VA=mxa$$ VB=mxb$$ IPA=198.18.13.1 IPB=198.18.13.2
T=$(mktemp -d /tmp/ethtune-mx.XXXXXX)
export ETHTUNE_STATE_DIR=$T/state
mkdir -p "$ETHTUNE_STATE_DIR"
SPID=""
cleanup() {
	[ -n "$SPID" ] && kill $SPID 2>/dev/null && wait $SPID 2>/dev/null
	ip netns del $A 2>/dev/null; ip netns del $B 2>/dev/null; rm -rf "$T"
}
trap cleanup EXIT
ktap_header "matrix on a veth pair"
veth_ns_or_exit matrix $A $B $VA $VB $IPA $IPB 2
ip netns exec $B "$E" serve --bind $IPB >/dev/null 2>&1 &
SPID=$!
for i in $(seq 50); do ip netns exec $B ss -Hltn "sport = :12866" | grep -q . && break; sleep 0.1; done
M() { ip netns exec $A "$E" "$@"; }
chan() { ip netns exec $A ethtool -l $VA | sed -n '/Current/,$p' | awk '/^TX:/ { print $2 }'; }
journal_empty() { [ ! -s "$ETHTUNE_STATE_DIR/journal" ]; }
host=$(ip netns exec $A hostname)
chan0=$(chan)
# py FILE EXPR: a Python expression over the result document d
py() { python3 -c 'import json,sys; d=json.load(open(sys.argv[1])); sys.exit(0 if eval(sys.argv[2]) else 1)' "$@"; }

# 1. A grid of a probe option and a device setting: every cell measured in 2-3 rounds.
cat >$T/grid.json <<EOM
{ "name": "grid", "test": "stream", "duration-s": 0.3, "warmup-s": 0.1,
  "iterations-min": 2, "iterations-max": 3, "width-pct": 5,
  "fixed": { "msg-size": "64K" },
  "dimensions": { "rcvbuf": ["64K", "auto"], "channels.tx": [1, 2] } }
EOM
M matrix $T/grid.json --peer $IPB --dev $VA --out $T/g >$T/grid.txt 2>$T/grid.err; rc=$?
sed 's/^/# /' $T/grid.txt
ktap_check "a 2 x 2 grid runs and exits 0" test $rc -eq 0
ktap_check "one result file per host, complete, 4 cells of 2-3 values in the file's order" py $T/g/$host.json \
	'd["complete"] and [list(c["params"].values()) for c in d["cells"]] == [["64K","1"],["64K","2"],["auto","1"],["auto","2"]] and all(2 <= c["n"] <= 3 and len(c["values"]) == c["n"] for c in d["cells"])'
ktap_check "the text names each cell with its mean and interval" bash -c "
	grep -q '^  rcvbuf=64K channels.tx=1 .*\[.*\] n [23] ' $T/grid.txt && grep -q '^  [0-9]* measurements in 4 cells' $T/grid.txt"
ktap_check "the environment has the kernel, sysctls and the device" py $T/g/$host.json \
	'd["environment"]["kernel"] and "net.ipv4.tcp_rmem" in d["environment"]["sysctls"] and d["environment"]["device"]["name"] == "'$VA'"'
ktap_schema "the result file fits docs/schema/matrix.json" matrix $T/g/$host.json
M --json matrix $T/grid.json --peer $IPB --dev $VA --out $T/g2 >$T/grid2.json 2>/dev/null
ktap_schema "--json prints the same document" matrix $T/grid2.json
ktap_check "channels put back (tx $chan0), journal empty" bash -c "[ '$(chan)' = '$chan0' ] && [ ! -s $ETHTUNE_STATE_DIR/journal ]"

# 2. Interrupted, then resumed: the values taken before are kept.
cat >$T/long.json <<EOM
{ "name": "long", "test": "stream", "duration-s": 0.3, "warmup-s": 0.1,
  "iterations-min": 6, "iterations-max": 6,
  "dimensions": { "rcvbuf": ["64K", "auto"], "channels.tx": [1, 2] } }
EOM
# not through M: the signal must reach ethtune, not a subshell
ip netns exec $A "$E" matrix $T/long.json --peer $IPB --dev $VA --out $T/l >/dev/null 2>&1 &
pid=$!
for i in $(seq 150); do
	[ -f $T/l/$host.json ] && py $T/l/$host.json 'sum(len(c["values"]) for c in d["cells"]) >= 3' 2>/dev/null && break
	sleep 0.1
done
kill -INT $pid; wait $pid; rc=$?
ktap_check "SIGINT mid-run: exit 130, the file incomplete with what was measured" bash -c "[ $rc -eq 130 ] &&
	python3 -c 'import json,sys; d=json.load(open(sys.argv[1])); n=sum(len(c[\"values\"]) for c in d[\"cells\"]); sys.exit(0 if not d[\"complete\"] and 3 <= n < 24 else 1)' $T/l/$host.json"
ktap_check "...channels put back, journal empty" bash -c "[ '$(chan)' = '$chan0' ] && [ ! -s $ETHTUNE_STATE_DIR/journal ]"
first=$(python3 -c 'import json,sys; d=json.load(open(sys.argv[1])); print(d["started"], [c["values"] for c in d["cells"]])' $T/l/$host.json)
M matrix $T/long.json --peer $IPB --dev $VA --out $T/l >/dev/null 2>&1; rc=$?
ktap_check "run again: resumed to complete, 6 values a cell, the earlier ones first" bash -c "[ $rc -eq 0 ] && python3 -c '
import json, sys, ast
d = json.load(open(sys.argv[1])); started, before = sys.argv[2].split(\" \", 1)
before = ast.literal_eval(before)
ok = d[\"complete\"] and d[\"started\"] == started and all(len(c[\"values\"]) == 6 and c[\"values\"][:len(b)] == b for c, b in zip(d[\"cells\"], before))
sys.exit(0 if ok else 1)' $T/l/$host.json '$first'"
ktap_check "...and channels put back" test "$(chan)" = "$chan0"

# 3. The seeds' matrices (docs/matrix/), shortened: 0.3 s probes within 20 s each.
for f in small-rcvbuf rr-pinned; do
	M matrix $ROOT/docs/matrix/$f.json --peer $IPB --dev $VA --duration 0.3 --budget 20 --out $T/s-$f >$T/$f.txt 2>&1; rc=$?
	sed 's/^/# /' $T/$f.txt | head -8
	ktap_check "seed matrix $f runs end to end: every cell measured" bash -c "[ $rc -eq 0 ] &&
		python3 -c 'import json,sys; d=json.load(open(sys.argv[1])); sys.exit(0 if d[\"complete\"] and all(c[\"n\"] >= 1 and c[\"stop\"] for c in d[\"cells\"]) else 1)' $T/s-$f/$host.json"
done

# 5. compare: the matrix again with a small tcp_rmem where the data is received (maerts: here):
#    the autotuned cell regresses, the fixed SO_RCVBUF one cannot, and the sysctl shows.
cat >$T/rmem.json <<EOM
{ "name": "rmem", "test": "maerts", "duration-s": 0.5, "warmup-s": 0.2,
  "iterations-min": 4, "iterations-max": 6, "width-pct": 5,
  "dimensions": { "rcvbuf": ["256K", "auto"] } }
EOM
rmem0=$(ip netns exec $A sysctl -n net.ipv4.tcp_rmem | tr -s '\t' ' ')
M matrix $T/rmem.json --peer $IPB --dev $VA --out $T/base >/dev/null 2>&1; rc1=$?
ip netns exec $A sysctl -qw net.ipv4.tcp_rmem="4096 8192 8192"
M matrix $T/rmem.json --peer $IPB --dev $VA --out $T/new >/dev/null 2>&1; rc2=$?
ip netns exec $A sysctl -qw net.ipv4.tcp_rmem="$rmem0"
"$E" compare $T/base $T/new >$T/cmp.txt 2>&1; rc=$?
"$E" --json compare $T/base $T/new >$T/cmp.json 2>/dev/null
sed 's/^/# /' $T/cmp.txt
ktap_check "both runs complete" test $rc1 -eq 0 -a $rc2 -eq 0
ktap_check "compare exits 1: the autotuned cell regressed, significant after Holm" bash -c "[ $rc -eq 1 ] && python3 -c '
import json, sys
d = json.load(open(sys.argv[1]))
c = [c for c in d[\"hosts\"][0][\"cells\"] if c[\"params\"] == {\"rcvbuf\": \"auto\"}][0]
sys.exit(0 if c[\"verdict\"] == \"regression\" and c[\"p-adjusted\"] < 0.05 else 1)' $T/cmp.json"
ktap_check "the environment diff shows tcp_rmem" grep -q "sysctls.net.ipv4.tcp_rmem: $rmem0 -> 4096 8192 8192" $T/cmp.txt
ktap_check "the output names its test" grep -q "^test: Welch's t-test per cell, Holm-Bonferroni over 2 cells" $T/cmp.txt
ktap_schema "compare --json fits docs/schema/compare.json" compare $T/cmp.json

# 4. Bad input: one line, exit 2, nothing changed.
one_line() { local pat=$1 err rc; shift; err=$("$@" 2>&1 >/dev/null); rc=$?
	[ $rc -eq 2 ] && [ "$(printf '%s\n' "$err" | wc -l)" -eq 1 ] && printf '%s\n' "$err" | grep -qF -- "$pat" || { echo "rc=$rc: $err"; return 1; }; echo "# $err"; }
bad() { printf '%s\n' "$2" >$T/bad-$1.json; }
bad key '{ "name": "x", "dimensions": { "rcvbuf": ["8K"] }, "flow": 2 }'
bad val '{ "name": "x", "dimensions": { "msg-size": ["abc"] } }'
bad opt '{ "name": "x", "dimensions": { "iterations": ["3,5"] } }'
bad nodim '{ "name": "x" }'
bad json '{ "name": "x", '
bad name '{ "name": "a b", "dimensions": { "rcvbuf": ["8K"] } }'
bad range '{ "name": "x", "iterations-min": 5, "iterations-max": 3, "dimensions": { "rcvbuf": ["8K"] } }'
ktap_check "a missing file" one_line "matrix: $T/nope.json:" M matrix $T/nope.json --peer $IPB
ktap_check "an unknown key" one_line 'unknown key "flow"' M matrix $T/bad-key.json --peer $IPB
ktap_check "a value the option refuses names the cell" one_line "msg-size=abc: size (1..16M) 'abc' is not valid for --msg-size" M matrix $T/bad-val.json --peer $IPB
ktap_check "an option a matrix cannot vary" one_line "'iterations' is not a probe option a matrix can set" M matrix $T/bad-opt.json --peer $IPB
ktap_check "no dimensions" one_line '"dimensions" needs an object' M matrix $T/bad-nodim.json --peer $IPB
ktap_check "not JSON" one_line "bad-json.json:" M matrix $T/bad-json.json --peer $IPB
ktap_check "a name that is not a word" one_line '"name" needs a word' M matrix $T/bad-name.json --peer $IPB
ktap_check "iterations the wrong way round" one_line "iterations-min 5 is above iterations-max 3" M matrix $T/bad-range.json --peer $IPB
ktap_check "no peer" one_line "no peer" M matrix $T/grid.json
ktap_check "a complete result there already" one_line "holds a complete run of this matrix" M matrix $T/grid.json --peer $IPB --out $T/g
mkdir -p $T/o && cp $T/l/$host.json $T/o/$host.json
python3 - $T/o/$host.json <<-'PY'
	import json, sys
	d = json.load(open(sys.argv[1])); d["complete"] = False; d["matrix"]["identity"] = "another"
	json.dump(d, open(sys.argv[1], "w"))
	PY
ktap_check "another matrix's unfinished result there" one_line "holds another matrix's run" M matrix $T/long.json --peer $IPB --out $T/o
ktap_check "nothing changed by the bad input, journal empty" bash -c "[ '$(chan)' = '$chan0' ] && [ ! -s $ETHTUNE_STATE_DIR/journal ]"
ktap_finish
