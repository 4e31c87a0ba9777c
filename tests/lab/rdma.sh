#!/bin/bash
# Lab test of `ethtune rdma`: rdma_rxe on ee0 in the qemu guest: list, caps, a real RC loopback
# probe with percentiles, CQ moderation reported (rxe has none). On the host it boots the lab.
set -u
ROOT=${ETHTUNE_ROOT:-$(cd "$(dirname "$0")/../.." && pwd)}
. "$ROOT/tests/lib/ktap.sh"
ET=${ETHTUNE:-$ROOT/${O:-build}/ethtune}

. "$ROOT/tests/lab/lib/host.sh"
lab_host_run "$0" "${LAB_RDMA_TIMEOUT:-400}" "rdma: rdma_rxe in the driver lab"

# ---- guest ----
# $1 JSON file, $2 python expression over j: prints its value
jq_py() { python3 -c "import json,sys; j=json.load(open('$1')); print($2)"; }

T=$(mktemp -d)
ktap_header "rdma (guest $(uname -r))"
modprobe rdma_rxe 2>/dev/null
ip link set ee0 up
# the RoCEv2 GID's address, taken away again at the end
ip addr add 198.18.10.1/24 dev ee0 2>/dev/null
for _ in $(seq 20); do grep -q up /sys/class/net/ee0/operstate && break; sleep 0.5; done
has_rxe() { rdma link show 2>/dev/null | grep -q "^link rxe0/"; }
has_rxe || rdma link add rxe0 type rxe netdev ee0
for _ in $(seq 20); do rdma link show 2>/dev/null | grep -q "^link rxe0/.*ACTIVE" && break; sleep 0.5; done
ktap_diag "$(rdma link show 2>&1)"

if ! has_rxe; then
	ip addr del 198.18.10.1/24 dev ee0 2>/dev/null
	ktap_skip "rdma list shows rxe0" "no rdma_rxe in this guest"; ktap_finish; exit
fi

# list: rxe0 mapped to ee0 with its IPv4-mapped RoCEv2 GID
if "$ET" --json rdma list >"$T/list.json" 2>"$T/err" &&
	[ "$(jq_py "$T/list.json" "[p['netdev'] for d in j['devices'] if d['ibdev']=='rxe0' for p in d['port-list']][0]")" = ee0 ]; then
	ktap_ok "rdma list shows rxe0 on netdev ee0"
else
	ktap_fail "rdma list shows rxe0 on netdev ee0"; sed 's/^/# /' "$T/list.json" "$T/err" | head -30
fi
if jq_py "$T/list.json" "[g for d in j['devices'] for p in d['port-list'] for g in p['gids'] if g['gid']=='::ffff:198.18.10.1' and g['type']=='RoCEv2'][0]" >/dev/null 2>&1; then
	ktap_ok "rdma list shows the RoCEv2 GID ::ffff:198.18.10.1"
else
	ktap_fail "rdma list shows the RoCEv2 GID ::ffff:198.18.10.1"
fi
"$ET" rdma list | sed 's/^/# /'
ktap_schema "rdma list --json fits docs/schema/rdma.json" rdma "$T/list.json"

# caps
if "$ET" --json rdma caps rxe0 >"$T/caps.json" 2>"$T/err" &&
	[ "$(jq_py "$T/caps.json" "j['devices'][0]['max-cqe'] > 0")" = True ]; then
	ktap_ok "rdma caps rxe0 prints device limits"
else
	ktap_fail "rdma caps rxe0 prints device limits"; sed 's/^/# /' "$T/err"
fi
ktap_schema "rdma caps --json fits docs/schema/rdma.json" rdma "$T/caps.json"
modok=$(jq_py "$T/caps.json" "j['devices'][0]['cq-moderation']" 2>/dev/null)
ktap_diag "rxe0 cq-moderation: $modok; direct verbs: $(jq_py "$T/caps.json" "j['devices'][0].get('direct-verbs','mlx5dv')" 2>/dev/null)"

