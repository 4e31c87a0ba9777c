#!/bin/bash
# profile export: every shipped profile and a measured one in each format, checked by its consumer.
# Each consumer runs offline, in namespaces this file creates; corrupted files must be caught.
set -u
ROOT=${ETHTUNE_ROOT:-$(cd "$(dirname "$0")/../.." && pwd)}
. "$ROOT/tests/lib/ktap.sh"
ET=${ETHTUNE:-$ROOT/build/ethtune}
NS=etexp$$ DEV=etx$$a DEVB=etx$$b
T=$(mktemp -d /tmp/ethtune-export.XXXXXX)
export ETHTUNE_STATE_DIR=$T/state ETHTUNE_PROFILE_DIR=$T/p
cleanup() { ip netns del $NS 2>/dev/null; rm -rf "$T"; }
trap cleanup EXIT
cd "$ROOT"
ktap_header "profile export: each format checked by its consumer"
if [ "$(id -u)" != 0 ] || ! ip netns add $NS 2>/dev/null; then
	ktap_skip "profile export" "needs root and network namespaces"
	ktap_finish; exit $?
fi
# a veth pair for the checks that need a device (none of them changes it but sysctl, in $NS)
ip -n $NS link add $DEV numtxqueues 2 numrxqueues 2 type veth peer name $DEVB
ip -n $NS link set $DEV up
FMTS="systemd-link networkmanager tuned ifupdown udev tmpfiles sysctl"
mkdir -p "$T/p" "$T/o" "$T/state"
cp profiles/*.profile tests/fixtures/tune_txsim.profile "$T/p/"
# every section a profile has, for a driver the veth is (so that .link and tuned match it)
cat >"$T/p/full.profile" <<'EOF'
[match]
driver = veth
[coalesce]
tx-usecs = 128
tx-frames = 32
adaptive-rx = on
rx-usecs = 3
[ring]
tx = 1024
[channels]
combined = 2
[napi]
defer-hard-irqs = 2
gro-flush-timeout = 20000
threaded = on
[bql]
limit-min = 3000
stall-thrs = 20
[sysctl]
net.ipv4.tcp_limit_output_bytes = 1048576
[provenance]
kind = documented
source = tests/ns/export.sh
EOF
have() { command -v "$1" >/dev/null 2>&1 || [ -x "$1" ]; }
SYSCTL=/lib/systemd/systemd-sysctl

# 1. every profile to every format: what a format cannot carry is listed, the rest written
n=0 bad=""
for p in "$T"/p/*.profile; do
	name=$(basename "$p" .profile)
	for f in $FMTS; do
		mkdir -p "$T/o/$f"
		# a format that carries none of a profile's settings writes nothing and says so
		"$ET" --netns $NS profile export "$p" --to $f --dev $DEV --allow-partial \
			--out "$T/o/$f" >/dev/null 2>"$T/err" || grep -q "carries none of the settings" "$T/err" ||
			bad="$bad $name/$f($(head -c 200 "$T/err"))"
		n=$((n + 1))
	done
done
[ -z "$bad" ] && ktap_ok "$n exports (every profile x format) ran" ||
	ktap_fail "$n exports (every profile x format) ran:$bad"
# the same to a driver (no --dev) for the formats that match one
for f in systemd-link udev tmpfiles tuned; do
	mkdir -p "$T/o/$f-drv"
	for p in "$T"/p/*.profile; do
		"$ET" profile export "$p" --to $f --allow-partial --out "$T/o/$f-drv" >/dev/null 2>"$T/err" ||
			grep -q "carries none of the settings" "$T/err" || echo "$p $f failed" >>"$T/err-drv"
	done
done
touch "$T/err-drv"
grep -q failed "$T/err-drv" && ktap_fail "exports by driver ran: $(grep failed "$T/err-drv" | head -3)" ||
	ktap_ok "exports by driver (no --dev) ran"

# what the veth has now (--from-device): its channels, offloads, MTU, txqueuelen, GSO limits, NAPI
for f in systemd-link udev; do
	mkdir -p "$T/o/$f-dev"
	"$ET" --netns $NS profile export --from-device $DEV --to $f --allow-partial --out "$T/o/$f-dev" \
		>/dev/null 2>"$T/fd-$f.err" || echo "--from-device $f failed: $(cat "$T/fd-$f.err")" >>"$T/err-drv"
done
grep -q '^  ATTR{mtu}="1500", \\$' "$T"/o/udev-dev/*.rules && grep -q '^MTUBytes=1500$' "$T"/o/systemd-link-dev/*.link &&
	ktap_ok "--from-device: what the veth has now, as a udev rule and a .link" ||
	ktap_fail "--from-device: what the veth has now, as a udev rule and a .link"

# 2. --split carries everything of the full profile: a .link, tmpfiles.d, sysctl.d and a udev rule
mkdir -p "$T/split"
"$ET" --netns $NS profile export full --to systemd-link --dev $DEV --split --out "$T/split" \
	>"$T/split.out" 2>"$T/split.err"
rc=$?
files=$(cd "$T/split" && ls | tr '\n' ' ')
[ $rc = 0 ] && [ ! -s "$T/split.err" ] && [ "$(ls "$T/split" | wc -l)" = 3 ] &&
	ktap_ok "--split: .link + tmpfiles + sysctl carry the whole profile, exit 0 ($files)" ||
	{ ktap_fail "--split carries the whole profile (rc $rc: $files)"; sed 's/^/# /' "$T/split.err"; }
"$ET" --netns $NS profile export full --to systemd-link --dev $DEV --out "$T/split" \
	>/dev/null 2>"$T/nosplit.err"
rc=$?
[ $rc = 1 ] && [ "$(wc -l <"$T/nosplit.err")" = 1 ] && grep -q "napi defer-hard-irqs (tuned, ifupdown, udev, tmpfiles)" "$T/nosplit.err" &&
	ktap_ok "without --split: exit 1, one line naming each setting and who carries it" ||
	{ ktap_fail "without --split: exit 1 and one line (rc $rc)"; sed 's/^/# /' "$T/nosplit.err"; }
[ "$(ls "$T/split" | wc -l)" = 3 ] && ! ls "$T/split" | grep -q tmp &&
	ktap_ok "a refused export wrote nothing" || ktap_fail "a refused export wrote nothing"
# --dry-run shows files and checks, writes nothing
mkdir -p "$T/dry"
"$ET" --netns $NS profile export full --to systemd-link --dev $DEV --split --dry-run --out "$T/dry" >"$T/dry.out" 2>&1
[ -z "$(ls "$T/dry")" ] && grep -q '^# check: udevadm test-builtin' "$T/dry.out" && grep -q '^TxCoalesceSec=128us$' "$T/dry.out" &&
	ktap_ok "--dry-run prints the files and their checks, writes nothing" ||
	{ ktap_fail "--dry-run prints the files and their checks, writes nothing"; sed 's/^/# /' "$T/dry.out" | head; }
# versions: channels only from NetworkManager 1.46, the tuned 2.20 coalesce= bug stated
"$ET" profile export full --to networkmanager --for-version 1.42.4 --allow-partial >/dev/null 2>"$T/v.err"
"$ET" profile export full --to networkmanager --for-version 1.46.0 --allow-partial >/dev/null 2>"$T/v2.err"
grep -q "channels combined" "$T/v.err" && ! grep -q "channels combined" "$T/v2.err" &&
	ktap_ok "--for-version: NetworkManager 1.42 leaves channels out, 1.46 carries them" ||
	ktap_fail "--for-version: NetworkManager channels by version"
"$ET" profile export txsim --to tuned --for-version 2.20.0 --allow-partial >/dev/null 2>"$T/t.err"
grep -q "tuned 2.20.0 rejects the whole coalesce= line" "$T/t.err" &&
	ktap_ok "tuned before 2.25 with coalesce=: the consumer's bug is stated" ||
	{ ktap_fail "tuned before 2.25: warning"; sed 's/^/# /' "$T/t.err"; }

# 3. the consumers. Each check prints the consumer's complaints about our files (none: pass).
# .link: udev parses every .link (and applies nothing: --action=change), in a mount namespace
# where our files are /etc/systemd/network; any FILE:LINE: line is a complaint.
check_link() {	# DIR: complaints; also whether DEV matched a file of DIR ("applied")
	ip netns exec $NS sh -c "mount --bind '$1' /etc/systemd/network &&
		SYSTEMD_LOG_LEVEL=debug udevadm test-builtin --action=change net_setup_link /sys/class/net/$DEV" 2>&1 |
		grep -E '^/etc/systemd/network/[^:]*:[0-9]+:|is applied|Could not|Failed'
}
# udev rules: udevadm test loads our rules (as /etc/udev/rules.d; of the system's only
# 80-net-setup-link.rules, whose builtin sets the ID_NET_DRIVER they match) and runs them on the
# veth in $NS without RUN; a complaint names FILE:LINE (not its trace of what it writes and
# would run, nor a write the veth refuses: threaded without NAPI)
UDEV_TRACE="/etc/udev/rules.d/[^ ]*:[0-9]+ (ATTR '[^']*' writing '[^']*'|RUN '.*')\$"
check_udev() {
	ip netns exec $NS sh -c "mount --bind '$1' /etc/udev/rules.d &&
		cp /usr/lib/udev/rules.d/80-net-setup-link.rules '$T/' &&
		mount -t tmpfs none /usr/lib/udev/rules.d &&
		cp '$T/80-net-setup-link.rules' /usr/lib/udev/rules.d/ &&
		udevadm test --action=add /sys/class/net/$DEV" 2>&1 | grep -E '/etc/udev/rules.d/[^ ]*:[0-9]+' |
		grep -vE "$UDEV_TRACE|Failed to write ATTR.*(Operation not supported|Invalid argument)"
}
check_tmpfiles() { systemd-tmpfiles --create --prefix=/nonexistent "$@" 2>&1; }
check_sysctl() { ip netns exec $NS $SYSCTL "$@" 2>&1; }
# NetworkManager: nmcli --offline builds the same connection from our keys (it refuses what it
# cannot parse), and reads our file back (its reader drops what it cannot parse, silently): every
# key=value of ours must come back from both
nm_keys() { awk '/^\[/{s=substr($0,2,length($0)-2); next} /^[a-z]/ && s!="connection" {print s "." $0}' "$1"; }
check_nm() {
	local f=$1 args="" l k v out
	while read -r l; do
		k=${l%%=*} v=${l#*=}
		args="$args $k ${v%;}"	# a keyfile list ends in ';', nmcli's has none
	done < <(nm_keys "$f")
	out=$(nmcli --offline connection add type ethernet con-name x ifname "$DEV" $args 2>&1) ||
		{ echo "nmcli add: $out"; return; }
	printf '%s\n' "$out" >"$T/nm.add"
	comm -23 <(nm_keys "$f" | sort) <(nm_keys "$T/nm.add" | sort) | sed 's/^/nmcli add has not: /'
	out=$(nmcli --offline connection modify connection.autoconnect yes <"$f" 2>&1) ||
		{ echo "nmcli modify: $out"; return; }
	printf '%s\n' "$out" >"$T/nm.rt"
	comm -23 <(nm_keys "$f" | sort) <(nm_keys "$T/nm.rt" | sort) | sed 's/^/read back without: /'
}
# tuned: its own profile loader, and the [net] plugin's parser and option table, without the
# daemon (tests/lib/tuned_check.py)
check_tuned() { python3 "$ROOT/tests/lib/tuned_check.py" "$@" 2>&1; }
# ifupdown: ifquery parses the stanza; then the ethtool package's if-up hook runs with its
# options on the veth: ethtool's usage errors are complaints ("Operation not supported" from the
# veth is not)
check_ifupdown() {
	local f=$1 env
	ifquery -i "$f" "$DEV" >"$T/ifq" 2>&1 || { sed 's/^/ifquery: /' "$T/ifq"; return; }
	env=$(awk -F': ' '!/^(up|down|pre-up|post-down):/ {k=toupper($1); gsub("-","_",k); printf "IF_%s=%s ", k, $2}' "$T/ifq")
	ip netns exec $NS env -i PATH=/usr/sbin:/usr/bin:/sbin:/bin IFACE=$DEV $env \
		sh /etc/network/if-up.d/ethtool 2>&1 | grep -iE 'bad command|invalid|unknown|usage'
	grep -E '^(up|pre-up|down|post-down): ' "$T/ifq" | sed 's/^[a-z-]*: //' | while read -r l; do
		sh -n -c "$l" 2>&1 | sed "s|^|up line '$l': |"
	done
}
consumer() {	# consumer FORMAT CHECK-NEEDS: runs FORMAT's check over its exports
	local f=$1 need=$2 out
	if ! have "$need"; then
		ktap_skip "$f: checked by $need" "$need is not installed (tests/lib/deps.sh installs it)"
		return 1
	fi
	return 0
}
run_check() {	# run_check FORMAT DESC FILES...: the check's output is the list of complaints
	local f=$1 desc=$2 out; shift 2
	case $f in
	systemd-link) out=$(check_link "$1" | grep -v 'is applied\|Could not\|Failed') ;;
	udev) out=$(check_udev "$1") ;;
	tmpfiles) out=$(check_tmpfiles "$@") ;;
	sysctl) out=$(check_sysctl "$@") ;;
	networkmanager) out=$(for x in "$@"; do check_nm "$x" | sed "s|^|$(basename "$x"): |"; done) ;;
	tuned) out=$(check_tuned "$@") ;;
	ifupdown) out=$(for x in "$@"; do check_ifupdown "$x" | sed "s|^|$(basename "$x"): |"; done) ;;
	esac
	if [ -z "$out" ]; then ktap_ok "$desc"; else ktap_fail "$desc"; printf '%s\n' "$out" | head -20 | sed 's/^/# /'; fi
}
declare -A NEED=([systemd-link]=udevadm [udev]=udevadm [tmpfiles]=systemd-tmpfiles
	[sysctl]=$SYSCTL [networkmanager]=nmcli [tuned]=python3 [ifupdown]=ifquery)
[ -d /usr/lib/python3/dist-packages/tuned ] || NEED[tuned]=/usr/lib/python3/dist-packages/tuned/profiles
files_of() {	# the files of format $1 in directory $2
	case $1 in
	systemd-link|udev) echo "$2" ;;
	tuned) ls -d "$2"/*/ 2>/dev/null ;;
	*) ls "$2"/* 2>/dev/null ;;
	esac
}
for f in $FMTS; do
	consumer $f "${NEED[$f]}" || continue
	run_check $f "$f: $(ls "$T/o/$f" | wc -l) files checked by ${NEED[$f]##*/}, no complaint" $(files_of $f "$T/o/$f")
	[ -d "$T/o/$f-drv" ] && run_check $f "$f by driver: checked by ${NEED[$f]##*/}, no complaint" $(files_of $f "$T/o/$f-drv")
	[ -d "$T/o/$f-dev" ] && run_check $f "$f --from-device: checked by ${NEED[$f]##*/}, no complaint" $(files_of $f "$T/o/$f-dev")
