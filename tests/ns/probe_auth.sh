#!/bin/bash
# ethtune serve against strangers: loopback by default, a shared key (HMAC challenge-response
# both ways), data connections bound to their session, per-client limits, and no root kept.
set -u
. "$(dirname "$0")/../lib/ktap.sh"
. "$(dirname "$0")/../lib/probe_env.sh"
TMP=$(mktemp -d /tmp/etp-auth.XXXXXX)
trap 'pe_cleanup; rm -rf $TMP' EXIT
ktap_header "serve: bind, key, session-bound data connections, limits, privileges"
if [ "$(id -u)" -ne 0 ] || ! pe_setup auth; then
	ktap_skip "serve hardening tests" "needs root and network namespaces"; ktap_finish; exit 0
fi
P() { "$E" --netns $PE_A probe --duration 0.3 --warmup 0 "$@"; }
# expect_err DESC PATTERN CMD...: exit status 1, exactly one stderr line "ethtune: ..PATTERN..".
expect_err() {
	local d=$1 pat=$2 rc; shift 2
	"$@" >"$TMP/out" 2>"$TMP/err"; rc=$?
	if [ $rc -eq 1 ] && [ "$(wc -l <"$TMP/err")" -eq 1 ] && grep -Eq "^ethtune: .*($pat)" "$TMP/err"; then
		ktap_ok "$d"; sed 's/^/#   /' "$TMP/err"
	else
		ktap_fail "$d (rc $rc, want 1)"; sed 's/^/# /' "$TMP/err" | head -5
	fi
}
# serve_on PORT ARGS...: a serve in $PE_B, waited for; its pid in SP
serve_on() {
	local port=$1; shift
	"$E" --netns $PE_B serve --port "$port" "$@" >"$TMP/serve.$port.out" 2>"$TMP/serve.$port.err" &
	SP=$!; PE_PIDS="$PE_PIDS $SP"
	pe_wait_port $PE_B "$port"
}
stop() { kill "$1" 2>/dev/null; wait "$1" 2>/dev/null; }

# --- where it listens ---
serve_on 12870
l=$(ip netns exec $PE_B ss -Hltn "sport = :12870" | awk '{print $4}')
[ "$l" = "127.0.0.1:12870" ] && ktap_ok "serve without --bind listens on loopback only ($l)" ||
	ktap_fail "serve without --bind listens on loopback only (got '$l')"
expect_err "a client on the wire cannot reach the default serve" "refused" P --peer $PE_IP_B:12870
stop $SP
serve_on 12871 --bind any
l=$(ip netns exec $PE_B ss -Hltn "sport = :12871" | awk '{print $4}')
case $l in "*:12871"|"[::]:12871"|"0.0.0.0:12871") ktap_ok "--bind any listens on every address ($l)" ;;
*) ktap_fail "--bind any listens on every address (got '$l')" ;; esac
ktap_check "--bind any serves a client on the wire" P --peer $PE_IP_B:12871
stop $SP

# --- privileges ---
serve_on 12872 --bind $PE_IP_B
st=/proc/$(pgrep -f -- "serve --port 12872" | head -1)/status
uid=$(awk '/^Uid:/ {print $3}' "$st" 2>/dev/null); cap=$(awk '/^CapEff:/ {print $2}' "$st" 2>/dev/null)
bnd=$(awk '/^CapBnd:/ {print $2}' "$st" 2>/dev/null)
[ "$uid" = 65534 ] && [ "$cap" = 0000000000001000 ] && [ "$bnd" = 0000000000000000 ] &&
	ktap_ok "serve started as root runs as nobody with CAP_NET_ADMIN alone" ||
	ktap_fail "serve started as root runs as nobody with CAP_NET_ADMIN alone (uid '$uid', CapEff '$cap', CapBnd '$bnd')"
grep -q "as uid 65534 with CAP_NET_ADMIN only; .*, no key" "$TMP/serve.12872.out" &&
	ktap_ok "serve says whom it runs as and that it has no key" ||
	ktap_fail "serve says whom it runs as and that it has no key: $(cat "$TMP/serve.12872.out")"
ktap_check "the unprivileged serve still measures (forced buffers, reno)" \
	P --peer $PE_IP_B:12872 --sndbuf 4194304 --rcvbuf 4194304 --cc reno

# --- files: once listening, serve may read /proc and /sys alone (Landlock), and writes nowhere ---
if ! grep -q "Landlock ABI" "$TMP/serve.12872.out"; then
	ktap_skip "serve touches no files" "no Landlock in this kernel ($(cat "$TMP/serve.12872.out"))"
elif ! command -v strace >/dev/null; then
	ktap_skip "serve touches no files" "strace is not installed"
