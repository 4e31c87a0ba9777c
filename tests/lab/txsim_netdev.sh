#!/bin/bash
# Lab: txsim's NAPI ids, qstats and BQL stalls, each checked by the booted kernel's rules.
# kernels: sid
#
# By kernel: queues linked to their NAPI (netdev netlink queue-get napi-id) since 6.8; per-queue
# stats (qstats-get, netdev_stat_ops with tx stop/wake) since 6.10 in txsim; BQL's stall detector
# (byte_queue_limits/stall_thrs, stall_cnt) since 6.9. Where the kernel has the interface, txsim
# must fill it and the numbers must agree with txsim's own counters; where it has not, it must be
# absent. What e1000e and virtio_net show is printed alongside.
set -u
ROOT=${ETHTUNE_ROOT:-$(cd "$(dirname "$0")/../.." && pwd)}
. "$ROOT/tests/lib/ktap.sh"
ET=${ETHTUNE:-$ROOT/${O:-build}/ethtune}
. "$ROOT/tests/lab/lib/host.sh"
lab_host_run "$0" "${LAB_NETDEV_TIMEOUT:-300}" "txsim and the booted kernel's netdev interfaces"

# ---- guest ----
. "$ROOT/tests/lab/lib/guest.sh"
NL="python3 $ROOT/tests/lab/lib/netdev_nl.py"
A="ip netns exec $LAB_NS_A" B="ip netns exec $LAB_NS_B"
T=$(mktemp -d)
KV=$(uname -r | awk -F'[.-]' '{print $1 * 1000 + $2}')
since() { [ "$KV" -ge $(($1 * 1000 + $2)) ]; }	# since MAJOR MINOR: the booted kernel is as new
py() { python3 -c "import json, sys; j = json.load(open('$1')); $2"; }
why() {	# why FILE KEY: why the kernel gave no KEY (the request's error, or no netdev family)
	py "$1" "print(j['errors'].get('$2', 'no netdev family' if not j['family'] else 'empty'))"
}
ktap_header "txsim and the netdev interfaces of $(uname -r)"
if ! ip link show txsim0 >/dev/null 2>&1; then
	ktap_fail "txsim0 exists (txsim.ko loaded)"; ktap_finish; exit 0
fi

# What each driver exposes: queues and their NAPI ids, NAPIs and IRQs, qstats, BQL stall files.
show_dev() {	# show_dev DEV [NETNS]
	local dev=$1 ns=${2:+ip netns exec $2} q
	$ns $NL "$dev" >"$T/$dev.json" 2>"$T/$dev.err" ||
		{ ktap_diag "$dev: $(cat "$T/$dev.err")"; return; }
	q=/sys/class/net/$dev/queues/tx-0/byte_queue_limits
	ktap_diag "$dev ($($ns ethtool -i "$dev" 2>/dev/null | sed -n 's/^driver: //p')): $(py "$T/$dev.json" "
f = lambda l: ', '.join(l) or 'none'
print('netdev family %s; queues %s; napis %s; qstats %s; errors %s' % (j['family'],
    f(['%s%d napi %s' % (q['type'], q['id'], q.get('napi-id', '-')) for q in j.get('queues', [])]),
    f(['%d irq %s' % (n['id'], n.get('irq', '-')) for n in j.get('napis', [])]),
    f(sorted(set(k for s in j.get('qstats', []) for k in s
                 if k not in ('ifindex', 'queue-type', 'queue-id')))),
    j['errors'] or 'none'))"); BQL stall files: $($ns sh -c "ls $q 2>/dev/null" | grep -c stall)"
}
# vn0 up for its NAPI, and down again as the boot left it
ip link set vn0 up 2>/dev/null
for d in ee0 vn0; do show_dev $d; done
ip link set vn0 down 2>/dev/null

for d in txsim0 txsim1; do ethtool -s $d speed 1000; done
if ! lab_split txsim0 txsim1; then
	ktap_fail "txsim pair in two namespaces"; ktap_finish; exit 1
fi
show_dev txsim0 $LAB_NS_A
$A $NL txsim0 >"$T/q.json"
# ---- queues and NAPIs ----
if since 6 8; then
	if py "$T/q.json" "
