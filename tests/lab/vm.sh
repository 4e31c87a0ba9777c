#!/bin/bash
# Driver lab: boots Debian's kernel under qemu (TCG) with real NIC drivers and txsim, runs a command.
# kernels: stable sid
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
# Status of a run whose guest kernel failed on the emulated platform, not on the test: it hung
# (soft lockup), or trapped on an int3 that live code patching had already removed.
LAB_HUNG=126
KMOD_SRC=$ROOT/drivers/txsim/kmod
# Guest modules loaded at boot, in this order (dependencies are resolved by modprobe -D).
GUEST_MODS="crc32_generic virtio_pci 9pnet_virtio 9p e1000e virtio_net veth sch_netem sch_fq ib_uverbs rdma_rxe"

log() { echo "lab: $*" >&2; }
die() { echo "lab: $*" >&2; exit 1; }
SUDO=""; [ "$(id -u)" -eq 0 ] || SUDO=sudo

# LAB_KERNEL picks the guest kernel: stable (the host's Debian suite) or sid (its newest kernel).
LAB_KERNEL=${LAB_KERNEL:-stable}
case $LAB_KERNEL in
stable|sid) ;;
*) die "LAB_KERNEL must be stable or sid, not '$LAB_KERNEL'" ;;
esac
SID_KEYRING=/usr/share/keyrings/debian-archive-keyring.gpg
SID_MIRROR="deb [signed-by=$SID_KEYRING] http://deb.debian.org/debian sid main"
# apt against sid's package lists, kept in $LAB/sid-apt/: the host's sources stay as they are.
# The mirror's sid Release file may be past its Valid-Until on these hosts' clocks (seen 25 days):
# it is still signed, and the packages are checked against it.
SID_VALID='Acquire::Check-Valid-Until=false'
SID_APT=(-o "Dir::Etc::sourcelist=$LAB/sid-apt/sources.list" -o Dir::Etc::sourceparts=-
	-o "Dir::State::Lists=$LAB/sid-apt/lists" -o "Dir::Cache=$LAB/sid-apt/cache"
	-o "$SID_VALID")

# kapt CMD ARGS...: apt-get or apt-cache against the suite of LAB_KERNEL
kapt() {
	local c=$1; shift
	if [ "$LAB_KERNEL" = sid ]; then "$c" "${SID_APT[@]}" "$@"; else "$c" "$@"; fi
}

# sid_lists [force]: sid's package lists, fetched when missing, older than a day, or forced
sid_lists() {
	local d=$LAB/sid-apt
	if [ -z "${1:-}" ] && [ -n "$(find "$d/lists" -maxdepth 1 -name '*_Packages*' -mmin -1440 \
		2>/dev/null)" ]; then
		return 0
	fi
	mkdir -p "$d/lists/partial" "$d/cache/archives/partial" || return 1
	echo "$SID_MIRROR" >"$d/sources.list"
	log "fetching sid's package lists"
	apt-get "${SID_APT[@]}" update -q >"$d/update.log" 2>&1 ||
		{ cat "$d/update.log" >&2; return 1; }
}

guest_abi() {	# the ABI that the suite's linux-image-amd64 metapackage currently names
	local abi
	[ -n "${LAB_ABI:-}" ] && { echo "$LAB_ABI"; return; }
	abi=$(kapt apt-cache depends linux-image-amd64 2>/dev/null |
		sed -n 's/.*Depends: linux-image-\([0-9][^ ]*\)-amd64$/\1/p' | head -1)
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
	# a setup of the other kernel may be installing too: wait for dpkg's lock
	$SUDO apt-get install -y -q --no-install-recommends -o DPkg::Lock::Timeout=600 $missing \
		>/dev/null 2>&1 || {
		$SUDO apt-get update -q -o DPkg::Lock::Timeout=600 >/dev/null 2>&1
		$SUDO apt-get install -y -q --no-install-recommends -o DPkg::Lock::Timeout=600 \
			$missing >/dev/null
	}
}

# The packages that hold a kernel's image and modules: one on stable (6.1); on sid the image
# package is empty and depends on linux-binary-* and linux-modules-* of the same version.
kernel_pkgs() {
	if [ "$LAB_KERNEL" = sid ]; then
		echo "linux-image-$1 linux-binary-$1 linux-modules-$1"
	else
		echo "linux-image-$1"
	fi
}

