# Guest-side helpers of the diagnose ground-truth files: one diagnose per run, checks over its repetitions.
# Source inside the guest after lib/guest.sh; sets ETHTUNE_STATE_DIR, T (scratch) and REPS.
export ETHTUNE_STATE_DIR=$(mktemp -d)
T=$(mktemp -d)
# repetitions per case: 2 on stable, 1 on sid (the lab runs on both within CI's 60 minutes); a
# file may lower stable's default with DIAG_STABLE_REPS before sourcing this
if [ "${LAB_KERNEL:-stable}" = sid ]; then REPS=${LAB_DIAG_REPS:-1}; else REPS=${LAB_DIAG_REPS:-${DIAG_STABLE_REPS:-2}}; fi
# diagnose's --budget: 20 s, and the lab on both kernels within CI's hour; LAB_DIAG_BUDGET for a
# campaign
DIAG_BUDGET=${LAB_DIAG_BUDGET:-20}
# diagnose's --duration: 0.5 s rounds give the delay cases 11 rounds in that budget, not 7 of 1 s.
# Each round's one-flow rate is set where its slow start ended (docs/lab.md): a longer round
# measures the same rate again, and only more rounds narrow an interval that those exits spread
# (6.1, 6 runs each: tx-usecs 2000 interval tops 320-413 Mbit/s at 0.5 s, 233-755 in 8 runs at
# 1 s; 3000: 215-395 against 201-663). LAB_DIAG_DURATION for a campaign.
DIAG_DURATION=${LAB_DIAG_DURATION:-0.5}
# jv FILE FILTER: values of a JSON file, by jq (a python3 start costs the guest 0.4 s)
jv() { jq -r "$2" "$1"; }

SERVES=0
serve_b() {	# the peer's server; its log is shown when a run fails
	SERVES=$((SERVES + 1))
	ip netns exec $LAB_NS_B "$ET" serve --bind 198.18.0.2 >/dev/null 2>"$T/serve.$SERVES.log" &
	sleep 0.5
}

# the numbers of one run, for its diagnostic line
DIAG_LINE='def r: . // -1 | round; def f3: if . == null then "n/a" else . * 1000 | round / 1000 end;
	"\(.verdict), D \(."d-us" | r) [\(."d-lo-us" | r), \(."d-hi-us" | r)] us, one flow " +
	"\(.probe."one-flow-mbps" | r) [\(.probe."one-flow-lo-mbps" | r), " +
	"\(.probe."one-flow-hi-mbps" | r)], two \(.probe."two-flows-mbps" | r), " +
	"\(.probe.rounds // 0) rounds, measured loss \(."measured-loss-pct" | r)%, " +
	"model \(."model-loss-pct" | r)%; rounds one \(.probe."one-flow-rounds-mbps" // [] | map(r)), " +
	"two \(.probe."two-flows-rounds-mbps" // [] | map(r)), one flow cwnd " +
	"\(.probe."one-flow-rounds-cwnd" // []), rho \(.probe."cwnd-rate-rho" | f3) " +
	"p \(.probe."cwnd-rate-p" | f3)"'

# run NAME DEV PEERDEV: one diagnose; JSON in $T/NAME.json; a diagnostic line with the numbers
run() {
	local name=$1 a=$2 b=$3 t0=$(date +%s) rc
	ip netns exec $LAB_NS_A "$ET" --json diagnose "$a" --peer 198.18.0.2 --peer-dev "$b" \
		--peer-netns $LAB_NS_B --duration "$DIAG_DURATION" --warmup 0.3 --budget "$DIAG_BUDGET" \
		>"$T/$name.json" 2>"$T/$name.err"
	rc=$?
	if [ $rc -ne 0 ]; then
		sed 's/^/#   /' "$T/$name.err"
		tail -n 3 "$T/serve.$SERVES.log" 2>/dev/null | sed 's/^/#   peer: /'
		return $rc
	fi
	ktap_schema "$name: diagnose --json fits docs/schema/diagnose.json" diagnose "$T/$name.json"
	ktap_diag "$name: $(jv "$T/$name.json" "$DIAG_LINE" 2>&1), $(($(date +%s) - t0)) s"
	jv "$T/$name.json" '."inconclusive-reason" // ""' 2>/dev/null | grep . | sed 's/^/#   inconclusive: /'
}

