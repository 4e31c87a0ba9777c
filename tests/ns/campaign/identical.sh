#!/bin/bash
# Campaign: pairs of identical matrix runs on a host veth pair, compared; how many flag a cell (the 19-of-20 rule).
#
# Not in CI (40 matrix runs take ~6 min). Run as root:
#   tests/ns/campaign/identical.sh [PAIRS]        (default 20; results in docs/compare.md)
# Each pair is two runs of one 4-cell matrix, one after the other; `ethtune compare` judges
# them (Welch per cell, Holm over the cells). The rule: at most one pair in 20 flags a cell.
set -u
ROOT=$(cd "$(dirname "$0")/../../.." && pwd)
. "$ROOT/tests/lib/ktap.sh"
export ETHTUNE=${ETHTUNE:-$ROOT/build/ethtune}
. "$ROOT/tests/lib/probe_env.sh"
PAIRS=${1:-20}
T=$(mktemp -d /tmp/ethtune-id.XXXXXX)
export ETHTUNE_STATE_DIR=$T/state
mkdir -p "$ETHTUNE_STATE_DIR"
trap 'pe_cleanup; rm -rf "$T"' EXIT
ktap_header "identical matrix runs compared, $PAIRS pairs"
if [ "$(id -u)" -ne 0 ] || ! pe_setup id; then
	ktap_skip "identical runs" "needs root and network namespaces"; ktap_finish; exit 0
fi
pe_serve $PE_B || { ktap_fail "serve starts in $PE_B"; ktap_finish; exit 1; }
A=$PE_A VA=$PE_VA IPB=$PE_IP_B
cat >$T/m.json <<EOM
{ "name": "identical", "test": "stream", "duration-s": 0.3, "warmup-s": 0.1,
  "iterations-min": 3, "iterations-max": 5, "width-pct": 5,
  "dimensions": { "rcvbuf": ["64K", "auto"], "msg-size": ["1K", "64K"] } }
EOM
flagged=0 ran=0
for p in $(seq "$PAIRS"); do
	ip netns exec $A "$E" matrix $T/m.json --peer $IPB --dev $VA --out $T/a$p >/dev/null 2>&1 &&
		ip netns exec $A "$E" matrix $T/m.json --peer $IPB --dev $VA --out $T/b$p >/dev/null 2>&1 ||
		{ ktap_fail "pair $p: a matrix run failed"; continue; }
	"$E" --json compare $T/a$p $T/b$p >$T/c$p.json 2>/dev/null
	rc=$?
	ran=$((ran + 1))
	line=$(python3 -c '
import json, sys
d = json.load(open(sys.argv[1]))
cs = [c for h in d["hosts"] for c in h["cells"]]
f = [c for c in cs if c.get("verdict") in ("regression", "improvement")]
print("%d %s" % (len(f), " ".join("%s:%+.1f%%,p-adj=%.3f" % (c["verdict"], c.get("delta-pct", 0), c.get("p-adjusted", 1)) for c in f) or "-"),
      "min p-adj %.3f" % min([c.get("p-adjusted", 1) for c in cs] or [1]))' $T/c$p.json)
	n=${line%% *}
	[ "$n" -gt 0 ] && flagged=$((flagged + 1))
	ktap_diag "pair $p: compare exit $rc, cells flagged ${line}"
done
[ $ran -gt 0 ] && [ $((flagged * 20)) -le $ran ] &&
	ktap_ok "identical runs: $flagged of $ran pairs flagged a cell (at most 1 in 20)" ||
	ktap_fail "identical runs: $flagged of $ran pairs flagged a cell (at most 1 in 20)"
ktap_finish