q = {x['type']: x.get('napi-id', 0) for x in j.get('queues', []) if x['id'] == 0}
n = [x['id'] for x in j.get('napis', [])]
sys.exit(0 if q.get('rx') and q.get('tx') and q['rx'] != q['tx'] and
         q['rx'] in n and q['tx'] in n and len(j.get('queues', [])) == 2 else 1)"; then
		ktap_ok "queues: rx-0 and tx-0 name two different NAPIs of txsim0 (queue-get, napi-get)"
	else
		ktap_fail "queues: rx-0 and tx-0 name two different NAPIs of txsim0 (queue-get, napi-get)"
		ktap_diag "$(cat "$T/q.json")"
	fi
else
	py "$T/q.json" "sys.exit(0 if not j.get('queues') else 1)" &&
		ktap_ok "queues: no queue-NAPI link before 6.8 ($(why "$T/q.json" queues))" ||
		ktap_fail "queues: no queue-NAPI link before 6.8 ($(cat "$T/q.json"))"
fi

# ---- per-queue stats ----
qs() {	# qs FILE KEY: txsim0's queue-0 stat of the queue type KEY names
	py "$1" "print([s for s in j.get('qstats', [])
	       if s['queue-type'] == '${2%%-*}' and s['queue-id'] == 0][0].get('$2', -1))"
}
# agree E1 E2 V1 A B: the ethtool count, read at E1 and E2 either side of the qstats read V1,
# can equal V1 less qstats at the reset, which lies in [A, B] (read either side of the reset: a
# stray frame, ND or a late ACK, may complete between the two reads)
agree() { [ $(($3 - $5)) -le "$2" ] && [ "$1" -le $(($3 - $4)) ]; }
qstats_round() {	# qstats_round NAME [iperf3 options]: traffic, then qstats deltas against
	local n=$1 k e1 e2 a b v0 v1 bad=""	# txsim's own counters
	shift
	$A $NL txsim0 >"$T/$n.0.json"
	$A sh -c 'echo 1 >/sys/class/net/txsim0/txsim/stats_reset'
	$A $NL txsim0 >"$T/$n.0b.json"
	lab_iperf 2 "$@" >/dev/null
	sleep 1	# every skb completed (tx-usecs at most 2 ms)
	$A ethtool -S txsim0 >"$T/$n.e1"
	$A $NL txsim0 >"$T/$n.1.json"
	$A ethtool -S txsim0 >"$T/$n.e2"
	for k in tx-packets:tx_packets tx-bytes:tx_bytes tx-stop:tx_ring_full; do
		e1=$(awk -v k="${k#*:}:" '$1 == k {print $2}' "$T/$n.e1")
		e2=$(awk -v k="${k#*:}:" '$1 == k {print $2}' "$T/$n.e2")
		a=$(qs "$T/$n.0.json" "${k%%:*}"); b=$(qs "$T/$n.0b.json" "${k%%:*}")
		v0=$a; v1=$(qs "$T/$n.1.json" "${k%%:*}")
		agree "$e1" "$e2" "$v1" "$a" "$b" ||
			bad="$bad ${k%%:*} +$((v1 - b))..+$((v1 - a)) vs ${k#*:} $e1..$e2;"
		ktap_diag "$n: ${k%%:*} +$((v1 - v0))$([ "$a" = "$b" ] || echo " (+$((v1 - b)) after the" \
			"reset)"), ethtool ${k#*:} $e1"
	done
	v0=$(qs "$T/$n.0.json" tx-wake); v1=$(qs "$T/$n.1.json" tx-wake)
	e1=$(($(qs "$T/$n.1.json" tx-stop) - $(qs "$T/$n.0.json" tx-stop)))
	[ $((v1 - v0)) -eq "$e1" ] || bad="$bad tx-wake +$((v1 - v0)) vs tx-stop +$e1;"
	py "$T/$n.1.json" "d = j['qstats-dev']; q = [s for s in j['qstats'] if s['queue-type'] == 'tx']
sys.exit(0 if d.get('tx-packets') == sum(s['tx-packets'] for s in q) else 1)" ||
		bad="$bad device tx-packets is not the queues' sum;"
	QBAD=$bad
}
if since 6 10; then
	$A ethtool -C txsim0 tx-usecs 16 tx-frames 32
	qstats_round plain
	[ -z "$QBAD" ] && ktap_ok "qstats: txsim0 tx-0 packets, bytes, stop, wake agree with ethtool -S" ||
		ktap_fail "qstats: txsim0 tx-0 packets, bytes, stop, wake agree with ethtool -S ($QBAD)"
	# a 16-slot ring, a 2 ms completion interrupt and UDP (neither TSQ nor BQL holds it back
	# first): the queue stops and wakes
	$A ethtool -G txsim0 tx 16
	$A ethtool -C txsim0 tx-usecs 2000 tx-frames 0
	qstats_round full -u -b 200M -l 1400
	stops=$(($(qs "$T/full.1.json" tx-stop) - $(qs "$T/full.0.json" tx-stop)))
	[ -z "$QBAD" ] && [ "$stops" -gt 0 ] &&
		ktap_ok "qstats: a full ring counts $stops stops and as many wakes, as ethtool's tx_ring_full" ||
		ktap_fail "qstats: a full ring counts stops and as many wakes, as ethtool's" \
			"tx_ring_full (stops $stops;$QBAD)"
	$A ethtool -G txsim0 tx 256
	$A ethtool -C txsim0 tx-usecs 16 tx-frames 32
	$B $NL txsim1 >"$T/rx.json"
	[ "$(qs "$T/rx.json" rx-packets)" -gt 0 ] &&
		ktap_ok "qstats: txsim1 rx-0 counts received packets ($(qs "$T/rx.json" rx-packets))" ||
		ktap_fail "qstats: txsim1 rx-0 counts received packets"
