# Driver lab (qemu guest with e1000e, virtio_net, rdma_rxe and txsim): see docs/lab.md.
# Fragments are read before the main targets: keep `make` meaning `make all`.
.DEFAULT_GOAL := all

LAB_VM := tests/lab/vm.sh

# Installs qemu, the guest kernel and headers, builds the initramfs and txsim.ko (cached in $(O)/lab).
lab-setup:
	O=$(O) $(LAB_VM) setup

# txsim.ko against the guest kernel's headers.
txsim: lab-setup

# Interactive root shell in the guest (chroot of the host root); `exit` powers the guest off.
lab-shell:
	O=$(O) $(LAB_VM) shell

# Run one command in the guest: make lab-run CMD="ethtool -c txsim0"
lab-run:
	O=$(O) $(LAB_VM) run -- bash -c '$(CMD)'

# Only the lab suite (the lab-check target of the Makefile also builds and runs unit tests).
lab-test: all
	ETHTUNE_SUITES=lab ./tests/run.sh

.PHONY: lab-setup txsim lab-shell lab-run lab-test
