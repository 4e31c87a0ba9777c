#!/bin/bash
# --prom on a veth pair: txlat, validate and diagnose write textfiles that promtool and Debian's node_exporter take whole, the histogram matches the same run's JSON, bad paths fail with one line, corrupt files are caught; the systemd units and alert rules pass their checkers.
set -u
cd "$(dirname "$0")/../.." || exit 1
. tests/lib/ktap.sh
. tests/lib/veth.sh
E=${ETHTUNE:-$PWD/build/ethtune}
case $E in /*) ;; *) E=$PWD/$E ;; esac
A=et-pma-$$ B=et-pmb-$$ DA=pma$$ DB=pmb$$ IPA=198.18.83.1 IPB=198.18.83.2 PORT=5394
NE=/usr/bin/prometheus-node-exporter
T=$(mktemp -d /tmp/ethtune-prom.XXXXXX)
D=$T/textfile # the collector's directory
export ETHTUNE_STATE_DIR=$T/state
mkdir -p "$D" "$ETHTUNE_STATE_DIR"
NEPID="" SPID=""
cleanup() {
	[ -n "$NEPID" ] && kill "$NEPID" 2>/dev/null && wait "$NEPID" 2>/dev/null
	[ -n "$SPID" ] && kill "$SPID" 2>/dev/null && wait "$SPID" 2>/dev/null
	ip netns pids $B 2>/dev/null | xargs -r kill 2>/dev/null
	ip netns del $A 2>/dev/null
	ip netns del $B 2>/dev/null
	[ -n "${KEEP:-}" ] || rm -rf "$T"
}
trap cleanup EXIT
ktap_header "--prom: textfile metrics, node_exporter, promtool, systemd units, alert rules"

# promcheck FILE: promtool's parse and lint of an exposition, its complaints as diagnostics
promcheck() {
	local out rc
	out=$(promtool check metrics <"$1" 2>&1)
	rc=$?
	[ -n "$out" ] && printf '%s\n' "$out" | head -5 | sed 's/^/# promtool: /'
	return $rc
}
# one_line DESC WANT_RC PATTERN FILE-THAT-MUST-NOT-EXIST CMD...: exit status, one stderr line
# matching PATTERN, and no file (nor its .tmp) written
one_line() {
	local d=$1 want=$2 pat=$3 f=$4 rc
	shift 4
	"$@" >"$T/bad.out" 2>"$T/bad.err"
	rc=$?
	if [ $rc -eq "$want" ] && [ "$(wc -l <"$T/bad.err")" -eq 1 ] && grep -q -- "$pat" "$T/bad.err" &&
		[ ! -e "$f" ] && [ ! -e "$f.tmp" ]; then
		ktap_ok "$d"
	else
		ktap_fail "$d"
		ktap_diag "status $rc (want $want): $(head -3 "$T/bad.err")"
	fi
}

# Offline parts first: they need neither root nor BPF.
if command -v promtool >/dev/null; then
	ktap_check "promtool check rules: contrib/prometheus/ethtune-alerts.yml" \
		promtool check rules contrib/prometheus/ethtune-alerts.yml
	ktap_check "promtool test rules: each alert fires where it should and only there" \
		bash -c "cd contrib/prometheus && promtool test rules ethtune-alerts.test.yml"
	# the test can fail: a rule that never fires is caught
	sed 's/> 1200$/> 99999/' contrib/prometheus/ethtune-alerts.yml >"$T/ethtune-alerts.yml"
	sed "s|ethtune-alerts.yml|$T/ethtune-alerts.yml|" contrib/prometheus/ethtune-alerts.test.yml \
		>"$T/alerts.test.yml"
	ktap_check_fail "promtool test rules fails on a stale-metrics rule that never fires" \
		promtool test rules "$T/alerts.test.yml"
else
	ktap_skip "alert rules" "no promtool (Debian package prometheus)"
fi
if command -v systemd-analyze >/dev/null && [ -x "$E" ]; then
	mkdir -p "$T/units"
	for u in service timer; do
		sed "s|/usr/local/sbin/ethtune|$E|g" "contrib/systemd/ethtune-metrics@.$u" \
			>"$T/units/ethtune-metrics@.$u"
	done
	# an instance of each template, as systemctl would load it
	if out=$(cd "$T/units" && SYSTEMD_LOG_LEVEL=warning systemd-analyze verify --man=no \
		"$T/units/ethtune-metrics@lo.service" "$T/units/ethtune-metrics@lo.timer" 2>&1) &&
		! printf '%s' "$out" | grep -q 'ethtune-metrics'; then
		ktap_ok "systemd-analyze verify: ethtune-metrics@.service and .timer"
	else
		ktap_fail "systemd-analyze verify: ethtune-metrics@.service and .timer"
		printf '%s\n' "$out" | head -5 | sed 's/^/# /'
	fi
	# and it can fail: a misspelt directive is reported
	sed 's/^ProtectSystem=/ProtectSistem=/' "$T/units/ethtune-metrics@.service" \
		>"$T/units/ethtune-bad@.service"
	out=$(cd "$T/units" && systemd-analyze verify --man=no "$T/units/ethtune-bad@lo.service" 2>&1)
	printf '%s' "$out" | grep -q 'ProtectSistem' && ktap_ok "systemd-analyze verify catches a misspelt directive" ||
		{ ktap_fail "systemd-analyze verify catches a misspelt directive"; ktap_diag "$out"; }
	rm -f "$T/units/ethtune-bad@.service"
	sec=$(systemd-analyze security --offline=true "$T/units/ethtune-metrics@lo.service" 2>/dev/null |
		grep -i 'overall exposure')
	[ -n "$sec" ] && ktap_diag "systemd-analyze security: $sec"
else
	ktap_skip "systemd units" "no systemd-analyze or no $E"
fi

if [ "$(id -u)" -ne 0 ]; then ktap_skip "--prom runs" "needs root"; ktap_finish; exit; fi
if [ ! -r /sys/kernel/btf/vmlinux ]; then ktap_skip "--prom runs" "kernel has no BTF"; ktap_finish; exit; fi
if ! command -v promtool >/dev/null || [ ! -x $NE ]; then
	ktap_skip "--prom runs" "needs promtool and $NE (Debian: prometheus, prometheus-node-exporter)"
	ktap_finish; exit
fi
veth_ns_or_exit "--prom runs" $A $B $DA $DB $IPA $IPB
ip netns exec $B iperf3 -s -p $PORT >/dev/null 2>&1 &
ip netns exec $B "$E" serve --bind $IPB >/dev/null 2>&1 &
SPID=$!
for i in $(seq 50); do ip netns exec $B ss -Hltn "sport = :12866" | grep -q . && break; sleep 0.1; done

# 1. txlat: the JSON and the metrics of one run
TX=$D/ethtune-txlat-$DA.prom
"$E" --netns $A --json txlat $DA --duration 2 --load-cmd "iperf3 -c $IPB -p $PORT -t 1" \
	--prom "$TX" >"$T/tx.json" 2>"$T/tx.err"
rc=$?
if [ $rc -eq 0 ] && [ -s "$TX" ] && [ ! -e "$TX.tmp" ]; then
	ktap_ok "txlat --prom wrote $(basename "$TX") whole (no .tmp left)"
else
	ktap_fail "txlat --prom wrote its file (status $rc)"; sed 's/^/# /' "$T/tx.err" | head -5
fi
ktap_check "promtool check metrics: txlat's file" promcheck "$TX"
# the histogram against the same run's JSON: cumulative buckets ending in +Inf = _count, _count
# the skbs the JSON's histogram holds, _sum its mean times the count, the JSON's p50 inside the
# bucket where half the count is reached, xmit the JSON's
cat >"$T/hist.py" <<-'PY'
	import json, math, re, sys
	doc = json.load(open(sys.argv[2]))
	s = {}
	for line in open(sys.argv[1]):
	    if line.startswith("#") or not line.strip():
	        continue
	    m = re.fullmatch(r'([a-z_:]+)(?:\{(.*)\})? (\S+)\n', line)
	    assert m, "bad line %r" % line
	    labels = dict(re.findall(r'([a-z_]+)="((?:[^"\\]|\\.)*)"', m.group(2) or ""))
	    s.setdefault(m.group(1), []).append((labels, float(m.group(3))))
	name = "ethtune_txlat_completion_seconds"
	queues = [q for q in doc["queues"] if "histogram" in q]
	assert queues, "no queue with a histogram in the JSON"
	for q in queues:
	    ql = str(q["queue"])
	    b = sorted(((float(l["le"]), v) for l, v in s[name + "_bucket"] if l["queue"] == ql))
	    count = [v for l, v in s[name + "_count"] if l["queue"] == ql][0]
	    total = [v for l, v in s[name + "_sum"] if l["queue"] == ql][0]
	    assert b[-1][0] == math.inf and b[-1][1] == count, "+Inf is the count"
	    assert all(x[1] <= y[1] for x, y in zip(b, b[1:])), "cumulative"
	    n = sum(h["count"] for h in q["histogram"])
	    assert count == n, "_count %d, the JSON's histogram %d" % (count, n)
	    assert abs(total - q["mean-us"] * 1e-6 * count) <= count * 1e-9 + 1e-9, \
	        "_sum %g, mean x count %g" % (total, q["mean-us"] * 1e-6 * count)
	    i = next(i for i, (le, v) in enumerate(b) if v >= count / 2)
	    lo = b[i - 1][0] if i else 0
	    assert lo < q["p50-us"] * 1e-6 <= b[i][0], "p50 %g us outside (%g, %g]" % (q["p50-us"], lo, b[i][0])
	    x = [v for l, v in s["ethtune_txlat_xmit_skbs"] if l["queue"] == ql][0]
	    assert x == q["xmit"], "xmit %d, the JSON's %d" % (x, q["xmit"])
	    assert all(l["device"] == doc["device"] and l["driver"] == doc["driver"]
	               for l, v in s[name + "_count"]), "device and driver labels"
	    print("# queue %s: %d skbs timed, p50 %.1f us in (%g, %g] s, _sum %.6f s" %
	          (ql, count, q["p50-us"], lo, b[i][0], total))
	PY
d="txlat: histogram cumulative, its _count the skbs the run's JSON timed, p50 in its bucket"
if out=$(python3 "$T/hist.py" "$TX" "$T/tx.json" 2>&1); then ktap_ok "$d"; else ktap_fail "$d"; fi
printf '%s\n' "$out" | sed 's/^\([^#]\)/# \1/' | head -10

# 2. validate with a check that needs no peer
VA=$D/ethtune-validate-$DA.prom
"$E" --netns $A validate $DA --only nothing-left --quiet --prom "$VA" >"$T/va.ktap" 2>"$T/va.err"
rc=$?
if [ $rc -eq 0 ] && grep -qx 'ethtune_validate_check_passed{device="'$DA'",driver="veth",check="nothing-left"} 1' "$VA" &&
	grep -qx 'ethtune_validate_check_skipped{device="'$DA'",driver="veth",check="nothing-left"} 0' "$VA"; then
	ktap_ok "validate --only nothing-left --prom: the check passed, 1, not skipped"
else
	ktap_fail "validate --prom (status $rc)"; sed 's/^/# /' "$T/va.err" "$VA" 2>/dev/null | head -10
fi
ktap_check "promtool check metrics: validate's file" promcheck "$VA"

# 3. diagnose: veth is a software device, and the state set says so
DG=$D/ethtune-diagnose-$DA.prom
"$E" --netns $A diagnose $DA --peer $IPB --quiet --prom "$DG" >"$T/dg.txt" 2>"$T/dg.err"
rc=$?
if [ $rc -eq 0 ] && grep -q '^ethtune_diagnose_verdict{.*verdict="software-device"} 1$' "$DG" &&
	[ "$(grep -c '^ethtune_diagnose_verdict{.*} 1$' "$DG")" -eq 1 ]; then
	ktap_ok "diagnose --prom: verdict software-device is the one state set to 1"
else
	ktap_fail "diagnose --prom (status $rc)"; sed 's/^/# /' "$T/dg.err" | head -5
fi
ktap_check "promtool check metrics: diagnose's file" promcheck "$DG"

# 3b. the unit's capabilities suffice: both of its commands under exactly its bounding set
# (root otherwise, as the unit runs them), nothing-left reading the kernel log; without CAP_BPF
# txlat fails (the check can fail)
caps=$(sed -n 's/^CapabilityBoundingSet=//p' contrib/systemd/ethtune-metrics@.service |
	tr 'A-Z' 'a-z' | sed 's/cap_/+/g; s/ /,/g')
if [ -n "$caps" ] && command -v setpriv >/dev/null; then
	bounded() { ip netns exec $A setpriv --bounding-set "$1" --inh-caps -all -- "${@:2}"; }
	d="the unit's CapabilityBoundingSet ($caps) runs txlat --duty and validate, dmesg read"
	if bounded "-all,$caps" "$E" txlat $DA --duty 10 --duration 2 \
		--load-cmd "iperf3 -c $IPB -p $PORT -t 1" --prom "$T/cap-t.prom" >"$T/cap.txt" 2>&1 &&
		grep -q '^ethtune_txlat_completion_seconds_count{' "$T/cap-t.prom" &&
		bounded "-all,$caps" "$E" validate $DA --only nothing-left --prom "$T/cap-v.prom" \
			>>"$T/cap.txt" 2>&1 && ! grep -q 'dmesg part skipped' "$T/cap.txt" &&
		grep -q 'check="nothing-left"} 1$' "$T/cap-v.prom"; then
		ktap_ok "$d"
	else
		ktap_fail "$d"; sed 's/^/# /' "$T/cap.txt" | tail -5
	fi
	ktap_check_fail "without CAP_BPF txlat cannot trace" bounded "-all,${caps/+bpf,/}" \
		"$E" txlat $DA --duration 1 --prom "$T/cap-n.prom"
else
	ktap_skip "the unit's capabilities" "no setpriv or no CapabilityBoundingSet"
fi

# 4. node_exporter serves the three files (in namespace A, on its loopback)
for f in disable-defaults textfile.directory web.listen-address; do
	$NE --help 2>&1 | grep -q -- "--collector.$f\|--$f" || ktap_diag "node_exporter has no --$f"
done
ip netns exec $A $NE --collector.disable-defaults --collector.textfile \
	--collector.textfile.directory="$D" --web.listen-address=127.0.0.1:9100 >"$T/ne.log" 2>&1 &
NEPID=$!
scrape() { ip netns exec $A curl -sf --max-time 5 http://127.0.0.1:9100/metrics >"$1"; }
for i in $(seq 50); do scrape "$T/scrape" && break; sleep 0.1; done
fams="ethtune_txlat_completion_seconds ethtune_txlat_xmit_skbs ethtune_validate_check_passed ethtune_diagnose_verdict ethtune_last_run_timestamp_seconds"
missing=""
for f in $fams; do grep -q "^# TYPE $f " "$T/scrape" || missing="$missing $f"; done
if [ -s "$T/scrape" ] && [ -z "$missing" ] && grep -qx 'node_textfile_scrape_error 0' "$T/scrape" &&
	[ "$(grep -c '^ethtune_last_run_timestamp_seconds{' "$T/scrape")" -eq 3 ]; then
	ktap_ok "node_exporter serves every ethtune family of the three files, node_textfile_scrape_error 0"
else
	ktap_fail "node_exporter serves the ethtune families (missing:${missing:- none})"
	grep -E '^node_textfile|^ethtune_last' "$T/scrape" | sed 's/^/# /'; tail -3 "$T/ne.log" | sed 's/^/# /'
fi
ktap_check "promtool check metrics: what node_exporter serves" promcheck "$T/scrape"
ktap_check "the served histogram is the file's" bash -c \
	"[ \"\$(grep '^ethtune_txlat_completion_seconds_count' '$T/scrape')\" = \"\$(grep '^ethtune_txlat_completion_seconds_count' '$TX')\" ]"

# 5. bad paths: one line, status 2, nothing written
one_line "txlat --prom into a missing directory: one line, nothing written" 2 \
	"--prom $T/nosuch/x.prom: No such file or directory" "$T/nosuch/x.prom" \
	"$E" --netns $A txlat $DA --duration 1 --prom "$T/nosuch/x.prom"
one_line "txlat --prom FILE not ending in .prom: one line, nothing written" 2 \
	"--prom $D/x.txt: the name must end in .prom" "$D/x.txt" \
	"$E" --netns $A txlat $DA --duration 1 --prom "$D/x.txt"
one_line "validate --prom FILE not ending in .prom: one line, nothing written" 2 \
	"the name must end in .prom" "$D/v.prom.txt" \
	"$E" --netns $A validate $DA --only nothing-left --prom "$D/v.prom.txt"
one_line "diagnose --prom into a missing directory: one line, nothing written" 2 \
	"--prom $T/nosuch/d.prom: No such file or directory" "$T/nosuch/d.prom" \
	"$E" --netns $A diagnose $DA --peer $IPB --prom "$T/nosuch/d.prom"
mkdir -p "$D/dir.prom"
one_line "validate --prom onto a directory: one line" 2 "--prom $D/dir.prom: not a regular file" \
	"$D/dir.prom/x" "$E" --netns $A validate $DA --only nothing-left --prom "$D/dir.prom"
rmdir "$D/dir.prom"

# 6. corrupted files are caught: a counter without _total, a HELP twice, and the collector
# refuses a file whose family repeats its HELP
sed 's/^# TYPE ethtune_txlat_xmit_skbs gauge$/# TYPE ethtune_txlat_xmit_skbs counter/' "$TX" >"$T/c1.prom"
ktap_check_fail "promtool check metrics rejects a counter without _total" promcheck "$T/c1.prom"
awk '/^# HELP ethtune_txlat_xmit_skbs / { print } { print }' "$TX" >"$T/c2.prom"
ktap_check_fail "promtool check metrics rejects a HELP given twice" promcheck "$T/c2.prom"
cp "$T/c2.prom" "$D/corrupt.prom"
scrape "$T/scrape2"
ktap_check "node_exporter reports the corrupt file: node_textfile_scrape_error 1" \
	grep -qx 'node_textfile_scrape_error 1' "$T/scrape2"
ktap_finish