else
	py "$T/q.json" "sys.exit(0 if not j.get('qstats') else 1)" &&
		ktap_ok "qstats: none before 6.10 ($(why "$T/q.json" qstats))" ||
		ktap_fail "qstats: none before 6.10 ($(cat "$T/q.json"))"
fi

# ---- BQL's stall detector ----
BQ=/sys/class/net/txsim0/queues/tx-0/byte_queue_limits
stall_round() {	# stall_round: pings 0.5 s apart; prints the rise of stall_cnt
	local c0 c1
	c0=$($A cat $BQ/stall_cnt)
	$A busybox ping -c 6 -i 0.5 -W 1 198.18.0.2 >/dev/null 2>&1
	sleep 0.5
	c1=$($A cat $BQ/stall_cnt)
	echo $((c1 - c0))
}
if since 6 9; then
	# 60 ms: far above this guest's scheduling hiccups, far below a 250 ms rescan
	if $A sh -c "echo 60 >$BQ/stall_thrs" && [ "$($A cat $BQ/stall_thrs)" -ge 60 ]; then
		ktap_ok "BQL: stall_thrs of txsim0 tx-0 takes 60 ms (reads $($A cat $BQ/stall_thrs))"
	else
		ktap_fail "BQL: stall_thrs of txsim0 tx-0 takes 60 ms"
	fi
	# prompt completions (tx-usecs 16): no stall
	r=$(stall_round)
	[ "$r" -eq 0 ] && ktap_ok "BQL: prompt completions, no stall (stall_cnt +$r)" ||
		ktap_fail "BQL: prompt completions, no stall (stall_cnt +$r)"
	# complete-on-next-xmit: each ping's frame waits for the next xmit or the rescan, 0-250 ms
	echo 250 >/sys/module/txsim/parameters/rescan_ms
	$A ethtool --set-priv-flags txsim0 complete-on-next-xmit on
	r=$(stall_round)
	$A ethtool --set-priv-flags txsim0 complete-on-next-xmit off
	echo 100 >/sys/module/txsim/parameters/rescan_ms
	[ "$r" -gt 0 ] &&
		ktap_ok "BQL: complete-on-next-xmit stalls the queue (stall_cnt +$r," \
			"stall_max $($A cat $BQ/stall_max) jiffies)" ||
		ktap_fail "BQL: complete-on-next-xmit stalls the queue (stall_cnt +$r)"
	$A sh -c "echo 0 >$BQ/stall_thrs"
else
	$A test ! -e $BQ/stall_thrs && $A test -e $BQ/limit &&
		ktap_ok "BQL: no stall detector before 6.9 (byte_queue_limits has no stall_thrs)" ||
		ktap_fail "BQL: no stall detector before 6.9 (byte_queue_limits:" \
			"$($A ls $BQ 2>&1 | tr '\n' ' '))"
fi

lab_unsplit
bad=$(lab_dmesg_bad)
[ -z "$bad" ] && ktap_ok "no WARNING/BUG in dmesg" ||
	{ ktap_fail "no WARNING/BUG in dmesg"; printf '%s\n' "$bad" | head -20 | sed 's/^/# /'; }
rm -rf "$T"
ktap_finish
