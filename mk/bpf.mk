# BPF backend (ethtune txlat): libbpf, clang and bpftool (Debian: libbpf-dev, clang, bpftool).
# Found with pkg-config or the header, and the two tools on PATH; WITH_BPF=0 (or 1) overrides.
# Without it ethtune/trace/txlat.c is not compiled: ethtune/trace/txlat_none.c takes its place
# (`ethtune txlat` names the packages) and unit tests with a "// NEEDS: bpf" line report a KTAP
# SKIP. A new file that needs libbpf or the skeletons goes into BPF_TOOL_SRCS.
#
# BPF skeletons: clang -target bpf, then bpftool gen skeleton into $(O)/.
# vmlinux.h comes from the build host's BTF when it has one; otherwise (or with
# BPF_VMLINUX=min) from ethtune/trace/bpf/vmlinux_min.h, which is enough because CO-RE relocates
# every field against the running kernel's BTF at load time.
CLANG		?= clang
BPFTOOL		?= $(shell command -v bpftool 2>/dev/null || echo /usr/sbin/bpftool)
VMLINUX_BTF	?= /sys/kernel/btf/vmlinux
BPF_VMLINUX	?= $(if $(wildcard $(VMLINUX_BTF)),btf,min)
BPF_TOOL_SRCS	:= ethtune/trace/txlat.c
BPF_NONE_SRCS	:= ethtune/trace/txlat_none.c
ifeq ($(origin WITH_BPF),undefined)
WITH_BPF	:= $(shell { $(PKG_CONFIG) --exists libbpf 2>/dev/null || \
			$(CC) -E -x c -include bpf/libbpf.h /dev/null >/dev/null 2>&1; } && \
			command -v $(CLANG) >/dev/null 2>&1 && command -v $(BPFTOOL) >/dev/null 2>&1 && \
			echo 1 || echo 0)
endif
BPF_ARCH	:= $(shell uname -m | sed -e 's/x86_64/x86/' -e 's/aarch64/arm64/' -e 's/ppc64le/powerpc/' \
			-e 's/s390x/s390/' -e 's/riscv64/riscv/')
BPF_MULTIARCH	:= $(shell $(CC) -print-multiarch 2>/dev/null)
BPF_CFLAGS	:= -g -O2 -Wall -target bpf -D__TARGET_ARCH_$(BPF_ARCH) -I$(O)/bpf -Iethtune/trace/bpf \
		   $(if $(BPF_MULTIARCH),-I/usr/include/$(BPF_MULTIARCH))
BPF_SRCS	:= $(wildcard ethtune/trace/bpf/*.bpf.c)
BPF_SKELS	:= $(patsubst ethtune/trace/bpf/%.bpf.c,$(O)/bpf/%.skel.h,$(BPF_SRCS))

$(O)/bpf/vmlinux.h: $(if $(filter btf,$(BPF_VMLINUX)),$(VMLINUX_BTF),ethtune/trace/bpf/vmlinux_min.h)
	@mkdir -p $(dir $@)
ifeq ($(BPF_VMLINUX),btf)
	$(BPFTOOL) btf dump file $(VMLINUX_BTF) format c > $@.tmp || \
		cp ethtune/trace/bpf/vmlinux_min.h $@.tmp
else
	cp ethtune/trace/bpf/vmlinux_min.h $@.tmp
endif
	mv $@.tmp $@

$(O)/bpf/%.bpf.o: ethtune/trace/bpf/%.bpf.c ethtune/trace/bpf/%.h $(O)/bpf/vmlinux.h
	$(CLANG) $(BPF_CFLAGS) -c $< -o $@

# "gen object" links the object and drops its DWARF: the skeleton embeds only what loads.
$(O)/bpf/%.skel.h: $(O)/bpf/%.bpf.o
	$(BPFTOOL) gen object $(O)/bpf/$*.lbpf.o $<
	$(BPFTOOL) gen skeleton $(O)/bpf/$*.lbpf.o name $*_bpf > $@.tmp
	mv $@.tmp $@

CFLAGS		+= -I$(O)/bpf -Iethtune/trace/bpf
ifeq ($(WITH_BPF),1)
TOOL_SRCS	:= $(filter-out $(BPF_NONE_SRCS),$(TOOL_SRCS))
EXTRA_DEPS	+= $(BPF_SKELS)
EXTRA_LDLIBS	+= $(shell $(PKG_CONFIG) --libs libbpf 2>/dev/null || echo -lbpf -lelf -lz)
else
TOOL_SRCS	:= $(filter-out $(BPF_TOOL_SRCS),$(TOOL_SRCS))
UNIT_MISSING	+= bpf
endif
