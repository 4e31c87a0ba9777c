# Host side of a lab test: boot the guest, run the same test file there, relay its KTAP lines.
# Usage (in a test file, before its guest part):
#   . "$ROOT/tests/lab/lib/host.sh"; lab_host_run "$0" TIMEOUT "description"  (exits on the host)
# What the guest writes under $LAB_OUT/out comes back to $O/lab-out/NAME-KERNEL; a test that
# defines lab_host_after() before lab_host_run gets that directory there, to check on the host
# what the guest cannot (a page in the host's Chromium).
# A lab that cannot be set up: a skip on a developer's machine, a failure under CI=true (the
# verdict checks it carries are never skipped there).
lab_unavailable() {
	if [ "${CI:-}" = true ]; then ktap_fail "$1 ($2)"; else ktap_skip "$1" "$2"; fi
}

# lab_session_result NAME: the file's result from the lab session that runs it (tests/run.sh
# starts one guest per kernel for all its files: tests/lab/vm.sh session), relayed as the file's
# own; exits
lab_session_result() {
	local name=$1 s=$LAB_SESSION r=$LAB_SESSION/res/$1 odir rc l
	odir=$ROOT/${O:-build}/lab-out/$name-${LAB_KERNEL:-stable}
	until [ -f "$s/setup.rc" ] && { [ "$(cat "$s/setup.rc")" != 0 ] || [ -f "$r/rc" ]; }; do
		if ! kill -0 "$(cat "$s/pid" 2>/dev/null)" 2>/dev/null && [ ! -f "$r/rc" ]; then
			ktap_fail "$name: the lab session ended before it ran (see $s)"
			ktap_finish; exit 1
		fi
		sleep 1
	done
	if [ "$(cat "$s/setup.rc")" != 0 ]; then
		lab_unavailable "$name lab" "lab setup failed; see $s/setup.log"
		sed 's/^/# /' "$s/setup.log" | tail -20
		ktap_finish; exit 0
	fi
	[ -x "$ET" ] || { ktap_fail "ethtune is built ($ET)"; ktap_finish; exit 1; }
	if [ -f "$s/notes.$name" ]; then
		while IFS= read -r l; do ktap_diag "$l"; done <"$s/notes.$name"
	fi
	rc=$(cat "$r/rc")
	rm -rf "$odir"
	[ -d "$r/out" ] && mkdir -p "$odir" && cp -r "$r/out/." "$odir/"
	lab_relay "$rc" <"$r/output"
}

# lab_relay STATUS: a guest run's KTAP on stdin, numbered as this file's; its closing checks
lab_relay() {
	local l d
	while IFS= read -r l; do
		case $l in
		"ok "*" # SKIP "*) d=${l#ok * }; ktap_skip "${d%% # SKIP *}" "${d#* # SKIP }" ;;
		"ok "*) d=${l#ok }; ktap_ok "${d#* }" ;;
		"not ok "*) d=${l#not ok }; ktap_fail "${d#* }" ;;
		"KTAP version"*|"1.."*) ;;
		"#@ktap-schema "*) KTAP_SCHEMA_Q=$odir/${l#* } ktap_schema_flush ;;
		"# "*) ktap_diag "${l#\# }" ;;
		*) ktap_diag "$l" ;;
		esac
	done
	[ "$1" -eq 0 ] || [ "$KTAP_FAILED" -gt 0 ] || ktap_fail "guest run finished (status $1)"
	if declare -F lab_host_after >/dev/null; then lab_host_after "$odir"; fi
	ktap_finish
	exit
}

lab_host_run() {
	local file timeout=$2 desc=$3 out rc l d name try slog odir
	[ -n "${LAB_GUEST:-}" ] && return 0
	# a lab session asks each file for its guest time limit before it boots (vm.sh session)
	[ -n "${LAB_SESSION_PLAN:-}" ] && { echo "$timeout"; exit 0; }
	file=$(cd "$(dirname "$1")" && pwd)/$(basename "$1")
	name=$(basename "$file" .sh)
	ktap_header "$desc"
	if [ -n "${LAB_SESSION:-}" ]; then
		lab_session_result "$name"
		return
	fi
	if [ ! -x "$ROOT/tests/lab/vm.sh" ] || ! command -v qemu-system-x86_64 >/dev/null; then
		lab_unavailable "$name lab" "no lab (tests/lab/vm.sh or qemu missing)"; ktap_finish; exit 0
	fi
	slog=${O:-build}/lab-$name-${LAB_KERNEL:-stable}-setup.log
	if ! "$ROOT/tests/lab/vm.sh" setup >"$ROOT/$slog" 2>&1; then
		lab_unavailable "$name lab" "lab setup failed; see $slog"
		sed 's/^/# /' "$ROOT/$slog" | tail -20
		ktap_finish; exit 0
	fi
	[ -x "$ET" ] || { ktap_fail "ethtune is built ($ET)"; ktap_finish; exit 1; }
	# A guest kernel that fails on the emulated platform reports status 126: its emulated CPUs
	# locked up (qemu TCG; seen in the virtio_net parts of tune.sh and diagnose after many clean
	# runs; softlockup_panic ends it within seconds), or it trapped on an int3 that live code
	# patching had already taken out (sid's 7.2 under MTTCG, as BPF programs attach). The file
	# then runs once more in a fresh guest, and the report is shown (the whole console of any
	# guest that died is kept in $O/lab-dead-*.console.log). Any other failure, and a second
	# one of these, count as they are.
	odir=$ROOT/${O:-build}/lab-out/$name-${LAB_KERNEL:-stable}
	for try in 1 2; do
		rm -rf "$odir"
		out=$("$ROOT/tests/lab/vm.sh" run --timeout "$timeout" --out "$odir" -- \
			env ETHTUNE="$ET" bash "$file" 2>&1)
		rc=$?
		[ $rc -eq 126 ] && [ $try -eq 1 ] || break
		ktap_diag "the guest kernel failed on the emulator (a soft lockup, or a stale int3 of" \
			"code patching) in the first run; running $name again:"
		grep -ao 'BUG: soft lockup.*\|int3: 0000.*\|Kernel panic.*\|RIP: 0010.*' <<<"$out" |
			awk '!s[$0]++' |
			head -n 3 | sed 's/^/  /' |
			while IFS= read -r l; do ktap_diag "$l"; done
	done
	lab_relay "$rc" <<<"$out"
}
