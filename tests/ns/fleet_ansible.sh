#!/bin/bash
# contrib/ansible over ssh: four hosts and a peer, each a namespace with its own sshd; gather, tune, fetch, merge, export.
# san: no (it runs the playbooks; the ethtune code they drive is the other files' and runs there
# under ASan)
# timeout: 300
# Topology, all namespaces this file makes: the controller ($C) runs ansible-playbook; a bridge
# there reaches each host's and the peer's "mgmt" veth on 198.18.60.0/24, where each sshd listens
# (its own config, host key and authorized key from $T/ssh). Host i has a veth "etd"
# (198.18.6i.1) to the peer's "pi" (198.18.6i.2), where the play starts `ethtune serve` with a
# key it draws. Each path is held at 300 Mbit/s by a tbf, so that the hosts' rates agree
# closely, and h2's at 60 Mbit/s: the odd host, which `profile merge` of the fetched results must flag
# (results/odd-host names it). Each sshd has a UTS namespace with the host's name, which tune
# records as its "host".
# The hosts share this machine's files, so ethtune is the one built here (ethtune_install: none)
# and each host has its own remote folder; FLEET_KEEP=DIR keeps the results there.
set -u
ROOT=${ETHTUNE_ROOT:-$(cd "$(dirname "$0")/../.." && pwd)}
. "$ROOT/tests/lib/ktap.sh"
ET=${ETHTUNE:-$ROOT/build/ethtune}
ANS=$ROOT/contrib/ansible
C=etfc$$ P=etfp$$ HOSTS="h1 h2 h3 h4" ODD=h2
NH=$(echo $HOSTS | wc -w)
T=$(mktemp -d /tmp/ethtune-fleet.XXXXXX)
SSHD_PIDS=""
made_run_sshd=""
ns_of() { [ "$1" = peer ] && echo $P || echo "etf${1}x$$"; }
cleanup() {
	local s n p
	# the controller's ssh masters (ControlPersist), then every sshd and session in our namespaces
	for s in "$T"/cp/*; do
		[ -S "$s" ] && ssh -o ControlPath="$s" -O exit x >/dev/null 2>&1
	done
	for p in $SSHD_PIDS; do kill "$p" 2>/dev/null; done
	for n in $C $P $(for h in $HOSTS; do ns_of $h; done); do
		for p in $(ip netns pids "$n" 2>/dev/null); do kill "$p" 2>/dev/null; done
		ip netns del "$n" 2>/dev/null
	done
	[ -n "$made_run_sshd" ] && rmdir /run/sshd 2>/dev/null
	if [ -n "${FLEET_KEEP:-}" ] && [ -d "$T/results" ]; then
		mkdir -p "$FLEET_KEEP" && cp -r "$T/results/." "$FLEET_KEEP/"
	fi
	rm -rf "$T"
}
trap cleanup EXIT
cd "$ROOT"
ktap_header "contrib/ansible: gather, tune, merge and export on $NH hosts over ssh (namespaces)"

if [ "$(id -u)" != 0 ] || ! ip netns add $C 2>/dev/null; then
	ktap_skip "fleet playbooks" "needs root and network namespaces"
	ktap_finish; exit $?
fi
for t in ansible-playbook /usr/sbin/sshd ssh-keygen start-stop-daemon; do
	if ! command -v $t >/dev/null; then
		ktap_fail "fleet playbooks: $t is missing (tests/lib/deps.sh: ansible-core, openssh-server)"
		ktap_finish; exit 1
	fi
done

# --- namespaces and links
ip -n $C link set lo up
ip -n $C link add br0 type bridge
ip -n $C addr add 198.18.60.1/24 dev br0
ip -n $C link set br0 up
ip netns add $P && ip -n $P link set lo up
i=0
for h in $HOSTS peer; do
	i=$((i + 1))
	n=$(ns_of $h)
	[ $h = peer ] || { ip netns add "$n" && ip -n "$n" link set lo up; }
	a=198.18.60.$((10 + i))
	[ $h = peer ] && a=198.18.60.20
	ip -n $C link add m$i type veth peer name mgmt netns "$n" &&
		ip -n $C link set m$i master br0 && ip -n $C link set m$i up &&
		ip -n "$n" addr add $a/24 dev mgmt && ip -n "$n" link set mgmt up ||
		{ ktap_fail "management link to $h"; ktap_finish; exit 1; }
	eval "ADDR_$h=$a"
	[ $h = peer ] && continue
	ip -n "$n" link add etd type veth peer name p$i netns $P &&
		ip -n "$n" addr add 198.18.6$i.1/24 dev etd && ip -n $P addr add 198.18.6$i.2/24 dev p$i &&
		ip -n "$n" link set etd up && ip -n $P link set p$i up ||
		{ ktap_fail "test link of $h"; ktap_finish; exit 1; }
	# GRO on gives the veth its NAPI, which tune sweeps (gro-flush-timeout)
	ip netns exec "$n" ethtool -K etd gro on >/dev/null 2>&1
	ip netns exec $P ethtool -K p$i gro on >/dev/null 2>&1
done
# every path at 300 Mbit/s (the veth alone runs at what the CPU gives it, which varies from host to
# host by more than a merge of a few can tell from a slow one); the odd host's at 60 Mbit/s. Not
# higher: on a loaded machine (files pooled) the veths fell to 680-1000 Mbit/s under a 1 Gbit/s tbf.
# Four hosts, not three: the outlier test weighs a host against the others' spread, and two
# others give it one degree of freedom (a Cauchy tail), so that a 3% difference between them
# hid a host at a fifth of their rate (Holm's p 0.032, near alpha); three others give it two
ODD_HOW="tbf rate 60mbit"
for h in $HOSTS; do
	r=300mbit
	[ $h = $ODD ] && r=60mbit
	ip netns exec "$(ns_of $h)" tc qdisc add dev etd root tbf rate $r burst 64kb latency 20ms
done
ip netns exec "$(ns_of $ODD)" tc qdisc show dev etd | grep -q 'tbf.*rate 60Mbit' &&
	ktap_ok "odd host: $ODD has $ODD_HOW on its path to the peer (etd), the others 300mbit" ||
	ktap_fail "odd host: $ODD has $ODD_HOW on its path to the peer (etd), the others 300mbit"

# --- an sshd in each namespace, on its management address only
mkdir -p "$T/ssh" "$T/cp" "$T/results" "$T/ah"
ssh-keygen -q -t ed25519 -N '' -f "$T/ssh/host" -C fleet-host &&
	ssh-keygen -q -t ed25519 -N '' -f "$T/ssh/id" -C fleet-controller ||
	{ ktap_fail "ssh keys"; ktap_finish; exit 1; }
cp "$T/ssh/id.pub" "$T/ssh/authorized_keys"
[ -d /run/sshd ] || { mkdir -p /run/sshd && chmod 755 /run/sshd && made_run_sshd=1; }
: >"$T/ssh/known_hosts"
for h in $HOSTS peer; do
	eval "a=\$ADDR_$h"
	cat >"$T/ssh/sshd-$h.conf" <<EOF
ListenAddress $a
Port 22
HostKey $T/ssh/host
AuthorizedKeysFile $T/ssh/authorized_keys
PermitRootLogin prohibit-password
PasswordAuthentication no
KbdInteractiveAuthentication no
UsePAM no
StrictModes no
PidFile $T/ssh/sshd-$h.pid
Subsystem sftp internal-sftp
LogLevel ERROR
EOF
	ip netns exec "$(ns_of $h)" unshare --uts sh -c 'hostname "$1" && shift && exec "$@"' _ $h \
		/usr/sbin/sshd -D -f "$T/ssh/sshd-$h.conf" -E "$T/ssh/sshd-$h.log" &
	SSHD_PIDS="$SSHD_PIDS $!"
	echo "$a $(cut -d' ' -f1-2 "$T/ssh/host.pub")" >>"$T/ssh/known_hosts"
done
up=0
for try in $(seq 50); do
	up=0
	for h in $HOSTS peer; do
		eval "a=\$ADDR_$h"
		ip netns exec $C bash -c "exec 3<>/dev/tcp/$a/22" 2>/dev/null && up=$((up + 1))
	done
	[ $up = $((NH + 1)) ] && break
	sleep 0.1
done
[ $up = $((NH + 1)) ] && ktap_ok "sshd listens in each of the $((NH + 1)) namespaces" ||
	{ ktap_fail "sshd listens in each of the $((NH + 1)) namespaces ($up)"; cat "$T"/ssh/sshd-*.log | sed 's/^/# /'; }

# --- inventory and the controller's settings
{
	echo "[ethtune]"
	i=0
	for h in $HOSTS; do
		i=$((i + 1))
		eval "a=\$ADDR_$h"
		echo "$h ansible_host=$a ethtune_peer_addr=198.18.6$i.2"
	done
	echo "[ethtune_peers]"
	echo "peer ansible_host=$ADDR_peer"
	cat <<EOF
[all:vars]
ansible_user=root
ansible_python_interpreter=/usr/bin/python3
ansible_ssh_private_key_file=$T/ssh/id
ansible_ssh_common_args=-o UserKnownHostsFile=$T/ssh/known_hosts -o StrictHostKeyChecking=yes
EOF
} >"$T/inventory.ini"
# tune of the veth's NAPI deferral, two settings, one pass of short probes: the point here is the
# playbooks, not the numbers (tests/ns/diagnose.sh and the lab measure those)
cat >"$T/vars.yml" <<EOF
ethtune_install: none
ethtune_bin: $ET
ethtune_dev: etd
ethtune_peer: peer
ethtune_action: tune
ethtune_args: [--param, gro-flush-timeout, --values, "0,50000", --duration, "0.3", --warmup, "0.1",
               --reps, "1", --points, "3", --quiet]
ethtune_results_dir: $T/results
# the hosts share this machine's files: a folder and a journal each
ethtune_remote_dir: "$T/remote/{{ inventory_hostname }}"
ethtune_environment:
  ETHTUNE_STATE_DIR: "$T/state/{{ inventory_hostname }}"
EOF
export ANSIBLE_CONFIG=$ANS/ansible.cfg ANSIBLE_HOME=$T/ah ANSIBLE_LOCAL_TEMP=$T/ah/tmp \
	ANSIBLE_REMOTE_TEMP=$T/ah/remote ANSIBLE_SSH_CONTROL_PATH_DIR=$T/cp ANSIBLE_NOCOLOR=1 \
	ANSIBLE_FORKS=5 ANSIBLE_PIPELINING=True ANSIBLE_RETRY_FILES_ENABLED=False
play() {	# play LOG PLAYBOOK ARGS...: ansible-playbook from the controller's namespace
	local log=$1; shift
	ip netns exec $C ansible-playbook -i "$T/inventory.ini" -e "@$T/vars.yml" "$@" >"$T/$log" 2>&1
}
show_log() { grep -E 'fatal|FAILED|ERROR|failed=[1-9]|unreachable=[1-9]|msg' "$T/$1" | head -20 | sed 's/^/# /'; }

# --- the playbooks: syntax
# (site.yml imports install, gather and run)
ansible-playbook -i "$T/inventory.ini" --syntax-check "$ANS/site.yml" "$ANS/profile.yml" \
	>"$T/syntax.log" 2>&1 && ktap_ok "ansible-playbook --syntax-check: site (install gather run) profile" ||
	{ ktap_fail "ansible-playbook --syntax-check: site (install gather run) profile"
	  tail -5 "$T/syntax.log" | sed 's/^/# /'; }

# ansible-lint (Debian's 6.13), offline, from the playbooks' folder (its ansible.cfg finds the role)
if command -v ansible-lint >/dev/null; then
	t0=$SECONDS
	(cd "$ANS" && XDG_CACHE_HOME=$T/cache ansible-lint --offline --nocolor -p \
		site.yml install.yml gather.yml run.yml profile.yml roles/ethtune) >"$T/lint.log" 2>&1 &&
		ktap_ok "ansible-lint: no violation ($((SECONDS - t0)) s)" ||
		{ ktap_fail "ansible-lint: no violation"; head -30 "$T/lint.log" | sed 's/^/# /'; }
else
	ktap_fail "ansible-lint is missing (tests/lib/deps.sh: ansible-lint)"
fi

# --- site.yml: install (none: the binary runs), gather the models, tune each host against the peer
t0=$SECONDS
if play site.log "$ANS/site.yml"; then
	ktap_ok "site.yml: install, gather, tune on $(echo $HOSTS | wc -w) hosts ($((SECONDS - t0)) s)"
else
	ktap_fail "site.yml: install, gather, tune"; show_log site.log
fi
grep -E '^(h[0-9]|peer) +:' "$T/site.log" | sed 's/^/# /'

# gather: each host's devices in results/HOST/show-DEV.json, all in one model group
ok=1
for h in $HOSTS; do
	for d in etd mgmt; do
		python3 tests/lib/schema_check.py show "$T/results/$h/show-$d.json" >"$T/sc" 2>&1 ||
			{ ok=0; echo "# $h/show-$d.json:"; sed 's/^/#   /' "$T/sc" | head -5; }
	done
done
[ $ok = 1 ] && ktap_ok "gather: results/HOST/show-{etd,mgmt}.json of every host fit docs/schema/show.json" ||
	ktap_fail "gather: results/HOST/show-{etd,mgmt}.json of every host fit docs/schema/show.json"
ktap_check "gather: the hosts are grouped by model (ethtune_model_veth: $HOSTS, etd and mgmt)" \
	python3 -c '
import json, sys
m = json.load(open(sys.argv[1]))
g = m.get("ethtune_model_veth")
assert g and g["driver"] == "veth" and g["pci"] == "", m
assert sorted(g["hosts"]) == sys.argv[2].split(), g
assert all(sorted(d) == ["etd", "mgmt"] for d in g["hosts"].values()), g' \
	"$T/results/models.json" "$HOSTS"
ktap_check "gather: group_by made the group (the play's own summary names it)" \
	grep -q '"ethtune_model_veth"' "$T/results/models.json"

# tune: results/HOST/tune-etd.json fits the schema, and its profile came along
for h in $HOSTS; do
	ktap_schema "tune: results/$h/tune-etd.json fits docs/schema/tune.json" tune \
		"$T/results/$h/tune-etd.json"
done
n=0
for h in $HOSTS; do
	"$ET" profile check "$T/results/$h/tune-etd.profile" >/dev/null 2>&1 && n=$((n + 1))
done
[ $n = $NH ] && ktap_ok "tune: each host's profile (results/HOST/tune-etd.profile) passes profile check" ||
	ktap_fail "tune: each host's profile passes profile check ($n of $NH)"
# serve ran with the key, and was stopped: no serve, no key left behind
ktap_check "serve: each host's serve ran with a key and the key files are gone" bash -c '
for h in $2; do grep -q "clients must hold the key" "$1/results/$h/serve-peer.log" || exit 1; done
! find "$1/remote" -name "*key*" | grep -q .' _ "$T" "$HOSTS"
ktap_check "serve: none left running in the peer's namespace" bash -c \
	"! ps -o args= -p \"\$(ip netns pids $P | paste -sd, -)\" 2>/dev/null | grep -q 'ethtune.* serve'"
echo "$ODD $ODD_HOW" >"$T/results/odd-host"
ktap_diag "the odd host ($ODD_HOW on its path; results/odd-host): $ODD; best Mbit/s, worst rr p99 us per host:" \
	"$(for h in $HOSTS; do printf '%s=%s ' $h "$(python3 -c 'import json,sys
j = json.load(open(sys.argv[1]))
pts = j["coalesce-sweep"]["points"]
print("%.0f/%s" % (max(p.get("mbps") or 0 for p in pts), max((p.get("rr-p99-us") or 0) for p in pts)))' "$T/results/$h/tune-etd.json" 2>/dev/null)"; done)"

# --- profile merge over the fetched tune results: one model (veth), the odd host flagged and left
# out of the decision, the others make the profile
"$ET" profile merge "$T"/results/*/tune-*.json --json --out "$T/merged" >"$T/merge.json" \
	2>"$T/merge.err"
rc=$?
ktap_check "profile merge of the fetched results: exit 0, the hosts' names as tune recorded them" \
	python3 -c '
import json, sys
rc, m, hosts = int(sys.argv[1]), json.load(open(sys.argv[2])), sys.argv[3].split()
assert rc == 0, rc
assert m["skipped-count"] == 0 and m["model-count"] == 1, m
r = m["models"][0]["results"]
assert sorted(x["host"] for x in r) == sorted(hosts), [x["host"] for x in r]' "$rc" "$T/merge.json" "$HOSTS"
ktap_check "profile merge: the odd host ($ODD) is the one outlier, with its numbers; a profile where the others agree" \
	python3 -c '
import json, os, sys
m, odd, out = json.load(open(sys.argv[1])), sys.argv[2], sys.argv[3]
md = m["models"][0]
flagged = [x["host"] for x in md["results"] if x.get("outlier")]
assert md["outliers"] == 1 and flagged == [odd], (md["outliers"], flagged)
# one short pass a setting: the hosts may well pick different settings (tbf holds every rate)
assert md["verdict"] in ("profile", "no-common-setting"), (md["verdict"], md.get("reason"))
assert (md["verdict"] == "profile") == bool(os.path.isdir(out) and os.listdir(out)), md["verdict"]' \
	"$T/merge.json" "$ODD" "$T/merged"
ktap_diag "merge: $(python3 -c 'import json,sys
md = json.load(open(sys.argv[1]))["models"][0]
print(md["name"], md["verdict"], md.get("value"), "; ".join("%s %s Mbit/s p %s%s" % (x["host"], x.get("mbps"), x.get("p-adjusted"), " OUTLIER" if x.get("outlier") else "") for x in md["results"]))' "$T/merge.json" 2>&1)"

# --- profile.yml: export h1's tune result for the hosts' udev, fetched back
rm -rf "$T/results"/*/export
t0=$SECONDS
if play profile.log "$ANS/profile.yml" -l h3 -e ethtune_profile_mode=export \
	-e ethtune_profile_src="$T/results/h1/tune-etd.profile" -e ethtune_profile_export_to=tmpfiles \
	-e '{"ethtune_profile_export_args": ["--allow-partial"]}'; then
	ktap_ok "profile.yml: export h1's tune profile as tmpfiles.d on h3 ($((SECONDS - t0)) s)"
else
	ktap_fail "profile.yml: export h1's tune profile as tmpfiles.d on h3"; show_log profile.log
fi
n=$(ls "$T"/results/*/export/*.conf 2>/dev/null | wc -l)
[ "$n" = 1 ] && ls "$T"/results/h3/export/*.conf >/dev/null 2>&1 &&
	ktap_ok "profile.yml: h3's tmpfiles.d file fetched to results/h3/export/" ||
	ktap_fail "profile.yml: h3's tmpfiles.d file fetched to results/h3/export/ ($n: $(ls "$T"/results/*/export/ 2>&1 | head -3))"

