#!/bin/bash
# Lab: exported .link, udev, tmpfiles.d and sysctl.d files bring a profile back on re-created devices.
#
# On e1000e (ee0) and txsim (txsim0): export a profile with --split (a .link, tmpfiles.d and
# sysctl.d; txsim's cqe-mode-tx in a udev rule) and as a udev rule, apply them the way the host
# would (udev's net_setup_link without --action, the rule through udevadm test and its RUN lines,
# systemd-tmpfiles --create, systemd-sysctl), check that profile verify reports no drift,
# re-create the device (e1000e unbound and bound again, txsim reloaded), apply again and verify
# again. The guest is left as it was found: the devices re-created at driver defaults with their
# names, addresses, state and rxe0, and the sysctl put back.
set -u
ROOT=${ETHTUNE_ROOT:-$(cd "$(dirname "$0")/../.." && pwd)}
. "$ROOT/tests/lib/ktap.sh"
ET=${ETHTUNE:-$ROOT/${O:-build}/ethtune}
. "$ROOT/tests/lab/lib/host.sh"
lab_host_run "$0" "${LAB_EXPORT_TIMEOUT:-240}" "export: persisted profiles come back on re-created e1000e and txsim"

# ---- guest ----
. "$ROOT/tests/lab/lib/guest.sh"
T=$(mktemp -d)
export ETHTUNE_STATE_DIR=$T/state ETHTUNE_PROFILE_DIR=$T/p
mkdir -p "$T/p" "$T/state"
ktap_header "export in the guest ($(uname -r))"
SYSCTL=/lib/systemd/systemd-sysctl
TLOB=$(cat /proc/sys/net/ipv4/tcp_limit_output_bytes)
# e1000e: rx-usecs 50 (its ITR; the default is 3, dynamic), NAPI and BQL, the TSQ sysctl
cat >"$T/p/lab-e1000e.profile" <<'EOF'
[match]
driver = e1000e
[coalesce]
rx-usecs = 50
[napi]
defer-hard-irqs = 2
gro-flush-timeout = 20000
[bql]
limit-min = 3000
[sysctl]
net.ipv4.tcp_limit_output_bytes = 524288
[provenance]
kind = documented
source = tests/lab/export.sh
EOF
# txsim: the shipped profile's TX coalescing (cqe-mode-tx only ethtool sets: a udev RUN line)
cat >"$T/p/lab-txsim.profile" <<'EOF'
[match]
driver = txsim
[coalesce]
tx-usecs = 48
tx-frames = 24
cqe-mode-tx = off
[napi]
defer-hard-irqs = 3
[bql]
limit-min = 6000
[sysctl]
net.ipv4.tcp_limit_output_bytes = 524288
[provenance]
kind = documented
source = tests/lab/export.sh
EOF

