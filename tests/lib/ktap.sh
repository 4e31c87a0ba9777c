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
ktap_finish() { ktap_schema_flush; echo "1..$KTAP_N"; [ "$KTAP_FAILED" -eq 0 ]; }
# ktap_schema DESC CMD FILE: pass when FILE (a command's --json output) fits docs/schema/CMD.json.
# With KTAP_SCHEMA_BATCH=1 (the lab's guests, where under TCG a python3 start takes 0.4 s and
# importing jsonschema 2.5 s) it keeps a copy of FILE, and the next ktap_schema_flush (ktap_finish
# calls it) checks them all in one python3; their results are numbered where they are printed.
ktap_schema() {
	local d="$1" out
	if [ "${KTAP_SCHEMA_BATCH:-}" = 1 ]; then
		[ -n "${KTAP_SCHEMA_Q:-}" ] || KTAP_SCHEMA_Q=$(mktemp -d /tmp/ktap-schema.XXXXXX)
		KTAP_SCHEMA_NQ=$((${KTAP_SCHEMA_NQ:-0} + 1))
		cat -- "$3" >"$KTAP_SCHEMA_Q/$KTAP_SCHEMA_NQ.json" 2>/dev/null
		printf '%s\t%s\n' "$2" "$d" >>"$KTAP_SCHEMA_Q/list"
		return 0
	fi
	if out=$(python3 "$(dirname "${BASH_SOURCE[0]}")/schema_check.py" "$2" "$3" 2>&1); then ktap_ok "$d"
	else ktap_fail "$d"; printf '%s\n' "$out" | sed 's/^/# /' | head -10; fi
}
# ktap_schema_flush: the results of the checks ktap_schema kept (KTAP_SCHEMA_BATCH=1), in order
# With KTAP_SCHEMA_HOST=DIR (a lab guest's $LAB_OUT/out) the kept documents go there instead, and
# a line "#@ktap-schema NAME" asks the host that relays this output to check them where python3
# starts in 0.1 s (tests/lab/lib/host.sh)
ktap_schema_flush() {
	local q=${KTAP_SCHEMA_Q:-} i=0 cmd d n
	[ -n "$q" ] || return 0
	KTAP_SCHEMA_Q="" KTAP_SCHEMA_NQ=0
	if [ -n "${KTAP_SCHEMA_HOST:-}" ] && mkdir -p "$KTAP_SCHEMA_HOST" &&
		n=$(basename "$q") && cp -r "$q" "$KTAP_SCHEMA_HOST/$n"; then
		rm -rf "$q"
		echo "#@ktap-schema $n"
		return 0
	fi
	python3 "$(dirname "${BASH_SOURCE[0]}")/schema_check.py" --batch "$q" >"$q/res" 2>&1
	while IFS=$'\t' read -r cmd d; do
		i=$((i + 1))
		if grep -qx "$i ok" "$q/res"; then
			ktap_ok "$d"
		else
			ktap_fail "$d"
			grep "^$i " "$q/res" | sed 's/^[0-9]* /# /' | head -10
			# python3 itself failed: its own words
			grep -q '^[0-9]* ' "$q/res" || sed 's/^/# /' "$q/res" | head -10
		fi
	done <"$q/list"
	rm -rf "$q"
}
