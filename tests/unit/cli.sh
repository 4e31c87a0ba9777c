#!/bin/bash
# Command-line checks (KTAP): every command's --help, unknown and incomplete options exit 2 with
# one line, and the generated bash completion is valid and names every option of every table.
# Nothing here gets past argument parsing: no device, journal or namespace is touched.
cd "$(dirname "$0")/../.." || exit 1
E=${ETHTUNE:-$PWD/${O:-build}/ethtune}
T=$(mktemp -d)
trap 'rm -rf "$T"' EXIT
export ETHTUNE_STATE_DIR=$T/state	# the start-up journal check reads an empty journal
mkdir -p "$ETHTUNE_STATE_DIR"
cmds="show set restore serve probe txlat sweep diagnose validate tune model profile rdma matrix compare completion"
n=0
for c in $cmds; do n=$((n + 5)); done
echo "KTAP version 1"
echo "1..$((n + 6))"
i=0
ok() { i=$((i + 1)); echo "ok $i $1"; }
fail() { i=$((i + 1)); echo "not ok $i $1"; shift; for l in "$@"; do echo "# $l"; done; }
# check DESC WANT_RC PATTERN CMD...: exit status WANT_RC and exactly one stderr line matching
check_err() {
	local d=$1 want=$2 pat=$3 rc; shift 3
	"$@" >"$T/out" 2>"$T/err"; rc=$?
	if [ $rc -eq "$want" ] && [ "$(wc -l <"$T/err")" -eq 1 ] && grep -q -- "$pat" "$T/err"; then
		ok "$d"
	else
		fail "$d" "rc $rc" "$(cat "$T/err")"
	fi
}
has_word() { grep -qE -- "(^|[^[:alnum:]_-])$1([^[:alnum:]_-]|\$)"; }	# an option, not a prefix of one
"$E" completion bash >"$T/ethtune.bash" 2>"$T/err"
for c in $cmds; do
	"$E" "$c" --help >"$T/help" 2>"$T/err"; rc=$?
	if [ $rc -eq 0 ] && head -1 "$T/help" | grep -q "^usage: ethtune $c" && [ ! -s "$T/err" ]; then
		ok "$c --help prints its usage and exits 0"
	else
		fail "$c --help prints its usage and exits 0" "rc $rc" "$(head -3 "$T/help" "$T/err")"
	fi
	"$E" "$c" -h >"$T/h" 2>&1; rc=$?
	[ $rc -eq 0 ] && cmp -s "$T/h" "$T/help" && ok "$c -h is --help" || fail "$c -h is --help" "rc $rc"
	check_err "$c: unknown option exits 2 naming it" 2 "'--no-such-option'" "$E" "$c" --no-such-option
	# the first option that takes a value, given without one (show: the global --netns)
	o=$(sed -n 's/^ *\(-., \)\?\(--[a-z0-9-]*\) [^ ].*/\2/p' "$T/help" | grep -v '^--help$' | head -1)
	case $c in
	rdma) args=(rdma probe ibdev0 "$o") ;;
	profile) args=(profile apply lo0 "${o:---netns}") ;;
	*) args=("$c" "${o:---netns}") ;;
	esac
	check_err "$c: ${args[*]:1} without its value exits 2" 2 "needs a" "$E" "${args[@]}"
	# every option --help lists is in the completion script, under this command
	missing=""
	for w in $(grep -o -- '--[a-z0-9-]*' "$T/help" | sort -u); do
		case $w in --json | --netns | --key-file | --verbose) continue ;; esac # the globals
		sed -n "/^\t$c)\$/,/;;/p" "$T/ethtune.bash" | has_word "$w" || missing="$missing $w"
	done
	[ -z "$missing" ] && ok "$c: completion names every option" ||
		fail "$c: completion names every option" "missing:$missing"
done
# the manual's OPTIONS section lists every option of every table, under its command
missing=""
for c in $cmds; do
	"$E" "$c" --help | grep -o -- '--[a-z0-9-]*' | sort -u | while read -r w; do
		case $w in --help | --json | --netns | --key-file | --verbose) continue ;; esac # the globals
		sed -n "/^\.SS $c\$/,/^\.S[SH]/p" docs/ethtune.8 | sed 's/\\-/-/g' | has_word "$w" ||
			echo "$c $w"
	done >>"$T/man-missing"
done
[ ! -s "$T/man-missing" ] && ok "ethtune(8) lists every option" ||
	fail "ethtune(8) lists every option" "$(tr '\n' ' ' <"$T/man-missing")"
[ -s "$T/ethtune.bash" ] && bash -n "$T/ethtune.bash" && ok "completion script is valid bash" ||
	fail "completion script is valid bash" "$(cat "$T/err")"
# complete WORDS...: what the generated function offers for the last word
complete_words() {
	bash -c 'source "$1"; shift; COMP_WORDS=("$@"); COMP_CWORD=$(($# - 1)); _ethtune
		printf "%s\n" "${COMPREPLY[@]}"' _ "$T/ethtune.bash" "$@"
}
r=$(complete_words ethtune --json sw)
[ "$r" = sweep ] && ok "completion: commands" || fail "completion: commands" "$r"
r=$(complete_words ethtune diagnose lo --peer-n)
[ "$r" = --peer-netns ] && ok "completion: a command's options" || fail "completion: a command's options" "$r"
r=$(complete_words ethtune tune lo --objective l)
[ "$r" = latency ] && ok "completion: an option's choices" || fail "completion: an option's choices" "$r"
r=$(complete_words ethtune show "" | tr '\n' ' ')
want=$(ls /sys/class/net | head -1)
case " $r " in *" $want "*) ok "completion: device names" ;; *) fail "completion: device names" "$r" ;; esac