# apply_link DIR DEV: udev's net_setup_link with DIR as /etc/systemd/network (applies: no
# --action); prints its complaints. The guest runs no udevd, so net_id's names are not in the
# device's properties: MACAddressPolicy=persistent (kept from 99-default.link) cannot derive a
# MAC for txsim's random one here, as at boot it would.
apply_link() {
	unshare -m sh -c "mount -t tmpfs none /etc/systemd/network && cp '$1'/*.link /etc/systemd/network/ &&
		udevadm test-builtin net_setup_link /sys/class/net/$2" 2>&1 |
		grep -E '^/etc/systemd/network/[^:]*:[0-9]+:|Could not|Failed|[Ii]nvalid' |
		grep -v 'Could not generate persistent MAC'
}
# apply_udev DIR DEV: udevadm test runs our rules after 80-net-setup-link.rules (its builtin sets
# ID_NET_DRIVER; the other system rules are hidden), writes their ATTRs and prints the RUN lines,
# which run here as udevd would; prints complaints (not udev's trace of what it writes and runs)
apply_udev() {
	local runs
	runs=$(unshare -m sh -c "cp /usr/lib/udev/rules.d/80-net-setup-link.rules '$T/' &&
		mount -t tmpfs none /etc/udev/rules.d && mount -t tmpfs none /usr/lib/udev/rules.d &&
		cp '$T/80-net-setup-link.rules' /usr/lib/udev/rules.d/ &&
		cp '$1'/*.rules /etc/udev/rules.d/ && udevadm test --action=add /sys/class/net/$2" 2>"$T/udev.err")
	grep -E '/etc/udev/rules.d/[^ ]*:[0-9]+' "$T/udev.err" |
		grep -vE "/etc/udev/rules.d/[^ ]*:[0-9]+ (ATTR '[^']*' writing '[^']*'|RUN '.*')\$"
	# the rule matched: udev would have run its RUN lines
	grep -q "^run: '/sbin/ethtool" <<<"$runs" || echo "the rule did not match $2"
	printf '%s\n' "$runs" | sed -n "s/^run: '\(.*\)'$/\1/p" | while read -r cmd; do
		$cmd 2>&1 | sed "s|^|RUN $cmd: |"
	done
}
apply_all() {	# apply_all DIR DEV: every file of DIR as its consumer applies it
	local d=$1 dev=$2 out
	out=$(apply_link "$d" "$dev"; apply_udev "$d" "$dev"
		systemd-tmpfiles --create "$d"/ethtune-*.conf 2>&1 | grep -v '^$'
		[ -n "$(ls "$d"/90-*.conf 2>/dev/null)" ] && $SYSCTL "$d"/90-*.conf 2>&1)
	printf '%s' "$out"
}
# the e1000e function behind ee0, to unbind and bind it again
recreate() {	# recreate DEV: the device made again by its driver, with its name, MAC and state
	local dev=$1 mac up bdf n
	mac=$(cat /sys/class/net/$dev/address)
	up=$(ip -o link show "$dev" | grep -c '[<,]UP[,>]')
	case $dev in
	txsim*)
		timeout 60 rmmod txsim && insmod "$(lab_txsim_ko)" || return 1
		for n in txsim0 txsim1; do
			ip link set $n address "$(cat "$T/mac.$n")"
			[ "$(cat "$T/up.$n")" = 1 ] && ip link set $n up
		done ;;
	*)
		bdf=$(basename "$(readlink /sys/class/net/$dev/device)")
		echo "$bdf" >/sys/bus/pci/drivers/e1000e/unbind && echo "$bdf" >/sys/bus/pci/drivers/e1000e/bind || return 1
		for n in $(seq 50); do
			n=$(grep -l "^$mac\$" /sys/class/net/*/address 2>/dev/null | head -1)
			[ -n "$n" ] && break; sleep 0.1
		done
		n=$(basename "$(dirname "$n")")
		[ "$n" = "$dev" ] || ip link set "$n" name "$dev" ;;
	esac
	if [ "$up" = 1 ]; then
		ip link set "$dev" up
		for n in $(seq 100); do	# the carrier, as before (e1000e negotiates again)
			[ "$(cat /sys/class/net/$dev/carrier 2>/dev/null)" = 1 ] && break; sleep 0.1
		done
	fi
	return 0
}
RXE=$(rdma link show 2>/dev/null | grep -c 'rxe0.*netdev ee0')
for n in txsim0 txsim1; do
	cat /sys/class/net/$n/address >"$T/mac.$n" 2>/dev/null
	ip -o link show $n 2>/dev/null | grep -c '[<,]UP[,>]' >"$T/up.$n"
done
# what must be as found: the link (less its index and its carrier, which comes when it comes, and
# a down device's qdisc: the one it had when last up, noop once re-created, fq_codel where an
# earlier file of the lab session had it up), coalescing, NAPI and BQL
state() {
	ip -o link show "$1" | sed 's/^[0-9]*: //; s/NO-CARRIER,//; s/,LOWER_UP//; s/ state [A-Z]* / /' |
		sed '/[<,]UP[,>]/!s/ qdisc [^ ]* / /'
	ethtool -c "$1" 2>/dev/null
	cat /sys/class/net/$1/napi_defer_hard_irqs /sys/class/net/$1/gro_flush_timeout \
		/sys/class/net/$1/queues/tx-*/byte_queue_limits/limit_min 2>/dev/null
}

