#!/bin/bash
# Optional backends are optional: builds without rdma-core and without libbpf/clang/bpftool (KTAP).
# san: no (a check of the sources or the build; the native run covers it)
# timeout: 600
# (its builds run at nice 19: in a pool they wait for the other files, and it needs that long)
# Each build goes to $O/no-rdma or $O/no-bpf with the backend's headers replaced by ones that
# stop the compiler, so that no file still compiled can use them; then the tool runs and the
# backend's command names the packages to install.
set -u
cd "$(dirname "$0")/../.." || exit 1
. tests/lib/ktap.sh
O=${O:-build}
CC=${CC:-cc}
FAKE=$(mktemp -d /tmp/ethtune-nobackend.XXXXXX)
trap 'rm -rf "$FAKE"' EXIT
# Per build, the backend's headers stop the compiler and pkg-config does not know its packages.
mkdir -p "$FAKE/no-rdma/infiniband" "$FAKE/no-bpf/bpf" "$FAKE/all/infiniband" "$FAKE/all/bpf"
for h in no-rdma/infiniband/verbs.h no-rdma/infiniband/mlx5dv.h no-bpf/bpf/libbpf.h \
	no-bpf/bpf/bpf.h; do
	echo "#error ${h#*/} is not installed on this host" >"$FAKE/$h"
	cp "$FAKE/$h" "$FAKE/all/${h#*/}"
done
cat >"$FAKE/pkg-config" <<'P'
#!/bin/sh
case " $* " in *" libibverbs "* | *" libmlx5 "* | *" libbpf "*) exit 1 ;; esac
exec pkg-config "$@"
P
chmod +x "$FAKE/pkg-config"
nohost() {	# make variables of a host without the headers in $FAKE/$1
	echo "CC=$CC -I$FAKE/$1"
	echo "PKG_CONFIG=$FAKE/pkg-config"
	[ "$1" = no-rdma ] || printf '%s\n' CLANG=/nonexistent/clang BPFTOOL=/nonexistent/bpftool
}

ktap_header "builds without the optional backends"
mapfile -t vars < <(nohost all)
cfg=$(make -s O="$O/no-detect" "${vars[@]}" config 2>&1)
[ "$cfg" = "WITH_RDMA=0 WITH_BPF=0" ] && ktap_ok "a host without rdma-core and libbpf is detected" ||
	{ ktap_fail "a host without rdma-core and libbpf is detected"; ktap_diag "$cfg"; }

# one_fail CMD...: exits non-zero with exactly one stderr line naming the packages to install
one_fail() {
	local pkgs=$1 err rc; shift
	err=$("$@" 2>&1 >/dev/null); rc=$?
	[ $rc -ne 0 ] || { echo "exit 0"; return 1; }
	[ "$(printf '%s\n' "$err" | wc -l)" -eq 1 ] || { echo "not one line: $err"; return 1; }
	for p in $pkgs; do
		printf '%s\n' "$err" | grep -q -- "$p" || { echo "no $p in: $err"; return 1; }
	done
	echo "# $err"
}

check_build() {	# check_build NAME WITH_X "CMD" "PKGS" LIBS-REGEX UNIT-TEST...
	local name=$1 with=$2 cmd=$3 pkgs=$4 libs=$5 dir="$O/$1" log t vars; shift 5
	log="$dir.log"
	mapfile -t vars < <(nohost "$name")
	rm -rf "$dir" # make does not notice that the variables changed
	if nice -n 19 make -s -j2 O="$dir" "${vars[@]}" "$with" all \
		$(for t in "$@"; do echo "$dir/tests/$t"; done) >"$log" 2>&1; then
		ktap_ok "$name: build succeeds"
	else
		ktap_fail "$name: build succeeds"; tail -20 "$log" | sed 's/^/# /'; return
	fi
	ktap_check "$name: ethtune --help" "$dir/ethtune" --help
	ktap_check "$name: show --help runs (no backend message)" bash -c \
		"'$dir/ethtune' show --help 2>&1 | grep -q 'show' && ! '$dir/ethtune' show --help 2>&1 | grep -q install"
	ktap_check "$name: model" "$dir/ethtune" model --rate 10G --tsq 262144 --tx-usecs 16
	ktap_check "$name: no library of the backend linked" bash -c \
		"! readelf -d '$dir/ethtune' | grep NEEDED | grep -E '$libs'"
	ktap_check "$name: $cmd names the packages and fails" one_fail "$pkgs" "$dir/ethtune" $cmd
	for t in "$@"; do
		ktap_check "$name: unit test $t reports SKIP" bash -c "'$dir/tests/$t' | grep -q '^ok 1 .*# SKIP'"
	done
}
check_build no-rdma WITH_RDMA=0 "rdma list" "libibverbs-dev ibverbs-providers" 'libibverbs|libmlx5' \
	test_rdma test_mlx5
check_build no-bpf WITH_BPF=0 "txlat lo" "libbpf-dev clang bpftool" libbpf
ktap_finish
