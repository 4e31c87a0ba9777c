#!/bin/bash
# Frags ground truth: sweep frags on txsim with a per-descriptor cost and on e1000e, txsim's linearize pathology and frag limit seen by txlat and named by diagnose.
# timeout: 1200
set -u
ROOT=${ETHTUNE_ROOT:-$(cd "$(dirname "$0")/../.." && pwd)}
. "$ROOT/tests/lib/ktap.sh"
ET=${ETHTUNE:-$ROOT/${O:-build}/ethtune}
. "$ROOT/tests/lab/lib/host.sh"
lab_host_run "$0" "${LAB_FRAGS_TIMEOUT:-900}" "frags: order-0 against order-3 page frags, linearization"

# ---- guest ----
. "$ROOT/tests/lab/lib/guest.sh"
export ETHTUNE_STATE_DIR=$(mktemp -d)
T=$(mktemp -d)
A="ip netns exec $LAB_NS_A"
HOAD=/proc/sys/net/core/high_order_alloc_disable
HOAD0=$(cat $HOAD)
py() { python3 -c "import json,sys; j=json.load(open(sys.argv[1])); print($2)" "$1"; }
serve_b() { ip netns exec $LAB_NS_B "$ET" serve --bind 198.18.0.2 >/dev/null 2>&1 & sleep 0.5; }
# txs KNOB VALUE: one of txsim0's sysfs knobs, seen from its namespace
txs() { $A sh -c "echo $2 >/sys/class/net/txsim0/txsim/$1"; }
gso_segs() { $A ip -d link show txsim0 | grep -o 'gso_max_segs [0-9]*' | head -1; }
ktap_header "frags in the guest ($(uname -r))"

# sweep NAME DEV [OPTS]: sweep frags from the initial namespace (the sysctl is kernel-wide)
sweep() {
	local name=$1 dev=$2
	shift 2
	"$ET" --netns $LAB_NS_A --json sweep frags "$dev" --peer 198.18.0.2 --duration 1 \
		--warmup 0.3 --quiet "$@" >"$T/$name.json" 2>"$T/$name.err" ||
		{ sed 's/^/# /' "$T/$name.err"; return 1; }
	ktap_schema "$name: sweep frags --json fits docs/schema/sweep.json" sweep "$T/$name.json"
	py "$T/$name.json" "'\\n'.join('%s: %s %.0f [%.0f, %.0f] Mbit/s, %.2f%%/Gbit/s, %s frags/skb' % (sys.argv[1], p['setting'], p['mbps'], p['mbps-lo'], p['mbps-hi'], p['cpu-pct-per-gbit'], p.get('frags-per-skb')) for p in j['frag-sweep']['points'])" |
		sed "s/^[^:]*:/$name:/" | while IFS= read -r l; do ktap_diag "$l"; done
	ktap_diag "$name: $(py "$T/$name.json" "'%d passes; frags p %s, throughput p %.4f, CPU p %.4f (significant below %s), cheaper %s (%s)' % (j['frag-sweep']['passes'], j['frag-sweep'].get('frags-p'), j['frag-sweep']['mbps-p'], j['frag-sweep']['cpu-p'], j['frag-sweep']['sig-p'], j['frag-sweep'].get('cheaper'), j['frag-sweep'].get('cheaper-by'))")"
	# each gso group's two comparisons: the passes go on until all of them are decided
	py "$T/$name.json" "'\\n'.join('%s %s: %s; against the device\\'s own: %s' % (g['param'], g['value'], *('throughput p %.4f, CPU p %.4f, cheaper %s' % (c['mbps-p'], c['cpu-p'], c.get('cheaper')) for c in (g['order'], g['against-own']))) for g in j['frag-sweep']['gso'])" |
		while IFS= read -r l; do ktap_diag "$name: $l"; done
}

# frags_differ NAME: order-0 skbs come in significantly more frags than order-3 ones
frags_differ() {
	py "$T/$1.json" "1 if j['frag-sweep']['frags-p'] < j['frag-sweep']['sig-p'] and j['frag-sweep']['points'][1]['frags-per-skb'] > j['frag-sweep']['points'][0]['frags-per-skb'] else 0" 2>/dev/null | grep -qx 1 &&
		ktap_ok "$1: order-0 skbs have significantly more frags than order-3 (paired t)" ||
		ktap_fail "$1: order-0 skbs have significantly more frags than order-3 (paired t)"
}

if ! ip link show txsim0 >/dev/null 2>&1 || ! lab_split txsim0 txsim1; then
	ktap_fail "txsim pair in two namespaces"
