#!/bin/bash
# Lab, newest kernel: show's queues, NAPIs, IRQs and qstats against the kernel's own files, napi set through kill -9, counters against the probe, stall evidence.
# kernels: sid
# timeout: 900
set -u
ROOT=${ETHTUNE_ROOT:-$(cd "$(dirname "$0")/../.." && pwd)}
. "$ROOT/tests/lib/ktap.sh"
ET=${ETHTUNE:-$ROOT/${O:-build}/ethtune}
. "$ROOT/tests/lab/lib/host.sh"
lab_host_run "$0" "${LAB_NEWKERNEL_TIMEOUT:-600}" "the newest kernel: netdev netlink, qstats, BQL stalls"

# ---- guest ----
. "$ROOT/tests/lab/lib/guest.sh"
export ETHTUNE_STATE_DIR=$(mktemp -d /tmp/ethtune-lab.XXXXXX)
T=$(mktemp -d)
ktap_header "the newest kernel in the guest ($(uname -r))"
py() { python3 -c "$@"; }

# 1. show against /proc/interrupts, sysfs and ethtool, field by field, for every lab driver.
# Prints one line per disagreement and "queues N napis M irqs K qstats Q" at the end.
show_agrees() {	# DEV
	local dev=$1
	"$ET" --json show "$dev" >"$T/$dev.json" 2>"$T/$dev.err" || { cat "$T/$dev.err"; return 1; }
	ktap_schema "$dev: show --json fits docs/schema/show.json" show "$T/$dev.json"
	python3 - "$dev" "$T/$dev.json" <<'PY'
import json, os, sys, glob
dev, j = sys.argv[1], json.load(open(sys.argv[2]))
bad = []
def rd(p):
    try:
        return open(p).read().strip()
    except OSError:
        return None
txq = sorted(int(p.rsplit('-', 1)[1]) for p in glob.glob('/sys/class/net/%s/queues/tx-*' % dev))
qs = j.get('tx-queues', [])
if [q['queue'] for q in qs] != txq:
    bad.append('tx-queues %s, sysfs %s' % ([q['queue'] for q in qs], txq))
napis = {n['napi-id']: n for n in j.get('napi', [])}
irqs = stats = 0
for q in qs:
    b = [x for x in j.get('bql', []) if x['queue'] == q['queue']]
    for k in ('limit', 'limit-min', 'limit-max', 'stall-thrs', 'stall-cnt', 'stall-max'):
        v = rd('/sys/class/net/%s/queues/tx-%d/byte_queue_limits/%s' % (dev, q['queue'], k.replace('-', '_')))
        if v is not None and k not in ('limit', 'stall-cnt', 'stall-max') and (not b or str(b[0].get(k)) != v):
            bad.append('tx-%d bql %s %s, sysfs %s' % (q['queue'], k, b[0].get(k) if b else None, v))
    if 'tx-packets' in q:
        stats += 1
    n = napis.get(q.get('napi-id'))
    if 'napi-id' in q and not n:
        bad.append('tx-%d napi %s not in the napi list' % (q['queue'], q['napi-id']))
    if n and 'irq' in n:
        irqs += 1
        line = [l for l in open('/proc/interrupts') if l.split(':')[0].strip() == str(n['irq'])]
        if not line or dev not in line[0] and 'virtio' not in line[0]:
            bad.append('napi %d irq %d: /proc/interrupts has %s' % (n['napi-id'], n['irq'], line))
        aff = rd('/proc/irq/%d/smp_affinity_list' % n['irq'])
        if aff is not None and n.get('irq-affinity') != aff:
            bad.append('irq %d affinity %s, /proc %s' % (n['irq'], n.get('irq-affinity'), aff))
for n in napis.values():
    pid = n.get('pid')
    if pid and rd('/proc/%d/comm' % pid) is None:
        bad.append('napi %d pid %d has no /proc entry' % (n['napi-id'], pid))
# the device-wide sysfs values are every NAPI's value until one is set on its own
s = j.get('napi-sysfs', {})
for k, f in (('gro-flush-timeout', 'gro_flush_timeout'), ('defer-hard-irqs', 'napi_defer_hard_irqs')):
    v = rd('/sys/class/net/%s/%s' % (dev, f))
    if v is not None and str(s.get(k)) != v:
        bad.append('napi-sysfs %s %s, sysfs %s' % (k, s.get(k), v))
for l in bad:
    print('  ' + l)
print('queues %d napis %d irqs %d qstats %d' % (len(qs), len(napis), irqs, stats))
sys.exit(1 if bad else 0)
PY
}

