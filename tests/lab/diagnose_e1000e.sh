#!/bin/bash
# Ground truth for `ethtune diagnose` on e1000e: its default and a long interrupt throttle, diagnosed twice.
# timeout: 1400
set -u
ROOT=${ETHTUNE_ROOT:-$(cd "$(dirname "$0")/../.." && pwd)}
. "$ROOT/tests/lib/ktap.sh"
ET=${ETHTUNE:-$ROOT/${O:-build}/ethtune}
. "$ROOT/tests/lab/lib/host.sh"
lab_host_run "$0" "${LAB_DIAG_TIMEOUT:-600}" "diagnose: ground-truth matrix on e1000e"

# ---- guest ----
. "$ROOT/tests/lab/lib/guest.sh"
. "$ROOT/tests/lab/lib/diagnose.sh"
ktap_header "diagnose: ground-truth matrix on e1000e in the guest ($(uname -r))"

wait_peer() {	# until a ping crosses again (a driver may reset its link on a change)
	local i
	for i in $(seq 50); do
		ip netns exec $LAB_NS_A busybox ping -c1 -W1 198.18.0.2 >/dev/null 2>&1 && break
		sleep 0.2
	done
	sleep 1
}
ee_itr() { ip netns exec $LAB_NS_A ethtool -C ee0 rx-usecs "$1"; wait_peer; }

# Real drivers at their defaults and in a deliberately bad setting.
if lab_split ee0 ee1; then
	serve_b
	wait_peer # qemu's e1000e may still reset its link just after it came up
	# the default first: after an ITR change qemu's e1000e takes a while to settle
	for r in $(seq "$REPS"); do
		run "e1000e-default.$r" ee0 ee1 || ktap_diag "e1000e-default.$r: diagnose failed"
	done
	ee_itr 8000
	for r in $(seq "$REPS"); do
		run "e1000e-itr8000.$r" ee0 ee1 || ktap_diag "e1000e-itr8000.$r: diagnose failed"
	done
	ee_itr 3
	lab_unsplit
	# At its default ITR e1000e completes within ~50 us. Now and then qemu's e1000e stalls one
	# flow for reasons outside TX completion (CI-G: one flow 374 [-59, 808] Mbit/s over 7 rounds,
	# two flows 700, D 43 us): the loss is real but no completion delay explains it, and diagnose
	# says inconclusive, naming what to look at. That is right; a completion finding never is,
	# and D must read prompt either way.
	check e1000e-default "prompt-completion|inconclusive" "<200"
	# rx-usecs 8000 is e1000e's ITR, which gates its TX cleanup: one skb alone waits for the
	# next of interrupts 8 ms apart, a median of 4-5 ms (a quarter to all of the interval). Under bulk load qemu's e1000e is bimodal from run to run: one
	# flow either stays near line rate (the model's 35% cost is not seen: inconclusive, the
	# data cannot decide) or is capped the way the model says (measured 64%, model 64%:
	# delayed-completion). Both are right; prompt-completion never is (D is 4 ms).
	check e1000e-itr8000 "delayed-completion|inconclusive" 2000-8800
else
	ktap_fail "e1000e pair in two namespaces"
fi
diag_finish
