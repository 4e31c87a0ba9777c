#!/bin/bash
# Runs every test suite (unit, ns, san, fuzz, lab), prints their KTAP output and one closing
# count line. ETHTUNE_SUITES="unit ns lab" picks suites; ETHTUNE_TEST_FILTER=glob picks files;
# LAB_KERNELS ("stable sid") the guest kernels the lab suite runs on, once each.
# san: the unit and ns suites on an ASan+UBSan build (build/san), every sanitizer report a
# failure; in a run with san an ns file runs only there, unless it says "# san: no" (native
# only) or "# san: also" (both). fuzz: each fuzz harness for ETHTUNE_FUZZ_TIME seconds (15).
set -u
cd "$(dirname "$0")/.."
ROOT=$PWD
# the builds a test starts are its own, not jobs of the make that ran `make check`
unset MAKEFLAGS MFLAGS MAKELEVEL
O=${O:-build}
SUITES=${ETHTUNE_SUITES:-"unit ns san fuzz lab"}
FILTER=${ETHTUNE_TEST_FILTER:-*}
export ETHTUNE="$ROOT/$O/ethtune" ETHTUNE_ROOT="$ROOT" O
pass=0 fail=0 skip=0
# Tests run Debian's python3, which has the modules deps.sh installs (jsonschema, selenium): a
# version manager's python3 on PATH first (pyenv's shim: a bash script, ~250 ms a start, run
# hundreds of times here) has other modules, or none
if [ -x /usr/bin/python3 ]; then
	TBIN=$(mktemp -d /tmp/ethtune-test-bin.XXXXXX)
	ln -s /usr/bin/python3 "$TBIN/python3"
	export PATH="$TBIN:$PATH"
fi
LOG="$ROOT/$O/test-logs"
mkdir -p "$LOG"
FAILED=$(mktemp)
TIMES=$(mktemp)
trap 'rm -f "$FAILED" "$TIMES"; rm -rf "${TBIN:-}"' EXIT
LAB_KERNELS=${LAB_KERNELS:-"stable sid"}
SAN_LATER=""
case " $SUITES " in *" san "*) [ -z "${ETHTUNE_IN_SAN:-}" ] && SAN_LATER=1 ;; esac

# The lab's setup (downloads, the sid chroot: minutes when fresh) starts now for every kernel, in
# the background and niced, so that it overlaps the host suites; each lab file's own setup then
# waits on that kernel's lock.
case " $SUITES " in
*" lab "*)
	for k in $LAB_KERNELS; do
		LAB_KERNEL=$k nice -n 19 tests/lab/vm.sh setup >"$LOG/lab-setup-$k.log" 2>&1 &
	done ;;
esac

count() {	# count NAME FILE: KTAP/TAP result lines of one test file's output
	local name=$1 f=$2 p fl s
	s=$(grep -Ec '^ *ok [0-9]+ .*# *(SKIP|skip)' "$f")
	p=$(grep -Ec '^ *ok [0-9]+' "$f")
	fl=$(grep -Ec '^ *not ok [0-9]+' "$f")
	pass=$((pass + p - s)); skip=$((skip + s)); fail=$((fail + fl))
	last_fail=$fl
	# repeated above the count line, so that a log cut to its tail still names them
	grep -E '^ *not ok [0-9]+' "$f" | sed "s|^ *|$name: |" >>"$FAILED"
}

# exec_one NAME TIMEOUT CMD...: runs one file, its output and status kept for report_one
exec_one() {
	local name=$1 to=$2 out t0=$SECONDS; shift 2
	out="$LOG/$(echo "$name" | tr '/' '_').log"
	timeout -k 10 "$to" "$@" >"$out" 2>&1
	echo $? >"$out.rc"
	echo $((SECONDS - t0)) >"$out.secs"
}