done
# the .link of the full profile matched the veth (Driver=veth), so udev read it and would apply it
if have udevadm; then
	mkdir -p "$T/one"; cp "$T/o/systemd-link/50-ethtune-full.link" "$T/one/"
	check_link "$T/one" | grep -q "50-ethtune-full.link is applied" &&
		ktap_ok "systemd-link: udev matches the full profile's .link to the veth (Driver=veth)" ||
		ktap_fail "systemd-link: udev matches the full profile's .link to the veth"
fi

# ... and the udev rule of the full profile matched the veth (ENV{ID_NET_DRIVER}=="veth")
if have udevadm; then
	mkdir -p "$T/one-rule"; cp "$T/o/udev/81-ethtune-full.rules" "$T/one-rule/"
	ip netns exec $NS sh -c "mount --bind '$T/one-rule' /etc/udev/rules.d &&
		udevadm test --action=add /sys/class/net/$DEV" 2>&1 | grep -qE "81-ethtune-full.rules:[0-9]+ RUN '/sbin/ethtool -C" &&
		ktap_ok "udev: the full profile's rule matches the veth (ENV{ID_NET_DRIVER}==\"veth\")" ||
		ktap_fail "udev: the full profile's rule matches the veth"
fi

# 4. corrupted files: the same checks catch them
corrupt() {	# corrupt FORMAT SRC SED DESC
	local f=$1 src=$2 expr=$3 desc=$4 d=$T/bad/$RANDOM out
	consumer $f "${NEED[$f]}" >/dev/null || { ktap_skip "$f catches $desc" "${NEED[$f]} not installed"; return; }
	mkdir -p "$d"
	cp -r "$src" "$d/"
	sed -i "$expr" "$d/$(basename "$src")"$([ $f = tuned ] && echo /tuned.conf)
	if grep -qr . "$d" && ! diff -rq "$src" "$d/$(basename "$src")" >/dev/null; then
		case $f in systemd-link|udev) out=$(run_check $f x "$d") ;; *) out=$(run_check $f x "$d/$(basename "$src")") ;; esac
		case $out in "not ok"*) ktap_ok "$f: the consumer's check catches $desc" ;;
		*) ktap_fail "$f: the consumer's check catches $desc" ;; esac
	else
		ktap_fail "$f: corrupting ($desc) changed the file"
	fi
}
L=$T/o/systemd-link/50-ethtune-full.link
corrupt systemd-link "$L" 's/^TxCoalesceSec=128us$/TxCoalesceSec=128000/' "a bare number for a time (128000 s)"
corrupt systemd-link "$L" 's/^TxCoalesceSec=/TxCoalesceUsecs=/' "an unknown key"
corrupt systemd-link "$L" 's/^TxBufferSize=1024$/TxBufferSize=0/' "an out-of-range value (ring 0)"
N=$T/o/networkmanager/ethtune-full.nmconnection
corrupt networkmanager "$N" 's/^coalesce-tx-usecs=128$/coalesce-tx-usecs=128us/' "a time with a unit"
corrupt networkmanager "$N" 's/^coalesce-tx-usecs=/coalesce-tx-usec=/' "an unknown key"
corrupt networkmanager "$N" 's/^coalesce-adaptive-rx=1$/coalesce-adaptive-rx=2/' "an out-of-range value (adaptive 2)"
U=$T/o/tuned/ethtune-full
corrupt tuned "$U" 's/tx-usecs 128/tx-usec 128/' "an unknown coalesce key"
corrupt tuned "$U" 's/^coalesce=.*/coalesce=tx-usecs/' "a key without a value"
corrupt tuned "$U" 's/^ring=/rings=/' "an unknown [net] option"
I=$T/o/ifupdown/ethtune-full
corrupt ifupdown "$I" 's/hardware-irq-coalesce-tx-usecs 128/hardware-irq-coalesce-tx-usec 128/' "an unknown key"
corrupt ifupdown "$I" 's/hardware-irq-coalesce-tx-usecs 128/hardware-irq-coalesce-tx-usecs 128us/' "a time with a unit"
R=$T/o/udev-drv/81-ethtune-full.rules
corrupt udev "$R" 's/ATTR{napi_defer_hard_irqs}/ATTRX{napi_defer_hard_irqs}/' "an unknown key"
corrupt udev "$R" 's/ACTION=="add"/ACTION="add"/' "a match written as an assignment"
corrupt udev "$R" 's/ATTR{gro_flush_timeout}="20000"/ATTR{gro_flush_timeout}="20000/' "a value without its closing quote"
M=$T/o/tmpfiles/ethtune-full.conf
corrupt tmpfiles "$M" 's/^w /W~ /' "an unknown line type"
corrupt tmpfiles "$M" 's/ - - - - 3000$/ - - - -/' "a write without its value"
S=$T/o/sysctl/90-ethtune-full.conf
corrupt sysctl "$S" 's/tcp_limit_output_bytes/tcp_limit_output_byte/' "a misspelt key"
corrupt sysctl "$S" 's/= 1048576/= lots/' "a value that is not a number"

