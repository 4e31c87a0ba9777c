#!/bin/bash
# Runs each fuzz harness for a set time from its corpus in tests/fuzz/corpus/NAME; KTAP, one
# result per harness (a crash, leak or sanitizer report fails it; its input is kept).
# Usage: tests/fuzz/run.sh FUZZ_DIR SECONDS NAME...
set -u
ROOT=$(cd "$(dirname "$0")/../.." && pwd)
. "$ROOT/tests/lib/ktap.sh"
dir=$1 secs=$2; shift 2
ktap_header "fuzz: $* for $secs s each"
for n in "$@"; do
	seeds=$ROOT/tests/fuzz/corpus/$n work=$dir/corpus/$n art=$dir/crash/$n/
	mkdir -p "$work" "$art"
	log=$dir/fuzz_$n.log
	# new inputs go to the work corpus; the repository's seeds are read only
	"$dir/fuzz_$n" -max_total_time="$secs" -timeout=10 -rss_limit_mb=1024 -print_final_stats=1 \
		-artifact_prefix="$art" "$work" "$seeds" >"$log" 2>&1
	rc=$?
	runs=$(sed -n 's/^stat::number_of_executed_units: *//p' "$log" | tail -1)
	cov=$(grep -o 'cov: [0-9]*' "$log" | tail -1)
	if [ $rc -eq 0 ]; then
		ktap_ok "fuzz_$n: ${runs:-?} inputs in $secs s, ${cov:-cov: ?}, no crash"
	else
		ktap_fail "fuzz_$n: status $rc after ${runs:-?} inputs; the input is in $art"
		grep -m 1 -A 12 "ERROR: \|runtime error:\|Sanitizer" "$log" | sed 's/^/#   /'
	fi
done
ktap_finish
