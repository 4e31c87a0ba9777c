#!/bin/bash
# Every row of docs/bad-input.md: its command exits with its status, prints exactly its one line,
# and changes nothing (the device, the journal).
set -u
ROOT=$(cd "$(dirname "$0")/../.." && pwd)
. "$ROOT/tests/lib/ktap.sh"
. "$ROOT/tests/lib/veth.sh"
E=${ETHTUNE:-$ROOT/build/ethtune}
DOC=$ROOT/docs/bad-input.md
T=$(mktemp -d /tmp/etb.XXXXXX)
NS=etb-$$-a NSB=etb-$$-b DEV=etb$$a DEVB=etb$$b IP_A=198.18.10.1 PEER=198.18.10.2
cleanup() {
	[ -n "${SP:-}" ] && kill $SP 2>/dev/null && wait $SP 2>/dev/null
	mountpoint -q "$T/full" && umount "$T/full"
	ip netns del $NS 2>/dev/null; ip netns del $NSB 2>/dev/null
	rm -rf "$T"
}
trap cleanup EXIT
ktap_header "bad input: each row of docs/bad-input.md"
veth_ns_or_exit "bad-input table" $NS $NSB $DEV $DEVB $IP_A $PEER 2

# what the rows refer to
export ETHTUNE_STATE_DIR=$T/state
KEY=$T/key KEY2=$T/key2 OPENKEY=$T/openkey SHORTKEY=$T/shortkey
for k in $KEY $KEY2 $OPENKEY; do head -c 32 /dev/urandom | base64 >$k; chmod 600 $k; done
chmod 644 $OPENKEY
echo short >$SHORTKEY; chmod 600 $SHORTKEY
CORRUPT=$T/corrupt; mkdir -p $CORRUPT; printf '{not json\n' >$CORRUPT/journal
FULL=$T/full; mkdir -p $FULL
HAVE_FULL=0
mount -t tmpfs -o size=4k tmpfs $FULL 2>/dev/null && HAVE_FULL=1 &&
	dd if=/dev/zero of=$FULL/fill bs=1k count=8 2>/dev/null
prof() { printf '[profile]\nname = bad\n[match]\ndriver = veth\n%s\n' "$2" >"$T/$1.conf"; }
prof typo $'[coalesce]\ntx-usec = 5'; PROF_TYPO=$T/typo.conf
prof value $'[coalesce]\ntx-usecs = five'; PROF_VALUE=$T/value.conf
prof napi $'[napi]\ngro_flush_timeout = 5'; PROF_NAPI=$T/napi.conf
printf 'garbage line\n' >"$T/syntax.conf"; PROF_SYNTAX=$T/syntax.conf
xprof() { printf '[profile]\nname = bad\n[match]\ndriver = veth\n%s\n[provenance]\nkind = documented\nsource = t\n' "$2" >"$T/$1.conf"; }
xprof export $'[coalesce]\ntx-usecs = 16\n[napi]\ndefer-hard-irqs = 2'; PROF_EXPORT=$T/export.conf
xprof zero $'[coalesce]\nstats-block-usecs = 0'; PROF_ZERO=$T/zero.conf
"$E" --netns $NSB --key-file $KEY serve --bind $PEER --max-duration 2 >/dev/null 2>&1 &
SP=$!
for i in $(seq 50); do ip netns exec $NSB ss -Hltn "sport = :12866" | grep -q . && break; sleep 0.1; done
ethtune() { "$E" "$@"; }

# the rows: | `command` | status | `message` | ("\|" is a literal bar)
python3 - "$DOC" >"$T/rows" <<'PY'
import re, sys
for line in open(sys.argv[1]):
    if not line.startswith("| `"):
        continue
    cells = [c.strip().replace("\\|", "|") for c in re.split(r"(?<!\\)\|", line.strip())[1:-1]]
    cmd, rc, msg = cells[0].strip("`"), cells[1], cells[2].strip("`")
    print("%s\t%s\t%s" % (cmd, rc, msg))
PY
[ -s "$T/rows" ] || { ktap_fail "docs/bad-input.md has rows"; ktap_finish; exit 1; }
snap() { "$E" --netns $NS --json show $DEV 2>&1; ip -n $NS -d link show $DEV | head -1; }
before=$(snap)
while IFS=$'\t' read -r cmd want msg; do
	if [ $HAVE_FULL = 0 ] && [ -z "${cmd##*\$FULL*}" ]; then
		ktap_skip "$cmd" "cannot mount a small tmpfs here"; continue
	fi
	eval "exp=\"$msg\""
	eval "$cmd" >"$T/out" 2>"$T/err" </dev/null
	rc=$?
	got=$(cat "$T/err")
	if [ $rc -eq "$want" ] && [ "$got" = "$exp" ]; then
		ktap_ok "$cmd"
	else
		ktap_fail "$cmd"
		ktap_diag "  want status $want: $exp"
		ktap_diag "  got  status $rc: $got"
	fi
	if [ "$(snap)" != "$before" ]; then
		ktap_fail "after '$cmd': $DEV unchanged"
		before=$(snap)
	fi
done <"$T/rows"
# nothing was journaled, so nothing was changed behind the journal's back either
if [ ! -s "$ETHTUNE_STATE_DIR/journal" ]; then ktap_ok "no row left a journal entry"
else ktap_fail "no row left a journal entry"; sed 's/^/# /' "$ETHTUNE_STATE_DIR/journal"; fi
kill -0 $SP 2>/dev/null && ktap_ok "serve survived every row" || ktap_fail "serve survived every row"
ktap_finish