else
	serve_b
	# 1 Gb/s, 5 us per descriptor (map and unmap on the CPU, fetch on the wire): a 64 KB TSO
	# skb costs 3-4 descriptors with order-3 frags and 17 with order-0, 70 us more of each
	$A ethtool -s txsim0 speed 1000
	txs desc_ns 5000
	segs0=$(gso_segs)
	if sweep txsim txsim0 --gso-max-segs 16; then
		frags_differ txsim
		# the seed's direction: fewer, larger frags are the cheaper setting, by CPU or rate
		got=$(py "$T/txsim.json" "j['frag-sweep'].get('cheaper')")
		[ "$got" = order-3 ] && ktap_ok "txsim: order-3 is the cheaper setting, significantly" ||
			ktap_fail "txsim: order-3 is the cheaper setting, significantly (got '$got')"
		got=$(py "$T/txsim.json" "'%s %s %d' % (j['frag-sweep']['gso'][0]['param'], j['frag-sweep']['gso'][0]['value'], len(j['frag-sweep']['gso'][0]['points']))" 2>/dev/null)
		[ "$got" = "gso-max-segs 16 2" ] && ktap_ok "txsim: the gso-max-segs 16 group measured both orders" ||
			ktap_fail "txsim: the gso-max-segs 16 group measured both orders (got '$got')"
	else
		ktap_fail "txsim: sweep frags ran"
	fi
	[ "$(cat $HOAD)" = "$HOAD0" ] && [ "$(gso_segs)" = "$segs0" ] &&
		ktap_ok "sweep frags put high_order_alloc_disable and gso-max-segs back" ||
		ktap_fail "sweep frags put high_order_alloc_disable ($(cat $HOAD), was $HOAD0) and gso-max-segs back"
	txs desc_ns 0

	# The linearize pathology against txlat's count: order-0 frags (16-17 per 64 KB skb),
	# txsim linearizes every skb above 8; txlat counts what the driver did, txsim says the truth.
	echo 1 >$HOAD
	txs linearize_frags 8
	ip netns exec $LAB_NS_B iperf3 -s -D -B 198.18.0.2 >/dev/null 2>&1
	sleep 0.5
	l0=$(lab_stat txsim0 tx_linearized $LAB_NS_A)
	$A "$ET" --json txlat txsim0 --load-cmd "timeout 30 iperf3 -c 198.18.0.2 -t 4" \
		>"$T/lin.json" 2>"$T/lin.err"
	l1=$(lab_stat txsim0 tx_linearized $LAB_NS_A)
	got=$(py "$T/lin.json" "'%d %d %d' % ((j.get('all') or j['queues'][0])['frags']['linearized']['driver'], (j.get('all') or j['queues'][0])['frags']['linearized']['stack'], (j.get('all') or j['queues'][0])['xmit'])" 2>/dev/null)
	ktap_diag "linearize_frags 8: txlat driver/stack/xmit $got; txsim tx_linearized $((l1 - l0))"
	python3 -c "import sys; d, s, x = map(int, '$got'.split()); t = $((l1 - l0)); sys.exit(0 if t > 100 and abs(d - t) <= 0.02 * t and s == 0 else 1)" 2>/dev/null &&
		ktap_ok "txlat counts the skbs txsim linearized (within 2%), none by the stack" ||
		{ ktap_fail "txlat counts the skbs txsim linearized (within 2%), none by the stack"; sed 's/^/# /' "$T/lin.err"; }
	# diagnose names it, beside its headline, with the limit read off the frags per skb
	$A "$ET" --json diagnose txsim0 --peer 198.18.0.2 --duration 1 --warmup 0.3 --budget 20 \
		>"$T/diag.json" 2>"$T/diag.err"
	ktap_schema "linearize: diagnose --json fits docs/schema/diagnose.json" diagnose "$T/diag.json"
	ev=$(py "$T/diag.json" "' | '.join(e for f in j['findings'] if f['name'] == 'driver-linearizes' for e in f['evidence'])" 2>/dev/null)
	ktap_diag "linearize: headline $(py "$T/diag.json" "j['verdict']" 2>/dev/null); $ev"
	python3 -c "
import re, sys
m = re.search(r'more than (\d+)(?: to (\d+))? frags', sys.argv[1])
sys.exit(0 if m and int(m.group(1)) <= 8 <= int(m.group(2) or m.group(1)) else 1)" "$ev" &&
		ktap_ok "diagnose names driver-linearizes, with a frag limit that holds txsim's 8" ||
		{ ktap_fail "diagnose names driver-linearizes, with a frag limit that holds txsim's 8"; sed 's/^/# /' "$T/diag.err"; }
	txs linearize_frags 0

	# A frag limit the device declares (ndo_features_check): the stack linearizes before xmit,
	# so the driver never sees more than 4 frags and linearizes nothing itself
	txs max_frags 4
	$A "$ET" --json txlat txsim0 --load-cmd "timeout 30 iperf3 -c 198.18.0.2 -t 3" \
		>"$T/max.json" 2>"$T/max.err"
	got=$(py "$T/max.json" "'%d %d %d' % ((j.get('all') or j['queues'][0])['frags']['linearized']['stack'], (j.get('all') or j['queues'][0])['frags']['linearized']['driver'], max([h['frags'] for h in (j.get('all') or j['queues'][0])['frags']['histogram']] or [0]))" 2>/dev/null)
	ktap_diag "max_frags 4: txlat stack/driver linearized, most frags at xmit: $got"
	python3 -c "import sys; s, d, m = map(int, '$got'.split()); sys.exit(0 if s > 100 and d == 0 and m <= 4 else 1)" 2>/dev/null &&
		ktap_ok "max_frags 4: the stack linearized, the driver got at most 4 frags" ||
		{ ktap_fail "max_frags 4: the stack linearized, the driver got at most 4 frags"; sed 's/^/# /' "$T/max.err"; }
	txs max_frags 0
	echo "$HOAD0" >$HOAD
	pkill iperf3
	lab_unsplit
fi

# e1000e, a real driver: the full report
if lab_split ee0 ee1; then
	serve_b
	# frags per skb only: 4 passes, one look (the cheaper setting is txsim's case)
	if sweep e1000e ee0 --reps 4; then
		frags_differ e1000e
	else
		ktap_fail "e1000e: sweep frags ran"
	fi
	lab_unsplit
else
	ktap_fail "e1000e pair in two namespaces"
fi
[ "$(cat $HOAD)" = "$HOAD0" ] && ktap_ok "high_order_alloc_disable is $HOAD0 again" ||
	{ ktap_fail "high_order_alloc_disable is $HOAD0 again"; echo "$HOAD0" >$HOAD; }
bad=$(lab_dmesg_bad)
[ -z "$bad" ] && ktap_ok "no WARNING/BUG in dmesg" ||
	{ ktap_fail "no WARNING/BUG in dmesg"; printf '%s\n' "$bad" | head -20 | sed 's/^/# /'; }
ktap_finish
