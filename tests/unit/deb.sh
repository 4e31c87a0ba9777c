#!/bin/bash
# The Debian package: `make deb` builds it, lintian finds no error, its files are where Debian puts them, its binary runs.
# san: no (a check of the build; the native run covers it)
# timeout: 900
# jobs: alone
# (the package build compiles the whole tool once more, DEB_JOBS=2 compilers: alone, it takes
# what a `make -j2 all` does plus ~15 s of debhelper and ~20 s of lintian)
set -u
cd "$(dirname "$0")/../.." || exit 1
ROOT=$PWD
. tests/lib/ktap.sh
O=${O:-build}
# a package from the sanitizer build would be no package: the native tree's own folder
case $O in build/san | build/fuzz) O=build ;; esac
T=$(mktemp -d /tmp/ethtune-deb.XXXXXX)
trap 'rm -rf "$T"' EXIT
ktap_header "debian package: make deb, lintian, dpkg -x, the binary runs"

missing=""
for t in dpkg-buildpackage dh lintian; do
	command -v $t >/dev/null || missing="$missing $t"
done
if [ -n "$missing" ]; then
	ktap_fail "tools missing:$missing (tests/lib/deps.sh: dpkg-dev debhelper lintian)"
	ktap_finish; exit 1
fi
V=$(sed -n 's/^#define ETHTUNE_VERSION "\(.*\)"/\1/p' include/util/ethtune.h)
A=$(dpkg --print-architecture)
DEB=$O/deb/ethtune_${V}_$A.deb

# the changelog's version is the tool's
cv=$(dpkg-parsechangelog -l contrib/debian/changelog -S Version)
[ "$cv" = "$V" ] && ktap_ok "contrib/debian/changelog's version is ETHTUNE_VERSION ($V)" ||
	ktap_fail "contrib/debian/changelog's version ($cv) is ETHTUNE_VERSION ($V)"

t0=$SECONDS
if nice -n 10 make -s O="$O" DEB_JOBS=2 deb >"$T/build.log" 2>&1 && [ -f "$DEB" ]; then
	ktap_ok "make deb built $DEB ($((SECONDS - t0)) s)"
else
	ktap_fail "make deb built $DEB"
	tail -20 "$T/build.log" | sed 's/^/# /'
	ktap_finish; exit 1
fi

# lintian: no error; its warnings are listed
t0=$SECONDS
lintian --fail-on error --no-tag-display-limit "$DEB" >"$T/lintian.log" 2>&1
rc=$?
[ $rc = 0 ] && ktap_ok "lintian: no error ($((SECONDS - t0)) s)" ||
	{ ktap_fail "lintian: no error (exit $rc)"; grep '^E:' "$T/lintian.log" | sed 's/^/# /'; }
grep -E '^[WI]:' "$T/lintian.log" | sed 's/^/#   lintian: /'

# the files, where Debian puts them
R=$T/root
dpkg -x "$DEB" "$R"
nprof=$(ls profiles/*.profile | wc -l)
ok=1
for f in usr/sbin/ethtune usr/share/man/man8/ethtune.8.gz \
	usr/share/bash-completion/completions/ethtune usr/share/doc/ethtune/copyright \
	usr/share/doc/ethtune/changelog.gz usr/share/doc/ethtune/schema/tune.json; do
	[ -f "$R/$f" ] || { ok=0; echo "# missing: /$f"; }
done
ls "$R"/usr/share/doc/ethtune/probe.md* >/dev/null 2>&1 || { ok=0; echo "# missing: docs/probe.md"; }
n=$(ls "$R"/usr/share/ethtune/profiles/*.profile 2>/dev/null | wc -l)
[ "$n" = "$nprof" ] || { ok=0; echo "# /usr/share/ethtune/profiles: $n profiles, the tree has $nprof"; }
[ -x "$R/usr/sbin/ethtune" ] || { ok=0; echo "# /usr/sbin/ethtune is not executable"; }
[ -z "$(find "$R/usr/local" 2>/dev/null)" ] || { ok=0; echo "# files under /usr/local"; }
[ $ok = 1 ] && ktap_ok "dpkg -x: binary, man page, completion, $nprof profiles, docs where Debian puts them" ||
	ktap_fail "dpkg -x: binary, man page, completion, profiles, docs where Debian puts them"
ktap_check "the man page is the tree's" cmp <(zcat "$R/usr/share/man/man8/ethtune.8.gz") docs/ethtune.8
ktap_check "the completion is the binary's own" cmp "$R/usr/share/bash-completion/completions/ethtune" \
	<("$R/usr/sbin/ethtune" completion bash)
dep=$(dpkg-deb -f "$DEB" Depends)
echo "# Depends: $dep"
ktap_check "Depends (shlibs) names libmnl, jansson, libcap-ng and libssl" bash -c \
	'[[ $1 == *libmnl0* && $1 == *libjansson4* && $1 == *libcap-ng0* && $1 == *libssl3* ]]' _ "$dep"

# the extracted binary runs
ktap_check "the package's binary: --version says $V" bash -c \
	'[ "$("$1" --version)" = "ethtune $2" ]' _ "$R/usr/sbin/ethtune" "$V"
ktap_check "the package's binary: show lo" "$R/usr/sbin/ethtune" show lo
# and finds its profiles where the package put them: /usr/share/ethtune/profiles, seen through
# a bind mount in a mount namespace of its own, from a folder without ./profiles
if [ "$(id -u)" = 0 ] && unshare -m true 2>/dev/null; then
	ktap_check "the package's binary finds the veth profile in /usr/share/ethtune/profiles" \
		unshare -m --propagation private bash -c '
		mkdir -p "$2/empty"
		{ [ ! -d /usr/local/share/ethtune ] || mount --bind "$2/empty" /usr/local/share/ethtune; } &&
		mount --bind "$1/usr/share" /usr/share && cd / &&
		env -u ETHTUNE_PROFILE_DIR "$1/usr/sbin/ethtune" --json profile list | python3 -c "
import json, sys
p = [x for x in json.load(sys.stdin)[\"profiles\"] if x[\"name\"] == \"veth\"]
assert p and p[0][\"path\"] == \"/usr/share/ethtune/profiles/veth.profile\", p"' _ "$R" "$T"
else
	ktap_skip "the package's binary finds its profiles in /usr/share/ethtune/profiles" "needs root"
fi
ktap_finish
