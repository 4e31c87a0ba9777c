#!/bin/bash
# Builds the reference tools the probe bench compares against, netperf and neper, from checkouts
# of their public repositories that are already on this machine; it downloads nothing.
#   tests/bench/build_refs.sh [--netperf DIR] [--neper DIR] [--prefix DIR (default build/refs)]
# Then `make bench` finds them in PREFIX/bin (or anywhere on PATH). netperf needs autoconf and
# automake (Debian packages) for its autogen.sh; neper builds with make alone.
set -eu
cd "$(dirname "$0")/../.."
NETPERF="" NEPER="" PREFIX=$PWD/${O:-build}/refs
while [ $# -gt 0 ]; do
	case $1 in
	--netperf) NETPERF=$2; shift 2 ;;
	--neper) NEPER=$2; shift 2 ;;
	--prefix) PREFIX=$2; shift 2 ;;
	*) echo "usage: $0 [--netperf DIR] [--neper DIR] [--prefix DIR]" >&2; exit 2 ;;
	esac
done
[ -n "$NETPERF$NEPER" ] || { echo "$0: give --netperf DIR and/or --neper DIR (checkouts)" >&2; exit 2; }
mkdir -p "$PREFIX/bin"
W=$(mktemp -d)
trap 'rm -rf "$W"' EXIT
if [ -n "$NETPERF" ]; then
	command -v autoreconf >/dev/null || { echo "$0: netperf needs autoconf and automake" >&2; exit 1; }
	cp -r "$NETPERF" "$W/netperf"
	# src/ only: the manual would need makeinfo (texinfo)
	(cd "$W/netperf" && ./autogen.sh && ./configure --prefix="$PREFIX" && make -C src &&
		make -C src install) \
		>"$W/netperf.log" 2>&1 || { tail -20 "$W/netperf.log" >&2; exit 1; }
	echo "netperf: $("$PREFIX/bin/netperf" -V 2>&1 | head -1) in $PREFIX/bin"
fi
if [ -n "$NEPER" ]; then
	cp -r "$NEPER" "$W/neper"
	(cd "$W/neper" && make tcp_stream tcp_rr) >"$W/neper.log" 2>&1 ||
		{ tail -20 "$W/neper.log" >&2; exit 1; }
	install -m 755 "$W/neper/tcp_stream" "$W/neper/tcp_rr" "$PREFIX/bin/"
	echo "neper: tcp_stream, tcp_rr in $PREFIX/bin"
fi
