#!/bin/bash
# ethtune probe/serve on a veth pair between two namespaces: every test kind, seed workloads,
# RR percentiles, confidence-loop stop reasons and the JSON environment snapshot.
# jobs: alone (it reads each end's CPU accounting under a flow)
set -u
. "$(dirname "$0")/../lib/ktap.sh"
. "$(dirname "$0")/../lib/probe_env.sh"
trap pe_cleanup EXIT
ktap_header "probe and serve on a veth pair"
if [ "$(id -u)" -ne 0 ] || ! pe_setup basic; then
	ktap_skip "probe tests" "needs root and network namespaces"; ktap_finish; exit 0
fi
if ! pe_serve $PE_B; then ktap_fail "serve starts in $PE_B"; ktap_finish; exit 1; fi
ktap_ok "serve starts in $PE_B"
P() { "$E" --netns $PE_A probe --peer $PE_IP_B "$@"; }
J=$(mktemp /tmp/etp-json.XXXXXX)
trap 'rm -f $J $J.err; pe_cleanup' EXIT
# jcheck DESC PYEXPR PROBE-ARGS...: run with --json, assert the python expression on d and
# check the document against its schema.
jcheck() {
	local d=$1 expr=$2; shift 2
	if ! P "$@" --json >"$J" 2>"$J.err"; then ktap_fail "$d"; sed 's/^/# /' "$J.err"; return; fi
	if python3 -c "import json,sys; d=json.load(open(sys.argv[1])); r=d['result']; assert $expr, 'assertion'" "$J" 2>"$J.err"; then
		ktap_ok "$d"
	else
		ktap_fail "$d"; sed 's/^/# /' "$J.err" | tail -3
	fi
	ktap_schema "$d: --json fits docs/schema/probe.json" probe "$J"
}
jcheck "stream: summed throughput > 0" "r['throughput-mbps'] > 0 and len(r['flow-mbps']) == 1" \
	--duration 1 --warmup 0.2
jcheck "stream: sender tcp_info, buffers, cpu, device counters" \
	"'retransmits' in r['sender-tcp-info'] and r['socket-buffers-end']['remote-rcvbuf'] > 0 and 'local-util-pct' in r['cpu'] and r['device-counters']['tx-bytes'] > 0" \
	--duration 1 --warmup 0.2
jcheck "maerts: receive direction measured, sender tcp_info and device counters from the peer" \
	"r['throughput-mbps'] > 0 and 'rtt-us' in r['sender-tcp-info'] and r['device-counters']['rx-bytes'] > 0 and r['remote-device-counters']['dev'] == '$PE_VB' and r['remote-device-counters']['tx-bytes'] > 0" \
	--test maerts --duration 1 --warmup 0.2
jcheck "rr 1 byte, pinned L,R: tps and latency p50/p90/p99/p99.9" \
	"r['transactions-per-s'] > 0 and all(k in r['latency'] for k in ('p50-us','p90-us','p99-us','p99.9-us')) and r['latency']['p50-us'] <= r['latency']['p99.9-us']" \
	--test rr --msg-size 1 --cpu 0,1 --nodelay --duration 1 --warmup 0.2
# The sender's and receiver's paths (--send, --skip-rx-copy), on whichever end they run.
jcheck "stream --send zerocopy: every send notified, the count of copied ones reported" \
	"d['config']['send'] == 'zerocopy' and r['throughput-mbps'] > 0 and r['zerocopy']['sends'] > 0 and r['zerocopy']['done'] == r['zerocopy']['sends'] and 0 <= r['zerocopy']['copied'] <= r['zerocopy']['done']" \
	--send zerocopy --duration 1 --warmup 0.2
jcheck "maerts --send zerocopy: the peer sends with MSG_ZEROCOPY and reports its notifications" \
	"r['throughput-mbps'] > 0 and r['zerocopy']['sends'] > 0 and r['zerocopy']['done'] == r['zerocopy']['sends']" \
	--test maerts --send zerocopy --duration 1 --warmup 0.2
jcheck "stream --send sendfile: data flows, CPU per Gbit/s on both ends" \
	"d['config']['send'] == 'sendfile' and r['throughput-mbps'] > 0 and r['cpu']['local-process-pct-per-gbit'] > 0 and r['cpu']['remote-process-pct-per-gbit'] > 0" \
	--send sendfile --duration 1 --warmup 0.2
jcheck "maerts --skip-rx-copy (MSG_TRUNC here): data flows" \
	"d['config']['skip-rx-copy'] is True and r['throughput-mbps'] > 0" \
	--test maerts --skip-rx-copy --duration 1 --warmup 0.2
# The measurement's own cost: each end's control thread (the sampler's), within its process.
jcheck "stream: each end reports its control thread's CPU, a part of its process's" \
	"0 < r['cpu']['local-control-pct'] <= r['cpu']['local-process-pct'] + 1 and 0 < r['cpu']['remote-control-pct'] <= r['cpu']['remote-process-pct'] + 1" \
	--duration 1 --warmup 0.2
# SO_RCVLOWAT on the bulk receiver: 64K by default, off with a locked --rcvbuf, as set with
# --rcvlowat; the kernel's value read back on the receiving end (serve for stream, here for maerts).
jcheck "stream: the receiver wakes at 64K by default (SO_RCVLOWAT read back on serve)" \
	"d['config']['rcvlowat'] == 65536 and r['socket-buffers-end']['remote-rcvlowat'] == 65536 and r['socket-buffers-end']['local-rcvlowat'] == 1 and r['throughput-mbps'] > 0" \
	--duration 1 --warmup 0.2
