#!/bin/bash
# profile merge on synthetic fleets with known answers (tests/lib/fleet_gen.py) and on a real tune result: rule, outliers, firmware split, min-hosts, bad input, duplicates, profiles that load.
set -u
cd "$(dirname "$0")/../.." || exit 1
ROOT=$PWD
. tests/lib/ktap.sh
ET=${ETHTUNE:-$ROOT/${O:-build}/ethtune}
T=$(mktemp -d /tmp/ethtune-merge.XXXXXX)
trap 'rm -rf "$T"' EXIT
GEN="python3 tests/lib/fleet_gen.py"
ktap_header "profile merge: tune results of a fleet into one profile per NIC model"

# verify MERGE.json TRUTH.json [split]: every model as the generator planted it
verify() {
	python3 - "$@" <<'PY'
import json, sys
doc = json.load(open(sys.argv[1]))
truth = json.load(open(sys.argv[2]))["models"]
split = sys.argv[3] if len(sys.argv) > 3 else ""
bad = []
seen = set()
for m in doc["models"]:
    k = "%s|%s:%s/%s:%s" % (m["driver"], m["vendor-id"], m["device-id"],
                            m["subsystem-vendor-id"], m["subsystem-device-id"])
    t = truth[k]
    seen.add(k)
    flagged = sorted(r["host"] for r in m["results"] if r["outlier"])
    want_out = t["outliers"]
    if split == "firmware":  # only the model of the split: a profile per firmware
        if t.get("explained_by") == "firmware":
            fw = m["split-firmware-version"]
            want = {"fw-A": 64, "fw-B": 512}[fw]
            seen.add(fw)
            if m["verdict"] != "profile" or m.get("value") != want:
                bad.append("%s %s: %s %s, want profile %s" % (k, fw, m["verdict"],
                           m.get("value"), want))
        continue
    if flagged != want_out:
        bad.append("%s: outliers %s, planted %s" % (k, flagged, want_out))
    if m["verdict"] != t["verdict"]:
        bad.append("%s: verdict %s, want %s" % (k, m["verdict"], t["verdict"]))
    elif t["verdict"] == "profile" and m["value"] != t["value"]:
        bad.append("%s: value %s, want %s" % (k, m["value"], t["value"]))
    elif t["verdict"] == "no-common-setting":
        if m.get("explained-by") != t["explained_by"]:
            bad.append("%s: explained by %s, want %s" % (k, m.get("explained-by"), t["explained_by"]))
        if t["explained_by"]:
            got = {p["version"]: p["value"] for p in m["parts"]}
            if got != t["parts"]:
                bad.append("%s: parts %s, want %s" % (k, got, t["parts"]))
        else:
            got = sorted(w["value"] for w in m["wants"])
            if got != t["wants"]:
                bad.append("%s: wants %s, want %s" % (k, got, t["wants"]))
if split and not {"fw-A", "fw-B"} <= seen:
    bad.append("the split model's firmware parts: %s" % sorted(seen))
if not split and seen != set(truth):
    bad.append("models %d, planted %d" % (len(seen), len(truth)))
for b in bad[:10]:
    print(b)
sys.exit(1 if bad else 0)
PY
}

# A small fleet: 4 models of 10 hosts (one with a firmware split, one split by nothing), 2
# outliers, and a model of 2 hosts.
S=$T/small
$GEN --out "$S" --hosts 40 --models 4 --outliers 2 --seed 7
"$ET" --json profile merge "$S/results" --out "$S/prof" >"$S/m.json" 2>"$S/err"
rc=$?
[ $rc = 0 ] && [ ! -s "$S/err" ] && ktap_ok "small fleet: exit 0, nothing on stderr" ||
	{ ktap_fail "small fleet: exit 0 (rc $rc)"; sed 's/^/# /' "$S/err" | head -5; }
ktap_schema "small fleet: --json fits docs/schema/merge.json" merge "$S/m.json"
ktap_check "small fleet: the common setting of each model, both outliers flagged and left out, the firmware split named, who wants what where nothing explains it, the model of 2 hosts under --min-hosts" \
	verify "$S/m.json" "$S/truth.json"
"$ET" profile merge "$S/results" >"$S/m.txt" 2>&1
grep -q "firmware explains the split: fw-A -> 64 (5 hosts), fw-B -> 512 (5 hosts)" "$S/m.txt" &&
	grep -q "no setting is accepted by every host" "$S/m.txt" &&
	grep -q "2 host(s), fewer than --min-hosts 3: no profile" "$S/m.txt" &&
	grep -qE "^  outlier h[0-9]+ \(eth0, .*0\.[56][0-9] of the others' mean.*: left out$" "$S/m.txt" &&
	grep -q "(--out DIR writes them)" "$S/m.txt" &&
	ktap_ok "small fleet, text: the split, the disagreement, min-hosts and the outliers said" ||
	{ ktap_fail "small fleet, text"; sed 's/^/# /' "$S/m.txt" | head -40; }

