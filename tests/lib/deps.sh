#!/bin/sh
# Installs the Debian packages ethtune builds and tests with (idempotent; quiet when present).
set -e
PKGS="build-essential pkg-config libmnl-dev libjansson-dev libcmocka-dev libbpf-dev bpftool
clang llvm libelf-dev zlib1g-dev libibverbs-dev rdma-core ibverbs-providers iproute2 ethtool
iperf3 sockperf jq kmod procps qemu-system-x86 busybox-static cpio python3
python3-jsonschema python3-selenium chromium chromium-driver libssl-dev libcap-ng-dev libclang-rt-dev valgrind strace
udev systemd network-manager tuned ifupdown prometheus prometheus-node-exporter
debhelper lintian ansible-core ansible-lint openssh-server"
missing=""
for p in $PKGS; do
	dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing="$missing $p"
done
[ -z "$missing" ] && exit 0
echo "deps: installing$missing"
SUDO=""; [ "$(id -u)" -eq 0 ] || SUDO=sudo
export DEBIAN_FRONTEND=noninteractive
# network-manager, tuned and ifupdown are there for tests/ns/export.sh, which runs their readers
# offline; prometheus (promtool) and prometheus-node-exporter for tests/ns/prom.sh, which starts
# its own node_exporter in a namespace: no daemon of theirs may start on install (policy-rc.d
# refuses every service start)
if [ ! -e /usr/sbin/policy-rc.d ]; then
	printf '#!/bin/sh\nexit 101\n' | $SUDO tee /usr/sbin/policy-rc.d >/dev/null
	$SUDO chmod 755 /usr/sbin/policy-rc.d
	trap '$SUDO rm -f /usr/sbin/policy-rc.d' EXIT
fi
# debhelper and lintian: tests/unit/deb.sh builds the Debian package (contrib/debian; dpkg-dev
# comes with build-essential, and Rules-Requires-Root: no needs no fakeroot) and checks it.
# ansible-core, ansible-lint and openssh-server: tests/ns/fleet_ansible.sh runs contrib/ansible
# over ssh to an sshd of its own in each namespace it makes; the system's ssh service must never
# start (on install policy-rc.d refuses it; at boot this file, which Debian's ssh.service and
# init script honour, keeps it down).
case " $missing " in *" openssh-server "*)
	[ -e /etc/ssh/sshd_not_to_be_run ] || { $SUDO mkdir -p /etc/ssh && $SUDO touch /etc/ssh/sshd_not_to_be_run; } ;;
esac
$SUDO apt-get update -q >/dev/null
$SUDO apt-get install -y -q --no-install-recommends $missing >/dev/null
