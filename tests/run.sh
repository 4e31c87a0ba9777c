#!/bin/bash
# Runs every test suite (unit, ns, lab), prints their KTAP output and one closing count line.
# ETHTUNE_SUITES="unit ns lab" picks suites; ETHTUNE_TEST_FILTER=glob picks files.
set -u
cd "$(dirname "$0")/.."
ROOT=$PWD
O=${O:-build}
SUITES=${ETHTUNE_SUITES:-"unit ns lab"}
FILTER=${ETHTUNE_TEST_FILTER:-*}
export ETHTUNE="$ROOT/$O/ethtune" ETHTUNE_ROOT="$ROOT" O
pass=0 fail=0 skip=0
LOG="$ROOT/$O/test-logs"
mkdir -p "$LOG"

count() {	# count KTAP/TAP result lines of one test file's output
	local f=$1 p fl s
	s=$(grep -Ec '^ *ok [0-9]+ .*# *(SKIP|skip)' "$f")
	p=$(grep -Ec '^ *ok [0-9]+' "$f")
	fl=$(grep -Ec '^ *not ok [0-9]+' "$f")
	pass=$((pass + p - s)); skip=$((skip + s)); fail=$((fail + fl))
	last_fail=$fl
}

run_one() {	# run_one NAME TIMEOUT CMD...: a file that exits non-zero without a failed line fails once
	local name=$1 to=$2 out rc t0=$SECONDS; shift 2
	out="$LOG/$(echo "$name" | tr '/' '_').log"
	echo "# ---- $name"
	timeout -k 10 "$to" "$@" >"$out" 2>&1
	rc=$?
	cat "$out"
	echo "# ---- $name: $((SECONDS - t0)) s"
	count "$out"
	if [ $rc -ne 0 ] && [ "$last_fail" -eq 0 ]; then
		echo "not ok - $name exited with status $rc"
		fail=$((fail + 1))
	fi
}

for suite in $SUITES; do
	case $suite in
	unit)
		for t in "$O"/tests/test_*; do
			[ -x "$t" ] || continue
			case ${t##*/} in $FILTER) ;; *) continue ;; esac
			CMOCKA_MESSAGE_OUTPUT=TAP run_one "unit/${t##*/}" 120 "$t"
		done
		# checks of the source tree itself (layering, knowledge in step)
		for t in tests/unit/*.sh; do
			[ -f "$t" ] || continue
			case ${t##*/} in $FILTER) ;; *) continue ;; esac
			run_one "unit/${t##*/}" 120 bash "$t"
		done ;;
	ns|lab)
		for t in tests/$suite/*.sh; do
			[ -f "$t" ] || continue
			case ${t##*/} in $FILTER) ;; *) continue ;; esac
			# a file may name its own limit in a "# timeout: S" line
			to=$(sed -n 's/^# timeout: \([0-9]*\)$/\1/p' "$t" | head -1)
			run_one "$suite/${t##*/}" "${ETHTUNE_TEST_TIMEOUT:-${to:-900}}" bash "$t"
		done ;;
	esac
done
echo "$pass passed, $fail failed, $skip skipped"
[ "$fail" -eq 0 ]
