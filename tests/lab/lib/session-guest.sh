#!/bin/bash
# Guest side of a lab session: runs the lab files of one boot in turn, each from the boot's state.
#
#   session-guest.sh PLAN      PLAN: one line per file still to run, "NAME TIMEOUT FILE"
#
# A file's results go to $LAB_OUT/res/NAME/ (the host's session directory): output (its KTAP),
# started, and rc once the guest is back in the state it booted in. Between files the guest is
# put back as a fresh boot would have it (lab_reset), and what a file left behind is one more
# result of that file: a test restores what it changes, so a leftover fails it, and the next file
# starts clean either way. The host (tests/lab/vm.sh session) boots again after a guest that died.
set -u
ROOT=${ETHTUNE_ROOT:-$(cd "$(dirname "$0")/../../.." && pwd)}
. "$ROOT/tests/lab/lib/guest.sh"
PLAN=$1
RES=$LAB_OUT/res
DEVS="ee0 ee1 vn0 vn1 txsim0 txsim1"
SNAP=/run/lab-session
ET=${ETHTUNE:-$ROOT/build/ethtune}
mkdir -p "$RES" "$SNAP/et"

# lab_state: what a file may change and must put back, one line per value. Few processes (under
# TCG a process costs the guest ~0.1 s): each device's settings from one `ethtune --json show`
# (its own state directory: it must not restore anything a file's journal holds), the rest from
# one ip, grep or rdma each; counters, carrier, IPv6 link-local addresses and the limits BQL
# computes itself are left out.
lab_state() {
	local d up
	up=$(ip -o link show up | awk -F': ' '{sub(/@.*/, "", $2); print $2}' | tr '\n' ' ')
	for d in $DEVS; do
		ETHTUNE_STATE_DIR=$SNAP/et "$ET" -v --json show "$d" 2>/dev/null ||
			echo "{\"ifname\": \"$d\", \"show\": \"failed\"}"
	done | jq -r --arg up " $up" '.ifname as $d | {show, driver, coalesce, rings, channels,
		features, "features-all", "priv-flags", "napi-sysfs",
		link: (.link // {} | if ($up | contains(" " + $d + " ")) then . else del(.qdisc) end),
		bql: [.bql[]? | {queue, "limit-min", "limit-max", "stall-thrs"}]}
		+ (if .driver == "txsim" then {speed, duplex} else {} end)
		| paths(scalars) as $p | "\($d) \($p | map(tostring) | join(".")): \(getpath($p))"'
	ip -o link show | awk -F': ' '{ sub(/@.*/, "", $2); print "link: " $2 \
		($3 ~ /[<,]UP[,>]/ ? " up" : " down") }' | sort
	ip -o addr show | awk '$4 !~ /^fe80:/ && $2 != "lo" { print "addr: " $2 " " $3 " " $4 }'
	grep -Hs . /sys/class/net/*/txsim/* /sys/module/txsim/parameters/* \
		/sys/class/net/*/queues/*/{rps_cpus,xps_cpus,tx_maxrate} \
		/sys/class/net/*/queues/tx-*/byte_queue_limits/hold_time \
		/proc/sys/net/core/* /proc/sys/net/ipv4/tcp_* 2>/dev/null |
		grep -v '/txsim/stats_reset:\|core/\(bpf_jit_\|netdev_rss_key\|xfrm_\)\|tcp_fastopen_key' |
		sed 's|^/sys/class/net/|sysfs: |; s|^/proc/sys/|sysctl: /proc/sys/|'
	ip netns list | sed 's/^/netns: /'
	rdma link show 2>/dev/null | awk '{print "rdma: " $2 " " $NF}'
	ls /run/ethtune 2>/dev/null | sed 's/^/state file: /'
}

# lab_kill_strays: every process but this script, its ancestors and the kernel's, killed
lab_kill_strays() {
	local keep=" 1 $$ $BASHPID " p pid pp stat cmd list=""
	p=$$
	while [ "$p" -gt 1 ] 2>/dev/null; do
		read -r _ _ _ pp _ </proc/$p/stat || break
		keep="$keep$pp "
		p=$pp
	done
	for p in /proc/[0-9]*; do
		pid=${p#/proc/}
		case $keep in *" $pid "*) continue ;; esac
		cmd=""
		read -r -d '' cmd <"$p/cmdline" 2>/dev/null
		[ -n "$cmd" ] || continue	# a kernel thread (or a zombie)
		list="$list $pid"
	done
	[ -n "$list" ] && kill -9 $list 2>/dev/null
	return 0
}

# lab_rebind DEV: the device's driver unbound and bound again: the driver's defaults, as at boot
lab_rebind() {
	local dev drv
	dev=$(readlink -f "/sys/class/net/$1/device") && drv=$(readlink -f "$dev/driver") || return 1
	[ "$1" = ee0 ] && rdma link delete rxe0 2>/dev/null
	echo "${dev##*/}" >"$drv/unbind" && echo "${dev##*/}" >"$drv/bind"
}