# report_one NAME: prints a file's output and counts it; a file that exits non-zero without a
# failed line fails once
report_one() {
	local name=$1 out rc secs
	out="$LOG/$(echo "$name" | tr '/' '_').log"
	rc=$(cat "$out.rc") secs=$(cat "$out.secs")
	rm -f "$out.rc" "$out.secs"
	echo "# ---- $name"
	cat "$out"
	echo "# ---- $name: $secs s"
	echo "$secs $name" >>"$TIMES"
	count "$name" "$out"
	if [ "$rc" -ne 0 ] && [ "$last_fail" -eq 0 ]; then
		echo "not ok - $name exited with status $rc"
		echo "$name: exited with status $rc" >>"$FAILED"
		fail=$((fail + 1))
	fi
}

run_one() {	# run_one NAME TIMEOUT CMD...
	exec_one "$@"
	report_one "$1"
}

# The unit and ns files of a suite run ETHTUNE_JOBS (2; make check-quick 4) at a time, their
# reports in order once all have run: most of them wait on timeouts and fixed-length flows, not
# on a CPU. A file that says "# jobs: alone" (it compares speeds, or holds something to a bound
# in time) runs by itself. The lab runs one file at a time.
JOBS=${ETHTUNE_JOBS:-2}
# ETHTUNE_POOL=one (make check-quick): the unit and ns suites share one pool, run once both are
# queued, so that unit's build checks overlap ns's flows; the files alone run first
POOL=${ETHTUNE_POOL:-suite}
QUEUE=()
run_pooled() {	# run_pooled NAME TIMEOUT CMD...: run_one, or queued for the suite's pool
	if [ "$JOBS" -gt 1 ]; then QUEUE+=("$(printf '%q ' "$@")"); else run_one "$@"; fi
}
# the longest first, by tests/timing.ref (a file it does not know counts as a minute), so that
# a long file does not start last and run on alone
by_length() {	# by_length: the queue's entries, longest first
	local j
	for j in "${QUEUE[@]}"; do
		printf '%s\t%s\n' "$(awk -v n="${j%% *}" '$2 == n { print $1; f = 1 }
			END { if (!f) print 60 }' tests/timing.ref 2>/dev/null || echo 60)" "$j"
	done | sort -t "$(printf '\t')" -k1,1rn -s | cut -f2-
}
run_pool() {	# runs and reports what run_pooled queued
	local j p n pids=()
	[ ${#QUEUE[@]} -gt 0 ] || return 0
	mapfile -t QUEUE < <(by_length)
	for j in "${QUEUE[@]}"; do
		while :; do
			n=0
			for p in "${pids[@]}"; do kill -0 "$p" 2>/dev/null && n=$((n + 1)); done
			[ $n -lt "$JOBS" ] && break
			sleep 0.2
		done
		eval "exec_one $j" &
		pids+=($!)
	done
	for p in "${pids[@]}"; do wait "$p"; done
	for j in "${QUEUE[@]}"; do eval "report_one $j"; done
	QUEUE=()
}
alone() {	# alone FILE: the file must not share the machine with another test file
	grep -q '^# jobs: alone' "$1"
}
export CMOCKA_MESSAGE_OUTPUT=TAP

for suite in $SUITES; do
	case $suite in
	unit)
		for t in "$O"/tests/test_*; do
			[ -x "$t" ] || continue
			case ${t##*/} in $FILTER) ;; *) continue ;; esac
			run_pooled "unit/${t##*/}" 120 "$t"
		done
		# checks of the source tree itself (layering, knowledge in step)
		for t in tests/unit/*.sh; do
			[ -f "$t" ] || continue
			case ${t##*/} in $FILTER) ;; *) continue ;; esac
			# a check of the sources or the build, not of the tool's run, says "# san: no"
			if [ -n "${ETHTUNE_IN_SAN:-}" ] && grep -q '^# san: no' "$t"; then
				echo "# ---- unit/${t##*/}: not under sanitizers (# san: no)"
				continue
			fi
			to=$(sed -n 's/^# timeout: \([0-9]*\)$/\1/p' "$t" | head -1)
			if alone "$t"; then run_one "unit/${t##*/}" "${to:-120}" bash "$t"
			else run_pooled "unit/${t##*/}" "${to:-120}" bash "$t"; fi
		done
		[ "$POOL" = one ] || run_pool ;;
	lab)
		# once per kernel of LAB_KERNELS; a file names the kernels it supports in a
		# "# kernels: stable sid" line (none: stable only); results on sid are lab@sid/FILE.
		# One guest per kernel runs all its files in turn (tests/lab/vm.sh session: a clean
		# guest state for each, a fresh boot after one that died); each file's host part
		# relays its result as it comes. LAB_SESSION=0: a boot per file, as `bash FILE` does.
		for k in $LAB_KERNELS; do
			files=()
			for t in tests/lab/*.sh; do
				[ -f "$t" ] || continue
				case ${t##*/} in $FILTER) ;; *) continue ;; esac
				ks=$(sed -n 's/^# kernels: //p' "$t" | head -1)
				case " ${ks:-stable} " in *" $k "*) files+=("$t") ;; esac
			done
			[ ${#files[@]} -gt 0 ] || continue
			sess="" spid=""
			if [ "${LAB_SESSION:-}" != 0 ]; then
				mkdir -p "$O/lab/runs"
				sess=$(mktemp -d "$ROOT/$O/lab/runs/session-$k.XXXXXX")
				LAB_KERNEL=$k tests/lab/vm.sh session "$sess" "${files[@]}" \
					>"$LOG/lab-session-$k.log" 2>&1 &
				spid=$!
			fi
			for t in "${files[@]}"; do
				to=$(sed -n 's/^# timeout: \([0-9]*\)$/\1/p' "$t" | head -1)
				name=lab/${t##*/}
				[ "$k" = stable ] || name=lab@$k/${t##*/}
				run_one "$name" "${ETHTUNE_TEST_TIMEOUT:-${to:-900}}" \
					env LAB_KERNEL="$k" LAB_SESSION="$sess" bash "$t"
			done
			if [ -n "$spid" ]; then
				wait "$spid"
				# the session's files stay where a file failed (its guests' logs)
				grep -q "^lab.*: exited\|^lab" "$FAILED" || rm -rf "$sess"
			fi
		done ;;
	ns)
		for t in tests/$suite/*.sh; do
			[ -f "$t" ] || continue
			case ${t##*/} in $FILTER) ;; *) continue ;; esac
			# a file that compares speeds says "# san: no": under sanitizers it would time
			# the instrumentation, and the code it runs is the other files' too
			if [ -n "${ETHTUNE_IN_SAN:-}" ] && grep -q '^# san: no' "$t"; then
				echo "# ---- $suite/${t##*/}: not under sanitizers (# san: no)"
				continue
			fi
			# When the san suite follows, every other file runs once, there: the same checks
			# on the same code, with ASan and UBSan watching (natively as well only a file
			# whose numbers are the native run's says "# san: also")
			if [ -n "$SAN_LATER" ] && ! grep -qE '^# san: (no|also)' "$t"; then
				echo "# ---- $suite/${t##*/}: in the san suite (ASan+UBSan build) only"
				continue
			fi
			# a file may name its own limit in a "# timeout: S" line
			to=$(sed -n 's/^# timeout: \([0-9]*\)$/\1/p' "$t" | head -1)
			to=${ETHTUNE_TEST_TIMEOUT:-${to:-900}}
			if alone "$t"; then run_one "$suite/${t##*/}" "$to" bash "$t"
			else run_pooled "$suite/${t##*/}" "$to" bash "$t"; fi
		done
		[ "$POOL" = one ] || run_pool ;;
	san)
		echo "# ---- san: make SAN=1"
		if ! make -s -j"$(nproc)" SAN=1 O=build/san all unit >"$LOG/san-build.log" 2>&1; then
			tail -20 "$LOG/san-build.log"
			echo "not ok - san: the ASan+UBSan build"
			echo "san: the ASan+UBSan build" >>"$FAILED"
			fail=$((fail + 1))
			continue
		fi
		rm -rf "$LOG/san-reports"; mkdir -p "$LOG/san-reports"
		# reports go to files as well, so a test that tolerates a failing exit cannot hide one
		# the signal campaign's statistics are the native run's; under ASan its 4 trials per
		# operation check the same paths for memory errors
		SIG_TRIALS=${SIG_TRIALS:-4} \
		ASAN_OPTIONS=detect_leaks=1:exitcode=86:log_path=$LOG/san-reports/asan \
		UBSAN_OPTIONS=print_stacktrace=1:halt_on_error=1:exitcode=87:log_path=$LOG/san-reports/ubsan \
			O=build/san ETHTUNE_IN_SAN=1 ETHTUNE_SUITES="unit ns" run_one "san/unit+ns" 3600 bash tests/run.sh
		for r in "$LOG"/san-reports/*; do
			[ -f "$r" ] || continue
			echo "not ok - san: sanitizer report ${r##*/}"
			echo "san: sanitizer report ${r##*/}" >>"$FAILED"
			grep -m 1 -A 15 "ERROR\|runtime error" "$r" | sed 's/^/#   /'
			fail=$((fail + 1))
		done ;;
	fuzz)
		echo "# ---- fuzz: make fuzz-build"
		if ! make -s -j"$(nproc)" fuzz-build >"$LOG/fuzz-build.log" 2>&1; then
			tail -20 "$LOG/fuzz-build.log"
			echo "not ok - fuzz: the harnesses build (clang, libFuzzer)"
			echo "fuzz: the harnesses build" >>"$FAILED"
			fail=$((fail + 1))
			continue
		fi
		run_one "fuzz" 1800 bash tests/fuzz/run.sh "$O/fuzz" "${ETHTUNE_FUZZ_TIME:-15}" \
			$(cd tests/fuzz && ls fuzz_*.c | sed 's/^fuzz_//; s/\.c$//') ;;
	esac