# 5. profile verify reads the persisted configuration: a host whose udev applied a .link to the
# device, whose NetworkManager has a connection active on it, and whose sysctl.d sets the TSQ
# sysctl (under ETHTUNE_PERSIST_ROOT: the namespace's device stands for the host's)
R=$T/root IDX=$(ip -n $NS -o link show $DEV | cut -d: -f1)
TLOB=$(ip netns exec $NS cat /proc/sys/net/ipv4/tcp_limit_output_bytes)
mkdir -p $R/run/udev/data $R/etc/systemd/network $R/run/NetworkManager/devices \
	$R/etc/NetworkManager/system-connections $R/etc/sysctl.d
printf 'E:ID_NET_LINK_FILE=/etc/systemd/network/10-x.link\n' >$R/run/udev/data/n$IDX
printf '[Match]\nDriver=veth\n[Link]\nRxChannels=1\nTxChannels=2\n' >$R/etc/systemd/network/10-x.link
printf '[device]\nmanaged=true\nconnection-uuid=0b6a3d2c-1111-4222-8333-444455556666\n' \
	>$R/run/NetworkManager/devices/$IDX
printf '[connection]\nid=x\nuuid=0b6a3d2c-1111-4222-8333-444455556666\ntype=ethernet\n[ethtool]\nchannels-tx=2\n' \
	>$R/etc/NetworkManager/system-connections/x.nmconnection
