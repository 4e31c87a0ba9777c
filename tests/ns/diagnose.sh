#!/bin/bash
# sweep tsq and diagnose on a host veth pair: software-device verdict, restore, bad input.
# jobs: alone (its sweep frags flips net.core.high_order_alloc_disable, which every namespace shares)
set -u
. "$(dirname "$0")/../lib/ktap.sh"
. "$(dirname "$0")/../lib/veth.sh"
E=${ETHTUNE:-build/ethtune}
A=et-dga-$$ B=et-dgb-$$
export ETHTUNE_STATE_DIR=$(mktemp -d /tmp/ethtune-dg.XXXXXX)
cleanup() { [ -n "${SPID:-}" ] && kill $SPID 2>/dev/null; ip netns del $A 2>/dev/null; ip netns del $B 2>/dev/null; rm -rf "$ETHTUNE_STATE_DIR"; }
trap cleanup EXIT
ktap_header "sweep tsq, diagnose and tune on a veth pair"
veth_ns_or_exit diagnose $A $B dga dgb 198.18.7.1 198.18.7.2
ip netns exec $B "$E" serve --bind 198.18.7.2 >/dev/null 2>&1 &
SPID=$!
sleep 0.5
# A distinct value shows that the sweep puts the namespace's own setting back.
ip netns exec $A sysctl -qw net.ipv4.tcp_limit_output_bytes=1234567

out=$(ip netns exec $A "$E" --json sweep tsq dga --peer 198.18.7.2 --duration 0.5 --warmup 0.2 --points 4 --svg "$ETHTUNE_STATE_DIR/d.svg" --html "$ETHTUNE_STATE_DIR/sweep.html" 2>&1)
ktap_check "sweep tsq: JSON with points and a fit" python3 -c '
import json,sys; d=json.loads(sys.argv[1]); s=d["tsq-sweep"]
assert len(s["points"]) >= 4, s; assert all(p["mbps"] > 0 for p in s["points"]); assert "fit" in s or s["fit-failed"]' "$out"
printf '%s\n' "$out" >"$ETHTUNE_STATE_DIR/sweep.json"
ktap_schema "sweep tsq --json fits docs/schema/sweep.json" sweep "$ETHTUNE_STATE_DIR/sweep.json"
ktap_check "sweep tsq restored tcp_limit_output_bytes" bash -c "[ \$(ip netns exec $A sysctl -n net.ipv4.tcp_limit_output_bytes) = 1234567 ]"
ktap_check "journal empty after the sweep" bash -c "'$E' restore --list | grep -q empty"
ktap_check "sweep tsq wrote an SVG plot" grep -q "<polyline" "$ETHTUNE_STATE_DIR/d.svg"
# sweep frags: order-3 against order-0 page frags (the kernel-wide sysctl, set from the namespace
# this test runs in and put back): frags per skb at veth's xmit differ significantly.
hoad0=$(cat /proc/sys/net/core/high_order_alloc_disable 2>/dev/null)
if [ -n "$hoad0" ]; then
	out=$("$E" --netns $A --json sweep frags dga --peer 198.18.7.2 --duration 0.5 --warmup 0.2 --reps 5 2>&1)
	printf '%s\n' "$out" >"$ETHTUNE_STATE_DIR/frags.json"
	ktap_check "sweep frags: order-0 carries more frags per skb than order-3 (paired t at the sweep's level)" python3 -c '
import json,sys; d=json.load(open(sys.argv[1]))["frag-sweep"]; p=d["points"]
print("# order-3 %.2f frags of ~%.0f B, %.0f Mbit/s, %.1f%% CPU/Gbit; order-0 %.2f of ~%.0f B, %.0f Mbit/s, %.1f%%; p %.4f, %d passes" % (p[0]["frags-per-skb"], p[0]["bytes-per-frag"], p[0]["mbps"], p[0]["cpu-pct-per-gbit"], p[1]["frags-per-skb"], p[1]["bytes-per-frag"], p[1]["mbps"], p[1]["cpu-pct-per-gbit"], d["frags-p"], d["passes"]))
assert p[1]["frags-per-skb"] > p[0]["frags-per-skb"] and d["frags-p"] < d["sig-p"]' "$ETHTUNE_STATE_DIR/frags.json"
	ktap_schema "sweep frags --json fits docs/schema/sweep.json" sweep "$ETHTUNE_STATE_DIR/frags.json"
	ktap_check "sweep frags put high_order_alloc_disable back ($hoad0), journal empty" bash -c \
		"[ \$(cat /proc/sys/net/core/high_order_alloc_disable) = $hoad0 ] && '$E' restore --list | grep -q empty"
else
	ktap_skip "sweep frags" "no net.core.high_order_alloc_disable here"
fi
# The HTML report in headless Chromium: the TSQ chart drawn (points and the fitted curve) and labelled.
ktap_check "sweep tsq --html: the page's charts drawn and labelled in Chromium, no console error" \
	timeout 120 /usr/bin/python3 tests/lib/html_check.py "$ETHTUNE_STATE_DIR/sweep.html" "$ETHTUNE_STATE_DIR/sweep.png" 1