for spec in "ee0 lab-e1000e" "txsim0 lab-txsim"; do
	set -- $spec
	dev=$1 prof=$2 D=$T/out-$1
	if ! ip link show "$dev" >/dev/null 2>&1; then ktap_fail "$dev exists"; continue; fi
	mkdir -p "$D"
	before=$(state "$dev")
	"$ET" profile export $prof --to systemd-link --dev "$dev" --split --out "$D" >"$T/x.out" 2>"$T/x.err" &&
		"$ET" profile export $prof --to udev --allow-partial --out "$D" >>"$T/x.out" 2>>"$T/x.err"
	rc=$?
	ktap_diag "$dev: $(cd "$D" && ls | tr '\n' ' ')"
	grep -hv '^#' "$D"/*.link | grep . | sed 's/^/#   /'
	[ $rc = 0 ] && [ -n "$(ls "$D"/*.link 2>/dev/null)" ] && [ -n "$(ls "$D"/*.rules 2>/dev/null)" ] &&
		[ -n "$(ls "$D"/ethtune-*.conf 2>/dev/null)" ] && [ -n "$(ls "$D"/90-*.conf 2>/dev/null)" ] &&
		ktap_ok "$dev: exported a .link, a udev rule, tmpfiles.d and sysctl.d" ||
		{ ktap_fail "$dev: exported a .link, a udev rule, tmpfiles.d and sysctl.d (rc $rc)"; sed 's/^/# /' "$T/x.err"; }
	out=$(apply_all "$D" "$dev")
	[ -z "$out" ] && ktap_ok "$dev: udev, the rule's RUN, systemd-tmpfiles and systemd-sysctl applied them without a complaint" ||
		{ ktap_fail "$dev: the consumers applied the files without a complaint"; printf '%s\n' "$out" | sed 's/^/# /'; }
	"$ET" profile verify "$dev" $prof >"$T/v1" 2>&1 &&
		ktap_ok "$dev: profile verify reports no drift after the files applied" ||
		{ ktap_fail "$dev: profile verify reports no drift after the files applied"; sed 's/^/# /' "$T/v1"; }
	recreate "$dev" && ktap_ok "$dev: re-created by its driver" || ktap_fail "$dev: re-created by its driver"
	"$ET" profile verify "$dev" $prof >"$T/v2" 2>&1 &&
		ktap_fail "$dev: the re-created device is back at its driver's defaults (verify drifts)" ||
		ktap_ok "$dev: the re-created device is back at its driver's defaults (verify drifts)"
	out=$(apply_all "$D" "$dev")
	[ -z "$out" ] || { ktap_diag "$dev: applying again:"; printf '%s\n' "$out" | sed 's/^/# /'; }
	"$ET" profile verify "$dev" $prof >"$T/v3" 2>&1 &&
		ktap_ok "$dev: after re-creation the same files bring the profile back (no drift)" ||
		{ ktap_fail "$dev: after re-creation the same files bring the profile back"; sed 's/^/# /' "$T/v3"; }
	# a .link with a bare number for a time: udev takes 128 seconds, the driver refuses it
	if [ $dev = txsim0 ]; then
		mkdir -p "$T/bare"; sed 's/^TxCoalesceSec=48us$/TxCoalesceSec=48/' "$D"/*.link >"$T/bare/50-bare.link"
		out=$(apply_link "$T/bare" "$dev")
		[ -n "$out" ] && ktap_ok "txsim0: a bare TxCoalesceSec=48 (48 s) is caught when udev applies it ($out)" ||
			ktap_fail "txsim0: a bare TxCoalesceSec=48 (48 s) is caught when udev applies it"
	fi
	# leave it as found: the driver's defaults again
	recreate "$dev" || ktap_fail "$dev: re-created at the end"
	after=$(state "$dev")
	[ "$before" = "$after" ] && ktap_ok "$dev: as found (name, address, state, coalescing, NAPI)" ||
		{ ktap_fail "$dev: as found"; diff <(echo "$before") <(echo "$after") | sed 's/^/# /'; }
done
[ "$RXE" = 1 ] && ! rdma link show 2>/dev/null | grep -q 'rxe0.*netdev ee0' &&
	rdma link add rxe0 type rxe netdev ee0 2>/dev/null
echo "$TLOB" >/proc/sys/net/ipv4/tcp_limit_output_bytes
[ "$(cat /proc/sys/net/ipv4/tcp_limit_output_bytes)" = "$TLOB" ] && ktap_ok "tcp_limit_output_bytes put back ($TLOB)" ||
	ktap_fail "tcp_limit_output_bytes put back"
ktap_finish
