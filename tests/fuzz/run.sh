#!/bin/bash
# Runs each fuzz harness for a set time from its corpus in tests/fuzz/corpus/NAME, FUZZ_JOBS
# (nproc) at a time; KTAP, one result per harness (a crash, leak or sanitizer report fails it;
# its input is kept).
# Usage: tests/fuzz/run.sh FUZZ_DIR SECONDS NAME...
set -u
ROOT=$(cd "$(dirname "$0")/../.." && pwd)
. "$ROOT/tests/lib/ktap.sh"
dir=$1 secs=$2; shift 2
jobs=${FUZZ_JOBS:-$(nproc)}
ktap_header "fuzz: $* for $secs s each, $jobs at a time"
# fuzz N: one harness's run; its status goes to its .rc file
fuzz() {
	local n=$1 seeds=$ROOT/tests/fuzz/corpus/$1 work=$dir/corpus/$1 art=$dir/crash/$1/
	mkdir -p "$work" "$art"
	# new inputs go to the work corpus; the repository's seeds are read only
	"$dir/fuzz_$n" -max_total_time="$secs" -timeout=10 -rss_limit_mb=1024 -print_final_stats=1 \
		-artifact_prefix="$art" "$work" "$seeds" >"$dir/fuzz_$n.log" 2>&1
	echo $? >"$dir/fuzz_$n.rc"
}
# each harness is one process that keeps one CPU busy, and none times anything
for n in "$@"; do
	rm -f "$dir/fuzz_$n.rc"
	while [ "$(jobs -rp | wc -l)" -ge "$jobs" ]; do wait -n; done
	fuzz "$n" &
done
wait
for n in "$@"; do
	log=$dir/fuzz_$n.log art=$dir/crash/$n/
	rc=$(cat "$dir/fuzz_$n.rc" 2>/dev/null || echo "?")
	runs=$(sed -n 's/^stat::number_of_executed_units: *//p' "$log" | tail -1)
	cov=$(grep -o 'cov: [0-9]*' "$log" | tail -1)
	if [ "$rc" = 0 ]; then
		ktap_ok "fuzz_$n: ${runs:-?} inputs in $secs s, ${cov:-cov: ?}, no crash"
	else
		ktap_fail "fuzz_$n: status $rc after ${runs:-?} inputs; the input is in $art"
		grep -m 1 -A 12 "ERROR: \|runtime error:\|Sanitizer" "$log" | sed 's/^/#   /'
	fi
done
ktap_finish