printf 'net.ipv4.tcp_limit_output_bytes = 262144\n' >$R/etc/sysctl.d/90-x.conf
printf '[match]\ndriver = veth\n[channels]\nrx = 2\ntx = 2\n[sysctl]\nnet.ipv4.tcp_limit_output_bytes = %s\n[provenance]\nkind = documented\nsource = t\n' \
	"$TLOB" >"$T/p/persist.profile"
ETHTUNE_PERSIST_ROOT=$R "$ET" --netns $NS profile verify $DEV persist >"$T/pv" 2>&1
rc=$?
sed 's/^/# /' "$T/pv"
[ $rc = 1 ] && grep -qxF "    persisted rx 1 ($R/etc/systemd/network/10-x.link), running 2, profile 2" "$T/pv" &&
	grep -qxF "    persisted net.ipv4.tcp_limit_output_bytes 262144 ($R/etc/sysctl.d/90-x.conf), running $TLOB, profile $TLOB" "$T/pv" &&
	[ "$(grep -c persisted "$T/pv")" = 2 ] && grep -q "2 drifted" "$T/pv" &&
	ktap_ok "profile verify: persisted values that disagree are reported and count as drift; those that agree are not" ||
	ktap_fail "profile verify: persisted values that disagree are reported and count as drift (rc $rc)"
