#!/bin/bash
# Lab: ethtune show/set/restore of every coalesce and ring parameter on e1000e, virtio_net and txsim.
# kernels: stable sid
set -u
ROOT=${ETHTUNE_ROOT:-$(cd "$(dirname "$0")/../.." && pwd)}
. "$ROOT/tests/lib/ktap.sh"
ET=${ETHTUNE:-$ROOT/${O:-build}/ethtune}
. "$ROOT/tests/lab/lib/host.sh"
lab_host_run "$0" "${LAB_DRIVERS_TIMEOUT:-300}" "ethtune show/set/restore on real drivers"

# ---- guest ----
. "$ROOT/tests/lab/lib/guest.sh"
RD="sh $ROOT/tests/lab/lib/ethtool_read.sh"
export ETHTUNE_STATE_DIR=$(mktemp -d /tmp/ethtune-lab.XXXXXX)
ktap_header "ethtune show/set/restore in the guest ($(uname -r))"

ek() {	# ek DEV c|g KEY: value as ethtool reads it
	ethtool -$2 "$1" 2>/dev/null | $RD "$2" "$3"
}
snap() { ethtool -c "$1" 2>/dev/null | $RD c; ethtool -g "$1" 2>/dev/null | $RD g; }

# candidates CUR MAX: values to try for a u32 parameter, other than CUR, within MAX (awk, as
# lib/ethtool_read.sh: under TCG a python3 start costs the guest 0.4 s)
candidates() {
	awk -v cur="$1" -v mx="${2:-}" 'BEGIN {
		if (mx + 0) {	# ring sizes: powers of two and multiples of 64 drivers accept as they are
			n = split(int(cur / 2) " " cur * 2 " 512 256 128 1024 64 " mx, c, " ")
		} else {
			n = split((cur + 0 ? cur * 2 : 16) " 50 8 1 0 3 100 " cur + 1, c, " ")
		}
		out = ""
		for (i = 1; i <= n && k < 6; i++) {
			v = c[i] + 0
			if (v == cur + 0 || (v in seen))
				continue
			if ((mx + 0) && !(0 < v && v <= mx + 0 && (v % 64 == 0 || v == mx + 0)))
				continue
			seen[v] = 1; k++
			out = out (k > 1 ? " " : "") sprintf("%.0f", v)
		}
		print out
	}'
}

# try_param DEV OBJ(coalesce|ring) KEY: set a new value with ethtune, read back with ethtool
try_param() {
	local dev=$1 obj=$2 key=$3 c=c max cur v got err tried="" downed=0
	[ "$obj" = ring ] && c=g
	cur=$(ek "$dev" $c "$key")
	case $cur in
	0|1) if [ "$obj" = coalesce ] && [[ $key == adaptive-* || $key == cqe-mode-* ]] ||
		[[ $key == *-push ]]; then
		[ "$cur" = 1 ] && set -- off || set -- on
		vals=$1
	else vals=$(candidates "$cur"); fi ;;
	n/a) ktap_skip "$dev $obj $key: set and read back" "ethtool does not show $key"; return ;;
	*[!0-9]*) ktap_skip "$dev $obj $key: set and read back" "not numeric ($cur)"; return ;;
	*) max=""
		[ "$obj" = ring ] && max=$("$ET" --json show "$dev" | jq -r --arg k "$key-max" '.rings[$k] // ""')
		vals=$(candidates "$cur" "$max") ;;
	esac
	for v in $vals; do
		tried="$tried $v"
		if ! err=$("$ET" set "$dev" "$obj" "$key" "$v" 2>&1); then
			# a driver that needs the link down for this (virtio_net napi_tx): retry down
			if [ $downed -eq 0 ] && printf '%s' "$err" | grep -qi busy; then
				ip link set "$dev" down; downed=1; NEED_DOWN=1
				err=$("$ET" set "$dev" "$obj" "$key" "$v" 2>&1) || continue
			else
				continue
			fi
		fi
		got=$(ek "$dev" $c "$key")
		case $v in on) v=1 ;; off) v=0 ;; esac
		if [ "$got" = "$v" ]; then
			ktap_ok "$dev $obj $key: $cur -> $v, ethtool reads $got"
			[ $downed -eq 1 ] && ip link set "$dev" up
			return
		fi
		ktap_diag "$dev $key: set $v, ethtool reads $got (driver rounds); next value"
	done
	[ $downed -eq 1 ] && ip link set "$dev" up
	if [ "$(ek "$dev" $c "$key")" = "$cur" ] && [ -n "$err" ] && [ "$(printf '%s\n' "$err" | wc -l)" -eq 1 ]; then
		ktap_skip "$dev $obj $key: set and read back" "driver rejects every value tried ($tried): $err"
	else
		ktap_fail "$dev $obj $key: set and read back (tried$tried; last error: ${err:-none})"
	fi
}

