#!/bin/bash
# The README's demo (its guest part) gives the right answer for its ground truth: txsim tx-usecs 2000.
set -u
ROOT=${ETHTUNE_ROOT:-$(cd "$(dirname "$0")/../.." && pwd)}
. "$ROOT/tests/lib/ktap.sh"
ET=${ETHTUNE:-$ROOT/${O:-build}/ethtune}
. "$ROOT/tests/lab/lib/host.sh"
lab_host_run "$0" "${LAB_DEMO_TIMEOUT:-400}" "demo: diagnose of txsim with 2 ms TX completion coalescing"

# ---- guest ----
export ETHTUNE_STATE_DIR=$(mktemp -d)
ktap_header "demo in the guest ($(uname -r))"
out=$(ETHTUNE="$ET" bash "$ROOT/tests/demo.sh" 2>&1)
rc=$?
printf '%s\n' "$out" | sed 's/^/# /'
[ $rc -eq 0 ] && ktap_ok "the demo ran" || ktap_fail "the demo ran (status $rc)"
h=$(printf '%s\n' "$out" | sed -n 's/^headline: \([a-z-]*\).*/\1/p' | head -1)
[ "$h" = delayed-completion ] && ktap_ok "demo headline: delayed-completion" ||
	ktap_fail "demo headline: delayed-completion (got '$h')"
d=$(printf '%s\n' "$out" | sed -n 's/^completion delay D \([0-9]*\) us.*/\1/p' | head -1)
python3 -c "import sys; sys.exit(0 if abs(${d:--1} - 2000) <= 400 else 1)" &&
	ktap_ok "demo D $d us is within 20% of the configured 2000 us" ||
	ktap_fail "demo D '$d' us is within 20% of the configured 2000 us"
ktap_finish