# lab_reset: back to the state the guest booted in; prints what had to be put back
lab_reset() {
	local i d now diff
	lab_kill_strays
	ip -all netns delete 2>/dev/null
	# devices of a deleted namespace come back to the initial one when its cleanup has run
	for i in $(seq 100); do
		now=0
		for d in $DEVS; do [ -e "/sys/class/net/$d" ] && now=$((now + 1)); done
		[ $now -eq 6 ] && [ -z "$(ip netns list)" ] && break
		sleep 0.1
	done
	diff=$(diff --unchanged-line-format= --old-line-format='was: %L' \
		--new-line-format='now: %L' "$SNAP/state" <(lab_state))
	[ -n "$diff" ] || return 0
	printf '%s\n' "$diff"
	diff=$(printf '%s\n' "$diff" | sed 's/^[a-z]*: //')
	# links the file made in the initial namespace
	ip -o link show | awk -F': ' '{sub(/@.*/, "", $2); print $2}' | while read -r d; do
		grep -qx "link: $d" "$SNAP/state" || ip link delete "$d" 2>/dev/null
	done
	for d in ee0 ee1 vn0 vn1; do
		printf '%s\n' "$diff" | grep -q "^$d \|^sysfs: $d/\|^link: $d " && lab_rebind "$d"
	done
	# a fresh txsim: its knobs and ethtool settings as the module starts them
	if printf '%s\n' "$diff" | grep -q '^txsim[01] \|^sysfs: txsim[01]/\|^link: txsim[01] '; then
		rmmod txsim 2>/dev/null
		insmod "$(lab_txsim_ko)"
	fi
	bash "$ROOT/tests/lab/lib/guest-setup.sh" >/dev/null 2>&1
	# the initial namespace's sysctls, back to their boot values
	sed -n 's|^sysctl: \(/proc/sys/[^:]*\):\(.*\)|\1 \2|p' "$SNAP/state" | while read -r f v; do
		[ "$(cat "$f" 2>/dev/null)" = "$v" ] || echo "$v" >"$f" 2>/dev/null
	done
	rm -rf /run/ethtune
	for i in $(seq 50); do
		ip link show ee0 | grep -q LOWER_UP && break
		sleep 0.1
	done
}

# lab_clean_tmp: the guest's /tmp (a tmpfs) emptied for the next file, but for the session's
# output and a checkout under /tmp (CI clones there): init binds that over the tmpfs, read-only,
# and rm -rf would walk all of it over 9p, some 40,000 files and 25 s a file, to delete nothing
lab_clean_tmp() {
	local keep=${ROOT#/tmp/}
	keep=${keep%%/*}
	[ "${ROOT#/tmp/}" != "$ROOT" ] || keep=""
	find /tmp -mindepth 1 -maxdepth 1 ! -name lab-out ${keep:+! -name "$keep"} -exec rm -rf {} + \
		2>/dev/null
}

lab_clean_tmp
t0=$(date +%s.%N)
lab_state >"$SNAP/state"
awk -v a="$t0" -v b="$(date +%s.%N)" 'BEGIN { printf "session: the boot state recorded in %.1f s\n", b - a }'
while read -r name to file; do
	d=$RES/$name
	rm -rf "$d" && mkdir -p "$d"
	dmesg -C
	t0=$(date +%s.%N)
	echo "${t0%.*}" >"$d/started"
	LAB_OUT=$d setsid timeout -k 10 "$to" bash "$file" >"$d/output" 2>&1 </dev/null
	rc=$?
	t1=$(date +%s.%N)
	[ $rc -eq 124 ] && echo "not ok 0 $name finished within its guest time limit of $to s" \
		>>"$d/output"
	left=$(lab_reset)
	if [ -z "$left" ]; then
		echo "ok 0 $name left the guest as it found it (devices, namespaces, sysctls)"
	else
		echo "not ok 0 $name left the guest as it found it; put back:"
		printf '%s\n' "$left" | head -20 | sed 's/^/#   /'
	fi >>"$d/output"
	bad=$(lab_dmesg_bad)
	if [ -z "$bad" ]; then
		echo "ok 0 $name: no WARNING/BUG in the guest's kernel log, its reset included"
	else
		echo "not ok 0 $name: no WARNING/BUG in the guest's kernel log, its reset included"
		printf '%s\n' "$bad" | head -20 | sed 's/^/#   /'
	fi >>"$d/output"
	lab_clean_tmp
	awk -v a="$t0" -v b="$t1" -v c="$(date +%s.%N)" \
		'BEGIN { printf "# session: the file ran %.1f s, the reset after it %.1f s\n", b - a, c - b }' \
		>>"$d/output"
	echo $rc >"$d/rc.tmp" && mv "$d/rc.tmp" "$d/rc"
done <"$PLAN"
