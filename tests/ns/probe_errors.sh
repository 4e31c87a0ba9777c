#!/bin/bash
# ethtune probe/serve bad input: unreachable, refused and silent peers, version mismatch, peer
# restarted mid-test, malformed and oversized control messages, out-of-range options, missing
# namespace. Each gives one "ethtune: ..." line and a non-zero exit; serve keeps serving.
set -u
. "$(dirname "$0")/../lib/ktap.sh"
. "$(dirname "$0")/../lib/probe_env.sh"
TMP=$(mktemp -d /tmp/etp-err.XXXXXX)
trap 'pe_cleanup; rm -rf $TMP' EXIT
ktap_header "probe and serve: bad input"
if [ "$(id -u)" -ne 0 ] || ! pe_setup err; then
	ktap_skip "probe error tests" "needs root and network namespaces"; ktap_finish; exit 0
fi
PE_SERVE_LOG=$TMP/serve.log
if ! pe_serve $PE_B; then ktap_fail "serve starts"; ktap_finish; exit 1; fi
SERVE1=$PE_SERVE_PID

# expect_err DESC RC PATTERN CMD...: exit status RC, exactly one stderr line "ethtune: ..PATTERN..".
expect_err() {
	local d=$1 want=$2 pat=$3 rc; shift 3
	"$@" >"$TMP/out" 2>"$TMP/err"; rc=$?
	if [ $rc -eq "$want" ] && [ "$(wc -l <"$TMP/err")" -eq 1 ] && grep -Eq "^ethtune: .*($pat)" "$TMP/err"; then
		ktap_ok "$d"; sed 's/^/#   /' "$TMP/err"
	else
		ktap_fail "$d (rc $rc, want $want)"; sed 's/^/# /' "$TMP/err" | head -5
	fi
}
P() { "$E" --netns $PE_A probe "$@"; }

# Raw control-protocol client/server for malformed input (python: framing by hand).
cat >"$TMP/raw.py" <<'PY'
import socket, struct, sys, json
mode, host, port = sys.argv[1], sys.argv[2], int(sys.argv[3])
def frame(obj): b = json.dumps(obj).encode(); return struct.pack(">I", len(b)) + b
def reply(s):
    s.settimeout(8)
    try:
        h = s.recv(4, socket.MSG_WAITALL)
        if len(h) < 4: return "<closed>"
        return s.recv(struct.unpack(">I", h)[0], socket.MSG_WAITALL).decode()
    except Exception as e: return "<%s>" % e
if mode == "fake-server":	# answers every client with a 16 MiB length, or with silence
    l = socket.socket(); l.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
    l.bind((host, port)); l.listen(8); huge = sys.argv[4] == "huge"; keep = []
    while True:
        c, _ = l.accept(); keep.append(c)
        if huge: c.sendall(struct.pack(">I", 16 << 20) + b"{" * 64)
    sys.exit(0)
s = socket.create_connection((host, port), timeout=5)
hello = {"v": 3, "type": "hello", "version": "test"}
if mode == "garbage": s.sendall(struct.pack(">I", 11) + b"hello world")
elif mode == "oversized": s.sendall(struct.pack(">I", 1 << 20) + b"x" * 100)
elif mode == "http": s.sendall(b"GET / HTTP/1.0\r\n\r\n")
elif mode == "unknown-field": s.sendall(frame(dict(hello, extra=1)))
elif mode == "bad-setup":
    s.sendall(frame(hello)); reply(s)
    s.sendall(frame({"v": 3, "type": "setup", "test": "stream", "flows": 100000, "msg-size": 1,
        "sndbuf": 0, "rcvbuf": 0, "nodelay": False, "cc": "", "cpu": -1, "duration-ms": 1000,
        "warmup-ms": 0}))
elif mode == "silent-client": s.sendall(frame(hello)); reply(s); s.settimeout(30)
print(reply(s))
PY
raw() { ip netns exec $PE_A python3 "$TMP/raw.py" "$@"; }
# expect_reply DESC PATTERN MODE: the server answers a raw client with an error naming PATTERN.
expect_reply() {
	local out; out=$(raw "$3" $PE_IP_B 12866 2>&1)
	if printf '%s' "$out" | grep -Eq "\"error\".*($2)"; then ktap_ok "$1"; echo "#   $out"
	else ktap_fail "$1"; echo "# $out"; fi
}

expect_err "peer refused (no serve on port)" 1 "refused" P --peer $PE_IP_B:12999 --duration 1
start=$(date +%s)
expect_err "peer unreachable (no such host), bounded" 1 "198.18.4.77.*(unreachable|no answer|No route)" \
	timeout 20 "$E" --netns $PE_A probe --peer 198.18.4.77 --duration 1