else
	strace -f -qq -e trace=%file,landlock_restrict_self -o "$TMP/serve.strace" \
		"$E" --netns $PE_B serve --port 12879 --bind $PE_IP_B >/dev/null 2>&1 &
	ST=$!; PE_PIDS="$PE_PIDS $ST"
	pe_wait_port $PE_B 12879
	P --peer $PE_IP_B:12879 >/dev/null 2>&1
	P --peer $PE_IP_B:12879 --test rr >/dev/null 2>&1
	pkill -f -- "serve --port 12879 --bind" # serve itself: strace then ends with it
	wait $ST 2>/dev/null
	# every file call after the domain is in place: only reads under /proc and /sys succeed
	out=$(python3 - "$TMP/serve.strace" <<-'PY'
	import re, sys
	on, bad, denied, n = False, [], 0, 0
	for l in open(sys.argv[1]):
	    if "landlock_restrict_self" in l and "= 0" in l:
	        on = True; continue
	    m = re.search(r'(\w+)\((?:AT_FDCWD, )?"([^"]*)"(.*)\) += (-?\d+)', l)
	    if not on or not m:
	        continue
	    n += 1
	    call, path, rest, rc = m.group(1), m.group(2), m.group(3), int(m.group(4))
	    if rc < 0:
	        denied += 1; continue
	    if not re.match(r'/(proc|sys)(/|$)', path) or re.search(r'O_WRONLY|O_RDWR|O_CREAT|O_TRUNC', rest) or call in ("unlink", "unlinkat", "mkdir", "rename", "renameat", "renameat2", "creat"):
	        bad.append(l.strip()[:120])
	print("on" if on else "off", n, denied, "|".join(bad))
	PY
	)
	set -- $out
	if [ "${1:-}" = on ] && [ -z "${4:-}" ]; then
		ktap_ok "serve touches no files: $2 file calls over two sessions, all reads of /proc or /sys ($3 refused)"
	else
		ktap_fail "serve touches no files (${out:-no strace log})"
	fi
fi

# --- the key ---
K=$TMP/key; K2=$TMP/key2
head -c 32 /dev/urandom | base64 >"$K"; head -c 32 /dev/urandom | base64 >"$K2"
chmod 600 "$K" "$K2"
expect_err "a key client refuses a serve that asks for none" "does not ask for a key" \
	"$E" --key-file "$K" --netns $PE_A probe --duration 0.3 --warmup 0 --peer $PE_IP_B:12872
stop $SP
serve_on 12873 --bind $PE_IP_B --key-file "$K"
grep -q "clients must hold the key" "$TMP/serve.12873.out" && ktap_ok "serve with a key says so" ||
	ktap_fail "serve with a key says so: $(cat "$TMP/serve.12873.out")"
ktap_check "the right key is served" "$E" --key-file "$K" --netns $PE_A probe --duration 0.3 --warmup 0 --peer $PE_IP_B:12873
ktap_check "the right key from ETHTUNE_KEY_FILE is served" \
	env ETHTUNE_KEY_FILE="$K" "$E" --netns $PE_A probe --duration 0.3 --warmup 0 --peer $PE_IP_B:12873
expect_err "a wrong key is refused" "authentication failed" \
	"$E" --key-file "$K2" --netns $PE_A probe --duration 0.3 --warmup 0 --peer $PE_IP_B:12873
expect_err "no key is refused" "requires a key" P --peer $PE_IP_B:12873
grep -q "authentication failed" "$TMP/serve.12873.err" && ktap_ok "serve logs the failed authentication" ||
	ktap_fail "serve logs the failed authentication"

# Raw clients: what a stranger without the key, or with a bad answer, gets.
cat >"$TMP/raw.py" <<'PY'
import json, socket, struct, sys, time
host, port, mode = sys.argv[1], int(sys.argv[2]), sys.argv[3]
def frame(o): b = json.dumps(o).encode(); return struct.pack(">I", len(b)) + b
def reply(s):
    h = s.recv(4, socket.MSG_WAITALL)
    if len(h) < 4: return None
    return json.loads(s.recv(struct.unpack(">I", h)[0], socket.MSG_WAITALL))
s = socket.create_connection((host, port), timeout=15)
s.sendall(frame({"v": 3, "type": "hello", "version": "raw"})); hello = reply(s)
setup = {"v": 3, "type": "setup", "test": "stream", "flows": 2, "msg-size": 1024, "sndbuf": 0,
         "rcvbuf": 0, "nodelay": False, "cc": "", "cpu": -1, "duration-ms": 300, "warmup-ms": 0}
if mode == "skip-auth": s.sendall(frame(setup)); print(json.dumps(reply(s))); sys.exit(0)
if mode == "bad-answer":
    s.sendall(frame({"v": 3, "type": "auth", "answer": "0" * 64})); print(json.dumps(reply(s))); sys.exit(0)
