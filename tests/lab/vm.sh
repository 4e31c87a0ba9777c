#!/bin/bash
# Driver lab: boots Debian's kernel under qemu (TCG) with real NIC drivers and txsim, runs a command.
#
#   tests/lab/vm.sh setup                      install packages, fetch kernel, build initramfs+txsim.ko
#   tests/lab/vm.sh run [--timeout S] [--mem MB] [--keep] -- CMD...
#                                              run CMD as root in the guest (chroot of the host root),
#                                              print its output, exit with its status (124: timeout)
#   tests/lab/vm.sh shell                      interactive guest shell on the console
#   tests/lab/vm.sh                            (no arguments, as tests/run.sh calls it) KTAP smoke test
#
# Everything is cached under $O/lab/ (default build/lab/); see docs/lab.md.
set -u
LAB_SRC=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
ROOT=$(cd "$LAB_SRC/../.." && pwd)
O=${O:-build}
case $O in /*) ;; *) O="$ROOT/$O" ;; esac
LAB=$O/lab
# Status of a run whose guest kernel hung (soft lockup): the emulated platform failed, not the test.
LAB_HUNG=126
KMOD_SRC=$ROOT/drivers/txsim/kmod
# Guest modules loaded at boot, in this order (dependencies are resolved by modprobe -D).
GUEST_MODS="crc32_generic virtio_pci 9pnet_virtio 9p e1000e virtio_net veth sch_netem sch_fq ib_uverbs rdma_rxe"

log() { echo "lab: $*" >&2; }
die() { echo "lab: $*" >&2; exit 1; }
SUDO=""; [ "$(id -u)" -eq 0 ] || SUDO=sudo

guest_abi() {	# the ABI that Debian's linux-image-amd64 metapackage currently names
	local abi
	[ -n "${LAB_ABI:-}" ] && { echo "$LAB_ABI"; return; }
	abi=$(apt-cache depends linux-image-amd64 2>/dev/null |
		sed -n 's/.*Depends: linux-image-\([0-9.]*-[0-9]*\)-amd64$/\1/p' | head -1)
	[ -n "$abi" ] || return 1
	echo "$abi-amd64"
}

install_pkgs() {
	local missing="" p
	for p in "$@"; do
		dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" ||
			missing="$missing $p"
	done
	[ -z "$missing" ] && return 0
	log "installing$missing"
	export DEBIAN_FRONTEND=noninteractive
	$SUDO apt-get install -y -q --no-install-recommends $missing >/dev/null 2>&1 || {
		$SUDO apt-get update -q >/dev/null 2>&1
		$SUDO apt-get install -y -q --no-install-recommends $missing >/dev/null
	}
}

# Kernel image + modules of the guest, unpacked under $LAB/kernel/<abi>/.
fetch_kernel() {
	local abi=$1 kdir=$LAB/kernel/$1 deb
	[ -f "$kdir/.done" ] && return 0
	rm -rf "$kdir" && mkdir -p "$kdir/dl" || return 1
	log "downloading linux-image-$abi"
	(cd "$kdir/dl" && apt-get download "linux-image-$abi" >/dev/null 2>&1) || {
		$SUDO apt-get update -q >/dev/null 2>&1
		(cd "$kdir/dl" && apt-get download "linux-image-$abi" >/dev/null) || return 1
	}
	deb=$(ls "$kdir"/dl/linux-image-*.deb | head -1)
	dpkg-deb -x "$deb" "$kdir/root" || return 1
	rm -rf "$kdir/dl"
	depmod -b "$kdir/root" "$abi" || return 1
	touch "$kdir/.done"
}

# initramfs: static busybox, the guest modules (decompressed, in load order) and our /init.
build_initrd() {
	local abi=$1 kdir=$LAB/kernel/$1 out=$LAB/initrd-$1.gz stamp tmp m f
	stamp="$GUEST_MODS $(md5sum "$LAB_SRC/lib/init" | cut -d' ' -f1)"
	[ -f "$out" ] && [ "$(cat "$out.stamp" 2>/dev/null)" = "$stamp" ] && return 0
	log "building initramfs"
	tmp=$(mktemp -d "$LAB/initrd.XXXXXX")
	mkdir -p "$tmp"/{bin,dev,proc,sys,newroot,mods,etc}
	cp /bin/busybox "$tmp/bin/busybox"
	cp "$LAB_SRC/lib/init" "$tmp/init" && chmod 755 "$tmp/init"
	: >"$tmp/mods/order"
	for m in $GUEST_MODS; do
		modprobe -d "$kdir/root" -S "$abi" --show-depends "$m" 2>/dev/null |
			sed -n 's/^insmod \([^ ]*\).*/\1/p'
	done | awk '!seen[$0]++' | while read -r f; do
		local b
		b=$(basename "$f"); b=${b%.xz}; b=${b%.zst}
		case $f in
		*.xz) xz -dc "$f" >"$tmp/mods/$b" ;;
		*.zst) zstd -qdc "$f" >"$tmp/mods/$b" ;;
		*) cp "$f" "$tmp/mods/$b" ;;
		esac
		echo "$b" >>"$tmp/mods/order"
	done
	[ -s "$tmp/mods/order" ] || { rm -rf "$tmp"; log "no guest modules found"; return 1; }
	(cd "$tmp" && find . | cpio -o -H newc --quiet | gzip -1) >"$out.tmp" || return 1
	mv "$out.tmp" "$out" && echo "$stamp" >"$out.stamp"
	rm -rf "$tmp"
}