el=$(( $(date +%s) - start ))
if [ $el -le 8 ]; then ktap_ok "unreachable peer reported within 8 s ($el s)"; else ktap_fail "unreachable peer took $el s"; fi
pe_bg ip netns exec $PE_B python3 "$TMP/raw.py" fake-server $PE_IP_B 12990 silent
pe_bg ip netns exec $PE_B python3 "$TMP/raw.py" fake-server $PE_IP_B 12991 huge
pe_wait_port $PE_B 12990; pe_wait_port $PE_B 12991
expect_err "silent peer: no hello within the timeout" 1 "no hello within" P --peer $PE_IP_B:12990 --duration 1
expect_err "peer sends an oversized control message" 1 "exceeds the 65536-byte limit" P --peer $PE_IP_B:12991 --duration 1
expect_err "version mismatch (client newer)" 1 "version mismatch" \
	env ETHTUNE_TEST_PROTO_VERSION=4 "$E" --netns $PE_A probe --peer $PE_IP_B --duration 1
ETHTUNE_TEST_PROTO_VERSION=4 "$E" --netns $PE_B serve --bind $PE_IP_B --port 12993 >/dev/null 2>&1 &
PE_PIDS="$PE_PIDS $!"; pe_wait_port $PE_B 12993
expect_err "version mismatch (peer newer)" 1 "version mismatch" P --peer $PE_IP_B:12993 --duration 1

expect_reply "serve: malformed JSON rejected" "malformed" garbage
expect_reply "serve: oversized message rejected" "exceeds the 65536-byte limit" oversized
expect_reply "serve: non-protocol bytes (HTTP) rejected" "exceeds|malformed" http
expect_reply "serve: unknown field rejected" "unknown field 'extra'" unknown-field
expect_reply "serve: out-of-range setup rejected" "flows.*out of range" bad-setup

expect_err "duration 0 rejected" 2 "duration" P --peer $PE_IP_B --duration 0
expect_err "duration too long rejected" 2 "duration" P --peer $PE_IP_B --duration 100000
expect_err "flows 0 rejected" 2 "flow count" P --peer $PE_IP_B --flows 0
expect_err "flows 100000 rejected" 2 "flow count" P --peer $PE_IP_B --flows 100000
expect_err "bad duration text rejected" 2 "seconds" P --peer $PE_IP_B --duration 1x
expect_err "iterations MAX < MIN rejected" 2 "iterations" P --peer $PE_IP_B --iterations 5,2
expect_err "rx-poll-usecs over 100 ms rejected" 2 "rx-poll-usecs" P --peer $PE_IP_B --rx-poll-usecs 100001
expect_err "rx-poll-usecs not a number rejected" 2 "rx-poll-usecs" P --peer $PE_IP_B --rx-poll-usecs 5us
expect_err "unknown congestion control" 1 "congestion control 'nosuchcc'" P --peer $PE_IP_B --cc nosuchcc --duration 1
expect_err "nonexistent namespace (probe)" 1 "namespace 'etp-no-such-ns'" \
	"$E" --netns etp-no-such-ns probe --peer $PE_IP_B --duration 1
expect_err "nonexistent namespace (serve)" 1 "namespace 'etp-no-such-ns'" \
	"$E" --netns etp-no-such-ns serve --once
ktap_check "serve survived every bad client and still serves" P --peer $PE_IP_B --duration 0.5 --warmup 0.1

# Peer restarted mid-test: kill the daemon during a 6 s run, start a new one.
P --peer $PE_IP_B --duration 6 --warmup 0.5 >"$TMP/out" 2>"$TMP/err" &
probe=$!
sleep 2
kill $SERVE1; wait $SERVE1 2>/dev/null
pe_serve $PE_B
wait $probe; rc=$?
if [ $rc -eq 1 ] && [ "$(wc -l <"$TMP/err")" -eq 1 ] && grep -q "^ethtune: peer $PE_IP_B: .*\(mid-test\|reset\|closed\)" "$TMP/err"; then
	ktap_ok "peer restarted mid-test: one error line"; sed 's/^/#   /' "$TMP/err"
else
	ktap_fail "peer restarted mid-test (rc $rc)"; sed 's/^/# /' "$TMP/err"
fi
ktap_check "the restarted serve answers the next probe" P --peer $PE_IP_B --duration 0.5 --warmup 0.1

# A second client during a test is told the peer is busy; the first one is unaffected.
P --peer $PE_IP_B --duration 3 --warmup 0.2 >/dev/null 2>"$TMP/err1" &
first=$!
sleep 1
expect_err "second client while a test runs: busy" 1 "busy" P --peer $PE_IP_B --duration 1
if wait $first; then ktap_ok "the running test completes"; else ktap_fail "the running test completes"; sed 's/^/# /' "$TMP/err1"; fi