# --html: the same text, and a page of the models with their lowest hosts (the outliers apart),
# drawn and labelled in headless Chromium.
"$ET" profile merge "$S/results" --html "$S/m.html" >"$S/mh.txt" 2>&1
rc=$?
[ $rc = 0 ] && cmp -s "$S/m.txt" "$S/mh.txt" && [ "$(grep -c "class='data bar'" "$S/m.html")" = 6 ] &&
	grep -q "no-common-setting (firmware explains it)" "$S/m.html" &&
	ktap_ok "--html: text unchanged, a bar per model and outlier group (6), the split named" ||
	ktap_fail "--html: text unchanged, 6 bars, the split named (rc $rc)"
if [ -x /usr/bin/chromium ] && /usr/bin/python3 -c 'import selenium' 2>/dev/null; then
	out=$(timeout 120 /usr/bin/python3 tests/lib/html_check.py "$S/m.html" "$S/m.png" 1 2>&1) &&
		ktap_ok "--html page in Chromium: $out" || ktap_fail "--html page in Chromium: $out"
else
	ktap_skip "--html page in Chromium" "no chromium or python3-selenium (tests/lib/deps.sh)"
fi

# Each written profile loads (check, and show by name from the search path) with its value.
nprof=$(python3 -c 'import json,sys; print(sum(m["verdict"] == "profile" for m in json.load(open(sys.argv[1]))["models"]))' "$S/m.json")
nfile=$(ls "$S/prof"/*.profile 2>/dev/null | wc -l)
ok=1
for f in "$S"/prof/*.profile; do
	"$ET" profile check "$f" >/dev/null 2>"$S/perr" || { ok=0; sed 's/^/# /' "$S/perr"; }
	n=$(basename "$f" .profile)
	ETHTUNE_PROFILE_DIR="$S/prof" "$ET" --json profile show "$n" >"$S/show.json" 2>"$S/perr" ||
		{ ok=0; sed 's/^/# /' "$S/perr"; continue; }
	python3 - "$S/show.json" "$S/m.json" "$n" <<'PY' || ok=0
import json, sys
show = json.load(open(sys.argv[1]))
m = [m for m in json.load(open(sys.argv[2]))["models"] if m["name"] == sys.argv[3]][0]
text = json.dumps(show)
assert '"tx-usecs"' in text and str(m["value"]) in text, (text[:300], m["value"])
assert "measured" in text, text[:300]
PY
done
[ "$nprof" = 2 ] && [ "$nfile" = 2 ] && [ $ok = 1 ] &&
	ktap_ok "small fleet: $nfile profiles written, each loads with profile check and profile show, with the model's setting" ||
	ktap_fail "small fleet: profiles written and loadable ($nfile files, $nprof models, ok $ok)"
f=$(ls "$S"/prof/*.profile | head -1)
grep -q "^# host h[0-9]* eth0 (2026-12-.*): picks [0-9]*, accepts" "$f" &&
	grep -q "^host = [0-9]* hosts, each listed below" "$f" && grep -q "^date = 2026-12-0.* to 2026-12-0" "$f" &&
	grep -q "^subsystem = " "$f" && grep -q "^rule = the smallest interrupt rate" "$f" &&
	ktap_ok "profile provenance: hosts, dates, rule, and each host's pick and evidence" ||
	{ ktap_fail "profile provenance"; sed 's/^/# /' "$f" | head -30; }
ls "$S/prof" | grep -v '\.profile$' | grep -q . &&
	ktap_fail "no temporary file is left in --out" || ktap_ok "no temporary file is left in --out"

# --split-by firmware: the split model gets a profile per firmware, each matching its own.
"$ET" --json profile merge "$S/results" --split-by firmware --out "$S/fw" >"$S/fw.json" 2>"$S/err"
rc=$?
[ $rc = 0 ] && verify "$S/fw.json" "$S/truth.json" firmware >"$S/v" &&
	F="$S/fw/ice-1001-2001-1001-0101-fw-fw" &&
	grep -qx 'firmware = fw-A' "$F-A-tx-usecs-balanced.profile" &&
	grep -qx 'tx-usecs = 64' "$F-A-tx-usecs-balanced.profile" &&
	grep -qx 'firmware = fw-B' "$F-B-tx-usecs-balanced.profile" &&
	grep -qx 'tx-usecs = 512' "$F-B-tx-usecs-balanced.profile" &&
	ktap_ok "--split-by firmware: fw-A's hosts get 64, fw-B's 512, each profile matching its firmware" ||
	{ ktap_fail "--split-by firmware (rc $rc)"; sed 's/^/# /' "$S/v" "$S/err" | head; }

# --min-hosts above every model: no profile, each model says why
"$ET" --json profile merge "$S/results" --min-hosts 11 --out "$S/none" >"$S/few.json" 2>"$S/err"
rc=$?
[ $rc = 0 ] && python3 -c '
import json, sys
d = json.load(open(sys.argv[1]))
assert all(m["verdict"] == "too-few-hosts" and "--min-hosts 11" in m["reason"] for m in d["models"]), d
assert d["written"] == 0' "$S/few.json" && [ -z "$(ls "$S/none" 2>/dev/null)" ] &&
	ktap_ok "--min-hosts 11: every model too few, its reason said, nothing written" ||
	{ ktap_fail "--min-hosts 11 (rc $rc)"; sed 's/^/# /' "$S/err"; }

# Bad input: a truncated file, another schema version, another command's result, a tune result
# without provenance; named and counted, exit 1 and nothing written without --allow-partial.
B=$T/bad
cp -r "$S/results" "$B"
head -c 300 "$S/results/h00001/tune-eth0.json" >"$B/h00001/truncated.json"
python3 -c 'import json,sys; d=json.load(open(sys.argv[1])); d["schema-version"]=2; json.dump(d, open(sys.argv[2], "w"))' \
	"$S/results/h00002/tune-eth0.json" "$B/h00002/v2.json"
cp tests/fixtures/compare/base.json "$B/h00003/matrix.json"
python3 -c 'import json,sys; d=json.load(open(sys.argv[1])); del d["host"]; json.dump(d, open(sys.argv[2], "w"))' \
	"$S/results/h00004/tune-eth0.json" "$B/h00004/old.json"
"$ET" profile merge "$B" --out "$T/bad-out" >"$T/bad.txt" 2>"$T/bad.err"
rc=$?
[ $rc = 1 ] && [ "$(wc -l <"$T/bad.err")" = 1 ] &&
	grep -qx "ethtune: profile merge: 4 file(s) skipped, no profile written; --allow-partial to use the rest" "$T/bad.err" &&
	grep -q "^skipped $B/h00001/truncated.json: not JSON (line 1: " "$T/bad.txt" &&
	grep -qx "skipped $B/h00002/v2.json: schema-version 2 (this ethtune reads 1)" "$T/bad.txt" &&
	grep -qx "skipped $B/h00003/matrix.json: an ethtune matrix result, not an ethtune tune result" "$T/bad.txt" &&
	grep -q "^skipped $B/h00004/old.json: no \"host\"" "$T/bad.txt" &&
	grep -q "^profile merge: 46 file(s), 42 tune result(s), 4 skipped" "$T/bad.txt" &&
	[ -z "$(ls "$T/bad-out" 2>/dev/null)" ] &&
	ktap_ok "bad input: 4 files named with their reason and counted, one line on stderr, exit 1, nothing written" ||
	{ ktap_fail "bad input without --allow-partial (rc $rc)"; sed 's/^/# /' "$T/bad.err" "$T/bad.txt" | head -20; }
"$ET" --json profile merge "$B" --allow-partial --out "$T/bad-out" >"$T/bad.json" 2>"$T/bad.err"
rc=$?
[ $rc = 0 ] && [ ! -s "$T/bad.err" ] && [ "$(ls "$T/bad-out" | wc -l)" = 2 ] &&
	python3 -c 'import json,sys; d=json.load(open(sys.argv[1])); assert d["skipped-count"] == 4 and len(d["skipped"]) == 4' "$T/bad.json" &&
	ktap_ok "bad input with --allow-partial: exit 0, the rest merged and written, 4 skipped in the JSON" ||
	{ ktap_fail "bad input with --allow-partial (rc $rc)"; sed 's/^/# /' "$T/bad.err"; }

# Two results of one host and device: the newer by its date is used, and that is said.
D=$T/dup
cp -r "$S/results" "$D"
python3 -c '
import json, sys
d = json.load(open(sys.argv[1]))
d["date"] = "2026-11-01T00:00:00Z"
for p in d["coalesce-sweep"]["points"]:
    p["mbps"] = 1.0; p["pass-mbps"] = [1.0, 1.0, 1.0]
json.dump(d, open(sys.argv[2], "w"))' "$D/h00000/tune-eth0.json" "$D/h00000/zz-older.json"
"$ET" --json profile merge "$D" >"$T/dup.json" 2>"$T/dup.err"
rc=$?
"$ET" profile merge "$D" >"$T/dup.txt" 2>&1
[ $rc = 0 ] && grep -qx "host h00000 device eth0: two results, using $D/h00000/tune-eth0.json, not $D/h00000/zz-older.json (newer by its date)" "$T/dup.txt" &&
	python3 -c '
import json, sys
d = json.load(open(sys.argv[1]))
assert d["older-count"] == 1 and d["tune-results"] == 43' "$T/dup.json" &&
	verify "$T/dup.json" "$S/truth.json" &&
	ktap_ok "duplicate host: the newer result used, the choice said, the older one not counted" ||
	{ ktap_fail "duplicate host (rc $rc)"; sed 's/^/# /' "$T/dup.txt" | head; }

# Command line: a missing directory, a bad --split-by, --alpha out of range
"$ET" profile merge "$T/nosuch" >/dev/null 2>"$T/e1"; r1=$?
"$ET" profile merge "$S/results" --split-by vendor >/dev/null 2>"$T/e2"; r2=$?
"$ET" profile merge "$S/results" --alpha 1.5 >/dev/null 2>"$T/e3"; r3=$?
"$ET" profile list --min-hosts 2 >/dev/null 2>"$T/e4"; r4=$?
[ "$r1$r2$r3$r4" = 2222 ] && grep -qx "ethtune: profile merge: $T/nosuch: No such file or directory" "$T/e1" &&
	grep -q "split-by: 'vendor' is not firmware or kernel" "$T/e2" && grep -q "alpha: '1.5' is not a level" "$T/e3" &&
	grep -q "list: unknown option '--min-hosts'" "$T/e4" &&
	ktap_ok "command line: missing directory, bad --split-by, --alpha, merge options elsewhere: exit 2" ||
	{ ktap_fail "command line ($r1 $r2 $r3 $r4)"; cat "$T"/e[1-4] | sed 's/^/# /'; }

# A real tune result (ethtune tune on a GRO veth pair, NAPI deferral): it merges, and its profile
# loads.
R=$T/real
mkdir -p "$R/r/a" "$R/r/b" "$R/r/c"
for h in a b c; do
	python3 -c 'import json,sys; d=json.load(open(sys.argv[1])); d["host"]="real-"+sys.argv[3]; json.dump(d, open(sys.argv[2], "w"))' \
		tests/fixtures/merge/tune-veth.json "$R/r/$h/tune-veth.json" $h
done
ktap_schema "real tune result fits docs/schema/tune.json (with its provenance)" tune tests/fixtures/merge/tune-veth.json
"$ET" --json profile merge "$R/r" --out "$R/p" >"$R/m.json" 2>"$R/err"
rc=$?
[ $rc = 0 ] && python3 -c '
import json, sys
d = json.load(open(sys.argv[1]))
m = d["models"][0]
assert d["tune-results"] == 3 and m["driver"] == "veth" and m["hosts"] == 3, m
assert m["verdict"] == "profile", m' "$R/m.json" && "$ET" profile check "$R"/p/*.profile >/dev/null &&
	ktap_ok "real tune output (veth, gro-flush-timeout) merges; its profile loads" ||
	{ ktap_fail "real tune output merges (rc $rc)"; sed 's/^/# /' "$R/err" "$R/m.json" | head -20; }

# At scale (the file's time allows 4,000 hosts; tests/bench/merge.sh merges 10,000): 40 models
# of 100 hosts, 30 planted outliers; every one found, no other, the firmware split named, every
# model's setting.
L=$T/large
t0=$(date +%s.%N)
$GEN --out "$L" --hosts 4000 --models 40 --outliers 30 --seed 11
t1=$(date +%s.%N)
"$ET" --json profile merge "$L/results" --out "$L/prof" >"$L/m.json" 2>"$L/err"
rc=$?
t2=$(date +%s.%N)
ktap_schema "4,000 hosts: a generated result fits docs/schema/tune.json" tune "$L/results/h03999/tune-eth0.json"
[ $rc = 0 ] && verify "$L/m.json" "$L/truth.json" >"$L/v" 2>&1 &&
	ktap_ok "4,000 hosts, 40 models: all 30 planted outliers and no other, the firmware split, every model's setting (generate $(awk "BEGIN{printf \"%.1f\", $t1 - $t0}") s, merge $(awk "BEGIN{printf \"%.1f\", $t2 - $t1}") s)" ||
	{ ktap_fail "4,000 hosts, 40 models (rc $rc)"; sed 's/^/# /' "$L/v" "$L/err" | head; }
ktap_finish