# --- profile.yml: apply h1's tune profile to h1's etd; its [napi] values are then on every NAPI
t0=$SECONDS
if play apply.log "$ANS/profile.yml" -l h1 -e ethtune_profile_mode=apply \
	-e ethtune_profile_src="$T/results/h1/tune-etd.profile"; then
	ktap_ok "profile.yml: apply h1's tune profile on h1 ($((SECONDS - t0)) s)"
else
	ktap_fail "profile.yml: apply h1's tune profile on h1"; show_log apply.log
fi
ip netns exec "$(ns_of h1)" "$ET" --json show etd >"$T/h1-after.json" 2>&1
ktap_check "profile.yml: h1's etd has the profile's [napi] values" python3 -c '
import json, re, sys
want, sect = {}, None
for line in open(sys.argv[1]):
    m = re.match(r"\s*\[(\S+)\]", line)
    if m:
        sect = m.group(1)
    elif sect == "napi" and "=" in line:
        k, v = [x.strip() for x in line.split("#")[0].split("=", 1)]
        want[k] = v
assert want, "no [napi] section"
napi = json.load(open(sys.argv[2])).get("napi", [])
assert napi, "no NAPI"
for n in napi:
    for k, v in want.items():
        have = n.get(k)
        if isinstance(have, bool):
            have = "on" if have else "off"
        assert str(have) == v, (n.get("napi-id"), k, have, v)' "$T/results/h1/tune-etd.profile" "$T/h1-after.json"

# --- bad input: an unknown action stops before anything runs
if play bad.log "$ANS/run.yml" -e ethtune_action=sweep -l h1; then
	ktap_fail "run.yml refuses ethtune_action=sweep (it succeeded)"
else
	grep -q "ethtune_action must\|set ethtune_action" "$T/bad.log" &&
		ktap_ok "run.yml refuses ethtune_action=sweep with the variable named" ||
		{ ktap_fail "run.yml refuses ethtune_action=sweep with the variable named"; show_log bad.log; }
fi
ktap_finish