for dev in ee0 vn0 txsim0; do
	if ! ip link show "$dev" >/dev/null 2>&1; then
		ktap_fail "$dev exists"
		continue
	fi
	ip link set "$dev" up
	out=$(show_agrees "$dev" 2>&1) && ok=1 || ok=0
	sum=$(printf '%s\n' "$out" | tail -1)
	printf '%s\n' "$out" | head -n -1 | while IFS= read -r l; do ktap_diag "$dev:$l"; done
	[ $ok = 1 ] && ktap_ok "$dev: show agrees with sysfs and /proc on every shared field ($sum)" ||
		ktap_fail "$dev: show agrees with sysfs and /proc on every shared field ($sum)"
	# every driver here links its TX queues to a NAPI on this kernel, and each NAPI of a
	# hardware device has an IRQ
	case $dev in
	ee0) want="irqs [1-9]" ;;
	*) want="napis [1-9]" ;;
	esac
	printf '%s' "$sum" | grep -q "$want" && ktap_ok "$dev: NAPIs listed ($want)" ||
		ktap_fail "$dev: NAPIs listed ($want): $sum"
done

# 2. napi set through kill -9 of a temporary change's holder (the next ethtune run puts the
# user's values back: the journal kept them), and a lasting napi set undone by `ethtune restore`.
nget() {	# DEV KEY: the first NAPI's value of KEY
	"$ET" --json show "$1" | py "import json,sys; n=json.load(sys.stdin).get('napi', []); print(n[0].get('$2', 'n/a') if n else 'n/a')"
}
dev=vn0
g0=$(nget $dev gro-flush-timeout) d0=$(nget $dev defer-hard-irqs)
if [ "$g0" = n/a ]; then
	ktap_fail "$dev: napi gro-flush-timeout is shown"
else
	"$ET" set $dev napi all gro-flush-timeout 40000 defer-hard-irqs 3 --for 120 \
		>"$T/for.log" 2>&1 &
	pid=$!
	# read by the kernel's own answer, not by ethtune: its next run would put the values back
	kget() { python3 "$ROOT/tests/lab/lib/netdev_nl.py" $dev | py "import json,sys; n=json.load(sys.stdin)['napis']; print(n[0].get('gro-flush-timeout') if n else 'n/a')"; }
	for i in $(seq 50); do [ "$(kget)" = 40000 ] && break; sleep 0.1; done
	held=$(kget)
	kill -9 $pid; wait $pid 2>/dev/null
	kept=$("$ET" restore --list 2>&1 | grep -c 'gro-flush-timeout.*(temporary)')
	g2=$(nget $dev gro-flush-timeout) d2=$(nget $dev defer-hard-irqs)
	[ "$held" = 40000 ] && [ "$kept" -ge 1 ] && [ "$g2/$d2" = "$g0/$d0" ] &&
		ktap_ok "$dev: napi set --for, kill -9: the journal keeps the old values ($kept), the next run puts them back ($g2/$d2)" ||
		ktap_fail "$dev: napi set --for, kill -9: journal keeps the old values ($kept), next run puts them back (held $held, now $g2/$d2, was $g0/$d0)"
	"$ET" set $dev napi all gro-flush-timeout 40000 defer-hard-irqs 3 >"$T/set.log" 2>&1
	g1=$(nget $dev gro-flush-timeout) d1=$(nget $dev defer-hard-irqs)
	"$ET" restore >"$T/restore.log" 2>&1
	g3=$(nget $dev gro-flush-timeout) d3=$(nget $dev defer-hard-irqs)
	[ "$g1/$d1" = 40000/3 ] && [ "$g3/$d3" = "$g0/$d0" ] &&
		ktap_ok "$dev: napi set applies ($g0/$d0 -> $g1/$d1), ethtune restore puts it back ($g3/$d3)" ||
		ktap_fail "$dev: napi set applies and restore puts it back ($g0/$d0 -> $g1/$d1 -> $g3/$d3): $(cat "$T/set.log" "$T/restore.log")"