if mode == "crr":  # a crr connection without this session's cookie gets no answer
    s.sendall(frame({**setup, "test": "crr", "flows": 1, "msg-size": 64, "duration-ms": 3000}))
    ok = reply(s); port2, cookie = ok["data-port"], ok["cookie"]
    reply(s); s.sendall(frame({"v": 3, "type": "start"}))
    def trans(c):
        d = socket.create_connection((host, port2), timeout=3)
        d.sendall(struct.pack(">I", c) + b"x" * 60); got = b""
        try:
            while len(got) < 64:
                b = d.recv(64 - len(got))
                if not b: break
                got += b
        except socket.timeout: pass
        d.close(); return len(got)
    print("stranger=%d own=%d" % (trans(cookie ^ 1), trans(cookie))); sys.exit(0)
# cookie: a data connection with the wrong cookie does not become a flow
s.sendall(frame(setup)); ok = reply(s)
port2, cookie = ok["data-port"], ok["cookie"]
def data(c, i):
    d = socket.create_connection((host, port2), timeout=5); d.sendall(struct.pack(">II", c, i)); return d
keep = [data(cookie ^ 1, 0), data(cookie, 1)]
s.settimeout(1.5)
try: early = reply(s)
except socket.timeout: early = None
keep.append(data(cookie, 0))
s.settimeout(5); late = reply(s)
print("early=%s late=%s" % (early and early["type"], late and late["type"]))
PY
raw() { ip netns exec $PE_A python3 "$TMP/raw.py" $PE_IP_B "$@" 2>&1; }
out=$(raw 12873 skip-auth)
echo "$out" | grep -q '"error".*requires a key' && ktap_ok "a raw client that skips auth gets 'requires a key'" ||
	ktap_fail "a raw client that skips auth gets 'requires a key': $out"
out=$(raw 12873 bad-answer)
echo "$out" | grep -q '"error".*authentication failed' && ktap_ok "a raw client with a made-up answer is refused" ||
	ktap_fail "a raw client with a made-up answer is refused: $out"
stop $SP
serve_on 12874 --bind $PE_IP_B
out=$(raw 12874 cookie)
[ "$out" = "early=None late=ready" ] &&
	ktap_ok "a data connection with another session's cookie is not taken as a flow" ||
	ktap_fail "a data connection with another session's cookie is not taken as a flow: $out"
out=$(raw 12874 crr)
[ "$out" = "stranger=0 own=64" ] &&
	ktap_ok "a crr connection without the session's cookie gets no answer; with it, one" ||
	ktap_fail "a crr connection without the session's cookie gets no answer; with it, one: $out"
stop $SP

chmod 644 "$K"
expect_err "a key file others can read is refused" "readable or writable by others" \
	"$E" --netns $PE_B --key-file "$K" serve --bind $PE_IP_B --port 12875
echo short >"$TMP/short"; chmod 600 "$TMP/short"
expect_err "a key shorter than 16 bytes is refused" "at least 16" \
	"$E" --netns $PE_B --key-file "$TMP/short" serve --bind $PE_IP_B --port 12875
expect_err "a missing key file is refused by the client" "key file .*No such file" \
	"$E" --key-file "$TMP/nosuch" --netns $PE_A probe --peer $PE_IP_B:12875

# --- per-client limits ---
serve_on 12876 --bind $PE_IP_B --max-duration 2 --max-flows 2 --max-msg-size 65536 --max-rate 4
expect_err "a run longer than --max-duration is refused" "exceeds this peer's limit of 2 s" \
	"$E" --netns $PE_A probe --peer $PE_IP_B:12876 --duration 2 --warmup 0.5
expect_err "more flows than --max-flows are refused" "3 flows exceed this peer's limit of 2" \
	P --peer $PE_IP_B:12876 --flows 3
expect_err "a message over --max-msg-size is refused" "131072 bytes exceeds this peer's limit of 65536" \
	P --peer $PE_IP_B:12876 --msg-size 131072
ktap_check "a run within the limits is served" P --peer $PE_IP_B:12876 --flows 2 --msg-size 65536
expect_err "the fifth connection within a minute is refused (--max-rate 4)" "too many connections.*4 a minute" \
	P --peer $PE_IP_B:12876
"$E" serve --max-flows 0 2>"$TMP/err"; rc=$?
[ $rc -eq 2 ] && grep -q "max-flows '0' is not 1..256" "$TMP/err" && ktap_ok "a bad limit value is a usage error" ||
	ktap_fail "a bad limit value is a usage error (rc $rc: $(cat "$TMP/err"))"
stop $SP
ktap_finish