done
run_pool	# ETHTUNE_POOL=one: unit's and ns's files, together
# where the time went: the ten slowest files, and any that grew by more than a minute against
# tests/timing.ref (a CI run's times; `tests/run.sh` rewrites it with ETHTUNE_TIMING_REF=write)
if [ -s "$TIMES" ] && [ -z "${ETHTUNE_IN_SAN:-}" ]; then
	echo "# slowest files (s):"
	sort -rn "$TIMES" | head -10 | sed 's/^/#   /'
	awk 'NR == FNR { ref[$2] = $1; next }
	     ($2 in ref) && $1 > ref[$2] + 60 { printf "#   %s: %d s, %d s in tests/timing.ref (+%d)\n", $2, $1, ref[$2], $1 - ref[$2] }
	     !($2 in ref) && $1 > 60 { printf "#   %s: %d s, not in tests/timing.ref\n", $2, $1 }' \
		tests/timing.ref "$TIMES" >"$TIMES.grew" 2>/dev/null
	if [ -s "$TIMES.grew" ]; then
		echo "# files that grew by more than a minute:"
		cat "$TIMES.grew"
	fi
	rm -f "$TIMES.grew"
	[ "${ETHTUNE_TIMING_REF:-}" = write ] && sort -k2 "$TIMES" >tests/timing.ref
	echo "# total: $SECONDS s ($((SECONDS / 60)) min $((SECONDS % 60)) s) for suites: $SUITES"
fi
if [ -s "$FAILED" ] || [ "$fail" -ne 0 ]; then
	echo "# failed:"
	sed 's/^/#   /' "$FAILED"
fi
echo "$pass passed, $fail failed, $skip skipped"
[ "$fail" -eq 0 ]
