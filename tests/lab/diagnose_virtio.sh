#!/bin/bash
# Ground truth for `ethtune diagnose` on virtio_net: napi_tx (its default) and orphan mode, diagnosed twice (once on sid).
# kernels: stable sid
# timeout: 1400
set -u
ROOT=${ETHTUNE_ROOT:-$(cd "$(dirname "$0")/../.." && pwd)}
. "$ROOT/tests/lib/ktap.sh"
ET=${ETHTUNE:-$ROOT/${O:-build}/ethtune}
. "$ROOT/tests/lab/lib/host.sh"
lab_host_run "$0" "${LAB_DIAG_TIMEOUT:-600}" "diagnose: ground-truth matrix on virtio_net"

# ---- guest ----
. "$ROOT/tests/lab/lib/guest.sh"
. "$ROOT/tests/lab/lib/diagnose.sh"
ktap_header "diagnose: ground-truth matrix on virtio_net in the guest ($(uname -r))"
vn_mode() {	# tx-frames 0|1 switches napi_tx, which virtio_net takes only with the link down
	local A="ip netns exec $LAB_NS_A"
	$A ip link set vn0 down
	$A ethtool -C vn0 tx-frames "$1"
	$A ip link set vn0 up
	for i in $(seq 50); do
		$A busybox ping -c1 -W1 198.18.0.2 >/dev/null 2>&1 && return 0
		sleep 0.2
	done
}
if lab_split vn0 vn1; then
	serve_b
	for r in $(seq "$REPS"); do
		vn_mode 1
		run "virtio-default.$r" vn0 vn1 || ktap_diag "virtio-default.$r: diagnose failed"
		vn_mode 0
		run "virtio-orphan.$r" vn0 vn1 || ktap_diag "virtio-orphan.$r: diagnose failed"
	done
	vn_mode 1
	lab_unsplit
	# One flow through an emulated virtio_net runs on one vCPU and two flows on both, so one flow
	# may stay measurably below two without any completion cause (cpu-bound, or inconclusive
	# where the sender's CPU does not read as saturated). A completion finding would be wrong.
	check_none virtio-default "delayed-completion|completion-stalls|orphans-at-xmit|software-device"
	check virtio-orphan "orphans-at-xmit"
else
	ktap_fail "virtio_net pair in two namespaces"
fi
diag_finish