# txsim.ko, built out of tree in $LAB/txsim-build against the guest headers.
build_txsim() {
	local abi=$1 hdr=/usr/src/linux-headers-$1 b=$LAB/txsim-build
	[ -f "$KMOD_SRC/txsim.c" ] || return 0
	if [ -f "$LAB/txsim.ko" ] &&
		[ -z "$(find "$KMOD_SRC" -newer "$LAB/txsim.ko" -type f 2>/dev/null)" ]; then
		return 0
	fi
	log "building txsim.ko against $abi"
	rm -rf "$b" && mkdir -p "$b" && cp "$KMOD_SRC"/*.c "$KMOD_SRC"/Kbuild "$b"/ || return 1
	make -s -C "$hdr" M="$b" modules >"$b/build.log" 2>&1 || {
		cat "$b/build.log" >&2; return 1; }
	grep -i warning "$b/build.log" >&2
	cp "$b/txsim.ko" "$LAB/txsim.ko.tmp" && mv "$LAB/txsim.ko.tmp" "$LAB/txsim.ko"
}

setup() {
	local abi
	mkdir -p "$LAB" || return 1
	exec 9>"$LAB/.setup.lock"
	flock 9
	install_pkgs qemu-system-x86 busybox-static cpio kmod xz-utils iproute2 ethtool iperf3 || return 1
	abi=$(guest_abi) || { log "apt-cache names no linux-image-amd64 ABI"; return 1; }
	install_pkgs "linux-headers-$abi" || return 1
	fetch_kernel "$abi" || { log "cannot fetch the guest kernel $abi"; return 1; }
	build_initrd "$abi" || return 1
	build_txsim "$abi" || return 1
	echo "$abi" >"$LAB/abi"
	flock -u 9
}

# TCG by default: /dev/kvm may exist on these hosts, but a nested KVM guest hangs at boot there.
lab_accel() {
	case ${LAB_ACCEL:-tcg} in
	kvm) echo kvm ;;
	*) echo tcg,thread=multi ;;
	esac
}

# boot MODE RUNDIR TIMEOUT MEM: starts qemu; MODE is run or shell.
boot() {
	local mode=$1 rd=$2 to=$3 mem=$4 abi kdir
	abi=$(cat "$LAB/abi") && kdir=$LAB/kernel/$abi
	local q=(qemu-system-x86_64 -accel "$(lab_accel)" -smp "${LAB_SMP:-2}" -m "$mem"
		-nographic -no-reboot -kernel "$kdir/root/boot/vmlinuz-$abi"
		-initrd "$LAB/initrd-$abi.gz"
		-append "console=ttyS0 loglevel=5 panic=-1 softlockup_panic=1 softlockup_all_cpu_backtrace=1 lab.mode=$mode lab.root=$ROOT lab.o=$O net.ifnames=0 ${LAB_APPEND:-}"
		-virtfs local,path=/,mount_tag=hostroot,security_model=none,readonly=on,multidevs=remap
		-virtfs "local,path=$rd,mount_tag=labout,security_model=none"
		-netdev hubport,id=e0,hubid=0 -device e1000e,netdev=e0,mac=52:54:00:1a:00:00,romfile=
		-netdev hubport,id=e1,hubid=0 -device e1000e,netdev=e1,mac=52:54:00:1a:00:01,romfile=
		-netdev hubport,id=v0,hubid=1 -device virtio-net-pci,netdev=v0,mac=52:54:00:1b:00:00,romfile=
		-netdev hubport,id=v1,hubid=1 -device virtio-net-pci,netdev=v1,mac=52:54:00:1b:00:01,romfile=)
	if [ "$mode" = shell ]; then
		"${q[@]}" -serial mon:stdio
		return
	fi
	timeout -k 5 "$to" "${q[@]}" -serial "file:$rd/console.log" -monitor none </dev/null \
		>"$rd/qemu.log" 2>&1
}

cmd_run() {
	local to=600 mem=${LAB_MEM:-1536} keep=0 rd rc qpid
	while [ $# -gt 0 ]; do
		case $1 in
		--timeout) to=$2; shift 2 ;;
		--mem) mem=$2; shift 2 ;;
		--keep) keep=1; shift ;;
		--) shift; break ;;
		*) break ;;
		esac
	done
	[ $# -gt 0 ] || die "usage: vm.sh run [--timeout S] [--mem MB] [--keep] -- CMD..."
	setup || die "setup failed"
	mkdir -p "$LAB/runs"
	rd=$(mktemp -d "$LAB/runs/run.XXXXXX")
	chmod 777 "$rd"
	{
		local v
		for v in $(compgen -e); do	# the caller's test settings travel into the guest
			case $v in ETHTUNE*|LAB_*|O|KTAP*) echo "export $v=$(printf %q "${!v}")" ;; esac
		done
		echo "export LAB_OUT=/tmp/lab-out LAB_GUEST=1"
		echo "cd $(printf %q "$PWD") 2>/dev/null || cd /"
		printf '%q ' "$@"; echo
	} >"$rd/cmd"
	: >"$rd/output"
	boot run "$rd" "$to" "$mem" &
	qpid=$!
	tail -n +1 -f --pid=$qpid "$rd/output" 2>/dev/null
	wait $qpid
	rc=$?
	if [ -f "$rd/rc" ]; then
		rc=$(cat "$rd/rc")
	else
		[ $rc -eq 124 ] || [ $rc -eq 137 ] || rc=125
		# the guest kernel itself hung (emulated CPUs locked up): LAB_HUNG, not the test
		if grep -q 'soft lockup' "$rd/console.log" 2>/dev/null; then
			rc=$LAB_HUNG
			cp "$rd/console.log" "$O/lab-hang-$(date +%s).console.log" 2>/dev/null
			log "the guest kernel locked up; the report (whole console in $O/lab-hang-*):"
			grep -a -m 1 -A 12 'soft lockup' "$rd/console.log" | tr -d '\r' >&2
		fi
		log "guest did not finish (status $rc); console tail:"
		tail -n 40 "$rd/console.log" | tr -d '\r' >&2
		[ $rc -eq 137 ] && rc=124
	fi
	[ $keep -eq 1 ] && log "run files kept in $rd" || rm -rf "$rd"
	return "$rc"
}

# Without arguments (tests/run.sh): boot once and check the devices and modules are there.
selftest() {
	. "$ROOT/tests/lib/ktap.sh"
	ktap_header "lab: qemu guest boot and devices"
	. "$LAB_SRC/lib/host.sh"
	if ! command -v apt-get >/dev/null; then
		lab_unavailable "lab boots" "no apt-get to install the lab"; ktap_finish; return
	fi
	if ! setup >"$O/lab-setup.log" 2>&1; then
		lab_unavailable "lab boots" "lab setup failed (no network?); see $O/lab-setup.log"
		ktap_finish; return
	fi
	local out rc
	out=$(cmd_run --timeout 300 -- bash -c '
		for d in ee0 ee1 vn0 vn1 txsim0 txsim1; do
			printf "%s %s\n" $d "$(basename "$(readlink /sys/class/net/$d/device/driver 2>/dev/null ||
				ethtool -i $d | sed -n "s/^driver: //p")")"
		done
		rdma link show 2>/dev/null | grep -q rxe0 && echo "rxe0 ok"
		lsmod | grep -q "^txsim" && echo "txsim loaded"; uname -r' 2>&1)
	rc=$?
	printf '%s\n' "$out" | sed 's/^/# /'
	[ $rc -eq 0 ] && ktap_ok "guest boots and runs a command" || ktap_fail "guest boots and runs a command (status $rc)"
	for e in "ee0 e1000e" "ee1 e1000e" "vn0 virtio_net" "vn1 virtio_net" "txsim0 txsim" "txsim1 txsim"; do
		printf '%s\n' "$out" | grep -qx "$e" && ktap_ok "device ${e% *} is ${e#* }" ||
			ktap_fail "device ${e% *} is ${e#* }"
	done
	printf '%s\n' "$out" | grep -qx "rxe0 ok" && ktap_ok "rdma_rxe link rxe0 on ee0" ||
		ktap_fail "rdma_rxe link rxe0 on ee0"
	ktap_finish
}

case ${1:-} in
setup) setup ;;
run) shift; cmd_run "$@" ;;
shell)
	setup || die "setup failed"
	mkdir -p "$LAB/runs" && rd=$(mktemp -d "$LAB/runs/shell.XXXXXX")
	boot shell "$rd" 0 "${LAB_MEM:-1536}"
	rm -rf "$rd" ;;
"") selftest ;;
*) die "usage: vm.sh [setup | run [--timeout S] [--mem MB] [--keep] -- CMD... | shell]" ;;
esac