# check NAME ALLOWED [DELAY_US | LO-HI | <MAX]: every repetition's headline is in ALLOWED
# (|-separated); with DELAY_US, D is within 20% of it; with LO-HI, a range the truth is only
# known to lie in, D's 95% interval reaches into it (a wait spread over the range gives a median
# whose interval is as wide as the spread; a prompt device's interval stays far below it); with
# <MAX, D's whole 95% interval lies below MAX us (a prompt device)
check() {
	local name=$1 allowed=$2 us=${3:-} r v d dlo dhi lo hi want="" bad="" cond
	case $us in
	"<"*) hi=${us#<} want=", D's interval below $hi us" ;;
	*-*) lo=${us%-*} hi=${us#*-} want=", D's interval reaches [$lo, $hi] us" ;;
	?*) lo=$((us * 8 / 10)) hi=$((us * 12 / 10)) want=", D within 20% of $us us" ;;
	esac
	for r in $(seq "$REPS"); do
		read -r v d dlo dhi < <(jv "$T/$name.$r.json" \
			'[.verdict // "none", ."d-us" // -1, ."d-lo-us" // -1, ."d-hi-us" // -1] | @tsv' 2>/dev/null)
		case "|$allowed|" in *"|$v|"*) ;; *) bad="$bad run $r: $v;" ;; esac
		if [ -n "$us" ]; then
			case $us in
			"<"*) cond="0 <= dhi && dhi < $hi" ;;
			*-*) cond="dlo >= 0 && dlo <= $hi && dhi >= $lo" ;;
			*) cond="$lo <= d && d <= $hi" ;;
			esac
			awk -v d="${d:--1}" -v dlo="${dlo:--1}" -v dhi="${dhi:--1}" "BEGIN { exit !($cond) }" ||
				bad="$bad run $r: D $d [$dlo, $dhi] us;"
		fi
	done
	[ -z "$bad" ] && ktap_ok "$name: $allowed in $REPS of $REPS runs$want" ||
		ktap_fail "$name: $allowed in $REPS of $REPS runs$want ($bad)"
}

# check_none NAME FORBIDDEN: no repetition's headline is in FORBIDDEN (|-separated)
check_none() {
	local name=$1 forbidden=$2 r v bad=""
	for r in $(seq "$REPS"); do
		v=$(jv "$T/$name.$r.json" '.verdict // empty' 2>/dev/null)
		case "|$forbidden|" in *"|$v|"*) bad="$bad run $r: $v;" ;; esac
		[ -n "$v" ] || bad="$bad run $r: no verdict;"
	done
	[ -z "$bad" ] && ktap_ok "$name: no completion finding ($forbidden) in $REPS runs" ||
		ktap_fail "$name: no completion finding ($forbidden) in $REPS runs ($bad)"
}

# check_finding_none FINDING WHY: no run of this file names FINDING among its findings
check_finding_none() {
	local f n=0 bad=""
	for f in "$T"/*.json; do
		[ -s "$f" ] || continue
		n=$((n + 1))
		jq -e --arg n "$1" 'any(.findings[]?; .name == $n) | not' "$f" >/dev/null ||
			bad="$bad $(basename "$f" .json)"
	done
	[ -z "$bad" ] && [ $n -gt 0 ] && ktap_ok "no run finds $1 ($2; $n runs)" ||
		ktap_fail "no run finds $1 ($2; $n runs:$bad)"
}

# diag_finish: the kernel log holds no driver bug; the KTAP plan
diag_finish() {
	local bad
	bad=$(lab_dmesg_bad)
	[ -z "$bad" ] && ktap_ok "no WARNING/BUG in dmesg" || { ktap_fail "no WARNING/BUG in dmesg"; printf '%s\n' "$bad" | head -20 | sed 's/^/# /'; }
	ktap_finish
}