jcheck "maerts --rcvlowat 16K: applied on this end's receiver" \
	"d['config']['rcvlowat'] == 16384 and r['socket-buffers-end']['local-rcvlowat'] == 16384 and r['socket-buffers-end']['remote-rcvlowat'] == 1 and r['throughput-mbps'] > 0" \
	--test maerts --rcvlowat 16K --duration 1 --warmup 0.2
jcheck "stream --rcvbuf 256K: no SO_RCVLOWAT, so a locked buffer is not held half unread" \
	"d['config']['rcvlowat'] == 0 and r['socket-buffers-end']['remote-rcvlowat'] == 1 and r['throughput-mbps'] > 0" \
	--rcvbuf 256K --duration 1 --warmup 0.2
jcheck "stream --rcvlowat 1M --recv-size 32K: capped at the recv() size" \
	"d['config']['rcvlowat'] == 1048576 and r['socket-buffers-end']['remote-rcvlowat'] == 32768 and r['throughput-mbps'] > 0" \
	--rcvlowat 1M --recv-size 32K --duration 1 --warmup 0.2
# Polling for data before recv() sleeps (--rx-poll-usecs), on whichever end receives: its time is
# part of that process's CPU and left out of the per-Gbit/s figure; off on a one-CPU host.
MULTI="(__import__('os').cpu_count() > 1)"
jcheck "stream: serve's receiver polls 50 us by default, its time within its process's CPU" \
	"d['config']['rx-poll-usecs'] == 50 and (r['cpu']['remote-poll-pct'] > 0) == $MULTI and r['cpu']['remote-poll-pct'] <= r['cpu']['remote-process-pct'] + 1 and r['cpu']['local-poll-pct'] == 0 and abs(r['cpu']['remote-process-pct-per-gbit'] - (r['cpu']['remote-process-pct'] - r['cpu']['remote-poll-pct']) * 1000 / r['throughput-mbps']) < 0.01" \
	--duration 1 --warmup 0.2
jcheck "maerts --rx-poll-usecs 20: this end's receiver polls, serve's sender does not" \
	"d['config']['rx-poll-usecs'] == 20 and (r['cpu']['local-poll-pct'] > 0) == $MULTI and r['cpu']['remote-poll-pct'] == 0" \
	--test maerts --rx-poll-usecs 20 --duration 1 --warmup 0.2
jcheck "stream --rx-poll-usecs 0: the receiver does not poll" \
	"d['config']['rx-poll-usecs'] == 0 and r['cpu']['remote-poll-pct'] == 0 and r['throughput-mbps'] > 0" \
	--rx-poll-usecs 0 --duration 1 --warmup 0.2
jcheck "rr: no polling (one request at a time)" \
	"d['config']['rx-poll-usecs'] == 0 and 'remote-poll-pct' not in r['cpu'] and r['transactions-per-s'] > 0" \
	--test rr --duration 1 --warmup 0.2
jcheck "crr: transactions/s" "r['transactions-per-s'] > 0 and r['latency']['samples'] > 0" \
	--test crr --msg-size 1 --duration 1 --warmup 0.2
for rb in 8K 64K auto; do
	jcheck "seed 000: 32 flows x 256 B, nodelay, rcvbuf $rb, maerts" \
		"len(r['flow-mbps']) == 32 and r['throughput-mbps'] > 0 and min(r['flow-mbps']) >= 0" \
		--test maerts --flows 32 --msg-size 256 --nodelay --rcvbuf $rb --sndbuf $rb --duration 1 --warmup 0.3
done
jcheck "seed 000 as netperf: 8K buffers and 8K receives" \
	"len(r['flow-mbps']) == 32 and r['throughput-mbps'] > 0 and d['config']['recv-size'] == 8192" \
	--test maerts --flows 32 --msg-size 256 --nodelay --rcvbuf 8K --sndbuf 8K --recv-size 8K --duration 1 --warmup 0.3
jcheck "seed 004: 64 KB sends, cc reno" "r['throughput-mbps'] > 0" --msg-size 64K --cc reno --duration 1 --warmup 0.2
jcheck "bind-dev: device counters of $PE_VA" "r['device-counters']['dev'] == '$PE_VA'" \
	--bind-dev $PE_VA --duration 1 --warmup 0.2
jcheck "confidence: wide target stops as confidence-reached" \
	"r['confidence']['stop-reason'] == 'confidence-reached' and r['confidence']['iterations'] == 2" \
	--iterations 2,4 --confidence 50,200 --duration 0.5 --warmup 0.1
jcheck "confidence: impossible target stops as max-iterations" \
	"r['confidence']['stop-reason'] == 'max-iterations' and len(r['iterations']) == 3 and r['confidence']['width-pct'] > 1e-6" \
	--iterations 2,3 --confidence 99,0.000001 --duration 0.5 --warmup 0.1
jcheck "json: config, kernel, sysctls, ethtune show state of the device" \
	"d['config']['test'] == 'stream' and d['environment']['kernel'] and 'net.ipv4.tcp_rmem' in d['environment']['sysctls'] and d['environment']['device']['name'] == '$PE_VA' and d['environment']['device'].get('driver') == 'veth' and 'mtu' in d['environment']['device']['link']" \
	--duration 0.5 --warmup 0.1
out=$(P --duration 0.5 --warmup 0.1 2>&1)
if [ "$(printf '%s\n' "$out" | head -1 | cut -d' ' -f1-2)" = "probe stream" ] && printf '%s\n' "$out" | grep -q '^throughput:'; then
	ktap_ok "text: effective configuration first, then results"
else
	ktap_fail "text: effective configuration first, then results"; printf '%s\n' "$out" | sed 's/^/# /'
fi
ktap_check "serve still alive after all runs" kill -0 $PE_SERVE_PID
ktap_finish
