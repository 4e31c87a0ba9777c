#!/bin/bash
# Bench: profile merge of 10,000 hosts' tune results over 50 models (tests/lib/fleet_gen.py):
# wall time and peak RSS of the merge, text and JSON, profiles written. Reports, never judges.
set -u
cd "$(dirname "$0")/../.."
. tests/lib/ktap.sh
ET=${ETHTUNE:-$PWD/build/ethtune}
HOSTS=${MERGE_BENCH_HOSTS:-10000}
MODELS=${MERGE_BENCH_MODELS:-50}
W=$(mktemp -d /tmp/ethtune-merge-bench.XXXXXX)
trap 'rm -rf "$W"' EXIT
ktap_header "profile merge bench: $HOSTS hosts over $MODELS models"
python3 tests/lib/fleet_gen.py --out "$W/f" --hosts "$HOSTS" --models "$MODELS" --outliers 40 \
	--seed 3 || { ktap_fail "fleet_gen"; ktap_finish; exit 1; }
ktap_diag "input: $(find "$W/f/results" -name '*.json' | wc -l) files, $(du -sh "$W/f/results" | cut -f1)"
# run NAME ARGS...: the merge under getrusage (the child's peak RSS), wall time
run() {
	local name=$1; shift
	python3 - "$W/$name.out" "$@" <<'PY'
import resource, subprocess, sys, time
t = time.monotonic()
with open(sys.argv[1], "w") as out:
    rc = subprocess.call(sys.argv[2:], stdout=out)
wall = time.monotonic() - t
rss = resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss / 1024
print("%d %.2f %.1f" % (rc, wall, rss))
PY
}
for mode in text json; do
	args=("$ET")
	[ $mode = json ] && args+=(--json)
	read -r rc wall rss < <(run "$mode" "${args[@]}" profile merge "$W/f/results" --out "$W/p-$mode")
	[ "$rc" = 0 ] && ktap_ok "merge ($mode, --out): $HOSTS hosts in $wall s wall, peak RSS $rss MiB, $(ls "$W/p-$mode" | wc -l) profiles" ||
		ktap_fail "merge ($mode) exited $rc"
done
ktap_finish
