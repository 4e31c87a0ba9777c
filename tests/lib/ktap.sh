# KTAP helpers for shell tests: source it, then ktap_header, ktap_ok/fail/skip, ktap_finish.
KTAP_N=0
KTAP_FAILED=0
ktap_header() { echo "KTAP version 1"; echo "# $*"; }
ktap_ok() { KTAP_N=$((KTAP_N + 1)); echo "ok $KTAP_N $*"; }
ktap_fail() { KTAP_N=$((KTAP_N + 1)); KTAP_FAILED=$((KTAP_FAILED + 1)); echo "not ok $KTAP_N $*"; }
ktap_skip() { local d="$1"; shift; KTAP_N=$((KTAP_N + 1)); echo "ok $KTAP_N $d # SKIP $*"; }
ktap_diag() { echo "# $*"; }
# ktap_check DESC CMD...: pass when CMD exits 0; its output goes to diagnostics on failure.
ktap_check() {
	local d="$1" out; shift
	if out=$("$@" 2>&1); then ktap_ok "$d"; else ktap_fail "$d"; printf '%s\n' "$out" | sed 's/^/# /' | head -20; fi
}
# ktap_check_fail DESC CMD...: pass when CMD exits non-zero (bad-input tests).
ktap_check_fail() {
	local d="$1" out; shift
	if out=$("$@" 2>&1); then ktap_fail "$d (unexpected success)"; printf '%s\n' "$out" | sed 's/^/# /' | head -20
	else ktap_ok "$d"; printf '%s\n' "$out" | head -3 | sed 's/^/#   /'; fi
}
ktap_finish() { echo "1..$KTAP_N"; [ "$KTAP_FAILED" -eq 0 ]; }
# ktap_schema DESC CMD FILE: pass when FILE (a command's --json output) fits docs/schema/CMD.json.
ktap_schema() {
	local d="$1" out
	if out=$(python3 "$(dirname "${BASH_SOURCE[0]}")/schema_check.py" "$2" "$3" 2>&1); then ktap_ok "$d"
	else ktap_fail "$d"; printf '%s\n' "$out" | sed 's/^/# /' | head -10; fi
}