for dev in ee0 vn0 txsim0; do
	if ! ip link show "$dev" >/dev/null 2>&1; then
		ktap_skip "$dev: show/set/restore" "no $dev in the guest"; continue
	fi
	# up for the test, and as it was afterwards
	was_up=0
	ip link show "$dev" | grep -q '[<,]UP[,>]' && was_up=1
	ip link set "$dev" up
	drv=$(ethtool -i "$dev" | sed -n 's/^driver: //p')
	json=$("$ET" --json show "$dev" 2>&1)
	if ! keys=$(printf '%s' "$json" | python3 -c '
import json, sys
d = json.load(sys.stdin)
for obj, name in (("coalesce", "coalesce"), ("rings", "ring")):
	for k, v in sorted(d.get(obj, {}).items()):
		if not k.endswith("-max") and not isinstance(v, (list, dict)):
			print(name, k)'); then
		ktap_fail "$dev ($drv): ethtune --json show parses"; printf '%s\n' "$json" | head -5 | sed 's/^/# /'
		continue
	fi
	ktap_ok "$dev ($drv): ethtune show reports $(echo "$keys" | grep -c .) coalesce/ring values"
	printf '%s\n' "$json" >"$ETHTUNE_STATE_DIR/show-$dev.json"
	ktap_schema "$dev ($drv): show --json fits docs/schema/show.json" show "$ETHTUNE_STATE_DIR/show-$dev.json"
	"$ET" show "$dev" >/dev/null 2>&1 && ktap_ok "$dev: ethtune show (text)" || ktap_fail "$dev: ethtune show (text)"
	before=$(snap "$dev")
	NEED_DOWN=0
	while read -r obj key; do
		[ -n "$key" ] && try_param "$dev" "$obj" "$key"
	done <<<"$keys"
	# a parameter the driver does not report: one clear error, nothing changed
	un=$(printf '%s' "$json" | jq -r '.coalesce // {} | . as $c |
		[("tx-usecs-irq", "rx-frames-high", "tx-usecs", "rx-usecs") as $k |
		 select($c | has($k) | not) | $k][0]')
	mid=$(snap "$dev")
	if err=$("$ET" set "$dev" coalesce "$un" 7 2>&1); then
		ktap_fail "$dev: unsupported coalesce $un is refused"
	elif [ "$(printf '%s\n' "$err" | wc -l)" -eq 1 ] && [ "$(snap "$dev")" = "$mid" ]; then
		ktap_ok "$dev: unsupported coalesce $un is refused, nothing changed"
		ktap_diag "  $err"
	else
		ktap_fail "$dev: unsupported coalesce $un: one error line and nothing changed"
		printf '%s\n' "$err" | sed 's/^/# /'
	fi
	# restore under the same condition the driver set for a change (virtio_net: link down)
	[ $NEED_DOWN -eq 1 ] && ip link set "$dev" down
	if err=$("$ET" restore "$dev" 2>&1); then
		ktap_ok "$dev: ethtune restore $dev$([ $NEED_DOWN -eq 1 ] && echo " (link down)")"
	else
		ktap_fail "$dev: ethtune restore $dev"; printf '%s\n' "$err" | head -5 | sed 's/^/# /'
	fi
	[ $NEED_DOWN -eq 1 ] && ip link set "$dev" up
	after=$(snap "$dev")
	if [ "$before" = "$after" ]; then
		ktap_ok "$dev: every coalesce/ring value back as before (ethtool -c/-g)"
	else
		ktap_fail "$dev: every coalesce/ring value back as before (ethtool -c/-g)"
		diff <(echo "$before") <(echo "$after") | sed 's/^/# /'
	fi
	[ $was_up -eq 1 ] || ip link set "$dev" down
done
"$ET" restore >/dev/null 2>&1
rm -rf "$ETHTUNE_STATE_DIR"
ktap_finish