fi
for bad in "napi 999999 defer-hard-irqs 1" "napi all defer-hard-irqs -1" "napi all gro-flush-timeout x"; do
	before=$(nget $dev defer-hard-irqs)
	err=$("$ET" set $dev $bad 2>&1) && rc=0 || rc=$?
	after=$(nget $dev defer-hard-irqs)
	[ $rc -ne 0 ] && [ "$(printf '%s\n' "$err" | wc -l)" -eq 1 ] && [ "$before" = "$after" ] &&
		ktap_ok "set $dev $bad: refused in one line, nothing changed ($err)" ||
		ktap_fail "set $dev $bad: refused in one line, nothing changed (status $rc: $err)"
done

# 3. Per-queue TX counters (qstats) against what TCP sent over the probe's window. The
# counters count skb->len at completion, TCP counts payload at transmit: header bytes per
# counted packet are taken out (Ethernet 14, IPv4 20, TCP with timestamps 32), and what sits
# below TCP at either end of a 10 s window is the remaining error.
for d in txsim0 txsim1; do ethtool -s $d speed 1000; echo 0 >/sys/class/net/$d/txsim/delay_us; done
if lab_split txsim0 txsim1; then
	ip netns exec $LAB_NS_B "$ET" serve --bind 198.18.0.2 >/dev/null 2>&1 &
	sleep 0.5
	for r in 1 2; do
		ip netns exec $LAB_NS_A "$ET" --json probe --peer 198.18.0.2 --duration 10 \
			--warmup 1 >"$T/p$r.json" 2>"$T/p$r.err"
		ktap_schema "counters $r: probe --json fits docs/schema/probe.json" probe "$T/p$r.json"
		res=$(py "
import json; r = json.load(open('$T/p$r.json'))['result']
d, s = r['device-counters'], r['sender-tcp-info']['bytes-sent']
if 'queue-tx-bytes' not in d:
    print('no qstats'); raise SystemExit(1)
pay = d['queue-tx-bytes'] - 66 * d['queue-tx-packets']
e = 100 * abs(pay - s) / s
print('qstats %d bytes in %d packets, payload %d, TCP sent %d: %.3f%% apart' % (d['queue-tx-bytes'], d['queue-tx-packets'], pay, s, e))
raise SystemExit(0 if e < 1 else 1)" 2>&1) && ok=1 || ok=0
		[ $ok = 1 ] && ktap_ok "txsim0 counters $r: per-queue TX bytes agree with the probe within 1% ($res)" ||
			ktap_fail "txsim0 counters $r: per-queue TX bytes agree with the probe within 1% ($res; $(head -c 300 "$T/p$r.err"))"
	done

	# 4. A completion stall the counters see: completions only on the next transmit or a 20 ms
	# rescan, and a full queue waits for the rescan as qeth's does (stop_irq 0), with a
	# 16-slot ring and no TSO, so the ring fills and the queue stops every rescan period; the
	# finding must cite tx-stop or BQL's stall count. (With stop_irq 1 the stop's interrupt
	# frees the ring, one flow loses little, and a stop and a loss exclude each other.)
	# On the ground-truth matrix's rig (diagnose_txsim.sh): 2.5 ms of wire each way, so ACKs
	# do not overtake completions, at the rate this kernel's guest can fill (500 Mb/s on sid).
	A="ip netns exec $LAB_NS_A"
	for d in txsim0 txsim1; do
		ip netns exec $([ $d = txsim0 ] && echo $LAB_NS_A || echo $LAB_NS_B) sh -c \
			"echo 2500 >/sys/class/net/$d/txsim/delay_us; ethtool -s $d speed 500"
	done
	$A ethtool -G txsim0 tx 16 2>/dev/null
	$A ethtool -K txsim0 tso off gso off >/dev/null 2>&1
	$A ethtool -C txsim0 tx-usecs 16 tx-frames 32
	$A sh -c "echo 0 >/sys/class/net/txsim0/txsim/stop_irq"
	echo 20 >/sys/module/txsim/parameters/rescan_ms
	$A ethtool --set-priv-flags txsim0 complete-on-next-xmit on
	$A "$ET" --json diagnose txsim0 --peer 198.18.0.2 --peer-dev txsim1 --peer-netns $LAB_NS_B \
		--duration 1 --warmup 0.3 --budget 30 >"$T/stall.json" 2>"$T/stall.err"
	ktap_schema "stall: diagnose --json fits docs/schema/diagnose.json" diagnose "$T/stall.json"
	res=$(py "
import json; j = json.load(open('$T/stall.json')); p = j.get('probe', {})
h = [f for f in j.get('findings', []) if f.get('name') == j['verdict']]
ev = [e for f in h for e in f.get('evidence', [])]
cite = [e for e in ev if 'tx-stop' in e or 'stall' in e.lower() and 'stall_cnt' in e]
print('%s, D %.0f us, one flow %.0f of %.0f, model %.0f%%; tx-stop %s, stall-cnt %s; cited: %s %s' % (j['verdict'], j.get('d-us', -1), p.get('one-flow-mbps', -1), p.get('two-flows-mbps', -1), j.get('model-loss-pct', -1), p.get('tx-stop'), p.get('bql-stall-cnt'), cite[:1], j.get('inconclusive-reason', '')))
raise SystemExit(0 if j['verdict'] == 'completion-stalls' and cite else 1)" 2>&1) && ok=1 || ok=0
	[ $ok = 1 ] && ktap_ok "txsim0 stall case: the finding cites the queue's stops or BQL's stalls ($res)" ||
		ktap_fail "txsim0 stall case: the finding cites the queue's stops or BQL's stalls ($res; $(head -c 300 "$T/stall.err"))"
	$A ethtool --set-priv-flags txsim0 complete-on-next-xmit off
	$A sh -c "echo 1 >/sys/class/net/txsim0/txsim/stop_irq"
	echo 100 >/sys/module/txsim/parameters/rescan_ms
	$A ethtool -C txsim0 tx-usecs 0 tx-frames 0
	lab_unsplit
else
	ktap_fail "txsim pair in two namespaces"
fi

# 5. tune: NAPI deferral as software completion coalescing on virtio_net (no NOTF_COAL here):
# every setting measured, the profile carries a [napi] section, the device is as before.
if lab_split vn0 vn1 1; then
	A="ip netns exec $LAB_NS_A"
	$A "$ET" --json show vn0 >"$T/vn-before.json"
	ip netns exec $LAB_NS_B "$ET" serve --bind 198.18.1.2 >/dev/null 2>&1 &
	sleep 0.5
	$A "$ET" --json tune vn0 --peer 198.18.1.2 --param gro-flush-timeout --values 0,50000 \
		--duration 1 --warmup 0.3 --write-profile "$T/vn.profile" >"$T/tune.json" 2>"$T/tune.err"
	rc=$?
	ktap_schema "tune napi: tune --json fits docs/schema/tune.json" tune "$T/tune.json"
	$A "$ET" --json show vn0 >"$T/vn-after.json"
	res=$(py "
import json; j = json.load(open('$T/tune.json'))
pts = j.get('coalesce-sweep', {}).get('points', [])
print('%d settings: %s' % (len(pts), ', '.join('%s %.0f Mbit/s' % (p.get('gro-flush-timeout'), p.get('mbps', -1)) for p in pts)))" 2>&1)
	prof=$(sed -n '/^\[napi\]/,/^\[/p' "$T/vn.profile" 2>/dev/null | grep -E '^(gro-flush-timeout|defer-hard-irqs) = ' | paste -sd' ')
	same=$(py "
import json; a, b = (json.load(open('$T/vn-%s.json' % w)) for w in ('before', 'after'))
print(a.get('napi') == b.get('napi') and a.get('napi-sysfs') == b.get('napi-sysfs'))")
	[ $rc -eq 0 ] && [ -n "$prof" ] && [ "$same" = True ] &&
		ktap_ok "vn0: tune over NAPI deferral writes a [napi] profile ($prof; $res) and restores the NAPIs" ||
		ktap_fail "vn0: tune over NAPI deferral writes a [napi] profile and restores the NAPIs (status $rc, profile '$prof', restored $same; $res; $(head -c 300 "$T/tune.err"))"
	lab_unsplit
else
	ktap_fail "virtio_net pair in two namespaces"
fi
# txsim's speed, ring, coalescing and TSO as the module starts them
lab_txsim_reload

bad=$(lab_dmesg_bad)
[ -z "$bad" ] && ktap_ok "no WARNING/BUG in dmesg" || { ktap_fail "no WARNING/BUG in dmesg"; printf '%s\n' "$bad" | head -20 | sed 's/^/# /'; }
ktap_finish