ETHTUNE_PERSIST_ROOT=$R "$ET" --netns $NS --json profile verify $DEV persist >"$T/pv.json" 2>/dev/null
ktap_schema "profile verify --json with persisted values fits docs/schema/profile.json" profile "$T/pv.json"
"$ET" --json profile export full --to systemd-link --dry-run --allow-partial >"$T/px.json" 2>/dev/null
ktap_schema "profile export --json fits docs/schema/profile.json" profile "$T/px.json"

# 6. bad input: one line, nothing half-written
mkdir -p "$T/ro"
printf '[match]\ndriver = veth\n[sysctl]\nnet.ipv4.tcp_limit_output_bytes = 1048576\n[provenance]\nkind = documented\nsource = t\n' >"$T/p/sysonly.profile"
"$ET" profile export sysonly --to sysctl --out "$T/nonexistent/x.conf" >/dev/null 2>"$T/e"
[ $? = 1 ] && [ "$(wc -l <"$T/e")" = 1 ] && grep -q "^ethtune: cannot write $T/nonexistent/x.conf: No such file or directory; nothing written$" "$T/e" &&
	! ls "$T" | grep -q nonexistent &&
	ktap_ok "--out into a missing directory: one line, nothing written ($(cat "$T/e"))" ||
	ktap_fail "--out into a missing directory: one line"
"$ET" profile export full --to systemd-link --split --out "$T/ro/file.link" >/dev/null 2>"$T/e"
[ $? = 1 ] && [ -z "$(ls "$T/ro")" ] && ktap_ok "--split --out FILE refused, nothing written" ||
	ktap_fail "--split --out FILE refused"
printf '[match]\ndriver = veth\n[coalesce]\nstats-block-usecs = 0\n[provenance]\nkind = documented\nsource = t\n' >"$T/p/zero.profile"
"$ET" profile export zero --to systemd-link >/dev/null 2>"$T/e"
[ $? = 1 ] && grep -q "below udev's minimum for StatisticsBlockCoalesceSec=, 1us" "$T/e" &&
	ktap_ok "a value udev would reject is refused with udev's bound" ||
	{ ktap_fail "a value udev would reject is refused"; sed 's/^/# /' "$T/e"; }
ktap_finish