# a real RC loopback, event mode, then busy-poll with a deeper queue
if "$ET" --json rdma probe rxe0 --iters 2000 >"$T/p1.json" 2>"$T/err" &&
	[ "$(jq_py "$T/p1.json" "j['results'][0]['latency']['p50-us'] > 0 and j['results'][0]['completions'] == 2000")" = True ]; then
	ktap_ok "rdma probe rxe0: RC loopback reports percentiles"
	ktap_diag "$(jq_py "$T/p1.json" "'event depth 1 msg 64: %.0f msgs/s p50 %.1f p99 %.1f p99.9 %.1f us' % (j['results'][0]['msgs-per-s'], j['results'][0]['latency']['p50-us'], j['results'][0]['latency']['p99-us'], j['results'][0]['latency']['p99.9-us'])")"
else
	ktap_fail "rdma probe rxe0: RC loopback reports percentiles"; sed 's/^/# /' "$T/err" "$T/p1.json" | head
fi
ktap_schema "rdma probe --json fits docs/schema/rdma.json" rdma "$T/p1.json"
if "$ET" --json rdma probe rxe0 --poll --depth 8 --msg-size 4K --iters 2000 >"$T/p2.json" 2>"$T/err"; then
	ktap_ok "rdma probe rxe0 --poll --depth 8 --msg-size 4K"
	ktap_diag "$(jq_py "$T/p2.json" "'poll depth 8 msg 4K: %.0f msgs/s p50 %.1f p99 %.1f us' % (j['results'][0]['msgs-per-s'], j['results'][0]['latency']['p50-us'], j['results'][0]['latency']['p99-us'])")"
else
	ktap_fail "rdma probe rxe0 --poll --depth 8 --msg-size 4K"; sed 's/^/# /' "$T/err"
fi
ktap_schema "rdma probe --poll --json fits docs/schema/rdma.json" rdma "$T/p2.json"

# moderation: reported plainly either way
"$ET" --json rdma probe rxe0 --sweep --iters 500 --depth 4 >"$T/sw.json" 2>"$T/err"
rc=$?
sup=$(jq_py "$T/sw.json" "j['cq-moderation']['supported']" 2>/dev/null)
ktap_schema "rdma probe --sweep --json fits docs/schema/rdma.json" rdma "$T/sw.json"
if [ $rc -eq 0 ] && [ "$sup" = False ] && [ "$(jq_py "$T/sw.json" "len(j['results'])")" = 1 ]; then
	ktap_ok "rdma probe --sweep reports CQ moderation unsupported on rxe0"
	ktap_diag "$(jq_py "$T/sw.json" "j['cq-moderation'].get('modify-cq-error', '')")"
elif [ $rc -eq 0 ] && [ "$sup" = True ]; then
	ktap_ok "rdma probe --sweep varies CQ moderation ($(jq_py "$T/sw.json" "len(j['results'])") settings)"
else
	ktap_fail "rdma probe --sweep reports CQ moderation (rc $rc supported $sup)"; sed 's/^/# /' "$T/err"
fi
"$ET" rdma probe rxe0 --sweep --iters 500 --depth 4 2>&1 | sed 's/^/# /'
if [ "$sup" = False ]; then
	ktap_check_fail "rdma probe --cq-count on rxe0 fails plainly" \
		"$ET" rdma probe rxe0 --cq-count 4 --cq-period 4
	"$ET" rdma probe rxe0 --cq-count 4 --cq-period 4 2>&1 | grep -q "not supported" &&
		ktap_ok "the error says CQ moderation is not supported" ||
		ktap_fail "the error says CQ moderation is not supported"
else
	ktap_skip "rdma probe --cq-count on rxe0 fails plainly" "this rxe supports moderation"
fi
ktap_check_fail "rdma caps of a missing device fails" "$ET" rdma caps nosuch0
ip addr del 198.18.10.1/24 dev ee0 2>/dev/null
rm -rf "$T"
ktap_finish
