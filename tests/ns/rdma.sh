#!/bin/bash
# Host test of `ethtune rdma` where no RDMA device exists: list says so and exits 0, probe and
# caps of a named device fail with one clear line, bad usage exits 2. Skips where devices exist.
set -u
ROOT=${ETHTUNE_ROOT:-$(cd "$(dirname "$0")/../.." && pwd)}
. "$ROOT/tests/lib/ktap.sh"
ET=${ETHTUNE:-$ROOT/${O:-build}/ethtune}
ktap_header "rdma: host without RDMA devices"
if [ -n "$(ls /sys/class/infiniband 2>/dev/null)" ]; then
	ktap_skip "rdma list without devices" "this host has RDMA devices"; ktap_finish; exit
fi
out=$("$ET" rdma list 2>&1); rc=$?
[ $rc -eq 0 ] && [ "$out" = "no RDMA devices" ] && ktap_ok "rdma list says there is none, exit 0" ||
	{ ktap_fail "rdma list says there is none, exit 0 (rc $rc)"; ktap_diag "$out"; }
out=$("$ET" --json rdma list 2>&1); rc=$?
[ $rc -eq 0 ] && printf '%s' "$out" | python3 -c 'import json,sys; assert json.load(sys.stdin)["devices"] == []' 2>/dev/null &&
	ktap_ok "rdma list --json gives an empty device array" ||
	{ ktap_fail "rdma list --json gives an empty device array"; ktap_diag "$out"; }
T=$(mktemp); printf '%s\n' "$out" >"$T"
ktap_schema "rdma list --json fits docs/schema/rdma.json" rdma "$T"; rm -f "$T"
err=$("$ET" rdma probe rxe0 2>&1 >/dev/null); rc=$?
[ $rc -eq 1 ] && [ "$(printf '%s\n' "$err" | wc -l)" -eq 1 ] && printf '%s' "$err" | grep -q "^ethtune: no RDMA device 'rxe0'" &&
	ktap_ok "rdma probe exits 1 with one clear line" ||
	{ ktap_fail "rdma probe exits 1 with one clear line (rc $rc)"; ktap_diag "$err"; }
ktap_diag "$err"
"$ET" rdma caps mlx5_0 >/dev/null 2>&1; rc=$?
[ $rc -eq 1 ] && ktap_ok "rdma caps of a missing device exits 1" || ktap_fail "rdma caps of a missing device exits 1 (rc $rc)"
for args in "rdma" "rdma probe" "rdma frob" "rdma probe rxe0 --depth 0" "rdma probe rxe0 --cq-count 4"; do
	$ET $args >/dev/null 2>&1; rc=$?
	[ $rc -eq 2 ] && ktap_ok "'$args' is a usage error (2)" || ktap_fail "'$args' is a usage error (2), got $rc"
done
ktap_finish
