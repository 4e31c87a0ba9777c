#!/bin/bash
# Every command's --json output that runs here unprivileged fits its docs/schema/CMD.json (KTAP);
# reconstructed documents of the commands that need a peer or root; the validator rejects bad ones.
cd "$(dirname "$0")/../.." || exit 1
ROOT=$PWD
. tests/lib/ktap.sh
ET=${ETHTUNE:-$ROOT/${O:-build}/ethtune}
T=$(mktemp -d)
trap 'rm -rf "$T"' EXIT
ktap_header "JSON output against docs/schema"

if ! python3 -c 'import jsonschema' 2>/dev/null; then
	ktap_skip "json schemas" "python3-jsonschema missing (tests/lib/deps.sh installs it)"
	ktap_finish; exit 0
fi
for s in docs/schema/*.json; do
	ktap_check "$(basename "$s") is a valid JSON Schema" python3 -c '
import json, sys, jsonschema
s = json.load(open(sys.argv[1])); jsonschema.validators.validator_for(s).check_schema(s)' "$s"
done

# run CMD ARGS...: ethtune --json ARGS > $T/N.json, then its schema check
n=0
run() {
	local cmd=$1; shift
	n=$((n + 1))
	if ! "$ET" --json "$@" >"$T/$n.json" 2>"$T/$n.err"; then
		ktap_fail "ethtune --json $* runs"; sed 's/^/# /' "$T/$n.err" | head -5; return
	fi
	ktap_schema "$cmd: ethtune --json $*" "$cmd" "$T/$n.json"
}
run model model --tsq 262144 --tx-usecs 100
run model model --rate 25g --tsq 1048576 --tx-usecs 16 --tx-frames 32 --mtu 9000 --rtt 50
run model model --tsq 131072 --tx-usecs 2000 --pacing off --timer eqe --kernel 6.1 --paced
run model model --rate 1g --tsq 4194304 --tx-usecs 8 --rtt 100 --target 0.5
run model model --rate 100g --tsq 65536 --tx-usecs 0 --no-exception --kernel 3.6
run profile profile list
for p in profiles/*.profile; do
	p=${p##*/}
	run profile profile show "${p%.profile}"
done
run profile profile export txsim --to udev
run profile profile export txsim --to systemd-link --split --dry-run
run restore restore --list
run rdma rdma list
run show show lo
run show -v show lo
run compare compare tests/fixtures/compare/base.json tests/fixtures/compare/rerun.json
run compare compare tests/fixtures/compare/base.json tests/fixtures/compare/incomplete.json
run compare compare tests/fixtures/compare/missing.json tests/fixtures/compare/base.json

# Documents of commands that need root, a peer or a lab, rebuilt from their print code.
for f in tests/fixtures/json/*.json; do
	c=${f##*/}; c=${c%%.*}
	ktap_schema "$c: reconstructed ${f##*/}" "$c" "$f"
done

# The validator rejects what drifts from the schema: run NEGATIVE only when SRC validates.
bad() {	# bad DESC CMD SRC PYTHON-EDIT-OF-d
	local d=$1 cmd=$2 src=$3 edit=$4
	python3 -c "import json,sys; d=json.load(open(sys.argv[1])); $edit; json.dump(d, open(sys.argv[2], 'w'))" \
		"$src" "$T/bad.json" || { ktap_fail "$d (edit)"; return; }
	ktap_check_fail "$d" python3 tests/lib/schema_check.py "$cmd" "$T/bad.json"
}
"$ET" --json show lo >"$T/lo.json"
"$ET" --json model --tsq 262144 --tx-usecs 100 >"$T/model.json"
bad "rejects an unknown key (snake_case)" show "$T/lo.json" 'd["link_detected"] = d.pop("link-detected")'
bad "rejects a wrong type (ifindex as a string)" show "$T/lo.json" 'd["ifindex"] = str(d["ifindex"])'
bad "rejects a missing required key" show "$T/lo.json" 'del d["ifname"]'
bad "rejects a document without schema-version" show "$T/lo.json" 'del d["schema-version"]'
bad "rejects another schema-version" show "$T/lo.json" 'd["schema-version"] = 0'
bad "rejects an unknown key in a nested object" show "$T/lo.json" 'd["link"]["MTU"] = 1500'
bad "rejects a number where a bool belongs" model "$T/model.json" 'd["stalled"] = 0'
bad "rejects an old txlat key (p50_us)" txlat tests/fixtures/json/txlat.veth.json \
	'd["queues"][0]["p50_us"] = d["queues"][0].pop("p50-us")'
bad "rejects an old probe key (latency-us)" probe tests/fixtures/json/probe.rr.json \
	'd["result"]["latency-us"] = d["result"].pop("latency")'
bad "rejects an old diagnose key (D-us)" diagnose tests/fixtures/json/diagnose.e1000e.json \
	'd["D-us"] = d.pop("d-us")'
echo '{' >"$T/notjson.json"
ktap_check_fail "rejects a file that is not JSON" python3 tests/lib/schema_check.py show "$T/notjson.json"
ktap_check_fail "rejects an unknown command" python3 tests/lib/schema_check.py nosuch "$T/lo.json"

# The lab's batched form (KTAP_SCHEMA_BATCH=1): one python3 at the flush gives each kept document
# its own result, in order, and a document changed after ktap_schema is checked as it was then.
batched() {
	KTAP_N=0 KTAP_FAILED=0 KTAP_SCHEMA_BATCH=1
	cp "$T/lo.json" "$T/b.json"
	ktap_schema "b1" show "$T/b.json"
	echo '{' >"$T/b.json"
	ktap_schema "b2" show "$T/b.json"
	ktap_schema "b3" show "$T/bad.json" # the last bad() edit: a diagnose document, not a show one
	ktap_schema "b4" nosuch "$T/lo.json"
	ktap_schema "b5" model - <"$T/model.json"
	ktap_schema_flush
}
out=$(batched)
ktap_check "batched schema checks: results in order, each its own, the copy taken at the call" \
	test "$(printf '%s\n' "$out" | grep -E '^(not )?ok ' | tr '\n' ' ')" = \
	"ok 1 b1 not ok 2 b2 not ok 3 b3 not ok 4 b4 ok 5 b5 "
ktap_check "batched schema checks: a failure shows the validator's words" \
	bash -c "printf '%s\n' \"\$1\" | grep -q '^# schema_check: .*not JSON'" _ "$out"
ktap_finish