# Peer silent mid-test (its session stopped): bounded by the data socket timeout.
P --peer $PE_IP_B --duration 60 --warmup 0.2 >/dev/null 2>"$TMP/err" &
probe=$!
sleep 1.5
sess=$(pgrep -P $PE_SERVE_PID | head -1)
[ -n "$sess" ] && kill -STOP $sess
start=$(date +%s)
wait $probe; rc=$?
el=$(( $(date +%s) - start ))
[ -n "$sess" ] && { kill -CONT $sess; kill $sess; } 2>/dev/null
if [ -n "$sess" ] && [ $rc -eq 1 ] && [ $el -le 20 ] && [ "$(wc -l <"$TMP/err")" -eq 1 ] && grep -q "^ethtune: peer $PE_IP_B: .*silent" "$TMP/err"; then
	ktap_ok "peer silent mid-test: error after $el s"; sed 's/^/#   /' "$TMP/err"
else
	ktap_fail "peer silent mid-test (rc $rc, $el s, session '$sess')"; sed 's/^/# /' "$TMP/err"
fi
ktap_check "serve answers after the stopped session" bash -c "sleep 1; '$E' --netns $PE_A probe --peer $PE_IP_B --duration 0.3 --warmup 0"

# Peer killed mid-test (kill -9 of its session, as a crash or the OOM killer would): one error
# line well within the timeout, no hang; serve itself goes on.
P --peer $PE_IP_B --duration 60 --warmup 0.2 >/dev/null 2>"$TMP/err" &
probe=$!
sleep 1.5
sess=$(pgrep -P $PE_SERVE_PID | head -1)
[ -n "$sess" ] && kill -9 $sess
start=$(date +%s)
wait $probe; rc=$?
el=$(( $(date +%s) - start ))
if [ -n "$sess" ] && [ $rc -eq 1 ] && [ $el -le 20 ] && [ "$(wc -l <"$TMP/err")" -eq 1 ] && grep -q "^ethtune: peer $PE_IP_B: " "$TMP/err"; then
	ktap_ok "peer killed mid-test: one error line after $el s"; sed 's/^/#   /' "$TMP/err"
else
	ktap_fail "peer killed mid-test (rc $rc, $el s, session '$sess')"; sed 's/^/# /' "$TMP/err"
fi
ktap_check "serve answers after the killed session" bash -c "sleep 1; '$E' --netns $PE_A probe --peer $PE_IP_B --duration 0.3 --warmup 0"

# The data flow black-holed about 2.7 s before the window's end (warmup 1 + 5 s): the peer's
# veth takes its MTU down to 1280, so it drops every full-size data segment (and their
# retransmissions) while the small control messages still pass. The window's result must come
# back without waiting for TCP's backed-off retransmissions (eng_finish's FINISH_GRACE_S), and
# serve takes the next client. The margin is wide because a loaded machine (files pooled, the
# sanitizers) can start the probe's window late or this shell's commands late, and a black hole
# after the window's end tests nothing (the check wants drops).
mtu=$(ip -n $PE_B -o link show $PE_VB | grep -o 'mtu [0-9]*' | cut -d' ' -f2)
P --peer $PE_IP_B --duration 5 --warmup 1 --json >"$TMP/bh.json" 2>"$TMP/bh.err" &
probe=$!
sleep 3.3
ip -n $PE_B link set $PE_VB mtu 1280
d0=$(ip netns exec $PE_B cat /sys/class/net/$PE_VB/statistics/rx_dropped)
start=$(date +%s.%N)
wait $probe; rc=$?
el=$(awk -v a="$start" -v b="$(date +%s.%N)" 'BEGIN { printf "%.1f", b - a }')
d1=$(ip netns exec $PE_B cat /sys/class/net/$PE_VB/statistics/rx_dropped)
ip -n $PE_B link set $PE_VB mtu "$mtu"
ktap_diag "black hole: the peer dropped $((d1 - d0)) segments; the probe returned after $el s"
if [ $rc -eq 0 ] && [ $((d1 - d0)) -gt 0 ] && python3 -c 'import json,sys; json.load(open(sys.argv[1]))' "$TMP/bh.json" &&
	awk -v e="$el" 'BEGIN { exit !(e < 10) }'; then
	ktap_ok "a data flow stalled at the window's end: the result after $el s"
else
	ktap_fail "a data flow stalled at the window's end (rc $rc after $el s)"; sed 's/^/# /' "$TMP/bh.err" | head -5
fi
ktap_check "serve answers after the stalled flow" bash -c "'$E' --netns $PE_A probe --peer $PE_IP_B --duration 0.3 --warmup 0 >/dev/null"

# A client that goes silent after hello must not keep serve from the next one for long.
raw silent-client $PE_IP_B 12866 >/dev/null 2>&1 &
sc=$!
sleep 0.5
ok=0
for i in $(seq 40); do P --peer $PE_IP_B --duration 0.3 --warmup 0 >/dev/null 2>&1 && { ok=1; break; }; sleep 0.5; done
kill $sc 2>/dev/null; wait $sc 2>/dev/null
if [ $ok = 1 ]; then ktap_ok "silent client times out; serve takes the next client"; else ktap_fail "serve stuck behind a silent client"; fi
ktap_finish