start=$(date +%s.%N)
out=$(ip netns exec $A "$E" --json diagnose dga --peer 198.18.7.2 --html "$ETHTUNE_STATE_DIR/diag.html" 2>&1)
el=$(awk -v a="$start" -v b="$(date +%s.%N)" 'BEGIN { printf "%.1f", b - a }')
ktap_check "diagnose: veth is a software device" python3 -c '
import json,sys; d=json.loads(sys.argv[1]); assert d["verdict"]=="software-device", d["verdict"]
f=[x for x in d["findings"] if x["name"] == "software-device"]; assert f and f[0]["evidence"], d["findings"]' "$out"
printf '%s\n' "$out" >"$ETHTUNE_STATE_DIR/diagnose.json"
ktap_schema "diagnose --json fits docs/schema/diagnose.json" diagnose "$ETHTUNE_STATE_DIR/diagnose.json"
ktap_diag "diagnose took $el s on the host veth pair"
ktap_check "diagnose --html: the page names the verdict and draws what it has in Chromium" bash -c \
	"grep -q 'verdict: <b>software-device' '$ETHTUNE_STATE_DIR/diag.html' && timeout 120 /usr/bin/python3 tests/lib/html_check.py '$ETHTUNE_STATE_DIR/diag.html' '$ETHTUNE_STATE_DIR/diag.png' 0"
# txlat's histogram in the JSON and on the page (without BPF txlat says why, and there is none)
if python3 -c 'import json,sys; sys.exit(0 if json.load(open(sys.argv[1]))["txlat"].get("histogram") else 1)' "$ETHTUNE_STATE_DIR/diagnose.json"; then
	ktap_check "diagnose --json: txlat's histogram, drawn on the page" bash -c \
		"grep -q 'xmit-to-free latency under request/response' '$ETHTUNE_STATE_DIR/diag.html'"
else
	ktap_skip "diagnose --json: txlat's histogram, drawn on the page" "txlat: $(python3 -c 'import json,sys; print(json.load(open(sys.argv[1]))["txlat"].get("error", "no histogram"))' "$ETHTUNE_STATE_DIR/diagnose.json")"
fi
# the contract is the budget (--budget, 40 s by default), not a speed: 1.5x of it for setup
ktap_check "diagnose keeps to its budget (40 s, 1.5x for setup: $el s)" awk -v e="$el" 'BEGIN { exit !(e < 1.5 * 40) }'
ktap_check "diagnose restored tcp_limit_output_bytes" bash -c "[ \$(ip netns exec $A sysctl -n net.ipv4.tcp_limit_output_bytes) = 1234567 ]"

# SIGINT in the middle of a sweep puts the sysctl back at once.
ip netns exec $A "$E" sweep tsq dga --peer 198.18.7.2 --duration 2 --points 5 >/dev/null 2>&1 &
p=$!
sleep 1.5; kill -INT $p; wait $p 2>/dev/null
ktap_check "SIGINT during a sweep restores the sysctl" bash -c "[ \$(ip netns exec $A sysctl -n net.ipv4.tcp_limit_output_bytes) = 1234567 ]"

one_line() { local pat=$1 err rc; shift; err=$("$@" 2>&1 >/dev/null); rc=$?
	[ $rc -ne 0 ] && [ "$(printf '%s\n' "$err" | wc -l)" -eq 1 ] && printf '%s\n' "$err" | grep -q -- "$pat" || { echo "rc=$rc: $err"; return 1; }; echo "# $err"; }
ktap_check "diagnose without --peer" one_line "missing --peer" ip netns exec $A "$E" diagnose dga
ktap_check "diagnose unknown device" one_line "no such device" ip netns exec $A "$E" diagnose nodev0 --peer 198.18.7.2
ktap_check "sweep with an unknown kind" one_line "unknown sweep" "$E" sweep rings dga --peer 198.18.7.2
ktap_check "sweep coalesce without values" one_line "has no --values" "$E" sweep coalesce dga --peer 1.2.3.4 --param tx-usecs
ktap_check "sweep coalesce on a device without coalescing" one_line "does not support coalesce" ip netns exec $A "$E" sweep coalesce dga --peer 198.18.7.2 --param tx-usecs --values 0,16
ktap_check "tune on a device without coalescing" one_line "no coalescing" ip netns exec $A "$E" tune dga --peer 198.18.7.2
ktap_check "peer that does not answer" one_line "198.18.7.9" ip netns exec $A "$E" sweep tsq dga --peer 198.18.7.9 --duration 0.5 --points 3
ktap_check "sysctl unchanged after the failed sweep" bash -c "[ \$(ip netns exec $A sysctl -n net.ipv4.tcp_limit_output_bytes) = 1234567 ]"
ktap_finish