# Kernel image + modules of the guest, unpacked under $LAB/kernel/<abi>/.
fetch_kernel() {
	local abi=$1 kdir=$LAB/kernel/$1 deb pkgs
	[ -f "$kdir/.done" ] && return 0
	rm -rf "$kdir" && mkdir -p "$kdir/dl" || return 1
	pkgs=$(kernel_pkgs "$abi")
	log "downloading $pkgs"
	(cd "$kdir/dl" && kapt apt-get download $pkgs >/dev/null 2>&1) || {
		if [ "$LAB_KERNEL" = sid ]; then sid_lists force; else
			$SUDO apt-get update -q >/dev/null 2>&1; fi
		(cd "$kdir/dl" && kapt apt-get download $pkgs >/dev/null) || return 1
	}
	for deb in "$kdir"/dl/*.deb; do
		dpkg-deb -x "$deb" "$kdir/root" || return 1
	done
	rm -rf "$kdir/dl"
	# sid's packages put modules in usr/lib/modules (some in lib/modules) and the image at
	# lib/modules/<abi>/vmlinuz: one tree in lib/modules (where depmod and modprobe -d look),
	# the image in boot/ as on stable
	if [ -d "$kdir/root/usr/lib/modules" ]; then
		mkdir -p "$kdir/root/lib/modules" &&
			cp -a "$kdir/root/usr/lib/modules/." "$kdir/root/lib/modules/" &&
			rm -rf "$kdir/root/usr/lib/modules" || return 1
	fi
	local img=$kdir/root/lib/modules/$abi/vmlinuz
	if [ ! -f "$kdir/root/boot/vmlinuz-$abi" ] && [ -f "$img" ]; then
		mkdir -p "$kdir/root/boot" && mv "$img" "$kdir/root/boot/vmlinuz-$abi" || return 1
	fi
	[ -f "$kdir/root/boot/vmlinuz-$abi" ] || { log "no boot/vmlinuz-$abi in $pkgs"; return 1; }
	depmod -b "$kdir/root" "$abi" 2>"$kdir/depmod.log" ||
		{ cat "$kdir/depmod.log" >&2; return 1; }
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

# The sid chroot that builds modules for sid's kernel (its headers need gcc-16 and
# linux-kbuild-7.2, which do not run on bookworm): mmdebstrap, remade when the ABI changes.
sid_chroot() {
	local abi=$1 c=$LAB/sid-chroot
	[ "$(cat "$c.abi" 2>/dev/null)" = "$abi" ] && [ -d "$c/usr/src/linux-headers-$abi" ] &&
		return 0
	install_pkgs mmdebstrap || return 1
	log "making the sid chroot (mmdebstrap, linux-headers-$abi)"
	rm -rf "$c" "$c.tmp" "$c.abi"
	nice -n 19 mmdebstrap --variant=minbase --aptopt='Acquire::Check-Valid-Until "false"' \
		--include="gcc,make,libc6-dev,linux-headers-$abi" sid "$c.tmp" "$SID_MIRROR" \
		>"$LAB/sid-chroot.log" 2>&1 ||
		{ tail -20 "$LAB/sid-chroot.log" >&2; rm -rf "$c.tmp"; return 1; }
	mv "$c.tmp" "$c" && echo "$abi" >"$c.abi"
}

# txsim.ko for <abi>, built out of tree against that kernel's headers: $LAB/txsim-<abi>.ko
build_txsim() {
	local abi=$1 ko=$LAB/txsim-$1.ko b
	[ -f "$KMOD_SRC/txsim.c" ] || return 0
	if [ -f "$ko" ] && [ -z "$(find "$KMOD_SRC" -newer "$ko" -type f 2>/dev/null)" ]; then
		return 0
	fi
	log "building txsim.ko against $abi"
	if [ "$LAB_KERNEL" = sid ]; then
		sid_chroot "$abi" || return 1
		b=$LAB/sid-chroot/build/txsim
	else
		install_pkgs "linux-headers-$abi" || return 1
		b=$LAB/txsim-build-$abi
	fi
	rm -rf "$b" && mkdir -p "$b" && cp "$KMOD_SRC"/*.c "$KMOD_SRC"/Kbuild "$b"/ || return 1
	if [ "$LAB_KERNEL" = sid ]; then	# a private mount namespace: nothing stays mounted
		unshare -m sh -c 'mount -t proc proc "$1/proc" && mount --rbind /dev "$1/dev" &&
			exec nice chroot "$1" make -s -C "/usr/src/linux-headers-$2" \
			M=/build/txsim modules' - "$LAB/sid-chroot" "$abi" >"$b/build.log" 2>&1
	else
		nice make -s -C "/usr/src/linux-headers-$abi" M="$b" modules >"$b/build.log" 2>&1
	fi || { cat "$b/build.log" >&2; return 1; }
	grep -i warning "$b/build.log" >&2
	cp "$b/txsim.ko" "$ko.tmp" && mv "$ko.tmp" "$ko"
}

# setup: everything LAB_KERNEL's guest needs, under a lock of that kernel (setups of both
# kernels may run at once; the host's apt and dpkg take their own locks)
setup() {
	local abi
	mkdir -p "$LAB" || return 1
	exec 9>"$LAB/.setup-$LAB_KERNEL.lock"
	flock 9
	install_pkgs qemu-system-x86 busybox-static cpio kmod xz-utils zstd iproute2 ethtool \
		iperf3 jq || return 1
	if [ "$LAB_KERNEL" = sid ]; then sid_lists || return 1; fi
	abi=$(guest_abi) ||
		{ log "apt-cache names no $LAB_KERNEL linux-image-amd64 ABI"; return 1; }
	fetch_kernel "$abi" || { log "cannot fetch the guest kernel $abi"; return 1; }
	build_initrd "$abi" || return 1
	build_txsim "$abi" || return 1
	echo "$abi" >"$LAB/$LAB_KERNEL.abi"
	flock -u 9
	exec 9>&-
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
	abi=$(cat "$LAB/$LAB_KERNEL.abi") && kdir=$LAB/kernel/$abi
	local q=(qemu-system-x86_64 -accel "$(lab_accel)" -smp "${LAB_SMP:-2}" -m "$mem"
		-nographic -no-reboot -kernel "$kdir/root/boot/vmlinuz-$abi"
		-initrd "$LAB/initrd-$abi.gz"
		-append "console=ttyS0 loglevel=5 panic=-1 softlockup_panic=1 softlockup_all_cpu_backtrace=1 lab.mode=$mode lab.root=$ROOT lab.o=$O lab.txsim=$LAB/txsim-$abi.ko net.ifnames=0 ${LAB_APPEND:-}"
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
	local to=600 mem=${LAB_MEM:-1536} keep=0 rd="" rc qpid out= c
	while [ $# -gt 0 ]; do
		case $1 in
		--timeout) to=$2; shift 2 ;;
		--rundir) rd=$2; keep=1; shift 2 ;;
		--mem) mem=$2; shift 2 ;;
		--keep) keep=1; shift ;;
		--out) out=$2; shift 2 ;;
		--) shift; break ;;
		*) break ;;
		esac
	done
	[ $# -gt 0 ] || die "usage: vm.sh run [--timeout S] [--mem MB] [--keep] -- CMD..."
	setup || die "setup failed"
	mkdir -p "$LAB/runs"
	[ -n "$rd" ] || rd=$(mktemp -d "$LAB/runs/run.XXXXXX")
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
	# A guest that dies before its command starts (no rc, no "started" marker from the guest
	# init; sid's 7.2 under MTTCG was seen to Oops in early text patching ~1 boot in 12) is
	# booted again, at most twice, within the same time limit. Once the command has started,
	# every death counts.
	local try t0=$SECONDS left
	for try in 1 2 3; do
		rm -f "$rd/rc" "$rd/started" "$rd/console.log"
		: >"$rd/output"
		left=$((to - (SECONDS - t0)))
		[ $left -gt 0 ] || left=1
		boot run "$rd" "$left" "$mem" &
		qpid=$!
		tail -n +1 -f --pid=$qpid "$rd/output" 2>/dev/null
		wait $qpid
		rc=$?
		[ -f "$rd/rc" ] || [ -f "$rd/started" ] || [ $rc -eq 124 ] || [ $rc -eq 137 ] ||
			[ $try -eq 3 ] && break
		cp "$rd/console.log" "$O/lab-early-$(date +%s).console.log" 2>/dev/null
		log "the guest died before its command started (boot $try of 3, qemu status $rc;" \
			"console in $O/lab-early-*); booting again:"
		grep -a -m 3 'Oops\|BUG:\|Kernel panic\|RIP:' "$rd/console.log" | tr -d '\r' |
			sed 's/^/lab:   /' >&2
	done
	if [ -f "$rd/rc" ]; then
		rc=$(cat "$rd/rc")
	else
		[ $rc -eq 124 ] || [ $rc -eq 137 ] || rc=125
		# the whole console of a guest that died stays, for the report below is only its tail
		c=$O/lab-dead-$(date +%s)-$$.console.log
		cp "$rd/console.log" "$c" 2>/dev/null && log "the guest's whole console: $c"
		# the guest kernel itself hung (emulated CPUs locked up): LAB_HUNG, not the test
		if grep -q 'soft lockup' "$rd/console.log" 2>/dev/null; then
			rc=$LAB_HUNG
			log "the guest kernel locked up; the report:"
			grep -a -m 1 -A 12 'soft lockup' "$rd/console.log" | tr -d '\r' >&2
		# text_poke_bp puts an int3 on the first byte of the instruction it patches, and the
		# int3 handler emulates the new instruction until the patch is done. Under MTTCG a
		# vCPU takes that int3 after the patch is done, and the unclaimed trap kills the
		# kernel: sid's 7.2, twice, as txlat's programs attached while traffic ran, each
		# time with RIP one byte into a patched instruction, where an int3 trap leaves it
		# (napi_consume_skb+0x54 '66 <90>', bpf_trampoline_*+0x1a 'e9 <40>'). The kernel
		# patches itself there; the programs' own code is not involved.
		elif grep -aq 'int3: 0000 \[#' "$rd/console.log" 2>/dev/null; then
			rc=$LAB_HUNG
			log "the guest kernel trapped on a patched-out int3 (emulated code patching):"
			grep -a -m 1 -A 3 'int3: 0000 \[#' "$rd/console.log" | tr -d '\r' >&2
		fi
		log "guest did not finish (status $rc); console tail:"
		tail -n 40 "$rd/console.log" | tr -d '\r' >&2
		[ $rc -eq 137 ] && rc=124
	fi
	# what the guest left in $LAB_OUT/out for checks on the host (pages for the browser)
	if [ -n "$out" ] && [ -d "$rd/out" ]; then
		mkdir -p "$out" && cp -r "$rd/out/." "$out/"
	fi
	[ $keep -eq 1 ] && log "run files kept in $rd" || rm -rf "$rd"
	return "$rc"
}

# session DIR FILE...: the lab files in one guest (booted again only after one died), in order.
# Each file's result lands in DIR/res/NAME/ (output, and rc once nothing more will run it; the
# host's notes of its guests in DIR/notes.NAME); a file's host part waits there for it
# (lab_host_run). A guest that dies in a file marks that file failed and boots again for the
# rest; one whose kernel failed on the emulator (LAB_HUNG) runs the file once more first.
cmd_session() {
	local s=$1 f name to t n=0 rc cur wd
	shift
	mkdir -p "$s/res" && chmod 777 "$s" || return 1
	echo $$ >"$s/pid"
	setup >"$s/setup.log" 2>&1
	rc=$?
	echo $rc >"$s/setup.rc"
	[ $rc -eq 0 ] || return 1
	# each file's guest time limit, as its own lab_host_run names it
	: >"$s/plan.all"
	for f in "$@"; do
		f=$(cd "$(dirname "$f")" && pwd)/$(basename "$f")
		to=$(LAB_SESSION_PLAN=1 bash "$f" 2>/dev/null | tail -1)
		case $to in ''|*[!0-9]*) to=600 ;; esac
		echo "$(basename "$f" .sh) $to $f" >>"$s/plan.all"
	done
	cp "$s/plan.all" "$s/plan"
	while [ -s "$s/plan" ]; do
		n=$((n + 1))
		t=$(awk '{ t += $2 + 60 } END { print t + 120 }' "$s/plan")
		session_watchdog "$s" &
		wd=$!
		cmd_run --rundir "$s" --timeout "$t" -- bash "$LAB_SRC/lib/session-guest.sh" \
			/tmp/lab-out/plan >"$s/boot-$n.log" 2>&1
		rc=$?
		kill $wd 2>/dev/null
		wait $wd 2>/dev/null
		# what ran to the end is final; the first file without an rc is where the guest died
		: >"$s/plan.next"
		cur=""
		while read -r name to f; do
			if [ -f "$s/res/$name/rc" ]; then
				[ -z "$cur" ] && continue
			elif [ -z "$cur" ]; then
				cur=$name
				session_died "$s" "$name" "$rc" "$n" && continue
			fi
			echo "$name $to $f" >>"$s/plan.next"
		done <"$s/plan"
		mv "$s/plan.next" "$s/plan"
	done
	return 0
}

# session_died DIR NAME STATUS BOOT: the guest died in NAME; 1 when NAME is to run again
session_died() {
	local s=$1 name=$2 rc=$3 n=$4 r=$1/res/$2
	[ "$rc" -eq 0 ] && rc=125
	if [ -f "$r/started" ] && [ "$rc" -eq $LAB_HUNG ] && [ ! -f "$s/retried.$name" ]; then
		: >"$s/retried.$name"
		{
			echo "the guest kernel failed on the emulator (a soft lockup, or a stale int3" \
				"of code patching) in the first run; running $name again:"
			grep -ao 'BUG: soft lockup.*\|int3: 0000.*\|Kernel panic.*\|RIP: 0010.*' \
				"$s/boot-$n.log" | awk '!s[$0]++' | head -n 3 | sed 's/^/  /'
		} >>"$s/notes.$name"
		mv "$r/output" "$s/output1.$name" 2>/dev/null
		rm -f "$r/started"
		return 1
	fi
	mkdir -p "$r"
	[ -f "$r/started" ] || echo "the guest died before $name started" >>"$s/notes.$name"
	echo "the guest did not finish $name (status $rc); the host's log of that boot:" \
		>>"$s/notes.$name"
	tail -n 40 "$s/boot-$n.log" | tr -d '\r' | sed 's/^/  /' >>"$s/notes.$name"
	echo "$rc" >"$r/rc"
	return 0
}

# session_watchdog DIR: ends the guest once a file has run 60 s past its time limit (a guest
# that hangs without a soft lockup's report would otherwise hold the session to its end)
session_watchdog() {
	local s=$1 name to f cur="" since=0
	while sleep 5; do
		while read -r name to f; do
			[ -f "$s/res/$name/started" ] && [ ! -f "$s/res/$name/rc" ] || continue
			[ "$cur" = "$name" ] || { cur=$name; since=$SECONDS; }
			if [ $((SECONDS - since)) -gt $((to + 60)) ]; then
				pkill -f "path=$s,mount_tag=labout"
				return
			fi
			break
		done <"$s/plan"
	done
}

# Without arguments (tests/run.sh): in the guest, check the devices and modules are there.
selftest() {
	local ET=${ETHTUNE:-$O/ethtune} abi e d
	. "$ROOT/tests/lib/ktap.sh"
	. "$LAB_SRC/lib/host.sh"
	lab_host_run "$LAB_SRC/vm.sh" 300 "lab: qemu guest boot and devices ($LAB_KERNEL kernel)"
	# ---- guest ----
	ktap_header "lab: the guest's kernel and devices"
	abi=$(cat "$LAB/$LAB_KERNEL.abi" 2>/dev/null)
	[ "$(uname -r)" = "$abi" ] && ktap_ok "the guest booted $LAB_KERNEL's kernel $abi" ||
		ktap_fail "the guest booted $LAB_KERNEL's kernel $abi (uname -r: $(uname -r))"
	ktap_ok "guest boots and runs a command"
	for e in "ee0 e1000e" "ee1 e1000e" "vn0 virtio_net" "vn1 virtio_net" "txsim0 txsim" \
		"txsim1 txsim"; do
		d=$(basename "$(readlink "/sys/class/net/${e% *}/device/driver" 2>/dev/null ||
			ethtool -i "${e% *}" | sed -n "s/^driver: //p")")
		[ "$d" = "${e#* }" ] && ktap_ok "device ${e% *} is ${e#* }" ||
			ktap_fail "device ${e% *} is ${e#* } (driver '$d')"
	done
	rdma link show 2>/dev/null | grep -q rxe0 && ktap_ok "rdma_rxe link rxe0 on ee0" ||
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
session) shift; cmd_session "$@" ;;
"") selftest ;;
*) die "usage: vm.sh [setup | run [--timeout S] [--mem MB] [--keep] -- CMD... | session DIR FILE... | shell]" ;;
esac
